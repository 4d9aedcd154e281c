"""Campaign power: per seeded bug of the bundled engines, the examples to find it at each seed.

Run:  python benchmarks/bench_power.py [--spec w6w|harness|workfile|all] [--seeds 8]
                                       [--examples 1500] [--bugs NAME ...]

A campaign's claim "finds bug X" is a statement about power, not about one
random stream (issue 10).  For each seeded bug and each seed 0..N-1 this runs
a campaign (generation only: shrinking is not part of finding) and prints the
examples it took to reach the first divergence, or "miss" when the budget ran
out; then the found rate, the median and the worst.  The per-bug budgets of
the tests (tests/test_power.py) are set from these figures with a margin.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from wforacle.oracle.power import BUGS, examples_to_find


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--spec", choices=[*BUGS, "all"], default="all")
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--examples", type=int, default=1500)
    parser.add_argument("--bugs", nargs="*", default=None)
    args = parser.parse_args()
    specs = list(BUGS) if args.spec == "all" else [args.spec]
    print(f"{'spec':8} {'bug':26} {'found':>6} {'median':>7} {'worst':>6} {'s':>6}  per seed")
    for spec in specs:
        for bug in args.bugs or BUGS[spec]:
            started = time.perf_counter()
            counts = [examples_to_find(spec, bug, s, args.examples) for s in range(args.seeds)]
            found = [c for c in counts if c is not None]
            median = statistics.median(found) if found else float("nan")
            worst = max(found) if len(found) == len(counts) else "miss"
            per_seed = " ".join("miss" if c is None else str(c) for c in counts)
            print(
                f"{spec:8} {bug:26} {len(found):>3}/{len(counts):<2} {median:>7.0f} {worst!s:>6} "
                f"{time.perf_counter() - started:>6.1f}  {per_seed}",
                flush=True,
            )


if __name__ == "__main__":
    sys.exit(main())
