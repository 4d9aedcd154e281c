"""Hypothesis strategy: state-form Workfile cases with the environment's races (issue 15).

A case is a small state machine — up to three nonfinal states and a final
one — whose entries correlate on what their ``on_enter`` produced, and a
scenario of stimuli (docs/workfile-stateful.md) placed to make the
profile's races likely: an event while ``on_enter`` or ``steps`` is still
running, before a subscription is active, exactly at a deadline, two at one
instant, an event for an earlier entry or for nobody (another run's, A-162),
a payload whose value the target's ``accepts`` rejects, two subscriptions
matching one event only at run time.

Termination is by construction: immediate and timeout transitions lead to
a later state (or the final one), and only events — finitely many — lead
back, so every run ends (A-152: ``quiet`` fires no timer whose deadline is
still to come).
"""

from __future__ import annotations

import copy
from typing import Any

import yaml
from hypothesis import strategies as st

from wforacle.model.workfile.yamlsafe import write
from wforacle.properties.strategies.sampled import sampled
from wforacle.properties.strategies.workfile_runs import ERRORS, _result

JSON = Any
TRIGGER = "svc.signal"
STATE_MANIFEST = yaml.safe_dump(
    {
        "connector": "svc",
        "actions": {
            "get": {"effects": "read", "idempotency": "inherent", "errors": dict(ERRORS)},
            "send": {"effects": "write", "errors": dict(ERRORS)},
        },
        "triggers": {"signal": {"kind": "external", "correlate_on": ["ref", "kind"]}},
    },
    sort_keys=False,
)
NAMES = ("a", "b", "c")  # the nonfinal states, in order; "done" is final
AFTER = ("1s", "1s", "2s", "0s", "{{ ask.wait }}")
INSTANTS = (0, 0, 500, 1000, 1000, 2000, 3000)
KINDS = ("x", "y")
# A subscription's configuration, read over the root at activation (WFS-TRANS-23); the
# last faults (a member of a string), failing the entry before on_enter (WFS-TRANS-24).
AGAIN = ({"goto": "b", "into": {"v": "{{ sig.value }}"}},) * 2 + ({"goto": "done"},)
CONFIGURATIONS = (None, None, None, {"channel": "{{ inputs.tag }}"}, {"n": "{{ inputs.tag.x }}"})
VALUES = ("ok", "no", 7)  # 7 is not a string: an ``accepts`` of type string rejects it


def _dump(document: JSON) -> str:
    # No anchors: a value drawn twice is written twice, as an author would.
    return write(document, aliases=False)


@st.composite
def state_cases(draw: st.DrawFn) -> dict[str, JSON]:
    """A state-form case: document, the trigger's manifest, scenario with stimuli, schedule.

    A quarter are a reentry loop (``_reentry``), an eighth a machine whose
    state controls read what ``on_enter`` produced (``_controls``, dry runs
    above all); the rest are drawn machines.
    """
    shape = draw(st.integers(0, 7))
    if shape < 2:
        return _reentry(draw)
    if shape == 2:
        return _controls(draw)
    count = draw(st.integers(1, 3))
    names = list(NAMES[:count])
    accepts = {name: draw(sampled((None, "string", "integer"))) for name in names[1:]}
    accepts["done"] = draw(sampled((None, "string")))
    states: dict[str, JSON] = {}
    for index, name in enumerate(names):
        states[name] = _state(draw, name, [*names[index + 1 :], "done"], names, accepts)
    done: dict[str, JSON] = {"final": True}
    if accepts["done"] is not None:
        done["accepts"] = {"v": {"type": "string", "default": "none"}}
    if draw(st.booleans()):
        done["steps"] = [{"last": {"svc.get": {"v": "{{ v }}" if accepts["done"] else 1}}}]
    states["done"] = done
    document: dict[str, JSON] = {
        "inputs": {"tag": {"type": "string", "default": "a[0].ask"}},
        "initial": "a",
        "states": states,
    }
    if accepts["done"] is not None and draw(st.booleans()):
        document["outputs"] = {"v": "{{ v }}"}
    scenario: dict[str, JSON] = {"events": _stimuli(draw, names)}
    attempts: dict[str, JSON] = {}
    for name in names:
        for step in ("ask", "work"):
            if draw(st.integers(0, 4)) == 0:
                attempts[f"{name}.{step}"] = [_result(draw) for _ in range(draw(st.integers(1, 2)))]
    if attempts:
        scenario["attempts"] = attempts
    if draw(st.integers(0, 5)) == 0:
        scenario["cancel"] = draw(st.integers(1, 6))
        if any(s["wait"] == scenario["cancel"] for s in scenario["events"]):
            del scenario["cancel"]
    if draw(st.integers(0, 7)) == 0:
        scenario["dryRun"] = True
    _core_modifiers(draw, states, names, scenario)
    return {
        "document": _dump(document),
        "manifests": {"svc": STATE_MANIFEST},
        "scenario": scenario,
        "schedule": [],
    }


# Core modifiers on an entry's step, each with the script that makes it act (stranger 20:
# the profile drew none, so an executor's catch, retry or on_fail inside states went
# untested): a retry after a retryable failure, none after a fatal one (WF-RETRY-3,
# WF-RETRY-10/11), on_fail: continue (WF-POLICY-4), two handlers whose patterns both
# match (WF-CODE-1/2), a handler that stops or fails the run (WF-IWC-4/5, A-171).
RETRY_ONCE = {"retry": {"policy": "fixed", "initial": "100ms", "attempts": 2}}
MODIFIERS: tuple[tuple[dict[str, JSON], tuple[JSON, ...]], ...] = (
    (RETRY_ONCE, ("svc.busy", "ok")),
    (RETRY_ONCE, ("svc.busy", "svc.fatal")),
    (RETRY_ONCE, ("svc.fatal", "ok")),
    ({"on_fail": "continue"}, ("svc.fatal",)),
    (
        {
            "catch": {
                "svc.*": {"steps": [], "result": {"id": "general", "n": 0}},
                "svc.fatal": {"steps": [], "result": {"id": "exact", "n": 1}},
            }
        },
        ("svc.fatal",),
    ),
    (
        {"catch": {"svc.fatal": {"steps": [{"halt": {"wf.stop": {"reason": "handled"}}}]}}},
        ("svc.fatal",),
    ),
    (
        {"catch": {"svc.*": {"steps": [{"halt": {"wf.fail": {"code": "app.refused"}}}]}}},
        ("svc.busy",),
    ),
)


def _core_modifiers(
    draw: st.DrawFn, states: dict[str, JSON], names: list[str], scenario: dict[str, JSON]
) -> None:
    """An entry's ask or work step given a Core modifier, and the script it acts on.

    Drawn last, so that every other choice of a case stays what it was.  A
    handler's step is named for its step (``halt_ask``): one entry scope
    holds both lists' steps, and a nested scope may not bind an id again.
    """
    for name in names:
        state = states[name]
        for member, step_id in (("on_enter", "ask"), ("steps", "work")):
            listed = [s for s in state.get(member) or [] if step_id in s]
            if not listed or draw(st.integers(0, 4)) > 0:
                continue
            modifiers, script = copy.deepcopy(draw(sampled(MODIFIERS)))
            for handler in (modifiers.get("catch") or {}).values():
                for inner in handler.get("steps") or []:
                    inner[f"halt_{step_id}"] = inner.pop("halt")
            listed[0][step_id].update(modifiers)
            results = [
                {"output": {"id": "x", "n": 1}} if code == "ok" else {"error": code}
                for code in script
            ]
            scenario.setdefault("attempts", {})[f"{name}.{step_id}"] = results


def _state(
    draw: st.DrawFn, name: str, later: list[str], names: list[str], accepts: dict[str, JSON]
) -> dict[str, JSON]:
    """A nonfinal state: ``on_enter`` asks, ``steps`` work, then an exit."""
    state: dict[str, JSON] = {}
    kind = accepts.get(name)
    if kind is not None:
        state["accepts"] = {"v": {"type": kind, "required": True}}
    if draw(st.integers(0, 3)) > 0:
        state["on_enter"] = [{"ask": {"svc.send": {"k": 1}}}]
    # Without an accepted value, work reads what on_enter asked (no draw of its own: the
    # cases' choice sequences stay as they were): in a dry run the suppressed ask makes
    # work, and the use reading it, suppressed too (WF-SUPP-3; a stranger's executor
    # ignored such dependencies and no campaign drew one, session 23).
    seen = "{{ v }}" if kind is not None else "{{ ask.id }}" if "on_enter" in state else 0
    work: dict[str, JSON] = {"svc.get": {"seen": seen}}
    if draw(st.booleans()):
        state["steps"] = [{"work": work}]
        if kind is not None and draw(st.booleans()):
            # A step this entry may skip, read by the next: a reentry that kept an
            # earlier entry's scope reads that entry's value, not null (WFS-ENTRY-7/10).
            work["when"] = "{{ v != 'ok' }}"
            state["steps"].append({"use": {"svc.get": {"w": "{{ work.id }}"}}})
    asked = "on_enter" in state
    exit_kind = draw(sampled(("events", "events", "events", "immediate")))
    if exit_kind == "immediate":
        state["goto"] = draw(sampled(later))
        state.update(_into(draw, state["goto"], accepts, None))
        return state
    # sig always leads on (a final state stays reachable, WFS-FORM-18); alt and a
    # route's else may lead back.
    subscriptions = {"sig": _subscription(draw, "sig", asked, later, accepts)}
    if draw(st.integers(0, 2)) == 0:
        # A second subscription that a run-time value may make overlap the first
        # not established statically; WFS-TRANS-35).
        second = _subscription(draw, "alt", asked, [*names, "done"], accepts)
        second["match"] = {"ref": "{{ inputs.tag }}"}
        subscriptions["alt"] = second
    state["on"] = subscriptions
    if draw(st.booleans()):
        # A template reads on_enter's ask (WFS-TRANS-12): only where there is one.
        timeout: dict[str, JSON] = {"after": draw(sampled(AFTER[: 5 if asked else 4]))}
        timeout["goto"] = draw(sampled(later))
        timeout.update(_into(draw, timeout["goto"], accepts, None))
        state["timeout"] = timeout
    return state


def _subscription(
    draw: st.DrawFn, sub: str, asked: bool, targets: list[str], accepts: dict[str, JSON]
) -> dict[str, JSON]:
    """A subscription to ``svc.signal`` correlated on this entry's ``ask`` (or a constant)."""
    ref = "{{ ask.id }}" if asked and draw(st.integers(0, 3)) > 0 else "r1"
    spec: dict[str, JSON] = {"event": TRIGGER, "match": {"ref": ref}}
    if draw(st.integers(0, 2)) == 0:  # a second correlate_on field (WFS-TRANS-30/31)
        spec["match"]["kind"] = draw(sampled((*KINDS, None, None)))
    configuration = draw(sampled(CONFIGURATIONS))
    if configuration is not None:
        spec["configuration"] = configuration
    if draw(st.booleans()):
        spec["route"] = f"{{{{ {sub}.kind }}}}"
        first = draw(sampled(targets))
        other = draw(sampled(sorted({*targets, *NAMES[:1]})))
        spec["cases"] = {"x": {"goto": first, **_into(draw, first, accepts, sub)}}
        spec["else"] = {"goto": other, **_into(draw, other, accepts, sub)}
    else:
        spec["goto"] = draw(sampled(targets))
        spec.update(_into(draw, spec["goto"], accepts, sub))
    return spec


def _into(draw: st.DrawFn, target: str, accepts: dict[str, JSON], sub: str | None) -> JSON:
    """``into`` for ``target``: its ``v`` from the payload (checked at run time) or a literal."""
    kind = accepts.get(target)
    if kind is None:
        return {}
    if target == "done":
        return {"into": {"v": f"{{{{ {sub}.value }}}}"}} if sub and draw(st.booleans()) else {}
    literal = "ok" if kind == "string" else 7
    value = f"{{{{ {sub}.value }}}}" if sub is not None and draw(st.booleans()) else literal
    return {"into": {"v": value}}


def _stimuli(draw: st.DrawFn, names: list[str]) -> list[JSON]:
    """Up to five stimuli at increasing waits, at nondecreasing instants."""
    count = draw(st.integers(0, 5))
    waits = sorted(draw(st.lists(st.integers(1, 8), min_size=count, max_size=count, unique=True)))
    instants = sorted(draw(sampled(INSTANTS)) for _ in range(count))
    refs = [f"{n}[{k}].ask" for n in names for k in (0, 1)] + ["r1", "other"]
    found: list[JSON] = []
    for wait, at in zip(waits, instants, strict=True):
        if draw(st.integers(0, 4)) == 0:
            found.append({"wait": wait, "at": at})  # the clock moves; nothing else
            continue
        payload = {
            "ref": draw(sampled(refs)),
            "kind": draw(sampled(KINDS)),
            "value": draw(sampled(VALUES)),
        }
        if draw(st.integers(0, 3)) == 0:  # a field a match may name is absent, not null
            del payload["kind"]
        found.append({"wait": wait, "at": at, "event": TRIGGER, "payload": payload})
    return found


def _reentry(draw: st.DrawFn) -> dict[str, JSON]:
    """A state that re-enters itself with a new value each time, until ``end`` or its timeout.

    Its steps skip ``work`` for the value ``ok`` and read ``work`` after: every
    entry must read its own (WFS-ENTRY-7/10), count its own position
    (WFS-ENTRY-12), and never see the event that left the previous entry
    (WFS-TRANS-28/33).
    """
    loop: dict[str, JSON] = {
        "accepts": {"v": {"type": "string", "required": True}},
        "steps": [
            {"work": {"svc.get": {"v": "{{ v }}"}, "when": "{{ v != 'ok' }}"}},
            {"use": {"svc.get": {"w": "{{ work.id }}"}}},
        ],
        "on": {
            # Back to b (a reentry), or on to done: an event must not leave two entries.
            "sig": {"event": TRIGGER, "match": {"ref": "r1"}, **draw(sampled(AGAIN))},
            "end": {"event": TRIGGER, "match": {"ref": "r2"}, "goto": "done"},
        },
    }
    if draw(st.booleans()):
        loop["timeout"] = {"after": draw(sampled(AFTER[:3])), "goto": "done"}
    into = {"v": "{{ sig.value }}"}
    start: dict[str, JSON] = {
        "on": {"sig": {"event": TRIGGER, "match": {"ref": "r1"}, "goto": "b", "into": into}}
    }
    if draw(st.booleans()):
        start["on_enter"] = [{"ask": {"svc.send": {"k": 1}}}]
    document = {"initial": "a", "states": {"a": start, "b": loop, "done": {"final": True}}}
    count = draw(st.integers(1, 5))
    waits = sorted(draw(st.lists(st.integers(1, 8), min_size=count, max_size=count, unique=True)))
    instants = sorted(draw(sampled(INSTANTS)) for _ in range(count))
    events = [
        {
            "wait": wait,
            "at": at,
            "event": TRIGGER,
            "payload": {
                "ref": draw(sampled(("r1", "r1", "r2"))),
                "value": draw(sampled(("no", "ok"))),
            },
        }
        for wait, at in zip(waits, instants, strict=True)
    ]
    return {
        "document": _dump(document),
        "manifests": {"svc": STATE_MANIFEST},
        "scenario": {"events": events},
        "schedule": [],
    }


# What an ``after`` read from ``on_enter`` may be: a duration, a timestamp on the
# clock (0 is 2026-01-01T00:00:00Z), or not a deadline at all (fault.type, A-152).
WAITS = ("2s", "500ms", "2026-01-01T00:00:01Z", "soon", 5)


def _controls(draw: st.DrawFn) -> dict[str, JSON]:
    """State controls that read ``on_enter``'s result: ``after``, a route subject, ``into``.

    In a dry run (most of these cases), a suppressed write's binding makes each
    an implicit dry-run stop (WF-SCTL-3..7); a read's does not.  Live, ``after``
    is a duration, a timestamp or a fault (WFS-TRANS-12/13).
    """
    action = draw(sampled(("svc.send", "svc.get")))
    start: dict[str, JSON] = {"on_enter": [{"ask": {action: {"k": 1}}}]}
    control = draw(sampled(("after", "route", "into")))
    done: dict[str, JSON] = {"final": True}
    if control == "after":
        start["timeout"] = {"after": draw(sampled(("{{ ask.wait }}", "1s"))), "goto": "b"}
    elif control == "route":
        start["route"] = "{{ ask.kind }}"
        start["cases"] = {"x": {"goto": "b"}}
        start["else"] = {"goto": "done"}
    else:
        start["goto"] = "done"
        start["into"] = {"v": "{{ ask.id }}"}
        done["accepts"] = {"v": {"type": "string", "default": "none"}}
    document: dict[str, JSON] = {
        "inputs": {"x": {"type": "string", "default": "kept"}},
        "initial": "a",
        "states": {
            "a": start,
            "b": {"steps": [{"work": {"svc.send": {"k": 2}}}], "goto": "done"},
            "done": done,
        },
        "outputs": {"x": "{{ inputs.x }}", **({"v": "{{ v }}"} if "accepts" in done else {})},
    }
    scenario: dict[str, JSON] = {}
    if draw(st.integers(0, 3)) > 0:
        scenario["dryRun"] = True
    if draw(st.booleans()):
        output: dict[str, JSON] = {"id": "asked", "kind": draw(sampled(KINDS))}
        output["wait"] = draw(sampled(WAITS))
        scenario["attempts"] = {"a.ask": [{"output": output}]}
    advances = draw(st.lists(sampled((0, 500, 1000, 1001, 2000, 2001)), max_size=2))
    scenario["events"] = [{"wait": k + 1, "at": at} for k, at in enumerate(sorted(advances))]
    return {
        "document": _dump(document),
        "manifests": {"svc": STATE_MANIFEST},
        "scenario": scenario,
        "schedule": [],
    }
