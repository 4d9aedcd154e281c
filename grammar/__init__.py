"""wforacle.grammar — see docs/architecture.md for what lives here."""

# The repository folder `grammar/` is installed as `wforacle.grammar`.  Importing it
# under its bare folder name (possible when the repository root is on
# sys.path) would load every module twice under two names, with two sets of
# classes that never compare equal.  Refuse that loudly.
if __name__ != "wforacle.grammar":  # pragma: no cover - exercised by tests/test_packaging.py
    raise ImportError(f"import wforacle.grammar, not {__name__!r} (see docs/architecture.md)")

from functools import cache

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
    try:
        parser(grammar, start).parse(text)
    except lark.exceptions.LarkError:
        return False
    return True
