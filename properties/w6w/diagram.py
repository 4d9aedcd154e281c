"""A w6w workflow as a graph to draw (docs/report.md): steps as boxes, edges by their lane.

Notation: a box's id is the step's document path (``steps[0]``,
``steps[1].with.then[0]``), so a sub-block step that repeats a main-graph
id (A-06: a warning) is still its own box.  A main-graph edge is an arrow
of kind ``success`` or ``error`` (W6W-FIELD-15, W6W-EDGE-3).  A control's
sub-block (A-06) is a group: an arrow from the control to the block's first
step is labelled with the block's place (``then``, ``else``, ``body``,
``branches[1]``), and the block's steps follow one another in array order
(docs/controls.md: "blocks have no edges … and run in array order").
"""

from __future__ import annotations

from wforacle.model.w6w.document import CALL_APP, CONTROL_APP, Step, When, Workflow
from wforacle.properties.specification import Arrow, Box, Diagram, Group


def diagram(workflow: Workflow | None) -> Diagram:
    """The workflow's steps, edges and controls' sub-blocks."""
    if workflow is None:
        return Diagram()
    boxes: list[Box] = []
    arrows: list[Arrow] = []
    groups: list[Group] = []

    def visit(path: str, step: Step, group: str) -> None:
        boxes.append(Box(path, step.id, _detail(step), _role(step), group))
        for block in step.blocks:
            where = _where(block.where)
            inner = f"{path}.with.{where}"
            groups.append(Group(inner, f"{step.id}: {where}", group))
            previous = None
            for index, sub in enumerate(block.steps):
                here = f"{inner}[{index}]"
                visit(here, sub, inner)
                if previous is None:
                    arrows.append(Arrow(path, here, "sub-block", "nested", where))
                else:
                    arrows.append(Arrow(previous, here, "then", "next"))
                previous = here

    main: dict[str, str] = {}
    for index, step in enumerate(workflow.steps):
        path = f"steps[{index}]"
        main.setdefault(step.id, path)
        visit(path, step, "")
    for edge in workflow.edges:
        if edge.from_ in main and edge.to in main:
            failure = edge.when == When.ERROR
            arrows.append(
                Arrow(
                    main[edge.from_],
                    main[edge.to],
                    edge.when.value,
                    "failure" if failure else "next",
                    "error" if failure else "",
                )
            )
    return Diagram(tuple(boxes), tuple(arrows), tuple(groups))


def _where(where: tuple[str | int, ...]) -> str:
    """A sub-block's place under ``with``: ``then``, ``body``, ``branches[1]``."""
    text = ""
    for part in where:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def _role(step: Step) -> str:
    if step.is_control and step.uses is not None and step.uses.action == "if":
        return "choice"
    return "construct" if step.blocks else "work"


def _detail(step: Step) -> str:
    """What the step runs, and the fields that change how (fanOut, retry, onError)."""
    parts = []
    if step.uses is not None:
        app, action = step.uses.app or "?", step.uses.action or "?"
        parts.append(f"{action}" if app in (CONTROL_APP, CALL_APP) else f"{app}.{action}")
        if app == CALL_APP and isinstance(step.with_.get("workflow"), str):
            parts[-1] = f"call {step.with_['workflow']}"
    if step.fan_out.value != "sequential":
        parts.append(f"fanOut {step.fan_out.value}")
    if step.retry is not None:
        parts.append(f"retry ×{step.retry.max_attempts}")
    if step.on_error.value != "fail":
        parts.append(f"onError {step.on_error.value}")
    return ", ".join(parts)
