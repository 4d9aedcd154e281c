"""protocol-selftest's w6w cases (oracle/selftest.py).

Small documents every engine must pass, and one with concurrent invocations.
"""

from __future__ import annotations

from typing import Any

JSON = Any


def _doc(*steps: JSON, edges: list[JSON] | None = None) -> JSON:
    doc: dict[str, JSON] = {"manifestVersion": "2", "id": "wf_selftest", "name": "selftest"}
    doc["steps"] = list(steps)
    if edges is not None:
        doc["edges"] = edges
    return doc


def _step(step_id: str, **extra: JSON) -> JSON:
    return {"id": step_id, "uses": {"app": "demo", "action": "run"}, **extra}


def selftest() -> tuple[tuple[tuple[str, JSON], ...], JSON]:
    """protocol-selftest's cases, and one with two invocations outstanding together."""
    return SELFTEST, CONCURRENT


SELFTEST = (
    (
        "one step succeeds (run, event, invoke, wait, result, done)",
        {
            "document": _doc(_step("a", **{"with": {"x": 1}})),
            "scenario": {"steps": {"a": {"attempts": [{"output": {"ok": True}}]}}},
        },
    ),
    (
        "a failing step fails the run",
        {
            "document": _doc(_step("a")),
            "scenario": {
                "steps": {"a": {"attempts": [{"error": {"code": "boom", "message": "m"}}]}}
            },
        },
    ),
    (
        "a $ binding reads an upstream output",
        {
            "document": _doc(_step("a"), _step("b", **{"with": {"v": {"$": "steps.a.output"}}})),
            "scenario": {"steps": {"a": {"attempts": [{"output": 42}]}}},
        },
    ),
    (
        "a crash after checkpoint 3 (checkpoint, crash, crashed, resume)",
        {
            "document": _doc(_step("a"), _step("b")),
            "scenario": {"crashAfterCheckpoints": [3]},
        },
    ),
    (
        "a failed run is rerouted (invoke of (reroute), its output the run's)",
        {
            "document": {
                **_doc(_step("a")),
                "reroute": {"with": {"why": {"$": "error.code"}}},
            },
            "scenario": {
                "steps": {"a": {"attempts": [{"error": {"code": "boom", "message": "m"}}]}},
                "reroute": {"output": {"handled": True}},
            },
        },
    ),
    (
        "the abort signal after checkpoint 3 ends the run canceled (checkpoint, abort)",
        {
            "document": _doc(_step("a"), _step("b")),
            "scenario": {"cancelAfterCheckpoint": 3},
        },
    ),
)

# A fan-out: both successors' invocations are outstanding together (W6W-FAN-5).
CONCURRENT = {
    "document": _doc(
        _step("a", fanOut="parallel"),
        _step("b"),
        _step("c"),
        edges=[{"from": "a", "to": "b"}, {"from": "a", "to": "c"}],
    ),
    "scenario": {},
}
