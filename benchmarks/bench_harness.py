"""Harness figures: validation (networkx and z3) of a large document; explorer states per second.

Run:  python benchmarks/bench_harness.py [--nodes 1000] [--diamonds 4]

Validation: a chain of --nodes nodes where every tenth is a decision with two
guarded cases rejoining at an `all` node, every node with a guard, some
quorum joins: the whole validation (load, structure, HX-2401/2402, z3
guards, conditions, decisions, joins) is timed.

Explorer: --diamonds diamonds in a row, each a fork into two nodes joined by
alternately an `any` and a `quorum="2"` join, explored to every outcome
(no reduction): states, seconds, states/s.
"""

from __future__ import annotations

import argparse
import time

from wforacle.model.harness.semantics import HarnessRun, Scenario, config_key, outcome
from wforacle.model.kernel.explore import explore
from wforacle.properties.harness.validate import validate


def big_document(n: int) -> str:
    parts = ['<harness id="big">']
    previous = None
    k = 0
    while k < n:
        if k % 10 == 5 and k + 3 < n:
            d, a, b, j = (f"n{k}", f"n{k + 1}", f"n{k + 2}", f"n{k + 3}")
            parts.append(
                f'<decision id="{d}"><case to="{a}" when="params.v{k} &gt; 10"/>'
                f'<case to="{b}" when="params.v{k} &lt;= 10"/></decision>'
            )
            parts.append(f'<node id="{a}"><guard>params.g{k} == true</guard></node>')
            parts.append(f'<node id="{b}"/>')
            policy = 'joinPolicy="quorum" quorum="1"' if k % 20 == 5 else ""
            parts.append(f'<node id="{j}" {policy}/>')
            if previous:
                parts.append(f'<edge from="{previous}" to="{d}"/>')
            parts.append(f'<edge from="{a}" to="{j}"/><edge from="{b}" to="{j}"/>')
            previous = j
            k += 4
            continue
        node_id = f"n{k}"
        parts.append(f'<node id="{node_id}"><guard>params.x{k} &lt; {k + 1}</guard></node>')
        if previous:
            parts.append(f'<edge from="{previous}" to="{node_id}" condition="params.c{k} != 0"/>')
        previous = node_id
        k += 1
    parts.append("</harness>")
    return "".join(parts)


def diamonds(count: int) -> str:
    parts = ['<harness id="diamonds">', '<node id="s0"/>']
    for d in range(count):
        policy = 'joinPolicy="any"' if d % 2 == 0 else 'joinPolicy="quorum" quorum="2"'
        parts.append(f'<node id="l{d}"/><node id="r{d}" idempotent="false"/>')
        parts.append(f'<node id="s{d + 1}" {policy}/>')
        parts.append(f'<edge from="s{d}" to="l{d}"/><edge from="s{d}" to="r{d}"/>')
        parts.append(f'<edge from="l{d}" to="s{d + 1}"/><edge from="r{d}" to="s{d + 1}"/>')
    parts.append("</harness>")
    return "".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--diamonds", type=int, default=4)
    parser.add_argument(
        "--bugs", action="store_true", help="also time finding and shrinking each seeded bug"
    )
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    text = big_document(args.nodes)
    start = time.perf_counter()
    result = validate(text)
    seconds = time.perf_counter() - start
    print(
        f"validate {args.nodes} nodes ({len(text):,} bytes): {seconds:.2f} s, "
        f"{len(result.report.diagnostics)} diagnostic(s), valid={result.report.valid}"
    )
    checked = validate(diamonds(args.diamonds))
    assert checked.report.valid, checked.report.codes()
    run = HarnessRun(checked.harness, Scenario.of({}))
    found = explore(run, lambda c: outcome(run, c), config_key, max_states=2_000_000)
    print(
        f"explore {args.diamonds} diamonds (any / quorum joins): {found.states:,} states, "
        f"{len(found.outcomes)} outcome(s), {found.seconds:.2f} s, "
        f"{found.states / found.seconds:,.0f} states/s, complete={found.complete}"
    )
    if args.bugs:
        bugs()


def bugs() -> None:
    import statistics
    import sys
    from pathlib import Path

    from wforacle.oracle.engine import Engine
    from wforacle.oracle.fuzz import campaign
    from wforacle.properties.harness.specification import HARNESS

    engine_path = Path(__file__).resolve().parent.parent / "examples" / "engines"
    for bug in (
        "all-negative-skipped",
        "no-unreachability",
        "cancel-non-idempotent",
        "null-for-unavailable",
    ):
        finds, shrinks, sizes = [], [], []
        for seed_value in range(3):
            engine = Engine(f"{sys.executable} {engine_path / 'harness_engine.py'} --bug {bug}")
            try:
                finding = campaign(HARNESS, engine, examples=3000, seed_value=seed_value).finding
            finally:
                engine.stop()
            if finding is None:
                continue
            finds.append(finding.seconds_to_find)
            shrinks.append(finding.seconds_to_shrink)
            sizes.append(
                finding.case["document"].count("<node")
                + finding.case["document"].count("<decision")
            )
        print(
            f"{bug:<24} found {len(finds)}/3, median find {statistics.median(finds):.2f} s, "
            f"shrink {statistics.median(shrinks):.2f} s, nodes {sizes}"
        )


if __name__ == "__main__":
    main()
