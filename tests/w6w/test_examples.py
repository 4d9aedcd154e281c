"""The bundled examples: the valid ones validate and plan, the invalid ones do not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wforacle.properties.w6w.validate import validate

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "w6w"


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda p: p.name)
def test_valid_examples(path):
    result = validate(json.loads(path.read_text()))
    assert result.report.valid and not result.report.diagnostics
    assert result.plan is not None and len(result.plan) == len(result.workflow.steps)


@pytest.mark.parametrize(
    "path", sorted((EXAMPLES / "invalid").glob("*.json")), ids=lambda p: p.name
)
def test_invalid_examples(path):
    assert not validate(json.loads(path.read_text())).report.valid


def test_the_rfc_example_plans_fetch_before_post():
    doc = json.loads((EXAMPLES / "daily-report.json").read_text())
    assert validate(doc).plan == ["fetch", "post"]


@pytest.mark.parametrize(
    "path", sorted((EXAMPLES / "scenarios").glob("*.json")), ids=lambda p: p.name
)
def test_example_scenarios_run_their_workflows(path):
    from wforacle.model.kernel.lts import execute
    from wforacle.model.w6w.scenario import load_scenario
    from wforacle.model.w6w.semantics import W6wRun, run_state

    result = validate(json.loads((EXAMPLES / path.name).read_text()))
    scenario, problems = load_scenario(json.loads(path.read_text()))
    assert not problems
    semantics = W6wRun(result.workflow, result.plan, scenario)
    assert run_state(semantics, execute(semantics).final)["status"] == "succeeded"


def test_the_rfc_example_runs_with_its_own_expressions():
    # Finding F-06 / A-44: the example's $expr uses "$" and "join".
    from wforacle.model.kernel.lts import execute
    from wforacle.model.w6w.scenario import load_scenario
    from wforacle.model.w6w.semantics import W6wRun

    result = validate(json.loads((EXAMPLES / "daily-report.json").read_text()))
    scenario, _ = load_scenario(
        json.loads((EXAMPLES / "scenarios" / "daily-report.json").read_text())
    )
    trace = execute(W6wRun(result.workflow, result.plan, scenario)).trace
    inputs = {e["step"]: e["input"] for e in trace if e["event"] == "step_started"}
    assert inputs["fetch"]["query"] == "updated:>2026-07-02"
    assert inputs["post"]["text"] == "a\nb"
