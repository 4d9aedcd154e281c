"""Guards and conditions as z3 formulas: satisfiability, exclusivity, exhaustiveness, joins.

Notation: each reference ``r`` (``fetch.rows``, ``params.enabled``) becomes
one z3 constant whose sort is inferred from how the expressions use it —
compared with a number: Real; with a string: String; used as a boolean
operand or compared with true/false: Bool; otherwise Real.  A comparison
between different sorts is false, as at run time (model/harness/expr.py:
ordering only between two numbers or two strings).  ``null`` has no sort:
``r == null`` becomes a Bool constant ``r is null`` (assumption A-62).

The encoding is exact for the fragment the grammar has (no arithmetic), so
a reported witness is a real valuation under which the property fails.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import z3

from wforacle.model.harness.expr import And, Cmp, Expr, Lit, Not, Or, Ref

JSON = Any


class Encoder:
    """Shares one constant per reference across every formula of a document."""

    def __init__(self, exprs: Iterable[Expr | None]) -> None:
        self.sorts: dict[tuple[str, ...], str] = {}
        for expr in exprs:
            if expr is not None:
                self._infer(expr, "bool")
        self.consts: dict[tuple[str, ...], Any] = {}

    def _infer(self, expr: Expr, wanted: str | None) -> None:
        if isinstance(expr, Ref):
            if wanted is not None:
                self.sorts.setdefault(expr.path, wanted)
        elif isinstance(expr, Not):
            self._infer(expr.operand, "bool")
        elif isinstance(expr, And | Or):
            self._infer(expr.left, "bool")
            self._infer(expr.right, "bool")
        elif isinstance(expr, Cmp):
            for one, other in ((expr.left, expr.right), (expr.right, expr.left)):
                if isinstance(one, Ref) and isinstance(other, Lit):
                    self._infer(one, _sort_of(other.value))
            if isinstance(expr.left, Ref) and isinstance(expr.right, Ref):
                sort = self.sorts.get(expr.left.path) or self.sorts.get(expr.right.path) or "real"
                self.sorts.setdefault(expr.left.path, sort)
                self.sorts.setdefault(expr.right.path, sort)

    def const(self, path: tuple[str, ...]) -> Any:
        """The z3 constant of a reference, of its inferred sort."""
        if path not in self.consts:
            name = ".".join(path)
            sort = self.sorts.get(path, "real")
            self.consts[path] = {"bool": z3.Bool, "string": z3.String}.get(sort, z3.Real)(name)
        return self.consts[path]

    def is_null(self, path: tuple[str, ...]) -> Any:
        """The Bool constant "``path`` is null"."""
        return z3.Bool(".".join(path) + " is null")

    def encode(self, expr: Expr) -> Any:
        """The z3 formula that holds exactly when ``expr`` evaluates to true."""
        if isinstance(expr, Lit):
            return z3.BoolVal(expr.value is True)
        if isinstance(expr, Ref):
            if self.sorts.get(expr.path) == "bool":
                return self.const(expr.path)
            return z3.BoolVal(False)  # a non-boolean reference is never `true`
        if isinstance(expr, Not):
            return z3.Not(self.encode(expr.operand))
        if isinstance(expr, And):
            return z3.And(self.encode(expr.left), self.encode(expr.right))
        if isinstance(expr, Or):
            return z3.Or(self.encode(expr.left), self.encode(expr.right))
        return self._compare(expr)

    def _term(self, expr: Expr) -> tuple[str | None, Any]:
        if isinstance(expr, Lit):
            sort = _sort_of(expr.value)
            if sort == "bool":
                return "bool", z3.BoolVal(expr.value)
            if sort == "string":
                return "string", z3.StringVal(expr.value)
            if sort == "real":
                return "real", z3.RealVal(expr.value)
            return None, None  # null
        if isinstance(expr, Ref):
            return self.sorts.get(expr.path, "real"), self.const(expr.path)
        return "bool", self.encode(expr)

    def _compare(self, expr: Cmp) -> Any:
        for one, other in ((expr.left, expr.right), (expr.right, expr.left)):
            if isinstance(one, Lit) and one.value is None:
                if isinstance(other, Lit):
                    same = z3.BoolVal(other.value is None)
                elif isinstance(other, Ref):
                    same = self.is_null(other.path)
                else:
                    same = z3.BoolVal(False)
                return {"==": same, "!=": z3.Not(same)}.get(expr.op, z3.BoolVal(False))
        left_sort, left = self._term(expr.left)
        right_sort, right = self._term(expr.right)
        if left_sort != right_sort:
            return z3.BoolVal(expr.op == "!=")
        if expr.op == "==":
            return left == right
        if expr.op == "!=":
            return left != right
        if left_sort == "bool":
            return z3.BoolVal(False)
        # Strings order lexicographically; z3 5 dropped ``StrLT``/``StrLE`` in
        # favour of the comparison operators on SeqRef (z3 4.12 has both).
        return {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[
            expr.op
        ]


def _sort_of(value: JSON) -> str | None:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int | float):
        return "real"
    return None


def witness(model: Any) -> dict[str, JSON]:
    """A z3 model as a JSON valuation of the references it mentions."""
    found: dict[str, JSON] = {}
    for decl in sorted(model.decls(), key=lambda d: d.name()):
        value = model[decl]
        if z3.is_true(value) or z3.is_false(value):
            found[decl.name()] = z3.is_true(value)
        elif z3.is_string_value(value):
            found[decl.name()] = _decoded(value.as_string())
        elif z3.is_rational_value(value):
            fraction = value.as_fraction()
            found[decl.name()] = int(fraction) if fraction.denominator == 1 else float(fraction)
        else:
            found[decl.name()] = str(value)
    return found


def _decoded(text: str) -> str:
    r"""A z3 string literal as Python text (z3 writes some code points as ``\u{hex}``)."""
    return _Z3_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)


_Z3_ESCAPE = re.compile(r"\\u\{([0-9a-fA-F]{1,6})\}")


def solve(*formulas: Any) -> dict[str, JSON] | None:
    """A witness valuation satisfying every formula, or None when there is none."""
    solver = z3.Solver()
    solver.set("timeout", 5000)
    solver.add(*formulas)
    if solver.check() == z3.sat:
        return witness(solver.model())
    return None
