"""Instructions per explored state and per checked event, counted by valgrind.

Run:  python benchmarks/bench_instructions.py [--repeat 20]

Issue 16's explorer and checker goals are rates on this machine, and the
machine's speed drifts (±5% within an hour, more when another process
runs).  An instruction count does not: valgrind (``--tool=cachegrind
--cache-sim=no``) counts what the Python process executes, once with the
work repeated ``--repeat`` times and once with it not done at all; the
difference over the states explored (events checked) is the cost of one,
the same from run to run.  A change is judged by it first, by the rates of
bench_explore.py and bench_check.py second.

Prints instructions per state for the chains of 20 and 200 steps of
bench_explore.py --growth, and per event for the 10,000-event retry trace
of bench_check.py --growth.  Needs valgrind on the PATH (Debian: apt
install valgrind); says so and exits 2 without it.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Each workload runs in a child process: ``N`` repetitions after one warm-up.
EXPLORE = """
import sys
sys.path.insert(0, {here!r})
from bench_explore import semantics
from wforacle.model.w6w.independence import explore_run
run = semantics({steps})
result = explore_run(run)
for _ in range({repeat}):
    explore_run(run)
print(result.states)
"""

CHECK = """
import sys
sys.path.insert(0, {here!r})
from bench_check import retried
from wforacle.model.kernel.lts import execute
from wforacle.model.w6w.semantics import config_key
from wforacle.oracle.check import check
run = retried(10_000)
trace = execute(run, max_steps=10**7).trace
check(run, config_key, trace)
for _ in range({repeat}):
    check(run, config_key, trace)
print(len(trace))
"""


def instructions(source: str) -> tuple[int, int]:
    """(instructions executed, the work count the program printed) of one program."""
    done = subprocess.run(
        [
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
            sys.executable,
            "-c",
            source,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise SystemExit(f"valgrind printed no instruction count:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", "")), int(done.stdout.split()[-1])


def per_unit(template: str, repeat: int, **fields: object) -> float:
    """Instructions per unit of work: the difference of ``repeat`` runs and none."""
    base, _ = instructions(template.format(here=str(HERE), repeat=0, **fields))
    total, units = instructions(template.format(here=str(HERE), repeat=repeat, **fields))
    return (total - base) / (repeat * units)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20, help="repetitions of each workload")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: instructions cannot be counted", file=sys.stderr)
        raise SystemExit(2)
    for steps in (20, 200):
        repeat = max(2, args.repeat * 20 // steps)
        cost = per_unit(EXPLORE, repeat, steps=steps)
        print(f"explorer, chain of {steps:>3}: {cost:>9,.0f} instructions a state")
    cost = per_unit(CHECK, max(1, args.repeat // 10))
    print(f"checker, retry trace:   {cost:>9,.0f} instructions an event")


if __name__ == "__main__":
    main()
