"""Planning (RFC "Execution model · Planning") with networkx.

Notation: ``G = (V, E)`` is the main graph — V the main-graph steps in
declared order, E the edges of both lanes (an error edge is "an ordinary
directed edge", W6W-EDGE-9).  ``index(v)`` is v's position in declared order.

The plan is Kahn's algorithm with the ready set ordered by ``index``
(W6W-PLAN-5, "Ties broken by declared step order for determinism"; reading
chosen in assumption A-02, the other reading selectable as ``fifo``).
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Sequence
from enum import StrEnum
from typing import TYPE_CHECKING

from wforacle.model.w6w.document import Workflow

if TYPE_CHECKING:
    import networkx as nx  # imported where a graph is built: validation never needs it


class CycleError(ValueError):
    """The main graph has a cycle: there is no plan (W6W-PLAN-6)."""


class TieBreak(StrEnum):
    """How steps that become ready together are ordered (assumption A-02)."""

    DECLARED = "declared"  # the earliest-declared ready step always goes next
    FIFO = "fifo"  # ready steps queue up in the order they became ready


def graph(workflow: Workflow) -> nx.DiGraph:
    """W6W-PLAN-4: "Build the in-degree map and adjacency list" (as a DiGraph).

    Only edges between main-graph steps are added; dangling edges and edges
    into sub-blocks are reported by validation, not planned.
    """
    import networkx as nx

    g = nx.DiGraph()
    g.add_nodes_from((step.id, {"index": i}) for i, step in enumerate(workflow.steps))
    g.add_edges_from(
        (edge.from_, edge.to) for edge in workflow.edges if edge.from_ in g and edge.to in g
    )
    return g


def plan_order(workflow: Workflow, tie_break: TieBreak = TieBreak.DECLARED) -> list[str]:
    """The plan: a deterministic list of step ids (W6W-PLAN-7).

    Assumes a validated workflow: unique ids, no dangling edge, no cycle.
    Raises ``CycleError`` on a cycle.
    """
    import networkx as nx

    if not workflow.edges:
        # W6W-PLAN-2: "If edges is empty or absent → the plan is steps in
        # declared order (implicit linear chain)."
        return [step.id for step in workflow.steps]
    g = graph(workflow)
    index = {step.id: i for i, step in enumerate(workflow.steps)}
    if tie_break is TieBreak.DECLARED:
        # W6W-PLAN-5: "Topologically sort. Ties broken by declared step order".
        try:
            return list(nx.lexicographical_topological_sort(g, key=index.__getitem__))
        except nx.NetworkXUnfeasible:
            raise CycleError("graph contains a cycle") from None
    return _fifo_order(g, [step.id for step in workflow.steps])


def _fifo_order(g: nx.DiGraph, declared: Sequence[str]) -> list[str]:
    """Kahn's algorithm with a FIFO queue seeded in declared order (reading ``fifo``)."""
    indegree = dict(g.in_degree())
    queue = deque(v for v in declared if indegree[v] == 0)
    index = {v: i for i, v in enumerate(declared)}
    order = []
    while queue:
        v = queue.popleft()
        order.append(v)
        for w in sorted(g.successors(v), key=index.__getitem__):
            indegree[w] -= 1
            if indegree[w] == 0:
                queue.append(w)
    if len(order) != len(declared):
        raise CycleError("graph contains a cycle")
    return order


def cycles(workflow: Workflow) -> list[list[str]]:
    """One concrete cycle per cyclic strongly connected component (W6W-PLAN-6).

    Each cycle starts at its earliest-declared step and follows edges in
    declared order, so the report is deterministic.
    """
    import networkx as nx

    g = graph(workflow)
    index = nx.get_node_attributes(g, "index")
    found = []
    for component in nx.strongly_connected_components(g):
        start = min(component, key=index.__getitem__)
        if len(component) == 1 and not g.has_edge(start, start):
            continue
        found.append(_cycle_through(g, start, component, index))
    found.sort(key=lambda cycle: index[cycle[0]])
    return found


def _cycle_through(
    g: nx.DiGraph, start: str, component: set[str], index: dict[str, int]
) -> list[str]:
    """A shortest cycle through ``start`` inside its component (BFS)."""
    parent: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(g.successors(v), key=index.__getitem__):
                if w not in component:
                    continue
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(parent[path[-1]])
                    return path[::-1]
                if w not in parent:
                    parent[w] = v
                    nxt.append(w)
        frontier = nxt
    raise AssertionError("a strongly connected component always has a cycle")  # pragma: no cover


def fast_plan_order(workflow: Workflow) -> list[str]:
    """The DECLARED plan by Kahn's algorithm over index arrays, without networkx.

    A speed path kept beside ``plan_order`` and differentially tested
    against it (tests/w6w/test_plan.py); ``wforacle plan`` uses it for large
    documents.  Raises ``CycleError`` on a cycle.
    """
    steps = workflow.steps
    if not workflow.edges:
        return [step.id for step in steps]
    ids = [step.id for step in steps]
    index = {step_id: i for i, step_id in enumerate(ids)}
    successors: list[list[int]] = [[] for _ in steps]
    indegree = [0] * len(steps)
    # A repeated (from, to) pair adds to the in-degree once per edge and is
    # consumed once per edge, so parallel edges need no de-duplication.
    for edge in workflow.edges:
        a, b = index.get(edge.from_), index.get(edge.to)
        if a is not None and b is not None:
            successors[a].append(b)
            indegree[b] += 1
    ready = [i for i, d in enumerate(indegree) if d == 0]
    heapq.heapify(ready)
    order: list[str] = []
    pop, push, append = heapq.heappop, heapq.heappush, order.append
    while ready:
        i = pop(ready)
        append(ids[i])
        for j in successors[i]:
            indegree[j] -= 1
            if indegree[j] == 0:
                push(ready, j)
    if len(order) != len(steps):
        raise CycleError("graph contains a cycle")
    return order
