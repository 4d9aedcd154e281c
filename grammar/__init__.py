"""wforacle.grammar — see docs/architecture.md for what lives here."""

# The repository folder `grammar/` is installed as `wforacle.grammar`.  Importing it
# under its bare folder name (possible when the repository root is on
# sys.path) would load every module twice under two names, with two sets of
# classes that never compare equal.  Refuse that loudly.
if __name__ != "wforacle.grammar":  # pragma: no cover - exercised by tests/test_packaging.py
    raise ImportError(f"import wforacle.grammar, not {__name__!r} (see docs/architecture.md)")

from functools import cache
from importlib import resources

import lark


@cache
def parser(grammar: str, start: str) -> lark.Lark:
    """The LALR parser for ``<grammar>.lark`` beginning at rule ``start``.

    Grammars are loaded with importlib.resources, so they work from a wheel,
    an editable install and a zip alike; ``%import .common.X`` resolves to
    ``common.lark`` beside them.
    """
    text = resources.files(__name__).joinpath(f"{grammar}.lark").read_text("utf-8")
    return lark.Lark(
        text,
        start=start,
        parser="lalr",
        import_paths=[_ResourceImporter()],
        source_path=f"{grammar}.lark",
    )


class _ResourceImporter:
    """Lark import loader reading sibling grammars through importlib.resources."""

    def __call__(self, base_path: str | None, grammar_path: str) -> tuple[str, str]:
        text = resources.files(__name__).joinpath(grammar_path).read_text("utf-8")
        return grammar_path, text


def matches(grammar: str, start: str, text: str) -> bool:
    """Whether ``text`` is a sentence of ``start`` in ``<grammar>.lark``."""
    try:
        parser(grammar, start).parse(text)
    except lark.exceptions.LarkError:
        return False
    return True
