"""Workfile execution figures: the explorer, the checker, campaigns and seeded bugs.

Run:  python benchmarks/bench_workfile_run.py [--chain 200] [--branches 12] [--naive-states 20000]
                                              [--throughput 1000] [--seeds 3] [--bugs NAME ...]

- explorer: distinct states per second on a chain of --chain actions and on a
  wf.parallel of --branches independent branches, with the frames reduction
  and without it (the naive search stops at --naive-states and says so);
- checker: events checked per second on the model's own trace of the chain
  (a trace the model permits, checked as an engine's would be);
- campaign: examples per second against the correct example executor
  (examples/engines/workfile_engine.py, one persistent process);
- seeded bugs: per bug, the median over --seeds seeds of the seconds to find
  and to shrink it, and the size (steps/scripted results) of each shrunk case.
  --bugs none skips them.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import yaml

from wforacle.model.kernel.lts import execute
from wforacle.oracle.check import check
from wforacle.oracle.fuzz import campaign
from wforacle.oracle.power import BUGS, example_engine, find_and_shrink
from wforacle.properties.strategies.workfile_runs import MANIFEST
from wforacle.properties.workfile.execution import explore, prepare
from wforacle.properties.workfile.specification import WORKFILE


def case(steps: list[Any]) -> dict[str, Any]:
    return {"document": yaml.safe_dump({"steps": steps}), "manifests": {"svc": MANIFEST}}


def chain(n: int) -> dict[str, Any]:
    return case([{f"s{i}": {"svc.get": {"k": i}}} for i in range(n)])


def parallel(n: int) -> dict[str, Any]:
    branches = {f"b{i}": [{f"x{i}": {"svc.get": {"k": i}}}] for i in range(n)}
    return case([{"p": {"wf.parallel": {"branches": branches}}}])


def explorer(name: str, run: Any, reduce: bool, bound: int) -> None:
    started = time.perf_counter()
    found = explore(run, bound, reduce)
    seconds = time.perf_counter() - started
    done = "complete" if found.complete else f"stopped at {bound} states"
    print(
        f"explore {name:<22} {'frames' if reduce else 'naive':<7} {found.states:>8} states "
        f"{seconds:>8.2f} s {found.states / seconds:>9.0f} states/s  "
        f"{len(found.outcomes)} outcome(s), {done}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chain", type=int, default=200)
    parser.add_argument("--branches", type=int, default=12)
    parser.add_argument("--naive-states", type=int, default=20_000)
    parser.add_argument("--throughput", type=int, default=1000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--examples", type=int, default=3000)
    parser.add_argument("--bugs", nargs="*", default=list(BUGS["workfile"]))
    args = parser.parse_args()

    long_run = prepare(chain(args.chain)).semantics
    wide = prepare(parallel(args.branches)).semantics
    explorer(f"chain of {args.chain}", long_run, True, 10**7)
    explorer(f"chain of {args.chain}", long_run, False, 10**7)
    explorer(f"parallel of {args.branches}", wide, True, 10**7)
    explorer(f"parallel of {args.branches}", wide, False, args.naive_states)

    trace = execute(long_run).trace
    started = time.perf_counter()
    verdict = check(long_run, WORKFILE.key, trace)
    seconds = time.perf_counter() - started
    print(
        f"check   {len(trace)} events of the chain: {seconds:.2f} s, "
        f"{len(trace) / seconds:.0f} events/s, permitted: {verdict.permitted}"
    )

    if args.throughput:
        engine = example_engine("workfile")
        try:
            result = campaign(WORKFILE, engine, examples=args.throughput, seed_value=0)
        finally:
            engine.stop()
        print(
            f"campaign against the correct executor: {result.examples} examples in "
            f"{result.seconds:.2f} s, {result.examples / result.seconds:.0f} examples/s, "
            f"finding: {result.finding is not None}"
        )

    bugs = [] if args.bugs == ["none"] else args.bugs
    if bugs:
        print(f"{'bug':<30} {'found':>6} {'find s':>8} {'shrink s':>9}  sizes (steps/results)")
    for bug in bugs:
        print(find_and_shrink("workfile", bug, args.seeds, args.examples), flush=True)


if __name__ == "__main__":
    main()
