"""wforacle.oracle — see docs/architecture.md for what lives here."""

# The repository folder `oracle/` is installed as `wforacle.oracle`.  Importing it
# under its bare folder name (possible when the repository root is on
# sys.path) would load every module twice under two names, with two sets of
# classes that never compare equal.  Refuse that loudly.
if __name__ != "wforacle.oracle":  # pragma: no cover - exercised by tests/test_packaging.py
    raise ImportError(f"import wforacle.oracle, not {__name__!r} (see docs/architecture.md)")
