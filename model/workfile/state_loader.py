"""Read a state-form Workfile (the Stateful Profile), reporting every problem with its path.

"Use of the top-level states key structurally activates this profile"
(WFS-INTRO-4); model/workfile/loader.py hands such a document here.  The
step lists, field declarations, names and templates are read by the Core
loader (``CoreReader``): the profile "does not change action, expression,
step, outcome, or single-assignment semantics" (WFS-INTRO-3).  What this
module adds is the closed vocabulary of states, transitions, subscriptions
and timeouts (A-142) and the rules a single state declaration decides by
itself; the rules across states (targets, reachability, cycles, ``into``
against ``accepts``, manifests) are properties/workfile/states.py's.
Codes: docs/workfile.md.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Protocol

from wforacle.model.diagnostics import Diagnostic
from wforacle.model.workfile.codes import PatternError, duration_ms
from wforacle.model.workfile.document import ABSENT, Field, Step
from wforacle.model.workfile.document import member as _member
from wforacle.model.workfile.expr import is_template
from wforacle.model.workfile.states import (
    Direct,
    Routed,
    State,
    StateWorkfile,
    Subscription,
    Timeout,
    Transition,
)

JSON = Any
ROOT_KEYS = ("inputs", "initial", "states", "outputs")
TRANSITION_KEYS = ("goto", "into", "route", "cases", "else")
STATE_KEYS = (
    "accepts",
    "on_enter",
    "steps",
    "on",
    "timeout",
    "final",
    *TRANSITION_KEYS,
    "recovery",
)
SUBSCRIPTION_KEYS = ("event", "match", "configuration", "connection", *TRANSITION_KEYS)
TIMEOUT_KEYS = ("after", *TRANSITION_KEYS)
# What a final state may not declare (WFS-FORM-11).
NOT_FINAL_KEYS = ("on", "timeout", *TRANSITION_KEYS)
NAME = re.compile(r"[a-z_][a-z0-9_]*")  # ordinary names
TRIGGER = re.compile(r"[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*")  # connector.trigger
TIMESTAMP = re.compile(  # an RFC 3339 date-time with its offset
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)"
)


class CoreReader(Protocol):
    """The Core loader's readers the state form reuses (model/workfile/loader.py ``Loader``)."""

    problems: list[Diagnostic]

    def fail(self, code: str, path: str, message: str, clause: str = "A-106") -> None:
        """Record an error at ``path``."""

    def mapping(self, value: JSON, path: str, what: str) -> dict[str, Any] | None:
        """``value`` when it is a mapping, else a diagnostic and None."""

    def templates(self, value: JSON, path: str) -> None:
        """Check that every ``{{ }}`` marker in ``value`` parses."""

    def name(self, value: JSON, path: str, what: str) -> str | None:
        """An ordinary name (A-102)."""

    def fields(self, value: JSON, path: str) -> tuple[Field, ...]:
        """Field declarations (A-109)."""

    def steps(self, value: JSON, path: str, parent: str) -> tuple[Step, ...]:
        """A step list; ``parent`` is the static step path of the enclosing scope."""


def load_states(core: CoreReader, data: dict[str, Any]) -> StateWorkfile | None:
    """The state-form Workfile in parsed YAML ``data`` (a mapping with states or initial)."""
    return _StateReader(core).document(data)


class _StateReader:
    def __init__(self, core: CoreReader) -> None:
        self.core = core
        self.dropped = False  # a state or transition was not read (StateWorkfile.complete)

    def fail(self, code: str, path: str, message: str, clause: str) -> None:
        self.core.fail(code, path, message, clause)

    def keys(
        self, mapping: dict[Any, Any], path: str, allowed: tuple[str, ...], clause: str
    ) -> None:
        """Report every key outside ``allowed`` (extension keys ``x-…`` pass, A-108)."""
        for key in mapping:
            if isinstance(key, str) and (key in allowed or key.startswith("x-")):
                continue
            self.fail(
                "document.unknown_key",
                _member(path, str(key)),
                f"{key!r} is not a key here; expected one of {', '.join(allowed)}",
                clause,
            )

    # -- the document ------------------------------------------------------------------

    def document(self, data: dict[str, Any]) -> StateWorkfile | None:
        """``inputs``, ``initial``, ``states``, ``outputs``; never top-level ``steps``."""
        if "steps" in data:
            self.fail(
                "document.shape",
                "$.steps",
                "a state-form Workfile (states, initial) MUST NOT declare top-level steps; "
                "put them in a state's on_enter or steps",
                "WFS-FORM-2",
            )
        self.keys({k: v for k, v in data.items() if k != "steps"}, "$", ROOT_KEYS, "WFS-FORM-1")
        inputs = self.core.fields(data.get("inputs", {}), "$.inputs")
        initial = self.initial(data)
        states = self.states(data)
        outputs = data.get("outputs", ABSENT)
        if outputs is not ABSENT:
            if isinstance(outputs, dict):
                self.core.templates(outputs, "$.outputs")
            else:
                self.fail(
                    "document.shape",
                    "$.outputs",
                    "outputs is a mapping of names to values",
                    "A-106",
                )
                outputs = ABSENT
        if initial is None or states is None:
            return None
        return StateWorkfile(inputs, initial, states, outputs, not self.dropped)

    def initial(self, data: dict[str, Any]) -> str | None:
        """``initial``: the name of one declared state (declared: properties/workfile/states.py)."""
        if "initial" not in data:
            self.fail(
                "document.missing",
                "$",
                "a state-form Workfile declares initial, the name of one declared state",
                "WFS-FORM-1",
            )
            return None
        return self.state_name(data["initial"], "$.initial", "initial")

    def states(self, data: dict[str, Any]) -> tuple[State, ...] | None:
        """``states``: a nonempty map from state names to state declarations (WFS-FORM-1)."""
        if "states" not in data:
            self.fail(
                "document.missing",
                "$",
                "a state-form Workfile declares states, a nonempty map from state names to "
                "state declarations",
                "WFS-FORM-1",
            )
            return None
        declared = data["states"]
        if not isinstance(declared, dict) or not declared:
            self.fail(
                "document.shape",
                "$.states",
                "states is a nonempty map from state names to state declarations",
                "WFS-FORM-1",
            )
            return None
        found: list[State] = []
        for name, spec in declared.items():
            path = _member("$.states", str(name))
            if self.state_name(name, path, "a state name") is None:
                self.dropped = True
                continue
            state = self.state(str(name), spec, path)
            if state is not None:
                found.append(state)
            else:
                self.dropped = True
        return tuple(found)

    def state_name(self, value: JSON, path: str, what: str) -> str | None:
        """A state name: "State names follow the ordinary name syntax" (WFS-FORM-3, A-102)."""
        if isinstance(value, str) and NAME.fullmatch(value):
            return value
        self.fail(
            "document.name",
            path,
            f"{what} {value!r} is not a state name: lowercase letters, digits and _, not "
            "starting with a digit (state names are labels, not expressions)",
            "WFS-FORM-3",
        )
        return None

    # -- a state -----------------------------------------------------------------------

    def state(self, name: str, value: JSON, path: str) -> State | None:
        """One state declaration: its closed keys and the rules it decides by itself."""
        spec = self.core.mapping(value if value is not None else {}, path, f"state {name!r}")
        if spec is None:
            return None
        self.keys(spec, path, STATE_KEYS, "WFS-FORM-4")
        final = self.final(spec, path)
        if "recovery" in spec:
            self.fail(
                "document.profile",
                _member(path, "recovery"),
                "recovery is governed by the Durable Execution Profile and activates it; "
                "wforacle does not model that profile",
                "WFS-FORM-4",
            )
        accepts = None
        if "accepts" in spec:
            if isinstance(spec["accepts"], dict):
                accepts = self.core.fields(spec["accepts"], _member(path, "accepts"))
            else:
                self.fail(
                    "document.shape",
                    _member(path, "accepts"),
                    "accepts is a closed map from names to field declarations",
                    "WFS-ENTRY-1",
                )
                accepts = ()
        # WFS-FORM-5: "on_enter and steps are optional step lists and default to empty."
        on_enter = self.core.steps(spec.get("on_enter", []), _member(path, "on_enter"), name)
        steps = self.core.steps(spec.get("steps", []), _member(path, "steps"), name)
        if final:
            self.final_exclusions(spec, path)
            return State(name, accepts, on_enter, steps, final=True, path=path)
        on = self.subscriptions(spec.get("on", ABSENT), _member(path, "on"))
        timeout = (
            self.timeout(spec["timeout"], _member(path, "timeout")) if "timeout" in spec else None
        )
        immediate = any(key in spec for key in TRANSITION_KEYS)
        exit_ = (
            self.transition(spec, path, "the state's immediate transition") if immediate else None
        )
        self.immediate_exclusions(spec, path, immediate)
        if not immediate and not spec.get("on") and "timeout" not in spec:
            self.fail(
                "document.control",
                path,
                f"the nonfinal state {name!r} declares no immediate transition, subscription or "
                "timeout: it could never be left (declare goto or route, on, or timeout; or "
                "final: true)",
                "WFS-FORM-16",
            )
        return State(name, accepts, on_enter, steps, on, timeout, False, exit_, path)

    def final(self, spec: dict[str, Any], path: str) -> bool:
        """``final: true`` declares a terminal state; final MUST NOT be false (WFS-FORM-10)."""
        if "final" not in spec:
            return False
        if spec["final"] is True:
            return True
        self.fail(
            "document.value",
            _member(path, "final"),
            f"final is {spec['final']!r}; final MUST NOT be false: write final: true for a "
            "terminal state and omit final for a nonfinal one",
            "WFS-FORM-10",
        )
        return False

    def final_exclusions(self, spec: dict[str, Any], path: str) -> None:
        """A final state MUST NOT declare on, timeout, goto, into, route, cases or else."""
        for key in NOT_FINAL_KEYS:
            if key in spec:
                self.fail(
                    "document.control",
                    _member(path, key),
                    f"a final state MUST NOT declare {key}: after its step lists succeed the run "
                    "completes (it can declare only accepts, on_enter, steps and recovery)",
                    "WFS-FORM-11",
                )

    def immediate_exclusions(self, spec: dict[str, Any], path: str, immediate: bool) -> None:
        """An immediate goto or route excludes on and timeout (WFS-FORM-17)."""
        if not (immediate and ("goto" in spec or "route" in spec)):
            return
        for key in ("on", "timeout"):
            if key in spec:
                self.fail(
                    "document.control",
                    _member(path, key),
                    f"a state that declares an immediate goto or route MUST NOT declare {key}: "
                    "the immediate transition is taken as soon as both step lists succeed",
                    "WFS-FORM-17",
                )

    # -- transitions -------------------------------------------------------------------

    def transition(self, spec: dict[str, Any], path: str, what: str) -> Transition | None:
        """A direct or routed transition among ``spec``'s keys (WFS-TRANS-1..7)."""
        found = self.read_transition(spec, path, what)
        if found is None:
            self.dropped = True
        return found

    def read_transition(self, spec: dict[str, Any], path: str, what: str) -> Transition | None:
        has_goto, has_route = "goto" in spec, "route" in spec
        if has_goto == has_route:
            both = "both goto and route" if has_goto else "neither goto nor route"
            self.fail(
                "document.shape" if has_goto else "document.missing",
                path,
                f"{what} contains {both}; a transition map MUST contain exactly one of goto and "
                "route",
                "WFS-TRANS-6",
            )
            return None
        misplaced = ("cases", "else") if has_goto else ("into",)
        for key in misplaced:
            if key in spec:
                self.fail(
                    "document.shape",
                    _member(path, key),
                    "cases and else appear only with route"
                    if has_goto
                    else "into appears only with goto (give each case its own into)",
                    "WFS-TRANS-6",
                )
        if has_goto:
            return self.direct(spec, path)
        return self.routed(spec, path, what)

    def direct(self, spec: dict[str, Any], path: str) -> Direct | None:
        """``goto`` (a literal state name) and optional ``into`` (WFS-TRANS-2)."""
        goto_path = _member(path, "goto")
        if is_template(spec["goto"]):
            self.fail(
                "document.value",
                goto_path,
                "goto names a state literally: state names are labels, not expressions",
                "WFS-FORM-3",
            )
            return None
        goto = self.state_name(spec["goto"], goto_path, "goto")
        into: dict[str, Any] = {}
        if "into" in spec:
            into_path = _member(path, "into")
            projection = spec["into"]
            if not isinstance(projection, dict):
                self.fail(
                    "document.shape",
                    into_path,
                    "into is a projection: a mapping of accepted names to values",
                    "WFS-ENTRY-14",
                )
            else:
                for name, value in projection.items():
                    here = _member(into_path, str(name))
                    if self.core.name(name, here, "an accepted name") is not None:
                        self.core.templates(value, here)
                        into[str(name)] = value
        return None if goto is None else Direct(goto, into, path)

    def routed(self, spec: dict[str, Any], path: str, what: str) -> Routed | None:
        """``route`` (the subject), ``cases`` and ``else`` (WFS-TRANS-3, -5, -7)."""
        subject = spec["route"]
        self.core.templates(subject, _member(path, "route"))
        cases_path = _member(path, "cases")
        if "cases" not in spec:
            self.fail(
                "document.missing",
                path,
                "a routed transition contains route and cases",
                "WFS-TRANS-3",
            )
            return None
        declared = spec["cases"]
        if not isinstance(declared, dict) or not declared:
            self.fail(
                "document.shape",
                cases_path,
                "cases is a nonempty map from distinct literal string labels to nested transitions",
                "WFS-TRANS-5",
            )
            return None
        cases: list[tuple[str, Transition]] = []
        for label, nested in declared.items():
            here = _member(cases_path, str(label))
            if not isinstance(label, str) or is_template(label):
                self.dropped = True
                self.fail(
                    "document.value",
                    here,
                    f"case label {label!r} is not a literal string label",
                    "WFS-TRANS-5",
                )
                continue
            case = self.nested(nested, here, f"case {label!r}")
            if case is not None:
                cases.append((label, case))
        otherwise = None
        if "else" in spec:
            otherwise = self.nested(spec["else"], _member(path, "else"), "else")
        else:
            self.fail(
                "document.missing",
                path,
                f"{what} routes on a subject without a statically established closed enum "
                "domain, so else is REQUIRED (A-143)",
                "WFS-TRANS-7",
            )
        return Routed(subject, tuple(cases), otherwise, path)

    def nested(self, value: JSON, path: str, what: str) -> Transition | None:
        """A nested transition: a mapping of transition keys only (WFS-TRANS-5)."""
        spec = self.core.mapping(value, path, f"{what} (a nested transition)")
        if spec is None:
            self.dropped = True
            return None
        self.keys(spec, path, TRANSITION_KEYS, "WFS-TRANS-5")
        return self.transition(spec, path, what)

    # -- subscriptions and timeouts ----------------------------------------------------

    def subscriptions(self, value: JSON, path: str) -> tuple[Subscription, ...]:
        """``on``: subscription binding names → subscription declarations (WFS-TRANS-15)."""
        if value is ABSENT:
            return ()
        declared = self.core.mapping(value, path, "on")
        if declared is None:
            self.dropped = True
        found: list[Subscription] = []
        for name, spec in (declared or {}).items():
            here = _member(path, str(name))
            if self.core.name(name, here, "a subscription name") is None:
                self.dropped = True
                continue
            subscription = self.subscription(str(name), spec, here)
            if subscription is not None:
                found.append(subscription)
            else:
                self.dropped = True
        return tuple(found)

    def subscription(self, name: str, value: JSON, path: str) -> Subscription | None:
        """``event``, ``match`` and one transition; ``configuration``, ``connection``."""
        spec = self.core.mapping(value, path, f"subscription {name!r}")
        if spec is None:
            return None
        self.keys(spec, path, SUBSCRIPTION_KEYS, "WFS-TRANS-16")
        event = self.event(spec, path)
        match = self.match(spec, path)
        for key in ("configuration", "connection"):
            if key in spec:
                self.core.templates(spec[key], _member(path, key))
        transition = self.transition(spec, path, f"subscription {name!r}")
        if event is None or match is None or transition is None:
            return None
        return Subscription(
            name,
            event,
            match,
            transition,
            spec.get("configuration", ABSENT),
            spec.get("connection", ABSENT),
            path,
        )

    def event(self, spec: dict[str, Any], path: str) -> str | None:
        """``event``: a literal connector.trigger reference (WFS-TRANS-17)."""
        if "event" not in spec:
            self.fail(
                "document.missing",
                path,
                "a subscription contains event, match and one transition",
                "WFS-TRANS-16",
            )
            return None
        event = spec["event"]
        if isinstance(event, str) and TRIGGER.fullmatch(event):
            return event
        self.fail(
            "document.value",
            _member(path, "event"),
            f"event {event!r} is not a literal connector.trigger reference",
            "WFS-TRANS-17",
        )
        return None

    def match(self, spec: dict[str, Any], path: str) -> dict[str, Any] | None:
        """``match``: a nonempty map of payload fields to expression-bearing values."""
        if "match" not in spec:
            self.fail(
                "document.missing",
                path,
                "a subscription contains event, match and one transition",
                "WFS-TRANS-16",
            )
            return None
        match = spec["match"]
        match_path = _member(path, "match")
        if not isinstance(match, dict) or not match:
            self.fail(
                "document.shape",
                match_path,
                "match is a nonempty map from correlate_on fields to values",
                "WFS-TRANS-20",
            )
            return None
        for field, value in match.items():
            self.core.templates(value, _member(match_path, str(field)))
        return {str(field): value for field, value in match.items()}

    def timeout(self, value: JSON, path: str) -> Timeout | None:
        """``timeout``: ``after`` plus one transition (WFS-TRANS-11)."""
        spec = self.core.mapping(value, path, "timeout")
        if spec is None:
            self.dropped = True
            return None
        self.keys(spec, path, TIMEOUT_KEYS, "WFS-TRANS-11")
        if "after" not in spec:
            self.fail("document.missing", path, "timeout contains after", "WFS-TRANS-11")
        else:
            self.after(spec["after"], _member(path, "after"))
        transition = self.transition(spec, path, "the timeout")
        if "after" not in spec or transition is None:
            self.dropped = True
            return None
        return Timeout(spec["after"], transition, path)

    def after(self, value: JSON, path: str) -> None:
        """A literal ``after`` is a duration or a timestamp (WFS-TRANS-12, A-104, A-144)."""
        if is_template(value):
            self.core.templates(value, path)  # its value is checked when it is evaluated
            return
        if isinstance(value, str) and TIMESTAMP.fullmatch(value):
            try:
                datetime.fromisoformat(value)
            except ValueError:
                pass
            else:
                return
        try:
            duration_ms(value)
        except PatternError as exc:
            self.fail(
                "document.duration",
                path,
                f"{exc.message}; after is a nonnegative duration or an RFC 3339 timestamp",
                "WFS-TRANS-12",
            )
