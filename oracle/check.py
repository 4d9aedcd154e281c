"""Trace checking: whether an observed trace is one the specification permits.

Notation: ``F_k`` is the set of model configurations consistent with the
first ``k`` observed events — ``F_0 = {initial}`` and ``F_{k+1} = {c' | c ∈
F_k, (e, c') ∈ enabled(c), e ≈ observed[k]}``, deduplicated by configuration
key.  The trace is permitted when every ``F_k`` is non-empty and ``F_n``
holds a terminal configuration (the run ended).  The cost is the sum of the
frontier sizes, so it grows with the trace's length, not with the number
of interleavings that produce it.

Events match (``≈``) when they agree on every field but the clock stamp
``at``: an engine's clock is its own, and no rule reads time (A-52).
Nested ``inner`` events (a control's sub-block, a call's child run) match
the same way, element by element, once the semantics has put an observed
event in its ``canonical`` form where it defines one (w6w: a parallel
control's branches one after the other, A-160).

When ``F_{k+1}`` is empty the verdict names index ``k``, the observed event,
the events the model permits there, and the clauses of the rules that
govern what should have happened: the permitted transitions of the same
event name and step if there are any, otherwise every permitted one — in
the order the rules list them, the specification's before assumptions.

A semantics may offer ``enabled_for(c, event)``: the transitions of
``enabled(c)`` that ``event`` can be, in their order — a sublist holding
every one that matches (w6w: the transitions of the event's step's strand).
``check`` then computes no more than that, and every permitted transition
only for a divergence's report.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import attrs

from wforacle.model.kernel import budget
from wforacle.model.kernel.lts import Event, Semantics, Transition
from wforacle.properties.specification import Divergence

__all__ = [
    "Divergence",
    "FrontierTooLarge",
    "Verdict",
    "check",
    "differing",
    "events",
    "frontiers",
    "matches",
    "model_run",
    "projection",
]

C = TypeVar("C")
# The two messages of a divergent event, which oracle/explain.py tells apart: the
# model has an event of the engine's kind here (fields differ), or none at all.
DIFFERS = "{} differs from what the model permits here"
NO_EVENT = "the model permits no {} event here"


def projection(event: Any) -> Any:
    """What of an event must match: every field but ``at``, and so for the events in ``inner``.

    ``at`` is the event's own time; a value that merely holds an ``at``
    member (a step's output, a stop's result) is compared whole.
    """
    if isinstance(event, dict):
        return {k: (_events(v) if k == "inner" else v) for k, v in event.items() if k != "at"}
    return event


def _events(value: Any) -> Any:
    """The projection of ``inner``: events, or lists of them (a Harness body's traces)."""
    if isinstance(value, list):
        return [_events(v) for v in value]
    return projection(value)


def differing(model: Event, observed: Event) -> list[str]:
    """The fields two events differ in as ``check`` compares them (``projection``), sorted."""
    a, b = projection(model), projection(observed)
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))


def _comparand(observed: Any) -> dict[str, Any] | None:
    """A copy of an observed event for ``_agrees`` to compare with (its ``inner`` projected).

    None when the event is not a dict: then ``matches`` compares it.
    """
    if type(observed) is not dict:
        return None
    return projection(observed) if "inner" in observed else dict(observed)


def _agrees(model: Event, wanted: dict[str, Any]) -> bool:
    """``matches(model, observed)`` with ``wanted`` the observed event's ``_comparand``.

    A model event that nests no events is compared whole with ``wanted``
    holding its own ``at`` (which ``wanted`` may overwrite: check owns it),
    so neither is copied; another is projected, ``wanted`` without ``at``.
    """
    if type(model) is dict and "inner" not in model and "at" in model:
        wanted["at"] = model["at"]
        return model == wanted
    wanted.pop("at", None)
    return bool(projection(model) == wanted)


def _canonical(semantics: Any) -> Callable[[Event], Event]:
    """How the semantics compares an observed event: its ``canonical`` form, where it has one.

    w6w: a parallel control's sub-block events in branch order (A-160); the
    other specifications compare events as they come.
    """
    found = getattr(semantics, "canonical", None)
    return found if callable(found) else _as_is


def _as_is(event: Event) -> Event:
    return event


def matches(model: Event, observed: Event) -> bool:
    """Whether an observed event is the model's (``≈`` in the notation)."""
    return bool(projection(model) == projection(observed))


@attrs.frozen
class Verdict(Generic[C]):
    """The result of checking one trace."""

    divergence: Divergence | None
    events: int  # events checked
    max_frontier: int  # the largest set of consistent configurations tracked
    finals: tuple[C, ...] = attrs.field(eq=False, default=())  # terminal configurations reached
    # The clauses of the model's transitions that matched an observed event (coverage:
    # oracle/coverage.py); up to the divergence when there is one.
    exercised: frozenset[str] = attrs.field(eq=False, default=frozenset())

    @property
    def permitted(self) -> bool:
        """Whether the trace is one the model permits."""
        return self.divergence is None


def check(
    semantics: Semantics[C],
    key: Callable[[C], Hashable],
    trace: Sequence[Event],
    max_frontier: int = 10_000,
) -> Verdict[C]:
    """Check ``trace`` against ``semantics`` incrementally (see the module notation)."""
    frontier: dict[Hashable, C] = {}
    initial = semantics.initial()
    frontier[key(initial)] = initial
    largest = 1
    exercised: set[str] = set()
    canonical = _canonical(semantics)
    candidates = _candidates(semantics)
    limit = budget.current()  # a time budget in force (check --time-budget) holds per event
    for index, observed in enumerate(trace):
        if limit is not None and time.monotonic() > limit[1]:
            raise budget.BudgetSpent(limit[0])
        observed = canonical(observed)
        matched: list[C] = []
        wanted = _comparand(observed)
        name = observed.get("event")
        for config in frontier.values():
            for transition in candidates(config, observed):
                event = transition.event
                if event.get("event") == name and (
                    matches(event, observed) if wanted is None else _agrees(event, wanted)
                ):
                    matched.append(transition.target)
                    exercised.update(transition.clauses)
                    if transition.nested:  # a nested run's (lts.Nesting)
                        exercised.update(transition.nested)
        # One match needs no key: keys only deduplicate several (the common case
        # of a trace that has already told the interleavings apart costs no key).
        if len(matched) == 1:
            following: dict[Hashable, C] = {0: matched[0]}
        else:
            following = {}
            for target in matched:
                following.setdefault(key(target), target)
        if not following:
            choices = [t for c in frontier.values() for t in semantics.enabled(c)]
            divergence = _diverged(index, observed, choices)
            return Verdict(divergence, index, largest, exercised=frozenset(exercised))
        if len(following) > max_frontier:
            raise FrontierTooLarge(
                f"more than {max_frontier} configurations are consistent with the first "
                f"{index + 1} events"
            )
        frontier = following
        if len(frontier) > largest:
            largest = len(frontier)
    finals = tuple(c for c in frontier.values() if not semantics.enabled(c))
    if not finals:
        choices = [t for c in frontier.values() for t in semantics.enabled(c)]
        divergence = _diverged(len(trace), None, choices)
        return Verdict(divergence, len(trace), largest, exercised=frozenset(exercised))
    return Verdict(None, len(trace), largest, finals, frozenset(exercised))


def _candidates(semantics: Semantics[C]) -> Callable[[C, Event], Sequence[Transition[C]]]:
    """``semantics.enabled_for`` if it offers one (see the module notation), else ``enabled``."""
    narrowed = getattr(semantics, "enabled_for", None)
    if narrowed is not None:
        return narrowed  # type: ignore[no-any-return]
    return lambda config, observed: semantics.enabled(config)


Path = tuple[Event, Any] | None  # (the last event, the path before it), or None


def frontiers(
    semantics: Semantics[C], key: Callable[[C], Hashable], prefix: Sequence[Event], limit: int
) -> Iterator[dict[Hashable, tuple[C, Path]]]:
    """The configurations consistent with each prefix of ``prefix``: check.py's ``F_0 … F_k``.

    One dict per prefix, the empty one first, each configuration keyed by
    ``key`` with the model's own events to it (a linked path: ``events``),
    at most ``limit`` kept; the first empty one (the model permits no
    continuation) is the last.  ``check`` keeps its own loop: it needs no
    key while one configuration fits, and no events.
    """
    initial = semantics.initial()
    frontier: dict[Hashable, tuple[C, Path]] = {key(initial): (initial, None)}
    yield frontier
    canonical = _canonical(semantics)
    for observed in prefix:
        wanted = projection(canonical(observed))
        following: dict[Hashable, tuple[C, Path]] = {}
        for config, path in frontier.values():
            for transition in semantics.enabled(config):
                if projection(transition.event) == wanted and len(following) < limit:
                    following.setdefault(
                        key(transition.target), (transition.target, (transition.event, path))
                    )
        yield following
        if not following:
            return
        frontier = following


def events(path: Path) -> list[Event]:
    """A linked path's events, first to last."""
    found: list[Event] = []
    while path is not None:
        found.append(path[0])
        path = path[1]
    return found[::-1]


def model_run(
    semantics: Semantics[C],
    key: Callable[[C], Hashable],
    trace: Sequence[Event],
    index: int,
    max_frontier: int = 10_000,
    max_steps: int = 1_000,
) -> list[Event]:
    """The model's events of one run that agrees with the first ``index`` observed events.

    Beside a divergence at event ``index`` (a report shows them side by
    side): the configurations consistent with the prefix are followed as
    ``check`` follows them, each with the model's own events (its clock
    stamps, not the engine's); from the first of them the run goes on by the
    first permitted transition each time (so its event at ``index`` is one
    the divergence lists as permitted), to a terminal configuration or
    ``max_steps`` events.  A prefix the model does not permit ends the run
    where it stops matching.
    """
    frontier: dict[Hashable, tuple[C, Path]] = {}
    for found in frontiers(semantics, key, trace[:index], max_frontier):
        if not found:
            break
        frontier = found
    config, path = next(iter(frontier.values()))
    run = events(path)
    while len(run) < max_steps:
        choices = semantics.enabled(config)
        if not choices:
            break
        run.append(choices[0].event)
        config = choices[0].target
    return run


def run_level(event: Event) -> bool:
    """Whether an event is about the run, not a unit of it (``run_finished``, ``run_suspended``).

    Its ``step`` (w6w: the failing step, the suspended one) is a field that
    may be wrong, not the unit the event is about: a ``run_suspended`` naming
    the wrong step *differs from* the permitted one, it is not an event the
    model has no counterpart for.
    """
    name = event.get("event")
    return isinstance(name, str) and name.startswith("run_")


class FrontierTooLarge(Exception):
    """More configurations are consistent with a prefix than the bound allows."""


def _diverged(index: int, observed: Event | None, choices: list[Transition[Any]]) -> Divergence:
    permitted: list[Event] = []
    seen = set()
    for choice in choices:
        text = repr(projection(choice.event))
        if text not in seen:
            seen.add(text)
            permitted.append(choice.event)
    if observed is None:
        governing = choices
        message = "the trace ends before the run does"
    else:
        governing = [
            c
            for c in choices
            if c.event.get("event") == observed.get("event")
            and (run_level(observed) or c.event.get("step") == observed.get("step"))
        ] or choices
        if not choices:
            message = "the model's run had already ended"
        elif governing is not choices:
            message = DIFFERS.format(observed.get("event"))
        else:
            message = NO_EVENT.format(observed.get("event"))
    # The governing rules' clauses in the order each rule lists them (its own rule
    # first), each once; assumptions after the specification's clauses.
    cited = list(dict.fromkeys(clause for c in governing for clause in c.clauses))
    clauses = sorted(cited, key=lambda clause: clause.startswith("A-"))  # a stable sort
    return Divergence(index, observed, tuple(permitted), tuple(clauses), message)
