"""Workfile expressions: parse (Lark), templates, and statically resolved references.

Notation (grammar/workfile_expr.lark, assumption A-100)::

    e ::= Lit(v) | Name(n) | Member(e, n) | Index(e, e) | Not(e) | Minus(e)
        | Bool(op, e, e) | Binary(op, e, e) | Cond(then, test, else)
        | Filter(n, e, e*) | Array(e*) | Object((k, e)*)

A *path* is the statically resolved part of a reference: its root name and
the literal member and index segments after it; a computed index widens the
path to every member at that level (``ANY``) — "A computed index
conservatively selects every member at that level and also depends on the
index expression".  ``refs(e)`` are the paths of every reference in ``e``,
"including conditional branches, short-circuited operands, and filter
arguments such as default" (Suppression Dependencies): it reads the tree,
never evaluates it.

A *template* is a string value; each ``{{ expr }}`` marker in it is an
expression.  A string that is one marker and nothing else is a whole-value
marker and keeps the expression's type; any other string with markers
interpolates their values as text (assumption A-101).
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from wforacle.grammar import build, nesting, parser
from wforacle.model.diagnostics import InvalidInput

if TYPE_CHECKING:
    import lark

JSON = Any


class ExprError(InvalidInput):
    """An expression or template that does not parse (document.expression)."""


@attrs.frozen
class Lit:
    """A literal: number, string, boolean, null."""

    value: JSON


@attrs.frozen
class Name:
    """A root name: a binding, ``inputs``, ``run``, ``error``, an iteration variable."""

    name: str


@attrs.frozen
class Member:
    """Literal member access ``e.name``."""

    subject: Expr
    name: str


@attrs.frozen
class Index:
    """Indexing ``e[i]``: literal when ``i`` is a literal, computed otherwise."""

    subject: Expr
    index: Expr


@attrs.frozen
class Not:
    """``not e``."""

    operand: Expr


@attrs.frozen
class Minus:
    """``-e``."""

    operand: Expr


@attrs.frozen
class Bool:
    """``and`` / ``or``, short-circuit."""

    op: str
    left: Expr
    right: Expr


@attrs.frozen
class Binary:
    """A comparison or arithmetic operator."""

    op: str
    left: Expr
    right: Expr


@attrs.frozen
class Cond:
    """``then if test else otherwise``."""

    then: Expr
    test: Expr
    otherwise: Expr


@attrs.frozen
class Filter:
    """``subject | name(args…)``."""

    name: str
    subject: Expr
    args: tuple[Expr, ...] = ()


@attrs.frozen
class Array:
    """``[e, …]``."""

    items: tuple[Expr, ...]


@attrs.frozen
class Object:
    """``{k: e, …}``."""

    pairs: tuple[tuple[str, Expr], ...]


Expr = Lit | Name | Member | Index | Not | Minus | Bool | Binary | Cond | Filter | Array | Object


class _Build:
    """Lark's parse tree → Expr: one method per grammar rule (grammar ``build``)."""

    def number(self, items: list[Any]) -> Lit:
        text = str(items[0])
        # A literal is a JSON number: finite, and an integer within Python's
        # 4,300 digits (issue 19: 1e400 reached the output as Infinity).
        value = float(text)
        if not math.isfinite(value):
            raise ExprError(
                f"the number {text[:24]}… is out of range: no finite number represents it"
            )
        if "." in text or "e" in text.lower():
            return Lit(value)
        return Lit(int(text))

    def string(self, items: list[Any]) -> Lit:
        return Lit(_unquote(str(items[0])))

    def true(self, _: list[Any]) -> Lit:
        return Lit(True)

    def false(self, _: list[Any]) -> Lit:
        return Lit(False)

    def null(self, _: list[Any]) -> Lit:
        return Lit(None)

    def name(self, items: list[Any]) -> Name:
        return Name(str(items[0]))

    def member(self, items: list[Any]) -> Member:
        return Member(items[0], str(items[1]))

    def index(self, items: list[Any]) -> Index:
        return Index(items[0], items[1])

    def negation(self, items: list[Any]) -> Not:
        return Not(items[0])

    def minus(self, items: list[Any]) -> Minus:
        return Minus(items[0])

    def conditional(self, items: list[Any]) -> Cond:
        return Cond(items[0], items[1], items[2])

    def or_(self, items: list[Any]) -> Expr:
        return _fold("or", items)

    def and_(self, items: list[Any]) -> Expr:
        return _fold("and", items)

    def cmp(self, items: list[Any]) -> Binary:
        return Binary(str(items[1]), items[0], items[2])

    def sum(self, items: list[Any]) -> Expr:
        return _chain(items)

    def product(self, items: list[Any]) -> Expr:
        return _chain(items)

    def filtered(self, items: list[Any]) -> Expr:
        subject: Expr = items[0]
        rest = items[1:]
        while rest:
            name = str(rest[0])
            args: tuple[Expr, ...] = ()
            if len(rest) > 1 and isinstance(rest[1], tuple):
                args, rest = rest[1], rest[2:]
            else:
                rest = rest[1:]
            subject = Filter(name, subject, args)
        return subject

    def filter_args(self, items: list[Any]) -> tuple[Expr, ...]:
        return tuple(item for item in items if item is not None)

    def array(self, items: list[Any]) -> Array:
        return Array(tuple(item for item in items if item is not None))

    def pair(self, items: list[Any]) -> tuple[str, Expr]:
        key = str(items[0])
        return (_unquote(key) if key[:1] in "\"'" else key, items[1])

    def object(self, items: list[Any]) -> Object:
        return Object(tuple(item for item in items if item is not None))


def _fold(op: str, items: list[Expr]) -> Expr:
    result = items[0]
    for item in items[1:]:
        result = Bool(op, result, item)
    return result


def _chain(items: list[Any]) -> Expr:
    result: Expr = items[0]
    for op, operand in zip(items[1::2], items[2::2], strict=True):
        result = Binary(str(op), result, operand)
    return result


def _unquote(text: str) -> str:
    if text.startswith("'"):
        inner = text[1:-1].replace('\\"', '"').replace("\\'", "'")
        return str(json.loads('"' + inner.replace('"', '\\"') + '"'))
    return str(json.loads(text))


def parse(text: str) -> Expr:
    """The expression ``text`` denotes; ExprError when it does not parse."""
    import lark  # only a document with an expression parses one (start-up time)

    try:
        tree = parser("workfile_expr", "start").parse(text)
    except lark.exceptions.LarkError as exc:
        raise ExprError(f"not an expression: {text.strip()!r} ({_brief(exc)})") from None
    except RecursionError:
        raise ExprError(f"expression nested too deeply: {text[:40]!r}…") from None
    if _nesting(tree) > MAX_NESTING:
        raise ExprError(f"operators nest deeper than {MAX_NESTING}: {text.strip()[:40]!r}…")
    built = build(tree, _Build())
    result: Expr = built if not isinstance(built, lark.Tree) else build(built, _Build())
    return result


MAX_NESTING = 64  # operators, accesses and literals an operand sits under
_CHAINS = {"or_": 1, "and_": 1, "sum": 2, "product": 2, "filtered": 1}  # children per link


def _nesting(tree: lark.Tree[Any]) -> int:
    """The depth of the Expr ``tree`` builds (A-100): ``a and b and c`` counts two levels."""
    return nesting(tree, _CHAINS)


def _brief(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0][:120]


# -- text: an expression written back ----------------------------------------------

# Precedence levels, loosest first (grammar/workfile_expr.lark; docs/workfile-expressions.md).
_LEVELS = {"if": 1, "or": 2, "and": 3, "not": 4, "cmp": 5, "add": 6, "mul": 7, "neg": 8}
_LEVELS |= {"filter": 9, "postfix": 10, "primary": 11}
_OPERATORS = {"+": "add", "-": "add", "*": "mul", "/": "mul", "%": "mul"}
_OPERATORS |= {op: "cmp" for op in ("==", "!=", "<", "<=", ">", ">=", "in")}
_KEYWORDS = frozenset(("and", "or", "not", "if", "else", "in", "true", "false", "null"))
_NAME = re.compile(r"[a-z_][a-z0-9_]*")  # grammar/workfile_expr.lark NAME, keywords aside


def level(expr: Expr) -> int:
    """How loosely ``expr``'s outermost operator binds (1 the conditional, 11 a primary)."""
    match expr:
        case Cond():
            return _LEVELS["if"]
        case Bool(op, _, _):
            return _LEVELS[op]
        case Not():
            return _LEVELS["not"]
        case Binary(op, _, _):
            return _LEVELS[_OPERATORS[op]]
        case Minus():
            return _LEVELS["neg"]
        case Filter():
            return _LEVELS["filter"]
        case Member() | Index():
            return _LEVELS["postfix"]
    return _LEVELS["primary"]


def unparse(expr: Expr, parenthesised: frozenset[int] = frozenset()) -> str:
    """Text that parses to ``expr``, with a parenthesis only where precedence needs one.

    ``parenthesised``: the ``id`` of subexpressions to parenthesise anyway
    (the campaigns' probes sometimes add one: the parser reads both alike).
    ``parse(unparse(e)) == e`` for every tree ``parse`` builds
    (tests/workfile/test_expression_probes.py).
    """

    def shown(e: Expr, need: int) -> str:
        text = written(e)
        return f"({text})" if level(e) < need or id(e) in parenthesised else text

    def written(e: Expr) -> str:
        match e:
            case Lit(value):
                return json.dumps(value, ensure_ascii=False)
            case Name(name):
                return name
            case Member(subject, name):
                return f"{shown(subject, _LEVELS['postfix'])}.{name}"
            case Index(subject, index):
                return f"{shown(subject, _LEVELS['postfix'])}[{shown(index, 1)}]"
            case Not(operand):
                return f"not {shown(operand, _LEVELS['not'])}"
            case Minus(operand):
                return f"-{shown(operand, _LEVELS['neg'])}"
            case Bool(op, left, right) | Binary(op, left, right):
                at = level(e)
                if at == _LEVELS["cmp"]:  # one comparison per level: both sides tighter
                    return f"{shown(left, at + 1)} {op} {shown(right, at + 1)}"
                return f"{shown(left, at)} {op} {shown(right, at + 1)}"
            case Cond(then, test, otherwise):
                return (
                    f"{shown(then, _LEVELS['or'])} if {shown(test, _LEVELS['or'])} "
                    f"else {shown(otherwise, _LEVELS['if'])}"
                )
            case Filter(name, subject, args):
                called = f"({', '.join(shown(a, 1) for a in args)})" if args else ""
                return f"{shown(subject, _LEVELS['filter'])} | {name}{called}"
            case Array(items):
                return f"[{', '.join(shown(item, 1) for item in items)}]"
            case Object(pairs):
                return "{" + ", ".join(f"{_key(k)}: {shown(v, 1)}" for k, v in pairs) + "}"
        raise AssertionError(f"not an expression: {e!r}")  # pragma: no cover - exhaustive

    return shown(expr, 1)


def _key(key: str) -> str:
    """An object literal's key: a name where the grammar reads one (A-102), else quoted."""
    plain = _NAME.fullmatch(key) and key not in _KEYWORDS
    return key if plain else json.dumps(key, ensure_ascii=False)


def operands(expr: Expr) -> tuple[Expr, ...]:
    """The direct subexpressions of ``expr``, in order."""
    match expr:
        case Member(subject, _) | Not(subject) | Minus(subject):
            return (subject,)
        case Index(subject, index):
            return (subject, index)
        case Bool(_, left, right) | Binary(_, left, right):
            return (left, right)
        case Cond(then, test, otherwise):
            return (then, test, otherwise)
        case Filter(_, subject, args):
            return (subject, *args)
        case Array(items):
            return items
        case Object(pairs):
            return tuple(v for _, v in pairs)
    return ()


def references(expr: Expr) -> Iterator[Expr]:
    """The outermost reads of ``expr``: a name with its member and literal-index accesses."""
    if _reference(expr):
        yield expr
        return
    for operand in operands(expr):
        yield from references(operand)


def _reference(expr: Expr) -> bool:
    match expr:
        case Name():
            return True
        case Member(subject, _):
            return _reference(subject)
        case Index(subject, Lit()):
            return _reference(subject)
    return False


def replaced(expr: Expr, old: Expr, new: Expr) -> Expr:
    """``expr`` with the subtree ``old`` (by identity) replaced by ``new``."""
    if expr is old:
        return new
    match expr:
        case Member(subject, name):
            return Member(replaced(subject, old, new), name)
        case Not(operand):
            return Not(replaced(operand, old, new))
        case Minus(operand):
            return Minus(replaced(operand, old, new))
        case Index(subject, index):
            return Index(replaced(subject, old, new), replaced(index, old, new))
        case Bool(op, left, right):
            return Bool(op, replaced(left, old, new), replaced(right, old, new))
        case Binary(op, left, right):
            return Binary(op, replaced(left, old, new), replaced(right, old, new))
        case Cond(then, test, otherwise):
            return Cond(*(replaced(e, old, new) for e in (then, test, otherwise)))
        case Filter(name, subject, args):
            return Filter(
                name, replaced(subject, old, new), tuple(replaced(a, old, new) for a in args)
            )
        case Array(items):
            return Array(tuple(replaced(e, old, new) for e in items))
        case Object(pairs):
            return Object(tuple((k, replaced(v, old, new)) for k, v in pairs))
    return expr


# -- templates -----------------------------------------------------------------------


@attrs.frozen
class Template:
    """A string value: literal text and expressions, in order.

    ``whole`` is the expression of a whole-value marker (the string is one
    marker and nothing else), which keeps its type (A-101).
    """

    parts: tuple[str | Expr, ...]

    @property
    def whole(self) -> Expr | None:
        """The expression when the template is exactly one marker."""
        if len(self.parts) == 1 and not isinstance(self.parts[0], str):
            return self.parts[0]
        return None

    @property
    def expressions(self) -> tuple[Expr, ...]:
        """The expressions of the template's markers."""
        return tuple(part for part in self.parts if not isinstance(part, str))


def template(text: str) -> Template:
    """Split a string value into text and ``{{ expr }}`` markers (A-101).

    A marker ends at the first ``}}`` outside a string literal; ``{{`` with
    no end is an ExprError, as is a marker whose text is not an expression.
    Templates are immutable, so each distinct text is parsed once (the
    loader checks them and the validator reads their references).
    """
    found = _template(text)
    if isinstance(found, ExprError):
        raise ExprError(found.message)
    return found


@functools.lru_cache(maxsize=65_536)
def _template(text: str) -> Template | ExprError:
    try:
        return _split(text)
    except ExprError as exc:
        return exc


def _split(text: str) -> Template:
    parts: list[str | Expr] = []
    position = 0
    while True:
        start = text.find("{{", position)
        if start < 0:
            break
        end = _marker_end(text, start + 2)
        if end < 0:
            raise ExprError(
                f"unterminated {{{{ marker at offset {start}: {text[start : start + 40]!r}"
            )
        if start > position:
            parts.append(text[position:start])
        parts.append(parse(text[start + 2 : end]))
        position = end + 2
    if position < len(text):
        parts.append(text[position:])
    return Template(tuple(parts))


def _marker_end(text: str, position: int) -> int:
    quote: str | None = None
    i = position
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\":
                i += 2
                continue
            if char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif text.startswith("}}", i):
            return i
        i += 1
    return -1


def is_template(value: JSON) -> bool:
    """Whether a string value holds a ``{{`` marker."""
    return isinstance(value, str) and "{{" in value


# -- statically resolved references ----------------------------------------------------


class _Any:
    """Every member at one level: the widening of a computed index."""

    def __repr__(self) -> str:
        return "*"


ANY = _Any()
Path = tuple[Any, ...]  # (root: str, segment: str | int | ANY, ...)


def path_text(path: Path) -> str:
    """A path as the chapter writes references: ``a.b[0][*]``."""
    text = str(path[0])
    for segment in path[1:]:
        if segment is ANY:
            text += "[*]"
        elif isinstance(segment, int):
            text += f"[{segment}]"
        else:
            text += f".{segment}"
    return text


def refs(expr: Expr) -> frozenset[Path]:
    """The statically resolved references of ``expr`` (every branch, operand and argument)."""
    return frozenset(_refs(expr))


def _refs(expr: Expr) -> Iterator[Path]:
    path = _path(expr)
    if path is not None:
        yield path
        yield from _index_refs(expr)
        return
    match expr:
        case Lit():
            return
        case Member(subject, _) | Not(subject) | Minus(subject):
            yield from _refs(subject)
        case Index(subject, index):
            yield from _refs(subject)
            yield from _refs(index)
        case Bool(_, left, right) | Binary(_, left, right):
            yield from _refs(left)
            yield from _refs(right)
        case Cond(then, test, otherwise):
            yield from _refs(test)
            yield from _refs(then)
            yield from _refs(otherwise)
        case Filter(_, subject, args):
            yield from _refs(subject)
            for arg in args:
                yield from _refs(arg)
        case Array(items):
            for item in items:
                yield from _refs(item)
        case Object(pairs):
            for _, value in pairs:
                yield from _refs(value)


def _path(expr: Expr) -> Path | None:
    """The path of a reference chain (names, members, indexes), or None."""
    match expr:
        case Name(name):
            return (name,)
        case Member(subject, name):
            base = _path(subject)
            return None if base is None else (*base, name)
        case Index(subject, Lit(value)) if isinstance(value, int | str) and not isinstance(
            value, bool
        ):
            base = _path(subject)
            return None if base is None else (*base, value)
        case Index(subject, _):
            base = _path(subject)
            return None if base is None else (*base, ANY)
    return None


def _index_refs(expr: Expr) -> Iterator[Path]:
    """The references inside the computed indexes of a reference chain."""
    match expr:
        case Member(subject, _):
            yield from _index_refs(subject)
        case Index(subject, index):
            yield from _index_refs(subject)
            if not isinstance(index, Lit):
                yield from _refs(index)


def filters(parsed: Template) -> set[str]:
    """The filter names a template uses."""
    found: set[str] = set()
    stack: list[Any] = list(parsed.expressions)
    while stack:
        node = stack.pop()
        if isinstance(node, Filter):
            found.add(node.name)
        if attrs.has(type(node)):
            for field in attrs.fields(type(node)):
                member = getattr(node, field.name)
                items = member if isinstance(member, tuple) else (member,)
                for item in items:
                    if isinstance(item, tuple):  # an object literal's (key, value)
                        stack.extend(x for x in item if attrs.has(type(x)))
                    elif attrs.has(type(item)):
                        stack.append(item)
    return found


def template_refs(value: JSON) -> frozenset[Path]:
    """The references of every template in a JSON value (an argument map, a projection)."""
    found: set[Path] = set()
    for text in _strings(value):
        if "{{" in text:
            for expr in template(text).expressions:
                found |= refs(expr)
    return frozenset(found)


def _strings(value: JSON) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for member in value.values():
            yield from _strings(member)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)
