"""The hand-written conformance cases: each expectation, stated from the text, holds in the model.

The same cases are what ``wforacle fixtures --profile conformance`` writes
(with ``expect.json``), so a fixture and its test cannot drift.
"""

from __future__ import annotations

import json

import pytest

from wforacle.oracle.cli import main
from wforacle.properties.registry import SPECIFICATIONS
from wforacle.properties.specification import matches

CASES = [
    pytest.param(spec, case, id=f"{name}:{case.name}")
    for name, spec in SPECIFICATIONS.items()
    for case in spec.conformance()
]


@pytest.mark.parametrize(("spec", "case"), CASES)
def test_every_outcome_the_model_permits_meets_the_expectation(spec, case):
    prepared = spec.prepare(case.case, None)
    found = spec.explore(prepared.semantics, 100_000, True)
    outcomes = [o.value for o in found.outcomes]
    assert case.holds(outcomes), (case.clauses, outcomes)


def test_matching_is_partial_and_typed():
    assert matches({"a": {"b": 1}}, {"a": {"b": 1, "c": 2}, "d": 3})
    assert not matches({"a": {"b": 1}}, {"a": {"b": 2}})
    assert not matches({"a": 1}, {"a": True})  # 1 is not true
    assert not matches({"x": None}, {})  # a named member must be present


def test_each_specification_has_conformance_cases_citing_clauses():
    for name in ("w6w", "harness", "workfile"):
        cases = SPECIFICATIONS[name].conformance()
        assert len(cases) >= 5 and all(case.clauses for case in cases)


def test_the_conformance_profile_writes_the_same_cases_with_their_expectations(tmp_path, capsys):
    for name in ("w6w", "harness", "workfile"):
        out = tmp_path / name
        assert (
            main(["fixtures", "--spec", name, "--out", str(out), "--profile", "conformance"]) == 0
        )
        written = sorted(p for p in out.iterdir() if (p / "manifest.json").is_file())
        cases = SPECIFICATIONS[name].conformance()
        assert len(written) == len(cases)
        for here, case in zip(written, cases, strict=True):
            assert json.loads((here / "expect.json").read_text()) == case.expect
            outcomes = json.loads((here / "outcomes.json").read_text())
            assert case.holds([o["outcome"] for o in outcomes])
