"""A Harness document as a graph to draw (docs/report.md): nodes as boxes, edges by their type.

Notation: a box's id is the node's id (unique, HX-GRAPH rules), a loop
body node's is ``loop/node``.  Each ``<edge>`` is an arrow of its type
(control, data, dependency, error, compensation; §5.3) labelled with its
condition and ports; each decision case is an arrow of kind ``case``
labelled with its place and its ``when`` (the first that holds routes,
HX-SCHED-4; an absent ``when`` always holds); a loop's body
nodes are a group the loop points into (A-65).
"""

from __future__ import annotations

from wforacle.model.harness.document import Edge, EdgeType, Harness, JoinPolicy, Kind, Node
from wforacle.properties.specification import Arrow, Box, Diagram, Group

ROLES = {
    EdgeType.CONTROL: "next",
    EdgeType.DATA: "data",
    EdgeType.DEPENDENCY: "other",
    EdgeType.ERROR: "failure",
    EdgeType.COMPENSATION: "failure",
}


def diagram(harness: Harness | None) -> Diagram:
    """The document's nodes, edges, decision cases and loop bodies."""
    if harness is None:
        return Diagram()
    boxes: list[Box] = []
    arrows: list[Arrow] = []
    groups: list[Group] = []
    ids = {node.id for node in harness.nodes}
    for node in harness.nodes:
        boxes.append(Box(node.id, node.id, _detail(node, harness.entry), _role(node)))
        for k, case in enumerate(node.cases, start=1):
            if case.to in ids:
                label = f"case {k}: {case.text or 'always'}"  # an absent when holds (HX-SCHED-4)
                arrows.append(Arrow(node.id, case.to, "case", "condition", label))
        if node.body:
            group = f"{node.id}/body"
            groups.append(Group(group, f"{node.id}: body"))
            for inner in node.body:
                here = f"{node.id}/{inner.id}"
                boxes.append(Box(here, inner.id, _detail(inner, None), _role(inner), group))
                arrows.append(Arrow(node.id, here, "body", "nested"))
    for edge in harness.edges:
        if edge.from_ in ids and edge.to in ids:
            arrows.append(
                Arrow(edge.from_, edge.to, edge.type.value, ROLES[edge.type], _label(edge))
            )
    return Diagram(tuple(boxes), tuple(arrows), tuple(groups))


def _label(edge: Edge) -> str:
    """An edge's type (when not control), ports and condition."""
    parts = [] if edge.type == EdgeType.CONTROL else [edge.type.value]
    if edge.from_port or edge.to_port:
        parts.append(f"{edge.from_port or '·'}→{edge.to_port or '·'}")
    if edge.condition_text:
        parts.append(f"[{edge.condition_text}]")
    return " ".join(parts)


def _role(node: Node) -> str:
    if node.kind == Kind.DECISION:
        return "choice"
    return "construct" if node.kind == Kind.LOOP else "work"


def _detail(node: Node, entry: str | None) -> str:
    """What the node is, and what changes how it runs (join, guard, retry, idempotency)."""
    parts = [node.kind.value if node.kind != Kind.TASK else (node.impl or "task")]
    if node.id == entry:
        parts.append("entry")
    if node.join == JoinPolicy.QUORUM:
        parts.append(f"join quorum {node.quorum}")
    elif node.join != JoinPolicy.ALL:
        parts.append(f"join {node.join.value}")
    if node.guard_text:
        parts.append(f"guard {node.guard_text}")
    if node.max_attempts > 1:
        parts.append(f"retry ×{node.max_attempts}")
    if not node.idempotent:
        parts.append("not idempotent")
    return ", ".join(parts)
