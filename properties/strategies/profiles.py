"""Hypothesis settings profiles.

``ci``      bounded and derandomized: the default test run, identical on every
            machine and every run (the same examples, in the same order).
``dev``     the same bounds, random: new examples on every local run.
``long``    a long local campaign: select with ``HYPOTHESIS_PROFILE=long``.
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, settings


def register() -> str:
    """Register the profiles and load the one ``HYPOTHESIS_PROFILE`` names (default ``ci``)."""
    common: dict[str, Any] = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
    settings.register_profile("ci", max_examples=100, derandomize=True, print_blob=True, **common)
    settings.register_profile("dev", max_examples=100, **common)
    settings.register_profile("long", max_examples=5000, **common)
    name = os.environ.get("HYPOTHESIS_PROFILE", "ci")
    settings.load_profile(name)
    return name
