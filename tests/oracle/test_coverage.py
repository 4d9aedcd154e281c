"""Campaign coverage by clause (issue 17, part 3; docs/coverage.md)."""

from __future__ import annotations

import json
import sys

import pytest

from wforacle.model.kernel.lts import execute
from wforacle.oracle.check import check
from wforacle.oracle.cli import main
from wforacle.oracle.coverage import (
    CATALOGUES,
    RUN_RULES,
    Tally,
    catalogue_ids,
    code_strings,
    run_clauses,
)
from wforacle.oracle.fuzz import campaign
from wforacle.oracle.power import ENGINES, example_engine
from wforacle.properties.clauses import CLAUSE_ID, package_sources
from wforacle.properties.registry import SPECIFICATIONS
from wforacle.properties.w6w.specification import W6W

STEP = {"uses": {"app": "demo", "action": "run"}}
# Two steps; a fails (no retry, onError continue) and b runs after it anyway.
CASE = {
    "document": {
        "manifestVersion": "2",
        "id": "wf",
        "name": "coverage",
        "steps": [{"id": "a", "onError": "continue", **STEP}, {"id": "b", **STEP}],
    },
    "scenario": {
        "steps": {"a": {"attempts": [{"error": {"code": "x", "message": "m", "phase": "execute"}}]}}
    },
    "schedule": [],
}


def test_a_checked_trace_exercises_the_clauses_of_the_transitions_it_matched():
    prepared = W6W.prepare(CASE, None)
    run = execute(prepared.semantics)
    cited = {c for step in run.steps for c in step.clauses}
    verdict = check(prepared.semantics, W6W.key, run.trace)
    assert verdict.permitted and verdict.exercised == cited
    # W6W-FIELD-13: onError "continue" swallows the failure; its rule was gone through.
    assert "W6W-FIELD-13" in verdict.exercised


# A foreach whose body reads foreach.item (W6W-ROOT-6): the body's run happens inside the
# control's attempt, and its events travel in the control's own event.
FOREACH = {
    "document": {
        "manifestVersion": "2",
        "id": "wf",
        "name": "nested",
        "steps": [
            {
                "id": "each",
                "uses": {"app": "@w6w/control", "action": "foreach"},
                "with": {"items": [1, 2], "body": [{"id": "b", **STEP, "with": {
                    "x": {"$": "foreach.item"}}}]},
            }
        ],
    },
    "scenario": {},
    "schedule": [],
}  # fmt: skip


def test_a_control_step_exercises_what_its_sub_block_run_cited():
    # Session 26: the sub-block's clauses were never counted, so a campaign listed
    # W6W-ROOT-6 (foreach.item) and the meta clauses as never reached.
    prepared = W6W.prepare(FOREACH, None)
    run = execute(prepared.semantics)
    verdict = check(prepared.semantics, W6W.key, run.trace)
    assert verdict.permitted and "W6W-ROOT-6" in verdict.exercised
    # What allows the control's step is still its own rule: a divergence cites that alone.
    (ended,) = [t for t in run.steps if t.event["event"] == "step_succeeded"]
    assert "W6W-ROOT-6" not in ended.clauses and "W6W-ROOT-6" in ended.nested


def test_a_divergent_trace_exercises_only_what_came_before_the_divergence():
    prepared = W6W.prepare(CASE, None)
    run = execute(prepared.semantics)
    failed = next(i for i, e in enumerate(run.trace) if e["event"] == "step_failed")
    cut = [*run.trace[:failed], {**run.trace[failed], "routing": "fail"}]
    verdict = check(prepared.semantics, W6W.key, cut)
    assert not verdict.permitted and verdict.divergence.index == failed
    before = {c for step in run.steps[:failed] for c in step.clauses}
    assert verdict.exercised == before
    assert "W6W-FIELD-13" not in verdict.exercised  # the step_failed rule was not matched


@pytest.mark.parametrize("spec", sorted(CATALOGUES))
def test_the_run_rules_of_every_specification_are_sources_that_cite_its_clauses(spec):
    # A renamed or moved rule module would leave the denominator silently empty.
    names = {name for name, _ in package_sources()}
    assert set(RUN_RULES[spec]) <= names
    cited = run_clauses(spec)
    assert cited and cited <= set(catalogue_ids(spec))


def test_a_tally_counts_runs_not_transitions_and_keeps_assumptions_apart():
    tally = Tally()
    tally.add(["W6W-FIELD-13", "W6W-FIELD-13", "A-41"])
    tally.add(["W6W-FIELD-13"])
    coverage = tally.freeze("w6w")
    assert coverage.runs == 2
    assert coverage.exercised() == [("W6W-FIELD-13", 2)]
    assert coverage.assumptions() == [("A-41", 1)]
    assert "W6W-FIELD-13" not in coverage.never_reached()
    assert set(coverage.never_reached()) == run_clauses("w6w") - {"W6W-FIELD-13"}


@pytest.mark.parametrize("spec", ["w6w", "harness", "workfile"])
def test_a_campaign_reports_what_its_runs_exercised_and_what_they_never_reached(spec):
    engine = example_engine(spec)
    try:
        result = campaign(SPECIFICATIONS[spec], engine, examples=40, seed_value=3)
    finally:
        engine.stop()
    coverage = result.coverage
    assert result.finding is None and coverage is not None
    assert coverage.runs == result.examples
    exercised = dict(coverage.exercised())
    assert exercised and all(0 < n <= coverage.runs for n in exercised.values())
    never = set(coverage.never_reached())
    assert never <= run_clauses(spec) and not never & set(exercised)
    # Every catalogue clause a run exercised is one the run rules cite in code: the
    # denominator holds what transitions cite, whatever a docstring says.
    assert set(exercised) & set(catalogue_ids(spec)) <= run_clauses(spec)


def test_a_clause_only_a_docstring_or_a_comment_names_is_not_cited_in_code():
    # Session 26: 28 of Workfile's never-reached ids were named in docstrings only.
    source = (
        '"""Module: WF-CANCEL-1."""\n'
        "RULES = {'r': ('WF-CANCEL-4',)}  # WF-CANCEL-3\n"
        "def rule():\n"
        '    """WF-CANCEL-6: explained here."""\n'
        '    "WF-CANCEL-10 as a comment"\n'
        "    return f'failed ({\"WF-CANCEL-12\"})'\n"
    )
    cited = {m.group(0) for text in code_strings(source) for m in CLAUSE_ID.finditer(text)}
    assert cited == {"WF-CANCEL-4", "WF-CANCEL-12"}


def test_every_clause_a_workfile_rule_cites_is_a_run_clause():
    from wforacle.model.workfile.run import RULES

    cited = {c for clauses in RULES.values() for c in clauses if not c.startswith("A-")}
    assert cited <= run_clauses("workfile")


def test_fuzz_json_and_text_carry_the_coverage(capsys):
    engine = f"{sys.executable} {ENGINES / 'w6w_engine.py'}"
    assert main(["fuzz", "--engine", engine, "--examples", "20", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)["coverage"]
    assert report["runs"] == 20 and report["exercised"]
    assert report["exercisedRunClauses"] + len(report["neverReached"]) == report["runClauses"]
    assert main(["fuzz", "--engine", engine, "--examples", "20"]) == 0
    printed = capsys.readouterr().out
    assert "clauses (docs/coverage.md): 20 runs exercised" in printed
