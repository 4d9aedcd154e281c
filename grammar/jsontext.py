"""JSON text as wforacle reads it from anyone: strict, finite and bounded in depth (issue 19).

Notation: a *value* is what ``json.loads`` returns (None, bool, int, float,
str, list, dict).  ``loads(text)`` is ``json.loads`` restricted to RFC 8259:
no ``NaN``, ``Infinity`` or ``-Infinity``; no number a float cannot hold
(``1e400``); no integer past Python's 4,300-digit limit; and no array or
object nested deeper than ``MAX_DEPTH``.  A violation is ``NotStrictJson``
(a ``ValueError``) whose message says where.

The depth bound is the one input boundary that keeps every later reader
(the trace checker's projection, fixture writing, the JSON Logic evaluator,
template resolution) free of Python's recursion limit: nothing deeper than
``MAX_DEPTH`` is ever handed to them, so none of them needs to catch a
``RecursionError`` (assumption A-154).  The check is one walk without
recursion; ``json.loads`` itself stops at Python's recursion limit, and that
too is reported as nesting too deep.

It lives in the lowest layer because the template grammar's ``=`` payload
(grammar/template.py) is JSON text too; properties/specification.py
``parse_json`` wraps it for documents, scenarios, traces and fixtures, and
oracle/engine.py for engine messages.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, NoReturn

MAX_DEPTH = 256  # arrays and objects nested in each other; A-154

_SURROGATE = re.compile("[\ud800-\udfff]")


class NotStrictJson(ValueError):
    """Text that is not strict JSON, or nests deeper than MAX_DEPTH."""


def loads(text: str | bytes, surrogates: bool = True) -> Any:
    r"""The value of strict JSON ``text``; NotStrictJson when it is not, or nests too deeply.

    ``surrogates=False`` also refuses a string holding a lone surrogate (an
    escape such as ``\ud800`` written in JSON): JSON's escapes can spell one, but it is no
    Unicode character and no UTF-8 output could carry it.
    """
    try:
        value = json.loads(text, parse_constant=_reject_constant, parse_float=finite_float)
    except RecursionError:
        raise NotStrictJson(f"arrays and objects nest deeper than {MAX_DEPTH}") from None
    except NotStrictJson:
        raise
    except json.JSONDecodeError as exc:
        raise NotStrictJson(f"{exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:  # an integer past 4,300 digits; bytes that are not UTF-8
        raise NotStrictJson(str(exc)) from None
    if not _plainly_within(text, surrogates):
        check(value, surrogates)
    return value


def _plainly_within(text: str | bytes, surrogates: bool) -> bool:
    r"""True when ``text`` cannot hold what ``check`` refuses, seen from its characters alone.

    A value nests no deeper than the text has opening brackets, and a lone
    surrogate comes from a ``\u`` escape or is in the text itself.  Most
    messages pass here at the cost of a few C scans (issue 16); the rest
    are walked.
    """
    if not isinstance(text, str) or text.count("[") + text.count("{") > MAX_DEPTH:
        return False
    return surrogates or ("\\u" not in text and _SURROGATE.search(text) is None)


def value_end(text: str, start: int) -> int | None:
    """Where the strict JSON value beginning at ``text[start]`` ends; None: no such value there."""
    try:
        value, end = _DECODER.raw_decode(text, start)
        check(value)
    except (ValueError, RecursionError):  # RecursionError: deeper than json itself goes
        return None
    return int(end)


def check(value: Any, surrogates: bool = True) -> Any:
    """``value``, unless it nests deeper than MAX_DEPTH (or holds a lone surrogate): NotStrictJson.

    One walk without recursion; the message names the JSONPath of the first
    container past the bound (shortened) or of the string.
    """
    # Each entry: a container, its depth, and a link (parent link, key) to build its path.
    stack: list[tuple[Any, int, Any]] = [(value, 1, None)]
    if isinstance(value, str):
        _check_string(value, surrogates, None)
        return value
    while stack:
        item, depth, link = stack.pop()
        if isinstance(item, dict):
            members = item.items()
        elif isinstance(item, list):
            members = enumerate(item)  # type: ignore[assignment]
        else:
            continue
        if depth > MAX_DEPTH:
            raise NotStrictJson(
                f"arrays and objects nest deeper than {MAX_DEPTH} (at {_path(link)})"
            )
        for key, member in members:
            if isinstance(key, str) and not surrogates:
                _check_string(key, surrogates, link)
            if isinstance(member, (dict, list)):
                stack.append((member, depth + 1, (link, key)))
            elif isinstance(member, str) and not surrogates:
                _check_string(member, surrogates, (link, key))
    return value


def _check_string(text: str, surrogates: bool, link: Any) -> None:
    if not surrogates and _SURROGATE.search(text):
        raise NotStrictJson(f"a string holds a lone surrogate: {text[:40]!r} (at {_path(link)})")


def _path(link: Any, shown: int = 12) -> str:
    keys: list[Any] = []
    while link is not None:
        link, key = link
        keys.append(key)
    keys.reverse()
    parts = [f"[{k}]" if isinstance(k, int) else f"[{json.dumps(k)}]" for k in keys]
    if len(parts) > shown:
        parts = [*parts[: shown // 2], "…", *parts[-(shown // 2) :]]
    return "$" + "".join(parts)


def _reject_constant(name: str) -> NoReturn:
    raise NotStrictJson(f"{name} is not JSON")


def finite_float(text: str) -> float:
    """A JSON number as a float; one too large for a float (1e400) has no JSON rendering."""
    value = float(text)
    if math.isinf(value):
        raise NotStrictJson(f"{text} is out of range: no finite number represents it")
    return value


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=finite_float)
