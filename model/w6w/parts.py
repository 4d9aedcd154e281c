"""ExprValue parts (Amendment 2026-08-11, "The envelope").

Notation: an ExprValue is ``{"type": "expr", "parts": [p1 … pn]}``; each part
``{"kind": k, …}`` populates exactly one field (W6W-ENV-5).  Five kinds are
defined: text (value), var (ref), secret (ref), expr (expr), render (ref);
a part of any other kind is ``UnknownPart`` and contributes "" (W6W-ENV-6).
"""

from __future__ import annotations

from typing import Any

import attrs

JSON = Any


@attrs.frozen
class TextPart:
    """A literal chunk, verbatim (W6W-ENV-1)."""

    value: str
    kind = "text"


@attrs.frozen
class VarPart:
    """A path lookup against the generic data root (W6W-ENV-2); None: ref absent."""

    ref: str | None
    kind = "var"


@attrs.frozen
class SecretPart:
    """The plaintext of a named secret (W6W-ENV-3); None: ref absent."""

    ref: str | None
    kind = "secret"


@attrs.frozen
class ExprPart:
    """JSONLogic against the generic data root (W6W-ENV-4); absent ``expr`` reads as empty."""

    expr: JSON = attrs.field(eq=True, hash=False)
    absent: bool = False
    kind = "expr"


@attrs.frozen
class RenderPart:
    """The string at ``ref``, parsed in render mode and rendered (W6W-ENV-8..11)."""

    ref: str | None
    kind = "render"


@attrs.frozen
class UnknownPart:
    """A part whose kind is none of the five: outside the model, contributes ""."""

    raw: JSON = attrs.field(eq=True, hash=False)
    kind = "unknown"


Part = TextPart | VarPart | SecretPart | ExprPart | RenderPart | UnknownPart


def part_from_json(value: JSON) -> Part:
    """Read one part of an authored ExprValue (W6W-ENV-5: only the kind's own field)."""
    if not isinstance(value, dict):
        return UnknownPart(value)
    kind = value.get("kind")
    if kind == "text":
        text = value.get("value")
        return TextPart("" if text is None else text if isinstance(text, str) else str(text))
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
        return {"kind": "text", "value": part.value}
    if isinstance(part, VarPart | SecretPart | RenderPart):
        return {"kind": part.kind} if part.ref is None else {"kind": part.kind, "ref": part.ref}
    if isinstance(part, ExprPart):
        return {"kind": "expr"} if part.absent else {"kind": "expr", "expr": part.expr}
    return part.raw
