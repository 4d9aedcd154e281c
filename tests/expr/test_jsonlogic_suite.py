"""The JSON Logic community suites (../shared/external/jsonlogic), case by case."""

from __future__ import annotations

from pathlib import Path

import pytest

from wforacle.oracle.jsonlogic_suite import load_cases, run_case

SUITES = Path(__file__).resolve().parents[2].parent / "shared" / "external" / "jsonlogic" / "suites"
CASES = list(load_cases(SUITES)) if (SUITES / "index.json").exists() else []


@pytest.mark.skipif(not CASES, reason=f"JSON Logic suites not found at {SUITES}")
def test_the_suites_hold_1138_cases_and_compatible_json_278():
    assert len(CASES) == 1138
    assert sum(1 for c in CASES if c.file == "compatible.json") == 278


@pytest.mark.skipif(not CASES, reason=f"JSON Logic suites not found at {SUITES}")
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.file}[{c.index}]")
def test_case(case):
    outcome = run_case(case)
    assert outcome.passed, (case.description, case.rule, case.data, case.expected, outcome.actual)
