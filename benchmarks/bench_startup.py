"""Start-up: CPU seconds of whole ``wforacle`` processes on one-step documents.

Run:  python benchmarks/bench_startup.py [--repeat 7]

Each command runs as a fresh process (``python -m wforacle.oracle ...``)
--repeat times; the figure is the best user+system CPU time of the process
(``resource.getrusage(RUSAGE_CHILDREN)`` around it), in milliseconds.  CPU,
not wall time, so a busy shared machine moves the figures less.  The
commands: ``--help``, and ``validate`` and ``run`` of a one-step document of
each specification (written to a temporary folder).  ``python -c pass`` is
the interpreter's own floor.  The goal (issue 16): ``validate`` under 150 ms.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

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


def cpu_ms(command: list[str]) -> float:
    """User+system CPU of one child process, in milliseconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    # check: a command that fails early would be fast for the wrong reason
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return 1000 * used


def best(command: list[str], repeat: int) -> float:
    return min(cpu_ms(command) for _ in range(repeat))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7, help="runs per command (best is shown)")
    args = parser.parse_args()
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
        print(f"best of {args.repeat} runs, user+system CPU of the whole process")
        print(f"{'command':<20} {'ms':>7}")
        for label, command, goal in rows:
            figure = best(command, args.repeat)
            verdict = ("  goal < 150 ms: " + ("met" if figure < GOAL_MS else "NOT met")) * goal
            print(f"{label:<20} {figure:>7.0f}{verdict}")


if __name__ == "__main__":
    main()
