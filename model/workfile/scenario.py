"""What a Workfile run depends on besides the document (docs/workfile-execution.md, A-118)."""

from __future__ import annotations

import re
from typing import Any

import attrs

from wforacle.model.diagnostics import InvalidScenario
from wforacle.model.workfile.codes import is_code
from wforacle.model.workfile.manifest import STANDARD_NAMESPACES

JSON = Any
RESERVED = ("timeout", "invalid_output")
INDEX = re.compile(r"\[\d+\]")


def static_path(path: str) -> str:
    """A run-time step path without its iteration indexes (``each[1].x`` → ``each.x``, A-115)."""
    return INDEX.sub("", path)


@attrs.frozen
class Scenario:
    """The caller's inputs, each attempt's result, and the cancellation request.

    ``attempts``: step path (run-time or static) → the results of the step's
    successive attempts, the last repeated; a step not named succeeds with
    ``{"id": <run-time path>}`` (A-118).  ``cancel``: the K of "the request
    arrives at the engine's K-th wait" (A-130); the model lets it arrive at
    any point where an attempt is outstanding.
    """

    inputs: dict[str, JSON] = attrs.field(factory=dict, eq=False)
    attempts: dict[str, tuple[JSON, ...]] = attrs.field(factory=dict, eq=False)
    cancel: int | None = None
    dry_run: bool = False

    @classmethod
    def of(cls, value: JSON) -> Scenario:
        """A scenario from JSON; ``InvalidScenario`` says what is wrong and where."""
        if not isinstance(value, dict):
            raise InvalidScenario("a Workfile scenario is a JSON object")
        unknown = sorted(set(value) - {"inputs", "attempts", "cancel", "dryRun"})
        if unknown:
            raise InvalidScenario(f"unknown scenario member {unknown[0]!r}", f"$.{unknown[0]}")
        inputs = value.get("inputs", {})
        if not isinstance(inputs, dict):
            raise InvalidScenario("scenario inputs must be a JSON object", "$.inputs")
        raw = value.get("attempts", {})
        if not isinstance(raw, dict):
            raise InvalidScenario("scenario attempts must be a JSON object", "$.attempts")
        attempts: dict[str, tuple[JSON, ...]] = {}
        for path, results in raw.items():
            where = f"$.attempts[{path!r}]"
            if not isinstance(results, list) or not results:
                raise InvalidScenario("a step's attempts are a nonempty JSON array", where)
            for k, result in enumerate(results):
                _check_result(result, f"{where}[{k}]")
            attempts[path] = tuple(results)
        cancel = value.get("cancel")
        if cancel is not None and (
            not isinstance(cancel, int) or isinstance(cancel, bool) or cancel < 1
        ):
            raise InvalidScenario("cancel is a positive integer (the K-th wait)", "$.cancel")
        dry_run = value.get("dryRun", False)
        if not isinstance(dry_run, bool):
            raise InvalidScenario("dryRun is a boolean", "$.dryRun")
        return cls(inputs, attempts, cancel, dry_run)

    def result(self, path: str, attempt: int) -> JSON:
        """The result of attempt ``attempt`` (1-based) of the step at run-time ``path``."""
        scripted = self.attempts.get(path) or self.attempts.get(static_path(path))
        if not scripted:
            return {"output": {"id": path}}
        return scripted[min(attempt, len(scripted)) - 1]


def _check_result(result: JSON, where: str) -> None:
    if not isinstance(result, dict) or ("output" in result) == ("error" in result):
        raise InvalidScenario('an attempt result has exactly one of "output" and "error"', where)
    unknown = sorted(set(result) - {"output", "error", "details", "retryAfterMs"})
    if unknown:
        raise InvalidScenario(f"unknown attempt result member {unknown[0]!r}", where)
    if "error" in result:
        code = result["error"]
        if not isinstance(code, str) or not is_code(code):
            raise InvalidScenario("error is an exact connector code such as svc.busy", where)
        if code in RESERVED or code.split(".")[0] in STANDARD_NAMESPACES:
            # WF-CLASS-7: a connector cannot produce a reserved or Standard code.
            raise InvalidScenario(f"{code} is not a code a connector produces (WF-CLASS-7)", where)
        delay = result.get("retryAfterMs")
        if delay is not None and (
            not isinstance(delay, int) or isinstance(delay, bool) or delay < 0
        ):
            raise InvalidScenario("retryAfterMs is a non-negative integer", where)
    elif "details" in result or "retryAfterMs" in result:
        raise InvalidScenario("details and retryAfterMs belong to an error result", where)
