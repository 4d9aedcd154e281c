"""The oracle side of issue 10's w6w faults: secrets, implicit-chain replay, rejection."""

from __future__ import annotations

import sys
from pathlib import Path

from wforacle.oracle.engine import Engine
from wforacle.oracle.fuzz import judge_case

ENGINE = Path(__file__).resolve().parents[2] / "examples" / "engines" / "w6w_engine.py"


def toyflow(*bugs: str) -> str:
    return f"{sys.executable} {ENGINE}" + "".join(f" --bug {b}" for b in bugs)


def judged(case, *bugs):
    engine = Engine(toyflow(*bugs))
    try:
        return judge_case(engine, case)
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
