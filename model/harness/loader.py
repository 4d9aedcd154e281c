"""Load a Harness XML document safely, reporting every problem with a path.

Safety (issue 6: "no entity expansion, no external entities, bounded size
and depth"): the text is parsed by defusedxml with DTDs, entities and
external references forbidden; a document over ``MAX_BYTES`` or nested
deeper than ``MAX_DEPTH`` is refused before it is built.

Paths are XPath-like: ``/harness/node[@id='a']/input[2]``.  Codes:
docs/harness.md.  The gate (HX-INST-3: "A runtime MUST NOT execute a
document that fails validation") is enforced by the caller: no run starts
from a document with an error.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from typing import Any

import defusedxml.ElementTree as SafeTree
from defusedxml import DefusedXmlException

from wforacle.grammar import jsontext
from wforacle.model.diagnostics import Diagnostic, Gate, error
from wforacle.model.harness.document import (
    Case,
    Edge,
    EdgeType,
    Harness,
    Input,
    JoinPolicy,
    Kind,
    Node,
)
from wforacle.model.harness.expr import Expr, ExprError, parse

JSON = Any
MAX_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 16
CLAUSE = "A-60"  # the element vocabulary is assumption A-60


class Loader:
    """Builds a Harness from XML text, collecting diagnostics."""

    def __init__(self) -> None:
        self.problems: list[Diagnostic] = []

    def fail(self, code: str, path: str, message: str, clause: str = CLAUSE) -> None:
        """Record an error at ``path``."""
        self.problems.append(error(code, path, message, clause, Gate.SAVE))

    # -- entry --------------------------------------------------------------------

    def load(self, text: str | bytes) -> Harness | None:
        """The Harness in ``text``, or None when it cannot be built."""
        raw = text.encode("utf-8") if isinstance(text, str) else text
        if len(raw) > MAX_BYTES:
            self.fail("too_large", "/", f"the document is over {MAX_BYTES} bytes")
            return None
        try:
            root = SafeTree.fromstring(
                raw, forbid_dtd=True, forbid_entities=True, forbid_external=True
            )
        except DefusedXmlException as exc:
            self.fail(
                "xml_forbidden",
                "/",
                f"DTDs, entities and external references are refused ({type(exc).__name__})",
            )
            return None
        except ElementTree.ParseError as exc:
            line, column = exc.position
            self.fail("xml_malformed", "/", f"not well-formed XML at line {line}, column {column}")
            return None
        if _depth(root) > MAX_DEPTH:
            self.fail("too_deep", "/", f"elements nest deeper than {MAX_DEPTH}")
            return None
        qualified = next((e.tag for e in root.iter() if str(e.tag).startswith("{")), None)
        if qualified is not None:
            # The chapter's elements are in no namespace: <{urn:x}harness> or <h:harness>
            # is another vocabulary's element, not <harness> (issue 19).
            namespace, _, local = str(qualified)[1:].partition("}")
            self.fail(
                "wrong_namespace",
                "/",
                f"<{local}> is in the namespace {namespace!r}; Harness elements are in none",
            )
            return None
        if _local(root.tag) != "harness":
            self.fail("wrong_root", "/", f"the root element is <{_local(root.tag)}>, not <harness>")
            return None
        nodes: list[Node] = []
        edges: list[Edge] = []
        counts: dict[str, int] = {}
        for child in root:
            name = _local(child.tag)
            counts[name] = counts.get(name, 0) + 1
            path = f"/harness/{name}[{counts[name]}]"
            if name in ("node", "decision", "loop"):
                node = self.node(child, path)
                if node is not None:
                    nodes.append(node)
            elif name == "edge":
                edge = self.edge(child, path)
                if edge is not None:
                    edges.append(edge)
            else:
                self.fail("unknown_element", path, f"<{name}> is not a Harness element")
        harness_id = root.get("id")
        if not harness_id:
            self.fail("missing_attribute", "/harness", "<harness> needs an id")
        return Harness(harness_id or "", tuple(nodes), tuple(edges), root.get("entry"))

    # -- elements -------------------------------------------------------------------

    def node(self, element: ElementTree.Element, path: str) -> Node | None:
        """A <node>, <decision> or <loop> element."""
        name = _local(element.tag)
        node_id = element.get("id")
        if not node_id:
            self.fail("missing_attribute", path, f"<{name}> needs an id")
            return None
        path = f"{path.rsplit('[', 1)[0]}[@id='{node_id}']"
        kind = {"node": Kind.TASK, "decision": Kind.DECISION, "loop": Kind.LOOP}[name]
        join = element.get("joinPolicy", "all")
        if join not in {p.value for p in JoinPolicy}:
            self.fail(
                "bad_attribute",
                f"{path}/@joinPolicy",
                f"joinPolicy must be all, any or quorum, not {join!r}",
            )
            join = "all"
        quorum = self.integer(element, "quorum", path)
        idempotent = element.get("idempotent", "true")
        if idempotent not in ("true", "false"):
            self.fail("bad_attribute", f"{path}/@idempotent", 'idempotent is "true" or "false"')
        inputs, outputs, cases, body = [], [], [], []
        guard: Expr | None = None
        guard_text = None
        timeout = None
        attempts = 1
        counts: dict[str, int] = {}
        for child in element:
            part = _local(child.tag)
            counts[part] = counts.get(part, 0) + 1
            here = f"{path}/{part}[{counts[part]}]"
            if part == "guard":
                guard_text = (child.text or "").strip()
                guard = self.expression(guard_text, here)
            elif part == "input":
                item = self.input(child, here)
                if item is not None:
                    inputs.append(item)
            elif part == "output":
                if not child.get("name"):
                    self.fail("missing_attribute", here, "<output> needs a name")
                else:
                    outputs.append(child.get("name", ""))
            elif part == "timeout":
                timeout = self.integer(child, "ms", here)
            elif part == "retry":
                attempts = self.integer(child, "maxAttempts", here) or 1
                if attempts < 1:
                    self.fail("bad_attribute", f"{here}/@maxAttempts", "maxAttempts is at least 1")
                    attempts = 1
            elif part == "case" and kind is Kind.DECISION:
                to = child.get("to")
                if not to:
                    self.fail("missing_attribute", here, "<case> needs a to")
                    continue
                text = child.get("when")
                cases.append(
                    Case(to, self.expression(text, f"{here}/@when") if text else None, text)
                )
            elif part in ("node", "decision", "loop") and kind is Kind.LOOP:
                inner = self.node(child, here)
                if inner is not None:
                    body.append(inner)
            else:
                self.fail("unknown_element", here, f"<{part}> is not allowed in <{name}>")
        over = None
        if kind is Kind.LOOP:
            text = element.get("over")
            if not text:
                self.fail("missing_attribute", path, "<loop> needs over")
            else:
                over = self.expression(text, f"{path}/@over")
        if kind is Kind.DECISION and not cases:
            self.fail("no_cases", path, "a <decision> needs at least one <case>")
        resources = tuple(r for r in (element.get("resourceRef") or "").split() if r)
        return Node(
            node_id,
            kind,
            element.get("impl"),
            guard,
            guard_text,
            tuple(inputs),
            tuple(outputs),
            resources,
            timeout,
            attempts,
            idempotent != "false",
            JoinPolicy(join),
            quorum,
            tuple(cases),
            over,
            self.integer(element, "maxConcurrency", path),
            tuple(body),
            path,
        )

    def input(self, element: ElementTree.Element, path: str) -> Input | None:
        """An <input> element."""
        name = element.get("name")
        if not name:
            self.fail("missing_attribute", path, "<input> needs a name")
            return None
        required = element.get("required", "false") == "true"
        has_value, value = self.json_attribute(element, "value", path)
        has_default, default = self.json_attribute(element, "default", path)
        return Input(name, required, value, has_value, default, has_default)

    def edge(self, element: ElementTree.Element, path: str) -> Edge | None:
        """An <edge> element."""
        source, target = element.get("from"), element.get("to")
        if not source or not target:
            self.fail("missing_attribute", path, "<edge> needs from and to")
            return None
        kind = element.get("type", "control")
        if kind not in {t.value for t in EdgeType}:
            self.fail(
                "bad_attribute",
                f"{path}/@type",
                f"edge type {kind!r} is not one of control, data, dependency, error, compensation",
            )
            return None
        text = element.get("condition")
        condition = self.expression(text, f"{path}/@condition") if text else None
        return Edge(
            source,
            target,
            EdgeType(kind),
            condition,
            text,
            element.get("fromPort"),
            element.get("toPort"),
            path,
        )

    # -- values ---------------------------------------------------------------------

    def expression(self, text: str, path: str) -> Expr | None:
        """A guard, condition or loop expression (A-62)."""
        try:
            return parse(text)
        except ExprError as exc:
            self.fail("bad_expression", path, str(exc), "A-62")
            return None

    def integer(self, element: ElementTree.Element, name: str, path: str) -> int | None:
        """An integer attribute, or None when absent or malformed (reported)."""
        text = element.get(name)
        if text is None:
            return None
        try:
            return int(text)
        except ValueError:
            self.fail(
                "bad_attribute", f"{path}/@{name}", f"{name} must be an integer, not {text!r}"
            )
            return None

    def json_attribute(
        self, element: ElementTree.Element, name: str, path: str
    ) -> tuple[bool, JSON]:
        """A JSON-valued attribute: (present, value)."""
        text = element.get(name)
        if text is None:
            return False, None
        try:
            # Strict and bounded in depth (grammar/jsontext.py, A-154): NaN, 1e400 and
            # nesting past MAX_DEPTH are no JSON value (docs/harness.md: the attribute is JSON).
            return True, jsontext.loads(text, surrogates=False)
        except jsontext.NotStrictJson as exc:
            self.fail(
                "bad_value",
                f"{path}/@{name}",
                f"{name} is a JSON value; {text[:80]!r} is not JSON ({str(exc)[:120]})",
            )
            return False, None


def load(text: str | bytes) -> tuple[Harness | None, list[Diagnostic]]:
    """The Harness in ``text`` and every problem found loading it."""
    loader = Loader()
    harness = loader.load(text)
    return harness, loader.problems


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _depth(element: ElementTree.Element) -> int:
    deepest, frontier = 1, [(element, 1)]
    while frontier:
        current, level = frontier.pop()
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            return deepest
        frontier.extend((child, level + 1) for child in current)
    return deepest
