"""The Workfile Core execution model, rule by rule (model/workfile/run.py).

Each test states its expectation from the chapter's text
(../shared/specs/workfile-core-execution-semantics.txt), quoted next to it,
and the connector table below; none is produced by the model.  The
manifest ``MANIFEST`` (properties/strategies/workfile_runs.py) declares:

| action | effects | idempotency | output |
| --- | --- | --- | --- |
| svc.get | read | inherent | — |
| svc.put | write | keyed | — |
| svc.send | write | none | — |
| svc.fetch | read | none | object |

classifying svc.busy, svc.rate.* and http.5xx retryable; svc.fatal and
svc.rate.hard fatal; svc.lost unknown (ambiguous).  Other codes are not
covered: fatal (A-119).
"""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from wforacle.model.kernel.explore import explore
from wforacle.model.kernel.lts import execute
from wforacle.model.workfile.run import ModelLimit, delay_ms
from wforacle.properties.strategies.workfile_runs import MANIFEST
from wforacle.properties.workfile.execution import outcome, prepare

JSON = Any


def case(document: str, scenario: JSON | None = None) -> JSON:
    return {
        "document": textwrap.dedent(document),
        "manifests": {"svc": MANIFEST},
        "scenario": scenario or {},
        "schedule": [],
    }


def trace(document: str, scenario: JSON | None = None) -> list[JSON]:
    """The events of the run the model takes first (the specification's own order)."""
    run = prepare(case(document, scenario)).semantics
    return execute(run).trace


def outcomes(document: str, scenario: JSON | None = None) -> list[JSON]:
    """Every final state the model permits."""
    run = prepare(case(document, scenario)).semantics
    found = explore(run, lambda c: outcome(run, c), lambda c: c.key, 200_000)
    assert found.complete
    return [o.value for o in found.outcomes]


def only(document: str, scenario: JSON | None = None) -> JSON:
    found = outcomes(document, scenario)
    assert len(found) == 1, found
    return found[0]


def events(found: list[JSON], name: str, step: str | None = None) -> list[JSON]:
    return [e for e in found if e["event"] == name and (step is None or e.get("step") == step)]


def last(found: list[JSON]) -> JSON:
    assert found[-1]["event"] == "run_finished"
    return found[-1]


ONE = """
steps:
  - a: { svc.send: { k: 1 } }
"""


# -- Starting a Run ------------------------------------------------------------------


def test_inputs_are_validated_before_the_run_begins():
    # WF-START-4: "Caller, deployment, and trigger values MUST be validated
    # before they become bindings"; WF-START-5: "no run begins".
    document = """
    inputs:
      n: { type: integer, required: true }
    steps:
      - a: { svc.send: { n: "{{ inputs.n }}" } }
    """
    assert trace(document) == [
        {"event": "run_rejected", "error": {"code": "input.required", "input": "n"}}
    ]
    assert trace(document, {"inputs": {"n": "x"}})[0]["error"]["code"] == "input.type"
    assert trace(document, {"inputs": {"n": 1, "m": 2}})[0]["error"]["code"] == "input.unknown"
    started = trace(document, {"inputs": {"n": 3}})
    assert started[0] == {"event": "run_started", "inputs": {"n": 3}}
    assert events(started, "attempt_started")[0]["input"] == {"n": 3}


def test_defaults_are_established_before_the_first_step():
    # WF-START-2: "Before evaluating the first step, the executor establishes …
    # validated inputs".
    document = """
    inputs:
      n: { type: integer, default: 5 }
    steps:
      - a: { svc.send: { n: "{{ inputs.n }}" } }
    """
    found = trace(document)
    assert found[0] == {"event": "run_started", "inputs": {"n": 5}}
    assert events(found, "attempt_started")[0]["input"] == {"n": 5}


# -- Step Evaluation ---------------------------------------------------------------------


def test_steps_run_in_declaration_order_and_bindings_reach_later_steps():
    # WF-STEP-1: "evaluate a step list in declaration order"; WF-STEP-10: a
    # binding "is visible only to later steps in that scope".
    document = """
    steps:
      - a: { svc.get: {} }
      - b: { svc.send: { ref: "{{ a.id }}" } }
    """
    found = trace(document, {"attempts": {"a": [{"output": {"id": "A7"}}]}})
    started = [e["step"] for e in events(found, "step_started")]
    assert started == ["a", "b"]
    assert events(found, "attempt_started", "b")[0]["input"] == {"ref": "A7"}


def test_an_action_receives_the_complete_argument_map_with_explicit_nulls():
    # WF-STEP-8: "including an explicitly supplied null".
    found = trace("steps:\n  - a: { svc.send: { k: 1, none: null } }\n")
    assert events(found, "attempt_started")[0]["input"] == {"k": 1, "none": None}


def test_a_false_guard_skips_the_step_and_its_reference_reads_null():
    # WF-STEP-2 "skips the step if the guard is false"; WF-BIND-1: a reference to a
    # skipped value-producing step "resolves to null"; WF-BIND-2 member access
    # continues through that null.
    document = """
    steps:
      - a: { svc.get: {}, when: "{{ false }}" }
      - b: { svc.send: { ref: "{{ a.id }}" } }
    """
    found = trace(document)
    assert events(found, "step_finished", "a") == [
        {"event": "step_finished", "step": "a", "outcome": "skipped"}
    ]
    assert not events(found, "step_started", "a") and not events(found, "attempt_started", "a")
    assert events(found, "attempt_started", "b")[0]["input"] == {"ref": None}


def test_a_guard_fault_begins_no_operation_and_is_not_offered_to_catch():
    # WF-STEP-7 "No operation begins if guard or argument evaluation faults";
    # WF-CATCH-15 "Faults in the handled step's own evaluation, including
    # guards … are not eligible for its handler".
    document = """
    steps:
      - a:
          svc.send: { k: 1 }
          when: "{{ 1 }}"
          catch:
            expression.*: { steps: [ { h: { svc.get: {} } } ] }
    """
    found = trace(document)
    assert not events(found, "attempt_started") and not events(found, "handler_started")
    assert events(found, "step_finished", "a")[0]["error"]["code"] == "expression.type"
    assert last(found)["outcome"] == "failed"


def test_an_argument_fault_fails_the_step_before_any_attempt():
    # WF-STEP-7, and WF-POLICY-4: on_fail: continue "binds it as null, and continues";
    # WF-BIND-5: "A failed or unexecuted step creates no successful value assignment."
    document = """
    steps:
      - a: { svc.send: { k: "{{ 1 / 0 }}" }, on_fail: continue }
      - b: { svc.send: { ref: "{{ a.id }}" } }
    """
    found = trace(document)
    assert [e["step"] for e in events(found, "attempt_started")] == ["b"]
    assert events(found, "attempt_started", "b")[0]["input"] == {"ref": None}
    assert last(found)["outcome"] == "completed"


# -- Effective Retry Policy -----------------------------------------------------------------

RETRY = """
steps:
  - a:
      svc.send: {{ k: 1 }}
      retry: {retry}
"""


def delays(retry: str, results: list[JSON]) -> list[int]:
    found = trace(RETRY.format(retry=retry), {"attempts": {"a": results}})
    return [e["delayMs"] for e in events(found, "retry_scheduled")]


BUSY = {"error": "svc.busy"}


def test_retry_delays_none_fixed_and_exponential():
    # WF-RETRY-3: "zero for none, initial for fixed, and initial * 2^(n - 1) for
    # exponential", n counting the first retry as 1.
    assert delays("{ policy: none, attempts: 3 }", [BUSY]) == [0, 0]
    assert delays("{ policy: fixed, initial: 1s, attempts: 3 }", [BUSY]) == [1000, 1000]
    assert delays("{ policy: exponential, initial: 1s, attempts: 4 }", [BUSY]) == [
        1000,
        2000,
        4000,
    ]


def test_max_caps_computed_and_server_supplied_delays():
    # WF-RETRY-4: "every selected retry delay is capped at max, whether the delay
    # is computed or supplied by a server"; WF-RETRY-6: honor_retry_after
    # "replaces the computed delay before the cap is applied".
    assert delays("{ policy: exponential, initial: 1s, max: 3s, attempts: 4 }", [BUSY]) == [
        1000,
        2000,
        3000,
    ]
    server = {"error": "svc.busy", "retryAfterMs": 10_000}
    honored = "{ policy: fixed, initial: 1s, max: 3s, attempts: 2, honor_retry_after: true }"
    assert delays(honored, [server]) == [3000]
    uncapped = "{ policy: fixed, initial: 1s, attempts: 2, honor_retry_after: true }"
    assert delays(uncapped, [{"error": "svc.busy", "retryAfterMs": 500}]) == [500]
    # WF-RETRY-7: "Otherwise the computed delay applies."
    assert delays("{ policy: fixed, initial: 1s, attempts: 2 }", [server]) == [1000]


def test_a_computed_delay_that_overflows_yields_max():
    # WF-RETRY-5: "Arithmetic overflow in a computed delay yields max".
    retry = "{ policy: exponential, initial: 1s, max: 5s, attempts: 2 }"
    step = prepare(case(RETRY.format(retry=retry))).semantics.steps["a"]
    assert delay_ms(step, 80, None) == 5000  # 1000 * 2^79 ms overflows 2^63 - 1
    assert delay_ms(step, 2, None) == 2000


def test_only_a_retryable_failure_with_an_unused_attempt_is_retried():
    # WF-RETRY-10/11: "A fatal failure … MUST NOT be retried."  WF-CLASS-2 retryable:
    # "another attempt can be made"; WF-CLASS-3 fatal: "MUST NOT be made".
    retry = "{ policy: none, attempts: 3 }"
    assert delays(retry, [{"error": "svc.fatal"}]) == []
    assert delays(retry, [{"error": "svc.rate.hard"}]) == []  # exact fatal beats svc.rate.*
    assert delays(retry, [{"error": "svc.other"}]) == []  # uncovered: fatal
    assert delays(retry, [{"error": "svc.rate.limit"}]) == [0, 0]  # the prefix: retryable
    assert delays(retry, [{"error": "http.503"}]) == [0, 0]  # http.5xx: retryable
    found = trace(RETRY.format(retry=retry), {"attempts": {"a": [BUSY]}})
    assert len(events(found, "attempt_started")) == 3  # the effective attempt count
    assert events(found, "step_finished", "a")[0]["error"] == {"code": "svc.busy", "step": "a"}


# -- Core Ambiguity Disposition and on_unknown -------------------------------------------------

LOST = {"error": "svc.lost", "details": {"request": 7}}


def test_an_ambiguous_write_without_idempotency_is_not_reissued_and_aborts_the_run():
    # WF-AMB-4: "For idempotency: none … the executor applies the action step's
    # on_unknown policy"; WF-UNK-1 "defaults to abort"; WF-UNK-4 "on_fail, catch,
    # on_iteration_fail … MUST NOT intercept that disposition".  WF-CLASS-4: unknown
    # is ambiguous; WF-RETRY-12: it goes to the ambiguity disposition, not to retry.
    document = """
    steps:
      - each:
          wf.for_each:
            items: [1]
            on_iteration_fail: continue
            steps:
              - a:
                  svc.send: { k: 1 }
                  retry: { policy: none, attempts: 3 }
                  on_fail: continue
                  catch:
                    flow.action_ambiguous: { steps: [ { h: { svc.get: {} } } ] }
      - later: { svc.get: {} }
    """
    found = trace(document, {"attempts": {"each.a": [LOST]}})
    assert len(events(found, "attempt_started")) == 1
    assert not events(found, "handler_started") and not events(found, "step_started", "later")
    end = last(found)
    assert end["outcome"] == "failed" and end["disposition"] == "abort"
    assert end["error"] == {"code": "flow.action_ambiguous", "step": "each[0].a"}
    # WF-UNK-8: "The unresolved attempt remains effect: unknown … in the terminal information".
    assert end["unknownEffects"] == [
        {
            "step": "each[0].a",
            "attempt": 1,
            "effect": "unknown",
            "code": "svc.lost",
            "details": {"request": 7},
        }
    ]


def test_an_idempotent_ambiguous_attempt_is_reissued_within_the_attempt_count():
    # WF-AMB-1: "reissues it within the unused effective attempt count if the
    # action declares idempotency: inherent or … keyed"; WF-AMB-2 "the ordinary
    # retry delay"; WF-AMB-3 it "does not add an attempt".
    document = """
    steps:
      - a:
          svc.put: { k: 1 }
          retry: { policy: fixed, initial: 2s, attempts: 2 }
    """
    found = trace(document, {"attempts": {"a": [LOST, {"output": {"id": "ok"}}]}})
    assert events(found, "retry_scheduled") == [
        {"event": "retry_scheduled", "step": "a", "attempt": 2, "delayMs": 2000}
    ]
    assert last(found)["outcome"] == "completed"
    assert last(found)["unknownEffects"] == []  # the reissue resolved it
    single = trace(document.replace("attempts: 2", "attempts: 1"), {"attempts": {"a": [LOST]}})
    assert len(events(single, "attempt_started")) == 1
    assert last(single)["disposition"] == "abort"


def test_on_unknown_fail_offers_the_ambiguity_to_catch_and_keeps_the_effect_unknown():
    # WF-UNK-7 "Under fail, the action step becomes failed with
    # flow.action_ambiguous … and follows ordinary … policy, including … catch";
    # WF-CATCH-10 "flow.action_ambiguous is the exact code offered";
    # WF-UNK-8 "regardless of whether a later handler supplies a replacement result".
    document = """
    steps:
      - a:
          svc.send: { k: 1 }
          on_unknown: fail
          catch:
            flow.action_ambiguous:
              steps: [ { h: { svc.get: { code: "{{ error.code }}", at: "{{ error.step }}" } } } ]
              result: { replaced: true }
    """
    found = trace(document, {"attempts": {"a": [{"error": "svc.lost"}]}})
    assert events(found, "handler_started") == [
        {
            "event": "handler_started",
            "step": "a",
            "pattern": "flow.action_ambiguous",
            "code": "flow.action_ambiguous",
        }
    ]
    assert events(found, "attempt_started", "a.(catch).h")[0]["input"] == {
        "code": "flow.action_ambiguous",
        "at": "a",
    }
    assert events(found, "step_finished", "a")[0]["value"] == {"replaced": True}
    end = last(found)
    assert end["outcome"] == "completed"
    assert end["unknownEffects"] == [
        {"step": "a", "attempt": 1, "effect": "unknown", "code": "svc.lost"}
    ]


def test_an_ambiguous_read_is_no_unresolved_write_effect():
    # WF-TERM-8: "dispatched write effects unresolved".
    found = trace("steps:\n  - a: { svc.fetch: {} }\n", {"attempts": {"a": [LOST]}})
    assert last(found)["unknownEffects"] == []


# -- catch -----------------------------------------------------------------------------------


def handled(patterns: list[str], code: str) -> str | None:
    handlers = "\n".join(
        f"        {p}: {{ steps: [ {{ h{k}: {{ svc.get: {{}} }} }} ] }}"
        for k, p in enumerate(patterns)
    )
    document = f"steps:\n  - a:\n      svc.send: {{ k: 1 }}\n      catch:\n{handlers}\n"
    found = trace(document, {"attempts": {"a": [{"error": code}]}})
    chosen = events(found, "handler_started")
    return chosen[0]["pattern"] if chosen else None


def test_catch_precedence_exact_then_longest_prefix_then_http_status():
    # WF-CODE-1/2: "an exact code takes precedence over any matching pattern.  The
    # longest matching prefix takes precedence over a shorter one, and a prefix
    # pattern takes precedence over an HTTP-status pattern."
    assert handled(["svc.*", "svc.rate.*"], "svc.rate.limit") == "svc.rate.*"
    assert handled(["svc.rate.*", "svc.rate.limit"], "svc.rate.limit") == "svc.rate.limit"
    assert handled(["http.5xx", "http.*"], "http.503") == "http.*"
    assert handled(["http.4xx"], "http.503") is None


def test_a_failing_handler_leaves_the_original_failure_active():
    # WF-CATCH-26: "If the handler fails or faults, the original failure and code
    # remain active and ordinary failure policy continues".  WF-STEP-5: retry and
    # failure policy come before the outcome.
    document = """
    steps:
      - a:
          svc.send: { k: 1 }
          catch:
            svc.fatal: { steps: [ { h: { svc.send: {} } } ] }
    """
    found = trace(document, {"attempts": {"a": [{"error": "svc.fatal"}], "a.(catch).h": [BUSY]}})
    assert events(found, "step_finished", "a")[0]["error"] == {"code": "svc.fatal", "step": "a"}
    assert last(found)["error"] == {"code": "svc.fatal", "step": "a"}


def test_a_replacement_result_must_satisfy_the_output_contract():
    # WF-CATCH-23: the replacement "MUST … satisfy the handled operation's output
    # contract at runtime" (svc.fetch declares an object; A-122).
    document = """
    steps:
      - a:
          svc.fetch: {}
          catch:
            svc.fatal: { steps: [ { h: { svc.get: {} } } ], result: "{{ RESULT }}" }
    """
    good = trace(
        document.replace("{{ RESULT }}", "{{ h }}"), {"attempts": {"a": [{"error": "svc.fatal"}]}}
    )
    assert last(good)["outcome"] == "completed"
    bad = trace(
        document.replace("{{ RESULT }}", "text"), {"attempts": {"a": [{"error": "svc.fatal"}]}}
    )
    assert last(bad)["error"] == {"code": "svc.fatal", "step": "a"}


# -- Failure Policy Precedence ---------------------------------------------------------------


def test_on_fail_abort_fails_the_run_directly_past_a_continue_policy():
    # WF-POLICY-3: "on_fail: abort fails the run directly and bypasses enclosing
    # failure policy".
    document = """
    steps:
      - each:
          wf.for_each:
            items: [1, 2]
            on_iteration_fail: continue
            steps:
              - a: { svc.send: {}, on_fail: abort }
    """
    found = outcomes(document, {"attempts": {"each[0].a": [{"error": "svc.fatal"}]}})
    for final in found:  # iteration 1 may have run first, never after
        assert final["outcome"] == "failed"
        assert final["error"] == {"code": "svc.fatal", "step": "each[0].a"}
        assert final["steps"]["each"] == "failed"
    assert any("each[1].a" not in final["steps"] for final in found)


def test_fail_fast_fails_the_construct_with_the_innermost_failure_and_starts_nothing_more():
    # WF-POLICY-9: "A construct failed by a nested failure carries the code and step
    # path of the innermost unhandled failure"; WF-POLICY-15: fail_fast "prevents
    # unstarted iterations … from starting"; WF-POLICY-13: "later siblings … are not_run".
    document = """
    steps:
      - each:
          wf.for_each:
            items: [1, 2, 3]
            steps:
              - a: { svc.send: { i: "{{ item }}" } }
      - after: { svc.get: {} }
    """
    found = outcomes(document, {"attempts": {"each[0].a": [{"error": "svc.fatal"}]}})
    for final in found:
        # Iterations that started before the failure ran (A-127: any order); none
        # starts after it, and "after" never begins.
        assert final["error"] == {"code": "svc.fatal", "step": "each[0].a"}
        assert final["steps"]["each"] == "failed" and "after" not in final["steps"]
    assert {"each": "failed", "each[0].a": "failed"} in [f["steps"] for f in found]


def test_continue_lets_every_iteration_finish_and_the_construct_succeeds():
    # WF-POLICY-16: "the construct succeeds after all finish".
    document = """
    steps:
      - each:
          wf.for_each:
            items: [1, 2, 3]
            on_iteration_fail: continue
            steps:
              - a: { svc.send: { i: "{{ item }}" } }
    """
    final = only(document, {"attempts": {"each[1].a": [{"error": "svc.fatal"}]}})
    assert final["outcome"] == "completed"
    assert final["steps"] == {
        "each": "succeeded",
        "each[0].a": "succeeded",
        "each[1].a": "failed",
        "each[2].a": "succeeded",
    }


# docs/workfile-execution.md's example: a handler of a step nested in a for_each.
NESTED_HANDLER = """
steps:
  - each:
      wf.for_each:
        items: [1, 2]
        steps:
          - a:
              svc.send: {}
              catch:
                svc.fatal:
                  steps: [ { h: { svc.get: { at: "{{ error.step }}" } } } ]
"""


def test_a_handlers_error_step_is_relative_to_the_scope_containing_the_handled_step():
    # WF-CATCH-8: "error.step is the handled step's path relative to the scope
    # containing that step": inside iteration each[1], the handled step is "a"; the
    # events name it by its run-time path (docs/workfile-execution.md's example).
    found = trace(NESTED_HANDLER, {"attempts": {"each[1].a": [{"error": "svc.fatal"}]}})
    assert [e["step"] for e in events(found, "handler_started")] == ["each[1].a"]
    assert events(found, "attempt_started", "each[1].a.(catch).h")[0]["input"] == {"at": "a"}


def test_a_retained_failed_scope_says_which_step_failed_relative_to_it():
    # WF-POLICY-14: "In a retained failed scope, error.step is the innermost
    # unhandled failure's step path relative to that iteration or branch scope."
    document = """
    steps:
      - each:
          wf.for_each:
            items: [1, 2]
            on_iteration_fail: continue
            steps:
              - a: { svc.send: {} }
    outputs:
      ok: "{{ each[0] }}"
      failed: "{{ each[1] }}"
    """
    final = only(document, {"attempts": {"each[1].a": [{"error": "svc.fatal"}]}})
    assert final["result"] == {
        "ok": {"a": {"id": "each[0].a"}},
        "failed": {"a": None, "error": {"code": "svc.fatal", "step": "a"}},
    }


def test_fail_fast_cancels_a_sibling_that_began_and_not_one_that_did_not():
    # WF-SCHED-6..8: "A sibling that began and was stopped is cancelled; one that had
    # not begun is not_run.  Both are permitted where the language establishes no
    # start order." (WF-SOUT-7 cancelled "had begun"; WF-SOUT-8 not_run "never began")
    document = """
    steps:
      - par:
          wf.parallel:
            branches:
              a: [ { x: { svc.send: {} } } ]
              b: [ { y: { svc.send: {} } }, { z: { svc.get: {} } } ]
    """
    found = outcomes(document, {"attempts": {"par.a.x": [{"error": "svc.fatal"}]}})
    seen = {
        tuple(sorted((k, v) for k, v in f["steps"].items() if k.startswith("par.b"))) for f in found
    }
    assert (("par.b.y", "cancelled"),) in seen  # y had begun
    assert () in seen  # b had not begun
    assert (("par.b.y", "succeeded"), ("par.b.z", "cancelled")) in seen
    # WF-TERM-8 / WF-CANCEL-13: a write cancelled after dispatch leaves its effect unknown.
    effect = {"step": "par.b.y", "attempt": 1, "effect": "unknown"}
    assert any(effect in f["unknownEffects"] for f in found)
    for final in found:
        assert final["outcome"] == "failed" and final["steps"]["par"] == "failed"
        if effect in final["unknownEffects"]:
            assert final["steps"]["par.b.y"] == "cancelled"


# -- wf.stop, wf.fail, Core Cancellation ----------------------------------------------------------


def test_wf_stop_stops_its_containment_chain_and_cancels_other_active_work():
    # WF-IWC-4: "An enclosing construct on the active containment chain from a
    # wf.stop step through the root step list becomes stopped"; WF-IWC-3 others
    # become cancelled; WF-ROUT-2 the result is the "Accepted stop result".
    document = """
    steps:
      - par:
          wf.parallel:
            branches:
              a: [ { done: { wf.stop: { reason: enough, result: { n: 1 } } } } ]
              b: [ { y: { svc.get: {} } } ]
    outputs:
      never: "{{ 1 / 0 }}"
    """
    for final in outcomes(document):
        assert final["outcome"] == "stopped"
        assert final["result"] == {"n": 1} and final["reason"] == "enough"
        assert final["steps"]["par"] == "stopped" and final["steps"]["par.a.done"] == "stopped"
        assert final["steps"].get("par.b.y") in (None, "cancelled", "succeeded")


def test_wf_fail_fails_the_run_and_cancels_its_enclosing_constructs():
    # WF-IWC-5: "An enclosing construct that cannot complete because wf.fail
    # terminated the run becomes cancelled as a step"; WF-ROUT-5 code and reason.
    document = """
    steps:
      - each:
          wf.for_each:
            items: [1]
            on_iteration_fail: continue
            steps:
              - no: { wf.fail: { code: app.refused, reason: nope } }
    """
    final = only(document)
    assert final["outcome"] == "failed" and final["reason"] == "nope"
    assert final["error"] == {"code": "app.refused", "step": "each[0].no"}
    assert final["steps"] == {"each": "cancelled", "each[0].no": "failed"}


def orders(document: str, scenario: JSON | None = None) -> list[list[tuple[str, str]]]:
    """Every trace the model permits, as its step_finished events' (step, outcome)."""
    run = prepare(case(document, scenario)).semantics
    found: list[list[tuple[str, str]]] = []

    def walk(config: Any, finished: list[tuple[str, str]]) -> None:
        moves = run.enabled(config)
        if not moves:
            found.append(finished)
        for t in moves:
            e = t.event
            more = [(e["step"], e["outcome"])] if e["event"] == "step_finished" else []
            walk(t.target, finished + more)

    walk(run.initial(), [])
    return found


BEGINS_CANCELLATION = {
    # wf.stop (WF-IWC-4), wf.fail (WF-IWC-5), on_fail: abort (WF-POLICY-3), fail_fast.
    "stop": ("done: { wf.stop: { reason: enough } }", {}),
    "fail": ("done: { wf.fail: { code: app.no } }", {}),
    "abort": (
        "done: { svc.get: {}, on_fail: abort }",
        {"attempts": {"par.a.done": [{"error": "svc.fatal"}]}},
    ),
    "fail_fast": ("done: { svc.get: {} }", {"attempts": {"par.a.done": [{"error": "svc.fatal"}]}}),
}


@pytest.mark.parametrize("how", sorted(BEGINS_CANCELLATION))
def test_the_step_that_begins_a_cancellation_may_report_its_end_after_what_it_cancels(how):
    # A-175: WF-IWC-3/4 end the other active work "when one of those rules invokes
    # Internal Work Cancellation" and order none of its events against the invoking
    # step's own; a construct's end still follows its nested steps' (WF-IWC-4).
    step, scenario = BEGINS_CANCELLATION[how]
    document = f"""
    steps:
      - par:
          wf.parallel:
            branches:
              a: [ {{ {step} }} ]
              b: [ {{ y: {{ svc.get: {{}} }} }} ]
    """
    found = orders(document, scenario)
    cancelled_first = [o for o in found if o[:1] == [("par.b.y", "cancelled")]]
    own_first = [o for o in found if o[:1] and o[0][0] == "par.a.done" and len(o) == 3]
    assert cancelled_first and own_first
    for order in found:
        steps = [s for s, _ in order]
        assert steps[-1] == "par" and "par.a.done" in steps  # the construct ends last
    # The explorer's reduction leaves the deferred orders out; the outcomes are the same.
    run = prepare(case(document, scenario)).semantics
    reduced = explore(run, lambda c: outcome(run, c), lambda c: c.key, 200_000, ample=run.ample)
    every = explore(run, lambda c: outcome(run, c), lambda c: c.key, 200_000)
    assert reduced.complete and every.complete
    assert sorted(map(repr, (o.value for o in reduced.outcomes))) == sorted(
        map(repr, (o.value for o in every.outcomes))
    )


def test_cancellation_ends_active_steps_starts_nothing_and_evaluates_no_outputs():
    # WF-CANCEL-5 "before that decision starts another step, action attempt,
    # retry"; WF-CANCEL-8 "An active step becomes cancelled"; WF-CANCEL-9 outputs
    # are not evaluated (WF-CUT-4, WF-ROUT-4: no result; WF-CANCEL-10: outcome
    # cancelled); WF-TERM-8 the dispatched write is reported unknown.
    document = """
    steps:
      - a: { svc.send: {}, retry: { policy: none, attempts: 3 } }
      - b: { svc.get: {} }
    outputs:
      x: "{{ a.id }}"
    """
    run = prepare(case(document, {"cancel": 1, "attempts": {"a": [BUSY]}})).semantics
    found = explore(run, lambda c: outcome(run, c), lambda c: c.key, 100_000)
    cancelled = [o for o in found.outcomes if o.value["outcome"] == "cancelled"]
    assert cancelled
    for o in cancelled:
        assert "result" not in o.value
        witness = [e["event"] for e in o.witness]
        cut = witness.index("cancel_requested")
        assert not {"step_started", "attempt_started", "retry_scheduled"} & set(witness[cut:])
        for effect in o.value["unknownEffects"]:  # only writes dispatched before the request
            assert effect["step"] == "a" and "attempt_started" in witness[:cut]
    # The request may come at any point before the run ends: before a
    # begins, while its attempt is out (its effect is unknown), between steps.
    finals = [o.value for o in cancelled]
    assert any(f["steps"] == {} for f in finals)
    assert any(f["steps"].get("a") == "cancelled" and f["unknownEffects"] for f in finals)
    assert any(f["steps"].get("a") == "cancelled" and not f["unknownEffects"] for f in finals)


# -- constructs and completion -----------------------------------------------------------------


def test_outputs_are_evaluated_in_the_root_scope_and_a_fault_fails_the_run():
    # WF-DONE-2/3 "evaluates outputs in the root scope … the projection is its
    # result"; WF-DONE-6 "An evaluation fault in outputs … fails the run with that
    # fault code".
    document = """
    steps:
      - a: { svc.get: {} }
    outputs:
      id: "{{ a.id }}"
    """
    assert only(document, {"attempts": {"a": [{"output": {"id": 9}}]}})["result"] == {"id": 9}
    final = only(
        document.replace("{{ a.id }}", "{{ a.id / 0 }}"),
        {"attempts": {"a": [{"output": {"id": 9}}]}},
    )
    assert final["outcome"] == "failed" and final["error"] == {
        "code": "expression.division_by_zero"
    }


def test_outputs_faulting_in_several_entries_fail_the_run_with_any_of_their_codes():
    # A-176: WF-DONE-6 "An evaluation fault in outputs … fails the run with that fault
    # code" names no entry when several fault: each one's code is permitted, and only
    # those (a nested entry's too, in a dry run not a suppressed one's).
    document = """
    steps:
      - a: { svc.get: {} }
    outputs:
      x: "{{ 1 / 0 }}"
      y: { z: [ 1, "{{ 'a' + 1 }}", "{{ 2 / 0 }}" ] }
    """
    codes = sorted(f["error"]["code"] for f in outcomes(document))
    assert codes == ["expression.division_by_zero", "expression.type"]
    assert trace(document)[-1]["error"] == {"code": "expression.division_by_zero"}  # the first
    one = 'steps:\n  - a: { svc.get: {} }\noutputs:\n  x: "{{ 1 / 0 }}"\n  y: 2\n'
    assert [f["error"]["code"] for f in outcomes(one)] == ["expression.division_by_zero"]


def test_normal_completion_without_outputs_produces_an_empty_result():
    # WF-DONE-5.
    assert only(ONE)["result"] == {}


def test_choose_runs_the_first_arm_whose_guard_holds_else_the_else_list():
    document = """
    inputs:
      flag: { type: boolean, default: true }
    steps:
      - pick:
          wf.choose:
            arms:
              - when: "{{ inputs.flag }}"
                steps: [ { yes: { svc.get: {} } } ]
            else: [ { no: { svc.get: {} } } ]
    """
    assert set(only(document)["steps"]) == {"pick", "pick.0.yes"}
    assert set(only(document, {"inputs": {"flag": False}})["steps"]) == {"pick", "pick.else.no"}


def test_repeat_runs_until_its_condition_holds_or_fails_when_exhausted():
    document = """
    steps:
      - loop:
          wf.repeat:
            steps: [ { poll: { svc.get: {} } } ]
            until: "{{ poll.id == 'ready' }}"
            max_iterations: 3
    """
    ready = {"attempts": {"loop[1].poll": [{"output": {"id": "ready"}}]}}
    final = only(document, ready)
    assert final["outcome"] == "completed"
    assert set(final["steps"]) == {"loop", "loop[0].poll", "loop[1].poll"}
    exhausted = only(document)
    assert exhausted["error"] == {"code": "flow.repeat_exhausted", "step": "loop"}


def test_constructs_the_model_does_not_cover_are_refused():
    # wf.wait_for outside a dry run; A-140: a wf.call cycle.
    with pytest.raises(Exception, match=r"wf\.wait_for"):
        prepare(
            {
                "document": "steps:\n  - w: { wf.wait_for: { event: svc.changed, match: {} } }\n",
                "scenario": {},
            }
        )
    looping = {
        **case("steps:\n  - c: { wf.call: { workflow: a } }\n"),
        "workflows": {
            "a": "steps:\n  - c: { wf.call: { workflow: b } }\n",
            "b": "steps:\n  - c: { wf.call: { workflow: a } }\n",
        },
    }
    with pytest.raises(Exception, match="a → b → a"):
        prepare(looping)
    assert issubclass(ModelLimit, Exception)
