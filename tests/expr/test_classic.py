"""json-logic-js 2.0.5's JSON Logic, the other reading of A-20 (model/expr/classic.py).

Each expected answer below is json-logic-js 2.0.5's own, taken by running it
(node, the package pinned in tests/differential/package.json); the
differential test there checks the port against the library on arbitrary
rules.  These cases hold where the two readings of A-20 part, so that a
change of either evaluator that erases the difference fails here without Node.
"""

from __future__ import annotations

import math

import pytest

from wforacle.model.expr import classic, jsonlogic
from wforacle.model.expr.js import UNDEFINED
from wforacle.model.expr.jsonlogic import JsonLogicError

NAN, INF, NEG_INF = "NaN", "Infinity", "-Infinity"

# (rule, data, json-logic-js's answer: a value, NaN/±Infinity/UNDEFINED, or an error name)
ANSWERS = [
    ({"-": [7, 2, 1]}, None, 5),  # a third operand is ignored (community: 4)
    ({"/": [8, 2, 2]}, None, 4),
    ({"/": [4]}, None, NAN),  # 4 / undefined (community: the reciprocal)
    ({">": [3, 2, 5]}, None, True),
    ({">=": [3, 3, 9]}, None, True),
    ({"<": [1, 5, 3]}, None, False),  # "between"
    ({"+": ["3 apples", 1]}, None, 4),  # parseFloat (community: NaN fails)
    ({"+": [" 4 ", "0x10"]}, None, 4),
    ({"*": ["3"]}, None, "3"),  # one operand: returned as it is
    ({"*": ["2", "2px"]}, None, 4),
    ({"missing": [""]}, {"a": 1}, []),  # var of "" is the whole data
    ({"missing": ["a", "b"]}, {"a": None, "b": ""}, ["a", "b"]),
    ({"cat": {"merge": [["a"], ["b"]]}}, None, "a,b"),  # wrapped, not spread
    ({"and": []}, None, UNDEFINED),
    ({"or": []}, None, UNDEFINED),
    ({"max": []}, None, NEG_INF),
    ({"min": [1, "x"]}, None, NAN),
    ({"==": [[1], 1]}, None, True),
    ({"==": [{"var": "o"}, {"var": "o"}]}, {"o": {"k": 1}}, True),  # one object
    ({"==": [None, 0]}, None, False),
    ({"<": ["10", "9"]}, None, True),
    ({"<": [[2], [10]]}, None, False),  # "2" < "10" as strings
    ({"%": [-7, 2]}, None, -1),
    ({"/": [1, 0]}, None, INF),
    ({"substr": ["abcdef", 1, "-2"]}, None, ""),  # temp.length + "-2" concatenates
    ({"substr": ["abcdef", -4, -1]}, None, "cde"),
    ({"in": ["", ""]}, None, False),  # !b
    ({"in": ["b", ["a", "b"]]}, None, True),
    ({"var": ["", 5]}, {"x": 1}, {"x": 1}),
    ({"missing_some": [1, ["a", "b"]]}, {"a": 1}, []),
    ({"if": [[], "t", "f"]}, None, "f"),
    ({"merge": [1, [2, [3]]]}, None, [1, 2, [3]]),
    ({"log": [1, 2]}, None, 1),
    ({"unknown": [1]}, None, Exception("Error")),
    ({"*": []}, None, Exception("TypeError")),
    ({"-": ["5"]}, None, -5),
    ({"reduce": [[1, 2, 3], {"+": [{"var": "current"}, {"var": "accumulator"}]}, 0]}, None, 6),
    ({"map": [{"var": "xs"}, {"*": [{"var": ""}, 2]}]}, {"xs": [1, 2]}, [2, 4]),
    ({"all": [[], True]}, None, False),
    ({"none": [[], True]}, None, True),
]


def _matches(found, expected):
    if expected == NAN:
        return isinstance(found, float) and math.isnan(found)
    if expected in (INF, NEG_INF):
        return found == (math.inf if expected == INF else -math.inf)
    if expected is UNDEFINED:
        return found is UNDEFINED
    if type(expected) is bool:
        return found is expected
    return type(found) is not bool and found == expected


@pytest.mark.parametrize(("rule", "data", "expected"), ANSWERS)
def test_the_classic_evaluator_answers_as_json_logic_js(rule, data, expected):
    if isinstance(expected, Exception):
        with pytest.raises(JsonLogicError) as failure:
            classic.evaluate(rule, data)
        assert failure.value.type == str(expected)
        return
    found = classic.evaluate(rule, data)
    assert _matches(found, expected), (rule, found, expected)


PARTING = [  # the rules where the readings part, and the community semantics' answer
    ({"-": [7, 2, 1]}, 4),
    ({"/": [4]}, 0.25),
    ({">": [3, 2, 5]}, False),
    ({"+": ["3 apples", 1]}, Exception("NaN")),
    ({"*": ["3"]}, 3),
    ({"cat": {"merge": [["a"], ["b"]]}}, "ab"),
    ({"and": []}, False),
    ({"/": [1, 0]}, Exception("NaN")),
]


@pytest.mark.parametrize(("rule", "community"), PARTING)
def test_the_two_readings_of_a_20_part_on_these_rules(rule, community):
    if isinstance(community, Exception):
        with pytest.raises(JsonLogicError) as failure:
            jsonlogic.evaluate(rule, None)
        assert failure.value.type == str(community)
    else:
        assert jsonlogic.evaluate(rule, None) == community
    classic_answer = next(e for r, _, e in ANSWERS if r == rule)
    assert not isinstance(classic_answer, Exception)  # json-logic-js answers a value
    if not isinstance(community, Exception):
        assert not _matches(community, classic_answer)


def test_the_classic_evaluator_is_bounded_as_the_community_one_is():
    # json-logic-js has no bound; the port keeps the model's.
    deep: object = 1
    for _ in range(200):
        deep = {"-": [deep]}
    with pytest.raises(JsonLogicError) as failure:
        classic.evaluate(deep, None)
    assert failure.value.thrown == {"type": "Limit Exceeded", "limit": "depth"}


def test_to_number_reads_ascii_digits_only():
    # ECMA-262's StrDecimalLiteral has the digits 0-9 alone; Python's float() and \d
    # also read other scripts' digits: +"١" (ARABIC-INDIC ONE) is NaN in JavaScript,
    # and the community evaluator answered 2 for {"+": ["١", 1]}.
    with pytest.raises(JsonLogicError):
        jsonlogic.evaluate({"+": ["\u0661", 1]}, None)
    assert math.isnan(classic.evaluate({"+": ["\u0661", 1]}, None))
