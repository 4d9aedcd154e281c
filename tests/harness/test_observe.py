"""Issue 18 §3, Harness: every state change is observed, and every node is drivable.

Cancellations under an ``any`` join and while unwinding are reported when
they happen (A-156), so an engine's cancellation bug is caught at the
cancellation; a loop's body and a compensation target are invoked over the
documented protocol (docs/engine-protocol.md, "Harness engines"); A-87 is a
reading.  Hand-written cases only: no Hypothesis draw decides what is tested.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from wforacle.model.kernel.lts import execute
from wforacle.oracle.check import check
from wforacle.oracle.engine import Engine, judge
from wforacle.oracle.readings import DEFAULT, Selection
from wforacle.properties.harness import conformance
from wforacle.properties.harness.specification import HARNESS
from wforacle.properties.specification import Observation

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "examples" / "engines" / "harness_engine.py"


def hx_lite(*args: str) -> Engine:
    return Engine(f"{sys.executable} {ENGINE} {' '.join(args)}")


@pytest.fixture(scope="module")
def correct():
    engine = hx_lite()
    yield engine
    engine.stop()


def case(document: str, scenario: dict | None = None, schedule: list[int] | None = None) -> dict:
    return {"document": document, "scenario": scenario or {}, "schedule": schedule or []}


def model_trace(c: dict, options=None) -> list[dict]:
    return execute(HARNESS.prepare(c, options).semantics).trace


def judged(prepared, trace):
    return check(prepared.semantics, HARNESS.key, trace)


# s → fast → j (any); s → slow1 → slow2 → j.  The first attempt of s, then fast, ends:
# j is READY, and slow1 (RUNNING, idempotent) is CANCELLED (HX-CANCEL-1).
ANY = case(
    '<harness id="h"><node id="s"/><node id="fast"/><node id="slow1"/><node id="slow2"/>'
    '<node id="j" joinPolicy="any"/>'
    '<edge from="s" to="fast"/><edge from="s" to="slow1"/><edge from="slow1" to="slow2"/>'
    '<edge from="fast" to="j"/><edge from="slow2" to="j"/></harness>',
    schedule=[0, 0],
)
# r1 fails HX-4101 before any invocation; r2 and r3 are READY: unwinding cancels both.
UNWIND = case(
    '<harness id="h"><node id="r1"><input name="q" required="true"/></node>'
    '<node id="r2"/><node id="r3"/></harness>'
)


# -- cancellations are events (A-156) -------------------------------------------------


def test_an_any_join_s_cancellation_is_reported_right_after_the_event_that_caused_it():
    trace = model_trace(ANY)
    names = [(e["event"], e.get("node")) for e in trace]
    k = names.index(("node_cancelled", "slow1"))
    assert names[k - 1] == ("node_succeeded", "fast")  # the transition that made j READY
    assert names[k + 1] == ("node_started", "j")
    assert "finished" not in trace[k]


def test_unwinding_reports_every_ready_node_it_cancels_in_any_order():
    prepared = HARNESS.prepare(UNWIND, None)
    trace = execute(prepared.semantics).trace
    assert [e["event"] for e in trace][1:4] == ["node_failed", "node_cancelled", "node_cancelled"]
    swapped = [*trace[:2], trace[3], trace[2], *trace[4:]]
    assert judged(prepared, trace).permitted and judged(prepared, swapped).permitted
    assert {e["node"] for e in trace[2:4]} == {"r2", "r3"}


def test_an_error_handler_cancelled_while_unwinding_is_reported(correct):
    # b, RUNNING when a's failure unwinds the instance, fails too; b's handler is
    # cancelled and reported at once.  hx-lite invokes a and b; a's result comes first.
    c = case(
        '<harness id="h"><node id="a"/><node id="b"/><node id="h1"/>'
        '<edge from="b" to="h1" type="error"/></harness>',
        {"nodes": {"a": {"attempts": [{"error": {"code": "x"}}]},
                   "b": {"attempts": [{"error": {"code": "y"}}]}}},
    )  # fmt: skip
    found = judge(correct, HARNESS, c)
    assert found.verdict == "pass", found.divergence
    names = [(e["event"], e.get("node")) for e in found.observation.trace]
    b_failed = names.index(("node_failed", "b"))
    assert names.index(("node_failed", "a")) < b_failed
    assert names[b_failed + 1] == ("node_cancelled", "h1")
    assert found.observation.state["nodes"]["h1"]["state"] == "CANCELLED"


def test_a_cancellation_reported_late_is_caught_at_the_cancellation():
    # Mis-timed: the engine reports slow1's cancellation after starting j.
    prepared = HARNESS.prepare(ANY, None)
    trace = execute(prepared.semantics).trace
    k = next(n for n, e in enumerate(trace) if e["event"] == "node_cancelled")
    late = [*trace[:k], trace[k + 1], trace[k], *trace[k + 2 :]]
    verdict = judged(prepared, late)
    assert verdict.divergence is not None and verdict.divergence.index == k
    assert verdict.divergence.clauses[0] == "HX-CANCEL-1"
    assert verdict.divergence.permitted == ({"event": "node_cancelled", "node": "slow1"},)


def test_an_engine_that_omits_an_any_cancellation_is_caught_at_it(correct):
    honest = judge(correct, HARNESS, ANY)
    assert honest.verdict == "pass"
    engine = hx_lite("--bug", "cancel-silently")
    try:
        found = judge(engine, HARNESS, ANY)
        unwound = judge(engine, HARNESS, UNWIND)
    finally:
        engine.stop()
    expected = [e["event"] for e in honest.observation.trace].index("node_cancelled")
    assert found.verdict == "divergence"
    assert found.divergence.index == expected
    assert found.divergence.clauses[0] == "HX-CANCEL-1"  # "MUST be moved to CANCELLED"
    assert unwound.verdict == "divergence" and unwound.divergence.index == 2
    assert unwound.divergence.clauses[0] == "HX-FAIL-3"  # "the runtime begins unwinding"


def test_an_engine_that_cancels_a_running_non_idempotent_node_is_caught_at_the_cancellation():
    # HX-CANCEL-2: "MUST NOT cancel a node that is RUNNING and declared idempotent=false".
    race = case(
        '<harness id="h"><node id="s"/><node id="a"/><node id="b" idempotent="false"/>'
        '<node id="j" joinPolicy="any"/><edge from="s" to="a"/><edge from="s" to="b"/>'
        '<edge from="a" to="j"/><edge from="b" to="j"/></harness>',
        schedule=[0, 0],
    )
    engine = hx_lite("--bug", "cancel-non-idempotent")
    try:
        found = judge(engine, HARNESS, race)
    finally:
        engine.stop()
    assert found.verdict == "divergence"
    assert found.divergence.observed == {"event": "node_cancelled", "node": "b"}


# -- loops and compensation over the protocol --------------------------------------------

LOOP = (
    '<harness id="h"><node id="a"><output name="xs"/></node><node id="side"/>'
    '<loop id="l" over="a.xs">'
    '<node id="b"><input name="i" value="1"/><output name="y"/></node>'
    '<loop id="m" over="params.item"><node id="c"><guard>params.item != 9</guard></node></loop>'
    "</loop>"
    '<node id="z"/><edge from="a" to="l"/><edge from="l" to="z"/><edge from="a" to="side"/>'
    "</harness>"
)


def test_a_loop_s_body_is_driven_over_the_protocol_and_passes(correct):
    # Each iteration is a run of the body: b's script starts over in each, so
    # both iterations succeed; counted over the whole run, the second would fail.
    scripted = {
        "a": {"attempts": [{"outputs": {"xs": [[1, 9], [2]]}}]},
        "b": {"attempts": [{"outputs": {"y": 1}}, {"error": {"code": "bx"}}]},
    }
    found = judge(correct, HARNESS, case(LOOP, {"nodes": scripted}, [1, 0]))
    assert found.verdict == "pass", found.divergence
    units = [unit for unit, _ in found.observation.invocations]
    assert units == ["a", "side", "l[0]/b", "l[0]/m[0]/c", "l[1]/b", "l[1]/m[0]/c", "z"]
    loop = next(e for e in found.observation.trace if e.get("node") == "l")
    assert loop["event"] == "node_succeeded" and len(loop["inner"]) == 2


def test_a_loop_whose_iteration_fails_passes_and_reports_that_iteration(correct):
    scripted = {"a": {"attempts": [{"outputs": {"xs": [[1], [2], 3]}}]}}
    found = judge(correct, HARNESS, case(LOOP, {"nodes": scripted}))
    assert found.verdict == "pass", found.divergence
    failed = next(e for e in found.observation.trace if e.get("node") == "l")
    assert failed["error"] == "loop_over_not_a_list" and failed["iteration"] == 2


def test_a_compensation_target_is_invoked_with_the_inputs_its_event_reports(correct):
    c = case(
        '<harness id="h"><node id="a"><output name="v"/></node><node id="b"/>'
        '<node id="undo"><input name="x" value="1"/><input name="v" required="true"/></node>'
        '<edge from="a" to="b"/><edge from="a" to="undo" type="compensation"/></harness>',
        {"nodes": {"b": {"attempts": [{"error": {"code": "boom"}}]}}},
    )
    found = judge(correct, HARNESS, c)
    assert found.verdict == "pass", found.divergence
    compensated = found.observation.trace[-2]
    assert compensated == {
        "event": "node_compensated",
        "node": "undo",
        "inputs": {"x": 1},  # v has no value: left out
        "status": "SUCCEEDED",
    }
    assert found.observation.invocations[-1] == ("undo", {"x": 1})
    prepared = HARNESS.prepare(c, None)
    wrong = Observation(
        found.observation.trace,
        (*found.observation.invocations[:-1], ("undo", {})),
        found.observation.state,
    )
    mismatch = HARNESS.compare(prepared, wrong, found.finals)
    assert mismatch is not None and mismatch.clauses[0] == "HX-EXEC-2"


def test_a_loop_body_invoked_with_inputs_its_iteration_does_not_report_diverges(correct):
    scripted = {"a": {"attempts": [{"outputs": {"xs": [[1], [2]]}}]}}
    c = case(LOOP, {"nodes": scripted})
    found = judge(correct, HARNESS, c)
    invocations = [
        (unit, {"i": 2} if unit == "l[1]/b" else inputs)
        for unit, inputs in found.observation.invocations
    ]
    seen = Observation(found.observation.trace, tuple(invocations), found.observation.state)
    mismatch = HARNESS.compare(HARNESS.prepare(c, None), seen, found.finals)
    assert mismatch is not None and "l[1]/b" in mismatch.message


@pytest.mark.parametrize(
    ("message", "unit"),
    [
        ({"node": "b"}, "b"),
        ({"node": "b", "within": []}, "b"),
        ({"node": "c", "within": [["l", 0], ["m", 3]]}, "l[0]/m[3]/c"),
        ({"node": "b", "within": [["l", -1]]}, None),
        ({"node": "b", "within": [["l", True]]}, None),
        ({"node": "b", "within": "l"}, None),
        ({"node": 3}, None),
    ],
)
def test_an_invoke_names_its_node_within_its_loops_iterations(message, unit):
    assert conformance.qualify(message) == unit


def test_only_a_body_node_of_the_named_loop_is_a_unit_of_the_case():
    prepared = HARNESS.prepare(case(LOOP), None)
    known = HARNESS.protocol().known
    assert known(prepared, "l[0]/b") and known(prepared, "l[3]/m[0]/c")
    assert not known(prepared, "l[0]/c")  # c is in m's body, not l's
    assert not known(prepared, "m[0]/c") and not known(prepared, "l[01]/b")
    assert not known(prepared, "b")  # a body node needs its iteration


def test_the_new_events_match_the_trace_schema(correct):
    from jsonschema import Draft202012Validator

    schema = json.loads((ROOT / "docs" / "harness-trace.schema.json").read_text())
    validator = Draft202012Validator(schema)
    failing = {"a": {"attempts": [{"outputs": {"xs": [[1], 7]}}]}}
    comp = case(
        '<harness id="h"><node id="a"/><node id="b"/><node id="u"><input name="x" value="1"/>'
        '</node><edge from="a" to="b"/><edge from="a" to="u" type="compensation"/></harness>',
        {"nodes": {"b": {"attempts": [{"error": {"code": "e"}}]}}},
    )
    for c in (ANY, UNWIND, case(LOOP, {"nodes": failing}), comp):
        validator.validate(model_trace(c))
        validator.validate(list(judge(correct, HARNESS, c).observation.trace))


# -- A-87 is a reading --------------------------------------------------------------------

# params.r is never given: under (a) `== null` holds; under (c) every comparison is false.
ABSENT = case(
    '<harness id="h"><node id="g"><guard>params.r == null</guard></node>'
    '<node id="k"><guard>params.r != 1</guard></node></harness>'
)


def test_a87_the_model_s_readings_differ_where_the_assumption_says():
    null = [e["event"] for e in model_trace(ABSENT)]
    incomparable = [
        e["event"]
        for e in model_trace(ABSENT, HARNESS.options({"absent_reference": "incomparable"}))
    ]
    assert null.count("node_skipped") == 0 and null.count("node_succeeded") == 2
    assert incomparable.count("node_skipped") == 2 and incomparable.count("node_started") == 0


def test_a87_an_engine_reading_c_passes_under_any_and_depends_on_the_reading_by_default():
    engine = hx_lite("--reading", "A-87=incomparable")
    try:
        anyway = judge(engine, HARNESS, ABSENT, None, Selection.of(HARNESS))
        depends = judge(engine, HARNESS, ABSENT, None, Selection.of(HARNESS, mode=DEFAULT))
        held = judge(engine, HARNESS, ABSENT, None, Selection.of(HARNESS, ["A-87=null"]))
        pinned = judge(engine, HARNESS, ABSENT, None, Selection.of(HARNESS, ["A-87=incomparable"]))
    finally:
        engine.stop()
    assert anyway.verdict == "pass" and anyway.reading == (("A-87", "incomparable"),)
    assert depends.verdict == "reading" and depends.reading == (("A-87", "incomparable"),)
    assert held.verdict == "divergence"
    assert pinned.verdict == "pass" and not pinned.reading


def test_the_transition_that_settles_a_join_cites_readiness_and_negative_edges():
    # Readiness and negative edges have no event (docs/harness.md); the transition
    # whose end resolved the edges cites them, after its own clauses — coverage counts
    # them (they were "never reached" in every campaign).
    from wforacle.properties.harness.specification import HARNESS

    document = (
        '<harness id="h"><node id="a"/><node id="b"/><node id="c"/>'
        '<edge from="a" to="b"/><edge from="a" to="c" condition="params.go == 1"/></harness>'
    )
    case = {"document": document, "scenario": {"params": {"go": 0}}, "schedule": []}
    semantics = HARNESS.prepare(case, None).semantics
    config, cited = semantics.initial(), {}
    while steps := semantics.enabled(config):
        cited[steps[0].event["event"], steps[0].event.get("node")] = steps[0].clauses
        config = steps[0].target
    finished = cited["node_succeeded", "a"]
    assert finished[0] not in ("HX-READY-1", "HX-READY-3")  # the rule's own clause first
    for clause in ("HX-READY-1", "HX-READY-3", "HX-READY-4", "HX-UNREACH-1"):
        assert clause in finished, finished
    assert "HX-READY-1" not in cited["node_succeeded", "b"]  # b's end readies nothing


def _cited(document, scenario, scheduler=lambda steps: 0):
    """Each event's clauses in one run (the scheduler picks among the permitted)."""
    from wforacle.properties.harness.specification import HARNESS

    case = {"document": document, "scenario": scenario, "schedule": []}
    semantics = HARNESS.prepare(case, None).semantics
    config, cited = semantics.initial(), {}
    while steps := semantics.enabled(config):
        step = steps[scheduler(steps)]
        cited[step.event["event"], step.event.get("node")] = step.clauses
        config = step.target
    return cited


def test_settling_cites_the_clause_of_each_unreachability_and_what_a_start_reads():
    # 5.3.3's list: each node made unreachable within a transition cites the item that
    # made it so (a campaign never counted HX-UNREACH-4/5, HX-JOIN-3/4/6 although runs
    # went through them); a start reading a SKIPPED producer's edge cites HX-DATA-2; a
    # start while another node runs, HX-SCHED-3 ("no global concurrency control").
    negative = _cited(
        '<harness id="h"><node id="a"/><node id="b"/>'
        '<edge from="a" to="b" condition="params.go == 1"/></harness>',
        {"params": {"go": 0}},
    )
    for clause in ("HX-UNREACH-4", "HX-JOIN-3", "HX-JOIN-4", "HX-JOIN-6"):
        assert clause in negative["node_succeeded", "a"], negative
    starved = _cited(
        '<harness id="h"><node id="a"/><node id="p"><output name="v"/></node><node id="c">'
        '<input name="v" required="true"/></node><edge from="a" to="p" condition="false"/>'
        '<edge from="a" to="c"/><edge from="p" to="c" type="data" fromPort="v" toPort="v"/>'
        "</harness>",
        {},
    )
    assert "HX-UNREACH-5" in starved["node_succeeded", "a"], starved
    skipped = _cited(
        '<harness id="h"><node id="p"><guard>false</guard><output name="v"/></node>'
        '<node id="c"><input name="v" default="1"/></node>'
        '<edge from="p" to="c" type="data" fromPort="v" toPort="v"/></harness>',
        {},
    )
    assert "HX-DATA-2" in skipped["node_started", "c"], skipped
    alone = _cited('<harness id="h"><node id="a"/><node id="b"/></harness>', {})
    assert "HX-SCHED-3" not in alone["node_started", "b"]  # a succeeded first
    together = _cited(
        '<harness id="h"><node id="a"/><node id="b"/></harness>',
        {},
        lambda steps: next(
            (k for k, s in enumerate(steps) if s.event["event"] == "node_started"), 0
        ),
    )
    assert (
        "HX-SCHED-3" in together["node_started", "b"]
        or "HX-SCHED-3" in together["node_started", "a"]
    ), together


def test_a_handler_never_called_is_cited_as_a_handler_not_a_root_outside_entry():
    # HX-START-3: "A node reachable only by an error or compensation edge is a handler,
    # not a start".  c's required input comes from h, a handler a's success never calls:
    # c is unreachable (HX-UNREACH-5).  A stranger's engine that started c was shown
    # HX-START-1 ("if @entry is present, that single node") for a document without one.
    document = (
        '<harness id="h"><node id="a"/><node id="h"><output name="v"/></node>'
        '<node id="c"><input name="v" required="true"/></node>'
        '<edge from="a" to="h" type="error"/><edge from="a" to="c"/>'
        '<edge from="h" to="c" type="data" fromPort="v" toPort="v"/></harness>'
    )
    run = HARNESS.prepare(case(document), None).semantics
    clauses, text = conformance.why_not(run, {"event": "node_started", "node": "c"})
    assert clauses[0] == "HX-UNREACH-5" and "HX-START-3" in clauses, (clauses, text)
    assert "HX-START-1" not in clauses
    root = document.replace(' type="error"', "").replace(
        '<harness id="h">', '<harness id="h" entry="a">'
    )
    root = root.replace('<edge from="a" to="h"/>', "")
    clauses, _ = conformance.why_not(
        HARNESS.prepare(case(root), None).semantics, {"event": "node_started", "node": "c"}
    )
    assert "HX-START-1" in clauses and "HX-START-3" not in clauses
