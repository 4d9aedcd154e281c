"""A divergence is explained by the rule the engine broke (issue 18, part 4; oracle/explain.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.test_readings import RESOLUTION
from wforacle.model.kernel.lts import execute
from wforacle.oracle.check import check
from wforacle.oracle.engine import Engine, judge
from wforacle.oracle.explain import by_rule
from wforacle.oracle.fuzz import explained
from wforacle.properties.w6w.specification import W6W

ENGINES = Path(__file__).resolve().parents[1] / "examples" / "engines"

# One step with a retry policy whose first attempt fails in the auth phase
# (tests/test_readings.py's case, with another phase).
AUTH = {
    **RESOLUTION,
    "scenario": {
        "steps": {
            "a": {
                "attempts": [
                    {"error": {"code": "denied", "message": "no", "phase": "auth"}},
                    {"output": 1},
                ]
            }
        }
    },
}


def test_an_engine_retrying_an_auth_error_is_explained_by_the_retry_classification():
    # W6W-FIELD-24: "phase: "auth" errors are never retried".  The model permits only
    # the step's failure there; the engine's retry_scheduled is retry_step's event.
    engine = Engine(f"{sys.executable} {ENGINES / 'w6w_engine.py'} --bug retry-auth")
    try:
        judgement = judge(engine, W6W, AUTH)
    finally:
        engine.stop()
    plain = judgement.divergence
    assert plain is not None and plain.observed["event"] == "retry_scheduled"
    # fail_step cites the guard that held: the classification (W6W-FIELD-24).
    assert plain.clauses[0] == "W6W-FIELD-24"
    better = explained(W6W, AUTH, judgement, None).divergence
    assert better.clauses[: len(plain.clauses)] == plain.clauses
    assert "W6W-FIELD-20" in better.clauses and "W6W-FIELD-20" not in plain.clauses
    assert "retry_step" in better.message and better.index == plain.index


RETRYABLE = {"code": "t", "message": "m", "retryable": True}


def test_a_step_out_of_attempts_cites_max_attempts():
    case = {
        **AUTH,
        "scenario": {"steps": {"a": {"attempts": [{"error": RETRYABLE}] * 2}}},
    }
    semantics = W6W.prepare(case, None).semantics
    failed = [t for t in _transitions_of(semantics) if t.rule == "fail_step"]
    assert failed and all(t.clauses[0] == "W6W-FIELD-20" for t in failed)


def _transitions_of(semantics):
    from wforacle.oracle.explain import _transitions

    return _transitions(W6W, semantics, 1000)


def test_an_event_the_model_makes_elsewhere_in_the_run_says_so():
    document = {
        "manifestVersion": "2",
        "id": "wf",
        "name": "two",
        "steps": [
            {"id": "a", "uses": {"app": "demo", "action": "run"}},
            {"id": "b", "uses": {"app": "demo", "action": "run"}},
        ],
        "edges": [{"from": "a", "to": "b"}],
    }
    semantics = W6W.prepare({"document": document, "scenario": {}}, None).semantics
    trace = execute(semantics).trace
    started_b = next(e for e in trace if e["event"] == "step_started" and e["step"] == "b")
    verdict = check(semantics, W6W.key, [trace[0], started_b])  # b before a
    assert verdict.divergence is not None and verdict.divergence.index == 1
    better = by_rule(W6W, semantics, verdict.divergence)
    assert "at another point of this run" in better.message
    assert better.clauses[0] == "W6W-FAN-4"  # start_step: the plan's order


def test_a_divergence_of_another_kind_is_left_as_it_is():
    semantics = W6W.prepare(AUTH, None).semantics
    trace = execute(semantics).trace
    assert by_rule(W6W, semantics, None) is None
    ended_early = check(semantics, W6W.key, trace[:-1]).divergence
    assert ended_early is not None and by_rule(W6W, semantics, ended_early) is ended_early


def test_the_w6w_shrinker_contracts_a_step_keeping_the_path_through_it():
    # Issue 18 part 4: a case shrinks to what the bug needs; removing b from a -> b -> c
    # cuts the path, contracting it keeps a -error-> c.
    steps = [{"id": n, "uses": {"app": "demo", "action": "run"}} for n in "abc"]
    edges = [{"from": "a", "to": "b", "when": "error"}, {"from": "b", "to": "c"}]
    case = {
        "document": {
            "manifestVersion": "2",
            "id": "wf",
            "name": "n",
            "steps": steps,
            "edges": edges,
        },
        "scenario": {"steps": {"b": {"attempts": [{"output": 1}]}}, "crashAfterCheckpoints": [1]},
        "schedule": [],
    }
    variants = list(W6W.smaller(case))
    contracted = [
        v
        for v in variants
        if [s["id"] for s in v["document"]["steps"]] == ["a", "c"] and v["document"]["edges"]
    ]
    assert [v["document"]["edges"] for v in contracted] == [
        [{"from": "a", "to": "c", "when": "error"}]
    ]
    assert "b" not in contracted[0]["scenario"]["steps"]
    # And the scenario's crash goes as a feature of its own.
    assert any("crashAfterCheckpoints" not in v["scenario"] for v in variants)


def test_the_harness_shrinker_contracts_a_node_between_control_edges():
    from wforacle.properties.harness.specification import HARNESS

    document = (
        '<harness id="h"><node id="a" impl="x"/><node id="n" impl="x"/><node id="b" impl="x"/>'
        '<edge from="a" to="n"/><edge from="n" to="b"/></harness>'
    )
    case = {"document": document, "scenario": {"nodes": {"n": {}}}, "schedule": []}
    contracted = [
        v
        for v in HARNESS.smaller(case)
        if 'id="n"' not in v["document"] and "edge" in v["document"]
    ]
    assert len(contracted) == 1
    assert '<edge from="a" to="b" />' in contracted[0]["document"]
    assert contracted[0]["scenario"] == {"nodes": {}}
    HARNESS.prepare(contracted[0], None)  # a valid, runnable case
