"""Error codes, code patterns and their precedence; durations.

Code-Pattern Matching: "an exact code takes precedence over any matching
pattern.  The longest matching prefix takes precedence over a shorter one,
and a prefix pattern takes precedence over an HTTP-status pattern."  The
pattern grammar (grammar/workfile_code.lark) is assumption A-105; durations
(grammar/workfile_duration.lark) are A-104.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from wforacle.grammar import parser
from wforacle.model.diagnostics import InvalidInput

# Codes the executor produces, which no connector may reclassify (Error
# Classification: "An executor MUST NOT … apply a connector-supplied
# reclassification to such a reserved code"; catch: "Executor-produced
# connector codes timeout and invalid_output").
RESERVED_CODES = frozenset({"timeout", "invalid_output"})


class PatternError(InvalidInput):
    """A code pattern or duration that does not parse."""


@attrs.frozen
class CodePattern:
    """An exact code, a dotted prefix (``crm.auth.*``) or an HTTP-status pattern (``http.5xx``)."""

    kind: str  # "exact" | "prefix" | "http"
    text: str

    def matches(self, code: str) -> bool:
        """Whether ``code`` is covered by this pattern."""
        if self.kind == "exact":
            return code == self.text
        if self.kind == "prefix":
            return code.startswith(self.stem + ".")
        status = code.removeprefix("http.")
        return (
            code.startswith("http.")
            and len(status) == 3
            and status.isdigit()
            and all(p in ("x", s) for p, s in zip(self.text[5:], status, strict=True))
        )

    @property
    def stem(self) -> str:
        """The prefix a dotted-prefix pattern names (``crm.auth`` for ``crm.auth.*``)."""
        return self.text.removesuffix(".*")

    @property
    def rank(self) -> tuple[int, int]:
        """Precedence: exact first, then longer prefixes, then HTTP status (higher wins)."""
        if self.kind == "exact":
            return (3, 0)
        if self.kind == "prefix":
            return (2, len(self.stem.split(".")))
        return (1, -self.text.count("x"))


def code_pattern(text: str) -> CodePattern:
    """The pattern ``text`` denotes; PatternError when it is not one."""
    if not isinstance(text, str):
        raise PatternError(f"a code pattern is a string, not {type(text).__name__}")
    import lark  # only a document with a code pattern parses one (start-up time)

    try:
        tree = parser("workfile_code", "start").parse(text)
    except lark.exceptions.LarkError:
        raise PatternError(
            f"{text!r} is not an error code, a dotted prefix (a.b.*) or an HTTP-status "
            "pattern (http.5xx)"
        ) from None
    return CodePattern(str(tree.data), text)


def is_code(text: str) -> bool:
    """Whether ``text`` is an exact error code."""
    try:
        return code_pattern(text).kind == "exact"
    except PatternError:
        return False


def select(code: str, patterns: Iterable[CodePattern]) -> CodePattern | None:
    """The pattern that decides ``code``: exact, then the longest prefix, then HTTP status.

    Two HTTP-status patterns that both match: the one with fewer wildcards
    (``http.50x`` over ``http.5xx``) decides (A-105).
    """
    matching = [p for p in patterns if p.matches(code)]
    return max(matching, key=lambda p: p.rank) if matching else None


# -- durations -------------------------------------------------------------------------

UNIT_MS = {"d": 86_400_000, "h": 3_600_000, "m": 60_000, "s": 1_000, "ms": 1}


def duration_ms(text: str) -> int:
    """A duration in milliseconds (A-104); PatternError when ``text`` is not one."""
    if not isinstance(text, str):
        raise PatternError(f"a duration is a string such as 30s, not {type(text).__name__}")
    import lark  # only a document with a duration parses one (start-up time)

    try:
        tree = parser("workfile_duration", "start").parse(text)
    except lark.exceptions.LarkError:
        raise PatternError(f"{text!r} is not a duration (e.g. 250ms, 30s, 1h30m, 24h)") from None
    parts = [
        (int(str(p.children[0])), str(p.children[1]))
        for p in tree.children
        if isinstance(p, lark.Tree)
    ]
    order = list(UNIT_MS)
    ranks = [order.index(unit) for _, unit in parts]
    if ranks != sorted(set(ranks)):
        raise PatternError(f"{text!r}: units must descend (d h m s ms), each at most once")
    return sum(count * UNIT_MS[unit] for count, unit in parts)
