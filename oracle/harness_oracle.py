"""The oracle for Harness engines: drive, judge, and a seeded campaign (issue 6).

The protocol is the w6w one (docs/engine-protocol.md) with Harness payloads:
``run`` carries the XML ``document``, ``params`` and ``failingResources``;
``invoke`` names a ``node`` and its ``inputs``; the result is
``{"outputs": {...}}`` or ``{"error": {...}}`` from the scenario; an engine
withdraws an invocation it cancelled under an ``any`` join with
``{"type": "cancel", "call": N}``.  Verdicts are the same three: pass,
divergence (first divergent event, permitted events, clauses), fault.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from typing import Any

import attrs
from hypothesis import HealthCheck, Phase, assume, given, seed, settings

from wforacle.model.harness.semantics import HarnessRun, Options, Scenario, config_key, outcome
from wforacle.oracle.check import Divergence, check
from wforacle.oracle.engine import Engine, Fault, Judgement, Observation, choose
from wforacle.properties.harness.validate import validate

JSON = Any


CHAPTER = Options()


def model_of(case: JSON, options: Options = CHAPTER) -> HarnessRun:
    """The model instance of a case under the readings ``options``; ValueError when invalid."""
    result = validate(case["document"])
    if not result.report.valid or result.harness is None:
        raise ValueError(f"invalid Harness document: {result.report.codes()}")
    return HarnessRun(result.harness, Scenario.of(copy.deepcopy(case["scenario"])), options)


def drive(engine: Engine, case: JSON, schedule: Sequence[int]) -> Observation:
    """Run one Harness case on the engine, answering from its scenario."""
    if engine.process is None:
        engine.start()
    started = time.perf_counter()
    scenario = case["scenario"]
    engine.write(
        {
            "type": "run",
            "runId": "run_1",
            "document": case["document"],
            "params": scenario.get("params", {}),
            "failingResources": scenario.get("failingResources", []),
        }
    )
    model = Scenario.of(scenario)
    nodes = {node.id: node for node in validate(case["document"]).harness.nodes}  # type: ignore[union-attr]
    trace: list[JSON] = []
    invocations: list[tuple[str, JSON]] = []
    outstanding: dict[JSON, str] = {}
    counts: dict[str, int] = {}
    choices = iter(schedule)
    for _ in range(engine.max_messages):
        message = engine.read()
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "event" and isinstance(message.get("event"), dict):
            trace.append(message["event"])
        elif kind == "invoke":
            call, node = message.get("call"), message.get("node")
            if node not in nodes or call is None or call in outstanding:
                raise Fault("protocol", f"a malformed or repeated invoke: {message}")
            outstanding[call] = node
            invocations.append((node, message.get("inputs")))
        elif kind == "cancel":
            if message.get("call") not in outstanding:
                raise Fault("protocol", f"cancel of a call not outstanding: {message}")
            del outstanding[message["call"]]
        elif kind == "wait":
            if not outstanding:
                raise Fault("protocol", "wait with no invocation outstanding")
            call = choose(outstanding, choices)
            node = outstanding.pop(call)
            counts[node] = counts.get(node, 0) + 1
            result = model.result(nodes[node], counts[node])
            engine.write({"type": "result", "call": call, **result})
        elif kind == "log":
            continue
        elif kind == "done":
            return Observation(
                tuple(trace),
                tuple(invocations),
                message.get("state"),
                time.perf_counter() - started,
            )
        else:
            raise Fault("protocol", f"unknown message: {str(message)[:200]}")
    raise Fault("flood", f"more than {engine.max_messages} messages in one run")


def judge(engine: Engine, case: JSON, options: Options = CHAPTER) -> Judgement:
    """Run one case on the engine and compare it with the model read with ``options``."""
    model = model_of(case, options)
    try:
        seen = drive(engine, case, case.get("schedule", []))
    except Fault as fault:
        return engine.recover(fault)
    verdict = check(model, config_key, list(seen.trace))
    if verdict.divergence is not None:
        return Judgement("divergence", divergence=verdict.divergence, observation=seen)
    finals = [_comparable(outcome(model, c)) for c in verdict.finals]
    observed = _comparable(seen.state)
    if observed not in finals:
        return Judgement(
            "divergence",
            divergence=Divergence(
                len(seen.trace),
                {"final": observed},
                tuple({"final": f} for f in finals[:2]),
                ("HX-DONE-1", "HX-DONE-2", "HX-DATA-1"),
                "the engine's final node states differ from the model's",
            ),
            observation=seen,
        )
    return Judgement("pass", observation=seen, finals=verdict.finals)


def _comparable(state: JSON) -> JSON:
    if not isinstance(state, dict):
        return {"invalid": state}
    raw = state.get("nodes")
    nodes: dict[str, JSON] = raw if isinstance(raw, dict) else {}
    return {
        "status": state.get("status"),
        "nodes": {
            k: {"state": v.get("state"), "outputs": v.get("outputs"), "error": v.get("error")}
            for k, v in nodes.items()
            if isinstance(v, dict)
        },
    }


@attrs.frozen
class HarnessFinding:
    """A shrunk failing Harness case."""

    case: JSON = attrs.field(eq=False)
    judgement: Judgement = attrs.field(eq=False)
    examples: int
    seconds_to_find: float
    seconds_to_shrink: float


@attrs.frozen
class HarnessCampaign:
    """What a Harness campaign did: examples, the finding, the engine faults met."""

    examples: int
    finding: HarnessFinding | None
    faults: int = 0
    fault_cases: tuple[tuple[JSON, Judgement], ...] = attrs.field(default=(), eq=False)


def campaign(
    engine: Engine, examples: int = 300, seed_value: int = 0, options: Options = CHAPTER
) -> HarnessCampaign:
    """Search generated Harness cases for a divergence; shrink the first.

    ``options`` selects the model's readings where the chapter is open
    (docs/assumptions.md A-61, A-80..A-82), for an engine that takes another.

    Engine faults are counted (the first ten kept with their cases), the
    engine restarted, and the search goes on, as for w6w.
    """
    from wforacle.oracle.fuzz import Failed, signature
    from wforacle.properties.strategies.harness import harness_cases

    counted = {"examples": 0, "faults": 0}
    fault_cases: list[tuple[JSON, Judgement]] = []
    first: dict[str, Any] = {}
    start = time.perf_counter()

    @seed(seed_value)
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        print_blob=False,
    )
    @given(harness_cases())
    def probe(case: JSON) -> None:
        try:
            model_of(case)
        except ValueError:
            assume(False)
        counted["examples"] += 1
        judgement = judge(engine, case, options)
        if judgement.verdict == "fault" and not first:
            counted["faults"] += 1
            if len(fault_cases) < 10:
                fault_cases.append((case, judgement))
            return
        if judgement.verdict != "divergence":
            return
        if not first:
            first.update(
                signature=signature(judgement), at=time.perf_counter(), examples=counted["examples"]
            )
        elif signature(judgement) != first["signature"]:
            return
        raise Failed(case, judgement)

    try:
        probe()
    except Failed as failed:
        finding = HarnessFinding(
            failed.case,
            failed.judgement,
            first["examples"],
            first["at"] - start,
            time.perf_counter() - first["at"],
        )
        return HarnessCampaign(counted["examples"], finding, counted["faults"], tuple(fault_cases))
    return HarnessCampaign(counted["examples"], None, counted["faults"], tuple(fault_cases))
