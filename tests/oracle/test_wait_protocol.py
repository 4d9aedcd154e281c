"""The wait control over the engine protocol (docs/engine-protocol.md "Wait"; A-55).

A run whose wait suspended it drains (W6W-FAN-9), reports one token — the
first suspended step's by plan order (W6W-FAN-10) — and waits idle; the
oracle wakes it with the scenario's next resumption or tells it ``quiet``,
and the run then stays queued.  toyflow implements it; its seeded
``wait-no-drain`` keeps launching after a suspension.
"""

from __future__ import annotations

import sys

import pytest

from wforacle.model.w6w.semantics import run_state
from wforacle.oracle.engine import Engine, judge
from wforacle.oracle.fuzz import campaign, explained
from wforacle.oracle.power import ENGINES, PROFILE_BUGS
from wforacle.properties.specification import Observation
from wforacle.properties.w6w.conformance import state_mismatch
from wforacle.properties.w6w.specification import W6W

TOYFLOW = f"{sys.executable} {ENGINES / W6W.example_engine}"


def app(step_id, **fields):
    return {"id": step_id, "uses": {"app": "demo", "action": "run"}, **fields}


def wait(step_id):
    return {
        "id": step_id,
        "uses": {"app": "@w6w/control", "action": "wait"},
        "with": {"afterMs": 1000},
    }


def case(steps, edges, scenario):
    document = {"manifestVersion": "2", "id": "wf", "name": "w", "steps": steps, "edges": edges}
    return {"document": document, "scenario": scenario}


THEN = [{"from": "w", "to": "after"}]
FAN = [{"from": "a", "to": "w1"}, {"from": "a", "to": "w2"}, {"from": "a", "to": "b"}]
CASES = {
    "left queued": case([wait("w"), app("after")], THEN, {}),
    "resumed": case([wait("w"), app("after")], THEN, {"resumes": [{"output": {"woke": 1}}]}),
    "beside a strand": case(
        [app("a", fanOut="parallel"), wait("w1"), wait("w2"), app("b")],
        FAN,
        {"resumes": [{"output": 1}]},
    ),
    "twice": case(
        [wait("w1"), wait("w2")], [{"from": "w1", "to": "w2"}], {"resumes": [{"output": 1}] * 2}
    ),
}


@pytest.fixture(scope="module")
def toyflow():
    engine = Engine(TOYFLOW)
    yield engine
    engine.stop()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("schedule", [[], [1], [2, 1]])
def test_an_engine_that_suspends_and_wakes_as_the_model_does_passes(toyflow, name, schedule):
    judgement = judge(toyflow, W6W, {**CASES[name], "schedule": schedule})
    assert judgement.verdict == "pass", judgement.to_json()
    events = [e["event"] for e in judgement.observation.trace]
    resumes = len(CASES[name]["scenario"].get("resumes", []))
    assert events.count("run_resumed") == min(resumes, events.count("run_suspended"))
    state = judgement.observation.state
    assert (state["status"] == "queued") == ("suspension" in state)


def test_a_run_left_queued_ends_with_its_suspension_and_no_run_finished(toyflow):
    judgement = judge(toyflow, W6W, {**CASES["left queued"], "schedule": []})
    trace = judgement.observation.trace
    assert trace[-1]["event"] == "run_suspended" and trace[-1]["resumeToken"] == "run_1/w/1"
    assert judgement.observation.state["suspension"] == {"stepId": "w", "resumeToken": "run_1/w/1"}


def test_a_launch_after_a_suspension_breaks_the_drain():
    engine = Engine(f"{TOYFLOW} --bug wait-no-drain")
    try:
        seen = {**CASES["beside a strand"], "schedule": []}
        judgement = explained(W6W, seen, judge(engine, W6W, seen), None)
    finally:
        engine.stop()
    assert judgement.verdict == "divergence"
    assert judgement.divergence.clauses[0] == "W6W-FAN-9", judgement.divergence.clauses
    assert "suspended the run" in judgement.divergence.message


def test_the_suspension_in_the_final_state_is_compared():
    # W6W-FAN-10: "A suspension returns one token — that of the first suspended step".
    prepared = W6W.prepare(CASES["left queued"], None)
    from wforacle.model.kernel.lts import execute

    run = prepared.semantics
    final = execute(run).final
    state = run_state(run, final)
    assert state_mismatch([state], Observation((), (), state, 0.0)) is None
    wrong = {**state, "suspension": {"stepId": "w", "resumeToken": "run_1/w/2"}}
    mismatch = state_mismatch([state], Observation((), (), wrong, 0.0))
    assert mismatch is not None and mismatch.clauses[0] == "W6W-FAN-10"


def test_only_a_document_with_a_wait_may_wait_idle():
    protocol = W6W.protocol()
    with_wait = W6W.prepare(CASES["resumed"], None)
    without = W6W.prepare(case([app("a")], [], {}), None)
    assert protocol.idle(with_wait).message == {"type": "quiet"}
    assert protocol.idle(without) is None
    (wake,) = protocol.interrupts(with_wait).values()
    assert wake.message == {"type": "wake", "output": {"woke": 1}} and wake.event is None


def test_the_correct_engine_passes_a_campaign_of_waits(toyflow):
    result = campaign(W6W, toyflow, examples=150, seed_value=0, cases=W6W.suites["w6w-wait"]())
    assert result.finding is None and result.faults == 0


@pytest.mark.parametrize("bug", PROFILE_BUGS["w6w-wait"][1])
def test_a_campaign_of_waits_finds_shrinks_and_explains_the_seeded_bug(bug, toyflow):
    engine = Engine(f"{TOYFLOW} --bug {bug}")
    try:
        result = campaign(
            W6W,
            engine,
            examples=500,
            seed_value=0,
            cases=W6W.suites["w6w-wait"](),
            reduce_budget=600,
        )
    finally:
        engine.stop()
    finding = result.finding
    assert finding is not None
    assert finding.judgement.divergence.clauses[0] == "W6W-FAN-9"
    # The root fanned out in parallel and two waits: one suspends, the other launches.
    assert len(finding.case["document"]["steps"]) <= 3, finding.case["document"]
    assert judge(toyflow, W6W, finding.case).verdict == "pass"  # not a false alarm


def test_a_run_suspended_naming_another_step_differs_in_its_step_and_token():
    # A stranger's engine that suspended with the last wait's token was told "the model
    # permits no run_suspended event here" beside a permitted run_suspended: a run-level
    # event's step is a field that differs, not a unit the model has no event for.
    from wforacle.model.kernel.lts import execute
    from wforacle.oracle.check import DIFFERS, check
    from wforacle.oracle.explain import by_rule

    prepared = W6W.prepare(CASES["left queued"], None)
    run = prepared.semantics
    trace = [dict(e) for e in execute(run).trace]
    trace[-1].update(step="after", resumeToken="run_1/after/1")
    divergence = check(run, W6W.key, trace).divergence
    assert divergence is not None and divergence.message == DIFFERS.format("run_suspended")
    explained = by_rule(W6W, run, divergence, trace)
    assert "resumeToken, step differ(s)" in explained.message, explained.message
    assert explained.clauses[0] == "W6W-FAN-10", explained.clauses
