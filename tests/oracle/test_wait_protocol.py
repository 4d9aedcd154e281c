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


def _renamed(trace, names):
    return [
        {**e, "resumeToken": names.get(e["resumeToken"], e["resumeToken"])}
        if "resumeToken" in e
        else e
        for e in trace
    ]


def test_a_token_is_the_engines_own_string_judged_for_consistency_only():
    # The RFC gives a token no form ("schedule?(directive: { afterMs; resumeToken })"); the
    # model's <runId>/<stepId>/<k> is its own.  A stranger's engine writing
    # run_1:w1:1 was reported divergent at its first wait (session 24).
    from wforacle.model.kernel.lts import execute
    from wforacle.oracle.check import check

    prepared = W6W.prepare({**CASES["twice"], "schedule": []}, None)
    run = prepared.semantics
    trace = execute(run).trace
    tokens = sorted({e["resumeToken"] for e in trace if "resumeToken" in e})
    assert tokens == ["run_1/w1/1", "run_1/w2/2"]
    own = {"run_1/w1/1": "run_1:w1:1", "run_1/w2/2": "opaque"}

    def judged(engine_trace):
        renamed, _ = W6W.rename(run, engine_trace, None)
        return check(run, W6W.key, renamed).divergence

    assert check(run, W6W.key, _renamed(trace, own)).divergence is not None  # as written
    assert judged(_renamed(trace, own)) is None
    # One string for both suspensions is the engine's business too (each is resumed once).
    assert judged(_renamed(trace, {t: "same" for t in tokens})) is None
    # A resumption with another token than the run suspended with still diverges.
    resumed = next(k for k, e in enumerate(trace) if e["event"] == "run_resumed")
    wrong = _renamed(trace, own)
    wrong[resumed] = {**wrong[resumed], "resumeToken": "other"}
    assert judged(wrong) is not None


def test_a_final_suspension_with_the_engines_token_is_renamed_with_it():
    prepared = W6W.prepare({**CASES["left queued"], "schedule": []}, None)
    from wforacle.model.kernel.lts import execute

    run = prepared.semantics
    execution = execute(run)
    state = run_state(run, execution.final)
    own = {"run_1/w/1": "T"}
    engine_state = {**state, "suspension": {"stepId": "w", "resumeToken": "T"}}
    trace, renamed = W6W.rename(run, _renamed(execution.trace, own), engine_state)
    assert renamed == state and trace == execution.trace
    other = {**state, "suspension": {"stepId": "w", "resumeToken": "U"}}
    assert W6W.rename(run, _renamed(execution.trace, own), other)[1] == other


def test_no_crash_at_the_checkpoint_of_a_suspended_run(toyflow):
    # The model's crash fires at a checkpoint of a running run; run_suspended's (4 here)
    # leaves the run queued.  The driver crashed the engine there anyway and reported that
    # the model's run had ended (a stranger, session 24).
    scenario = {"crashAfterCheckpoints": [4]}
    judgement = judge(toyflow, W6W, {**case([wait("w"), app("after")], THEN, scenario),
                                     "schedule": []})  # fmt: skip
    assert judgement.verdict == "pass", judgement.to_json()
    assert "crashed" not in [e["event"] for e in judgement.observation.trace]
    # At a running run's checkpoint (step_started's, 2) the crash is made.
    scenario = {"crashAfterCheckpoints": [2]}
    judgement = judge(toyflow, W6W, {**case([wait("w"), app("after")], THEN, scenario),
                                     "schedule": []})  # fmt: skip
    assert judgement.verdict == "pass", judgement.to_json()
    assert "crashed" in [e["event"] for e in judgement.observation.trace]
