"""Hand-written Workfile conformance cases (``fixtures --profile conformance``).

Each expectation is stated from the chapter's text (quoted) and the
connector table of ``MANIFEST`` (properties/strategies/workfile_runs.py):
svc.get (read, inherent), svc.put (write, keyed), svc.send (write, none),
svc.fetch (read, an object output); svc.busy, svc.rate.* and http.5xx
retryable; svc.fatal and svc.rate.hard fatal; svc.lost unknown.
tests/test_conformance.py checks that every outcome the model permits meets
the expectation; an engine's conformance run checks the engine's.
"""

from __future__ import annotations

from typing import Any

from wforacle.properties.specification import ConformanceCase
from wforacle.properties.strategies.workfile_runs import MANIFEST

JSON = Any


def _case(document: str, scenario: JSON | None = None, **workflows: str) -> JSON:
    case: dict[str, JSON] = {
        "document": document,
        "manifests": {"svc": MANIFEST},
        "scenario": scenario or {},
        "schedule": [],
    }
    if workflows:
        case["workflows"] = workflows
    return case


# A child workflow: a write, then an output naming it.
CHILD = "steps:\n  - w: { svc.send: {} }\noutputs:\n  x: '{{ w.id }}'\n"


def conformance_cases() -> tuple[ConformanceCase, ...]:
    """The Workfile conformance cases, each expectation stated from the text."""
    return (
        ConformanceCase(
            "empty-root-completes-with-an-empty-result",
            ("WF-DONE-4", "WF-DONE-5"),
            _case("steps: []\n"),
            {"outcome": "completed", "result": {}},
        ),
        ConformanceCase(
            "missing-required-input-begins-no-run",
            ("WF-START-4", "WF-START-5"),
            _case(
                "inputs:\n  n: { type: integer, required: true }\nsteps:\n  - a: { svc.get: {} }\n"
            ),
            {"outcome": "rejected", "steps": {}},
        ),
        ConformanceCase(
            "fatal-is-not-retried",
            ("WF-RETRY-11",),
            _case(
                "steps:\n  - a:\n      svc.send: {}\n      retry: { policy: none, attempts: 3 }\n",
                {"attempts": {"a": [{"error": "svc.fatal"}]}},
            ),
            {"outcome": "failed", "error": {"code": "svc.fatal", "step": "a"}},
        ),
        ConformanceCase(
            "retryable-is-retried-until-success",
            ("WF-RETRY-10",),
            _case(
                "steps:\n  - a:\n      svc.send: {}\n      retry: { policy: none, attempts: 3 }\n"
                "outputs:\n  id: '{{ a.id }}'\n",
                {"attempts": {"a": [{"error": "svc.busy"}, {"output": {"id": 2}}]}},
            ),
            {"outcome": "completed", "result": {"id": 2}},
        ),
        ConformanceCase(
            "ambiguous-write-without-idempotency-aborts-past-continue",
            ("WF-AMB-4", "WF-UNK-1", "WF-UNK-4", "WF-UNK-8"),
            _case(
                "steps:\n  - a:\n      svc.send: {}\n      retry: { policy: none, attempts: 2 }\n"
                "      on_fail: continue\n  - b: { svc.get: {} }\n",
                {"attempts": {"a": [{"error": "svc.lost"}]}},
            ),
            {
                "outcome": "failed",
                "disposition": "abort",
                "error": {"code": "flow.action_ambiguous", "step": "a"},
                "steps": {"a": "failed"},
                "unknownEffects": [
                    {"step": "a", "attempt": 1, "effect": "unknown", "code": "svc.lost"}
                ],
            },
        ),
        ConformanceCase(
            "on-unknown-fail-is-caught",
            ("WF-UNK-7", "WF-CATCH-10", "WF-CATCH-22"),
            _case(
                "steps:\n  - a:\n      svc.send: {}\n      on_unknown: fail\n      catch:\n"
                "        flow.action_ambiguous: { steps: [ { h: { svc.get: {} } } ], result: 7 }\n"
                "outputs:\n  a: '{{ a }}'\n",
                {"attempts": {"a": [{"error": "svc.lost"}]}},
            ),
            {"outcome": "completed", "result": {"a": 7}},
        ),
        ConformanceCase(
            "longest-prefix-handler-wins",
            ("WF-CODE-2", "WF-CATCH-2"),
            _case(
                "steps:\n  - a:\n      svc.send: {}\n      catch:\n"
                "        svc.*: { steps: [ { h1: { svc.get: {} } } ], result: wide }\n"
                "        svc.rate.*: { steps: [ { h2: { svc.get: {} } } ], result: narrow }\n"
                "outputs:\n  a: '{{ a }}'\n",
                {"attempts": {"a": [{"error": "svc.rate.limit"}]}},
            ),
            {"outcome": "completed", "result": {"a": "narrow"}},
        ),
        ConformanceCase(
            "own-guard-fault-is-not-caught",
            ("WF-STEP-7", "WF-CATCH-15"),
            _case(
                "steps:\n  - a:\n      svc.send: {}\n      when: '{{ 1 }}'\n"
                "      catch:\n        expression.*: { steps: [ { h: { svc.get: {} } } ] }\n"
            ),
            {
                "outcome": "failed",
                "error": {"code": "expression.type", "step": "a"},
                "steps": {"a": "failed"},
            },
        ),
        ConformanceCase(
            "failed-step-reads-null-under-continue",
            ("WF-POLICY-4", "WF-BIND-1", "WF-BIND-2"),
            _case(
                "steps:\n  - a: { svc.send: {}, on_fail: continue }\n"
                "  - b: { svc.get: { ref: '{{ a.id }}' } }\n"
                "outputs:\n  ref: '{{ a.id }}'\n",
                {"attempts": {"a": [{"error": "svc.fatal"}]}},
            ),
            {"outcome": "completed", "result": {"ref": None}},
        ),
        ConformanceCase(
            "fail-fast-stops-later-iterations",
            ("WF-POLICY-9", "WF-POLICY-15"),
            _case(
                "steps:\n  - each:\n      wf.for_each:\n        items: [1, 2, 3]\n"
                "        steps: [ { a: { svc.send: {} } } ]\n",
                {"attempts": {"each[0].a": [{"error": "svc.fatal"}]}},
            ),
            {"outcome": "failed", "error": {"code": "svc.fatal", "step": "each[0].a"}},
        ),
        ConformanceCase(
            "stop-stops-its-chain",
            ("WF-IWC-4", "WF-SOUT-5", "WF-ROUT-2"),
            _case(
                "steps:\n  - each:\n      wf.for_each:\n        items: [1]\n"
                "        steps: [ { s: { wf.stop: { reason: done, result: { n: 1 } } } } ]\n"
                "  - later: { svc.get: {} }\n"
            ),
            {
                "outcome": "stopped",
                "reason": "done",
                "result": {"n": 1},
                "steps": {"each": "stopped", "each[0].s": "stopped"},
            },
        ),
        ConformanceCase(
            "wf-fail-cancels-its-enclosing-constructs",
            ("WF-IWC-5", "WF-ROUT-5"),
            _case(
                "steps:\n  - each:\n      wf.for_each:\n        items: [1]\n"
                "        steps: [ { f: { wf.fail: { code: app.no, reason: why } } } ]\n"
            ),
            {
                "outcome": "failed",
                "reason": "why",
                "error": {"code": "app.no", "step": "each[0].f"},
                "steps": {"each": "cancelled", "each[0].f": "failed"},
            },
        ),
        ConformanceCase(
            "cancellation-evaluates-no-outputs",
            ("WF-CANCEL-8", "WF-CANCEL-9", "WF-TERM-8"),
            _case(
                "steps:\n  - a: { svc.send: {} }\noutputs:\n  x: '{{ a.id }}'\n",
                {"cancel": 1},
            ),
            {
                "outcome": "cancelled",
                "steps": {"a": "cancelled"},
                "unknownEffects": [{"step": "a", "attempt": 1, "effect": "unknown"}],
            },
            every=False,
        ),
        ConformanceCase(
            "dry-run-withholds-a-write-and-its-dependants",
            ("WF-DRY-4", "WF-DRY-6", "WF-SUPP-3", "WF-SUPP-13", "WF-PART-2"),
            _case(
                "steps:\n  - w: { svc.send: {} }\n  - r: { svc.get: {} }\n"
                "  - c: { svc.get: { v: '{{ r.id if true else w.id }}' } }\n"
                "outputs:\n  a: '{{ r.id }}'\n  b: '{{ w.id }}'\n",
                {"dryRun": True},
            ),
            {
                "outcome": "completed",
                "result": {"a": "r", "b": None},
                "suppressed": ["b"],
                "steps": {"w": "suppressed", "r": "succeeded", "c": "suppressed"},
            },
        ),
        ConformanceCase(
            "dry-run-literal-index-beside-a-suppressed-sibling",
            ("WF-SUPP-4", "WF-SUPP-8", "WF-SUPP-20"),
            _case(
                "steps:\n  - each:\n      wf.for_each:\n        items: [0, 1]\n"
                "        steps: [ { x: { svc.send: {}, when: '{{ item == 1 }}' } } ]\n"
                "  - c: { svc.get: { v: '{{ each[0].x }}' } }\n",
                {"dryRun": True},
            ),
            {"outcome": "completed", "steps": {"c": "succeeded", "each[1].x": "suppressed"}},
        ),
        ConformanceCase(
            "dry-run-delegated-write-runs",
            ("WF-DRY-11",),
            _case(
                "steps:\n  - d: { svc.notify: {} }\noutputs:\n  d: '{{ d.id }}'\n",
                {"dryRun": True},
            ),
            {"outcome": "completed", "result": {"d": "d"}, "steps": {"d": "succeeded"}},
        ),
        ConformanceCase(
            "a-call-binds-its-child-s-outputs",
            ("WF-STEP-13", "A-140"),
            _case(
                "steps:\n  - c: { wf.call: { workflow: child } }\noutputs:\n  r: '{{ c.x }}'\n",
                child=CHILD,
            ),
            {
                "outcome": "completed",
                "result": {"r": "c.(run).w"},
                "steps": {"c": "succeeded", "c.(run).w": "succeeded"},
            },
        ),
        ConformanceCase(
            "a-child-abort-terminates-the-caller-past-its-catch",
            ("WF-UNK-11", "WF-UNK-14"),
            _case(
                "steps:\n  - c:\n      wf.call: { workflow: child }\n      on_fail: continue\n"
                "      catch:\n        flow.*: { steps: [], result: {} }\n",
                {"attempts": {"c.(run).w": [{"error": "svc.lost"}]}},
                child=CHILD,
            ),
            {
                "outcome": "failed",
                "error": {"code": "flow.action_ambiguous", "step": "c.(run).w"},
                "disposition": "abort",
                "steps": {"c": "failed", "c.(run).w": "failed"},
            },
        ),
        ConformanceCase(
            "a-failed-child-s-code-is-offered-to-the-call-s-catch",
            ("WF-CATCH-12", "WF-CATCH-13"),
            _case(
                "steps:\n  - c:\n      wf.call: { workflow: child }\n"
                # The replacement names the child's declared output (WF-CATCH-24).
                "      catch:\n        svc.fatal: { steps: [], result: { x: handled } }\n"
                "outputs:\n  r: '{{ c }}'\n",
                {"attempts": {"c.(run).w": [{"error": "svc.fatal"}]}},
                child=CHILD,
            ),
            {"outcome": "completed", "result": {"r": {"x": "handled"}}},
        ),
        ConformanceCase(
            "a-timed-out-write-is-an-unknown-effect",
            ("WF-CATCH-11", "WF-LATE-5", "A-141"),
            _case(
                "steps:\n  - a:\n      svc.send: {}\n"
                "      timeout: 1s\n      on_unknown: fail\n      on_fail: continue\n",
                {"attempts": {"a": [{"timeout": True, "late": {"output": {"id": "late"}}}]}},
            ),
            {
                "outcome": "completed",
                "steps": {"a": "failed"},
                "unknownEffects": [
                    {"step": "a", "attempt": 1, "effect": "unknown", "code": "timeout"}
                ],
            },
        ),
        ConformanceCase(
            "output-fault-fails-the-run",
            ("WF-DONE-6",),
            _case("steps:\n  - a: { svc.get: {} }\noutputs:\n  x: '{{ 1 / 0 }}'\n"),
            {"outcome": "failed", "error": {"code": "expression.division_by_zero"}},
        ),
    )
