"""Evaluating Workfile expressions (A-117) and the outcome-dependent null (WF-BIND-1/2)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wforacle.model.workfile.evaluate import EvaluationFault, evaluate, resolve
from wforacle.model.workfile.expr import parse

ENV = {
    "inputs": {"n": 3, "name": "Ada", "tags": ["a", "b"]},
    "fetch": {"id": 7, "items": [1, 2, 3], "meta": None},
    "flag": True,
}


def value(text: str, env=ENV):
    return evaluate(parse(text), env)


def test_a_reference_to_a_step_that_did_not_succeed_reads_null_and_continues_through_it():
    # WF-BIND-1: it "resolves to null"; WF-BIND-2: "Member access and indexing can continue".
    assert value("failed_step") is None
    assert value("failed_step.a.b[0]") is None
    assert value("fetch.meta.version") is None
    assert value("fetch.items[9]") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("fetch.items[1] + inputs.n", 5),
        ("inputs.name + '!'", "Ada!"),
        ("inputs.tags + ['c']", ["a", "b", "c"]),
        ("6 / 3", 2),
        ("7 % 4", 3),
        ("'a' in inputs.tags", True),
        ("'id' in fetch", True),
        ("1 == 1.0", True),
        ("true == 1", False),
        ("inputs.n if flag else 0", 3),
        ("fetch.meta | default('none')", "none"),
        ("inputs.tags | length", 2),
        ("inputs.tags | join(', ')", "a, b"),
        ("fetch | keys", ["id", "items", "meta"]),
        ("inputs.name | upper", "ADA"),
        ("{'k': fetch.id, 'l': [1]}", {"k": 7, "l": [1]}),
    ],
)
def test_operators_and_filters(text, expected):
    assert value(text) == expected


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("inputs.name.first", "expression.type"),  # a string has no members
        ("not inputs.n", "expression.type"),  # booleans only
        ("inputs.n if inputs.name else 0", "expression.type"),
        ("1 / 0", "expression.division_by_zero"),
        ("inputs.name < 3", "expression.type"),
        ("inputs.n | shout", "expression.filter"),
        ("fetch.items['x']", "expression.type"),
        # Issue 19: integers past the float range (an 8,000-digit product could not be written).
        (f"{'9' * 300} * {'9' * 300}", "expression.overflow"),
        (f"{'9' * 300} * {'9' * 300} / 1", "expression.overflow"),
    ],
)
def test_faults_have_codes(text, code):
    with pytest.raises(EvaluationFault) as caught:
        value(text)
    assert caught.value.code == code


@pytest.mark.parametrize("text", ["n / 1", "n + 0.5", "n * 1"])
def test_arithmetic_on_an_integer_past_the_float_range_is_an_overflow(text):
    # A scenario's output may hold such an integer (strict JSON allows 4,300 digits).
    with pytest.raises(EvaluationFault) as caught:
        evaluate(parse(text), {"n": 10**400})
    assert caught.value.code == "expression.overflow"


def test_short_circuit_skips_the_faulting_operand():
    assert value("false and (1 / 0 == 1)") is False
    assert value("true or (1 / 0 == 1)") is True


def test_templates_keep_a_whole_value_and_interpolate_text():
    assert resolve({"a": "{{ fetch.items }}", "b": "n={{ inputs.n }} m={{ fetch.meta }}"}, ENV) == {
        "a": [1, 2, 3],
        "b": "n=3 m=",
    }
    # An explicitly supplied null stays in the argument map (WF-STEP-8).
    assert resolve({"x": None, "y": "{{ fetch.meta }}"}, ENV) == {"x": None, "y": None}


@given(st.integers(-100, 100), st.integers(-100, 100))
def test_arithmetic_agrees_with_python_on_integers(a, b):
    env = {"a": a, "b": b}
    assert evaluate(parse("a + b * 2 - a"), env) == a + b * 2 - a
    assert evaluate(parse("a < b"), env) == (a < b)


def test_an_unknown_filter_is_refused_when_the_document_is_validated():
    from wforacle.properties.workfile.validate import validate

    report = validate('steps:\n  - a: { crm.x: { v: "{{ 1 | shout | length }}" } }').report
    assert [(d.code, d.clause) for d in report.diagnostics] == [("document.expression", "A-117")]


@pytest.mark.parametrize(
    "text",
    [
        "-" * 3000 + "1",
        "not " * 3000 + "x",
        " + ".join(["1"] * 20_000),
        "[" * 2000 + "]" * 2000,
        "x" + "[0]" * 5000,
        "x" + ".a" * 20_000,
        "x" + " | default(1)" * 1000,
        "1 if x else " * 100 + "2",
        "9" * 5000,
        "1e400",
    ],
)
def test_a_hostile_expression_is_refused_when_parsed(text):
    # Issue 19: nesting past 64 and non-finite literals, never a RecursionError.
    from wforacle.model.workfile.expr import ExprError

    with pytest.raises(ExprError):
        parse(text)


def test_expressions_within_the_nesting_bound_parse():
    parse(" + ".join(["1"] * 64))
    parse("[" * 63 + "]" * 63)
