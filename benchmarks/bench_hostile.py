"""Run the hostile-input corpus (issue 19) and print the count of cases in each class.

Run:  python benchmarks/bench_hostile.py [--seed 0] [--jobs 2] [--only PATTERN ...]
                                         [--sample N] [--json FILE]
      python benchmarks/bench_hostile.py --materialize CASE_ID DIR   # one case's files

The corpus (tests/hostile/corpus.py) is generated from the seed: every
command of ``wforacle`` on malformed documents, scenarios, traces, fixture
folders, JSON Logic lines and command lines, and every fault of
examples/engines/misbehaving_engine.py.  Each case runs the real command
line in a subprocess with a timeout and is classified (tests/hostile/
runner.py): internal error, hang, invalid output, wrong success, wrong
failure, engine left running, or ok.  The figures: cases per class, per
command, the slowest cases, and every case in a bad class with its command
line, input, exit code and the tail of its stderr.  A figure, not a test:
tests/hostile/test_hostile.py asserts that every bad class is empty.
"""

from __future__ import annotations

import argparse
import collections
import fnmatch
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.hostile.corpus import corpus, materialize, sample, show_command
from tests.hostile.runner import BAD, CLASSES, Outcome, counts, run_all


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
    parser.add_argument(
        "--only",
        nargs="*",
        default=[],
        metavar="PATTERN",
        help="run only the cases whose id matches a glob (engine/*, args/fuzz-*)",
    )
    parser.add_argument("--sample", type=int, default=0, help="run the fast sample of N cases")
    parser.add_argument("--json", metavar="FILE", help="also write every outcome as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress line per case")
    parser.add_argument(
        "--materialize",
        nargs=2,
        metavar=("CASE_ID", "DIR"),
        help="write one case's inputs into DIR and print its command line",
    )
    args = parser.parse_args()

    if args.materialize:
        case_id, folder = args.materialize
        case, invocation = materialize(case_id, Path(folder), args.seed)
        print(f"# {case.summary} (expect: {case.expect})")
        print(
            f"cd {folder} && {show_command(invocation.args)}"
            + (" < stdin.bin" if invocation.stdin is not None else "")
        )
        if invocation.stdin is not None:
            (Path(folder) / "stdin.bin").write_bytes(invocation.stdin)
        return 0

    started = time.monotonic()
    cases = corpus(args.seed)
    generated = time.monotonic() - started
    if args.sample:
        cases = sample(cases, args.sample)
    if args.only:
        cases = [c for c in cases if any(fnmatch.fnmatch(c.id, p) for p in args.only)]
    print(
        f"{len(cases)} cases (seed {args.seed}, generated in {generated:.1f} s), "
        f"{args.jobs} at a time",
        flush=True,
    )

    done = 0

    def progress(outcome: Outcome) -> None:
        nonlocal done
        done += 1
        if not args.quiet and (outcome.klass != "ok" or done % 50 == 0):
            print(
                f"  [{done}/{len(cases)}] {outcome.klass:<20} {outcome.case.id} "
                f"({outcome.seconds:.1f} s)",
                flush=True,
            )

    outcomes = run_all(cases, jobs=args.jobs, progress=progress)
    seconds = time.monotonic() - started
    report(outcomes, seconds)
    if args.json:
        Path(args.json).write_text(json.dumps([o.to_json() for o in outcomes], indent=1))
    return 0


def report(outcomes: list[Outcome], seconds: float) -> None:
    found = counts(outcomes)
    print(f"\n{len(outcomes)} cases in {seconds:.0f} s")
    print("\ncases per class:")
    for klass in CLASSES:
        print(f"  {klass:<22} {found[klass]:>6}")
    per_command: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for outcome in outcomes:
        per_command[outcome.case.command][outcome.klass] += 1
    print("\nper command (bad / all):")
    for command in sorted(per_command):
        tally = per_command[command]
        bad = sum(n for k, n in tally.items() if k != "ok")
        print(
            f"  {command:<24} {bad:>4} / {sum(tally.values()):<5} "
            + ", ".join(f"{k}: {n}" for k, n in sorted(tally.items()) if k != "ok")
        )
    slowest = sorted(outcomes, key=lambda o: -o.seconds)[:8]
    print("\nslowest cases:")
    for outcome in slowest:
        print(f"  {outcome.seconds:6.1f} s  {outcome.case.id}  ({outcome.klass})")
    failing = [o for o in outcomes if o.klass in BAD]
    if not failing:
        print("\nno case in a bad class")
        return
    print(f"\n{len(failing)} cases in a bad class:")
    for klass in BAD:
        members = [o for o in failing if o.klass == klass]
        if not members:
            continue
        print(f"\n== {klass} ({len(members)})")
        for outcome in sorted(members, key=lambda o: o.case.id):
            case = outcome.case
            print(f"\n- {case.id}  [{case.command}, {case.fmt}, expect {case.expect}]")
            print(f"  input:   {case.summary}")
            print(f"  command: {outcome.command}")
            print(f"  result:  exit {outcome.code}; {outcome.detail}")
            tail = outcome.stderr_tail.strip().splitlines()[-4:]
            if tail:
                print("  stderr:  " + "\n           ".join(line[:300] for line in tail))


if __name__ == "__main__":
    sys.exit(main())
