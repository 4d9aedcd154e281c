"""protocol-selftest's Workfile cases (oracle/selftest.py).

Small runs every executor must pass, each exercising one part of the
protocol (docs/workfile-execution.md), and one run with two attempts
outstanding together.
"""

from __future__ import annotations

from typing import Any

from wforacle.properties.strategies.workfile_runs import MANIFEST

JSON = Any


def _case(document: str, scenario: JSON | None = None) -> JSON:
    return {"document": document, "manifests": {"svc": MANIFEST}, "scenario": scenario or {}}


def selftest() -> tuple[tuple[tuple[str, JSON], ...], JSON]:
    """protocol-selftest's cases, and one with two invocations outstanding together."""
    return SELFTEST, CONCURRENT


SELFTEST = (
    (
        "one action succeeds (run, event, invoke, wait, result, done)",
        _case(
            "steps:\n  - a: { svc.get: { k: 1 } }\noutputs:\n  id: '{{ a.id }}'\n",
            {"attempts": {"a": [{"output": {"id": "x"}}]}},
        ),
    ),
    (
        "a retryable failure is retried after the computed delay",
        _case(
            "steps:\n  - a:\n      svc.send: {}\n"
            "      retry: { policy: fixed, initial: 1s, attempts: 2 }\n",
            {"attempts": {"a": [{"error": "svc.busy"}, {"output": {"id": "y"}}]}},
        ),
    ),
    (
        "a handler replaces a fatal failure",
        _case(
            "steps:\n  - a:\n      svc.send: {}\n"
            "      catch:\n        svc.fatal: { steps: [ { h: { svc.get: {} } } ], result: 1 }\n",
            {"attempts": {"a": [{"error": "svc.fatal"}]}},
        ),
    ),
    (
        "an input is validated and read",
        _case(
            "inputs:\n  n: { type: integer, default: 2 }\n"
            "steps:\n  - a: { svc.get: { n: '{{ inputs.n }}' } }\n",
            {"inputs": {"n": 5}},
        ),
    ),
)

# Two branches: both attempts are outstanding together (WF-SCHED-1).
CONCURRENT = _case(
    "steps:\n  - p:\n      wf.parallel:\n        branches:\n"
    "          a: [ { x: { svc.get: {} } } ]\n          b: [ { y: { svc.get: {} } } ]\n"
)
