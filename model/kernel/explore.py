"""Exhaustive exploration of a labelled transition system.

Notation: from the initial configuration, follow every enabled transition
(depth-first), visiting each configuration once — configurations are
identified by ``key(c)``, a canonical, hashable rendering — and collect the
distinct ``outcome(c)`` of the terminal ones, each with one witness trace.

The visited set holds 128-bit BLAKE2b digests of string keys, not the keys:
a configuration's key grows with the document, its digest does not (the
chance that two of a billion distinct states collide is below 10^-20).
Until the search first forks, it computes one key in ``SAMPLE``: a state on
that one path can be met again only along a cycle, which a sampled key
still finds (``_explore``; a run of one strand never forks, and computes
almost none).

A bound (``max_states``, or a time budget set with ``time_budget``,
model/kernel/budget.py) that
stops the search is reported — the result says ``complete=False`` and why —
never silently truncated.

A reduction (``ample``) is supplied by the semantics, which alone knows which
of its transitions commute: given a configuration and its enabled
transitions, it returns a subset from which every terminal outcome is still
reachable (a persistent set; model/w6w/independence.py justifies the w6w
one).  Without one, every interleaving is enumerated.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Generic, TypeVar

import attrs

from wforacle.model.kernel import budget
from wforacle.model.kernel.lts import Event, Semantics, Transition

C = TypeVar("C")
Ample = Callable[[C, Sequence[Transition[C]]], Sequence[Transition[C]]]


@attrs.frozen
class Outcome:
    """One distinct terminal outcome and a trace that reaches it."""

    value: Any = attrs.field(eq=False)
    witness: tuple[Event, ...] = attrs.field(eq=False)
    trail: Any = attrs.field(eq=False, repr=False, default=None)  # the search's path to it

    def clauses(self) -> tuple[str, ...]:
        """What the witness exercised: its transitions' clauses and their nested runs', once each.

        First cited first; computed when asked (most outcomes are never asked).
        """
        steps = []
        path = self.trail
        while path is not None:
            steps.append(path)
            path = path[3]
        found: dict[str, None] = {}
        for _, own, nested, _ in reversed(steps):
            found.update(dict.fromkeys(own))
            found.update(dict.fromkeys(nested))
        return tuple(found)


@attrs.frozen
class Exploration(Generic[C]):
    """What an exploration found, and what it cost."""

    outcomes: tuple[Outcome, ...]
    states: int
    transitions: int
    seconds: float
    complete: bool
    stopped_because: str | None = None
    max_branching: int = 0
    reduction: str = "none"
    pruned: int = 0  # enabled transitions the reduction left unexplored

    def figures(self) -> dict[str, Any]:
        """The exploration's figures as JSON."""
        return {
            "states": self.states,
            "transitions": self.transitions,
            "seconds": round(self.seconds, 6),
            "states_per_second": round(self.states / self.seconds) if self.seconds else None,
            "max_branching": self.max_branching,
            "reduction": self.reduction,
            "pruned_transitions": self.pruned,
            "complete": self.complete,
            "stopped_because": self.stopped_because,
        }


def one_shot(encoder: json.JSONEncoder) -> Callable[[Any], str]:
    """``encoder.encode``, with the C encoder it builds on every call built once.

    ``JSONEncoder.encode`` makes a new C encoder object per value, which cost
    as much as the encoding of a small one (issue 16: a key renders a new
    step input at every step start).  Built here without the circular-
    reference table: the values rendered are parsed JSON or the model's own
    records, never cyclic, and a table shared between calls would keep a
    failed call's marks.  Where this Python has no C encoder, or the one it
    has is built with other arguments (the check below renders a probe both
    ways), ``encoder.encode`` itself.
    """
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None or encoder.indent is not None:
        return encoder.encode
    try:
        built = make(
            None,
            encoder.default,
            json.encoder.encode_basestring_ascii
            if encoder.ensure_ascii
            else json.encoder.encode_basestring,
            None,
            encoder.key_separator,
            encoder.item_separator,
            encoder.sort_keys,
            encoder.skipkeys,
            encoder.allow_nan,
        )
        probe = {"b": [1, 2.5, -0.0, None, True, 'é\u2028\\"'], "a": {"": float("inf")}}
        if "".join(built(probe, 0)) != encoder.encode(probe):
            return encoder.encode
    except (TypeError, ValueError):
        return encoder.encode

    def encode(value: Any) -> str:
        return "".join(built(value, 0))

    return encode


# A canonical JSON text: the same value always renders the same way.  What
# ``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``
# renders, with its encoder built once (building it cost a microsecond a key, issue 16).
canonical: Callable[[Any], str] = one_shot(
    json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
)


# (the last transition's event, its clauses, its nested runs' clauses, the path before it),
# or None.  Not the transition itself: that would keep every configuration on the path alive.
_Path = tuple[Event, tuple[str, ...], tuple[str, ...], Any] | None


def _witness(value: Any, path: _Path) -> Outcome:
    """``value``'s outcome with the path's events (and the path, for ``Outcome.clauses``)."""
    events = []
    trail = path
    while path is not None:
        events.append(path[0])
        path = path[3]
    return Outcome(value, tuple(reversed(events)), trail)


def _digest(key: Hashable) -> Hashable:
    if isinstance(key, str):
        return hashlib.blake2b(key.encode("utf-8"), digest_size=16).digest()
    return key


# On the unbranched prefix, one state in SAMPLE has its key computed (``_explore``).
SAMPLE = 4096

time_budget = budget.time_budget  # kept here: the command line sets explore's budget by this name


@attrs.frozen
class Visiting(Generic[C]):
    """``semantics``, calling ``visit`` on every configuration the explorer visits.

    Once each, in the order visited: the explorer asks for the enabled
    transitions of every state it visits once.  For checks over every
    visited configuration (a key function is not such a hook: on the path to
    the first fork, the explorer computes few keys).
    """

    semantics: Semantics[C]
    visit: Callable[[C], None]

    def initial(self) -> C:
        """The wrapped semantics' initial configuration."""
        return self.semantics.initial()

    def enabled(self, config: C) -> Sequence[Transition[C]]:
        """``config`` visited, then its transitions."""
        self.visit(config)
        return self.semantics.enabled(config)


def explore(
    semantics: Semantics[C],
    outcome: Callable[[C], Any],
    key: Callable[[C], Hashable],
    max_states: int = 1_000_000,
    ample: Ample[C] | None = None,
    reduction: str = "none",
) -> Exploration[C]:
    """Every distinct terminal outcome reachable from the initial configuration.

    ``ample`` (named ``reduction`` in the figures) selects the transitions to
    follow among the enabled ones; None follows them all.  A time budget
    spent, between transitions or inside one, ends the outermost bounded
    computation (model/kernel/budget.py): this exploration, incomplete, or
    the one it is nested in.
    """
    with budget.bounded() as outermost:
        return _explore(semantics, outcome, key, max_states, ample, reduction, outermost)


def _explore(
    semantics: Semantics[C],
    outcome: Callable[[C], Any],
    key: Callable[[C], Hashable],
    max_states: int,
    ample: Ample[C] | None,
    reduction: str,
    outermost: bool,
) -> Exploration[C]:
    start = time.perf_counter()
    pruned = 0
    limit = budget.current()

    def choices_at(config: C) -> list[Transition[C]]:
        nonlocal pruned
        enabled = semantics.enabled(config)  # may raise BudgetSpent from inside a transition
        if ample is None or len(enabled) < 2:
            return list(enabled)
        chosen = list(ample(config, enabled))
        pruned += len(enabled) - len(chosen)
        return chosen

    # The unbranched prefix.  Until the search first meets a state with two or more
    # transitions to follow, each state is the only one followed from the state before
    # it, so the search can come back to one of them only along a cycle: their keys are
    # computed at every SAMPLE-th state only, which meets such a cycle again within
    # SAMPLE times its length, and stops there as a visited state would.  From the first
    # branching state on, every state's key is (issue 16: a run of one strand, and
    # the path to a fork, cost no key; the figures are the same, as is what is found).
    initial = semantics.initial()
    visited: set[Hashable] = set()
    states = 1
    found: dict[str, Outcome] = {}
    transitions = 0
    branching = 0

    def stopped(reason: str | None) -> Exploration[C]:
        """The result so far: incomplete for ``reason``, or complete (None)."""
        return Exploration(
            tuple(found.values()),
            states,
            transitions,
            time.perf_counter() - start,
            complete=reason is None,
            stopped_because=reason,
            max_branching=branching,
            reduction=reduction,
            pruned=pruned,
        )

    # Each frame: a configuration's remaining transitions and the path to it, a
    # linked list (event, parent) so that a frame costs O(1) whatever its depth.
    stack: list[tuple[list[Transition[C]], _Path]] = []
    try:
        first_choices = choices_at(initial)
    except budget.Stopped as exc:
        if not outermost:
            raise
        return stopped(str(exc))
    keyed = len(first_choices) > 1
    visited.add(_digest(key(initial)))
    if not first_choices:
        value = outcome(initial)
        found[canonical(value)] = Outcome(value, ())
    else:
        stack.append((first_choices, None))
        branching = len(first_choices)
    while stack:
        choices, path = stack[-1]
        if not choices:
            stack.pop()
            continue
        transition = choices.pop()
        transitions += 1
        target = transition.target
        target_key: Hashable = None
        if keyed or states % SAMPLE == 0:
            target_key = key(target)
            if type(target_key) is str:  # _digest's case, inline: a call fewer a state
                target_key = _digest(target_key)
            if target_key in visited:
                continue
        spent = limit is not None and states % 256 == 0 and time.monotonic() > limit[1]
        if spent and not outermost:
            raise budget.BudgetSpent(limit[0] if limit is not None else 0.0)
        if spent and limit is not None:
            return stopped(f"the time budget ({limit[0]:g} s) was spent")
        if states >= max_states:
            return stopped(f"the state bound ({max_states}) was reached")
        states += 1
        if target_key is not None:
            visited.add(target_key)
        trace: _Path = (transition.event, transition.clauses, transition.nested, path)
        try:
            next_choices = choices_at(target)
        except budget.Stopped as exc:
            if not outermost:
                raise
            return stopped(str(exc))
        if not next_choices:
            value = outcome(target)
            text = canonical(value)
            if text not in found:
                found[text] = _witness(value, trace)
            continue
        if not keyed and len(next_choices) > 1:
            keyed = True  # the first fork: from here on the search may meet a state again
            if target_key is None:
                target_key = _digest(key(target))
                if target_key in visited:  # a sampled state of the prefix, along a cycle
                    states -= 1
                    continue
                visited.add(target_key)
        branching = max(branching, len(next_choices))
        stack.append((next_choices, trace))
    return stopped(None)
