"""The Stateful Profile's execution rules, one by one (model/workfile/stateful.py).

Each test states what the profile's text requires (docs/workfile-stateful.md)
and looks for it among every run the model permits: the traces are
enumerated exhaustively (the cases are small), so a rule that is removed or
weakened shows as a trace that should not be there or one that is missing.
"""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from wforacle.model.diagnostics import InvalidCase
from wforacle.model.workfile.run import outcome
from wforacle.properties.workfile.execution import prepare

JSON = Any
MANIFEST = """
connector: svc
actions:
  get: { effects: read }
  send: { effects: write }
triggers:
  signal: { kind: external, correlate_on: [ref, kind] }
"""


def case(document: str, **scenario: JSON) -> JSON:
    return {
        "document": textwrap.dedent(document),
        "manifests": {"svc": MANIFEST},
        "scenario": scenario,
    }


def traces(value: JSON, limit: int = 20_000) -> list[list[JSON]]:
    """Every complete trace the model permits (depth first, no reduction)."""
    run = prepare(value).semantics
    found: list[list[JSON]] = []
    stack = [(run.initial(), [])]
    while stack:
        config, events = stack.pop()
        moves = run.enabled(config)
        if not moves:
            found.append(events)
            events.append({"event": "(final)", **outcome(run, config)})
            continue
        for move in moves:
            stack.append((move.target, [*events, move.event]))
        assert len(found) < limit
    return found


def finals(value: JSON) -> list[JSON]:
    return [t[-1] for t in traces(value)]


def named(trace: list[JSON], name: str) -> list[JSON]:
    return [e for e in trace if e["event"] == name]


def signal(wait: int, at: int, ref: str = "r1", **payload: JSON) -> JSON:
    return {"wait": wait, "at": at, "event": "svc.signal", "payload": {"ref": ref, **payload}}


# A state waiting for svc.signal correlated on a constant, then done.
WAITER = """
initial: a
states:
  a:
    on:
      sig: { event: svc.signal, match: { ref: r1 }, goto: done }
  done: { final: true }
"""


def test_an_eligible_event_selects_its_transition_and_one_target_entry():
    # WFS-TRANS-30, WFS-TRANS-39: the event matches; exactly one target entry.
    for trace in traces(case(WAITER, events=[signal(1, 0)])):
        final = trace[-1]
        assert final["outcome"] == "completed"
        assert final["entries"] == [
            {"entry": "a[0]", "outcome": "exited", "by": "sig", "number": 0, "to": "done[0]"},
            {"entry": "done[0]", "outcome": "completed"},
        ]


def test_an_event_nobody_matches_changes_nothing():
    # WFS-TRANS-34: another correlation value, another trigger: the entry keeps waiting.
    other = {"wait": 2, "at": 0, "event": "svc.other", "payload": {"ref": "r1"}}
    for final in finals(case(WAITER, events=[signal(1, 0, ref="r2"), other])):
        assert final["outcome"] == "waiting"
        assert final["entries"] == [{"entry": "a[0]", "outcome": "waiting"}]


def test_fields_outside_match_do_not_constrain_delivery():
    # WFS-TRANS-31: kind is a correlate_on field the match omits.
    assert {f["outcome"] for f in finals(case(WAITER, events=[signal(1, 0, kind="zz")]))} == {
        "completed"
    }


BEFORE = """
initial: a
states:
  a:
    on_enter: [ { ask: { svc.send: {} } } ]
    goto: b
  b:
    on:
      sig: { event: svc.signal, match: { ref: r1 }, goto: done }
  done: { final: true }
"""


def test_an_event_accepted_before_activation_is_never_delivered():
    # WFS-TRANS-28: an event accepted during a[0] is before b[0]'s activation.
    runs = traces(case(BEFORE, events=[signal(1, 0)]))
    early = [
        t
        for t in runs
        if t.index(named(t, "event_accepted")[0]) < t.index(named(t, "entry_started")[1])
    ]
    assert early, "the event can be accepted while a[0] runs"
    for trace in early:
        assert trace[-1]["outcome"] == "waiting"
    late = [t for t in runs if t not in early]
    assert late and all(t[-1]["outcome"] == "completed" for t in late)


STEPS = """
initial: a
states:
  a:
    on_enter: [ { ask: { svc.send: {} } } ]
    steps: [ { work: { svc.get: {} } } ]
    on:
      sig: { event: svc.signal, match: { ref: "{{ ask.id }}" }, goto: done }
  done: { final: true }
"""


def test_events_during_the_lists_are_retained_and_delivered_only_after_both():
    # WFS-TRANS-25: active once configured (before on_enter); WFS-TRANS-27, WFS-TRANS-29:
    # retained while on_enter/steps run, never interrupting.
    runs = traces(case(STEPS, events=[signal(1, 0, ref="a[0].ask")]))
    during = 0
    for trace in runs:
        assert trace[-1]["outcome"] == "completed"
        exited = trace.index(named(trace, "entry_exited")[0])
        finished = [i for i, e in enumerate(trace) if e["event"] == "step_finished"]
        assert finished and max(finished) < exited
        accepted = trace.index(named(trace, "event_accepted")[0])
        during += accepted < max(finished)
    assert during, "some runs accept the event while a list is still running"


def test_the_match_is_evaluated_after_on_enter():
    # WFS-TRANS-26: the correlation reads what on_enter bound.
    for trace in traces(case(STEPS)):
        (correlated,) = named(trace, "entry_correlated")
        assert correlated["match"] == {"sig": {"ref": "a[0].ask"}}
        assert trace.index(correlated) > trace.index(named(trace, "step_finished")[0])


TIMED = """
initial: a
states:
  a:
    on:
      sig: { event: svc.signal, match: { ref: r1 }, goto: yes }
    timeout: { after: 1s, goto: no }
  yes: { final: true }
  no: { final: true }
"""


def outcomes_by(value: JSON) -> set[str]:
    """How the first entry left, in the runs whose stimuli came after its deadline was fixed."""
    found = set()
    for trace in traces(value):
        fixed = [i for i, e in enumerate(trace) if e["event"] == "entry_correlated"][:1]
        moved = [
            i for i, e in enumerate(trace) if e["event"] in ("event_accepted", "clock_advanced")
        ]
        if fixed and all(i > fixed[0] for i in moved) and "by" in trace[-1]["entries"][0]:
            found.add(trace[-1]["entries"][0]["by"])
    return found


def test_an_event_accepted_at_the_deadline_wins():
    # WFS-TRANS-37: "An event accepted no later than the deadline wins over that timeout".
    assert outcomes_by(case(TIMED, events=[signal(1, 1000)])) == {"sig"}


def test_an_event_accepted_after_the_deadline_loses():
    assert outcomes_by(case(TIMED, events=[signal(1, 1001)])) == {"timeout"}


def test_the_timer_is_not_due_until_the_clock_passes_its_deadline():
    # the clock at the deadline keeps the instant open; quiet closes it.
    checked = 0
    for trace in traces(case(TIMED, events=[{"wait": 1, "at": 1000}])):
        (advanced,) = named(trace, "clock_advanced")
        if trace.index(advanced) > trace.index(named(trace, "entry_correlated")[0]):
            checked += 1
            assert trace[-1]["entries"][0]["by"] == "timeout"
            assert trace.index(named(trace, "quiet")[0]) < trace.index(
                named(trace, "entry_exited")[0]
            )
    assert checked
    assert {f["outcome"] for f in finals(case(TIMED, events=[{"wait": 1, "at": 999}]))} == {
        "waiting"
    }


LATE = """
initial: a
states:
  a:
    timeout: { after: 1s, goto: b }
  b:
    on:
      sig: { event: svc.signal, match: { ref: r1 }, goto: done }
  done: { final: true }
"""


def test_a_timer_passed_by_a_stimulus_fires_at_its_deadline_or_later():
    # The stimulus at 2000 moves the clock past a[0]'s deadline (1000).  An executor whose
    # timer fired at 1000 began b[0] then, so the event accepted at 2000 came after b[0]'s
    # activation and is delivered (WFS-TRANS-28, -36); one that delayed the timer (Core:
    # an executor "can delay a timer beyond its requested instant") began b[0] after the
    # acceptance, and b[0] waits.  Both are runs the model permits (A-152; a stranger's
    # executor, which fired at the deadline, was reported divergent before).
    runs = traces(case(LATE, events=[signal(1, 2000)]))
    passed = [  # the deadline fixed first, then the stimulus, then a[0] timed out
        t
        for t in runs
        if named(t, "entry_exited")
        and t.index(named(t, "entry_correlated")[0])
        < t.index(named(t, "event_accepted")[0])
        < t.index(named(t, "entry_exited")[0])
    ]
    assert {t[-1]["outcome"] for t in passed} == {"completed", "waiting"}
    # Fired at the deadline, b[0]'s own deadline would count from 1000 too.
    prompt = [t for t in passed if t[-1]["outcome"] == "completed"]
    assert all(named(t, "entry_exited")[-1]["entry"] == "b[0]" for t in prompt)


CARRIED = """
initial: a
states:
  a:
    timeout: { after: 1s, goto: b }
  b: { goto: c }
  c:
    timeout: { after: 1s, goto: done }
  done: { final: true }
"""


def test_an_immediate_transition_carries_the_instant_its_entry_began_at():
    # a[0]'s timer (deadline 1000) passed by an advance to 2000: fired at its deadline,
    # b[0] began at 1000, and its immediate goto takes no time — c[0] began at 1000 too,
    # so its deadline is 2000 and quiet fires it.  A stranger's executor (session 23) was
    # told c[0]'s deadline had to be 3000 (WFS-TRANS-13).
    runs = traces(case(CARRIED, events=[{"wait": 1, "at": 2000}]))
    deadlines = {
        (named(t, "entry_correlated")[-1]["deadlineMs"], t[-1]["outcome"])
        for t in runs
        if named(t, "entry_correlated")[-1]["entry"] == "c[0]"
    }
    assert (2000, "completed") in deadlines  # the timer fired at its deadline
    assert (3000, "waiting") in deadlines  # delayed past the advance: c[0] began at 2000
    assert {d for d, _ in deadlines} == {2000, 3000}


def test_a_timer_due_after_the_last_stimulus_may_be_delayed_until_quiet():
    # WF-SCHED-2: an executor "can delay a timer beyond its requested instant".  The
    # advance to 2000 passes a[0]'s deadline; an executor that waits on and hears quiet
    # fires the timer then (a stranger's executor was told WFS-FORM-9, session 23).
    doc = "initial: a\nstates:\n  a: { timeout: { after: 1s, goto: done } }\n"
    doc += "  done: { final: true }\n"
    runs = traces(case(doc, events=[{"wait": 1, "at": 2000}]))
    passed = [  # the deadline (1000) fixed before the advance
        [e["event"] for e in t]
        for t in runs
        if t.index(named(t, "entry_correlated")[0]) < t.index(named(t, "clock_advanced")[0])
    ]
    after = {tuple(names[names.index("clock_advanced") + 1 :][:2]) for names in passed}
    # Fired at once (at the deadline or the advance: both variants), or after quiet.
    assert after == {("entry_exited", "entry_started"), ("quiet", "entry_exited")}
    assert {t[-1]["outcome"] for t in runs if named(t, "entry_exited")} == {"completed"}
    # quiet closed the instant: the timer fires then, no second quiet comes first.
    assert all(len(named(t, "quiet")) <= 1 for t in runs)


def test_events_at_one_instant_are_delivered_in_acceptance_order():
    # WFS-TRANS-38: the same instant: the one accepted first.
    doc = TIMED.replace(
        "sig: { event",
        "sig: { route: '{{ sig.kind }}', cases: { a: { goto: yes } }, else: { goto: no }, event",
    ).replace(", goto: yes }\n    timeout", " }\n    timeout")
    events = [signal(1, 500, kind="a"), signal(2, 500, kind="b")]
    for final in finals(case(doc, events=events)):
        assert final["entries"][0] == {
            "entry": "a[0]",
            "outcome": "exited",
            "by": "sig",
            "number": 0,
            "to": "yes[0]",
        }


def test_the_deadline_is_measured_from_after_on_enter():
    # WFS-TRANS-12/13: a duration from the evaluation after on_enter (the clock moved during it).
    doc = """
    initial: a
    states:
      a:
        on_enter: [ { ask: { svc.send: {} } } ]
        timeout: { after: 1s, goto: done }
      done: { final: true }
    """
    deadlines = set()
    for trace in traces(case(doc, events=[{"wait": 1, "at": 500}])):
        (correlated,) = named(trace, "entry_correlated")
        advanced = trace.index(named(trace, "clock_advanced")[0])
        deadlines.add((advanced < trace.index(correlated), correlated["deadlineMs"]))
    assert deadlines == {(True, 1500), (False, 1000)}


def test_a_timestamp_names_the_deadline():
    # WFS-TRANS-13; A-152: the clock's 0 is 2026-01-01T00:00:00Z.
    doc = TIMED.replace("after: 1s", "after: '2026-01-01T00:00:02Z'")
    for trace in traces(case(doc)):
        assert named(trace, "entry_correlated")[0]["deadlineMs"] == 2000


def test_after_that_is_not_a_duration_fails_the_entry_with_fault_type():
    doc = TIMED.replace("after: 1s", "after: '{{ inputs.when }}'").replace(
        "initial: a", "inputs: { when: { type: string, default: soon } }\ninitial: a"
    )
    for final in finals(case(doc)):
        assert final["outcome"] == "failed"
        assert final["error"] == {"code": "fault.type", "step": "a[0]"}


OVERLAP = """
inputs: { tag: { type: string, default: r1 } }
initial: a
states:
  a:
    on_enter: [ { ask: { svc.send: {} } } ]
    on:
      one: { event: svc.signal, match: { ref: "{{ ask.id }}" }, goto: done }
      two: { event: svc.signal, match: { ref: "{{ inputs.tag }}" }, goto: done }
  done: { final: true }
"""


def test_a_delivery_matching_two_subscriptions_fails_the_entry():
    # WFS-TRANS-35: "the entry fails with state.ambiguous_subscription rather than
    # selecting by map order".
    value = case(OVERLAP, inputs={"tag": "a[0].ask"}, events=[signal(1, 0, ref="a[0].ask")])
    for final in finals(value):
        assert final["outcome"] == "failed"
        assert final["error"] == {"code": "state.ambiguous_subscription", "step": "a[0]"}
    # Without the overlap, the one subscription that matches is taken.
    for final in finals(case(OVERLAP, events=[signal(1, 0, ref="r1")])):
        assert final["entries"][0]["by"] == "two"


INTO = """
initial: a
states:
  a:
    on:
      sig: { event: svc.signal, match: { ref: r1 }, goto: b, into: { v: "{{ sig.value }}" } }
  b:
    accepts: { v: { type: string, required: true }, w: { type: integer, default: 3 } }
    steps: [ { use: { svc.get: { v: "{{ v }}", w: "{{ w }}" } } } ]
    goto: done
  done: { final: true }
"""


def test_into_values_are_checked_before_any_target_entry():
    # WFS-ENTRY-5/6: a mismatch is fault.type in the source entry, and no b entry exists.
    for trace in traces(case(INTO, events=[signal(1, 0, value=7)])):
        final = trace[-1]
        assert final["error"] == {"code": "fault.type", "step": "a[0]"}
        assert final["entries"] == [{"entry": "a[0]", "outcome": "failed"}]
        assert len(named(trace, "entry_started")) == 1


def test_accepted_values_bind_with_their_defaults():
    # WFS-ENTRY-4, WFS-ENTRY-8: v from into, w from its default.
    for trace in traces(case(INTO, events=[signal(1, 0, value="ok")])):
        assert named(trace, "entry_started")[1]["values"] == {"v": "ok", "w": 3}
        assert named(trace, "attempt_started")[0]["input"] == {"v": "ok", "w": 3}


LOOP = """
initial: a
states:
  a:
    on_enter: [ { ask: { svc.send: {} } } ]
    on:
      again: { event: svc.signal, match: { ref: "{{ ask.id }}", kind: again }, goto: a }
      stop: { event: svc.signal, match: { ref: "{{ ask.id }}", kind: stop }, goto: done }
  done: { final: true }
"""


def test_reentry_creates_a_new_entry_with_its_own_paths():
    # WFS-ENTRY-7, WFS-ENTRY-12, WFS-ENTRY-13: a[0], a[1]; a[1].ask correlates a[1].
    events = [signal(1, 0, ref="a[0].ask", kind="again"), signal(2, 0, ref="a[1].ask", kind="stop")]
    ends = finals(case(LOOP, events=events))
    completed = [f for f in ends if f["outcome"] == "completed"]
    assert completed
    for final in completed:
        assert [e["entry"] for e in final["entries"]] == ["a[0]", "a[1]", "done[0]"]
        assert final["steps"] == {"a[0].ask": "succeeded", "a[1].ask": "succeeded"}


def test_an_event_is_never_delivered_twice():
    # WFS-TRANS-33, WFS-TRANS-28: the event that left a[0] is before a[1]'s activation.
    events = [signal(1, 0, ref="a[0].ask", kind="again")]
    for final in finals(case(LOOP.replace("{{ ask.id }}", "a[0].ask"), events=events)):
        assert final["outcome"] == "waiting"
        assert [e["entry"] for e in final["entries"]] == ["a[0]", "a[1]"]


SCOPES = """
initial: a
states:
  a:
    on:
      sig: { event: svc.signal, match: { ref: r1 }, goto: b, into: { v: "{{ sig.value }}" } }
  b:
    accepts: { v: { type: string, required: true } }
    steps:
      - work: { svc.get: {}, when: "{{ v != 'ok' }}" }
      - use: { svc.get: { w: "{{ work.id }}" } }
    on:
      sig: { event: svc.signal, match: { ref: r1 }, goto: b, into: { v: "{{ sig.value }}" } }
      end: { event: svc.signal, match: { ref: r2 }, goto: done }
  done: { final: true }
"""


def test_a_reentry_does_not_read_the_earlier_entry_s_bindings():
    # WFS-ENTRY-7/10: b[1] skips work; its use reads null, not b[0]'s work.
    events = [signal(1, 0, value="no"), signal(2, 0, value="ok"), signal(3, 0, value="ok")]
    seen = set()
    for trace in traces(case(SCOPES, events=events)):
        for event in named(trace, "attempt_started"):
            if event["step"] == "b[1].use":
                seen.add(event["input"]["w"])
    assert seen == {None}


def test_final_outputs_are_evaluated_in_the_final_entry_s_scope():
    # WFS-FORM-12.
    doc = """
    initial: a
    states:
      a:
        on:
          sig: { event: svc.signal, match: { ref: r1 }, goto: done, into: { v: "{{ sig.value }}" } }
      done:
        accepts: { v: { type: string, required: true } }
        steps: [ { last: { svc.get: {} } } ]
        final: true
    outputs: { v: "{{ v }}", last: "{{ last.id }}" }
    """
    for final in finals(case(doc, events=[signal(1, 0, value="yes")])):
        assert final["result"] == {"v": "yes", "last": "done[0].last"}


def test_a_configuration_fault_fails_the_entry_before_on_enter():
    # WFS-TRANS-23/24: configuration reads the root scope only; a fault fails the entry first.
    doc = """
    initial: a
    states:
      a:
        on_enter: [ { ask: { svc.send: {} } } ]
        on:
          sig:
            event: svc.signal
            configuration: { size: "{{ inputs.n + 1 }}" }
            match: { ref: r1 }
            goto: done
      done: { final: true }
    inputs: { n: { type: json, default: x } }
    """
    for trace in traces(case(doc)):
        assert [e["event"] for e in trace[1:3]] == ["entry_failed", "run_finished"]
        assert trace[-1]["error"]["step"] == "a[0]"
        assert trace[-1]["steps"] == {}


def test_cancellation_of_a_waiting_entry_prevents_its_transition():
    # WFS-ENTRY-19: the request reaches the entry while it waits; no transition follows.
    value = case(WAITER, cancel=1, events=[signal(2, 0)])
    ends = {(f["outcome"], f["entries"][-1]["outcome"]) for f in finals(value) if f["entries"]}
    assert ("cancelled", "cancelled") in ends
    for trace in traces(value):
        if named(trace, "cancel_requested"):
            after = trace[trace.index(named(trace, "cancel_requested")[0]) :]
            assert not named(after, "entry_exited") and not named(after, "entry_started")


def test_wf_stop_in_an_entry_ends_the_run():
    # WFS-ENTRY-18.
    doc = """
    initial: a
    states:
      a:
        steps: [ { halt: { wf.stop: { reason: enough } } } ]
        goto: done
      done: { final: true }
    """
    for final in finals(case(doc)):
        assert final["outcome"] == "stopped"
        assert final["entries"] == [{"entry": "a[0]", "outcome": "stopped"}]


def test_a_dry_run_with_a_subscription_is_rejected():
    # WF-DRY-15: a subscription consumes live events; nothing simulates them.
    (final,) = finals(case(WAITER, dryRun=True))
    assert final["outcome"] == "rejected"
    assert final["error"] == {"code": "invocation.dry_run"}


def test_only_a_reachable_subscription_rejects_a_dry_run():
    # WF-DRY-15: "a dry-run invocation whose reachable definition requires such a source"
    # is rejected; z is reached by no transition, so its subscription is not part of it
    # (a stranger's executor ran this dry run and was reported divergent, A-133).
    unreachable = """
    initial: a
    states:
      a: { steps: [ { work: { svc.get: {} } } ], goto: done }
      z:
        on:
          sig: { event: svc.signal, match: { ref: r1 }, goto: done }
      done: { final: true }
    """
    assert {f["outcome"] for f in finals(case(unreachable, dryRun=True))} == {"completed"}
    # Reached through a route's case (no subject is evaluated): the dry run is rejected.
    routed = unreachable.replace(
        "goto: done }\n      z:",
        "route: '{{ inputs.x }}', cases: { one: { goto: z } }, else: { goto: done } }\n      z:",
    ).replace("initial: a", "inputs: { x: { type: string, default: two } }\n    initial: a")
    (final,) = finals(case(routed, dryRun=True))
    assert final["error"] == {"code": "invocation.dry_run"}
    # The rejection is WF-DRY-15's rule.
    run = prepare(case(routed, dryRun=True)).semantics
    (move,) = run.enabled(run.initial())
    assert move.clauses[0] == "WF-DRY-15", move.clauses


def test_an_affected_state_control_evaluation_is_an_implicit_dry_run_stop():
    # WFS-TRANS-9, WF-SCTL-3..7: after reads a suppressed write's binding.
    doc = """
    inputs: { x: { type: string, default: kept } }
    initial: a
    states:
      a:
        on_enter: [ { ask: { svc.send: {} } } ]
        timeout: { after: "{{ ask.delay }}", goto: done }
      done: { final: true }
    outputs: { x: "{{ inputs.x }}" }
    """
    for trace in traces(case(doc, dryRun=True)):
        assert named(trace, "dry_run_stopped") == [{"event": "dry_run_stopped", "entry": "a[0]"}]
        final = trace[-1]
        assert final["outcome"] == "stopped"
        assert final["reason"] == "Dry-run dependency suppressed."
        assert final["result"] == {"x": "kept"}


def test_quiet_fires_a_timer_due_now_and_leaves_a_later_one_waiting():
    # nothing more comes and no time passes.
    assert outcomes_by(case(TIMED.replace("after: 1s", "after: 0s"))) == {"timeout"}
    assert {f["outcome"] for f in finals(case(TIMED))} == {"waiting"}


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ([signal(2, 10), signal(3, 5)], "does not run backwards"),
        ([{"wait": 1, "at": -1}], "nonnegative"),
        ([{"wait": 1, "at": 0, "event": "svc.signal"}], "go together"),
    ],
)
def test_bad_stimuli_are_reported(events, message):
    with pytest.raises(InvalidCase, match=message):
        prepare(case(WAITER, events=events))


def test_events_are_refused_for_a_core_document():
    with pytest.raises(InvalidCase, match="state-form"):
        prepare(case("steps: [ { a: { svc.get: {} } } ]\n", events=[signal(1, 0)]))


def test_an_immediate_transition_follows_both_lists():
    # WFS-FORM-7, WFS-FORM-9: configuration, on_enter, steps, then the immediate goto.
    doc = """
    initial: a
    states:
      a:
        on_enter: [ { x: { svc.get: {} } } ]
        steps: [ { y: { svc.get: {} } } ]
        goto: done
      done: { final: true }
    """
    for trace in traces(case(doc)):
        names = [(e["event"], e.get("step")) for e in trace[:-1]]
        assert names.index(("step_finished", "a[0].x")) < names.index(("step_finished", "a[0].y"))
        assert names.index(("step_finished", "a[0].y")) < names.index(("entry_exited", None))
        assert named(trace, "entry_exited")[0]["by"] == "immediate"


FAILING = """
initial: a
states:
  a:
    steps: [ { x: { svc.get: {} } } ]
    on:
      sig: { event: svc.signal, match: { ref: r1 }, goto: done }
  done: { final: true }
"""


def test_a_failed_entry_step_fails_the_run_and_selects_no_transition():
    # WFS-FORM-8: "If either list fails … no transition is selected"; WFS-ENTRY-17:
    # the step's own failure policy applies first (A-151: then the run fails).
    failed = case(FAILING, attempts={"a.x": [{"error": "svc.boom"}]}, events=[signal(1, 0)])
    for trace in traces(failed):
        assert not named(trace, "entry_exited")
        assert trace[-1]["outcome"] == "failed"
        assert trace[-1]["error"] == {"code": "svc.boom", "step": "a[0].x"}
        assert trace[-1]["entries"] == [{"entry": "a[0]", "outcome": "failed"}]
    tolerated = FAILING.replace("x: { svc.get: {} }", "x: { svc.get: {}, on_fail: continue }")
    ended = finals(
        case(tolerated, attempts={"a.x": [{"error": "svc.boom"}]}, events=[signal(1, 0)])
    )
    assert {f["outcome"] for f in ended} == {"completed"}


def test_wf_fail_in_an_entry_fails_the_whole_run():
    # WFS-ENTRY-18: "wf.stop and wf.fail terminate the whole run".
    doc = FAILING.replace("x: { svc.get: {} }", "x: { wf.fail: { code: app.no, reason: nope } }")
    for final in finals(case(doc, events=[signal(1, 0)])):
        assert final["outcome"] == "failed"
        assert final["error"] == {"code": "app.no", "step": "a[0].x"}
        assert final["reason"] == "nope"


ROUTED = """
inputs: { n: { type: json, default: 1 } }
initial: a
states:
  a:
    on:
      sig:
        event: svc.signal
        match: { ref: r1 }
        route: "{{ sig.kind }}"
        cases: { x: { goto: yes } }
        else: { goto: no }
  yes: { final: true }
  no: { final: true }
"""


def test_a_route_selects_its_case_or_else():
    # WFS-TRANS-4: case selection follows wf.route.
    for kind, target in (("x", "yes[0]"), ("z", "no[0]")):
        for final in finals(case(ROUTED, events=[signal(1, 0, kind=kind)])):
            assert final["entries"][0]["to"] == target


def test_a_route_fault_fails_the_entry():
    # WFS-TRANS-8: "A route fault fails the state entry."
    doc = ROUTED.replace('route: "{{ sig.kind }}"', 'route: "{{ inputs.n.x.y }}"')
    for trace in traces(case(doc, events=[signal(1, 0, kind="x")])):
        (failed,) = named(trace, "entry_failed")
        assert failed["error"]["step"] == "a[0]"
        assert trace[-1]["outcome"] == "failed"
        assert len(named(trace, "entry_started")) == 1


def test_a_projection_fault_creates_no_target_entry():
    # WFS-ENTRY-16: "it MUST NOT create a partially initialized target entry".
    doc = INTO.replace("{{ sig.value }}", "{{ sig.value.x.y }}")
    for trace in traces(case(doc, events=[signal(1, 0, value="ok")])):
        assert named(trace, "entry_failed")[0]["error"]["step"] == "a[0]"
        assert len(named(trace, "entry_started")) == 1
        assert trace[-1]["entries"] == [{"entry": "a[0]", "outcome": "failed"}]


PENDING = """
initial: a
states:
  a:
    steps: [ { x: { svc.get: {} } } ]
    on:
      sig: { event: svc.signal, match: { ref: r1 }, goto: yes }
    timeout: { after: 1s, goto: no }
  yes: { final: true }
  no: { final: true }
"""


def test_the_timer_stays_pending_while_steps_run_and_the_earliest_wins():
    # WFS-TRANS-14: the deadline passes while steps runs; WFS-TRANS-36: then the first
    # eligible event or timeout by acceptance time and deadline selects.
    early = [signal(1, 500), {"wait": 2, "at": 2000}]
    late = [{"wait": 1, "at": 2000}, signal(2, 2000)]
    assert outcomes_by(case(PENDING, events=early)) == {"sig"}
    assert outcomes_by(case(PENDING, events=late)) == {"timeout"}


def test_a_dry_run_left_waiting_finishes_with_a_plain_event():
    # The stranger's finding: a dry run's finish, relabelled as waiting, nested its label
    # in the event (explore --json then failed on it).
    doc = "initial: a\nstates:\n  a: { timeout: { after: 1s, goto: done } }\n"
    doc += "  done: { final: true }\n"
    for trace in traces(case(doc, dryRun=True)):
        assert all(isinstance(event, dict) for event in trace)
        assert trace[-2] == {"event": "run_finished", "outcome": "waiting", "unknownEffects": []}


def test_a_final_states_outputs_faulting_in_several_entries_fail_with_any_code():
    # A-176 (WF-DONE-6, WFS-FORM-12): a final state's outputs are Core's outputs; when
    # several entries fault, any one's code fails the run.
    document = """
    initial: done
    states:
      done: { final: true }
    outputs:
      x: "{{ 1 / 0 }}"
      y: "{{ 'a' + 1 }}"
    """
    codes = sorted(f["error"]["code"] for f in finals(case(document)))
    assert codes == ["expression.division_by_zero", "expression.type"]


def test_an_implicit_dry_run_stops_outputs_faulting_in_several_entries_fail_with_any_code():
    # A-176 (WF-SCTL-3: "an output fault instead fails the run under Outputs", WF-DONE-6):
    # the implicit dry-run stop's outputs fault in two entries; either code fails the run.
    doc = """
    initial: a
    states:
      a:
        on_enter: [ { ask: { svc.send: {} } } ]
        timeout: { after: "{{ ask.delay }}", goto: done }
      done: { final: true }
    outputs:
      x: "{{ 1 / 0 }}"
      y: "{{ 'a' + 1 }}"
    """
    found = finals(case(doc, dryRun=True))
    assert sorted(f["error"]["code"] for f in found) == [
        "expression.division_by_zero",
        "expression.type",
    ]
    assert {f["outcome"] for f in found} == {"failed"}
