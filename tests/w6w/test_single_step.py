"""The single-step test of a workflow step (Amendment 2026-10-12, whole-value bindings)."""

from __future__ import annotations

import pytest

from wforacle.model.w6w.resolve import ResolutionError
from wforacle.model.w6w.single_step import test_step as single_step
from wforacle.properties.w6w.validate import validate

from .helpers import app_step, workflow


def load(**with_):
    return validate(workflow(app_step("fetch"), app_step("post", **{"with": with_}))).workflow


def test_fails_before_invocation_naming_the_step_when_a_binding_has_no_output():
    # W6W-BIND-6: "fail before invocation, naming the step, when a $ binding references a
    # step that has no output in the supplied state".
    wf = load(text={"$": "steps.fetch.output.items"})
    with pytest.raises(ResolutionError) as failure:
        single_step(wf, "post", {"steps": {}})
    assert failure.value.code == "binding_without_output"
    assert "'post'" in failure.value.message and "'fetch'" in failure.value.message


def test_bindings_inside_expr_count_too():
    # the RFC's example writes {"$expr": {"join": ["\n", {"$": "steps.fetch.output.items"}]}}.
    wf = load(text={"$expr": {"join": ["\n", {"$": "steps.fetch.output.items"}]}})
    with pytest.raises(ResolutionError):
        single_step(wf, "post", {"steps": {}})
    assert single_step(wf, "post", {"steps": {"fetch": {"output": {"items": ["a", "b"]}}}}) == {
        "text": "a\nb"
    }


def test_a_full_run_resolves_the_same_binding_to_null():
    # The deliberate difference of W6W-BIND-6 from W6W-BIND-4.
    from wforacle.model.w6w.resolve import resolve_with

    assert resolve_with({"text": {"$": "steps.fetch.output.items"}}, {"steps": {}}) == {
        "text": None
    }


def test_a_recorded_null_output_resolves_to_null():
    # W6W-BIND-7: "resolve a recorded null output to null".
    wf = load(whole={"$": "steps.fetch.output"}, meta={"$": "steps.fetch.meta"})
    assert single_step(wf, "post", {"steps": {"fetch": {"output": None}}}) == {
        "whole": None,
        "meta": None,
    }


def test_resolves_in_one_pass_and_hands_on_no_marker():
    # W6W-BIND-5: "a payload that contains { "$": … } or {{ … }} reaches the action
    # verbatim"; W6W-BIND-8: never an unresolved marker or ExprValue; W6W-BIND-1 the
    # whole-output form.
    wf = load(
        payload={"$": "steps.fetch.output"},
        note={
            "type": "expr",
            "parts": [{"kind": "text", "value": "n="}, {"kind": "var", "ref": "vars.n"}],
        },
    )
    output = {"$": "vars.n", "t": "{{ vars.n }}"}
    params = single_step(wf, "post", {"vars": {"n": 3}, "steps": {"fetch": {"output": output}}})
    assert params == {"payload": output, "note": "n=3"}
