"""Small-step operational semantics of a Harness execution instance (chapter 5).

Notation: ``c = (status, states, attempts, outputs, errors, edges, unreached,
discard, invocations, order, failure)``.  ``states[n]`` is one of PENDING,
READY, RUNNING, RETRYING, SUCCEEDED, FAILED, SKIPPED, CANCELLED; ``edges[e]``
is ``unresolved``, ``satisfied`` or ``negative`` for every forward edge
(control, data, dependency, and one per decision case — A-61); ``unreached``
holds PENDING nodes known unreachable (HX-UNREACH-1: they stay PENDING, their
outgoing edges are negative); ``discard`` holds RUNNING non-idempotent nodes
cancelled under ``any`` whose result will be discarded (HX-CANCEL-2);
``order`` is completion order (for compensation); ``failure`` the node whose
unhandled failure is propagating.  The compensation handlers left to run are
computed from ``c`` when nothing runs any more (A-86), not kept.

Transitions are the choices chapter 5 leaves to the runtime (HX-SCHED-1:
"any READY nodes in any order, and any number of them concurrently"):
``run(n)`` for a READY node (steps 1–3 of HX-EXEC, then RUNNING), and
``complete(n)`` / ``retry(n)`` for a RUNNING / RETRYING node (the scenario
answers), ``compensate(n)`` while unwinding, and ``finish`` at completion.
Everything the chapter determines happens eagerly in ``settle`` after each
transition: edge resolution, unreachability propagation (HX-UNREACH), joins
(HX-JOIN), handler activation by error edges (HX-FAIL-2) and cancellation
under ``any`` (HX-CANCEL).  So two runs differ only where the chapter lets
runtimes differ.

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
from collections.abc import Sequence
from typing import Any

import attrs
import networkx as nx

from wforacle.model.diagnostics import InvalidScenario
from wforacle.model.harness.document import EdgeType, Harness, JoinPolicy, Kind, Node
from wforacle.model.harness.expr import evaluate, holds
from wforacle.model.kernel.explore import canonical
from wforacle.model.kernel.lts import Transition, execute

JSON = Any
PENDING, READY, RUNNING, RETRYING = "PENDING", "READY", "RUNNING", "RETRYING"
SUCCEEDED, FAILED, SKIPPED, CANCELLED = "SUCCEEDED", "FAILED", "SKIPPED", "CANCELLED"
TERMINAL = frozenset({SUCCEEDED, FAILED, SKIPPED, CANCELLED})
PRE_EXECUTION = frozenset({"HX-4101", "HX-4102"})  # failures of HX-EXEC steps 2 and 3
MAX_LOOP_OUTCOMES = 4096  # executions of one loop the model enumerates before it says so


class ModelLimit(Exception):
    """A document whose permitted executions exceed what the model enumerates."""


@attrs.frozen
class Options:
    """Selectable readings where the chapter is ambiguous (docs/assumptions.md A-61)."""

    all_negative: str = "pending"  # "pending" (HX-JOIN-3) or "skipped" (the earlier draft)
    # what `any` cancels — the whole branch, READY nodes too ("branch"), or only
    # nodes RUNNING or RETRYING ("running").
    any_cancels: str = attrs.field(
        default="branch", validator=attrs.validators.in_(("branch", "running"))
    )
    # whether an HX-4101 / HX-4102 failure (before execution) is retried.
    pre_execution_retry: bool = False
    # with maxConcurrency above 1, loop iterations start in sequence order
    # ("sequence") or in any order ("any").
    loop_start: str = attrs.field(
        default="sequence", validator=attrs.validators.in_(("sequence", "any"))
    )


@attrs.frozen
class Scenario:
    """What a Harness instance depends on besides the document.

    ``params``: values guards and conditions read as ``params.*``;
    ``nodes``: per node, the results of its successive invocations
    (``{"outputs": {...}}`` or ``{"error": {"code", "message"}}``), the last
    repeated; ``resources``: resourceRefs that fail to resolve (HX-4102).
    A node the scenario does not name succeeds with every declared output
    set to its own ``"<node>.<output>"`` name (assumption A-63).
    """

    params: dict[str, JSON] = attrs.field(factory=dict, eq=False)
    nodes: dict[str, tuple[JSON, ...]] = attrs.field(factory=dict, eq=False)
    failing_resources: frozenset[str] = frozenset()

    @classmethod
    def of(cls, value: JSON) -> Scenario:
        """A scenario from JSON (docs/harness.md)."""
        if not isinstance(value, dict):
            raise InvalidScenario("a Harness scenario is a JSON object")
        for name, kind, label in (
            ("params", dict, "object"),
            ("nodes", dict, "object"),
            ("failingResources", list, "array"),
        ):
            if name in value and not isinstance(value[name], kind):
                raise InvalidScenario(f"scenario {name} must be a JSON {label}", f"$.{name}")
        nodes = {
            k: tuple(v.get("attempts", [])) if isinstance(v, dict) else ()
            for k, v in (value.get("nodes") or {}).items()
        }
        return cls(
            value.get("params") or {},
            nodes,
            frozenset(value.get("failingResources") or ()),
        )

    def result(self, node: Node, invocation: int) -> JSON:
        """The node's ``invocation``-th result (1-based)."""
        scripted = self.nodes.get(node.id, ())
        if not scripted:
            return {"outputs": {name: f"{node.id}.{name}" for name in node.outputs}}
        return scripted[min(invocation, len(scripted)) - 1]


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
    invocations: tuple[int, ...] = ()
    order: tuple[int, ...] = ()
    failure: int | None = None  # the node whose unhandled failure is propagating


@attrs.frozen
class Link:
    """A forward edge, or a decision case as one (A-61)."""

    source: int
    target: int
    type: str  # control | data | dependency | case
    condition: Any = None
    from_port: str | None = None
    to_port: str | None = None
    case: int | None = None  # the case's position in its decision


Execution = tuple[list[JSON], "Config", JSON]  # one iteration: trace, final configuration, error


class HarnessRun:
    """The semantics of one execution instance of ``harness`` under ``scenario``."""

    def __init__(self, harness: Harness, scenario: Scenario, options: Options = Options()) -> None:
        self.harness = harness
        self.scenario = scenario
        self.options = options
        self.nodes = list(harness.nodes)
        self.index = {node.id: i for i, node in enumerate(self.nodes)}
        self.links: list[Link] = []
        self.errors_out: dict[int, list[int]] = {i: [] for i in range(len(self.nodes))}
        self.compensation: dict[int, list[int]] = {i: [] for i in range(len(self.nodes))}
        for edge in harness.edges:
            s, t = self.index[edge.from_], self.index[edge.to]
            if edge.type is EdgeType.ERROR:
                self.errors_out[s].append(t)
            elif edge.type is EdgeType.COMPENSATION:
                self.compensation[s].append(t)
            else:
                self.links.append(
                    Link(s, t, edge.type.value, edge.condition, edge.from_port, edge.to_port)
                )
        for s, node in enumerate(self.nodes):
            for k, case in enumerate(node.cases):
                self.links.append(Link(s, self.index[case.to], "case", case.when, case=k))
        self.incoming: dict[int, list[int]] = {i: [] for i in range(len(self.nodes))}
        self.outgoing: dict[int, list[int]] = {i: [] for i in range(len(self.nodes))}
        for k, link in enumerate(self.links):
            self.incoming[link.target].append(k)
            self.outgoing[link.source].append(k)
        handlers = {t for ts in self.errors_out.values() for t in ts} | {
            t for ts in self.compensation.values() for t in ts
        }
        self.handlers = frozenset(h for h in handlers if not self.incoming[h])
        self.errors_in: dict[int, list[int]] = {i: [] for i in range(len(self.nodes))}
        self.compensation_in: dict[int, list[int]] = {i: [] for i in range(len(self.nodes))}
        for s, targets in self.errors_out.items():
            for t in targets:
                self.errors_in[t].append(s)
        for s, targets in self.compensation.items():
            for t in targets:
                self.compensation_in[t].append(s)
        if harness.entry is not None:
            self.entry: tuple[int, ...] = (self.index[harness.entry],)  # HX-START-1
        else:
            every = {t for ts in self.errors_out.values() for t in ts}
            every |= {t for ts in self.compensation.values() for t in ts}
            self.entry = tuple(
                i for i in range(len(self.nodes)) if not self.incoming[i] and i not in every
            )  # HX-START-2, HX-START-3
        self._iteration_cache: dict[tuple[int, int, str], list[Execution]] = {}
        self.branches = {
            i: self._branch(i) for i, node in enumerate(self.nodes) if node.join is JoinPolicy.ANY
        }

    def _branch(self, join: int) -> frozenset[int]:
        """Nodes that could only have reached ``join`` (HX-CANCEL-1).

        Every forward path from them ends at or passes through ``join``: with
        ``join`` taken out of the graph, they reach no node where a path can
        end (a node without forward successors) — so an ancestor with a path
        around the join is not in the branch.
        """
        g = nx.DiGraph()
        g.add_nodes_from(range(len(self.nodes)))
        g.add_edges_from((link.source, link.target) for link in self.links)
        ends = {n for n in g if g.out_degree(n) == 0}
        around = g.subgraph(n for n in g if n != join)
        return frozenset(
            n for n in nx.ancestors(g, join) if not ({n} | nx.descendants(around, n)) & ends
        )

    # -- kernel interface -------------------------------------------------------------

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
        """Every transition chapter 5 permits from ``c``."""
        if c.status == "created":
            return [self._start(c)]
        if c.status in ("completed", "failed"):
            return []
        # HX-SCHED-1 / HX-SCHED-3: any READY node, in any order; the core has no
        # global concurrency control.
        found: list[Transition[Config]] = []
        for i, state in enumerate(c.states):
            if state == READY and c.status == "running":
                if self.nodes[i].kind is Kind.LOOP and self._prepared(c, i):
                    found.extend(self._loop(c, i, self.env(c), {}))
                else:
                    found.append(self._run(c, i))
            elif state == RUNNING:
                found.append(self._complete(c, i))
            elif state == RETRYING:
                found.extend(self._retry(c, i))
        if found:
            return found
        due = self.compensation_due(c) if c.status == "unwinding" else ()
        if due:
            return [self._compensate(c, due[0])]
        return [self._finish(c)]

    # -- transitions ---------------------------------------------------------------------

    def _start(self, c: Config) -> Transition[Config]:
        states = list(c.states)
        for i in self.entry:
            states[i] = READY  # HX-START-1 / HX-START-2
        target = self.settle(attrs.evolve(c, status="running", states=tuple(states)))
        return Transition(
            {"event": "instance_started", "entry": [self.nodes[i].id for i in self.entry]},
            "start",
            ("HX-INST-1", "HX-START-1", "HX-START-2", "HX-START-3"),
            target,
        )

    def env(self, c: Config) -> dict[str, JSON]:
        """What guards and conditions read: params and the outputs of SUCCEEDED nodes."""
        env: dict[str, JSON] = {"params": self.scenario.params}
        for i, node in enumerate(self.nodes):
            if c.states[i] == SUCCEEDED and isinstance(c.outputs[i], dict):
                env[node.id] = c.outputs[i]
        return env

    def _run(self, c: Config, i: int) -> Transition[Config]:
        """READY → steps 1–3 of HX-EXEC, then RUNNING (or SKIPPED / FAILED without side effects)."""
        node = self.nodes[i]
        env = self.env(c)
        if not holds(node.guard, env):
            target = self._terminal(c, i, SKIPPED)
            return Transition(
                {"event": "node_skipped", "node": node.id},
                "run",
                ("HX-EXEC-1", "HX-JOIN-5"),
                target,
            )
        inputs, missing = self._inputs(c, i)
        if missing is not None:
            return self._pre_execution_failure(
                c,
                i,
                {"event": "node_failed", "node": node.id, "error": "HX-4101", "input": missing},
                ("HX-EXEC-2", "HX-DATA-3", "HX-DATA-4", "HX-EXEC-7"),
            )
        failing = [r for r in node.resources if r in self.scenario.failing_resources]
        if failing:
            return self._pre_execution_failure(
                c,
                i,
                {
                    "event": "node_failed",
                    "node": node.id,
                    "error": "HX-4102",
                    "resource": failing[0],
                },
                ("HX-EXEC-3", "HX-EXEC-7"),
            )
        if node.kind is Kind.DECISION:
            return self._decide(c, i, env)
        if node.kind is Kind.LOOP:
            raise AssertionError("a loop's transitions are enumerated by _loop")
        states = _put(c.states, i, RUNNING)
        attempts = _put(c.attempts, i, c.attempts[i] + 1)
        return Transition(
            {"event": "node_started", "node": node.id, "inputs": inputs},
            "run",
            ("HX-SCHED-1", "HX-EXEC-2", "HX-EXEC-3", "HX-EXEC-4"),
            attrs.evolve(c, states=states, attempts=attempts),
        )

    def _pre_execution_failure(
        self, c: Config, i: int, event: JSON, clauses: tuple[str, ...]
    ) -> Transition[Config]:
        """HX-4101 / HX-4102: FAILED without side effects (HX-EXEC-7), never retried.

        A-82: under ``Options(pre_execution_retry=True)`` the failure counts an
        attempt and, while attempts remain, the node is RETRYING and goes through
        steps 1–3 again (HX-FAIL-1: FAILED once "its retry policy is exhausted").
        """
        node = self.nodes[i]
        if self.options.pre_execution_retry:
            attempt = c.attempts[i] + 1
            c = attrs.evolve(c, attempts=_put(c.attempts, i, attempt))
            if attempt < node.max_attempts:
                return Transition(
                    {
                        "event": "node_retrying",
                        "node": node.id,
                        "attempt": attempt,
                        "error": event["error"],
                    },
                    "run",
                    ("HX-FAIL-1",),
                    attrs.evolve(
                        c,
                        states=_put(c.states, i, RETRYING),
                        errors=_put(c.errors, i, event["error"]),
                    ),
                )
            event = {**event, "attempt": attempt}
        return Transition(event, "run", clauses, self._terminal(c, i, FAILED, error=event["error"]))

    def _prepared(self, c: Config, i: int) -> bool:
        """Whether node ``i`` passes steps 1–3 of HX-EXEC (guard, inputs, resources)."""
        node = self.nodes[i]
        return (
            holds(node.guard, self.env(c))
            and self._inputs(c, i)[1] is None
            and not any(r in self.scenario.failing_resources for r in node.resources)
        )

    def _inputs(self, c: Config, i: int) -> tuple[dict[str, JSON], str | None]:
        """HX-EXEC-2: each input from its data edge, else value, else default."""
        node = self.nodes[i]
        found: dict[str, JSON] = {}
        for item in node.inputs:
            bound = False
            for k in self.incoming[i]:
                link = self.links[k]
                if link.type != "data" or link.to_port != item.name:
                    continue
                source = link.source
                # HX-DATA-1: available once its producer reaches SUCCEEDED; HX-DATA-2:
                # a SKIPPED producer's outputs are unavailable; HX-READY-3: an edge whose
                # condition is false is "not satisfied" and carries nothing.
                produced = c.outputs[source]
                if (
                    c.states[source] == SUCCEEDED
                    and c.edges[k] == "satisfied"
                    and isinstance(produced, dict)
                    and link.from_port in produced
                ):
                    found[item.name] = produced[link.from_port]
                    bound = True
                    break
            if bound:
                continue
            if item.has_value:
                found[item.name] = item.value
            elif item.has_default:
                found[item.name] = item.default
            elif item.required:
                return found, item.name  # HX-4101: never a silent null (HX-DATA-4)
        return found, None

    def _decide(self, c: Config, i: int, env: JSON) -> Transition[Config]:
        """A decision evaluates its cases in document order (HX-SCHED-4).

        The first case that holds routes; every other case edge is
        resolved-negative (HX-UNREACH-3).
        """
        node = self.nodes[i]
        chosen = next((k for k, case in enumerate(node.cases) if holds(case.when, env)), None)
        edges = list(c.edges)
        for k in self.outgoing[i]:
            link = self.links[k]
            if link.type == "case":
                edges[k] = "satisfied" if link.case == chosen else "negative"
        c = attrs.evolve(c, edges=tuple(edges))
        target = self._terminal(c, i, SUCCEEDED, outputs={})
        return Transition(
            {
                "event": "decision_routed",
                "node": node.id,
                "to": node.cases[chosen].to if chosen is not None else None,
            },
            "run",
            ("HX-SCHED-4", "HX-UNREACH-3"),
            target,
        )

    def _loop(self, c: Config, i: int, env: JSON, inputs: JSON) -> list[Transition[Config]]:
        """A loop runs its body once per item of ``over``: one transition per outcome (A-65, A-80).

        Each iteration is a run of the body's nodes with ``params`` extended by
        ``item`` and ``index``; every execution of each iteration the chapter
        permits is enumerated.  Iterations share no mutable state (HX-DATA-6:
        "Values are immutable once bound"), so a loop that succeeds reports
        every iteration's execution in sequence order.  Which failing iteration
        the loop reports depends on which iterations run together: at most
        maxConcurrency (HX-SCHED-2: "bounds concurrent iterations"; absent, no
        bound), started in sequence order — so with maxConcurrency="1" only the
        first failing one (HX-SCHED-4) — or, under ``Options(loop_start="any")``,
        in any order.  A failed loop reports the failing iteration's execution.
        """
        node = self.nodes[i]
        items = evaluate(node.over, env) if node.over is not None else None
        if not isinstance(items, list):
            target = self._terminal(c, i, FAILED, error="loop_over_not_a_list")
            return [
                # the chapter does not say what an `over` that is not a list
                # does; the loop fails (HX-EXEC-6: "Transition to SUCCEEDED or FAILED").
                Transition(
                    {"event": "node_failed", "node": node.id, "error": "loop_over_not_a_list"},
                    "run",
                    ("HX-EXEC-6",),
                    target,
                )
            ]
        runs = [self._iterations(i, index, item) for index, item in enumerate(items)]
        bound = node.max_concurrency or max(len(items), 1)
        found: list[Transition[Config]] = []
        for j, executions in enumerate(runs):
            if not self._may_report(runs, j, bound):
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
                        "run",
                        ("HX-SCHED-2", "HX-SCHED-4"),
                        self._terminal(c, i, FAILED, error=str(code)),
                    )
                )
        succeeded = [[e for e in executions if e[1].status != "failed"] for executions in runs]
        combinations = 1
        for executions in succeeded:
            combinations *= len(executions)
        if combinations > MAX_LOOP_OUTCOMES:
            raise ModelLimit(
                f"loop {node.id}: {combinations} combinations of iteration executions, "
                f"more than the {MAX_LOOP_OUTCOMES} the model enumerates"
            )
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
                    "run",
                    ("HX-SCHED-2", "HX-SCHED-4", "HX-DATA-6"),
                    self._terminal(c, i, SUCCEEDED, outputs=outputs),
                )
            )
        return found

    def _may_report(self, runs: Sequence[Sequence[Execution]], j: int, bound: int) -> bool:
        """Whether iteration ``j`` can be the first to fail (HX-SCHED-2/4, A-80).

        Started in sequence order with at most ``bound`` at once, ``j`` starts
        only after every iteration ``i <= j - bound`` finished — all of which
        must then have been able to succeed.
        """
        if self.options.loop_start == "any" and bound > 1:
            return True
        return all(
            any(final.status != "failed" for _, final, _ in runs[k]) for k in range(j - bound + 1)
        )

    def _iterations(self, i: int, index: int, item: JSON) -> list[Execution]:
        """Every execution of one iteration of loop ``i``: trace, final configuration, error."""
        key = (i, index, canonical(item))
        if key not in self._iteration_cache:
            node = self.nodes[i]
            body = Harness(f"{self.harness.id}/{node.id}", node.body)
            params = {**self.scenario.params, "item": item, "index": index}
            inner = HarnessRun(body, attrs.evolve(self.scenario, params=params), self.options)
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
                            f"loop {node.id}: an iteration has more than {MAX_LOOP_OUTCOMES} "
                            "executions"
                        )
                    continue
                stack.extend((t.target, (*trace, t.event)) for t in reversed(following))
            self._iteration_cache[key] = list(found.values())
        return self._iteration_cache[key]

    def _complete(self, c: Config, i: int) -> Transition[Config]:
        """RUNNING → the scenario's result: SUCCEEDED with outputs, RETRYING, or FAILED."""
        node = self.nodes[i]
        invocation = c.invocations[i] + 1
        c = attrs.evolve(c, invocations=_put(c.invocations, i, invocation))
        result = self.scenario.result(node, invocation)
        if i in c.discard:
            # HX-CANCEL-2: "let it finish and then discard the result".
            target = self._terminal(attrs.evolve(c, discard=c.discard - {i}), i, CANCELLED)
            return Transition(
                {"event": "node_cancelled", "node": node.id, "finished": True},
                "complete",
                ("HX-CANCEL-2",),
                target,
            )
        if isinstance(result, dict) and "error" in result:
            code = str((result.get("error") or {}).get("code", "error"))
            if c.attempts[i] < node.max_attempts:
                return Transition(
                    {
                        "event": "node_retrying",
                        "node": node.id,
                        "attempt": c.attempts[i],
                        "error": code,
                    },
                    "complete",
                    ("HX-FAIL-1",),
                    attrs.evolve(c, states=_put(c.states, i, RETRYING)),
                )
            target = self._terminal(c, i, FAILED, error=code)
            return Transition(
                {"event": "node_failed", "node": node.id, "error": code, "attempt": c.attempts[i]},
                "complete",
                ("HX-EXEC-6", "HX-FAIL-1"),
                target,
            )
        outputs = result.get("outputs", {}) if isinstance(result, dict) else {}
        outputs = {k: v for k, v in outputs.items() if k in node.outputs}  # declared only
        target = self._terminal(c, i, SUCCEEDED, outputs=outputs)
        return Transition(
            {"event": "node_succeeded", "node": node.id, "outputs": outputs},
            "complete",
            ("HX-EXEC-5", "HX-EXEC-6", "HX-DATA-1", "HX-DATA-5"),
            target,
        )

    def _retry(self, c: Config, i: int) -> list[Transition[Config]]:
        """RETRYING → the next attempt (HX-FAIL-1); after HX-4101/HX-4102 steps 1–3 (A-82)."""
        node = self.nodes[i]
        if c.errors[i] in PRE_EXECUTION:
            c = attrs.evolve(c, states=_put(c.states, i, READY), errors=_put(c.errors, i, None))
            if node.kind is Kind.LOOP and self._prepared(c, i):
                again = self._loop(c, i, self.env(c), {})
            else:
                again = [self._run(c, i)]
            return [
                Transition(t.event, "retry", ("HX-FAIL-1", *t.clauses), t.target) for t in again
            ]
        return [
            Transition(
                {
                    "event": "node_started",
                    "node": node.id,
                    "attempt": c.attempts[i] + 1,
                    "retry": True,
                },
                "retry",
                ("HX-FAIL-1",),
                attrs.evolve(
                    c,
                    states=_put(c.states, i, RUNNING),
                    attempts=_put(c.attempts, i, c.attempts[i] + 1),
                ),
            )
        ]

    def compensation_due(self, c: Config) -> tuple[int, ...]:
        """The compensation handlers still to run, in the order they run (A-64, A-86).

        The targets of the compensation edges of every SUCCEEDED node — also one
        that succeeded while unwinding, since the list is taken once nothing runs
        any more — in reverse completion order, each target once.
        """
        due: list[int] = []
        for j in reversed(c.order):
            if c.states[j] == SUCCEEDED:
                due.extend(
                    t for t in self.compensation[j] if c.states[t] == PENDING and t not in due
                )
        return tuple(due)

    def _compensate(self, c: Config, i: int) -> Transition[Config]:
        """Run the next compensation handler while unwinding (HX-FAIL-3; chapter 8: A-64)."""
        node = self.nodes[i]
        invocation = c.invocations[i] + 1
        result = self.scenario.result(node, invocation)
        ok = not (isinstance(result, dict) and "error" in result)
        state = SUCCEEDED if ok else FAILED
        outputs = None
        if ok and isinstance(result, dict):
            outputs = {k: v for k, v in result.get("outputs", {}).items() if k in node.outputs}
        return Transition(
            {"event": "node_compensated", "node": node.id, "status": state},
            "compensate",
            ("HX-FAIL-3",),
            attrs.evolve(
                c,
                states=_put(c.states, i, state),
                outputs=_put(c.outputs, i, outputs),
                invocations=_put(c.invocations, i, invocation),
            ),
        )

    def _finish(self, c: Config) -> Transition[Config]:
        """HX-DONE-1/2: nothing READY, RUNNING or RETRYING; unreached nodes stay PENDING."""
        status = "failed" if c.failure is not None else "completed"
        event: dict[str, JSON] = {"event": "instance_completed", "status": status}
        if c.failure is not None:
            event["failedNode"] = self.nodes[c.failure].id
        return Transition(
            event, "finish", ("HX-DONE-1", "HX-DONE-2", "HX-FAIL-3"), attrs.evolve(c, status=status)
        )

    # -- what the chapter determines: settle ----------------------------------------------

    def _terminal(
        self, c: Config, i: int, state: str, outputs: JSON = None, error: str | None = None
    ) -> Config:
        """Node ``i`` reaches a terminal state; resolve its edges and settle."""
        c = attrs.evolve(
            c,
            states=_put(c.states, i, state),
            outputs=_put(c.outputs, i, outputs if state == SUCCEEDED else None),
            errors=_put(c.errors, i, error),
            order=(*c.order, i),
        )
        edges = list(c.edges)
        env = self.env(c)
        for k in self.outgoing[i]:
            link = self.links[k]
            if edges[k] != "unresolved":
                continue  # a decision's case edges were resolved by the decision
            reached = state in (SUCCEEDED, SKIPPED)
            edges[k] = "satisfied" if reached and holds(link.condition, env) else "negative"
        c = attrs.evolve(c, edges=tuple(edges))
        if state == FAILED:
            if self.errors_out[i]:
                # HX-FAIL-2: "all are traversed. The failure is handled".  While
                # unwinding nothing new starts, so a handler reached then is
                # CANCELLED at once, never left READY (HX-DONE-1; A-85).
                handler = READY if c.status == "running" else CANCELLED
                activated = list(c.states)
                edges = list(c.edges)
                for t in self.errors_out[i]:
                    if activated[t] == PENDING:
                        activated[t] = handler
                        if handler == CANCELLED:
                            for k in self.outgoing[t]:
                                if edges[k] == "unresolved":
                                    edges[k] = "negative"
                c = attrs.evolve(c, states=tuple(activated), edges=tuple(edges))
            elif c.failure is None:
                # HX-FAIL-3: "the failure propagates: the runtime begins unwinding".
                # Nothing new starts while unwinding: READY nodes are cancelled;
                # RUNNING ones finish; compensation runs once nothing runs.
                stopped = tuple(CANCELLED if s == READY else s for s in c.states)
                c = attrs.evolve(c, status="unwinding", failure=i, states=stopped)
        return self.settle(c)

    def settle(self, c: Config) -> Config:
        """Joins, unreachability and cancellation, to a fixed point."""
        changed = True
        while changed:
            changed = False
            states = list(c.states)
            edges = list(c.edges)
            unreached = set(c.unreached)
            discard = set(c.discard)
            for i in range(len(self.nodes)):
                if states[i] != PENDING or i in unreached or i in self.entry:
                    continue
                verdict = self._join(i, edges, unreached) if self.incoming[i] else "unreachable"
                if verdict == "unreachable" and self._may_be_handled(
                    c.status, i, states, unreached
                ):
                    continue  # a handler whose source can still fail (HX-FAIL-2) waits
                if verdict == "ready" and c.status == "running":
                    states[i] = READY
                    changed = True
                    if self.nodes[i].join is JoinPolicy.ANY:
                        for j in self.branches.get(i, ()):
                            if (
                                states[j] == RETRYING
                                or (states[j] == READY and self.options.any_cancels == "branch")
                                or (states[j] == RUNNING and self.nodes[j].idempotent)
                            ):
                                states[j] = CANCELLED  # HX-CANCEL-1
                                for k in self.outgoing[j]:
                                    if edges[k] == "unresolved":
                                        edges[k] = "negative"
                            elif states[j] == RUNNING:
                                discard.add(j)  # HX-CANCEL-2
                elif verdict == "unreachable":
                    if self.options.all_negative == "skipped" and self._all_negative(i, edges):
                        states[i] = SKIPPED  # the earlier draft's reading, for comparison
                        for k in self.outgoing[i]:
                            if edges[k] == "unresolved":
                                edges[k] = "satisfied"
                    else:
                        unreached.add(i)  # HX-UNREACH-1: stays PENDING
                        for k in self.outgoing[i]:
                            if edges[k] == "unresolved":
                                edges[k] = "negative"
                    changed = True
            c = attrs.evolve(
                c,
                states=tuple(states),
                edges=tuple(edges),
                unreached=frozenset(unreached),
                discard=frozenset(discard),
            )
        return c

    def _may_be_handled(
        self, status: str, i: int, states: Sequence[str], unreached: set[int]
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
        return any(can_act(s) for s in self.errors_in[i]) or any(
            can_act(s, (SUCCEEDED,)) for s in self.compensation_in[i]
        )

    def _all_negative(self, i: int, edges: Sequence[str]) -> bool:
        return all(edges[k] == "negative" for k in self.incoming[i])

    def _join(self, i: int, edges: Sequence[str], unreached: set[int]) -> str:
        """``ready``, ``unreachable`` or ``waiting`` (the join table, A-61).

        HX-READY-1: "A node in PENDING becomes READY when its join condition
        over incoming edges is satisfied"; HX-READY-4: a negative edge
        "neither blocks forever nor counts toward a join"; HX-UNREACH-4:
        unreachable when "every incoming forward edge is resolved-negative";
        HX-JOIN-4 / HX-JOIN-6: not reached is not skipped — it stays PENDING.
        """
        incoming = self.incoming[i]
        satisfied = sum(edges[k] == "satisfied" for k in incoming)
        unresolved = sum(edges[k] == "unresolved" for k in incoming)
        node = self.nodes[i]
        # HX-UNREACH-5: a required input with no default fed by an unreachable source
        # ("comes from an unreachable source").  A source that FAILED, was CANCELLED or
        # whose edge's condition is false was reached: the consumer runs and fails
        # HX-4101 (HX-DATA-3; HX-DATA-4: "MUST fail rather than pass a null").
        for k in incoming:
            link = self.links[k]
            if link.type == "data" and edges[k] == "negative" and link.source in unreached:
                item = next((x for x in node.inputs if x.name == link.to_port), None)
                if (
                    item is not None
                    and item.required
                    and not item.has_default
                    and not item.has_value
                ):
                    return "unreachable"
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


def _put(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return (*values[:i], value, *values[i + 1 :])


def config_key(c: Config) -> str:
    """A canonical rendering of every field of ``c``."""
    return canonical({f.name: _plain(getattr(c, f.name)) for f in attrs.fields(Config)})


def _plain(value: Any) -> JSON:
    if isinstance(value, frozenset):
        return sorted(value)
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def outcome(run: HarnessRun, c: Config) -> dict[str, JSON]:
    """The instance's status and each node's state, attempts, outputs and error."""
    return {
        "status": c.status,
        "failedNode": run.nodes[c.failure].id if c.failure is not None else None,
        "nodes": {
            node.id: {
                "state": c.states[i],
                "attempts": c.attempts[i],
                "outputs": c.outputs[i],
                "error": c.errors[i],
            }
            for i, node in enumerate(run.nodes)
        },
    }


def reference_run(run: HarnessRun) -> tuple[list[JSON], Config]:
    """One execution in the model's own order: its trace and final configuration."""
    execution = execute(run)
    return execution.trace, execution.final
