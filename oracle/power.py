"""Campaign power: how many generated examples a campaign needs to find a seeded bug.

A test that says "the campaign finds bug X" must hold for every Hypothesis
release the pyproject admits, so it is stated over several seeds with a
measured budget (issue 10), not over one random stream.  ``examples_to_find``
runs the generation phase of a campaign against a bundled example engine with
one seeded bug and returns the number of examples judged up to and including
the first divergence; shrinking is left out because it is not part of
finding.  ``benchmarks/bench_power.py`` prints the figures; tests/test_power.py
holds the budgets.  ``find_and_shrink`` is the other figure the campaign
benchmarks print: the seconds to find and to shrink a bug, and what is left.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, assume, given, seed, settings
from hypothesis import strategies as st

from wforacle.model.diagnostics import InvalidCase
from wforacle.oracle.engine import Engine, Judgement, judge
from wforacle.oracle.fuzz import campaign
from wforacle.properties.registry import SPECIFICATIONS
from wforacle.properties.strategies.hermetic import hermetic

JSON = Any

ENGINES = Path(__file__).resolve().parents[1] / "examples" / "engines"

# The seeded bugs of each bundled engine (each engine's --bug choices), by specification.
BUGS: dict[str, tuple[str, ...]] = {
    "w6w": (
        "no-skip",
        "meta-from-output",
        "error-edge-ignored",
        "retry-auth",
        "uncapped-backoff",
        "record-drops",
        "last-output-by-time",
        "first-failure-by-time",
        "replay-reinvokes",
        "resume-from-start",
        # The expression layer (issue 18, part 2), each with the clause it breaks:
        "template-partial-root",  # W6W-ROOT-2: a mixed string passes through whole
        "secret-generic-root",  # W6W-ENV-18: secrets are not on the generic data root
        "template-untyped",  # W6W-ROOT-9: a template string resolves to one string
        "render-two-pass",  # W6W-ENV-12: a render part renders in one pass
        "chain-first-only",  # W6W-CHAIN-1 / W6W-CHAIN-2: a chain falls back left to right
        # The canonical controls over the protocol (issue 18, part 2):
        "control-retried",  # W6W-EDGE-8: a control runs no retry loop
        "foreach-shared-callback",  # W6W-META-19: iterations never share a callback
        "block-meta-unpublished",  # W6W-META-20: a block step publishes meta in its scope
        "foreach-root-unknown",  # W6W-ROOT-25: foreach is one of the eight roots
        "block-failure-ignored",  # W6W-EDGE-10: a block's failure is its control's
        "parallel-no-drain",  # W6W-FAN-9: a failing branch drains the block (A-160's order)
        "nested-block-root-scope",  # W6W-ROOT-6 / A-54: a nested block reads its enclosing one
        # The run-level handler over the protocol (Amendment 2026-08-21; issue 18, part 2):
        "run-retry-no-wait",  # W6W-RUNERR-2: "with the same backoff Step.retry uses"
        "continue-no-step-error",  # W6W-RUNERR-5: the failure is appended to stepErrors
        # The host's abort signal over the protocol (docs/engine-protocol.md, "Abort"):
        "abort-ignored",  # W6W-HOST-3: "polls between steps and aborts cleanly on signal"
    ),
    "harness": (
        # "all-negative-skipped" is A-61's other reading (the earlier draft), not a bug.
        "no-unreachability",
        "cancel-non-idempotent",
        "null-for-unavailable",
        "resources-after-invoke",
        "guard-inverted-null",
        "condition-control-only",
        "quorum-counts-negative",
        "retry-success-attempts",
        "compensation-forward-order",
        "entry-and-roots",
        "value-over-edge",
        "cancel-silently",  # HX-CANCEL-1 / HX-FAIL-3: a cancellation is not reported
        "loop-last-failure",  # HX-SCHED-2: a failed iteration does not end its loop
    ),
    "workfile": (
        "retry-fatal",
        "server-delay-uncapped",
        "exponential-from-zero",
        "reissue-without-idempotency",
        "abort-caught",
        "catch-declaration-order",
        "catch-own-fault",
        "fail-fast-unstarted-cancelled",
        "stop-enclosing-cancelled",
        "late-result-binds",
        "cancel-one-more-attempt",
        "failed-ref-faults",
        "outputs-on-cancel",
        "dry-suppress-delegated",
        "dry-dispatch-suppressed",
        "no-manifest-read",  # an action without a manifest runs as a read
        "dry-evaluate-affected",
        "dry-short-circuit",
        "dry-computed-index-narrow",
        "dry-literal-sibling",
        "dry-skipped-suppresses",
        "dry-nested-suppresses-construct",
        "dry-outputs-all-null",
        "call-abort-caught",
        "call-error-child-step",
        "call-suppression-lost",
        "call-cancel-not-propagated",
        "child-cancel-as-cancelled",
        "timeout-write-retryable",
        "timeout-late-binds",
        "expire-not-cancelled",
        "call-input-fault-caught",
        "filter-binds-loose",  # a filter binds tighter than arithmetic
        "render-marker-typed",  # a render writes a whole marker as template text
        "guard-fault-skips",  # WF-STEP-7: a guard that faults fails its step
        "eager-and-or",  # and/or short-circuit
    ),
}


# The seeded bugs a fixture profile's cases reach (``fuzz --profile``), by profile.
PROFILE_BUGS: dict[str, tuple[str, tuple[str, ...]]] = {
    # profile: (its specification, the bugs of that specification's bundled engine)
    "w6w-wait": ("w6w", ("wait-no-drain",)),
    "w6w-reroute": ("w6w", ("reroute-failure-continued",)),
    # W6W-EDGE-8 (a call runs no retry loop); W6W-RUNERR-3's "call-depth-bounded seam" (A-56);
    # W6W-FIELD-19 (a child's declared defaults); W6W-RUNERR-7 (a call starts a run).
    "w6w-call": (
        "w6w",
        ("call-retried", "call-depth-unbounded", "call-defaults-ignored", "call-memoized"),
    ),
    # W6W-EXPR-2 with A-20: evaluator bugs neither reading of @w6w/expr permits.
    "w6w-jsonlogic": ("w6w", ("missing-only-absent", "plus-concatenates")),
    "workfile-stateful": (
        "workfile",
        (
            "timeout-wins-tie",
            "early-event-delivered",
            "event-interrupts-steps",
            "event-delivered-twice",
            "into-partial-bind",
            "prior-entry-binding",
            "overlap-map-order",
            "timer-from-entry",
            "reentry-same-position",
            "match-before-on-enter",
            "config-fault-ignored",
            "final-outputs-root-scope",
            "accepts-defaults-skipped",
            "dry-stop-ignored",
            "match-ignored",
            # "absent-field-null" is A-153's other reading, not a bug (docs/readings.md).
        ),
    ),
}


class _Found(Exception):
    pass


class _Exhausted(Exception):
    pass


# The length of the stream every search draws from, whatever its budget.
STREAM = 100_000


def example_engine(spec: str, *bugs: str, max_messages: int = 100_000) -> Engine:
    """The bundled example engine of a specification, with seeded bugs switched on.

    ``max_messages``: a seeded bug may loop forever (a state-form event delivered
    again and again); a campaign of small cases can call the flood early.
    """
    path = ENGINES / SPECIFICATIONS[spec].example_engine
    command = f"{sys.executable} {path}" + "".join(f" --bug {b}" for b in bugs)
    return Engine(command, max_messages=max_messages)


def find_and_shrink(
    spec: str, bug: str, seeds: int, examples: int, profile: str | None = None
) -> str:
    """A benchmark row: seeds that found ``bug``, median seconds to find and to shrink, sizes.

    Each seed runs a whole campaign (search, shrink, reduction) against the
    bundled example engine with the bug, over the cases of ``profile`` when
    given (``fuzz --profile``; its engine calls a flood early); a size is the
    shrunk case's ``spec.size`` values joined by ``/`` (w6w: steps/edges).
    """
    finds: list[float] = []
    shrinks: list[float] = []
    sizes: list[str] = []
    specification = SPECIFICATIONS[spec]
    for seed_value in range(seeds):
        cases = None if profile is None else specification.suites[profile]()
        engine = example_engine(spec, bug, max_messages=100_000 if profile is None else 5_000)
        try:
            result = campaign(
                specification, engine, examples=examples, seed_value=seed_value, cases=cases
            )
        finally:
            engine.stop()
        if result.finding is None:
            continue
        finds.append(result.finding.seconds_to_find)
        shrinks.append(result.finding.seconds_to_shrink)
        sizes.append("/".join(str(v) for v in result.finding.size.values()))
    find = f"{statistics.median(finds):8.2f}" if finds else "       -"
    shrink = f"{statistics.median(shrinks):9.2f}" if shrinks else "        -"
    return f"{bug:<30} {len(finds):>3}/{seeds:<2} {find} {shrink}  {' '.join(sizes)}"


def _search(name: str) -> tuple[st.SearchStrategy[JSON], Callable[[Engine, JSON], Judgement]]:
    """The campaign's cases of a specification, and a judge that skips those it cannot run."""
    spec = SPECIFICATIONS[name]

    def judge_valid(engine: Engine, case: JSON) -> Judgement:
        try:
            prepared = spec.prepare(case, None)
        except InvalidCase:
            assume(False)
        return judge(engine, spec, case, prepared)

    return spec.cases(), judge_valid


def examples_to_find(spec: str, bug: str, seed_value: int, budget: int) -> int | None:
    """Examples judged until the first divergence against the seeded engine; None past the budget.

    Engine faults are not findings here: the correct engine raises none, so a
    fault would mean the seeded bug broke the protocol, which a campaign
    reports separately.  A divergence counts only when the correct engine
    passes the same case; otherwise ``FalseAlarm`` is raised, since the model
    and the correct engine disagree and the figure would measure nothing.
    """
    cases, judge = _search(spec)
    engine = example_engine(spec, bug)
    correct = example_engine(spec)
    counted = [0]

    # Hypothesis shapes its stream by max_examples, so a search with a budget of
    # 250 is not the first 250 examples of one with 2000: the budget is counted
    # here instead, over a stream that does not depend on it.
    @seed(seed_value)
    @settings(
        max_examples=STREAM,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        print_blob=False,
        report_multiple_bugs=False,
    )
    @given(cases)
    def probe(case: JSON) -> None:
        if counted[0] == budget:
            raise _Exhausted
        counted[0] += 1
        if judge(engine, case).verdict == "divergence":
            # Found only if the bug is what diverges: the correct engine passes the case.
            verdict = judge(correct, case)
            if verdict.verdict != "pass":
                raise FalseAlarm(case, verdict)
            raise _Found

    try:
        with hermetic():
            probe()
    except _Found:
        return counted[0]
    except _Exhausted:
        return None
    finally:
        engine.stop()
        correct.stop()
    return None


class FalseAlarm(Exception):
    """The correct example engine fails a case: the model and that engine disagree."""

    def __init__(self, case: JSON, judgement: Judgement) -> None:
        super().__init__(f"the correct engine gets {judgement.verdict} on {case}: {judgement}")
