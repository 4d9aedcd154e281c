"""JavaScript value semantics over JSON values, as @w6w/expr needs them.

Notation: a *value* is what ``json.loads`` returns (None, bool, int, float,
str, list, dict) plus ``UNDEFINED`` for JavaScript's ``undefined`` (a missing
property).  JavaScript has one number type: ``1`` and ``1.0`` are the same
number, print as ``"1"``, and compare equal under ``===``; a Python bool is
never a number.  Each function is named after the ECMAScript abstract
operation it implements (ToNumber, ToString, IsStrictlyEqual …).

Strings are compared and measured in UTF-16 code units, as JavaScript does;
for text within the Basic Multilingual Plane that is Python's own order.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from typing import Any, Final


class _Undefined:
    """JavaScript ``undefined``: a property that is not there."""

    _instance: _Undefined | None = None

    def __new__(cls) -> _Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "undefined"

    def __bool__(self) -> bool:
        return False


UNDEFINED: Final = _Undefined()

# ECMAScript WhiteSpace and LineTerminator, trimmed by ToNumber on strings.
_JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
# ASCII digits only: Python's \d (and float()) also take other scripts' digits ("١").
_DECIMAL_LITERAL = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|Infinity)")
_RADIX_LITERAL = re.compile(r"0(?:[xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)")


def is_number(value: Any) -> bool:
    """``typeof value === "number"``."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_object(value: Any) -> bool:
    """``typeof value === "object" && value !== null`` (arrays included)."""
    return isinstance(value, dict | list)


def to_number(value: Any) -> float:
    """ToNumber (ECMA-262 §7.1.4), with arrays and objects through ToPrimitive."""
    kind = type(value)
    if kind is float:
        return value  # type: ignore[no-any-return]
    if kind is int:
        return integer_to_number(value)
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int):
        return integer_to_number(value)
    if isinstance(value, float):
        return value
    if value is None:
        return 0.0
    if isinstance(value, str):
        return _string_to_number(value)
    if isinstance(value, list | dict):
        return _string_to_number(to_string(value))
    return math.nan  # undefined


def integer_to_number(value: int) -> float:
    """An integer as the nearest Number; one past the largest finite Number is ±Infinity.

    As JavaScript reads an integer literal of any length (ECMA-262 §6.1.6.1:
    a value too large rounds to Infinity); Python's ``float`` raises instead.
    """
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _string_to_number(text: str) -> float:
    text = text.strip(_JS_WHITESPACE)
    if not text:
        return 0.0
    if _DECIMAL_LITERAL.fullmatch(text):
        return float(text.replace("Infinity", "inf"))
    if _RADIX_LITERAL.fullmatch(text):
        return integer_to_number(int(text, 0))
    return math.nan


def number_to_string(x: float | int) -> str:
    """Number::toString (ECMA-262 §6.1.6.1.20): shortest round-trip digits."""
    if isinstance(x, int):
        if abs(x) < 10**21:
            return str(x)
        x = integer_to_number(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    _, digit_tuple, exponent = Decimal(repr(abs(x))).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    k = len(digits)
    n = k + int(exponent)  # value = 0.d1…dk × 10^n
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{sign}{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"


def to_string(value: Any) -> str:
    """ToString (ECMA-262 §7.1.17); arrays join with "," and objects are "[object Object]"."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if is_number(value):
        return number_to_string(value)
    if value is None:
        return "null"
    if isinstance(value, list):
        return ",".join(
            "" if item is None or item is UNDEFINED else to_string(item) for item in value
        )
    if isinstance(value, dict):
        return "[object Object]"
    return "undefined"


def json_stringify(value: Any) -> str:
    """JSON.stringify (ECMA-262 §25.5.2) of a JSON value, compact.

    Numbers print as Number::toString does (``1e-7``, ``100000000000000000000``;
    Python's ``json.dumps`` prints ``1e-07`` and ``1e+20``), a non-finite one
    as ``null``; an object's integer-like keys ("array indices") come first
    in ascending order, then the others in insertion order, as a JavaScript
    object holds them (OrdinaryOwnPropertyKeys); strings escape as
    JSON.stringify's QuoteJSONString does for every well-formed string.
    An iterative walk: a value's depth is bounded where it was read (A-154),
    not by Python's recursion limit.
    """
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Text):
            out.append(item)
        elif item is None or item is UNDEFINED:
            out.append("null")
        elif isinstance(item, bool):
            out.append("true" if item else "false")
        elif is_number(item):
            finite = isinstance(item, int) or math.isfinite(item)
            out.append(number_to_string(item) if finite else "null")
        elif isinstance(item, str):
            out.append(json.dumps(item, ensure_ascii=False))
        elif isinstance(item, list):
            parts: list[Any] = [_Text("[")]
            for k, element in enumerate(item):
                parts += [_Text(",")] if k else []
                parts.append(element)
            stack.extend(reversed([*parts, _Text("]")]))
        elif isinstance(item, dict):
            parts = [_Text("{")]
            for k, key in enumerate(_own_keys(item)):
                parts += [_Text(",")] if k else []
                parts += [_Text(json.dumps(key, ensure_ascii=False) + ":"), item[key]]
            stack.extend(reversed([*parts, _Text("}")]))
        else:
            out.append("null")
    return "".join(out)


class _Text(str):
    """Text json_stringify emits as it is (punctuation, a rendered key)."""


def _own_keys(obj: dict[str, Any]) -> list[str]:
    """An object's keys in JavaScript's order: array indices ascending, then insertion order."""
    indices = [k for k in obj if _ARRAY_INDEX.fullmatch(k) and int(k) < 2**32 - 1]
    if not indices:
        return list(obj)
    chosen = set(indices)
    return sorted(indices, key=int) + [k for k in obj if k not in chosen]


_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")


def truthy(value: Any) -> bool:
    """JSONLogic truthiness: JavaScript's, except that an empty array is falsy.

    json-logic-js ``truthy``: ``[]`` is false, everything else as ``!!value``
    (so ``{}`` is true, as the community truthiness suite expects).
    """
    kind = type(value)
    if kind is bool:
        return value  # type: ignore[no-any-return]
    if kind is list:
        return len(value) > 0
    if kind is dict:
        return True
    if kind is float and value != value:  # NaN
        return False
    return bool(value) and value is not UNDEFINED


def strict_equals(a: Any, b: Any) -> bool:
    """IsStrictlyEqual (``===``): same type and value; objects by identity."""
    if is_number(a) and is_number(b):
        return bool(a == b)
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    if a is None or b is None or a is UNDEFINED or b is UNDEFINED:
        return a is b
    return a is b


def utf16_key(text: str) -> bytes:
    """A sort key ordering strings by UTF-16 code units, as JavaScript compares them.

    Big-endian code units compare bytewise in code-unit order.
    """
    return text.encode("utf-16-be", "surrogatepass")


def compare_strings(a: str, b: str) -> int:
    """-1, 0 or 1 as JavaScript orders ``a`` and ``b`` (by UTF-16 code unit)."""
    if not (_beyond_bmp(a) or _beyond_bmp(b)):
        return (a > b) - (a < b)  # code points and code units agree below U+10000
    x, y = utf16_key(a), utf16_key(b)
    return (x > y) - (x < y)


def _beyond_bmp(text: str) -> bool:
    return not text.isascii() and any(ord(c) > 0xFFFF for c in text)


def utf16_length(text: str) -> int:
    """``text.length`` in JavaScript: UTF-16 code units."""
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def utf16_slice(text: str, start: int, end: int) -> str:
    """``text.slice(start, end)`` on UTF-16 code units (0 <= start <= end)."""
    if all(ord(c) <= 0xFFFF for c in text):
        return text[start:end]
    units = text.encode("utf-16-le", "surrogatepass")
    return units[2 * start : 2 * end].decode("utf-16-le", "surrogatepass")
