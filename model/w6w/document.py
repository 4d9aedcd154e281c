"""The w6w workflow document: frozen attrs classes, one per RFC shape.

Notation: ``Workflow`` is the definition (RFC "Field reference"); each class
mirrors one table of the RFC, field names in Python spelling (``on_error`` for
``onError``).  Fields the RFC marks required for a *runnable* step may be
``None`` here, because a stored draft may lack them (RFC note under the Step
table: "it is not a storage-time constraint").  Presentation-only fields
(``notes``, ``position``, ``settings``) are carried but never read by a rule
(W6W-PRES-1: "execution is byte-for-byte identical with them present, absent,
or arbitrary").

Parsing from JSON lives in ``loader.py``; nothing here parses.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterator
from typing import Any

import attrs

JSON = Any  # a value as json.loads returns it

CONTROL_APP = "@w6w/control"  # W6W-EDGE-8: control steps run no retry loop
CALL_APP = "@w6w/call"  # W6W-EDGE-8: @w6w/call steps run no retry loop (assumption A-07)


class OnError(enum.StrEnum):
    """Step.onError (W6W-FIELD-13)."""

    FAIL = "fail"
    CONTINUE = "continue"
    CONTINUE_RECORD = "continue-record"


class RunOnError(enum.StrEnum):
    """Workflow.onError, a CallableOnError (W6W-RUNERR-4; shape: assumption A-09)."""

    FAIL = "fail"
    CONTINUE = "continue"


class When(enum.StrEnum):
    """Edge.when (W6W-FIELD-15, W6W-EDGE-3)."""

    SUCCESS = "success"
    ERROR = "error"


class Backoff(enum.StrEnum):
    """RetryPolicy.backoff (W6W-FIELD-21, W6W-RETRY-3)."""

    FIXED = "fixed"
    EXPONENTIAL = "exponential"


class FanOut(enum.StrEnum):
    """Step.fanOut (W6W-FAN-3)."""

    SEQUENTIAL = "sequential"
    PARALLEL = "parallel"


@attrs.frozen
class RetryPolicy:
    """How often, and how far apart, a failed step or run is attempted."""

    max_attempts: int
    backoff: Backoff = Backoff.FIXED
    delay_ms: float = 0


@attrs.frozen
class Uses:
    """The Invocation target (W6W-FIELD-10); ``app``/``action`` may be unset in a draft."""

    app: str | None
    action: str | None
    connection: str | None = None


@attrs.frozen
class SubBlock:
    """Steps owned by a control's sub-block (foreach.body, parallel.branches, if branches).

    Their layout inside ``with`` is not fixed by the RFC: assumption A-06.
    """

    where: tuple[str | int, ...]  # its place under the owner's ``with``: ("body",), ("branches", 0)
    steps: tuple[Step, ...]


@attrs.frozen(slots=False)  # a __dict__ for the kinds below, computed once (issue 16)
class Step:
    """A graph node: one Invocation (RFC "Step")."""

    id: str
    uses: Uses | None = None
    with_: dict[str, JSON] = attrs.field(factory=dict, eq=True, hash=False)
    retry: RetryPolicy | None = None
    on_error: OnError = OnError.FAIL
    fan_out: FanOut = FanOut.SEQUENTIAL
    ports_in: int | None = None  # None: absent (default 1, W6W-FAN-1)
    ports_out: int | None = None  # None: absent or "many" (the default, W6W-FAN-1)
    blocks: tuple[SubBlock, ...] = ()
    notes: JSON = attrs.field(default=None, eq=False, hash=False)
    position: JSON = attrs.field(default=None, eq=False, hash=False)

    @functools.cached_property
    def is_control(self) -> bool:
        """A @w6w/control step: interpreted by the engine, no retry loop."""
        return self.uses is not None and self.uses.app == CONTROL_APP

    @functools.cached_property
    def is_call(self) -> bool:
        """A @w6w/call step: a composition hop, no retry loop."""
        return self.uses is not None and self.uses.app == CALL_APP

    @functools.cached_property
    def runs_retry_loop(self) -> bool:
        """W6W-EDGE-8: "Two step kinds run no retry loop at all"."""
        return not (self.is_control or self.is_call)


@attrs.frozen
class Edge:
    """A directed dependency (RFC "Edge"); ``when`` selects the lane (W6W-EDGE-3)."""

    from_: str
    to: str
    when: When = When.SUCCESS


@attrs.frozen
class WorkflowVariable:
    """An input of the run, readable as ``vars.<key>`` (RFC "WorkflowVariable")."""

    key: str
    type: str | None = None
    required: bool = False
    has_default: bool = False
    default: JSON = attrs.field(default=None, eq=True, hash=False)


@attrs.frozen
class Settings:
    """Authoring presentation (W6W-PRES-*).  The engine never reads it."""

    raw: JSON = attrs.field(default=None, eq=False, hash=False)

    def _flag(self, name: str) -> bool:
        # W6W-PRES-3: "Only an explicit false turns a feature off."
        if isinstance(self.raw, dict):
            return self.raw.get(name) is not False
        return True

    @property
    def auto_save(self) -> bool:
        """W6W-PRES-2: ``settings.autoSave ?? true`` (W6W-FIELD-6, W6W-PRES-4)."""
        return self._flag("autoSave")

    @property
    def save_position(self) -> bool:
        """W6W-PRES-2: ``settings.savePosition ?? true``."""
        return self._flag("savePosition")


@attrs.frozen
class Workflow:
    """A workflow definition (RFC "Workflow")."""

    manifest_version: str | None
    id: str | None
    name: str | None
    steps: tuple[Step, ...]
    edges: tuple[Edge, ...] = ()
    key: str | None = None
    display_name: str | None = None
    description: str | None = None
    trigger: JSON = attrs.field(default=None, eq=True, hash=False)
    variables: tuple[WorkflowVariable, ...] = ()
    settings: Settings = Settings()
    retry: RetryPolicy | None = None
    on_error: RunOnError = RunOnError.FAIL
    reroute: JSON = attrs.field(default=None, eq=True, hash=False)

    def step(self, step_id: str) -> Step:
        """The main-graph step called ``step_id`` (first one, if ids repeat)."""
        for step in self.steps:
            if step.id == step_id:
                return step
        raise KeyError(step_id)

    def all_steps(self) -> list[tuple[tuple[str | int, ...], Step]]:
        """Every step, main graph and sub-blocks, with its path (depth-first)."""
        found: list[tuple[tuple[str | int, ...], Step]] = []

        def visit(path: tuple[str | int, ...], step: Step) -> None:
            found.append((path, step))
            for block in step.blocks:
                for i, inner in enumerate(block.steps):
                    visit((*path, "with", *block.where, i), inner)

        for i, step in enumerate(self.steps):
            visit(("steps", i), step)
        return found


def written_steps(steps: Any) -> list[Any]:
    """A step list as written (JSON) and the steps of its controls' blocks (A-06), depth-first.

    For documents not loaded into ``Workflow`` (the campaigns' drafts, a
    called workflow's document): what is not a list or a step object is
    passed over.
    """
    return [step for _, step in written_paths(steps)]


def written_paths(steps: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """``written_steps``, each with its path from ``steps``' container.

    A path is the keys that lead to the step: ``path + (1,)`` for the second
    step, ``path + (1, "with", "body", 0)`` for the first step of its foreach
    body, ``path + (1, "with", "branches", 0, 2)`` in a parallel's branch.
    """
    for k, step in enumerate(steps if isinstance(steps, list) else ()):
        if not isinstance(step, dict):
            continue
        yield (*path, k), step
        raw = step.get("with")
        with_: dict[str, Any] = raw if isinstance(raw, dict) else {}
        for key in ("then", "else", "body"):
            yield from written_paths(with_.get(key), (*path, k, "with", key))
        branches = with_.get("branches")
        for b, branch in enumerate(branches if isinstance(branches, list) else ()):
            yield from written_paths(branch, (*path, k, "with", "branches", b))
