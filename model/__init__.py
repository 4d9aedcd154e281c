"""wforacle.model — see docs/architecture.md for what lives here."""

# The repository folder `model/` is installed as `wforacle.model`.  Importing it
# under its bare folder name (possible when the repository root is on
# sys.path) would load every module twice under two names, with two sets of
# classes that never compare equal.  Refuse that loudly.
if __name__ != "wforacle.model":  # pragma: no cover - exercised by tests/test_packaging.py
    raise ImportError(f"import wforacle.model, not {__name__!r} (see docs/architecture.md)")
