"""The configuration of a Harness execution instance (chapter 5), and the readings.

Notation: ``c = (status, states, attempts, outputs, errors, edges, unreached,
discard, unreported, invocations, order, failure)``.  ``states[n]`` is one of PENDING,
READY, RUNNING, RETRYING, SUCCEEDED, FAILED, SKIPPED, CANCELLED; ``edges[e]``
is ``unresolved``, ``satisfied`` or ``negative`` for every forward edge
(control, data, dependency, and one per decision case — A-61); ``unreached``
holds PENDING nodes known unreachable (HX-UNREACH-1: they stay PENDING, their
outgoing edges are negative); ``discard`` holds RUNNING non-idempotent nodes
cancelled under ``any`` whose result will be discarded (HX-CANCEL-2);
``unreported`` holds nodes the eager rules moved to CANCELLED (under ``any``,
HX-CANCEL-1; while unwinding, A-64, A-85) whose ``node_cancelled`` event is
still to be reported — the instance's next events (A-156);
``order`` is completion order (for compensation); ``failure`` the node whose
unhandled failure is propagating.  The compensation handlers left to run are
computed from ``c`` when nothing runs any more (A-86), not kept.

``status``: created → running → (unwinding →) completed | failed.
"""

from __future__ import annotations

from typing import Any

import attrs

from wforacle.model.kernel.explore import canonical

JSON = Any
PENDING, READY, RUNNING, RETRYING = "PENDING", "READY", "RUNNING", "RETRYING"
SUCCEEDED, FAILED, SKIPPED, CANCELLED = "SUCCEEDED", "FAILED", "SKIPPED", "CANCELLED"
TERMINAL = frozenset({SUCCEEDED, FAILED, SKIPPED, CANCELLED})


class ModelLimit(Exception):
    """A document whose permitted executions exceed what the model enumerates."""


@attrs.frozen
class Options:
    """Selectable readings where the chapter is ambiguous (docs/assumptions.md A-61)."""

    all_negative: str = "pending"  # "pending" (HX-JOIN-3) or "skipped" (the earlier draft)
    # what `any` cancels — the whole branch, READY nodes too ("branch"), or only
    # nodes RUNNING or RETRYING ("running"); or the branch as it is at the instant the
    # join fires, a node the cancellation itself readies starting ("instant").
    any_cancels: str = attrs.field(
        default="branch", validator=attrs.validators.in_(("branch", "running", "instant"))
    )
    # whether an HX-4101 / HX-4102 failure (before execution) is retried.
    pre_execution_retry: bool = False
    # with maxConcurrency above 1, loop iterations start in sequence order
    # ("sequence") or in any order ("any").
    loop_start: str = attrs.field(
        default="sequence", validator=attrs.validators.in_(("sequence", "any"))
    )
    # a guard's, condition's or case's reference to something absent reads as
    # null ("null"), or makes every comparison with it false ("incomparable").
    absent_reference: str = attrs.field(
        default="null", validator=attrs.validators.in_(("null", "incomparable"))
    )
    # a decision whose guard is false (SKIPPED) takes every case whose `when`
    # holds, as any SKIPPED node's conditional edges ("conditions"), or still routes
    # to the first case that holds, in document order ("first").
    skipped_decision: str = attrs.field(
        default="conditions", validator=attrs.validators.in_(("conditions", "first"))
    )
    # A-156 (2): a compensation target is invoked with the inputs HX-EXEC-2 binds
    # ("bound") or with none ("none": chapter 8, not included, may give it none).
    compensation_inputs: str = attrs.field(
        default="bound", validator=attrs.validators.in_(("bound", "none"))
    )
    # the error-edge targets of a node that fails while the instance unwinds are
    # CANCELLED like every READY node ("cancelled"), or run: HX-FAIL-2's "all are
    # traversed … the failure is handled" wins over A-64's "unwinding starts no node"
    # for them alone ("run").
    unwinding_handlers: str = attrs.field(
        default="cancelled", validator=attrs.validators.in_(("cancelled", "run"))
    )
    # an unwinding instance cancels its READY nodes and lets RUNNING ones finish
    # ("ready"), or also cancels its RUNNING and RETRYING idempotent nodes ("running";
    # HX-CANCEL-2 keeps a RUNNING idempotent="false" one running either way).
    unwinding_cancels: str = attrs.field(
        default="ready", validator=attrs.validators.in_(("ready", "running"))
    )
    # a case target its decisions routed away from is READY when another edge's
    # join says so ("join"), or unreachable whatever else reaches it, as HX-UNREACH-3 is
    # worded ("routed").
    case_targets: str = attrs.field(
        default="join", validator=attrs.validators.in_(("join", "routed"))
    )
    # whether an input with a `value` escapes HX-UNREACH-5 — it can obtain a
    # value ("obtains": the clause's "can never obtain a value it declared it needs"
    # does not hold) — or only a `default` does, as the clause's "with no default"
    # says ("default").
    unreach_value: str = attrs.field(
        default="obtains", validator=attrs.validators.in_(("obtains", "default"))
    )
    # an input fed by several data edges takes the value of the first of them,
    # in document order, that carries one ("first") or of the last ("last").
    data_fan_in: str = attrs.field(
        default="first", validator=attrs.validators.in_(("first", "last"))
    )
    # a loop iteration's params.index counts from 0 ("zero") or from 1 ("one").
    loop_index: str = attrs.field(default="zero", validator=attrs.validators.in_(("zero", "one")))


READINGS = Options()  # the chapter's readings, or the model's choice where it is open


@attrs.frozen
class Config:
    """A configuration of one execution instance (see the module notation)."""

    status: str = "created"  # created | running | unwinding | completed | failed
    states: tuple[str, ...] = ()
    attempts: tuple[int, ...] = ()
    outputs: tuple[JSON, ...] = attrs.field(default=(), eq=False)
    errors: tuple[str | None, ...] = ()
    edges: tuple[str, ...] = ()
    unreached: frozenset[int] = frozenset()
    discard: frozenset[int] = frozenset()
    unreported: frozenset[int] = frozenset()  # cancelled, node_cancelled not yet reported
    invocations: tuple[int, ...] = ()
    order: tuple[int, ...] = ()
    failure: int | None = None  # the node whose unhandled failure is propagating


def config_key(c: Config) -> str:
    """A canonical rendering of every field of ``c``."""
    return canonical({f.name: _plain(getattr(c, f.name)) for f in attrs.fields(Config)})


def _plain(value: Any) -> JSON:
    if isinstance(value, frozenset):
        return sorted(value)
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def put(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    """``values`` with position ``i`` replaced by ``value``."""
    return (*values[:i], value, *values[i + 1 :])
