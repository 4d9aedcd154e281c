"""The w6w model faults of issue 10: secrets, replay on the implicit chain, run rejection."""

from __future__ import annotations

import copy
import json

from wforacle.model.kernel.lts import execute
from wforacle.model.w6w.scenario import load_scenario
from wforacle.model.w6w.semantics import Replay, W6wRun, descendants, run_state
from wforacle.properties.w6w.validate import validate

from .helpers import app_step, workflow


def semantics(doc, scenario=None, replay=None, start=None, **options):
    result = validate(copy.deepcopy(doc))
    assert result.report.valid, result.report.codes()
    loaded, problems = load_scenario(scenario or {})
    assert not problems
    recorded = Replay.of(replay, result.workflow, start) if replay is not None else None
    return W6wRun(result.workflow, result.plan, loaded, recorded, **options)


def run(doc, scenario=None, replay=None, start=None, **options):
    model = semantics(doc, scenario, replay, start, **options)
    execution = execute(model)
    return execution.trace, run_state(model, execution.final)


def events(trace, name):
    return [e for e in trace if e["event"] == name]


# -- replay from a step on the implicit chain (W6W-FAN-11) ---------------------------------


def test_replay_from_a_step_of_the_implicit_chain_reruns_every_later_step():
    # W6W-FAN-11: "from replays that step plus all its graph descendants"; with no edges
    # the graph is "a linear chain in declared order" (RFC Workflow.edges), so c descends
    # from b and must run fresh, not keep its old output.
    doc = workflow(app_step("a"), app_step("b"), app_step("c"))
    first = {"steps": {s: {"attempts": [{"output": f"{s}1"}]} for s in "abc"}}
    _, original = run(doc, first)
    second = {"steps": {s: {"attempts": [{"output": f"{s}2"}]} for s in "abc"}}
    trace, replayed = run(doc, second, original, "b")
    assert [e["step"] for e in events(trace, "step_replayed")] == ["a"]
    assert [e["step"] for e in events(trace, "step_started")] == ["b", "c"]
    assert replayed["steps"]["c"]["output"] == "c2"


def test_descendants_follow_edges_when_the_document_declares_them():
    # W6W-FAN-11 on the chain a, b, c with only a → c: b has no graph descendant
    # (finding F-12: the positional rule would also re-run c).
    doc = workflow(app_step("a"), app_step("b"), app_step("c"), edges=[{"from": "a", "to": "c"}])
    result = validate(doc)
    assert descendants(result.workflow, "b") == set()
    assert descendants(result.workflow, "a") == {"c"}


# -- secrets are never persisted with run state (W6W-ENV-17) -------------------------------

SECRET = "sk-live-123"
BEARER = workflow(
    app_step("call", **{"with": {"auth": "Bearer {{ secrets.API_KEY }}", "n": 1}}),
    app_step("next", **{"with": {"seen": {"$": "steps.call.output"}}}),
)


def test_a_secret_never_reaches_the_recorded_input_the_trace_or_the_run_state():
    # W6W-ENV-17: "secrets is injected by the host from its vault before the run and is
    # never persisted with run state" — the recorded input shows the marker (A-70).
    trace, state = run(BEARER, {"secrets": {"API_KEY": SECRET}})
    assert SECRET not in json.dumps(trace) and SECRET not in json.dumps(state)
    started = events(trace, "step_started")[0]
    assert started["input"] == {"auth": "Bearer [secret]", "n": 1}
    assert state["steps"]["call"]["input"] == {"auth": "Bearer [secret]", "n": 1}


def test_the_action_still_receives_the_plaintext():
    # W6W-ENV-22: a secret part reads "plaintext from secrets … directly"; only the record
    # is redacted: the step's invoked input holds it, and a missing secret still fails.
    model = semantics(BEARER, {"secrets": {"API_KEY": SECRET}})
    execution = execute(model)
    started = next(s for s in execution.steps if s.event["event"] == "step_started")
    assert started.target.steps[0].invoked == {"auth": f"Bearer {SECRET}", "n": 1}
    _, failed = run(BEARER)
    assert failed["steps"]["call"]["error"]["code"] == "secret_unavailable"


def test_a_control_reads_the_plaintext_its_with_block_resolved():
    # redaction is of the record only; an if's condition built from a secret still
    # decides the branch (W6W-ENV-22): the empty plaintext is falsy, the marker is not.
    doc = workflow(
        {
            "id": "gate",
            "uses": {"app": "@w6w/control", "action": "if"},
            "with": {
                "condition": "{{ secrets.FLAG }}",
                "then": [app_step("yes")],
                "else": [app_step("no")],
            },
        }
    )
    _, state = run(doc, {"secrets": {"FLAG": ""}})
    assert state["steps"]["gate"]["input"] == {"condition": "[secret]"}
    inner = json.dumps(state["steps"]["gate"]["inner"])
    assert '"no"' in inner and '"yes"' not in inner


# -- a run refused at its start, and declared variable types (W6W-FIELD-17, -18) -----------

STATUSES = {"queued", "running", "succeeded", "failed", "canceled"}  # RFC RunState.status
TYPED = workflow(
    app_step("a", **{"with": {"c": {"$": "vars.channel"}}}),
    variables=[
        {"key": "channel", "type": "string", "required": True},
        {"key": "n", "type": "number"},
    ],
)


def test_a_refused_run_has_a_status_the_rfc_lists():
    # W6W-FIELD-18: "If true and no value provided at run start, the run is rejected";
    # RunState.status is "queued" | "running" | "succeeded" | "failed" | "canceled".
    trace, state = run(TYPED)
    assert state["status"] in STATUSES and state["status"] == "failed"
    assert state["error"]["code"] == "missing_variable" and state["steps"] == {}
    assert events(trace, "run_rejected")[0]["variable"] == "channel"


def outcomes(doc, scenario):
    from wforacle.model.kernel.explore import explore
    from wforacle.model.w6w.semantics import config_key, outcome

    model = semantics(doc, scenario)
    found = explore(model, lambda c: outcome(model, c), config_key)
    assert found.complete
    return [o.value for o in found.outcomes]


def test_a_value_of_another_type_than_declared_may_refuse_the_run():
    # W6W-FIELD-17: "Advisory; hosts SHOULD validate at trigger/run boundary" — a host that
    # validates refuses "5" for a number, one that does not runs: both permitted.
    found = outcomes(TYPED, {"variables": {"channel": "#ops", "n": "5"}})
    assert sorted(o["status"] for o in found) == ["failed", "succeeded"]
    refused = next(o for o in found if o["status"] == "failed")
    assert refused["error"]["code"] == "variable_type_mismatch" and refused["steps"] == {}
    assert [o["status"] for o in outcomes(TYPED, {"variables": {"channel": "#ops", "n": 5}})] == [
        "succeeded"
    ]


def test_declared_types_are_json_types():
    # W6W-FIELD-17's enumeration: "string" | "number" | "boolean" | "object" | "array";
    # true is not a number (A-03's reading of JSON numbers).
    from wforacle.model.w6w.semantics import VARIABLE_TYPES

    assert VARIABLE_TYPES["number"](1.5) and not VARIABLE_TYPES["number"](True)
    assert VARIABLE_TYPES["boolean"](False) and not VARIABLE_TYPES["object"]([])
    assert VARIABLE_TYPES["array"]([]) and not VARIABLE_TYPES["string"](None)


# -- when a strand launches (W6W-FAN-5, W6W-FAN-9; assumption A-74) ------------------------

FAN = workflow(
    app_step("r", fanOut="parallel"),
    app_step("x"),
    app_step("a"),
    app_step("b"),
    edges=[{"from": "r", "to": "x"}, {"from": "r", "to": "b"}, {"from": "x", "to": "a"}],
)
BOTH_FAIL = {
    "steps": {
        "a": {"attempts": [{"error": {"code": "a_failed", "message": "a"}}]},
        "b": {"attempts": [{"error": {"code": "b_failed", "message": "b"}}]},
    }
}


def launched(doc, scenario, **options):
    from wforacle.model.kernel.explore import explore
    from wforacle.model.w6w.semantics import config_key, outcome

    model = semantics(doc, scenario, **options)
    found = explore(model, lambda c: outcome(model, c), config_key)
    assert found.complete
    return sorted(
        (o.value["error"]["code"], tuple(sorted(o.value["steps"]))) for o in found.outcomes
    )


def test_the_launch_reading_is_selectable_and_eager_permits_fewer_runs():
    # W6W-FAN-9: "On a plain fail … the engine stops launching new steps".  A-74: with a
    # launch its own transition, b's failure can come before x or b ever launches; an
    # engine that launches from its completion handler ("eager") cannot leave them out.
    from wforacle.model.w6w.semantics import Launch, Options

    separate = launched(FAN, BOTH_FAIL)
    eager = launched(FAN, BOTH_FAIL, options=Options(launch=Launch.EAGER))
    assert ("b_failed", ("b", "r")) in separate and ("a_failed", ("a", "r", "x")) in separate
    assert eager == [("a_failed", ("a", "b", "r", "x")), ("b_failed", ("b", "r", "x"))]
    assert set(eager) < set(separate)
    # W6W-FAN-10 says the reported error does "not depend on timing"; it does (F-13).
    assert {code for code, _ in eager} == {"a_failed", "b_failed"}


def test_a_mixed_chain_is_refused_though_its_first_segment_is_a_root():
    # W6W-CHAIN-4: the arm refuses a chain that "mixes || and ??" and falls through to
    # <path>; the refused chain token keeps that path from counting as rooted (F-14).
    from wforacle.model.w6w.resolve import resolve_with

    text = "{{ vars.a || vars.b ?? vars.c }}"
    assert resolve_with(text, {"vars": {"a": "A", "b": "B", "c": "C"}}) == text
