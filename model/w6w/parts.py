"""ExprValue parts as the envelope carries them (Amendment 2026-08-11, "The envelope").

Notation: an ExprValue is ``{"type": "expr", "parts": [p1 … pn]}``; each part
``{"kind": k, …}`` populates exactly one field (W6W-ENV-5).  The part classes
are defined in grammar/parts.py (the template parser builds them, and the
grammar layer imports nothing from the model) and re-exported here; this
module reads and writes their JSON form.
"""

from __future__ import annotations

from typing import Any

from wforacle.grammar.parts import (
    ExprPart,
    Part,
    RenderPart,
    SecretPart,
    TextPart,
    UnknownPart,
    VarPart,
)

__all__ = [
    "ExprPart",
    "Part",
    "RenderPart",
    "SecretPart",
    "TextPart",
    "UnknownPart",
    "VarPart",
    "part_from_json",
    "part_to_json",
]

JSON = Any


def part_from_json(value: JSON) -> Part:
    """Read one part of an authored ExprValue (W6W-ENV-5: only the kind's own field)."""
    if not isinstance(value, dict):
        return UnknownPart(value)
    kind = value.get("kind")
    if kind == "text":
        text = value.get("value")
        if text is None or isinstance(text, str):
            return TextPart(text or "")
        return TextPart("", raw=text)  # not a string: stringified when resolved
    if kind in ("var", "secret", "render"):
        ref = value.get("ref")
        ref = ref if isinstance(ref, str) else None
        if kind == "var":
            return VarPart(ref)
        return SecretPart(ref) if kind == "secret" else RenderPart(ref)
    if kind == "expr":
        return ExprPart(value.get("expr"), absent="expr" not in value)
    return UnknownPart(value)


def part_to_json(part: Part) -> JSON:
    """A part as the envelope carries it."""
    if isinstance(part, TextPart):
        return {"kind": "text", "value": part.value if part.raw is None else part.raw}
    if isinstance(part, VarPart | SecretPart | RenderPart):
        return {"kind": part.kind} if part.ref is None else {"kind": part.kind, "ref": part.ref}
    if isinstance(part, ExprPart):
        return {"kind": "expr"} if part.absent else {"kind": "expr", "expr": part.expr}
    return part.raw
