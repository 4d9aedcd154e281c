"""The engine protocol, campaigns, shrinking, fixtures and conformance (issue 5)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from tests.test_power import BUDGETS
from wforacle.model.kernel.explore import canonical
from wforacle.oracle.engine import Engine, Judgement, judge
from wforacle.oracle.fixtures import conform, write_suite
from wforacle.oracle.fuzz import campaign, reduce_case, signature
from wforacle.oracle.power import BUGS
from wforacle.oracle.readings import Selection
from wforacle.oracle.selftest import selftest
from wforacle.properties.w6w.specification import W6W

ENGINE = Path(__file__).resolve().parents[2] / "examples" / "engines" / "w6w_engine.py"


def toyflow(*bugs: str) -> str:
    return f"{sys.executable} {ENGINE}" + "".join(f" --bug {b}" for b in bugs)


ONE_STEP = {
    "document": {
        "manifestVersion": "2",
        "id": "wf",
        "name": "one",
        "steps": [{"id": "a", "uses": {"app": "demo", "action": "run"}}],
    },
    "scenario": {"steps": {"a": {"attempts": [{"output": 1}]}}},
    "schedule": [],
}


def judged_once(command: str, spec, case):
    """``case`` judged once by a fresh engine started from ``command``, then stopped."""
    engine = Engine(command, timeout=5)
    try:
        return judge(engine, spec, case)
    finally:
        engine.stop()


def fake(tmp_path, body: str) -> str:
    """An engine that says ready, then runs ``body`` on the first run message."""
    script = tmp_path / "engine.py"
    script.write_text(
        "import json, sys, time\n"
        'print(json.dumps({"type": "ready", "protocol": 1}), flush=True)\n'
        "sys.stdin.readline()\n" + body
    )
    return f"{sys.executable} {script}"


# -- engine faults are classified, never hang the oracle ------------------------------------


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ("sys.exit(3)\n", "crash"),
        ("time.sleep(30)\n", "hang"),
        ("print('x' * 5000, flush=True)\ntime.sleep(30)\n", "flood"),
        ("print('{not json', flush=True)\n", "protocol"),
        ('print(json.dumps({"type": "teleport"}), flush=True)\n', "protocol"),
        ('print(json.dumps({"type": "wait"}), flush=True)\n', "protocol"),
        # A number no float holds has no JSON rendering in a report (issue 19).
        ('print(\'{"type": "event", "event": {"x": 1e400}}\', flush=True)\n', "protocol"),
        (
            'print(json.dumps({"type": "event", "event": {"x": chr(0xDC00)}}), flush=True)\n',
            "protocol",
        ),
        # Nested past MAX_DEPTH: refused where it is read, not in the checker.
        (
            "print('{\"type\": \"event\", \"event\": {\"x\": ' + '[' * 300 + ']' * 300 + '}}',"
            " flush=True)\n",
            "protocol",
        ),
    ],
)
def test_a_misbehaving_engine_gets_a_classified_fault_and_is_restarted(tmp_path, body, kind):
    engine = Engine(fake(tmp_path, body), timeout=0.5, max_line=1000)
    try:
        judgement = judge(engine, W6W, ONE_STEP)
        assert judgement.verdict == "fault" and judgement.fault is not None
        assert judgement.fault.kind == kind, judgement.fault
        assert engine.restarts == 1 and engine.process is not None  # ready for the next run
    finally:
        engine.stop()


def test_an_engine_that_never_says_ready_is_a_protocol_fault(tmp_path):
    script = tmp_path / "mute.py"
    script.write_text('print(\'{"type": "hello"}\', flush=True)\n')
    report = selftest(W6W, f"{sys.executable} {script}", timeout=2)
    assert not report[0].ok and "protocol: expected a ready message" in report[0].detail


def test_shutdown_is_checked_on_a_live_engine_after_one_that_crashed(tmp_path):
    # A stranger's report: every check crashed the engine, and "exits on shutdown"
    # then failed on the dead process, not on the engine's handling of shutdown.
    script = tmp_path / "crashy.py"
    script.write_text(
        "import json, sys\n"
        'print(json.dumps({"type": "ready", "protocol": 1}), flush=True)\n'
        "for line in sys.stdin:\n"
        '    sys.exit(0 if json.loads(line).get("type") == "shutdown" else 1)\n'
    )
    report = selftest(W6W, f"{sys.executable} {script}", timeout=2)
    assert report[-1].name == "exits on shutdown"
    assert report[-1].ok and report[-1].detail == "exit code 0"
    assert not any(check.ok for check in report[1:-1])


def test_a_campaign_against_an_engine_that_never_starts_ends_after_one_timeout(tmp_path):
    # Issue 19: an engine silent from the start made every example wait out the
    # timeout twice (start, restart); it is not started again once it could not.
    script = tmp_path / "silent.py"
    script.write_text("import time\ntime.sleep(60)\n")
    engine = Engine(f"{sys.executable} {script}", timeout=0.5)
    started = time.monotonic()
    try:
        result = campaign(W6W, engine, examples=6, seed_value=0)
    finally:
        engine.stop()
    assert result.faults >= 1 and result.finding is None
    assert time.monotonic() - started < 5  # one wait for ready, not twelve
    _, judgement = result.fault_cases[0]
    assert judgement.fault is not None and judgement.fault.kind == "hang"


def test_the_example_engine_passes_the_protocol_selftest():
    assert all(check.ok for check in selftest(W6W, toyflow()))


# -- campaigns ---------------------------------------------------------------------------


def test_a_step_whose_resolution_fails_is_started_but_never_invoked():
    # W6W-ROOT-11: a missing secret fails the step before its action is invoked, so
    # its step_started claims no invocation (the check once expected one: a false
    # alarm on every engine).  Retried under A-41's other reading, still never invoked.
    step = {"id": "a", "uses": {"app": "demo", "action": "run"}}
    step["with"] = {"k": "Bearer {{ secrets.NOPE }}", "v": {"$": "vars.name"}}
    case = {
        "document": {
            "manifestVersion": "2",
            "id": "wf",
            "name": "resolution",
            "steps": [dict(step, retry={"maxAttempts": 2}, onError="continue")],
        },
        "scenario": {"variables": {"name": "Ada"}, "secrets": {"API_KEY": "tok-1"}},
        "schedule": [],
    }
    for command, pin in (
        (toyflow(), "A-41=never"),
        (toyflow() + " --reading A-41=retried", "A-41=retried"),
    ):
        engine = Engine(command)
        try:
            judgement = judge(engine, W6W, case, None, Selection.of(W6W, [pin]))
        finally:
            engine.stop()
        assert judgement.verdict == "pass", judgement


def test_the_correct_example_engine_passes_a_campaign():
    engine = Engine(toyflow())
    try:
        result = campaign(W6W, engine, examples=150, seed_value=3)
    finally:
        engine.stop()
    assert result.finding is None and result.faults == 0 and result.examples == 150


# The expression layer's seeded bugs (issue 18, part 2), each with the clause it breaks.
EXPRESSION_FIRST = {
    "template-partial-root": ("W6W-ROOT-2",),  # a mixed string passes through whole
    "secret-generic-root": ("W6W-ENV-18",),  # no secrets on the generic data root
    "template-untyped": ("W6W-ROOT-9",),  # "The result is always a single string"
    "render-two-pass": ("W6W-ENV-12",),  # "One pass"
    "chain-first-only": ("W6W-CHAIN-1", "W6W-CHAIN-2"),  # || or ?? falls back left to right
    # foreach is one of the eight roots: {{ foreach.item }} outside a foreach is
    # root-anchored too (it resolves to ""), so the bug needs no control.  The reduction
    # by the broken rule (oracle/fuzz.py _by_rule_pass) takes the foreach away.
    "foreach-root-unknown": ("W6W-ROOT-25",),
}
# The canonical controls over the protocol (issue 18): the clause each bug breaks, and
# what its shrunk control keeps (the action is the shape's, the blocks what it needs).
CONTROL_FIRST = {
    "control-retried": "W6W-EDGE-8",  # "@w6w/control steps" "run no retry loop at all"
    "foreach-shared-callback": "W6W-META-19",  # "foreach iterations never share a callback"
    "block-meta-unpublished": "W6W-META-20",  # "publishes meta into its inner scope"
    "block-failure-ignored": "W6W-EDGE-10",  # "handled by its enclosing control's own …"
    # "On a plain fail … stops launching new steps": a branch's step fails and the
    # branch (or another) has a step left to launch.
    "parallel-no-drain": "W6W-FAN-9",
    # A control in a foreach body runs its block against the run's top-level scope: the
    # marker {{ foreach.item }} there reads no foreach.  Cited first is the rule that puts
    # foreach in the body's scope (W6W-ROOT-6: the control "adds foreach.item and
    # foreach.index to the sub-block's run scope"), then the root rule that makes the
    # marker "" without it (W6W-ROOT-25); the shrunk case is a foreach holding one if.
    "nested-block-root-scope": "W6W-ROOT-6",
}
# The block steps each control bug needs: a reader and the step it reads; a failing
# step and the one after it on its branch; one otherwise.
CONTROL_STEPS = {"block-meta-unpublished": 2, "parallel-no-drain": 2}
FAST_BUGS = ["no-skip", "meta-from-output", "error-edge-ignored"]
SLOW_BUGS = [
    bug
    for bug in BUGS["w6w"]
    if bug not in FAST_BUGS and bug not in EXPRESSION_FIRST and bug not in CONTROL_FIRST
]


def found(bug: str, examples: int, seeds: tuple[int, ...] = (0, 1, 2)) -> None:
    # Being found is a statement over seeds (tests/test_power.py); these tests are
    # about the finding, so they take the first of three seeds that finds.
    engine = Engine(toyflow(bug))
    try:
        for seed_value in seeds:
            result = campaign(
                W6W, engine, examples=examples, seed_value=seed_value, reduce_budget=600
            )
            if result.finding is not None:
                break
    finally:
        engine.stop()
    assert result.finding is not None, f"{bug} not found in {examples} examples"
    assert not result.shrink_stopped  # 600 s: shrinking ran to its end
    assert result.finding.judgement.verdict == "divergence"
    # Every divergence is explained by at least one clause.
    assert result.finding.judgement.divergence is not None
    assert result.finding.judgement.divergence.clauses
    return result.finding


# The clause each bug breaks, cited first (issue 18; oracle/explain.py: the rule the
# engine broke, the governing clauses that name the field that differs).
FIRST = {
    "no-skip": "W6W-EDGE-4",  # "marks its outgoing … edges skipped"
    "error-edge-ignored": "W6W-EDGE-6",  # "The run takes the error edge and continues"
    "meta-from-output": "W6W-META-8",  # "MUST NOT read it from the value invoke returns"
}


@pytest.mark.parametrize("bug", FAST_BUGS)
def test_a_campaign_finds_and_shrinks_a_seeded_bug(bug):
    # Seed 1 first: at seed 0 the no-skip and error-edge-ignored shrinks take 72 and 67 s
    # under Hypothesis 6.155.2 (CI's release; 3 and 4 s under 6.170), at seed 1 4 and 20 s
    # (4 and 13 s).  What is shrunk, and how small, is asserted the same either way.
    finding = found(bug, BUDGETS["w6w", bug], seeds=(1, 2, 0))
    assert finding.size["steps"] <= 3
    if bug in FIRST:
        assert finding.judgement.divergence.clauses[0] == FIRST[bug]
    minimal(bug, finding.case)


def minimal(bug: str, case: dict) -> None:
    """Nothing the bug does not need (issue 18): a crash, a replay, other scenario features."""
    scenario = case["scenario"]
    # Only resume-from-start concerns crashes, only replay-reinvokes replays.
    assert ("crashAfterCheckpoints" in scenario) == (bug == "resume-from-start"), scenario
    assert ("replay" in case) == (bug == "replay-reinvokes"), case
    # Only abort-ignored concerns the abort signal.
    assert ("cancelAfterCheckpoint" in scenario) == (bug == "abort-ignored"), scenario
    assert not {"resumes", "calls"} & set(scenario), scenario
    # No control where a plain app step shows the bug (a stranger's report: shrunk cases
    # kept an if or a foreach): only the control bugs keep one.
    controls = [
        s for s in case["document"]["steps"] if (s.get("uses") or {}).get("app") == "@w6w/control"
    ]
    # The completion-order bugs too: a control's block step finishes in an order a plain
    # step needs another schedule for, and the reduction tries the plain step under a few
    # (properties/w6w/specification.py _RESCHEDULES).  last-output-by-time also acts
    # inside a parallel control (its output is its last block step's by plan order), so
    # a parallel control is the bug's own ground there, not an extra.
    if bug == "last-output-by-time" and controls:
        assert [c["uses"]["action"] for c in controls] == ["parallel"], controls
    else:
        assert bool(controls) == (bug in CONTROL_FIRST or bug == "wait-no-drain"), controls


@pytest.mark.parametrize("bug", sorted(EXPRESSION_FIRST))
def test_a_campaign_finds_each_expression_bug_and_cites_the_clause_it_breaks(bug):
    finding = found(bug, BUDGETS["w6w", bug])
    # The step start cites the resolution features its with block used, the broken one first.
    assert finding.judgement.divergence.clauses[0] in EXPRESSION_FIRST[bug], (
        finding.judgement.divergence.clauses
    )
    minimal(bug, finding.case)
    # Shrunk to the with value that resolves wrongly (the shrinker drops the others).
    withs = [s["with"] for s in finding.case["document"]["steps"] if "with" in s]
    assert len(withs) == 1 and len(withs[0]) == 1, withs


# The default run stays well under ten minutes on CI's 2-core machine (README): the
# campaigns that take over ten seconds there alone run with the long ones (-m slow).
# Each bug's hand-written minimal case still runs by default (tests/test_explain.py
# W6W_CASES), and control-retried's search (tests/test_power.py).
SLOW_CONTROLS = {
    "control-retried",
    "foreach-shared-callback",
    "parallel-no-drain",
    "nested-block-root-scope",
}


@pytest.mark.parametrize(
    "bug",
    [pytest.param(b, marks=pytest.mark.slow) if b in SLOW_CONTROLS else b for b in CONTROL_FIRST],
)
def test_a_campaign_finds_each_control_bug_in_a_minimal_control(bug):
    finding = found(bug, BUDGETS["w6w", bug])
    assert finding.judgement.divergence.clauses[0] == CONTROL_FIRST[bug], (
        finding.judgement.divergence.clauses
    )
    minimal(bug, finding.case)
    # One control, nothing around it, and in its blocks only what the bug needs
    # (CONTROL_STEPS); a foreach iterates twice only where iterations must differ.
    (control,) = finding.case["document"]["steps"]
    assert control["uses"]["app"] == "@w6w/control"
    blocks = [v for k, v in control["with"].items() if k in ("then", "else", "body")]
    blocks += control["with"].get("branches", [])
    inner = [step for block in blocks for step in block]
    assert len(inner) == CONTROL_STEPS.get(bug, 1), control
    if "items" in control["with"]:
        assert len(control["with"]["items"]) == (2 if bug == "foreach-shared-callback" else 1)
    assert ("retry" in control) == (bug == "control-retried"), control
    if bug == "nested-block-root-scope":  # the bug needs a control in the foreach's body,
        (nested,) = inner  # holding the one step that reads foreach
        assert nested["uses"]["app"] == "@w6w/control", control
        assert finding.judgement.divergence.clauses[1] == "W6W-ROOT-25"
        nested_blocks = [v for k, v in nested["with"].items() if k in ("then", "else", "body")]
        nested_blocks += nested["with"].get("branches", [])
        assert sum(len(block) for block in nested_blocks) == 1, nested


@pytest.mark.slow
@pytest.mark.parametrize("bug", SLOW_BUGS)
def test_a_campaign_finds_every_seeded_bug(bug):
    minimal(bug, found(bug, BUDGETS["w6w", bug]).case)


def test_the_same_seed_gives_the_same_campaign():
    cases = []
    for _ in range(2):
        engine = Engine(toyflow("no-skip"))
        try:
            # Seed 1 finds at example 9 and shrinks in 3 s (seed 11 took 16 s).
            found = campaign(W6W, engine, examples=200, seed_value=1, reduce_budget=600)
            cases.append(canonical(found.finding.case))
        finally:
            engine.stop()
    assert cases[0] == cases[1]


def test_reduce_case_shrinks_a_bug_report_to_what_the_bug_needs():
    # A five-step report of the no-skip bug: only the failing source and its skipped
    # successor matter.
    steps = [{"id": s, "uses": {"app": "demo", "action": "run"}} for s in "abcde"]
    case = {
        "document": {
            "manifestVersion": "2",
            "id": "wf",
            "name": "report",
            "steps": steps,
            "edges": [
                {"from": "a", "to": "b"},
                {"from": "b", "to": "c", "when": "error"},
                {"from": "c", "to": "d"},
                {"from": "a", "to": "e"},
            ],
        },
        "scenario": {"steps": {"a": {"attempts": [{"output": 1}]}}},
        "schedule": [0, 1],
    }
    engine = Engine(toyflow("no-skip"))
    try:
        first = judge(engine, W6W, case)
        wanted = signature(first)
        assert wanted[0] == "divergence"

        def still_fails(candidate):
            j = judge(engine, W6W, candidate)
            return signature(j) == wanted

        reduced = reduce_case(W6W, case, still_fails)
    finally:
        engine.stop()
    assert len(reduced["document"]["steps"]) == 2
    assert len(reduced["document"]["edges"]) == 1
    assert reduced["document"]["edges"][0]["when"] == "error"


# Session 19's slow run: shrunk cases that kept what the bug did not need, because the
# smaller case needed two edits at once.  A with-less foreach fails the run (its items
# are not an array): a plain step scripted to fail shows the same bug.  A replay made a
# step end last: without it, a schedule does.
_WITHLESS_FOREACH = {
    "document": {
        "manifestVersion": "2",
        "id": "wf",
        "name": "report",
        "steps": [{"id": "c", "uses": {"app": "@w6w/control", "action": "foreach"}}],
        "retry": {"maxAttempts": 2, "delayMs": 10},
    },
    "scenario": {},
    "schedule": [],
}
_REPLAYED_RACE = {
    "document": {
        "manifestVersion": "2",
        "id": "wf",
        "name": "report",
        "steps": [
            {"id": "r", "uses": {"app": "demo", "action": "run"}, "fanOut": "parallel"},
            {"id": "a", "uses": {"app": "demo", "action": "run"}},
            {"id": "b", "uses": {"app": "demo", "action": "run"}},
        ],
        "edges": [{"from": "r", "to": "a"}, {"from": "r", "to": "b"}],
    },
    "scenario": {"steps": {"b": {"attempts": [{"output": "b-output"}]}}},
    "schedule": [],
    "replay": {"from": "a"},
}


@pytest.mark.parametrize(
    "bug, case",
    [("run-retry-no-wait", _WITHLESS_FOREACH), ("last-output-by-time", _REPLAYED_RACE)],
)
def test_reduce_case_makes_two_edits_at_once_where_one_loses_the_bug(bug, case):
    engine = Engine(toyflow(bug))
    try:
        wanted = signature(judge(engine, W6W, case))
        assert wanted[0] == "divergence"
        reduced = reduce_case(
            W6W, case, lambda candidate: signature(judge(engine, W6W, candidate)) == wanted
        )
    finally:
        engine.stop()
    minimal(bug, reduced)
    assert [s["uses"]["app"] for s in reduced["document"]["steps"]].count("demo") == len(
        reduced["document"]["steps"]
    )


# -- fixtures and conformance ---------------------------------------------------------------


def test_a_suite_is_byte_identical_for_the_same_seed(tmp_path):
    write_suite(W6W, tmp_path / "one", 6, seed_value=5)
    write_suite(W6W, tmp_path / "two", 6, seed_value=5)
    files = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*.json"))
    other = sorted(p.relative_to(tmp_path / "two") for p in (tmp_path / "two").rglob("*.json"))
    assert files == other and len(files) >= 6 * 5 + 1
    for name in files:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    manifest = json.loads(next((tmp_path / "one").glob("0001-*/manifest.json")).read_text())
    assert manifest["format"] == "wforacle-fixture/1" and manifest["clauses"]


def test_conform_passes_the_correct_engine_and_reports_a_buggy_one(tmp_path):
    write_suite(W6W, tmp_path / "suite", 25, seed_value=2)
    engine = Engine(toyflow())
    try:
        results = conform(engine, tmp_path / "suite")
    finally:
        engine.stop()
    assert [r.verdict for r in results] == ["pass"] * 25
    engine = Engine(toyflow("record-drops", "no-skip"))
    try:
        results = conform(engine, tmp_path / "suite")
    finally:
        engine.stop()
    failed = [r for r in results if r.verdict != "pass"]
    assert failed and all(r.verdict == "divergence" for r in failed)


def test_a_campaign_counts_faults_restarts_the_engine_and_goes_on(tmp_path):
    # An engine that crashes on every run whose document has more than two steps.
    script = tmp_path / "fragile.py"
    script.write_text(
        f"import runpy, sys, json\n"
        f"sys.argv = ['toyflow']\n"
        f"real_loads = json.loads\n"
        f"def loads(text, *a, **k):\n"
        f"    value = real_loads(text, *a, **k)\n"
        f"    document = value.get('document', {{}}) if isinstance(value, dict) else {{}}\n"
        f"    steps = document.get('steps', [])\n"
        f"    if len(steps) > 2:\n"
        f"        sys.exit(9)\n"
        f"    return value\n"
        f"json.loads = loads\n"
        f"runpy.run_path({str(ENGINE)!r}, run_name='__main__')\n"
    )
    engine = Engine(f"{sys.executable} {script}")
    try:
        result = campaign(W6W, engine, examples=60, seed_value=1)
    finally:
        engine.stop()
    assert result.finding is None  # the correct engine under the crashes never diverges
    assert result.faults > 0 and engine.restarts >= result.faults
    assert result.examples == 60
    assert all(j.fault is not None and j.fault.kind == "crash" for _, j in result.fault_cases)
    # No divergence, so the first fault is what the engine author reads: reduced to what
    # the crash needs, three steps and nothing else (it was the whole drawn case).
    case, judgement = result.fault_cases[0]
    assert judgement.fault is not None and judgement.fault.kind == "crash"
    assert len(case["document"]["steps"]) == 3, case["document"]
    assert all(set(step) == {"id", "uses"} for step in case["document"]["steps"]), case
    assert not case["document"].get("edges") and not case["scenario"].get("steps"), case


@pytest.mark.slow
def test_the_correct_example_engine_passes_a_long_campaign():
    engine = Engine(toyflow())
    try:
        result = campaign(W6W, engine, examples=5000, seed_value=17)
    finally:
        engine.stop()
    assert result.finding is None and result.faults == 0


def judged(case: dict, *bugs: str):
    """``case`` judged on toyflow with ``bugs`` switched on, as a campaign judges it."""
    from wforacle.oracle.fuzz import judge_case

    engine = Engine(toyflow(*bugs))
    try:
        return judge_case(W6W, engine, case)
    finally:
        engine.stop()


def test_a_crash_is_injected_after_a_checkpoint_and_the_engine_resumes():
    # W6W-CONCEPT-3: the host reads the RunState back and resumes from the first
    # non-terminal step; the oracle crashes the engine after checkpoint 3 (a step start).
    case = {
        "document": {
            "manifestVersion": "2",
            "id": "wf",
            "name": "two",
            "steps": [
                {"id": "a", "uses": {"app": "demo", "action": "run"}},
                {"id": "b", "uses": {"app": "demo", "action": "run"}},
            ],
        },
        "scenario": {"crashAfterCheckpoints": [4], "steps": {"a": {"attempts": [{"output": 1}]}}},
        "schedule": [],
    }
    for bugs, verdict in (((), "pass"), (("resume-from-start",), "divergence")):
        judgement = judged(case, *bugs)
        assert judgement.verdict == verdict, judgement.to_json()
        if verdict == "pass":
            crashed = [e for e in judgement.observation.trace if e["event"] == "crashed"]
            assert crashed == [{"event": "crashed", "afterCheckpoint": 4, "resumeAt": "b"}]


def test_a_resumed_run_that_sends_no_checkpoint_messages_is_a_protocol_fault():
    # docs/engine-protocol.md: a resumed run's checkpoints are still required (resume's
    # "checkpoints" is the K it resumed from).  A stranger's engine stopped sending them;
    # its second scripted crash never came, explained as a wrong event.
    steps = [{"id": s, "uses": {"app": "demo", "action": "run"}} for s in "abc"]
    case = {
        "document": {"manifestVersion": "2", "id": "wf", "name": "three", "steps": steps},
        "scenario": {"crashAfterCheckpoints": [2, 4]},
        "schedule": [],
    }
    for bugs, verdict in (((), "pass"), (("resume-no-checkpoints",), "fault")):
        judgement = judged(case, *bugs)
        assert judgement.verdict == verdict, judgement.to_json()
    assert judgement.fault.kind == "protocol" and "no checkpoint message" in judgement.fault.message


def test_a_campaign_stops_after_an_engine_hangs_three_times(tmp_path):
    # A stranger's engine blocked on a message it did not know (abort); every such
    # case waited out the timeout, and a 1,500-example campaign ran for many minutes
    # printing nothing.  After HANG_LIMIT hangs the search stops and says so.
    from wforacle.oracle.fuzz import HANG_LIMIT

    script = tmp_path / "stuck.py"
    script.write_text(
        "import json, sys, time\n"
        'print(json.dumps({"type": "ready", "protocol": 1}), flush=True)\n'
        "for line in sys.stdin:\n"
        '    if json.loads(line).get("type") == "run":\n'
        "        time.sleep(60)\n"
    )
    engine = Engine(f"{sys.executable} {script}", timeout=0.3)
    try:
        result = campaign(W6W, engine, examples=50, seed_value=0)
    finally:
        engine.stop()
    assert result.hangs_stopped and result.finding is None
    assert result.faults == HANG_LIMIT == 3 and result.fault_cases[0][1].fault.kind == "hang"


def test_a_checkpoint_message_after_run_finished_is_a_protocol_fault(tmp_path):
    # docs/engine-protocol.md: every checkpointed event "but run_finished" is followed by
    # its checkpoint message.  A stranger's engine wrote one for run_finished too; with a
    # crash scripted at that number the oracle crashed a finished run and reported a
    # divergence at its own crashed event, citing no clause.
    script = tmp_path / "eager.py"
    script.write_text(
        "import json, sys\n"
        "def send(m): print(json.dumps(m), flush=True)\n"
        'send({"type": "ready", "protocol": 1})\n'
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        '    if m.get("type") != "run":\n'
        "        continue\n"
        '    run = {"event": "run_finished", "at": 0, "status": "succeeded", "output": None}\n'
        '    send({"type": "event", "event": {**run, "checkpoint": 1}})\n'
        '    send({"type": "checkpoint", "call": 1, "number": 1, "state": {}})\n'
    )
    case = {
        "document": {"manifestVersion": "2", "id": "wf", "name": "one",
                     "steps": [{"id": "a", "uses": {"app": "demo", "action": "run"}}]},
        "scenario": {"crashAfterCheckpoints": [1]},
        "schedule": [],
    }  # fmt: skip
    judgement = judged_once(f"{sys.executable} {script}", W6W, case)
    assert judgement.verdict == "fault", judgement.to_json()
    assert judgement.fault.kind == "protocol" and "after run_finished" in judgement.fault.message


def test_a_divergence_shows_what_the_engine_wrote_to_stderr_during_the_run(tmp_path):
    # Session 26: an engine whose exception cut its trace short (it still sent done) was
    # told "the trace ends before the run does", citing rules that had nothing to do
    # with it, and no report showed its traceback.
    body = (
        "print('engine starting', file=sys.stderr, flush=True)\n"
        "print('Traceback (most recent call last):', file=sys.stderr)\n"
        "print('ValueError: too many values to unpack', file=sys.stderr, flush=True)\n"
        'print(json.dumps({"type": "done", "state": {}}), flush=True)\n'
        "time.sleep(0.2)\n"
    )
    judgement = judged_once(fake(tmp_path, body), W6W, ONE_STEP)
    assert judgement.verdict == "divergence", judgement.to_json()
    assert judgement.stderr.splitlines()[-1] == "ValueError: too many values to unpack"
    again = Judgement.from_json(json.loads(json.dumps(judgement.to_json())))
    assert again.stderr == judgement.stderr
    # A run that passes carries none.
    assert judged_once(toyflow(), W6W, ONE_STEP).stderr == ""
