"""Hostile input (issue 19): every command answers every malformed input sanely.

The corpus (corpus.py, generated from a seed at test time) runs the real
``wforacle`` command line on malformed documents, scenarios, traces,
fixture folders, JSON Logic lines and command lines, and drives
examples/engines/misbehaving_engine.py through every fault it has.  A case
is bad when wforacle fails internally (exit code 3, a traceback, a signal),
hangs, prints output that is not strict JSON or not UTF-8, accepts what it
must reject (a misbehaving engine judged a pass), rejects what it must
accept, or leaves an engine running (runner.py).

The default run takes a fast sample; ``-m slow`` runs the whole corpus
(``python benchmarks/bench_hostile.py`` prints the same figures per class).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from .corpus import Case, corpus, sample
from .gen_engines import ENGINE, faults
from .runner import BAD, Outcome, counts, run_all, run_case

SEED = 0
CASES = corpus(SEED)
FAST = sample(CASES, 40)
# Cases a whole-corpus run found bad once, kept in the default run: a Harness engine's
# done whose state is no object was an internal error (KeyError) in the final-state
# comparison; it is a protocol fault (docs/engine-protocol.schema.json).
# An event whose name is a list or an object was an internal error (TypeError: the name
# looked up among the events the oracle records, session 23); it is a protocol fault.
REGRESSIONS = (
    "engine/conform-harness/done-state-string",
    "engine/fuzz-harness/done-state-list",
    "engine/selftest-harness/done-state-null",
    "engine/selftest-w6w/event-name-list",
    "engine/fuzz-w6w/event-name-object",
    "engine/fuzz-workfile-stateful/event-name-list",
)
DEFAULT = FAST + [c for c in CASES if c.id in REGRESSIONS and c not in FAST]

COMMANDS = {
    "validate",
    "plan",
    "run",
    "explore",
    "check",
    "fuzz",
    "shrink",
    "fixtures",
    "conform",
    "protocol-selftest",
    "jsonlogic eval",
    "jsonlogic suite",
    "jsonlogic differential",
    "w6w resolve",
    "w6w parse",
    "w6w test-step",
    "workfile refs",
    "clauses",
}
FORMATS = {
    "w6w-json",
    "w6w-scenario",
    "w6w-trace",
    "harness-xml",
    "harness-scenario",
    "harness-trace",
    "workfile-yaml",
    "workfile-state-yaml",
    "workfile-scenario",
    "workfile-trace",
    "fixture-folder",
    "json-lines",
    "jsonlogic-suite",
    "argument",
    "engine",
    "manifest-folder",
    "workflow-folder",
    "test-folder",
}


def describe(outcome: Outcome) -> str:
    case = outcome.case
    return (
        f"{case.id} ({case.command}, {case.fmt}): {outcome.klass} — {outcome.detail}\n"
        f"  input:   {case.summary} (expect {case.expect})\n"
        f"  command: {outcome.command}\n"
        f"  exit:    {outcome.code}\n"
        f"  stderr:  {outcome.stderr_tail[-400:]}"
    )


@pytest.mark.parametrize("case", DEFAULT, ids=[c.id for c in DEFAULT])
def test_a_hostile_input_gets_a_sane_answer(case: Case, tmp_path) -> None:
    outcome = run_case(case, tmp_path)
    assert outcome.klass == "ok", describe(outcome)


def test_the_corpus_covers_every_command_every_format_and_every_engine_fault() -> None:
    assert len(CASES) >= 1000
    assert {c.command for c in CASES} >= COMMANDS
    assert {c.fmt for c in CASES} >= FORMATS
    struck = {c.id.rsplit("/", 1)[1] for c in CASES if c.fmt == "engine"}
    assert set(faults()) <= struck
    # the seed decides the corpus: the same seed, the same cases
    again = corpus(SEED)
    assert [(c.id, c.summary, c.expect) for c in again] == [
        (c.id, c.summary, c.expect) for c in CASES
    ]


def test_every_regression_is_a_case_of_the_corpus() -> None:
    assert {c.id for c in CASES} >= set(REGRESSIONS)


def test_the_fast_sample_spreads_over_commands() -> None:
    assert 30 <= len(FAST) <= 40
    assert len({c.command for c in FAST}) >= 15


def test_the_misbehaving_engine_lists_a_verdict_for_each_fault() -> None:
    listed = subprocess.run(
        [sys.executable, str(ENGINE), "--list"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    verdicts = {line.split("\t")[1] for line in listed}
    assert verdicts <= {"pass", "fail", "any"}
    assert len(listed) >= 90


@pytest.mark.slow
def test_no_case_of_the_whole_corpus_is_in_a_bad_class() -> None:
    outcomes = run_all(CASES, jobs=2)
    found = counts(outcomes)
    failing = [o for o in outcomes if o.klass in BAD]
    report = "\n".join(describe(o) for o in failing[:60])
    assert {k: found[k] for k in BAD} == dict.fromkeys(BAD, 0), (
        f"{len(failing)} bad cases: {found}\n{report}"
    )
