"""The hostile-input corpus (issue 19): cases, how each is built, and the seeded generation.

A ``Case`` is one run of the real ``wforacle`` command line on one hostile
input: a command, the files it reads (written into a fresh folder when the
case is built), its standard input, and what the answer must be —
``reject`` (exit code 1 or 2: the input must not be accepted), ``pass``
(exit code 0: the input is fine, e.g. a correct engine behind odd manners),
or ``any`` (only a crash, a hang or invalid output is wrong).

Nothing large is checked in: each case is a small description and a
``build`` function that writes its inputs when the case runs.  The corpus
is a function of the seed; ``materialize(case_id, folder)`` writes one case's
files and returns its command line, so a report can say how to regenerate
any case (``python benchmarks/bench_hostile.py --materialize ID DIR``).
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .pieces import REPO

Arg = str | bytes  # bytes: an argument that is not UTF-8


@dataclass(frozen=True)
class Invocation:
    """What to run in the case's folder: wforacle's arguments and standard input."""

    args: Sequence[Arg]
    stdin: bytes | None = None


@dataclass(frozen=True)
class Case:
    """One hostile input for one command."""

    id: str  # "<group>/<n>", unique and stable for a seed
    command: str  # the wforacle subcommand ("jsonlogic eval", "fuzz", ...)
    fmt: str  # the input format: "w6w-json", "harness-xml", "workfile-yaml", "engine", ...
    summary: str  # what is hostile about it, in a line
    expect: str  # "reject" | "pass" | "any"
    build: Callable[[Path], Invocation] = field(compare=False, repr=False)
    output: str = "auto"  # "auto": JSON when --json is given; "lines": JSON lines; "text"
    timeout: float = 40.0
    cheap: bool = True  # under a second or two: eligible for the fast sample


def wforacle_command() -> list[str]:
    """The installed ``wforacle`` beside this Python, else ``python -m wforacle.oracle``."""
    script = Path(sys.executable).parent / "wforacle"
    if script.exists():
        return [str(script)]
    found = shutil.which("wforacle")
    return [found] if found else [sys.executable, "-m", "wforacle.oracle"]


def show_command(args: Sequence[Arg]) -> str:
    """The command line as a shell would be given it (bytes shown with $'\\x..')."""
    parts = ["wforacle"]
    for arg in args:
        if isinstance(arg, bytes):
            parts.append("$'" + "".join(f"\\x{b:02x}" for b in arg) + "'")
        elif len(arg) > 200:
            parts.append(shlex.quote(arg[:80]) + f"…(+{len(arg) - 80} chars)")
        else:
            parts.append(shlex.quote(arg))
    return " ".join(parts)


# -- shared, lazily made inputs: fixture suites and reference traces ------------------------

_cache_lock = threading.Lock()
_cache: dict[str, Path] = {}
_cache_root: list[Path] = []


def cache_dir() -> Path:
    if not _cache_root:
        _cache_root.append(Path(tempfile.mkdtemp(prefix="wforacle-hostile-cache-")))
    return _cache_root[0]


def cached(key: str, make: Callable[[Path], None]) -> Path:
    """A folder made once per process by ``make`` (a fixture suite, a trace)."""
    with _cache_lock:
        if key not in _cache:
            target = cache_dir() / key.replace("/", "_")
            make(target)
            _cache[key] = target
        return _cache[key]


def run_wforacle(args: Sequence[str], timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*wforacle_command(), *args], capture_output=True, timeout=timeout, cwd=cache_dir()
    )


def suite(spec: str, profile: str | None = None, count: int = 2) -> Path:
    """A small conformance suite written by ``wforacle fixtures`` (made once, then copied)."""
    key = f"suite-{spec}-{profile}-{count}"

    def make(target: Path) -> None:
        args = ["fixtures", "--spec", spec, "--out", str(target), "--count", str(count)]
        if profile:
            args += ["--profile", profile]
        done = run_wforacle(args)
        if done.returncode != 0:
            raise RuntimeError(f"cannot write the {key} suite: {done.stderr.decode()[-500:]}")

    return cached(key, make)


def copy_suite(spec: str, folder: Path, profile: str | None = None, name: str = "suite") -> Path:
    target = folder / name
    shutil.copytree(suite(spec, profile), target)
    return target


def reference_run(key: str, args: Sequence[str], files: dict[str, bytes]) -> bytes:
    """``wforacle run --json`` output for a seed case (made once): the trace corpus's base."""

    def make(target: Path) -> None:
        target.mkdir(parents=True)
        for name, data in files.items():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            (target / name).write_bytes(data)
        done = subprocess.run(
            [*wforacle_command(), "run", *args, "--json"],
            capture_output=True,
            timeout=120,
            cwd=target,
        )
        if done.returncode != 0:
            raise RuntimeError(f"reference run {key} failed: {done.stderr.decode()[-500:]}")
        (target / "run.json").write_bytes(done.stdout)

    return (cached(f"run-{key}", make) / "run.json").read_bytes()


# -- the corpus ------------------------------------------------------------------------------


def corpus(seed: int = 0) -> list[Case]:
    """Every case, in a stable order, for ``seed``."""
    from . import gen_arguments, gen_documents, gen_engines, gen_folders, gen_lines

    cases: list[Case] = []
    for module in (gen_documents, gen_lines, gen_folders, gen_arguments, gen_engines):
        cases += module.cases(seed)
    ids = [c.id for c in cases]
    duplicates = {i for i in ids if ids.count(i) > 1}
    assert not duplicates, f"duplicate case ids: {sorted(duplicates)[:5]}"
    return cases


def sample(cases: Sequence[Case], size: int = 40) -> list[Case]:
    """A fast, spread-out sample: cheap cases, round-robin over (command, format) groups."""
    groups: dict[tuple[str, str], list[Case]] = {}
    for case in cases:
        if case.cheap:
            groups.setdefault((case.command, case.fmt), []).append(case)
    picked: list[Case] = []
    round_ = 0
    while len(picked) < size and any(len(g) > round_ for g in groups.values()):
        for key in sorted(groups):
            members = groups[key]
            if round_ < len(members) and len(picked) < size:
                # spread within a group: the k-th pick is from the k-th stride
                stride = max(1, len(members) // 3)
                picked.append(members[(round_ * stride + round_) % len(members)])
        round_ += 1
    unique: dict[str, Case] = {c.id: c for c in picked}
    return list(unique.values())


def materialize(case_id: str, folder: Path, seed: int = 0) -> tuple[Case, Invocation]:
    """Write one case's inputs into ``folder``; the case and what to run there."""
    found = [c for c in corpus(seed) if c.id == case_id]
    if not found:
        raise KeyError(f"no case {case_id!r} for seed {seed}")
    folder.mkdir(parents=True, exist_ok=True)
    return found[0], found[0].build(folder)


__all__ = [
    "REPO",
    "Case",
    "Invocation",
    "copy_suite",
    "corpus",
    "materialize",
    "reference_run",
    "sample",
    "show_command",
    "wforacle_command",
]
