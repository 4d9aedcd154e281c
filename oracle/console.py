"""What every command shares: exit codes, usage errors, reading input, printing reports.

Exit codes (docs/cli.md): 0 ok / valid / conforms; 1 invalid / nonconforming
/ divergence found; 2 usage error or unreadable input; 3 an internal error of
wforacle itself (failure kind 5, never reported as anything else).  Both
oracle/cli.py and oracle/commands.py import this module and nothing of each
other but the one registration call.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from wforacle.model.diagnostics import InvalidInput
from wforacle.properties.registry import SPECIFICATIONS
from wforacle.properties.specification import Specification, parse_json

EXIT_OK, EXIT_FINDING, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class UsageError(Exception):
    """Bad arguments or unreadable input: one line to stderr, exit 2."""


def read_bytes(source: str) -> bytes:
    """The bytes of the file at ``source`` (``-``: stdin), or a UsageError saying why not."""
    if source == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(source).read_bytes()
    except FileNotFoundError:
        raise UsageError(f"cannot read {source}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"cannot read {source}: it is a directory") from None
    except PermissionError:
        raise UsageError(f"cannot read {source}: permission denied") from None
    except OSError as exc:
        raise UsageError(f"cannot read {source}: {exc.strerror or exc}") from None


def read_text(source: str) -> str:
    """The UTF-8 text of the file at ``source`` (``-``: stdin), or a UsageError saying why not."""
    data = read_bytes(source)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"cannot read {source}: not UTF-8 text ({exc.reason})") from None


def read_json(source: str) -> Any:
    """Parse the JSON document at ``source`` (a path, or ``-`` for stdin)."""
    try:
        return parse_json(read_bytes(source), source)
    except InvalidInput as exc:
        raise UsageError(str(exc)) from None


def emit_json(value: object) -> None:
    """Print ``value`` as one deterministic, strict JSON document (``json_text``)."""
    sys.stdout.write(json_text(value, indent=2) + "\n")


_SURROGATE = re.compile("[\ud800-\udfff]")


def json_text(value: object, **options: Any) -> str:
    r"""``value`` as strict JSON text that UTF-8 can carry (docs/cli.md, "Output").

    A number that is not finite (NaN, ±Infinity, which a computation such as
    JSON Logic's ``*`` can reach) is written ``null``, as JavaScript's
    ``JSON.stringify`` writes it; a string holding a lone surrogate has it
    written as a ``\uXXXX`` escape.  Everything else is ``json.dumps``.
    """
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, **options)
    except ValueError:  # a non-finite number somewhere (json's "not JSON compliant")
        text = json.dumps(_finite(value), ensure_ascii=False, allow_nan=False, **options)
    if _SURROGATE.search(text):  # only inside a string: json.dumps writes nothing else raw
        text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None (depth is bounded: A-154)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def specification(name: str | None) -> Specification:
    """The specification ``--spec`` names."""
    if name not in SPECIFICATIONS:
        raise UsageError(
            f"--spec {name}: no document model yet (available: {', '.join(SPECIFICATIONS)})"
        )
    return SPECIFICATIONS[name]


def read_document(name: str | None, source: str) -> tuple[Specification, Any]:
    """The specification a document follows (``--spec``, else recognised) and the document.

    Without ``--spec``, each specification whose sniff accepts the first
    bytes is tried in registry order; the first that reads the document and
    claims it wins.  When none does, the first one's reading error is the
    message (a broken JSON document is told it is not JSON).
    """
    data = read_bytes(source)
    unknown = f"cannot tell which specification {source} follows; pass --spec"
    if name is not None:
        spec = specification(name)
        try:
            return spec, spec.read(data, source)
        except InvalidInput as exc:
            raise UsageError(str(exc)) from None
    sniffed = [s for s in SPECIFICATIONS.values() if s.sniffs(data[:64])]
    first_error: InvalidInput | None = None
    for spec in sniffed:
        try:
            document = spec.read(data, source)
        except InvalidInput as exc:
            first_error = first_error or exc
            continue
        if spec.claims(document):
            return spec, document
    if first_error is not None:
        raise UsageError(str(first_error))
    raise UsageError(unknown)


def print_report(source: str, report: Any) -> None:
    """A document's diagnostics, one line each, after a verdict line."""
    errors = len(report.errors)
    warnings = len(report.diagnostics) - errors
    if report.valid:
        verdict = "valid"
    elif report.storable:
        verdict = "invalid (storable as a draft, not runnable)"
    else:
        verdict = "invalid"
    counts = f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}"
    print(f"{source}: {verdict} — {counts}")
    for d in report.diagnostics:
        print(f"  {d.severity.value:<7} {d.code:<28} {d.path}  {d.message}  [{d.clause}]")


@contextmanager
def progress_bar(
    what: str, total: int | None, quiet: bool = False
) -> Iterator[Callable[[int, float], None]]:
    """A progress bar on stderr (rich) while a long command works: ``update(done, seconds)``.

    Only on a terminal: when stderr is not one (a pipe, a CI log, a test) or
    the command prints JSON (``quiet``), nothing is drawn and ``update`` does
    nothing.  The bar is removed when the command ends, so what it prints
    after is what stays on the screen.
    """
    if quiet or not sys.stderr.isatty():
        yield lambda done, seconds: None
        return
    from rich.console import Console  # start-up time: only a terminal pays for rich
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (
        TextColumn(what),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
    )
    console = Console(file=sys.stderr, force_terminal=True)
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(what, total=total, rate="")

        def update(done: int, seconds: float) -> None:
            rate = f"{done / seconds:.0f}/s" if seconds > 0 else ""
            bar.update(task, completed=done, rate=rate)

        yield update
