"""Run a hostile case as a subprocess and classify what wforacle did.

Classes (a case is in exactly one, the first that applies):

- ``internal error``: exit code 3, a Python traceback on stderr or stdout
  (a line starting ``Traceback (most recent call last):``; an engine's own
  traceback, which wforacle quotes indented, does not count), death by a
  signal, or an exit code outside 0..3;
- ``hang``: no exit within the case's timeout (the process group is
  terminated, then killed);
- ``invalid output``: stdout or stderr not UTF-8; with ``--json``, stdout
  that is not one strict JSON document (NaN, Infinity, not JSON, or empty
  when a report was due); for a line tool, a line that is not strict JSON or
  a count of answers other than the count of non-blank input lines;
- ``wrong success``: exit code 0 for an input that must be rejected (or a
  misbehaving engine judged a pass);
- ``wrong failure``: a nonzero exit code for an input that must pass (a
  correct engine behind benign manners);
- ``engine left running``: an engine process the case started (marked with
  ``--tag``) still alive after wforacle ended;
- ``ok``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .corpus import Case, Invocation, show_command, wforacle_command

BAD = (
    "internal error",
    "hang",
    "invalid output",
    "wrong success",
    "wrong failure",
    "engine left running",
)
CLASSES = (*BAD, "ok")
MEMORY_LIMIT = 2 << 30  # bytes of address space for wforacle and what it starts
TRACEBACK = re.compile(rb"^Traceback \(most recent call last\):", re.M)

# Runs the command under an address-space limit, so a runaway allocation is a MemoryError
# (wforacle's exit 3) and not the machine's memory.
TRAMPOLINE = (
    "import os, resource, sys\n"
    "limit = int(sys.argv[1])\n"
    "resource.setrlimit(resource.RLIMIT_AS, (limit, limit))\n"
    "os.execv(sys.argv[2], sys.argv[2:])\n"
)


@dataclass
class Outcome:
    """What happened to one case."""

    case: Case
    klass: str
    code: int | None  # None: timed out
    seconds: float
    detail: str
    stdout_tail: str
    stderr_tail: str
    command: str

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.case.id,
            "command": self.case.command,
            "format": self.case.fmt,
            "summary": self.case.summary,
            "expect": self.case.expect,
            "class": self.klass,
            "exitCode": self.code,
            "seconds": round(self.seconds, 2),
            "detail": self.detail,
            "commandLine": self.command,
            "stderrTail": self.stderr_tail,
            "stdoutTail": self.stdout_tail,
        }


def _tail(data: bytes, limit: int = 600) -> str:
    text = data.decode("utf-8", "backslashreplace")
    return text[-limit:]


def _strict(text: str) -> object:
    def constant(name: str) -> object:
        raise ValueError(f"{name} is not JSON")

    def number(token: str) -> object:
        value = float(token)
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"{token} is not a finite number")
        return value

    # integers kept as text: a 5,000-digit integer is JSON, Python's limit notwithstanding
    return json.loads(text, parse_constant=constant, parse_float=number, parse_int=str)


def output_problem(case: Case, invocation: Invocation, code: int, out: bytes, err: bytes) -> str:
    """Why the output is invalid, or ``""``."""
    for name, data in (("stdout", out), ("stderr", err)):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return f"{name} is not UTF-8 ({exc.reason} at byte {exc.start})"
    text = out.decode("utf-8")
    mode = case.output
    if mode == "auto":
        mode = "json" if "--json" in invocation.args else "text"
    if mode == "json":
        if not text.strip():
            return "" if code not in (0, 1) else "--json printed nothing"
        try:
            _strict(text)
        except (ValueError, RecursionError) as exc:
            return f"--json output is not strict JSON: {str(exc)[:160]}"
    if mode == "lines":
        answers = [line for line in text.split("\n") if line.strip()]
        for number, line in enumerate(answers, 1):
            try:
                _strict(line)
            except (ValueError, RecursionError) as exc:
                return f"answer line {number} is not strict JSON: {str(exc)[:160]}"
        stdin = invocation.stdin or b""
        asked = [line for line in stdin.split(b"\n") if line.strip()]
        if len(answers) != len(asked):
            return f"{len(answers)} answer lines for {len(asked)} request lines"
    return ""


def classify(
    case: Case, invocation: Invocation, code: int | None, out: bytes, err: bytes, leaked: list[int]
) -> tuple[str, str]:
    """The case's class and a one-line detail."""
    if code is None:
        return "hang", f"no exit within {case.timeout:g} s"
    if code < 0:
        return "internal error", f"killed by signal {-code} ({signal.Signals(-code).name})"
    if code == 3:
        return "internal error", "exit code 3"
    if TRACEBACK.search(err) or TRACEBACK.search(out):
        return "internal error", f"a Python traceback (exit code {code})"
    if code not in (0, 1, 2):
        return "internal error", f"exit code {code} is none of 0, 1, 2, 3"
    problem = output_problem(case, invocation, code, out, err)
    if problem:
        return "invalid output", problem
    if case.expect == "reject" and code == 0:
        return "wrong success", "exit code 0 for an input that must be rejected"
    if case.expect == "pass" and code != 0:
        return "wrong failure", f"exit code {code} for an input that must pass"
    if leaked:
        return "engine left running", f"engine processes still alive: {leaked}"
    return "ok", ""


def _kill_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def tagged_processes(tag: str) -> list[int]:
    """Processes whose command line carries ``--tag TAG`` (engines a case started)."""
    found = []
    needle = f"--tag\0{tag}\0".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            status = (entry / "stat").read_text()
        except OSError:
            continue
        if needle in cmdline and ") Z " not in status:
            found.append(int(entry.name))
    return found


def run_case(case: Case, workdir: Path | None = None) -> Outcome:
    """Build the case in a fresh folder, run it, classify it."""
    with tempfile.TemporaryDirectory(prefix="hostile-", dir=workdir) as tmp:
        folder = Path(tmp)
        invocation = case.build(folder)
        argv = [
            sys.executable,
            "-c",
            TRAMPOLINE,
            str(MEMORY_LIMIT),
            *wforacle_command(),
            *invocation.args,
        ]
        env = {k: v for k, v in os.environ.items() if k != "WFORACLE_DEBUG"}
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        started = time.monotonic()
        process = subprocess.Popen(
            argv,
            cwd=folder,
            stdin=subprocess.PIPE if invocation.stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            env=env,
        )
        try:
            out, err = process.communicate(invocation.stdin, timeout=case.timeout)
            code: int | None = process.returncode
        except subprocess.TimeoutExpired:
            _kill_group(process.pid, signal.SIGTERM)  # wforacle ends its engines on SIGTERM
            try:
                out, err = process.communicate(timeout=3)
            except subprocess.TimeoutExpired:
                _kill_group(process.pid, signal.SIGKILL)
                out, err = process.communicate()
            code = None
        seconds = time.monotonic() - started
        _kill_group(process.pid, signal.SIGKILL)  # anything left in wforacle's own group
        leaked: list[int] = []
        tag = folder.name
        if case.fmt == "engine":
            deadline = time.monotonic() + 1.0
            while (leaked := tagged_processes(tag)) and time.monotonic() < deadline:
                time.sleep(0.1)
            for pid in leaked:  # ours to end: an engine this case started
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(pid, signal.SIGKILL)
        klass, detail = classify(case, invocation, code, out, err, leaked)
        return Outcome(
            case=case,
            klass=klass,
            code=code,
            seconds=seconds,
            detail=detail,
            stdout_tail=_tail(out, 400),
            stderr_tail=_tail(err),
            command=show_command(invocation.args),
        )


def run_all(
    cases: Iterable[Case], jobs: int = 2, progress: Callable[[Outcome], None] | None = None
) -> list[Outcome]:
    """Run every case, ``jobs`` at a time (threads: the work is in the subprocesses)."""
    outcomes: list[Outcome] = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for outcome in pool.map(run_case, cases):
            outcomes.append(outcome)
            if progress is not None:
                progress(outcome)
    return outcomes


def counts(outcomes: Iterable[Outcome]) -> dict[str, int]:
    found = dict.fromkeys(CLASSES, 0)
    for outcome in outcomes:
        found[outcome.klass] += 1
    return found
