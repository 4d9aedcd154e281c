"""What a Harness instance depends on besides the document (assumption A-63)."""

from __future__ import annotations

from typing import Any

import attrs

from wforacle.model.diagnostics import InvalidScenario
from wforacle.model.harness.document import Node

JSON = Any


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
        """A scenario from JSON (docs/harness.md); ``InvalidScenario`` says what is wrong."""
        if not isinstance(value, dict):
            raise InvalidScenario("a Harness scenario is a JSON object")
        for name, kind, label in (
            ("params", dict, "object"),
            ("nodes", dict, "object"),
            ("failingResources", list, "array"),
        ):
            if name in value and not isinstance(value[name], kind):
                raise InvalidScenario(f"scenario {name} must be a JSON {label}", f"$.{name}")
        nodes: dict[str, tuple[JSON, ...]] = {}
        for k, v in (value.get("nodes") or {}).items():
            attempts = v.get("attempts", []) if isinstance(v, dict) else []
            if not isinstance(attempts, list):
                raise InvalidScenario(
                    f"scenario nodes.{k}.attempts must be a JSON array", f"$.nodes.{k}.attempts"
                )
            for n, attempt in enumerate(attempts):
                _check_attempt(attempt, f"$.nodes.{k}.attempts[{n}]")
            nodes[k] = tuple(attempts)
        resources = value.get("failingResources") or []
        for n, resource in enumerate(resources):
            if not isinstance(resource, str):
                raise InvalidScenario(
                    "failingResources holds resourceRef strings", f"$.failingResources[{n}]"
                )
        return cls(value.get("params") or {}, nodes, frozenset(resources))

    def result(self, node: Node, invocation: int) -> JSON:
        """The node's ``invocation``-th result (1-based)."""
        scripted = self.nodes.get(node.id, ())
        if not scripted:
            return {"outputs": {name: f"{node.id}.{name}" for name in node.outputs}}
        return scripted[min(invocation, len(scripted)) - 1]


def _check_attempt(attempt: JSON, path: str) -> None:
    """One invocation's result: ``{"outputs": {...}}`` or ``{"error": {"code", "message"}}``.

    docs/harness.md (A-63) names these two shapes; an attempt of neither, or
    with both, would run as something the scenario does not say (issue 19:
    ``{"outputs": "true"}`` was an internal error, ``{"x": 1}`` a success).
    """
    shapes = [key for key in ("outputs", "error") if isinstance(attempt, dict) and key in attempt]
    if len(shapes) != 1:
        raise InvalidScenario(
            f'{path} must be {{"outputs": {{...}}}} or {{"error": {{...}}}}', path
        )
    (key,) = shapes
    if not isinstance(attempt[key], dict):
        raise InvalidScenario(f"{path}.{key} must be a JSON object", f"{path}.{key}")
    # docs/harness.md: an error has a string ``code`` (it was read as "error" when absent).
    if key == "error" and not isinstance(attempt[key].get("code"), str):
        raise InvalidScenario(f"{path}.error.code must be a string", f"{path}.error.code")
