"""Seeded generation that depends on the seed, the strategies and Hypothesis — nothing else.

Hypothesis (6.13x on) mixes into generation short literals it harvests from
the *local* modules loaded at the time: modules outside site-packages and
outside test folders.  For wforacle that means the stream a seed gives
depended on which wforacle modules happened to be imported, on every short
string in them, and on how wforacle was installed: an editable install
(local) and a wheel (site-packages) wrote different fixture suites for the
same seed, and adding a string to an unrelated module changed a campaign.
"The same seed gives the same campaign, the same fixtures, byte for byte"
needs the pool pinned: ``hermetic()`` makes the local pool empty while a
seeded search runs, and restores it after.

The hook is internal to Hypothesis; where a release does not have it (before
the constant pool existed), there is nothing to pin and ``hermetic()`` does
nothing.  tests/test_determinism.py checks the effect on the installed
release.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def hermetic() -> Iterator[None]:
    """Within the block, Hypothesis draws no constants from local modules."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - a Hypothesis without the module
        yield
        return
    getter = getattr(providers, "_get_local_constants", None)
    empty_type: Any = getattr(providers, "Constants", None)
    if getter is None or empty_type is None:
        yield
        return
    cache: Any = getattr(providers, "CONSTANTS_CACHE", None)
    empty = empty_type()

    def _clear() -> None:
        if cache is not None and hasattr(cache, "cache"):
            cache.cache.clear()

    _clear()
    providers._get_local_constants = lambda: empty
    try:
        yield
    finally:
        providers._get_local_constants = getter
        _clear()
