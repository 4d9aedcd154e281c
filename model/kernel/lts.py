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

import random
from collections.abc import Callable, Sequence
from typing import Any, Generic, Protocol, TypeVar

import attrs

C = TypeVar("C")
Event = dict[str, Any]


@attrs.frozen
class Transition(Generic[C]):
    """One permitted step: what is observed, which rule allows it, where it leads."""

    event: Event = attrs.field(eq=False)
    rule: str
    clauses: tuple[str, ...]
    target: C


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
    config = semantics.initial()
    taken: list[Transition[C]] = []
    for _ in range(max_steps):
        choices = semantics.enabled(config)
        if not choices:
            return Execution(tuple(taken), config)
        chosen = choices[scheduler(choices)]
        taken.append(chosen)
        config = chosen.target
    raise Divergent(f"no terminal configuration within {max_steps} transitions")
