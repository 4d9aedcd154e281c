"""Graph-level validation rules (properties/w6w/validate.py), one test per rule."""

from __future__ import annotations

import pytest

from wforacle.properties.w6w.validate import key_conflicts, validate

from .helpers import app_step, codes, diagnostics, workflow


def control(step_id, action, **with_):
    return {"id": step_id, "uses": {"app": "@w6w/control", "action": action}, "with": with_}


def test_duplicate_step_ids_are_rejected():
    # W6W-PLAN-1: "Reject duplicate step ids."; W6W-FIELD-7 "Unique within the workflow."
    found = diagnostics(workflow(app_step("a"), app_step("b"), app_step("a")))
    assert [(d["code"], d["path"], d["clause"]) for d in found] == [
        ("duplicate_step_id", "$.steps[2].id", "W6W-PLAN-1")
    ]
    assert "$.steps[0].id" in found[0]["message"]


def test_dangling_edges_are_rejected_at_either_end():
    # W6W-PLAN-3: "Reject edges referencing unknown step ids (from or to)."
    doc = workflow(app_step("a"), edges=[{"from": "a", "to": "x"}, {"from": "y", "to": "a"}])
    found = diagnostics(doc)
    assert [(d["code"], d["path"]) for d in found] == [
        ("dangling_edge", "$.edges[0].to"),
        ("dangling_edge", "$.edges[1].from"),
    ]


def test_error_edges_are_validated_like_any_edge():
    # W6W-EDGE-9: "dangling endpoints and cycles are rejected at load time".
    doc = workflow(
        app_step("a"),
        app_step("b"),
        edges=[
            {"from": "a", "to": "b", "when": "error"},
            {"from": "b", "to": "a", "when": "error"},
            {"from": "a", "to": "nowhere", "when": "error"},
        ],
    )
    assert sorted(codes(doc)) == ["cycle", "dangling_edge"]


def test_cycles_are_rejected_naming_their_steps():
    # W6W-PLAN-6: "Reject cycles (topological sort fails to consume all nodes)."
    doc = workflow(
        app_step("a"),
        app_step("b"),
        app_step("c"),
        app_step("d"),
        edges=[
            {"from": "a", "to": "b"},
            {"from": "b", "to": "c"},
            {"from": "c", "to": "a"},
            {"from": "d", "to": "d"},
        ],
    )
    found = [d for d in diagnostics(doc) if d["code"] == "cycle"]
    assert [d["message"] for d in found] == [
        "the steps a → b → c → a form a cycle",
        "the steps d → d form a cycle",
    ]
    assert [d["path"] for d in found] == ["$.edges[2]", "$.edges[3]"]


def test_a_success_and_an_error_edge_may_share_a_target():
    # W6W-EDGE-11: "A success edge and an error edge MAY share a target."
    doc = workflow(
        app_step("a"),
        app_step("b", ports={"in": 2}),
        edges=[{"from": "a", "to": "b"}, {"from": "a", "to": "b", "when": "error"}],
    )
    assert codes(doc) == []


def test_edges_touching_a_sub_block_step_are_rejected():
    # W6W-EDGE-10: "an edge touching such a step is already rejected at plan time".
    doc = workflow(
        app_step("a"),
        control("loop", "foreach", items=[1, 2], body=[app_step("inner")]),
        control("branch", "if", then=[app_step("yes")], **{"else": [app_step("no")]}),
        control("fan", "parallel", branches=[[app_step("p1")], [app_step("p2")]]),
        edges=[
            {"from": "a", "to": "inner"},
            {"from": "yes", "to": "a"},
            {"from": "a", "to": "p2", "when": "error"},
            {"from": "a", "to": "loop"},
        ],
    )
    found = diagnostics(doc)
    assert [(d["code"], d["path"], d["clause"]) for d in found] == [
        ("edge_touches_sub_block_step", "$.edges[0].to", "W6W-EDGE-10"),
        ("edge_touches_sub_block_step", "$.edges[1].from", "W6W-EDGE-10"),
        ("edge_touches_sub_block_step", "$.edges[2].to", "W6W-EDGE-10"),
    ]


def test_sub_block_steps_are_checked_like_main_steps():
    doc = workflow(control("loop", "foreach", body=[{"id": "x.y"}, app_step("a")]), app_step("a"))
    found = diagnostics(doc)
    assert ("dotted_step_id", "$.steps[0].with.body[0].id") in [
        (d["code"], d["path"]) for d in found
    ]
    assert ("step_not_runnable", "$.steps[0].with.body[0].uses") in [
        (d["code"], d["path"]) for d in found
    ]
    # a sub-block id shared with another step is a warning.
    assert ("duplicate_nested_step_id", "$.steps[0].with.body[1].id") in [
        (d["code"], d["path"]) for d in found
    ]


def test_retry_on_control_and_call_steps_is_never_read():
    # W6W-RETRY-5: "still subject to the well-formedness rules above, but it is never read";
    # W6W-RETRY-6: "Authoring tools SHOULD NOT offer retry on these step kinds."
    call = {"id": "c", "uses": {"app": "@w6w/call", "action": "x"}, "retry": {"maxAttempts": 2}}
    ctl = {**control("w", "wait"), "retry": {"maxAttempts": 2}}
    report = validate(workflow(call, ctl)).report
    assert report.codes() == ["retry_never_read", "retry_never_read"] and report.valid
    bad = {**call, "retry": {"maxAttempts": 0}}
    assert codes(workflow(bad)) == ["invalid_retry_max_attempts"]


@pytest.mark.parametrize(
    "key",
    ["ab", "a" * 40, "Abc", "1abc", "abc_def", "abc--def", "abc-", "-abc", "ab c", "abc\n", "abç"],
)
def test_invalid_keys_are_refused_on_first_assignment(key):
    # W6W-KEY-1 / W6W-KEY-5 grammar; the whole key must match (A-01, F-01).
    report = validate(workflow(key=key)).report
    assert report.codes() == ["invalid_key"] and not report.storable


@pytest.mark.parametrize("key", ["abc", "a" * 39, "a1-b2-c3", "daily-report", "x9z"])
def test_valid_keys(key):
    assert codes(workflow(key=key)) == []


def test_key_grammar_is_checked_only_on_first_assignment():
    # W6W-KEY-3 "checked only at the moment a key moves from absent/null to present";
    # W6W-KEY-7 "Never re-validate a stored key".
    stored = workflow(key="legacy_key")
    assert codes(workflow(key="legacy_key"), previous=stored) == []
    assert codes(workflow(key="legacy_key"), previous=workflow()) == ["invalid_key"]
    assert codes(workflow(key="legacy_key"), previous=workflow(key=None)) == ["invalid_key"]


def test_keys_are_unique_per_account_but_names_are_not():
    # W6W-KEY-2 / W6W-KEY-6 partial uniqueness; W6W-KEY-8 "Never enforce uniqueness on name."
    docs = [
        workflow(key="same-key"),
        workflow(),
        workflow(),
        workflow(key="same-key"),
        workflow(key="other-key"),
    ]
    loaded = [validate(d).workflow for d in docs]
    conflicts = list(key_conflicts(loaded))
    assert [(i, d.code, d.clause) for i, d in conflicts] == [(3, "key_conflict", "W6W-KEY-6")]


def test_fan_in_beyond_ports_in_warns():
    # W6W-FAN-1 default ports.in is 1; W6W-FAN-12 enforced by editor and import only.
    edges = [{"from": "a", "to": "c"}, {"from": "b", "to": "c"}]
    report = validate(workflow(app_step("a"), app_step("b"), app_step("c"), edges=edges)).report
    assert report.codes() == ["fan_in_exceeds_ports"] and report.valid
    declared = workflow(app_step("a"), app_step("b"), app_step("c", ports={"in": 2}), edges=edges)
    assert codes(declared) == []


def test_fan_out_beyond_ports_out_warns_per_lane():
    # W6W-FAN-12: "out bounds how many edges may leave a lane"; default "many" (W6W-FAN-1).
    edges = [
        {"from": "a", "to": "b"},
        {"from": "a", "to": "c"},
        {"from": "a", "to": "d", "when": "error"},
    ]
    steps = [app_step("b"), app_step("c"), app_step("d")]
    assert codes(workflow(app_step("a"), *steps, edges=edges)) == []
    assert codes(workflow(app_step("a", ports={"out": "many"}), *steps, edges=edges)) == []
    report = validate(workflow(app_step("a", ports={"out": 1}), *steps, edges=edges)).report
    assert report.codes() == ["fan_out_exceeds_ports"] and report.valid
    assert codes(workflow(app_step("a", ports={"out": 2}), *steps, edges=edges)) == []
    assert codes(workflow(app_step("a", ports={"out": "lots"}), *steps)) == ["invalid_ports"]
