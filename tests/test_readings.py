"""Readings are not bugs (issue 18, docs/readings.md).

Each assumption the model takes as a parameter is checked three ways: the
model's two readings differ where the assumption says they do; an engine
that takes the other reading passes under ``--readings any`` and gets the
verdict ``reading`` under ``--readings default``; and a pinned reading
holds the engine to it.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from wforacle.model.kernel.lts import execute
from wforacle.oracle.differential import node_modules
from wforacle.oracle.engine import Engine, judge
from wforacle.oracle.fuzz import campaign, explained
from wforacle.oracle.readings import (
    ANY,
    DEFAULT,
    MOST_COMBINATIONS,
    Selection,
    UnknownReading,
    catalogue,
)
from wforacle.properties.clauses import clause_text
from wforacle.properties.harness.specification import HARNESS
from wforacle.properties.registry import SPECIFICATIONS
from wforacle.properties.w6w.specification import W6W
from wforacle.properties.workfile.specification import WORKFILE

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ROOT / "examples" / "engines"
# node and json-logic-js (npm ci --prefix tests/differential, as .ci/run does).
JSON_LOGIC_JS = (
    shutil.which("node") is not None
    and ((node_modules() or ROOT / "absent") / "json-logic-js").is_dir()
)


def wforacle(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wforacle.oracle", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


# -- the registry ------------------------------------------------------------------------


def test_every_reading_is_a_recorded_assumption_on_catalogued_clauses():
    recorded = set(re.findall(r"^## (A-\d+) ", (ROOT / "docs/assumptions.md").read_text(), re.M))
    for spec in SPECIFICATIONS.values():
        for reading in spec.readings:
            assert reading.assumption in recorded, reading
            assert reading.clauses and all(clause_text(c) for c in reading.clauses), reading
            assert len(set(reading.values)) >= 2, reading
            # The model's default is what the options build when nothing is chosen.
            assert spec.options({}) == spec.options({reading.dest: reading.default})
            for value in reading.values:
                assert reading.value(reading.name(value)) == value
    assert {r["assumption"] for r in catalogue(W6W)} >= {"A-41", "A-50", "A-74"}


def test_alternatives_depart_fewest_first_and_never_from_a_pin():
    free = Selection.of(W6W)
    tried = list(free.alternatives())
    sizes = [len(free.departures(chosen)) for chosen in tried]
    assert sizes == sorted(sizes) and sizes[0] == 1
    # Every other combination, once, of the readings that can permit more than the
    # model's: A-74's "eager" admits only "separate" traces, so it never rescues a run.
    widening = [r for r in W6W.readings if not r.narrows]
    assert [r.assumption for r in W6W.readings if r.narrows] == ["A-74"]
    # At most MOST_COMBINATIONS judgements in all (the primary's among them), or every
    # single departure and every pair when they are more: no reading or pair of them is
    # ever left out.
    singles_and_pairs = len(widening) + len(widening) * (len(widening) - 1) // 2
    cap = max(MOST_COMBINATIONS - 1, singles_and_pairs)
    assert len(tried) == min(2 ** len(widening) - 1, cap)
    assert sizes[singles_and_pairs - 1] == 2 and sizes.count(1) == len(widening)
    assert all(chosen["launch"] == "separate" for chosen in tried)
    pinned = Selection.of(W6W, ["A-41=retried"])
    assert pinned.primary()["resolution_retry"] is True
    assert all(chosen["resolution_retry"] is True for chosen in pinned.alternatives())
    n = len(widening) - 1  # A-41 is pinned
    assert len(list(pinned.alternatives())) == min(
        2**n - 1, max(MOST_COMBINATIONS - 1, n + n * (n - 1) // 2)
    )
    eager = Selection.of(W6W, ["A-74=eager"])  # a pin still selects a narrowing reading
    assert eager.primary()["launch"] == "eager"
    by_option = Selection.of(W6W, ["--indegree=edges"])
    assert by_option.primary()["indegree"] == "edges"


@pytest.mark.parametrize("pin", ["A-99=x", "A-41=sometimes", "A-41"])
def test_a_pin_that_names_no_reading_is_refused(pin):
    with pytest.raises(UnknownReading):
        Selection.of(W6W, [pin])


# -- the model's readings differ where the assumption says --------------------------------


def _w6w_run(document, scenario, **readings):
    from wforacle.model.w6w.semantics import Options

    prepared = W6W.prepare({"document": document, "scenario": scenario}, Options(**readings))
    return prepared.semantics


def test_a50_a_success_and_an_error_edge_from_one_source_make_a_join_only_under_edges():
    # A-50 gap (1): p is parallel; y has a success and an error edge from p, x one edge.
    document = {
        "manifestVersion": "2",
        "id": "wf",
        "name": "a50",
        "steps": [
            {"id": "p", "uses": {"app": "demo", "action": "run"}, "fanOut": "parallel"},
            {"id": "x", "uses": {"app": "demo", "action": "run"}},
            {"id": "y", "uses": {"app": "demo", "action": "run"}},
        ],
        "edges": [
            {"from": "p", "to": "x"},
            {"from": "p", "to": "y"},
            {"from": "p", "to": "y", "when": "error"},
        ],
    }
    sources = _w6w_run(document, {})
    edges = _w6w_run(document, {}, indegree="edges")
    where = {step: n for n, step in enumerate(sources.plan)}
    p, x, y = where["p"], where["x"], where["y"]
    # W6W-FAN-6: S2 opens a new strand; W6W-FAN-7: a join runs on its source's strand.
    assert sources.strand[x] == sources.strand[p] != sources.strand[y]
    assert edges.strand[x] == edges.strand[y] == edges.strand[p]


RESOLUTION = {
    "document": {
        "manifestVersion": "2",
        "id": "wf",
        "name": "a41",
        "steps": [
            {"id": "a", "uses": {"app": "demo", "action": "run"}, "retry": {"maxAttempts": 2}}
        ],
    },
    "scenario": {
        "steps": {
            "a": {
                "attempts": [
                    {"error": {"code": "bad_ref", "message": "m", "phase": "resolution"}},
                    {"output": 1},
                ]
            }
        }
    },
    "schedule": [],
}


def test_a41_a_resolution_failure_is_retried_only_under_retried():
    never = execute(_w6w_run(RESOLUTION["document"], RESOLUTION["scenario"]))
    retried = execute(
        _w6w_run(RESOLUTION["document"], RESOLUTION["scenario"], resolution_retry=True)
    )
    assert "retry_scheduled" not in [e["event"] for e in never.trace]
    assert [e["event"] for e in retried.trace].count("retry_scheduled") == 1
    assert retried.trace[-1]["status"] == "succeeded" != never.trace[-1]["status"]


def test_a41_a_retry_resolves_the_with_block_again():
    # The with block names a secret the run lacks: every resolution fails
    # (secret_unavailable), so under "retried" each retry fails again and the
    # step is finally failed at its last attempt; under "never" at its first.
    case = copy.deepcopy(RESOLUTION)
    step = case["document"]["steps"][0]
    step["with"] = {"x": "{{ secrets.nope }}"}
    step["retry"] = {"maxAttempts": 3}
    for retried, retries in ((False, 0), (True, 2)):
        trace = execute(_w6w_run(case["document"], {}, resolution_retry=retried)).trace
        events = [e["event"] for e in trace]
        assert events.count("retry_scheduled") == retries
        assert "invoke" not in str(events) and trace[-1]["status"] == "failed"
        failed = next(e for e in trace if e["event"] == "step_failed")
        assert failed["error"]["code"] == "secret_unavailable"


# A-37: a with value whose one marker is an "=" payload shaped like a fallback chain, its
# var operand unrooted (badroot is none of the eight roots).
CHAIN_PAYLOAD = {
    "document": {
        "manifestVersion": "2",
        "id": "wf",
        "name": "a37",
        "steps": [
            {
                "id": "a",
                "uses": {"app": "demo", "action": "run"},
                "with": {"x": '{{ ={"or": [{"var": "badroot.x"}, "y"]} }}'},
            }
        ],
    },
    "scenario": {},
    "schedule": [],
}


def test_a37_an_equals_chain_payload_is_root_checked_only_under_part():
    # (a) "part": W6W-CHAIN-8's check applies to the expr part, so the string stays as
    # written (W6W-ROOT-1); (b) "infix": the = payload is "opaque and wholly exempt from
    # root-anchoring" (W6W-CHAIN-16), so it resolves: badroot.x is null, "or" gives "y".
    inputs = {}
    for reading in ("part", "infix"):
        trace = execute(_w6w_run(CHAIN_PAYLOAD["document"], {}, chain_check=reading)).trace
        inputs[reading] = next(e["input"] for e in trace if e["event"] == "step_started")
    assert inputs == {"part": CHAIN_PAYLOAD["document"]["steps"][0]["with"], "infix": {"x": "y"}}


# -- an engine that takes the other reading -----------------------------------------------


def test_a37_an_engine_checking_only_infix_chains_depends_on_the_reading():
    # Issue 18: an engine taking A-37's reading (b) is not wrong.  It is reported as
    # depending on the reading under --readings default and passes under any.
    engine = Engine(f"{sys.executable} {ENGINES / 'w6w_engine.py'} --reading A-37=infix")
    try:
        strict = judge(engine, W6W, CHAIN_PAYLOAD, None, Selection.of(W6W, mode=DEFAULT))
        anyway = judge(engine, W6W, CHAIN_PAYLOAD, None, Selection.of(W6W))
        held = judge(engine, W6W, CHAIN_PAYLOAD, None, Selection.of(W6W, ["A-37=part"]))
    finally:
        engine.stop()
    assert strict.verdict == "reading" and strict.reading == (("A-37", "infix"),)
    assert anyway.verdict == "pass" and anyway.reading == (("A-37", "infix"),)
    assert held.verdict == "divergence"


BARE_SECRET = {
    "document": {
        "manifestVersion": "2",
        "id": "wf",
        "name": "bare",
        "steps": [
            {"id": "a", "uses": {"app": "demo", "action": "run"}, "with": {"k": "{{ secrets }}"}}
        ],
    },
    "scenario": {"secrets": {"A": "s"}},
}


def test_a158_a_bare_secrets_marker_fails_only_under_fails():
    def started(**readings):
        run = W6W.prepare(BARE_SECRET, W6W.options(readings)).semantics
        return next(e for e in execute(run).trace if e["event"] == "step_started")

    assert started()["input"] == {"k": ""}
    assert started(bare_secret="fails")["input"] is None  # a resolution failure
    engine = Engine(f"{sys.executable} {ENGINES / 'w6w_engine.py'} --reading A-158=fails")
    try:
        strict = judge(engine, W6W, BARE_SECRET, None, Selection.of(W6W, mode=DEFAULT))
        anyway = judge(engine, W6W, BARE_SECRET, None, Selection.of(W6W))
        held = judge(engine, W6W, BARE_SECRET, None, Selection.of(W6W, ["A-158=empty"]))
    finally:
        engine.stop()
    assert strict.verdict == "reading" and strict.reading == (("A-158", "fails"),)
    assert anyway.verdict == "pass" and anyway.reading == (("A-158", "fails"),)
    assert held.verdict == "divergence"


def test_a157_an_unterminated_render_is_literal_only_under_literal():
    # W6W-ENV-10: a render part's content is parsed "as a {{ }} template in render mode";
    # W6W-ROOT-12 makes an unterminated with-value string literal, and says nothing of
    # rendered content (A-157).
    case = {
        "document": {
            "manifestVersion": "2",
            "id": "wf",
            "name": "render",
            "variables": [{"key": "x", "type": "number"}],
            "steps": [
                {
                    "id": "a",
                    "uses": {"app": "demo", "action": "run"},
                    "with": {
                        "t": {"type": "expr", "parts": [{"kind": "render", "ref": "vars.doc"}]}
                    },
                }
            ],
        },
        "scenario": {"variables": {"x": 1, "doc": "A {{ vars.x }} B {{ vars.x"}},
        "schedule": [],
    }

    def started(**readings):
        run = W6W.prepare(case, W6W.options(readings)).semantics
        return next(e for e in execute(run).trace if e["event"] == "step_started")["input"]

    assert started() == {"t": "A 1 B {{ vars.x"}  # the markers before the {{ resolve
    assert started(unterminated_render="literal") == {"t": "A {{ vars.x }} B {{ vars.x"}
    (reading,) = [r for r in W6W.readings if r.assumption == "A-157"]
    assert reading.relevant(case)
    closed = {**case, "scenario": {"variables": {"x": 1, "doc": "A {{ vars.x }}"}}}
    assert not reading.relevant(closed)
    taken(W6W, "--reading A-157=literal", case, "A-157=rest", ("A-157", "literal"))


A20 = {
    "document": {
        "manifestVersion": "2",
        "id": "wf",
        "name": "g",
        "steps": [
            {
                "id": "b",
                "uses": {"app": "demo", "action": "run"},
                "with": {
                    "x": {"$expr": {"-": [7, 2, 1]}},  # json-logic-js reads two operands
                    "y": {"$expr": {"/": [1, 0]}},  # Infinity, written as null
                    "t": '{{ ={"*": ["x", 2]} }}',  # NaN, printed as JavaScript prints it
                    "c": "{{ vars.none || vars.name }}",  # a chain: the RFC's, either way
                },
            }
        ],
    },
    "scenario": {"variables": {"name": "Ada"}},
}


def test_a20_json_logic_js_reads_its_operands_positionally_and_keeps_nan_a_value():
    # A-20: @w6w/expr is "JSONLogic-based" and not included.  The community semantics
    # (the model's) read every operand and fail on NaN; json-logic-js 2.0.5 reads two and
    # computes NaN and Infinity, which JSON writes as null and a string prints as "NaN".
    def started(**readings):
        run = W6W.prepare(A20, W6W.options(readings)).semantics
        trace = execute(run).trace
        return next((e for e in trace if e["event"] == "step_started"), {}).get("input"), trace

    community, trace = started()
    assert community is None  # the step fails at resolution: 1 / 0 is NaN
    failed = next(e for e in trace if e["event"] == "step_failed")
    assert failed["error"]["code"] == "expr_evaluation_failed"
    classic, _ = started(jsonlogic="classic")
    assert classic == {"x": 5, "y": None, "t": "NaN", "c": "Ada"}
    (reading,) = [r for r in W6W.readings if r.assumption == "A-20"]
    assert reading.relevant(A20)
    assert not reading.relevant({"document": {"steps": [{"id": "b", "with": {"x": 1}}]}})


@pytest.mark.skipif(not JSON_LOGIC_JS, reason="json-logic-js is not installed")
def test_a20_an_engine_calling_json_logic_js_depends_on_the_reading():
    taken(W6W, "--reading A-20=classic", A20, "A-20=community", ("A-20", "classic"))


def _if_control(condition):
    def block(name):
        return [{"id": name, "uses": {"app": "demo", "action": "run"}}]

    control = {
        "id": "c",
        "uses": {"app": "@w6w/control", "action": "if"},
        "with": {"condition": condition, "then": block("t"), "else": block("e")},
    }
    document = {"manifestVersion": "2", "id": "wf", "name": "if", "steps": [control]}
    return {"document": document, "scenario": {}}


@pytest.mark.parametrize(
    ("condition", "jsonlogic", "javascript"),
    [([], "e", "t"), ([0], "t", "t"), ({}, "t", "t"), (0, "e", "e"), ("", "e", "e")],
)
def test_a53_only_an_empty_array_condition_tells_the_truthiness_readings_apart(
    condition, jsonlogic, javascript
):
    def ran(**readings):
        run = W6W.prepare(_if_control(condition), W6W.options(readings)).semantics
        event = next(e for e in execute(run).trace if e["event"] == "step_succeeded")
        return {e["step"] for e in event["inner"] if "step" in e} - {"c"}

    assert ran() == {jsonlogic}
    assert ran(if_truthiness="javascript") == {javascript}


def test_a53_an_engine_taking_javascript_truthiness_depends_on_the_reading():
    case = _if_control([])
    engine = Engine(f"{sys.executable} {ENGINES / 'w6w_engine.py'} --reading A-53=javascript")
    try:
        strict = judge(engine, W6W, case, None, Selection.of(W6W, mode=DEFAULT))
        anyway = judge(engine, W6W, case, None, Selection.of(W6W))
        held = judge(engine, W6W, case, None, Selection.of(W6W, ["A-53=jsonlogic"]))
        other = judge(engine, W6W, _if_control([7]), None, Selection.of(W6W, mode=DEFAULT))
    finally:
        engine.stop()
    assert strict.verdict == "reading" and strict.reading == (("A-53", "javascript"),)
    assert anyway.verdict == "pass" and anyway.reading == (("A-53", "javascript"),)
    assert held.verdict == "divergence"
    # Pinned to the model's reading, the explanation cites the control's definition.
    cited = explained(W6W, case, held, None).divergence.clauses
    assert cited[:2] == ("A-53", "A-20"), cited
    assert other.verdict == "pass"  # a nonempty array is truthy under both


@pytest.fixture(scope="module")
def toyflow_retries():
    engine = Engine(f"{sys.executable} {ENGINES / 'w6w_engine.py'} --reading A-41=retried")
    yield engine
    engine.stop()


def test_one_run_passes_under_any_depends_under_default_and_diverges_when_pinned(
    toyflow_retries,
):
    case = copy.deepcopy(RESOLUTION)
    bare = judge(toyflow_retries, W6W, case)
    assert bare.verdict == "divergence"
    anyway = judge(toyflow_retries, W6W, case, None, Selection.of(W6W))
    assert anyway.verdict == "pass" and anyway.reading == (("A-41", "retried"),)
    strict = Selection.of(W6W, mode=DEFAULT)
    depends = judge(toyflow_retries, W6W, case, None, strict)
    assert depends.verdict == "reading" and depends.reading == (("A-41", "retried"),)
    assert depends.divergence is not None  # the model's own verdict, kept for the report
    assert depends.to_json()["readings"] == {"A-41": "retried"}
    held = judge(toyflow_retries, W6W, case, None, Selection.of(W6W, ["A-41=never"]))
    assert held.verdict == "divergence"


def test_a_replay_is_judged_under_another_reading_against_the_run_state_the_engine_was_sent(
    toyflow_retries,
):
    # The reference run under "never" fails a (onError continue); the engine replays
    # that state and retries a.  Under "retried" the reference run would have a
    # succeed (replayed, not re-run), so the other reading's model must replay the
    # state the engine was sent, not a state of its own (a false alarm before).
    case = copy.deepcopy(RESOLUTION)
    case["document"]["steps"][0]["onError"] = "continue"
    case["replay"] = {"from": None}
    anyway = judge(toyflow_retries, W6W, case, None, Selection.of(W6W))
    assert anyway.verdict == "pass" and anyway.reading == (("A-41", "retried"),)
    events = [e["event"] for e in anyway.observation.trace]
    assert "retry_scheduled" in events and "step_replayed" not in events


def test_a_campaign_passes_an_engine_taking_another_reading_and_reports_it(toyflow_retries):
    for mode in (ANY, DEFAULT):
        result = campaign(
            W6W, toyflow_retries, examples=300, seed_value=0, selection=Selection.of(W6W, mode=mode)
        )
        assert result.finding is None and result.faults == 0
        assert [r.departures for r in result.readings] == [(("A-41", "retried"),)]
        witness = result.readings[0]
        assert witness.examples >= 1
        assert witness.judgement.verdict == ("pass" if mode == ANY else "reading")
        # The witness is reduced and still needs the reading.
        again = judge(toyflow_retries, W6W, witness.case, None, Selection.of(W6W, mode=mode))
        assert again.reading == (("A-41", "retried"),)


# Every other reading a bundled engine can take (its --reading, or the --bug that is a
# reading, docs/readings.md), with the profile whose cases reach it.
OTHER_READINGS = [
    ("w6w", "--reading A-02=fifo", ("A-02", "fifo"), None),
    ("w6w", "--reading A-42=supplied", ("A-42", "supplied"), None),
    ("w6w", "--reading A-72=canceled", ("A-72", "canceled"), None),
    ("w6w", "--reading A-33=string", ("A-33", "string"), None),
    ("w6w", "--reading A-50=edges", ("A-50", "edges"), None),
    ("w6w", "--reading A-41=retried", ("A-41", "retried"), None),
    ("w6w", "--reading A-37=infix", ("A-37", "infix"), None),
    ("w6w", "--reading A-158=fails", ("A-158", "fails"), None),
    ("w6w", "--reading A-53=javascript", ("A-53", "javascript"), None),
    ("w6w", "--reading A-71=edges", ("A-71", "edges"), None),
    ("w6w", "--reading A-157=literal", ("A-157", "literal"), None),
    ("w6w", "--reading A-164=resolved", ("A-164", "resolved"), None),
    ("w6w", "--reading A-165=stop", ("A-165", "stop"), None),
    ("w6w", "--reading A-56=inherit", ("A-56", "inherit"), "w6w-call"),
    ("w6w", "--reading A-46=kept", ("A-46", "kept"), None),
    pytest.param(
        "w6w",
        "--reading A-20=classic",  # toyflow calls json-logic-js 2.0.5 itself
        ("A-20", "classic"),
        "w6w-jsonlogic",
        marks=pytest.mark.skipif(not JSON_LOGIC_JS, reason="json-logic-js is not installed"),
        id="A-20=classic",
    ),
    ("harness", "--bug all-negative-skipped", ("A-61", "skipped"), None),
    ("harness", "--reading A-80=any", ("A-80", "any"), None),
    ("harness", "--reading A-81=running", ("A-81", "running"), None),
    ("harness", "--reading A-81=instant", ("A-81", "instant"), None),
    ("harness", "--reading A-82=retried", ("A-82", "retried"), None),
    ("harness", "--reading A-87=incomparable", ("A-87", "incomparable"), None),
    ("harness", "--reading A-159=first", ("A-159", "first"), None),
    ("harness", "--reading A-156=none", ("A-156", "none"), None),
    ("harness", "--reading A-85=run", ("A-85", "run"), None),
    ("harness", "--reading A-166=default", ("A-166", "default"), None),
    ("harness", "--reading A-167=last", ("A-167", "last"), None),
    ("harness", "--reading A-168=one", ("A-168", "one"), None),
    ("workfile", "--bug absent-field-null", ("A-153", "null"), "workfile-stateful"),
    ("workfile", "--reading A-119=retryable", ("A-119", "retryable"), None),
    ("workfile", "--reading A-119=unknown", ("A-119", "unknown"), None),
    ("workfile", "--reading A-121=cancelled", ("A-121", "cancelled"), None),
    ("workfile", "--reading A-123=succeeded", ("A-123", "succeeded"), None),
    ("workfile", "--reading A-117=truthy", ("A-117", "truthy"), None),
    ("workfile", "--reading A-124=first", ("A-124", "first"), None),
    ("workfile", "--reading A-169=run", ("A-169", "run"), None),
    ("workfile", "--reading A-170=unknown", ("A-170", "unknown"), None),
    ("workfile", "--reading A-171=succeeded", ("A-171", "succeeded"), None),
    ("workfile", "--reading A-174=json", ("A-174", "json"), None),
    ("workfile", "--reading A-135=flagged", ("A-135", "flagged"), None),
    ("workfile", "--reading A-141=bounded", ("A-141", "bounded"), None),
]


@pytest.mark.parametrize(("spec", "switch", "reading", "profile"), OTHER_READINGS)
def test_an_engine_taking_another_reading_passes_a_campaign_under_any(
    spec, switch, reading, profile
):
    # Issue 18: a campaign under --readings any finds nothing in an engine that differs
    # from the model only where an assumption is open, and whatever it needed is that
    # assumption's other reading; under default the same runs are "reading" verdicts,
    # never findings.  (That each reading is reached and reported: the cases above.)
    specification = SPECIFICATIONS[spec]
    path = ENGINES / specification.example_engine
    engine = Engine(f"{sys.executable} {path} {switch}")
    cases = None if profile is None else specification.suites[profile]()
    try:
        # Under default, not any: a run no combination of readings permits is a finding
        # in both modes, and one that needs a reading is a "reading" verdict only here.
        result = campaign(
            specification,
            engine,
            examples=150,
            seed_value=0,
            cases=cases,
            selection=Selection.of(specification, mode=DEFAULT),
        )
        assert result.finding is None, result.finding.judgement.to_json()
        assert result.faults == 0
        for witness in result.readings:
            assert witness.departures == (reading,), witness.departures
    finally:
        engine.stop()


def test_the_correct_engine_needs_no_reading():
    engine = Engine(f"{sys.executable} {ENGINES / 'w6w_engine.py'}")
    try:
        result = campaign(W6W, engine, examples=150, seed_value=0, selection=Selection.of(W6W))
    finally:
        engine.stop()
    assert result.finding is None and result.readings == ()


# The smallest case a campaign found for A-153 (fuzz --profile workfile-stateful): an event
# without ``kind`` meets a subscription matching kind: null.
A153 = {
    "document": "initial: a\nstates:\n  a:\n    'on':\n      sig:\n        event: svc.signal\n"
    "        match:\n          ref: r1\n          kind: null\n        goto: done\n"
    "  done:\n    final: true\n",
    "manifests": {
        "svc": "connector: svc\nactions:\n  get:\n    effects: read\n"
        "triggers:\n  signal:\n    kind: external\n    correlate_on:\n    - ref\n    - kind\n"
    },
    "scenario": {"events": [{"wait": 1, "at": 0, "event": "svc.signal", "payload": {"ref": "r1"}}]},
    "schedule": [],
}


# A-119's witness: a read whose manifest classifies no code fails with one, under a retry
# policy; the second attempt would succeed.
A119 = {
    "document": "steps:\n  - a:\n      svc.get: {}\n"
    "      retry: { policy: fixed, initial: 1s, attempts: 2 }\n",
    "manifests": {"svc": "connector: svc\nactions:\n  get:\n    effects: read\n"},
    "scenario": {"attempts": {"a": [{"error": "svc.odd"}, {"output": {}}]}},
    "schedule": [],
}


@pytest.mark.parametrize("reading", ["retryable", "unknown"])
def test_a119_an_unclassified_code_is_fatal_only_under_fatal(reading):
    # WF-CLASS-5: the classification of an uncovered code is "defined under Errors and
    # Classification", a section not included (A-119: fatal, retryable or unknown).
    def results(**readings):
        trace = execute(WORKFILE.prepare(A119, WORKFILE.options(readings)).semantics).trace
        return [e["result"] for e in trace if e["event"] == "attempt_finished"]

    assert results() == ["fatal"]
    assert results(unclassified=reading)[0] == reading
    taken(WORKFILE, f"--reading A-119={reading}", A119, "A-119=fatal", ("A-119", reading))


# A-121's witness: an action inside a for_each aborts the run (on_fail: abort).
A121 = {
    "document": "steps:\n  - each:\n      wf.for_each:\n        items: [1]\n"
    "        steps:\n          - a:\n              svc.get: {}\n              on_fail: abort\n",
    "manifests": {
        "svc": "connector: svc\nactions:\n  get:\n    effects: read\n"
        "    errors:\n      svc.bad: fatal\n"
    },
    "scenario": {"attempts": {"each[0].a": [{"error": "svc.bad"}]}},
    "schedule": [],
}


def test_a121_an_aborts_enclosing_construct_is_cancelled_only_under_cancelled():
    # WF-POLICY-3: "on_fail: abort fails the run directly and bypasses enclosing failure
    # policy"; the construct holding the step fails (A-121 a) or is cancelled (b).
    def construct(**readings):
        trace = execute(WORKFILE.prepare(A121, WORKFILE.options(readings)).semantics).trace
        (ended,) = [e for e in trace if e["event"] == "step_finished" and e["step"] == "each"]
        return ended["outcome"]

    assert construct() == "failed"
    assert construct(abort_chain="cancelled") == "cancelled"
    taken(WORKFILE, "--reading A-121=cancelled", A121, "A-121=failed", ("A-121", "cancelled"))


def test_a123_the_stop_step_succeeded_only_under_succeeded():
    # WF-SOUT-5: "stopped — The step is a construct on the active containment chain of a
    # successful wf.stop" (F-20: the wf.stop step itself is stopped, A-123 a, or succeeded).
    case = {
        "document": "steps:\n  - each:\n      wf.for_each:\n        items: [1]\n"
        "        steps:\n          - s:\n              wf.stop: { reason: done }\n",
        "manifests": {},
        "scenario": {},
        "schedule": [],
    }

    def outcomes(**readings):
        trace = execute(WORKFILE.prepare(case, WORKFILE.options(readings)).semantics).trace
        return {e["step"]: e["outcome"] for e in trace if e["event"] == "step_finished"}

    assert outcomes() == {"each[0].s": "stopped", "each": "stopped"}
    assert outcomes(stop_outcome="succeeded") == {"each[0].s": "succeeded", "each": "stopped"}
    taken(WORKFILE, "--reading A-123=succeeded", case, "A-123=stopped", ("A-123", "succeeded"))


def test_a177_a_stop_result_that_is_no_object_faults_only_under_object():
    # A-177 (WF-PART-1, WF-CATCH-6): a wf.stop result written as one marker must evaluate
    # to an object (the stop step faults with expression.type, A-169), or to any value.
    case = {
        "document": "inputs:\n  n: { type: integer, required: true }\n"
        'steps:\n  - s:\n      wf.stop: { reason: done, result: "{{ inputs.n }}" }\n',
        "manifests": {},
        "scenario": {"inputs": {"n": 3}},
        "schedule": [],
    }

    def ended(**readings):
        trace = execute(WORKFILE.prepare(case, WORKFILE.options(readings)).semantics).trace
        return trace[-1]["outcome"], trace[-1].get("result"), trace[-1].get("error")

    assert ended() == ("failed", None, {"code": "expression.type", "step": "s"})
    assert ended(stop_result="any") == ("stopped", 3, None)
    taken(WORKFILE, "--reading A-177=any", case, "A-177=object", ("A-177", "any"))


def test_a117_a_non_boolean_guard_is_tested_by_truthiness_only_under_truthy():
    # WF-STEP-7: "No operation begins if guard or argument evaluation faults"; A-117: a
    # guard takes booleans only (a "yes" faults) or any value by its truthiness.
    def case(guard):
        return {
            "document": "steps:\n  - a:\n      wf.stop: { reason: done }\n"
            f'      when: "{guard}"\n',
            "manifests": {},
            "scenario": {},
            "schedule": [],
        }

    def ended(document, **readings):
        trace = execute(WORKFILE.prepare(document, WORKFILE.options(readings)).semantics).trace
        return [(e["event"], e.get("outcome")) for e in trace if e["event"] == "step_finished"]

    truthy = {"truthiness": "truthy"}
    # A string guard faults (the step fails, expression.type), or is true.
    assert ended(case("{{ 'no' }}")) == [("step_finished", "failed")]
    assert ended(case("{{ 'no' }}"), **truthy) == [("step_finished", "stopped")]
    # Each falsy value skips the step under truthy; not, and, or and if test the same way.
    for falsy in ("null", "0", "''", "[]", "{}", "not 1", "1 and 0", "0 or ''", "1 if 0 else 0"):
        assert ended(case(f"{{{{ {falsy} }}}}"), **truthy) == [("step_finished", "skipped")]
        assert ended(case(f"{{{{ {falsy} }}}}")) == [("step_finished", "failed")]
    # and and or give booleans under both readings: a guard of true and false is false.
    assert ended(case("{{ true and false }}")) == [("step_finished", "skipped")]
    stop = case("{{ 'yes' }}")
    taken(WORKFILE, "--reading A-117=truthy", stop, "A-117=booleans", ("A-117", "truthy"))


def test_a153_an_absent_field_matches_null_only_under_null():
    unequal = execute(WORKFILE.prepare(A153, None).semantics)
    null = execute(WORKFILE.prepare(A153, WORKFILE.options({"absent_field": "null"})).semantics)
    assert "entry_exited" not in [e["event"] for e in unequal.trace]  # it waits
    assert "entry_exited" in [e["event"] for e in null.trace]
    engine = Engine(f"{sys.executable} {ENGINES / 'workfile_engine.py'} --bug absent-field-null")
    try:
        depends = judge(engine, WORKFILE, A153, None, Selection.of(WORKFILE, mode=DEFAULT))
    finally:
        engine.stop()
    assert depends.verdict == "reading" and depends.reading == (("A-153", "null"),)


# -- Harness: A-81 and A-82, judged against hx-lite taking the other reading ---------------

# s → m → j (any), s → j: when s succeeds, m (listed first) and then j become READY, and m
# could only have reached j.  HX-CANCEL-1: "sibling branches still running that could only
# have reached this node MUST be moved to CANCELLED" — A-81 "branch": m is cancelled;
# "running": m is READY, not running, and starts.
A81 = {
    "document": '<harness id="h"><node id="s"/><node id="m"/><node id="j" joinPolicy="any"/>'
    '<edge from="s" to="m"/><edge from="s" to="j"/><edge from="m" to="j"/></harness>',
    "scenario": {},
    "schedule": [],
}
# a's resourceRef never resolves (HX-4102), and a may make two attempts.  HX-EXEC-7: "Steps
# 1–3 happen before execution begins"; HX-FAIL-1: "When a node reaches FAILED and its
# retry policy is exhausted" — A-82 "never": FAILED at once, attempts 0; "retried": each
# try an attempt, node_retrying after the first, FAILED at the second.
A82 = {
    "document": '<harness id="h"><node id="a" resourceRef="db"><retry maxAttempts="2"/></node>'
    "</harness>",
    "scenario": {"failingResources": ["db"]},
    "schedule": [],
}


def _harness_trace(case, **readings):
    return execute(HARNESS.prepare(case, HARNESS.options(readings)).semantics).trace


def _w6w_trace(case, **readings):
    return execute(W6W.prepare(case, W6W.options(readings)).semantics).trace


def _named(trace):
    return [(e["event"], e.get("node")) for e in trace]


def taken(spec, switch, case, pin, reading):
    """The bundled engine of ``spec`` started with ``switch``, judged on ``case``: a
    ``reading`` verdict under --readings default, a pass under any, a divergence when
    held to the model's reading (``pin``).  Each judgement is returned: (default, any,
    pinned)."""
    engine = Engine(f"{sys.executable} {ENGINES / spec.example_engine} {switch}")
    selections = (Selection.of(spec, mode=DEFAULT), Selection.of(spec), Selection.of(spec, [pin]))
    try:
        strict, anyway, held = (judge(engine, spec, case, None, s) for s in selections)
    finally:
        engine.stop()
    assert strict.verdict == "reading" and strict.reading == (reading,), strict.to_json()
    assert anyway.verdict == "pass" and anyway.reading == (reading,), anyway.to_json()
    assert held.verdict == "divergence", held.to_json()
    return strict, anyway, held


def test_a166_an_input_with_a_value_escapes_unreach_5_only_under_obtains():
    # HX-UNREACH-5: unreachable when "an incoming data edge feeding a required input with
    # no default comes from an unreachable source — the node can never obtain a value it
    # declared it needs"; HX-EXEC-2: "from its incoming data edge, or from value" (A-166).
    # A stranger's Harness runtime read "with no default" as written.
    case = {
        "document": '<harness id="h"><decision id="n0"><case to="n1" when="params.go == true"/>'
        '</decision><node id="n1"><output name="v"/></node>'
        '<node id="n3"><input name="v" required="true" value="null"/></node>'
        '<edge from="n1" to="n3" type="data" fromPort="v" toPort="v"/>'
        '<edge from="n0" to="n3" type="control"/></harness>',
        "scenario": {"nodes": {}},
        "schedule": [],
    }

    def started(**readings):
        trace = _harness_trace(case, **readings)
        return [e["node"] for e in trace if e["event"] == "node_started"]

    assert "n3" in started()  # n3 obtains its value
    assert "n3" not in started(unreach_value="default")  # n3 stays PENDING, unreachable
    (reading,) = [r for r in HARNESS.readings if r.assumption == "A-166"]
    assert reading.relevant(case)
    assert not reading.relevant({**case, "document": case["document"].replace(' value="null"', "")})
    taken(HARNESS, "--reading A-166=default", case, "A-166=obtains", ("A-166", "default"))


def test_a167_an_input_fed_by_two_data_edges_takes_the_first_only_under_first():
    # HX-EXEC-2: "Each input takes the value from its incoming data edge" — one edge; a
    # document with two into one input is valid and the text does not say which wins
    # (A-167).  A stranger's runtime took the last.
    case = {
        "document": '<harness id="h"><node id="a"><output name="v"/></node>'
        '<node id="b"><output name="v"/></node><node id="c"><input name="v" required="true"/>'
        '</node><edge from="a" to="c" type="data" fromPort="v" toPort="v"/>'
        '<edge from="b" to="c" type="data" fromPort="v" toPort="v"/></harness>',
        "scenario": {"nodes": {}},  # a declared output's value is "<node>.<output>"
        "schedule": [],
    }

    def bound(**readings):
        trace = _harness_trace(case, **readings)
        (c,) = [e["inputs"] for e in trace if e["event"] == "node_started" and e["node"] == "c"]
        return c

    assert bound() == {"v": "a.v"}
    assert bound(data_fan_in="last") == {"v": "b.v"}
    (reading,) = [r for r in HARNESS.readings if r.assumption == "A-167"]
    assert reading.relevant(case)
    single = case["document"].replace(
        '<edge from="b" to="c" type="data"', '<edge from="b" to="x" type="data"'
    )
    assert not reading.relevant({**case, "document": single})
    taken(HARNESS, "--reading A-167=last", case, "A-167=first", ("A-167", "last"))


def test_a168_a_loop_index_counts_from_zero_only_under_zero():
    # The chapter names loops (HX-SCHED-2/4) but not params.index (A-65, A-168): its
    # base is open.  A stranger's Harness runtime counted from 1.
    case = {
        "document": '<harness id="h"><node id="a"><output name="xs"/></node>'
        '<loop id="l" over="a.xs"><node id="b"><guard>params.index == 0</guard></node></loop>'
        '<edge from="a" to="l"/></harness>',
        "scenario": {"nodes": {"a": {"attempts": [{"outputs": {"xs": ["p", "q"]}}]}}},
        "schedule": [],
    }

    def skipped(**readings):
        (loop,) = [e for e in _harness_trace(case, **readings) if e.get("node") == "l"]
        return [any(e["event"] == "node_skipped" for e in inner) for inner in loop["inner"]]

    assert skipped() == [False, True]  # the first iteration's index is 0
    assert skipped(loop_index="one") == [True, True]
    (reading,) = [r for r in HARNESS.readings if r.assumption == "A-168"]
    assert reading.relevant(case)
    assert not reading.relevant({**case, "document": case["document"].replace("index", "item")})
    taken(HARNESS, "--reading A-168=one", case, "A-168=zero", ("A-168", "one"))


def test_the_compensation_targets_of_one_source_run_in_any_order():
    # HX-FAIL-3: "compensation runs per chapter 8" (not included); A-64/A-86: reverse
    # completion order between sources.  Two targets of one source: no completion order
    # tells them apart, so the model permits both orders (a stranger's runtime ran c2
    # first and was reported divergent).
    case = {
        "document": '<harness id="h"><node id="s"/><node id="f"/><node id="c1"/><node id="c2"/>'
        '<edge from="s" to="f" type="control"/><edge from="s" to="c1" type="compensation"/>'
        '<edge from="s" to="c2" type="compensation"/></harness>',
        "scenario": {"nodes": {"f": {"attempts": [{"error": {"code": "boom"}}]}}},
        "schedule": [],
    }
    prepared = HARNESS.prepare(case, HARNESS.options({}))
    orders = set()
    for scheduler in (lambda choices: 0, lambda choices: len(choices) - 1):
        trace = execute(prepared.semantics, scheduler).trace
        orders.add(tuple(e["node"] for e in trace if e["event"] == "node_compensated"))
    assert orders == {("c1", "c2"), ("c2", "c1")}


def test_a156_a_compensation_is_invoked_with_no_inputs_only_under_none():
    # HX-FAIL-3: "compensation runs per chapter 8" (not included); A-156 (2): a
    # compensation target is invoked with the inputs HX-EXEC-2 binds (b) or none (a).
    case = {
        "document": '<harness id="h"><node id="one"/><node id="boom"/>'
        '<node id="undo"><input name="why" value="&quot;rollback&quot;"/></node>'
        '<edge from="one" to="boom"/><edge from="one" to="undo" type="compensation"/>'
        "</harness>",
        "scenario": {"nodes": {"boom": {"attempts": [{"error": {"code": "x"}}]}}},
        "schedule": [],
    }

    def compensated(**readings):
        trace = _harness_trace(case, **readings)
        return [e["inputs"] for e in trace if e["event"] == "node_compensated"]

    assert compensated() == [{"why": "rollback"}]
    assert compensated(compensation_inputs="none") == [{}]
    (reading,) = [r for r in HARNESS.readings if r.assumption == "A-156"]
    assert reading.relevant(case)
    assert not reading.relevant({**case, "document": case["document"].replace("<input", "<x")})
    taken(HARNESS, "--reading A-156=none", case, "A-156=bound", ("A-156", "none"))


def test_a81_an_any_join_cancels_a_ready_sibling_only_under_branch():
    branch = _named(_harness_trace(A81))
    running = _named(_harness_trace(A81, any_cancels="running"))
    assert ("node_cancelled", "m") in branch and ("node_started", "m") not in branch
    assert ("node_started", "m") in running and ("node_cancelled", "m") not in running


def test_an_any_join_cancels_a_node_that_became_ready_with_it_whatever_the_document_order():
    # m and j become READY at one instant (s succeeded): listed after j, m is cancelled
    # too under "branch" (it started before: the settling visited j first), and left to
    # run under "running" — the same as when m is listed first.
    later = {
        **A81,
        "document": '<harness id="h"><node id="s"/><node id="j" joinPolicy="any"/>'
        '<node id="m"/><edge from="s" to="m"/><edge from="s" to="j"/><edge from="m" to="j"/>'
        "</harness>",
    }
    branch = _named(_harness_trace(later))
    running = _named(_harness_trace(later, any_cancels="running"))
    assert ("node_cancelled", "m") in branch and ("node_started", "m") not in branch
    assert ("node_started", "m") in running and ("node_cancelled", "m") not in running
    for case in (A81, later):  # the correct hx-lite does the same, under each reading
        for reading in (DEFAULT, ANY):
            engine = Engine(f"{sys.executable} {ENGINES / 'harness_engine.py'}")
            try:
                verdict = judge(engine, HARNESS, case, None, Selection.of(HARNESS, mode=reading))
            finally:
                engine.stop()
            assert verdict.verdict == "pass", verdict.to_json()


# y succeeds first (x waits for m); s's success readies m and the any join j at one
# instant; cancelling m resolves m -> x negative, which readies x (its all join has y's
# edge satisfied, HX-JOIN-3) and x could only reach j.  A-81: "branch" cancels x with
# the branch; "instant" cancels the branch as it was when j fired, so x starts.
A81_CASCADE = {
    "document": '<harness id="h"><node id="a"/><node id="y"/><node id="s"/><node id="m"/>'
    '<node id="x"/><node id="j" joinPolicy="any"/>'
    '<edge from="a" to="y"/><edge from="a" to="s"/><edge from="s" to="m"/>'
    '<edge from="s" to="j"/><edge from="y" to="x"/><edge from="m" to="x"/>'
    '<edge from="x" to="j"/></harness>',
    "scenario": {},
    "schedule": [],
}


def test_a81_a_node_the_cancellation_readies_starts_only_under_instant():
    branch = _named(_harness_trace(A81_CASCADE))
    instant = _named(_harness_trace(A81_CASCADE, any_cancels="instant"))
    running = _named(_harness_trace(A81_CASCADE, any_cancels="running"))
    assert ("node_cancelled", "m") in branch and ("node_cancelled", "x") in branch
    assert ("node_cancelled", "m") in instant and ("node_started", "x") in instant
    assert ("node_cancelled", "x") not in instant
    assert ("node_started", "m") in running and ("node_started", "x") in running
    # Where nothing cascades, "instant" is "branch": m (READY with j) is cancelled.
    assert _named(_harness_trace(A81, any_cancels="instant")) == _named(_harness_trace(A81))
    taken(HARNESS, "--reading A-81=instant", A81_CASCADE, "A-81=branch", ("A-81", "instant"))


def test_a85_a_handler_of_a_node_failing_while_unwinding_runs_only_under_run():
    # HX-FAIL-2: "all are traversed. The failure is handled"; A-64: unwinding starts no
    # node.  hx-lite invokes a and b, a's failure comes first and unwinds the instance;
    # b fails then: its handler h1 is cancelled (A-85 "cancelled") or runs ("run").
    case = {
        "document": '<harness id="h"><node id="a"/><node id="b"/><node id="h1"/>'
        '<edge from="b" to="h1" type="error"/></harness>',
        "scenario": {
            "nodes": {
                "a": {"attempts": [{"error": {"code": "x"}}]},
                "b": {"attempts": [{"error": {"code": "y"}}]},
            }
        },
        "schedule": [],
    }
    (reading,) = [r for r in HARNESS.readings if r.assumption == "A-85"]
    assert reading.relevant(case)
    assert not reading.relevant({**case, "document": case["document"].replace("error", "x")})
    strict, _, _ = taken(HARNESS, "--reading A-85=run", case, "A-85=cancelled", ("A-85", "run"))
    names = [(e["event"], e.get("node")) for e in strict.observation.trace]
    assert ("node_started", "h1") in names and ("node_cancelled", "h1") not in names


def test_a124_a_later_faulting_arm_guard_faults_the_choose_only_under_every():
    # A-124: every arm guard is evaluated before a wf.choose selects (WF-SUPP-10 lists
    # "all wf.choose arm guards"), or in order up to the first that holds (a stranger's
    # executor).  Arm 1's guard divides by zero: under "every" the step faults.
    from wforacle.properties.strategies.workfile_runs import MANIFEST

    document = (
        "steps:\n  - c:\n      wf.choose:\n        arms:\n"
        '          - when: "{{ true }}"\n            steps: [ { a: { svc.get: {} } } ]\n'
        '          - when: "{{ 1 / 0 == 1 }}"\n            steps: [ { b: { svc.get: {} } } ]\n'
        "        else: []\n"
    )
    case = {"document": document, "manifests": {"svc": MANIFEST}, "scenario": {},
            "schedule": []}  # fmt: skip
    every = execute(WORKFILE.prepare(case, WORKFILE.options({})).semantics).trace
    first = execute(
        WORKFILE.prepare(case, WORKFILE.options({"choose_guards": "first"})).semantics
    ).trace
    assert every[-1]["outcome"] == "failed" and first[-1]["outcome"] == "completed"
    (reading,) = [r for r in WORKFILE.readings if r.assumption == "A-124"]
    assert reading.relevant(case)
    taken(WORKFILE, "--reading A-124=first", case, "A-124=every", ("A-124", "first"))


def _workfile_finished(case, **readings):
    """The model's step outcomes and the run's under ``readings``."""
    trace = execute(WORKFILE.prepare(case, WORKFILE.options(readings)).semantics).trace
    steps = {e["step"]: e["outcome"] for e in trace if e["event"] == "step_finished"}
    return steps, trace[-1]["outcome"]


def _relevance(assumption, case, irrelevant):
    (reading,) = [r for r in WORKFILE.readings if r.assumption == assumption]
    assert reading.relevant(case)
    assert not reading.relevant(irrelevant)


def test_a135_a_delegated_read_carries_the_dry_run_flag_only_under_flagged():
    # WF-DRY-4: "an unaffected read action executes normally"; WF-DRY-11: "An unaffected
    # delegated action executes normally with the dry-run flag".  A stranger's executor
    # (session 23) flagged a read declaring dry_run: delegate and was told WF-STEP-4.
    manifest = (
        "connector: svc\nactions:\n  look: { effects: read, dry_run: delegate }\n"
        "  get: { effects: read }\n"
    )
    case = {"document": "steps:\n  - a: { svc.look: {} }\n  - b: { svc.get: {} }\n",
            "manifests": {"svc": manifest},
            "scenario": {"dryRun": True, "attempts": {"a": [{"output": 1}], "b": [{"output": 2}]}},
            "schedule": []}  # fmt: skip

    def flagged(**readings):
        semantics = WORKFILE.prepare(case, WORKFILE.options(readings)).semantics
        trace = execute(semantics).trace
        return sorted(
            e["step"] for e in trace if e["event"] == "attempt_started" and e.get("dryRun")
        )

    assert flagged() == [] and flagged(delegated_read="flagged") == ["a"]  # never the plain b
    _relevance("A-135", case, {**case, "scenario": {"attempts": case["scenario"]["attempts"]}})
    taken(WORKFILE, "--reading A-135=flagged", case, "A-135=plain", ("A-135", "flagged"))


def test_a141_a_call_timeout_cancels_a_running_catch_handler_only_under_bounded():
    # WF-CATCH-21: "For a call or agent timeout, handler work starts after internal
    # cancellation and is outside the expired operation deadline" -- silent on a handler
    # another failure started.  The model reads it the same way (outside); a stranger's
    # executor (session 23) let the deadline bound that handler too.  Here the child fails
    # with svc.fatal, the handler h runs, and c's deadline passes at the engine's second
    # wait (h's attempt).
    from wforacle.properties.strategies.workfile_runs import MANIFEST

    document = (
        "steps:\n  - c:\n      wf.call: { workflow: sub, inputs: {} }\n"
        "      catch:\n        svc.*:\n          steps: [ { h: { svc.get: {} } } ]\n"
        "          result: {}\n      timeout: 5s\n"
    )
    case = {"document": document, "workflows": {"sub": "steps:\n  - a: { svc.send: {} }\n"},
            "manifests": {"svc": MANIFEST},
            "scenario": {"attempts": {"c.(run).a": [{"error": "svc.fatal"}]},
                         "expire": {"c": 2}},
            "schedule": []}  # fmt: skip

    _, anyway, _ = taken(
        WORKFILE, "--reading A-141=bounded", case, "A-141=outside", ("A-141", "bounded")
    )
    trace = anyway.observation.trace
    assert ("c.(catch).h", "cancelled") in [(e.get("step"), e.get("outcome")) for e in trace]
    assert trace[-1]["outcome"] == "failed" and trace[-1]["error"]["code"] == "flow.timeout"
    _relevance("A-141", case, {**case, "scenario": {"attempts": case["scenario"]["attempts"]}})


def test_a169_a_fault_in_a_stop_result_fails_the_run_only_under_run():
    # WF-PART-3: a fault in an entry of "an executed wf.stop.result … still prevents a
    # successful workflow result"; WF-STEP-7 makes it the stop step's fault, whose
    # on_fail: continue absorbs it (A-169: the step's, or the run's).
    document = (
        "steps:\n  - s:\n      wf.stop:\n        reason: done\n"
        '        result: { x: "{{ 1 / 0 }}" }\n'
        "      on_fail: continue\n  - a:\n      svc.get: {}\n"
    )
    case = {"document": document, "manifests": A119["manifests"],
            "scenario": {"attempts": {"a": [{"output": 1}]}}, "schedule": []}  # fmt: skip
    assert _workfile_finished(case) == ({"s": "failed", "a": "succeeded"}, "completed")
    assert _workfile_finished(case, stop_fault="run") == ({"s": "failed"}, "failed")
    _relevance("A-169", case, {**case, "document": document.replace("result", "x")})
    taken(WORKFILE, "--reading A-169=run", case, "A-169=step", ("A-169", "run"))


def test_a170_a_reissue_that_fails_definitely_goes_to_on_unknown_only_under_unknown():
    # WF-AMB-1: an ambiguous attempt of an idempotent action is reissued; WF-AMB-4: "For
    # idempotency: none, or exhaustion of the attempt count, the executor applies the
    # action step's on_unknown policy" — a definite failure of the reissue is neither
    # (A-170: the final attempt decides, or on_unknown does).
    document = (
        "steps:\n  - a:\n      svc.put: {}\n      retry: { attempts: 2 }\n"
        "      on_unknown: fail\n      on_fail: continue\n"
    )
    manifest = (
        "connector: svc\nactions:\n  put:\n    effects: write\n    idempotency: keyed\n"
        "    errors:\n      svc.lost: unknown\n      svc.bad: fatal\n"
    )
    case = {"document": document, "manifests": {"svc": manifest},
            "scenario": {"attempts": {"a": [{"error": "svc.lost"}, {"error": "svc.bad"}]}},
            "schedule": []}  # fmt: skip

    def code(**readings):
        trace = execute(WORKFILE.prepare(case, WORKFILE.options(readings)).semantics).trace
        (finished,) = [e for e in trace if e["event"] == "step_finished"]
        return finished["error"]["code"]

    assert code() == "svc.bad"
    assert code(reissue_failure="unknown") == "flow.action_ambiguous"
    _relevance("A-170", case, {**case, "document": document.replace("attempts: 2", "")})
    taken(WORKFILE, "--reading A-170=unknown", case, "A-170=final", ("A-170", "unknown"))


def test_a171_an_action_step_whose_handler_stops_the_run_succeeded_only_under_succeeded():
    # WF-IWC-4: "An enclosing construct on the active containment chain from a wf.stop step
    # through the root step list becomes stopped"; an action step is not a construct
    # (A-171: the handled step is stopped with the chain, or succeeded).
    document = (
        "steps:\n  - a:\n      svc.get: {}\n      catch:\n        svc.bad:\n"
        "          steps:\n            - s:\n                wf.stop: { reason: done }\n"
    )
    case = {"document": document, "manifests": A119["manifests"],
            "scenario": {"attempts": {"a": [{"error": "svc.bad"}]}}, "schedule": []}  # fmt: skip
    stopped = {"a.(catch).s": "stopped", "a": "stopped"}
    assert _workfile_finished(case) == (stopped, "stopped")
    handled = {**stopped, "a": "succeeded"}
    assert _workfile_finished(case, handled_stop="succeeded") == (handled, "stopped")
    _relevance("A-171", case, {**case, "document": document.replace("wf.stop", "wf.fail")})
    taken(WORKFILE, "--reading A-171=succeeded", case, "A-171=stopped", ("A-171", "succeeded"))


# d's guard is false (SKIPPED) and both its cases hold: A-159 "conditions" takes both, as
# any SKIPPED node's conditional edges; "first" routes to b only (HX-SCHED-4).
A159 = {
    "document": '<harness id="h"><decision id="d"><guard>params.go == 1</guard>'
    '<case to="b" when="params.x == 1"/><case to="c"/></decision>'
    '<node id="b"/><node id="c"/></harness>',
    "scenario": {"params": {"x": 1, "go": 0}},
    "schedule": [],
}


# A-02's witness (F-02's shape): c, declared second, is readied by a; b is a root.  The
# earliest-declared ready step goes next (a, c, b) or the first to be ready (a, b, c).
A02 = {
    "document": {
        "manifestVersion": "2",
        "id": "wf",
        "name": "plan",
        "steps": [{"id": k, "uses": {"app": "demo", "action": "run"}} for k in "acb"],
        "edges": [{"from": "a", "to": "c"}],
    },
    "scenario": {},
    "schedule": [],
}


def test_a02_a_plan_breaking_ties_first_in_first_out_takes_the_fifo_reading():
    # W6W-PLAN-5: "Ties broken by declared step order for determinism" (F-02: two plans).
    declared = [e.get("step") for e in _w6w_trace(A02) if e["event"] == "step_started"]
    fifo = [
        e.get("step") for e in _w6w_trace(A02, tie_break="fifo") if e["event"] == "step_started"
    ]
    assert (declared, fifo) == (["a", "c", "b"], ["a", "b", "c"])
    *_, held = taken(W6W, "--reading A-02=fifo", A02, "A-02=declared", ("A-02", "fifo"))
    # Held to the model's reading, the engine is told the rule it departs from.
    assert explained(W6W, A02, held, None).divergence.clauses[0] == "W6W-PLAN-5"


def test_a_crash_is_judged_under_another_reading_with_that_readings_resume_point():
    # The oracle records the host's ``crashed`` event (resumeAt: the first step not
    # terminal by the plan, W6W-CONCEPT-3), a model's event: under A-02's fifo the plan
    # is a, b, c, so after a crash at b's start the run resumes at b, not at c.  A
    # campaign found the engine divergent under every reading while the event recorded
    # was the default reading's.
    case = copy.deepcopy(A02)
    case["scenario"] = {"crashAfterCheckpoints": [4]}  # right after b's step_started
    _, judgement, _ = taken(W6W, "--reading A-02=fifo", case, "A-02=declared", ("A-02", "fifo"))
    (crashed,) = [e for e in judgement.observation.trace if e["event"] == "crashed"]
    assert crashed["resumeAt"] == "b"  # the reading's own record (the default's says c)


def test_a71_a_replay_from_an_edgeless_step_reruns_the_chain_only_under_chain():
    # W6W-FAN-11: "from replays that step plus all its graph descendants"; RFC
    # Workflow.edges: "When absent, the engine treats steps as a linear chain" (A-71).
    original = {
        "runId": "run_1",
        "workflowId": "wf",
        "status": "succeeded",
        "output": "c0",
        "variables": {},
        "steps": {s: {"stepId": s, "status": "succeeded", "output": f"{s}0"} for s in "abc"},
    }
    case = {
        "document": {
            "manifestVersion": "2",
            "id": "wf",
            "name": "chain",
            "steps": [{"id": s, "uses": {"app": "demo", "action": "run"}} for s in "abc"],
        },
        "scenario": {"steps": {s: {"attempts": [{"output": f"{s}1"}]} for s in "abc"}},
        "replay": {"runState": original, "from": "b"},
        "schedule": [],
    }

    def started(**readings):
        return [e["step"] for e in _w6w_trace(case, **readings) if e["event"] == "step_started"]

    assert started() == ["b", "c"]  # the implicit chain: c descends from b
    assert started(replay_graph="edges") == ["b"]  # no declared edge: c keeps c0
    (reading,) = [r for r in W6W.readings if r.assumption == "A-71"]
    assert reading.relevant(case)
    assert not reading.relevant({**case, "replay": {"runState": original}})  # no from
    edged = {**case["document"], "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "c"}]}
    assert not reading.relevant({**case, "document": edged})
    taken(W6W, "--reading A-71=edges", case, "A-71=chain", ("A-71", "edges"))


def _aborted_case(document, attempts, after):
    return {
        "document": {"manifestVersion": "2", "id": "wf", "name": "abort", **document},
        "scenario": {"cancelAfterCheckpoint": after, "steps": {"a": {"attempts": attempts}}},
        "schedule": [],
    }


FAILS = {"error": {"code": "x", "message": "", "retryable": True}}
ONE_STEP = [{"id": "a", "uses": {"app": "demo", "action": "run"}}]


def test_a164_a_signal_after_the_handler_cancels_the_run_only_under_canceled():
    # W6W-HOST-3: "the engine polls between steps and aborts cleanly on signal";
    # W6W-RUNERR-4: "continue" resolves the run with a null output.  The signal fires
    # at run_continued's checkpoint (the 4th): no step is left to poll between (A-164).
    case = _aborted_case({"onError": "continue", "steps": ONE_STEP}, [FAILS], 4)

    def ended(**readings):
        trace = _w6w_trace(case, **readings)
        assert [e["event"] for e in trace][-2] == "run_continued"
        return trace[-1]["status"]

    assert ended() == "canceled"
    assert ended(handler_abort="resolved") == "succeeded"
    # A signal before the handler acted is polled between steps under both readings.
    earlier = {**case, "scenario": {**case["scenario"], "cancelAfterCheckpoint": 3}}
    for reading in ("canceled", "resolved"):
        trace = _w6w_trace(earlier, handler_abort=reading)
        assert "run_continued" not in [e["event"] for e in trace]
        assert trace[-1]["status"] == "canceled"
    (reading,) = [r for r in W6W.readings if r.assumption == "A-164"]
    assert reading.relevant(case)
    assert not reading.relevant({**case, "scenario": {"steps": case["scenario"]["steps"]}})
    assert not reading.relevant({**case, "document": {**case["document"], "onError": "fail"}})
    taken(W6W, "--reading A-164=resolved", case, "A-164=canceled", ("A-164", "resolved"))


def test_a164s_case_loses_a_run_retry_with_the_checkpoints_it_took():
    # A case that needs A-164 through a run-level retry: without the retry the signal's
    # point is that many checkpoints earlier, so the reduction tries both at once
    # (session 22's stranger was shown a run retry and cancelAfterCheckpoint 7).
    from wforacle.oracle.fuzz import reduce_case

    def needs_a164(case):
        ends = {_w6w_trace(case, handler_abort=r)[-1]["status"] for r in ("canceled", "resolved")}
        return len(ends) > 1

    retried = {"onError": "continue", "retry": {"maxAttempts": 2}, "steps": ONE_STEP}
    after = next(k for k in range(1, 20) if needs_a164(_aborted_case(retried, [FAILS, FAILS], k)))
    case = _aborted_case(retried, [FAILS, FAILS], after)
    reduced = reduce_case(W6W, case, needs_a164)
    assert "retry" not in reduced["document"], reduced
    assert reduced["scenario"]["cancelAfterCheckpoint"] == 4, reduced


def test_a164_covers_a_reroute_the_signal_fires_after():
    # W6W-RUNERR-3: "The target's output becomes the run's output"; a signal at
    # run_rerouted's checkpoint cancels the run (A-164 (a)) or lets it succeed (b).
    reroute = {"uses": {"app": "demo", "action": "fix"}}
    case = _aborted_case({"reroute": reroute, "steps": ONE_STEP}, [FAILS], 4)
    case["scenario"]["reroute"] = {"output": "fixed"}
    statuses = {}
    for reading in ("canceled", "resolved"):
        trace = _w6w_trace(case, handler_abort=reading)
        assert [e["event"] for e in trace][-2] == "run_rerouted"
        statuses[reading] = (trace[-1]["status"], trace[-1].get("output"))
    assert statuses == {"canceled": ("canceled", None), "resolved": ("succeeded", "fixed")}


def test_a165_a_step_in_flight_at_the_signal_retries_only_under_finish():
    # W6W-FAN-9: "On … an abort the engine stops launching new steps, lets in-flight
    # steps finish"; whether a retry is part of finishing is open (A-165).  The signal
    # fires at a's step_started (checkpoint 2); a's first attempt then fails retryably.
    retried = [{**ONE_STEP[0], "retry": {"maxAttempts": 3, "backoff": "fixed", "delayMs": 10}}]
    case = _aborted_case({"steps": retried}, [FAILS, {"output": 1}], 2)

    def events(**readings):
        return [e["event"] for e in _w6w_trace(case, **readings)]

    assert "retry_scheduled" in events() and "step_succeeded" in events()
    stopped = events(signal_retries="stop")
    assert "retry_scheduled" not in stopped and "step_failed" in stopped
    # A signal after the retry was scheduled: the retried attempt runs under both.
    later = {**case, "scenario": {**case["scenario"], "cancelAfterCheckpoint": 3}}
    assert "step_succeeded" in [e["event"] for e in _w6w_trace(later, signal_retries="stop")]
    (reading,) = [r for r in W6W.readings if r.assumption == "A-165"]
    assert reading.relevant(case)
    assert not reading.relevant({**case, "document": {**case["document"], "steps": ONE_STEP}})
    _, _, held = taken(W6W, "--reading A-165=stop", case, "A-165=finish", ("A-165", "stop"))
    # Held to the model's reading, the explanation names the rule first: in-flight
    # steps finish (W6W-FAN-9), not the retry policy's clauses.
    options = Selection.of(W6W, ["A-165=finish"]).options()
    divergence = explained(W6W, case, held, options).divergence
    assert divergence.clauses[:2] == ("W6W-FAN-9", "W6W-HOST-3"), divergence
    assert "A-165" in divergence.message


def test_a42_a_required_variable_must_be_supplied_only_under_supplied():
    # W6W-FIELD-18: "If true and no value provided at run start, the run is rejected";
    # W6W-FIELD-19: the default is "Used when the caller doesn't supply a value" (A-42).
    case = {
        "document": {
            "manifestVersion": "2",
            "id": "wf",
            "name": "v",
            "variables": [{"key": "ch", "type": "string", "required": True, "default": "#ops"}],
            "steps": [{"id": "a", "uses": {"app": "demo", "action": "run"}}],
        },
        "scenario": {},
        "schedule": [],
    }
    assert [e["event"] for e in _w6w_trace(case)][:2] == ["run_started", "step_started"]
    rejected = _w6w_trace(case, required_default="supplied")
    assert [e["event"] for e in rejected] == ["run_rejected"]
    assert rejected[0]["error"]["code"] == "missing_variable"
    (reading,) = [r for r in W6W.readings if r.assumption == "A-42"]
    assert reading.relevant(case)
    assert not reading.relevant({**case, "scenario": {"variables": {"ch": "#x"}}})
    taken(W6W, "--reading A-42=supplied", case, "A-42=default", ("A-42", "supplied"))


def test_a72_a_refused_run_is_canceled_only_under_canceled():
    # W6W-FIELD-18: "If true and no value provided at run start, the run is rejected";
    # RunState.status has no "rejected": failed with its error (A-72 b) or canceled (c).
    case = {
        "document": {
            "manifestVersion": "2",
            "id": "wf",
            "name": "v",
            "variables": [{"key": "ch", "type": "string", "required": True}],
            "steps": [{"id": "a", "uses": {"app": "demo", "action": "run"}}],
        },
        "scenario": {},
        "schedule": [],
    }
    assert [e["status"] for e in _w6w_trace(case)] == ["failed"]
    assert [e["status"] for e in _w6w_trace(case, rejected_status="canceled")] == ["canceled"]
    strict, *_ = taken(W6W, "--reading A-72=canceled", case, "A-72=failed", ("A-72", "canceled"))
    assert strict.observation.state["status"] == "canceled"


def test_a33_a_structured_value_in_a_string_is_string_v_only_under_string():
    # W6W-ENV-20 / W6W-ROOT-22: an object or array "is stringified before it is
    # concatenated" — JSON.stringify's text (the model) or String(v) (A-33).
    case = {
        "document": {
            "manifestVersion": "2",
            "id": "wf",
            "name": "s",
            "variables": [{"key": "o", "type": "object"}, {"key": "l", "type": "array"}],
            "steps": [
                {
                    "id": "a",
                    "uses": {"app": "demo", "action": "run"},
                    "with": {"m": "o={{ vars.o }} l={{ vars.l }}"},
                }
            ],
        },
        "scenario": {"variables": {"o": {"k": "v"}, "l": [1, 2]}},
        "schedule": [],
    }

    def message(**readings):
        trace = _w6w_trace(case, **readings)
        return next(e["input"]["m"] for e in trace if e["event"] == "step_started")

    assert message() == 'o={"k":"v"} l=[1,2]'
    assert message(structured="string") == "o=[object Object] l=1,2"
    taken(W6W, "--reading A-33=string", case, "A-33=json", ("A-33", "string"))


def test_a02_orders_a_parallel_controls_block_too():
    # A parallel control's branches are chains in one sub-block (docs/controls.md): its
    # plan breaks ties too, so the block's lastOutput (its run_finished output, W6W-FAN-10
    # applied to the block) is q0's under declared order (p0, p1, q0) and p1's under
    # first-in first-out (p0, q0, p1).  Each branch's own output is its chain's last.
    # Found by the fifo campaign under Hypothesis 6.155.2.
    branches = [[_app("p0"), _app("p1")], [_app("q0")]]
    case = {
        "document": {
            "manifestVersion": "2",
            "id": "wf",
            "name": "c",
            "steps": [
                {
                    "id": "c",
                    "uses": {"app": "@w6w/control", "action": "parallel"},
                    "with": {"branches": branches},
                }
            ],
        },
        "scenario": {"steps": {"q0": {"attempts": [{"output": False}]}}},
        "schedule": [],
    }
    for tie_break, block_output in (("declared", False), ("fifo", None)):
        (ended,) = [e for e in _w6w_trace(case, tie_break=tie_break) if e.get("step") == "c"][1:]
        assert ended["output"] == [None, False]
        assert ended["inner"][-1]["output"] is block_output
    (tie_break,) = [r for r in W6W.readings if r.assumption == "A-02"]
    assert tie_break.relevant(case)
    taken(W6W, "--reading A-02=fifo", case, "A-02=declared", ("A-02", "fifo"))


def _app(step_id):
    return {"id": step_id, "uses": {"app": "demo", "action": "run"}}


def test_a02_is_tried_only_where_the_two_plans_differ():
    (tie_break,) = [r for r in W6W.readings if r.assumption == "A-02"]
    assert tie_break.relevant(A02)
    chain = copy.deepcopy(A02)
    chain["document"]["edges"] = [{"from": "a", "to": "c"}, {"from": "c", "to": "b"}]
    assert not tie_break.relevant(chain)  # one topological order: one plan
    assert not tie_break.relevant({**A02, "document": {**A02["document"], "edges": []}})


# A-80's witness (as tests/harness/test_harness_faults.py builds it): a loop of three
# iterations, two at a time, each failing.  The third starts only once the first or the
# second has finished — failed — so in sequence order it is never the failure reported.
A80 = {
    "document": '<harness id="h"><loop id="l" over="params.items" maxConcurrency="2">'
    + "".join(f'<node id="b{i}"><guard>params.index == {i}</guard></node>' for i in range(3))
    + "</loop></harness>",
    "scenario": {
        "params": {"items": [0, 1, 2]},
        "nodes": {f"b{i}": {"attempts": [{"error": {"code": f"e{i}"}}]} for i in range(3)},
    },
    "schedule": [],
}


def test_a80_a_loop_running_its_last_iteration_first_takes_the_any_reading():
    taken(HARNESS, "--reading A-80=any", A80, "A-80=sequence", ("A-80", "any"))
    engine = Engine(f"{sys.executable} {ENGINES / 'harness_engine.py'} --reading A-80=any")
    try:
        one = copy.deepcopy(A80)
        one["document"] = one["document"].replace('maxConcurrency="2"', 'maxConcurrency="1"')
        sequential = judge(engine, HARNESS, one, None, Selection.of(HARNESS, mode=DEFAULT))
    finally:
        engine.stop()
    # HX-SCHED-4: with maxConcurrency="1" the order is the specification's, not a reading.
    assert sequential.verdict == "pass" and sequential.reading == ()


def test_a159_a_skipped_decision_takes_every_true_case_only_under_conditions():
    conditions = _named(_harness_trace(A159))
    first = _named(_harness_trace(A159, skipped_decision="first"))
    assert ("node_skipped", "d") in conditions and ("node_skipped", "d") in first
    assert ("node_started", "b") in conditions and ("node_started", "c") in conditions
    assert ("node_started", "b") in first and ("node_started", "c") not in first
    engine = Engine(f"{sys.executable} {ENGINES / 'harness_engine.py'} --reading A-159=first")
    try:
        strict = judge(engine, HARNESS, A159, None, Selection.of(HARNESS, mode=DEFAULT))
        anyway = judge(engine, HARNESS, A159, None, Selection.of(HARNESS))
        held = judge(engine, HARNESS, A159, None, Selection.of(HARNESS, ["A-159=conditions"]))
    finally:
        engine.stop()
    assert strict.verdict == "reading" and strict.reading == (("A-159", "first"),)
    assert anyway.verdict == "pass" and anyway.reading == (("A-159", "first"),)
    assert held.verdict == "divergence"


def test_a_reading_that_cannot_matter_to_a_case_is_not_tried():
    # Each combination tried is a whole re-judgement of a rejected run: a reading whose
    # feature the case lacks (a retry policy for A-41, an error edge for A-50, a decision
    # with a guard for A-159, …) keeps its primary value.
    plain = {
        "document": {
            "manifestVersion": "2",
            "id": "wf",
            "name": "p",
            "steps": [{"id": "a", "uses": {"app": "demo", "action": "run"}}],
        },
        "scenario": {},
    }
    assert list(Selection.of(W6W).alternatives(plain)) == []
    retried = copy.deepcopy(plain)
    retried["document"]["steps"][0]["retry"] = {"maxAttempts": 2}
    tried = list(Selection.of(W6W).alternatives(retried))
    assert [Selection.of(W6W).departures(c) for c in tried] == [(("A-41", "retried"),)]
    harness = [
        Selection.of(HARNESS).departures(c) for c in Selection.of(HARNESS).alternatives(A159)
    ]
    assert (("A-159", "first"),) in harness and (("A-80", "any"),) not in harness


def test_a82_a_pre_execution_failure_is_retried_only_under_retried():
    never = _harness_trace(A82)
    retried = _harness_trace(A82, pre_execution_retry=True)
    assert never[1:-1] == [
        {"event": "node_failed", "node": "a", "error": "HX-4102", "resource": "db"}
    ]
    assert retried[1:-1] == [
        {"event": "node_retrying", "node": "a", "attempt": 1, "error": "HX-4102"},
        {"event": "node_failed", "node": "a", "error": "HX-4102", "resource": "db", "attempt": 2},
    ]


@pytest.mark.parametrize(
    ("case", "switch", "reading", "model"),
    [(A81, "A-81=running", ("A-81", "running"), "A-81=branch"),
     (A82, "A-82=retried", ("A-82", "retried"), "A-82=never")],
    ids=["A-81", "A-82"],
)  # fmt: skip
def test_hx_lite_taking_another_reading_depends_on_it(case, switch, reading, model):
    # Issue 18: hx-lite with the other reading passes under --readings any, is reported
    # as depending on the reading under default, and diverges when held to the model's.
    engine = Engine(f"{sys.executable} {ENGINES / 'harness_engine.py'} --reading {switch}")
    try:
        anyway = judge(engine, HARNESS, case, None, Selection.of(HARNESS))
        strict = judge(engine, HARNESS, case, None, Selection.of(HARNESS, mode=DEFAULT))
        held = judge(engine, HARNESS, case, None, Selection.of(HARNESS, [model]))
    finally:
        engine.stop()
    assert anyway.verdict == "pass" and anyway.reading == (reading,)
    assert strict.verdict == "reading" and strict.reading == (reading,)
    assert held.verdict == "divergence"


def test_the_pre_execution_retry_events_match_the_trace_schema():
    # docs/harness-trace.schema.json: under A-82 "retried" an HX-4101/HX-4102 node_failed
    # carries its attempt.
    schema = json.loads((ROOT / "docs" / "harness-trace.schema.json").read_text())
    unbound = copy.deepcopy(A82)
    unbound["document"] = unbound["document"].replace(
        'resourceRef="db">', '><input name="q" required="true"/>'
    )
    for case in (A82, unbound):
        for retried in (False, True):
            trace = _harness_trace(case, pre_execution_retry=retried)
            Draft202012Validator(schema).validate(trace)


# -- the command line ---------------------------------------------------------------------


def test_check_reports_a_trace_another_reading_permits(tmp_path):
    (tmp_path / "doc.json").write_text(json.dumps(RESOLUTION["document"]))
    (tmp_path / "s.json").write_text(json.dumps(RESOLUTION["scenario"]))
    common = ["--scenario", str(tmp_path / "s.json"), str(tmp_path / "doc.json")]
    made = wforacle("run", "--resolution-retry", "--json", *common)
    assert made.returncode == 0, made.stderr
    (tmp_path / "t.json").write_text(made.stdout)
    trace = ["--trace", str(tmp_path / "t.json")]
    anyway = wforacle("check", *trace, "--json", *common)
    assert anyway.returncode == 0, anyway.stderr
    assert json.loads(anyway.stdout)["readings"] == {"A-41": "retried"}
    depends = wforacle("check", *trace, "--readings", "default", *common)
    assert depends.returncode == 0 and "DEPENDS ON READING A-41 = 'retried'" in depends.stdout
    held = wforacle("check", *trace, "--reading", "A-41=never", *common)
    assert held.returncode == 1 and "DIVERGES" in held.stdout
    wrong = wforacle("check", *trace, "--reading", "A-99=x", *common)
    assert wrong.returncode == 2 and "no reading 'A-99'" in wrong.stderr


def test_readings_lists_every_specifications_readings_as_json():
    done = wforacle("readings", "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert set(found) == set(SPECIFICATIONS)
    for name, spec in SPECIFICATIONS.items():
        assert [r["option"] for r in found[name]] == [r.flag for r in spec.readings]


def test_fuzz_reports_which_reading_of_each_assumption_the_engine_needed(tmp_path):
    engine = f"{sys.executable} {ENGINES / 'w6w_engine.py'} --reading A-41=retried"
    done = wforacle(
        "fuzz", "--engine", engine, "--examples", "300", "--json", "--save", str(tmp_path)
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    table = report["readingTable"]
    assert set(table) == {r.assumption for r in W6W.readings}
    assert table["A-41"]["needed"]["retried"] >= 1 and table["A-41"]["model"] == "never"
    assert table["A-50"]["needed"] == {} and table["A-74"]["needed"] == {}
    assert report["finding"] is None and report["readingMode"] == ANY


def test_check_gives_up_within_its_time_budget(tmp_path):
    # Issue 19: every command is bounded; check says it cannot decide (exit 2).
    steps = [{"id": f"s{n}", "uses": {"app": "demo", "action": "run"}} for n in range(400)]
    edges = [{"from": f"s{n}", "to": f"s{n + 1}"} for n in range(399)]
    document = {"manifestVersion": "2", "id": "wf", "name": "chain", "steps": steps, "edges": edges}
    (tmp_path / "doc.json").write_text(json.dumps(document))
    made = wforacle("run", "--json", str(tmp_path / "doc.json"))
    assert made.returncode == 0, made.stderr
    (tmp_path / "t.json").write_text(made.stdout)
    common = ["--trace", str(tmp_path / "t.json"), str(tmp_path / "doc.json")]
    assert wforacle("check", *common).returncode == 0
    spent = wforacle("check", "--time-budget", "0.001", *common)
    assert spent.returncode == 2 and "cannot decide" in spent.stderr


def test_the_readings_page_lists_exactly_the_registrys_parameters():
    # docs/readings.md's table is what an engine author reads first (a stranger found it
    # stale once): each specification's readings, option and values, the model's first.
    import re

    text = (ROOT / "docs" / "readings.md").read_text(encoding="utf-8")
    rows = re.findall(
        r"^\| (w6w|harness|workfile) \| (A-\d+)[^|]*\| `([^`]+)` \| ([^|]+) \|", text, re.M
    )
    documented = {
        (spec, a, option, tuple(re.findall(r"`([^`]+)`", values)))
        for spec, a, option, values in rows
    }
    registry = {
        (name, r.assumption, r.flag, tuple(r.name(v) for v in r.values))
        for name, spec in SPECIFICATIONS.items()
        for r in spec.readings
    }
    assert documented == registry


def test_a174_a_quoted_key_selects_the_number_it_spells_only_under_text():
    # A-174: a wf.route case key written "7" (a YAML string) matches the subject 7 under
    # the model's reading (text), and only the string "7" under json; either way the
    # unquoted key 7 matches 7.0 as == does (A-117), and never true.
    from wforacle.properties.strategies.workfile_runs import MANIFEST

    def case(key, subject):
        document = (
            "steps:\n  - r:\n      wf.route:\n"
            f'        subject: "{{{{ {subject} }}}}"\n'
            f"        cases:\n          {key}: [ {{ a: {{ svc.get: {{}} }} }} ]\n"
            "        else: [ { b: { svc.get: {} } } ]\n"
        )
        return {"document": document, "manifests": {"svc": MANIFEST}, "scenario": {},
                "schedule": []}  # fmt: skip

    def chosen(document_case, **readings):
        steps, _ = _workfile_finished(document_case, **readings)
        return sorted(s for s in steps if s != "r")

    quoted = case('"7"', "3 + 4")
    assert chosen(quoted) == ["r.7.a"] and chosen(quoted, route_keys="json") == ["r.else.b"]
    assert chosen(case("7", "14 / 2.0")) == ["r.7.a"]  # 7 == 7.0
    assert chosen(case("1", "true")) == ["r.else.b"]  # true is not 1
    assert chosen(case('"true"', "true")) == ["r.true.a"]  # the path says true, not True
    assert chosen(case('"01"', "1")) == ["r.else.b"]  # not JSON's spelling of 1
    (reading,) = [r for r in WORKFILE.readings if r.assumption == "A-174"]
    assert reading.relevant(quoted)
    assert not reading.relevant({**quoted, "document": "steps:\n  - a: { svc.get: {} }\n"})
    taken(WORKFILE, "--reading A-174=json", quoted, "A-174=text", ("A-174", "json"))


def test_an_abort_from_the_default_on_unknown_in_a_construct_is_a121s_to_rescue():
    # A-121 (the constructs enclosing an abort fail, or are cancelled) was tried only for
    # a document that writes "abort"; CI (session 21) drew an unknown code under
    # on_iteration_fail: continue, where the default on_unknown aborts, and the engine
    # taking "cancelled" was reported as a bug.
    from wforacle.properties.strategies.workfile_runs import MANIFEST

    document = (
        "steps:\n- s2:\n    wf.for_each:\n      items: [1]\n"
        "      on_iteration_fail: continue\n      steps:\n      - s1: { svc.get: {} }\n"
    )
    scenario = {"attempts": {"s2.s1": [{"error": "svc.lost"}]}}
    case = {"document": document, "manifests": {"svc": MANIFEST}, "scenario": scenario}
    case["schedule"] = []
    engine = Engine(f"{sys.executable} {ENGINES / 'workfile_engine.py'} --reading A-121=cancelled")
    try:
        found = judge(
            engine,
            WORKFILE,
            case,
            WORKFILE.prepare(case, None),
            Selection.of(WORKFILE, mode=DEFAULT),
        )
    finally:
        engine.stop()
    assert found.verdict == "reading" and found.reading == (("A-121", "cancelled"),)


def test_a56_a_child_run_sees_its_callers_trigger_only_under_inherit():
    # RFC open question 3 (sub-workflows): what a @w6w/call's child run inherits is open
    # (A-56); the model's child sees the manual trigger.  A stranger's engine (session 24)
    # passed its caller's trigger down and was told the child's input differed.
    callee = {
        "manifestVersion": "2",
        "id": "sub",
        "name": "sub",
        "steps": [
            {
                "id": "t",
                "uses": {"app": "demo", "action": "run"},
                "with": {"kind": {"$": "trigger.type"}},
            }
        ],
    }
    call = {
        "id": "c",
        "uses": {"app": "@w6w/call", "action": "sub"},
        "with": {"workflow": "sub", "inputs": {}},
    }
    case = {
        "document": {"manifestVersion": "2", "id": "wf", "name": "call", "steps": [call]},
        "scenario": {
            "trigger": {"type": "webhook", "event": {}},
            "calls": {"sub": {"document": callee}},
        },
        "schedule": [],
    }

    def child_input(**readings):
        (attempt,) = [e for e in _w6w_trace(case, **readings) if e.get("inner")]
        (started,) = [e for e in attempt["inner"] if e["event"] == "step_started"]
        return started["input"]

    assert child_input() == {"kind": "manual"}
    assert child_input(child_trigger="inherit") == {"kind": "webhook"}
    (reading,) = [r for r in W6W.readings if r.assumption == "A-56"]
    assert reading.relevant(case) and not reading.relevant({**case, "scenario": {}})
    taken(W6W, "--reading A-56=inherit", case, "A-56=manual", ("A-56", "inherit"))


def test_a46_a_step_running_at_a_crash_resumes_at_its_attempt_only_under_kept():
    # W6W-CONCEPT-3: the host "resumes from the first non-terminal step"; what becomes of
    # the attempt in flight is open (A-46).  The crash comes at retry_scheduled's
    # checkpoint (the 3rd: run_started, step_started, retry_scheduled), with a at attempt 2.
    retried = [{**ONE_STEP[0], "retry": {"maxAttempts": 3, "backoff": "fixed", "delayMs": 10}}]
    case = {
        "document": {"manifestVersion": "2", "id": "wf", "name": "crash", "steps": retried},
        "scenario": {
            "crashAfterCheckpoints": [3],
            "steps": {"a": {"attempts": [FAILS, FAILS, FAILS, FAILS]}},
        },
        "schedule": [],
    }

    def attempts(**readings):
        trace = _w6w_trace(case, **readings)
        after = [e["event"] for e in trace].index("crashed")
        made = [
            e["attempt"] for e in trace[after:] if e["event"] in ("step_started", "retry_scheduled")
        ]
        return made, trace[-1]["status"]

    # restart: attempts 1, 2, 3 again; kept: 2 then 3 (the lost attempt counted).
    assert attempts() == ([1, 2, 3], "failed")
    assert attempts(resumed_attempt="kept") == ([2, 3], "failed")
    (reading,) = [r for r in W6W.readings if r.assumption == "A-46"]
    assert reading.relevant(case)
    assert not reading.relevant({**case, "scenario": {"steps": case["scenario"]["steps"]}})
    taken(W6W, "--reading A-46=kept", case, "A-46=restart", ("A-46", "kept"))


def test_a166_a_skipped_producer_leaves_an_input_its_value_only_under_obtains():
    # HX-DATA-3: "A downstream required input bound to an unavailable output is a runtime
    # error (HX-4101) unless the input declares a default"; HX-EXEC-2: "or from value".
    # A stranger's Harness engine (helper-68) read the first as written; the model took
    # the value, and the validator warned the run "fails with HX-4101".
    case = {
        "document": '<harness id="h"><node id="p"><guard>params.go == true</guard>'
        '<output name="v"/></node><node id="c"><input name="v" required="true" value="7"/>'
        '</node><edge from="p" to="c" type="data" fromPort="v" toPort="v"/></harness>',
        "scenario": {"nodes": {}, "params": {"go": False}},
        "schedule": [],
    }
    obtained = _harness_trace(case)
    assert [e["inputs"] for e in obtained if e["event"] == "node_started"] == [{"v": 7}]
    strict = _harness_trace(case, unreach_value="default")
    failed = [e for e in strict if e["event"] == "node_failed"]
    assert [(e["node"], e["error"], e["input"]) for e in failed] == [("c", "HX-4101", "v")]
    taken(HARNESS, "--reading A-166=default", case, "A-166=obtains", ("A-166", "default"))


def test_a64_unwinding_cancels_a_running_idempotent_node_only_under_running():
    # HX-FAIL-3: "the runtime begins unwinding, and compensation runs per chapter 8"
    # (chapter 8 not included, A-64); HX-CANCEL-2 forbids cancelling only a RUNNING
    # idempotent="false" node.  A stranger's Harness engine (helper-68) cancelled n1,
    # RUNNING when n0 failed; the model let it finish, and called that a divergence.
    # hx-lite invokes both nodes before it waits, so n1 is RUNNING when n0 fails: under
    # the reading it cancels n1 (a reading, a pass under --readings any, and a divergence
    # when A-64 is pinned to ready).
    case = {
        "document": '<harness id="h"><node id="n0"/><node id="n1"/></harness>',
        "scenario": {"nodes": {"n0": {"attempts": [{"error": {"code": "x"}}]}}},
        "schedule": [],
    }
    taken(HARNESS, "--reading A-64=running", case, "A-64=ready", ("A-64", "running"))


def test_a179_a_case_target_another_edge_reaches_runs_only_under_join():
    # HX-UNREACH-3: unreachable when "named by a case/@to and every decision that could
    # route to it has routed elsewhere"; HX-UNREACH-1: "A node that no path will reach".
    # d routes to a; b, d's other case, is reached by c → b.  A stranger's Harness engine
    # (helper-66, --strict-case-unreach) left b PENDING.
    case = {
        "document": '<harness id="h"><node id="s"/><decision id="d">'
        '<case to="a" when="params.go == true"/><case to="b"/></decision>'
        '<node id="a"/><node id="c"/><node id="b"/>'
        '<edge from="s" to="d"/><edge from="c" to="b"/></harness>',
        "scenario": {"params": {"go": True}},
        "schedule": [],
    }
    assert ("node_started", "b") in _named(_harness_trace(case))
    assert ("node_started", "b") not in _named(_harness_trace(case, case_targets="routed"))
    taken(HARNESS, "--reading A-179=routed", case, "A-179=join", ("A-179", "routed"))
