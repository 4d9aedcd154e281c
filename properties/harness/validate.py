"""Static checks of a Harness document: the validation gate, graph structure, z3 properties.

Notation: ``G`` is the multigraph of the document's nodes with one arc per
declared edge (its ``type``) plus one arc per decision case (decision →
case/@to, type ``case``; assumption A-61: a case routes like a control
edge).  ``F`` is ``G`` restricted to forward arcs (control, data,
dependency and case: HX-READY-2).  Each rule below yields diagnostics
citing the clause it implements; errors close the gate (HX-INST-3: "A
runtime MUST NOT execute a document that fails validation"), warnings do
not.

``G`` is plain dictionaries in document order; networkx names a cycle of
``F`` and z3 decides guards, conditions, decisions and quorums, each
imported only by a document that has one (start-up time: a document with
neither loads neither).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import attrs

from wforacle.model.diagnostics import Diagnostic, Gate, Report, error, warning
from wforacle.model.harness.document import Case, Edge, EdgeType, Harness, JoinPolicy, Kind, Node
from wforacle.model.harness.loader import load

if TYPE_CHECKING:
    from wforacle.properties.harness.smt import Encoder

JSON = Any
FORWARD = ("control", "data", "dependency", "case")  # the arcs of F (HX-READY-2)


@attrs.frozen
class Arc:
    """One arc of ``G``: a declared edge, or a decision's case (``type`` "case")."""

    source: str
    target: str
    type: str  # an EdgeType value, or "case"
    edge: Edge | None = None
    case: Case | None = None


@attrs.frozen
class Graph:
    """``G``: the top-level nodes in document order and the arcs between them.

    ``into`` and ``out`` group the arcs by their other end, each group in
    the order its first arc was added, so arcs are listed in one fixed
    order (the order of a networkx MultiDiGraph built the same way).
    """

    nodes: tuple[str, ...]
    into: dict[str, dict[str, list[Arc]]] = attrs.field(eq=False)  # target → source → arcs
    out: dict[str, dict[str, list[Arc]]] = attrs.field(eq=False)  # source → target → arcs

    def __contains__(self, node_id: object) -> bool:
        return node_id in self.into

    def incoming(self, node_id: str) -> list[Arc]:
        """The arcs into ``node_id``."""
        return [arc for arcs in self.into[node_id].values() for arc in arcs]

    def arcs(self) -> Iterator[Arc]:
        """Every arc, by source in document order."""
        for node_id in self.nodes:
            for arcs in self.out[node_id].values():
                yield from arcs


@attrs.frozen
class Structure:
    """What the checks derive: the graph, the entry set and the handlers."""

    graph: Graph = attrs.field(eq=False)
    entry: tuple[str, ...]
    handlers: frozenset[str]
    order: tuple[str, ...]  # a topological order of the forward graph (document order on ties)


@attrs.frozen
class Validation:
    """The outcome of validating a Harness document."""

    report: Report
    harness: Harness | None = attrs.field(eq=False)
    structure: Structure | None = attrs.field(eq=False)


def all_nodes(harness: Harness) -> list[Node]:
    """Every node, loop bodies included (depth-first)."""
    found: list[Node] = []

    def visit(node: Node) -> None:
        found.append(node)
        for inner in node.body:
            visit(inner)

    for node in harness.nodes:
        visit(node)
    return found


def graph(harness: Harness) -> Graph:
    """``G`` of the module notation (top-level nodes only; loop bodies are sub-runs)."""
    g = Graph(tuple(node.id for node in harness.nodes), {}, {})
    for node_id in g.nodes:
        g.into[node_id] = {}
        g.out[node_id] = {}

    def add(arc: Arc) -> None:
        g.into[arc.target].setdefault(arc.source, []).append(arc)
        g.out[arc.source].setdefault(arc.target, []).append(arc)

    for edge in harness.edges:
        if edge.from_ in g and edge.to in g:
            add(Arc(edge.from_, edge.to, edge.type.value, edge=edge))
    for node in harness.nodes:
        if node.kind is Kind.DECISION:
            for case in node.cases:
                if case.to in g:
                    add(Arc(node.id, case.to, "case", case=case))
    return g


def forward_order(g: Graph) -> tuple[str, ...] | None:
    """A topological order of ``F``, the earliest-declared ready node first; None on a cycle.

    Kahn's algorithm with the ready nodes in a heap of document positions:
    the least topological order by document position.
    """
    index = {node_id: i for i, node_id in enumerate(g.nodes)}
    indegree = [0] * len(g.nodes)
    successors: list[list[int]] = [[] for _ in g.nodes]
    for arc in g.arcs():
        if arc.type in FORWARD:
            successors[index[arc.source]].append(index[arc.target])
            indegree[index[arc.target]] += 1
    ready = [i for i, degree in enumerate(indegree) if degree == 0]
    order: list[str] = []
    while ready:
        i = heapq.heappop(ready)
        order.append(g.nodes[i])
        for j in successors[i]:
            indegree[j] -= 1
            if indegree[j] == 0:
                heapq.heappush(ready, j)
    return tuple(order) if len(order) == len(g.nodes) else None


def shortest_cycle(g: Graph) -> list[str]:
    """The first of the shortest cycles of ``F`` that networkx lists (``F`` has one)."""
    import networkx as nx  # only a cyclic document names its cycle (start-up time)

    f = nx.DiGraph()
    f.add_nodes_from(g.nodes)
    f.add_edges_from(
        (source, target)
        for source in g.nodes
        for target, arcs in g.out[source].items()
        if any(arc.type in FORWARD for arc in arcs)
    )
    return min(nx.simple_cycles(f), key=len)


QUORUM_EDGES = ("participating", "all")


def validate(text: str | bytes, quorum_edges: str = "participating") -> Validation:
    """Load and check a Harness document.

    ``quorum_edges`` is the reading of HX-JOIN-2's "the number of incoming
    edges" (A-83): the edges that take part in readiness (HX-READY-2, the
    default) or every incoming edge, error and compensation edges too.
    """
    if quorum_edges not in QUORUM_EDGES:
        raise ValueError(f"quorum_edges is one of {QUORUM_EDGES}, not {quorum_edges!r}")
    harness, problems = load(text)
    diagnostics = list(problems)
    if harness is None:
        return Validation(Report(tuple(diagnostics)), None, None)
    diagnostics.extend(_identity(harness))
    structure = None
    if not any(d.severity.value == "error" for d in diagnostics):
        g = graph(harness)
        found = list(_structure(harness, g))
        diagnostics.extend(d for d in found if isinstance(d, Diagnostic))
        structure = next((s for s in found if isinstance(s, Structure)), None)
        diagnostics.extend(_joins(harness, g, quorum_edges))
        diagnostics.extend(_data(harness, g))
        diagnostics.extend(_unread_conditions(harness))
        diagnostics.extend(_smt(harness, g, quorum_edges))
    report = Report(tuple(diagnostics))
    # HX-INST-2: "Validation is a gate, not advice": no structure, no run.
    return Validation(report, harness, structure if report.valid else None)


# -- identity: ids and references ---------------------------------------------------------


def _identity(harness: Harness) -> Iterator[Diagnostic]:
    seen: dict[str, str] = {}
    for node in all_nodes(harness):
        if node.id in seen:
            yield error(
                "duplicate_id",
                node.path,
                f"id {node.id!r} is already used at {seen[node.id]}",
                "A-60",
                Gate.SAVE,
            )
        seen.setdefault(node.id, node.path)
    top = {node.id for node in harness.nodes}
    for edge in harness.edges:
        for end in (edge.from_, edge.to):
            if end not in top:
                yield error(
                    "dangling_edge",
                    edge.path,
                    f"edge endpoint {end!r} is not a top-level node",
                    "A-60",
                    Gate.SAVE,
                )
    if harness.entry is not None and harness.entry not in top:
        yield error(
            "bad_entry",
            "/harness/@entry",
            f"@entry names {harness.entry!r}, which is not a node",
            "HX-START-1",
            Gate.SAVE,
        )
    for node in harness.nodes:
        for k, case in enumerate(node.cases, start=1):
            if case.to not in top:
                yield error(
                    "dangling_case",
                    f"{node.path}/case[{k}]/@to",
                    f"case/@to names {case.to!r}, which is not a node",
                    "A-60",
                    Gate.SAVE,
                )


# -- structure: cycles, entry set, handlers, reachability ------------------------------------


def _structure(harness: Harness, g: Graph) -> Iterator[Diagnostic | Structure]:
    order = forward_order(g)
    if order is None:
        cycle = shortest_cycle(g)
        yield error(
            "cycle",
            "/harness",
            f"forward edges form a cycle: {' → '.join([*cycle, cycle[0]])}",
            "A-60",
            Gate.SAVE,
        )
        return
    handlers = frozenset(
        n
        for n in g.nodes
        if g.incoming(n) and all(arc.type in ("error", "compensation") for arc in g.incoming(n))
    )
    if harness.entry is not None:
        entry: tuple[str, ...] = (harness.entry,)  # HX-START-1
    else:
        # HX-START-2: "every node with no incoming edge of any type".
        entry = tuple(node.id for node in harness.nodes if not g.incoming(node.id))
    if not entry:
        yield error(
            "no_entry",
            "/harness",
            "no node has zero incoming edges and @entry is absent: nothing can start",
            "HX-START-2",
            Gate.SAVE,
        )
        return
    # Reachable from the entry set along forward edges, or by an error / compensation
    # edge from something reachable (handlers run when their source fails, HX-FAIL-2).
    reached = set(entry)
    frontier = list(entry)
    while frontier:
        current = frontier.pop()
        for nxt in g.out[current]:
            if nxt not in reached:
                reached.add(nxt)
                frontier.append(nxt)
    for node in harness.nodes:
        if node.id not in reached:
            yield warning(
                "unreachable_node",
                node.path,
                f"{node.id!r} cannot be reached from the entry set {list(entry)}",
                "HX-START-2",
            )
    yield Structure(g, entry, handlers, order)


# -- joins: HX-2401, HX-2402 ---------------------------------------------------------------


def _incoming(g: Graph, node_id: str, quorum_edges: str) -> int:
    """HX-JOIN-2's "the number of incoming edges" under the reading ``quorum_edges`` (A-83)."""
    return sum(1 for arc in g.incoming(node_id) if quorum_edges == "all" or arc.type in FORWARD)


def _joins(harness: Harness, g: Graph, quorum_edges: str) -> Iterator[Diagnostic]:
    for node in all_nodes(harness):
        if node.join is JoinPolicy.QUORUM:
            if node.quorum is None or node.quorum < 1:
                # HX-JOIN-2: "quorum is required when joinPolicy="quorum"" (HX-2401); a
                # quorum below 1 is no quorum — it would fire on nothing.
                yield error(
                    "HX-2401",
                    node.path if node.quorum is None else f"{node.path}/@quorum",
                    'joinPolicy="quorum" needs a quorum'
                    if node.quorum is None
                    else f"quorum {node.quorum} is no quorum: it is at least 1",
                    "HX-JOIN-2",
                    Gate.SAVE,
                )
            elif node.id in g and node.quorum > _incoming(g, node.id, quorum_edges):
                # HX-JOIN-2: "MUST NOT exceed the number of incoming edges" (HX-2402);
                # HX-READY-2: "Only control, data and dependency edges participate".
                yield error(
                    "HX-2402",
                    f"{node.path}/@quorum",
                    f"quorum {node.quorum} exceeds the {_incoming(g, node.id, quorum_edges)} "
                    + (
                        "incoming edge(s) that take part in readiness"
                        if quorum_edges == "participating"
                        else "incoming edge(s)"
                    ),
                    "HX-JOIN-2",
                    Gate.SAVE,
                )
        elif node.quorum is not None:
            yield warning(
                "quorum_ignored",
                f"{node.path}/@quorum",
                f'quorum is read only with joinPolicy="quorum", not "{node.join.value}"',
                "HX-JOIN-2",
            )


# -- data edges ---------------------------------------------------------------------------------


def _data(harness: Harness, g: Graph) -> Iterator[Diagnostic]:
    nodes = {node.id: node for node in harness.nodes}
    fed: set[tuple[str, str]] = set()
    for edge in harness.edges:
        if edge.type is not EdgeType.DATA or edge.from_ not in nodes or edge.to not in nodes:
            continue
        source, target = nodes[edge.from_], nodes[edge.to]
        if edge.from_port is None or edge.from_port not in source.outputs:
            yield error(
                "bad_port",
                edge.path,
                f"a data edge needs fromPort naming an output of {source.id!r}",
                "HX-EXEC-5",
                Gate.SAVE,
            )
        if edge.to_port is None or edge.to_port not in {i.name for i in target.inputs}:
            yield error(
                "bad_port",
                edge.path,
                f"a data edge needs toPort naming an input of {target.id!r}",
                "HX-EXEC-2",
                Gate.SAVE,
            )
            continue
        fed.add((target.id, edge.to_port))
        consumer = next(i for i in target.inputs if i.name == edge.to_port)
        if (
            source.guard is not None
            and consumer.required
            and not (consumer.has_default or consumer.has_value)
        ):
            # An input with a `value` runs with it when the producer is SKIPPED.
            # HX-DATA-4: "A validator SHOULD warn about the pattern".
            yield warning(
                "guarded_producer",
                edge.path,
                f"{source.id!r} is guarded, and its output feeds the required input "
                f"{target.id}.{consumer.name} with no default: when the guard is false the "
                "run fails with HX-4101",
                "HX-DATA-4",
            )
    for node in harness.nodes:
        for item in node.inputs:
            if (
                item.required
                and not (item.has_value or item.has_default)
                and (node.id, item.name) not in fed
            ):
                yield warning(
                    "input_never_bound",
                    node.path,
                    f"required input {item.name!r} has no data edge, value or default: "
                    "running the node always fails with HX-4101",
                    "HX-EXEC-2",
                )


def _unread_conditions(harness: Harness) -> Iterator[Diagnostic]:
    """A condition on an error or compensation edge, which no rule reads (A-178).

    HX-FAIL-2: "all are traversed"; HX-READY-2: "Only control, data and
    dependency edges participate" in readiness, where conditions are read.
    """
    for edge in harness.edges:
        if edge.condition is not None and edge.type.value not in FORWARD:
            yield warning(
                "condition_not_read",
                f"{edge.path}/@condition",
                f"a condition on an {edge.type.value} edge is not read: every "
                f"{edge.type.value} edge is traversed, whatever it says (A-178)",
                "HX-FAIL-2" if edge.type is EdgeType.ERROR else "HX-READY-2",
            )


# -- z3: guards, conditions, decisions, joins ------------------------------------------------------


def _smt(harness: Harness, g: Graph, quorum_edges: str) -> Iterator[Diagnostic]:
    read = [e for e in harness.edges if e.type.value in FORWARD]  # the others unread
    exprs = [n.guard for n in all_nodes(harness)] + [e.condition for e in read]
    exprs += [c.when for n in harness.nodes for c in n.cases]
    decisions = [n for n in harness.nodes if n.kind is Kind.DECISION and n.cases]
    quorums = [n for n in harness.nodes if n.join is JoinPolicy.QUORUM and n.quorum is not None]
    if not (decisions or quorums or any(e is not None for e in exprs)):
        return  # nothing to solve, and z3 is not loaded (start-up time)
    from wforacle.properties.harness.smt import Encoder, solve  # z3 (start-up time)

    encoder = Encoder(exprs)
    for node in all_nodes(harness):
        if node.guard is not None and solve(encoder.encode(node.guard)) is None:
            yield warning(
                "guard_never_true",
                f"{node.path}/guard[1]",
                f"the guard {node.guard_text!r} holds for no value: the node is always SKIPPED",
                "HX-EXEC-1",
            )
    for edge in read:
        if edge.condition is not None and solve(encoder.encode(edge.condition)) is None:
            yield warning(
                "condition_never_true",
                f"{edge.path}/@condition",
                f"the condition {edge.condition_text!r} holds for no value: the edge is "
                "always resolved-negative",
                "HX-READY-3",
            )
    for node in decisions:
        yield from _decision(node, encoder)
    yield from _never_fires(quorums, g, encoder, quorum_edges)


def _decision(node: Node, encoder: Encoder) -> Iterator[Diagnostic]:
    """A decision's cases that overlap, and the values for which none holds."""
    import z3  # loaded by _smt only for a document with something to solve

    from wforacle.properties.harness.smt import solve

    formulas = [
        encoder.encode(c.when) if c.when is not None else z3.BoolVal(True) for c in node.cases
    ]
    for i in range(len(formulas)):
        for j in range(i + 1, len(formulas)):
            if node.cases[i].when is None or node.cases[j].when is None:
                continue
            both = solve(formulas[i], formulas[j])
            if both is not None:
                yield warning(
                    "cases_overlap",
                    f"{node.path}/case[{j + 1}]",
                    f"cases {i + 1} and {j + 1} both hold for {both}; document order routes to "
                    f"{node.cases[i].to!r} (HX-SCHED-4)",
                    "HX-SCHED-4",
                )
    missed = solve(*[z3.Not(f) for f in formulas])
    if missed is not None:
        yield warning(
            "cases_not_exhaustive",
            node.path,
            f"no case holds for {missed}: the decision routes nowhere and every target "
            "is unreached",
            "HX-UNREACH-3",
        )


def _never_fires(
    quorums: list[Node], g: Graph, encoder: Encoder, quorum_edges: str
) -> Iterator[Diagnostic]:
    """A quorum larger than the incoming edges that can be satisfied together (HX-JOIN-2)."""
    import z3  # loaded by _smt only for a document with something to solve

    from wforacle.properties.harness.smt import witness

    for node in quorums:
        assert node.quorum is not None  # a quorum join's (_smt)
        incoming = [arc for arc in g.incoming(node.id) if arc.type in FORWARD]
        # Under the "all" reading error and compensation edges count toward the
        # bound but never toward the join (HX-READY-2): such a join cannot fire.
        if node.quorum > len(incoming) and (
            quorum_edges == "participating" or node.quorum > _incoming(g, node.id, "all")
        ):
            continue  # HX-2402 already
        satisfied = []
        routes: dict[str, list[Any]] = {}
        for k, arc in enumerate(incoming):
            flag = z3.Bool(f"edge {arc.source}->{node.id} #{k}")
            condition = z3.BoolVal(True)
            if arc.case is not None:
                routes.setdefault(arc.source, []).append(flag)
                if arc.case.when is not None:
                    condition = encoder.encode(arc.case.when)
            elif arc.edge is not None and arc.edge.condition is not None:
                condition = encoder.encode(arc.edge.condition)
            satisfied.append((flag, condition))
        formulas = [z3.Implies(flag, condition) for flag, condition in satisfied]
        # One decision routes to one case: its case edges exclude each other.
        formulas += [z3.AtMost(*flags, 1) for flags in routes.values() if len(flags) > 1]
        optimizer = z3.Optimize()
        optimizer.set("timeout", 5000)
        optimizer.add(*formulas)
        count = z3.Sum([z3.If(flag, 1, 0) for flag, _ in satisfied])
        optimizer.maximize(count)
        if optimizer.check() == z3.sat:
            model = optimizer.model()
            best = model.eval(count).as_long()
            shown = {k: v for k, v in witness(model).items() if not k.startswith("edge ")}
            if best < node.quorum:
                yield error(
                    "join_never_fires",
                    f"{node.path}/@quorum",
                    f"at most {best} of its incoming edges can be satisfied together, fewer than "
                    f"quorum {node.quorum}: the join never fires (a best valuation: {shown})",
                    "HX-JOIN-2",
                    Gate.SAVE,
                )
