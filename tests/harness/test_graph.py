"""The plain graph ``G`` of Harness validation against networkx, the library it replaced.

properties/harness/validate.py keeps ``G`` in dictionaries so that a
document without a cycle never loads networkx (issue 16, start-up).  Here
the same document is also built as the networkx MultiDiGraph validation
used before, and every answer validation reads from ``G`` must agree:
incoming arcs in the same order (z3's formulas are built in that order),
successors, the topological order of ``F`` and the cycle it names.
"""

from __future__ import annotations

import networkx as nx
from hypothesis import given
from hypothesis import strategies as st

from wforacle.model.harness.document import Case, Edge, EdgeType, Harness, Kind, Node
from wforacle.properties.harness.validate import (
    FORWARD,
    forward_order,
    graph,
    shortest_cycle,
)

NAMES = ["a", "b", "c", "d", "e", "f"]


@st.composite
def harnesses(draw: st.DrawFn) -> Harness:
    """Top-level nodes (some decisions) and edges of every type, parallel and self loops too."""
    count = draw(st.integers(1, len(NAMES)))
    names = NAMES[:count]
    ends = st.sampled_from([*names, "missing"])  # "missing": an edge validation drops
    nodes = []
    for name in names:
        if draw(st.booleans()):
            nodes.append(Node(name))
        else:
            cases = draw(st.lists(ends, min_size=1, max_size=3))
            nodes.append(Node(name, kind=Kind.DECISION, cases=tuple(Case(to) for to in cases)))
    edges = draw(
        st.lists(
            st.builds(Edge, ends, ends, st.sampled_from(list(EdgeType))),
            max_size=10,
        )
    )
    return Harness("h", tuple(nodes), tuple(edges))


def networkx_graph(harness: Harness) -> nx.MultiDiGraph:
    """``G`` as a networkx MultiDiGraph, built as validation built it before."""
    g = nx.MultiDiGraph()
    for index, node in enumerate(harness.nodes):
        g.add_node(node.id, index=index)
    for edge in harness.edges:
        if edge.from_ in g and edge.to in g:
            g.add_edge(edge.from_, edge.to, type=edge.type.value, edge=edge)
    for node in harness.nodes:
        if node.kind is Kind.DECISION:
            for case in node.cases:
                if case.to in g:
                    g.add_edge(node.id, case.to, type="case", case=case)
    return g


def networkx_forward(g: nx.MultiDiGraph) -> nx.DiGraph:
    f = nx.DiGraph()
    f.add_nodes_from(g.nodes(data=True))
    f.add_edges_from((u, v) for u, v, t in g.edges(data="type") if t in FORWARD)
    return f


@given(harnesses())
def test_the_plain_graph_answers_as_networkx_does(harness):
    plain, reference = graph(harness), networkx_graph(harness)
    assert plain.nodes == tuple(reference.nodes)
    for node_id in plain.nodes:
        assert [(arc.source, arc.type) for arc in plain.incoming(node_id)] == [
            (u, t) for u, _, t in reference.in_edges(node_id, data="type")
        ]
        assert list(plain.out[node_id]) == list(reference.successors(node_id))
    assert [(arc.source, arc.target, arc.type) for arc in plain.arcs()] == [
        (u, v, t) for u, v, t in reference.edges(data="type")
    ]


@given(harnesses())
def test_the_forward_order_and_the_cycle_are_networkx_s(harness):
    plain, f = graph(harness), networkx_forward(networkx_graph(harness))
    index = {node.id: i for i, node in enumerate(harness.nodes)}
    try:
        expected = tuple(nx.lexicographical_topological_sort(f, key=index.__getitem__))
    except nx.NetworkXUnfeasible:
        expected = None
    assert forward_order(plain) == expected
    if expected is None:
        assert shortest_cycle(plain) == min(nx.simple_cycles(f), key=len)
