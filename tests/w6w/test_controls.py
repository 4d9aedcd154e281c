"""The canonical controls, wait and @w6w/call (model/w6w/controls.py; A-53, A-55, A-56)."""

from __future__ import annotations

import copy
import json

import pytest

from wforacle.model.kernel.explore import canonical
from wforacle.model.kernel.lts import execute, seeded
from wforacle.model.w6w.independence import explore_run
from wforacle.model.w6w.scenario import load_scenario
from wforacle.model.w6w.semantics import Unsupported, W6wRun, run_state
from wforacle.properties.w6w.validate import validate

from .helpers import app_step, workflow


def semantics(doc, scenario=None):
    result = validate(copy.deepcopy(doc))
    assert result.report.valid, result.report.codes()
    loaded, problems = load_scenario(scenario or {})
    assert not problems, [p.to_json() for p in problems]
    return W6wRun(result.workflow, result.plan, loaded, validate=validate)


def finish(doc, scenario=None):
    run = semantics(doc, scenario)
    execution = execute(run)
    return execution.trace, run_state(run, execution.final)


def control(step_id, action, **with_):
    return {"id": step_id, "uses": {"app": "@w6w/control", "action": action}, "with": with_}


def outputs(*values):
    return {"attempts": [{"output": v} for v in values]}


def fails(code="boom"):
    return {"attempts": [{"error": {"code": code, "message": "m"}}]}


def step_events(trace, name):
    return [e for e in trace if e["event"] == name]


# -- if ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("condition", "branch"), [(True, "yes"), ([1], "yes"), ([], "no"), (0, "no"), ("", "no")]
)
def test_if_runs_the_then_block_when_the_condition_is_truthy(condition, branch):
    doc = workflow(
        control(
            "check", "if", condition=condition, then=[app_step("yes")], **{"else": [app_step("no")]}
        )
    )
    trace, state = finish(doc, {"steps": {"yes": outputs("Y"), "no": outputs("N")}})
    ran = [e["step"] for e in step_events(trace[-2]["inner"], "step_started")]
    assert ran == [branch]
    assert state["output"] == branch[0].upper()


# -- foreach ----------------------------------------------------------------------------


def test_foreach_runs_the_body_once_per_item_with_item_and_index():
    # W6W-ROOT: foreach adds foreach.item and foreach.index to the sub-block's scope.
    body = app_step(
        "each", **{"with": {"item": {"$": "foreach.item"}, "i": {"$": "foreach.index"}}}
    )
    doc = workflow(control("loop", "foreach", items=["a", "b", "c"], body=[body]))
    trace, state = finish(doc, {"steps": {"each": outputs(1, 2, 3)}})
    inner = trace[-2]["inner"]
    assert [e["input"] for e in step_events(inner, "step_started")] == [
        {"item": "a", "i": 0},
        {"item": "b", "i": 1},
        {"item": "c", "i": 2},
    ]
    assert state["steps"]["loop"]["output"] == [1, 2, 3]


def test_foreach_over_a_non_array_fails_at_resolution_without_a_retry_loop():
    # W6W-EDGE-8: control steps "run no retry loop at all" — a declared retry is never read.
    doc = workflow(
        control("loop", "foreach", items={"$": "vars.missing"}, body=[app_step("each")])
        | {"retry": {"maxAttempts": 5}}
    )
    trace, state = finish(doc)
    assert state["status"] == "failed"
    assert state["error"]["code"] == "foreach_items_not_array"
    assert state["error"]["phase"] == "resolution"
    # The value's JSON kind, not a Python type name ("NoneType"): docs/expressions.md.
    assert state["error"]["message"] == "foreach items resolved to null, not an array"
    assert not step_events(trace, "retry_scheduled")


def test_a_failing_iteration_ends_the_foreach_and_takes_the_error_edge_at_once():
    # W6W-EDGE-10: "A sub-block failure is handled by its enclosing control's own failure
    # modes"; W6W-EDGE-8: the error edge on the first failure.
    doc = workflow(
        control("loop", "foreach", items=[1, 2, 3], body=[app_step("each")])
        | {"retry": {"maxAttempts": 3}},
        app_step("handler"),
        edges=[{"from": "loop", "to": "handler", "when": "error"}],
    )
    scenario = {"steps": {"each": {"attempts": [{"output": 1}, fails()["attempts"][0]]}}}
    trace, state = finish(doc, scenario)
    failed = step_events(trace, "attempt_failed")[0]
    assert len(step_events(failed["inner"], "step_started")) == 2  # the third never ran
    assert state["steps"]["loop"]["status"] == "failed"
    assert state["steps"]["handler"]["status"] == "succeeded"
    assert state["status"] == "succeeded"


# -- parallel ---------------------------------------------------------------------------


PARALLEL = workflow(
    control(
        "both",
        "parallel",
        branches=[
            [app_step("p1"), app_step("p1b")],
            [app_step("p2", **{"with": {"seen": {"$": "steps.p1.output"}}})],
        ],
    )
)


def test_parallel_outputs_each_branchs_last_output_in_branch_order():
    _, state = finish(
        PARALLEL, {"steps": {"p1": outputs("A"), "p1b": outputs("B"), "p2": outputs("C")}}
    )
    assert state["output"] == ["B", "C"]


def test_parallel_branches_interleave_and_explore_sees_every_reading():
    run = semantics(PARALLEL, {"steps": {"p1": outputs("A"), "p2": outputs("C")}})
    seen = set()
    for found in explore_run(run).outcomes:
        for block in found.value["steps"]["both"]["inner"]:
            seen.add(canonical(block["p2"]["input"]))
    assert seen == {canonical({"seen": None}), canonical({"seen": "A"})}


def test_parallel_reports_the_first_failure_by_plan_order():
    # W6W-FAN-10 applied to branches (A-53).
    run = semantics(PARALLEL, {"steps": {"p1": fails("first"), "p2": fails("second")}})
    codes = set()
    for found in explore_run(run).outcomes:
        inner = found.value["steps"]["both"]["inner"][0]
        statuses = {inner.get(s, {}).get("status") for s in ("p1", "p2")}
        if statuses == {"failed"}:
            codes.add(found.value["error"]["code"])
    assert codes == {"first"}


# -- wait -------------------------------------------------------------------------------


def wait(step_id):
    return control(step_id, "wait", afterMs=1000)


def test_a_wait_suspends_the_run_with_one_token_and_nothing_after_it_runs():
    doc = workflow(wait("w"), app_step("after"), edges=[{"from": "w", "to": "after"}])
    trace, state = finish(doc)
    assert state["status"] == "queued"
    assert state["suspension"] == {"stepId": "w", "resumeToken": "run_1/w/1"}
    assert "after" not in state["steps"]
    assert step_events(trace, "step_suspended")[0]["directive"] == {"afterMs": 1000}


def test_a_resumed_wait_succeeds_with_the_resumption_output_and_the_run_continues():
    doc = workflow(wait("w"), app_step("after"), edges=[{"from": "w", "to": "after"}])
    trace, state = finish(doc, {"resumes": [{"output": {"woke": True}}]})
    assert state["status"] == "succeeded"
    assert state["steps"]["w"]["output"] == {"woke": True}
    assert [e["event"] for e in trace].count("run_resumed") == 1


def test_a_suspension_is_not_a_failure_the_run_ladder_never_runs():
    # W6W-RUNERR-6: "A queued run (a wait suspend) … [is] not [a failure]".
    doc = workflow(wait("w"), retry={"maxAttempts": 3}, onError="continue")
    trace, state = finish(doc)
    assert state["status"] == "queued"
    assert not step_events(trace, "run_restarted") and not step_events(trace, "run_continued")


def test_concurrent_waits_return_the_first_token_by_plan_order_and_the_other_reruns():
    # W6W-FAN-10: "A suspension returns one token — that of the first suspended step by
    # plan order; other waits re-run after resume."
    doc = workflow(
        app_step("a", fanOut="parallel"),
        wait("w1"),
        wait("w2"),
        edges=[{"from": "a", "to": "w1"}, {"from": "a", "to": "w2"}],
    )
    run = semantics(doc, {"resumes": [{"output": 1}, {"output": 2}]})
    for seed in range(30):
        trace = execute(run, seeded(seed)).trace
        suspended = step_events(trace, "run_suspended")
        if len(step_events(trace[: trace.index(suspended[0])], "step_suspended")) == 2:
            assert suspended[0]["step"] == "w1"
            assert step_events(trace, "run_resumed")[0]["step"] == "w1"
            restarted = [e["step"] for e in step_events(trace, "step_started")]
            assert restarted.count("w2") == 2
            break
    else:
        pytest.fail("no schedule suspended both waits together")


def test_a_wait_inside_a_sub_block_is_refused():
    doc = workflow(control("loop", "foreach", items=[1], body=[wait("w")]))
    with pytest.raises(Unsupported, match="A-55"):
        explore_run(semantics(doc))


# -- @w6w/call --------------------------------------------------------------------------


def call(step_id, target, **inputs):
    return {
        "id": step_id,
        "uses": {"app": "@w6w/call", "action": "run"},
        "with": {"workflow": target, "inputs": inputs},
    }


CHILD = workflow(
    app_step("inner", **{"with": {"got": {"$": "vars.n"}}}),
    variables=[{"key": "n", "required": True}],
) | {"id": "wf_child"}


def test_a_call_runs_the_child_with_its_inputs_and_returns_its_output():
    scenario = {
        "calls": {"wf_child": {"document": CHILD, "scenario": {"steps": {"inner": outputs(42)}}}}
    }
    trace, state = finish(workflow(call("c", "wf_child", n=7)), scenario)
    inner = step_events(trace, "step_succeeded")[0]["inner"]
    assert step_events(inner, "step_started")[0]["input"] == {"got": 7}
    assert state["output"] == 42


def test_a_failing_child_fails_the_call_step_without_a_retry_loop():
    scenario = {
        "calls": {"wf_child": {"document": CHILD, "scenario": {"steps": {"inner": fails("deep")}}}}
    }
    doc = workflow(call("c", "wf_child", n=1) | {"retry": {"maxAttempts": 4}})
    trace, state = finish(doc, scenario)
    assert state["error"]["code"] == "deep"
    assert not step_events(trace, "retry_scheduled")


# The scenario answers a unit's n-th invocation in the whole execution with its n-th
# result (docs/engine-protocol.md), as the oracle's host does: a block run or a child
# run made again counts on from the runs before it (both answered 1, 1 before).


def test_a_nested_control_s_block_step_counts_on_across_foreach_iterations():
    checked = control("chk", "if", condition=True, then=[app_step("s")])
    doc = workflow(control("loop", "foreach", items=["a", "b"], body=[checked]))
    _, state = finish(doc, {"steps": {"s": outputs(1, 2)}})
    assert state["output"] == [1, 2]


def test_a_call_in_a_foreach_body_counts_its_child_steps_on():
    item = call("c", "wf_child") | {"with": {"workflow": "wf_child", "inputs": {"n": 0}}}
    doc = workflow(control("loop", "foreach", items=["a", "b", "c"], body=[item]))
    child = {"document": CHILD, "scenario": {"steps": {"inner": outputs(1, 2, 3)}}}
    _, state = finish(doc, {"calls": {"wf_child": child}})
    assert state["output"] == [1, 2, 3]


def test_a_run_level_retry_makes_the_call_again_with_the_child_s_next_results():
    # W6W-RUNERR-2: "steps that already SUCCEEDED on the previous attempt run again".
    scripts = {"inner": {"attempts": [{"error": {"code": "x", "message": "m"}}, {"output": 2}]}}
    child = {"document": CHILD, "scenario": {"steps": scripts}}
    doc = workflow(call("c", "wf_child", n=1)) | {"retry": {"maxAttempts": 2}}
    _, state = finish(doc, {"calls": {"wf_child": child}})
    assert state["status"] == "succeeded" and state["output"] == 2


def test_a_child_run_applies_its_own_run_level_retry_and_on_error():
    # A child run is a run (A-56; docs/engine-protocol.md "A child run's own handlers"):
    # W6W-RUNERR-2's ladder re-runs its graph, W6W-RUNERR-4's continue ends it succeeded
    # with a null output, and the call gets that result.
    scripts = {"inner": {"attempts": [{"error": {"code": c, "message": "m"}} for c in "xy"]}}
    handled = CHILD | {"retry": {"maxAttempts": 2}, "onError": "continue"}
    child = {"document": handled, "scenario": {"steps": scripts}}
    trace, state = finish(workflow(call("c", "wf_child", n=1)), {"calls": {"wf_child": child}})
    inner = step_events(trace, "step_succeeded")[0]["inner"]
    assert [e["attempt"] for e in step_events(inner, "run_restarted")] == [2]
    assert step_events(inner, "run_continued")[0]["error"]["code"] == "y"
    assert state["status"] == "succeeded" and state["output"] is None


def test_an_unsupplied_call_publishes_no_meta():
    # W6W-META-15: "So do @w6w/* host-internal steps ... carry no meta", supplied or not.
    report = {"app": "slack", "version": "2.1.0", "action": "post"}
    reader = app_step("d", **{"with": {"m": {"$": "steps.c.meta"}}})
    doc = workflow(call("c", "nobody"), reader, edges=[{"from": "c", "to": "d"}])
    answered = {"c": {"attempts": [{"output": 7, "meta": [report]}]}}
    trace, state = finish(doc, {"steps": answered})
    assert step_events(trace, "step_started")[1]["input"] == {"m": None}
    assert "meta" not in state["steps"]["c"] and state["steps"]["c"]["output"] == 7


def test_call_depth_is_bounded():
    # W6W-RUNERR-3: "the same call-depth-bounded seam a @w6w/call step uses".
    selfish = workflow(call("again", "wf_loop")) | {"id": "wf_loop"}
    scenario: dict = {}
    for _ in range(6):  # deeper than the bound: the bound, not the scenario, stops it
        scenario = {
            "maxCallDepth": 3,
            "calls": {"wf_loop": {"document": selfish, "scenario": scenario}},
        }
    trace, state = finish(selfish, scenario)
    assert state["error"]["code"] == "call_depth_exceeded"
    depth, events = 0, trace
    while calls := [e for e in events if e.get("inner")]:
        depth, events = depth + 1, calls[0]["inner"]
    assert depth == 3


def _too_deep_with_a_secret(child):
    """A run whose call passes a secret to ``child``, whose own call is past maxCallDepth 1."""
    grandchild = workflow(app_step("leaf")) | {"id": "wf_grandchild"}
    root = workflow(call("c", "wf_child", key="{{ secrets.API_KEY }}"))
    scenario = {
        "maxCallDepth": 1,
        "secrets": {"API_KEY": "tok-7f3a"},
        "calls": {
            "wf_child": {
                "document": child | {"id": "wf_child"},
                "scenario": {"calls": {"wf_grandchild": {"document": grandchild}}},
            }
        },
    }
    return semantics(root, scenario)


def test_an_engines_own_words_match_inside_a_child_run_that_received_a_secret():
    # A-155: the message of an error the engine raises itself is the engine's.  A child
    # run whose inputs carried a secret has its events masked (A-70); the masking made
    # the model's message plain text, so a stranger's own call_depth_exceeded words
    # inside the child were a divergence (session 26), and at the root they were not.
    from wforacle.model.w6w.semantics import config_key
    from wforacle.oracle.check import check

    run = _too_deep_with_a_secret(workflow(call("deeper", "wf_grandchild")))
    worded = json.loads(json.dumps(execute(run).trace))  # plain text, as an engine sends
    nested = [e["error"] for e in worded[2]["inner"] if "error" in e]
    assert nested and {e["code"] for e in nested} == {"call_depth_exceeded"}
    for error in nested:
        error["message"] = "call depth 2 exceeds 1"
    assert check(run, config_key, worded).permitted


def test_a_call_the_scenario_does_not_supply_is_answered_by_its_script():
    _, state = finish(workflow(call("c", "wf_elsewhere")), {"steps": {"c": outputs("scripted")}})
    assert state["output"] == "scripted"


def test_control_and_call_steps_carry_no_meta():
    # W6W-META-15: "So do @w6w/* host-internal steps … and engine control steps".
    report = {"app": "x", "version": "1", "action": "y"}
    doc = workflow(call("c", "wf_elsewhere"))
    _, state = finish(doc, {"steps": {"c": {"attempts": [{"output": 1, "meta": [report]}]}}})
    assert "meta" not in state["steps"]["c"]


def test_the_command_line_runs_a_call_with_the_validator_passed_in(tmp_path, capsys):
    # The model is given the document validator for a call's target (it does not
    # import properties); every command path must pass it in.
    from wforacle.oracle.cli import main

    document = tmp_path / "parent.json"
    document.write_text(json.dumps(workflow(call("c", "wf_child", n=7))))
    scenario = tmp_path / "scenario.json"
    scenario.write_text(
        json.dumps(
            {
                "calls": {
                    "wf_child": {"document": CHILD, "scenario": {"steps": {"inner": outputs(42)}}}
                }
            }
        )
    )
    assert main(["run", str(document), "--scenario", str(scenario), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["runState"]["output"] == 42


def test_the_clauses_a_control_s_reads_and_meta_cite_come_first():
    # Explanations cite the deciding clause first (oracle/explain.py): a read of
    # foreach.* is W6W-ROOT-6's; a control's meta is W6W-META-15's ("carry no meta").
    from wforacle.model.w6w.meta import meta_clauses
    from wforacle.model.w6w.resolve import resolve_labelled
    from wforacle.model.w6w.scenario import Result

    scope = {"vars": {}, "steps": {}, "foreach": {"item": "x", "index": 0}}
    _, resolved, used = resolve_labelled({"i": {"$": "foreach.index"}}, scope)
    assert resolved == {"i": 0} and used[0] == "W6W-ROOT-6"
    _, _, used = resolve_labelled({"m": {"$": "steps.b.meta"}}, scope, block=("b",))
    assert used[0] == "W6W-META-20"
    _, _, used = resolve_labelled({"m": {"$": "steps.b.meta"}}, scope)
    assert used[0] == "W6W-META-13"
    doc = workflow(control("c", "foreach", items=[], body=[app_step("b")]))
    step = validate(doc).workflow.steps[0]
    report = {"app": "demo", "version": "1", "action": "run", "connectionId": "k"}
    assert meta_clauses(step, Result(output=1, meta=(report,)))[0] == "W6W-META-15"


def test_block_failures_beside_another_strand_are_compared_without_their_order():
    # A-53 (big-step): the model appends a block's continue-record failure when its
    # control's attempt ends; docs/controls.md lets an engine append it when it happens,
    # before another strand's (a stranger's engine, session 26, was told it diverged).
    from wforacle.properties.specification import Observation
    from wforacle.properties.w6w.conformance import _blocks_beside_strands, state_mismatch

    recorded = {"onError": "continue-record"}
    doc = workflow(
        app_step("root", fanOut="parallel"),
        control("b", "parallel", branches=[[app_step("b_0", **recorded)]]),
        app_step("other", **recorded),
        edges=[{"from": "root", "to": "b"}, {"from": "root", "to": "other"}],
    )
    scenario = {"steps": {"b_0": fails(), "other": fails()}}
    run = semantics(doc, scenario)
    state = run_state(run, execute(run).final)
    assert len(state["stepErrors"]) == 2
    swapped = {**state, "stepErrors": state["stepErrors"][::-1]}
    seen = Observation((), (), swapped, 0.0)
    assert _blocks_beside_strands(run)
    assert state_mismatch([state], seen, unordered_errors=True) is None
    assert state_mismatch([state], seen) is not None  # elsewhere the order is compared
    plain = semantics(workflow(app_step("x", **recorded), app_step("y", **recorded)))
    assert not _blocks_beside_strands(plain)


def test_an_engines_own_words_match_in_a_child_run_it_ran_in_its_own_order():
    # A-155 and A-56: the child run's events in the engine's order are checked against
    # the child's model (explain.interleaved); its masked events kept the model's words
    # as plain text, so the engine's own call_depth_exceeded message was "in an order no
    # run permits" (a stranger's engine, session 26).
    from wforacle.oracle.explain import interleaved
    from wforacle.properties.w6w.specification import W6W

    child = {**workflow(app_step("x"), call("deeper", "wf_grandchild")), "edges": []}
    run = _too_deep_with_a_secret(child)
    trace = json.loads(json.dumps(execute(run).trace))
    inner = trace[2]["inner"]
    first, last = inner[0], inner[-1]
    own = [e for e in inner[1:-1] if e.get("step") == "x"]
    rest = [e for e in inner[1:-1] if e.get("step") != "x"]
    trace[2]["inner"] = [first, *own, *rest, last]  # x ran first: not the canonical order
    assert trace[2]["inner"] != inner
    for event in rest:
        if "error" in event:
            event["error"]["message"] = "call depth 2 exceeds 1"
    assert interleaved(W6W, run, trace) is None
