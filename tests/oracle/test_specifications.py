"""One oracle over every specification record (issue 11): each feature works for w6w and Harness."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from wforacle.model.diagnostics import InvalidCase
from wforacle.oracle.cli import main
from wforacle.oracle.engine import Engine, judge
from wforacle.oracle.fixtures import conform, write_suite
from wforacle.oracle.fuzz import campaign, explain, reduce_case, signature
from wforacle.oracle.selftest import selftest
from wforacle.properties.harness.specification import HARNESS
from wforacle.properties.registry import SPECIFICATIONS

ENGINES = Path(__file__).resolve().parents[2] / "examples" / "engines"
# Campaign examples that find harness_engine's all-negative-skipped (A-61's other
# reading) under the model's readings at one of seeds 0..2 (it was a seeded bug's budget).
READING_BUDGET = 150
ORACLE = Path(__file__).resolve().parents[2] / "oracle"


def example(spec, *bugs: str) -> Engine:
    path = ENGINES / spec.example_engine
    return Engine(f"{sys.executable} {path}" + "".join(f" --bug {b}" for b in bugs))


def test_the_registry_holds_each_specification_under_its_name():
    assert list(SPECIFICATIONS) == ["w6w", "harness", "workfile"]
    assert all(spec.name == name for name, spec in SPECIFICATIONS.items())


def test_no_oracle_module_is_named_after_a_specification():
    names = {path.stem for path in ORACLE.glob("*.py")}
    assert not {n for n in names for spec in SPECIFICATIONS if spec in n}


# -- reduction after Hypothesis, for Harness too ----------------------------------------------

# A bug report of the earlier draft's reading (an all-negative join SKIPPED, HX-JOIN-3):
# only the decision and the join its untaken case feeds matter.
REPORT = {
    "document": (
        '<harness id="h"><node id="src"/><node id="extra"/><node id="more"/>'
        '<decision id="d"><case to="a" when="params.go == true"/><case to="b"/></decision>'
        '<node id="a"/><node id="b"/><node id="after"/>'
        '<edge from="src" to="d"/><edge from="a" to="after"/>'
        '<edge from="extra" to="more"/></harness>'
    ),
    "scenario": {"params": {"go": False}},
    "schedule": [1, 0],
}


def test_reduce_case_shrinks_a_harness_bug_report_to_what_the_bug_needs():
    engine = example(HARNESS, "all-negative-skipped")
    try:
        wanted = signature(judge(engine, HARNESS, REPORT))
        assert wanted[0] == "divergence"

        def still_fails(candidate):
            return signature(judge(engine, HARNESS, candidate)) == wanted

        reduced = reduce_case(HARNESS, REPORT, still_fails)
    finally:
        engine.stop()
    assert HARNESS.size(reduced)["nodes"] < HARNESS.size(REPORT)["nodes"]
    assert "extra" not in reduced["document"] and "more" not in reduced["document"]
    assert reduced["schedule"] == []


def test_a_harness_finding_is_reduced_after_hypothesis_shrinks_it():
    # After the campaign, no smaller variant the reduction step offers still fails the
    # same way: the reduction pass ran on the Hypothesis-shrunk case.
    engine = example(HARNESS, "all-negative-skipped")
    try:
        for seed_value in range(3):
            budget = READING_BUDGET
            finding = campaign(HARNESS, engine, examples=budget, seed_value=seed_value).finding
            if finding is not None:
                break
        assert finding is not None
        wanted = signature(finding.judgement)
        for candidate in HARNESS.smaller(finding.case):
            try:
                verdict = judge(engine, HARNESS, candidate)
            except InvalidCase:
                continue
            assert signature(verdict) != wanted, candidate
    finally:
        engine.stop()
    assert explain(finding).startswith("minimal case: ")
    assert "node(s)" in explain(finding)


# -- conform reads outcomes.json, for both ---------------------------------------------------------


@pytest.mark.parametrize("name", ["w6w", "harness"])
def test_conform_requires_the_outcome_to_be_one_of_outcomes_json(tmp_path, name):
    spec = SPECIFICATIONS[name]
    write_suite(spec, tmp_path / "suite", 2, seed_value=4)
    first = sorted(p for p in (tmp_path / "suite").iterdir() if p.is_dir())[0]
    engine = example(spec)
    try:
        assert [r.verdict for r in conform(engine, tmp_path / "suite")] == ["pass"] * 2
        (first / "outcomes.json").write_text("[]\n")
        results = conform(engine, tmp_path / "suite")
    finally:
        engine.stop()
    assert results[0].verdict == "divergence"
    assert results[0].detail == "outcome not among outcomes.json"
    assert results[1].verdict == "pass"


def test_an_unreadable_case_is_invalid_not_an_internal_error(tmp_path):
    write_suite(HARNESS, tmp_path / "suite", 1, seed_value=4)
    case = next(p for p in (tmp_path / "suite").iterdir() if p.is_dir())
    (case / "scenario.json").write_text("{not json")
    engine = example(HARNESS)
    try:
        results = conform(engine, tmp_path / "suite")
    finally:
        engine.stop()
    assert results[0].verdict == "invalid" and "unreadable case" in results[0].detail


# -- protocol-selftest sends each specification its own documents -------------------------------


@pytest.mark.parametrize("name", ["w6w", "harness"])
def test_the_example_engine_passes_its_specifications_selftest(name):
    spec = SPECIFICATIONS[name]
    engine = ENGINES / spec.example_engine
    checks = selftest(spec, f"{sys.executable} {engine}")
    assert all(check.ok for check in checks), [c for c in checks if not c.ok]
    assert len(checks) >= 5


# -- ITF and the fuzz command, for both --------------------------------------------------------


def test_itf_export_works_for_harness_and_w6w(tmp_path, capsys):
    harness = tmp_path / "h.xml"
    harness.write_text(
        '<harness id="h"><node id="a"/><node id="b"/><edge from="a" to="b"/></harness>'
    )
    w6w = tmp_path / "w.json"
    w6w.write_text(
        json.dumps(
            {
                "manifestVersion": "2",
                "id": "wf",
                "name": "one",
                "steps": [{"id": "a", "uses": {"app": "demo", "action": "run"}}],
            }
        )
    )
    for document, variable in ((harness, "outcome"), (w6w, "runState")):
        itf = tmp_path / f"{document.stem}.itf.json"
        assert main(["run", str(document), "--itf", str(itf)]) == 0
        trace = json.loads(itf.read_text())
        assert trace["vars"] == ["event", variable]
        assert trace["states"][0]["event"] == {"event": "init"}
        assert all(variable in state for state in trace["states"])
    capsys.readouterr()


def test_fuzz_saves_a_harness_finding_as_a_regression_fixture(tmp_path, capsys):
    # all-negative-skipped is A-61's other reading: pinning the model's makes it a finding.
    engine = f"{sys.executable} {ENGINES / HARNESS.example_engine} --bug all-negative-skipped"
    budget = str(READING_BUDGET)
    for seed_value in range(3):
        arguments = ["fuzz", "--spec", "harness", "--engine", engine, "--examples", budget]
        arguments += ["--reading", "A-61=pending"]
        saved = ["--seed", str(seed_value), "--save", str(tmp_path / "saved"), "--json"]
        code = main([*arguments, *saved])
        if code == 1:
            break
    report = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert report["spec"] == "harness" and report["finding"] is not None
    saved = Path(report["finding"]["saved"])
    assert (saved / "document.xml").is_file() and (saved / "outcomes.json").is_file()
    manifest = json.loads((saved / "manifest.json").read_text())
    assert manifest["spec"] == "harness" and manifest["finding"]["verdict"] == "divergence"
