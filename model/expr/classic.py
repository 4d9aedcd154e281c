"""json-logic-js 2.0.5's JSON Logic: the other reading of assumption A-20.

A-20 — @w6w/expr is "JSONLogic-based" and not included, so the model reads it
as the JSON Logic community semantics (``model/expr/jsonlogic.py``); the
other reading is json-logic-js 2.0.5, the classic implementation, which most
engines written in JavaScript simply call.  Its sub-readings A-24 (``missing``
of the empty path is never missing: ``var`` of ``""`` is the whole data) and
A-25 (a computed argument list is wrapped, not spread) are part of it.  This
module is that library's ``apply`` over the values of ``model/expr/js.py``,
operation for operation, so that the model can be run under it
(``Options(jsonlogic="classic")``) and an engine that took it is told so
rather than called wrong (docs/readings.md).

Notation: a value is a JSON value, ``UNDEFINED``, or a float NaN or
±Infinity — what json-logic-js computes before anything is written out.
``to_json`` writes a result as JSON.stringify would inside an array
(non-finite numbers and undefined as null).

Where json-logic-js would throw — an unrecognised operation, ``*`` with no
operand, ``missing_some`` of null — evaluation raises ``JsonLogicError``
with JavaScript's error name as its type (``Error``, ``TypeError``).  The
bounds of A-23 apply as they do to the community evaluator (json-logic-js
has none; a rule that reaches them would overflow its stack).  As in the
community evaluator, a path reads own members only (A-22).
"""

from __future__ import annotations

import math
import re
from typing import Any

from wforacle.model.expr import js
from wforacle.model.expr.js import UNDEFINED
from wforacle.model.expr.jsonlogic import (
    DEFAULT_LIMITS,
    LIMIT_EXCEEDED,
    JsonLogicError,
    Limits,
    get_property,
    to_json,
)

JSON = Any

__all__ = ["evaluate", "to_json"]


def evaluate(rule: JSON, data: JSON = None, limits: Limits = DEFAULT_LIMITS) -> Any:
    """``jsonLogic.apply(rule, data)``; raise ``JsonLogicError`` where it throws."""
    return _Classic(limits).apply(rule, data)


def _throw(kind: str, message: str) -> JsonLogicError:
    return JsonLogicError({"type": kind, "message": message})


def _at(values: list[Any], index: int) -> Any:
    """``values[index]``: undefined past the end."""
    return values[index] if index < len(values) else UNDEFINED


class _Classic:
    """One evaluation: json-logic-js's ``apply``, with A-23's budget."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.steps = 0
        self.depth = 0

    def apply(self, logic: Any, data: Any) -> Any:
        kind = type(logic)
        if kind is list:
            self._enter()
            result = [self.apply(item, data) for item in logic]
            self.depth -= 1
            return result
        # ``is_logic``: an object with exactly one key; anything else is a literal.
        if kind is not dict or len(logic) != 1:
            return logic
        self._enter()
        ((op, values),) = logic.items()
        if type(values) is not list:
            values = [values]  # "easy syntax for unary operators"
        special = _SPECIAL.get(op)
        if special is not None:
            result = special(self, values, data)
        else:
            values = [self.apply(value, data) for value in values]
            operation = _OPERATIONS.get(op)
            if operation is None:
                # A dotted name walks the operations table, whose members are
                # functions: it throws too (an Error, or a TypeError for "cat.length").
                raise _throw("Error", f"Unrecognized operation {op}")
            result = operation(self, values, data)
        self.depth -= 1
        return result

    def _enter(self) -> None:
        self.steps += 1
        if self.steps > self.limits.max_steps:
            raise JsonLogicError({"type": LIMIT_EXCEEDED, "limit": "steps"})
        if self.depth >= self.limits.max_depth:
            raise JsonLogicError({"type": LIMIT_EXCEEDED, "limit": "depth"})
        self.depth += 1

    def sized(self, value: Any) -> Any:
        """A built string or array within A-23's size bound."""
        if len(value) > self.limits.max_size:
            raise JsonLogicError({"type": LIMIT_EXCEEDED, "limit": "size"})
        return value


# -- the operations json-logic-js evaluates lazily ----------------------------------------


def _if(ev: _Classic, values: list[Any], data: Any) -> Any:
    i = 0
    while i < len(values) - 1:
        if js.truthy(ev.apply(values[i], data)):
            return ev.apply(values[i + 1], data)
        i += 2
    if len(values) == i + 1:
        return ev.apply(values[i], data)
    return None


def _and(ev: _Classic, values: list[Any], data: Any) -> Any:
    current = UNDEFINED  # no operand: undefined (the community semantics: false)
    for value in values:
        current = ev.apply(value, data)
        if not js.truthy(current):
            return current
    return current


def _or(ev: _Classic, values: list[Any], data: Any) -> Any:
    current = UNDEFINED
    for value in values:
        current = ev.apply(value, data)
        if js.truthy(current):
            return current
    return current


def _scoped(ev: _Classic, values: list[Any], data: Any) -> tuple[Any, Any]:
    return ev.apply(_at(values, 0), data), _at(values, 1)


def _filter(ev: _Classic, values: list[Any], data: Any) -> Any:
    items, logic = _scoped(ev, values, data)
    if type(items) is not list:
        return []
    return [item for item in items if js.truthy(ev.apply(logic, item))]


def _map(ev: _Classic, values: list[Any], data: Any) -> Any:
    items, logic = _scoped(ev, values, data)
    if type(items) is not list:
        return []
    return [ev.apply(logic, item) for item in items]


def _reduce(ev: _Classic, values: list[Any], data: Any) -> Any:
    items, logic = _scoped(ev, values, data)
    initial = ev.apply(values[2], data) if len(values) > 2 else None
    if type(items) is not list:
        return initial
    accumulator = initial
    for current in items:
        accumulator = ev.apply(logic, {"current": current, "accumulator": accumulator})
    return accumulator


def _all(ev: _Classic, values: list[Any], data: Any) -> Any:
    items, logic = _scoped(ev, values, data)
    if type(items) is not list or not items:
        return False  # "All of an empty set is false"
    return all(js.truthy(ev.apply(logic, item)) for item in items)


def _none(ev: _Classic, values: list[Any], data: Any) -> Any:
    items, logic = _scoped(ev, values, data)
    if type(items) is not list or not items:
        return True
    return not any(js.truthy(ev.apply(logic, item)) for item in items)


def _some(ev: _Classic, values: list[Any], data: Any) -> Any:
    items, logic = _scoped(ev, values, data)
    if type(items) is not list or not items:
        return False
    return any(js.truthy(ev.apply(logic, item)) for item in items)


_SPECIAL = {
    "if": _if,
    "?:": _if,
    "and": _and,
    "or": _or,
    "filter": _filter,
    "map": _map,
    "reduce": _reduce,
    "all": _all,
    "none": _none,
    "some": _some,
}


# -- JavaScript's operators, as json-logic-js's operations use them ------------------------


def _type(value: Any) -> str:
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if js.is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object"


def _to_primitive(value: Any) -> Any:
    """ToPrimitive of an array or object: its toString (valueOf gives the object back)."""
    return js.to_string(value) if js.is_object(value) else value


def loose_equals(a: Any, b: Any) -> bool:
    """IsLooselyEqual (``==``, ECMA-262 §7.2.14)."""
    ta, tb = _type(a), _type(b)
    if ta == tb:
        if ta == "number":
            return js.to_number(a) == js.to_number(b)
        return js.strict_equals(a, b)  # objects by identity
    if {ta, tb} == {"null", "undefined"}:
        return True
    if ta == "number" and tb == "string":
        return js.to_number(a) == js.to_number(b)
    if ta == "string" and tb == "number":
        return js.to_number(a) == js.to_number(b)
    if ta == "boolean":
        return loose_equals(js.to_number(a), b)
    if tb == "boolean":
        return loose_equals(a, js.to_number(b))
    if ta in ("number", "string") and tb == "object":
        return loose_equals(a, _to_primitive(b))
    if ta == "object" and tb in ("number", "string"):
        return loose_equals(_to_primitive(a), b)
    return False


def _less(a: Any, b: Any) -> bool | None:
    """IsLessThan (ECMA-262 §7.2.13): None where JavaScript's answer is undefined (NaN)."""
    a, b = _to_primitive(a), _to_primitive(b)
    if isinstance(a, str) and isinstance(b, str):
        return js.compare_strings(a, b) < 0
    x, y = js.to_number(a), js.to_number(b)
    if math.isnan(x) or math.isnan(y):
        return None
    return x < y


def less_than(a: Any, b: Any) -> bool:
    """``a < b``."""
    return _less(a, b) is True


def less_or_equal(a: Any, b: Any) -> bool:
    """``a <= b``: not ``b < a``, unless that is undefined."""
    r = _less(b, a)
    return r is False


def _js_falsy(value: Any) -> bool:
    """``!value`` in JavaScript (an empty array is truthy here)."""
    if value is UNDEFINED or value is None:
        return True
    if isinstance(value, bool):
        return not value
    if js.is_number(value):
        return bool(value == 0 or value != value)
    if isinstance(value, str):
        return value == ""
    return False


def _divide(x: float, y: float) -> float:
    if y == 0:
        if x == 0 or math.isnan(x):
            return math.nan
        return math.copysign(math.inf, x) * math.copysign(1.0, y)
    return x / y


def _remainder(x: float, y: float) -> float:
    if math.isnan(x) or math.isnan(y) or math.isinf(x) or y == 0:
        return math.nan
    if math.isinf(y) or x == 0:
        return x
    return math.fmod(x, y)


_FLOAT_PREFIX = re.compile(r"[+-]?(?:Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")


def parse_float(value: Any) -> float:
    """``parseFloat(value)``: the longest decimal literal at the start of String(value)."""
    if js.is_number(value):
        return js.to_number(value) or 0.0  # String(-0) is "0"
    text = js.to_string(value).lstrip(js._JS_WHITESPACE)
    found = _FLOAT_PREFIX.match(text)
    if found is None:
        return math.nan
    literal = found.group()
    if literal.lstrip("+-").startswith("Infinity"):
        return -math.inf if literal.startswith("-") else math.inf
    # "1e" or "1e+" is the literal "1" (the exponent needs digits): the regex keeps it out.
    return float(literal)


def _to_integer(value: Any) -> float:
    """ToIntegerOrInfinity."""
    number = js.to_number(value)
    if math.isnan(number):
        return 0
    if math.isinf(number):
        return number
    return math.trunc(number)


def _substr(text: str, start: Any, length: Any) -> str:
    """String.prototype.substr (ECMA-262 §B.2.2.1) on UTF-16 code units."""
    size = js.utf16_length(text)
    first = _to_integer(start)
    if first == -math.inf:
        first = 0
    elif first < 0:
        first = max(size + first, 0)
    else:
        first = min(first, size)
    count = size if length is UNDEFINED else _to_integer(length)
    count = min(max(count, 0), size)
    end = min(first + count, size)
    if end <= first:
        return ""
    return js.utf16_slice(text, int(first), int(end))


# -- the eager operations (their operands evaluated first) --------------------------------


def _op_equals(ev: _Classic, v: list[Any], data: Any) -> Any:
    return loose_equals(_at(v, 0), _at(v, 1))


def _op_strict_equals(ev: _Classic, v: list[Any], data: Any) -> Any:
    a, b = _at(v, 0), _at(v, 1)
    if js.is_number(a) and js.is_number(b):
        return js.to_number(a) == js.to_number(b)
    return js.strict_equals(a, b)


def _op_not_equals(ev: _Classic, v: list[Any], data: Any) -> Any:
    return not _op_equals(ev, v, data)


def _op_not_strict_equals(ev: _Classic, v: list[Any], data: Any) -> Any:
    return not _op_strict_equals(ev, v, data)


def _op_greater(ev: _Classic, v: list[Any], data: Any) -> Any:
    return less_than(_at(v, 1), _at(v, 0))


def _op_greater_or_equal(ev: _Classic, v: list[Any], data: Any) -> Any:
    return less_or_equal(_at(v, 1), _at(v, 0))


def _op_less(ev: _Classic, v: list[Any], data: Any) -> Any:
    a, b, c = _at(v, 0), _at(v, 1), _at(v, 2)
    if c is UNDEFINED:
        return less_than(a, b)
    return less_than(a, b) and less_than(b, c)


def _op_less_or_equal(ev: _Classic, v: list[Any], data: Any) -> Any:
    a, b, c = _at(v, 0), _at(v, 1), _at(v, 2)
    if c is UNDEFINED:
        return less_or_equal(a, b)
    return less_or_equal(a, b) and less_or_equal(b, c)


def _op_double_not(ev: _Classic, v: list[Any], data: Any) -> Any:
    return js.truthy(_at(v, 0))


def _op_not(ev: _Classic, v: list[Any], data: Any) -> Any:
    return not js.truthy(_at(v, 0))


def _op_remainder(ev: _Classic, v: list[Any], data: Any) -> Any:
    return _remainder(js.to_number(_at(v, 0)), js.to_number(_at(v, 1)))


def _op_log(ev: _Classic, v: list[Any], data: Any) -> Any:
    return _at(v, 0)  # console.log is not an observable here


def _op_in(ev: _Classic, v: list[Any], data: Any) -> Any:
    a, b = _at(v, 0), _at(v, 1)
    if _js_falsy(b):
        return False
    if isinstance(b, str):
        return js.to_string(a) in b
    if isinstance(b, list):
        return any(_op_strict_equals(ev, [a, item], data) for item in b)
    return False  # no indexOf


def _op_cat(ev: _Classic, v: list[Any], data: Any) -> Any:
    # Array.prototype.join: null and undefined join as "".
    return ev.sized("".join("" if x is None or x is UNDEFINED else js.to_string(x) for x in v))


def _op_substr(ev: _Classic, v: list[Any], data: Any) -> Any:
    source, start, end = _at(v, 0), _at(v, 1), _at(v, 2)
    text = js.to_string(source)
    if less_than(end, 0):
        # "emulates PHP behavior": temp.substr(0, temp.length + end), where ``+``
        # concatenates when ``end`` is (or converts to) a string — then the length is
        # NaN, read as 0 (the class substr-string-length of docs/jsonlogic.md).
        temp = _substr(text, start, UNDEFINED)
        primitive = _to_primitive(end)
        if isinstance(primitive, str):
            return _substr(temp, 0, f"{js.utf16_length(temp)}{primitive}")
        return _substr(temp, 0, js.utf16_length(temp) + js.to_number(primitive))
    return _substr(text, start, end)


def _op_add(ev: _Classic, v: list[Any], data: Any) -> Any:
    total: float = 0.0
    for value in v:
        total = parse_float(total) + parse_float(value)
    return total


def _op_multiply(ev: _Classic, v: list[Any], data: Any) -> Any:
    if not v:
        raise _throw("TypeError", "Reduce of empty array with no initial value")
    product = v[0]  # one operand: returned as it is
    for value in v[1:]:
        product = parse_float(product) * parse_float(value)
    return product


def _op_subtract(ev: _Classic, v: list[Any], data: Any) -> Any:
    a, b = _at(v, 0), _at(v, 1)
    if b is UNDEFINED:
        return -js.to_number(a)
    return js.to_number(a) - js.to_number(b)


def _op_divide(ev: _Classic, v: list[Any], data: Any) -> Any:
    return _divide(js.to_number(_at(v, 0)), js.to_number(_at(v, 1)))


def _extreme(v: list[Any], pick: Any, empty: float) -> float:
    numbers = [js.to_number(x) for x in v]
    if any(math.isnan(x) for x in numbers):
        return math.nan
    return pick(numbers) if numbers else empty


def _op_min(ev: _Classic, v: list[Any], data: Any) -> Any:
    return _extreme(v, min, math.inf)


def _op_max(ev: _Classic, v: list[Any], data: Any) -> Any:
    return _extreme(v, max, -math.inf)


def _op_merge(ev: _Classic, v: list[Any], data: Any) -> Any:
    merged: list[Any] = []
    for value in v:
        if type(value) is list:
            merged.extend(value)  # Array.prototype.concat spreads arrays only
        else:
            merged.append(value)
        ev.sized(merged)
    return merged


def _op_var(ev: _Classic, v: list[Any], data: Any) -> Any:
    a, b = _at(v, 0), _at(v, 1)
    not_found = None if b is UNDEFINED else b
    if a is UNDEFINED or a is None or (a == "" and isinstance(a, str)):
        return data
    for segment in js.to_string(a).split("."):
        if data is None or data is UNDEFINED:
            return not_found
        data = get_property(data, segment)
        if data is UNDEFINED:
            return not_found
    return data


def _op_missing(ev: _Classic, v: list[Any], data: Any) -> Any:
    # "Missing can also receive *one* argument that is an array of keys": then only it.
    keys = v[0] if v and type(v[0]) is list else v
    missing = []
    for key in keys:
        value = ev.apply({"var": key}, data)  # var of "" is the whole data
        if value is None or (value == "" and isinstance(value, str)):
            missing.append(key)
    return missing


def _op_missing_some(ev: _Classic, v: list[Any], data: Any) -> Any:
    need, options = _at(v, 0), _at(v, 1)
    are_missing = ev.apply({"missing": options}, data)
    if options is None or options is UNDEFINED:
        raise _throw("TypeError", "Cannot read properties of null (reading 'length')")
    present = js.to_number(get_property(options, "length")) - len(are_missing)
    if less_or_equal(need, present):
        return []
    return are_missing


_OPERATIONS = {
    "==": _op_equals,
    "===": _op_strict_equals,
    "!=": _op_not_equals,
    "!==": _op_not_strict_equals,
    ">": _op_greater,
    ">=": _op_greater_or_equal,
    "<": _op_less,
    "<=": _op_less_or_equal,
    "!!": _op_double_not,
    "!": _op_not,
    "%": _op_remainder,
    "log": _op_log,
    "in": _op_in,
    "cat": _op_cat,
    "substr": _op_substr,
    "+": _op_add,
    "*": _op_multiply,
    "-": _op_subtract,
    "/": _op_divide,
    "min": _op_min,
    "max": _op_max,
    "merge": _op_merge,
    "var": _op_var,
    "missing": _op_missing,
    "missing_some": _op_missing_some,
}
