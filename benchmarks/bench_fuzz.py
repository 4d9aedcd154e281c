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

from wforacle.oracle.fuzz import campaign
from wforacle.oracle.power import BUGS as SEEDED
from wforacle.oracle.power import example_engine, find_and_shrink
from wforacle.properties.w6w.specification import W6W

BUGS = list(SEEDED["w6w"])  # the example engine's seeded bugs (oracle/power.py)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--examples", type=int, default=4000)
    parser.add_argument("--bugs", nargs="*", default=BUGS)
    parser.add_argument("--throughput", type=int, default=0)
    args = parser.parse_args()
    if args.throughput:
        engine = example_engine("w6w")
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
    print(f"{'bug':<30} {'found':>6} {'find s':>8} {'shrink s':>9}  sizes (steps/edges)")
    for bug in args.bugs:
        print(find_and_shrink("w6w", bug, args.seeds, args.examples), flush=True)


if __name__ == "__main__":
    main()
