"""The command line: contracts, exit codes, and no tracebacks."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from wforacle.oracle.cli import main

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "w6w" / "daily-report.json"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path, doc, name="doc.json"):
    path = tmp_path / name
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return str(path)


def test_validate_example_json_contract(capsys):
    code, out, _ = run(capsys, "validate", str(EXAMPLE), "--json")
    report = json.loads(out)
    assert code == 0
    assert report == {"valid": True, "storable": True, "diagnostics": []}


def test_plan_example(capsys):
    code, out, _ = run(capsys, "plan", str(EXAMPLE), "--json")
    assert code == 0 and json.loads(out) == {"order": ["fetch", "post"]}


def test_invalid_document_exits_1_with_diagnostics(capsys, tmp_path):
    doc = {
        "manifestVersion": "2",
        "id": "x",
        "name": "x",
        "steps": [{"id": "a", "uses": {"app": "x", "action": "y"}}],
        "edges": [{"from": "a", "to": "ghost"}],
    }
    code, out, _ = run(capsys, "validate", write(tmp_path, doc), "--json")
    report = json.loads(out)
    assert code == 1 and report["valid"] is False
    assert report["diagnostics"] == [
        {
            "code": "dangling_edge",
            "severity": "error",
            "path": "$.edges[0].to",
            "message": "edge to 'ghost' names no step of the workflow",
            "clause": "W6W-PLAN-3",
            "gate": "run",
        }
    ]
    code, out, _ = run(capsys, "plan", write(tmp_path, doc), "--json")
    assert code == 1 and json.loads(out)["order"] is None


def test_human_output_names_code_path_and_clause(capsys, tmp_path):
    doc = {"manifestVersion": "2", "id": "x", "name": "x", "steps": [{"id": "a.b"}]}
    code, out, _ = run(capsys, "validate", write(tmp_path, doc))
    assert code == 1
    assert "dotted_step_id" in out and "$.steps[0].id" in out and "[W6W-FIELD-9]" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        ("{", "is not JSON"),
        ('{"a": NaN}', "is not JSON"),
        ('{"a": 1e400}', "out of range"),  # no JSON output could render it (issue 19)
        ('{"a": "\\ud800"}', "lone surrogate"),  # nor UTF-8 output this
        (b"\xff\xfe", "not UTF-8"),
    ],
)
def test_unreadable_input_is_one_line_and_exit_2(capsys, tmp_path, content, message):
    path = tmp_path / "in.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    code, out, err = run(capsys, "validate", str(path))
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_directory_is_unreadable(capsys, tmp_path):
    code, _, err = run(capsys, "plan", str(tmp_path))
    assert code == 2 and "directory" in err


def test_several_documents_share_one_accounts_keys(capsys, tmp_path):
    a = {
        "manifestVersion": "2",
        "id": "1",
        "name": "a",
        "key": "same-key",
        "steps": [{"id": "s", "uses": {"app": "x", "action": "y"}}],
    }
    code, out, _ = run(
        capsys,
        "validate",
        write(tmp_path, a, "a.json"),
        write(tmp_path, {**a, "id": "2"}, "b.json"),
        "--json",
    )
    report = json.loads(out)
    assert code == 1 and report["valid"] is False
    assert [d["code"] for d in report["documents"][1]["diagnostics"]] == ["key_conflict"]


def test_previous_version_turns_off_the_key_grammar(capsys, tmp_path):
    doc = {
        "manifestVersion": "2",
        "id": "1",
        "name": "a",
        "key": "old_key",
        "steps": [{"id": "s", "uses": {"app": "x", "action": "y"}}],
    }
    path = write(tmp_path, doc)
    assert run(capsys, "validate", path)[0] == 1
    assert run(capsys, "validate", path, "--previous", path)[0] == 0


def test_unknown_spec_is_a_usage_error(capsys, tmp_path):
    code, _, err = run(capsys, "validate", write(tmp_path, [1]))
    assert code == 2 and "--spec" in err


def test_clauses_json_reports_coverage(capsys):
    code, out, _ = run(capsys, "clauses", "--spec", "w6w", "--json")
    report = json.loads(out)
    assert code == 0 and report["tests_scanned"] is True
    figures = report["coverage"]
    assert figures["clauses"] == len(report["clauses"]) > 150
    plan_1 = next(c for c in report["clauses"] if c["id"] == "W6W-PLAN-1")
    assert plan_1["rules"] and plan_1["tests"]
    assert report["unknown_citations"] == []


def test_usage_errors_exit_2():
    result = subprocess.run(
        [sys.executable, "-m", "wforacle.oracle", "validate"], capture_output=True, text=True
    )
    assert result.returncode == 2 and "usage:" in result.stderr


def test_help_does_not_import_heavy_modules():
    code = (
        "import sys; from wforacle.oracle.cli import build_parser; build_parser(); "
        "heavy = {'networkx', 'lark', 'z3', 'hypothesis'} & set(sys.modules); "
        "print(sorted(heavy))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "[]"


def test_validate_imports_no_solver_graph_library_or_catalogue():
    # Issue 16: start-up.  A one-step w6w document needs no networkx (it names
    # cycles), z3, Hypothesis, or the clause catalogues (YAML).
    code = (
        "import sys; from wforacle.oracle.cli import main\n"
        f"try: main(['validate', {str(EXAMPLE)!r}])\n"
        "except SystemExit: pass\n"
        "heavy = {'networkx', 'z3', 'hypothesis', 'wforacle.properties.clauses'}\n"
        "heavy &= set(sys.modules)\n"
        "print(sorted(heavy), file=sys.stderr)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stderr.strip().splitlines()[-1] == "[]"


# Issue 16: start-up.  One step of each specification, with nothing to solve
# (no guard, condition, decision or quorum), no cycle to name, no expression
# to parse and nothing to generate.
ONE_STEP = {
    "one.json": '{"manifestVersion": "2", "id": "wf_one", "name": "one", '
    '"steps": [{"id": "only", "uses": {"app": "slack", "action": "send-message"}}]}',
    "one.xml": '<harness id="one"><node id="only" impl="work"/></harness>',
    "one.workfile.yaml": "steps:\n  - only: { chat.post: { text: hi } }\n",
}
NOT_NEEDED = {"z3", "networkx", "hypothesis", "lark"}


def imported(argv: list[str]) -> set[str]:
    """The top-level packages ``python -X importtime -m wforacle.oracle ARGV`` imports."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "wforacle.oracle", *argv],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    lines = [line for line in result.stderr.splitlines() if line.startswith("import time:")]
    # "import time: self [us] | cumulative | imported package": the first line is the header.
    return {line.split("|")[2].strip().split(".")[0] for line in lines[1:]}


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize("name", list(ONE_STEP))
def test_a_one_step_document_loads_no_solver_graph_library_parser_or_generator(
    tmp_path, name, command
):
    document = write(tmp_path, ONE_STEP[name], name)
    assert imported([command, document]) & NOT_NEEDED == set()


def test_the_import_probe_sees_what_a_document_needs(tmp_path):
    # The probe above is not blind: a guard loads Lark (to parse it) and z3 (to solve it).
    document = write(
        tmp_path, '<harness id="h"><node id="a"><guard>params.x</guard></node></harness>', "g.xml"
    )
    assert {"lark", "z3"} <= imported(["validate", document])


def test_the_clauses_command_offers_every_catalogue():
    from wforacle.oracle.cli import catalogues
    from wforacle.properties.clauses import CONFIGS

    assert catalogues() == sorted(CONFIGS)


def test_internal_errors_are_classified_not_tracebacks(capsys, monkeypatch, tmp_path):
    import wforacle.properties.w6w.validate as validate_module

    def boom(*args, **kwargs):
        raise RuntimeError("model bug")

    monkeypatch.setattr(validate_module, "validate", boom)
    monkeypatch.delenv("WFORACLE_DEBUG", raising=False)
    code, _, err = run(capsys, "validate", str(EXAMPLE))
    assert code == 3 and "internal error" in err and "Traceback" not in err


def test_run_prints_trace_and_run_state(capsys):
    scenario = REPO / "examples" / "w6w" / "scenarios" / "error-routing.json"
    code, out, _ = run(
        capsys,
        "run",
        str(REPO / "examples" / "w6w" / "error-routing.json"),
        "--scenario",
        str(scenario),
        "--json",
    )
    report = json.loads(out)
    assert code == 0 and report["runState"]["status"] == "succeeded"
    assert report["trace"][0]["event"] == "run_started"
    last = report["trace"][-1]
    assert {k: v for k, v in last.items() if k != "checkpoint"} == {
        "event": "run_finished",
        "at": 500,
        "status": "succeeded",
        "output": None,
    }
    assert last["checkpoint"] == max(e.get("checkpoint", 0) for e in report["trace"])


def test_run_refuses_invalid_documents_bad_scenarios_and_unmodelled_steps(capsys, tmp_path):
    bad_doc = {"manifestVersion": "2", "id": "x", "name": "x", "steps": [{"id": "a.b"}]}
    assert run(capsys, "run", write(tmp_path, bad_doc))[0] == 1
    good = {
        "manifestVersion": "2",
        "id": "x",
        "name": "x",
        "steps": [{"id": "a", "uses": {"app": "x", "action": "y"}}],
    }
    code, _, err = run(
        capsys,
        "run",
        write(tmp_path, good, "g.json"),
        "--scenario",
        write(tmp_path, {"steps": {"a": {"attempts": [{"nope": 1}]}}}, "s.json"),
    )
    assert code == 2 and "$.steps.a.attempts[0]" in err
    control = {**good, "steps": [{"id": "w", "uses": {"app": "@w6w/control", "action": "loop"}}]}
    code, _, err = run(capsys, "run", write(tmp_path, control, "c.json"))
    assert code == 2 and "not modelled" in err and "canonical controls" in err
    wait_inside = {
        **good,
        "steps": [
            {
                "id": "f",
                "uses": {"app": "@w6w/control", "action": "foreach"},
                "with": {
                    "items": [1],
                    "body": [{"id": "w", "uses": {"app": "@w6w/control", "action": "wait"}}],
                },
            }
        ],
    }
    for command in ("run", "explore"):
        code, _, err = run(capsys, command, write(tmp_path, wait_inside, "w.json"))
        assert code == 2 and "A-55" in err


def test_check_accepts_runs_own_trace_and_pins_a_changed_one(capsys, tmp_path):
    doc = str(REPO / "examples" / "w6w" / "error-routing.json")
    scenario = str(REPO / "examples" / "w6w" / "scenarios" / "error-routing.json")
    code, out, _ = run(capsys, "run", doc, "--scenario", scenario, "--json")
    assert code == 0
    recorded = json.loads(out)
    code, out, _ = run(
        capsys, "check", doc, "--scenario", scenario, "--trace", write(tmp_path, recorded)
    )
    assert code == 0 and out.startswith("permitted")
    trace = recorded["trace"]
    k = next(i for i, e in enumerate(trace) if e["event"] == "step_started")
    trace[k]["step"] = "somewhere-else"
    code, out, _ = run(
        capsys, "check", doc, "--scenario", scenario, "--trace", write(tmp_path, trace), "--json"
    )
    verdict = json.loads(out)
    assert code == 1 and not verdict["permitted"] and verdict["divergence"]["index"] == k
    code, _, err = run(
        capsys, "check", doc, "--scenario", scenario, "--trace", write(tmp_path, "{]", "t.txt")
    )
    assert code == 2 and "line 1" in err


def test_the_harness_readings_are_selectable_on_the_command_line(tmp_path, capsys):
    # under "branch" an any join also cancels READY nodes of a losing branch,
    # which adds outcomes where the branch never started; "running" does not.
    from wforacle.oracle.cli import main

    document = tmp_path / "any.xml"
    document.write_text(
        '<harness id="h"><node id="s"/><node id="a"/><node id="b"/><node id="c"/>'
        '<node id="j" joinPolicy="any"/><edge from="s" to="a"/><edge from="s" to="b"/>'
        '<edge from="b" to="c"/><edge from="a" to="j"/><edge from="c" to="j"/></harness>'
    )

    def outcomes(*flags):
        assert main(["explore", str(document), "--json", *flags]) == 0
        found = json.loads(capsys.readouterr().out)["outcomes"]
        return {json.dumps(o["outcome"], sort_keys=True) for o in found}

    branch, running = outcomes(), outcomes("--any-cancels", "running")
    assert running != branch
    # Only under "branch" can a node be CANCELLED before it ever ran.
    never_ran = {"state": "CANCELLED", "attempts": 0, "outputs": None, "error": None}
    assert all(never_ran not in json.loads(o)["nodes"].values() for o in running)
    assert any(never_ran in json.loads(o)["nodes"].values() for o in branch - running)


def test_the_w6w_launch_reading_is_selectable_on_the_command_line(tmp_path, capsys):
    # A-74 on the F-13 witness: the eager reading permits a subset of the default's outcomes.
    from wforacle.oracle.cli import main

    step = {"uses": {"app": "x", "action": "y"}}
    document = tmp_path / "doc.json"
    document.write_text(
        json.dumps(
            {
                "manifestVersion": "2",
                "id": "w",
                "name": "w",
                "steps": [
                    {"id": "r", **step, "fanOut": "parallel"},
                    {"id": "x", **step},
                    {"id": "a", **step},
                    {"id": "b", **step},
                ],
                "edges": [
                    {"from": "r", "to": "x"},
                    {"from": "r", "to": "b"},
                    {"from": "x", "to": "a"},
                ],
            }
        )
    )
    scenario = tmp_path / "s.json"
    failing = {"attempts": [{"error": {"code": "failed", "message": "m"}}]}
    scenario.write_text(json.dumps({"steps": {"a": failing, "b": failing}}))

    def outcomes(*flags):
        assert main(["explore", str(document), "--scenario", str(scenario), "--json", *flags]) == 0
        found = json.loads(capsys.readouterr().out)["outcomes"]
        return {json.dumps(o["outcome"], sort_keys=True) for o in found}

    separate, eager = outcomes(), outcomes("--launch", "eager")
    assert eager < separate


@pytest.mark.parametrize(
    "argv, option",
    [
        (("fixtures", "--spec", "w6w", "--count", "-3", "--out", "x"), "--count"),
        (("fuzz", "--spec", "w6w", "--examples", "-1", "--engine", "x"), "--examples"),
        (("fuzz", "--spec", "w6w", "--engine", " "), "--engine"),
        (("fuzz", "--spec", "w6w", "--time-budget", "-1", "--engine", "x"), "--time-budget"),
        (("fuzz", "--spec", "w6w", "--time-budget", "nan", "--engine", "x"), "--time-budget"),
        (("fuzz", "--shrink-allowance", "-1", "--engine", "x"), "--shrink-allowance"),
        (("fuzz", "--shrink-allowance", "inf", "--engine", "x"), "--shrink-allowance"),
        (("conform", "x", "--engine", "x", "--timeout", "0"), "--timeout"),
        (("explore", "x", "--max-states", "0"), "--max-states"),
        (("run", "x", "--max-steps", "0"), "--max-steps"),
        (("run", "x", "--time-budget", "-1"), "--time-budget"),
        (("shrink", "x", "--engine", "x", "--budget", "-5"), "--budget"),
        # A folder to save findings in that cannot be one (was an internal error at the
        # first finding).
        (("fuzz", "--spec", "w6w", "--engine", "x", "--save", ""), "--save"),
        (("fuzz", "--spec", "w6w", "--engine", "x", "--save", "/dev/null"), "--save"),
        (("fuzz", "--spec", "w6w", "--engine", "x", "--save", __file__), "--save"),
        (("fuzz", "--spec", "w6w", "--engine", "x", "--save", __file__ + "/x"), "--save"),
    ],
)
def test_a_count_or_budget_that_means_nothing_is_a_usage_error(capsys, argv, option):
    # Issue 19: these were internal errors (a negative max_examples reached
    # Hypothesis; an empty engine command line was split into nothing) or a
    # silent success (a negative time budget).  Checked when parsed: exit 2.
    with pytest.raises(SystemExit) as exited:
        main(list(argv))
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}" in err and "internal error" not in err


@pytest.mark.parametrize("command", ["run", "explore"])
def test_a_budget_holds_inside_one_long_foreach_transition(capsys, tmp_path, command):
    # Issue 19: the whole foreach is one transition; its 100,000 items ran past any budget.
    import time

    body = [{"id": "each", "uses": {"app": "demo", "action": "run"}}]
    control = {"app": "@w6w/control", "action": "foreach"}
    loop = {"id": "loop", "uses": control, "with": {"items": list(range(100_000)), "body": body}}
    document = {"manifestVersion": "2", "id": "wf_h", "name": "h", "steps": [loop]}
    path = write(tmp_path, document)
    started = time.monotonic()
    code, out, _ = run(capsys, command, path, "--time-budget", "0.5", "--json")
    assert code == 0 and time.monotonic() - started < 20
    assert "the time budget (0.5 s) was spent" in out


def test_clauses_tests_of_the_empty_path_is_a_usage_error(capsys):
    # Issue 19: Path("") is the current folder, which was scanned instead.
    code, _, err = run(capsys, "clauses", "--tests", "")
    assert code == 2 and "--tests ''" in err


def test_run_stops_at_its_step_bound_and_says_it_is_incomplete(capsys):
    # Issue 19: run never runs unbounded; the path so far, marked incomplete.
    code, out, _ = run(capsys, "run", str(EXAMPLE), "--max-steps", "3")
    assert code == 0 and "INCOMPLETE: the step bound (3 transitions)" in out
    assert len(out.strip().splitlines()) == 3 + 2
    code, out, _ = run(capsys, "run", str(EXAMPLE), "--max-steps", "3", "--json")
    report = json.loads(out)
    assert report["complete"] is False and len(report["trace"]) == 3
    code, out, _ = run(capsys, "run", str(EXAMPLE), "--json")
    assert "complete" not in json.loads(out)


@pytest.mark.parametrize("where", ["directory", "missing/folder/run.itf.json"])
def test_an_itf_file_that_cannot_be_written_is_a_usage_error(capsys, tmp_path, where):
    # Issue 19: --itf to a directory or into a missing folder was an internal error.
    target = tmp_path if where == "directory" else tmp_path / where
    code, _, err = run(capsys, "run", str(EXAMPLE), "--itf", str(target))
    assert code == 2 and "--itf" in err and "internal error" not in err


@pytest.mark.parametrize(
    "content, message",
    [
        ('[{"event": "run_started", "x": NaN}]', "NaN is not JSON"),
        ("[" * 50_000 + "]" * 50_000, "nest deeper than 256"),
        ('[{"event": "x", "n": ' + "9" * 5000 + "}]", "digits"),
    ],
)
def test_a_trace_that_is_not_strict_json_is_a_usage_error(capsys, tmp_path, content, message):
    # Issue 19: check accepted a trace holding NaN (not JSON) and a deeply nested
    # trace was an internal error; the trace goes through the strict JSON reader.
    trace = tmp_path / "trace.json"
    trace.write_text(content)
    code, _, err = run(capsys, "check", str(EXAMPLE), "--trace", str(trace))
    assert code == 2 and message in err and "internal error" not in err


# -- shell completion (issue 17 §6) ----------------------------------------------------------


def _complete(script: str, words: list[str]) -> list[str]:
    """What bash completes for ``words`` (the last one being typed) with ``script`` loaded."""
    import shlex

    line = " ".join(words)
    program = (
        f"source /dev/stdin <<'EOF'\n{script}\nEOF\n"
        f"COMP_WORDS=({' '.join(shlex.quote(w) for w in words)}); "
        f"COMP_CWORD={len(words) - 1}; COMP_LINE={shlex.quote(line)}; "
        "COMP_POINT=${#COMP_LINE}; _shtab_wforacle; printf '%s\\n' \"${COMPREPLY[@]}\""
    )
    done = subprocess.run(["bash", "-c", program], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_bash_completes_commands_options_and_choices(capsys):
    assert main(["completion", "bash"]) == 0
    script = capsys.readouterr().out
    assert _complete(script, ["wforacle", "rev"]) == ["review"]
    assert _complete(script, ["wforacle", "fuzz", "--regr"]) == ["--regressions"]
    assert _complete(script, ["wforacle", "fuzz", "--spec", ""]) == ["w6w", "harness", "workfile"]


@pytest.mark.parametrize("shell", ["zsh", "tcsh"])
def test_zsh_and_tcsh_scripts_name_every_command(shell, capsys):
    assert main(["completion", shell]) == 0
    script = capsys.readouterr().out
    for command in ("validate", "fuzz", "conform", "review", "readings"):
        assert command in script


def test_a_findings_printed_minimal_case_carries_its_replay(capsys):
    # A stranger could not reproduce a replay finding from the printed case: the replay
    # (its from) was printed only in the unshrunk block.  Seed 2 finds it in 36 examples.
    engine = f"{sys.executable} {Path(__file__).parent.parent / 'examples/engines/w6w_engine.py'}"
    code, out, _ = run(
        capsys,
        "fuzz",
        "--engine",
        f"{engine} --bug replay-reinvokes",
        "--examples",
        "1100",
        "--seed",
        "2",
    )
    assert code == 1
    minimal = out[out.index("minimal document:") :]
    assert re.search(r'^replay: \{"from": ', minimal, re.M), minimal


def test_a_time_budget_alone_sets_no_example_cap(capsys, monkeypatch):
    # A stranger's --time-budget 120 stopped at the default 500 examples after 2.7 s.
    from wforacle.oracle import commands

    monkeypatch.setattr(commands, "DEFAULT_EXAMPLES", 5)
    code, out, _ = run(capsys, "fuzz", "--spec", "w6w", "--time-budget", "2", "--json")
    assert code == 0 and json.loads(out)["examples"] > 5
    code, out, _ = run(capsys, "fuzz", "--spec", "w6w", "--json")
    assert code == 0 and json.loads(out)["examples"] == 5


def test_the_command_line_leaves_no_hypothesis_directory_where_it_runs(tmp_path):
    # Session 26: fixtures and fuzz left .hypothesis/ (Hypothesis's Unicode cache) in the
    # user's working directory.  It goes to $XDG_CACHE_HOME/wforacle/hypothesis instead,
    # unless HYPOTHESIS_STORAGE_DIRECTORY names a place.
    work, cache, chosen = tmp_path / "work", tmp_path / "cache", tmp_path / "chosen"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"}
    command = [sys.executable, "-m", "wforacle.oracle", "fixtures", "--out", "suite"]
    command += ["--count", "2"]
    done = subprocess.run(
        command, cwd=work, env={**env, "XDG_CACHE_HOME": str(cache)}, capture_output=True
    )
    assert done.returncode == 0, done.stderr
    assert not (work / ".hypothesis").exists()
    assert (cache / "wforacle" / "hypothesis").is_dir()
    again = subprocess.run(
        [*command[:-3], "again", "--count", "2"],
        cwd=work,
        env={**env, "HYPOTHESIS_STORAGE_DIRECTORY": str(chosen)},
        capture_output=True,
    )
    assert again.returncode == 0, again.stderr
    assert chosen.is_dir() and not (work / ".hypothesis").exists()


def test_a_profile_names_its_specification(capsys, tmp_path):
    # Profile names are unique across specifications: without --spec, fixtures and fuzz
    # take the one whose profile --profile names (before: w6w, which has no such profile:
    # fixtures wrote w6w's core cases, fuzz refused).
    out = tmp_path / "suite"
    assert (
        main(["fixtures", "--profile", "workfile-stateful", "--out", str(out), "--count", "1"]) == 0
    )
    suite = json.loads((out / "suite.json").read_text())
    assert (suite["spec"], suite["profile"]) == ("workfile", "workfile-stateful")
    capsys.readouterr()
    saves = str(tmp_path / "saves")
    assert main(["fuzz", "--profile", "harness", "--examples", "3", "--json", "--save", saves]) == 0
    assert json.loads(capsys.readouterr().out)["spec"] == "harness"
    # Without --profile, w6w and its first profile, as before.
    assert main(["fixtures", "--out", str(tmp_path / "plain"), "--count", "1"]) == 0
    plain = json.loads((tmp_path / "plain" / "suite.json").read_text())
    assert (plain["spec"], plain["profile"]) == ("w6w", "core")


def test_a_command_that_cannot_run_an_invalid_document_says_where_and_why(capsys, tmp_path):
    # Bad input gets code, path, message and clause (a stranger's shrink said only
    # "invalid Workfile: ['document.ambiguous_subscription']").
    doc = tmp_path / "doc.json"
    step = {"id": "a", "uses": {"app": "demo", "action": "run"}}
    doc.write_text(
        json.dumps({"manifestVersion": "2", "id": "w", "name": "n", "steps": [step, step]})
    )
    engine = f"{sys.executable} -c pass"
    assert main(["shrink", str(doc), "--spec", "w6w", "--engine", engine]) == 2
    err = capsys.readouterr().err
    assert re.search(r"duplicate_step_id at \S*steps\S*: .+ \[W6W-[A-Z]+-\d+\]", err), err


def test_what_a_profile_never_reached_points_to_the_other_profiles(capsys, tmp_path):
    # A --profile workfile campaign lists the Stateful Profile's clauses as never reached:
    # the report says which other profiles draw other shapes.  Harness has one profile.
    saves = str(tmp_path / "saves")
    assert main(["fuzz", "--profile", "workfile", "--examples", "3", "--save", saves]) == 0
    out = capsys.readouterr().out
    assert "never reached" in out and "--profile workfile-stateful" in out
    assert main(["fuzz", "--spec", "harness", "--examples", "3", "--save", saves]) == 0
    assert "other profiles" not in capsys.readouterr().out
