"""protocol-selftest's Workfile cases (oracle/selftest.py).

Small runs every executor must pass, each exercising one part of the
protocol (docs/workfile-execution.md), and one run with two attempts
outstanding together.
"""

from __future__ import annotations

from typing import Any

from wforacle.properties.strategies.workfile_runs import MANIFEST
from wforacle.properties.strategies.workfile_states import STATE_MANIFEST

JSON = Any


def _case(document: str, scenario: JSON | None = None, **workflows: str) -> JSON:
    case = {"document": document, "manifests": {"svc": MANIFEST}, "scenario": scenario or {}}
    if workflows:
        case["workflows"] = workflows
    return case


def selftest(profile: str | None = None) -> tuple[tuple[tuple[str, JSON], ...], JSON]:
    """protocol-selftest's cases, and one with two invocations outstanding together.

    Core documents by default (an executor of Workfile Core need not run a
    state-form one: a stranger's Core executor failed the four state-form
    checks); ``workfile-stateful``: the state-form runs alone.
    """
    if profile == "workfile-stateful":
        return STATE_FORM, None
    return SELFTEST, CONCURRENT


SELFTEST: tuple[tuple[str, JSON], ...] = (
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

SELFTEST += (
    (
        "a wf.call starts a child run from the run message's workflows",
        _case(
            "steps:\n  - c: { wf.call: { workflow: child } }\noutputs:\n  r: '{{ c.x }}'\n",
            child="steps:\n  - a: { svc.get: {} }\noutputs:\n  x: '{{ a.id }}'\n",
        ),
    ),
    (
        "an attempt's deadline passes: a timeout result with a late response",
        _case(
            "steps:\n  - a: { svc.get: {}, timeout: 1s, retry: { attempts: 2 } }\n",
            {"attempts": {"a": [{"timeout": True, "late": {"output": {"id": "late"}}}]}},
        ),
    ),
    (
        "a construct's timeout expires while its attempt is outstanding (expire)",
        _case(
            "steps:\n  - p:\n      wf.parallel: { branches: { a: [ { x: { svc.get: {} } } ] } }\n"
            "      timeout: 1s\n      on_fail: continue\n",
            {"expire": {"p": 1}},
        ),
    ),
)


def _race(at: int, ref: str) -> JSON:
    """A state that waits for ``svc.signal`` with ``ref: r1`` or 1 s; one event at ``at``."""
    return {
        "document": "initial: a\nstates:\n  a:\n"
        "    on: { sig: { event: svc.signal, match: { ref: r1 }, goto: yes } }\n"
        "    timeout: { after: 1s, goto: no }\n  yes: { final: true }\n  no: { final: true }\n",
        "manifests": {"svc": STATE_MANIFEST},
        "scenario": {
            "events": [{"wait": 1, "at": at, "event": "svc.signal", "payload": {"ref": ref}}]
        },
    }


# State-form runs (docs/workfile-stateful.md): stimuli at waits, idle waits, quiet.
STATE_FORM: tuple[tuple[str, JSON], ...] = (
    (
        "a state-form run: an event accepted while on_enter's call is outstanding",
        {
            "document": "initial: a\nstates:\n  a:\n    on_enter: [ { ask: { svc.send: {} } } ]\n"
            "    on:\n      sig: { event: svc.signal, match: { ref: '{{ ask.id }}' }, "
            "goto: done }\n  done: { final: true }\n",
            "manifests": {"svc": STATE_MANIFEST},
            "scenario": {
                "events": [
                    {"wait": 1, "at": 5, "event": "svc.signal", "payload": {"ref": "a[0].ask"}}
                ]
            },
        },
    ),
    (
        "a state-form run waits idle; quiet fires the timer that is due now",
        {
            "document": "initial: a\nstates:\n  a:\n    timeout: { after: 0s, goto: done }\n"
            "  done: { final: true }\n",
            "manifests": {"svc": STATE_MANIFEST},
            "scenario": {},
        },
    ),
    (
        "a state-form run: an event whose payload the match excludes is not delivered",
        _race(at=5, ref="r2"),
    ),
    (
        "a state-form run: an event accepted at the deadline wins over the timeout",
        _race(at=1000, ref="r1"),
    ),
)

# Two branches: both attempts are outstanding together (WF-SCHED-1).
CONCURRENT = _case(
    "steps:\n  - p:\n      wf.parallel:\n        branches:\n"
    "          a: [ { x: { svc.get: {} } } ]\n          b: [ { y: { svc.get: {} } } ]\n"
)
