"""Evaluating Workfile expressions and templates (assumption A-117).

``evaluate(e, env)`` reads a root name from ``env`` (a mapping of visible
bindings: ``inputs``, ``run``, step ids, iteration variables, ``error``).
A root that is absent reads as null: "A statically valid reference to a
value-producing step whose outcome is skipped, suppressed, stopped, failed,
cancelled, or not_run resolves to null.  Member access and indexing can
continue through that null" (WF-BIND-1/2).

What the excerpt leaves to the expression section (A-117):

* member access and indexing read null where the member or index is absent;
  on a value that has no members (a number, a string, a boolean) they fault;
* ``not``, ``and``, ``or`` and the test of ``… if … else …`` take booleans
  only, and a guard must be a boolean — a guard that says ``"yes"`` faults
  rather than being read as true (the reading ``truthy``, ``tested``, reads
  it by its truthiness);
* ``==``/``!=`` compare JSON values (``1 == 1.0``; ``true != 1``); ordering
  compares two numbers or two strings; ``in`` tests a list element, a
  substring or an object key;
* ``+ - * / %`` on numbers; ``+`` also joins two strings or two lists;
  dividing by zero faults;
* filters: ``default(x)``, ``length``, ``lower``, ``upper``, ``string``,
  ``json``, ``keys``, ``join(sep)``; any other name is a fault.

An evaluation fault is ``EvaluationFault`` with a code in the Standard's
``expression`` namespace; the step it occurs in fails with that code (no
operation begins: WF-STEP-7).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from typing import Any

from wforacle.model.workfile.expr import (
    Array,
    Binary,
    Bool,
    Cond,
    Expr,
    Filter,
    Index,
    Lit,
    Member,
    Minus,
    Name,
    Not,
    Object,
    Template,
    template,
)

JSON = Any
_LARGEST_FLOAT = int(sys.float_info.max)
FILTERS = ("default", "length", "lower", "upper", "string", "json", "keys", "join")


class EvaluationFault(Exception):
    """An expression that faults (A-117): ``code`` is what the step fails with."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _type_fault(message: str) -> EvaluationFault:
    return EvaluationFault("expression.type", message)


def _kind(value: JSON) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    names: dict[type, str] = {str: "string", list: "list", dict: "object"}
    return names.get(type(value), type(value).__name__)


def _number(value: JSON) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def tested(value: JSON, what: str, truthy: bool = False) -> bool:
    """A value where a boolean is tested: ``not``, ``and``, ``or``, a conditional, a guard.

    A-117: booleans only (a guard that says ``"yes"`` faults), or under the
    reading ``truthy`` (``Options.truthiness``) any value by its truthiness:
    null, false, 0, "", [] and {} are false, every other value true.
    """
    if isinstance(value, bool):
        return value
    if truthy:
        return value not in (None, 0, "") and value != [] and value != {}
    raise _type_fault(f"{what} needs a boolean, not {_kind(value)}")


def evaluate(expr: Expr, env: Mapping[str, JSON], truthy: bool = False) -> JSON:
    """The value of ``expr`` where ``env`` holds the visible bindings.

    ``truthy``: A-117's other reading (``tested``); ``and`` and ``or`` give a
    boolean under both readings, never an operand.
    """

    def value(e: Expr) -> JSON:
        return evaluate(e, env, truthy)

    match expr:
        case Lit(literal):
            return literal
        case Name(name):
            return env.get(name)
        case Member(subject, name):
            return _select(value(subject), name)
        case Index(subject, index):
            return _select(value(subject), value(index))
        case Not(operand):
            return not tested(value(operand), "not", truthy)
        case Minus(operand):
            number = value(operand)
            if not _number(number):
                raise _type_fault(f"- needs a number, not {_kind(number)}")
            return -number
        case Bool("and", left, right):
            return tested(value(left), "and", truthy) and tested(value(right), "and", truthy)
        case Bool(_, left, right):
            return tested(value(left), "or", truthy) or tested(value(right), "or", truthy)
        case Cond(then, test, otherwise):
            return value(then if tested(value(test), "if", truthy) else otherwise)
        case Binary(op, left, right):
            return _binary(op, value(left), value(right))
        case Filter(name, subject, args):
            return _filter(name, value(subject), [value(a) for a in args])
        case Array(items):
            return [value(item) for item in items]
        case Object(pairs):
            return {key: value(member) for key, member in pairs}
    raise AssertionError(f"not an expression: {expr!r}")  # pragma: no cover - exhaustive


def _select(value: JSON, key: JSON) -> JSON:
    """Member access and indexing: null through null and absent members (WF-BIND-2)."""
    if value is None:
        return None
    if isinstance(value, dict):
        if not isinstance(key, str):
            raise _type_fault(f"an object is indexed by a string, not {_kind(key)}")
        return value.get(key)
    if isinstance(value, list):
        if not (isinstance(key, int) and not isinstance(key, bool)):
            raise _type_fault(f"a list is indexed by an integer, not {_kind(key)}")
        return value[key] if -len(value) <= key < len(value) else None
    raise _type_fault(f"{_kind(value)} has no member {key!r}")


def _binary(op: str, left: JSON, right: JSON) -> JSON:
    if op == "==":
        return equal(left, right)
    if op == "!=":
        return not equal(left, right)
    if op == "in":
        if isinstance(right, list):
            return any(equal(left, item) for item in right)
        if isinstance(right, str) and isinstance(left, str):
            return left in right
        if isinstance(right, dict) and isinstance(left, str):
            return left in right
        if isinstance(right, str | dict):
            raise _type_fault(f"in a {_kind(right)} needs a string on the left, not {_kind(left)}")
        raise _type_fault(f"in needs a list, a string or an object, not {_kind(right)}")
    if op in ("<", "<=", ">", ">="):
        if not (
            (_number(left) and _number(right)) or (isinstance(left, str) and isinstance(right, str))
        ):
            raise _type_fault(
                f"{op} compares two numbers or two strings, not {_kind(left)} and {_kind(right)}"
            )
        return {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[op]
    if op == "+" and isinstance(left, str) and isinstance(right, str):
        return left + right
    if op == "+" and isinstance(left, list) and isinstance(right, list):
        return left + right
    if not (_number(left) and _number(right)):
        raise _type_fault(f"{op} needs two numbers, not {_kind(left)} and {_kind(right)}")
    if op in ("/", "%") and right == 0:
        raise EvaluationFault("expression.division_by_zero", f"{op} by zero")
    try:
        result = {
            "+": lambda: left + right,
            "-": lambda: left - right,
            "*": lambda: left * right,
            "/": lambda: left / right,
            "%": lambda: left % right,
        }[op]()
    except OverflowError:  # a quotient of two integers past the largest float
        raise EvaluationFault(
            "expression.overflow", f"{op} gives a number past the float range"
        ) from None
    if isinstance(result, float) and not math.isfinite(result):
        raise EvaluationFault("expression.overflow", f"{op} gives {result}")
    if isinstance(result, int) and abs(result) > _LARGEST_FLOAT:
        # Past every finite JSON number a float reads (issue 19: an 8,000-digit product
        # could not be written); counted as non-finite.
        raise EvaluationFault("expression.overflow", f"{op} gives an integer past the float range")
    if (
        isinstance(result, float)
        and result.is_integer()
        and op == "/"
        and isinstance(left, int)
        and isinstance(right, int)
    ):
        return int(result)
    return result


def equal(left: JSON, right: JSON) -> bool:
    """Run-time ``==`` (A-117): JSON values of one kind, ``1 == 1.0``, ``true != 1``."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(
            equal(a, b) for a, b in zip(left, right, strict=True)
        )
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(equal(left[k], right[k]) for k in left)
    return bool(left == right) and _kind(left) == _kind(right)


def _filter(name: str, value: JSON, args: list[JSON]) -> JSON:
    if name == "default":
        if len(args) != 1:
            raise EvaluationFault("expression.filter", "default takes one argument")
        return args[0] if value is None else value
    if args and name != "join":
        raise EvaluationFault("expression.filter", f"{name} takes no argument")
    if name == "length":
        if not isinstance(value, str | list | dict):
            raise _type_fault(f"length needs a string, a list or an object, not {_kind(value)}")
        return len(value)
    if name in ("lower", "upper"):
        if not isinstance(value, str):
            raise _type_fault(f"{name} needs a string, not {_kind(value)}")
        return value.lower() if name == "lower" else value.upper()
    if name == "string":
        return stringify(value)
    if name == "json":
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    if name == "keys":
        if not isinstance(value, dict):
            raise _type_fault(f"keys needs an object, not {_kind(value)}")
        return sorted(value)
    if name == "join":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _type_fault("join needs a list of strings")
        separator = args[0] if args else ""
        if not isinstance(separator, str):
            raise _type_fault("join's separator is a string")
        return separator.join(value)
    raise EvaluationFault("expression.filter", f"no filter named {name!r} ({', '.join(FILTERS)})")


def stringify(value: JSON) -> str:
    """A value as template text: strings as they are, null as nothing, others as JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def render(parsed: Template, env: Mapping[str, JSON], truthy: bool = False) -> JSON:
    """A template's value: a whole-value marker keeps its type, otherwise text (A-101)."""
    whole = parsed.whole
    if whole is not None:
        return evaluate(whole, env, truthy)
    return "".join(
        part if isinstance(part, str) else stringify(evaluate(part, env, truthy))
        for part in parsed.parts
    )


def resolve(value: JSON, env: Mapping[str, JSON], truthy: bool = False) -> JSON:
    """A JSON value with every template in it evaluated (arguments, projections, results).

    ``truthy``: A-117's reading (``tested``).
    """
    if isinstance(value, str):
        return render(template(value), env, truthy) if "{{" in value else value
    if isinstance(value, dict):
        return {key: resolve(member, env, truthy) for key, member in value.items()}
    if isinstance(value, list):
        return [resolve(item, env, truthy) for item in value]
    return value
