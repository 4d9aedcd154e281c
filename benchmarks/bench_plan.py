"""Validate and plan generated DAGs of 1,000 to 100,000 steps (average out-degree 2).

Run:  python benchmarks/bench_plan.py [--sizes 1000,10000,100000] [--repeat 3]

Prints, per size, the best-of-N seconds for each phase: JSON parsing, loading
the model, graph rules (validation, including the fast plan), planning with
networkx (lexicographical_topological_sort) and with the fast path, the total
of what ``wforacle plan`` does in-process (parse + validate + plan), and the
wall time of ``wforacle plan FILE --json`` as a fresh process (start-up and
printing included).  The documents
are generated from a fixed seed, so the figures compare across machines.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wforacle.model.w6w.loader import load_workflow
from wforacle.properties.w6w.plan import fast_plan_order, plan_order
from wforacle.properties.w6w.validate import validate, validate_workflow


def generate(n: int, seed: int = 7) -> dict[str, Any]:
    """A DAG of n steps in shuffled declared order with 2n forward edges."""
    rng = random.Random(seed)
    ids = [f"s{i}" for i in range(n)]
    edges = []
    for _ in range(2 * n):
        a, b = sorted(rng.sample(range(n), 2))
        edges.append({"from": ids[a], "to": ids[b]})
    declared = ids[:]
    rng.shuffle(declared)
    return {
        "manifestVersion": "2",
        "id": "wf_bench",
        "name": "bench",
        "steps": [
            {"id": i, "uses": {"app": "a", "action": "b"}, "ports": {"in": n}} for i in declared
        ],
        "edges": edges,
    }


def best(repeat: int, fn: Callable[[], Any]) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def cli_seconds(text: str, repeat: int) -> float:
    """Best-of-N wall time of ``wforacle plan FILE --json`` in a fresh process."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        handle.write(text)
    command = [sys.executable, "-m", "wforacle.oracle", "plan", handle.name, "--json"]
    seconds, result = best(repeat, lambda: subprocess.run(command, capture_output=True))
    Path(handle.name).unlink()
    assert result.returncode == 0, result.stderr
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    gc.set_threshold(100_000, 50, 100)  # as the CLI does
    header = ("steps", "parse", "load", "rules", "plan(nx)", "plan(fast)", "validate+plan", "CLI")
    print(" ".join(f"{h:>13}" for h in header))
    for n in map(int, args.sizes.split(",")):
        row = measure(n, args.repeat)
        print(f"{n:>13}" + "".join(f"{x:>13.3f}" for x in row))


def measure(n: int, repeat: int) -> tuple[float, ...]:
    """Seconds per phase for an n-step document."""
    text = json.dumps(generate(n))
    t_parse, doc = best(repeat, lambda: json.loads(text))
    t_load, (wf, _) = best(repeat, lambda: load_workflow(doc))
    t_rules, found = best(repeat, lambda: validate_workflow(wf))
    assert not [d for d in found if d.severity == "error"], found[:3]
    t_nx, order_nx = best(repeat, lambda: plan_order(wf))
    t_fast, order_fast = best(repeat, lambda: fast_plan_order(wf))
    assert order_nx == order_fast

    def end_to_end() -> list[str]:
        result = validate(json.loads(text))
        assert result.report.valid and result.plan is not None
        return result.plan

    t_total, _ = best(repeat, end_to_end)
    return (t_parse, t_load, t_rules, t_nx, t_fast, t_total, cli_seconds(text, repeat))


if __name__ == "__main__":
    main()
