"""Field-level rules of the loader, one test (or more) per rule."""

from __future__ import annotations

import math

import pytest

from wforacle.model.w6w.document import Backoff, FanOut, OnError, When
from wforacle.model.w6w.loader import load_workflow
from wforacle.properties.w6w.validate import validate

from .helpers import app_step, codes, diagnostics, workflow


def test_the_rfc_example_is_valid_and_loads_every_field():
    doc = workflow(
        app_step(
            "fetch",
            retry={"maxAttempts": 3, "backoff": "exponential", "delayMs": 1000},
            onError="continue-record",
            fanOut="parallel",
        ),
        app_step("post"),
        edges=[{"from": "fetch", "to": "post", "when": "error"}],
        key="daily-report",
    )
    result = validate(doc)
    assert result.report.valid, result.report.codes()
    fetch = result.workflow.steps[0]
    assert fetch.retry.max_attempts == 3 and fetch.retry.backoff is Backoff.EXPONENTIAL
    assert fetch.on_error is OnError.CONTINUE_RECORD and fetch.fan_out is FanOut.PARALLEL
    assert result.workflow.edges[0].when is When.ERROR


def test_defaults_apply_when_fields_are_omitted():
    # W6W-FIELD-13 onError "fail" (default); W6W-FAN-3 fanOut absent ⇒ sequential;
    # W6W-FIELD-15 / W6W-EDGE-3 when omitted means "success"; W6W-FIELD-12 no retry;
    # W6W-FIELD-21 backoff "fixed" (default); W6W-FIELD-20 / W6W-FIELD-22 maxAttempts
    # and delayMs as given.
    wf = validate(workflow(app_step("a"), app_step("b"), edges=[{"from": "a", "to": "b"}])).workflow
    a = wf.steps[0]
    assert a.on_error is OnError.FAIL and a.fan_out is FanOut.SEQUENTIAL and a.retry is None
    assert wf.edges[0].when is When.SUCCESS
    policy = validate(workflow(app_step("a", retry={"maxAttempts": 1}))).workflow.steps[0].retry
    assert (policy.max_attempts, policy.backoff, policy.delay_ms) == (1, Backoff.FIXED, 0)


@pytest.mark.parametrize("field", ["manifestVersion", "id", "name", "steps"])
def test_required_workflow_fields(field):
    # W6W-FIELD-1, W6W-FIELD-26 (id), W6W-FIELD-27 (name), W6W-FIELD-4: required members.
    doc = workflow()
    del doc[field]
    found = diagnostics(doc)
    assert {"code": "missing_field", "path": f"$.{field}"} in [
        {"code": d["code"], "path": d["path"]} for d in found
    ]


def test_manifest_version_must_be_2():
    # W6W-FIELD-1: "Core spec version. "2" for the workflow model."
    assert "unsupported_manifest_version" in codes(workflow(manifestVersion="1"))
    assert "wrong_type" in codes(workflow(manifestVersion=2))


def test_at_least_one_step():
    # W6W-FIELD-4: "The graph nodes. At least one."
    doc = workflow()
    doc["steps"] = []
    assert codes(doc) == ["no_steps"]


def test_name_should_be_kebab_case_but_only_warns():
    # W6W-FIELD-3: "Lowercase, kebab-case." — and never enforced unique (W6W-KEY-8).
    report = validate(workflow(name="Daily_Report")).report
    assert report.codes() == ["name_not_kebab_case"] and report.valid


@pytest.mark.parametrize("bad_id", ["a.b", "steps.x", "."])
def test_dotted_step_id_is_refused_on_save(bad_id):
    # W6W-FIELD-9: "MUST NOT contain ."; W6W-FIELD-8: refused when saved.
    report = validate(workflow(app_step(bad_id))).report
    assert report.codes() == ["dotted_step_id"]
    assert not report.storable
    assert report.diagnostics[0].path == "$.steps[0].id"


def test_empty_step_id_is_refused():
    # Assumption A-05.
    assert codes(workflow(app_step(""))) == ["empty_step_id"]


@pytest.mark.parametrize(
    ("retry", "code", "field"),
    [
        ({"maxAttempts": 0}, "invalid_retry_max_attempts", "maxAttempts"),
        ({"maxAttempts": -3}, "invalid_retry_max_attempts", "maxAttempts"),
        ({"maxAttempts": 1.5}, "invalid_retry_max_attempts", "maxAttempts"),
        ({"maxAttempts": "3"}, "invalid_retry_max_attempts", "maxAttempts"),
        ({"maxAttempts": True}, "invalid_retry_max_attempts", "maxAttempts"),
        ({}, "invalid_retry_max_attempts", "maxAttempts"),
        ({"maxAttempts": 2, "delayMs": -1}, "invalid_retry_delay", "delayMs"),
        ({"maxAttempts": 2, "delayMs": math.inf}, "invalid_retry_delay", "delayMs"),
        ({"maxAttempts": 2, "delayMs": math.nan}, "invalid_retry_delay", "delayMs"),
        ({"maxAttempts": 2, "delayMs": "10"}, "invalid_retry_delay", "delayMs"),
        ({"maxAttempts": 2, "delayMs": None}, "invalid_retry_delay", "delayMs"),
        ({"maxAttempts": 2, "backoff": "linear"}, "invalid_retry_backoff", "backoff"),
        ({"maxAttempts": 2, "backoff": None}, "invalid_retry_backoff", "backoff"),
    ],
)
def test_malformed_retry_policy_is_refused_on_write_naming_the_field(retry, code, field):
    # W6W-RETRY-7: reject a malformed policy "with a 400 naming the offending
    # field's path"; W6W-RETRY-1, W6W-RETRY-2, W6W-RETRY-3 the shape rules;
    # W6W-RETRY-4 every save site.
    for doc, prefix in (
        (workflow(app_step("a", retry=retry)), "$.steps[0].retry"),
        (workflow(retry=retry), "$.retry"),
    ):
        report = validate(doc).report
        assert report.codes() == [code]
        assert report.diagnostics[0].path == f"{prefix}.{field}"
        assert not report.storable


@pytest.mark.parametrize(
    "retry",
    [
        None,
        {"maxAttempts": 1},
        {"maxAttempts": 10**12},
        {"maxAttempts": 3.0},
        {"maxAttempts": 2, "delayMs": 0},
        {"maxAttempts": 2, "delayMs": 2.5, "backoff": "fixed"},
    ],
)
def test_well_formed_retry_is_accepted(retry):
    # W6W-RETRY-8: "Accept an absent or null retry as no retry, and accept any
    # integer maxAttempts >= 1 with no upper bound." 3.0 is an integer (A-03).
    assert codes(workflow(app_step("a", retry=retry))) == []


def test_retry_that_is_not_an_object_is_refused():
    # W6W-RETRY-7
    assert codes(workflow(app_step("a", retry=3))) == ["invalid_retry"]


@pytest.mark.parametrize(("field", "value"), [("onError", "ignore"), ("fanOut", "many")])
def test_step_enumerations(field, value):
    # W6W-FIELD-13 (onError), W6W-FAN-3 (fanOut).
    assert codes(workflow(app_step("a", **{field: value}))) == [
        "invalid_on_error" if field == "onError" else "invalid_fan_out"
    ]


def test_workflow_on_error_enumeration():
    # W6W-RUNERR-4: "fail" (and absent) or "continue" (assumption A-09).
    assert codes(workflow(onError="continue")) == []
    assert codes(workflow(onError="continue-record")) == ["invalid_on_error"]


@pytest.mark.parametrize("when", ["failure", "", None, 1])
def test_edge_when_outside_the_enum_is_rejected(when):
    # W6W-EDGE-3: "A host MUST reject a when value outside the two-member enum".
    doc = workflow(app_step("a"), app_step("b"), edges=[{"from": "a", "to": "b", "when": when}])
    assert codes(doc) == ["invalid_when"]


def test_edge_needs_from_and_to():
    doc = workflow(app_step("a"), edges=[{"to": "a"}])
    assert codes(doc) == ["missing_field"]


def test_presentation_fields_never_change_a_result():
    # W6W-PRES-1: "byte-for-byte identical with them present, absent, or arbitrary".
    plain = workflow(app_step("a"), app_step("b", notes="hi"), edges=[{"from": "a", "to": "b"}])
    noisy = workflow(
        app_step("a", position="nowhere", notes={"x": [1]}),
        app_step("b", position={"x": "1", "y": None}, notes=7),
        edges=[{"from": "a", "to": "b"}],
        settings=["not", "an", "object"],
    )
    assert validate(plain).report == validate(noisy).report


@pytest.mark.parametrize(
    ("settings", "auto_save", "save_position"),
    [
        (None, True, True),
        ({}, True, True),
        ({"autoSave": False}, False, True),
        ({"savePosition": False}, True, False),
        ({"autoSave": None, "savePosition": 0}, True, True),
    ],
)
def test_settings_default_to_true(settings, auto_save, save_position):
    # W6W-FIELD-6 / W6W-PRES-2: "settings.autoSave ?? true"; W6W-PRES-3 "Only an
    # explicit false turns a feature off"; W6W-PRES-4 never read an omission as false.
    doc = workflow() if settings is None else workflow(settings=settings)
    wf = validate(doc).workflow
    assert (wf.settings.auto_save, wf.settings.save_position) == (auto_save, save_position)


def test_unknown_members_are_ignored():
    doc = workflow(app_step("a", futureField=1), somethingNew={"x": 1})
    assert codes(doc) == []


def test_draft_without_uses_is_storable_but_not_runnable():
    # RFC note under the Step table: "it is not a storage-time constraint".
    for step in ({"id": "a"}, {"id": "a", "uses": {"app": "x"}}, {"id": "a", "uses": {}}):
        report = validate(workflow(step)).report
        assert report.codes() == ["step_not_runnable"]  # W6W-FIELD-10
        assert report.storable and not report.valid


def test_variables():
    # W6W-FIELD-16 key required; W6W-FIELD-17 type advisory; A-08 duplicate keys.
    doc = workflow(variables=[{"key": "a", "type": "text"}, {"type": "string"}, {"key": "a"}])
    assert sorted(codes(doc)) == [
        "duplicate_variable_key",
        "missing_field",
        "unknown_variable_type",
    ]
    wf = validate(workflow(variables=[{"key": "c", "required": True, "default": "#ops"}])).workflow
    assert wf.variables[0].has_default and wf.variables[0].default == "#ops"


def test_every_problem_is_reported_at_once():
    doc = workflow(
        app_step("a.b", retry={"maxAttempts": 0}),
        {"id": 5},
        app_step("c", onError="explode"),
        edges=[{"from": "c", "to": "zz", "when": "sometimes"}],
        manifestVersion="3",
    )
    assert sorted(codes(doc)) == sorted(
        [
            "dotted_step_id",
            "invalid_retry_max_attempts",
            "wrong_type",
            "invalid_on_error",
            "invalid_when",
            "dangling_edge",
            "unsupported_manifest_version",
        ]
    )


@pytest.mark.parametrize("document", [None, 1, "x", [], [{}], True])
def test_a_document_that_is_not_an_object(document):
    workflow_, found = load_workflow(document)
    assert workflow_ is None and [d.code for d in found] == ["wrong_type"]
