"""wforacle.grammar — see docs/architecture.md for what lives here."""

from __future__ import annotations

# The repository folder `grammar/` is installed as `wforacle.grammar`.  Importing it
# under its bare folder name (possible when the repository root is on
# sys.path) would load every module twice under two names, with two sets of
# classes that never compare equal.  Refuse that loudly.
if __name__ != "wforacle.grammar":  # pragma: no cover - exercised by tests/test_packaging.py
    raise ImportError(f"import wforacle.grammar, not {__name__!r} (see docs/architecture.md)")

from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import lark


@cache
def parser(grammar: str, start: str, algorithm: str = "lalr", lexer: str = "auto") -> lark.Lark:
    """The parser for ``<grammar>.lark`` beginning at rule ``start``.

    LALR by default; ``algorithm="earley"`` for rules written for generation
    (hypothesis.extra.lark), which need not be LALR.  ``lexer="basic"`` keeps
    one lexer for ``Lark.lex`` instead of building one per call.

    Grammars are read from this package with Lark's ``open_from_package``
    (pkgutil, so a wheel, an editable install and a zip all work).  This
    package is searched before Lark's own library, so ``%import common.X``
    and ``%import .common.X`` both resolve to ``common.lark`` beside them.
    """
    import lark  # start-up time: strict JSON (jsontext) lives in this package too

    # An LALR parser's tables are cached by Lark in the OS temp directory, keyed by
    # the grammar's text and options (issue 16: building them was most of a
    # short command's time); a damaged or racing cache file is rebuilt.
    return lark.Lark.open_from_package(
        __name__,
        f"{grammar}.lark",
        ("",),
        start=start,
        parser=algorithm,
        lexer=lexer,
        cache=algorithm == "lalr",
    )


def matches(grammar: str, start: str, text: str) -> bool:
    """Whether ``text`` is a sentence of ``start`` in ``<grammar>.lark``."""
    import lark  # start-up time (see parser)

    try:
        parser(grammar, start).parse(text)
    except lark.exceptions.LarkError:
        return False
    return True


def build(tree: lark.Tree, builder: object) -> Any:  # type: ignore[type-arg]
    """``tree`` rebuilt bottom-up by ``builder``, as a ``lark.Transformer`` rebuilds it.

    A node becomes ``builder.<its rule>(children)``, its children rebuilt
    first; a node whose rule ``builder`` has no method for stays a Tree, and
    tokens stay tokens.  ``builder`` is a plain object, not a Transformer,
    so a module that defines one need not import Lark until it parses.
    Recursive, as Lark's Transformer is: callers bound the depth first
    (``nesting``).
    """
    import lark  # start-up time (see parser)

    children = [build(c, builder) if isinstance(c, lark.Tree) else c for c in tree.children]
    method = getattr(builder, str(tree.data), None)
    return method(children) if method is not None else lark.Tree(tree.data, children)


def nesting(tree: lark.Tree, chains: dict[str, int]) -> int:  # type: ignore[type-arg]
    """An upper bound of the depth of the expression ``tree`` builds, by one walk without recursion.

    A chain (``a and b and c``, ``a + b + c``) is one Lark node whose
    builder makes a left-deep tree, one level per link: ``chains`` names
    such nodes with their children per link.  Every other node is one level.
    """
    import lark  # start-up time (see parser)

    deepest = 0
    stack: list[tuple[object, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(node, lark.Tree):
            per_link = chains.get(str(node.data))
            weight = max(1, (len(node.children) - 1) // per_link) if per_link else 1
            stack.extend((child, depth + weight) for child in node.children)
    return deepest
