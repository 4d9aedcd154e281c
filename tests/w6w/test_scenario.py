"""The w6w scenario reader: problems as diagnostics, or one InvalidScenario."""

from __future__ import annotations

import pytest

from wforacle.model.diagnostics import InvalidInput, InvalidScenario
from wforacle.model.w6w.scenario import Scenario, load_scenario


def test_load_scenario_reports_every_problem_with_its_path():
    _, problems = load_scenario({"maxCallDepth": -1, "resumes": 3})
    assert sorted(p.path for p in problems) == ["$.maxCallDepth", "$.resumes"]


def test_scenario_of_raises_invalid_scenario_with_the_first_problem():
    with pytest.raises(InvalidScenario) as raised:
        Scenario.of({"steps": {"a": {"attempts": 5}}})
    assert raised.value.path == "$.steps.a.attempts"
    assert isinstance(raised.value, InvalidInput)


def test_scenario_of_reads_a_good_scenario():
    assert Scenario.of({"runId": "r"}).run_id == "r"


@pytest.mark.parametrize(
    ("value", "path"),
    [
        # Issue 19: members of the wrong type were accepted (docs/scenario.schema.json).
        (None, "$"),
        ([], "$"),
        ({"runId": 5}, "$.runId"),
        ({"trigger": "manual"}, "$.trigger"),
        ({"steps": {"a": {"idempotent": "yes"}}}, "$.steps.a.idempotent"),
    ],
)
def test_a_member_of_the_wrong_type_is_a_problem(value, path):
    _, problems = load_scenario(value)
    assert [p.path for p in problems] == [path]


def test_a_replayed_run_state_whose_steps_are_not_an_object_is_invalid_input():
    # Issue 19: {"steps": [1]} from --replay was an AttributeError (exit 3).
    from wforacle.model.w6w.config import Replay

    with pytest.raises(InvalidInput, match="steps must be an object"):
        Replay.of({"status": "succeeded", "steps": [1]}, None)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="is a JSON object"):
        Replay.of([1], None)  # type: ignore[arg-type]
