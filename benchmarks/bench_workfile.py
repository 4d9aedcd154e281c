"""Workfile validation figures: a 10,000-step document with nested constructs.

Run:  python benchmarks/bench_workfile.py [--steps 10000] [--repeat 3]

Prints the YAML size, then the best of --repeat runs for reading (safe
YAML), loading (the document model) and validating (scopes, references,
retry, catch), in process, and for `wforacle validate` as a command when it
reads Workfiles.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from wforacle.model.workfile.expr import _template
from wforacle.model.workfile.loader import Loader
from wforacle.model.workfile.yamlsafe import read
from wforacle.properties.workfile.validate import validate


def document(steps: int) -> str:
    """``steps`` steps: groups of an action, a for_each of two, and a parallel of two branches."""
    body: list[object] = []
    made = 0
    k = 0
    while made < steps:
        body.append(
            {
                f"a{k}": {
                    "crm.lookup": {
                        "q": "{{ inputs.q }}",
                        "prev": f"{{{{ a{k - 1}.id }}}}" if k else "x",
                    }
                }
            }
        )
        body.append(
            {
                f"e{k}": {
                    "wf.for_each": {
                        "items": f"{{{{ a{k}.items }}}}",
                        "as": f"v{k}",
                        "steps": [
                            {f"i{k}": {"crm.lookup": {"v": f"{{{{ v{k} }}}}"}}},
                            {
                                f"j{k}": {
                                    "crm.create": {"w": f"{{{{ i{k}.id | default(a{k}.id) }}}}"},
                                    "retry": {
                                        "policy": "fixed",
                                        "initial": "1s",
                                        "max": "1m",
                                        "attempts": 3,
                                    },
                                }
                            },
                        ],
                    }
                }
            }
        )
        body.append(
            {
                f"p{k}": {
                    "wf.parallel": {
                        "branches": {
                            "left": [{f"l{k}": {"mail.send": {"to": f"{{{{ a{k}.email }}}}"}}}],
                            "right": [{f"r{k}": {"chat.post": {"text": f"id {{{{ a{k}.id }}}}"}}}],
                        }
                    },
                    "on_fail": "continue",
                }
            }
        )
        made += 7
        k += 1
    return yaml.safe_dump({"inputs": {"q": {"type": "string"}}, "steps": body}, sort_keys=False)


def best(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    text = document(args.steps)
    print(f"document: {args.steps} steps, {len(text) / 1e6:.2f} MB of YAML")
    data = read(text)
    print(f"read (safe YAML)  {best(lambda: read(text), args.repeat):7.2f} s")
    print(f"load (model)      {best(lambda: Loader().load(data), args.repeat):7.2f} s")
    result = validate(text)

    def cold() -> None:
        _template.cache_clear()  # each distinct template is parsed once per validation
        validate(text)

    print(
        f"validate (all)    {best(cold, args.repeat):7.2f} s   "
        f"{len(result.report.diagnostics)} diagnostics"
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.workfile.yaml"
        path.write_text(text)
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "wforacle.oracle", "validate", str(path), "--spec", "workfile"],
            capture_output=True,
        )
        took = time.perf_counter() - start
        if done.returncode in (0, 1):
            print(f"wforacle validate {took:7.2f} s   (exit {done.returncode}, whole process)")
        else:
            print(f"wforacle validate: not available for Workfiles yet (exit {done.returncode})")


if __name__ == "__main__":
    main()
