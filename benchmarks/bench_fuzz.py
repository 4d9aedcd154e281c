"""Campaign figures against the bundled example engine (examples/engines/w6w_engine.py).

Run:  python benchmarks/bench_fuzz.py [--seeds 3] [--examples 4000] [--bugs NAME ...]
      python benchmarks/bench_fuzz.py --throughput 2000 [--workers 2]

Per seeded bug: the median over --seeds seeds of the seconds to find it and
to shrink it, and the size (steps, edges) of each shrunk document.

With --throughput N: issue 16's goal (>= 300 examples/s end to end against
the bundled persistent engine).  First the campaign in this process (one
engine process, round trips included), then ``wforacle fuzz --examples N``
as a user runs it — the whole command, start-up, engine start and the
report included — with one worker and with --workers W (seeded shards in
W processes, docs/cluster.md), side by side.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from wforacle.oracle.fuzz import campaign
from wforacle.oracle.power import BUGS as SEEDED
from wforacle.oracle.power import ENGINES, example_engine, find_and_shrink
from wforacle.properties.registry import SPECIFICATIONS
from wforacle.properties.w6w.specification import W6W

BUGS = list(SEEDED["w6w"])  # the example engine's seeded bugs (oracle/power.py)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--examples", type=int, default=4000)
    parser.add_argument("--bugs", nargs="*", default=BUGS)
    parser.add_argument("--throughput", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if args.throughput:
        throughput(args.throughput, args.workers)
        return
    print(f"{'bug':<30} {'found':>6} {'find s':>8} {'shrink s':>9}  sizes (steps/edges)")
    for bug in args.bugs:
        print(find_and_shrink("w6w", bug, args.seeds, args.examples), flush=True)


def throughput(examples: int, workers: int) -> None:
    """Examples per second against the correct engine: in process, then the command."""
    engine = example_engine("w6w")
    try:
        result = campaign(W6W, engine, examples=examples, seed_value=0)
    finally:
        engine.stop()
    print(
        f"{'campaign in this process':<34} {result.examples:>6} examples {result.seconds:>7.2f} s "
        f"{result.examples / result.seconds:>6.0f} examples/s"
    )
    engine_command = f"{sys.executable} {ENGINES / SPECIFICATIONS['w6w'].example_engine}"
    for n in sorted({1, workers}):
        command = [sys.executable, "-c", "from wforacle.oracle.cli import run; run()", "fuzz"]
        command += ["--engine", engine_command, "--examples", str(examples), "--json"]
        command += ["--workers", str(n)]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        report = json.loads(done.stdout)
        assert done.returncode == 0, done.stderr  # the correct engine: no finding
        label = f"wforacle fuzz --workers {n}"
        print(
            f"{label:<34} {report['examples']:>6} examples {wall:>7.2f} s "
            f"{report['examples'] / wall:>6.0f} examples/s (whole command, wall)"
        )
    print("goal >= 300 examples/s end to end")


if __name__ == "__main__":
    main()
