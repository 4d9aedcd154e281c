"""``wforacle run`` on long linear w6w chains: seconds and peak memory of the whole process.

Run:  python benchmarks/bench_run.py [--steps 1000 10000 100000]

Issue 19: "a 100,000-step linear run should finish in seconds and a memory
proportional to the document".  Each chain (steps ``s0 → s1 → …``, one
app step each, no with block) is written to a temporary folder and run by a
fresh process (``python -m wforacle.oracle run DOC``, text output, the
default bounds); the figures are its wall time, its user+system CPU and its
peak resident memory (``ru_maxrss`` of the children, which grows with n, so
each row is its own process's).  The cost per step should stay flat as n
grows: a run whose cost per transition grows with the document is
quadratic (model/w6w/config.py: ``ChunkedSteps``, ``EdgeSet``).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def chain(n: int) -> dict[str, object]:
    steps = [{"id": f"s{i}", "uses": {"app": "demo", "action": "run"}} for i in range(n)]
    edges = [{"from": f"s{i}", "to": f"s{i + 1}"} for i in range(n - 1)]
    return {
        "manifestVersion": "2",
        "id": "wf_chain",
        "name": "chain",
        "steps": steps,
        "edges": edges,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, nargs="*", default=[1000, 10_000, 100_000])
    args = parser.parse_args()
    print(f"{'steps':>8} {'wall s':>8} {'cpu s':>8} {'µs/step':>8} {'peak MB':>8}  ends")
    with tempfile.TemporaryDirectory() as folder:
        for n in sorted(args.steps):
            document = Path(folder) / f"chain-{n}.json"
            document.write_text(json.dumps(chain(n)))
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "wforacle.oracle", "run", str(document)],
                capture_output=True,
                text=True,
            )
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            ends = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr
            print(
                f"{n:>8} {wall:>8.2f} {cpu:>8.2f} {cpu / n * 1e6:>8.0f} "
                f"{after.ru_maxrss / 1024:>8.0f}  {ends[:60]}"
            )


if __name__ == "__main__":
    main()
