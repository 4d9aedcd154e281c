"""The clause catalogue: faithful to the specification, stable, and cited correctly."""

from __future__ import annotations

import re

from wforacle.properties.clauses import CONFIGS, Coverage, load
from wforacle.properties.clauses.extract import merge, propose


def test_ids_are_unique_and_well_formed():
    catalogue = load("w6w")
    ids = [c.id for c in catalogue.clauses]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"W6W-[A-Z]+-\d+", i) for i in ids)


def test_every_clause_is_quoted_verbatim_at_its_line(spec_text):
    lines = spec_text("w6w-workflow-rfc.txt").splitlines()
    for clause in load("w6w").clauses:
        assert clause.text in lines[clause.line - 1], clause.id


def test_every_normative_sentence_is_catalogued_under_its_id(spec_text):
    # Re-extraction reproduces the catalogue exactly: nothing missing, no id moved.
    text = spec_text("w6w-workflow-rfc.txt")
    catalogue = load("w6w")
    existing = [
        {"id": c.id, "section": c.section, "line": c.line, "kind": c.kind, "text": c.text}
        for c in catalogue.clauses
    ]
    assert merge(CONFIGS["w6w"], text, existing) == existing


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
    from wforacle.properties.clauses.extract import Section, SpecConfig

    config = SpecConfig("t", "T", (Section("Intro", None), Section("Rules", "R")))
    text = "Intro\nYou MUST ignore this.\nRules\nA host MUST do x. Prose.\n• a bullet rule\n"
    found = [(p.code, p.kind, p.text) for p in propose(config, text)]
    assert found == [("R", "must", "A host MUST do x."), ("R", "rule", "• a bullet rule")]


def test_every_citation_in_code_and_tests_names_a_catalogued_clause():
    from wforacle.properties.clauses import default_tests_dir

    coverage = Coverage.compute("w6w", default_tests_dir())
    assert coverage.unknown == ()


def test_coverage_counts_rules_and_tests_from_citations():
    from wforacle.properties.clauses import default_tests_dir

    coverage = Coverage.compute("w6w", default_tests_dir())
    assert "W6W-PLAN-6" in coverage.rules and "W6W-PLAN-6" in coverage.tests
    figures = coverage.figures()
    assert figures["by_both"] <= min(figures["by_rules"], figures["by_tests"])
