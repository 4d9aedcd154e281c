"""The trace checker (oracle/check.py): permitted traces pass, any departure is pinned."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from wforacle.model.kernel.lts import execute, seeded
from wforacle.model.w6w.scenario import load_scenario
from wforacle.model.w6w.semantics import W6wRun, config_key, outcome
from wforacle.oracle.check import check, projection
from wforacle.properties.strategies.w6w import parallel_workflows, scenarios
from wforacle.properties.w6w.validate import validate

SENTINEL = {"never produced by any scenario": True}


def semantics(doc, scenario):
    result = validate(copy.deepcopy(doc))
    assert result.report.valid
    loaded, problems = load_scenario(scenario)
    assert not problems
    return W6wRun(result.workflow, result.plan, loaded)


@st.composite
def traced_runs(draw):
    doc = draw(parallel_workflows(max_steps=5, controls=True))
    scenario = draw(scenarios(doc)) | {"default": {"output": "done"}}
    run = semantics(doc, scenario)
    execution = execute(run, seeded(draw(st.integers(0, 2**16))))
    return run, execution


@settings(deadline=None)
@given(traced_runs())
def test_every_trace_the_model_produces_is_permitted_and_ends_in_its_outcome(case):
    run, execution = case
    verdict = check(run, config_key, execution.trace)
    assert verdict.permitted, verdict.divergence
    reached = {repr(outcome(run, c)) for c in verdict.finals}
    assert repr(outcome(run, execution.final)) in reached


@settings(deadline=None)
@given(traced_runs(), st.data())
def test_a_changed_field_is_pinned_to_its_event(case, data):
    run, execution = case
    trace = copy.deepcopy(execution.trace)
    candidates = [k for k, e in enumerate(trace) if "output" in e or "input" in e]
    if not candidates:
        return
    k = data.draw(st.sampled_from(candidates))
    trace[k]["output" if "output" in trace[k] else "input"] = SENTINEL
    verdict = check(run, config_key, trace)
    assert verdict.divergence is not None and verdict.divergence.index == k
    assert verdict.divergence.clauses  # every divergence names the clauses that govern it


@settings(deadline=None)
@given(traced_runs())
def test_a_trace_that_stops_early_is_not_a_run(case):
    run, execution = case
    verdict = check(run, config_key, execution.trace[:-1])
    assert verdict.divergence is not None
    assert verdict.divergence.index == len(execution.trace) - 1
    assert verdict.divergence.observed is None


def test_the_clock_stamp_is_not_compared():
    assert projection({"event": "x", "at": 5, "inner": [{"at": 1, "y": 2}]}) == {
        "event": "x",
        "inner": [{"y": 2}],
    }


def test_a_value_with_an_at_member_is_compared_whole():
    # Only the event's own ``at`` (its time) is ignored; a step output that holds an
    # ``at`` member is data, and an engine that changes it diverges there.
    doc = {
        "manifestVersion": "2",
        "id": "wf",
        "name": "at",
        "steps": [{"id": "a", "uses": {"app": "demo", "action": "run"}}],
    }
    run = semantics(doc, {"steps": {"a": {"attempts": [{"output": {"at": 1}}]}}})
    trace = copy.deepcopy(execute(run, seeded(0)).trace)
    assert check(run, config_key, trace).permitted
    k = next(k for k, e in enumerate(trace) if e["event"] == "step_succeeded")
    trace[k]["output"] = {"at": 2}
    verdict = check(run, config_key, trace)
    assert verdict.divergence is not None and verdict.divergence.index == k
    # The event's own time still does not matter, nor does an inner event's.
    assert projection({"event": "x", "at": 1, "inner": [{"event": "y", "at": 2}]}) == {
        "event": "x",
        "inner": [{"event": "y"}],
    }
