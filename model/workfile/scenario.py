"""What a Workfile run depends on besides the document (docs/workfile-execution.md, A-118)."""

from __future__ import annotations

import itertools
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
class Stimulus:
    """What the environment does at one ``wait``: an event accepted at ``at``, or the clock moving.

    State-form runs only (docs/workfile-stateful.md, A-152): ``at`` is
    milliseconds of virtual time since the run started; ``event`` is a
    literal trigger reference, None for a bare clock advance.
    """

    wait: int
    at: int
    event: str | None = None
    payload: dict[str, JSON] = attrs.field(factory=dict, eq=False)


@attrs.frozen
class Scenario:
    """The caller's inputs, each attempt's result, and the cancellation request.

    ``attempts``: step path (run-time or static) → the results of the step's
    successive attempts, the last repeated; a step not named succeeds with
    ``{"id": <run-time path>}`` (A-118).  ``cancel``: the K of "the request
    arrives at the engine's K-th wait" (A-130); the model lets it arrive at
    any point of the run.  ``expire``: run-time step path → the K of the
    wait at which that step's ``timeout`` expires; ``cancel_child``: the
    path of a ``wf.call`` → the K of the wait at which the deployment cancels
    its child run (A-141, A-140).
    """

    inputs: dict[str, JSON] = attrs.field(factory=dict, eq=False)
    attempts: dict[str, tuple[JSON, ...]] = attrs.field(factory=dict, eq=False)
    cancel: int | None = None
    dry_run: bool = False
    expire: dict[str, int] = attrs.field(factory=dict, eq=False)
    cancel_child: dict[str, int] = attrs.field(factory=dict, eq=False)
    events: tuple[Stimulus, ...] = ()  # in the order of their waits

    @property
    def interrupts(self) -> dict[int, tuple[str, str | None]]:
        """The waits at which the oracle interrupts the engine: K → (what, step path)."""
        found: dict[int, tuple[str, str | None]] = {}
        if self.cancel is not None:
            found[self.cancel] = ("cancel", None)
        for path, k in self.expire.items():
            found[k] = ("expire", path)
        for path, k in self.cancel_child.items():
            found[k] = ("cancelChild", path)
        return found

    @classmethod
    def of(cls, value: JSON) -> Scenario:
        """A scenario from JSON; ``InvalidScenario`` says what is wrong and where."""
        if not isinstance(value, dict):
            raise InvalidScenario("a Workfile scenario is a JSON object")
        members = {"inputs", "attempts", "cancel", "dryRun", "expire", "cancelChild", "events"}
        unknown = sorted(set(value) - members)
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
        expire = _waits(value, "expire")
        cancel_child = _waits(value, "cancelChild")
        waits = [*([cancel] if cancel is not None else []), *expire.values()]
        waits += cancel_child.values()
        events = _stimuli(value.get("events", []))
        waits += [s.wait for s in events]
        if len(set(waits)) != len(waits):
            raise InvalidScenario(
                "cancel, expire, cancelChild and events name distinct waits "
                "(one interruption per wait)",
                "$",
            )
        return cls(inputs, attempts, cancel, dry_run, expire, cancel_child, events)

    def result(self, path: str, attempt: int) -> JSON:
        """The result of attempt ``attempt`` (1-based) of the step at run-time ``path``."""
        scripted = self.attempts.get(path) or self.attempts.get(static_path(path))
        if not scripted:
            return {"output": {"id": path}}
        return scripted[min(attempt, len(scripted)) - 1]


def _stimuli(raw: JSON) -> tuple[Stimulus, ...]:
    """``events``: stimuli ordered by wait, their instants nondecreasing (A-152)."""
    if not isinstance(raw, list):
        raise InvalidScenario("events is a JSON array of stimuli", "$.events")
    found: list[Stimulus] = []
    for k, item in enumerate(raw):
        where = f"$.events[{k}]"
        if not isinstance(item, dict):
            raise InvalidScenario('a stimulus is {"wait", "at", "event"?, "payload"?}', where)
        unknown = sorted(set(item) - {"wait", "at", "event", "payload"})
        if unknown:
            raise InvalidScenario(f"unknown stimulus member {unknown[0]!r}", where)
        wait, at = item.get("wait"), item.get("at")
        if not isinstance(wait, int) or isinstance(wait, bool) or wait < 1:
            raise InvalidScenario("wait is a positive integer (the K-th wait)", f"{where}.wait")
        if not isinstance(at, int) or isinstance(at, bool) or at < 0:
            raise InvalidScenario(
                "at is a nonnegative integer (milliseconds of virtual time)", f"{where}.at"
            )
        event, payload = item.get("event"), item.get("payload")
        if (event is None) != (payload is None):
            raise InvalidScenario("event and payload go together", where)
        if event is not None and (not isinstance(event, str) or "." not in event):
            raise InvalidScenario(
                "event is a trigger reference such as messaging.approval", f"{where}.event"
            )
        if payload is not None and not isinstance(payload, dict):
            raise InvalidScenario("payload is a JSON object", f"{where}.payload")
        found.append(Stimulus(wait, at, event, payload or {}))
    found.sort(key=lambda s: s.wait)
    for before, after in itertools.pairwise(found):
        if after.at < before.at:
            raise InvalidScenario(
                f"virtual time does not run backwards: the stimulus at wait {after.wait} is "
                f"at {after.at} ms, before the one at wait {before.wait} ({before.at} ms)",
                "$.events",
            )
    return tuple(found)


def _waits(value: dict[str, JSON], member: str) -> dict[str, int]:
    """``{run-time step path: K}``: the K-th wait (A-141, A-140)."""
    raw = value.get(member, {})
    if not isinstance(raw, dict):
        raise InvalidScenario(
            f"{member} is a JSON object: step path → the K-th wait", f"$.{member}"
        )
    for path, k in raw.items():
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise InvalidScenario(
                f"{member}: the wait is a positive integer (the K-th wait)", f"$.{member}[{path!r}]"
            )
    return dict(raw)


def _check_result(result: JSON, where: str) -> None:
    if isinstance(result, dict) and result.get("timeout") is not None:
        # The attempt's deadline passed first; ``late``: the response after it.
        if result["timeout"] is not True or sorted(set(result) - {"timeout", "late"}):
            raise InvalidScenario(
                'a timed-out attempt is {"timeout": true, "late"?: RESULT}', where
            )
        if "late" in result:
            _check_result(result["late"], f"{where}.late")
            if "timeout" in result["late"]:
                raise InvalidScenario("a late response is an output or an error", f"{where}.late")
        return
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
