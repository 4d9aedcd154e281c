"""Strategies for w6w templates, run scopes and ``with`` values.

``templates()`` draws text from the ``template`` rule of grammar/template.lark
(hypothesis.extra.lark) and from adversarial text built of the grammar's own
pieces ("{{", "}}", "||", "??", "=", quotes, "secrets.") so that fallbacks and
near-misses are exercised too.  ``scopes()`` draws run scopes over the eight
roots; ``with_values()`` draws with blocks mixing every value form.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark

from wforacle.grammar import parser
from wforacle.properties.strategies.sampled import sampled
from wforacle.properties.strategies.w6w import json_values

ROOT_NAMES = ("vars", "steps", "trigger", "secrets", "documents", "inputs", "output", "foreach")
KEYS = ("a", "b", "x", "body")

PIECES = (
    "{{",
    "}}",
    " ",
    "||",
    "??",
    "=",
    '"',
    "secrets.",
    "vars.",
    "documents.",
    "a",
    "b",
    ".",
    "{",
    "}",
    "|",
    "?",
    "badroot.",
    "0",
    "[",
    "]",
    ":",
    "\\",
)


@cache
def _grammar_templates() -> st.SearchStrategy[str]:
    return from_lark(parser("template", "template", "earley"), start="template")


def adversarial_text(max_pieces: int = 12) -> st.SearchStrategy[str]:
    """Concatenations of template pieces and arbitrary characters."""
    piece = sampled(PIECES) | st.text(max_size=3)
    return st.lists(piece, max_size=max_pieces).map("".join)


def templates() -> st.SearchStrategy[str]:
    """Template text: from the grammar, or adversarial."""
    return _grammar_templates() | adversarial_text()


def paths(roots: tuple[str, ...] = ROOT_NAMES) -> st.SearchStrategy[str]:
    """Dotted paths starting at one of ``roots``."""
    return st.builds(
        lambda root, rest: ".".join([root, *rest]),
        sampled(roots),
        st.lists(sampled(KEYS), max_size=2),
    )


def scopes() -> st.SearchStrategy[dict[str, Any]]:
    """Run scopes: some of the eight roots, secrets a name → plaintext map."""
    member = st.dictionaries(sampled(KEYS), json_values(6), max_size=4)
    roots = st.dictionaries(sampled([r for r in ROOT_NAMES if r != "secrets"]), member, max_size=6)
    secrets = st.dictionaries(sampled(KEYS), st.text(max_size=6), max_size=3)
    return st.builds(lambda r, s: {**r, "secrets": s}, roots, secrets)


def parts(*, secret: bool = True) -> st.SearchStrategy[dict[str, Any]]:
    """Authored ExprValue parts (``secret=False``: no secret part)."""
    ref = paths() | sampled(["", "a", "nope.x"])
    kinds = [
        st.builds(lambda v: {"kind": "text", "value": v}, templates()),
        st.builds(lambda r: {"kind": "var", "ref": r}, ref),
        st.just({"kind": "var"}),
        st.builds(lambda r: {"kind": "expr", "expr": {"var": r}}, ref),
        st.builds(lambda r: {"kind": "render", "ref": r}, ref),
        st.just({"kind": "mystery", "ref": "vars.a"}),
    ]
    if secret:
        kinds.append(st.builds(lambda r: {"kind": "secret", "ref": r}, sampled(KEYS)))
    return st.one_of(kinds)


def with_values(*, secret: bool = True) -> st.SearchStrategy[Any]:
    """``with`` blocks mixing literals, markers, envelopes and template strings."""
    leaf = st.one_of(
        json_values(3),
        templates(),
        st.builds(lambda p: {"$": p}, paths()),
        st.builds(lambda p: {"$expr": {"var": p}}, paths()),
        st.builds(lambda p: {"$expr": {"cat": ["<", {"var": p}, ">"]}}, paths()),
        st.builds(
            lambda ps: {"type": "expr", "parts": ps}, st.lists(parts(secret=secret), max_size=3)
        ),
    )
    return st.recursive(
        leaf,
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(sampled(KEYS), inner, max_size=3)
        ),
        max_leaves=8,
    )
