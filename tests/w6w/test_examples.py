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
