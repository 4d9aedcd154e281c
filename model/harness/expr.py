"""Harness guard and edge-condition expressions: parse (Lark), evaluate, and name.

Notation: ``e ::= Lit(v) | Ref(p1.….pn) | Not(e) | And(e, e) | Or(e, e) |
Cmp(op, e, e)`` (grammar/harness_expr.lark).  ``evaluate(e, env, absent)``
reads a reference as the path in ``env``.  ``and``/``or``/``not`` read their
operands as booleans (only ``true`` is true: a guard must say what it means,
assumption A-62); ``==``/``!=`` compare JSON values; ordering compares two
numbers or two strings, and is false otherwise.

A reference to something absent (A-87) reads as null under the reading
``absent="null"`` (the model's), so ``== null`` holds; under
``absent="incomparable"`` it reads as ``ABSENT``, with which every
comparison is false, ``!=`` included, and which is not ``true``.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

import attrs

from wforacle.grammar import build, nesting, parser

if TYPE_CHECKING:
    import lark

JSON = Any


@attrs.frozen
class Lit:
    """A literal: number, string, boolean or null."""

    value: JSON


@attrs.frozen
class Ref:
    """A dotted reference, e.g. ``params.limit`` or ``fetch.count``."""

    path: tuple[str, ...]


@attrs.frozen
class Not:
    """Negation."""

    operand: Expr


@attrs.frozen
class And:
    """Conjunction."""

    left: Expr
    right: Expr


@attrs.frozen
class Or:
    """Disjunction."""

    left: Expr
    right: Expr


@attrs.frozen
class Cmp:
    """A comparison: ``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``."""

    op: str
    left: Expr
    right: Expr


Expr = Lit | Ref | Not | And | Or | Cmp


class _Build:
    """Lark's parse tree → Expr: one method per grammar rule (grammar ``build``)."""

    def number(self, items: list[Any]) -> Lit:
        text = str(items[0])
        value = float(text)
        if not math.isfinite(value):  # 1e999, a 400-digit integer: no JSON number
            raise ExprError(
                f"the number {text[:24]}… is out of range: no finite number represents it"
            )
        return Lit(
            int(value)
            if value.is_integer() and "." not in text and "e" not in text.lower()
            else value
        )

    def string(self, items: list[Any]) -> Lit:
        return Lit(json.loads(str(items[0])))

    def true(self, _: list[Any]) -> Lit:
        return Lit(True)

    def false(self, _: list[Any]) -> Lit:
        return Lit(False)

    def null(self, _: list[Any]) -> Lit:
        return Lit(None)

    def ref(self, items: list[Any]) -> Ref:
        return Ref(tuple(str(i) for i in items))

    def negation(self, items: list[Any]) -> Not:
        return Not(items[0])

    def or_(self, items: list[Any]) -> Expr:
        result: Expr = items[0]
        for item in items[1:]:
            result = Or(result, item)
        return result

    def and_(self, items: list[Any]) -> Expr:
        result: Expr = items[0]
        for item in items[1:]:
            result = And(result, item)
        return result

    def cmp(self, items: list[Any]) -> Cmp:
        return Cmp(str(items[1]), items[0], items[2])


class ExprError(Exception):
    """An expression that does not parse."""


def parse(text: str) -> Expr:
    """The expression ``text`` denotes, or ExprError saying where it stops parsing."""
    import lark  # only a document with an expression parses one (start-up time)

    try:
        tree = parser("harness_expr", "start").parse(text)
    except lark.exceptions.UnexpectedInput as exc:
        raise ExprError(f"not an expression at column {exc.column}: {text!r}") from None
    except lark.exceptions.LarkError as exc:
        raise ExprError(f"not an expression: {text!r} ({exc})") from None
    if _nesting(tree) > MAX_NESTING:
        raise ExprError(f"operators nest deeper than {MAX_NESTING}: {text[:60]!r}…")
    result: Expr = build(tree, _Build())
    return result


MAX_NESTING = 64  # operators an operand sits under


def _nesting(tree: lark.Tree[Any]) -> int:
    """The depth of the Expr ``tree`` builds (A-62): ``a and b and c`` counts two levels."""
    return nesting(tree, {"and_": 1, "or_": 1})


class _Absent:
    """What an absent reference reads as under A-87's reading ``incomparable``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()
ABSENT_READINGS = ("null", "incomparable")  # the model's first


def lookup(env: JSON, path: tuple[str, ...], absent: JSON = None) -> JSON:
    """The value at ``path`` in ``env``; ``absent`` when there is none."""
    value = env
    for name in path:
        if not isinstance(value, dict) or name not in value:
            return absent
        value = value[name]
    return value


def evaluate(expr: Expr, env: JSON, absent: str = "null") -> JSON:
    """The value of ``expr`` in ``env`` under A-87's reading ``absent`` (module notation)."""
    if isinstance(expr, Lit):
        return expr.value
    if isinstance(expr, Ref):
        return lookup(env, expr.path, ABSENT if absent == "incomparable" else None)
    if isinstance(expr, Not):
        return evaluate(expr.operand, env, absent) is not True
    if isinstance(expr, And):
        return (
            evaluate(expr.left, env, absent) is True and evaluate(expr.right, env, absent) is True
        )
    if isinstance(expr, Or):
        return evaluate(expr.left, env, absent) is True or evaluate(expr.right, env, absent) is True
    left, right = evaluate(expr.left, env, absent), evaluate(expr.right, env, absent)
    if left is ABSENT or right is ABSENT:
        return False  # A-87 (c): every comparison with an absent reference is false
    if expr.op == "==":
        return _same(left, right)
    if expr.op == "!=":
        return not _same(left, right)
    numbers = _number(left) and _number(right)
    strings = isinstance(left, str) and isinstance(right, str)
    if not (numbers or strings):
        return False
    return {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[expr.op]


def holds(expr: Expr | None, env: JSON, absent: str = "null") -> bool:
    """Whether a guard or condition holds (an absent one always does), A-87 read ``absent``."""
    return expr is None or evaluate(expr, env, absent) is True


def refs(expr: Expr | None) -> set[tuple[str, ...]]:
    """Every reference in ``expr``."""
    if expr is None or isinstance(expr, Lit):
        return set()
    if isinstance(expr, Ref):
        return {expr.path}
    if isinstance(expr, Not):
        return refs(expr.operand)
    return refs(expr.left) | refs(expr.right)


def _number(value: JSON) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _same(left: JSON, right: JSON) -> bool:
    if _number(left) and _number(right):
        return bool(left == right)
    return type(left) is type(right) and left == right
