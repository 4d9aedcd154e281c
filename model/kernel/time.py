"""Virtual time: milliseconds since a run's start, never the wall clock.

Waits advance the clock by exactly the computed amount, so a trace is the
same on every machine and a 300000 ms backoff costs nothing to explore.
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime, timedelta

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


@functools.lru_cache(maxsize=4096)  # a run's steps share few instants (waits alone move the clock)
def iso(ms: int) -> str:
    """The ISO-8601 instant ``ms`` milliseconds after the virtual epoch."""
    instant = EPOCH + timedelta(milliseconds=ms)
    return instant.isoformat(timespec="milliseconds").replace("+00:00", "Z")
