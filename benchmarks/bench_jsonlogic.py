"""Evaluations per second: wforacle's JSONLogic evaluator against pure-Python peers.

Run:  python benchmarks/bench_jsonlogic.py [--seconds 3] [--suites DIR]

Each implementation evaluates every case of the classic suite
(``compatible.json``, 278 cases) in a loop for ``--seconds`` seconds, in a
process of its own (panzi-json-logic and json-logic-qubit both install a
package named ``json_logic``, so each gets its own ``pip install --target``
folder under ``benchmarks/.cache``).  A case that raises still counts as an
evaluation.  Also prints template resolutions per second for w6w ``with``
values.  Figures are best of three rounds.
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
    "panzi-json-logic": "panzi-json-logic==1.0.1",
    "json-logic-qubit": "json-logic-qubit==0.9.1",
}

LOOP = r"""
import json, sys, time
cases = json.load(open(sys.argv[1]))
cases = [c for c in cases if isinstance(c, dict)]
seconds = float(sys.argv[2])
impl = sys.argv[3]
if impl == "wforacle":
    from wforacle.model.expr.jsonlogic import evaluate as apply
else:  # panzi-json-logic and json-logic-qubit both install json_logic.jsonLogic
    from json_logic import jsonLogic as apply
best = 0.0
for _ in range(3):
    count = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds / 3:
        for case in cases:
            try:
                apply(case["rule"], case["data"])
            except Exception:
                pass
            count += 1
    best = max(best, count / (time.perf_counter() - start))
print(json.dumps({"evaluations_per_second": best}))
"""


def install(peer: str) -> Path:
    target = CACHE / peer
    if not target.exists():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--no-deps",
                "--target",
                str(target),
                PEERS[peer],
            ],
            check=True,
        )
    return target


def rate(implementation: str, suite: Path, seconds: float) -> float:
    env = dict(os.environ)
    if implementation in PEERS:
        env["PYTHONPATH"] = str(install(implementation))
    out = subprocess.run(
        [sys.executable, "-c", LOOP, str(suite), str(seconds), implementation],
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
    parser.add_argument(
        "--suites", default=str(HERE.parent.parent / "shared" / "external" / "jsonlogic" / "suites")
    )
    args = parser.parse_args()
    suite = Path(args.suites) / "compatible.json"
    ours = rate("wforacle", suite, args.seconds)
    print(f"{'implementation':<20} {'evaluations/s':>14} {'wforacle ÷ it':>14}")
    print(f"{'wforacle':<20} {ours:>14,.0f} {1.0:>14.2f}")
    for peer in PEERS:
        theirs = rate(peer, suite, args.seconds)
        print(f"{peer:<20} {theirs:>14,.0f} {ours / theirs:>14.2f}")
    print(f"\nw6w template resolutions/s: {template_rate(args.seconds):,.0f}")


if __name__ == "__main__":
    main()
