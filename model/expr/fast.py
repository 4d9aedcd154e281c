"""The JSONLogic evaluator's fast path: a rule compiled once into closures.

Speed only: ``evaluate`` here returns what ``jsonlogic.evaluate`` returns
and fails as it fails (the same ``JsonLogicError``, the same thrown value,
the same ``Limit Exceeded`` at the same point), which
tests/expr/test_jsonlogic_fast.py checks on generated rules and on every
community suite case.  jsonlogic.py stays the definition; the operators'
own functions are reused wherever a compiled form would only repeat them.

Notation: compiling rule ``r`` met at nesting depth ``d`` gives a *node*, a
function ``node(data, above, ev)`` that does what ``ev.run(r, data,
above)`` does when ``ev.depth == d``; an *operand* is a node, or ``None``
and the literal that ``ev.run`` would return unchanged (a scalar, ``[]``,
``{}``).

The bounds of A-23, per node:

- depth: a node's depth is the number of operations and arrays around it
  in the rule, known when compiling, so a node at ``max_depth`` compiles to
  the failure it meets and nothing below it is compiled;
- steps: a rule without iterators or handed-back operations runs each node
  at most once, so when it has at most ``max_steps`` nodes no evaluation
  can exceed the bound and its nodes do not count; any other rule's nodes
  count a step at entry and check it first, as ``run`` does (``_counted``);
- size: the operators' own functions check it, through ``ev.sized``.

A lazy operator without a compiled form here (``try``, ``val``) hands its
node back to ``ev.run`` at its depth.

Rules repeat across evaluations (a w6w document's ``$expr`` values, in
every step of every run), so a rule is compiled the second time it is
evaluated (compiling costs about two plain evaluations, which a rule
evaluated once would not earn back) and then kept by identity: the entry
holds the rule object itself, so its id is not reused while it is kept.
What is kept is bounded: at most ``CACHED`` rules weighing ``KEPT`` in
all (when a new one would exceed either, all are forgotten and compiled
again as they come back), and a rule weighing more than ``HEAVIEST`` is
left to the plain path, as is every rule under a ``max_depth`` above
``DEEPEST``.  A rule is a JSON value read from a document and never
changed afterwards; a rule object changed after its second evaluation
here keeps its old meaning.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from wforacle.model.expr import js
from wforacle.model.expr import jsonlogic as plain
from wforacle.model.expr.js import UNDEFINED, truthy
from wforacle.model.expr.jsonlogic import (
    DEFAULT_LIMITS,
    INVALID_ARGUMENTS,
    LIMIT_EXCEEDED,
    Limits,
)

JSON = Any
Node = Callable[[JSON, list[Any], Any], JSON]
Operand = tuple[Node | None, JSON]

CACHED = 4096  # compiled rules kept at most
KEPT = 1_000_000  # their weight together (``weight``)
HEAVIEST = 10_000  # a rule weighing more is not compiled
DEEPEST = DEFAULT_LIMITS.max_depth  # beyond it, the plain path (compiling recurses deeper)
ITERATORS = frozenset({"map", "filter", "reduce", "all", "some", "none"})

Compiled = tuple[JSON, Limits, Node, Any, int]  # rule, limits, node, shared evaluator, weight

_compiled: dict[int, Compiled] = {}  # by id(rule)
_seen: dict[int, bool] = {}  # id(rule) → evaluated once (True) or never compiled (False)
_weight_kept = 0
_lock = threading.Lock()  # for _compiled and _weight_kept


def evaluate(rule: JSON, data: JSON = None, limits: Limits = DEFAULT_LIMITS) -> JSON:
    """Evaluate ``rule`` against ``data`` as ``jsonlogic.evaluate`` does, compiled once."""
    kind = type(rule)
    if (kind is not dict and kind is not list) or not rule:
        return rule  # a literal is itself, and costs no step
    entry = _compiled.get(id(rule))
    if entry is None or entry[0] is not rule or (entry[1] is not limits and entry[1] != limits):
        entry = _second_sight(rule, limits)
        if entry is None:
            return plain.evaluate(rule, data, limits)
    # A rule whose nodes count steps needs an evaluator of its own.
    return entry[2](data, [], entry[3] or plain._Evaluator(limits))


def _second_sight(rule: JSON, limits: Limits) -> Compiled | None:
    """The compiled rule from its second evaluation on; None: evaluate it on the plain path.

    ``_seen`` keeps ids, not rules: when a rule seen once is gone and a new
    one takes its id, the new one is compiled on its first evaluation, and
    one marked "never" is evaluated on the plain path, both as correct.
    """
    if limits.max_depth > DEEPEST:
        return None
    key = id(rule)
    seen = _seen.pop(key, None)
    if seen is None and key not in _compiled:  # the first evaluation
        _remember_seen(key, True)
        return None
    size = weight(rule, HEAVIEST)
    if seen is False or size > HEAVIEST:
        _remember_seen(key, False)
        return None
    try:
        entry = _compile(rule, limits, size)
    except RecursionError:  # a caller already deep in its own stack
        return None
    with _lock:
        _keep(key, entry)
    return entry


def _remember_seen(key: int, first: bool) -> None:
    # Plain dictionary steps, each atomic: threads racing here can only
    # compile a rule one evaluation early or late.
    if len(_seen) >= CACHED:
        _seen.clear()
    _seen[key] = first


def _keep(key: int, entry: Compiled) -> None:
    """Keep a compiled rule; when it would exceed a bound, forget every other first."""
    global _weight_kept
    if key in _compiled:  # the same rule under other limits
        _weight_kept -= _compiled.pop(key)[4]
    if len(_compiled) >= CACHED or _weight_kept + entry[4] > KEPT:
        _compiled.clear()
        _weight_kept = 0
    _compiled[key] = entry
    _weight_kept += entry[4]


def _compile(rule: JSON, limits: Limits, size: int) -> Compiled:
    uncounted = _Compiler(limits.max_depth, counting=False)
    node = uncounted.node(rule, 0)
    if uncounted.once and uncounted.nodes <= limits.max_steps:
        # No step is counted, so one evaluator serves every evaluation: its
        # limits are read (``sized``), never written.
        return (rule, limits, node, plain._Evaluator(limits), size)
    counted = _Compiler(limits.max_depth, counting=True).node(rule, 0)
    return (rule, limits, counted, None, size)


def weight(value: JSON, most: int) -> int:
    """What keeping ``value`` costs: one per JSON value, one per 16 characters of a string.

    Counting stops past ``most`` (so a huge value costs no more to weigh).
    """
    found = 0
    stack = [value]
    while stack:
        item = stack.pop()
        found += 1
        kind = type(item)
        if kind is str:
            found += len(item) // 16
        elif kind is list or kind is dict:
            if found + len(item) > most:
                return most + 1
            stack.extend(item)
            if kind is dict:
                stack.extend(item.values())
        if found > most:
            return found
    return found


class _Compiler:
    """Compiles one rule for one ``max_depth``, its nodes counting steps or not.

    ``nodes`` counts the nodes compiled; ``once`` stays true while every
    node runs at most once per evaluation (no iterator, nothing handed back).
    """

    def __init__(self, max_depth: int, counting: bool) -> None:
        self.max_depth = max_depth
        self.counting = counting
        self.nodes = 0
        self.once = True

    def node(self, rule: JSON, depth: int) -> Node:
        """The node of a non-empty object or array ``rule`` at ``depth``."""
        self.nodes += 1
        if depth >= self.max_depth:
            body = _failing(LIMIT_EXCEEDED, limit="depth")
        elif type(rule) is list:
            body = _array([self.operand(item, depth + 1) for item in rule])
        elif len(rule) > 1:
            body = _failing("Unknown Operator", key=next(iter(rule)))
        else:
            ((op, args),) = rule.items()
            if op == "var" and type(args) is str and not args.startswith("../"):
                body = _path(args)
            elif op in _LAZY:
                self.once = self.once and op not in ITERATORS
                body = _LAZY[op](self, op, args, depth + 1)
            elif op in plain._LAZY:
                self.once = False
                return _handed_back(rule, depth)  # ``run`` counts its step
            elif op in plain._EAGER:
                body = _eager(self, plain._EAGER[op], args, depth + 1)
            else:
                body = _failing("Unknown Operator", key=op)
        return _counted(body) if self.counting else body

    def operand(self, rule: JSON, depth: int) -> Operand:
        """What ``ev.run(rule)`` is: a node, or (None, the literal itself)."""
        kind = type(rule)
        if (kind is dict or kind is list) and rule:
            return self.node(rule, depth), None
        return None, rule

    def operands(self, rules: list[Any], depth: int) -> list[Operand]:
        """The operands of a list of rules."""
        return [self.operand(rule, depth) for rule in rules]


def _counted(body: Node) -> Node:
    """``body`` counting its step at entry and checking it first, as ``run`` does."""

    def counted(data: JSON, above: list[Any], ev: Any) -> JSON:
        ev.steps += 1
        if ev.steps > ev.max_steps:
            raise plain._fail(LIMIT_EXCEEDED, limit="steps")
        return body(data, above, ev)

    return counted


def _failing(kind: str, **details: JSON) -> Node:
    """A node that fails (too deep, an unknown or malformed operation), a fresh error each time."""

    def failing(data: JSON, above: list[Any], ev: Any) -> JSON:
        raise plain._fail(kind, **details)

    return failing


def _handed_back(rule: JSON, depth: int) -> Node:
    """A node the plain evaluator runs at its depth, counting its steps on ``ev``."""

    def handed_back(data: JSON, above: list[Any], ev: Any) -> JSON:
        ev.depth = depth
        return ev.run(rule, data, above)

    return handed_back


def _array(items: list[Operand]) -> Node:
    """An array: its elements evaluated."""

    def array(data: JSON, above: list[Any], ev: Any) -> JSON:
        return [value if node is None else node(data, above, ev) for node, value in items]

    return array


def _path(path: str) -> Node:
    """``var`` of a string path without ``../`` (``_var_path`` with the split done once)."""
    if path == "":
        return lambda data, above, ev: data
    parts = plain._split_cached(path)
    get_property = plain.get_property
    if len(parts) == 1:
        (key,) = parts

        def member(data: JSON, above: list[Any], ev: Any) -> JSON:
            if type(data) is dict:
                value = data.get(key, UNDEFINED)
            elif data is None or data is UNDEFINED:
                return None
            else:
                value = get_property(data, key)
            return None if value is UNDEFINED else value

        return member

    def walk(data: JSON, above: list[Any], ev: Any) -> JSON:
        for part in parts:
            if data is None or data is UNDEFINED:
                return None
            data = data.get(part, UNDEFINED) if type(data) is dict else get_property(data, part)
            if data is UNDEFINED:
                return None
        return data

    return walk


def _eager(compiler: _Compiler, method: plain.Method, args: JSON, depth: int) -> Node:
    """An eager operation: its operands evaluated (a lone one wrapped), then its method."""
    if type(args) is list:
        operands = compiler.operands(args, depth)

        def eager(data: JSON, above: list[Any], ev: Any) -> JSON:
            values = [value if node is None else node(data, above, ev) for node, value in operands]
            return method(values, data, above, ev)

        return eager
    if type(args) is dict:
        computed, literal = compiler.operand(args, depth)

        def spread(data: JSON, above: list[Any], ev: Any) -> JSON:
            value = literal if computed is None else computed(data, above, ev)
            return method(value if type(value) is list else [value], data, above, ev)

        return spread
    return lambda data, above, ev: method([args], data, above, ev)


# -- lazy operations: each mirrors its plain method, operands at ``depth`` ----------------------


def _compare(compiler: _Compiler, op: str, args: JSON, depth: int) -> Node:
    """A comparison (``_comparator``): each operand against the next, short-circuiting."""
    if type(args) is not list or len(args) < 2:
        return _failing(INVALID_ARGUMENTS)
    holds = plain._COMPARISONS[op]
    (first, literal), *rest = compiler.operands(args, depth)
    if len(rest) == 1 and op in plain._RELATIONS:
        # Two numbers compare as themselves (``_loose`` through ``_numeric``): no detour.
        relation = plain._RELATIONS[op]
        ((second, other),) = rest

        def loose(data: JSON, above: list[Any], ev: Any) -> JSON:
            a = literal if first is None else first(data, above, ev)
            b = other if second is None else second(data, above, ev)
            kind_a, kind_b = type(a), type(b)
            numbers = (kind_a is int or kind_a is float) and (kind_b is int or kind_b is float)
            if numbers and a == a and b == b:  # neither is NaN
                return relation(a, b)
            return holds(a, b)

        return loose

    def chain(data: JSON, above: list[Any], ev: Any) -> JSON:
        previous = literal if first is None else first(data, above, ev)
        for node, value in rest:
            current = value if node is None else node(data, above, ev)
            if not holds(previous, current):
                return False
            previous = current
        return True

    return chain


def _if(compiler: _Compiler, op: str, args: JSON, depth: int) -> Node:
    """``if`` / ``?:`` (``op_if``): the branch after the first truthy condition, else the last."""
    if not isinstance(args, list):
        return _failing(INVALID_ARGUMENTS)
    branches = compiler.operands(args, depth)
    pairs = [(branches[i], branches[i + 1]) for i in range(0, len(branches) - 1, 2)]
    last = branches[-1] if len(branches) % 2 == 1 else None

    def choice(data: JSON, above: list[Any], ev: Any) -> JSON:
        for (test, test_value), (then, then_value) in pairs:
            value = test_value if test is None else test(data, above, ev)
            if value is True or (value is not False and truthy(value)):
                return then_value if then is None else then(data, above, ev)
        if last is None:
            return None
        node, value = last
        return value if node is None else node(data, above, ev)

    return choice


def _or(compiler: _Compiler, op: str, args: JSON, depth: int) -> Node:
    """``or`` (``op_or``): the first truthy operand, else the last; none is false."""
    if not isinstance(args, list):
        return _failing(INVALID_ARGUMENTS)
    operands = compiler.operands(args, depth)

    def either(data: JSON, above: list[Any], ev: Any) -> JSON:
        item: JSON = False
        for node, value in operands:
            item = value if node is None else node(data, above, ev)
            if truthy(item):
                return item
        return item

    return either


def _and(compiler: _Compiler, op: str, args: JSON, depth: int) -> Node:
    """``and`` (``op_and``): the first falsy operand, else the last; none is false."""
    if not isinstance(args, list):
        return _failing(INVALID_ARGUMENTS)
    operands = compiler.operands(args, depth)

    def both(data: JSON, above: list[Any], ev: Any) -> JSON:
        item: JSON = False
        for node, value in operands:
            item = value if node is None else node(data, above, ev)
            if not truthy(item):
                return item
        return item

    return both


def _coalesce(compiler: _Compiler, op: str, args: JSON, depth: int) -> Node:
    """``??`` (``op_coalesce``): the first operand that is neither null nor undefined."""
    if not isinstance(args, list):
        return _failing(INVALID_ARGUMENTS)
    operands = compiler.operands(args, depth)

    def first_present(data: JSON, above: list[Any], ev: Any) -> JSON:
        for node, value in operands:
            item = value if node is None else node(data, above, ev)
            if item is not None and item is not UNDEFINED:
                return item
        return None

    return first_present


def _preserve(compiler: _Compiler, op: str, args: JSON, depth: int) -> Node:
    """``preserve`` (``op_preserve``): its operand, unevaluated."""
    return lambda data, above, ev: args


def _var(compiler: _Compiler, op: str, args: JSON, depth: int) -> Node:
    """``var`` (``op_var``) other than a string path: arguments evaluated, then looked up."""
    computed, literal = compiler.operand(args, depth) if js.is_object(args) else (None, args)
    lookup = plain._var_lookup

    def var(data: JSON, above: list[Any], ev: Any) -> JSON:
        value = literal if computed is None else computed(data, above, ev)
        return lookup(value, data, above)

    return var


def _dollar(compiler: _Compiler, op: str, args: JSON, depth: int) -> Node:
    """``$`` (``op_path``): the value at a path (arguments evaluated first), or null."""
    computed, literal = compiler.operand(args, depth) if js.is_object(args) else (None, args)
    walk = plain._var_path

    def dollar(data: JSON, above: list[Any], ev: Any) -> JSON:
        path = literal if computed is None else computed(data, above, ev)
        if not isinstance(path, str) or path == "":
            return None
        return walk(data, path, None)

    return dollar


# -- iterators: ``_selector`` and ``_each`` of the plain path, their mapper compiled --------------


def _iterator(
    compiler: _Compiler, args: JSON, depth: int, quantifier: bool
) -> tuple[Operand, Operand, bool] | None:
    """The selector and mapper operands, and whether the mapper is absent; None: malformed."""
    if not isinstance(args, list) or not args or args[0] is None:
        return None
    mapper = args[1] if len(args) > 1 else None
    return compiler.operand(args[0], depth), compiler.operand(mapper, depth), mapper is None


def _map(compiler: _Compiler, op: str, args: JSON, depth: int) -> Node:
    """``map`` (``op_map``): the mapper applied to each element."""
    parts = _iterator(compiler, args, depth, quantifier=False)
    if parts is None:
        return _failing(INVALID_ARGUMENTS)
    (select, selected), (mapper, constant), absent = parts

    def mapped(data: JSON, above: list[Any], ev: Any) -> JSON:
        selector = selected if select is None else select(data, above, ev)
        if selector is None:
            selector = []
        if not isinstance(selector, list) or absent:
            raise plain._fail(INVALID_ARGUMENTS)
        if mapper is None:
            return [constant for _ in selector]
        return [
            mapper(item, [{"iterator": selector, "index": index}, data, above], ev)
            for index, item in enumerate(selector)
        ]

    return mapped


def _filter(compiler: _Compiler, op: str, args: JSON, depth: int) -> Node:
    """``filter`` (``op_filter``): the elements for which the predicate is truthy."""
    parts = _iterator(compiler, args, depth, quantifier=False)
    if parts is None:
        return _failing(INVALID_ARGUMENTS)
    (select, selected), (mapper, constant), absent = parts

    def filtered(data: JSON, above: list[Any], ev: Any) -> JSON:
        selector = selected if select is None else select(data, above, ev)
        if selector is None:
            selector = []
        if not isinstance(selector, list) or absent:
            raise plain._fail(INVALID_ARGUMENTS)
        kept = []
        for index, item in enumerate(selector):
            scope = [{"iterator": selector, "index": index}, data, above]
            if truthy(constant if mapper is None else mapper(item, scope, ev)):
                kept.append(item)
        return kept

    return filtered


def _all(compiler: _Compiler, op: str, args: JSON, depth: int) -> Node:
    """``all`` (``op_all``): every element satisfies the predicate; an empty array is false."""
    parts = _iterator(compiler, args, depth, quantifier=True)
    if parts is None:
        return _failing(INVALID_ARGUMENTS)
    (select, selected), (mapper, constant), _ = parts

    def every(data: JSON, above: list[Any], ev: Any) -> JSON:
        selector = selected if select is None else select(data, above, ev)
        if not isinstance(selector, list):
            raise plain._fail(INVALID_ARGUMENTS)
        if not selector:
            return False
        for index, item in enumerate(selector):
            scope = [{"iterator": selector, "index": index}, data, above]
            if not truthy(constant if mapper is None else mapper(item, scope, ev)):
                return False
        return True

    return every


def _some(compiler: _Compiler, op: str, args: JSON, depth: int) -> Node:
    """``some`` / ``none`` (``_some``): whether an element satisfies the predicate (negated)."""
    parts = _iterator(compiler, args, depth, quantifier=True)
    if parts is None:
        return _failing(INVALID_ARGUMENTS)
    (select, selected), (mapper, constant), _ = parts
    found = op == "some"

    def some(data: JSON, above: list[Any], ev: Any) -> JSON:
        selector = selected if select is None else select(data, above, ev)
        if not isinstance(selector, list):
            raise plain._fail(INVALID_ARGUMENTS)
        scope = [selector, data, above]
        for item in selector:
            if truthy(constant if mapper is None else mapper(item, scope, ev)):
                return found
        return not found

    return some


def _reduce(compiler: _Compiler, op: str, args: JSON, depth: int) -> Node:
    """``reduce`` (``op_reduce``): fold with ``{"accumulator", "current"}`` as the mapper's data."""
    if not isinstance(args, list):
        return _failing(INVALID_ARGUMENTS)
    start, initial = compiler.operand(args[2], depth) if len(args) > 2 else (None, UNDEFINED)
    parts = _iterator(compiler, args, depth, quantifier=False)

    def reduced(data: JSON, above: list[Any], ev: Any) -> JSON:
        accumulator = initial if start is None else start(data, above, ev)
        if parts is None:  # malformed, found after the initial value is evaluated
            raise plain._fail(INVALID_ARGUMENTS)
        (select, selected), (mapper, constant), absent = parts
        selector = selected if select is None else select(data, above, ev)
        if selector is None:
            selector = []
        if not isinstance(selector, list) or absent:
            raise plain._fail(INVALID_ARGUMENTS)
        items = list(selector)
        if accumulator is UNDEFINED:
            if not items:
                raise plain._fail(INVALID_ARGUMENTS)  # JavaScript: reduce of an empty array
            accumulator, items = items[0], items[1:]
        for current in items:
            scope = {"accumulator": accumulator, "current": current}
            accumulator = constant if mapper is None else mapper(scope, [selector, data, above], ev)
        return accumulator

    return reduced


_LAZY: dict[str, Callable[[_Compiler, str, JSON, int], Node]] = {
    **{op: _compare for op in plain._COMPARISONS},
    "if": _if,
    "?:": _if,
    "or": _or,
    "and": _and,
    "??": _coalesce,
    "preserve": _preserve,
    "var": _var,
    "$": _dollar,
    "map": _map,
    "filter": _filter,
    "all": _all,
    "some": _some,
    "none": _some,
    "reduce": _reduce,
}
