"""Labelled transition systems.

Notation: ``c`` a configuration (immutable, hashable), ``t = (event, rule,
clauses, c')`` a transition.  ``enabled(c)`` is the set of transitions the
specification permits from ``c``; ``c`` is terminal when it is empty.  A
``Trace`` is the sequence of events of one path from the initial
configuration.

The kernel knows nothing about any specification: events are JSON objects
(``{"event": "step_started", …}``) so that the model and an engine produce
traces of the same shape.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import attrs

from wforacle.model.kernel import budget

C = TypeVar("C")
Event = dict[str, Any]


class Worded(str):
    """Text an engine words itself, which any text an engine reports matches.

    A specification may fix that an event carries a human-facing message
    without fixing its words (w6w's StepError.message, "Human-facing
    message", for an error the engine raises itself).  The model still
    writes some text, which ``run`` prints; when the checker compares an
    engine's event with the model's (``==`` on their JSON), any string
    equals it: Python tries a subclass's ``__eq__`` first, from either side.
    Its hash is the text's, so configurations stay hashable; two that differ
    only in such words are the same configuration.
    """

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str)

    def __ne__(self, other: object) -> bool:
        return not isinstance(other, str)

    __hash__ = str.__hash__


@attrs.frozen
class Transition(Generic[C]):
    """One permitted step: what is observed, which rule allows it, where it leads."""

    event: Event = attrs.field(eq=False)
    rule: str
    clauses: tuple[str, ...]
    target: C
    nested: ClassVar[tuple[str, ...]] = ()  # a Nesting's own field; none here


@attrs.frozen
class Nesting(Transition[C]):
    """A transition that ran a nested run inside it (w6w: a control's sub-block, a call's child).

    ``nested``: the clauses of the nested run's transitions.  They are what
    the step exercised (campaign coverage, oracle/check.py), not what
    allows it: ``clauses`` stays its own rule's, which a divergence cites.
    """

    # An instance field over the base's empty class constant: the checker reads
    # ``transition.nested`` of every transition at the cost of one attribute load.
    nested: tuple[str, ...] = ()  # type: ignore[misc]


class Semantics(Protocol[C]):
    """What a specification's semantics provides to the kernel."""

    def initial(self) -> C:
        """The configuration a run starts in."""
        ...

    def enabled(self, config: C) -> Sequence[Transition[C]]:
        """Every transition permitted from ``config`` (empty: terminal)."""
        ...


Scheduler = Callable[[Sequence[Transition[Any]]], int]


def first(choices: Sequence[Transition[Any]]) -> int:
    """Always the first permitted transition (the specification's own order)."""
    return 0


def seeded(seed: int) -> Scheduler:
    """A pseudo-random choice among the permitted transitions, reproducible by seed."""
    chooser = random.Random(seed)
    return lambda choices: chooser.randrange(len(choices))


class Divergent(Exception):
    """A path longer than the step bound: the semantics does not terminate here."""


@attrs.frozen
class Execution(Generic[C]):
    """One path: the transitions taken and the configuration it ends in."""

    steps: tuple[Transition[C], ...]
    final: C

    @property
    def trace(self) -> list[Event]:
        """The observable events, in order."""
        return [step.event for step in self.steps]


def execute(
    semantics: Semantics[C], scheduler: Scheduler = first, max_steps: int = 100_000
) -> Execution[C]:
    """Follow one path from the initial configuration to a terminal one."""
    execution, stopped = execute_bounded(semantics, scheduler, max_steps)
    if stopped is not None:
        raise Divergent(f"no terminal configuration within {max_steps} transitions")
    return execution


def execute_bounded(
    semantics: Semantics[C],
    scheduler: Scheduler = first,
    max_steps: int = 100_000,
    seconds: float | None = None,
    states: bool = True,
) -> tuple[Execution[C], str | None]:
    """One path, stopped after ``max_steps`` transitions or ``seconds``: why it stopped, or None.

    The execution ends in a terminal configuration unless a bound stopped it
    first (``run --max-steps/--time-budget``, issue 19): then it holds the
    path so far, and the reason says which bound.  The time budget is also
    polled inside a transition (model/kernel/budget.py).  Without ``states``
    the transitions kept hold no target configuration (``target`` None): a
    caller that needs only the trace and the final configuration keeps the
    path in memory proportional to its events, not to events × document.
    """
    timed = budget.time_budget(seconds) if seconds is not None else contextlib.nullcontext()
    with timed, budget.bounded() as outermost:
        return _execute_bounded(semantics, scheduler, max_steps, seconds, outermost, states)


def _execute_bounded(
    semantics: Semantics[C],
    scheduler: Scheduler,
    max_steps: int,
    seconds: float | None,
    outermost: bool,
    states: bool = True,
) -> tuple[Execution[C], str | None]:
    deadline = None if seconds is None else time.perf_counter() + seconds
    config = semantics.initial()
    taken: list[Transition[C]] = []
    for step in range(max_steps):
        try:
            choices = semantics.enabled(config)  # a long transition polls the budget inside
        except budget.Stopped as spent:
            if not outermost:
                raise
            return Execution(tuple(taken), config), str(spent)
        if not choices:
            return Execution(tuple(taken), config), None
        if deadline is not None and step % 64 == 0 and time.perf_counter() > deadline:
            return Execution(tuple(taken), config), f"the time budget ({seconds:g} s) was spent"
        chosen = choices[scheduler(choices)]
        config = chosen.target
        taken.append(chosen if states else attrs.evolve(chosen, target=None))  # type: ignore[arg-type]
    try:
        more = semantics.enabled(config)
    except budget.Stopped as spent:
        if not outermost:
            raise
        return Execution(tuple(taken), config), str(spent)
    if not more:
        return Execution(tuple(taken), config), None
    return Execution(tuple(taken), config), f"the step bound ({max_steps} transitions) was reached"
