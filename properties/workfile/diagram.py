"""A Workfile as a graph to draw (docs/report.md): steps or states as boxes, typed arrows.

Notation: a box's id is the step's document path (``$.steps[0].create``)
or, for a state-form document, ``state:NAME``.

- A Core step list is drawn in order: each step points to the next
  (``next``, WF-STEP ordering).  A construct's nested lists (``wf.for_each``
  and ``wf.repeat`` steps, ``wf.parallel`` branches, ``wf.choose`` arms,
  ``wf.route`` cases, ``else``) are groups the construct points into,
  labelled with the branch, the arm's guard or the case value; each
  ``catch`` handler is a box a ``failure`` arrow labelled with its
  error-code pattern points to (in declaration order: ``handler 1 of 2``),
  its steps a group the handler points into.  A reference to an earlier step's
  binding (``{{ account.id }}``, model/workfile/expr.py ``template_refs``)
  is a ``data`` arrow from that step, by name.
- A state-form document (the Stateful Profile) is its states; each
  transition is an arrow of its kind (``immediate``, ``event``,
  ``timeout``; WFS-TRANS-10) to each state it can go to, labelled with
  the subscription's event, the timeout's ``after`` or the route's case.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import attrs

from wforacle.model.workfile.document import ABSENT, Action, Choose, Route, Step, Workfile
from wforacle.model.workfile.expr import ExprError, template_refs
from wforacle.model.workfile.states import Direct, Routed, State, StateWorkfile, Transition
from wforacle.properties.specification import Arrow, Box, Diagram, Group

JSON = Any


def diagram(document: Workfile | StateWorkfile | None) -> Diagram:
    """A Core document's steps, or a state-form document's states."""
    if isinstance(document, Workfile):
        return _Steps().draw(document)
    if isinstance(document, StateWorkfile):
        return _states(document)
    return Diagram()


@attrs.define
class _Steps:
    """Collects the boxes and arrows of step lists (each step once, in document order)."""

    boxes: list[Box] = attrs.Factory(list)
    arrows: list[Arrow] = attrs.Factory(list)
    groups: list[Group] = attrs.Factory(list)
    named: dict[str, str] = attrs.Factory(dict)  # binding name → box id (the first)

    def draw(self, workfile: Workfile) -> Diagram:
        self.steps(workfile.steps, "")
        return Diagram(tuple(self.boxes), tuple(self.arrows), tuple(self.groups))

    def steps(self, steps: tuple[Step, ...], group: str) -> None:
        """Draw a step list inside ``group``, each step pointing to the next."""
        previous = None
        for step in steps:
            here = self.step(step, group)
            if previous is not None:
                self.arrows.append(Arrow(previous, here, "next", "next"))
            previous = here

    def step(self, step: Step, group: str) -> str:
        here = step.path
        role = "choice" if isinstance(step.body, Choose | Route) else "work"
        role = "construct" if role == "work" and step.nested else role
        self.boxes.append(Box(here, step.id, _detail(step), role, group))
        for name in sorted(_reads(step)):
            if name in self.named:
                self.arrows.append(Arrow(self.named[name], here, "data", "data"))
        self.named.setdefault(step.id, here)
        for label, inner in _branches(step):
            self.nested(here, f"{here}/{label}", f"{step.id}: {label}", inner, group, label)
        handlers = step.modifiers.catch
        for number, handler in enumerate(handlers, start=1):
            # A handler is a box of its own (its steps may be none): the pattern it catches.
            catch = f"{here}/catch[{number}]"
            count = f"{len(handler.steps)} step(s)" if handler.steps else "no steps"
            result = "" if handler.result is ABSENT else f", result {_text(handler.result)}"
            detail = f"handler {number} of {len(handlers)}, {count}{result}"
            self.boxes.append(
                Box(catch, f"catch {handler.pattern.text}", detail, "construct", group)
            )
            self.arrows.append(Arrow(here, catch, "catch", "failure", handler.pattern.text))
            self.nested(
                catch,
                f"{catch}/steps",
                f"{step.id}: catch {handler.pattern.text}",
                handler.steps,
                group,
                "steps",
            )
        return here

    def nested(
        self,
        owner: str,
        group: str,
        title: str,
        steps: tuple[Step, ...],
        parent: str,
        label: str,
    ) -> None:
        """A nested step list as a group, the owner pointing at its first step (none: nothing)."""
        if steps:
            self.groups.append(Group(group, title, parent))
            self.steps(steps, group)
            self.arrows.append(Arrow(owner, steps[0].path, "nested", "nested", label))


def _branches(step: Step) -> Iterator[tuple[str, tuple[Step, ...]]]:
    """The step lists nested in a construct, each labelled as the author wrote its place."""
    body = step.body
    if isinstance(body, Choose):
        for index, arm in enumerate(body.arms):
            yield f"when {_text(arm.when)}" if arm.when is not ABSENT else str(index), arm.steps
        if body.otherwise is not None:
            yield "else", body.otherwise
        return
    for label, steps in step.nested:
        yield (label or "each"), steps


def _reads(step: Step) -> set[str]:
    """The names a step's own values read (not its nested steps'): data arrows."""
    found: set[str] = set()
    values: list[JSON] = [step.modifiers.when]
    body = step.body
    for field in attrs.fields(type(body)):
        value = getattr(body, field.name)
        if not isinstance(value, tuple):  # nested step lists, arms, cases: their own steps'
            values.append(value)
    if isinstance(body, Choose):
        values.extend(arm.when for arm in body.arms)
    for value in values:
        if value is ABSENT:
            continue
        try:
            found |= {str(path[0]) for path in template_refs(value)}
        except ExprError:
            continue  # a template the validator reported; nothing to draw from it
    return found


def _detail(step: Step) -> str:
    """The action or construct, and the modifiers that change how it runs."""
    body = step.body
    parts = [body.name if isinstance(body, Action) else "wf." + _snake(type(body).__name__)]
    modifiers = step.modifiers
    if modifiers.when is not ABSENT:
        parts.append(f"when {_text(modifiers.when)}")
    if modifiers.retry is not None and modifiers.retry.attempts > 1:
        parts.append(f"retry ×{modifiers.retry.attempts}")
    if modifiers.on_fail:
        parts.append(f"on_fail {modifiers.on_fail}")
    if modifiers.on_unknown:
        parts.append(f"on_unknown {modifiers.on_unknown}")
    if modifiers.timeout_ms is not None:
        parts.append(f"timeout {modifiers.timeout_ms} ms")
    return ", ".join(parts)


def _snake(name: str) -> str:
    """``ForEach`` → ``for_each``, ``WaitFor`` → ``wait_for``."""
    return "".join(f"_{c.lower()}" if c.isupper() and i else c.lower() for i, c in enumerate(name))


def _text(value: JSON) -> str:
    """A value as the author wrote it: a string as it is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# -- state-form documents -------------------------------------------------------------------


def _states(document: StateWorkfile) -> Diagram:
    """States as boxes; every transition to each state it can reach."""
    boxes = []
    arrows = []
    names = {state.name for state in document.states}
    for state in document.states:
        here = f"state:{state.name}"
        boxes.append(
            Box(here, state.name, _state_detail(state, document.initial), _state_role(state))
        )
        for kind, transition in state.transitions():
            label = _transition_label(state, kind, transition)
            for case, direct in _targets(transition):
                if direct.goto in names:
                    text = " ".join(part for part in (label, case) if part)
                    role = "condition" if case else "next"
                    arrows.append(Arrow(here, f"state:{direct.goto}", kind, role, text))
    return Diagram(tuple(boxes), tuple(arrows))


def _state_role(state: State) -> str:
    return "final" if state.final else "work"


def _state_detail(state: State, initial: str) -> str:
    parts = ["initial"] if state.name == initial else []
    if state.final:
        parts.append("final")
    for title, steps in (("on_enter", state.on_enter), ("steps", state.steps)):
        if steps:
            parts.append(f"{title}: {', '.join(step.id for step in steps)}")
    return ", ".join(parts)


def _transition_label(state: State, kind: str, transition: Transition) -> str:
    """What fires the transition: the subscription's event, the timeout's ``after``."""
    if kind == "event":
        for subscription in state.on:
            if subscription.transition is transition:
                return f"on {subscription.event}"
    if kind == "timeout" and state.timeout is not None:
        return f"after {_text(state.timeout.after)}"
    return ""


def _targets(transition: Transition, case: str = "") -> Iterator[tuple[str, Direct]]:
    """Each direct transition a transition can end in, with the route case that leads there."""
    if isinstance(transition, Direct):
        yield case, transition
        return
    assert isinstance(transition, Routed)
    for value, inner in transition.cases:
        yield from _targets(inner, f"{case} = {value}".strip())
    if transition.otherwise is not None:
        yield from _targets(transition.otherwise, f"{case} else".strip())
