"""Test configuration: Hypothesis profiles and the shared/ test data."""

from __future__ import annotations

from pathlib import Path

import pytest

# Imported before any pytester run: pytester's in-process runs drop the modules first
# imported inside them, and a yaml imported again beside its C extension (which is never
# imported again) builds a CSafeLoader that cannot construct a plain scalar ("could not
# determine a constructor for the tag None"): the clause catalogue failed to load in
# tests/oracle/test_pytest_plugin.py whenever nothing had loaded it before (session 24).
import yaml  # noqa: F401

from wforacle.properties.strategies.profiles import register

PROFILE = register()

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
SPECS = SHARED / "specs"


def pytest_report_header() -> str:
    return f"hypothesis profile: {PROFILE} (set HYPOTHESIS_PROFILE=dev|long to change)"


@pytest.fixture
def spec_text() -> callable:
    """Read a specification from ../shared/specs, skipping when it is absent."""

    def read(name: str) -> str:
        path = SPECS / name
        if not path.exists():
            pytest.skip(
                f"specification not found at {path} (../shared/ is not beside the checkout)"
            )
        return path.read_text("utf-8")

    return read
