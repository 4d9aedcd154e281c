"""``wforacle review``: every spec-review finding re-checked by its witness (issue 17, part 4)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from wforacle.oracle.cli import main
from wforacle.oracle.review import assumptions, findings, invoke, pointed

DOCS = Path(__file__).resolve().parents[2] / "docs"
WITNESS = json.loads((DOCS / "findings" / "witness.schema.json").read_text())


def test_every_witness_file_matches_the_witness_schema_and_names_a_finding():
    known = {f.id: f.spec for f in findings((DOCS / "spec-review.md").read_text())}
    check = Draft202012Validator(WITNESS)
    for path in sorted((DOCS / "findings").glob("F-*.json")):
        witness = json.loads(path.read_text())
        check.validate(witness)
        assert path.stem == witness["finding"] and known[path.stem] == witness["spec"]


def test_every_finding_of_the_review_has_a_witness_and_holds(capsys):
    code = main(["review", "--spec", "all", "--json"])
    report = json.loads(capsys.readouterr().out)
    failing = [f for part in report["specs"] for f in part["findings"] if f["status"] != "holds"]
    assert failing == [] and code == 0 and report["holds"]
    reviewed = [f["finding"] for part in report["specs"] for f in part["findings"]]
    assert sorted(reviewed) == sorted(
        re.findall(r"^## (F-\d+)", (DOCS / "spec-review.md").read_text(), re.M)
    )


@pytest.fixture
def docs(tmp_path) -> Path:
    """A copy of docs/ with the review, the assumptions and F-02's witness alone."""
    folder = tmp_path / "docs"
    (folder / "findings").mkdir(parents=True)
    text = (DOCS / "spec-review.md").read_text()
    start = text.index("## F-02")
    (folder / "spec-review.md").write_text(text[start : text.index("## F-03")])
    shutil.copy(DOCS / "assumptions.md", folder)
    shutil.copy(DOCS / "findings" / "F-02.json", folder / "findings")
    return folder


def test_a_finding_a_model_change_made_false_is_reported_and_fails_the_review(docs, capsys):
    path = docs / "findings" / "F-02.json"
    assert main(["review", "--spec", "w6w", "--docs", str(docs)]) == 0
    witness = json.loads(path.read_text())
    witness["runs"][1]["json"]["/order"] = ["a", "b", "c", "d"]  # as if fifo planned like declared
    path.write_text(json.dumps(witness))
    capsys.readouterr()
    assert main(["review", "--spec", "w6w", "--docs", str(docs)]) == 1
    printed = capsys.readouterr().out
    assert "F-02  NO LONGER HOLDS" in printed
    assert '/order is ["a", "b", "d", "c"], expected ["a", "b", "c", "d"]' in printed
    assert "0/1 findings hold" in printed


@pytest.mark.parametrize(
    ("damage", "status"),
    [
        (None, "no witness"),
        ("{", "bad witness"),
        ('{"finding": "F-03", "runs": []}', "bad witness"),
        (
            '{"finding": "F-02", "files": {"a/b.json": 1}, "runs": [{"args": ["x"], "exit": 0}]}',
            "bad witness",
        ),
        ('{"finding": "F-02", "files": [], "runs": [{"args": ["x"], "exit": 0}]}', "bad witness"),
    ],
)
def test_a_missing_or_broken_witness_fails_the_review(docs, capsys, damage, status):
    path = docs / "findings" / "F-02.json"
    path.unlink()
    if damage is not None:
        path.write_text(damage)
    assert main(["review", "--spec", "w6w", "--docs", str(docs), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["specs"][0]["findings"][0]["status"] == status


def test_a_docs_folder_without_the_review_is_a_usage_error(tmp_path, capsys):
    assert main(["review", "--docs", str(tmp_path)]) == 2
    assert "no spec-review.md" in capsys.readouterr().err


def test_assumptions_belong_by_the_clauses_they_cite_else_by_their_number():
    text = (
        "## A-20 — JSON Logic\n\nnothing cited\n\n"
        "## A-61 — joins\n\nHX-JOIN-2 says\n\n"
        "## A-30 — cites Harness\n\nHX-READY-2\n\n"
        "## A-154 — JSON depth\n\nnone\n"
    )
    assert [a for a, _ in assumptions(text, "w6w")] == ["A-20"]
    assert [a for a, _ in assumptions(text, "harness")] == ["A-61", "A-30"]
    assert assumptions(text, "workfile") == []


def test_a_pointer_reads_objects_and_arrays_and_says_when_nothing_is_there():
    document = {"a": [{"b/c": 1}], "~": 2}
    assert pointed(document, "/a/0/b~1c") == 1 and pointed(document, "/~0") == 2
    assert pointed(document, "/a/1") == "<absent>" and pointed(document, "") == document


def test_the_stdin_of_a_run_reaches_the_line_tools_that_read_bytes():
    # w6w resolve and jsonlogic eval read sys.stdin.buffer; a '-' file reads it too.
    line = '{"scope": {"vars": {"x": "é"}}, "with": "{{ vars.x }}"}\n'
    assert invoke(main, ["w6w", "resolve"], line) == (0, '{"value":"é"}\n', "")
    document = {
        "manifestVersion": "2",
        "id": "w",
        "name": "w",
        "steps": [{"id": "a", "uses": {"app": "x", "action": "y"}}],
    }
    code, out, _ = invoke(main, ["plan", "-", "--json"], json.dumps(document))
    assert code == 0 and json.loads(out) == {"order": ["a"]}


def test_some_names_a_member_by_what_it_holds_in_any_position():
    from wforacle.oracle.review import _some

    outcomes = [{"error": {"code": "b"}}, {"error": {"code": "a"}, "steps": {"b": "failed"}}]
    assert _some(outcomes, "/o", [{"/error/code": "a", "/steps/b": "failed"}]) == []
    assert _some(outcomes, "/o", {"/error/code": "b", "/steps": "<absent>"}) == []
    missing = _some(outcomes, "/o", [{"/error/code": "a", "/steps/b": "succeeded"}])
    assert missing == ['no member of /o has {"/error/code": "a", "/steps/b": "succeeded"}']
    assert _some({"not": "a list"}, "/o", {}) == ["/o is not an array"]


def test_a_review_heading_that_names_no_specification_is_a_usage_error(docs, capsys):
    path = docs / "spec-review.md"
    path.write_text(path.read_text().replace("(w6w, W6W-PLAN-5)", "(Elsewhere, X-1)"))
    assert main(["review", "--docs", str(docs)]) == 2
    assert "no specification named 'Elsewhere'" in capsys.readouterr().err


def test_a_run_whose_arguments_the_command_line_refuses_gives_its_exit_code():
    assert invoke(main, ["no-such-command"])[0] == 2
    assert invoke(main, ["--version"])[0] == 0
