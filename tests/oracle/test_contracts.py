"""The documented contracts' JSON Schemas accept what wforacle writes and reject damage."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, ValidationError
from referencing import Registry, Resource

from wforacle.model.kernel.lts import execute
from wforacle.oracle.engine import Engine, judge
from wforacle.oracle.fixtures import write_suite
from wforacle.properties.w6w.specification import W6W

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def schema(name: str) -> dict:
    return json.loads((DOCS / name).read_text())


REGISTRY = Registry().with_resources(
    (s["$id"], Resource.from_contents(s))
    for s in map(
        schema,
        [
            "trace.schema.json",
            "scenario.schema.json",
            "fixture.schema.json",
            "engine-protocol.schema.json",
            "harness-trace.schema.json",
            "workfile-trace.schema.json",
        ],
    )
)


def validator(name: str, definition: str | None = None) -> Draft202012Validator:
    root = schema(name)
    target = {"$ref": f"{root['$id']}#/$defs/{definition}"} if definition else root
    return Draft202012Validator(target, registry=REGISTRY)


def test_every_schema_is_a_valid_schema():
    for path in DOCS.glob("*.schema.json"):
        Draft202012Validator.check_schema(json.loads(path.read_text()))


def test_a_written_suite_matches_the_fixture_schema(tmp_path):
    write_suite(W6W, tmp_path / "s", 4, seed_value=9)
    validator("fixture.schema.json", "suite").validate(
        json.loads((tmp_path / "s" / "suite.json").read_text())
    )
    for case in sorted((tmp_path / "s").glob("0*")):
        validator("fixture.schema.json", "manifest").validate(
            json.loads((case / "manifest.json").read_text())
        )
        validator("fixture.schema.json", "outcomes").validate(
            json.loads((case / "outcomes.json").read_text())
        )
        validator("scenario.schema.json").validate(json.loads((case / "scenario.json").read_text()))
    damaged = json.loads((case / "manifest.json").read_text()) | {"format": "other/2"}
    with pytest.raises(ValidationError):
        validator("fixture.schema.json", "manifest").validate(damaged)


def test_model_traces_match_the_trace_schema():
    case = {
        "document": {
            "manifestVersion": "2",
            "id": "wf",
            "name": "one",
            "steps": [{"id": "a", "uses": {"app": "demo", "action": "run"}, "retry": None}],
        },
        "scenario": {"steps": {"a": {"attempts": [{"error": {"code": "x", "message": "m"}}]}}},
    }
    trace = execute(W6W.prepare(case, None).semantics).trace
    validator("trace.schema.json").validate(trace)
    with pytest.raises(ValidationError):
        validator("trace.schema.json").validate([{"event": "teleported"}])


def test_protocol_messages_match_the_protocol_schema():
    check = validator("engine-protocol.schema.json")
    for message in (
        {"type": "ready", "protocol": 1, "engine": "toyflow"},
        {"type": "invoke", "call": 1, "step": "a", "input": {}},
        {"type": "wait"},
        {"type": "result", "call": 1, "output": None, "idempotent": False},
        {"type": "done", "run": "r", "state": {"status": "succeeded"}},
    ):
        check.validate(message)
    with pytest.raises(ValidationError):
        check.validate({"type": "ready", "protocol": 2})


def test_the_oracle_s_workfile_messages_match_the_protocol_schema():
    # Issue 13: the Workfile messages are in the same schema as w6w's and Harness's.
    from wforacle.properties.workfile.execution import answer, interrupts, prepare
    from wforacle.properties.workfile.selftest import SELFTEST

    check = validator("engine-protocol.schema.json")
    for _, case in SELFTEST:
        prepared = prepare(dict(case, schedule=[]))
        check.validate(prepared.request)
        for event in execute(prepared.semantics).trace:  # events of the Workfile trace schema
            check.validate({"type": "event", "run": "run_1", "event": event})
        for step in ("a", "p.a.x", "c.(run).a"):
            check.validate({"type": "result", "call": 1, **answer(prepared, step, 1)})
        for interrupt in interrupts(prepared).values():
            check.validate({**interrupt.message, **({"late": []} if interrupt.late else {})})
    scripted = {"attempts": {"a": [{"error": "svc.busy", "details": {"n": 1}, "retryAfterMs": 5}]}}
    prepared = prepare(dict(SELFTEST[1][1], scenario=scripted, schedule=[]))
    check.validate({"type": "result", "call": 1, **answer(prepared, "a", 1)})
    with pytest.raises(ValidationError):
        check.validate({"type": "expire"})  # which step's timeout


def test_the_oracle_s_state_form_messages_match_the_protocol_schema():
    # Issue 15: stimuli and quiet (docs/workfile-stateful.md).
    from wforacle.properties.workfile.execution import idle, interrupts, prepare

    check = validator("engine-protocol.schema.json")
    examples = ROOT / "examples" / "workfile"
    case = {
        "document": (examples / "approval.workfile.yaml").read_text(),
        "manifests": {
            p.stem: p.read_text() for p in sorted((examples / "manifests").glob("*.yaml"))
        },
        "scenario": json.loads((examples / "approval.scenario.json").read_text()),
    }
    case["scenario"]["events"].append({"wait": 9, "at": 86400000})
    prepared = prepare(case)
    check.validate(prepared.request)
    sent = [i.message for i in interrupts(prepared).values()]
    assert [m["type"] for m in sent] == ["accept", "accept", "advance"]
    quiet = idle(prepared)
    assert quiet is not None
    for message in [*sent, quiet.message]:
        check.validate(message)
    with pytest.raises(ValidationError):
        check.validate({"type": "accept", "at": 0, "event": "chat.decision", "payload": {}})


class _Recording(Engine):
    """An engine whose every message, both ways, is kept."""

    def __init__(self, command: str) -> None:
        super().__init__(command)
        self.messages: list[dict] = []

    def read(self) -> dict:
        message = super().read()
        self.messages.append(message)
        return message

    def write(self, message: dict) -> None:
        self.messages.append(message)
        super().write(message)


# A loop whose second iteration skips `u` and whose first fails `u`; an error edge, a
# decision routed and a decision skipped, a retry, a skipped node; an `any` join that
# cancels a running node (node_cancelled, and the engine's `cancel`); an unbound input;
# a compensation.
_LOOP = (
    '<harness id="h"><node id="p"><output name="xs"/></node>'
    '<loop id="l" over="p.xs"><node id="u"><guard>params.item != 2</guard>'
    '<output name="y"/></node><node id="w"/></loop>'
    '<node id="after"/><edge from="p" to="l"/><edge from="l" to="after"/></harness>'
)
_XS = {"attempts": [{"outputs": {"xs": [1, 2]}}]}
_FAILS = {"error": {"code": "t"}}
_ROUTES = (
    '<harness id="h"><node id="f"><output name="v"/><retry maxAttempts="2"/></node>'
    '<node id="h1"/><decision id="d"><guard>params.go == true</guard>'
    '<case to="b" when="params.x == 1"/><case to="c"/></decision>'
    '<node id="b"/><node id="c"/><node id="s"><guard>false</guard></node>'
    '<edge from="f" to="h1" type="error"/><edge from="f" to="d"/></harness>'
)
_ANY = (
    '<harness id="h"><node id="s"/><node id="fast"/><node id="slow1"/><node id="slow2"/>'
    '<node id="j" joinPolicy="any"/>'
    '<edge from="s" to="fast"/><edge from="s" to="slow1"/><edge from="slow1" to="slow2"/>'
    '<edge from="fast" to="j"/><edge from="slow2" to="j"/></harness>'
)
_HARNESS_CASES = [
    (_LOOP, {"nodes": {"p": _XS}}, []),
    (_LOOP, {"nodes": {"p": _XS, "u": {"attempts": [{"error": {"code": "bad"}}]}}}, []),
    (_ROUTES, {"params": {"go": True, "x": 1}}, []),
    (_ROUTES, {"params": {"go": False, "x": 1}}, []),
    (_ROUTES, {"params": {"go": True}, "nodes": {"f": {"attempts": [_FAILS]}}}, []),
    (_ANY, {}, [0, 0]),
    ('<harness id="h"><node id="r"><input name="q" required="true"/></node></harness>', {}, []),
    (
        '<harness id="h"><node id="a"/><node id="f"/><node id="k"/>'
        '<edge from="a" to="f"/><edge from="a" to="k" type="compensation"/></harness>',
        {"nodes": {"f": {"attempts": [_FAILS]}}},
        [],
    ),
]


def _events(trace: list[dict]) -> set[str]:
    return {e["event"] for e in trace} | {
        name for e in trace for inner in e.get("inner", []) for name in _events(inner)
    }


def test_a_harness_engine_s_messages_match_the_protocol_schema():
    # Every message hx-lite and the oracle exchange over docs/engine-protocol.md,
    # "Harness engines": its events are the Harness trace schema's, and the protocol
    # schema takes them (it took only w6w's).
    from wforacle.properties.harness.specification import HARNESS

    check = validator("engine-protocol.schema.json")
    engine = _Recording(f"{sys.executable} {ROOT / 'examples' / 'engines' / 'harness_engine.py'}")
    try:
        for document, scenario, schedule in _HARNESS_CASES:
            case = {"document": document, "scenario": scenario, "schedule": schedule}
            assert judge(engine, HARNESS, case).verdict == "pass"
    finally:
        engine.stop()
    kinds = {m["type"] for m in engine.messages}
    events = _events([m["event"] for m in engine.messages if m["type"] == "event"])
    assert {"ready", "run", "event", "invoke", "wait", "result", "cancel", "done"} <= kinds
    assert events == {
        "instance_started",
        "node_started",
        "node_succeeded",
        "node_retrying",
        "node_failed",
        "node_skipped",
        "decision_routed",
        "node_cancelled",
        "node_compensated",
        "instance_completed",
    }
    for message in engine.messages:
        check.validate(message)
    results = [m for m in engine.messages if m["type"] == "result"]
    assert any("outputs" in m for m in results) and any("error" in m for m in results)
    with pytest.raises(ValidationError):
        check.validate({"type": "event", "run": "run_1", "event": {"event": "node_started"}})


# -- the trace schema of each specification (issue 18, part 3) ---------------------------

TRACE_SCHEMAS = {
    "w6w": "trace.schema.json",
    "harness": "harness-trace.schema.json",
    "workfile": "workfile-trace.schema.json",
}


def _model_traces(spec_name: str, profile: str | None, count: int) -> list[list[dict]]:
    """The model's traces of ``count`` campaign cases (``profile``: a fixture profile's)."""
    from hypothesis import HealthCheck, Phase, given, seed, settings

    from wforacle.model.diagnostics import InvalidCase
    from wforacle.properties.registry import SPECIFICATIONS
    from wforacle.properties.strategies.hermetic import hermetic

    spec = SPECIFICATIONS[spec_name]
    traces = []

    @seed(5)
    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(spec.cases() if profile is None else spec.suites[profile]())
    def collect(case: dict) -> None:
        with contextlib.suppress(InvalidCase):  # a case the model cannot run
            traces.append(execute(spec.prepare(case, None).semantics).trace)

    with hermetic():
        collect()
    return traces


@pytest.mark.parametrize(
    ("spec", "profile"),
    [("w6w", None), ("harness", None), ("workfile", None), ("workfile", "workfile-stateful")],
)
def test_every_event_the_model_emits_matches_its_specification_s_trace_schema(spec, profile):
    # The campaigns' own cases: what an engine is sent and must answer with these events.
    check = validator(TRACE_SCHEMAS[spec])
    traces = _model_traces(spec, profile, 80)
    assert len(traces) > 40
    for trace in traces:
        check.validate(trace)


@pytest.mark.parametrize("spec", sorted(TRACE_SCHEMAS))
def test_the_hand_written_cases_events_match_the_trace_schema(spec):
    # The conformance and protocol-selftest cases reach events campaigns rarely draw
    # (Workfile's timer_fired and child_cancel_requested, Harness's node_cancelled).
    from wforacle.model.diagnostics import InvalidCase
    from wforacle.properties.registry import SPECIFICATIONS

    chosen = SPECIFICATIONS[spec]
    named, concurrent = chosen.selftest()
    cases = [c.case for c in chosen.conformance()] + [case for _, case in named] + [concurrent]
    check, events = validator(TRACE_SCHEMAS[spec]), set()
    for case in filter(None, cases):
        try:
            trace = execute(chosen.prepare(dict(case, schedule=[]), None).semantics).trace
        except InvalidCase:
            continue
        check.validate(trace)
        events |= {e["event"] for e in trace}
    assert len(events) >= 4


@pytest.mark.parametrize(
    ("spec", "damaged"),
    [
        ("w6w", {"event": "teleported"}),
        ("harness", {"event": "node_started", "inputs": {}}),  # which node
        ("harness", {"event": "node_started", "node": "a", "inputs": {}, "bogus": 1}),
        ("harness", {"event": "node_started", "node": "a", "attempt": 1, "retry": True}),
        ("harness", {"event": "node_failed", "node": "a", "error": "HX-4101", "resource": "r"}),
        ("harness", {"event": "instance_completed", "status": "done"}),
        ("workfile", {"event": "attempt_started", "step": "a", "attempt": 0, "input": {}}),
        ("workfile", {"event": "attempt_finished", "step": "a", "attempt": 1, "result": "ok"}),
        ("workfile", {"event": "entry_exited", "entry": "S[1]", "by": "immediate"}),
        ("workfile", {"event": "run_finished", "outcome": "completed"}),
    ],
)
def test_a_trace_schema_rejects_a_damaged_event(spec, damaged):
    with pytest.raises(ValidationError):
        validator(TRACE_SCHEMAS[spec]).validate([damaged])


def _workfile_trace_validates(data, suite: str | None) -> None:
    from wforacle.model.diagnostics import InvalidCase
    from wforacle.properties.workfile.specification import WORKFILE

    case = data.draw(WORKFILE.cases() if suite is None else WORKFILE.suites[suite]())
    try:
        prepared = WORKFILE.prepare(case, None)
    except InvalidCase:
        return
    trace = execute(prepared.semantics, max_steps=5000).trace
    validator("workfile-trace.schema.json").validate(trace)


# A stranger validated the model's own events against workfile-trace.schema.json and
# found result: null (a dry run's wholly suppressed stop result, a child's) refused.
# Every generated case's model trace, Core and state-form, must validate.
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_generated_workfile_model_traces_match_the_trace_schema(data):
    _workfile_trace_validates(data, None)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_generated_state_form_model_traces_match_the_trace_schema(data):
    _workfile_trace_validates(data, "workfile-stateful")


def test_a_wholly_suppressed_dry_run_stop_result_is_null_in_the_schema():
    from wforacle.properties.strategies.workfile_runs import MANIFEST
    from wforacle.properties.workfile.specification import WORKFILE

    document = (
        'steps:\n  - w: { svc.send: {} }\n  - st: { wf.stop: { reason: x, result: "{{ w }}" } }\n'
    )
    case = {"document": document, "manifests": {"svc": MANIFEST},
            "scenario": {"dryRun": True}, "schedule": []}  # fmt: skip
    trace = execute(WORKFILE.prepare(case, None).semantics).trace
    assert trace[-1]["result"] is None and trace[-1]["suppressed"] == ["$"]
    validator("workfile-trace.schema.json").validate(trace)
