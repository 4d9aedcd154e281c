"""Campaign figures against the bundled example engine (examples/engines/w6w_engine.py).

Run:  python benchmarks/bench_fuzz.py [--seeds 3] [--examples 4000] [--bugs NAME ...]
      python benchmarks/bench_fuzz.py --throughput 2000 [--workers 2] [--throughput-seeds 4]

Per seeded bug: the median over --seeds seeds of the seconds to find it and
to shrink it, and the size (steps, edges) of each shrunk document.

With --throughput N: issue 16's goal (>= 300 examples/s end to end against
the bundled persistent engine).  First the campaign in this process (one
engine process, round trips included), then ``wforacle fuzz --examples N``
as a user runs it — the whole command, start-up, engine start and the
report included — with one worker and with --workers W (seeded shards in
W processes, docs/cluster.md), side by side.  The commands run with
wforacle's modules byte-compiled, as ``pip install`` leaves them
(bench_startup.py's ``.pyc`` column, after a warm-up run): in a checkout
with ``PYTHONDONTWRITEBYTECODE=1`` every process — the command, each
worker, the engine — would compile every module it imports, about 0.3 s
of CPU each, which no installed copy pays.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

from bench_startup import installed

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
    parser.add_argument("--throughput-seeds", type=int, default=1)
    args = parser.parse_args()
    if args.throughput:
        throughput(args.throughput, args.workers, args.throughput_seeds)
        return
    print(f"{'bug':<30} {'found':>6} {'find s':>8} {'shrink s':>9}  sizes (steps/edges)")
    for bug in args.bugs:
        print(find_and_shrink("w6w", bug, args.seeds, args.examples), flush=True)


def throughput(examples: int, workers: int, seeds: int = 1) -> None:
    """Examples per second against the correct engine: in process, then the command.

    With ``seeds`` > 1 each mode runs seeds 0..seeds-1 and prints the total
    rate with each seed's beside it: a generator change makes each seed's
    cases other cases, whose cost moves by a tenth from seed to seed
    (session 27), so commits that draw differently compare over several.
    """
    runs = []
    for seed in range(seeds):
        engine = example_engine("w6w")
        try:
            result = campaign(W6W, engine, examples=examples, seed_value=seed)
        finally:
            engine.stop()
        runs.append((result.examples, result.seconds, None))
    _print_rate("campaign in this process", runs, "")
    engine_command = f"{sys.executable} {ENGINES / SPECIFICATIONS['w6w'].example_engine}"
    env = installed()
    for n in sorted({1, workers}):
        command = [sys.executable, "-c", "from wforacle.oracle.cli import run; run()", "fuzz"]
        command += ["--engine", engine_command, "--json", "--workers", str(n), "--examples"]
        warm = subprocess.run([*command, "20"], capture_output=True, env=env, check=False)
        assert warm.returncode == 0, warm.stderr  # and the .pyc files are written
        runs = []
        for seed in range(seeds):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            done = subprocess.run(
                [*command, str(examples), "--seed", str(seed)],
                capture_output=True,
                text=True,
                check=False,
                env=env,
            )
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = sum(getattr(after, f) - getattr(before, f) for f in ("ru_utime", "ru_stime"))
            assert done.returncode == 0, done.stderr  # the correct engine: no finding
            runs.append((json.loads(done.stdout)["examples"], wall, cpu))
        _print_rate(f"wforacle fuzz --workers {n}", runs, " (whole command, wall; ")
    print("goal >= 300 examples/s end to end")
    print(
        "(the wall figures move with this shared machine's load; the CPU seconds, the work "
        "itself, much less: compare commits by them, side by side)"
    )


def _print_rate(label: str, runs: list[tuple[int, float, float | None]], whole: str) -> None:
    """One mode's total examples, seconds and rate; each seed's rate when there are several."""
    examples = sum(n for n, _, _ in runs)
    seconds = sum(s for _, s, _ in runs)
    rate = examples / seconds
    line = f"{label:<34} {examples:>6} examples {seconds:>7.2f} s {rate:>6.0f} examples/s"
    if whole:
        cpu = sum(c or 0.0 for _, _, c in runs)
        line += f"{whole}{cpu:.2f} s CPU in all its processes)"
    if len(runs) > 1:
        line += "  seeds: " + " ".join(f"{n / s:.0f}" for n, s, _ in runs)
    print(line)


if __name__ == "__main__":
    main()
