"""First clauses for bugs a stranger's Workfile executor (docs only) had, session 13.

Each test takes the model's trace of a small case, edits it as the
executor did, and asserts the clause the explanation names first is the
one quoted beside it (properties/workfile/blame.py).  Before these, the
explanation named another rule's clause first.
"""

from __future__ import annotations

import sys
from typing import Any

from tests.oracle.test_engine import judged_once
from tests.workfile.test_call import SUB
from tests.workfile.test_call import case as _case
from tests.workfile.test_run import NESTED_HANDLER
from wforacle.model.kernel.lts import execute
from wforacle.oracle.check import check
from wforacle.oracle.explain import by_rule
from wforacle.properties.workfile.specification import WORKFILE

JSON = Any


def _first(case: JSON, edit: Any, prefer: Any = None) -> str:
    """The first clause cited for the model's trace of ``case`` edited by ``edit``.

    ``prefer(events so far, event)``: take a transition whose event it accepts where
    one is enabled (an oracle's stimulus at a point the case needs), else the first.
    """
    semantics = WORKFILE.prepare(case, None).semantics
    if prefer is None:
        trace = edit(execute(semantics).trace)
    else:
        c, found = semantics.initial(), []
        while transitions := semantics.enabled(c):
            t = next((t for t in transitions if prefer(found, t.event)), transitions[0])
            found.append(t.event)
            c = t.target
        trace = edit(found)
    divergence = check(semantics, WORKFILE.key, trace).divergence
    assert divergence is not None
    return by_rule(WORKFILE, semantics, divergence, trace).clauses[0]


def _at(trace: list[JSON], name: str, step: str) -> int:
    return next(k for k, e in enumerate(trace) if e["event"] == name and e.get("step") == step)


def test_a_dry_run_suppressing_an_unaffected_read_breaks_dry_4():
    # WF-DRY-4: "an unaffected read action executes normally".
    case = _case("steps:\n  - r: { svc.get: {} }\n", {"dryRun": True})

    def suppressed(trace):
        k = _at(trace, "step_started", "r")
        return [*trace[:k], {"event": "step_finished", "step": "r", "outcome": "suppressed"}]

    assert _first(case, suppressed) == "WF-DRY-4"


def test_a_member_started_after_fail_fast_breaks_policy_15():
    # WF-POLICY-15: "Under fail_fast, the first failed scope fails the construct,
    # prevents unstarted iterations or branches from starting".
    document = """
    steps:
      - each:
          wf.for_each:
            items: [1, 2]
            steps:
              - a: { svc.send: {} }
    """
    case = _case(document, {"attempts": {"each[0].a": [{"error": "svc.fatal"}]}})

    def ran_on(trace):
        k = _at(trace, "step_finished", "each")
        return [*trace[:k], {"event": "step_started", "step": "each[1].a"}]

    assert _first(case, ran_on) == "WF-POLICY-15"


def test_a_handler_given_the_full_path_as_error_step_breaks_catch_8():
    # WF-CATCH-8: "error.step is the handled step's path relative to the scope containing
    # that step" (docs/workfile-execution.md's example: "a", not "each[1].a").
    case = _case(NESTED_HANDLER, {"attempts": {"each[1].a": [{"error": "svc.fatal"}]}})

    def full(trace):
        k = _at(trace, "attempt_started", "each[1].a.(catch).h")
        return [*trace[:k], {**trace[k], "input": {"at": "each[1].a"}}]

    assert _first(case, full) == "WF-CATCH-8"


def test_a_child_cancellation_not_offered_to_catch_breaks_catch_12():
    # WF-CATCH-12: "For wf.call, eligible failures are … independent child cancellation
    # (flow.child_cancelled)".  The executor failed the call instead.
    document = """
    steps:
      - c:
          wf.call: { workflow: sub, inputs: {} }
          catch:
            flow.child_cancelled:
              steps: [ { h: { svc.get: {} } } ]
              result: {}
    """
    case = _case(document, {"cancelChild": {"c": 1}}, sub=SUB)

    def failed(trace):
        k = _at(trace, "handler_started", "c")
        error = {"code": "flow.child_cancelled", "step": "c"}
        return [*trace[:k], {"event": "step_finished", "step": "c", "outcome": "failed",
                             "error": error}]  # fmt: skip

    def during_the_child(found, event):
        started = any(e.get("step") == "c.(run).a" for e in found)
        return started and event["event"] == "child_cancel_requested"

    assert _first(case, failed, during_the_child) == "WF-CATCH-12"


def test_a_branch_started_after_a_stop_breaks_iwc_3():
    # WF-IWC-3: under Internal Work Cancellation "a step that has not begun becomes
    # not_run" — the executor started branch b after wf.stop in branch a.
    document = """
    steps:
      - par:
          wf.parallel:
            branches:
              a:
                - st: { wf.stop: { reason: enough } }
              b:
                - x: { svc.get: {} }
    """
    case = _case(document)

    def started_late(trace):
        k = _at(trace, "step_finished", "par.a.st")
        return [*trace[: k + 1], {"event": "step_started", "step": "par.b.x"}]

    assert _first(case, started_late) == "WF-IWC-3"


def test_the_shrinker_drops_a_result_member_literalises_a_condition_and_an_empty_branch():
    # A stranger's shrunk cases kept a handler result {x, y} where {} showed the bug, an
    # until template where "{{ true }}" did, and an empty branch a: [].
    import yaml

    document = """
    steps:
      - c:
          svc.send: {}
          catch:
            svc.fatal:
              steps: [ { h: { svc.get: {} } } ]
              result: { x: "{{ error.code }}", y: null }
      - r:
          wf.repeat:
            until: "{{ c.x == null }}"
            max_iterations: 2
            steps: [ { g: { svc.get: {} } } ]
      - p:
          wf.parallel:
            branches:
              a: []
              b: [ { z: { svc.get: {} } } ]
    """
    case = _case(document)
    bodies = [yaml.safe_load(v["document"]) for v in WORKFILE.smaller(case)]

    def of(name, *keys):
        """Each variant's value at ``keys`` under step ``name``, where it has them."""
        found = []
        for doc in bodies:
            value = next((s[name] for s in doc.get("steps", []) if name in s), None)
            for key in keys:
                value = value.get(key) if isinstance(value, dict) else None
            if value is not None:
                found.append(value)
        return found

    results = of("c", "catch", "svc.fatal", "result")
    assert {"y": None} in results and {"x": "{{ error.code }}"} in results
    assert {"{{ true }}", "{{ false }}"} <= set(of("r", "wf.repeat", "until"))
    assert {"b": [{"z": {"svc.get": {}}}]} in of("p", "wf.parallel", "branches")


# A stranger's state-form executor (session 16): one entry whose on_enter writes.
BUSY_ENTRY = (
    "initial: a\nstates:\n  a:\n    on_enter:\n      - ask: { svc.send: {} }\n"
    "    'on':\n      sig:\n        event: svc.signal\n        match: { ref: r1 }\n"
    "        goto: done\n  done:\n    final: true\n"
)


def _during_the_attempt(found: list[JSON], event: JSON) -> bool:
    """A stimulus while a[0].ask's attempt is outstanding."""
    stimulus = event["event"] in ("event_accepted", "cancel_requested")
    return stimulus and bool(found) and found[-1]["event"] == "attempt_started"


def test_an_event_accepted_while_on_enter_runs_then_dropped_breaks_trans_27():
    # WFS-TRANS-27: "An implementation MUST retain a candidate event accepted after
    # activation while correlation evaluation or steps is in progress".  The executor
    # dropped it and went quiet; the explanation named WFS-FORM-9 (catalogue order).
    from wforacle.properties.strategies.workfile_states import STATE_MANIFEST

    event = {"wait": 1, "at": 0, "event": "svc.signal", "payload": {"ref": "r1"}}
    case = {"document": BUSY_ENTRY, "manifests": {"svc": STATE_MANIFEST},
            "scenario": {"events": [event]}, "schedule": []}  # fmt: skip

    def dropped(trace):
        k = next(k for k, e in enumerate(trace) if e["event"] == "entry_exited")
        return [*trace[:k], {"event": "quiet"}]

    assert _first(case, dropped, _during_the_attempt) == "WFS-TRANS-27"


def test_a_write_cancelled_in_flight_left_out_of_unknown_effects_breaks_term_8():
    # WF-TERM-8: terminal information "MUST identify every affected action attempt known at
    # termination, including attempts made uncertain by cancellation after dispatch".  The
    # explanation named WF-BIND-1 (the finish rule's first clause).
    from wforacle.properties.strategies.workfile_states import STATE_MANIFEST

    case = {"document": BUSY_ENTRY, "manifests": {"svc": STATE_MANIFEST},
            "scenario": {"cancel": 1}, "schedule": []}  # fmt: skip

    def forgotten(trace):
        assert trace[-1]["unknownEffects"]  # the model's: the write cancelled in flight
        return [*trace[:-1], {**trace[-1], "unknownEffects": []}]

    assert _first(case, forgotten, _during_the_attempt) == "WF-TERM-8"


def test_a_terminal_result_without_its_disposition_breaks_unk_3():
    # WF-UNK-3: "When a run terminates with flow.action_ambiguous, its terminal result
    # records whether the unresolved attempt applied abort or fail."  A stranger's
    # executor (session 20) left run_finished's disposition out under on_unknown: fail
    # with on_fail: abort; the explanation named WF-BIND-1 first.
    case = _case(
        "steps:\n  - w: { svc.put: {}, on_unknown: fail, on_fail: abort }\n",
        {"attempts": {"w": [{"error": "svc.lost"}]}},
    )

    def undisposed(trace):
        assert trace[-1].get("disposition") == "fail", trace[-1]
        return [*trace[:-1], {k: v for k, v in trace[-1].items() if k != "disposition"}]

    assert _first(case, undisposed) == "WF-UNK-3"


def _without_retry(trace):
    """The trace as an executor that ends the step at the first retry the model schedules."""
    k = next(k for k, e in enumerate(trace) if e["event"] == "retry_scheduled")
    step, finished = trace[k]["step"], trace[k - 1]
    error = {"code": finished["code"], "step": step}
    return [*trace[:k], {"event": "step_finished", "step": step, "outcome": "failed",
                         "error": error}]  # fmt: skip


def test_a_retryable_failure_not_retried_breaks_retry_10():
    # WF-RETRY-10: "Only a retryable failure with an unused attempt can be retried under
    # ordinary retry" (a stranger's executor used one attempt fewer; the explanation
    # named WF-RETRY-3, the delay formula, first).
    case = _case(
        "steps:\n  - a: { svc.get: {}, retry: { policy: fixed, initial: 1s, attempts: 2 } }\n",
        {"attempts": {"a": [{"error": "svc.busy"}, {"output": {"id": "x"}}]}},
    )
    assert _first(case, _without_retry) == "WF-RETRY-10"


def test_an_ambiguous_idempotent_attempt_not_reissued_breaks_amb_1():
    # WF-AMB-1: "the executor first reissues it within the unused effective attempt count
    # if the action declares idempotency: inherent or idempotency: keyed."
    case = _case(
        "steps:\n  - a: { svc.put: {}, on_unknown: fail, retry: { policy: none, attempts: 2 } }\n",
        {"attempts": {"a": [{"error": "svc.lost"}, {"output": {"id": "x"}}]}},
    )
    assert _first(case, _without_retry) == "WF-AMB-1"


def test_a_failure_propagated_past_on_fail_continue_breaks_policy_4():
    # WF-POLICY-4: "on_fail: continue leaves the step failed, binds it as null, and
    # continues with the next step" (a stranger's executor ended the run; the
    # explanation named WF-BIND-1 first).
    case = _case(
        "steps:\n  - a: { svc.get: {}, on_fail: continue }\n  - b: { svc.get: {} }\n",
        {"attempts": {"a": [{"error": "svc.fatal"}]}},
    )

    def propagated(trace):
        k = _at(trace, "step_finished", "a")
        error = trace[k]["error"]
        return [*trace[: k + 1], {"event": "run_finished", "outcome": "failed", "error": error,
                                  "unknownEffects": []}]  # fmt: skip

    assert _first(case, propagated) == "WF-POLICY-4"


def test_an_abort_disposition_continued_past_by_on_fail_breaks_unk_4():
    # WF-UNK-4: "Under abort, the action step and run fail directly with
    # flow.action_ambiguous; on_fail, catch … MUST NOT intercept that disposition".
    # CI (session 21): abort-caught's shrink reached on_fail: continue, not catch, and
    # the explanation named WF-BIND-1 (the finish rule's first clause) first.
    case = _case(
        "steps:\n  - a: { svc.send: {}, on_fail: continue }\n  - b: { svc.get: {} }\n",
        {"attempts": {"a": [{"error": "svc.lost"}]}},
    )

    def went_on(trace):
        k = _at(trace, "step_finished", "a")
        assert trace[k + 1]["disposition"] == "abort"  # the model ends the run here
        return [*trace[: k + 1], {"event": "step_started", "step": "b"}]

    def completed(trace):
        k = _at(trace, "step_finished", "a")
        return [*trace[: k + 1], {"event": "run_finished", "outcome": "completed",
                                  "result": {}, "unknownEffects": []}]  # fmt: skip

    assert _first(case, went_on) == "WF-UNK-4"
    assert _first(case, completed) == "WF-UNK-4"


def test_a_code_classified_by_a_prefix_over_its_exact_entry_breaks_code_1():
    # WF-CODE-1: "For manifest error classifications and catch handlers, an exact code
    # takes precedence over any matching pattern" (svc.rate.hard: fatal, svc.rate.*:
    # retryable; a stranger's executor took the prefix, the explanation named WF-STEP-9).
    hard = {"attempts": {"a": [{"error": "svc.rate.hard"}]}}
    case = _case("steps:\n  - a: { svc.get: {} }\n", hard)

    def by_prefix(trace):
        k = _at(trace, "attempt_finished", "a")
        return [*trace[:k], {**trace[k], "result": "retryable"}]

    assert _first(case, by_prefix) == "WF-CODE-1"


def test_an_event_the_oracle_recorded_where_the_model_acts_says_the_engine_waited():
    # The oracle records timer_fired when it answers a wait (the driver refuses one an
    # engine sends, below).  A stranger's executor that waited idle where the model has
    # it act was told it had *sent* quiet (session 23).
    case = _case("steps:\n  - t: { svc.get: {}, timeout: 1s }\n")
    semantics = WORKFILE.prepare(case, None).semantics
    trace = execute(semantics).trace
    k = _at(trace, "step_started", "t")
    answered = [*trace[: k + 1], {"event": "timer_fired", "step": "t"}]
    divergence = check(semantics, WORKFILE.key, answered).divergence
    message = by_rule(WORKFILE, semantics, divergence, answered).message
    assert "the engine waited here and the oracle answered the wait" in message, message


def test_an_event_the_oracle_records_sent_by_the_engine_is_a_protocol_fault(tmp_path):
    # A stranger's executor sent timer_fired itself (session 20): in the trace it passed
    # for the oracle's, and the divergence explained the engine as having waited.
    script = tmp_path / "engine.py"
    script.write_text(
        "import json, sys\n"
        "def send(m): print(json.dumps(m), flush=True)\n"
        'send({"type": "ready", "protocol": 1})\n'
        "for line in sys.stdin:\n"
        '    if json.loads(line).get("type") == "run":\n'
        '        send({"type": "event", "event": {"event": "timer_fired", "step": "t"}})\n'
    )
    case = _case("steps:\n  - t: { svc.get: {}, timeout: 1s }\n")
    judgement = judged_once(f"{sys.executable} {script}", WORKFILE, case)
    assert judgement.verdict == "fault", judgement.to_json()
    assert judgement.fault.kind == "protocol", judgement.fault
    assert "an event the oracle records itself" in judgement.fault.message


def test_the_shrinker_makes_a_call_an_action_that_fails():
    # A stranger's fail_fast case kept a wf.call with a wrongly typed input where any
    # failing step showed the bug (session 20): the call becomes an action of the case's
    # manifest scripted to fail with a code the manifest classifies fatal.
    import yaml

    case = _case(
        "steps:\n  - c: { wf.call: { workflow: sub, inputs: { n: x } }, on_fail: continue }\n",
        None,
        sub=SUB,
    )
    found = [
        (steps[0]["c"], v["scenario"].get("attempts", {}))
        for v in WORKFILE.smaller(case)
        if (steps := yaml.safe_load(v["document"]).get("steps") or [{}]) and "c" in steps[0]
    ]
    assert ({"svc.fetch": {}, "on_fail": "continue"}, {"c": [{"error": "svc.fatal"}]}) in found


def test_the_shrinker_puts_a_called_workflows_steps_in_place_of_the_call():
    # CI (session 21): a shrunk case kept a wf.call whose child's one step was what the
    # bug needed.  The call becomes the child's steps, c.(run).b's script b's.
    import yaml

    child = "steps:\n  - b: { svc.get: {}, on_fail: continue }\n"
    case = _case(
        "steps:\n  - c: { wf.call: { workflow: sub, inputs: {} } }\n",
        {"attempts": {"c.(run).b": [{"error": "svc.lost"}]}},
        sub=child,
    )
    found = [
        (yaml.safe_load(v["document"])["steps"], v["scenario"].get("attempts"))
        for v in WORKFILE.smaller(case)
    ]
    inlined = [{"b": {"svc.get": {}, "on_fail": "continue"}}]
    assert (inlined, {"b": [{"error": "svc.lost"}]}) in found
    # An id the child shares with a step beside the call: no such variant.
    clash = _case(
        "steps:\n  - b: { svc.get: {} }\n  - c: { wf.call: { workflow: sub, inputs: {} } }\n",
        None,
        sub=child,
    )
    assert not any(
        [s for s in yaml.safe_load(v["document"])["steps"] if "b" in s]
        == [{"b": {"svc.get": {}}}, inlined[0]]
        for v in WORKFILE.smaller(clash)
        if isinstance(yaml.safe_load(v["document"]), dict)
    )


def test_another_fault_code_for_a_faulting_expression_is_the_expression_languages():
    # A-117 (docs/workfile-expressions.md): a stranger's executor whose filter bound
    # loosely faulted with expression.syntax where the model's evaluation faults with
    # expression.type; WF-STEP-7 (both fault) was cited first.
    case = _case("steps:\n  - a: { svc.get: {}, when: '{{ \"a\" + 1 }}' }\n")

    def recoded(trace):
        k = _at(trace, "step_finished", "a")
        assert trace[k]["error"]["code"] == "expression.type"
        return [
            *trace[:k],
            {**trace[k], "error": {**trace[k]["error"], "code": "expression.syntax"}},
        ]

    assert _first(case, recoded) == "A-117"


def test_a_repeat_ended_before_its_first_iteration_breaks_supp_11():
    # WF-SUPP-11: "the adjacent until of wf.repeat is checked after each successful
    # iteration" (a stranger's executor checked it first and ran no iteration; the join
    # rule's WF-STEP-1 was cited first).
    case = _case(
        "steps:\n  - r:\n      wf.repeat:\n        steps: [ { b: { svc.get: {} } } ]\n"
        "        until: '{{ true }}'\n        max_iterations: 1\n"
    )

    def unrun(trace):
        k = _at(trace, "step_started", "r")
        return [*trace[: k + 1], {"event": "step_finished", "step": "r", "outcome": "succeeded"}]

    assert _first(case, unrun) == "WF-SUPP-11"


def test_a_guard_that_faults_where_the_model_skips_is_the_expression_languages():
    # "false and 0" is false (and/or short-circuit); a stranger's eager and/or
    # faulted on the number, and the skip rule's WF-STEP-2 was cited first.
    case = _case("steps:\n  - a: { svc.get: {}, when: '{{ false and 0 }}' }\n")

    def faulted(trace):
        k = _at(trace, "step_finished", "a")
        assert trace[k]["outcome"] == "skipped"
        error = {"code": "expression.type", "step": "a"}
        return [*trace[:k], {"event": "step_finished", "step": "a", "outcome": "failed",
                             "error": error}]  # fmt: skip

    assert _first(case, faulted) == "A-117"


def test_a_repeat_exhausted_with_another_code_breaks_a125():
    # after max_iterations with until false the step fails flow.repeat_exhausted
    # (the construct's section is not included).  A stranger's executor reported
    # flow.exhausted and was told WF-SUPP-11, a dry-run clause (session 23).
    case = _case("steps:\n  - r:\n      wf.repeat:\n        steps: []\n"
                 "        until: '{{ false }}'\n        max_iterations: 1\n")  # fmt: skip

    def recoded(trace):
        k = _at(trace, "step_finished", "r")
        return [*trace[:k], {**trace[k], "error": {**trace[k]["error"], "code": "flow.exhausted"}}]

    assert _first(case, recoded) == "A-125"


def test_a_handler_cancelled_by_a_late_expiry_cites_a141_first():
    # a call's timeout bounds its nested work, not the catch handler that runs
    # after it (WF-CATCH-21: handler work "is outside the expired operation deadline"); an
    # expiry then is late (WF-LATE-2).  A stranger's executor cancelled the handler and
    # was told WF-STEP-9 (session 23).
    document = (
        "steps:\n  - c:\n      wf.call: { workflow: sub, inputs: {} }\n"
        "      catch:\n        svc.*:\n          steps: [ { h: { svc.get: {} } } ]\n"
        "          result: {}\n      timeout: 5s\n"
    )
    scenario = {"attempts": {"c.(run).a": [{"error": "svc.fatal"}]}, "expire": {"c": 2}}
    case = _case(document, scenario, sub="steps:\n  - a: { svc.send: {} }\n")

    def fired_in_handler(found, event):  # the expiry once h has started, not before
        started = any(e.get("step") == "c.(catch).h" for e in found)
        return (event["event"] == "timer_fired") == started

    def cancelled(trace):
        k = next(k for k, e in enumerate(trace) if e["event"] == "timer_fired")
        return [*trace[: k + 1], {"event": "step_finished", "step": "c.(catch).h",
                                  "outcome": "cancelled"}]  # fmt: skip

    assert _first(case, cancelled, prefer=fired_in_handler) == "A-141"


def test_a_replacement_result_the_contract_refuses_kept_breaks_catch_23():
    # WF-CATCH-23: the replacement "MUST … satisfy the handled operation's output
    # contract" — a call's result is an object.  A stranger's executor kept a string and
    # was told WF-BIND-5 (session 23).
    document = (
        "steps:\n  - c:\n      wf.call: { workflow: sub, inputs: {} }\n"
        "      catch:\n        app.refused:\n          steps: []\n"
        "          result: '{{ error.code }}'\n"
    )
    sub = "steps:\n  - f: { wf.fail: { code: app.refused, reason: 'no' } }\n"
    case = _case(document, {}, sub=sub)

    def kept(trace):
        k = _at(trace, "step_finished", "c")
        return [*trace[:k], {"event": "step_finished", "step": "c", "outcome": "succeeded",
                             "value": "app.refused"}]  # fmt: skip

    assert _first(case, kept) == "WF-CATCH-23"


def test_a_timed_out_action_without_a_manifest_taken_for_a_read_cites_a126_first():
    # an action without a manifest counts as a write, so its timed-out attempt is
    # unknown, not retryable as a read's.  An engine that ran it as a read was told
    # WF-CLASS-7 only (the dry-run case of the same bug: wf-lite's no-manifest-read).
    case = {"document": "steps:\n  - a: { svc.send: {}, timeout: 1s }\n",
            "scenario": {"attempts": {"a": [{"timeout": True}]}}}  # fmt: skip

    def as_read(trace):
        k = _at(trace, "attempt_finished", "a")
        return [*trace[:k], {**trace[k], "result": "retryable"}]

    assert _first(case, as_read) == "A-126"
    manifested = _case(case["document"], case["scenario"])
    assert _first(manifested, as_read) == "WF-CLASS-7"


def _skip_child_finished(trace):
    """The trace up to the call's child_finished, the call's step_finished in its place."""
    k = _at(trace, "child_finished", "c")
    error = trace[k].get("error") or {"code": "flow.child_cancelled", "step": "c"}
    return [*trace[:k], {"event": "step_finished", "step": "c", "outcome": "failed",
                         "error": error}]  # fmt: skip


def test_a_call_ended_without_its_childs_end_cites_the_rule_of_that_end():
    # A stranger's executor (session 24) ended the call without child_finished and was told
    # WF-STEP-13: after the child's own cancellation it is WF-CANCEL-15 ("child
    # cancellation supplies a flow.child_cancelled failure"); after a child step's
    # on_fail: abort, WF-POLICY-3 ("fails the run directly": the child's run).
    document = "steps:\n  - c: { wf.call: { workflow: sub, inputs: {} } }\n"
    cancelled = _case(document, {"cancelChild": {"c": 1}}, sub="steps:\n  - a: { svc.get: {} }\n")

    def at_once(found, event):  # the child's cancellation once its step has started
        started = any(e.get("step") == "c.(run).a" for e in found)
        return (event["event"] == "child_cancel_requested") == started

    assert _first(cancelled, _skip_child_finished, prefer=at_once) == "WF-CANCEL-15"
    sub = "steps:\n  - g: { svc.get: {}, on_fail: abort }\n"
    aborted = _case(document, {"attempts": {"c.(run).g": [{"error": "svc.fatal"}]}}, sub=sub)
    assert _first(aborted, _skip_child_finished) == "WF-POLICY-3"


def test_a_server_delay_taken_or_left_against_honor_retry_after_cites_retry_7_or_6():
    # WF-RETRY-7: "Otherwise the computed delay applies" (a stranger's executor used the
    # server's delay without honor_retry_after and was told WF-RETRY-3, session 24);
    # WF-RETRY-6: with it, the server's delay "replaces the computed delay".
    def case(honor):
        retry = f"{{ policy: fixed, initial: 100ms, attempts: 2{', honor_retry_after: true' if honor else ''} }}"  # noqa: E501
        document = f"steps:\n  - s: {{ svc.get: {{}}, retry: {retry} }}\n"
        scenario = {"attempts": {"s": [{"error": "svc.busy", "retryAfterMs": 40}]}}
        return _case(document, scenario)

    def delayed(ms):
        def edit(trace):
            k = _at(trace, "retry_scheduled", "s")
            return [*trace[:k], {**trace[k], "delayMs": ms}]

        return edit

    assert _first(case(False), delayed(40)) == "WF-RETRY-7"
    assert _first(case(True), delayed(100)) == "WF-RETRY-6"
