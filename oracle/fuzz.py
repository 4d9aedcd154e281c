"""Differential campaigns against a workflow engine: generate, drive, check, shrink, explain, save.

Notation: a *case* is ``{"document", "scenario", "schedule"}`` (the
schedule picks which outstanding invocation completes at each ``wait``).
A campaign is a Hypothesis search over ``engine_cases()`` with a fixed seed
and no example database, so the same seed and version give the same
campaign.  Each example is judged (oracle/engine.py); the first divergence
or fault makes Hypothesis shrink document, scenario and schedule together to
a minimal case that still fails the same way (same verdict, same first
divergent event kind), which is then explained (the clauses and their text)
and saved as a regression fixture (oracle/fixtures.py).
"""

from __future__ import annotations

import copy
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
from hypothesis import HealthCheck, Phase, given, seed, settings

from wforacle.model.kernel.lts import execute
from wforacle.model.w6w.scenario import load_scenario
from wforacle.model.w6w.semantics import Replay, W6wRun, run_state
from wforacle.oracle.engine import Engine, Judgement, judge
from wforacle.properties.strategies.w6w import engine_cases
from wforacle.properties.w6w.validate import validate

JSON = Any


@attrs.frozen
class Finding:
    """A shrunk failing case, its judgement and what it cost to find."""

    case: JSON = attrs.field(eq=False)
    judgement: Judgement = attrs.field(eq=False)
    examples: int
    seconds_to_find: float
    seconds_to_shrink: float

    @property
    def size(self) -> dict[str, int]:
        """Steps and edges of the shrunk document."""
        document = self.case["document"]
        return {"steps": len(document["steps"]), "edges": len(document.get("edges") or [])}


@attrs.frozen
class Campaign:
    """What a campaign did."""

    examples: int
    seconds: float
    finding: Finding | None
    faults: int
    # The engine faults met while searching (case, judgement), when they did not stop it.
    fault_cases: tuple[tuple[JSON, Judgement], ...] = attrs.field(default=(), eq=False)


class Failed(Exception):
    """A failing example, carried out of a Hypothesis search to be shrunk and reported."""

    def __init__(self, case: JSON, judgement: Judgement) -> None:
        super().__init__(judgement.verdict)
        self.case = case
        self.judgement = judgement


def prepare(case: JSON) -> tuple[W6wRun, JSON]:
    """The model run of a case and, for a replay case, the request the engine gets.

    The document is validated and the scenario loaded once; a replay case's
    ``{"runState", "from"}`` is the model's reference run of the same
    document and scenario (unless the case carries its own ``runState``),
    and the model is the run that replays it.  ValueError when the case is
    not runnable.
    """
    result = validate(copy.deepcopy(case["document"]))
    if not result.report.valid or result.workflow is None or result.plan is None:
        raise ValueError(f"the case's document is invalid: {result.report.codes()}")
    scenario, problems = load_scenario(copy.deepcopy(case["scenario"]))
    if problems:
        raise ValueError(f"the case's scenario is invalid: {[p.message for p in problems]}")
    run = W6wRun(result.workflow, result.plan, scenario)
    replay = case.get("replay")
    if not isinstance(replay, dict):
        return run, None
    request = replay
    if "runState" not in replay:
        state = run_state(run, execute(run).final)
        request = {"runState": state, "from": replay.get("from")}
    start = request["from"]
    if start is not None and start not in result.plan:
        raise ValueError(f"the case replays from {start!r}, which is not a step")
    replaying = W6wRun(
        result.workflow,
        result.plan,
        scenario,
        Replay.of(request["runState"], result.workflow, start),
    )
    return replaying, request


def model_of(case: JSON) -> W6wRun:
    """The model run of a case (its document must be valid); a replaying run for a replay case."""
    return prepare(case)[0]


def judge_case(engine: Engine, case: JSON) -> Judgement:
    """Judge one case (document, scenario, schedule, and replay if any) on the engine."""
    model, request = prepare(case)
    return judge(engine, model, case["document"], case.get("schedule", []), request)


def signature(judgement: Judgement) -> tuple[str, ...]:
    """What must stay the same while shrinking: the verdict and the kind of departure."""
    if judgement.fault is not None:
        return ("fault", judgement.fault.kind)
    if judgement.divergence is not None:
        observed = judgement.divergence.observed or {}
        return ("divergence", str(observed.get("event", "runState")))
    return ("pass",)


def campaign(
    engine: Engine,
    examples: int = 200,
    seed_value: int = 0,
    time_budget: float | None = None,
    progress: Callable[[int, float], None] | None = None,
    max_steps: int = 6,
    reduce_budget: float = 30.0,
    stop_on_fault: bool = False,
) -> Campaign:
    """Search for a divergence; shrink the first one found.

    An engine fault (crash, hang, flood, protocol) is classified, the engine
    restarted, and the search goes on: the faults are counted and the first
    ten kept with their cases.  With ``stop_on_fault`` a fault is a finding
    like a divergence, and shrinks.
    """
    counted = {"examples": 0, "faults": 0}
    fault_cases: list[tuple[JSON, Judgement]] = []
    start = time.perf_counter()
    first: dict[str, Any] = {}

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
    @given(engine_cases(max_steps=max_steps))
    def probe(case: JSON) -> None:
        if time_budget is not None and not first and time.perf_counter() - start > time_budget:
            return  # the budget is spent: the remaining examples pass untried
        counted["examples"] += 1
        if progress is not None and not first:
            progress(counted["examples"], time.perf_counter() - start)
        judgement = judge_case(engine, case)
        if judgement.verdict == "pass":
            return
        if judgement.verdict == "fault" and not first:
            counted["faults"] += 1
            if not stop_on_fault:
                if len(fault_cases) < 10:
                    fault_cases.append((case, judgement))
                return
        if not first:
            first.update(
                signature=signature(judgement), at=time.perf_counter(), examples=counted["examples"]
            )
        elif signature(judgement) != first["signature"]:
            return  # a different failure: not a smaller instance of this one
        raise Failed(case, judgement)

    try:
        probe()
    except Failed as failed:
        found_at = first["at"] - start
        wanted = signature(failed.judgement)
        last: dict[str, Judgement] = {}

        def still_fails(candidate: JSON) -> bool:
            j = judge_case(engine, candidate)
            last["judgement"] = j
            return signature(j) == wanted

        reduced = reduce_case(failed.case, still_fails, budget=reduce_budget)
        judgement = judge_case(engine, reduced)
        finding = Finding(
            reduced,
            judgement,
            first["examples"],
            found_at,
            time.perf_counter() - first["at"],
        )
        return Campaign(
            counted["examples"],
            time.perf_counter() - start,
            finding,
            counted["faults"],
            tuple(fault_cases),
        )
    return Campaign(
        counted["examples"],
        time.perf_counter() - start,
        None,
        counted["faults"],
        tuple(fault_cases),
    )


def explain(finding: Finding) -> str:
    """A human explanation of a finding: the case, where it departs, and why."""
    from wforacle.properties.clauses import clause_text

    lines = []
    j = finding.judgement
    size = finding.size
    lines.append(
        f"minimal case: {size['steps']} step(s), {size['edges']} edge(s); "
        f"found after {finding.examples} example(s) in {finding.seconds_to_find:.2f} s, "
        f"shrunk in {finding.seconds_to_shrink:.2f} s"
    )
    if j.fault is not None:
        lines.append(f"ENGINE FAULT ({j.fault.kind}): {j.fault.message}")
        return "\n".join(lines)
    d = j.divergence
    assert d is not None
    lines.append(f"DIVERGENCE at event {d.index}: {d.message}")
    if d.observed is not None:
        lines.append(f"  engine:    {_short(d.observed)}")
    for event in d.permitted[:6]:
        lines.append(f"  permitted: {_short(event)}")
    for clause in d.clauses:
        try:
            text = clause_text(clause)
        except KeyError:
            text = "(see docs/assumptions.md)"
        lines.append(f"  {clause}: {text}")
    return "\n".join(lines)


def _short(value: JSON, limit: int = 220) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def terminal_progress(every: int = 25) -> Callable[[int, float], None]:
    """A progress line on stderr every ``every`` examples."""

    def show(count: int, seconds: float) -> None:
        if count % every == 0:
            rate = count / seconds if seconds else 0.0
            print(f"  {count} examples, {seconds:.1f} s, {rate:.0f}/s", file=sys.stderr)

    return show


def save(finding: Finding, directory: Path) -> Path:
    """Save a finding as a regression fixture; returns its directory."""
    from wforacle.oracle.fixtures import write_case

    return write_case(
        directory,
        finding.case,
        extra={"finding": finding.judgement.to_json(), "size": finding.size},
    )


def reduce_case(case: JSON, still_fails: Callable[[JSON], bool], budget: float = 60.0) -> JSON:
    """Greedily remove what the failure does not need (delta debugging over a concrete case).

    Tried in order, each kept only when ``still_fails`` holds: removing a step
    (with its edges and scenario script), removing an edge, dropping a step's
    optional fields (retry, onError, fanOut, with), dropping scenario scripts
    and attempts, and emptying the schedule.  Repeats until nothing more goes
    or the ``budget`` (seconds) is spent.  Hypothesis shrinks generated cases;
    this reduces a case that came from anywhere (a bug report), and finishes
    what Hypothesis's shrinker leaves when a smaller graph needs several
    coordinated edits.
    """
    deadline = time.monotonic() + budget
    current = copy.deepcopy(case)

    def attempt(candidate: JSON) -> bool:
        nonlocal current
        if time.monotonic() > deadline:
            return False
        try:
            model_of(candidate)
        except ValueError:
            return False  # an invalid document is not a smaller instance
        if still_fails(candidate):
            current = candidate
            return True
        return False

    changed = True
    while changed and time.monotonic() < deadline:
        changed = False
        for candidate in _smaller(current):
            if attempt(candidate):
                changed = True
                break
    return current


def _smaller(case: JSON) -> Any:
    document, scenario = case["document"], case["scenario"]
    steps = document["steps"]
    edges = document.get("edges") or []
    for step in reversed(steps):
        if len(steps) == 1:
            break
        smaller = copy.deepcopy(case)
        doc = smaller["document"]
        doc["steps"] = [s for s in doc["steps"] if s["id"] != step["id"]]
        if "edges" in doc:
            doc["edges"] = [e for e in doc["edges"] if step["id"] not in (e["from"], e["to"])]
        smaller["scenario"].get("steps", {}).pop(step["id"], None)
        yield smaller
    for k in reversed(range(len(edges))):
        smaller = copy.deepcopy(case)
        del smaller["document"]["edges"][k]
        yield smaller
    for k, step in enumerate(steps):
        for field in ("retry", "onError", "fanOut", "with"):
            if field in step:
                smaller = copy.deepcopy(case)
                del smaller["document"]["steps"][k][field]
                yield smaller
    for step_id in list(scenario.get("steps", {})):
        smaller = copy.deepcopy(case)
        del smaller["scenario"]["steps"][step_id]
        yield smaller
        attempts = scenario["steps"][step_id].get("attempts", [])
        for k in reversed(range(len(attempts))):
            if len(attempts) > 1:
                smaller = copy.deepcopy(case)
                del smaller["scenario"]["steps"][step_id]["attempts"][k]
                yield smaller
            if "meta" in attempts[k]:
                smaller = copy.deepcopy(case)
                del smaller["scenario"]["steps"][step_id]["attempts"][k]["meta"]
                yield smaller
    if case.get("schedule"):
        smaller = copy.deepcopy(case)
        smaller["schedule"] = smaller["schedule"][:-1]
        yield smaller
