"""The compiled evaluator (model/expr/fast.py) against the plain one (model/expr/jsonlogic.py).

For every rule, data and bounds the two must agree on the value (its JSON
types too: 1, 1.0 and true are three answers) or on the failure: the same
exception class, the same thrown value and the same message, bound
violations included.  The fast path is checked three times per rule: on
its first evaluation (the plain path), on the second (which compiles it)
and on the third (which reuses it).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wforacle.model.expr import fast
from wforacle.model.expr.js import UNDEFINED
from wforacle.model.expr.jsonlogic import DEFAULT_LIMITS, OPERATORS, Limits, evaluate
from wforacle.oracle.jsonlogic_suite import load_cases
from wforacle.properties.strategies import jsonlogic as classic

SUITES = Path(__file__).resolve().parents[2].parent / "shared" / "external" / "jsonlogic" / "suites"
CASES = list(load_cases(SUITES)) if (SUITES / "index.json").exists() else []

# The bounds: the default, and small ones every generated rule can run into.
LIMITS = [
    DEFAULT_LIMITS,
    Limits(max_depth=1, max_steps=1, max_size=1),
    Limits(max_depth=2, max_steps=3, max_size=2),
    Limits(max_depth=3, max_steps=6, max_size=4),
    Limits(max_depth=4, max_steps=12, max_size=8),
    Limits(max_depth=6, max_steps=40, max_size=30),
    Limits(max_steps=0),
]


def typed(value: Any) -> Any:
    """A value with its types spelled out, so that equal answers are the same answer."""
    if value is UNDEFINED:
        return "undefined"
    if isinstance(value, float) and math.isnan(value):
        return ("float", "NaN")
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    if isinstance(value, dict):
        return ("dict", [(typed(k), typed(v)) for k, v in value.items()])
    return (type(value).__name__, value)


def outcome(evaluator: Any, rule: Any, data: Any, limits: Limits) -> Any:
    """What an evaluation gave: its typed value, or its exception's class, thrown value and text."""
    try:
        return ("value", typed(evaluator(rule, data, limits)))
    except Exception as failure:  # every class, so a stray Python error is a difference too
        return ("raised", type(failure), typed(getattr(failure, "thrown", None)), str(failure))


def assert_agree(rule: Any, data: Any, limits: Limits) -> None:
    expected = outcome(evaluate, rule, data, limits)
    for evaluation in ("first", "compiling", "compiled"):
        assert outcome(fast.evaluate, rule, data, limits) == expected, evaluation


# -- generated rules ----------------------------------------------------------------------

SCALARS = classic.SCALARS | st.sampled_from([-0.0, 1.5, "../a", "a.b", "", 2, [1, 2], ["a", 1]])
# Paths that climb out of an iterator's scope read what the iterator put there.
CLIMBS = st.builds(lambda up, path: "../" * up + path, st.integers(1, 3), classic.paths())
PATHS = classic.paths() | CLIMBS | st.sampled_from(["", "a\\.b", "../", "../iterator"])
VALS = st.sampled_from(
    [["a"], [[1], "a"], [[1], "index"], [[1], "iterator"], [[1], 0], [[2], "length"], "b", []]
)


@st.composite
def rules(draw: st.DrawFn, depth: int = 4) -> Any:
    """Every operator, in every argument shape, with arrays, unknown and multi-key operations."""
    if depth <= 0 or draw(st.integers(0, 3)) == 0:
        leaf = draw(st.integers(0, 5))
        if leaf == 0:
            return {"var": draw(PATHS)}
        if leaf == 1:
            return {"val": draw(VALS)}
        if leaf == 2:
            return draw(st.sampled_from([[], {}, {"preserve": {"a": 1}}, {"$": "a.b"}]))
        return draw(SCALARS)
    shape = draw(st.integers(0, 9))
    inner = rules(depth=depth - 1)
    if shape == 0:
        return draw(st.lists(inner, max_size=3))  # an array of rules
    if shape == 1:
        return {"a": draw(inner), "b": draw(inner)}  # two keys: no operation
    op = draw(st.sampled_from([*sorted(OPERATORS), "nope", "method"]))
    arguments = draw(st.integers(0, 3))
    if arguments == 0:
        return {op: draw(inner)}  # one operand, not in a list
    if arguments == 1:
        return {op: None}
    return {op: draw(st.lists(inner, max_size=4))}


DATA = classic.data() | st.fixed_dictionaries(
    {"a": st.integers(-3, 3), "b": st.lists(st.integers(-3, 3), max_size=4)}
)


@settings(max_examples=1000)
@given(rules(), DATA, st.sampled_from(LIMITS))
def test_generated_rules_agree(rule, data, limits):
    assert_agree(rule, data, limits)


@settings(max_examples=300)
@given(classic.rules(depth=4), classic.data(), st.sampled_from(LIMITS))
def test_classic_rules_agree(rule, data, limits):
    assert_agree(rule, data, limits)


# Every operator with each argument shape at its edges (deterministic: every pair is run).
EDGES = [None, "", "a", "a.b", "../a", 0, 1.5, True, [], {}, [""], ["a"], ["a", 1], [None]]
EDGES += [[[1]], [1, 2], [1, "2", None], {"var": "a"}, {"var": ""}, [{"var": "b"}, 1]]
EDGES += [[{"var": "a"}, {"var": "b"}, {"var": "c"}], {"preserve": [1, 2]}, [[], {}]]


@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_operators_agree_at_the_edges_of_their_arguments(op):
    for args in EDGES:
        for data in ({"a": 1, "b": [5, 6], "c": "x"}, {"a": None}, None, [3, 4]):
            for limits in LIMITS:
                assert_agree({op: args}, data, limits)


# What an iterator's mapper reads: its item, the scopes around it, a fold's accumulator.
READERS = [
    *({"var": path} for path in ["", "../0", "../1", "../length", "../../a", "../../../b"]),
    *({"var": path} for path in ["../iterator", "../index", "accumulator", "current", "../"]),
    *({"val": path} for path in [[[1], 0], [[1], "index"], [[1], "iterator"], [[2], "a"]]),
    *({"val": path} for path in [[[1], "length"], [[3], "b"], [[1], "accumulator"]]),
    {"exists": [[1], "index"]},
    {"+": [{"var": ""}, 1]},
    {"<": [{"var": ""}, 2]},
]
SELECTORS = [[1, 2, 3], [0, 0], [], ["a", [1]], {"var": "b"}, {"var": "a"}, None]
ITERATIONS = [
    rule
    for op in sorted(fast.ITERATORS)
    for selector in SELECTORS
    for reader in READERS
    for rule in (
        {op: [selector, reader]},
        {op: [selector, {op: [selector, reader]}]},  # a scope inside a scope
        {op: [selector, reader, 0]},
    )
]


@pytest.mark.parametrize("limits", LIMITS, ids=repr)
def test_iterators_agree_on_every_scope_they_build(limits):
    for data in ({"a": 1, "b": [5, 6]}, {"a": [1], "b": None}, None):
        for rule in ITERATIONS:
            assert_agree(rule, data, limits)


# -- the suites and the hostile rules of the plain evaluator's tests ---------------------------


@pytest.mark.skipif(not CASES, reason=f"JSON Logic suites not found at {SUITES}")
@pytest.mark.parametrize("limits", LIMITS, ids=repr)
def test_every_suite_case_agrees(limits):
    for case in CASES:
        assert_agree(case.rule, case.data, limits)


def nest(depth: int, wrap: Any, seed: Any = 1) -> Any:
    rule = seed
    for _ in range(depth):
        rule = wrap(rule)
    return rule


HOSTILE = {
    "deep operations": nest(5000, lambda r: {"+": [r, 1]}),
    "deep arrays": nest(5000, lambda r: [r]),
    "deep if": nest(5000, lambda r: {"if": [True, r, 0]}),
    "deep var": nest(5000, lambda r: {"var": r}),
    "deep try": nest(3000, lambda r: {"try": [r]}),
    "deep map": nest(500, lambda r: {"map": [[1], r]}),
    "at the depth bound": nest(127, lambda r: {"+": [r, 1]}),
    "past the depth bound": nest(128, lambda r: {"+": [r, 1]}),
    "doubling merge": {"reduce": [list(range(60)), {"merge": [{"var": "accumulator"}] * 2}, [1]]},
    "doubling cat": {"reduce": [list(range(60)), {"cat": [{"var": "accumulator"}] * 2}, "ab"]},
    "nested map": {"map": [list(range(100)), {"map": [list(range(100)), {"+": [1, 1]}]}]},
    "try a limit": {"try": [nest(500, lambda r: {"+": [r, 1]}), "caught"]},
    "try a throw": {"try": [{"throw": "oops"}, {"var": "type"}]},
    "two keys": {"+": [1], "-": [2]},
    "unknown": {"method": ["x", "toUpperCase"]},
}


@pytest.mark.parametrize("rule", list(HOSTILE.values()), ids=list(HOSTILE))
@pytest.mark.parametrize("limits", [DEFAULT_LIMITS, Limits(max_steps=5000), Limits(max_size=50)])
def test_hostile_rules_agree(rule, limits):
    assert_agree(rule, {}, limits)


def test_a_depth_bound_beyond_the_compiled_one_is_the_plain_path():
    deep = Limits(max_depth=fast.DEEPEST + 100)
    for depth in (fast.DEEPEST, fast.DEEPEST + 50, fast.DEEPEST + 100):
        assert_agree(nest(depth, lambda r: {"+": [r, 1]}), {}, deep)


@pytest.fixture
def empty_cache(monkeypatch):
    monkeypatch.setattr(fast, "_compiled", {})
    monkeypatch.setattr(fast, "_seen", {})
    monkeypatch.setattr(fast, "_weight_kept", 0)


def test_a_rule_is_compiled_on_its_second_evaluation_and_kept(empty_cache):
    rule = {"+": [{"var": "a"}, 1]}
    assert fast.evaluate(rule, {"a": 1}) == 2.0
    assert not fast._compiled and fast._seen == {id(rule): True}
    assert fast.evaluate(rule, {"a": 2}) == 3.0
    assert list(fast._compiled) == [id(rule)] and not fast._seen
    assert fast.evaluate(rule, {"a": 3}) == 4.0
    assert fast._compiled[id(rule)][0] is rule


def test_what_is_kept_is_bounded_in_count_and_in_weight(empty_cache, monkeypatch):
    kept = [{"var": str(i)} for i in range(fast.CACHED + 10)]
    for rule in kept:
        fast.evaluate(rule, {})
        fast.evaluate(rule, {})
    assert len(fast._compiled) <= fast.CACHED and len(fast._seen) <= fast.CACHED
    assert id(kept[-1]) in fast._compiled
    monkeypatch.setattr(fast, "KEPT", 100)
    for rule in kept[:50]:
        fast.evaluate(rule, {})
        fast.evaluate(rule, {})
    weights = [entry[4] for entry in fast._compiled.values()]
    assert sum(weights) == fast._weight_kept <= 100


def test_a_heavy_rule_is_left_to_the_plain_path(empty_cache):
    heavy = {"cat": ["x" * 16 * fast.HEAVIEST]}
    for _ in range(3):
        assert fast.evaluate(heavy) == "x" * 16 * fast.HEAVIEST
    assert not fast._compiled and fast._seen == {id(heavy): False}
