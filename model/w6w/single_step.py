"""The single-step test of a workflow step against supplied state (W6W-BIND-5..8).

Notation: ``test_step(W, s, S)`` resolves step ``s``'s with block against a
supplied scope ``S`` exactly as a run would, in one pass (W6W-BIND-5), and
returns the params the action would receive — or fails before invocation,
naming the step, when a ``{"$": …}`` binding references a step that has no
output in ``S`` (W6W-BIND-6).  That is deliberately stricter than a run, where
the same binding resolves to null (W6W-BIND-4).  A recorded null output is an
output: the binding resolves to null (W6W-BIND-7).  The resolver never hands
an unresolved marker or ExprValue on (W6W-BIND-8).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from wforacle.model.w6w.document import Workflow
from wforacle.model.w6w.resolve import ResolutionError, resolve_with

JSON = Any


def path_bindings(value: JSON) -> Iterator[str]:
    """The paths of every ``{"$": path}`` in a with value, inside ``$expr`` too.

    The RFC's own example nests ``$`` bindings in ``$expr`` (A-44); they bind a
    step's output all the same.
    """
    if isinstance(value, dict):
        if len(value) == 1 and "$" in value and isinstance(value["$"], str):
            yield value["$"]
            return
        for member in value.values():
            yield from path_bindings(member)
    elif isinstance(value, list):
        for item in value:
            yield from path_bindings(item)


def test_step(workflow: Workflow, step_id: str, scope: Mapping[str, JSON]) -> JSON:
    """The params step ``step_id`` would be invoked with, or a ResolutionError."""
    step = workflow.step(step_id)
    supplied = scope.get("steps") if isinstance(scope.get("steps"), dict) else {}
    assert isinstance(supplied, dict)
    for path in path_bindings(step.with_):
        segments = path.split(".")
        if segments[0] != "steps" or len(segments) < 2:
            continue
        target = segments[1]
        entry = supplied.get(target)
        if not isinstance(entry, dict) or "output" not in entry:
            # W6W-BIND-6: "fail before invocation, naming the step, when a $ binding
            # references a step that has no output in the supplied state".
            raise ResolutionError(
                "binding_without_output",
                f"step {step_id!r}: binding {path!r} references step {target!r}, which has "
                "no output in the supplied state",
            )
    return resolve_with(step.with_, scope)
