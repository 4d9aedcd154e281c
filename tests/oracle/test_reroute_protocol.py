"""The run-level reroute over the engine protocol (docs/engine-protocol.md, "Reroute").

W6W-RUNERR-3: "reroute is consulted after retry is exhausted, dispatched
exactly once … Its with resolves against { inputs, error, trigger } … The
target's output becomes the run's output"; W6W-RUNERR-14: "Leave the run
failed, and propagate, when the reroute target itself fails".  The engine
dispatches the target as an invoke of the unit "(reroute)"; the scenario's
``reroute`` result answers it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from wforacle.oracle.engine import Engine, judge
from wforacle.oracle.fuzz import campaign
from wforacle.oracle.power import PROFILE_BUGS
from wforacle.properties.w6w.specification import W6W

TOYFLOW = (
    f"{sys.executable} {Path(__file__).resolve().parents[2] / 'examples/engines/w6w_engine.py'}"
)
DOC = {
    "manifestVersion": "2",
    "id": "wf",
    "name": "rerouted",
    "steps": [{"id": "a", "uses": {"app": "demo", "action": "run"}}],
    "variables": [{"key": "v", "default": 7}],
    "reroute": {"with": {"why": {"$": "error.code"}, "v": {"$": "inputs.v"}}},
}
FAILS = {"steps": {"a": {"attempts": [{"error": {"code": "boom", "message": "m"}}]}}}


@pytest.fixture(scope="module")
def toyflow():
    engine = Engine(TOYFLOW)
    yield engine
    engine.stop()


def test_the_target_is_invoked_once_with_its_resolved_with_and_its_output_is_the_runs(toyflow):
    case = {"document": DOC, "scenario": {**FAILS, "reroute": {"output": {"ok": 1}}}}
    judgement = judge(toyflow, W6W, {**case, "schedule": []})
    assert judgement.verdict == "pass", judgement.to_json()
    invoked = dict(judgement.observation.invocations)
    assert invoked["(reroute)"] == {"why": "boom", "v": 7}
    state = judgement.observation.state
    assert state["status"] == "succeeded" and state["output"] == {"ok": 1}


def test_an_engine_that_never_invokes_the_target_diverges():
    # The invocations must be exactly what the trace reports: run_rerouted's input is a
    # dispatch of "(reroute)".  An engine that reports the reroute without invoking it is
    # caught by the invocation comparison (a copy of the trace alone would pass).
    from wforacle.model.kernel.lts import execute
    from wforacle.oracle.engine import Observation
    from wforacle.properties.w6w.conformance import invocations_mismatch

    case = {"document": DOC, "scenario": {**FAILS, "reroute": {"output": {"ok": 1}}}}
    run = W6W.prepare({**case, "schedule": []}, None).semantics
    trace = tuple(execute(run).trace)
    made = (("a", {}),)
    assert invocations_mismatch(run, Observation(trace, made, {}, 0.0)) is not None
    both = (*made, ("(reroute)", {"why": "boom", "v": 7}))
    assert invocations_mismatch(run, Observation(trace, both, {}, 0.0)) is None


def test_the_correct_engine_passes_a_campaign_of_reroutes(toyflow):
    result = campaign(W6W, toyflow, examples=150, seed_value=0, cases=W6W.suites["w6w-reroute"]())
    assert result.finding is None and result.faults == 0


@pytest.mark.parametrize("bug", PROFILE_BUGS["w6w-reroute"][1])
def test_a_campaign_of_reroutes_finds_and_explains_the_seeded_bug(bug, toyflow):
    engine = Engine(f"{TOYFLOW} --bug {bug}")
    try:
        result = campaign(
            W6W, engine, examples=600, seed_value=0, cases=W6W.suites["w6w-reroute"]()
        )
    finally:
        engine.stop()
    finding = result.finding
    assert finding is not None
    assert finding.judgement.divergence.clauses[0] == "W6W-RUNERR-14"
    assert len(finding.case["document"]["steps"]) == 1, finding.case["document"]
    assert judge(toyflow, W6W, finding.case).verdict == "pass"  # not a false alarm
