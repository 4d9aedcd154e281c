"""The command line for Workfiles: validate (by content or --spec), --manifests, refs, clauses."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from wforacle.oracle.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "workfile"
ONBOARDING = str(EXAMPLES / "onboarding.workfile.yaml")
MANIFESTS = str(EXAMPLES / "manifests")


def test_a_workfile_is_recognised_by_content_and_validated(capsys):
    assert main(["validate", ONBOARDING, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["diagnostics"] == []


def test_manifests_are_the_static_facts_of_validation(capsys):
    assert main(["validate", ONBOARDING, "--manifests", MANIFESTS, "--json"]) == 0
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    assert [d["code"] for d in found] == ["ambiguity_bypasses_continue"] * 3
    assert main(["validate", ONBOARDING, "--manifests", "/nonexistent"]) == 2


def test_an_invalid_workfile_exits_1_with_every_problem(capsys):
    assert main(["validate", str(EXAMPLES / "invalid" / "scopes.workfile.yaml"), "--json"]) == 1
    assert len(json.loads(capsys.readouterr().out)["diagnostics"]) == 4


def test_broken_yaml_is_a_diagnostic_with_spec_and_unrecognised_without(tmp_path, capsys):
    broken = tmp_path / "broken.yaml"
    broken.write_text("steps: [\n")
    assert main(["validate", str(broken), "--spec", "workfile", "--json"]) == 1
    (problem,) = json.loads(capsys.readouterr().out)["diagnostics"]
    assert problem["code"] == "document.syntax"
    assert main(["validate", str(broken)]) == 2


def test_refs_prints_every_statically_resolved_reference(capsys):
    assert main(["workfile", "refs", "a.x if b.y else c[i].z | default(d)", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["references"] == ["a.x", "b.y", "c[*].z", "d", "i"]
    assert main(["workfile", "refs", "hello {{ s.id }} and {{ t[0] }}"]) == 0
    assert capsys.readouterr().out.split() == ["s.id", "t[0]"]
    assert main(["workfile", "refs", "a..b"]) == 2


SCENARIO = str(EXAMPLES / "onboarding.scenario.json")


def test_run_executes_the_example_against_its_manifests(capsys):
    # The handler replaces the duplicate account (WF-CATCH-22); the failed
    # membership does not fail the loop under continue (WF-POLICY-16).
    args = ["run", ONBOARDING, "--manifests", MANIFESTS, "--scenario", SCENARIO, "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    final = out["outcome"]
    assert final["outcome"] == "completed"
    assert final["result"] == {"account_id": "acc-7", "summary": "Ada joined 2 teams"}
    assert final["steps"]["memberships[1].join"] == "failed"
    assert final["steps"]["memberships"] == "succeeded"
    assert out["trace"][0] == {
        "event": "run_started",
        "inputs": {"email": "ada@example.com", "teams": ["core", "ops"]},
    }


def test_run_classifies_errors_with_the_manifests_given(tmp_path, capsys):
    # crm.yaml declares crm.rate_limited retryable for create_account
    # (WF-STEP-9: "interpreted under its resolved connector manifest").
    scenario = tmp_path / "s.json"
    scenario.write_text(
        json.dumps(
            {
                "inputs": {"email": "a@b"},
                "attempts": {"account": [{"error": "crm.rate_limited"}, {"output": {"id": "z"}}]},
            }
        )
    )
    args = ["run", ONBOARDING, "--manifests", MANIFESTS, "--scenario", str(scenario), "--json"]
    assert main(args) == 0
    trace = json.loads(capsys.readouterr().out)["trace"]
    finished = [e for e in trace if e["event"] == "attempt_finished" and e["step"] == "account"]
    assert [e["result"] for e in finished] == ["retryable", "succeeded"]
    # Without the manifests the code is not covered: fatal, no retry.
    assert main(args[:2] + args[4:]) == 0
    trace = json.loads(capsys.readouterr().out)["trace"]
    finished = [e for e in trace if e["event"] == "attempt_finished" and e["step"] == "account"]
    assert [e["result"] for e in finished] == ["fatal"]


def test_explore_reports_every_outcome(capsys):
    assert main(["explore", ONBOARDING, "--manifests", MANIFESTS, "--scenario", SCENARIO]) == 0
    out = capsys.readouterr().out
    assert "1 outcome(s); complete" in out


def test_a_missing_required_input_rejects_the_run_before_it_begins(capsys):
    # WF-START-4/5: inputs are validated before they become bindings; no run begins.
    assert main(["run", ONBOARDING, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["trace"] == [
        {"event": "run_rejected", "error": {"code": "input.required", "input": "email"}}
    ]
    assert out["outcome"]["outcome"] == "rejected"


def test_the_workfile_clause_catalogue_is_listed(capsys):
    assert main(["clauses", "--spec", "workfile", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    ids = [c["id"] for c in report["clauses"]]
    assert "WF-UNK-15" in ids and "WF-STEP-1" in ids and len(ids) == 291


def test_shrink_reduces_a_workfile_bug_report_to_what_the_bug_needs(tmp_path, capsys):
    # A bug report: the onboarding run, whose first retry an executor delays by
    # initial * 2^n instead of initial * 2^(n-1) (WF-RETRY-3).
    import sys

    engine = Path(__file__).resolve().parents[2] / "examples" / "engines" / "workfile_engine.py"
    scenario = tmp_path / "report.json"
    scenario.write_text(
        json.dumps(
            {
                "inputs": {"email": "a@b", "teams": ["x", "y"]},
                "attempts": {
                    "account": [{"error": "crm.rate_limited"}, {"output": {"id": "z"}}],
                    "memberships[1].join": [{"error": "crm.no_such_team"}],
                },
            }
        )
    )
    command = f"{sys.executable} {engine} --bug exponential-from-zero"
    args = ["shrink", ONBOARDING, "--manifests", MANIFESTS, "--scenario", str(scenario)]
    assert main([*args, "--engine", command, "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert "WF-RETRY-3" in out["judgement"]["divergence"]["clauses"]
    case = out["case"]
    assert list(case["manifests"]) == ["crm"]
    assert case["scenario"]["attempts"] == {"account": [{"error": "crm.rate_limited"}]}
    assert case["document"].count("crm.") == 1  # one step is left
    # The text form says what it reduced, not "found after 1 example(s)" (nothing was
    # searched: a stranger found that line confusing).
    assert main([*args, "--engine", command]) == 1
    text = capsys.readouterr().out
    assert text.startswith("reduced case: ") and "found after" not in text


def test_a_for_each_past_the_model_bound_is_incomplete_never_out_of_memory(tmp_path, capsys):
    # Issue 19: 100,000 items were a MemoryError; run and explore now stop and say why,
    # and check, which cannot report an incomplete result, cannot decide (exit 2).
    import json

    document = tmp_path / "many.workfile.yaml"
    document.write_text(
        "inputs: { xs: { type: array } }\n"
        "steps:\n"
        "  - e:\n"
        "      wf.for_each:\n"
        '        items: "{{ inputs.xs }}"\n'
        "        steps: [ { t: { svc.get: {} } } ]\n"
    )
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "svc.yaml").write_text(
        "connector: svc\nactions:\n  get: { effects: read, idempotency: inherent }\n"
    )
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"inputs": {"xs": list(range(1001))}}))
    common = [
        str(document),
        "--manifests",
        str(tmp_path / "manifests"),
        "--scenario",
        str(scenario),
    ]
    assert main(["run", *common, "--json"]) == 0
    ran = json.loads(capsys.readouterr().out)
    assert "past the model's bound (1000 items" in ran["stoppedBecause"]
    assert main(["explore", *common, "--json"]) == 0
    assert "past the model's bound" in capsys.readouterr().out
    (tmp_path / "trace.json").write_text(json.dumps(ran["trace"]))
    assert main(["check", *common, "--trace", str(tmp_path / "trace.json")]) == 2
    assert "cannot decide" in capsys.readouterr().err


APPROVAL = [
    str(EXAMPLES / "approval.workfile.yaml"),
    "--manifests",
    MANIFESTS,
]


def test_check_judges_a_state_form_trace(tmp_path, capsys):
    # Issue 15: check takes a state-form run's trace like any other.  The model's own trace
    # passes; the same trace with the first event (another request's decision) delivered
    # diverges at that entry_exited: its payload matches no subscription (WFS-TRANS-30).
    common = [*APPROVAL, "--scenario", str(EXAMPLES / "approval.scenario.json")]
    assert main(["run", *common, "--json"]) == 0
    trace = json.loads(capsys.readouterr().out)["trace"]
    (tmp_path / "ok.json").write_text(json.dumps(trace))
    assert main(["check", *common, "--trace", str(tmp_path / "ok.json")]) == 0
    capsys.readouterr()
    (index,) = [i for i, e in enumerate(trace) if e.get("by") == "decision"]
    assert trace[index]["number"] == 1
    trace[index]["number"] = 0  # someone else's decision
    (tmp_path / "bad.json").write_text(json.dumps(trace))
    assert main(["check", *common, "--trace", str(tmp_path / "bad.json"), "--json"]) == 1
    divergence = json.loads(capsys.readouterr().out)["divergence"]
    assert divergence["index"] == index
    assert "WFS-TRANS-30" in divergence["clauses"]


def test_shrink_reduces_a_state_form_bug_report_to_the_race_it_needs(tmp_path, capsys):
    # Issue 15: a bug report against an executor whose timer is due once the clock reaches
    # the deadline (timeout-wins-tie): the decision arrives exactly at the deadline, and
    # the engine escalates.  The minimal case keeps one waiting state with the timeout,
    # no step, no manifest and no event: the clock moved to exactly the deadline is enough
    # (the model still waits there: an event accepted at the deadline would win,
    # WFS-TRANS-37, A-152).
    import sys

    engine = Path(__file__).resolve().parents[2] / "examples" / "engines" / "workfile_engine.py"
    decision = {"request_id": "awaiting_approval[0].notify", "action": "approve", "user": "ada"}
    scenario = tmp_path / "report.json"
    scenario.write_text(
        json.dumps(
            {
                "inputs": {"channel": "approvals"},
                # wait 1: notify outstanding; wait 2: entry correlated, deadline 24 h
                "events": [
                    {"wait": 2, "at": 86_400_000, "event": "chat.decision", "payload": decision}
                ],
            }
        )
    )
    command = f"{sys.executable} {engine} --bug timeout-wins-tie"
    args = ["shrink", *APPROVAL, "--scenario", str(scenario), "--engine", command, "--json"]
    assert main(args) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["judgement"]["divergence"]["clauses"][0] == "WFS-TRANS-37"
    case = out["case"]
    assert "manifests" not in case
    assert case["scenario"] == {"events": [{"wait": 1, "at": 86_400_000}]}
    document = yaml.safe_load(case["document"])
    assert sorted(document["states"]) == ["awaiting_approval", "closed"]
    assert document["states"]["awaiting_approval"] == {
        "timeout": {"after": "24h", "goto": "closed"}
    }
