"""The evaluator beyond the community suites: limits, hostile input, w6w's ``??``."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wforacle.model.expr.jsonlogic import OPERATORS, JsonLogicError, Limits, evaluate, to_json
from wforacle.properties.strategies.w6w import json_values


def nest(depth, wrap, seed=1):
    rule = seed
    for _ in range(depth):
        rule = wrap(rule)
    return rule


@pytest.mark.parametrize(
    "rule",
    [
        nest(5000, lambda r: {"+": [r, 1]}),
        nest(5000, lambda r: [r]),
        nest(5000, lambda r: {"if": [True, r, 0]}),
        nest(5000, lambda r: {"var": r}),
        nest(3000, lambda r: {"try": [r]}),
        nest(500, lambda r: {"map": [[1], r]}),
    ],
    ids=["ops", "arrays", "if", "var", "try", "map"],
)
def test_deep_rules_end_in_a_limit_error_not_a_recursion_error(rule):
    with pytest.raises(JsonLogicError) as failure:
        evaluate(rule, {})
    assert failure.value.type == "Limit Exceeded"


@pytest.mark.parametrize("op", ["merge", "cat"])
def test_doubling_is_bounded_in_size(op):
    seed = [1] if op == "merge" else "ab"
    rule = {
        "reduce": [list(range(60)), {op: [{"var": "accumulator"}, {"var": "accumulator"}]}, seed]
    }
    with pytest.raises(JsonLogicError) as failure:
        evaluate(rule)
    assert failure.value.thrown == {"type": "Limit Exceeded", "limit": "size"}


def test_work_is_bounded_in_steps():
    rule = {"map": [list(range(100)), {"map": [list(range(100)), {"+": [1, 1]}]}]}
    with pytest.raises(JsonLogicError):
        evaluate(rule, None, Limits(max_steps=5000))
    assert len(evaluate(rule)) == 100


def test_try_cannot_swallow_a_limit():
    rule = {"try": [nest(500, lambda r: {"+": [r, 1]}), "caught"]}
    with pytest.raises(JsonLogicError) as failure:
        evaluate(rule)
    assert failure.value.type == "Limit Exceeded"


def test_coalesce_is_absent_only():
    # W6W-CHAIN-2: "null/undefined short-circuit; 0, "", false, [] are kept".
    for kept in (0, "", False, []):
        assert evaluate({"??": [{"var": "a"}, kept, "x"]}, {}) == kept
    assert evaluate({"??": [{"var": "a"}, {"var": "b"}, "x"]}, {"a": None}) == "x"


def test_or_is_truthy_short_circuit():
    # W6W-CHAIN-1: "JSONLogic or semantics (truthy short-circuit)".
    assert evaluate({"or": [{"var": "a"}, "x"]}, {"a": 0}) == "x"
    assert evaluate({"or": [{"var": "a"}, "x"]}, {"a": "v"}) == "v"


def test_a_comparison_chain_stops_at_its_first_false_comparison():
    # docs/jsonlogic.md "Lazy chains": the operands after a false comparison are not
    # evaluated.
    assert evaluate({"<": [3, 1, {"throw": "x"}]}) is False
    assert evaluate({"==": [1, 2, {"throw": "x"}]}) is False
    with pytest.raises(JsonLogicError) as failure:
        evaluate({"<": [1, 3, {"throw": "x"}]})
    assert failure.value.thrown == {"type": "x"}


def test_empty_arithmetic_and_in_without_a_container():
    # docs/jsonlogic.md: + and * of nothing are their identities; -, /, %, max and min
    # of nothing fail; in is false for a falsy or missing container and fails on a
    # truthy one that is neither a string nor an array (A-21: JavaScript's TypeError).
    assert evaluate({"+": []}) == 0 and evaluate({"*": []}) == 1
    for op in ("-", "/", "%", "max", "min"):
        with pytest.raises(JsonLogicError) as failure:
            evaluate({op: []})
        assert failure.value.thrown == {"type": "Invalid Arguments"}, op
    for container in (None, False, 0, ""):
        assert evaluate({"in": ["a", container]}) is False
    assert evaluate({"in": ["a"]}) is False
    for container in (5, True, {"preserve": {"a": 1}}):
        with pytest.raises(JsonLogicError):
            evaluate({"in": ["a", container]})


def test_unknown_and_multi_key_operations_fail_naming_the_key():
    with pytest.raises(JsonLogicError) as failure:
        evaluate({"method": ["x", "toUpperCase"]})
    assert failure.value.thrown == {"type": "Unknown Operator", "key": "method"}
    with pytest.raises(JsonLogicError):
        evaluate({"+": [1], "-": [2]})


def test_results_are_json_numbers():
    assert to_json(evaluate({"+": [1, 2]})) == 3 and isinstance(
        to_json(evaluate({"+": [1, 2]})), int
    )
    assert to_json(evaluate({"/": [1, 4]})) == 0.25


@st.composite
def rules(draw, depth=3):
    if depth == 0 or draw(st.booleans()):
        return draw(json_values(4))
    op = draw(st.sampled_from(sorted(OPERATORS)))
    args = draw(st.lists(rules(depth=depth - 1), max_size=3))
    return {op: args if draw(st.booleans()) else (args[0] if args else None)}


@given(rules(), json_values(8))
def test_evaluation_never_raises_anything_but_a_jsonlogic_error(rule, data):
    try:
        to_json(evaluate(rule, data))
    except JsonLogicError as failure:
        assert isinstance(failure.type, str)
