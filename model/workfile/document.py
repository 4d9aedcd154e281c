"""The Workfile Core document: frozen attrs records (docs/workfile.md).

The chapter is an execution-semantics excerpt; it cites the sections that
define the document (Names and Bindings, Field Declarations, the retry
modifier, catch, every ``wf.*`` construct) without including them.  This
module is the smallest vocabulary in which every rule of the chapter can be
stated and tested (assumption A-106 and the assumptions each class names).
Values that may hold ``{{ }}`` markers are kept as the JSON the author wrote
(``Value``); model/workfile/expr.py reads them.

Notation: a step list is ``tuple[Step, ...]``; a step is an id, one body and
its modifiers; ``path`` is where the step is in the document (a JSON path
such as ``$.steps[0].create``), ``step_path`` is the chapter's step path
(``create``, ``each.fetch``, ``create.(catch).log``; A-115).
"""

from __future__ import annotations

import json
import re
from typing import Any

import attrs

from wforacle.model.workfile.codes import CodePattern

JSON = Any
Value = Any  # JSON as written, possibly holding {{ }} markers


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()  # a member the author did not write

_PLAIN_KEY = re.compile(r"[a-z_][a-z0-9_]*")


def member(path: str, key: str | int) -> str:
    """The JSON path of ``key`` inside ``path``: ``$.a.b``, ``$.a[0]``, ``$.a['wf.x']``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if _PLAIN_KEY.fullmatch(key):
        return f"{path}.{key}"
    return f"{path}[{key!r}]"


@attrs.frozen
class Field:
    """A field declaration of ``inputs`` (A-109): type, required, default."""

    name: str
    type: str
    required: bool = False
    default: JSON = ABSENT
    path: str = "$"


@attrs.frozen
class Retry:
    """The retry modifier (A-110): ``none`` | ``fixed`` | ``exponential``."""

    policy: str = "none"
    initial_ms: int | None = None
    max_ms: int | None = None
    attempts: int = 1
    honor_retry_after: bool = False
    path: str = "$"


@attrs.frozen
class Handler:
    """One entry of ``catch``: a code pattern, its steps, and the replacement result."""

    pattern: CodePattern
    steps: tuple[Step, ...]
    result: Value = ABSENT
    path: str = "$"


@attrs.frozen
class Modifiers:
    """``when``, ``retry``, ``on_fail``, ``on_unknown``, ``catch``, ``timeout``."""

    when: Value = ABSENT
    retry: Retry | None = None
    on_fail: str | None = None  # "abort" | "continue"; None: propagate (Failure Policy)
    on_unknown: str | None = None  # "abort" | "fail"; None reads as "abort"
    catch: tuple[Handler, ...] = ()
    timeout_ms: int | None = None

    @property
    def effective_attempts(self) -> int:
        """The effective attempt count: 1 without a retry modifier."""
        return self.retry.attempts if self.retry is not None else 1


# -- bodies ----------------------------------------------------------------------------


@attrs.frozen
class Action:
    """A connector action call ``connector.action: { args }``."""

    connector: str
    action: str
    args: Value  # a mapping

    @property
    def name(self) -> str:
        """``connector.action``."""
        return f"{self.connector}.{self.action}"


@attrs.frozen
class ForEach:
    """``wf.for_each`` (A-111): one isolated iteration scope per item."""

    items: Value
    name: str  # the iteration variable (``as``)
    steps: tuple[Step, ...]
    on_iteration_fail: str = "fail_fast"
    concurrency: int = 1


@attrs.frozen
class Parallel:
    """``wf.parallel`` (A-111): named branches, each an isolated scope."""

    branches: tuple[tuple[str, tuple[Step, ...]], ...]
    on_branch_fail: str = "fail_fast"


@attrs.frozen
class Call:
    """``wf.call`` (A-111): a child run of ``workflow`` with ``inputs``; an object result."""

    workflow: str
    inputs: Value


@attrs.frozen
class Stop:
    """``wf.stop``: end the run successfully with ``reason`` and ``result``."""

    reason: Value
    result: Value = ABSENT


@attrs.frozen
class Fail:
    """``wf.fail``: end the run as failed with an author-selected ``code``."""

    code: str
    reason: Value = ABSENT


@attrs.frozen
class Repeat:
    """``wf.repeat`` (A-111): run ``steps`` until ``until`` holds, ``delay`` between."""

    steps: tuple[Step, ...]
    until: Value
    delay_ms: int | None = None
    max_iterations: int | None = None


@attrs.frozen
class Wait:
    """``wf.wait``: wait ``for`` a duration (virtual time)."""

    duration_ms: int


@attrs.frozen
class WaitFor:
    """``wf.wait_for``: wait for a live event of ``event`` whose payload matches ``match``."""

    event: str
    match: Value
    timeout_ms: int | None = None


@attrs.frozen
class Arm:
    """A guarded arm of ``wf.choose``."""

    when: Value
    steps: tuple[Step, ...]


@attrs.frozen
class Choose:
    """``wf.choose``: the first arm whose guard holds runs, else ``else``."""

    arms: tuple[Arm, ...]
    otherwise: tuple[Step, ...] | None = None


def case_name(key: JSON) -> str:
    """A route case's key as a path segment: a string as written, any other key as JSON.

    YAML reads an unquoted key ``true`` as a boolean and ``1`` as a number;
    the path says ``true`` and ``1`` (never Python's ``True``).
    """
    return key if isinstance(key, str) else json.dumps(key)


@attrs.frozen
class Route:
    """``wf.route``: the case equal to ``subject`` runs, else ``else``.

    A case's steps have the path ``<route>.<case_name(key)>.<id>``.
    """

    subject: Value
    cases: tuple[tuple[JSON, tuple[Step, ...]], ...]
    otherwise: tuple[Step, ...] | None = None


@attrs.frozen
class Render:
    """``wf.render``: a template rendered over the ``with`` projection (a string result)."""

    template: str | None
    file: str | None
    projection: Value


Body = (
    Action
    | ForEach
    | Parallel
    | Call
    | Stop
    | Fail
    | Repeat
    | Wait
    | WaitFor
    | Choose
    | Route
    | Render
)

# Bodies whose success creates a binding (Step Evaluation step 5: "on success for
# a value- or scope-producing body, creates its binding"; A-114).
VALUE_BODIES = (Action, Call, Render, WaitFor)
SCOPE_BODIES = (ForEach, Parallel, Repeat, Choose, Route)
VOID_BODIES = (Stop, Fail, Wait)


@attrs.frozen
class Step:
    """A step: an id, one body, its modifiers, and where it is."""

    id: str
    body: Body
    modifiers: Modifiers = Modifiers()
    path: str = "$"
    step_path: str = ""

    @property
    def nested(self) -> tuple[tuple[str, tuple[Step, ...]], ...]:
        """The step lists nested in the body, each with its step-path segment."""
        body = self.body
        if isinstance(body, ForEach | Repeat):
            return (("", body.steps),)
        if isinstance(body, Parallel):
            return tuple(body.branches)
        if isinstance(body, Choose):
            arms = tuple((str(k), arm.steps) for k, arm in enumerate(body.arms))
            return arms + ((("else", body.otherwise),) if body.otherwise is not None else ())
        if isinstance(body, Route):
            cases = tuple((case_name(value), steps) for value, steps in body.cases)
            return cases + ((("else", body.otherwise),) if body.otherwise is not None else ())
        return ()


@attrs.frozen
class Workfile:
    """A Core Workfile: ``inputs``, ``steps``, ``outputs``."""

    inputs: tuple[Field, ...] = ()
    steps: tuple[Step, ...] = ()
    outputs: Value = ABSENT


def walk(steps: tuple[Step, ...]) -> list[Step]:
    """Every step of a list, depth-first in declaration order, handlers included."""
    found: list[Step] = []
    for step in steps:
        found.append(step)
        for _, inner in step.nested:
            found.extend(walk(inner))
        for handler in step.modifiers.catch:
            found.extend(walk(handler.steps))
    return found
