"""The clause catalogue: faithful to the specification, stable, and cited correctly."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
import yaml

from wforacle.oracle.cli import main
from wforacle.properties.clauses import (
    CONFIGS,
    GENERATORS,
    Citation,
    Coverage,
    catalogue_path,
    default_tests_dir,
    load,
    read_yaml,
    scan,
)
from wforacle.properties.clauses.configs import Section, SpecConfig
from wforacle.properties.clauses.extract import BULLET, KEYWORDS, merge, propose, sentences

SPEC_FILES = {
    "w6w": "w6w-workflow-rfc.txt",
    "harness": "harness-execution-semantics.txt",
    "workfile": "workfile-core-execution-semantics.txt",
    "workfile-stateful": "workfile-stateful-profile.txt",
}
# The specifications some Hypothesis strategy aims at: none generates
# state-form Workfiles yet (issue 15 leaves them to the profile's oracle part).
AIMED_BY_GENERATORS = ("w6w", "harness", "workfile")
SPECS = pytest.mark.parametrize("spec", sorted(SPEC_FILES))


def _as_dicts(spec: str) -> list[dict[str, object]]:
    return [
        {"id": c.id, "section": c.section, "line": c.line, "kind": c.kind, "text": c.text}
        for c in load(spec).clauses
    ]


@SPECS
def test_ids_are_unique_and_well_formed(spec):
    ids = [c.id for c in load(spec).clauses]
    assert len(ids) == len(set(ids))
    prefix = CONFIGS[spec].prefix
    assert all(re.fullmatch(rf"{prefix}-[A-Z]+-\d+", i) for i in ids)


@SPECS
def test_every_clause_is_quoted_verbatim_at_its_line(spec, spec_text):
    lines = spec_text(SPEC_FILES[spec]).splitlines()
    for clause in load(spec).clauses:
        # A wrapped Harness bullet is joined from the lines that follow it.
        quoted = " ".join(x.strip() for x in lines[clause.line - 1 : clause.line + 2] if x.strip())
        assert clause.text in lines[clause.line - 1] or clause.text in quoted, clause.id


@SPECS
def test_every_normative_sentence_is_catalogued_under_its_id(spec, spec_text):
    # Re-extraction reproduces the committed catalogue exactly: nothing
    # missing, nothing extra, no id moved, no field changed.
    existing = _as_dicts(spec)
    assert merge(CONFIGS[spec], spec_text(SPEC_FILES[spec]), existing) == existing


def _committed_catalogues(spec: str) -> list[tuple[str, list[dict[str, object]]]]:
    """Every version of ``<spec>.yaml`` in the git history, newest first."""
    path = catalogue_path(spec)
    git = shutil.which("git")
    if git is None or not (path.parents[2] / ".git").exists():
        pytest.skip("not a git checkout: the catalogue's history is unavailable")
    relative = path.relative_to(path.parents[2]).as_posix()
    run = {"cwd": path.parents[2], "capture_output": True, "text": True, "check": True}
    commits = subprocess.run([git, "log", "--format=%H", "--", relative], **run).stdout.split()
    versions = []
    for commit in commits:
        shown = subprocess.run([git, "show", f"{commit}:{relative}"], **run).stdout
        versions.append((commit[:8], yaml.safe_load(shown)["clauses"]))
    return versions


@SPECS
def test_no_committed_clause_id_disappears_or_changes_its_text(spec):
    # Ids are cited all over the code and the tests: once committed, an id
    # keeps its text for good (a clause the specification drops would stay,
    # marked, rather than have its id reused).
    now = {c.id: c.text for c in load(spec).clauses}
    for commit, clauses in _committed_catalogues(spec):
        for clause in clauses:
            assert now.get(str(clause["id"])) == clause["text"], (commit, clause["id"])


def _normative_lines(spec: str, text: str) -> list[tuple[int, str, Section]]:
    pending = list(CONFIGS[spec].sections)
    current: Section | None = None
    found = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if pending and raw.strip() == pending[0].heading:
            current = pending.pop(0)
        elif current is not None and raw.strip():
            found.append((number, raw.strip(), current))
    return found


@SPECS
def test_every_keyword_sentence_anywhere_is_in_a_clause(spec, spec_text):
    # Even in a section the config calls informative: a keyword is normative.
    # A lead-in ("A host … MUST:") is the exception: the items it introduces
    # are the clauses, and the next line must be one of them.
    text = spec_text(SPEC_FILES[spec])
    lines = [line.strip() for line in text.splitlines()]
    texts = [c.text for c in load(spec).clauses]
    missing = []
    for number, line, _ in _normative_lines(spec, text):
        for sentence in sentences(line, CONFIGS[spec].sentence_starts):
            if not KEYWORDS.search(sentence) or any(sentence in t for t in texts):
                continue
            following = next(x for x in lines[number:] if x)
            if sentence.endswith(":") and BULLET.match(following):
                continue
            missing.append((number, sentence))
    assert missing == []


def test_every_table_row_and_testably_paragraph_is_a_clause(spec_text):
    text = spec_text(SPEC_FILES["w6w"])
    lines = text.splitlines()
    texts = {c.text for c in load("w6w").clauses}
    rows = 0
    for number, line, section in _normative_lines("w6w", text):
        if section.code is None:
            continue
        if "\t" in line and "\t" in lines[number - 2]:  # a row, not its table's header
            assert line in texts, number
            rows += 1
        if "Testably:" in line:
            assert any(line in t or (t in line and "Testably:" in t) for t in texts), number
    assert rows > 70  # the field, run-state, marker, host, part and mode tables


@pytest.mark.parametrize(
    ("clause_id", "words"),
    [
        ("W6W-CONCEPT-6", "Whatever the action returns becomes the step’s output"),
        ("W6W-CONCEPT-9", "every conforming engine natively supports"),
        ("W6W-FIELD-40", "Required when the action’s app declares auth"),
        ("W6W-STATE-7", '"queued" | "running" | "succeeded" | "failed" | "canceled"'),
        ("W6W-STATE-13", '"pending" | "running" | "succeeded" | "failed" | "skipped"'),
        ("W6W-STATE-21", '"resolution" | "auth" | "execute" | "output"'),
        ("W6W-HOST-6", "The engine NEVER sees credentials"),
        ("W6W-PRES-7", "any values already stored are left as they are, not erased"),
        ("W6W-ENV-56", "a secret part with an absent or empty ref names no available secret"),
        ("W6W-META-24", "Absent meta reads like any absent path"),
        ("W6W-BIND-10", "It resolves type-preserved"),
        ("W6W-CHAIN-16", "Testably: {{ vars.a || badroot.x }} is refused in full"),
        ("HX-UNSPEC-1", "Traces are RECOMMENDED"),
    ],
)
def test_the_statements_issue_10_found_missing_are_catalogued(clause_id, words):
    spec = "harness" if clause_id.startswith("HX-") else "w6w"
    assert words in load(spec)[clause_id].text


def test_merge_keeps_ids_and_numbers_new_clauses_after_the_highest(spec_text):
    text = spec_text("w6w-workflow-rfc.txt")
    full = merge(CONFIGS["w6w"], text, [])
    dropped = [c for c in full if c["id"] != "W6W-PLAN-2"]
    again = merge(CONFIGS["w6w"], text, dropped)
    readded = next(
        c for c in again if c["text"] == next(x["text"] for x in full if x["id"] == "W6W-PLAN-2")
    )
    highest = max(int(c["id"].rsplit("-", 1)[1]) for c in full if c["id"].startswith("W6W-PLAN"))
    assert readded["id"] == f"W6W-PLAN-{highest + 1}"  # a new id, never a reused one
    assert [c["id"] for c in again if c is not readded] == [c["id"] for c in dropped]


def test_extractor_finds_keyword_sentences_and_bullets():
    config = SpecConfig("t", "T", (Section("Intro", None), Section("Rules", "R")))
    text = "Intro\nYou MUST ignore this.\nRules\nA host MUST do x. Prose.\n• a bullet rule\n"
    found = [(p.code, p.kind, p.text) for p in propose(config, text)]
    assert found == [("R", "must", "A host MUST do x."), ("R", "rule", "• a bullet rule")]


def test_extractor_knows_every_rfc_2119_keyword():
    config = SpecConfig("t", "T", (Section("Rules", "R"),))
    text = (
        "Rules\nTraces are RECOMMENDED. Polling is NOT RECOMMENDED. A tag is OPTIONAL. "
        "It SHALL NOT move. It SHALL stay. Prose.\n"
    )
    kinds = [p.kind for p in propose(config, text)]
    assert kinds == ["recommended", "not-recommended", "optional", "shall-not", "shall"]


def test_extractor_takes_table_rows_whole_and_skips_the_header():
    config = SpecConfig("t", "T", (Section("Rules", "R"),))
    text = 'Rules\nField\tType\tDescription\nstatus\tenum\t"a" | "b". It MUST be set.\n'
    found = [(p.kind, p.text) for p in propose(config, text)]
    assert found == [
        ("row", 'status\tenum\t"a" | "b". It MUST be set.'),
        ("must", "It MUST be set."),
    ]


def test_extractor_takes_a_testably_paragraph_whole():
    config = SpecConfig("t", "T", (Section("Rules", "R"),))
    text = "Rules\nA chain is refused whole. Testably: {{ a || b }} is refused.\nJust prose.\n"
    found = [(p.kind, p.text) for p in propose(config, text)]
    assert found == [("testably", "A chain is refused whole. Testably: {{ a || b }} is refused.")]


def test_an_informative_section_yields_only_its_keyword_sentences():
    section = Section("Unspecified", "U", informative=True)
    config = SpecConfig("t", "T", (section,), extra=("Prose.",))
    text = "Unspecified\nProse. Traces are RECOMMENDED.\n• a bullet\nA\tB\nc\td\n"
    found = [(p.kind, p.text) for p in propose(config, text)]
    assert found == [("recommended", "Traces are RECOMMENDED.")]


def test_every_citation_in_code_and_tests_names_a_catalogued_clause():
    coverage = Coverage.compute("w6w", default_tests_dir())
    assert coverage.unknown == ()


def test_coverage_counts_rules_and_tests_from_citations():
    coverage = Coverage.compute("w6w", default_tests_dir())
    assert "W6W-PLAN-6" in coverage.rules and "W6W-PLAN-6" in coverage.tests
    figures = coverage.figures()
    assert figures["by_both"] <= min(figures["by_rules"], figures["by_tests"])
    statuses = ("covered", "rules_only", "tests_only", "uncovered")
    assert sum(figures[s] for s in statuses) == figures["clauses"]
    assert figures["covered"] == figures["by_both"]


def test_a_clause_is_covered_only_by_a_rule_and_a_test():
    catalogue = load("w6w")
    here = Citation("W6W-PLAN-1", "wforacle.model/w6w/x.py", 1)
    there = Citation("W6W-PLAN-1", "tests/test_x.py", 1)
    both = Coverage(catalogue, {"W6W-PLAN-1": (here,)}, {"W6W-PLAN-1": (there,)}, (), True)
    rules = Coverage(catalogue, {"W6W-PLAN-1": (here,)}, {}, (), True)
    tests = Coverage(catalogue, {}, {"W6W-PLAN-1": (there,)}, (), True)
    assert both.status("W6W-PLAN-1") == "covered"
    assert rules.status("W6W-PLAN-1") == "rules-only"
    assert tests.status("W6W-PLAN-1") == "tests-only"
    assert tests.status("W6W-PLAN-2") == "uncovered"
    assert rules.figures()["rules_only"] == 1 and rules.figures()["covered"] == 0


def test_generators_and_the_catalogues_own_tests_are_not_coverage():
    for spec in SPEC_FILES:
        coverage = Coverage.compute(spec, default_tests_dir())
        if spec in AIMED_BY_GENERATORS:
            assert coverage.generators  # the strategies do aim at clauses …
        for citations in coverage.generators.values():
            assert all(c.file.startswith(GENERATORS) for c in citations)
        for citations in coverage.rules.values():  # … but are not rule sites
            assert not any(c.file.startswith(GENERATORS) for c in citations)
        for citations in coverage.tests.values():  # this file names ids, it tests none
            assert not any(c.file.endswith("test_clauses.py") for c in citations)


def test_a_citation_names_the_function_or_class_that_holds_it():
    module = (
        '"""Notation (W6W-PLAN-1)."""\n\n\nclass Run:\n    @staticmethod\n'
        "    def step():\n        return 1  # W6W-PLAN-2\n"
    )
    found = [(c.clause, c.owner) for c in scan([("m.py", module), ("g.lark", "// W6W-PLAN-3")])]
    assert found == [
        ("W6W-PLAN-1", "<module>"),
        ("W6W-PLAN-2", "Run.step"),
        ("W6W-PLAN-3", "<module>"),
    ]


@SPECS
def test_clauses_command_reports_each_clause_status_and_sites(spec, capsys):
    assert main(["clauses", "--spec", spec, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["clauses"]) == report["coverage"]["clauses"] == len(load(spec).clauses)
    for row in report["clauses"]:
        assert row["status"] == (
            ("covered" if row["tests"] else "rules-only")
            if row["rule_sites"]
            else ("tests-only" if row["tests"] else "uncovered")
        )
        assert len(row["test_files"]) <= len(row["tests"])
    assert sum(s["clauses"] for s in report["sections"].values()) == len(report["clauses"])
    assert main(["clauses", "--spec", spec, "--uncovered"]) == 0
    rows = [
        line.split()
        for line in capsys.readouterr().out.splitlines()
        if line.startswith(("W6W-", "HX-", "WF-", "WFS-"))
    ]
    assert rows and all(row[2] != "covered" for row in rows)


@SPECS
def test_the_catalogue_reads_as_pythons_safe_loader_reads_it(spec: str) -> None:
    """read_yaml (libyaml's parser where PyYAML has it) gives exactly what safe_load gives."""
    text = catalogue_path(spec).read_text("utf-8")
    assert read_yaml(text) == yaml.safe_load(text)
    assert load(spec).clauses  # and the catalogue load() builds from it is not empty
