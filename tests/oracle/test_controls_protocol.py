"""The canonical controls over the engine protocol (issue 18; A-53, A-160).

A control's sub-block steps are invoked like any step and reported inside
the control's event (``inner``); the control itself invokes nothing.  A
parallel control's branches interleave as the engine schedules them, and
the checker compares them branch by branch.
"""

from __future__ import annotations

import sys
from pathlib import Path

import attrs
import pytest

from wforacle.model.w6w.controls import branch_order, in_branch_order
from wforacle.oracle.engine import Engine, judge
from wforacle.properties.w6w.conformance import invocations_mismatch
from wforacle.properties.w6w.specification import W6W

ENGINES = Path(__file__).resolve().parents[2] / "examples" / "engines"
TOYFLOW = f"{sys.executable} {ENGINES / 'w6w_engine.py'}"


def _app(step_id, **fields):
    return {"id": step_id, "uses": {"app": "demo", "action": "run"}, **fields}


def _case(control, scripts, schedule=()):
    document = {"manifestVersion": "2", "id": "wf", "name": "c", "steps": [control]}
    return {"document": document, "scenario": {"steps": scripts}, "schedule": list(schedule)}


PARALLEL = {
    "id": "c",
    "uses": {"app": "@w6w/control", "action": "parallel"},
    "with": {"branches": [[_app("p0"), _app("p1")], [_app("q0")]]},
}
SCRIPTS = {name: {"attempts": [{"output": name}]} for name in ("p0", "p1", "q0")}


@pytest.fixture(scope="module")
def toyflow():
    engine = Engine(TOYFLOW)
    yield engine
    engine.stop()


def _inner_steps(judgement):
    (control,) = [e for e in judgement.observation.trace if e.get("step") == "c"][-1:]
    return [e.get("step") for e in control["inner"] if e["event"] == "step_succeeded"]


def test_a_parallel_control_s_branches_may_end_in_any_order(toyflow):
    # The schedule picks q0's result first, then p0's: the engine reports q0 before
    # p0 and p1.  The model records the branches in turn, and so does the
    # checker compare them: both orders pass.
    orders = []
    for schedule in ([0, 0], [1, 0]):
        judgement = judge(toyflow, W6W, _case(PARALLEL, SCRIPTS, schedule))
        assert judgement.verdict == "pass", judgement.divergence
        orders.append(_inner_steps(judgement))
    assert orders[0] != orders[1], orders  # the engine's own order really differed


def test_a_block_step_the_engine_did_not_invoke_or_a_control_it_did_is_a_divergence(toyflow):
    judgement = judge(toyflow, W6W, _case(PARALLEL, SCRIPTS))
    assert judgement.verdict == "pass", judgement.divergence
    seen = judgement.observation
    assert sorted(step for step, _ in seen.invocations) == ["p0", "p1", "q0"]
    model = W6W.prepare(_case(PARALLEL, SCRIPTS), None).semantics
    assert invocations_mismatch(model, seen) is None
    missing = attrs.evolve(seen, invocations=seen.invocations[1:])
    assert invocations_mismatch(model, missing) is not None
    extra = attrs.evolve(seen, invocations=(*seen.invocations, ("c", {})))
    assert invocations_mismatch(model, extra) is not None


def test_branch_order_keeps_each_branch_s_order_and_ends_with_run_finished():
    prepared = W6W.prepare(_case(PARALLEL, SCRIPTS), None)
    step = prepared.semantics.workflow.steps[0]
    events = [
        {"event": "step_started", "step": "q0"},
        {"event": "step_started", "step": "p0"},
        {"event": "step_succeeded", "step": "q0"},
        {"event": "step_succeeded", "step": "p0"},
        {"event": "step_started", "step": "p1"},
        {"event": "run_finished", "status": "failed", "step": "p1"},
        {"event": "step_failed", "step": "p1"},
    ]
    ordered = branch_order(step, events)
    assert [(e["event"], e.get("step")) for e in ordered] == [
        ("step_started", "p0"),
        ("step_succeeded", "p0"),
        ("step_started", "p1"),
        ("step_failed", "p1"),
        ("step_started", "q0"),
        ("step_succeeded", "q0"),
        ("run_finished", "p1"),
    ]
    # An engine's malformed inner events are compared as they are, never a crash.
    odd = {"event": "step_succeeded", "step": "c", "inner": [7, {"step": ["x"]}, None]}
    assert in_branch_order({"c": step}, odd)["inner"][0] == 7


def _blamed(control, observed):
    from wforacle.properties.specification import Divergence
    from wforacle.properties.w6w.conformance import blame

    run = W6W.prepare(_case(control, {}), None).semantics
    return blame(run, Divergence(1, observed, (), (), "differs"))


FOREACH = {
    "id": "c",
    "uses": {"app": "@w6w/control", "action": "foreach"},
    "with": {"items": [1, 2], "body": [_app("b0")]},
}
FAILED = {"event": "run_finished", "status": "failed", "error": {}, "step": "b0"}


def test_a_control_s_own_definition_is_blamed_where_the_engine_breaks_it():
    # The input is the parameters without the blocks.
    started = {"event": "step_started", "step": "c", "attempt": 1, "input": FOREACH["with"]}
    assert _blamed(FOREACH, started) == ("A-53", "A-06")
    # The first failing iteration ends the foreach (A-53, W6W-EDGE-10).
    more = [FAILED, {"event": "step_started", "step": "b0"}, {"event": "run_finished"}]
    ended = {"event": "attempt_failed", "step": "c", "inner": more}
    assert _blamed(FOREACH, ended) == ("A-53", "W6W-EDGE-10")
    assert _blamed(FOREACH, {**ended, "inner": [FAILED]}) == ()
    # An if whose condition is [] (false by JSONLogic truthiness) runs else.
    branch = {
        "id": "c",
        "uses": {"app": "@w6w/control", "action": "if"},
        "with": {"condition": [], "then": [_app("t0")], "else": [_app("e0")]},
    }
    ran_then = {"event": "step_succeeded", "step": "c", "inner": [{"step": "t0"}]}
    assert _blamed(branch, ran_then) == ("A-53", "A-20")
    assert _blamed(branch, {**ran_then, "inner": [{"step": "e0"}]}) == ()


def test_a_parallel_output_in_another_order_cites_a53_first():
    # a parallel's output is "[lastOutput of each branch]" in branch order, a
    # foreach's in iteration order; a stranger's engine ordered it by finish and was told
    # W6W-FIELD-10 (session 24).
    from wforacle.properties.specification import Divergence
    from wforacle.properties.w6w.conformance import blame

    run = W6W.prepare(_case(PARALLEL, {}), None).semantics
    model = {"event": "step_succeeded", "step": "c", "output": ["p1", "q0"]}

    def blamed(output):
        observed = {**model, "output": output}
        return blame(run, Divergence(1, observed, (model,), (), "differs"))

    assert blamed(["q0", "p1"]) == ("A-53",)
    assert blamed(["q0", "q0"]) == ()  # not the model's members: another fault


def test_a_block_step_repeating_a_main_step_s_id_continues_its_scripted_results(toyflow):
    # The oracle answers an invoke by step id, counting across the run (its n-th
    # invocation, the n-th result): so does the model, for a block step that repeats
    # a main step's id (a warning, duplicate_nested_step_id).  A stranger's engine
    # could pass no such case while the model counted the block's b from 0.
    loop = {**FOREACH, "with": {"items": [1], "body": [_app("b")]}}
    scripts = {"b": {"attempts": [{"output": "first"}, {"output": "second"}]}}
    for steps, block_output in (([_app("b"), loop], "second"), ([loop, _app("b")], "first")):
        document = {"manifestVersion": "2", "id": "wf", "name": "c", "steps": steps}
        case = {"document": document, "scenario": {"steps": scripts}, "schedule": []}
        judgement = judge(toyflow, W6W, case)
        assert judgement.verdict == "pass", judgement.divergence
        trace = judgement.observation.trace
        (control,) = [e for e in trace if e.get("step") == "c" and "inner" in e]
        assert next(e["output"] for e in control["inner"] if "output" in e) == block_output
        main = [e["output"] for e in trace if e.get("step") == "b" and "output" in e]
        assert main == [{"first": "second", "second": "first"}[block_output]]
