"""Dry runs and suppression dependencies (model/workfile/run.py; issue 14).

Each expectation is stated from the chapter's Dry Runs, Suppression
Dependencies, Partial Outputs and Suppressed Control Evaluations sections,
quoted beside it, and the manifest table of tests/workfile/test_run.py
(svc.send a write, svc.notify a write with ``dry_run: delegate``, svc.get a
read).
"""

from __future__ import annotations

import textwrap
from typing import Any

from tests.workfile.test_run import events, last, only, trace
from wforacle.model.kernel.lts import execute
from wforacle.properties.workfile.execution import prepare

JSON = Any
DRY = {"dryRun": True}


def dry(document: str, scenario: JSON | None = None) -> list[JSON]:
    return trace(document, {**DRY, **(scenario or {})})


CHAIN = """
steps:
  - w: { svc.send: { k: 1 } }
  - r: { svc.get: { k: 2 } }
  - d: { svc.notify: { k: 3 } }
  - c: { svc.get: { v: "{{ REF }}" } }
"""


def consumer(ref: str) -> str:
    """The outcome of step c reading REF in a dry run of CHAIN."""
    return events(dry(CHAIN.replace("REF", ref)), "step_finished", "c")[0]["outcome"]


def test_without_dry_run_nothing_is_suppressed():
    # WF-DRY-3: "When run.dry_run is false, dry-run policy does not suppress work".
    found = trace(CHAIN.replace("REF", "w.id"))
    assert [e["step"] for e in events(found, "attempt_started")] == ["w", "r", "d", "c"]
    assert "dryRun" not in events(found, "attempt_started", "d")[0]


def test_reads_run_writes_are_withheld_and_delegated_writes_run_with_the_flag():
    # WF-DRY-4: "an unaffected read action executes normally; an unaffected write is
    # suppressed unless it declares dry_run: delegate"; WF-DRY-6: "it dispatches no
    # action attempt"; WF-DRY-11: "executes normally with the dry-run flag".
    found = dry(CHAIN.replace("REF", "r.id"))
    assert [e["step"] for e in events(found, "attempt_started")] == ["r", "d", "c"]
    assert events(found, "step_finished", "w") == [
        {"event": "step_finished", "step": "w", "outcome": "suppressed"}
    ]
    assert not events(found, "step_started", "w")
    assert events(found, "attempt_started", "d")[0]["dryRun"] is True
    assert "dryRun" not in events(found, "attempt_started", "r")[0]
    assert last(found)["outcome"] == "completed"  # WF-DRY-9: execution continues


def test_run_dry_run_reads_true():
    # WF-DRY-1: "The invocation's run.dry_run binding identifies a dry run".
    found = dry("steps:\n  - a: { svc.get: { d: '{{ run.dry_run }}' } }\n")
    assert events(found, "attempt_started")[0]["input"] == {"d": True}


def test_a_withheld_write_still_evaluates_and_a_fault_fails_it_normally():
    # WF-DRY-5: "the executor performs ordinary pre-dispatch evaluation"; WF-DRY-8:
    # "If pre-dispatch evaluation or validation faults, the step fails normally and
    # MUST NOT be recorded as skipped or suppressed."
    found = dry("steps:\n  - w: { svc.send: { k: '{{ 1 / 0 }}' } }\n")
    assert events(found, "step_finished", "w")[0]["outcome"] == "failed"
    assert last(found)["error"]["code"] == "expression.division_by_zero"


def test_a_reference_to_a_withheld_write_is_affected_and_never_evaluated():
    # WF-DRY-7: a suppressed step "creates no binding"; WF-SUPP-13: "An affected step
    # becomes suppressed without evaluating those expressions" — w.n + 1 would fault.
    assert consumer("w.id") == "suppressed"
    assert consumer("w.n + 1") == "suppressed"
    assert consumer("r.id") == "succeeded"
    assert consumer("d.id") == "succeeded"  # a delegated write produced its result


def test_every_reference_counts_whatever_evaluation_would_take():
    # WF-SUPP-6: "Dependency checking includes every reference in the checked
    # expression, including conditional branches, short-circuited operands, and
    # filter arguments such as default"; WF-SUPP-7: "without evaluating".
    assert consumer("r.id if true else w.id") == "suppressed"
    assert consumer("true or w.id == 1") == "suppressed"
    assert consumer("r.id | default(w.id)") == "suppressed"


LOOP = """
steps:
  - each:
      wf.for_each:
        items: [0, 1]
        steps:
          - x: { svc.send: { i: "{{ item }}" }, when: "{{ item == 1 }}" }
  - c: { svc.get: { v: "{{ REF }}" } }
"""


def reads(ref: str) -> str:
    found = dry(LOOP.replace("REF", ref))
    return events(found, "step_finished", "c")[0]["outcome"]


def test_literal_paths_restrict_selection_and_computed_indexes_widen_it():
    # WF-SUPP-3: "affected when its selected value is suppressed or contains a
    # suppressed descendant"; WF-SUPP-4: "Literal member access and literal indexing
    # restrict selection to that path"; WF-SUPP-5: "A computed index conservatively
    # selects every member at that level"; WF-SUPP-8: a step skipped by when (each[0].x)
    # introduces no suppression.
    assert reads("each[0].x") == "succeeded"
    assert reads("each[1].x") == "suppressed"
    assert reads("each[1].x.id") == "suppressed"  # beneath a suppressed ancestor
    assert reads("each[inputs.k].x") == "suppressed"
    assert reads("each") == "suppressed"  # contains a suppressed descendant


def test_a_suppressed_nested_step_leaves_its_construct_succeeded_with_the_member_recorded():
    # WF-SUPP-19: it "does not itself fail or suppress the enclosing scope-producing
    # construct"; WF-SUPP-20: "Retained scopes … preserve suppression at each affected
    # member"; WF-SUPP-21: the iteration "counts as succeeded".
    found = dry(LOOP.replace("REF", "1"))
    assert events(found, "step_finished", "each") == [
        {"event": "step_finished", "step": "each", "outcome": "succeeded", "suppressed": ["[1].x"]}
    ]
    assert events(found, "step_finished", "each[0].x")[0]["outcome"] == "skipped"


def test_outputs_and_stop_results_are_withheld_entry_by_entry():
    # WF-PART-1/2: "An affected entry produces null with suppression recorded for that
    # result member"; WF-PART-3: "Unaffected entries evaluate normally"; WF-PART-4: "an
    # affected stop-result entry does not suppress the stop itself".
    document = "steps:\n  - w: { svc.send: {} }\n  - r: { svc.get: {} }\n"
    outputs = "outputs:\n  a: '{{ r.id }}'\n  b: '{{ w.id }}'\n"
    final = only(document + outputs, DRY)
    assert final["result"] == {"a": "r", "b": None} and final["suppressed"] == ["b"]
    stop = "  - s: { wf.stop: { reason: done, result: { a: '{{ r.id }}', b: '{{ w.id }}' } } }\n"
    final = only(document + stop, DRY)
    assert final["outcome"] == "stopped"
    assert final["result"] == {"a": "r", "b": None} and final["suppressed"] == ["b"]
    faulting = "outputs:\n  a: '{{ 1 / 0 }}'\n  b: '{{ w.id }}'\n"
    assert only(document + faulting, DRY)["outcome"] == "failed"  # WF-PART-3


def test_an_affected_until_suppresses_the_repeat_after_the_work_it_did():
    # WF-SCTL-1: "When an iteration's until is affected, wf.repeat becomes suppressed,
    # creates no result binding, and starts no further iteration"; WF-SCTL-2: "Previously
    # completed work retains its outcomes".
    document = """
steps:
  - loop:
      wf.repeat:
        steps: [ { p: { svc.send: {} } } ]
        until: "{{ p.id == 'done' }}"
        max_iterations: 3
"""
    final = only(document, DRY)
    assert final["steps"] == {"loop": "suppressed", "loop[0].p": "suppressed"}
    assert final["outcome"] == "completed"


def test_an_affected_handler_result_suppresses_the_handled_step():
    # WF-SUPP-16/17: "An affected later field or result projection … suppresses its
    # owning active step … This includes a selected failure handler's result".
    document = """
steps:
  - a:
      svc.get: {}
      catch:
        svc.fatal: { steps: [ { h: { svc.send: {} } } ], result: "{{ h.id }}" }
"""
    final = only(document, {**DRY, "attempts": {"a": [{"error": "svc.fatal"}]}})
    assert final["steps"] == {"a": "suppressed", "a.(catch).h": "suppressed"}


def test_a_dry_run_that_needs_a_live_event_is_rejected_before_it_starts():
    # WF-DRY-14/15: "the executor MUST reject it with invocation.dry_run".
    document = "steps:\n  - e: { wf.wait_for: { event: svc.changed, match: {} } }\n"
    run = prepare({"document": textwrap.dedent(document), "scenario": DRY}).semantics
    found = execute(run).trace
    assert found == [{"event": "run_rejected", "error": {"code": "invocation.dry_run"}}]


def test_an_affected_step_of_any_kind_is_suppressed_and_its_body_never_starts():
    # WF-SUPP-14: "This rule applies to every step kind, including … termination
    # constructs"; WF-SUPP-15: "Descendant steps whose containing body never starts
    # remain not_run".
    document = """
steps:
  - w: { svc.send: {} }
  - each:
      wf.for_each:
        items: "{{ [w.id] }}"
        steps: [ { x: { svc.get: {} } } ]
  - s: { wf.stop: { reason: "{{ w.id }}" } }
"""
    final = only(document, DRY)
    assert final["outcome"] == "completed"
    assert final["steps"] == {"w": "suppressed", "each": "suppressed", "s": "suppressed"}


def test_a_case_without_manifests_runs_each_action_as_a_write():
    # docs/workfile.md: without manifests, actions are references nothing checks; A-126:
    # an action without a manifest counts as a write, so a dry run suppresses it.  A case
    # without manifests was refused (document.unknown_action) by shrink and conform while
    # run accepted it (a stranger, session 23).
    case = {"document": "steps:\n  - a: { svc.send: {} }\n", "scenario": {"dryRun": True}}
    found = execute(prepare(case).semantics).trace
    assert {"event": "step_finished", "step": "a", "outcome": "suppressed"} in found
    assert not [e for e in found if e["event"] == "attempt_started"]


def test_a_case_without_manifests_runs_its_callees_actions_as_writes_too():
    # The same for a child workflow: its actions are unchecked references as the
    # document's are.  Its callee was validated against the empty manifest set and
    # refused (document.unknown_action) while the document was accepted (found by
    # drawing manifest-less cases, session 24).
    case = {
        "document": "steps:\n  - c: { wf.call: { workflow: sub, inputs: {} } }\n",
        "workflows": {"sub": "steps:\n  - a: { svc.send: {} }\n"},
        "scenario": {"dryRun": True},
    }
    found = execute(prepare(case).semantics).trace
    assert {"event": "step_finished", "step": "c.(run).a", "outcome": "suppressed"} in found
    assert not [e for e in found if e["event"] == "attempt_started"]
