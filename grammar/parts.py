"""ExprValue parts, what a ``{{ }}`` template parses to (Amendment 2026-08-11).

Notation: an ExprValue is ``{"type": "expr", "parts": [p1 … pn]}``; each part
``{"kind": k, …}`` populates exactly one field (W6W-ENV-5).  Five kinds are
defined: text (value), var (ref), secret (ref), expr (expr), render (ref);
a part of any other kind is ``UnknownPart`` and contributes "" (W6W-ENV-6).

They live with the grammar because grammar/template.py builds them from
template text; model/w6w/parts.py re-exports them and reads and writes
their JSON form.
"""

from __future__ import annotations

from typing import Any

import attrs

JSON = Any


@attrs.frozen
class TextPart:
    """A literal chunk, verbatim (W6W-ENV-1).

    ``raw``: a ``value`` that is not a string, as the envelope carried it
    (``value`` is then empty); it is stringified as any part's value is
    (assumption A-163).
    """

    value: str
    raw: Any = attrs.field(default=None, eq=False)
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
