"""The command line for Workfiles: validate (by content or --spec), --manifests, refs, clauses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wforacle.oracle.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "workfile"
ONBOARDING = str(EXAMPLES / "onboarding.workfile.yaml")
MANIFESTS = str(EXAMPLES / "manifests")


def test_a_workfile_is_recognised_by_content_and_validated(capsys):
    assert main(["validate", ONBOARDING, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["diagnostics"] == []


def test_manifests_are_the_static_facts_of_validation(capsys):
    assert main(["validate", ONBOARDING, "--manifests", MANIFESTS, "--json"]) == 0
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    assert [d["code"] for d in found] == ["ambiguity_bypasses_continue"] * 3
    assert main(["validate", ONBOARDING, "--manifests", "/nonexistent"]) == 2


def test_an_invalid_workfile_exits_1_with_every_problem(capsys):
    assert main(["validate", str(EXAMPLES / "invalid" / "scopes.workfile.yaml"), "--json"]) == 1
    assert len(json.loads(capsys.readouterr().out)["diagnostics"]) == 4


def test_broken_yaml_is_a_diagnostic_with_spec_and_unrecognised_without(tmp_path, capsys):
    broken = tmp_path / "broken.yaml"
    broken.write_text("steps: [\n")
    assert main(["validate", str(broken), "--spec", "workfile", "--json"]) == 1
    (problem,) = json.loads(capsys.readouterr().out)["diagnostics"]
    assert problem["code"] == "document.syntax"
    assert main(["validate", str(broken)]) == 2


def test_refs_prints_every_statically_resolved_reference(capsys):
    assert main(["workfile", "refs", "a.x if b.y else c[i].z | default(d)", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["references"] == ["a.x", "b.y", "c[*].z", "d", "i"]
    assert main(["workfile", "refs", "hello {{ s.id }} and {{ t[0] }}"]) == 0
    assert capsys.readouterr().out.split() == ["s.id", "t[0]"]
    assert main(["workfile", "refs", "a..b"]) == 2


@pytest.mark.parametrize("command", ["run", "explore"])
def test_execution_says_it_is_not_modelled_yet(command, capsys):
    assert main([command, ONBOARDING]) == 2
    assert "not modelled yet" in capsys.readouterr().err


def test_the_workfile_clause_catalogue_is_listed(capsys):
    assert main(["clauses", "--spec", "workfile", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    ids = [c["id"] for c in report["clauses"]]
    assert "WF-UNK-15" in ids and "WF-STEP-1" in ids and len(ids) == 291
