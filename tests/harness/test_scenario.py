"""The Harness scenario reader: a bad scenario is an InvalidScenario, never a crash."""

from __future__ import annotations

import pytest

from wforacle.model.diagnostics import InvalidScenario
from wforacle.model.harness.semantics import Scenario


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ([], "$"),
        ({"params": 5}, "$.params"),
        ({"nodes": []}, "$.nodes"),
        ({"failingResources": "db"}, "$.failingResources"),
        ({"nodes": {"a": {"attempts": 5}}}, "$.nodes.a.attempts"),
        ({"failingResources": [{"db": 1}]}, "$.failingResources[0]"),
        # Issue 19: an attempt is {"outputs": {...}} or {"error": {...}} (docs/harness.md).
        (
            {"nodes": {"q": {"attempts": [{"outputs": {}}, {"outputs": "true"}]}}},
            "$.nodes.q.attempts[1].outputs",
        ),
        ({"nodes": {"a": {"attempts": [{"x": 1}]}}}, "$.nodes.a.attempts[0]"),
        ({"nodes": {"a": {"attempts": ["ok"]}}}, "$.nodes.a.attempts[0]"),
        ({"nodes": {"a": {"attempts": [{"outputs": {}, "error": {}}]}}}, "$.nodes.a.attempts[0]"),
        ({"nodes": {"a": {"attempts": [{"error": "x"}]}}}, "$.nodes.a.attempts[0].error"),
        (
            {"nodes": {"a": {"attempts": [{"error": {"code": 7}}]}}},
            "$.nodes.a.attempts[0].error.code",
        ),
        # An error names its code (docs/harness.md); one without was run as "error".
        ({"nodes": {"a": {"attempts": [{"error": {}}]}}}, "$.nodes.a.attempts[0].error.code"),
    ],
)
def test_a_bad_scenario_is_invalid_with_its_path(value, path):
    with pytest.raises(InvalidScenario) as raised:
        Scenario.of(value)
    assert raised.value.path == path


def test_a_good_scenario_reads():
    scenario = Scenario.of(
        {
            "params": {"x": 1},
            "nodes": {"a": {"attempts": [{"outputs": {}}]}},
            "failingResources": ["db"],
        }
    )
    assert scenario.params == {"x": 1}
    assert scenario.nodes == {"a": ({"outputs": {}},)}
    assert scenario.failing_resources == frozenset({"db"})
