"""Small-step semantics of a state-form Workfile run (docs/workfile-stateful.md).

The profile "does not change action, expression, step, outcome, or
single-assignment semantics" (WFS-INTRO-3): an entry's ``on_enter`` and
``steps`` are Core step lists, run by Core's rules (model/workfile/run.py)
in a root frame whose prefix is the entry's path ``S[N].``.  This module
adds the profile's own transitions, each labelled with its clauses
(``STATE_RULES``):

- ``enter``: the entry's scope, its subscriptions' configuration and
  activation (WFS-FORM-7, WFS-TRANS-23..25);
- ``correlate``: the match values and the deadline, fixed after
  ``on_enter`` (WFS-TRANS-26, WFS-TRANS-12/13);
- ``exit`` / ``deliver`` / ``time_out``: the selected transition evaluated,
  ``into`` checked against the target's ``accepts``, exactly one target
  entry (WFS-FORM-9, WFS-TRANS-36..39, WFS-ENTRY-5/14/15);
- the environment's choices: ``accept_event`` and ``advance`` (the next
  stimulus of the scenario, at any point of the run), ``quiet`` (nothing
  more will come; the pending timer fires) (A-152).

Configuration (besides Core's): ``clock`` (virtual milliseconds),
``accepted`` (every accepted event, in acceptance order), ``stimuli``
(how many the scenario has delivered), ``counts`` (state → entries so
far), ``entries`` (every entry's record), ``entry`` (the current entry:
``state``, ``path``, ``since`` — the number of events accepted before its
activation —, ``phase`` ``on_enter | steps``, ``match``, ``deadline``,
``due``), ``next`` (the target of a transition not yet entered) and
``base`` (the root scope: ``inputs``, ``run``).  Rules copy what they
change; nothing else is changed after it is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, ClassVar

from wforacle.model.kernel.lts import Transition as Move
from wforacle.model.workfile.codes import PatternError, duration_ms
from wforacle.model.workfile.document import ABSENT, WaitFor, Workfile, walk
from wforacle.model.workfile.evaluate import EvaluationFault, equal
from wforacle.model.workfile.expr import template_refs
from wforacle.model.workfile.manifest import Manifests
from wforacle.model.workfile.run import (
    INPUT_TYPES,
    RULES,
    Config,
    Data,
    Labelled,
    Loc,
    Options,
    WorkfileRun,
    _affected,
    _end,
    _finish,
    _new_frame,
    _output_faults,
    _project,
    _same,
    _settled,
    _start,
)
from wforacle.model.workfile.scenario import Scenario
from wforacle.model.workfile.states import (
    Direct,
    Routed,
    State,
    StateWorkfile,
    Subscription,
    Transition,
    leaves,
)

JSON = Any
# The clock's 0: a timestamp ``after`` names a deadline on this clock.
ORIGIN = datetime(2026, 1, 1, tzinfo=UTC)
STOP_REASON = "Dry-run dependency suppressed."  # WF-SCTL-4

SCOPE = ("WFS-ENTRY-7", "WFS-ENTRY-8", "WFS-ENTRY-10")
FAILING = ("WFS-ENTRY-17", "WFS-FORM-8")
# What the profile adds to Core's rules inside an entry: expressions read the
# entry's scope (WFS-ENTRY-7..10); a failure follows Core's policy and selects no
# transition (WFS-ENTRY-17, WFS-FORM-8); wf.stop and wf.fail end the whole run
# (WFS-ENTRY-18).  Every Core rule also cites WFS-INTRO-3 and WFS-TRANS-29.
IN_ENTRY: dict[str, tuple[str, ...]] = {
    "reach": SCOPE,
    "skip": SCOPE,
    "fault": (*SCOPE, *FAILING),
    "dispatch": SCOPE,
    "retry": FAILING,
    "exhausted": FAILING,
    "handle": FAILING,
    "handled": FAILING,
    "handler_failed": FAILING,
    "result_refused": FAILING,
    "construct_failed": FAILING,
    "abort_ambiguous": FAILING,
    "fail_ambiguous": FAILING,
    "finish": ("WFS-FORM-8", "WFS-ENTRY-18", "WFS-ENTRY-19"),
    "stop": ("WFS-ENTRY-18",),
    "author_fail": ("WFS-ENTRY-18",),
    "cancel_stop": ("WFS-ENTRY-18",),
    "request_cancel": ("WFS-ENTRY-19",),
    "cancel_run": ("WFS-ENTRY-19",),
}
WAITING = ("WFS-FORM-9", "WFS-TRANS-28", "WFS-TRANS-30", "WFS-TRANS-33", "WFS-TRANS-34")
STATE_RULES: dict[str, tuple[str, ...]] = {
    "enter": (
        "WFS-FORM-7",
        "WFS-ENTRY-4",
        "WFS-ENTRY-7",
        "WFS-ENTRY-8",
        "WFS-ENTRY-12",
        "WFS-ENTRY-13",
        "WFS-TRANS-23",
        "WFS-TRANS-25",
        "A-147",
    ),
    "enter_failed": ("WFS-TRANS-24", "WFS-TRANS-25", "WFS-FORM-8", "A-151"),
    "correlate": ("WFS-FORM-7", "WFS-TRANS-12", "WFS-TRANS-13", "WFS-TRANS-26", "A-152"),
    "correlate_failed": ("WFS-TRANS-12", "WFS-TRANS-26", "WFS-FORM-8", "A-151", "A-152"),
    "exit": (
        "WFS-FORM-9",
        "WFS-TRANS-4",
        "WFS-TRANS-39",
        "WFS-ENTRY-5",
        "WFS-ENTRY-12",
        "WFS-ENTRY-14",
    ),
    "deliver": (
        "WFS-FORM-9",
        "WFS-TRANS-21",
        "WFS-TRANS-27",
        "WFS-TRANS-28",
        "WFS-TRANS-29",
        "WFS-TRANS-30",
        "WFS-TRANS-31",
        "WFS-TRANS-33",
        "WFS-TRANS-36",
        "WFS-TRANS-37",
        "WFS-TRANS-38",
        "WFS-TRANS-39",
        "WFS-ENTRY-5",
        "WFS-ENTRY-12",
        "WFS-ENTRY-15",
    ),
    "time_out": (
        "WFS-FORM-9",
        "WFS-TRANS-14",
        "WFS-TRANS-36",
        "WFS-TRANS-37",
        "WFS-TRANS-39",
        "WFS-ENTRY-5",
        "WFS-ENTRY-12",
        "A-152",
    ),
    "transition_failed": ("WFS-ENTRY-5", "WFS-ENTRY-6", "WFS-ENTRY-16", "WFS-TRANS-8", "A-151"),
    "ambiguous": ("WFS-TRANS-35", "A-151"),
    # A stimulus at a deadline's instant comes before the timer is due: the instant
    # stays open while an event may still come and win (WFS-TRANS-37).
    "accept_event": ("WFS-TRANS-27", "WFS-TRANS-28", "WFS-TRANS-34", "WFS-TRANS-37", "A-152"),
    "advance": ("WFS-TRANS-14", "WFS-TRANS-37", "A-152"),
    # Reached only while the entry waits: no event was eligible (accepted before
    # activation, matching nothing, or delivered already) and no timer was due — or
    # one was, and the engine delayed it (WF-SCHED-2: an executor "can delay a timer
    # beyond its requested instant"; ``_delayed``).
    "quiet": (*WAITING, "WFS-TRANS-14", "WFS-TRANS-37", "WF-SCHED-2", "A-152"),
    "wait_forever": (*WAITING, "A-152"),
    "finish_waiting": (*WAITING, "WFS-TRANS-14", "WFS-TRANS-37", "A-152"),
    "dry_stop": ("WFS-TRANS-9", "WF-SCTL-3", "WF-SCTL-4", "WF-SCTL-5", "WF-SCTL-6", "WF-SCTL-7"),
    "finish_state": ("WFS-FORM-12", "WFS-ENTRY-13", *RULES["finish"]),
}


def _delayed(data: Data, found: list[Move[Config]]) -> bool:
    """Whether the entry's only moves are a timer the engine may still delay: it waits idle.

    The clock has moved past the deadline and ``quiet`` has not yet closed
    the instant: Core's Permitted Scheduling Variation lets an executor
    "delay a timer beyond its requested instant", so it may wait and hear
    ``quiet`` first — then the timer fires (A-152).  A stimulus may already
    come there (``_environment``); ``quiet``, when none is left, is the same
    wait's answer (a stranger's executor, session 23, was told WFS-FORM-9).
    """
    entry = data["entry"]
    return entry is not None and not entry["due"] and all(move.rule == "time_out" for move in found)


def _key(state: str, phase: str) -> str:
    """The key of a state's step list (``on_enter`` or ``steps``) among the run's lists."""
    return f"{state}/({phase})"


class StatefulRun(WorkfileRun):
    """The semantics of one run of a state-form ``workfile`` (docs/workfile-stateful.md)."""

    # An entry's lists run by Core's rules; an event never interrupts them (WFS-TRANS-29).
    rules: ClassVar[dict[str, tuple[str, ...]]] = {
        **{
            rule: (*clauses, "WFS-INTRO-3", "WFS-TRANS-29", *IN_ENTRY.get(rule, ()))
            for rule, clauses in RULES.items()
        },
        **STATE_RULES,
    }

    def __init__(
        self,
        workfile: StateWorkfile,
        manifests: Manifests,
        scenario: Scenario,
        workflows: Mapping[str, Workfile] | None = None,
        options: Options | None = None,
    ) -> None:
        self.states: dict[str, State] = {s.name: s for s in workfile.states}
        super().__init__(workfile, manifests, scenario, workflows, options)

    def _roots(self) -> list[tuple[str, tuple[Any, ...]]]:
        """Every state's two step lists (A-146: static paths ``state.id``)."""
        found: list[tuple[str, tuple[Any, ...]]] = []
        for state in self.states.values():
            found += [(_key(state.name, "on_enter"), state.on_enter)]
            found += [(_key(state.name, "steps"), state.steps)]
        return found

    def live_events(self) -> bool:
        """Whether a reachable state subscribes or waits for an event (WF-DRY-15, A-133).

        WF-DRY-15: a dry run "whose reachable definition requires such a
        source" is rejected; a subscription consumes live events, and nothing
        simulates them.  The reachable definition is the states some path of
        transitions leads to from ``initial`` — every case of a route counted,
        so no guard is evaluated — and their steps.
        """
        reachable = [self.states[name] for name in reachable_states(self.workfile)]
        steps = [step for state in reachable for step in walk((*state.on_enter, *state.steps))]
        return any(s.on for s in reachable) or any(isinstance(s.body, WaitFor) for s in steps)

    def begin(self, data: Data, root: dict[str, JSON]) -> None:
        """The run's first work: entering ``initial`` with no accepted values (WFS-FORM-1)."""
        assert isinstance(self.workfile, StateWorkfile)
        data["base"] = root
        data["next"] = {"state": self.workfile.initial, "values": {}}

    def initial(self) -> Config:
        """A run not yet begun, its clock at 0 and no event accepted."""
        data = dict(super().initial().data)
        data.update(
            clock=0,
            accepted=[],
            stimuli=0,
            counts={},
            entries=[],
            entry=None,
            next=None,
            base=None,
        )
        return Config(data)

    # -- the LTS ------------------------------------------------------------------------

    def enabled(self, config: Config) -> list[Move[Config]]:
        """Core's rules in the current entry's list; then the profile's; then the environment's."""
        data = config.data
        if data["phase"] == "created":
            return [self._make(config, "start", _start_states)]
        if data["phase"] == "finished":
            return []
        found, active = self._frame_moves(config)
        if not found:
            found.extend(self._entry_rules(config))
        if data["phase"] == "running":
            found.extend(self._environment(config, active, idle=not found or _delayed(data, found)))
        return found

    def _entry_rules(self, config: Config) -> list[Move[Config]]:
        """What the entry does once its current list has nothing left to do."""
        data = config.data
        root = data["root"]
        if data["end"] is not None or (root is not None and root["state"] == "failed"):
            first = self._make(config, "finish", _finish_states)
            # the implicit dry-run stop's outputs faulted in several entries.
            others = data["end"].get("others", ()) if data["end"] is not None else ()
            return [first, *(self._make(config, "finish", _finish_states, (), c) for c in others)]
        entry = data["entry"]
        if entry is None:
            return [self._make(config, "enter", _enter)]
        state = self.states[entry["state"]]
        if entry["phase"] == "on_enter":
            return [self._make(config, "correlate", _correlate)]
        if state.final:
            first = self._make(config, "finish_state", _finish_states)
            outputs = self.workfile.outputs  # any faulting entry's code
            return [first, *self._other_faults(config, first, (), outputs, _finish_states)]
        if state.exit is not None:
            return [self._make(config, "exit", _leave, (), "immediate", None)]
        choice = _select(self, data)
        if choice is None:
            return []  # the entry waits (WFS-FORM-9)
        kind, number, subscription = choice
        if kind == "ambiguous":
            return [self._make(config, "ambiguous", _ambiguous, (), number)]
        if kind == "timeout":
            moves = [self._make(config, "time_out", _leave, (), "timeout", None)]
            deadline = data["entry"]["deadline"]
            if deadline is not None and deadline < data["clock"]:
                # The clock moved past the deadline with a stimulus: the timer fired at
                # its deadline, before that stimulus (the next entry begins then), or
                # later — Core's Permitted Scheduling Variation: an executor "can delay
                # a timer beyond its requested instant" (A-152).
                moves.append(self._make(config, "time_out", _leave, (), "timeout", None, deadline))
            return moves
        return [self._make(config, "deliver", _leave, (), subscription, number)]

    def _environment(
        self, config: Config, active: dict[str, tuple[int, ...]], idle: bool = False
    ) -> list[Move[Config]]:
        """The next stimulus, the cancellation request, pending expiries; ``quiet`` when idle.

        The model lets a stimulus happen at any point while the run runs (the
        protocol delivers it at a wait); stimuli happen in the scenario's
        order.  ``quiet`` comes only when the run waits and the scenario has
        nothing left: that is when the oracle sends it (A-152).
        """
        data = config.data
        found: list[Move[Config]] = []
        if data["entry"] is not None and data["stimuli"] < len(self.scenario.events):
            # (within an entry: the protocol delivers stimuli at the engine's waits)
            found.append(self._make(config, None, _stimulus))
        # Core's: the cancellation request (the entry's work is cancelled and it never
        # transitions, WFS-ENTRY-19) and the pending expiries and child cancellations.
        found += super()._environment(config, active)
        if idle and not found:
            found.append(self._make(config, None, _quiet))
        return found

    def _make(self, config: Config, rule: str | None, change: Any, *args: Any) -> Move[Config]:
        """Core's ``_make``, then an ``on_enter`` that has ended goes straight on to ``steps``.

        Only in a state that correlates nothing: no evaluation happens between
        the two lists, so no transition of its own (WFS-FORM-7).
        """
        transition = super()._make(config, rule, change, *args)
        data = transition.target.data
        entry = data["entry"]
        if (
            entry is not None
            and entry["phase"] == "on_enter"
            and data["end"] is None
            and data["root"]["state"] == "running"
            and _settled(self, data["root"])
        ):
            state = self.states[entry["state"]]
            if not state.on and state.timeout is None:
                _to_steps(data)
        return transition

    def ample(self, config: Config, enabled: list[Move[Config]]) -> list[Move[Config]]:
        """Core's reduction within an entry's list once no stimulus is left to happen."""
        data = config.data
        if data["root"] is None or data["stimuli"] < len(self.scenario.events):
            return enabled
        return super().ample(config, enabled)


# -- entering (WFS-FORM-7, WFS-TRANS-23..25) ----------------------------------------------


def reachable_states(workfile: Any) -> list[str]:
    """The states a path of transitions leads to from ``initial``, in the order found.

    Every case of a route is a path (its subject is not evaluated), so this
    over-approximates the states a run can enter (WF-DRY-15's "reachable
    definition", A-133).
    """
    assert isinstance(workfile, StateWorkfile)
    found = [workfile.initial]
    for name in found:
        state = workfile.state(name)
        for _, transition in state.transitions() if state is not None else ():
            for direct in leaves(transition):
                if direct.goto not in found:
                    found.append(direct.goto)
    return found


def _enter(run: StatefulRun, data: Data) -> JSON:
    """A new entry: its path, its scope, its subscriptions configured and active.

    Each configuration (and connection) is evaluated over the root scope and
    fixed; a fault fails the entry before ``on_enter`` (WFS-TRANS-24).  The
    events accepted so far are before activation: never eligible here
    (WFS-TRANS-28) — unless the entry began at an earlier instant than the
    clock shows (a timer that fired at its deadline, before the stimulus
    that moved the clock past it: ``_leave``'s ``instant``), when those
    accepted after that instant are eligible.
    """
    target = data["next"]
    state = run.states[target["state"]]
    n = data["counts"].get(state.name, 0)
    data["counts"] = {**data["counts"], state.name: n + 1}  # WFS-ENTRY-12
    path = f"{state.name}[{n}]"
    data["next"] = None
    data["entries"] = [*data["entries"], {"entry": path, "outcome": None}]
    began = target.get("at")
    since = len(data["accepted"])
    if began is not None:
        since = next((k for k, e in enumerate(data["accepted"]) if e["at"] > began), since)
    data["entry"] = {
        "state": state.name,
        "path": path,
        "since": since,
        "at": began,
        "phase": "on_enter",
        "match": None,
        "deadline": None,
        "due": False,
    }
    try:
        for subscription in state.on:
            for value in (subscription.configuration, subscription.connection):
                if value is not ABSENT:
                    run.resolve(value, data["base"])
    except EvaluationFault as fault:
        return _entry_fails(data, "enter_failed", fault.code)
    env = {**data["base"], **target["values"]}  # WFS-ENTRY-8
    data["root"] = _new_frame(_key(state.name, "on_enter"), f"{path}.", env)
    return {
        "event": "entry_started",
        "entry": path,
        "state": state.name,
        "values": target["values"],
    }


def _to_steps(data: Data) -> None:
    """The entry's ``steps`` list begins, reading what ``on_enter`` bound (WFS-ENTRY-8)."""
    root = data["root"]
    entry = data["entry"] = {**data["entry"], "phase": "steps"}
    data["root"] = _new_frame(
        _key(entry["state"], "steps"), root["prefix"], root["env"], root["supp"]
    )


def _correlate(run: StatefulRun, data: Data) -> JSON:
    """Match values evaluated at once and fixed; the deadline fixed (WFS-TRANS-26, -12, -13)."""
    entry = data["entry"]
    state = run.states[entry["state"]]
    root = data["root"]
    env = root["env"]
    dry = run.scenario.dry_run
    if dry and state.timeout is not None and _affected(root, state.timeout.after):
        return _dry_stop(run, data)  # WF-SCTL-3: timer deadlines
    try:
        match = {s.name: run.resolve(s.match, env) for s in state.on}
        deadline = None
        if state.timeout is not None:
            # From the evaluation after on_enter (WFS-TRANS-13): at the entry's own instant
            # when it began before the clock (steps take no virtual time), else now.
            began = entry["at"] if entry.get("at") is not None else data["clock"]
            deadline = _deadline(run.resolve(state.timeout.after, env), began)
    except EvaluationFault as fault:
        return _entry_fails(data, "correlate_failed", fault.code)
    _to_steps(data)
    data["entry"] = {**data["entry"], "match": match, "deadline": deadline}
    event = {"event": "entry_correlated", "entry": entry["path"], "match": match}
    if deadline is not None:
        event["deadlineMs"] = deadline
    return event


def _deadline(value: JSON, clock: int) -> int:
    """A deadline on the virtual clock: a duration from now or a timestamp (WFS-TRANS-13, A-152)."""
    if isinstance(value, str):
        try:
            return clock + duration_ms(value)
        except PatternError:
            pass
        try:
            instant = datetime.fromisoformat(value)
        except ValueError:
            instant = None
        if instant is not None and instant.tzinfo is not None and "T" in value:
            return int((instant - ORIGIN).total_seconds() * 1000)
    raise EvaluationFault(
        "fault.type", f"after is a nonnegative duration or a timestamp, not {value!r}"
    )


# -- leaving (WFS-FORM-9, WFS-TRANS-36..39, WFS-ENTRY-5/6/14..16) ---------------------------


def _select(run: StatefulRun, data: Data) -> tuple[str, int | None, Subscription | None] | None:
    """The first eligible event or the due timeout; None while the entry must wait.

    Candidates are the events accepted since activation, in acceptance
    order (instants never decrease, so this is the order of WFS-TRANS-36/38);
    an event is eligible for a subscription when it is the subscription's
    trigger and its payload equals every match value (WFS-TRANS-30/31).
    An event at or before the deadline wins over the timeout (WFS-TRANS-37);
    the timer is due once the clock has moved past its deadline, or on
    ``quiet`` (A-152).
    """
    entry = data["entry"]
    state = run.states[entry["state"]]
    deadline = entry["deadline"]
    for event in data["accepted"][entry["since"] :]:
        if deadline is not None and event["at"] > deadline:
            break  # the timer was due before this event was accepted
        absent = run.options.absent_field
        matching = [s for s in state.on if _eligible(s, entry["match"][s.name], event, absent)]
        if len(matching) > 1:
            return ("ambiguous", event["number"], None)  # WFS-TRANS-35
        if matching:
            return ("event", event["number"], matching[0])
    if deadline is not None and (entry["due"] or data["clock"] > deadline):
        return ("timeout", None, None)
    return None


def _eligible(subscription: Subscription, match: JSON, event: Data, absent: str) -> bool:
    """WFS-TRANS-30: "every supplied match value equals the corresponding payload field".

    A field the payload lacks equals nothing (A-153), or reads as null under
    ``Options(absent_field="null")``.
    """
    payload = event["payload"]

    def field_equals(field: str, value: JSON) -> bool:
        if field in payload:
            return bool(equal(payload[field], value))
        return absent == "null" and value is None

    return event["trigger"] == subscription.event and all(
        field_equals(field, value) for field, value in match.items()
    )


def _leave(
    run: StatefulRun,
    data: Data,
    loc: tuple[int, ...],
    by: str | Subscription,
    number: int | None,
    instant: int | None = None,
) -> JSON:
    """The selected transition: unsubscribe, cancel the timer, evaluate, one target entry.

    ``instant``: a timer that fired at its deadline, before the stimulus that
    moved the clock past it — the target entry begins at that instant (A-152).
    An immediate transition takes no time: its target begins when this entry
    began (a chain of immediate states after such a timer all begin at its
    deadline; a stranger's executor, session 23, was told WFS-TRANS-13).

    The route subject and ``into`` are evaluated in the entry's scope (with
    the delivered payload under the subscription's name); the target's
    defaults are applied and every value checked against its ``accepts``
    before anything is bound: a fault or a mismatch (``fault.type``) fails
    this entry and creates no target entry (WFS-ENTRY-5/6/16, WFS-TRANS-8).
    """
    entry = data["entry"]
    state = run.states[entry["state"]]
    root = data["root"]
    env = dict(root["env"])
    event: Data = {"event": "entry_exited", "entry": entry["path"]}
    transition: Transition | None
    if by == "immediate":
        transition = state.exit
    elif by == "timeout":
        transition = state.timeout.transition if state.timeout is not None else None
    else:
        assert isinstance(by, Subscription) and number is not None
        transition = by.transition
        env[by.name] = data["accepted"][number]["payload"]
    event["by"] = by if isinstance(by, str) else by.name
    if number is not None:
        event["number"] = number
    dry = run.scenario.dry_run
    rule = "deliver" if number is not None else "exit" if by == "immediate" else "time_out"
    try:
        while isinstance(transition, Routed):
            if dry and _affected(root, transition.subject):
                return _dry_stop(run, data)  # WF-SCTL-3: transition subjects
            subject = run.resolve(transition.subject, env)
            chosen = next((t for label, t in transition.cases if _same(label, subject)), None)
            assert chosen is not None or transition.otherwise is not None, (
                "else is required (A-143)"
            )
            transition = chosen if chosen is not None else transition.otherwise
        assert isinstance(transition, Direct)
        if dry and _affected(root, transition.into):
            return _dry_stop(run, data)  # WF-SCTL-3: selected transition into projections
        target = run.states[transition.goto]
        values = _accepted(target, run.resolve(transition.into, env))
    except EvaluationFault as fault:
        return _entry_fails(data, "transition_failed", fault.code)
    to = f"{target.name}[{data['counts'].get(target.name, 0)}]"
    event["to"] = to
    record = {k: v for k, v in event.items() if k != "event"} | {"outcome": "exited"}
    record.pop("entry")
    data["entries"] = [*data["entries"][:-1], {"entry": entry["path"], **record}]
    data["entry"] = None
    data["root"] = None
    if by == "immediate" and instant is None:
        instant = entry.get("at")
    data["next"] = {"state": target.name, "values": values, "at": instant}
    return Labelled(rule, event)


def _accepted(target: State, values: dict[str, JSON]) -> dict[str, JSON]:
    """``into``'s values with the target's defaults, each checked against ``accepts`` (WFS-ENTRY-5).

    Names were checked statically (WFS-ENTRY-3: an undeclared or a missing
    required name is invalid); a value of the wrong type is ``fault.type``
    (WFS-ENTRY-6).  An optional name without a default stays unbound and
    reads null (A-151).
    """
    found: dict[str, JSON] = {}
    for field in target.accepts or ():
        if field.name in values:
            value = values[field.name]
            if not INPUT_TYPES.get(field.type, lambda v: True)(value):
                raise EvaluationFault(
                    "fault.type", f"{field.name} is declared {field.type}: {value!r}"
                )
            found[field.name] = value
        elif field.default is not ABSENT:
            found[field.name] = field.default
        elif field.required:
            raise EvaluationFault("fault.type", f"{field.name} is required")
    return found


def _ambiguous(run: StatefulRun, data: Data, loc: tuple[int, ...], number: int) -> JSON:
    """The first eligible event matches two subscriptions: the entry fails (WFS-TRANS-35)."""
    return _entry_fails(data, "ambiguous", "state.ambiguous_subscription")


def _entry_fails(data: Data, rule: str, code: str) -> JSON:
    """An entry's own evaluation faulted: the entry, and with it the run, fails (A-151)."""
    path = data["entry"]["path"]
    error = {"code": code, "step": path}
    _end(data, (), "failed", error, "cancelled", "fail")
    return Labelled(rule, {"event": "entry_failed", "entry": path, "error": error})


def _dry_stop(run: StatefulRun, data: Data) -> JSON:
    """An affected state control evaluation: the implicit dry-run stop (WF-SCTL-3..7).

    No transition; the timer and subscriptions go; outputs are evaluated in
    the root scope with every reference to an entry's binding suppressed;
    an output fault fails the run instead.  Nothing is active at the points
    that evaluate a state control (after ``on_enter``, after ``steps``), so
    Internal Work Cancellation has nothing to cancel.
    """
    outputs = run.workfile.outputs
    entry_names = {p[0] for p in template_refs(outputs)} - set(data["base"])
    frame = {"env": data["base"], "scope": {}, "supp": dict.fromkeys(entry_names, True)}
    end: Data = {"chain": "cancelled", "paths": [], "source": "stop"}
    try:
        result, withheld = _project(run, frame, outputs, True)
        end.update(outcome="stopped", reason=STOP_REASON, result=result)
        if withheld:
            end["suppressed"] = withheld
    except EvaluationFault as fault:
        end.update(outcome="failed", error={"code": fault.code})
        # any faulting entry's code; the run's end reports one of them.
        others = [c for c in _output_faults(run, frame, outputs, True) if c != fault.code]
        if others:
            end["others"] = others
    data["end"] = end
    data["phase"] = "ending"
    return Labelled("dry_stop", {"event": "dry_run_stopped", "entry": data["entry"]["path"]})


# -- the environment (A-152) ----------------------------------------------------------------


def _stimulus(run: StatefulRun, data: Data) -> JSON:
    """The scenario's next stimulus: the clock moves to its instant; its event is accepted."""
    stimulus = run.scenario.events[data["stimuli"]]
    data["stimuli"] += 1
    data["clock"] = stimulus.at
    if stimulus.event is None:
        return Labelled("advance", {"event": "clock_advanced", "at": stimulus.at})
    number = len(data["accepted"])
    accepted = {
        "number": number,
        "at": stimulus.at,
        "trigger": stimulus.event,
        "payload": stimulus.payload,
    }
    data["accepted"] = [*data["accepted"], accepted]
    return Labelled("accept_event", {"event": "event_accepted", **accepted})


def _quiet(run: StatefulRun, data: Data) -> JSON:
    """Nothing more will come and no more time passes: the present instant closes (A-152).

    A timer whose deadline is the present (or past) fires; otherwise the
    entry waits forever.  The scenario's stimuli are the only passage of
    time, so every run ends: no timer loop can fire without them.
    """
    entry = data["entry"]
    if entry is not None and entry["deadline"] is not None and entry["deadline"] <= data["clock"]:
        data["entry"] = {**entry, "due": True}
        return Labelled("quiet", {"event": "quiet"})
    data["end"] = {"outcome": "waiting", "chain": "cancelled", "paths": [], "source": "run"}
    data["phase"] = "ending"
    return Labelled("wait_forever", {"event": "quiet"})


def _start_states(run: StatefulRun, data: Data) -> JSON:
    """Core's start; a rejected run has no entry (WFS-ENTRY-13: ``entries`` is empty)."""
    event = _start(run, data)
    if data["final"] is not None:
        data["final"] = {**data["final"], "entries": []}
    return event


def _finish_states(run: StatefulRun, data: Data, loc: Loc = (), code: str | None = None) -> JSON:
    """Core's terminal outcome, with every entry's identity and outcome (WFS-ENTRY-13).

    A final state's outputs are evaluated in its entry's scope (the root
    frame is that entry's ``steps``; WFS-FORM-12).  The last entry, unless
    it had already exited, takes the run's outcome.
    """
    event = _finish(run, data, loc, code)
    final = data["final"]
    if final["outcome"] == "waiting":  # the oracle stops looking
        event = Labelled("finish_waiting", event.event if isinstance(event, Labelled) else event)
    entries = [dict(e) for e in data["entries"]]
    if entries and entries[-1]["outcome"] is None:
        entries[-1]["outcome"] = final["outcome"]
    final["entries"] = entries
    return event
