"""Diagnostics: what an invalid document gets instead of a run.

Notation: a diagnostic is a value ``(code, severity, path, message, clause,
gate)``.  ``path`` is a JSONPath into the document as written (``$`` is the
document root).  ``gate`` says which host gate refuses the document:

``save``
    the host refuses to store it (e.g. a malformed RetryPolicy, W6W-RETRY-*);
``run``
    it may be stored as a draft but cannot be planned or run
    (e.g. a cycle, W6W-PLAN-*; a step without ``uses``, W6W-FIELD-*).

An invalid document is failure kind 1 of docs/architecture.md: it is reported,
never run, and never confused with a failure the specification defines.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence

import attrs


class Severity(enum.StrEnum):
    """How bad a diagnostic is.  Only errors make a document invalid."""

    ERROR = "error"
    WARNING = "warning"


class Gate(enum.StrEnum):
    """Which host gate a diagnostic belongs to (see the module notation)."""

    SAVE = "save"
    RUN = "run"


@attrs.frozen
class Diagnostic:
    """One problem with a document, located and explained."""

    code: str
    severity: Severity
    path: str
    message: str
    clause: str
    gate: Gate = Gate.RUN

    def to_json(self) -> dict[str, str]:
        """The diagnostic as the ``validate --json`` contract prints it."""
        return {
            "code": self.code,
            "severity": self.severity.value,
            "path": self.path,
            "message": self.message,
            "clause": self.clause,
            "gate": self.gate.value,
        }


def error(code: str, path: str, message: str, clause: str, gate: Gate = Gate.RUN) -> Diagnostic:
    """An error diagnostic."""
    return Diagnostic(code, Severity.ERROR, path, message, clause, gate)


def warning(code: str, path: str, message: str, clause: str, gate: Gate = Gate.RUN) -> Diagnostic:
    """A warning diagnostic: reported, but the document stays valid."""
    return Diagnostic(code, Severity.WARNING, path, message, clause, gate)


@attrs.frozen
class Report:
    """The outcome of validating one document."""

    diagnostics: tuple[Diagnostic, ...]

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        """The diagnostics that make the document invalid."""
        return tuple(d for d in self.diagnostics if d.severity is Severity.ERROR)

    @property
    def valid(self) -> bool:
        """Runnable: no error at any gate."""
        return not self.errors

    @property
    def storable(self) -> bool:
        """A host may store it (possibly as a draft): no error at the save gate."""
        return not any(d.gate is Gate.SAVE for d in self.errors)

    def codes(self) -> list[str]:
        """The diagnostic codes, in report order (handy in tests)."""
        return [d.code for d in self.diagnostics]

    def described(self) -> str:
        """The errors, each with its code, path, message and clause, one a line.

        What a command that cannot run an invalid document says (``shrink``,
        ``fuzz --regressions``): a stranger's ``['document.ambiguous_subscription']``
        did not say which subscriptions overlapped.
        """
        return "\n".join(
            f"  {d.code} at {d.path or '/'}: {d.message} [{d.clause}]" for d in self.errors
        )

    def to_json(self) -> dict[str, object]:
        """The ``validate --json`` contract."""
        return {
            "valid": self.valid,
            "storable": self.storable,
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }


def sort_diagnostics(diagnostics: Iterable[Diagnostic]) -> tuple[Diagnostic, ...]:
    """Errors first, then by the order the checks found them (stable)."""
    return tuple(sorted(diagnostics, key=lambda d: d.severity is not Severity.ERROR))


def json_path(parts: Sequence[str | int]) -> str:
    """Render a JSONPath such as ``$.steps[2].retry.maxAttempts``.

    >>> json_path(["steps", 2, "retry", "maxAttempts"])
    '$.steps[2].retry.maxAttempts'
    >>> json_path(["with", "a b"])
    "$.with['a b']"
    """
    out = ["$"]
    for part in parts:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif part.isidentifier():
            out.append(f".{part}")
        else:
            escaped = part.replace("\\", "\\\\").replace("'", "\\'")
            out.append(f"['{escaped}']")
    return "".join(out)


class InvalidInput(ValueError):
    """A document, scenario, case or trace a user gave that the model cannot take.

    Raised by loaders for input that is wrong (the user's to fix) and turned
    into diagnostics or a usage error by the oracle.  A plain ``ValueError``
    from the model is a bug in wforacle and is never reported as bad input.
    """

    def __init__(self, message: str, path: str = "$") -> None:
        super().__init__(message)
        self.message = message
        self.path = path


class InvalidScenario(InvalidInput):
    """A scenario that is not one the specification's scenario contract admits."""


class InvalidCase(InvalidInput):
    """A campaign or fixture case (document, scenario, schedule) that cannot be run."""
