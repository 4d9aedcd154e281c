"""The documented contracts' JSON Schemas accept what wforacle writes and reject damage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator, ValidationError
from referencing import Registry, Resource

from wforacle.model.kernel.lts import execute
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
