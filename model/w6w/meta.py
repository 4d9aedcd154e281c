"""Step metadata: what an onExecuted report becomes (RFC "StepMeta", W6W-META-*)."""

from __future__ import annotations

from typing import Any

from wforacle.model.w6w.document import Step
from wforacle.model.w6w.scenario import Result

JSON = Any

META_CAP = 256  # W6W-META-11: "A string of exactly 256 characters is kept; 257 is over the cap."


def normalise_meta(report: JSON) -> dict[str, JSON] | None:
    """The StepMeta an onExecuted report yields, or None when it is discarded.

    W6W-META-9: "A StepMeta has exactly these four keys; an engine drops
    anything else it receives."  W6W-META-11: "a missing or non-string
    connectionId becomes null; a report lacking a string app, version or
    action is discarded … A report whose app, version or action is not a
    string of at most 256 characters is likewise discarded; a connectionId
    that is not a string of at most 256 characters becomes null."
    """
    if not isinstance(report, dict):
        return None
    fields: dict[str, JSON] = {}
    for name in ("app", "version", "action"):
        value = report.get(name)
        if not isinstance(value, str) or len(value) > META_CAP:
            return None
        fields[name] = value
    connection = report.get("connectionId")
    ok = isinstance(connection, str) and len(connection) <= META_CAP
    fields["connectionId"] = connection if ok else None
    return fields


def attempt_meta(step: Step, result: Result) -> dict[str, JSON] | None:
    """The meta an attempt records: its FIRST report, normalised (W6W-META-12, W6W-META-22).

    "If it calls more than once, the engine keeps the FIRST report … even
    when the first report is discarded by the normalisation above."  Taken
    only from onExecuted, never from the output (W6W-META-8).  @w6w/* steps
    carry none (W6W-META-15).
    """
    if not result.meta or (step.uses and (step.uses.app or "").startswith("@w6w/")):
        return None
    return normalise_meta(result.meta[0])


def meta_clauses(step: Step, result: Result) -> tuple[str, ...]:
    """The clauses that decided an attempt's meta, the deciding one first.

    Several reports: the first is kept (W6W-META-12, W6W-META-22).  One
    that normalisation changes or discards: W6W-META-11 (and W6W-META-9 for
    the keys it drops).  Otherwise meta comes from onExecuted alone, never
    from the output (W6W-META-8).  An explanation cites the first of these
    when the engine's meta differs (oracle/explain.py).
    """
    if step.uses is not None and (step.uses.app or "").startswith("@w6w/"):
        # W6W-META-15: "So do @w6w/* host-internal steps … and engine control steps"
        # carry no meta.
        return ("W6W-META-15",)
    reports: list[JSON] = list(result.meta or ())
    if len(reports) > 1:
        return ("W6W-META-12", "W6W-META-22", "W6W-META-11", "W6W-META-8")
    if len(reports) == 1 and normalise_meta(reports[0]) != reports[0]:
        return ("W6W-META-11", "W6W-META-9", "W6W-META-22", "W6W-META-8", "W6W-META-12")
    return ("W6W-META-8", "W6W-META-12", "W6W-META-22")
