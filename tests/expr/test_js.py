"""JavaScript value semantics (model/expr/js.py), checked against ECMAScript's own examples."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wforacle.model.expr import js


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (1.0, "1"),
        (-0.0, "0"),
        (0.1, "0.1"),
        (1e21, "1e+21"),
        (1e-7, "1e-7"),
        (1e-6, "0.000001"),
        (123456789012345680000.0, "123456789012345680000"),
        (1.5e-10, "1.5e-10"),
        (0.30000000000000004, "0.30000000000000004"),
        (2**53, "9007199254740992"),
        (math.inf, "Infinity"),
        (math.nan, "NaN"),
        (-1.5, "-1.5"),
        (1e100, "1e+100"),
        (5e-324, "5e-324"),
        (12345.678, "12345.678"),
    ],
)
def test_number_to_string(number, text):
    assert js.number_to_string(number) == text


@pytest.mark.parametrize(
    ("value", "number"),
    [
        ("", 0.0),
        (" 12 ", 12.0),
        ("0x1A", 26.0),
        ("0b11", 3.0),
        ("0o17", 15.0),
        ("1e2", 100.0),
        (".5", 0.5),
        ("5.", 5.0),
        ("-Infinity", -math.inf),
        (None, 0.0),
        (True, 1.0),
        ([], 0.0),
        ([5], 5.0),
        (["7"], 7.0),
        ("\u00a0 3 \n", 3.0),
    ],
)
def test_to_number(value, number):
    assert js.to_number(value) == number


@pytest.mark.parametrize("value", ["abc", "-0x1", "1_000", "0x", "1e", [1, 2], {}, js.UNDEFINED])
def test_to_number_nan(value):
    assert math.isnan(js.to_number(value))


def test_to_string_of_structures():
    assert js.to_string([1, [2, 3], None, {}, True]) == "1,2,3,,[object Object],true"
    assert js.to_string({"a": 1}) == "[object Object]"
    assert js.to_string(None) == "null"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ([], False),
        ([0], True),
        ({}, True),
        ("", False),
        ("0", True),
        (0, False),
        (0.0, False),
        (math.nan, False),
        (None, False),
        (js.UNDEFINED, False),
        (-1, True),
    ],
)
def test_truthy(value, expected):
    assert js.truthy(value) is expected


def test_strict_equality_has_one_number_type_and_no_bool_numbers():
    assert js.strict_equals(1, 1.0)
    assert not js.strict_equals(True, 1)
    assert not js.strict_equals(math.nan, math.nan)
    assert not js.strict_equals([], [])
    shared = []
    assert js.strict_equals(shared, shared)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_number_to_string_round_trips(x):
    assert float(js.number_to_string(x)) == x


def test_utf16_semantics():
    assert js.utf16_length("a😀") == 3
    assert js.utf16_slice("a😀b", 1, 3) == "😀"
    # JavaScript orders by code unit: U+1F600 is D83D DE00, below U+FFFF.
    assert sorted(["\uffff", "😀"], key=js.utf16_key) == ["😀", "\uffff"]
    assert js.compare_strings("😀", "\uffff") == -1
    assert js.compare_strings("a", "b") == -1 and js.compare_strings("b", "b") == 0


@pytest.mark.parametrize("sign", [1, -1])
def test_an_integer_past_the_largest_number_is_infinity_not_an_overflow(sign):
    # Issue 19: float(10**400) raises OverflowError; JavaScript reads the literal as ±Infinity.
    huge = sign * 10**400
    assert js.to_number(huge) == sign * math.inf
    assert js.number_to_string(huge) == ("Infinity" if sign > 0 else "-Infinity")
    assert js.to_number("0x" + "f" * 400) == math.inf
    assert js.to_number(sign * 2**1023 * 3 // 2) == sign * float(2**1023 * 3 // 2)  # finite
