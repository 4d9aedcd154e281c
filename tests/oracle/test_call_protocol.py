"""@w6w/call child runs over the engine protocol (docs/engine-protocol.md, "Calls").

A-56: a call's with is ``{"workflow": <id>, "inputs": {...}}``; a workflow the
scenario's ``calls`` supplies runs as a child run with the inputs as its
variables; the child's steps are invoked as ``<call>.(run).<step>`` and
answered by that workflow's scenario; the child's events travel in the
call's attempt event as ``inner``.  W6W-EDGE-8: a call runs no retry loop;
W6W-RUNERR-3: calls are "call-depth-bounded".
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from wforacle.model.kernel.lts import execute
from wforacle.oracle.engine import Engine, Observation, judge
from wforacle.oracle.fuzz import campaign
from wforacle.oracle.power import PROFILE_BUGS
from wforacle.properties.w6w.conformance import invocations_mismatch
from wforacle.properties.w6w.specification import W6W

TOYFLOW = (
    f"{sys.executable} {Path(__file__).resolve().parents[2] / 'examples/engines/w6w_engine.py'}"
)


def _workflow(name, *steps, **more):
    return {"manifestVersion": "2", "id": name, "name": name, "steps": list(steps), **more}


def _step(step_id, **more):
    return {"id": step_id, "uses": {"app": "demo", "action": "run"}, **more}


CALLER = _workflow(
    "wf",
    _step("a"),
    {
        "id": "c",
        "uses": {"app": "@w6w/call", "action": "call"},
        "with": {"workflow": "child", "inputs": {"x": {"$": "steps.a.output"}}},
    },
    edges=[{"from": "a", "to": "c"}],
)
CHILD = _workflow("child", _step("s", **{"with": {"v": {"$": "vars.x"}}}), _step("t"))
CASE = {
    "document": CALLER,
    "scenario": {
        "steps": {"a": {"attempts": [{"output": 5}]}},
        "calls": {
            "child": {
                "document": CHILD,
                "scenario": {"steps": {"t": {"attempts": [{"output": "done"}]}}},
            }
        },
    },
    "schedule": [],
}


@pytest.fixture(scope="module")
def toyflow():
    engine = Engine(TOYFLOW)
    yield engine
    engine.stop()


def test_a_child_run_is_driven_over_the_protocol(toyflow):
    judgement = judge(toyflow, W6W, CASE)
    assert judgement.verdict == "pass", judgement.to_json()
    invoked = dict(judgement.observation.invocations)
    # The child's steps, named under their call, with the call's inputs as variables.
    assert invoked["c.(run).s"] == {"v": 5}
    assert "c.(run).t" in invoked and "c" not in invoked
    state = judgement.observation.state
    assert state["status"] == "succeeded" and state["output"] == "done"  # t's, the child's


def test_the_run_message_carries_the_workflows_a_run_may_call():
    prepared = W6W.prepare(CASE, None)
    assert prepared.request["workflows"] == {"child": CHILD}
    assert prepared.request["maxCallDepth"] == 4


def test_a_child_step_the_engine_does_not_invoke_is_a_divergence():
    # The child's attempts are claimed by the call's inner events, under the call's name:
    # an engine that reports them without invoking them is caught.
    run = W6W.prepare(CASE, None).semantics
    trace = tuple(execute(run).trace)
    made = (("a", {}), ("c.(run).s", {"v": 5}))
    assert invocations_mismatch(run, Observation(trace, made, {}, 0.0)) is not None
    every = (*made, ("c.(run).t", {}))
    assert invocations_mismatch(run, Observation(trace, every, {}, 0.0)) is None


def test_the_correct_engine_passes_a_campaign_of_calls(toyflow):
    result = campaign(W6W, toyflow, examples=200, seed_value=0, cases=W6W.suites["w6w-call"]())
    assert result.finding is None and result.faults == 0


FIRST = {
    "call-retried": "W6W-EDGE-8",
    "call-depth-unbounded": "W6W-RUNERR-3",
    "call-defaults-ignored": "W6W-FIELD-19",
    "call-memoized": "W6W-RUNERR-7",  # a call made twice ran its child once
}


@pytest.mark.parametrize("bug", PROFILE_BUGS["w6w-call"][1])
def test_a_campaign_of_calls_finds_and_explains_the_seeded_bug(bug, toyflow):
    engine = Engine(f"{TOYFLOW} --bug {bug}")
    try:
        result = campaign(W6W, engine, examples=600, seed_value=0, cases=W6W.suites["w6w-call"]())
    finally:
        engine.stop()
    finding = result.finding
    assert finding is not None
    assert finding.judgement.divergence.clauses[0] == FIRST[bug]
    assert len(finding.case["document"]["steps"]) == 1, finding.case["document"]
    assert judge(toyflow, W6W, finding.case).verdict == "pass"  # not a false alarm


LOOP = _workflow(
    "wf",
    {
        "id": "loop",
        "uses": {"app": "@w6w/control", "action": "foreach"},
        "with": {
            "items": [1, 2],
            "body": [
                {
                    "id": "c",
                    "uses": {"app": "@w6w/call", "action": "call"},
                    "with": {"workflow": "child", "inputs": {"x": {"$": "foreach.item"}}},
                }
            ],
        },
    },
)
TWICE = [{"output": "first"}, {"output": "second"}]


def test_a_call_made_twice_is_answered_with_the_child_steps_next_results(toyflow):
    # The host counts c.(run).t's invocations over the execution: the second call's t
    # gets the second result, as the model now has it (it had 'first' twice: a false
    # alarm on every engine).
    calls = {"child": {"document": CHILD, "scenario": {"steps": {"t": {"attempts": TWICE}}}}}
    case = {"document": LOOP, "scenario": {"calls": calls}, "schedule": []}
    judgement = judge(toyflow, W6W, case)
    assert judgement.verdict == "pass", judgement.to_json()
    assert judgement.observation.state["output"] == ["first", "second"]
    failing = [{"error": {"code": "x", "message": "m", "retryable": False}}, TWICE[1]]
    retried = _workflow("wf", CALLER["steps"][1], retry={"maxAttempts": 2, "delayMs": 10})
    retried["steps"][0]["with"]["inputs"] = {"x": 1}
    calls = {"child": {"document": CHILD, "scenario": {"steps": {"t": {"attempts": failing}}}}}
    judgement = judge(toyflow, W6W, {"document": retried, "scenario": {"calls": calls}})
    assert judgement.verdict == "pass", judgement.to_json()
    assert judgement.observation.state["output"] == "second"


def test_a_call_retried_in_a_foreach_body_is_explained_by_edge_8():
    # The foreach's attempt fails in the model (the body's call failed), so the
    # engine's step_succeeded has no room; the cause is inside: the call was retried.
    body = LOOP["steps"][0]["with"]["body"][0]
    loop = {**LOOP["steps"][0], "with": {"items": [1], "body": [{**body, "with": {}}]}}
    loop["with"]["body"][0]["retry"] = {"maxAttempts": 2, "delayMs": 10}
    flaky = {"error": {"code": "flaky", "message": "m", "retryable": True}}
    case = {
        "document": _workflow("wf", loop),
        "scenario": {"steps": {"c": {"attempts": [flaky, {"output": 2}]}}},
    }
    engine = Engine(f"{TOYFLOW} --bug call-retried")
    try:
        judgement = judge(engine, W6W, case)
    finally:
        engine.stop()
    assert judgement.verdict == "divergence"
    from wforacle.oracle.explain import by_rule

    run = W6W.prepare(case, None).semantics
    trace = judgement.observation.trace
    explained = by_rule(W6W, run, judgement.divergence, trace)
    assert explained.clauses[0] == "W6W-EDGE-8", explained.clauses
    assert "in iteration 0 of foreach loop" in explained.message


def test_a_call_returning_another_child_step_s_output_breaks_fan_10():
    # A-56: a call's output is its child's lastOutput; W6W-FAN-10: "lastOutput is the output
    # of the last succeeded step by plan order".  A stranger's engine returned the child's
    # first output: the explanation named W6W-FIELD-10 (the attempt rule's first clause).
    from wforacle.oracle.check import check
    from wforacle.oracle.explain import by_rule

    run = W6W.prepare(CASE, None).semantics
    trace = [dict(e) for e in execute(run).trace]
    k = next(k for k, e in enumerate(trace) if e["event"] == "step_succeeded" and e["step"] == "c")
    call = trace[k]
    first = next(e["output"] for e in call["inner"] if e["event"] == "step_succeeded")
    inner = [{**e, "output": first} if e["event"] == "run_finished" else e for e in call["inner"]]
    trace[k] = {**call, "output": first, "inner": inner}
    divergence = check(run, W6W.key, trace).divergence
    assert divergence is not None
    assert by_rule(W6W, run, divergence, trace).clauses[0] == "W6W-FAN-10"


def test_a_child_run_started_with_a_variable_its_inputs_lack_cites_a56_first():
    # a child run's variables are the call's resolved inputs.  A stranger's engine
    # merged the caller's variables in and was told W6W-FIELD-18 (session 24).
    from wforacle.oracle.check import check
    from wforacle.oracle.explain import by_rule

    run = W6W.prepare(CASE, None).semantics
    trace = [dict(e) for e in execute(run).trace]
    k = next(k for k, e in enumerate(trace) if e["event"] == "step_succeeded" and e["step"] == "c")
    call = trace[k]
    inner = [
        {**e, "variables": {**e["variables"], "extra": 1}} if e["event"] == "run_started" else e
        for e in call["inner"]
    ]
    trace[k] = {**call, "inner": inner}
    divergence = check(run, W6W.key, trace).divergence
    assert divergence is not None
    assert by_rule(W6W, run, divergence, trace).clauses[0] == "A-56"


def test_a_secret_in_a_calls_inputs_crosses_as_the_marker(toyflow):
    # W6W-ENV-17, A-70: the child's recorded events show "[secret]", never the plaintext.
    # Until session 24 no campaign drew it: the interleaving check ran the child run
    # unmasked, so a correct engine's inner events were "in an order no run permits", and
    # toyflow passed the plaintext down (its trace held it).
    call = {"id": "c", "uses": {"app": "@w6w/call", "action": "call"},
            "with": {"workflow": "child", "inputs": {"key": "{{ secrets.API_KEY }}"}}}  # fmt: skip
    child = _workflow("child", _step("s", **{"with": {"k": {"$": "vars.key"}}}))
    case = {
        "document": _workflow("wf", call),
        "scenario": {
            "secrets": {"API_KEY": "tok-7f3a"},
            "calls": {"child": {"document": child, "scenario": {}}},
        },
        "schedule": [],
    }
    judgement = judge(toyflow, W6W, case)
    assert judgement.verdict == "pass", judgement.to_json()
    (called,) = [e for e in judgement.observation.trace if e.get("step") == "c" and "inner" in e]
    assert "tok-7f3a" not in str(called) and "[secret]" in str(called)
    # The nested check (an engine's inner events in its own order) runs the child masked.
    from wforacle.oracle.explain import _first_nested

    trace = list(judgement.observation.trace)
    k = trace.index(called)
    assert _first_nested(W6W, W6W.prepare(case, None).semantics, trace[:k], called) is None


def test_a_called_workflows_fields_scripts_and_the_calls_inputs_shrink():
    # Stranger 19: shrunk cases kept a child step's retry and fanOut, its script's meta
    # report and idempotent flag, and the call's inputs, none of which the finding needed.
    # Here the finding is the run's output, "done": the child's t and its script.
    import copy

    from wforacle.oracle.fuzz import reduce_case

    case = copy.deepcopy(CASE)
    child = case["scenario"]["calls"]["child"]
    child["document"]["steps"][1].update(
        retry={"maxAttempts": 2, "backoff": "exponential", "delayMs": 0}, fanOut="parallel"
    )
    meta = [{"app": "slack", "action": "post", "connectionId": "c1", "version": "1"}]
    child["scenario"]["steps"]["t"] = {
        "attempts": [{"output": "done", "meta": meta}],
        "idempotent": False,
    }
    case["document"]["steps"][1]["with"]["inputs"]["y"] = 1

    def output(c):
        return execute(W6W.prepare(c, None).semantics).trace[-1].get("output")

    assert output(case) == "done"
    reduced = reduce_case(W6W, case, lambda c: output(c) == "done")
    (call,) = reduced["document"]["steps"]
    assert "inputs" not in call["with"], call
    callee = reduced["scenario"]["calls"]["child"]
    (t,) = callee["document"]["steps"]
    assert "retry" not in t and "fanOut" not in t, t
    assert callee["scenario"]["steps"]["t"] == {"attempts": [{"output": "done"}]}, callee


def test_a_divergence_inside_a_child_run_is_explained_by_the_child_s_rule():
    # the child's events travel in the call's event as ``inner``; an inner event
    # the child's run does not permit (here its step s started with another input than
    # vars.x resolves to) was explained as the call's own attempt (W6W-FIELD-10 first).
    # The child run is checked as any nested run is, and its rule comes first.
    from wforacle.oracle.check import check
    from wforacle.oracle.explain import by_rule

    run = W6W.prepare(CASE, None).semantics
    trace = [dict(e) for e in execute(run).trace]
    k = next(k for k, e in enumerate(trace) if e["event"] == "step_succeeded" and e["step"] == "c")
    inner = [
        {**e, "input": {"v": 6}} if e["event"] == "step_started" and e["step"] == "s" else e
        for e in trace[k]["inner"]
    ]
    trace[k] = {**trace[k], "inner": inner}
    divergence = check(run, W6W.key, trace).divergence
    assert divergence is not None
    explained = by_rule(W6W, run, divergence, trace)
    assert explained.clauses[0] == "W6W-EXPR-1", explained.clauses
    assert "in c's call of child" in explained.message
