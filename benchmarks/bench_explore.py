"""Explorer throughput on sequential w6w runs: distinct states per second and peak memory.

Run:  python benchmarks/bench_explore.py [--steps 2000] [--repeat 3]

A chain of N steps, every third one retried (3 attempts, exponential
backoff) through a scripted failure, is explored to its one outcome.  Prints
states, transitions, states/s (best of --repeat) and the peak traced memory
of one exploration (tracemalloc).  Strands, and with them interleavings and
the reduction, are not modelled yet: this measures the per-state cost the
explorer will carry into them.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

from wforacle.model.kernel.explore import explore
from wforacle.model.w6w.scenario import load_scenario
from wforacle.model.w6w.semantics import W6wRun, config_key, outcome
from wforacle.properties.w6w.validate import validate


def semantics(n: int) -> W6wRun:
    steps = []
    for i in range(n):
        step = {
            "id": f"s{i}",
            "uses": {"app": "demo", "action": "run"},
            "with": {"prev": {"$": f"steps.s{i - 1}.output"}} if i else {},
        }
        if i % 3 == 0:
            step["retry"] = {"maxAttempts": 3, "backoff": "exponential", "delayMs": 100}
        steps.append(step)
    doc = {
        "manifestVersion": "2",
        "id": "wf",
        "name": "bench",
        "steps": steps,
        "edges": [{"from": f"s{i}", "to": f"s{i + 1}"} for i in range(n - 1)],
    }
    failing = {"error": {"code": "t", "message": "", "retryable": True}}
    scenario = {"steps": {f"s{i}": {"attempts": [failing, {"output": i}]} for i in range(0, n, 3)}}
    result = validate(doc)
    return W6wRun(result.workflow, result.plan, load_scenario(scenario)[0])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    run = semantics(args.steps)
    best = None
    for _ in range(args.repeat):
        start = time.perf_counter()
        result = explore(run, lambda c: outcome(run, c), config_key)
        seconds = time.perf_counter() - start
        best = seconds if best is None else min(best, seconds)
    assert result.complete and len(result.outcomes) == 1
    tracemalloc.start()
    explore(run, lambda c: outcome(run, c), config_key)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"steps {args.steps}: {result.states} states, {result.transitions} transitions, "
        f"{best:.2f} s, {result.states / best:,.0f} states/s, peak {peak / 2**20:.1f} MiB"
    )


if __name__ == "__main__":
    main()
