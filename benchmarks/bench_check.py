"""Trace checking throughput: events checked per second, and the frontier tracked.

Run:  python benchmarks/bench_check.py [--events 10000] [--branches 0]
      python benchmarks/bench_check.py --growth

--growth: issue 16's goal (>= 100,000 events/s on a 10,000-event trace, and a
1,666-step chain within 2x of it), measured by the process's CPU time, the
best of at least three checks and a second of CPU (the median printed
beside it): the one-step retry trace, a 10-step and a 1,666-step chain.

Retries (--retries): one step that fails until its last attempt: the
per-event cost with a document of one step.  Chain: a chain of steps, each
retried once through a scripted failure (six events a step), long enough
for --events events; the frontier holds one configuration.  Branches: a
root fanning out to N parallel branches, each a chain; a random schedule's
trace is checked, and the frontier holds every configuration consistent
with the prefix (strands that have not moved).  Prints events, seconds,
events/s and the largest frontier.
"""

from __future__ import annotations

import argparse
import statistics
import time

from wforacle.model.kernel.lts import execute, seeded
from wforacle.model.w6w.scenario import load_scenario
from wforacle.model.w6w.semantics import W6wRun, config_key
from wforacle.oracle.check import check
from wforacle.properties.w6w.validate import validate


def chain(events: int) -> W6wRun:
    n = max(1, events // 6)
    steps = [
        {
            "id": f"s{i}",
            "uses": {"app": "demo", "action": "run"},
            "retry": {"maxAttempts": 2},
        }
        for i in range(n)
    ]
    doc = {
        "manifestVersion": "2",
        "id": "wf",
        "name": "bench",
        "steps": steps,
        "edges": [{"from": f"s{i}", "to": f"s{i + 1}"} for i in range(n - 1)],
    }
    failing = {"error": {"code": "t", "message": "", "retryable": True}}
    scenario = {"steps": {f"s{i}": {"attempts": [failing, {"output": i}]} for i in range(n)}}
    result = validate(doc)
    return W6wRun(result.workflow, result.plan, load_scenario(scenario)[0])


def retried(events: int) -> W6wRun:
    attempts = max(2, events // 2)
    doc = {
        "manifestVersion": "2",
        "id": "wf",
        "name": "bench",
        "steps": [
            {
                "id": "flaky",
                "uses": {"app": "demo", "action": "run"},
                "retry": {"maxAttempts": attempts, "backoff": "exponential", "delayMs": 10},
            }
        ],
    }
    failing = {"error": {"code": "t", "message": "", "retryable": True}}
    scenario = {"steps": {"flaky": {"attempts": [failing] * (attempts - 1) + [{"output": 1}]}}}
    result = validate(doc)
    return W6wRun(result.workflow, result.plan, load_scenario(scenario)[0])


def branches(n: int, depth: int) -> W6wRun:
    steps = [{"id": "root", "uses": {"app": "demo", "action": "run"}, "fanOut": "parallel"}]
    edges = []
    for b in range(n):
        previous = "root"
        for d in range(depth):
            steps.append({"id": f"b{b}_{d}", "uses": {"app": "demo", "action": "run"}})
            edges.append({"from": previous, "to": f"b{b}_{d}"})
            previous = f"b{b}_{d}"
    doc = {"manifestVersion": "2", "id": "wf", "name": "bench", "steps": steps, "edges": edges}
    result = validate(doc)
    return W6wRun(result.workflow, result.plan, load_scenario({})[0])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--branches", type=int, default=0)
    parser.add_argument(
        "--retries", action="store_true", help="one step retried until the trace is long enough"
    )
    parser.add_argument("--growth", action="store_true", help="10 and 1,666 steps against the goal")
    args = parser.parse_args()
    if args.growth:
        rates = {}
        for label, run in (
            ("one step retried, 10,000 events", retried(10_000)),
            ("chain of 10 steps", chain(60)),
            ("chain of 1,666 steps", chain(10_000)),
        ):
            trace = execute(run, max_steps=10**7).trace
            check(run, config_key, trace)  # warm: the rules' rows, compiled evolvers
            # At least three checks and a second of CPU: the best is the machine's rate with
            # the least interference, the median what a run met (bench_explore.py --growth).
            spent: list[float] = []
            while len(spent) < 3 or sum(spent) < 1.0:
                start = time.process_time()
                verdict = check(run, config_key, trace)
                spent.append(time.process_time() - start)
            best, median = min(spent), statistics.median(spent)
            assert verdict.permitted and best
            rates[label] = len(trace) / best
            print(
                f"{label:<32} {len(trace):>6,} events {rates[label]:>9,.0f} events/s CPU "
                f"(best of {len(spent)}; median {len(trace) / median:,.0f})"
            )
        first, *_, last = rates.values()
        print(f"goal >= 100,000 events/s; the 1,666-step chain is {first / last:.2f}x slower")
        return
    if args.retries:
        run = retried(args.events)
        trace = execute(run, max_steps=10**7).trace
    elif args.branches:
        run = branches(args.branches, max(1, args.events // (args.branches * 4)))
        trace = execute(run, seeded(1), max_steps=10**7).trace
    else:
        run = chain(args.events)
        trace = execute(run, max_steps=10**7).trace
    start = time.perf_counter()
    verdict = check(run, config_key, trace)
    seconds = time.perf_counter() - start
    assert verdict.permitted, verdict.divergence
    print(
        f"{len(trace):,} events checked in {seconds:.2f} s: {len(trace) / seconds:,.0f} events/s, "
        f"largest frontier {verdict.max_frontier}"
    )


if __name__ == "__main__":
    main()
