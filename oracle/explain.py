"""Explain a divergence by the rule the engine's event belongs to (issue 18, part 4).

When the model permits no event of the kind the engine sent (the engine
retried where the model fails the step, cancelled a node the model leaves
running), the clauses of what the model permits there say what should
have happened, not which rule the engine applied.  The rule the engine
broke is the one that makes such an event: its guard does not hold here.
``by_rule`` finds it, first in the same run (the event happens at another
point: too early, too late, for another reason), then among the runs of
the specification's own generated cases (``producers``), names it, and
cites its clauses after those of what the model does here (whose rule
cites the guard that held: W6W-FIELD-24 for a step not retried):

    the model permits no retry_scheduled event here; the rule that makes
    one (retry_step: W6W-FIELD-20, W6W-FIELD-22, W6W-FIELD-24, W6W-RETRY-9)
    applies in other runs; its conditions do not hold at this point

Only reports pay for this (a finding, a shrunk case, a conformance row,
``check``); judging does not.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Hashable, Sequence
from typing import Any

import attrs

from wforacle.model.diagnostics import InvalidInput
from wforacle.oracle.check import (
    DIFFERS,
    NO_EVENT,
    check,
    differing,
    frontiers,
    projection,
    run_level,
)
from wforacle.properties.specification import Divergence, Specification

JSON = Any
# The fields that name what an event is about (w6w and Workfile steps, Harness
# nodes, state entries): a producer must agree on those the observed event has.
UNITS = ("step", "node", "entry", "path", "state")
IN_RUN_STATES = 5_000  # configurations searched in the divergent run
BEFORE_STATES = 1_000  # configurations kept while following the trace up to the divergence
CATALOGUE_CASES = 150  # generated cases whose runs name each event's rules


def by_rule(
    spec: Specification,
    semantics: Any,
    divergence: Divergence | None,
    trace: Sequence[JSON] = (),
) -> Any:
    """``divergence`` with the clauses of the rule that makes the engine's event first.

    ``trace`` is the observed trace the divergence was found in: with it the
    specification's ``why_not`` also sees the model's configurations at the
    divergence (what the model does there and why the engine's event is not
    among it: a step started out of the plan's order, a node left READY).
    Where the specification says which clause of the rule the model applies
    the engine's event breaks (``spec.blame``: a Workfile engine that retries
    where ``abort_ambiguous`` applies breaks WF-AMB-4, one that starts a
    handler there breaks WF-UNK-4), that clause comes first of all.
    """
    explained = _by_rule(spec, semantics, divergence, trace)
    if explained is None or divergence is None or divergence.observed is None:
        return explained
    first = spec.blame(semantics, divergence)
    if not first:
        return explained
    return attrs.evolve(explained, clauses=tuple(dict.fromkeys([*first, *explained.clauses])))


def _by_rule(
    spec: Specification,
    semantics: Any,
    divergence: Divergence | None,
    trace: Sequence[JSON] = (),
) -> Any:
    if divergence is None or divergence.observed is None:
        return divergence
    observed = divergence.observed
    name = observed.get("event")
    if divergence.message == DIFFERS.format(name):
        if any(e.get("event") == name and _same_unit(e, observed) for e in divergence.permitted):
            return _nested(spec, semantics, _by_field(spec, divergence), trace)
        # The model has this kind of event here, for other units only (it starts h, the
        # engine x): why this unit may not is the specification's to say, as below.
        blamed = _why_not_here(spec, semantics, divergence, trace)
        return blamed or _nested(spec, semantics, _by_field(spec, divergence), trace)
    if divergence.message != NO_EVENT.format(name) or not isinstance(name, str):
        return divergence
    if name in spec.protocol().recorded:
        # The oracle wrote this event when it answered the engine's wait (the driver
        # refuses one the engine sends: a protocol fault).  A stranger's executor that
        # waited idle where the model has it act was told it had sent quiet (session 23).
        message = (
            f"{divergence.message}: the engine waited here and the oracle answered the "
            f"wait, recording {name} (docs/engine-protocol.md); the model has the engine "
            "act first"
        )
        return attrs.evolve(divergence, message=message)
    blamed = _why_not_here(spec, semantics, divergence, trace)
    if blamed is not None:
        # An event the model has no room for may still nest the cause: a control's
        # attempt that failed in the model because its sub-block ran other events
        # (a call in its body retried) is explained by the sub-block's rule first.
        return _nested(spec, semantics, blamed, trace)
    found = _in_run(spec, semantics, observed)
    where = "at another point of this run, not here"
    if not found:
        found = producers(spec).get(name, {})
        where = "in other runs; its conditions do not hold at this point"
    if not found:
        return divergence
    rules = "; ".join(f"{rule}: {', '.join(clauses[:4])}" for rule, clauses in found.items())
    # What the model does here keeps its place (its rule cites the guard that held);
    # the rule the engine applied follows, so the explanation names both.
    cited = [c for clauses in found.values() for c in clauses]
    extra = sorted(dict.fromkeys(cited), key=lambda clause: clause.startswith("A-"))
    clauses = tuple(dict.fromkeys([*divergence.clauses, *extra]))
    message = f"{divergence.message}{_instead(divergence)}; the rule that makes one ({rules}) "
    message += f"applies {where}"
    return attrs.evolve(divergence, clauses=clauses, message=message)


def _instead(divergence: Divergence) -> str:
    """What the model does here with the engine's unit, when it does something else with it.

    " (for n2 the model has node_cancelled here)": the permitted events of the
    same unit (step, node …) — the rule that applies, whose clauses lead the
    explanation (stranger 21: a node started while unwinding was told only
    that start_node applies elsewhere, not that HX-FAIL-3 cancels it here).
    """
    observed = divergence.observed or {}
    unit = next((observed[u] for u in UNITS if isinstance(observed.get(u), str)), None)
    if unit is None or run_level(observed):
        return ""
    kinds = [
        str(e.get("event"))
        for e in divergence.permitted
        if e.get("event") != observed.get("event") and _same_unit(e, observed)
    ]
    if not kinds:
        return ""
    return f" (for {unit} the model has {' or '.join(dict.fromkeys(kinds))} here)"


def _why_not_here(
    spec: Specification, semantics: Any, divergence: Divergence, trace: Sequence[JSON]
) -> Divergence | None:
    """``divergence`` explained by ``spec.why_not``, or None when it says nothing.

    The specification says why the model does not let the unit do this here
    (a Harness node no run makes READY, or whose join still waits), from the
    model's configurations at the event: those clauses are the rule the
    engine broke, and come first.
    """
    before = _before(spec, semantics, trace[: divergence.index]) if trace else ()
    blamed, reason = spec.why_not(semantics, divergence.observed, before)
    if not blamed:
        return None
    clauses = tuple(dict.fromkeys([*blamed, *divergence.clauses]))
    return attrs.evolve(divergence, clauses=clauses, message=f"{divergence.message}; {reason}")


def _nested(
    spec: Specification, semantics: Any, divergence: Divergence, trace: Sequence[JSON]
) -> Divergence:
    """A difference inside the runs an event nests (a Harness loop's iterations) by its rule.

    The engine's trace of each nested run is checked against the model's run
    of it (``spec.nested``); the first that diverges is explained as any
    divergence is, and its clauses come first: a READY body node started
    while its iteration unwinds breaks HX-FAIL-3, not the loop's HX-SCHED-2.
    """
    observed = divergence.observed
    if not trace or not isinstance(observed, dict) or "inner" not in observed:
        return divergence
    # The engine's event as it sent it: a semantics may compare a canonical form
    # (w6w: a parallel control's branches in turn, A-160), but a nested run is
    # checked in the order the engine ran it.
    sent = trace[divergence.index] if divergence.index < len(trace) else observed
    found = _first_nested(spec, semantics, trace[: divergence.index], sent)
    if found is None:
        return divergence
    where, explained = found
    clauses = tuple(dict.fromkeys([*explained.clauses, *divergence.clauses]))
    return attrs.evolve(divergence, clauses=clauses, message=f"{divergence.message}; {where}")


def _first_nested(
    spec: Specification, semantics: Any, prefix: Sequence[JSON], event: JSON
) -> tuple[str, Divergence] | None:
    """The first of ``event``'s nested runs (``spec.nested``) whose trace diverges, explained.

    ``prefix``: the trace before ``event``.  (where it diverged — "in iteration
    1 of foreach c, at its event 2: …" —, the inner divergence by its rule), or
    None when every nested run is permitted.
    """
    before = _before(spec, semantics, prefix)
    try:
        for where, inner, inner_trace in spec.nested(semantics, before, event):
            found = check(inner, spec.key, inner_trace).divergence
            if found is not None:
                explained = by_rule(spec, inner, found, inner_trace)
                return f"{where}, at its event {found.index}: {explained.message}", explained
    except tuple(spec.limits()):
        pass
    return None


def interleaved(spec: Specification, semantics: Any, trace: Sequence[JSON]) -> Divergence | None:
    """Whether the nested runs an engine reordered for comparison ran in a permitted order.

    The checker compares an event in its semantics' ``canonical`` form (w6w:
    a parallel control's branches one after the other, A-160), which keeps
    what each branch did but not when: a branch that started a step after
    another branch's failure had drained the block looks like one that
    started it before.  So the nested runs (``spec.nested``) of each event
    whose canonical form is not the event itself are checked in the order
    the engine sent them, and the first that diverges is explained by its
    own rule.  None when every one is permitted (or none was reordered: an
    event listed in the canonical order already, as the model lists it,
    makes no claim about when its inner events happened).
    """
    canonical = getattr(semantics, "canonical", None)
    if not callable(canonical):
        return None
    for index, event in enumerate(trace):
        # Listed in the canonical order itself (branch by branch, as the model records
        # it), the inner events say nothing of when each happened: nothing to check.
        # Stranger 22's engine listed them so, and was told they ran in an order no run
        # permits (A-160 allows it).
        if not isinstance(event, dict) or "inner" not in event or canonical(event) == event:
            continue
        found = _first_nested(spec, semantics, trace[:index], event)
        if found is not None:
            where, explained = found
            return Divergence(
                index,
                event,
                (),
                explained.clauses,
                f"{event.get('event')} of {event.get('step')}: its inner events are in an "
                f"order no run permits; {where}",
            )
    return None


def _by_field(spec: Specification, divergence: Divergence) -> Divergence:
    """The model has an event of the engine's kind here: name the fields that differ.

    The nearest permitted event of the same kind and unit (fewest differing
    fields) says what the engine got wrong; the governing clauses come
    first: those the specification says govern one of those fields
    (``spec.governing``: a retry's ``waitMs``), then those whose text names
    one (the engine's ``meta`` differs: W6W-META-… before W6W-FIELD-10) —
    each in the order the model's rule cites them, the deciding one first.
    """
    observed: JSON = divergence.observed or {}
    same = [
        e
        for e in divergence.permitted
        if e.get("event") == observed.get("event") and _same_unit(e, observed)
    ]
    if not same:
        return divergence

    nearest = min(same, key=lambda e: len(differing(e, observed)))
    fields = differing(nearest, observed)
    if not fields:
        return divergence

    def names(clause: str) -> bool:
        text = _catalogued(clause).lower()
        # A whole word: W6W-ROOT-25's root list names "inputs", not the field input.
        return any(re.search(rf"\b{re.escape(field.lower())}\b", text) for field in fields)

    where = first_difference(projection(nearest), projection(observed))
    governed = {c for field in fields for c in spec.governing.get(field, ())}
    first = [c for c in divergence.clauses if c in governed]
    first += [c for c in divergence.clauses if _names_code(c, where)]
    first += [c for c in divergence.clauses if names(c)]
    clauses = tuple(dict.fromkeys([*first, *divergence.clauses]))
    message = f"{divergence.message}: the engine's {', '.join(fields)} differ(s)"
    if where is not None and (where[0].count(".") > 1 or "[" in where[0]):
        # Deep in a value (a loop's inner traces): say where, which a line cut short hides.
        path, model, engine = where
        message += f"; first at {path}: the engine has {_short(engine)}, the model {_short(model)}"
    return attrs.evolve(divergence, clauses=clauses, message=message)


def _names_code(clause: str, where: tuple[str, Any, Any] | None) -> bool:
    """Whether ``clause``'s text names the code the model has where the engine's differs.

    An error code is the field's value, not its name: WFS-ENTRY-6 ("A mismatch
    causes fault.type …") governs an entry failed with another code, which its
    rule cites second (a stranger's executor, session 23, was told WFS-ENTRY-5).
    """
    if where is None or not where[0].endswith(".code") or not isinstance(where[1], str):
        return False
    code = re.escape(where[1])
    return re.search(rf"(?<![\w.]){code}(?![\w])", _catalogued(clause)) is not None


def _catalogued(clause: str) -> str:
    """A clause's catalogued text; empty for an assumption or an id no catalogue holds."""
    from wforacle.properties.clauses import clause_text  # the catalogue loads when asked

    try:
        return clause_text(clause)
    except KeyError:
        return ""


_ABSENT = object()


def first_difference(model: JSON, engine: JSON, path: str = "") -> tuple[str, Any, Any] | None:
    """The first place two JSON values differ: (path, the model's part, the engine's part).

    Depth first, members in sorted order, items by index; a member one side
    lacks is ``absent``.  None when they are equal.
    """
    if model == engine:
        return None
    if isinstance(model, dict) and isinstance(engine, dict):
        for key in sorted(set(model) | set(engine)):
            found = first_difference(
                model.get(key, _ABSENT), engine.get(key, _ABSENT), f"{path}.{key}"
            )
            if found is not None:
                return found
    if isinstance(model, list) and isinstance(engine, list):
        for k in range(min(len(model), len(engine))):
            found = first_difference(model[k], engine[k], f"{path}[{k}]")
            if found is not None:
                return found
        if len(model) != len(engine):
            return (f"{path} (its length)", len(model), len(engine))
    return (path or "(the value)", model, engine)


def _short(value: Any) -> str:
    if value is _ABSENT:
        return "nothing"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


def _same_unit(event: JSON, observed: JSON) -> bool:
    # Only a scalar names a unit: a Harness instance_started's ``entry`` is a list of
    # nodes (what the event says), not a Workfile state entry (what it is about); a
    # run-level event's ``step`` is a field (check.run_level).
    if run_level(observed):
        return True
    return all(
        event.get(unit) == observed[unit]
        for unit in UNITS
        if isinstance(observed.get(unit), str | int)
    )


def _before(spec: Specification, semantics: Any, prefix: Sequence[JSON]) -> tuple[Any, ...]:
    """The model's configurations consistent with ``prefix`` (check.py's ``F_k``), bounded.

    Empty when the prefix is not one the model permits (it is, up to a
    divergence), when more than ``BEFORE_STATES`` configurations are
    consistent with it, or when the model reaches one of its limits.
    """
    last: dict[Hashable, Any] = {}
    try:
        for found in frontiers(semantics, spec.key, prefix, BEFORE_STATES + 1):
            if not found or len(found) > BEFORE_STATES:
                return ()
            last = found
    except tuple(spec.limits()):
        return ()
    return tuple(config for config, _ in last.values())


def _in_run(spec: Specification, semantics: Any, observed: JSON) -> dict[str, tuple[str, ...]]:
    """The rules that make an event like ``observed`` somewhere in this run (bounded search)."""
    found: dict[str, tuple[str, ...]] = {}
    for transition in _transitions(spec, semantics, IN_RUN_STATES):
        event = transition.event
        if event.get("event") == observed.get("event") and _same_unit(event, observed):
            found.setdefault(transition.rule, tuple(transition.clauses))
    return found


_PRODUCERS: dict[str, dict[str, dict[str, tuple[str, ...]]]] = {}  # by specification name


def producers(spec: Specification) -> dict[str, dict[str, tuple[str, ...]]]:
    """Event name → the rules (and their clauses) that make it, from generated cases' runs.

    Deterministic: the specification's campaign strategy at seed 0, the
    first ``CATALOGUE_CASES`` cases, each run's reachable configurations up
    to a bound.  No time bound (session 21): one cut short on a loaded CI
    machine named fewer rules, and the same seed gave another explanation.
    """
    if spec.name in _PRODUCERS:
        return _PRODUCERS[spec.name]
    from hypothesis import HealthCheck, Phase, given, seed, settings

    from wforacle.properties.strategies.hermetic import hermetic

    found: dict[str, dict[str, tuple[str, ...]]] = {}

    @seed(0)
    @settings(
        max_examples=CATALOGUE_CASES,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(spec.cases())
    def harvest(case: JSON) -> None:
        try:
            semantics = spec.prepare(case, None).semantics
        except InvalidInput:
            return
        for transition in _transitions(spec, semantics, 500):
            name = transition.event.get("event")
            if isinstance(name, str):
                found.setdefault(name, {}).setdefault(transition.rule, tuple(transition.clauses))

    with hermetic():
        harvest()
    _PRODUCERS[spec.name] = found
    return found


def _transitions(spec: Specification, semantics: Any, bound: int) -> list[Any]:
    """Every transition among a run's first ``bound`` reachable configurations."""
    found = []
    try:
        start = semantics.initial()
        seen: set[Hashable] = {spec.key(start)}
        frontier = [start]
        while frontier and len(seen) < bound:
            for transition in semantics.enabled(frontier.pop()):
                found.append(transition)
                key = spec.key(transition.target)
                if key not in seen:
                    seen.add(key)
                    frontier.append(transition.target)
    except tuple(spec.limits()):  # what the model does not cover: keep what was found
        pass
    return found


def clause_or_assumption(clause: str) -> str:
    """A clause's catalogued text, or an assumption's title from docs/assumptions.md."""
    text = _catalogued(clause)
    if text:
        return text
    title = _assumptions().get(clause)
    return f"{title} (docs/assumptions.md)" if title else "(see docs/assumptions.md)"


@functools.cache
def _assumptions() -> dict[str, str]:
    """Assumption id → title, from oracle/data/assumptions.yaml (shipped with the package).

    docs/assumptions.md's headings give it; tests/test_explain.py keeps the two equal.
    """
    from importlib import resources

    from wforacle.properties.clauses import read_yaml

    text = resources.files("wforacle.oracle").joinpath("data/assumptions.yaml").read_text("utf-8")
    return {entry["id"]: entry["title"] for entry in read_yaml(text)}
