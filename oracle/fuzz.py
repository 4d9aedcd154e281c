"""Differential campaigns against a workflow engine: generate, drive, check, shrink, explain, save.

Notation: a *case* is ``{"document", "scenario", "schedule"}`` (the
schedule picks which outstanding invocation completes at each ``wait``).
A campaign is a Hypothesis search over the specification's ``cases()`` with
a fixed seed and no example database, so the same seed and version give the
same campaign.  Each example is judged (oracle/engine.py); the first
divergence or fault makes Hypothesis shrink document, scenario and schedule
together to a minimal case that still fails the same way (same verdict,
same first divergent event kind); ``reduce_case`` then removes what the
failure does not need with the specification's ``smaller`` step, first
keeping the kind of event, then (``reduce_by_rule``) the rule the
engine broke, and the result is explained (the clauses and their text) and saved as a regression
fixture (oracle/fixtures.py).  Everything here is written once over a
``Specification`` (properties/specification.py).
"""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
from hypothesis import HealthCheck, Phase, assume, given, seed, settings

from wforacle.model.diagnostics import InvalidCase, InvalidInput
from wforacle.model.kernel.explore import canonical
from wforacle.oracle.coverage import Coverage, Tally
from wforacle.oracle.engine import Engine, Judgement, judge
from wforacle.oracle.explain import by_rule, clause_or_assumption
from wforacle.oracle.fixtures import short, write_case
from wforacle.oracle.readings import Selection, describe
from wforacle.properties.specification import Specification, copy_case
from wforacle.properties.strategies.hermetic import hermetic

JSON = Any


@attrs.frozen
class Finding:
    """A shrunk failing case, its judgement and what it cost to find."""

    spec: Specification = attrs.field(eq=False, repr=False)
    case: JSON = attrs.field(eq=False)
    judgement: Judgement = attrs.field(eq=False)
    examples: int
    seconds_to_find: float
    seconds_to_shrink: float

    @property
    def size(self) -> dict[str, int]:
        """The shrunk case's size (w6w: steps and edges; Harness: nodes and edges)."""
        return self.spec.size(self.case)


@attrs.frozen
class Campaign:
    """What a campaign did.

    ``examples`` are the generated cases judged while searching (not the
    runs spent shrinking, which are ``shrink_runs``); the seconds are split
    the same way, and ``engine_seconds`` is the time the engine took in all
    runs.  ``budget_spent`` says the time budget stopped the search before
    ``examples`` were tried; ``shrink_stopped``, that the shrink allowance
    ended shrinking before it was done (the finding may hold more than the
    bug needs).  ``nondeterministic`` says why the finding's
    engine is not repeatable, when it is not (a finding of its own).
    """

    examples: int
    seconds: float
    finding: Finding | None
    faults: int
    # The engine faults met while searching (case, judgement), when they did not stop it.
    fault_cases: tuple[tuple[JSON, Judgement], ...] = attrs.field(default=(), eq=False)
    shrink_runs: int = 0
    seconds_searching: float = 0.0
    seconds_shrinking: float = 0.0
    engine_seconds: float = 0.0
    budget_spent: bool = False
    shrink_stopped: bool = False
    # The engine hung HANG_LIMIT times and the search stopped (each hang waits out the
    # engine timeout: an engine that never answers one message would spend hours).
    hangs_stopped: bool = False
    nondeterministic: str | None = None
    # Readings (oracle/readings.py): the examples whose verdict needed readings other
    # than the model's, per set of departures, and each set's smallest case found.
    readings: tuple[Witness, ...] = ()
    # The clauses the searching runs exercised (oracle/coverage.py).
    coverage: Coverage | None = attrs.field(default=None, eq=False)


@attrs.frozen
class Witness:
    """A set of readings other than the model's that some examples of a campaign needed."""

    departures: tuple[tuple[str, str], ...]  # (assumption, reading name) each
    examples: int  # how many examples needed exactly these
    case: JSON = attrs.field(eq=False)  # the smallest such case (reduced)
    judgement: Judgement = attrs.field(eq=False)

    def to_json(self) -> dict[str, JSON]:
        """As ``fuzz --json`` prints it."""
        return {
            "readings": dict(self.departures),
            "examples": self.examples,
            "case": self.case,
            "judgement": self.judgement.to_json(),
        }


# Shrinking (Hypothesis's and the reduction pass together) may run this many
# seconds past the time budget (docs/cli.md): the promise a budget keeps.
SHRINK_ALLOWANCE = 30.0
# The part of the allowance Hypothesis's shrinker may take before the reduction pass runs
# (a w6w finding at 16 steps spent all 30 s in Hypothesis's 850 runs, the reduction none).
HYPOTHESIS_SHARE = 0.5
# Seconds spent reducing each of the first three sets of readings a campaign met.
READING_ALLOWANCE = 5.0


HANG_LIMIT = 3  # hangs (each waits out the engine timeout) after which a search stops


class _BudgetSpent(Exception):
    """The time budget (searching) or the shrink allowance ran out: stop the search now."""


class Failed(Exception):
    """A failing example, carried out of a Hypothesis search to be shrunk and reported."""

    def __init__(self, case: JSON, judgement: Judgement) -> None:
        super().__init__(judgement.verdict)
        self.case = case
        self.judgement = judgement


def judge_case(
    spec: Specification,
    engine: Engine,
    case: JSON,
    options: Any = None,
    selection: Selection | None = None,
) -> Judgement:
    """Judge one case (document, scenario, schedule, and replay if any) on the engine.

    ``selection``: the readings the verdict may use (oracle/readings.py); its
    primary readings replace ``options``.
    """
    if selection is not None:
        options = selection.options()
    return judge(engine, spec, case, spec.prepare(case, options), selection)


def signature(judgement: Judgement) -> tuple[str, ...]:
    """What must stay the same while shrinking: the verdict and the kind of departure."""
    if judgement.fault is not None:
        return ("fault", judgement.fault.kind)
    if judgement.verdict == "reading":
        return ("reading", *(f"{a}={name}" for a, name in judgement.reading))
    if judgement.divergence is not None:
        observed = judgement.divergence.observed or {}
        name = observed.get("event", "runState")
        permitted = judgement.divergence.permitted
        if isinstance(name, str) and name in _recorded() and permitted:
            # The oracle wrote this event answering the engine's wait: the engine did not
            # make the event the model has there.  Named by that one, a case where the
            # engine waits and one where it makes another such event are the same bug (a
            # stranger's lost event shrank to 2 stimuli where 1 showed it, session 23).
            name = permitted[0].get("event", name)
        return ("divergence", str(name))
    return ("pass",)


@functools.cache
def _recorded() -> frozenset[str]:
    """The events some specification's oracle records itself (Workfile: quiet, timer_fired …)."""
    from wforacle.properties.registry import SPECIFICATIONS

    return frozenset().union(*(spec.protocol().recorded for spec in SPECIFICATIONS.values()))


def campaign(
    spec: Specification,
    engine: Engine,
    examples: int = 200,
    seed_value: int = 0,
    time_budget: float | None = None,
    progress: Callable[[int, float], None] | None = None,
    reduce_budget: float = SHRINK_ALLOWANCE,
    stop_on_fault: bool = False,
    options: Any = None,
    first_seen: Callable[[JSON, Judgement], None] | None = None,
    cases: Any = None,
    selection: Selection | None = None,
    reading_budget: float = READING_ALLOWANCE,
) -> Campaign:
    """Search ``spec``'s generated cases for a divergence; shrink and reduce the first one found.

    ``options`` selects the model's readings where the specification is open
    (``spec.options``; default: the specification's own), for an engine that
    takes another.  A generated case the model cannot run (InvalidCase) is
    not an example.  An engine fault (crash, hang, flood, protocol) is
    classified, the engine restarted, and the search goes on: the faults are
    counted and the first ten kept with their cases.  With ``stop_on_fault``
    a fault is a finding like a divergence, and shrinks.

    Budgets are promises (issue 20): the search stops when ``time_budget``
    seconds are spent, and shrinking — Hypothesis's and the reduction pass
    together — takes at most ``reduce_budget`` seconds more.  A finding is
    kept from the moment it is first seen (``first_seen`` is called with it
    then, so a caller can save it before shrinking); a shrink that the
    engine does not reproduce is reported as nondeterminism and never
    discards what was found.  ``cases``: the strategy to draw from instead
    of ``spec.cases()`` (``fuzz --profile``: one of ``spec.suites``).

    ``selection`` (oracle/readings.py) replaces ``options``: a run another
    reading permits is a pass (``any``) or the verdict ``reading``
    (``default``), never a finding.  Either way the campaign counts the
    examples per set of readings they needed and, after the search, reduces
    the first case of each set (``reading_budget`` seconds each, the first
    three sets) to the smallest that still needs it: a witness of where the
    engine reads the specification otherwise.
    """
    from hypothesis.errors import Flaky

    counted = {"examples": 0, "faults": 0, "shrink_runs": 0, "hangs": 0}
    engine_seconds = [0.0]
    fault_cases: list[tuple[JSON, Judgement]] = []
    start = time.perf_counter()
    deadline = start + time_budget if time_budget is not None else None
    first: dict[str, Any] = {}
    spent = {"budget": False, "shrink": False, "hypothesis": False, "hangs": False}
    if selection is not None:
        options = selection.options()
    read: dict[tuple[tuple[str, str], ...], list[Any]] = {}  # departures → [count, case, j]
    tally = Tally()

    @seed(seed_value)
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        derandomize=False,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        print_blob=False,
    )
    @given(cases if cases is not None else spec.cases())
    def probe(case: JSON) -> None:
        now = time.perf_counter()
        if spent["hangs"]:
            raise _BudgetSpent  # Hypothesis replays the stopping example: judge it no more
        if not first and deadline is not None and now > deadline:
            spent["budget"] = True
            raise _BudgetSpent
        if first and (reduce_budget == 0 or now - first["at"] > reduce_budget * HYPOTHESIS_SHARE):
            # Hypothesis's share of the shrink allowance is spent: keep the smallest case so
            # far, and leave the rest to the reduction pass, whose structural edits (a step
            # with its edges and script) cut a large graph in a few runs.
            spent["hypothesis"] = True
            raise _BudgetSpent
        try:
            prepared = spec.prepare(case, options)
        except InvalidCase:
            assume(False)
        counted["shrink_runs" if first else "examples"] += 1
        if progress is not None and not first:
            progress(counted["examples"], time.perf_counter() - start)
        judgement = judge(engine, spec, case, prepared, selection)
        if judgement.observation is not None:
            engine_seconds[0] += judgement.observation.seconds
            if not first:
                tally.add(judgement.exercised)
        if judgement.reading and not first:
            seen = read.setdefault(judgement.reading, [0, copy_case(case), judgement])
            seen[0] += 1
        if judgement.verdict in ("pass", "reading"):
            return
        if judgement.verdict == "fault" and not first:
            counted["faults"] += 1
            if not stop_on_fault:
                if len(fault_cases) < 10:
                    fault_cases.append((case, judgement))
                if judgement.fault is not None and judgement.fault.kind == "hang":
                    counted["hangs"] += 1
                    if counted["hangs"] >= HANG_LIMIT:
                        spent["hangs"] = True
                        raise _BudgetSpent
                return
        if not first:
            first.update(
                signature=signature(judgement),
                at=time.perf_counter(),
                examples=counted["examples"],
                case=copy_case(case),
                judgement=judgement,
            )
            if first_seen is not None:
                first_seen(first["case"], judgement)
        elif signature(judgement) != first["signature"]:
            return  # a different failure: not a smaller instance of this one
        first["best"], first["best_judgement"] = copy_case(case), judgement
        raise Failed(case, judgement)

    nondeterministic: str | None = None
    try:
        with hermetic():
            probe()
    except Failed:
        pass  # Hypothesis's smallest failing case is the last one probe saw fail
    except _BudgetSpent:
        pass
    except Flaky as exc:
        # Once a budget is spent, a replay of an earlier example also stops, and
        # Hypothesis calls that inconsistent: that is the budget, not the engine.
        if spent["budget"] or spent["shrink"] or spent["hypothesis"] or spent["hangs"]:
            pass
        elif not first:
            raise
        else:
            nondeterministic = (
                "the engine's verdict on a case changed from one run to the next while "
                f"shrinking ({type(exc).__name__}): the engine is not deterministic"
            )
    searched = (first["at"] if first else time.perf_counter()) - start
    if not first:
        if fault_cases and not spent["hangs"]:
            fault_cases[0] = _reduced_fault(spec, engine, *fault_cases[0], options, selection)
        readings = _witnesses(spec, engine, read, selection, reading_budget)
        return Campaign(
            counted["examples"],
            time.perf_counter() - start,
            None,
            counted["faults"],
            tuple(fault_cases),
            seconds_searching=searched,
            engine_seconds=engine_seconds[0],
            budget_spent=spent["budget"],
            hangs_stopped=spent["hangs"],
            readings=readings,
            coverage=tally.freeze(spec.name),
        )
    wanted = first["signature"]
    best, best_judgement = (
        first.get("best", first["case"]),
        first.get("best_judgement", first["judgement"]),
    )
    last: dict[str, Any] = {}

    def still_fails(candidate: JSON) -> bool:
        judgement = judge_case(spec, engine, candidate, options, selection)
        counted["shrink_runs"] += 1
        if signature(judgement) == wanted:
            last["case"], last["judgement"] = candidate, judgement
            return True
        return False

    left = max(0.0, reduce_budget - (time.perf_counter() - first["at"]))

    def out_of_time() -> None:
        spent["shrink"] = True

    reduced = reduce_case(
        spec, best, still_fails, budget=left, options=options, on_deadline=out_of_time
    )
    # The judgement the reported case got when it was last seen failing (reduce_case
    # returns a copy of ``best`` when it removed nothing).
    judgement = last["judgement"] if last.get("case") is reduced else best_judgement
    if not spent["shrink"]:
        reduced, judgement = reduce_by_rule(
            spec,
            engine,
            reduced,
            judgement,
            max(0.0, reduce_budget - (time.perf_counter() - first["at"])),
            options,
            selection,
            on_run=lambda: counted.__setitem__("shrink_runs", counted["shrink_runs"] + 1),
            on_deadline=out_of_time,
        )
    # One more run of the reported case: a finding that does not recur is still a
    # finding (the first judgement stands), and the engine's nondeterminism is one too.
    again = judge_case(spec, engine, reduced, options, selection)
    counted["shrink_runs"] += 1
    wanted = signature(judgement)  # the second pass may have changed the symptom
    if signature(again) != wanted and nondeterministic is None:
        nondeterministic = (
            f"the reported case gave {signature(again)[0]} on a rerun after {wanted[0]}: "
            "the engine is not deterministic"
        )
    shrunk = time.perf_counter() - first["at"]
    # After the shrink allowance, not within it: the explanation by the broken rule
    # (its catalogue of rules is built once per process) and the readings' witnesses.
    judgement = explained(spec, reduced, judgement, options)
    readings = _witnesses(spec, engine, read, selection, reading_budget)
    finding = Finding(spec, reduced, judgement, first["examples"], first["at"] - start, shrunk)
    return Campaign(
        counted["examples"],
        time.perf_counter() - start,
        finding,
        counted["faults"],
        tuple(fault_cases),
        shrink_runs=counted["shrink_runs"],
        seconds_searching=searched,
        seconds_shrinking=shrunk,
        engine_seconds=engine_seconds[0],
        budget_spent=spent["budget"],
        shrink_stopped=spent["shrink"],
        nondeterministic=nondeterministic,
        readings=readings,
        coverage=tally.freeze(spec.name),
    )


# Seconds to reduce the first fault of a campaign that found no divergence.
FAULT_ALLOWANCE = 10.0
# Faults whose every run waits out the engine's timeout: not reduced (a fault's kind is
# the classification of oracle/engine.py).
SLOW_FAULTS = frozenset({"hang"})


def _reduced_fault(
    spec: Specification,
    engine: Engine,
    case: JSON,
    judgement: Judgement,
    options: Any,
    selection: Selection | None,
) -> tuple[JSON, Judgement]:
    """The first fault of a campaign without a divergence, reduced to what it needs.

    A campaign goes on after a fault (the engine is restarted) so that a
    divergence is still found; when none is, the faults are what the engine
    author reads first (stranger 21: a runtime crashed 122 times, and each
    crash's case was the whole drawn document).  The case is reduced as a
    finding's is (``reduce_case``), keeping the fault's kind, within
    ``FAULT_ALLOWANCE`` seconds; a hang, whose every run waits out the
    timeout, is left as found.  The judgement is the reduced case's own.
    """
    if judgement.fault is None or judgement.fault.kind in SLOW_FAULTS:
        return case, judgement
    wanted = signature(judgement)
    last: dict[str, Any] = {"case": case, "judgement": judgement}

    def still_faults(candidate: JSON) -> bool:
        again = judge_case(spec, engine, candidate, options, selection)
        if signature(again) == wanted:
            last["case"], last["judgement"] = candidate, again
            return True
        return False

    reduced = reduce_case(spec, copy_case(case), still_faults, FAULT_ALLOWANCE, options)
    if last["case"] is reduced:
        return reduced, last["judgement"]
    return case, judgement


def reduce_by_rule(
    spec: Specification,
    engine: Engine,
    case: JSON,
    judgement: Judgement,
    budget: float,
    options: Any = None,
    selection: Selection | None = None,
    on_run: Callable[[], None] | None = None,
    on_deadline: Callable[[], None] | None = None,
) -> tuple[JSON, Judgement]:
    """A second reduction of a divergence that keeps the broken rule, not the symptom.

    The first pass keeps the kind of event where the engine departs
    (``signature``); a part of the case may be there only to carry that
    symptom (stranger 5's foreach kept a second body step whose failure was
    where the shared callback showed; without it the same bug, W6W-META-19,
    shows at the step's success).  This pass accepts a smaller case whose
    divergence is explained (``explained``) by the same first clause, so the
    case keeps the rule the engine broke and nothing that only dressed it.
    Returns the case and its judgement (the given ones when nothing went).
    """
    wanted = explained(spec, case, judgement, options).divergence
    if judgement.divergence is None or wanted is None or not wanted.clauses:
        return case, judgement
    rule = wanted.clauses[0]
    kept: dict[str, Any] = {}

    def same_rule(candidate: JSON) -> bool:
        again = judge_case(spec, engine, candidate, options, selection)
        if on_run is not None:
            on_run()
        if again.verdict != judgement.verdict or again.divergence is None:
            return False
        told = explained(spec, candidate, again, options).divergence
        if told is None or not told.clauses or told.clauses[0] != rule:
            return False
        kept["case"], kept["judgement"] = candidate, again
        return True

    smaller = reduce_case(spec, case, same_rule, budget, options, on_deadline)
    if kept.get("case") is smaller:
        return smaller, kept["judgement"]
    return case, judgement


def explained(spec: Specification, case: JSON, judgement: Judgement, options: Any) -> Judgement:
    """The judgement with its divergence explained by the rule the engine broke (explain.py)."""
    if judgement.divergence is None:
        return judgement
    try:
        semantics = spec.prepare(case, options).semantics
    except InvalidCase:
        return judgement
    trace = judgement.observation.trace if judgement.observation is not None else ()
    divergence = by_rule(spec, semantics, judgement.divergence, trace)
    return attrs.evolve(judgement, divergence=divergence)


def _witnesses(
    spec: Specification,
    engine: Engine,
    read: dict[tuple[tuple[str, str], ...], list[Any]],
    selection: Selection | None,
    budget: float,
) -> tuple[Witness, ...]:
    """Each set of readings the campaign's examples needed, its first case reduced."""
    found = []
    for n, (departures, (count, case, judgement)) in enumerate(read.items()):
        # reduce_case returns the last candidate kept (or ``case``): its judgement is last's.
        last = {"judgement": judgement}

        def still_reads(candidate: JSON, wanted: Any = departures, last: Any = last) -> bool:
            again = judge_case(spec, engine, candidate, selection=selection)
            if again.reading == wanted and again.verdict in ("pass", "reading"):
                last["judgement"] = again
                return True
            return False

        smallest = reduce_case(spec, case, still_reads, budget=budget if n < 3 else 0.0)
        found.append(Witness(departures, count, smallest, last["judgement"]))
    return tuple(found)


def explain(finding: Finding, found: bool = True) -> str:
    """A human explanation of a finding: the case, where it departs, and why.

    ``found``: the finding came from a search (its examples and seconds to
    find are said); ``wforacle shrink`` reduces a given case and says only
    how long that took.
    """
    lines = []
    j = finding.judgement
    size = ", ".join(f"{count} {noun[:-1]}(s)" for noun, count in finding.size.items())
    if found:
        lines.append(
            f"minimal case: {size}; "
            f"found after {finding.examples} example(s) in {finding.seconds_to_find:.2f} s, "
            f"shrunk in {finding.seconds_to_shrink:.2f} s"
        )
    else:
        lines.append(f"reduced case: {size}; reduced in {finding.seconds_to_shrink:.2f} s")
    if j.fault is not None:
        lines.append(f"ENGINE FAULT ({j.fault.kind}): {j.fault.message}")
        return "\n".join(lines)
    d = j.divergence
    assert d is not None
    if j.verdict == "reading":
        lines.append(
            f"DEPENDS ON READING {describe(j.reading)} (not a bug: the engine reads the "
            "specification otherwise; docs/readings.md); under the model's readings:"
        )
    lines.append(f"DIVERGENCE at event {d.index}: {d.message}")
    if d.observed is not None:
        lines.append(
            f"  engine:    {short(d.observed, beside=d.permitted[0] if d.permitted else None)}"
        )
    for event in d.permitted[:6]:
        lines.append(f"  permitted: {short(event, beside=d.observed)}")
    if j.stderr:
        # An exception in the engine often ends its trace early: its words say why.
        lines.append("  the engine wrote to stderr during this run (last lines):")
        lines.extend(f"    {line}" for line in j.stderr.splitlines())
    recorded = finding.spec.protocol().recorded
    if d.permitted and all(e.get("event") in recorded for e in d.permitted):
        lines.append(
            "  (every permitted event is one the oracle records when it answers a wait: "
            "the model expected the engine to wait here)"
        )
    # The rule the engine broke comes first (oracle/explain.py); the first few are quoted,
    # the rest — the other rules of what the model could do there — named.
    for clause in d.clauses[:QUOTED]:
        lines.append(f"  {clause}: {clause_or_assumption(clause)}")
    if d.clauses[QUOTED:]:
        lines.append(
            f"  also cited: {', '.join(d.clauses[QUOTED:])} (the --report page quotes them all)"
        )
    return "\n".join(lines)


QUOTED = 4  # the clauses a finding's explanation quotes whole


@attrs.frozen
class Replayed:
    """What replaying a folder of regression fixtures found (``fuzz --regressions DIR``)."""

    cases: int  # the fixtures of the campaign's specification replayed
    finding: Finding | None  # the first that the engine fails, as the campaign's finding
    name: str | None  # its directory
    seconds: float
    skipped: tuple[str, ...] = ()  # fixtures of another specification, or unreadable


def replay_regressions(
    spec: Specification, engine: Engine, directory: Path, selection: Selection | None = None
) -> Replayed:
    """Judge ``engine`` on the regression fixtures in ``directory`` before a campaign searches.

    Like Hypothesis's example database: the cases earlier campaigns saved
    (``--save``) come first, so a bug found once is found again at once, at
    its minimal case, before any generation.  The first fixture the engine
    fails (a divergence, or a fault) is the finding; it is already minimal
    and is not shrunk again.  Fixtures of another specification, and
    unreadable ones, are skipped and named.
    """
    from wforacle.oracle.fixtures import load_case, spec_of, suite_cases

    start = time.perf_counter()
    replayed, skipped = 0, []
    options = selection.options() if selection is not None else None
    if not directory.is_dir():  # no campaign has saved anything there yet
        return Replayed(0, None, None, 0.0)
    try:
        fixtures = suite_cases(directory)
    except InvalidInput as exc:  # a spoilt suite.json
        raise InvalidInput(f"--regressions {directory}: {exc}") from None
    for here in fixtures:
        try:
            if spec_of(here).name != spec.name:
                skipped.append(here.name)
                continue
            case = load_case(spec, here)
            prepared = spec.prepare(case, options)
        except InvalidCase:
            skipped.append(here.name)
            continue
        replayed += 1
        judgement = judge(engine, spec, case, prepared, selection)
        if judgement.verdict in ("divergence", "fault"):
            seconds = time.perf_counter() - start
            judgement = explained(spec, case, judgement, options)
            finding = Finding(spec, case, judgement, replayed, seconds, 0.0)
            return Replayed(replayed, finding, here.name, seconds, tuple(skipped))
    return Replayed(replayed, None, None, time.perf_counter() - start, tuple(skipped))


def save(finding: Finding, directory: Path) -> tuple[Path, bool]:
    """Save a finding as a regression fixture: its directory, and whether it was already there.

    A case's directory is named by its content, so a second campaign that
    finds the same minimal case finds its fixture in place (and says so)
    instead of writing another.
    """
    return _save_once(
        finding.spec,
        directory,
        finding.case,
        {"finding": finding.judgement.to_json(), "size": finding.size},
    )


def save_unshrunk(spec: Specification, case: JSON, judgement: Judgement, directory: Path) -> Path:
    """Save a case the moment it is first found, before shrinking (under ``unshrunk/``)."""
    path, _ = _save_once(
        spec, directory / "unshrunk", case, {"finding": judgement.to_json(), "unshrunk": True}
    )
    return path


def _save_once(spec: Specification, directory: Path, case: JSON, extra: JSON) -> tuple[Path, bool]:
    digest = hashlib.blake2b(canonical(case).encode("utf-8"), digest_size=4).hexdigest()
    existing = sorted(directory.glob(f"*-{digest}")) if directory.is_dir() else []
    if existing:
        return existing[0], True
    return write_case(spec, directory, case, extra=extra), False


def reduce_case(
    spec: Specification,
    case: JSON,
    still_fails: Callable[[JSON], bool],
    budget: float = 60.0,
    options: Any = None,
    on_deadline: Callable[[], None] | None = None,
) -> JSON:
    """Greedily remove what the failure does not need (delta debugging over a concrete case).

    The candidates are ``spec.smaller(case)``, in its order (w6w: a step with
    its edges and scenario script, an edge, a step's optional fields, scenario
    scripts and attempts, the schedule's last choice), each kept only when the
    model can run it and ``still_fails`` holds.  Repeats until nothing more
    goes or the ``budget`` (seconds) is spent.  Hypothesis shrinks generated
    cases; this reduces a case that came from anywhere (a bug report), and
    finishes what Hypothesis's shrinker leaves when a smaller graph needs
    several coordinated edits.  ``on_deadline`` is called when the budget
    ran out before nothing more would go.
    """
    deadline = time.monotonic() + budget
    current = copy_case(case)
    expired = False

    def attempt(candidate: JSON) -> bool:
        nonlocal current, expired
        if time.monotonic() > deadline:
            expired = True
            return False
        try:
            spec.prepare(candidate, options)
        except InvalidCase:
            return False  # an invalid document is not a smaller instance
        if still_fails(candidate):
            current = candidate
            return True
        return False

    changed = True
    while changed and time.monotonic() < deadline:
        changed = False
        for candidate in spec.smaller(current):
            if attempt(candidate):
                changed = True
                break
    if (expired or changed) and on_deadline is not None:
        on_deadline()
    return current
