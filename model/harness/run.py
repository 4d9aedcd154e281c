"""The fixed parts of a Harness execution instance: the document's graph, read once.

``Run`` holds what no transition changes — the forward links (control, data
and dependency edges, and each decision case as one, A-61), the error and
compensation edges both ways, the entry set (HX-START), and for every
``any`` join the branch it cancels (HX-CANCEL-1) — and answers what the
rules ask of it: what guards and conditions read, and a node's inputs
(HX-EXEC-2).  ``HarnessRun`` (semantics.py) adds the transitions.
"""

from __future__ import annotations

import abc
from typing import Any, Self

import attrs

from wforacle.model.harness.config import READINGS, SUCCEEDED, Config, Options
from wforacle.model.harness.document import EdgeType, Harness, JoinPolicy
from wforacle.model.harness.expr import Expr, evaluate, holds
from wforacle.model.harness.scenario import Scenario
from wforacle.model.kernel.lts import Transition

JSON = Any


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


class Run(abc.ABC):
    """One execution instance of ``harness`` under ``scenario``: its fixed parts."""

    def __init__(self, harness: Harness, scenario: Scenario, options: Options = READINGS) -> None:
        """The instance of ``harness`` under ``scenario``, with the readings ``options``."""
        self.harness = harness
        self.scenario = scenario
        self.options = options
        self.nodes = list(harness.nodes)
        self.index = {node.id: i for i, node in enumerate(self.nodes)}
        n = range(len(self.nodes))
        self.links = _links(harness, self.index)
        self.incoming: dict[int, list[int]] = {i: [] for i in n}
        self.outgoing: dict[int, list[int]] = {i: [] for i in n}
        for k, link in enumerate(self.links):
            self.incoming[link.target].append(k)
            self.outgoing[link.source].append(k)
        # Error and compensation edges, by source (``…_out``) and by target (``…_in``).
        self.errors_out = _targets(harness, self.index, EdgeType.ERROR)
        self.compensation = _targets(harness, self.index, EdgeType.COMPENSATION)
        self.errors_in = _inverse(self.errors_out)
        self.compensation_in = _inverse(self.compensation)
        handlers = {
            t for ts in (*self.errors_out.values(), *self.compensation.values()) for t in ts
        }
        self.handlers = frozenset(h for h in handlers if not self.incoming[h])
        if harness.entry is not None:
            self.entry: tuple[int, ...] = (self.index[harness.entry],)  # HX-START-1
        else:
            # HX-START-2, HX-START-3: every node with no incoming edge of any kind.
            self.entry = tuple(i for i in n if not self.incoming[i] and i not in handlers)
        self.branches = {
            i: self._branch(i) for i, node in enumerate(self.nodes) if node.join is JoinPolicy.ANY
        }
        # Speed only: each loop iteration's executions, computed once (rules.py).
        self.iteration_cache: dict[tuple[int, int, str], list[Execution]] = {}
        # Speed only: the rules of one node ask in turn (rules.py), so the last
        # answers are kept, by the configuration's identity (configurations never change).
        self._env: tuple[Config | None, dict[str, JSON]] = (None, {})
        self._inputs: tuple[Config | None, int, tuple[dict[str, JSON], str | None]] = (
            None,
            -1,
            ({}, None),
        )

    @abc.abstractmethod
    def initial(self) -> Config:
        """The configuration the instance starts in (semantics.py)."""

    @abc.abstractmethod
    def enabled(self, c: Config) -> list[Transition[Config]]:
        """Every transition chapter 5 permits from ``c`` (semantics.py)."""

    def derive(self, harness: Harness, scenario: Scenario) -> Self:
        """An instance of the same kind and readings: one iteration of a loop's body."""
        return type(self)(harness, scenario, self.options)

    def _branch(self, join: int) -> frozenset[int]:
        """Nodes that could only have reached ``join`` (HX-CANCEL-1).

        Every forward path from them ends at or passes through ``join``: with
        ``join`` taken out of the graph, they reach no node where a path can
        end (a node without forward successors) — so an ancestor with a path
        around the join is not in the branch.
        """
        import networkx as nx  # only an ``any`` join has a branch (start-up time)

        g = nx.DiGraph()
        g.add_nodes_from(range(len(self.nodes)))
        g.add_edges_from((link.source, link.target) for link in self.links)
        ends = {n for n in g if g.out_degree(n) == 0}
        around = g.subgraph(n for n in g if n != join)
        return frozenset(
            n for n in nx.ancestors(g, join) if not ({n} | nx.descendants(around, n)) & ends
        )

    def env(self, c: Config) -> dict[str, JSON]:
        """What guards and conditions read: params and the outputs of SUCCEEDED nodes."""
        if self._env[0] is c:
            return self._env[1]
        env: dict[str, JSON] = {"params": self.scenario.params}
        for i, node in enumerate(self.nodes):
            if c.states[i] == SUCCEEDED and isinstance(c.outputs[i], dict):
                env[node.id] = c.outputs[i]
        self._env = (c, env)
        return env

    def holds(self, expr: Expr | None, c: Config) -> bool:
        """Whether a guard, condition or case holds in ``c`` (A-87 read as the options say)."""
        return holds(expr, self.env(c), self.options.absent_reference)

    def value(self, expr: Expr, c: Config) -> JSON:
        """The value of an expression (a loop's ``over``) in ``c``, A-87 read as the options say."""
        return evaluate(expr, self.env(c), self.options.absent_reference)

    def inputs(self, c: Config, i: int) -> tuple[dict[str, JSON], str | None]:
        """HX-EXEC-2: each input from its data edge, else value, else default.

        Every input that has a value, with the name of the first required
        input left without one, if any.
        """
        if self._inputs[0] is c and self._inputs[1] == i:
            return self._inputs[2]
        found = self._bind(c, i)
        self._inputs = (c, i, found)
        return found

    def _bind(self, c: Config, i: int) -> tuple[dict[str, JSON], str | None]:
        node = self.nodes[i]
        found: dict[str, JSON] = {}
        missing: str | None = None
        # of several data edges into one input, the first that carries a value, in
        # document order — or the last, under its other reading.
        incoming = self.incoming[i]
        if self.options.data_fan_in == "last":
            incoming = incoming[::-1]
        # A-166 (and its extension to a SKIPPED producer, HX-DATA-3: "unless the input
        # declares a default"): under the reading "default" a `value` does not stand in
        # for a required input's data edge that brought nothing.
        value_stands_in = self.options.unreach_value == "obtains"
        for item in node.inputs:
            bound = False
            fed = False
            for k in incoming:
                link = self.links[k]
                if link.type != "data" or link.to_port != item.name:
                    continue
                fed = True
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
            if item.has_value and (value_stands_in or not (fed and item.required)):
                found[item.name] = item.value
            elif item.has_default:
                found[item.name] = item.default
            elif item.required and missing is None:
                missing = item.name  # HX-4101: never a silent null (HX-DATA-4)
        return found, missing


def _links(harness: Harness, index: dict[str, int]) -> list[Link]:
    """The forward links: control, data and dependency edges, then every decision case."""
    links = [
        Link(index[e.from_], index[e.to], e.type.value, e.condition, e.from_port, e.to_port)
        for e in harness.edges
        if e.type not in (EdgeType.ERROR, EdgeType.COMPENSATION)
    ]
    for s, node in enumerate(harness.nodes):
        for k, case in enumerate(node.cases):
            links.append(Link(s, index[case.to], "case", case.when, case=k))
    return links


def _targets(harness: Harness, index: dict[str, int], kind: EdgeType) -> dict[int, list[int]]:
    found: dict[int, list[int]] = {i: [] for i in range(len(harness.nodes))}
    for edge in harness.edges:
        if edge.type is kind:
            found[index[edge.from_]].append(index[edge.to])
    return found


def _inverse(targets: dict[int, list[int]]) -> dict[int, list[int]]:
    found: dict[int, list[int]] = {i: [] for i in targets}
    for s, ts in targets.items():
        for t in ts:
            found[t].append(s)
    return found
