"""The oracle side of issue 10's w6w faults: secrets, implicit-chain replay, rejection."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from wforacle.oracle.engine import Engine, Observation, judge
from wforacle.oracle.fuzz import judge_case
from wforacle.properties.w6w.conformance import _may_hold
from wforacle.properties.w6w.specification import W6W

ENGINE = Path(__file__).resolve().parents[2] / "examples" / "engines" / "w6w_engine.py"


def toyflow(*bugs: str) -> str:
    return f"{sys.executable} {ENGINE}" + "".join(f" --bug {b}" for b in bugs)


def judged(case, *bugs):
    engine = Engine(toyflow(*bugs))
    try:
        return judge_case(W6W, engine, case)
    finally:
        engine.stop()


CHAIN = {
    "manifestVersion": "2",
    "id": "wf",
    "name": "chain",
    "steps": [{"id": s, "uses": {"app": "demo", "action": "run"}} for s in "abc"],
}


def test_replay_from_a_step_of_the_implicit_chain_passes_the_example_engine():
    # W6W-FAN-11 over the implicit chain (W6W-PLAN-2): replay from b re-runs b and c.
    original = {
        "runId": "run_1",
        "workflowId": "wf",
        "status": "succeeded",
        "output": "c0",
        "variables": {},
        "steps": {s: {"stepId": s, "status": "succeeded", "output": f"{s}0"} for s in "abc"},
    }
    case = {
        "document": CHAIN,
        "scenario": {"steps": {s: {"attempts": [{"output": f"{s}1"}]} for s in "abc"}},
        "replay": {"runState": original, "from": "b"},
    }
    judgement = judged(case)
    assert judgement.verdict == "pass", judgement.to_json()
    assert judgement.observation is not None
    assert judgement.observation.state["steps"]["c"]["output"] == "c1"


# -- secrets (W6W-ENV-17, assumption A-70) -------------------------------------------------

SECRET = "sk-live-123"
BEARER = {
    "manifestVersion": "2",
    "id": "wf",
    "name": "bearer",
    "steps": [
        {
            "id": "call",
            "uses": {"app": "http", "action": "get"},
            "with": {"auth": "Bearer {{ secrets.API_KEY }}"},
        }
    ],
}
SECRET_CASE = {"document": BEARER, "scenario": {"secrets": {"API_KEY": SECRET}}, "schedule": []}


def test_the_example_engine_invokes_with_the_plaintext_and_records_the_marker():
    judgement = judged(SECRET_CASE)
    assert judgement.verdict == "pass", judgement.to_json()
    seen = judgement.observation
    assert seen is not None
    assert seen.invocations == (("call", {"auth": f"Bearer {SECRET}"}),)
    assert SECRET not in json.dumps([seen.trace, seen.state])


class Recorded:
    """A stand-in engine that replays a hand-written observation."""

    def __init__(self, observation: Observation) -> None:
        self.observation = observation

    def drive(self, *args, **kwargs) -> Observation:
        return self.observation


def persisted(input_value, output=None):
    trace = (
        {
            "event": "run_started",
            "status": "running",
            "attempt": 1,
            "runId": "run_1",
            "variables": {},
            "checkpoint": 1,
        },
        {
            "event": "step_started",
            "step": "call",
            "attempt": 1,
            "input": input_value,
            "checkpoint": 2,
        },
        {
            "event": "step_succeeded",
            "step": "call",
            "attempt": 1,
            "output": output,
            "checkpoint": 3,
        },
        {"event": "run_finished", "status": "succeeded", "output": output, "checkpoint": 4},
    )
    state = {
        "runId": "run_1",
        "workflowId": "wf",
        "status": "succeeded",
        "output": output,
        "variables": {},
        "steps": {
            "call": {
                "stepId": "call",
                "status": "succeeded",
                "attempt": 1,
                "input": input_value,
                "output": output,
            }
        },
    }
    return Observation(trace, (("call", {"auth": f"Bearer {SECRET}"}),), state)


def test_an_engine_that_persists_a_secret_diverges_citing_the_secrets_clause():
    # W6W-ENV-17: "secrets is injected by the host from its vault before the run and is
    # never persisted with run state."
    engine = Recorded(persisted({"auth": f"Bearer {SECRET}"}))
    judgement = judge(engine, W6W, SECRET_CASE)  # type: ignore[arg-type]
    assert judgement.verdict == "divergence"
    assert judgement.divergence is not None
    assert judgement.divergence.clauses == ("W6W-ENV-17",)
    assert judgement.divergence.index == 1  # the checkpointed step_started event
    report = json.dumps(judgement.to_json())
    assert SECRET not in report and "API_KEY" in report and "[secret]" in report


def test_a_secret_json_escapes_is_found_where_an_engine_persisted_it():
    # secret_leak's JSON-text prefilter (_may_hold) must not hide a secret whose text JSON
    # escapes: a quote, a backslash, a control character, a non-ASCII letter.
    secret = 'p"w\\d\n\u00e9-\x01'
    case = {**SECRET_CASE, "scenario": {"secrets": {"API_KEY": secret}}}
    judgement = judge(Recorded(persisted({"auth": f"Bearer {secret}"})), W6W, case)  # type: ignore[arg-type]
    assert judgement.verdict == "divergence", judgement.to_json()
    assert judgement.divergence is not None
    assert judgement.divergence.clauses == ("W6W-ENV-17",)


@given(st.text(), st.text(), st.text(min_size=1), st.booleans())
def test_json_text_holds_every_string_a_value_holds(before, after, text, as_name):
    # The prefilter's premise: a text inside a string or a member name of a JSON value is,
    # escaped, inside the value's JSON text; so a False from _may_hold is always right.
    inside = before + text + after
    value = [{inside: 1}] if as_name else [{"k": [inside]}]
    assert _may_hold(value, [text])
    assert _may_hold(value, ["absent" + inside]) is False


def test_the_redacted_record_passes_and_an_action_may_echo_a_secret():
    # The hand-written correct engine passes; and text an action returned is recorded
    # verbatim even when it equals a secret (RFC StepExecution.output: "Action's return
    # value") — it is in the scenario's results, so the leak check leaves it alone.
    good = judge(Recorded(persisted({"auth": "Bearer [secret]"})), W6W, SECRET_CASE)  # type: ignore[arg-type]
    assert good.verdict == "pass", good.to_json()
    echo = {
        **SECRET_CASE,
        "scenario": {
            **SECRET_CASE["scenario"],
            "steps": {"call": {"attempts": [{"output": SECRET}]}},
        },
    }
    echoed = persisted({"auth": "Bearer [secret]"}, output=SECRET)
    verdict = judge(Recorded(echoed), W6W, echo)  # type: ignore[arg-type]
    assert verdict.verdict == "pass", verdict.to_json()


def test_a_run_refused_at_its_start_is_failed_in_the_engine_and_the_model():
    # W6W-FIELD-18 with RunState.status among the RFC's five.
    document = {**CHAIN, "variables": [{"key": "channel", "required": True}]}
    judgement = judged({"document": document, "scenario": {}, "schedule": []})
    assert judgement.verdict == "pass", judgement.to_json()
    assert judgement.observation is not None
    assert judgement.observation.state["status"] == "failed"


def test_the_example_engine_stringifies_a_text_parts_value_that_is_not_a_string():
    # W6W-ENV-20, A-163: stringified as any part's value is, not the host's repr.
    document = {
        "manifestVersion": "2",
        "id": "wf",
        "name": "text",
        "steps": [
            {
                "id": "a",
                "uses": {"app": "demo", "action": "run"},
                "with": {
                    "t": {
                        "type": "expr",
                        "parts": [{"kind": "text", "value": v} for v in ({"x": 1}, 1.0, [True])],
                    }
                },
            }
        ],
    }
    judgement = judged({"document": document, "scenario": {}, "schedule": []})
    assert judgement.verdict == "pass", judgement.to_json()
    assert judgement.observation.invocations == (("a", {"t": '{"x":1}1[true]'}),)
