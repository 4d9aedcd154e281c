"""protocol-selftest's Harness cases (oracle/selftest.py).

Small documents every engine must pass, and one with concurrent invocations.
"""

from __future__ import annotations

from typing import Any

JSON = Any


def selftest() -> tuple[tuple[tuple[str, JSON], ...], JSON]:
    """protocol-selftest's cases, and one with two invocations outstanding together."""
    return SELFTEST, CONCURRENT


SELFTEST = (
    (
        "one node succeeds (run, event, invoke, wait, result, done)",
        {
            "document": '<harness id="h"><node id="a"><output name="y"/></node></harness>',
            "scenario": {"nodes": {"a": {"attempts": [{"outputs": {"y": 1}}]}}},
        },
    ),
    (
        "a failing node fails the instance",
        {
            "document": '<harness id="h"><node id="a"/></harness>',
            "scenario": {"nodes": {"a": {"attempts": [{"error": {"code": "boom"}}]}}},
        },
    ),
    (
        "a data edge carries an upstream output",
        {
            "document": '<harness id="h"><node id="a"><output name="y"/></node>'
            '<node id="b"><input name="x"/></node>'
            '<edge from="a" to="b" type="data" fromPort="y" toPort="x"/></harness>',
            "scenario": {"nodes": {"a": {"attempts": [{"outputs": {"y": 42}}]}}},
        },
    ),
)

# Two entry nodes: both invocations are outstanding together (HX-SCHED-1).
CONCURRENT = {"document": '<harness id="h"><node id="a"/><node id="b"/></harness>', "scenario": {}}
