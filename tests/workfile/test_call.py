"""Child runs (wf.call) and timeouts in the Workfile model (A-140, A-141).

Every expectation is read from the chapter
(../shared/specs/workfile-core-execution-semantics.txt), quoted beside it,
or from the assumption it names; none is produced by the model.  The
manifest is ``MANIFEST`` (tests/workfile/test_run.py lists its actions):
svc.get reads (inherent), svc.put writes (keyed), svc.send writes (none);
svc.busy is retryable, svc.fatal fatal, svc.lost unknown.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

import pytest

from wforacle.model.diagnostics import InvalidCase
from wforacle.model.kernel.explore import explore
from wforacle.model.kernel.lts import execute
from wforacle.oracle.cli import main
from wforacle.properties.strategies.workfile_runs import MANIFEST
from wforacle.properties.workfile.execution import outcome, prepare

JSON = Any

SUB = """
inputs:
  n: { type: integer, default: 1 }
steps:
  - a: { svc.send: { n: "{{ inputs.n }}" } }
  - b: { svc.get: {} }
outputs:
  x: "{{ a.id }}"
  y: "{{ b.id }}"
"""


def case(document: str, scenario: JSON | None = None, **workflows: str) -> JSON:
    return {
        "document": textwrap.dedent(document),
        "manifests": {"svc": MANIFEST},
        "workflows": {name: textwrap.dedent(text) for name, text in workflows.items()},
        "scenario": scenario or {},
        "schedule": [],
    }


def trace(document: str, scenario: JSON | None = None, **workflows: str) -> list[JSON]:
    run = prepare(case(document, scenario, **workflows)).semantics
    return execute(run).trace


def outcomes(document: str, scenario: JSON | None = None, **workflows: str) -> list[JSON]:
    run = prepare(case(document, scenario, **workflows)).semantics
    found = explore(run, lambda c: outcome(run, c), lambda c: c.key, 200_000)
    assert found.complete
    return [o.value for o in found.outcomes]


def named(found: list[JSON], name: str) -> list[JSON]:
    return [e for e in found if e["event"] == name]


CALL = """
steps:
  - c:
      wf.call: { workflow: sub, inputs: { n: 7 } }
  - after: { svc.get: { seen: "{{ c.x }}" } }
outputs:
  got: "{{ c }}"
"""


# -- starting a child run, and its result --------------------------------------------------


def test_a_child_run_executes_under_the_call_and_binds_its_outputs():
    # WF-STEP-13: "Constructs can refine this sequence for … child runs"; A-140: the
    # child's steps are C.(run).<path>; the call binds the child's object result.
    found = trace(CALL, sub=SUB)
    started = [e["step"] for e in named(found, "step_started")]
    assert started == ["c", "c.(run).a", "c.(run).b", "after"]
    assert named(found, "attempt_started")[0]["input"] == {"n": 7}  # the call's inputs
    finished = named(found, "child_finished")
    assert finished == [
        {
            "event": "child_finished",
            "step": "c",
            "outcome": "completed",
            "result": {"x": "c.(run).a", "y": "c.(run).b"},
        }
    ]
    assert named(found, "attempt_started")[2]["input"] == {"seen": "c.(run).a"}
    assert found[-1]["result"] == {"got": {"x": "c.(run).a", "y": "c.(run).b"}}


def test_a_child_runs_outputs_faulting_in_several_entries_fail_the_call_with_any_code():
    # A-176 (WF-DONE-6 for the child run's outputs): the call fails with the code of
    # any entry that faults, and the run's failure carries it.
    sub = """
    steps:
      - a: { svc.get: {} }
    outputs:
      x: "{{ 1 / 0 }}"
      y: "{{ 'a' + 1 }}"
    """
    found = outcomes("steps:\n  - c: { wf.call: { workflow: sub } }\n", sub=sub)
    codes = sorted(f["error"]["code"] for f in found)
    assert codes == ["expression.division_by_zero", "expression.type"]


def test_the_callee_input_contract_applies_defaults_and_its_mismatch_is_not_caught():
    # WF-CATCH-16: "This includes a runtime mismatch against a callee's input contract
    # before a child run starts" (not eligible for the call's handler).
    defaulted = trace("steps:\n  - c: { wf.call: { workflow: sub } }\n", sub=SUB)
    assert named(defaulted, "attempt_started")[0]["input"] == {"n": 1}
    document = """
    steps:
      - c:
          wf.call: { workflow: sub, inputs: { n: "seven" } }
          catch:
            input.type: { steps: [], result: {} }
    """
    found = trace(document, sub=SUB)
    assert not named(found, "handler_started")
    assert not named(found, "step_started")  # no child run starts
    assert found[-1]["error"] == {"code": "input.type", "step": "c"}


def test_a_failed_child_offers_its_terminal_code_and_details_to_the_call():
    # WF-CATCH-12: "eligible failures are a failed child's terminal code"; WF-CATCH-14:
    # "The handler's error.details preserves any connector details".
    document = """
    steps:
      - c:
          wf.call: { workflow: sub }
          catch:
            svc.fatal:
              steps: []
              result: { x: "{{ error.details }}", y: "{{ error.code }}" }
    """
    scenario = {"attempts": {"c.(run).a": [{"error": "svc.fatal", "details": {"n": 3}}]}}
    found = trace(document, scenario, sub=SUB)
    assert named(found, "child_finished")[0]["error"] == {
        "code": "svc.fatal",
        "step": "c.(run).a",
    }
    assert named(found, "handler_started")[0]["code"] == "svc.fatal"
    assert found[-2]["value"] == {"x": {"n": 3}, "y": "svc.fatal"}
    unhandled = trace("steps:\n  - c: { wf.call: { workflow: sub } }\n", scenario, sub=SUB)
    # in the caller, the failed step is the call.
    assert unhandled[-1]["error"] == {"code": "svc.fatal", "step": "c"}


def test_an_author_failure_in_the_child_is_eligible_for_the_call_s_catch():
    # WF-CATCH-13: "A child's terminal code is eligible even when it is an author-selected
    # wf.fail code".
    child = "steps:\n  - f: { wf.fail: { code: app.denied, reason: no } }\noutputs: { ok: true }\n"
    document = """
    steps:
      - c:
          wf.call: { workflow: sub }
          catch:
            app.denied: { steps: [], result: { ok: false } }
    """
    found = trace(document, sub=child)
    assert named(found, "child_finished")[0]["outcome"] == "failed"
    assert found[-1]["outcome"] == "completed"
    assert found[-2] == {
        "event": "step_finished",
        "step": "c",
        "outcome": "succeeded",
        "value": {"ok": False},
    }


def test_a_replacement_for_a_call_must_be_an_object():
    # WF-CATCH-6: "Every wf.call … has an object result contract"; WF-CATCH-26: a failing
    # handler leaves the original failure active.
    child = "steps:\n  - f: { wf.fail: { code: app.denied } }\n"
    document = """
    steps:
      - c:
          wf.call: { workflow: sub }
          catch:
            app.denied: { steps: [], result: "{{ 3 }}" }
    """
    assert trace(document, sub=child)[-1]["error"] == {"code": "app.denied", "step": "c"}


def test_a_replacement_names_only_members_the_callee_declares():
    # WF-CATCH-24: "For a callee's joined object shape, replacement members MUST have
    # declared names"; WF-START-1: an invalid document never runs.  SUB declares x and
    # y (its outputs); a wf.stop result's members are declared too.
    document = """
    steps:
      - c:
          wf.call: { workflow: sub }
          catch:
            svc.fatal: { steps: [], result: { x: 1, why: "{{ error.code }}" } }
    """
    with pytest.raises(InvalidCase, match="'why' that 'sub' does not declare") as raised:
        prepare(case(document, sub=SUB))
    assert raised.value.path == "$.steps[0].c.catch['svc.fatal'].result.why"
    stop = "  - s: { wf.stop: { reason: done, result: { why: early } } }\n"
    stopping = SUB.replace("  - b: { svc.get: {} }\n", "  - b: { svc.get: {} }\n" + stop)
    scenario = {"attempts": {"c.(run).a": [{"error": "svc.fatal"}]}}
    assert trace(document, scenario, sub=stopping)[-2]["value"] == {"x": 1, "why": "svc.fatal"}


def test_validate_with_the_callees_reports_an_undeclared_replacement_member(tmp_path, capsys):
    # WF-CATCH-24 is static ("statically assignable", WF-CATCH-23): validate --workflows
    # reports it as a diagnostic with its code, path and clause; without the callee it
    # cannot be known.
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "svc.yaml").write_text(MANIFEST)
    (tmp_path / "workflows").mkdir()
    (tmp_path / "workflows" / "sub.yaml").write_text(textwrap.dedent(SUB))
    document = tmp_path / "main.yaml"
    document.write_text(
        "steps:\n  - c:\n      wf.call: { workflow: sub }\n      catch:\n"
        "        svc.fatal: { steps: [], result: { x: 1, why: 2 } }\n"
    )
    manifests = ["--manifests", str(tmp_path / "manifests")]
    workflows = ["--workflows", str(tmp_path / "workflows")]
    assert main(["validate", str(document), *manifests, *workflows, "--json"]) == 1
    (problem,) = json.loads(capsys.readouterr().out)["diagnostics"]
    assert problem["code"] == "document.type" and problem["clause"] == "WF-CATCH-24"
    assert problem["path"] == "$.steps[0].c.catch['svc.fatal'].result.why"
    assert main(["validate", str(document), *manifests]) == 0


def test_validate_with_callees_and_no_manifests_leaves_their_actions_unchecked(tmp_path, capsys):
    # docs/workfile.md: without --manifests, actions are references nothing checks -- in
    # a callee given by --workflows as in the document (the callee was validated against
    # the empty manifest set: "--workflows: ... document.unknown_action", session 24).
    (tmp_path / "workflows").mkdir()
    (tmp_path / "workflows" / "sub.yaml").write_text(textwrap.dedent(SUB))
    document = tmp_path / "main.yaml"
    document.write_text("steps:\n  - c:\n      wf.call: { workflow: sub }\n")
    workflows = ["--workflows", str(tmp_path / "workflows")]
    assert main(["validate", str(document), *workflows]) == 0, capsys.readouterr()
    assert main(["run", str(document), *workflows, "--json"]) == 0
    assert '"outcome": "completed"' in capsys.readouterr().out


def test_a_templated_replacement_with_an_undeclared_member_fails_the_handler():
    # WF-CATCH-24 at run time, for a result written as one template (the validator
    # cannot see its members); WF-CATCH-26: "If the handler fails or faults, the
    # original failure and code remain active".
    document = """
    steps:
      - c:
          wf.call: { workflow: sub }
          catch:
            svc.fatal: { steps: [ { h: { svc.get: {} } } ], result: "{{ h }}" }
    """
    scenario = {"attempts": {"c.(run).a": [{"error": "svc.fatal"}]}}
    assert trace(document, scenario, sub=SUB)[-1]["error"] == {"code": "svc.fatal", "step": "c"}
    declaring = SUB.replace('  y: "{{ b.id }}"', '  y: "{{ b.id }}"\n  id: none')
    assert trace(document, scenario, sub=declaring)[-1]["outcome"] == "completed"


# A callee whose members' types its document states (A-172): n a typed input, label a
# literal on both successful ends, note null when it stops (so nullable), id known only
# at run time (no type checked).
TYPED = """
inputs:
  n: { type: integer, default: 1 }
steps:
  - a: { svc.send: { n: "{{ inputs.n }}" } }
  - s: { wf.stop: { reason: early, result: { n: 2, label: "stopped", note: null, id: x } } }
outputs:
  n: "{{ inputs.n }}"
  label: "n is {{ inputs.n }}"
  note: "{{ a.id }}"
  id: "{{ a.id }}"
"""


def _replacing(result: str) -> str:
    return f"""
    steps:
      - c:
          wf.call: {{ workflow: sub }}
          catch:
            svc.fatal: {{ steps: [ {{ h: {{ svc.get: {{}} }} }} ], result: {result} }}
    """


@pytest.mark.parametrize(
    ("result", "problem"),
    [
        # n is an integer on both ends: excludes null, so required.
        ('{ label: "x" }', "without 'n'"),
        # label is a string on both ends: a number is not assignable.
        ("{ n: 1, label: 2 }", "'label' as integer"),
        # n excludes null: null is not assignable to it.
        ('{ n: null, label: "x" }', "'n' as null"),
    ],
)
def test_a_literal_replacement_breaking_the_callees_member_types_is_invalid(result, problem):
    # WF-CATCH-24: "replacement members MUST have declared names and assignable types;
    # every member whose type excludes null is required".
    with pytest.raises(InvalidCase, match=problem) as raised:
        prepare(case(_replacing(result), sub=TYPED))
    assert raised.value.path.startswith("$.steps[0].c.catch['svc.fatal'].result")


@pytest.mark.parametrize(
    "result",
    [
        '{ n: 1, label: "x" }',  # note and id: nullable or untyped, may be left out
        '{ n: 1, label: "x", note: null, id: 3 }',  # note nullable; id known only at run time
        '{ n: "{{ 1 }}", label: "{{ error.code }}" }',  # known only at run time
    ],
)
def test_a_replacement_fitting_the_joined_shape_is_bound(result):
    scenario = {"attempts": {"c.(run).a": [{"error": "svc.fatal"}]}}
    found = trace(_replacing(result), scenario, sub=TYPED)
    assert found[-1]["outcome"] == "completed", found[-1]


def test_a_templated_replacement_is_checked_against_the_member_types_at_run_time():
    # The validator cannot see the members of a result written as one template: the run
    # checks them, and a result that breaks the contract fails the handler (WF-CATCH-26).
    for output, ending in (
        ({"n": 1, "label": "x"}, "completed"),
        ({"n": "1", "label": "x"}, "failed"),  # n is an integer
        ({"label": "x"}, "failed"),  # n is required
        ({"n": 1, "label": "x", "note": None}, "completed"),  # note is nullable
    ):
        attempts = {"c.(run).a": [{"error": "svc.fatal"}], "c.(catch).h": [{"output": output}]}
        found = trace(_replacing('"{{ h }}"'), {"attempts": attempts}, sub=TYPED)
        assert found[-1]["outcome"] == ending, (output, found[-1])


def test_a_stop_in_the_child_stops_the_child_and_the_call_binds_its_result():
    # Run outcomes: "stopped — An explicit stop … ended the run successfully"; WF-CATCH-22:
    # a callee's "joined successful result type" (A-140: the caller goes on).
    child = """
    steps:
      - s: { wf.stop: { reason: enough, result: { k: 1 } } }
      - never: { svc.get: {} }
    """
    found = trace(CALL.replace(", inputs: { n: 7 }", ""), sub=child)
    assert named(found, "child_finished")[0]["outcome"] == "stopped"
    assert found[-1]["outcome"] == "completed"
    assert found[-1]["result"] == {"got": {"k": 1}}
    assert "c.(run).never" not in {e.get("step") for e in found}


def test_on_fail_abort_in_the_child_ends_only_the_child():
    # WF-POLICY-3 fails "the run" the step is in; WF-CANCEL-14: a child's end alone
    # does not end its parent; the call then fails under ordinary policy.
    child = "steps:\n  - a: { svc.get: {}, on_fail: abort }\n  - b: { svc.get: {} }\n"
    document = """
    steps:
      - c: { wf.call: { workflow: sub }, on_fail: continue }
      - d: { svc.get: {} }
    """
    found = trace(document, {"attempts": {"c.(run).a": [{"error": "svc.fatal"}]}}, sub=child)
    assert named(found, "child_finished")[0]["outcome"] == "failed"
    assert found[-1]["outcome"] == "completed"
    assert "d" in {e.get("step") for e in named(found, "step_started")}


# -- ambiguity across the boundary --------------------------------------------------------


def test_an_abort_in_the_child_terminates_the_caller_past_every_policy():
    # WF-UNK-11: "If a child run terminates under the abort disposition, its calling run
    # terminates directly with flow.action_ambiguous"; WF-UNK-14: the call's modifiers
    # and enclosing catch or policy "MUST NOT intercept it", and "the originating action
    # identity … MUST be preserved across the boundary".
    document = """
    steps:
      - c:
          wf.call: { workflow: sub }
          on_fail: continue
          catch:
            flow.action_ambiguous: { steps: [], result: {} }
      - d: { svc.get: {} }
    """
    scenario = {"attempts": {"c.(run).a": [{"error": "svc.lost"}]}}
    (final,) = outcomes(document, scenario, sub=SUB)
    assert final["outcome"] == "failed"
    assert final["error"] == {"code": "flow.action_ambiguous", "step": "c.(run).a"}
    assert final["disposition"] == "abort"
    assert final["steps"]["c"] == "failed"
    assert "d" not in final["steps"]
    assert final["unknownEffects"] == [
        {"step": "c.(run).a", "attempt": 1, "effect": "unknown", "code": "svc.lost"}
    ]
    assert not named(trace(document, scenario, sub=SUB), "handler_started")


def test_on_unknown_fail_in_the_child_fails_the_call_ordinarily_and_keeps_the_effect():
    # WF-UNK-12: "the wf.call step fails ordinarily with flow.action_ambiguous; its
    # modifiers and enclosing failure policy apply, and the child's unknown-effect
    # attempts are carried into the calling run's terminal information".
    child = "steps:\n  - a: { svc.send: {}, on_unknown: fail }\noutputs: { handled: false }\n"
    document = """
    steps:
      - c:
          wf.call: { workflow: sub }
          catch:
            flow.action_ambiguous: { steps: [], result: { handled: true } }
    """
    (final,) = outcomes(document, {"attempts": {"c.(run).a": [{"error": "svc.lost"}]}}, sub=child)
    assert final["outcome"] == "completed"
    assert final["steps"]["c"] == "succeeded"
    assert final["unknownEffects"] == [
        {"step": "c.(run).a", "attempt": 1, "effect": "unknown", "code": "svc.lost"}
    ]


# -- cancellation ------------------------------------------------------------------------


def test_cancelling_the_caller_cancels_the_child_s_active_work_first():
    # WF-CANCEL-7: the executor "propagates cancellation requests to child runs"; an
    # active step becomes cancelled (WF-CANCEL-8); WF-CANCEL-16: no later child outcome
    # counts.
    found = outcomes(CALL, {"cancel": 1}, sub=SUB)
    cancelled = [f for f in found if f["outcome"] == "cancelled"]
    assert cancelled
    for final in cancelled:
        steps = final["steps"]
        child = [v for k, v in steps.items() if k.startswith("c.(run).")]
        if "cancelled" in child:
            assert steps["c"] == "cancelled"
            assert "after" not in steps
    assert any(f["steps"].get("c") == "cancelled" for f in cancelled)
    # The child's outstanding write is unknown (WF-TERM-8) in some of them.
    assert any(f["unknownEffects"] for f in cancelled)


def test_a_child_cancelled_on_its_own_fails_the_call_and_not_the_caller():
    # WF-CANCEL-14: "Cancellation of a child alone does not cancel its parent";
    # WF-CANCEL-15: "child cancellation supplies a flow.child_cancelled failure and
    # ordinary policy applies".
    document = """
    steps:
      - c: { wf.call: { workflow: sub }, on_fail: continue }
      - d: { svc.get: {} }
    """
    found = outcomes(document, {"cancelChild": {"c": 1}}, sub=SUB)
    assert all(f["outcome"] == "completed" for f in found)  # the caller goes on
    failed = [f for f in found if f["steps"].get("c") == "failed"]
    assert failed, "the cancellation can reach the child while it runs"
    assert all(f["steps"]["d"] == "succeeded" for f in failed)
    run = prepare(case(document, {"cancelChild": {"c": 1}}, sub=SUB)).semantics
    witness = next(
        o.witness
        for o in explore(run, lambda c: outcome(run, c), lambda c: c.key, 200_000).outcomes
        if o.value["steps"].get("c") == "failed"
    )
    events = list(witness)
    (ended,) = [e for e in events if e["event"] == "step_finished" and e["step"] == "c"]
    assert ended["error"] == {"code": "flow.child_cancelled", "step": "c"}
    assert {"event": "child_finished", "step": "c", "outcome": "cancelled"} in events


# -- timeouts ------------------------------------------------------------------------------


def test_a_call_timeout_cancels_the_child_and_offers_flow_timeout_to_catch():
    # WF-CATCH-12: the call's "own composite timeout (flow.timeout)" is eligible;
    # WF-CATCH-21: "handler work starts after internal cancellation".
    document = """
    steps:
      - c:
          wf.call: { workflow: sub }
          timeout: 5s
          catch:
            flow.timeout: { steps: [], result: { x: late } }
    outputs:
      r: "{{ c }}"
    """
    found = outcomes(document, {"expire": {"c": 1}}, sub=SUB)
    results = {str(f["result"]) for f in found}
    assert str({"r": {"x": "late"}}) in results  # it fired while the child ran
    assert str({"r": {"x": "c.(run).a", "y": "c.(run).b"}}) in results  # a late timer
    for final in found:
        if final["result"] == {"r": {"x": "late"}}:
            child = {k: v for k, v in final["steps"].items() if k.startswith("c.(run).")}
            assert all(v in ("succeeded", "cancelled") for v in child.values())


def test_a_construct_timeout_fails_it_with_flow_timeout_after_cancelling_its_branches():
    # WF-IWC-1: Internal Work Cancellation "is invoked only by the composite-timeout …
    # rules"; WF-IWC-3: active steps become cancelled; A-141: the construct fails with
    # flow.timeout and its on_fail applies.
    document = """
    steps:
      - p:
          wf.parallel:
            branches:
              left: [ { l: { svc.get: {} } } ]
              right: [ { r: { svc.get: {} } } ]
          timeout: 1s
          on_fail: continue
    """
    found = outcomes(document, {"expire": {"p": 1}})
    timed = [f for f in found if f["steps"]["p"] == "failed"]
    assert timed and all(f["outcome"] == "completed" for f in timed)
    assert any(
        f["steps"].get("p.left.l") == "cancelled" and f["steps"].get("p.right.r") == "cancelled"
        for f in timed
    )
    assert any(f["steps"]["p"] == "succeeded" for f in found)  # the timer came too late


def test_an_attempt_timeout_of_a_read_is_retried_and_its_late_response_is_ignored():
    # A-141: a read's timeout is retryable; WF-LATE-5: "a subsequent response to that
    # attempt is late"; WF-LATE-3: a late result never creates a binding.
    document = """
    steps:
      - a: { svc.get: {}, timeout: 1s, retry: { attempts: 2 } }
    outputs:
      v: "{{ a }}"
    """
    late = {"timeout": True, "late": {"output": "stale"}}
    found = trace(document, {"attempts": {"a": [late, {"output": "fresh"}]}})
    first = named(found, "attempt_finished")[0]
    assert (first["result"], first["code"]) == ("retryable", "timeout")
    assert found[-1]["result"] == {"v": "fresh"}


def test_an_attempt_timeout_of_a_write_is_ambiguous():
    # a dispatched write whose deadline passed has an unknown effect; svc.send
    # declares idempotency none, so on_unknown (default abort) applies (WF-UNK-1).
    document = "steps:\n  - a: { svc.send: {}, timeout: 1s, retry: { attempts: 3 } }\n"
    found = trace(document, {"attempts": {"a": [{"timeout": True}]}})
    assert named(found, "attempt_finished")[0]["result"] == "unknown"
    assert len(named(found, "attempt_started")) == 1  # no reissue without idempotency
    assert found[-1]["disposition"] == "abort"
    assert found[-1]["unknownEffects"] == [
        {"step": "a", "attempt": 1, "effect": "unknown", "code": "timeout"}
    ]


@pytest.mark.parametrize(
    "scenario, message",
    [
        ({"attempts": {"a": [{"timeout": True}]}}, "declares timeout"),
        ({"expire": {"a": 1}}, "other than an action"),
        ({"cancelChild": {"a": 1}}, "wf.call"),
        ({"cancel": 1, "expire": {"p": 1}}, "distinct waits"),
    ],
)
def test_a_scenario_that_does_not_fit_the_document_is_refused(scenario, message):
    document = "steps:\n  - a: { svc.get: {} }\n  - p: { wf.parallel: { branches: {} } }\n"
    with pytest.raises(InvalidCase, match=message):
        prepare(case(document, scenario))


def test_a_script_for_a_step_the_document_does_not_have_is_ignored():
    # a script names steps that may never run; a reduced case keeps the
    # scripts of the steps the shrinker removed (A-141: timeouts and expiries too).
    scenario = {
        "attempts": {"gone": [{"timeout": True}]},
        "expire": {"gone": 1},
        "cancelChild": {"gone.too": 2},
    }
    assert trace("steps:\n  - a: { svc.get: {} }\n", scenario)[-1]["outcome"] == "completed"


def test_a_missing_workflow_is_the_case_s_problem():
    with pytest.raises(InvalidCase, match="does not supply"):
        prepare(case("steps:\n  - c: { wf.call: { workflow: nowhere } }\n"))


# -- dry runs across calls -----------------------------------------------------------------


def test_a_call_keeps_each_child_output_member_s_suppression_across_calls():
    # WF-PART-5: "A successful wf.call preserves each child's output-member suppression
    # in its result binding, including across further child-call boundaries. Partial
    # outputs alone do not suppress or fail the call".
    middle = """
    steps:
      - inner: { wf.call: { workflow: sub } }
    outputs:
      x: "{{ inner.x }}"
      y: "{{ inner.y }}"
    """
    document = """
    steps:
      - c: { wf.call: { workflow: middle } }
      - usesx: { svc.get: { v: "{{ c.x }}" } }
      - usesy: { svc.get: { v: "{{ c.y }}" } }
    """
    found = trace(document, {"dryRun": True}, sub=SUB, middle=middle)
    outcomes_by_step = {e["step"]: e["outcome"] for e in named(found, "step_finished")}
    assert outcomes_by_step["c.(run).inner.(run).a"] == "suppressed"  # a write
    assert outcomes_by_step["c.(run).inner"] == "succeeded"
    assert outcomes_by_step["c"] == "succeeded"
    assert outcomes_by_step["usesx"] == "suppressed"
    assert outcomes_by_step["usesy"] == "succeeded"
    (call,) = [e for e in named(found, "step_finished") if e["step"] == "c"]
    assert call["suppressed"] == ["x"] and call["value"]["x"] is None


@pytest.mark.parametrize(
    "child, scenario, code",
    [
        ("steps:\n  - f: { wf.fail: { code: my.c } }\n", {}, "my.c"),
        ("steps:\n  - g: { svc.get: {}, on_fail: abort }\n", {"g": "svc.fatal"}, "svc.fatal"),
        ("steps:\n  - g: { svc.get: {} }\n", {"cancelChild": 1}, "flow.child_cancelled"),
        ("steps:\n  - g: { svc.get: {} }\n", {"expire": 1}, "flow.timeout"),
    ],
)
def test_a_handler_with_steps_runs_after_the_child_run_ended(child, scenario, code):
    # WF-CATCH-12/21: the handler runs after the child run ended (or, for a timeout,
    # after internal cancellation, outside the expired deadline).  Found by an
    # independent executor's author: a handler with steps never ran after these ends.
    document = """
    steps:
      - c:
          wf.call: { workflow: sub }
          timeout: 5s
          catch:
            "*":
              steps: [ { h: { svc.get: {} } } ]
              result: { code: "{{ error.code }}" }
    """.replace('"*"', code.split(".")[0] + ".*")
    script: JSON = {}
    if "g" in scenario:
        script["attempts"] = {"c.(run).g": [{"error": scenario["g"]}]}
    for member in ("cancelChild", "expire"):
        if member in scenario:
            script[member] = {"c": scenario[member]}
    found = outcomes(document, script, sub=child + "outputs: { code: none }\n")
    handled = [f for f in found if f["steps"].get("c.(catch).h") == "succeeded"]
    assert handled, found
    assert all(f["outcome"] == "completed" and f["steps"]["c"] == "succeeded" for f in handled)


def test_a_call_finished_before_its_child_run_breaks_step_13():
    # WF-STEP-13: "Constructs can refine this sequence for … child runs. Those
    # refinements MUST preserve the enclosing list's ordering": an executor that ends
    # the wf.call without running the child (a stranger's Core executor) broke that,
    # not step evaluation (WF-STEP-1..3, the rule that starts the child's first step).
    from wforacle.oracle.check import check
    from wforacle.oracle.explain import by_rule
    from wforacle.properties.workfile.specification import WORKFILE

    semantics = WORKFILE.prepare(case(CALL, None, sub=SUB), None).semantics
    found = trace(CALL, sub=SUB)
    assert found[2]["step"] == "c.(run).a"  # the child's first step, right after the call's
    early = [*found[:2], {"event": "step_finished", "step": "c", "outcome": "succeeded"}]
    divergence = by_rule(WORKFILE, semantics, check(semantics, WORKFILE.key, early).divergence)
    assert divergence.clauses[0] == "WF-STEP-13", divergence.clauses
