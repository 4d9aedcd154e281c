"""The configuration of a w6w run: the records the rules read and write.

Notation (RFC "Execution model", "Run state", Amendments 2026-07-29, -08-21,
-10-07, -10-12):

    c = (status, clock, steps, activated, skipped, failure, errors, …)

``status`` is the run's (queued → running → succeeded | failed | canceled;
a run refused at its start goes from queued to failed, A-72).  ``steps``
holds one StepState per plan position ``P`` (W6W-PLAN-7); a running step's
``stage`` is ``invoke`` (an attempt is due) or ``decide`` (an attempt
failed with ``pending``: retry or finish).
``activated`` and ``skipped`` hold edge keys ``(from, to, when)``
(W6W-EDGE-11: "The engine keys a skipped edge by (from, to, when)").
``failure`` is the StepError that ends the run (the first by plan order,
W6W-FAN-10); ``errors`` is RunState.stepErrors.  The remaining fields serve
the run-level handler (``run_attempt``, ``rerouted``, ``handled``), the
scenario's invocation counters, checkpoints and crashes (``checkpoints``,
``crash_due``, ``resumed``) and cancellation (``signalled``).

Strands (W6W-FAN-5..7) are a function of the graph (run.py:
``assign_strands``), so they are not part of ``c``.

``config_key`` renders every field (the renderers, a speed-only matter, are
in fast.py); ``Replay`` is what a replay reuses; ``Launch`` selects the
reading of A-74.
"""

from __future__ import annotations

import functools
import itertools
from enum import StrEnum
from typing import Any

import attrs

from wforacle.model.diagnostics import InvalidInput
from wforacle.model.w6w import fast
from wforacle.model.w6w.document import Workflow
from wforacle.model.w6w.scenario import StepError

JSON = Any
EdgeKey = tuple[str, str, str]

TERMINAL = frozenset({"succeeded", "failed", "skipped"})


@attrs.frozen
class StepState:
    """One StepExecution (RFC "StepExecution") as the run sees it."""

    status: str = "pending"  # pending | running | succeeded | failed | skipped
    attempt: int = 0
    input: JSON = attrs.field(default=None, eq=False)
    output: JSON = attrs.field(default=None, eq=False)
    error: StepError | None = None
    started_at: int | None = None
    finished_at: int | None = None
    meta: JSON = attrs.field(default=None, eq=False)  # a normalised StepMeta, or None
    # While running: "invoke" (an attempt is due), "decide" (it failed), or
    # "suspended" (a wait step awaiting its resumption, not in flight).
    stage: str | None = None
    pending: StepError | None = None  # the failed attempt's error, awaiting the decision
    # A control's or call's sub-block records (controls.Ending.records), or None.
    inner: JSON = attrs.field(default=None, eq=False)
    # The input the action receives when it differs from the recorded ``input``:
    # it holds a secret's plaintext, which is never recorded; else None.
    plaintext: JSON = attrs.field(default=None, eq=False)

    @property
    def invoked(self) -> JSON:
        """The input the action is invoked with (plaintext secrets included)."""
        return self.input if self.plaintext is None else self.plaintext

    @functools.cached_property
    def key(self) -> str:
        """Canonical text of every field (computed once: a StepState never changes).

        Every attrs field, each by its renderer (see ``config_key``): JSON values
        memoised per object, errors cached, scalars by ``repr``.
        """
        return "(" + "\x1e".join([render(getattr(self, n)) for n, render in _STEP_RENDERERS]) + ")"


@attrs.frozen
class Config:
    """A configuration of one run (see the module notation)."""

    status: str = "queued"
    clock: int = 0
    steps: tuple[StepState, ...] = ()
    variables: JSON = attrs.field(default=None, eq=False)
    activated: frozenset[EdgeKey] = frozenset()
    skipped: frozenset[EdgeKey] = frozenset()
    failure: tuple[str, StepError] | None = None
    errors: tuple[tuple[str, StepError], ...] = ()
    rejection: JSON = attrs.field(default=None, eq=False)
    invocations: tuple[int, ...] = ()  # per plan position, across the whole run
    run_attempt: int = 1
    rerouted: bool = False
    handled: bool = False  # the run-level handler resolved the failure
    handled_output: JSON = attrs.field(default=None, eq=False)
    checkpoints: int = 0  # checkpoints written so far (W6W-STATE-2)
    crash_due: bool = False  # the host crashes right after the last checkpoint
    resumed: bool = False  # this execution resumed a crashed one
    signalled: bool = False  # the host's abort signal has fired (W6W-HOST-3)
    sub_invocations: tuple[tuple[str, int], ...] = ()  # sub-block steps' invocations, by id
    suspensions: int = 0  # wait suspensions so far (each resumed one counts)
    waiting: int = 0  # steps suspended now (kept so that draining is known in O(1))
    suspension: tuple[str, str] | None = None  # a suspended run's (step id, resume token)


_STEP_RENDERERS = fast.step_renderers(StepState)
_KEY_RENDERERS = fast.config_renderers(Config)


def config_key(c: Config) -> str:
    """A canonical rendering of every field of ``c`` (for exploration).

    Derived from the attrs fields themselves, so a field added to Config can
    never be left out of the key (two configurations with equal keys are the
    same configuration).  Each field has a renderer chosen once by its
    value's type (fast.py: ``config_renderers``).
    """
    return "\x1f".join([render(getattr(c, name)) for name, render in _KEY_RENDERERS])


@attrs.frozen
class Replay:
    """What a replay reuses: the recorded outputs of the original run's succeeded steps.

    RFC "Replay": "for each step that succeeded in the original run, it uses
    the recorded StepExecution.output verbatim. Steps that were pending or
    failed run fresh."  ``fresh`` holds the steps replayed "from" (W6W-FAN-11:
    "from replays that step plus all its graph descendants").
    """

    outputs: dict[str, JSON] = attrs.field(eq=False)
    fresh: frozenset[str] = frozenset()
    metas: dict[str, JSON] = attrs.field(factory=dict, eq=False)

    @classmethod
    def of(cls, run_state: JSON, workflow: Workflow, start: str | None = None) -> Replay:
        """The replay of a recorded RunState, optionally from step ``start``."""
        if not isinstance(run_state, dict):
            raise InvalidInput("a replayed RunState is a JSON object")
        records = run_state.get("steps", {})
        if not isinstance(records, dict):  # issue 19: a list here was an internal error
            raise InvalidInput("a replayed RunState's steps must be an object", "$.steps")
        outputs = {
            step_id: record.get("output")
            for step_id, record in records.items()
            if isinstance(record, dict) and record.get("status") == "succeeded"
        }
        metas = {
            step_id: records[step_id]["meta"]
            for step_id in outputs
            if isinstance(records[step_id].get("meta"), dict)
        }
        fresh: frozenset[str] = frozenset()
        if start is not None:
            fresh = frozenset({start} | descendants(workflow, start))
        return cls(outputs, fresh, metas)


def descendants(workflow: Workflow, step_id: str) -> set[str]:
    """Every step reachable from ``step_id`` along edges of either lane.

    Without edges the graph is the implicit chain: RFC Workflow.edges "When
    absent, the engine treats steps as a linear chain in declared order"
    (W6W-PLAN-2: "If edges is empty or absent → the plan is steps in declared
    order (implicit linear chain)"), so a step's descendants are the steps
    declared after it.  With edges, only the edges count (finding F-12).
    """
    successors: dict[str, list[str]] = {}
    if not workflow.edges:
        ids = [step.id for step in workflow.steps]
        successors = {a: [b] for a, b in itertools.pairwise(ids)}
    for edge in workflow.edges:
        successors.setdefault(edge.from_, []).append(edge.to)
    seen: set[str] = set()
    frontier = [step_id]
    while frontier:
        for successor in successors.get(frontier.pop(), []):
            if successor not in seen:
                seen.add(successor)
                frontier.append(successor)
    return seen


class Launch(StrEnum):
    """When a strand launches its next step (assumption A-74; W6W-FAN-5, W6W-FAN-9).

    ``separate``: a launch is a transition of its own, so another strand's
    completion — a failure that starts the drain — may come between a step's
    end and its strand's next launch.  ``eager``: every launch a completion
    makes possible happens before any other step's attempt ends (an engine
    that launches from its completion handler).  Every ``eager`` trace is a
    ``separate`` trace, so the default judges both kinds of engine; select
    ``eager`` to hold an engine to it (as ``TieBreak`` selects a plan).
    """

    SEPARATE = "separate"
    EAGER = "eager"


@attrs.frozen
class Options:
    """The readings the model takes where the RFC is open (docs/assumptions.md; issue 18).

    Each field is one assumption's reading, the model's choice the default:
    ``launch`` A-74; ``indegree`` A-50 gap (1) — whether a step's indegree
    counts its inbound edges or their distinct sources (a success and an
    error edge from one source: a join, or a single-source successor that a
    parallel source may put on a new strand); ``resolution_retry`` A-41 —
    whether a with block that fails to resolve is retried like an execute
    failure the policy covers (each retry resolves again) or never;
    ``chain_check`` A-37 — whether an ``=`` payload shaped like a fallback
    chain is root-checked per operand like an infix chain ("part") or exempt
    ("infix": only a marker written with || / ?? is checked).
    """

    launch: Launch = Launch.SEPARATE
    indegree: str = attrs.field(
        default="sources", validator=attrs.validators.in_(("sources", "edges"))
    )
    resolution_retry: bool = False
    chain_check: str = attrs.field(
        default="part", validator=attrs.validators.in_(("part", "infix"))
    )


READINGS = Options()  # the model's choices


class Unsupported(Exception):
    """The document uses something this semantics does not model yet."""
