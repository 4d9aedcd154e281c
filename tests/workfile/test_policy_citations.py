"""The failure policy a failing step meets is cited by the transition that fails it.

Failure Policy Precedence (WF-POLICY-3..5) and the abort disposition
(WF-UNK-4) decide what follows a failed step, but the rules that fail a
step (``fault``, ``exhausted``, ``author_fail`` …) cite their own clauses
only: a campaign's coverage listed WF-POLICY-4 as never reached although
``on_fail: continue`` ran thousands of times (session 21).  ``_fail`` now
leaves the ladder's clause for the transition (model/workfile/run.py
``_cite``).
"""

from __future__ import annotations

import pytest

from tests.workfile.test_call import case
from wforacle.model.kernel.lts import execute
from wforacle.model.workfile.run import CITED
from wforacle.properties.workfile.execution import prepare

FOREACH = """
steps:
  - each:
      wf.for_each:
        items: [1]
        steps:
          - a: { svc.send: {} }
"""


@pytest.mark.parametrize(
    ("document", "error", "clause"),
    [
        ("steps:\n  - a: { svc.send: {}, on_fail: continue }\n", "svc.fatal", "WF-POLICY-4"),
        ("steps:\n  - a: { svc.send: {}, on_fail: abort }\n", "svc.fatal", "WF-POLICY-3"),
        ("steps:\n  - a: { svc.send: {}, on_fail: continue }\n", "svc.lost", "WF-UNK-4"),
        ("steps:\n  - a: { svc.send: {} }\n", "svc.fatal", "WF-STEP-5"),
        (FOREACH, "svc.fatal", "WF-POLICY-5"),
    ],
)
def test_the_transition_failing_a_step_cites_the_policy_it_met(document, error, clause):
    where = "each[0].a" if "for_each" in document else "a"
    run = prepare(case(document, {"attempts": {where: [{"error": error}]}})).semantics
    failed = [
        t
        for t in execute(run).steps
        if t.event.get("event") == "step_finished" and t.event.get("step") == where
    ]
    assert len(failed) == 1 and failed[0].event["outcome"] == "failed"
    assert clause in failed[0].clauses, failed[0].clauses
    others = {"WF-POLICY-3", "WF-POLICY-4", "WF-POLICY-5", "WF-UNK-4"} - {clause}
    assert not others & set(failed[0].clauses), failed[0].clauses


def test_no_configuration_keeps_what_a_transition_cited():
    # The ladder's clauses travel with the transition, not in the state (a configuration
    # holding them would be another state for the explorer and the checker).
    run = prepare(
        case("steps:\n  - a: { svc.send: {}, on_fail: continue }\n  - b: { svc.get: {} }\n",
             {"attempts": {"a": [{"error": "svc.fatal"}]}})
    ).semantics  # fmt: skip
    frontier, seen, cited = [run.initial()], 0, 0
    while frontier:
        for t in run.enabled(frontier.pop()):
            assert CITED not in t.target.data
            cited += "WF-POLICY-4" in t.clauses
            frontier.append(t.target)
            seen += 1
    assert seen and cited
