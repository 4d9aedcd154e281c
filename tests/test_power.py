"""Campaign power: every seeded bug of the bundled engines is found at every seed tried.

A statement about power, not about one random stream (issue 10): each bug is
found at each of ``SEEDS`` within its budget, whatever Hypothesis release the
pyproject admits.  The budgets come from ``python benchmarks/bench_power.py
--seeds 8`` run under the lowest, a middle and the newest admitted
Hypothesis (figures in docs/power.md); a generator change that makes a bug's
shape rare fails here, not in a user's campaign.  The slow marker runs the
same statement over eight seeds.
"""

from __future__ import annotations

import pytest

from wforacle.oracle.power import BUGS, examples_to_find

SEEDS = (0, 1, 2)
SLOW_SEEDS = tuple(range(8))

# Session 27 (issue 16: fewer choices a case) re-measured every w6w bug at seeds 0-7
# under 6.170.27 and 6.155.2 (docs/power.md "Fewer choices a case") and raised five
# budgets to the rule below; none was lowered.
# Examples within which each bug must be found: the larger of twenty times the
# largest median and four times the worst of eight seeds, over the three
# Hypothesis releases measured (docs/power.md).  Were finding geometric with
# the median's rate, twenty medians leave a miss chance of 2**-20 per seed;
# the tail term covers shapes rarer than the median says.  A budget costs
# nothing when the bug is found early, so it may be generous.
BUDGETS: dict[tuple[str, str], int] = {
    ("w6w", "no-skip"): 1800,
    ("w6w", "meta-from-output"): 1200,
    # Session 14 (aborts at the handler's checkpoint drawn, A-164; seeds 0-7 under both
    # releases): error-edge-ignored median 258 (6.155.2), chain-first-only worst 1803,
    # block-meta-unpublished worst 501, parallel-no-drain worst 1314 (6.170.17).
    ("w6w", "error-edge-ignored"): 5200,
    ("w6w", "retry-auth"): 5800,
    ("w6w", "uncapped-backoff"): 9900,
    ("w6w", "record-drops"): 900,
    # Raised when the generator began drawing refused and unrooted chains, bare secret
    # markers and the run-level handler (session 12: medians 202 and 292 over seeds 0-7,
    # twenty of them).
    ("w6w", "last-output-by-time"): 4100,
    ("w6w", "first-failure-by-time"): 7200,
    ("w6w", "replay-reinvokes"): 1100,
    ("w6w", "resume-from-start"): 1200,
    # The expression layer: medians 13, 48, 6, 6, 43 and worst 50, 87, 8, 8, 191 over
    # seeds 0..4 (docs/power.md); twenty medians, rounded up.
    ("w6w", "template-partial-root"): 1800,
    ("w6w", "secret-generic-root"): 3800,  # session 12: median 190 (twenty of them)
    ("w6w", "template-untyped"): 700,
    ("w6w", "render-two-pass"): 1500,  # session 19: worst 360 under 6.155.2 (four of them)
    ("w6w", "chain-first-only"): 7300,
    # The canonical controls (issue 18): every w6w bug re-measured with the control shape
    # in the catalogue (a fifth of the cases), seeds 0-4, under Hypothesis 6.170.17 and
    # 6.155.2 (CI's), docs/power.md; each budget the largest of the old one and each
    # release's twenty medians and four worsts (several older bugs became rarer; none
    # was lowered).
    ("w6w", "control-retried"): 2900,
    ("w6w", "foreach-shared-callback"): 12100,  # session 19: median 604 under 6.155.2
    ("w6w", "block-meta-unpublished"): 2600,  # session 19: median 116 under 6.155.2
    ("w6w", "foreach-root-unknown"): 13000,
    ("w6w", "block-failure-ignored"): 1200,
    ("w6w", "parallel-no-drain"): 5300,
    # Session 19: a control nested in a block (the control shape, three cases in five);
    # seeds 0-7: median 254, worst 1606 (6.170.17), median 140, worst 440 (6.155.2).
    ("w6w", "nested-block-root-scope"): 6500,
    # The run-level handler (session 12): medians 56 and 12, worsts 201 and 114 over seeds
    # 0-7 (docs/power.md).
    ("w6w", "run-retry-no-wait"): 2500,
    ("w6w", "continue-no-step-error"): 1600,
    # Session 13: the campaigns draw the abort signal and a second crash; every w6w bug
    # re-measured at seeds 0-7 under Hypothesis 6.170.17 and 6.155.2 (docs/power.md),
    # six budgets raised to the larger release's twenty medians or four worsts.
    ("w6w", "abort-ignored"): 700,  # session 19: median 34 (6.170.17)
    # Re-measured with loops in the catalogue and the stricter judge (cancellation events,
    # invoke inputs compared): seeds 0-7, Hypothesis 6.170.17, docs/power.md.  A budget the
    # measurement showed too small was raised (no-unreachability 500, cancel-non-idempotent
    # 3200, null-for-unavailable 1500, condition-control-only 2100, quorum-counts-negative 900,
    # compensation-forward-order 800, value-over-edge 2100); none was lowered.
    ("harness", "no-unreachability"): 900,
    # Session 14 (body guards on params.index, seeds 0-7 under 6.170.17 and 6.155.2):
    # cancel-non-idempotent median 311, compensation-forward-order median 112 and
    # loop-last-failure median 898 under 6.155.2, twenty of each; none lowered.
    ("harness", "cancel-non-idempotent"): 6300,
    ("harness", "null-for-unavailable"): 1700,
    # Issue 18's newly generated areas (seeds 0-7, Hypothesis 6.170.17, docs/power.md).
    ("harness", "resources-after-invoke"): 700,
    ("harness", "guard-inverted-null"): 200,
    ("harness", "condition-control-only"): 2700,
    ("harness", "quorum-counts-negative"): 1800,  # session 12: median 90
    ("harness", "retry-success-attempts"): 1000,
    ("harness", "compensation-forward-order"): 2300,  # session 12: median 82
    ("harness", "entry-and-roots"): 100,
    ("harness", "value-over-edge"): 2500,  # session 12: worst 604
    # A cancellation not reported (median 43, worst 73) and the loop bug (median 354,
    # worst 2983: four worsts).
    ("harness", "cancel-silently"): 900,
    ("harness", "loop-last-failure"): 18000,  # session 12: median 678
    ("workfile", "retry-fatal"): 3100,
    ("workfile", "server-delay-uncapped"): 6100,
    ("workfile", "exponential-from-zero"): 6400,
    ("workfile", "reissue-without-idempotency"): 4800,
    ("workfile", "abort-caught"): 4400,
    ("workfile", "catch-declaration-order"): 2500,
    ("workfile", "catch-own-fault"): 3000,
    ("workfile", "fail-fast-unstarted-cancelled"): 4800,
    ("workfile", "stop-enclosing-cancelled"): 1400,
    ("workfile", "late-result-binds"): 200,
    ("workfile", "cancel-one-more-attempt"): 200,
    ("workfile", "failed-ref-faults"): 800,
    ("workfile", "outputs-on-cancel"): 200,
    ("workfile", "dry-suppress-delegated"): 3300,
    ("workfile", "dry-dispatch-suppressed"): 100,
    # Session 24: cases without manifests (one in eight); seeds 0-7 under 6.170.27, median 54,
    # worst 206.
    ("workfile", "no-manifest-read"): 1100,
    ("workfile", "dry-evaluate-affected"): 5500,
    ("workfile", "dry-short-circuit"): 9100,
    ("workfile", "dry-computed-index-narrow"): 10100,
    ("workfile", "dry-literal-sibling"): 9700,
    ("workfile", "dry-skipped-suppresses"): 2500,
    ("workfile", "dry-nested-suppresses-construct"): 800,
    ("workfile", "dry-outputs-all-null"): 4300,
    ("workfile", "call-abort-caught"): 12700,
    ("workfile", "call-error-child-step"): 4400,
    ("workfile", "call-suppression-lost"): 10200,
    ("workfile", "call-cancel-not-propagated"): 4300,
    ("workfile", "child-cancel-as-cancelled"): 7600,
    ("workfile", "timeout-write-retryable"): 2000,
    ("workfile", "timeout-late-binds"): 900,
    ("workfile", "expire-not-cancelled"): 2000,
    ("workfile", "call-input-fault-caught"): 9400,
    # The expression probes (session 20): examples-to-find varied three-fold between
    # versions of the probe generator that drew the same expressions as often (noise of a
    # rare event over eight seeds); the budgets are twenty medians of the worse release.
    ("workfile", "filter-binds-loose"): 16800,
    ("workfile", "render-marker-typed"): 24000,  # session 21: worst 5990 (6.155.2)
    # Session 21: guards drawn over the probes' expressions (median 48, worst 414 of
    # seeds 0-7 under 6.170.27 and 6.155.2 alike).
    ("workfile", "guard-fault-skips"): 1700,
    # Session 21: and/or whose right operand is of another kind (median 1520, worst 2222).
    ("workfile", "eager-and-or"): 30400,
}

CASES = [(spec, bug) for spec, bugs in BUGS.items() for bug in bugs]
# Workfile's 33 bugs at three seeds would take several minutes of the default
# run: there, seed 0 is tests/workfile/test_oracle.py's (each bug found within
# 3000 examples, shrunk and explained), and the slow marker runs all eight here.
# Harness bugs whose three seeds take over ten seconds on the shared 2-core machine
# run at eight seeds under the slow marker only (each is found at seed 0 with its
# clause cited first by tests/harness/test_harness_oracle.py, or under -m slow there).
SLOW_POWER = {
    ("harness", "value-over-edge"),
    ("harness", "retry-success-attempts"),
    ("harness", "quorum-counts-negative"),
    ("harness", "compensation-forward-order"),
    ("harness", "loop-last-failure"),  # seeds 0-2 took 2983, 18 and 660 examples
    # Control bugs whose three seeds take hundreds of examples each (under 6.155.2:
    # 371/486/737, 374/938/648, 25/474/259); each is found at the first of seeds 0-2
    # that finds it, shrunk and cited by tests/oracle/test_engine.py's control test.
    ("w6w", "foreach-shared-callback"),
    ("w6w", "foreach-root-unknown"),
    ("w6w", "parallel-no-drain"),
}
DEFAULT_CASES = [
    (spec, bug) for spec, bug in CASES if spec != "workfile" and (spec, bug) not in SLOW_POWER
]


def test_every_seeded_bug_has_a_budget():
    assert sorted(BUDGETS) == sorted(CASES)


@pytest.mark.parametrize(("spec", "bug"), DEFAULT_CASES)
def test_each_seeded_bug_is_found_at_every_seed_within_its_budget(spec, bug):
    budget = BUDGETS[spec, bug]
    counts = {s: examples_to_find(spec, bug, s, budget) for s in SEEDS}
    missed = [s for s, count in counts.items() if count is None]
    assert not missed, f"{spec} {bug}: not found within {budget} examples at seeds {missed}"


@pytest.mark.slow
@pytest.mark.parametrize(("spec", "bug"), CASES)
def test_each_seeded_bug_is_found_at_eight_seeds(spec, bug):
    budget = BUDGETS[spec, bug]
    missed = [s for s in SLOW_SEEDS if examples_to_find(spec, bug, s, budget) is None]
    assert not missed, f"{spec} {bug}: not found within {budget} examples at seeds {missed}"


@pytest.mark.parametrize("spec", ["w6w", "harness"])
def test_every_shape_of_the_catalogue_yields_valid_cases(spec):
    # A shape that produced invalid documents would be filtered out of every campaign
    # (assume), silently taking its clause family with it.
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    if spec == "w6w":
        from wforacle.properties.strategies.w6w import W6W_SHAPES as shapes
        from wforacle.properties.w6w.specification import prepare

        def valid(shape):
            document, scenario, _ = shape
            prepare({"document": document, "scenario": scenario, "schedule": []})

        strategies = [shape() for shape in shapes]
    else:
        from wforacle.properties.harness.conformance import prepare as model_of
        from wforacle.properties.strategies import harness

        @st.composite
        def built(draw, shape):
            builder = harness._Builder()
            shape(draw, builder)
            return builder.case(draw)

        strategies = [built(shape) for shape in harness.SHAPES]
        valid = model_of
    for strategy in strategies:

        @settings(max_examples=15, database=None, suppress_health_check=list(HealthCheck))
        @given(strategy)
        def each(case):
            valid(case)  # raises ValueError when the case is invalid

        each()
