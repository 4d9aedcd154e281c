"""The rules of a Harness execution instance, in chapter 5's order.

Notation: ``run`` is the instance's fixed parts (run.py), ``c`` its
configuration (config.py), ``i`` a node's position.

Two kinds of rule.  The *transition rules* are the choices chapter 5 leaves
to the runtime (HX-SCHED-1: "any READY nodes in any order, and any number of
them concurrently"): each is a pure function returning the transitions it
permits — none or one, except a loop, which ends once for each way its
iterations can end — every transition labelled with the rule's own name.
``HarnessRun.enabled`` looks up in ``NODE_TABLE`` and ``INSTANCE_TABLE``
which of them apply, and the rules of one row exclude one another.  The
*eager rules* are what the chapter determines: they apply after every
transition (``reach``, ``settle``) — edge resolution, joins (HX-JOIN),
cancellation under ``any`` (HX-CANCEL), unreachability propagation
(HX-UNREACH), handler activation by error edges (HX-FAIL-2) — so two runs
differ only where the chapter lets runtimes differ.

Readings chosen where the chapter lost its text (A-61): an incoming forward
edge is satisfied when its source reached SUCCEEDED — or SKIPPED, for every
forward type ("a terminal success whose control successors still run";
a data edge from a SKIPPED producer is satisfied but carries no value,
HX-DATA-2) — and its condition holds; it is resolved-negative when its
condition is false, its source FAILED or was CANCELLED, its source is
unreachable, or (a case edge) its decision routed elsewhere.  Join table:
``all`` fires when every incoming edge is resolved and at least one is
satisfied; ``any`` when one is satisfied; ``quorum`` when ``quorum`` are.
``Options.all_negative`` selects the earlier draft's reading (SKIPPED) for
comparison; the chapter's is PENDING (HX-JOIN-3).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from enum import Enum, auto
from typing import Any

from attrs import evolve

from wforacle.model.harness.config import (
    CANCELLED,
    FAILED,
    PENDING,
    READY,
    RETRYING,
    RUNNING,
    SKIPPED,
    SUCCEEDED,
    Config,
    ModelLimit,
    put,
)
from wforacle.model.harness.document import Harness, JoinPolicy, Kind
from wforacle.model.harness.run import Execution, Run
from wforacle.model.kernel.explore import canonical
from wforacle.model.kernel.lts import Transition

JSON = Any
PRE_EXECUTION = frozenset({"HX-4101", "HX-4102"})  # failures of HX-EXEC steps 2 and 3
MAX_LOOP_OUTCOMES = 4096  # executions of one loop the model enumerates before it says so

InstanceRule = Callable[[Run, Config], list[Transition[Config]]]
NodeRule = Callable[[Run, Config, int], list[Transition[Config]]]


# -- the instance starts (HX-INST-1, HX-START) ---------------------------------------


def start(run: Run, c: Config) -> list[Transition[Config]]:
    """Start the instance: its entry nodes become READY.

    HX-START-1: with ``@entry``, that node; HX-START-2 / HX-START-3: else
    every node with no incoming edge.
    """
    if c.status != "created":
        return []
    states = list(c.states)
    for i in run.entry:
        states[i] = READY
    target = settle(run, evolve(c, status="running", states=tuple(states)))
    return [
        Transition(
            {"event": "instance_started", "entry": [run.nodes[i].id for i in run.entry]},
            start.__name__,
            ("HX-INST-1", "HX-START-1", "HX-START-2", "HX-START-3"),
            target,
        )
    ]


# -- readiness and joins (HX-READY, HX-JOIN) -----------------------------------------


def join(run: Run, i: int, edges: Sequence[str], unreached: set[int]) -> str:
    """Judge node ``i``'s join: ``ready``, ``unreachable`` or ``waiting`` (the join table, A-61).

    A decision's case into ``i`` is one incoming edge among the others: a
    case target that another satisfied edge reaches is READY, though its
    decision routed elsewhere (A-179: HX-UNREACH-3 read with HX-UNREACH-1).
    Under A-179's other reading (``Options(case_targets="routed")``) it is
    unreachable once every case into it is negative, as HX-UNREACH-3 is
    worded: "named by a case/@to and every decision that could route to it
    has routed elsewhere".

    HX-READY-1: "A node in PENDING becomes READY when its join condition
    over incoming edges is satisfied"; HX-READY-4: a negative edge
    "neither blocks forever nor counts toward a join"; HX-UNREACH-4:
    unreachable when "every incoming forward edge is resolved-negative";
    HX-JOIN-4 / HX-JOIN-6: not reached is not skipped — it stays PENDING.
    """
    incoming = run.incoming[i]
    if not incoming:
        return "unreachable"  # a root outside the entry set (HX-START-1)
    satisfied = sum(edges[k] == "satisfied" for k in incoming)
    unresolved = sum(edges[k] == "unresolved" for k in incoming)
    node = run.nodes[i]
    if starved(run, i, edges, unreached):
        return "unreachable"
    if run.options.case_targets == "routed":
        cases = [k for k in incoming if run.links[k].type == "case"]
        if cases and all(edges[k] == "negative" for k in cases):
            return "unreachable"  # A-179=routed: HX-UNREACH-3 as worded
    if node.join is JoinPolicy.ANY:
        if satisfied >= 1:
            return "ready"
        return "unreachable" if unresolved == 0 else "waiting"
    if node.join is JoinPolicy.QUORUM:
        quorum = node.quorum or len(incoming)
        if satisfied >= quorum:
            return "ready"
        # A-61 / F-10: a quorum that can no longer be met is unreachable.
        return "unreachable" if satisfied + unresolved < quorum else "waiting"
    if unresolved:
        return "waiting"
    # HX-JOIN-3: "if every incoming edge resolved negative ... it remains PENDING".
    return "ready" if satisfied >= 1 else "unreachable"


def starved(run: Run, i: int, edges: Sequence[str], unreached: set[int]) -> bool:
    """HX-UNREACH-5: a required input with no default "comes from an unreachable source".

    A source that FAILED, was CANCELLED or whose edge's condition is false was
    reached: the consumer runs and fails HX-4101 (HX-DATA-3; HX-DATA-4: "MUST
    fail rather than pass a null").  An input with a ``value`` can still
    obtain one (HX-EXEC-2: "from its incoming data edge, or from value"), so
    the clause's reason does not hold for it — unless A-166's other reading
    (``Options.unreach_value`` "default") reads "with no default" as written.
    """
    node = run.nodes[i]
    value_escapes = run.options.unreach_value == "obtains"
    for k in run.incoming[i]:
        link = run.links[k]
        if link.type == "data" and edges[k] == "negative" and link.source in unreached:
            item = next((x for x in node.inputs if x.name == link.to_port), None)
            if item is None or not item.required or item.has_default:
                continue
            if not (item.has_value and value_escapes):
                return True
    return False


# -- cancellation under any (HX-CANCEL) ------------------------------------------------


def cancel_branch(
    run: Run,
    join_node: int,
    states: list[str],
    edges: list[str],
    discard: set[int],
    unreported: set[int],
) -> None:
    """Cancel what could only have reached the ``any`` join that became READY.

    HX-CANCEL-1: READY, RETRYING and RUNNING idempotent nodes of the branch
    are CANCELLED (``Options(any_cancels="running")``: READY ones run,
    A-81; "instant": as "branch", ``settle``), each to be reported
    (``report_branch_cancellation``, A-156);
    HX-CANCEL-2: a RUNNING non-idempotent one "let it finish and then
    discard the result".  Updates ``states``, ``edges``, ``discard`` and
    ``unreported``.
    """
    for j in run.branches.get(join_node, ()):
        if (
            states[j] == RETRYING
            or (states[j] == READY and run.options.any_cancels != "running")
            or (states[j] == RUNNING and run.nodes[j].idempotent)
        ):
            states[j] = CANCELLED
            unreported.add(j)
            _negate_outgoing(run, j, edges)
        elif states[j] == RUNNING:
            discard.add(j)


def _negate_outgoing(run: Run, i: int, edges: list[str]) -> None:
    for k in run.outgoing[i]:
        if edges[k] == "unresolved":
            edges[k] = "negative"


# -- unreachability (HX-UNREACH) -------------------------------------------------------


def mark_unreachable(
    run: Run, i: int, states: list[str], edges: list[str], unreached: set[int]
) -> None:
    """Node ``i`` is unreachable: its outgoing edges resolve negative; it stays PENDING.

    HX-UNREACH-1: "A node that no path will reach makes its own outgoing
    edges resolved-negative, recursively"; HX-UNREACH-2: "A runtime MUST
    propagate unreachability so that such a join can resolve on the branch
    that was taken".  It stays PENDING (HX-DONE-2).  Under
    ``Options(all_negative="skipped")`` a node whose every incoming edge is
    negative is SKIPPED instead, the earlier draft's reading (for comparison).
    """
    # A node with no incoming forward edge (a handler) is no join: never vacuously
    # "all negative" (a stranger's Harness runtime, issue 18).
    incoming = run.incoming[i]
    all_negative = bool(incoming) and all(edges[k] == "negative" for k in incoming)
    if run.options.all_negative == "skipped" and all_negative:
        states[i] = SKIPPED
        for k in run.outgoing[i]:
            if edges[k] == "unresolved":
                edges[k] = "satisfied"
        return
    unreached.add(i)
    _negate_outgoing(run, i, edges)


def may_be_handled(
    run: Run, status: str, i: int, states: Sequence[str], unreached: set[int]
) -> bool:
    """Whether an error or compensation edge can still reach ``i`` (A-84).

    An error edge can while its source may still fail (HX-FAIL-2: "all are
    traversed"); a compensation edge while its source may still succeed or
    has succeeded and the instance may still unwind (HX-FAIL-3).  A node no
    edge of any kind can still reach is unreachable (HX-UNREACH-1) — a
    handler whose source succeeded, a root outside ``@entry`` (HX-START-1).
    """
    live = (PENDING, READY, RUNNING, RETRYING)

    def can_act(s: int, also: tuple[str, ...] = ()) -> bool:
        return states[s] in (*live, *also) and s not in unreached

    if status not in ("running", "unwinding"):
        return False
    return any(can_act(s) for s in run.errors_in[i]) or any(
        can_act(s, (SUCCEEDED,)) for s in run.compensation_in[i]
    )


def settle(run: Run, c: Config) -> Config:
    """Apply joins, cancellation and unreachability to every PENDING node, to a fixed point.

    Nodes that become READY together become so at one instant, whatever
    their order in the document: an ``any`` join that fires cancels what
    could only have reached it (HX-CANCEL-1) among the nodes that become
    READY in the same settling too, not only among those already READY —
    with ``s → m → j (any)`` and ``s → j``, ``m`` is cancelled whether the
    document lists it before or after ``j`` (it ran when listed after).

    A node of the branch that the cancellation itself readies (its edges
    resolve negative; an ``all`` join with another edge satisfied becomes
    READY, HX-JOIN-3) is cancelled with the branch under A-81's "branch";
    under "instant" the branch is what was READY, RETRYING or RUNNING at
    the instant the join fired, and such a node starts (``_settle_instant``).
    """
    if run.options.any_cancels == "instant":
        return _settle_instant(run, c)
    return _settle(run, c, cancel=True)[0]


def _settle_instant(run: Run, c: Config) -> Config:
    """``settle`` under A-81's "instant": the branch as it was when the join fired.

    Settle without cancelling, then cancel what the joins that fired reach
    at that instant; what the cancellation resolves settles in the next
    round, where only the joins that fire then cancel.
    """
    while True:
        c, fired = _settle(run, c, cancel=False)
        if not fired:
            return c
        states, edges = list(c.states), list(c.edges)
        discard, unreported = set(c.discard), set(c.unreported)
        for join_node in fired:
            cancel_branch(run, join_node, states, edges, discard, unreported)
        c = evolve(
            c,
            states=tuple(states),
            edges=tuple(edges),
            discard=frozenset(discard),
            unreported=frozenset(unreported),
        )


def _settle(run: Run, c: Config, cancel: bool) -> tuple[Config, list[int]]:
    """``settle``'s fixed point, and the ``any`` joins that fired in it.

    The branches of those joins are cancelled as they fire only when ``cancel``.
    """
    fired: list[int] = []  # the any joins that fired in this settling
    changed = True
    while changed:
        changed = False
        states = list(c.states)
        edges = list(c.edges)
        unreached = set(c.unreached)
        discard = set(c.discard)
        unreported = set(c.unreported)
        for i in range(len(run.nodes)):
            if states[i] != PENDING or i in unreached or i in run.entry:
                continue
            verdict = join(run, i, edges, unreached)
            if verdict == "unreachable" and may_be_handled(run, c.status, i, states, unreached):
                continue  # a handler whose source can still fail (HX-FAIL-2) waits
            if verdict == "ready" and c.status == "running":
                states[i] = READY
                changed = True
                if run.nodes[i].join is JoinPolicy.ANY:
                    fired.append(i)
                for join_node in fired if cancel else ():
                    cancel_branch(run, join_node, states, edges, discard, unreported)
            elif verdict == "unreachable":
                mark_unreachable(run, i, states, edges, unreached)
                changed = True
        c = evolve(
            c,
            states=tuple(states),
            edges=tuple(edges),
            unreached=frozenset(unreached),
            discard=frozenset(discard),
            unreported=frozenset(unreported),
        )
    return c, fired


# -- executing a node: steps 1-3 of HX-EXEC, then RUNNING -----------------------------


def skip_node(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """Skip a READY node whose guard is false (step 1), without side effects.

    HX-EXEC-1: "If the guard evaluates false, the node transitions to
    SKIPPED"; HX-JOIN-5: a SKIPPED node's edges count as satisfied.
    """
    if run.holds(run.nodes[i].guard, c):
        return []
    return [
        Transition(
            {"event": "node_skipped", "node": run.nodes[i].id},
            skip_node.__name__,
            ("HX-EXEC-1", "HX-JOIN-5"),
            reach(run, c, i, SKIPPED),
        )
    ]


def fail_unbound_input(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """Fail a READY node a required input of which has no value (step 2): HX-4101.

    Cited first, the clause of the guard that held.  An input a data edge
    feeds, whose producer left it unavailable: HX-DATA-4, "the runtime MUST
    fail rather than pass a null downstream", and HX-DATA-3.  An input no
    data edge feeds: HX-EXEC-2, inputs bind "from data edges, else value,
    else default" and "A required input with no value is a runtime error
    (HX-4101)" (a stranger's runtime was shown HX-DATA-4 first for a lone
    node, where nothing was guarded or wired; session 22).  HX-EXEC-7:
    before any invocation.
    """
    node = run.nodes[i]
    if not run.holds(node.guard, c):
        return []  # skip_node's case
    _, missing = run.inputs(c, i)
    if missing is None:
        return []
    event = {"event": "node_failed", "node": node.id, "error": "HX-4101", "input": missing}
    fed = any(
        run.links[k].type == "data" and run.links[k].to_port == missing for k in run.incoming[i]
    )
    clauses = (
        ("HX-DATA-4", "HX-DATA-3", "HX-EXEC-2", "HX-EXEC-7")
        if fed
        else ("HX-EXEC-2", "HX-DATA-4", "HX-DATA-3", "HX-EXEC-7")
    )
    return [_pre_execution_failure(run, c, i, event, clauses, fail_unbound_input.__name__)]


def fail_unavailable_resource(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """Fail a READY node a resourceRef of which does not resolve (step 3): HX-4102.

    HX-EXEC-3: resources resolve before the invocation; HX-EXEC-7: without
    side effects.  The scenario's ``failingResources`` say which fail (A-63).
    """
    node = run.nodes[i]
    if not run.holds(node.guard, c) or run.inputs(c, i)[1] is not None:
        return []  # skip_node's or fail_unbound_input's case
    failing = [r for r in node.resources if r in run.scenario.failing_resources]
    if not failing:
        return []
    event = {"event": "node_failed", "node": node.id, "error": "HX-4102", "resource": failing[0]}
    clauses = ("HX-EXEC-3", "HX-EXEC-7")
    return [_pre_execution_failure(run, c, i, event, clauses, fail_unavailable_resource.__name__)]


def _pre_execution_failure(
    run: Run, c: Config, i: int, event: JSON, clauses: tuple[str, ...], rule: str
) -> Transition[Config]:
    """HX-4101 / HX-4102: FAILED without side effects (HX-EXEC-7), never retried.

    A-82: under ``Options(pre_execution_retry=True)`` the failure counts an
    attempt and, while attempts remain, the node is RETRYING and goes through
    steps 1–3 again (HX-FAIL-1: FAILED once "its retry policy is exhausted").
    """
    node = run.nodes[i]
    if run.options.pre_execution_retry:
        attempt = c.attempts[i] + 1
        c = evolve(c, attempts=put(c.attempts, i, attempt))
        if attempt < node.max_attempts:
            return Transition(
                {
                    "event": "node_retrying",
                    "node": node.id,
                    "attempt": attempt,
                    "error": event["error"],
                },
                rule,
                ("HX-FAIL-1",),
                evolve(
                    c, states=put(c.states, i, RETRYING), errors=put(c.errors, i, event["error"])
                ),
            )
        event = {**event, "attempt": attempt}
    return Transition(event, rule, clauses, reach(run, c, i, FAILED, error=event["error"]))


def prepared(run: Run, c: Config, i: int) -> bool:
    """Whether node ``i`` passes steps 1–3 of HX-EXEC (guard, inputs, resources)."""
    node = run.nodes[i]
    return (
        run.holds(node.guard, c)
        and run.inputs(c, i)[1] is None
        and not any(r in run.scenario.failing_resources for r in node.resources)
    )


def route_decision(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """Route a READY decision: its cases in document order, the first that holds.

    HX-SCHED-4: cases are evaluated in document order; HX-UNREACH-3: every
    other case edge is resolved-negative.
    """
    node = run.nodes[i]
    if node.kind is not Kind.DECISION or not prepared(run, c, i):
        return []
    chosen = next((k for k, case in enumerate(node.cases) if run.holds(case.when, c)), None)
    edges = list(c.edges)
    for k in run.outgoing[i]:
        link = run.links[k]
        if link.type == "case":
            edges[k] = "satisfied" if link.case == chosen else "negative"
    target = reach(run, evolve(c, edges=tuple(edges)), i, SUCCEEDED, outputs={})
    return [
        Transition(
            {
                "event": "decision_routed",
                "node": node.id,
                "to": node.cases[chosen].to if chosen is not None else None,
            },
            route_decision.__name__,
            ("HX-SCHED-4", "HX-UNREACH-3"),
            target,
        )
    ]


def start_node(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """Start a READY task that passed steps 1–3: RUNNING, its first attempt made.

    HX-SCHED-1: any READY node, in any order; HX-EXEC-4: the implementation
    is invoked with the inputs of HX-EXEC-2 and the resources of HX-EXEC-3.
    """
    node = run.nodes[i]
    if node.kind is not Kind.TASK or not prepared(run, c, i):
        return []
    inputs, _ = run.inputs(c, i)
    return [
        Transition(
            {"event": "node_started", "node": node.id, "inputs": inputs},
            start_node.__name__,
            ("HX-SCHED-1", "HX-EXEC-2", "HX-EXEC-3", "HX-EXEC-4"),
            evolve(
                c,
                states=put(c.states, i, RUNNING),
                attempts=put(c.attempts, i, c.attempts[i] + 1),
            ),
        )
    ]


# -- a running node completes (HX-EXEC-5, HX-EXEC-6, HX-FAIL-1) ------------------------


def _answer(run: Run, c: Config, i: int) -> JSON:
    """The scenario's answer to node ``i``'s attempt (its next invocation)."""
    return run.scenario.result(run.nodes[i], c.invocations[i] + 1)


def _answered(c: Config, i: int) -> Config:
    """``c`` with node ``i``'s invocation counted."""
    return evolve(c, invocations=put(c.invocations, i, c.invocations[i] + 1))


def _failed(result: JSON) -> str | None:
    if isinstance(result, dict) and "error" in result:
        return str((result.get("error") or {}).get("code", "error"))
    return None


def discard_result(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """A node cancelled under ``any`` while RUNNING finishes; its result is discarded.

    HX-CANCEL-2: "let it finish and then discard the result" — CANCELLED,
    no outputs.
    """
    if i not in c.discard:
        return []
    c = _answered(c, i)
    target = reach(run, evolve(c, discard=c.discard - {i}), i, CANCELLED)
    return [
        Transition(
            {"event": "node_cancelled", "node": run.nodes[i].id, "finished": True},
            discard_result.__name__,
            ("HX-CANCEL-2",),
            target,
        )
    ]


def schedule_retry(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """A failed attempt with attempts left: RETRYING (HX-FAIL-1)."""
    if i in c.discard:
        return []
    code = _failed(_answer(run, c, i))
    if code is None or c.attempts[i] >= run.nodes[i].max_attempts:
        return []
    c = _answered(c, i)
    return [
        Transition(
            {
                "event": "node_retrying",
                "node": run.nodes[i].id,
                "attempt": c.attempts[i],
                "error": code,
            },
            schedule_retry.__name__,
            ("HX-FAIL-1",),
            evolve(c, states=put(c.states, i, RETRYING)),
        )
    ]


def fail_node(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """A failed attempt with no attempt left: FAILED (HX-EXEC-6, HX-FAIL-1)."""
    if i in c.discard:
        return []
    code = _failed(_answer(run, c, i))
    if code is None or c.attempts[i] < run.nodes[i].max_attempts:
        return []
    c = _answered(c, i)
    return [
        Transition(
            {
                "event": "node_failed",
                "node": run.nodes[i].id,
                "error": code,
                "attempt": c.attempts[i],
            },
            fail_node.__name__,
            ("HX-EXEC-6", "HX-FAIL-1"),
            reach(run, c, i, FAILED, error=code),
        )
    ]


def succeed_node(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """A successful attempt: SUCCEEDED, its declared outputs bound.

    HX-EXEC-5 / HX-EXEC-6: the result's outputs are bound; HX-DATA-1: only
    declared outputs; HX-DATA-5: they become available downstream.
    """
    if i in c.discard:
        return []
    result = _answer(run, c, i)
    if _failed(result) is not None:
        return []
    c = _answered(c, i)
    node = run.nodes[i]
    outputs = result.get("outputs", {}) if isinstance(result, dict) else {}
    outputs = {k: v for k, v in outputs.items() if k in node.outputs}  # declared only
    return [
        Transition(
            {"event": "node_succeeded", "node": node.id, "outputs": outputs},
            succeed_node.__name__,
            ("HX-EXEC-5", "HX-EXEC-6", "HX-DATA-1", "HX-DATA-5"),
            reach(run, c, i, SUCCEEDED, outputs=outputs),
        )
    ]


def restart_node(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """A RETRYING node makes its next attempt: RUNNING again (HX-FAIL-1)."""
    if c.errors[i] in PRE_EXECUTION:
        return []  # retry_pre_execution's case
    return [
        Transition(
            {
                "event": "node_started",
                "node": run.nodes[i].id,
                "attempt": c.attempts[i] + 1,
                "retry": True,
            },
            restart_node.__name__,
            ("HX-FAIL-1",),
            evolve(
                c,
                states=put(c.states, i, RUNNING),
                attempts=put(c.attempts, i, c.attempts[i] + 1),
            ),
        )
    ]


def retry_pre_execution(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """A node RETRYING after HX-4101 / HX-4102 goes through steps 1–3 again (A-82, HX-FAIL-1)."""
    if c.errors[i] not in PRE_EXECUTION:
        return []  # restart_node's case
    again = evolve(c, states=put(c.states, i, READY), errors=put(c.errors, i, None))
    return [
        Transition(t.event, retry_pre_execution.__name__, ("HX-FAIL-1", *t.clauses), t.target)
        for rule in NODE_TABLE[READY, run.nodes[i].kind]
        for t in rule(run, again, i)
    ]


# -- a node reaches a terminal state; failure propagation (HX-FAIL) ---------------------


def reach(
    run: Run, c: Config, i: int, state: str, outputs: JSON = None, error: str | None = None
) -> Config:
    """Node ``i`` reaches a terminal ``state``: record it, resolve its edges, propagate, settle.

    Each outgoing forward edge resolves: satisfied when the node SUCCEEDED or
    was SKIPPED and the edge's condition holds, else negative (A-61).  A
    decision's case edges were resolved by the decision; a SKIPPED
    decision's, by their conditions (A-159 "conditions"), or as if it routed:
    the first case that holds, in document order (A-159 "first").
    """
    node = run.nodes[i]
    if state == SKIPPED and node.kind is Kind.DECISION and run.options.skipped_decision == "first":
        chosen = next((k for k, case in enumerate(node.cases) if run.holds(case.when, c)), None)
        edges = list(c.edges)
        for k in run.outgoing[i]:
            if run.links[k].type == "case":
                edges[k] = "satisfied" if run.links[k].case == chosen else "negative"
        c = evolve(c, edges=tuple(edges))
    c = evolve(
        c,
        states=put(c.states, i, state),
        outputs=put(c.outputs, i, outputs if state == SUCCEEDED else None),
        errors=put(c.errors, i, error),
        order=(*c.order, i),
    )
    edges = list(c.edges)
    reached = state in (SUCCEEDED, SKIPPED)
    for k in run.outgoing[i]:
        if edges[k] == "unresolved":
            condition = run.links[k].condition
            edges[k] = "satisfied" if reached and run.holds(condition, c) else "negative"
    c = evolve(c, edges=tuple(edges))
    if state == FAILED:
        c = handle_failure(run, c, i) if run.errors_out[i] else propagate_failure(run, c, i)
    return settle(run, c)


def handle_failure(run: Run, c: Config, i: int) -> Config:
    """Traverse the error edges of FAILED node ``i``: the failure is handled.

    HX-FAIL-2: "all are traversed. The failure is handled".  While unwinding
    nothing new starts (A-64), so a handler reached then is CANCELLED at
    once, never left READY (HX-DONE-1; A-85).  Under A-85's other reading
    (``Options(unwinding_handlers="run")``) it is READY and runs, the one
    node that starts while unwinding (semantics.py ``_enabled``).
    """
    runs = c.status == "running" or run.options.unwinding_handlers == "run"
    handler = READY if runs else CANCELLED
    states = list(c.states)
    edges = list(c.edges)
    unreported = set(c.unreported)
    for t in run.errors_out[i]:
        if states[t] == PENDING:
            states[t] = handler
            if handler == CANCELLED:
                unreported.add(t)  # reported next (report_unwinding_cancellation, A-156)
                _negate_outgoing(run, t, edges)
    return evolve(c, states=tuple(states), edges=tuple(edges), unreported=frozenset(unreported))


def propagate_failure(run: Run, c: Config, i: int) -> Config:
    """An unhandled failure propagates: the instance begins unwinding (HX-FAIL-3).

    "the failure propagates: the runtime begins unwinding".  Nothing new
    starts while unwinding (A-64): READY nodes are cancelled; RUNNING ones
    finish; compensation runs once nothing runs (A-86).  Under A-64's other
    reading (``Options(unwinding_cancels="running")``) RUNNING and RETRYING
    idempotent nodes are cancelled too, as an ``any`` join's branch is
    (HX-CANCEL-2: a RUNNING idempotent="false" one still finishes).  Only the
    first unhandled failure starts it.  Each cancellation is reported next
    (``report_unwinding_cancellation``, A-156).
    """
    if c.failure is not None:
        return c
    also = run.options.unwinding_cancels == "running"
    cancelled = {
        j
        for j, s in enumerate(c.states)
        if s == READY or (also and s in (RUNNING, RETRYING) and run.nodes[j].idempotent)
    }
    stopped = tuple(CANCELLED if j in cancelled else s for j, s in enumerate(c.states))
    return evolve(
        c, status="unwinding", failure=i, states=stopped, unreported=c.unreported | cancelled
    )


# -- reporting cancellations (HX-CANCEL-1, HX-FAIL-3; A-156) ---------------------------


def report_branch_cancellation(run: Run, c: Config) -> list[Transition[Config]]:
    """Report a node an ``any`` join moved to CANCELLED: ``node_cancelled``, in any order.

    HX-CANCEL-1: "sibling branches still running that could only have
    reached this node MUST be moved to CANCELLED".  The state changed with
    the transition that made the join READY (``cancel_branch``); its event
    comes before any other (A-156), so an engine that cancels late, or not
    at all, diverges at this event.
    """
    if c.status != "running":
        return []  # report_unwinding_cancellation's case
    return [
        _reported(run, c, j, report_branch_cancellation.__name__, ("HX-CANCEL-1",))
        for j in sorted(c.unreported)
    ]


def report_unwinding_cancellation(run: Run, c: Config) -> list[Transition[Config]]:
    """Report a node unwinding moved to CANCELLED: ``node_cancelled``, in any order.

    HX-FAIL-3: "the failure propagates: the runtime begins unwinding";
    while unwinding nothing new starts (A-64): every READY node, and an
    error-edge handler a node failing then would bring in (A-85), is
    CANCELLED.  Its event comes before any other (A-156).
    """
    if c.status != "unwinding":
        return []  # report_branch_cancellation's case
    return [
        _reported(
            run,
            c,
            j,
            report_unwinding_cancellation.__name__,
            # The assumption that decides it, after the clause: a handler brought in by a
            # failure while unwinding, or a node READY when unwinding began.
            ("HX-FAIL-3", "A-85" if run.errors_in[j] else "A-64"),
        )
        for j in sorted(c.unreported)
    ]


def _reported(
    run: Run, c: Config, j: int, rule: str, clauses: tuple[str, ...]
) -> Transition[Config]:
    return Transition(
        {"event": "node_cancelled", "node": run.nodes[j].id},
        rule,
        clauses,
        evolve(c, unreported=c.unreported - {j}),
    )


# -- compensation (HX-FAIL-3; chapter 8) -----------------------------------


def compensation_due(run: Run, c: Config) -> tuple[tuple[int, ...], ...]:
    """The compensation handlers still to run, by source, in the order they run (A-64, A-86).

    The targets of the compensation edges of every SUCCEEDED node — also one
    that succeeded while unwinding, since the list is taken once nothing runs
    any more — grouped by their source in reverse completion order, each
    target once (under the first source that lists it).  The targets of one
    source run in any order: no completion order tells them apart (A-86).
    """
    due: list[tuple[int, ...]] = []
    seen: set[int] = set()
    for j in reversed(c.order):
        if c.states[j] == SUCCEEDED:
            owed = run.compensation[j]
            group = tuple(t for t in owed if c.states[t] == PENDING and t not in seen)
            seen.update(group)
            if group:
                due.append(group)
    return tuple(due)


def compensate(run: Run, c: Config) -> list[Transition[Config]]:
    """Run the next compensation handler while unwinding, once nothing else runs (HX-FAIL-3).

    It is invoked once, with the inputs HX-EXEC-2 binds (a required one
    with no value left out: steps 1–3 are not applied to a compensation,
    A-156), and the event reports them as ``node_started`` does.  Under
    A-156's reading (2a), ``Options.compensation_inputs`` "none", it is
    invoked with no inputs.
    """
    due = compensation_due(run, c) if c.status == "unwinding" else ()
    return [_compensated(run, c, i) for i in due[0]] if due else []


def _compensated(run: Run, c: Config, i: int) -> Transition[Config]:
    node = run.nodes[i]
    inputs = run.inputs(c, i)[0] if run.options.compensation_inputs == "bound" else {}
    invocation = c.invocations[i] + 1
    result = run.scenario.result(node, invocation)
    ok = not (isinstance(result, dict) and "error" in result)
    state = SUCCEEDED if ok else FAILED
    outputs = None
    if ok and isinstance(result, dict):
        outputs = {k: v for k, v in result.get("outputs", {}).items() if k in node.outputs}
    return Transition(
        {"event": "node_compensated", "node": node.id, "inputs": inputs, "status": state},
        compensate.__name__,
        ("HX-FAIL-3",),
        evolve(
            c,
            states=put(c.states, i, state),
            outputs=put(c.outputs, i, outputs),
            invocations=put(c.invocations, i, invocation),
        ),
    )


# -- the instance completes (HX-DONE) ---------------------------------------------------


def finish(run: Run, c: Config) -> list[Transition[Config]]:
    """End the instance: nothing READY, RUNNING or RETRYING, no compensation due.

    HX-DONE-1: complete when no node is READY, RUNNING or RETRYING;
    HX-DONE-2: unreached nodes stay PENDING; HX-FAIL-3: an unhandled failure
    ends it failed.
    """
    if c.status == "unwinding" and compensation_due(run, c):
        return []  # compensate's case
    status = "failed" if c.failure is not None else "completed"
    event: dict[str, JSON] = {"event": "instance_completed", "status": status}
    if c.failure is not None:
        event["failedNode"] = run.nodes[c.failure].id
    return [
        Transition(
            event,
            finish.__name__,
            ("HX-DONE-1", "HX-DONE-2", "HX-FAIL-3"),
            evolve(c, status=status),
        )
    ]


# -- loops (A-65, A-80) ------------------------------------------------------------------


def fail_loop_over(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """Fail a READY loop whose ``over`` is not a list.

    A-65: the chapter does not say what an ``over`` that is not a list does;
    the loop fails (HX-EXEC-6: "Transition to SUCCEEDED or FAILED").
    """
    node = run.nodes[i]
    if node.kind is not Kind.LOOP or not prepared(run, c, i) or _items(run, c, i) is not None:
        return []
    return [
        Transition(
            {"event": "node_failed", "node": node.id, "error": "loop_over_not_a_list"},
            fail_loop_over.__name__,
            ("HX-EXEC-6",),
            reach(run, c, i, FAILED, error="loop_over_not_a_list"),
        )
    ]


def _items(run: Run, c: Config, i: int) -> list[JSON] | None:
    node = run.nodes[i]
    items = run.value(node.over, c) if node.over is not None else None
    return items if isinstance(items, list) else None


def fail_loop(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """Fail a READY loop once for each iteration that can be the first to fail.

    HX-SCHED-2: maxConcurrency "bounds concurrent iterations" (absent, no
    bound); iterations start in sequence order — so with maxConcurrency="1"
    only the first failing one (HX-SCHED-4) — or, under
    ``Options(loop_start="any")``, in any order (A-80).  The event carries the
    iteration and its trace.
    """
    node = run.nodes[i]
    if node.kind is not Kind.LOOP or not prepared(run, c, i):
        return []
    items = _items(run, c, i)
    if items is None:
        return []  # fail_loop_over's case
    runs = [iterations(run, i, index, item) for index, item in enumerate(items)]
    bound = node.max_concurrency or max(len(items), 1)
    found: list[Transition[Config]] = []
    for j, executions in enumerate(runs):
        if not _may_report(run, runs, j, bound):
            continue
        for trace, final, code in executions:
            if final.status != "failed":
                continue
            found.append(
                Transition(
                    {
                        "event": "node_failed",
                        "node": node.id,
                        "error": code,
                        "iteration": j,
                        "inner": [trace],
                    },
                    fail_loop.__name__,
                    ("HX-SCHED-2", "HX-SCHED-4"),
                    reach(run, c, i, FAILED, error=str(code)),
                )
            )
    return found


def complete_loop(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """Complete a READY loop once for each combination of its iterations' successful executions.

    A-65: the body runs once per item of ``over``, each iteration a run of the
    body's nodes with ``params.item`` and ``params.index``.  Iterations share
    no mutable state (HX-DATA-6: "Values are immutable once bound"), so the
    loop reports every iteration's execution in sequence order; its output is
    ``{"items": [...]}``.
    """
    node = run.nodes[i]
    if node.kind is not Kind.LOOP or not prepared(run, c, i):
        return []
    items = _items(run, c, i)
    if items is None:
        return []  # fail_loop_over's case
    runs = [iterations(run, i, index, item) for index, item in enumerate(items)]
    succeeded = [[e for e in executions if e[1].status != "failed"] for executions in runs]
    combinations = 1
    for executions in succeeded:
        combinations *= len(executions)
    if combinations > MAX_LOOP_OUTCOMES:
        raise ModelLimit(
            f"loop {node.id}: {combinations} combinations of iteration executions, "
            f"more than the {MAX_LOOP_OUTCOMES} the model enumerates"
        )
    found: list[Transition[Config]] = []
    for chosen in itertools.product(*succeeded):
        results = [
            {
                n.id: final.outputs[k]
                for k, n in enumerate(node.body)
                if final.states[k] == SUCCEEDED
            }
            for _, final, _ in chosen
        ]
        outputs = {"items": results}
        found.append(
            Transition(
                {
                    "event": "node_succeeded",
                    "node": node.id,
                    "outputs": outputs,
                    "inner": [trace for trace, _, _ in chosen],
                },
                complete_loop.__name__,
                ("HX-SCHED-2", "HX-SCHED-4", "HX-DATA-6"),
                reach(run, c, i, SUCCEEDED, outputs=outputs),
            )
        )
    return found


def _may_report(run: Run, runs: Sequence[Sequence[Execution]], j: int, bound: int) -> bool:
    """Whether iteration ``j`` can be the first to fail (HX-SCHED-2/4, A-80).

    Started in sequence order with at most ``bound`` at once, ``j`` starts
    only after every iteration ``i <= j - bound`` finished — all of which
    must then have been able to succeed.
    """
    if run.options.loop_start == "any" and bound > 1:
        return True
    return all(
        any(final.status != "failed" for _, final, _ in runs[k]) for k in range(j - bound + 1)
    )


def iteration_run(run: Run, i: int, index: int, item: JSON) -> Run:
    """The run of one iteration of loop ``i``: its body as an instance (A-65).

    ``params.item`` and ``params.index`` are the iteration's item and position:
    zero-based, or one-based under A-168's other reading
    (``Options.loop_index`` "one").
    """
    node = run.nodes[i]
    body = Harness(f"{run.harness.id}/{node.id}", node.body)
    position = index + 1 if run.options.loop_index == "one" else index
    params = {**run.scenario.params, "item": item, "index": position}
    return run.derive(body, evolve(run.scenario, params=params))


def loop_items(run: Run, c: Config, i: int) -> list[JSON] | None:
    """The items loop ``i`` iterates over in ``c``, or None when ``over`` is not a list."""
    return _items(run, c, i)


def iterations(run: Run, i: int, index: int, item: JSON) -> list[Execution]:
    """Every execution of one iteration of loop ``i``: trace, final configuration, error."""
    key = (i, index, canonical(item))
    if key not in run.iteration_cache:
        node = run.nodes[i]
        inner = iteration_run(run, i, index, item)
        found: dict[str, Execution] = {}
        stack: list[tuple[Config, tuple[JSON, ...]]] = [(inner.initial(), ())]
        while stack:
            config, trace = stack.pop()
            following = inner.enabled(config)
            if not following:
                code = config.errors[config.failure] if config.failure is not None else None
                found.setdefault(canonical(list(trace)), (list(trace), config, code))
                if len(found) > MAX_LOOP_OUTCOMES:
                    raise ModelLimit(
                        f"loop {node.id}: an iteration has more than {MAX_LOOP_OUTCOMES} executions"
                    )
                continue
            stack.extend((t.target, (*trace, t.event)) for t in reversed(following))
        run.iteration_cache[key] = list(found.values())
    return run.iteration_cache[key]


# -- the rule tables ---------------------------------------------------------------------


class Where(Enum):
    """Where the instance is: the row of ``INSTANCE_TABLE`` whose rules may fire."""

    CREATED = auto()
    REPORTING = auto()  # cancellations not yet reported: only they may come next
    NODES = auto()  # running or unwinding: the nodes move (``NODE_TABLE``)
    QUIESCENT = auto()  # running or unwinding, and no node can move
    ENDED = auto()


INSTANCE_TABLE: dict[Where, tuple[InstanceRule, ...]] = {
    Where.CREATED: (start,),
    Where.REPORTING: (report_branch_cancellation, report_unwinding_cancellation),
    Where.QUIESCENT: (compensate, finish),
    Where.ENDED: (),
}

# A node's state and kind → the transition rules that may fire for it, in the chapter's order.
# READY rows apply only while the instance runs: nothing new starts while unwinding.
_STEPS_1_3: tuple[NodeRule, ...] = (skip_node, fail_unbound_input, fail_unavailable_resource)
_RUNNING: tuple[NodeRule, ...] = (discard_result, schedule_retry, fail_node, succeed_node)
_RETRYING: tuple[NodeRule, ...] = (restart_node, retry_pre_execution)
NODE_TABLE: dict[tuple[str, Kind], tuple[NodeRule, ...]] = {
    (READY, Kind.TASK): (*_STEPS_1_3, start_node),
    (READY, Kind.DECISION): (*_STEPS_1_3, route_decision),
    (READY, Kind.LOOP): (*_STEPS_1_3, fail_loop_over, fail_loop, complete_loop),
    **{(RUNNING, kind): _RUNNING for kind in Kind},
    **{(RETRYING, kind): _RETRYING for kind in Kind},
}
