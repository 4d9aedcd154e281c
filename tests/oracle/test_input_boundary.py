"""Issue 19: one strict JSON boundary (grammar/jsontext.py, A-154) under every reader.

Each reader of a user's or an engine's JSON refuses NaN, Infinity, 1e400 and
nesting past MAX_DEPTH with a message, never a RecursionError or a value
the rest of wforacle cannot carry.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wforacle.grammar import jsontext
from wforacle.grammar.parts import ExprPart, VarPart
from wforacle.grammar.template import Mode, parse_body
from wforacle.model.diagnostics import InvalidCase, InvalidInput
from wforacle.model.harness.loader import load as load_harness
from wforacle.oracle.fixtures import load_case, load_outcomes, spec_of
from wforacle.oracle.jsonlogic_suite import SuiteError, load_cases
from wforacle.properties.registry import SPECIFICATIONS
from wforacle.properties.specification import copy_case, parse_json, schedule_of

MAX = jsontext.MAX_DEPTH


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_nesting_up_to_the_bound_is_read_and_past_it_refused_with_a_path():
    assert jsontext.loads(nested(MAX)) is not None
    with pytest.raises(jsontext.NotStrictJson, match=r"deeper than 256 \(at \$\[0\]"):
        jsontext.loads(nested(MAX + 1))
    with pytest.raises(jsontext.NotStrictJson, match=r"at \$\[\"a\"\]\[1\]"):
        jsontext.check({"a": [0, json.loads(nested(MAX - 1))]})


def _walked(text: str, surrogates: bool) -> bool:
    """Whether the whole walk (``check``) accepts the value of ``text``."""
    try:
        jsontext.check(json.loads(text), surrogates)
    except jsontext.NotStrictJson:
        return False
    return True


@given(
    st.recursive(
        st.none() | st.integers() | st.text(alphabet='ab[{\\\ud800u"') | st.just("\\ud800"),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text("k[", max_size=2), inner)
        ),
        max_leaves=8,
    ),
    st.integers(0, 3),
    st.booleans(),
    st.booleans(),
)
def test_what_loads_accepts_without_the_walk_the_walk_accepts(value, wrap, deep, surrogates):
    # loads skips the walk when the text's brackets and escapes rule out what it refuses
    # (issue 16): it must refuse exactly what the walk refuses.
    text = json.dumps(value, ensure_ascii=bool(wrap % 2))
    if deep:
        text = "[" * (MAX - wrap) + text + "]" * (MAX - wrap)
    try:
        jsontext.loads(text, surrogates)
        accepted = True
    except jsontext.NotStrictJson:
        accepted = False
    assert accepted == _walked(text, surrogates)


@pytest.mark.parametrize("depth", [990, 5_000, 100_000])
def test_nesting_past_the_recursion_limit_is_refused_not_an_internal_error(depth):
    with pytest.raises(InvalidInput, match="nest deeper than 256"):
        parse_json(nested(depth), "doc.json")


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}', "1e400"])
def test_non_finite_numbers_are_not_json(text):
    with pytest.raises(InvalidInput, match="is not JSON"):
        parse_json(text, "doc.json")


# -- fixture folders (conform) ------------------------------------------------------------


def case_folder(tmp_path, **files):
    here = tmp_path / "0000-case"
    here.mkdir(parents=True)
    defaults = {
        "manifest.json": '{"spec": "w6w"}',
        "document.json": '{"steps": []}',
        "scenario.json": "{}",
        "schedule.json": "[]",
        "outcomes.json": "[]",
    }
    for name, text in {**defaults, **files}.items():
        (here / name).write_text(text)
    return here


@pytest.mark.parametrize(
    "name", ["manifest.json", "document.json", "scenario.json", "schedule.json", "replay.json"]
)
def test_a_fixture_file_nested_too_deeply_makes_the_case_unreadable(tmp_path, name):
    here = case_folder(tmp_path, **{name: nested(5_000)})
    with pytest.raises(InvalidCase, match="nest deeper"):
        load_case(spec_of(here), here)


def test_deep_or_non_finite_outcomes_make_the_case_unreadable(tmp_path):
    with pytest.raises(InvalidCase, match="nest deeper"):
        load_outcomes(case_folder(tmp_path, **{"outcomes.json": nested(990)}))
    with pytest.raises(InvalidCase, match="NaN is not JSON"):
        load_outcomes(case_folder(tmp_path / "b", **{"outcomes.json": "[NaN]"}))


@pytest.mark.parametrize("schedule", ["{}", '"0"', "[0.5]", '["1"]', "[true]", "[[1]]", "null"])
def test_a_schedule_that_is_not_an_array_of_integers_is_refused(tmp_path, schedule):
    here = case_folder(tmp_path, **{"schedule.json": schedule})
    with pytest.raises(InvalidCase, match=r"schedule\.json"):
        load_case(SPECIFICATIONS["w6w"], here)


def test_a_schedule_of_integers_is_kept():
    assert schedule_of([0, 3, -1, 10**40]) == [0, 3, -1, 10**40]


# -- the other readers ----------------------------------------------------------------------


def test_a_jsonlogic_suite_file_nested_too_deeply_is_a_suite_error(tmp_path):
    (tmp_path / "index.json").write_text('["a.json"]')
    (tmp_path / "a.json").write_text(f'[{{"rule": {nested(990)}, "result": 1}}]')
    with pytest.raises(SuiteError, match="nest deeper"):
        list(load_cases(tmp_path))


def test_a_jsonlogic_suite_entry_that_is_no_case_is_a_suite_error(tmp_path):
    # Only description strings may stand among the cases; [1, 2] was "0/0 passed".
    (tmp_path / "index.json").write_text('["a.json"]')
    (tmp_path / "a.json").write_text("[1, 2]")
    with pytest.raises(SuiteError, match=r"a.json\[0\]: expected a case object"):
        list(load_cases(tmp_path))


def test_a_template_payload_nested_too_deeply_is_no_expr_marker():
    # "=" not followed by (strict, bounded) JSON is a var part.
    assert isinstance(parse_body("=" + nested(MAX), Mode.EDITOR).part, ExprPart)
    for body in ("=" + nested(5_000), "=NaN", "=[1e400]"):
        assert isinstance(parse_body(body, Mode.EDITOR).part, VarPart), body


@pytest.mark.parametrize("value", ["NaN", "1e400", "-Infinity", nested(990), nested(100_000)])
def test_a_harness_json_attribute_must_be_strict_bounded_json(value):
    element = f'<node id="a" impl="a"><input name="v" value="{value}"/></node>'
    document = f'<harness id="h">{element}</harness>'
    _, problems = load_harness(document)
    assert any(p.code == "bad_value" for p in problems), problems


@pytest.mark.parametrize(
    "replay", ["[1]", '{"runState": {}, "from": ["x"]}', '{"runState": {"steps": [1]}}']
)
def test_a_replay_json_of_the_wrong_shape_makes_the_case_unreadable(tmp_path, replay):
    # Issue 19: these were a KeyError, a TypeError (unhashable) and an AttributeError.
    document = (Path(__file__).parents[2] / "examples" / "w6w" / "daily-report.json").read_text()
    here = case_folder(tmp_path, **{"document.json": document, "replay.json": replay})
    spec = SPECIFICATIONS["w6w"]
    with pytest.raises(InvalidInput):
        spec.prepare(load_case(spec, here), None)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_a_copied_case_is_equal_and_shares_nothing_mutable(value):
    """copy_case: what copy.deepcopy gives, with no list or object of the original in it."""
    copied = copy_case({"document": value, "again": value})
    assert copied == {"document": value, "again": value}
    originals = {id(v) for v in _containers(value)}
    assert not originals & {id(v) for v in _containers(copied)}


def test_a_value_pickle_refuses_is_copied_by_deepcopy():
    """A lambda cannot be pickled: copy_case copies around it as copy.deepcopy does."""
    value = {"rule": lambda: None, "items": [1, 2]}
    copied = copy_case(value)
    assert copied["rule"] is value["rule"] and copied["items"] == [1, 2]
    assert copied["items"] is not value["items"]


def _containers(value):
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict | list):
            yield item
            stack.extend(item.values() if isinstance(item, dict) else item)
