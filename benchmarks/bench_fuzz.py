"""Campaign figures against the bundled example engine (examples/engines/w6w_engine.py).

Run:  python benchmarks/bench_fuzz.py [--seeds 3] [--examples 4000] [--bugs NAME ...]
      python benchmarks/bench_fuzz.py --throughput 1000

Per seeded bug: the median over --seeds seeds of the seconds to find it and
to shrink it, and the size (steps, edges) of each shrunk document.  With
--throughput N: examples per second of a campaign of N examples against the
correct engine, engine round trips included (one persistent process).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from wforacle.oracle.engine import Engine
from wforacle.oracle.fuzz import campaign
from wforacle.oracle.power import BUGS as SEEDED
from wforacle.properties.w6w.specification import W6W

ENGINE = Path(__file__).resolve().parent.parent / "examples" / "engines" / "w6w_engine.py"
BUGS = list(SEEDED["w6w"])  # the example engine's seeded bugs (oracle/power.py)


def command(*bugs: str) -> str:
    return f"{sys.executable} {ENGINE}" + "".join(f" --bug {b}" for b in bugs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--examples", type=int, default=4000)
    parser.add_argument("--bugs", nargs="*", default=BUGS)
    parser.add_argument("--throughput", type=int, default=0)
    args = parser.parse_args()
    if args.throughput:
        engine = Engine(command())
        try:
            result = campaign(W6W, engine, examples=args.throughput, seed_value=0)
        finally:
            engine.stop()
        print(
            f"correct engine: {result.examples} examples in {result.seconds:.2f} s, "
            f"{result.examples / result.seconds:.0f} examples/s, "
            f"finding: {result.finding is not None}"
        )
        return
    print(f"{'bug':<24} {'found':>6} {'find s':>8} {'shrink s':>9}  sizes (steps/edges)")
    for bug in args.bugs:
        finds, shrinks, sizes = [], [], []
        for seed in range(args.seeds):
            engine = Engine(command(bug))
            try:
                result = campaign(W6W, engine, examples=args.examples, seed_value=seed)
            finally:
                engine.stop()
            if result.finding is None:
                continue
            finds.append(result.finding.seconds_to_find)
            shrinks.append(result.finding.seconds_to_shrink)
            size = result.finding.size
            sizes.append(f"{size['steps']}/{size['edges']}")
        find = f"{statistics.median(finds):8.2f}" if finds else "       -"
        shrink = f"{statistics.median(shrinks):9.2f}" if shrinks else "        -"
        print(f"{bug:<24} {len(finds):>3}/{args.seeds:<2} {find} {shrink}  {' '.join(sizes)}")


if __name__ == "__main__":
    main()
