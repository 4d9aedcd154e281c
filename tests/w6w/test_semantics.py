"""The small-step semantics of a w6w run (sequential plans), rule by rule."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wforacle.model.kernel.lts import execute
from wforacle.model.w6w.scenario import load_scenario
from wforacle.model.w6w.semantics import (
    WAIT_CEILING_MS,
    Unsupported,
    W6wRun,
    is_retryable,
    run_state,
)
from wforacle.properties.strategies.w6w import scenarios, sequential_workflows
from wforacle.properties.w6w.validate import validate

from .helpers import app_step, workflow


def run(doc, scenario=None):
    result = validate(copy.deepcopy(doc))
    assert result.report.valid, result.report.codes()
    loaded, problems = load_scenario(scenario or {})
    assert not problems
    semantics = W6wRun(result.workflow, result.plan, loaded)
    execution = execute(semantics)
    return execution.trace, run_state(semantics, execution.final), semantics, execution


def events(trace, name):
    return [e for e in trace if e["event"] == name]


def fails(code="boom", phase="execute", retryable=False):
    return {"error": {"code": code, "message": code, "phase": phase, "retryable": retryable}}


# -- run start -----------------------------------------------------------------


def test_a_required_variable_without_value_rejects_the_run():
    # W6W-FIELD-18: "If true and no value provided at run start, the run is rejected."
    doc = workflow(variables=[{"key": "channel", "required": True}])
    trace, state, _, _ = run(doc)
    assert [e["event"] for e in trace] == ["run_rejected"]
    # RunState.status is one of the RFC's five: a refused run is failed.
    assert state["status"] == "failed" and state["steps"] == {}
    assert state["error"]["code"] == "missing_variable"
    # The model's words (docs/expressions.md; an engine may word its own, A-155).
    assert state["error"]["message"] == "required variable 'channel' has no value"


def test_defaults_fill_missing_variables_and_supplied_values_win():
    # W6W-FIELD-19: "Used when the caller doesn't supply a value."
    doc = workflow(
        app_step("a", **{"with": {"c": {"$": "vars.channel"}}}),
        variables=[{"key": "channel", "required": True, "default": "#ops"}],
    )
    assert run(doc)[1]["variables"] == {"channel": "#ops"}
    _trace, state, _, _ = run(doc, {"variables": {"channel": "#dev"}})
    assert state["steps"]["a"]["input"] == {"c": "#dev"}


def test_undeclared_variables_are_kept_and_a_supplied_null_is_supplied():
    # W6W-FIELD-19: a default is "Used when the caller doesn't supply a value"; a null
    # is a value, so neither the default nor W6W-FIELD-18's rejection applies to it.
    doc = workflow(variables=[{"key": "channel", "required": True, "default": "#ops"}])
    trace, state, _, _ = run(doc, {"variables": {"channel": None, "extra": 5}})
    assert state["variables"] == {"channel": None, "extra": 5}
    assert state["status"] == "succeeded" and not events(trace, "run_rejected")


# -- order and routing -------------------------------------------------------------


def test_steps_run_in_plan_order_one_at_a_time():
    # W6W-CONF-2 implicit chain; W6W-FAN-4 "the plan's order, one step at a time".
    doc = workflow(app_step("z"), app_step("a"), app_step("m"))
    trace = run(doc)[0]
    assert [e["step"] for e in events(trace, "step_started")] == ["z", "a", "m"]


def test_outputs_flow_into_later_steps():
    # W6W-EXPR-1 via the run scope's steps root.
    doc = workflow(
        app_step("fetch"),
        app_step("post", **{"with": {"t": {"$": "steps.fetch.output.x"}}}),
        edges=[{"from": "fetch", "to": "post"}],
    )
    state = run(doc, {"steps": {"fetch": {"attempts": [{"output": {"x": 7}}]}}})[1]
    assert state["steps"]["post"]["input"] == {"t": 7}
    assert state["output"] is None and state["status"] == "succeeded"


def test_fail_ends_the_run_and_launches_nothing_more():
    # W6W-EDGE-5 / W6W-FIELD-13: onError "fail" (the default) aborts the run.
    doc = workflow(app_step("a"), app_step("b"))
    _trace, state, _, _ = run(doc, {"steps": {"a": {"attempts": [fails()]}}})
    assert state["status"] == "failed" and state["error"]["code"] == "boom"
    assert "b" not in state["steps"]


@pytest.mark.parametrize("on_error", ["continue", "continue-record"])
def test_continuing_steps_proceed_along_ordinary_edges(on_error):
    # W6W-EDGE-5: "continue" and "continue-record" proceed; continue-record keeps the
    # StepError in RunState.stepErrors (W6W-FIELD-13).
    doc = workflow(app_step("a", onError=on_error), app_step("b"), edges=[{"from": "a", "to": "b"}])
    state = run(doc, {"steps": {"a": {"attempts": [fails()]}}})[1]
    assert state["status"] == "succeeded" and state["steps"]["b"]["status"] == "succeeded"
    assert ("stepErrors" in state) == (on_error == "continue-record")


@pytest.mark.parametrize("on_error", ["fail", "continue", "continue-record"])
def test_an_error_edge_overrides_on_error(on_error):
    # W6W-EDGE-6: the run takes the error edge "whatever the step declares for onError";
    # W6W-EDGE-4: the success lane is skipped; W6W-EDGE-12: the run ends succeeded and the
    # failed step keeps its StepExecution.
    doc = workflow(
        app_step("a", onError=on_error),
        app_step("ok"),
        app_step("handler"),
        edges=[{"from": "a", "to": "ok"}, {"from": "a", "to": "handler", "when": "error"}],
    )
    _trace, state, _, _ = run(doc, {"steps": {"a": {"attempts": [fails()]}}})
    assert state["status"] == "succeeded"
    assert (
        state["steps"]["a"]["status"] == "failed" and state["steps"]["a"]["error"]["code"] == "boom"
    )
    assert state["steps"]["ok"]["status"] == "skipped"
    assert state["steps"]["handler"]["status"] == "succeeded"
    assert "stepErrors" not in state


def test_success_skips_the_error_lane_and_skipping_propagates():
    # W6W-EDGE-4: "marks its outgoing when: "error" edges skipped" and "A step reachable
    # only through skipped edges is recorded status: "skipped"".
    doc = workflow(
        app_step("a"),
        app_step("h"),
        app_step("after-h"),
        edges=[{"from": "a", "to": "h", "when": "error"}, {"from": "h", "to": "after-h"}],
    )
    state = run(doc)[1]
    assert [state["steps"][s]["status"] for s in ("a", "h", "after-h")] == [
        "succeeded",
        "skipped",
        "skipped",
    ]


@pytest.mark.parametrize("outcome", [None, fails()])
def test_a_shared_success_and_error_target_runs_once(outcome):
    # W6W-EDGE-11: "the shared target runs exactly once on either path".
    doc = workflow(
        app_step("a"),
        app_step("b", ports={"in": 2}),
        edges=[{"from": "a", "to": "b"}, {"from": "a", "to": "b", "when": "error"}],
    )
    scenario = {"steps": {"a": {"attempts": [outcome]}}} if outcome else {}
    trace = run(doc, scenario)[0]
    assert [e["step"] for e in events(trace, "step_started")].count("b") == 1


@pytest.mark.parametrize("phase", ["resolution", "auth", "execute", "output"])
def test_every_failure_phase_routes_down_the_error_edge(phase):
    # W6W-EDGE-7: "Any step that ends failed takes its error edge, whatever the StepError phase".
    doc = workflow(app_step("a"), app_step("h"), edges=[{"from": "a", "to": "h", "when": "error"}])
    state = run(doc, {"steps": {"a": {"attempts": [fails(phase=phase)]}}})[1]
    assert state["steps"]["h"]["status"] == "succeeded"


def test_a_resolution_failure_fails_the_step_before_any_attempt():
    doc = workflow(app_step("a", **{"with": {"k": "{{ secrets.MISSING }}"}}))
    trace, state, _, _ = run(doc)
    assert events(trace, "attempt_failed") == [] and events(trace, "step_succeeded") == []
    assert state["error"]["phase"] == "resolution"
    assert state["error"]["code"] == "secret_unavailable"


# -- retry -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("phase", "retryable", "idempotent", "retried"),
    [
        ("auth", True, True, False),
        ("execute", False, False, False),
        ("execute", True, False, True),
        ("execute", False, True, True),
        ("resolution", True, True, False),
        ("output", True, False, True),
        ("output", False, True, False),
    ],
)
def test_retry_classification(phase, retryable, idempotent, retried):
    # W6W-FIELD-24 / W6W-CONF-4: auth never; execute only when idempotent or retryable;
    # A-41 for resolution and output.
    doc = workflow(app_step("a", retry={"maxAttempts": 3}))
    scenario = {
        "steps": {
            "a": {"attempts": [fails(phase=phase, retryable=retryable)], "idempotent": idempotent}
        }
    }
    trace = run(doc, scenario)[0]
    assert len(events(trace, "retry_scheduled")) == (2 if retried else 0)


def test_retries_stop_at_max_attempts_and_succeed_when_an_attempt_does():
    # W6W-FIELD-20: "Total attempts including the first."; W6W-STATE-4 attempt count.
    doc = workflow(app_step("a", retry={"maxAttempts": 4, "delayMs": 10}))
    retryable = fails(retryable=True)
    state = run(doc, {"steps": {"a": {"attempts": [retryable, retryable, {"output": 1}]}}})[1]
    assert state["steps"]["a"]["attempt"] == 3 and state["status"] == "succeeded"
    state = run(doc, {"steps": {"a": {"attempts": [retryable]}}})[1]
    assert state["steps"]["a"]["attempt"] == 4 and state["status"] == "failed"


@pytest.mark.parametrize(
    ("policy", "waits"),
    [
        ({"maxAttempts": 4, "delayMs": 1000}, [1000, 1000, 1000]),
        ({"maxAttempts": 4, "delayMs": 1000, "backoff": "exponential"}, [1000, 2000, 4000]),
        (
            {"maxAttempts": 5, "delayMs": 100000, "backoff": "exponential"},
            [100000, 200000, 300000, 300000],
        ),
        ({"maxAttempts": 3}, [0, 0]),
    ],
)
def test_backoff_waits_on_the_virtual_clock_capped_at_five_minutes(policy, waits):
    # W6W-FIELD-22 "Exponential doubles each attempt"; W6W-RETRY-9 the 300000 ms ceiling.
    doc = workflow(app_step("a", retry=policy))
    trace = run(doc, {"steps": {"a": {"attempts": [fails(retryable=True)]}}})[0]
    assert [e["waitMs"] for e in events(trace, "retry_scheduled")] == waits
    assert trace[-1]["at"] == sum(waits)


def test_an_extension_control_is_refused_by_name():
    # "Extension controls beyond the canonical four are a future RFC."
    doc = workflow({"id": "w", "uses": {"app": "@w6w/control", "action": "loop"}})
    result = validate(doc)
    with pytest.raises(Unsupported):
        W6wRun(result.workflow, result.plan, load_scenario({})[0])


# -- properties --------------------------------------------------------------------


@st.composite
def runs(draw):
    doc = draw(sequential_workflows())
    return doc, draw(scenarios(doc))


@given(runs())
def test_a_sequential_plan_has_exactly_one_path(case):
    # W6W-FAN-4: a plan without a parallel step admits one transition at every point.
    doc, scenario = case
    _, _, semantics, execution = run(doc, scenario)
    config = semantics.initial()
    for step in execution.steps:
        assert len(semantics.enabled(config)) == 1
        config = step.target
    assert semantics.enabled(config) == []


@given(runs())
def test_attempts_and_waits_are_bounded(case):
    # W6W-FIELD-20 (never more than maxAttempts), W6W-RETRY-9 (no wait above 300000 ms).
    doc, scenario = case
    trace, state, semantics, _ = run(doc, scenario)
    for step_id, record in state["steps"].items():
        policy = semantics.by_id[step_id].retry
        assert record["attempt"] <= (policy.max_attempts if policy else 1)
    assert all(0 <= e["waitMs"] <= WAIT_CEILING_MS for e in events(trace, "retry_scheduled"))


@given(runs())
def test_every_step_ends_in_a_status_the_routing_rules_allow(case):
    # W6W-EDGE-4, W6W-EDGE-5, W6W-EDGE-11, W6W-EDGE-12 checked against the final state.
    doc, scenario = case
    _, state, semantics, execution = run(doc, scenario)
    statuses = {s: r["status"] for s, r in state["steps"].items()}
    final = execution.final
    for step_id in semantics.plan:
        inbound = semantics.inbound[step_id]
        status = statuses.get(step_id, "pending")
        if status == "skipped":
            assert inbound and all((e.from_, e.to, e.when.value) in final.skipped for e in inbound)
        if status == "pending":
            assert state["status"] == "failed"  # only a failed run leaves steps unstarted
    if state["status"] == "failed":
        failing = [
            s
            for s, r in state["steps"].items()
            if r["status"] == "failed"
            and not any(e.when.value == "error" for e in semantics.outbound[s])
            and semantics.by_id[s].on_error.value == "fail"
        ]
        assert failing, "a failed run needs a failed step with neither error edge nor continue"


def test_is_retryable_table():
    from wforacle.model.w6w.scenario import StepError

    assert not is_retryable(StepError("x", "", "auth", True), True)
    assert is_retryable(StepError("x", "", "execute", False), True)


@given(runs())
def test_explore_finds_exactly_the_one_outcome_of_a_sequential_run(case):
    # W6W-FAN-4: "A plan containing no parallel step executes exactly as before".
    from wforacle.model.kernel.explore import explore
    from wforacle.model.w6w.semantics import config_key, outcome

    doc, scenario = case
    _, _, semantics, execution = run(doc, scenario)
    result = explore(semantics, lambda c: outcome(semantics, c), config_key)
    assert result.complete
    assert [o.value for o in result.outcomes] == [outcome(semantics, execution.final)]
    assert result.states == result.transitions + 1 == len(execution.steps) + 1


# -- the run-level handler (Amendment 2026-08-21) ------------------------------------


def running_transitions(trace):
    return [e for e in trace if e.get("status") == "running"]


def test_no_handler_drives_the_graph_once():
    # W6W-RUNERR-9 (Testably): "a failing run with no policy drives the graph exactly once
    # and returns status: "failed"" (W6W-RUNERR-1).
    trace, state, _, _ = run(workflow(app_step("a")), {"steps": {"a": {"attempts": [fails()]}}})
    assert len(running_transitions(trace)) == 1 and state["status"] == "failed"


def test_run_retry_drives_the_graph_max_attempts_times_from_the_top():
    # W6W-RUNERR-10 (Testably): "retry: { maxAttempts: 3 } produces exactly three run-level
    # status: "running" transitions"; W6W-RUNERR-2 steps that succeeded run again.
    doc = workflow(app_step("ok"), app_step("bad"), retry={"maxAttempts": 3, "delayMs": 100})
    trace, state, _, _ = run(doc, {"steps": {"bad": {"attempts": [fails()]}}})
    assert len(running_transitions(trace)) == 3
    assert [e["step"] for e in events(trace, "step_started")].count("ok") == 3
    assert state["status"] == "failed"
    assert [e["waitMs"] for e in events(trace, "run_restarted")] == [100, 100]


def test_run_retry_can_succeed_on_a_later_attempt():
    doc = workflow(app_step("a"), retry={"maxAttempts": 3})
    trace, state, _, _ = run(doc, {"steps": {"a": {"attempts": [fails(), {"output": 9}]}}})
    assert state["status"] == "succeeded" and state["output"] == 9
    assert len(running_transitions(trace)) == 2


def test_the_seed_is_resolved_once_for_the_ladder():
    # W6W-RUNERR-11: an attempt "does not re-resolve the world around it".
    doc = workflow(app_step("a"), retry={"maxAttempts": 2}, variables=[{"key": "v", "default": 1}])
    trace = run(doc, {"steps": {"a": {"attempts": [fails()]}}})[0]
    assert len(events(trace, "run_started")) == 1 and events(trace, "run_restarted")


def test_reroute_after_retry_handles_the_run_with_its_output():
    # W6W-RUNERR-3 after retry, once, with { inputs, error, trigger }; W6W-RUNERR-5 and
    # W6W-RUNERR-13: succeeded, the original failure in stepErrors, no run-level error.
    doc = workflow(
        app_step("a"),
        retry={"maxAttempts": 2},
        reroute={"with": {"why": {"$": "error.code"}, "v": {"$": "inputs.v"}}},
        variables=[{"key": "v", "default": 7}],
    )
    trace, state, _, _ = run(
        doc, {"steps": {"a": {"attempts": [fails()]}}, "reroute": {"output": {"handled": True}}}
    )
    rerouted = events(trace, "run_rerouted")
    assert len(rerouted) == 1 and rerouted[0]["input"] == {"why": "boom", "v": 7}
    assert trace.index(rerouted[0]) > trace.index(events(trace, "run_restarted")[-1])
    assert state["status"] == "succeeded" and state["output"] == {"handled": True}
    assert "error" not in state and state["stepErrors"][0]["code"] == "boom"


def test_a_failing_reroute_leaves_the_run_failed_whatever_on_error_says():
    # W6W-RUNERR-14: "Leave the run failed, and propagate, when the reroute target itself
    # fails."
    doc = workflow(app_step("a"), reroute={"with": {}}, onError="continue")
    state = run(
        doc,
        {
            "steps": {"a": {"attempts": [fails()]}},
            "reroute": {"error": {"code": "target_down", "message": "x"}},
        },
    )[1]
    assert state["status"] == "failed" and state["error"]["code"] == "target_down"


def test_on_error_continue_resolves_the_run_with_null_output():
    # W6W-RUNERR-4: ""continue" resolves the run with a null output"; W6W-RUNERR-5 the
    # failure is kept in stepErrors.
    doc = workflow(app_step("ok"), app_step("bad"), onError="continue")
    state = run(
        doc, {"steps": {"ok": {"attempts": [{"output": 1}]}, "bad": {"attempts": [fails()]}}}
    )[1]
    assert state["status"] == "succeeded" and state["output"] is None
    assert [e["code"] for e in state["stepErrors"]] == ["boom"]


def test_a_rejected_run_never_reads_the_handler():
    # W6W-RUNERR-6 (a run that never started is not a failure).
    doc = workflow(
        app_step("a"),
        retry={"maxAttempts": 3},
        onError="continue",
        variables=[{"key": "v", "required": True}],
    )
    trace, state, _, _ = run(doc)
    assert state["status"] == "failed" and len(trace) == 1  # never retried


def test_configuration_keys_cover_every_field():
    # Two configurations that differ in any one field must have different keys.
    import attrs as attrs_module

    from wforacle.model.w6w.scenario import StepError
    from wforacle.model.w6w.semantics import Config, StepState, config_key

    base = Config()
    oops = StepError("x", "y")
    changes = {
        "status": "running",
        "clock": 1,
        "steps": (StepState(),),
        "variables": {"a": 1},
        "failure": ("a", oops),
        "errors": (("a", oops),),
        "activated": frozenset({("a", "b", "success")}),
        "skipped": frozenset({("a", "b", "error")}),
        "rejection": {"r": 1},
        "invocations": (1,),
        "run_attempt": 2,
        "rerouted": True,
        "handled": True,
        "handled_output": 5,
        "checkpoints": 3,
        "crash_due": True,
        "resumed": True,
        "signalled": True,
        "sub_invocations": (("x", 1),),
        "suspensions": 1,
        "suspension": ("w", "t"),
        "waiting": 1,
    }
    assert {f.name for f in attrs_module.fields(Config)} == set(changes)
    for field in attrs_module.fields(Config):
        if field.name in changes:
            assert config_key(
                attrs_module.evolve(base, **{field.name: changes[field.name]})
            ) != config_key(base), field.name


# -- replay ------------------------------------------------------------------------


def replay_of(doc, scenario, recorded, start=None):
    from wforacle.model.w6w.semantics import Replay

    result = validate(copy.deepcopy(doc))
    loaded = load_scenario(scenario or {})[0]
    semantics = W6wRun(
        result.workflow, result.plan, loaded, Replay.of(recorded, result.workflow, start)
    )
    execution = execute(semantics)
    return execution.trace, run_state(semantics, execution.final)


def invocations(trace):
    return [e for e in trace if e["event"] in ("step_succeeded", "attempt_failed")]


@given(runs())
def test_replay_invokes_only_what_did_not_succeed_and_reuses_outputs_verbatim(case):
    # W6W-CONF-5 (Replay determinism): "the same terminal status and, for succeeded steps,
    # the same output, without calling execute again"; W6W-REPLAY-2: "Steps that were
    # pending or failed run fresh" (finding F-07) — so only those are invoked.
    # Without a run-level ladder each step ran once, so a fresh step gets the same
    # scripted result it got originally (with one, it would get its first, A-47).
    doc, scenario = case
    doc.pop("retry", None)
    _, original, _, _ = run(doc, scenario)
    trace, replayed = replay_of(doc, scenario, original)
    assert replayed["status"] == original["status"]
    succeeded = {s for s, r in original["steps"].items() if r["status"] == "succeeded"}
    for step_id in succeeded:
        assert replayed["steps"][step_id]["output"] == original["steps"][step_id]["output"]
    assert not {e["step"] for e in invocations(trace)} & succeeded
    if all(r["status"] in ("succeeded", "skipped") for r in original["steps"].values()):
        assert invocations(trace) == []  # a clean completed run replays with zero invocations


@given(runs())
def test_replay_of_a_failed_run_ends_the_same_way(case):
    # RFC "Replay": "Steps that were pending or failed run fresh" — with the same scenario,
    # the same terminal status.
    doc, scenario = case
    doc.pop("retry", None)  # see above
    _, original, _, _ = run(doc, scenario)
    _, replayed = replay_of(doc, scenario, original)
    assert replayed["status"] == original["status"]


def test_replay_from_reruns_the_step_and_its_descendants_only():
    # W6W-FAN-11: "from replays that step plus all its graph descendants".
    doc = workflow(
        app_step("a"),
        app_step("b"),
        app_step("c"),
        app_step("d"),
        edges=[{"from": "a", "to": "b"}, {"from": "b", "to": "c"}, {"from": "a", "to": "d"}],
    )
    scenario = {"steps": {s: {"attempts": [{"output": s}]} for s in "abcd"}}
    _, original, _, _ = run(doc, scenario)
    trace, _ = replay_of(doc, scenario, original, start="b")
    assert sorted(e["step"] for e in events(trace, "step_replayed")) == ["a", "d"]
    assert [e["step"] for e in events(trace, "step_started")] == ["b", "c"]


# -- checkpoints, crash and resume ------------------------------------------------------


def test_every_observable_transition_writes_a_numbered_checkpoint():
    # W6W-STATE-2: "after every observable transition (status change, step start, step
    # end, retry attempt)".
    doc = workflow(app_step("a", retry={"maxAttempts": 2}), app_step("b"))
    trace = run(doc, {"steps": {"a": {"attempts": [fails(retryable=True), {"output": 1}]}}})[0]
    numbered = [(e["event"], e["checkpoint"]) for e in trace if "checkpoint" in e]
    assert [n for _, n in numbered] == list(range(1, len(numbered) + 1))
    assert [e for e, _ in numbered] == [
        "run_started",
        "step_started",
        "retry_scheduled",
        "step_succeeded",
        "step_started",
        "step_succeeded",
        "run_finished",
    ]
    assert "checkpoint" not in events(trace, "attempt_failed")[0]


def test_a_crash_resumes_from_the_first_non_terminal_step():
    # W6W-CONCEPT-3: "resumes from the first non-terminal step"; a running step starts over.
    doc = workflow(app_step("a"), app_step("b"))
    trace, state, _, _ = run(doc, {"crashAfterCheckpoints": [2]})  # after a's step_started
    crash = events(trace, "crashed")[0]
    assert crash["afterCheckpoint"] == 2 and crash["resumeAt"] == "a"
    assert [e["step"] for e in events(trace, "step_started")] == ["a", "a", "b"]
    assert state["status"] == "succeeded"


def test_a_resumed_execution_never_runs_the_authored_ladder():
    # W6W-RUNERR-12: "Never run the authored ladder on a resumed execution." (W6W-RUNERR-8)
    doc = workflow(app_step("a"), retry={"maxAttempts": 3})
    trace, state, _, _ = run(
        doc, {"crashAfterCheckpoints": [1], "steps": {"a": {"attempts": [fails()]}}}
    )
    assert events(trace, "crashed") and not events(trace, "run_restarted")
    assert state["status"] == "failed"


@st.composite
def crash_cases(draw):
    doc = draw(sequential_workflows(max_steps=5))
    doc.pop("retry", None)  # a crash-free run could use the ladder a resumed one may not
    # Every step answers the same on every invocation, so a re-run step's result is the same.
    steps = {}
    for step in doc["steps"]:
        result = draw(st.sampled_from([{"output": step["id"]}, fails(), fails(retryable=True)]))
        steps[step["id"]] = {"attempts": [result]}
    return doc, {"steps": steps}


@given(crash_cases(), st.data())
def test_resuming_after_a_crash_at_any_checkpoint_ends_in_the_crash_free_outcome(case, data):
    # W6W-CONF-3 / W6W-HOST-2 checkpoint durability; the resume property.
    from wforacle.model.w6w.semantics import outcome

    doc, scenario = case
    _, _, semantics, execution = run(doc, scenario)
    checkpoints = max(e.get("checkpoint", 0) for e in execution.trace)
    crash_at = data.draw(st.integers(1, checkpoints))
    _, _, crashed_semantics, crashed = run(doc, {**scenario, "crashAfterCheckpoints": [crash_at]})
    expected = outcome(semantics, execution.final)
    got = outcome(crashed_semantics, crashed.final)
    assert got["status"] == expected["status"] and got["output"] == expected["output"]
    assert got["steps"] == expected["steps"]


# -- step metadata (Amendment 2026-10-12) ------------------------------------------------

META = {"app": "linear", "version": "3.2.1", "action": "search-issues", "connectionId": "conn_1"}


@pytest.mark.parametrize(
    ("report", "expected"),
    [
        (META, META),
        ({**META, "token": "secret", "headers": {}}, META),  # W6W-META-9: extras dropped
        ({**META, "connectionId": 5}, {**META, "connectionId": None}),
        ({k: v for k, v in META.items() if k != "connectionId"}, {**META, "connectionId": None}),
        ({**META, "connectionId": "c" * 256}, {**META, "connectionId": "c" * 256}),
        ({**META, "connectionId": "c" * 257}, {**META, "connectionId": None}),
        ({**META, "version": "v" * 256}, {**META, "version": "v" * 256}),
        ({**META, "version": "v" * 257}, None),
        ({**META, "app": None}, None),
        ({"app": "a", "version": "1"}, None),
        ("not an object", None),
    ],
)
def test_meta_normalisation(report, expected):
    # W6W-META-11 (the 256-character caps, exactly 256 kept) and W6W-META-9.
    from wforacle.model.w6w.semantics import normalise_meta

    assert normalise_meta(report) == expected


def test_meta_is_published_beside_output_for_succeeded_app_steps():
    # W6W-META-13 / W6W-META-2: { "$": "steps.fetch.meta.version" } is an ordinary path;
    # W6W-META-8: never from the output, whose own "meta" key never collides.
    doc = workflow(
        app_step("fetch"),
        app_step(
            "post",
            **{
                "with": {
                    "v": {"$": "steps.fetch.meta.version"},
                    "m": {"$": "steps.fetch.output.meta"},
                }
            },
        ),
        edges=[{"from": "fetch", "to": "post"}],
    )
    scenario = {"steps": {"fetch": {"attempts": [{"output": {"meta": "mine"}, "meta": [META]}]}}}
    state = run(doc, scenario)[1]
    assert state["steps"]["post"]["input"] == {"v": "3.2.1", "m": "mine"}
    assert state["steps"]["fetch"]["meta"] == META


def test_first_report_wins_even_when_discarded():
    # W6W-META-12 / W6W-META-22: "keep the FIRST report … even when the first report is
    # discarded by the normalisation".
    doc = workflow(app_step("a"))
    state = run(
        doc,
        {"steps": {"a": {"attempts": [{"output": 1, "meta": [META, {**META, "version": "9"}]}]}}},
    )[1]
    assert state["steps"]["a"]["meta"]["version"] == "3.2.1"
    state = run(doc, {"steps": {"a": {"attempts": [{"output": 1, "meta": [{"app": 1}, META]}]}}})[1]
    assert "meta" not in state["steps"]["a"]


def test_no_report_no_meta_and_absent_meta_reads_null():
    # W6W-META-12 "An invoke that settles without calling it yields a step with no meta";
    # "Absent meta reads like any absent path".
    doc = workflow(app_step("a"), app_step("b", **{"with": {"v": {"$": "steps.a.meta.version"}}}))
    state = run(doc)[1]
    assert "meta" not in state["steps"]["a"] and state["steps"]["b"]["input"] == {"v": None}


def test_a_failed_step_records_meta_but_its_scope_entry_carries_none():
    # W6W-META-14: "A failed step MAY record its last attempt's meta on its StepExecution.
    # Its scope entry stays exactly as it was" (failed steps have no scope entry).
    doc = workflow(
        app_step("a", onError="continue", retry={"maxAttempts": 2}),
        app_step("b", **{"with": {"v": {"$": "steps.a.meta"}}}),
    )
    second = {**META, "version": "2"}
    scenario = {
        "steps": {
            "a": {
                "idempotent": True,
                "attempts": [{**fails(), "meta": [META]}, {**fails(), "meta": [second]}],
            }
        }
    }
    state = run(doc, scenario)[1]
    assert state["steps"]["a"]["meta"] == second  # the last attempt's (W6W-META-16)
    assert state["steps"]["b"]["input"] == {"v": None}


def test_replay_reuses_stored_meta():
    # W6W-META-18 / W6W-META-23: "reuse stored meta wherever stored output is reused".
    doc = workflow(app_step("a"))
    _, original, _, _ = run(doc, {"steps": {"a": {"attempts": [{"output": 1, "meta": [META]}]}}})
    _, replayed = replay_of(doc, {}, original)
    assert replayed["steps"]["a"]["meta"] == META


# -- cancellation ---------------------------------------------------------------------


def test_a_signal_aborts_the_run_between_steps():
    # W6W-HOST-3: "the engine polls between steps and aborts cleanly on signal";
    # W6W-RUNERR-6: a canceled run is not a failure — no run-level retry, no onError.
    doc = workflow(app_step("a"), app_step("b"), retry={"maxAttempts": 3}, onError="continue")
    trace, state, _, _ = run(doc, {"cancelAfterCheckpoint": 2})  # after a's step_started
    assert state["status"] == "canceled"
    assert state["steps"]["a"]["status"] == "succeeded" and "b" not in state["steps"]
    assert trace[-1]["event"] == "run_finished" and trace[-1]["status"] == "canceled"
    assert not events(trace, "run_restarted") and not events(trace, "run_continued")


def test_a_signal_after_the_last_step_changes_nothing():
    doc = workflow(app_step("a"))
    state = run(doc, {"cancelAfterCheckpoint": 99})[1]
    assert state["status"] == "succeeded"
