"""wforacle's JSONLogic evaluator against json-logic-js and json-logic-engine.

The fast tests draw well-typed rules on which the classic json-logic-js
semantics and the community semantics must agree exactly: any difference is
a finding.  The long campaign (``-m slow``) draws arbitrary rules and
requires every difference to fall in a class docs/jsonlogic.md explains.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from wforacle.model.expr.jsonlogic import evaluate
from wforacle.oracle.differential import (
    JS_TAG,
    NodeJsonLogic,
    ReferenceUnavailable,
    compare,
    ours,
    same_json,
)
from wforacle.properties.strategies.jsonlogic import data, rules, typed_cases


def reference(implementation):
    try:
        return NodeJsonLogic(implementation)
    except ReferenceUnavailable as exc:
        pytest.skip(f"{exc}; install with: npm ci --prefix tests/differential")


@pytest.fixture(scope="module")
def json_logic_js():
    ref = reference("js")
    yield ref
    ref.close()


@pytest.fixture(scope="module")
def json_logic_engine():
    ref = reference("engine")
    yield ref
    ref.close()


@settings(max_examples=300)
@given(typed_cases())
def test_typed_rules_agree_with_json_logic_js(json_logic_js, case):
    rule, values = case
    verdict = compare(ours(rule, values), json_logic_js.apply(rule, values), rule)
    assert verdict.kind == "same", verdict


@settings(max_examples=300)
@given(typed_cases())
def test_typed_rules_agree_with_json_logic_engine(json_logic_engine, case):
    rule, values = case
    verdict = compare(ours(rule, values), json_logic_engine.apply(rule, values), rule, "engine")
    # json-logic-engine's one bug on well-typed rules: a path through "" or
    # false stops there ({"var": "s.length"} on "" is "").
    assert verdict.kind in ("same", "engine-stops-at-falsy"), verdict


def test_json_logic_engine_stops_a_path_at_a_falsy_value(json_logic_engine):
    # Why the class "engine-stops-at-falsy" exists: JavaScript's "".length is 0.
    rule, values = {"var": "s.length"}, {"s": ""}
    assert ours(rule, values) == {"value": 0}
    assert json_logic_engine.apply(rule, values) == {"value": ""}


def test_addition_rounds_left_to_right_like_javascript(json_logic_engine):
    # Found by the differential campaign: exact summation (math.fsum) differs
    # from JavaScript's left-to-right rounding.
    operands = [-1.25, 1e-07, -2, 3.5, 0.1]
    expected = 0.0
    for x in operands:
        expected += x
    assert evaluate({"+": operands}) == expected
    assert json_logic_engine.apply({"+": operands}, None) == {"value": expected}


@pytest.mark.parametrize(
    ("script", "fault"),
    [
        ("import time; time.sleep(30)", "hung or died"),
        ("import sys; sys.stdin.readline(); print('not json', flush=True)", "non-JSON"),
        ("import sys; sys.stdin.readline(); sys.exit(3)", "hung or died"),
        ("import sys; sys.stdin.readline(); print('[1]', flush=True)", "answered"),
    ],
    ids=["hang", "garbage", "crash", "wrong-shape"],
)
def test_a_misbehaving_reference_is_a_fault_within_the_timeout(monkeypatch, script, fault):
    import subprocess
    import sys
    import time

    from wforacle.oracle.differential import ReferenceFault

    ref = reference("js")
    ref.timeout = 1.0
    monkeypatch.setattr(
        ref,
        "_start",
        lambda: subprocess.Popen(
            [sys.executable, "-c", script],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        ),
    )
    start = time.monotonic()
    with pytest.raises(ReferenceFault, match=fault):
        ref.apply({"+": [1, 1]}, None)
    assert time.monotonic() - start < 5
    ref.close()


@pytest.mark.slow
@settings(max_examples=5000)
@given(rules(), data())
def test_arbitrary_rules_diverge_only_in_documented_classes(json_logic_js, rule, values):
    verdict = compare(ours(rule, values), json_logic_js.apply(rule, values), rule)
    assert verdict.agrees, verdict


# -- A-20's other reading: model/expr/classic.py is json-logic-js 2.0.5 ---------------------


def classic_outcome(rule, values):
    """The classic port's outcome in the reference's shape (non-finite and undefined as null)."""
    from wforacle.model.expr import classic
    from wforacle.model.expr.jsonlogic import JsonLogicError, to_json

    try:
        return {"value": to_json(classic.evaluate(rule, values))}
    except JsonLogicError as failure:
        return {"error": {"type": failure.type}}


def _tags_as_null(value):
    if isinstance(value, dict):
        if set(value) == {JS_TAG}:
            return None
        return {k: _tags_as_null(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_tags_as_null(v) for v in value]
    return value


def _same_outcome(mine, theirs):
    if "error" in mine or "error" in theirs:
        return "error" in mine and "error" in theirs
    return same_json(mine["value"], _tags_as_null(theirs["value"]))


@settings(max_examples=300)
@given(rules(), data())
def test_the_classic_reading_is_json_logic_js_on_arbitrary_rules(json_logic_js, rule, values):
    # The model under A-20 = classic must be the library an engine calls: no difference
    # class at all (20,000 rules at once when written: none).
    assert _same_outcome(classic_outcome(rule, values), json_logic_js.apply(rule, values))


@pytest.mark.slow
@settings(max_examples=5000)
@given(rules(), data())
def test_the_classic_reading_is_json_logic_js_at_length(json_logic_js, rule, values):
    assert _same_outcome(classic_outcome(rule, values), json_logic_js.apply(rule, values))
