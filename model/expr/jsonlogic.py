"""The JSONLogic evaluator behind @w6w/expr.

Notation: ``run(r, d, above)`` evaluates rule ``r`` against data ``d``;
``above`` is the stack of enclosing scopes an iterator pushes (``[iteration,
outer data, outer above]``), read by ``val [[n], …]`` and ``var "../x"``.
A rule is a JSON value; an object with exactly one key is an operation, an
array is evaluated element-wise, anything else is itself.

Semantics: the JSON Logic community specification as its test suites pin it
(``../shared/external/jsonlogic``), which extends the classic json-logic-js
behaviour (``compatible.json``) with ``val``, ``exists``, ``??``, ``try``,
``throw`` and typed errors.  Values follow JavaScript (``js.py``).  Where the
suites and json-logic-js disagree the suites win, except truthiness, where
both agree that ``{}`` is true.  Differences are listed in
docs/assumptions.md (A-2x) and docs/jsonlogic.md.

Errors are values: an operation fails by raising ``JsonLogicError`` carrying
the thrown JSON value (``{"type": "NaN"}``, ``{"type": "Invalid
Arguments"}``, ``{"type": "Unknown Operator", "key": …}``, or what ``throw``
threw).  Evaluation is bounded (``Limits``): rule depth, work steps and the
size of built strings and arrays, so hostile rules end in a ``Limit
Exceeded`` error, never in a Python RecursionError or unbounded memory.

One function per operator, all with one signature, assembled in ``OPERATORS``.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable
from typing import Any

import attrs

from wforacle.model.expr import js
from wforacle.model.expr.js import UNDEFINED

JSON = Any


class JsonLogicError(Exception):
    """An evaluation failure: ``thrown`` is the JSON value the rule threw."""

    def __init__(self, thrown: JSON) -> None:
        super().__init__(thrown)
        self.thrown = thrown

    @property
    def type(self) -> str:
        """The error's ``type`` (``"NaN"``, ``"Invalid Arguments"``, a thrown string …)."""
        if isinstance(self.thrown, dict):
            kind = self.thrown.get("type", self.thrown.get("error", self.thrown.get("message")))
            if kind is not None:
                return js.to_string(kind)
            return "Object"
        return js.to_string(self.thrown)


def _fail(kind: str, **extra: JSON) -> JsonLogicError:
    return JsonLogicError({"type": kind, **extra})


NAN = "NaN"
INVALID_ARGUMENTS = "Invalid Arguments"
LIMIT_EXCEEDED = "Limit Exceeded"


@attrs.frozen
class Limits:
    """Bounds that keep evaluation of hostile rules finite (assumption A-23)."""

    max_depth: int = 128  # nested operations and arrays
    max_steps: int = 1_000_000  # operations evaluated
    max_size: int = 1_000_000  # characters of a built string, elements of a built array


Method = Callable[[JSON, JSON, list[Any], "_Evaluator"], JSON]
_CONTAINERS = (dict, list)


class _Evaluator:
    """One evaluation: the rule walk plus its budget (``steps``, ``depth``)."""

    __slots__ = ("depth", "limits", "max_depth", "max_steps", "steps")

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.max_steps = limits.max_steps
        self.max_depth = limits.max_depth
        self.steps = 0
        self.depth = 0

    def run(self, logic: JSON, data: JSON, above: list[Any]) -> JSON:
        # Hot path: exact type tests (a rule is parsed JSON), no try/finally —
        # a failure unwinds to op_try or to evaluate(), which restore ``depth``.
        kind = type(logic)
        if (kind is not dict and kind is not list) or not logic:
            return logic
        self.steps += 1
        if self.steps > self.max_steps:
            raise _fail(LIMIT_EXCEEDED, limit="steps")
        if self.depth >= self.max_depth:
            raise _fail(LIMIT_EXCEEDED, limit="depth")
        self.depth += 1
        if kind is list:
            run = self.run
            result: JSON = [
                run(item, data, above) if type(item) in _CONTAINERS else item for item in logic
            ]
            self.depth -= 1
            return result
        if len(logic) > 1:
            raise _fail("Unknown Operator", key=next(iter(logic)))
        ((op, args),) = logic.items()
        if op == "var" and type(args) is str and not args.startswith("../"):
            result = _var_path(data, args, None)  # the commonest operation, fast
        elif op in _LAZY:
            result = _LAZY[op](args, data, above, self)
        elif op in _EAGER:
            # An eager operator gets its operands evaluated, a lone one wrapped.
            if type(args) is list:
                run = self.run
                args = [run(a, data, above) if type(a) in _CONTAINERS else a for a in args]
            elif type(args) is dict:
                value = self.run(args, data, above)
                args = value if type(value) is list else [value]
            else:
                args = [args]
            result = _EAGER[op](args, data, above, self)
        else:
            raise _fail("Unknown Operator", key=op)
        self.depth -= 1
        return result

    def sized(self, value: Any) -> Any:
        """Refuse a built string or array beyond ``max_size``."""
        if len(value) > self.limits.max_size:
            raise _fail(LIMIT_EXCEEDED, limit="size")
        return value


DEFAULT_LIMITS = Limits()


def evaluate(rule: JSON, data: JSON = None, limits: Limits = DEFAULT_LIMITS) -> JSON:
    """Evaluate ``rule`` against ``data``; raise ``JsonLogicError`` when it fails."""
    return _Evaluator(limits).run(rule, data, [])


# -- arithmetic ---------------------------------------------------------------


def _operand(value: Any) -> float:
    """An arithmetic operand: objects and arrays are refused, the rest through ToNumber."""
    if js.is_object(value):
        raise _fail(NAN)
    return js.to_number(value)


def _checked(result: float) -> float:
    if math.isnan(result):
        raise _fail(NAN)
    return result


def op_add(args: list[Any], data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``+``: the sum, left to right, rounding at each step as JavaScript does; none is 0."""
    result = 0.0
    for a in args:
        result += _operand(a)
    return _checked(result)


def op_multiply(args: list[Any], data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``*``: the product; no operand is 1."""
    result = 1.0
    for a in args:
        result *= _operand(a)
    return _checked(result)


def op_subtract(args: list[Any], data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``-``: negation of one operand, or the first minus the rest."""
    if not args:
        raise _fail(INVALID_ARGUMENTS)
    if len(args) == 1:
        return _checked(-_operand(args[0]))
    result = _operand(args[0])
    for a in args[1:]:
        result -= _operand(a)
    return _checked(result)


def op_divide(args: list[Any], data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``/``: the reciprocal of one operand, or the first divided by the rest; ÷0 is NaN."""
    if not args:
        raise _fail(INVALID_ARGUMENTS)
    operands = [1.0, *args] if len(args) == 1 else args
    result = _operand(operands[0])
    for a in operands[1:]:
        divisor = _operand(a)
        if divisor == 0 or math.isnan(divisor):
            raise _fail(NAN)
        result /= divisor
    if math.isinf(result):
        raise _fail(NAN)
    return _checked(result)


def op_modulo(args: list[Any], data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``%``: JavaScript remainder (sign of the dividend), left to right."""
    if len(args) < 2:
        raise _fail(INVALID_ARGUMENTS)
    result = _operand(args[0])
    for a in args[1:]:
        divisor = _operand(a)
        if divisor == 0 or math.isnan(divisor) or math.isinf(result):
            raise _fail(NAN)
        result = math.fmod(result, divisor) if not math.isinf(divisor) else result
    return _checked(result)


def _extremum(args: list[Any], pick: Callable[[float, float], float]) -> JSON:
    if not args or not all(js.is_number(a) for a in args):
        raise _fail(INVALID_ARGUMENTS)
    result = args[0]
    for a in args[1:]:
        result = pick(result, a)
    return result


def op_max(args: list[Any], data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``max``: the largest of one or more numbers."""
    return _extremum(args, lambda a, b: b if b > a else a)


def op_min(args: list[Any], data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``min``: the smallest of one or more numbers."""
    return _extremum(args, lambda a, b: b if b < a else a)


# -- comparison ---------------------------------------------------------------


def _numeric(value: Any) -> float:
    """A comparison operand when numbers are compared: NaN and objects fail."""
    kind = type(value)
    if kind is int or kind is float:
        if value != value:  # NaN
            raise _fail(NAN)
        return value  # type: ignore[no-any-return]
    if kind is dict or kind is list:
        raise _fail(NAN)
    number = js.to_number(value)
    if math.isnan(number):
        raise _fail(NAN)
    return number


_RELATIONS: dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}


def _loose(relation: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    """A comparison of the community semantics: strings (or null) as strings, else numbers."""

    def compare(a: Any, b: Any) -> bool:
        if (a is None or type(a) is str) and (b is None or type(b) is str):
            if relation is operator.eq or relation is operator.ne:
                return relation(a, b)  # null == null; null == "" is false
            if a is not None and b is not None:
                return relation(js.compare_strings(a, b), 0)
            return relation(js.to_number(a), js.to_number(b))
        return relation(_numeric(a), _numeric(b))

    return compare


_COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    **{op: _loose(relation) for op, relation in _RELATIONS.items()},
    "===": js.strict_equals,
    "!==": lambda a, b: not js.strict_equals(a, b),
}


def _comparator(op: str) -> Method:
    holds = _COMPARISONS[op]

    def compare(args: JSON, data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
        if type(args) is not list or len(args) < 2:
            raise _fail(INVALID_ARGUMENTS)
        run = ev.run
        previous = run(args[0], data, above)
        for rule in args[1:]:
            current = run(rule, data, above)
            if not holds(previous, current):
                return False
            previous = current
        return True

    compare.__name__ = f"op_compare_{op}"
    compare.__doc__ = f"``{op}``: each operand against the next, short-circuiting."
    return compare


# -- logic --------------------------------------------------------------------


def op_if(args: JSON, data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``if`` / ``?:``: the branch after the first truthy condition, else the last."""
    if not isinstance(args, list):
        raise _fail(INVALID_ARGUMENTS)
    if not args:
        return None
    if len(args) == 1:
        return ev.run(args[0], data, above)
    for i in range(0, len(args) - 1, 2):
        if js.truthy(ev.run(args[i], data, above)):
            return ev.run(args[i + 1], data, above)
    return ev.run(args[-1], data, above) if len(args) % 2 == 1 else None


def op_or(args: JSON, data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``or``: the first truthy operand, else the last (W6W-CHAIN-1: "truthy short-circuit")."""
    if not isinstance(args, list):
        raise _fail(INVALID_ARGUMENTS)
    item: JSON = False  # an empty "or" is false (community suite, A-20)
    for rule in args:
        item = ev.run(rule, data, above)
        if js.truthy(item):
            return item
    return item


def op_and(args: JSON, data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``and``: the first falsy operand, else the last."""
    if not isinstance(args, list):
        raise _fail(INVALID_ARGUMENTS)
    item: JSON = False  # an empty "and" is false (community suite, A-20)
    for rule in args:
        item = ev.run(rule, data, above)
        if not js.truthy(item):
            return item
    return item


def op_coalesce(args: JSON, data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``??``: the first operand that is neither null nor undefined (W6W-CHAIN-2)."""
    if not isinstance(args, list):
        raise _fail(INVALID_ARGUMENTS)
    for rule in args:
        item = ev.run(rule, data, above)
        if item is not None and item is not UNDEFINED:
            return item
    return None


def op_not(args: list[Any], data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``!``: the negated truthiness of the first operand (none is undefined)."""
    return not js.truthy(args[0] if args else UNDEFINED)


def op_double_not(args: list[Any], data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``!!``: the truthiness of the first operand (none is undefined)."""
    return js.truthy(args[0] if args else UNDEFINED)


def op_preserve(args: JSON, data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``preserve``: its operand, unevaluated."""
    return args


def op_throw(args: list[Any], data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``throw``: fail with the operand (a string becomes ``{"type": …}``)."""
    thrown = args[0] if args else None
    raise JsonLogicError(thrown if isinstance(thrown, dict) else {"type": thrown})


def op_try(args: JSON, data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``try``: the first operand that does not fail; later ones see ``{"type": error}``."""
    rules = args if isinstance(args, list) else [args]
    error: JsonLogicError | None = None
    depth = ev.depth
    for rule in rules:
        ev.depth = depth  # a failure unwound past the frames that would restore it
        try:
            if error is None:
                return ev.run(rule, data, above)
            return ev.run(rule, {"type": error.type}, [None, data, above])
        except JsonLogicError as failure:
            if (
                failure.thrown.get("type") == LIMIT_EXCEEDED
                if isinstance(failure.thrown, dict)
                else False
            ):
                raise  # a resource limit is not an error a rule may handle
            error = failure
    if error is None:
        return None
    raise error


# -- data access --------------------------------------------------------------


def split_path(path: str) -> list[str]:
    """Split a dotted path; a backslash escapes a dot (as json-logic-engine's splitPath)."""
    parts: list[str] = []
    current = ""
    i = 0
    while i < len(path):
        char = path[i]
        if char == "\\" and i + 1 < len(path) and path[i + 1] in ".\\/":
            current += path[i + 1]
            i += 2
            continue
        if char == ".":
            parts.append(current)
            current = ""
        else:
            current += char
        i += 1
    parts.append(current)
    return parts


def get_property(value: Any, key: Any) -> Any:
    """``value[key]`` for JSON values: own members, array indexes, ``length``.

    Prototype members (``toString``, ``constructor`` …) are not properties
    here (assumption A-22).
    """
    name = key if isinstance(key, str) else js.to_string(key)
    if isinstance(value, dict):
        return value.get(name, UNDEFINED)
    if isinstance(value, list | str):
        if name == "length":
            return len(value) if isinstance(value, list) else js.utf16_length(value)
        if name.isdigit() and (name == "0" or name[0] != "0"):
            index = int(name)
            if index < len(value):
                return (
                    value[index]
                    if isinstance(value, list)
                    else js.utf16_slice(value, index, index + 1)
                )
    return UNDEFINED


def _climb(context: Any, above: list[Any], levels: int) -> tuple[Any, list[Any]]:
    """Move ``levels`` scopes up (json-logic-engine's traversal of ``above``)."""
    position = 0
    for i in range(levels):
        if position >= len(above):
            return None, above
        context = above[position]
        position += 1
        if i == len(above) - 1 and isinstance(context, list):
            above = context
            context = context[0] if context else None
            position = 1
    return context, above


@functools.lru_cache(maxsize=4096)
def _split_cached(path: str) -> tuple[str, ...]:
    return tuple(split_path(path)) if "\\" in path else tuple(path.split("."))


def _var_path(context: Any, key: str, default: Any) -> Any:
    """The path walk of ``var`` (after any ``../`` climbing), split paths cached."""
    if key == "":
        return context
    for part in _split_cached(key):
        if context is None or context is UNDEFINED:
            return default
        context = get_property(context, part)
        if context is UNDEFINED:
            return default
    return context


def op_var(args: JSON, data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``var``: a dotted path into the data, with a default; ``../`` climbs a scope."""
    if js.is_object(args):
        args = ev.run(args, data, above)
    return _var_lookup(args, data, above)


def _var_lookup(args: Any, data: JSON, above: list[Any]) -> Any:
    """``var`` of evaluated arguments: a path, or ``[path, default]``."""
    if isinstance(args, list):
        key = args[0] if args else UNDEFINED
        default = args[1] if len(args) > 1 else None
    else:
        key, default = args, None
    context = data
    climbed = 0
    while isinstance(key, str) and key.startswith("../") and climbed < len(above):
        context = above[climbed]
        climbed += 1
        key = key[3:]
        if climbed == len(above) and isinstance(context, list):
            climbed = 0
            above = context
            context = above[0] if above else None
            climbed = 1
    if key is None or key == "" or key is UNDEFINED:
        return context
    return _var_path(context, key if isinstance(key, str) else js.to_string(key), default)


def _val_lookup(args: Any, data: JSON, above: list[Any]) -> Any:
    """``val``'s path walk; returns UNDEFINED where the path is not there."""
    if isinstance(args, list) and len(args) == 1 and not isinstance(args[0], list):
        args = args[0]
    if not isinstance(args, list):
        if data is None or data is UNDEFINED:
            return UNDEFINED
        return get_property(data, args)
    result = data
    start = 0
    if args and isinstance(args[0], list) and len(args[0]) == 1:
        start = 1
        result, above = _climb(data, above, abs(_integer(args[0][0])))
    for key in args[start:]:
        if result is None or result is UNDEFINED:
            return UNDEFINED
        result = get_property(result, key)
    return result


def op_val(args: JSON, data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``val``: a path given as segments (no dot splitting); ``[[n], …]`` climbs n scopes."""
    if js.is_object(args):
        args = ev.run(args, data, above)
    result = _val_lookup(args, data, above)
    return None if result is UNDEFINED else result


def op_exists(args: list[Any], data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``exists``: whether the ``val`` path is present (a null member is present)."""
    path = args if len(args) != 1 or isinstance(args[0], list) else args[0]
    return _val_lookup(path, data, above) is not UNDEFINED


def _missing_keys(keys: list[Any], data: JSON) -> list[Any]:
    """The keys whose ``var`` path is absent, null or "" (json-logic-js ``missing``)."""
    missing = []
    for key in keys:
        value = _var_path(data, key if isinstance(key, str) else js.to_string(key), UNDEFINED)
        if value is UNDEFINED or value is None or value == "":
            missing.append(key)
    return missing


def op_missing(args: list[Any], data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``missing``: the keys whose path is absent, null or "" (json-logic-js)."""
    keys = args[0] if args and isinstance(args[0], list) else args
    return _missing_keys(keys, data)


def op_missing_some(args: list[Any], data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``missing_some``: [] when at least ``need`` of the keys are present, else the missing."""
    if len(args) < 2 or not isinstance(args[1], list):
        raise _fail(INVALID_ARGUMENTS)
    need, keys = args[0], args[1]
    missing = _missing_keys(keys, data)
    return [] if len(keys) - len(missing) >= js.to_number(need) else missing


# -- arrays -------------------------------------------------------------------


def _selector(
    args: JSON, data: JSON, above: list[Any], ev: _Evaluator, *, quantifier: bool
) -> tuple[list[Any], JSON]:
    """The array an iterator walks and its mapper (assumption A-21).

    The community suite pins, per operator: a literal ``null`` selector is
    an error for every iterator; a selector that *evaluates* to null (a
    missing path) is an empty array for map, filter and reduce but an error
    for the quantifiers all, some and none; a null mapper is an error for
    map and filter but a falsy constant for the quantifiers.  A selector
    that evaluates to any other non-array is an error (JavaScript throws a
    TypeError there).
    """
    if not isinstance(args, list) or not args or args[0] is None:
        raise _fail(INVALID_ARGUMENTS)
    selector = ev.run(args[0], data, above)
    mapper = args[1] if len(args) > 1 else None
    if selector is None and not quantifier:
        selector = []
    if not isinstance(selector, list) or (mapper is None and not quantifier):
        raise _fail(INVALID_ARGUMENTS)
    return selector, mapper


def _each(selector: list[Any], mapper: JSON, data: JSON, above: list[Any], ev: _Evaluator):  # type: ignore[no-untyped-def]
    for index, item in enumerate(selector):
        if not js.is_object(mapper):
            yield mapper
        else:
            yield ev.run(mapper, item, [{"iterator": selector, "index": index}, data, above])


def op_map(args: JSON, data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``map``: the mapper applied to each element."""
    selector, mapper = _selector(args, data, above, ev, quantifier=False)
    return list(_each(selector, mapper, data, above, ev))


def op_filter(args: JSON, data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``filter``: the elements for which the predicate is truthy."""
    selector, mapper = _selector(args, data, above, ev, quantifier=False)
    results = _each(selector, mapper, data, above, ev)
    return [item for item, keep in zip(selector, results, strict=False) if js.truthy(keep)]


def op_all(args: JSON, data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``all``: every element satisfies the predicate; an empty array is false."""
    selector, mapper = _selector(args, data, above, ev, quantifier=True)
    if not selector:
        return False
    return all(js.truthy(r) for r in _each(selector, mapper, data, above, ev))


def _some(args: JSON, data: JSON, above: list[Any], ev: _Evaluator) -> bool:
    selector, mapper = _selector(args, data, above, ev, quantifier=True)
    scope = [selector, data, above]
    return any(
        js.truthy(ev.run(mapper, item, scope) if js.is_object(mapper) else mapper)
        for item in selector
    )


def op_some(args: JSON, data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``some``: at least one element satisfies the predicate."""
    return _some(args, data, above, ev)


def op_none(args: JSON, data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``none``: no element satisfies the predicate."""
    return not _some(args, data, above, ev)


def op_reduce(args: JSON, data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``reduce``: fold with ``{"accumulator", "current"}`` as the mapper's data."""
    if not isinstance(args, list):
        raise _fail(INVALID_ARGUMENTS)
    initial = ev.run(args[2], data, above) if len(args) > 2 else UNDEFINED
    selector, mapper = _selector(args, data, above, ev, quantifier=False)
    items = list(selector)
    if initial is UNDEFINED:
        if not items:
            raise _fail(INVALID_ARGUMENTS)  # JavaScript: reduce of an empty array
        initial, items = items[0], items[1:]
    accumulator = initial
    for current in items:
        scope = {"accumulator": accumulator, "current": current}
        accumulator = (
            ev.run(mapper, scope, [selector, data, above]) if js.is_object(mapper) else mapper
        )
    return accumulator


def op_merge(args: list[Any], data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``merge``: the operands flattened one level into one array."""
    merged: list[Any] = []
    for item in args:
        if isinstance(item, list):
            merged.extend(item)
        else:
            merged.append(item)
        ev.sized(merged)
    return merged


def op_in(args: list[Any], data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``in``: substring of a string, or element (SameValueZero) of an array."""
    item = args[0] if args else UNDEFINED
    container = args[1] if len(args) > 1 else None
    if not js.truthy(container) and not isinstance(container, list | dict):
        return False
    if isinstance(container, str):
        return js.to_string(item) in container
    if isinstance(container, list):
        return any(_same_value_zero(item, element) for element in container)
    raise _fail(INVALID_ARGUMENTS)  # JavaScript throws a TypeError here


def _same_value_zero(a: Any, b: Any) -> bool:
    if js.is_number(a) and js.is_number(b) and math.isnan(a) and math.isnan(b):
        return True
    return js.strict_equals(a, b)


# -- strings ------------------------------------------------------------------


def op_cat(args: list[Any], data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``cat``: the operands' strings concatenated; null contributes nothing."""
    text = "".join(js.to_string(a) for a in args if a is not None and a is not UNDEFINED)
    return ev.sized(text)


def op_substr(args: list[Any], data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``substr``: JavaScript ``substr(start, length)``; a negative length trims the end."""
    text = js.to_string(args[0]) if args else "undefined"
    size = js.utf16_length(text)
    start = _integer(args[1]) if len(args) > 1 else 0
    start = max(size + start, 0) if start < 0 else min(start, size)
    if len(args) > 2:  # a null length is 0 (ToIntegerOrInfinity); only absence means "to the end"
        length = js.to_number(args[2])
        if length < 0:
            # json-logic-js: tail = s.substr(start); tail.substr(0, tail.length + length),
            # the sum truncated after it is formed.
            end = start + max(_integer(size - start + length), 0)
        else:
            end = min(start + _integer(length), size)
    else:
        end = size
    return js.utf16_slice(text, start, max(start, end))


def _integer(value: Any) -> int:
    number = js.to_number(value)
    if math.isnan(number):
        return 0
    if math.isinf(number):
        return 2**53 if number > 0 else -(2**53)
    return int(number)


def op_path(args: JSON, data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``$``: the @w6w/expr path marker inside JSONLogic — the value at a dotted path, or null.

    The RFC's own example nests it in ``$expr`` (``{"cat": ["updated:>",
    {"$": "trigger.event.since"}]}``); JSONLogic has no such operation, so
    @w6w/expr must (assumption A-44, finding F-06).  Like the ``$`` marker, an
    empty or non-string path names nothing (A-35).
    """
    if js.is_object(args):
        args = ev.run(args, data, above)
    if not isinstance(args, str) or args == "":
        return None
    return _var_path(data, args, None)


def op_join(args: list[Any], data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    r"""``join``: ``[separator, array]`` → the elements joined (JavaScript Array.join).

    Used by the RFC's example (``{"join": [newline, {"$": "steps.fetch.output.items"}]}``);
    an @w6w/expr operation, not JSONLogic (assumption A-44).  Null elements
    contribute ""; a non-array joins as a one-element array; no array is "".
    """
    separator = js.to_string(args[0]) if args and args[0] is not None else ","
    items = args[1] if len(args) > 1 else []
    if items is None:
        items = []
    if not isinstance(items, list):
        items = [items]
    text = separator.join("" if i is None else js.to_string(i) for i in items)
    return ev.sized(text)


def op_log(args: list[Any], data: JSON, above: list[Any], ev: _Evaluator) -> JSON:
    """``log``: its first operand (json-logic-js also prints it; no side effects here)."""
    return args[0] if args else None


OPERATORS: dict[str, tuple[Method, bool]] = {
    # name: (method, lazy) — a lazy method receives its operands unevaluated.
    "+": (op_add, False),
    "-": (op_subtract, False),
    "*": (op_multiply, False),
    "/": (op_divide, False),
    "%": (op_modulo, False),
    "max": (op_max, False),
    "min": (op_min, False),
    "<": (_comparator("<"), True),
    "<=": (_comparator("<="), True),
    ">": (_comparator(">"), True),
    ">=": (_comparator(">="), True),
    "==": (_comparator("=="), True),
    "!=": (_comparator("!="), True),
    "===": (_comparator("==="), True),
    "!==": (_comparator("!=="), True),
    "if": (op_if, True),
    "?:": (op_if, True),
    "or": (op_or, True),
    "and": (op_and, True),
    "??": (op_coalesce, True),
    "!": (op_not, False),
    "!!": (op_double_not, False),
    "preserve": (op_preserve, True),
    "throw": (op_throw, False),
    "try": (op_try, True),
    "var": (op_var, True),
    "val": (op_val, True),
    "exists": (op_exists, False),
    "missing": (op_missing, False),
    "missing_some": (op_missing_some, False),
    "map": (op_map, True),
    "filter": (op_filter, True),
    "reduce": (op_reduce, True),
    "all": (op_all, True),
    "some": (op_some, True),
    "none": (op_none, True),
    "merge": (op_merge, False),
    "in": (op_in, False),
    "cat": (op_cat, False),
    "substr": (op_substr, False),
    "log": (op_log, False),
    # @w6w/expr additions the w6w RFC's own example uses (assumption A-44).
    "$": (op_path, True),
    "join": (op_join, False),
}


_LAZY = {name: method for name, (method, lazy) in OPERATORS.items() if lazy}
_EAGER = {name: method for name, (method, lazy) in OPERATORS.items() if not lazy}


def to_json(value: Any) -> JSON:
    """A result as JSON: integral numbers as integers, non-finite numbers as null.

    JSON.stringify prints ``3`` for the number 3 whatever its history, and
    ``null`` for NaN and ±Infinity.
    """
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        if value.is_integer() and abs(value) < 2**53:
            return int(value)
        return value
    if isinstance(value, list):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    if value is UNDEFINED:
        return None
    return value
