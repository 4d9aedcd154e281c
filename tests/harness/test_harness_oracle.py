"""The oracle for Harness engines: the example engine passes; each seeded bug is found."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from wforacle.oracle.engine import Engine
from wforacle.oracle.harness_oracle import campaign

ENGINE = Path(__file__).resolve().parents[2] / "examples" / "engines" / "harness_engine.py"


def hx_lite(*bugs: str) -> Engine:
    return Engine(f"{sys.executable} {ENGINE}" + "".join(f" --bug {b}" for b in bugs))


def test_the_correct_example_engine_passes_a_campaign():
    engine = hx_lite()
    try:
        examples, finding = campaign(engine, examples=200, seed_value=4)
    finally:
        engine.stop()
    assert finding is None and examples > 100


@pytest.mark.parametrize(
    ("bug", "clause"),
    [
        # The earlier draft's reading: an all-negative join SKIPPED (HX-JOIN-3).
        ("all-negative-skipped", "HX-DONE-2"),
        # Missing unreachability propagation: the deadlock 5.3.3 describes.
        ("no-unreachability", None),
        # Cancelling a running idempotent="false" node under any (HX-CANCEL-2).
        ("cancel-non-idempotent", None),
        # Passing null for an unavailable output (HX-DATA-4: never a silent null).
        ("null-for-unavailable", "HX-DATA-4"),
    ],
)
def test_a_campaign_finds_each_seeded_harness_bug(bug, clause):
    engine = hx_lite(bug)
    try:
        _, finding = campaign(engine, examples=1500, seed_value=0)
    finally:
        engine.stop()
    assert finding is not None, bug
    divergence = finding.judgement.divergence
    assert divergence is not None and divergence.clauses
    if clause is not None:
        assert clause in divergence.clauses
