"""``sampled``: ``st.sampled_from`` built once per options (speed only, issue 16).

Hypothesis validates a strategy and computes its properties at its first
draw, and ``sampled_from`` builds a new one at every call: where the options
come from a draw (the ids so far) or a literal inside a composite, that cost
a tenth of a campaign's generation.  The same strategy, so the same cases
for a seed (``wforacle fixtures`` writes the same suites byte for byte).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from hypothesis import strategies as st

T = TypeVar("T")
_BUILT: dict[tuple[tuple[type, Any], ...], st.SearchStrategy[Any]] = {}


def sampled(options: Iterable[T]) -> st.SearchStrategy[T]:
    """``st.sampled_from(options)``, built at the first call with these options.

    Options are told apart by type as well as value (``(0, 1)`` is not
    ``(False, True)``); unhashable ones (dicts) get a new strategy each time.
    """
    values = tuple(options)
    try:
        key = tuple((type(value), value) for value in values)
        found = _BUILT.get(key)
    except TypeError:
        return st.sampled_from(values)
    if found is None:
        if len(_BUILT) > 4096:
            _BUILT.clear()
        found = _BUILT[key] = st.sampled_from(values)
    return found
