"""Evaluations per second: wforacle's JSONLogic evaluator against pure-Python peers.

Run:  python benchmarks/bench_jsonlogic.py [--seconds 3] [--rounds 3] [--suites DIR]

Each implementation evaluates every case of the classic suite
(``compatible.json``, 278 cases) in a loop, in a process of its own
(panzi-json-logic and json-logic-qubit both install a package named
``json_logic``, so each gets its own ``pip install --target`` folder under
``benchmarks/.cache``).  A case that raises still counts as an evaluation.
The implementations take turns for --rounds rounds of --seconds/--rounds
seconds each, so a load that comes and goes on a shared machine meets them
all alike; each figure is its best round.

``wforacle`` is what w6w runs use, ``model/expr/fast.py`` (a rule compiled
on its second evaluation, every bound of A-23 kept); ``wforacle plain`` is
the definition, ``model/expr/jsonlogic.py``; ``wforacle, new rules`` is
the fast path on rules it meets once each (copies of the cases), which it
leaves to the plain path.  Also prints template resolutions per second
for w6w ``with`` values.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
PEERS = {
    "panzi-json-logic": ["panzi-json-logic==1.0.1"],
    "json-logic-qubit": ["json-logic-qubit==0.9.1", "six==1.17.0"],  # it imports six
}
IMPLEMENTATIONS = {
    "wforacle": "wforacle",
    "wforacle plain": "wforacle-plain",
    "wforacle, new rules": "wforacle-new",
} | {peer: peer for peer in PEERS}

LOOP = r"""
import copy, json, sys, time
cases = json.load(open(sys.argv[1]))
cases = [c for c in cases if isinstance(c, dict)]
seconds = float(sys.argv[2])
impl = sys.argv[3]
passes = [cases]
if impl == "wforacle-new":
    # Copies enough that no rule is met twice before the fast path forgets it:
    # every evaluation is a rule's first.
    passes = [copy.deepcopy(cases) for _ in range(40)]
if impl in ("wforacle", "wforacle-new"):
    from wforacle.model.expr.fast import evaluate as apply
elif impl == "wforacle-plain":
    from wforacle.model.expr.jsonlogic import evaluate as apply
else:  # panzi-json-logic and json-logic-qubit both install json_logic.jsonLogic
    from json_logic import jsonLogic as apply
count = 0
start = time.perf_counter()
while time.perf_counter() - start < seconds:
    for cases in passes:
        for case in cases:
            try:
                apply(case["rule"], case["data"])
            except Exception:
                pass
            count += 1
print(json.dumps({"evaluations_per_second": count / (time.perf_counter() - start)}))
"""


def install(peer: str) -> Path:
    target = CACHE / peer
    installed = target / "requirements.txt"
    wanted = "\n".join(PEERS[peer])
    if not installed.exists() or installed.read_text() != wanted:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--no-deps",
                "--upgrade",
                "--target",
                str(target),
                *PEERS[peer],
            ],
            check=True,
        )
        installed.write_text(wanted)
    return target


def rate(implementation: str, suite: Path, seconds: float) -> float:
    env = dict(os.environ)
    if implementation in PEERS:
        env["PYTHONPATH"] = str(install(implementation))
    out = subprocess.run(
        [sys.executable, "-c", LOOP, str(suite), str(seconds), IMPLEMENTATIONS[implementation]],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    return float(json.loads(out)["evaluations_per_second"])


def template_rate(seconds: float) -> float:
    from wforacle.model.w6w.resolve import resolve_with

    scope = {
        "vars": {"token": "T", "count": 5, "name": "Ada", "items": [1, 2, 3]},
        "steps": {"fetch": {"output": {"items": [{"title": "first"}]}}},
        "secrets": {"API_KEY": "k"},
        "documents": {"greeting": {"body": "Hello {{ vars.name }}"}},
    }
    values = [
        "Bearer {{ vars.token }}",
        "Hi {{ name }}, {{ vars.token }}",
        '{{ vars.missing || "fallback" }}',
        {"$": "steps.fetch.output.items.0.title"},
        {"$expr": {"cat": ["n=", {"var": "vars.count"}]}},
        {
            "type": "expr",
            "parts": [
                {"kind": "render", "ref": "documents.greeting.body"},
                {"kind": "text", "value": "!"},
            ],
        },
        "no markers at all",
        "{{ secrets.API_KEY }}",
    ]
    best = 0.0
    for _ in range(3):
        count = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds / 3:
            for value in values:
                resolve_with(value, scope)
                count += 1
        best = max(best, count / (time.perf_counter() - start))
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--suites", default=str(HERE.parent.parent / "shared" / "external" / "jsonlogic" / "suites")
    )
    args = parser.parse_args()
    suite = Path(args.suites) / "compatible.json"
    best = dict.fromkeys(IMPLEMENTATIONS, 0.0)
    for _ in range(args.rounds):
        for implementation in IMPLEMENTATIONS:
            figure = rate(implementation, suite, args.seconds / args.rounds)
            best[implementation] = max(best[implementation], figure)
    ours = best["wforacle"]
    print(f"{'implementation':<20} {'evaluations/s':>14} {'wforacle ÷ it':>14}")
    for implementation, figure in best.items():
        print(f"{implementation:<20} {figure:>14,.0f} {ours / figure:>14.2f}")
    print(f"\nw6w template resolutions/s: {template_rate(args.seconds):,.0f}")


if __name__ == "__main__":
    main()
