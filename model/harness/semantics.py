"""Small-step operational semantics of a Harness execution instance (chapter 5): the entry.

A run is an initial configuration and ``enabled(c)`` (model/kernel/lts.py).
The module family, with the same names as model/w6w's:

- config.py — the configuration (``Config``), its notation and node states,
  ``config_key``, and ``Options`` (the readings where the chapter is open);
- scenario.py — what an instance depends on besides the document;
- run.py — the instance's fixed parts: links, entry set, ``any`` branches;
- rules.py — the transition rules and the eager rules, in the chapter's
  order, and the tables ``NODE_TABLE`` / ``INSTANCE_TABLE``;
- runstate.py — the outcome explore compares, and one reference execution.

``HarnessRun.enabled`` only dispatches: for each node, in document order, the
rules of its state's and kind's row (READY ones only while the instance runs:
nothing new starts while unwinding, A-64); once no node can move, the
compensation and completion rules — except that the cancellations the eager
rules made are reported first, before anything else moves (A-156).  Each
transition is labelled by the one rule that produced it:

| rule | clauses | when |
| --- | --- | --- |
| ``start`` | HX-INST-1, HX-START-1..3 | created: the entry nodes become READY |
| ``skip_node`` | HX-EXEC-1, HX-JOIN-5 | READY, guard false |
| ``fail_unbound_input`` | HX-EXEC-2, HX-DATA-3/4, HX-EXEC-7 | READY, an input unbound: HX-4101 |
| ``fail_unavailable_resource`` | HX-EXEC-3, HX-EXEC-7 | READY, a resource fails: HX-4102 |
| ``route_decision`` | HX-SCHED-4, HX-UNREACH-3 | READY decision: the first case that holds |
| ``start_node`` | HX-SCHED-1, HX-EXEC-2..4 | READY task past steps 1-3: RUNNING |
| ``discard_result`` | HX-CANCEL-2 | RUNNING, cancelled under ``any``: CANCELLED |
| ``schedule_retry`` | HX-FAIL-1 | RUNNING, failed, attempts left: RETRYING |
| ``fail_node`` | HX-EXEC-6, HX-FAIL-1 | RUNNING, failed, no attempt left: FAILED |
| ``succeed_node`` | HX-EXEC-5/6, HX-DATA-1/5 | RUNNING, succeeded: SUCCEEDED |
| ``restart_node`` | HX-FAIL-1 | RETRYING: RUNNING again |
| ``retry_pre_execution`` | HX-FAIL-1 + steps 1-3 | RETRYING after HX-4101/4102 (A-82) |
| ``report_branch_cancellation`` | HX-CANCEL-1 | cancelled by an ``any`` join: reported (A-156) |
| ``report_unwinding_cancellation`` | HX-FAIL-3 | cancelled by unwinding: reported (A-156) |
| ``compensate`` | HX-FAIL-3 | unwinding, nothing runs: the next handler |
| ``finish`` | HX-DONE-1/2, HX-FAIL-3 | nothing READY, RUNNING or RETRYING |
| ``fail_loop_over`` | HX-EXEC-6 | READY loop, ``over`` not a list (A-65) |
| ``fail_loop`` | HX-SCHED-2/4 | READY loop: an iteration fails first (A-80) |
| ``complete_loop`` | HX-SCHED-2/4, HX-DATA-6 | READY loop: every iteration succeeds |

(The A-82 reading under ``Options(pre_execution_retry=True)`` makes
``fail_unbound_input`` / ``fail_unavailable_resource`` end RETRYING while
attempts remain.)  After every transition the eager rules apply (rules.py:
``reach``, ``settle``): edge resolution, joins, cancellation under ``any``,
unreachability, error-edge handlers and unwinding.
"""

from __future__ import annotations

from wforacle.model.harness.config import CANCELLED as CANCELLED
from wforacle.model.harness.config import FAILED as FAILED
from wforacle.model.harness.config import PENDING as PENDING
from wforacle.model.harness.config import READINGS as READINGS
from wforacle.model.harness.config import READY as READY
from wforacle.model.harness.config import RETRYING as RETRYING
from wforacle.model.harness.config import RUNNING as RUNNING
from wforacle.model.harness.config import SKIPPED as SKIPPED
from wforacle.model.harness.config import SUCCEEDED as SUCCEEDED
from wforacle.model.harness.config import TERMINAL as TERMINAL
from wforacle.model.harness.config import Config as Config
from wforacle.model.harness.config import ModelLimit as ModelLimit
from wforacle.model.harness.config import Options as Options
from wforacle.model.harness.config import config_key as config_key
from wforacle.model.harness.rules import INSTANCE_TABLE, NODE_TABLE, Where, starved
from wforacle.model.harness.rules import MAX_LOOP_OUTCOMES as MAX_LOOP_OUTCOMES
from wforacle.model.harness.rules import PRE_EXECUTION as PRE_EXECUTION
from wforacle.model.harness.rules import compensation_due as compensation_due
from wforacle.model.harness.rules import settle as settle
from wforacle.model.harness.run import Execution as Execution
from wforacle.model.harness.run import Link as Link
from wforacle.model.harness.run import Run
from wforacle.model.harness.runstate import outcome as outcome
from wforacle.model.harness.runstate import reference_run as reference_run
from wforacle.model.harness.scenario import Scenario as Scenario
from wforacle.model.kernel.lts import Transition

_MOVING = frozenset({READY, RUNNING, RETRYING})  # the states of NODE_TABLE's rows
_FINISHING = frozenset({RUNNING, RETRYING})  # while unwinding nothing new starts


class HarnessRun(Run):
    """The semantics of one execution instance of ``harness`` under ``scenario``."""

    def initial(self) -> Config:
        """A created instance: every node PENDING."""
        n = len(self.nodes)
        return Config(
            states=(PENDING,) * n,
            attempts=(0,) * n,
            outputs=(None,) * n,
            errors=(None,) * n,
            edges=("unresolved",) * len(self.links),
            invocations=(0,) * n,
        )

    def enabled(self, c: Config) -> list[Transition[Config]]:
        """Every transition chapter 5 permits from ``c``.

        HX-SCHED-1 / HX-SCHED-3: any READY node, in any order; the core has no
        global concurrency control.
        """
        return [settled(self, c, t) for t in self._enabled(c)]

    def _enabled(self, c: Config) -> list[Transition[Config]]:
        if c.status == "created":
            return self._fire(INSTANCE_TABLE[Where.CREATED], c)
        if c.status in ("completed", "failed"):
            return []
        if c.unreported:
            return self._fire(INSTANCE_TABLE[Where.REPORTING], c)
        found: list[Transition[Config]] = []
        # While unwinding nothing new starts — but the error-edge handlers of a node
        # that failed then, READY under A-85's reading "run" (the only READY nodes then).
        unwinding_run = self.options.unwinding_handlers == "run"
        moving = _MOVING if c.status == "running" or unwinding_run else _FINISHING
        for i, state in enumerate(c.states):
            if state in moving:
                for rule in NODE_TABLE[state, self.nodes[i].kind]:
                    found.extend(rule(self, c, i))
        return found or self._fire(INSTANCE_TABLE[Where.QUIESCENT], c)

    def _fire(self, row: tuple, c: Config) -> list[Transition[Config]]:  # type: ignore[type-arg]
        return [t for rule in row for t in rule(self, c)]


_FORWARD = ("control", "data", "dependency", "case")


def _unreached_by(run: Run, c: Config, u: int) -> tuple[str, ...]:
    """The clause of 5.3.3's list by which node ``u`` became unreachable in ``c``.

    HX-UNREACH-3: a case target every decision routed elsewhere;
    HX-UNREACH-4: every incoming forward edge negative — which is also
    HX-JOIN-3's all-negative join ("it remains PENDING"), not SKIPPED
    (HX-JOIN-4), whose successors are not reached either (HX-JOIN-6);
    HX-UNREACH-5: a required input starved by an unreachable source.  ()
    for the others (a quorum that can no longer be met, a handler nothing
    can bring in, a root outside @entry).
    """
    incoming = [k for k in run.incoming[u] if run.links[k].type in _FORWARD]
    if any(run.links[k].type == "case" for k in incoming):
        return ("HX-UNREACH-3",)
    if incoming and all(c.edges[k] == "negative" for k in incoming):
        return ("HX-UNREACH-4", "HX-JOIN-3", "HX-JOIN-4", "HX-JOIN-6")
    if starved(run, u, c.edges, set(c.unreached)):
        return ("HX-UNREACH-5",)
    return ()


def settled(run: Run, c: Config, t: Transition[Config]) -> Transition[Config]:
    """``t`` citing also the clauses of what settling did within it (after its own).

    Readiness, negative edges and unreachability have no event of their own
    (docs/harness.md: what is not a state change has no event); they happen
    inside the transition whose end resolved the edges, so its clauses name
    them too — a campaign's coverage then counts them (they were reported as
    never reached although every run made nodes READY).  Appended, so the
    rule's own clause stays first.
    """
    target = t.target
    more: list[str] = []
    if any(a == PENDING and b == READY for a, b in zip(c.states, target.states, strict=True)):
        more += ["HX-READY-1", "HX-JOIN-1"]
    newly = [
        k
        for k, (a, b) in enumerate(zip(c.edges, target.edges, strict=True))
        if a == "unresolved" and b == "negative"
    ]
    if any(run.links[k].condition is not None for k in newly):
        more.append("HX-READY-3")
    if newly:
        more.append("HX-READY-4")
    for u in sorted(target.unreached - c.unreached):
        more += ["HX-UNREACH-1", "HX-UNREACH-2", *_unreached_by(run, target, u)]
    if t.event.get("event") == "node_started" and t.event.get("node") in run.index:
        i = run.index[t.event["node"]]
        fed = [run.links[k].source for k in run.incoming[i] if run.links[k].type == "data"]
        if any(c.states[j] == SKIPPED for j in fed):
            more.append("HX-DATA-2")  # "If a producer is SKIPPED, its outputs are unavailable"
        if any(state == RUNNING for j, state in enumerate(c.states) if j != i):
            more.append("HX-SCHED-3")  # "no global concurrency control": two run at once
    failed = [
        i
        for i, (a, b) in enumerate(zip(c.states, target.states, strict=True))
        if a != FAILED and b == FAILED
    ]
    if any(run.errors_out[i] for i in failed):
        more.append("HX-FAIL-2")  # "all are traversed. The failure is handled"
    more = [clause for clause in more if clause not in t.clauses]
    if not more:
        return t
    return Transition(t.event, t.rule, (*t.clauses, *more), target)
