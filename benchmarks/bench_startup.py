"""Start-up: CPU milliseconds of whole ``wforacle`` processes on one-step documents.

Run:  python benchmarks/bench_startup.py [--repeat 7]

Each command runs as a fresh process (``python -m wforacle.oracle ...``)
--repeat times; the figure is the best user+system CPU time of the process
(``resource.getrusage(RUSAGE_CHILDREN)`` around it).  CPU, not wall time, so
a busy shared machine moves the figures less.  The commands: ``--help``, and
``validate`` and ``run`` of a one-step document of each specification
(written to a temporary folder); ``python -c pass`` is the interpreter's own
floor.  The goal (issue 16): ``validate`` under 150 ms.

Two columns:

- ``.pyc``: wforacle's modules byte-compiled once, as ``pip install``
  leaves them (here in ``benchmarks/.cache/pycache``, after one warm-up run);
  this is what a user runs, and the column the goal is judged on;
- ``as is``: the environment unchanged.  With ``PYTHONDONTWRITEBYTECODE=1``
  and an editable checkout without ``__pycache__`` folders, Python compiles
  every wforacle module it imports on every run, and that is the difference.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PYCACHE = HERE / ".cache" / "pycache"
GOAL_MS = 150.0

ONE_STEP = {
    "w6w": (
        "one.json",
        '{"manifestVersion": "2", "id": "wf_one", "name": "one", "steps": '
        '[{"id": "only", "uses": {"app": "slack", "action": "send-message"}}]}\n',
    ),
    "harness": ("one.xml", '<harness id="one">\n  <node id="only" impl="work"/>\n</harness>\n'),
    "workfile": ("one.workfile.yaml", "steps:\n  - only: { chat.post: { text: hi } }\n"),
}


def installed() -> dict[str, str]:
    """This environment with wforacle's modules byte-compiled once, as an installed copy's are.

    The ``.pyc`` files go to ``PYCACHE`` (written by the first run that imports
    a module), not beside the sources.
    """
    compiled = {**os.environ, "PYTHONPYCACHEPREFIX": str(PYCACHE)}
    compiled.pop("PYTHONDONTWRITEBYTECODE", None)
    return compiled


def cpu_ms(command: list[str], env: dict[str, str]) -> float:
    """User+system CPU of one child process, in milliseconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    # check: a command that fails early would be fast for the wrong reason
    subprocess.run(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return 1000 * used


def best(command: list[str], env: dict[str, str], repeat: int) -> float:
    return min(cpu_ms(command, env) for _ in range(repeat))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7, help="runs per command (best is shown)")
    args = parser.parse_args()
    as_is = dict(os.environ)
    compiled = installed()
    wforacle = [sys.executable, "-m", "wforacle.oracle"]
    with tempfile.TemporaryDirectory() as folder:
        documents = {}
        for spec, (name, text) in ONE_STEP.items():
            documents[spec] = Path(folder) / name
            documents[spec].write_text(text, encoding="utf-8")
        rows: list[tuple[str, list[str], bool]] = [
            ("python -c pass", [sys.executable, "-c", "pass"], False),
            ("wforacle --help", [*wforacle, "--help"], False),
        ]
        rows += [
            (f"validate {spec}", [*wforacle, "validate", str(path)], True)
            for spec, path in documents.items()
        ]
        rows += [
            (f"run {spec}", [*wforacle, "run", str(path)], False)
            for spec, path in documents.items()
        ]
        for _, command, _ in rows:  # warm-up: write the .pyc files
            cpu_ms(command, compiled)
        print(f"best of {args.repeat} runs, user+system CPU of the whole process, ms")
        print(f"{'command':<20} {'.pyc':>7} {'as is':>7}")
        for label, command, goal in rows:
            figure = best(command, compiled, args.repeat)
            plain = best(command, as_is, args.repeat)
            verdict = f"  goal < {GOAL_MS:.0f}: {'met' if figure < GOAL_MS else 'NOT met'}"
            print(f"{label:<20} {figure:>7.0f} {plain:>7.0f}{verdict * goal}")


if __name__ == "__main__":
    main()
