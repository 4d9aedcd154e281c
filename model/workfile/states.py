"""The state-form Workfile of the Stateful Profile: frozen attrs records.

"A state-form Workfile declares states, a nonempty map from state names to
state declarations, and initial, the name of one declared state"
(WFS-FORM-1).  The profile "does not change action, expression, step,
outcome, or single-assignment semantics" (WFS-INTRO-3), so a state's step
lists are Core step lists (model/workfile/document.py) and its values are
kept as the JSON the author wrote (``Value``).  Reading:
model/workfile/state_loader.py; static checks: properties/workfile/states.py
and properties/workfile/validate.py; docs/workfile.md, "State-form
documents".

Notation: a transition is ``Direct`` (``goto``, ``into``) or ``Routed``
(``route``, ``cases``, ``else``; WFS-TRANS-1..3); ``leaves(t)`` are the
direct transitions a transition can end in, each naming its target.  An
entry step's static path is ``state.id`` (``awaiting_approval.notify``);
its run-time path adds the entry position (``awaiting_approval[2].notify``,
WFS-ENTRY-12; A-146).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs

from wforacle.model.workfile.document import ABSENT, Field, Step

Value = Any  # JSON as written, possibly holding {{ }} markers


@attrs.frozen
class Direct:
    """A direct transition: required ``goto``, optional ``into`` (WFS-TRANS-2)."""

    goto: str
    into: dict[str, Value] = attrs.field(factory=dict)  # name → expression-bearing value
    path: str = "$"  # the mapping holding ``goto``


@attrs.frozen
class Routed:
    """A routed transition: ``route`` (the subject), ``cases``, ``else`` (WFS-TRANS-3, -5)."""

    subject: Value
    cases: tuple[tuple[str, Transition], ...]
    otherwise: Transition | None = None
    path: str = "$"


Transition = Direct | Routed


def leaves(transition: Transition) -> Iterator[Direct]:
    """The direct transitions ``transition`` can end in, in declaration order."""
    if isinstance(transition, Direct):
        yield transition
        return
    for _, case in transition.cases:
        yield from leaves(case)
    if transition.otherwise is not None:
        yield from leaves(transition.otherwise)


@attrs.frozen
class Subscription:
    """One entry of ``on``: ``event``, ``match``, one transition; ``configuration``, ``connection``.

    ``name`` binds the delivered payload in the entry scope for transition
    selection and ``into`` (WFS-TRANS-15, -16, -21).
    """

    name: str
    event: str  # a literal connector.trigger reference (WFS-TRANS-17)
    match: dict[str, Value]  # payload field → expression-bearing value (WFS-TRANS-20)
    transition: Transition
    configuration: Value = ABSENT
    connection: Value = ABSENT
    path: str = "$"


@attrs.frozen
class Timeout:
    """A state's ``timeout``: ``after`` plus one transition (WFS-TRANS-11)."""

    after: Value  # a duration, a timestamp, or an expression producing one (WFS-TRANS-12)
    transition: Transition
    path: str = "$"


@attrs.frozen
class State:
    """A state declaration (WFS-FORM-4); ``exit`` is its immediate transition, if any."""

    name: str
    accepts: tuple[Field, ...] | None = None  # None: not declared (WFS-ENTRY-2)
    on_enter: tuple[Step, ...] = ()
    steps: tuple[Step, ...] = ()
    on: tuple[Subscription, ...] = ()
    timeout: Timeout | None = None
    final: bool = False
    exit: Transition | None = None
    path: str = "$"

    def transitions(self) -> Iterator[tuple[str, Transition]]:
        """Every transition of the state with its kind: ``immediate``, ``event``, ``timeout``.

        WFS-TRANS-10: "A transition can appear as the immediate exit of a
        state, as a state's timeout, or within a subscription."
        """
        if self.exit is not None:
            yield "immediate", self.exit
        for subscription in self.on:
            yield "event", subscription.transition
        if self.timeout is not None:
            yield "timeout", self.timeout.transition


@attrs.frozen
class StateWorkfile:
    """A state-form Workfile: ``inputs``, ``initial``, ``states``, ``outputs`` (WFS-FORM-1)."""

    inputs: tuple[Field, ...]
    initial: str
    states: tuple[State, ...]
    outputs: Value = ABSENT
    # Whether every state and transition could be read: when one was dropped
    # (a diagnostic says why), the state graph lacks its edges.
    complete: bool = True

    def state(self, name: str) -> State | None:
        """The state declared as ``name``, or None."""
        return next((s for s in self.states if s.name == name), None)
