"""The Harness document (chapter 5's vocabulary), as frozen attrs classes.

The chapter names XML attributes — ``@entry``, ``case/@to``,
``joinPolicy="quorum"``, ``idempotent="false"`` — so a Harness document is
XML; the element vocabulary below is the smallest one that carries every
construct chapter 5 uses (assumption A-60; docs/harness.md and
docs/harness.xsd):

    <harness id entry?>
      <node id impl? idempotent? joinPolicy? quorum? resourceRef?>
        <guard>EXPR</guard>? <input name required? value? default?/>*
        <output name/>* <timeout ms/>? <retry maxAttempts/>?
      </node>
      <decision id joinPolicy? quorum?> <case to when?/>+ </decision>
      <loop id over maxConcurrency? joinPolicy?> <node …/>+ </loop>
      <edge from to type? condition? fromPort? toPort?/>
    </harness>

``value`` and ``default`` are JSON texts; EXPR is grammar/harness_expr.lark.
"""

from __future__ import annotations

import enum
from typing import Any

import attrs

from wforacle.model.harness.expr import Expr

JSON = Any


class EdgeType(enum.StrEnum):
    """The five edge types (§5.3: "Only control, data and dependency edges participate")."""

    CONTROL = "control"
    DATA = "data"
    DEPENDENCY = "dependency"
    ERROR = "error"
    COMPENSATION = "compensation"

    @property
    def forward(self) -> bool:
        """Whether the edge takes part in readiness (HX-READY-2)."""
        return self in (EdgeType.CONTROL, EdgeType.DATA, EdgeType.DEPENDENCY)


class JoinPolicy(enum.StrEnum):
    """How a node's satisfied incoming edges combine (HX-JOIN-1)."""

    ALL = "all"
    ANY = "any"
    QUORUM = "quorum"


class Kind(enum.StrEnum):
    """What a node is."""

    TASK = "task"
    DECISION = "decision"
    LOOP = "loop"


@attrs.frozen
class Input:
    """A node input: from a data edge, ``value``, or ``default`` (HX-EXEC-2)."""

    name: str
    required: bool = False
    value: JSON = attrs.field(default=None, eq=False)
    has_value: bool = False
    default: JSON = attrs.field(default=None, eq=False)
    has_default: bool = False


@attrs.frozen
class Case:
    """A decision case: route to ``to`` when ``when`` holds (document order, HX-SCHED-4)."""

    to: str
    when: Expr | None = None
    text: str | None = None


@attrs.frozen
class Node:
    """A node: a task, a decision or a loop."""

    id: str
    kind: Kind = Kind.TASK
    impl: str | None = None
    guard: Expr | None = None
    guard_text: str | None = None
    inputs: tuple[Input, ...] = ()
    outputs: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    timeout_ms: int | None = None
    max_attempts: int = 1
    idempotent: bool = True
    join: JoinPolicy = JoinPolicy.ALL
    quorum: int | None = None
    cases: tuple[Case, ...] = ()
    over: Expr | None = None  # a loop's items
    max_concurrency: int | None = None
    body: tuple[Node, ...] = ()
    path: str = ""  # where it is in the document, for diagnostics


@attrs.frozen
class Edge:
    """A directed edge of one of the five types, with an optional condition."""

    from_: str
    to: str
    type: EdgeType = EdgeType.CONTROL
    condition: Expr | None = None
    condition_text: str | None = None
    from_port: str | None = None
    to_port: str | None = None
    path: str = ""

    @property
    def key(self) -> tuple[str, str, str, str, str]:
        """A stable identity: (from, to, type, fromPort, toPort)."""
        return (self.from_, self.to, self.type.value, self.from_port or "", self.to_port or "")


@attrs.frozen
class Harness:
    """A Harness document."""

    id: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...] = ()
    entry: str | None = None

    def node(self, node_id: str) -> Node:
        """The top-level node called ``node_id``."""
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(node_id)
