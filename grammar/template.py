"""Parse ``{{ }}`` templates into ExprValue parts, in editor or render mode.

Notation: ``parse_template(t, mode)`` reads template text ``t`` left to right
into parts (grammar/parts.py).  A marker body is read by the first arm of
grammar/template.lark that accepts it: ``=`` JSON → expr; a fallback chain →
expr, or, refused, a var part carrying the body; ``secrets.`` NAME → secret
(editor mode only); anything else → var.

``Template.unterminated`` tells whether a ``{{`` had no closing ``}}``; the
text after it is then one text part, as written.
"""

from __future__ import annotations

import enum
import functools
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import attrs

from wforacle.grammar import jsontext, parser
from wforacle.grammar.parts import ExprPart, Part, RenderPart, SecretPart, TextPart, VarPart

if TYPE_CHECKING:
    import lark

SECRETS_PREFIX = "secrets."


class Mode(enum.StrEnum):
    """The two parser modes (W6W-ENV-14, W6W-ENV-15)."""

    EDITOR = "editor"
    RENDER = "render"


@attrs.frozen
class Marker:
    """A ``{{ … }}`` occurrence: its body (trimmed) and the part it parses to."""

    body: str
    part: Part


@attrs.frozen
class Template:
    """A parsed template: its parts in order, and what root-anchoring needs to know."""

    parts: tuple[Part, ...]
    markers: tuple[Marker, ...]
    unterminated: bool


def parse_template(text: str, mode: Mode = Mode.EDITOR) -> Template:
    """Split ``text`` into text parts and marker parts."""
    parts: list[Part] = []
    markers: list[Marker] = []
    position = 0
    for body_start, end in marker_spans(text):
        if body_start - 2 > position:
            parts.append(TextPart(text[position : body_start - 2]))
        marker = parse_body(text[body_start:end].strip(), mode)
        markers.append(marker)
        parts.append(marker.part)
        position = end + 2
    # W6W-ROOT-12: an unterminated {{ (where marker_spans stopped) — the rest is text,
    # as written.
    unterminated = text.find("{{", position) >= 0
    if position < len(text):
        parts.append(TextPart(text[position:]))
    return Template(tuple(parts), tuple(markers), unterminated=unterminated)


def marker_spans(text: str) -> Iterator[tuple[int, int]]:
    """Each marker's body in ``text``: (its first index, the index of its closing ``}}``).

    In order, as ``parse_template`` reads them; none from an unterminated
    ``{{`` on (W6W-ROOT-12).
    """
    position = 0
    while (start := text.find("{{", position)) >= 0:
        end = _marker_end(text, start + 2)
        if end is None:
            return
        yield start + 2, end
        position = end + 2


def _marker_end(text: str, body_start: int) -> int | None:
    """The index of the ``}}`` closing a marker whose body starts at ``body_start``.

    An expr body (``=`` JSON) ends after its complete JSON value, so a JSON
    object's own ``}}`` does not close the marker (assumption A-31); any other
    body ends at the first ``}}``.
    """
    cursor = body_start
    while cursor < len(text) and text[cursor] in " \t\n\r":
        cursor += 1
    if cursor < len(text) and text[cursor] == "=":
        json_end = _json_value_end(text, cursor + 1)
        if json_end is not None:
            close = json_end
            while close < len(text) and text[close] in " \t\n\r":
                close += 1
            if text.startswith("}}", close):
                return close
    close_at = text.find("}}", body_start)
    return None if close_at < 0 else close_at


def _json_value_end(text: str, start: int) -> int | None:
    cursor = start
    while cursor < len(text) and text[cursor] in " \t\n\r":
        cursor += 1
    return jsontext.value_end(text, cursor)


@functools.lru_cache(maxsize=8192)
def parse_body(body: str, mode: Mode) -> Marker:
    """The part a trimmed marker body parses to, by the first arm that accepts it.

    Cached: marker bodies repeat across steps and runs, and a Marker is
    immutable (callers never mutate an ExprPart's payload).
    """
    if body.startswith("="):
        payload = _json_payload(body[1:])
        if payload is not _NOT_JSON:
            return Marker(body, ExprPart(payload))  # W6W-ENV-14/15: =<JSONLogic> → expr
        # Assumption A-32: "=" not followed by JSON is no expr marker; the
        # body falls through to the path production.
    if has_chain_token(body):
        operands = chain_operands(body)
        if operands is None:
            # W6W-CHAIN-5: "{{ vars.a || vars.b ?? vars.c }}, {{ secrets.K || "x" }},
            # and {{ vars.a || }} each parse to a single var part carrying the
            # original text, never an expr part."
            return Marker(body, VarPart(body))
        operator, values = operands
        return Marker(body, ExprPart({operator: values}))
    if mode is Mode.EDITOR and body.startswith(SECRETS_PREFIX) and len(body) > len(SECRETS_PREFIX):
        # W6W-ENV-14: {{ secrets.<name> }} → a secret part (editor mode only).
        return Marker(body, SecretPart(body[len(SECRETS_PREFIX) :]))
    # W6W-ENV-23: in render mode "{{ secrets.X }} in particular MUST parse to a
    # var part whose ref is the literal path secrets.X".
    return Marker(body, VarPart(body))


class _NotJson:
    pass


_NOT_JSON = _NotJson()


def _json_payload(text: str) -> Any:
    # Strict and bounded in depth (grammar/jsontext.py, A-154): NaN, 1e400 or a
    # payload nested past MAX_DEPTH is not JSON, so A-32 applies to it.
    try:
        return jsontext.loads(text)
    except jsontext.NotStrictJson:
        return _NOT_JSON


@functools.cache
def _chain_parser() -> lark.Lark:
    return parser("template", "chain", "lalr", "basic")


@functools.lru_cache(maxsize=8192)
def has_chain_token(body: str) -> bool:
    """Whether ``body`` carries a ``||`` or ``??`` at the top level (outside JSON strings).

    This is @w6w/expr's ``hasRefusedChainToken`` when applied to a var ref.
    """
    if "||" not in body and "??" not in body:
        return False  # no operator anywhere, so none at the top level
    import lark  # only a body with a chain token is lexed (start-up time)

    try:
        tokens = list(_chain_parser().lex(body))
    except lark.exceptions.LarkError:
        return False
    return any(token.type in ("OR", "COALESCE") for token in tokens)


def chain_operands(body: str) -> tuple[str, list[Any]] | None:
    """``("or" | "??", operands)`` of a flat chain, or None when the chain arm refuses.

    W6W-CHAIN-5: exactly one operator kind at the top level, two or more
    non-empty operands, no operand beginning ``secrets.``.  An operand that is
    JSON is a literal; any other is a ``{"var": path}`` (W6W-CHAIN-7).
    """
    import lark  # only a body with a chain token is parsed (start-up time)

    try:
        tree = _chain_parser().parse(body)
    except lark.exceptions.LarkError:
        return None  # mixed operators, or an empty operand between two of them
    operator = (
        "or" if any(isinstance(t, lark.Token) and t.type == "OR" for t in tree.children) else "??"
    )
    operands: list[Any] = []
    for child in tree.children:
        if not isinstance(child, lark.Tree):
            continue
        text = "".join(str(token) for token in child.children).strip()
        if not text or text.startswith(SECRETS_PREFIX):
            return None
        literal = _json_payload(text)
        operands.append({"var": text} if literal is _NOT_JSON else literal)
    return operator, operands


def chain_var_refs(expr: Any) -> list[str] | None:
    """The var refs of a recognised flat chain's operands, in order (``coalesceOperandRefs``).

    None when ``expr`` is not a flat chain (``parseCoalesceChain``).
    """
    if not (isinstance(expr, dict) and len(expr) == 1):
        return None
    ((operator, operands),) = expr.items()
    if operator not in ("or", "??") or not isinstance(operands, list) or len(operands) < 2:
        return None
    refs = []
    for operand in operands:
        if isinstance(operand, dict):
            if set(operand) != {"var"} or not isinstance(operand["var"], str):
                return None
            refs.append(operand["var"])
        elif isinstance(operand, list):
            return None
    return refs


def serialize(parts: tuple[Part, ...] | list[Part]) -> str:
    """Editor-mode text for parts (W6W-CHAIN-7).

    A recognised flat chain promotes to its infix form when that text parses
    back to the same part; any other JSONLogic is ``{{ =<raw> }}``.  A render
    part has no text spelling (W6W-ENV-13) and raises ValueError.
    """
    out = []
    for part in parts:
        out.append(_serialize_part(part))
    return "".join(out)


def _serialize_part(part: Part) -> str:
    if isinstance(part, TextPart):
        return part.value
    if isinstance(part, VarPart):
        return f"{{{{ {part.ref} }}}}"
    if isinstance(part, SecretPart):
        return f"{{{{ {SECRETS_PREFIX}{part.ref} }}}}"
    if isinstance(part, ExprPart):
        infix = _infix(part.expr)
        if infix is not None and parse_body(infix, Mode.EDITOR).part == part:
            return f"{{{{ {infix} }}}}"
        return f"{{{{ ={json.dumps(part.expr, ensure_ascii=False, separators=(',', ':'))} }}}}"
    if isinstance(part, RenderPart):
        raise ValueError("a render part has no {{ }} text spelling")
    raise ValueError(f"part of kind {part.kind!r} has no text spelling")


def _infix(expr: Any) -> str | None:
    if chain_var_refs(expr) is None:
        return None
    ((operator, operands),) = expr.items()
    symbol = " || " if operator == "or" else " ?? "
    return symbol.join(
        operand["var"] if isinstance(operand, dict) else json.dumps(operand, ensure_ascii=False)
        for operand in operands
    )
