"""The Harness model: loading, static checks (networkx, z3) and the chapter-5 semantics."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wforacle.model.harness.loader import MAX_DEPTH, load
from wforacle.model.harness.semantics import (
    CANCELLED,
    FAILED,
    PENDING,
    SKIPPED,
    SUCCEEDED,
    HarnessRun,
    Options,
    Scenario,
    config_key,
    outcome,
)
from wforacle.model.kernel.explore import canonical, explore
from wforacle.model.kernel.lts import execute, seeded
from wforacle.properties.harness.validate import validate


def doc(*parts: str, entry: str | None = None) -> str:
    attribute = f' entry="{entry}"' if entry else ""
    return f'<harness id="h"{attribute}>' + "".join(parts) + "</harness>"


def node(node_id: str, body: str = "", **attributes: str) -> str:
    extra = "".join(f' {k.rstrip("_")}="{v}"' for k, v in attributes.items())
    return f'<node id="{node_id}"{extra}>{body}</node>'


def edge(source: str, target: str, type_: str = "control", **attributes: str) -> str:
    extra = "".join(f' {k}="{v}"' for k, v in attributes.items())
    return f'<edge from="{source}" to="{target}" type="{type_}"{extra}/>'


def codes(text: str) -> list[str]:
    return validate(text).report.codes()


CHAPTER = Options()


def instance(text: str, scenario: dict | None = None, options: Options = CHAPTER) -> HarnessRun:
    result = validate(text)
    assert result.report.valid, result.report.codes()
    return HarnessRun(result.harness, Scenario.of(scenario or {}), options)


def outcomes(run: HarnessRun) -> list[dict]:
    found = explore(run, lambda c: outcome(run, c), config_key)
    assert found.complete
    return [o.value for o in found.outcomes]


def states(value: dict) -> dict[str, str]:
    return {k: v["state"] for k, v in value["nodes"].items()}


# -- loading: XML, safely --------------------------------------------------------------------


def test_entities_and_doctypes_are_refused():
    bomb = '<!DOCTYPE h [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><harness id="h">&b;</harness>'
    assert codes(bomb) == ["xml_forbidden"]


def test_nesting_deeper_than_the_bound_is_refused():
    deep = "<harness id='h'>" + "<loop id='l' over='params.x'>" * MAX_DEPTH + "</loop>" * MAX_DEPTH
    assert codes(deep + "</harness>") == ["too_deep"]


@pytest.mark.parametrize(
    "text",
    [
        '<harness xmlns="urn:other" id="h"/>',
        '<h:harness xmlns:h="urn:x" id="h"/>',
        '<harness id="h"><n:node xmlns:n="urn:x" id="a"/></harness>',
    ],
)
def test_an_element_in_a_namespace_is_not_a_harness_element(text):
    # Issue 19: a document in another vocabulary's namespace validated and ran; the
    # chapter's elements are in no namespace.
    assert codes(text) == ["wrong_namespace"]


def test_malformed_xml_and_unknown_elements_are_reported_with_paths():
    assert codes("<harness id='h'><node id='a'>") == ["xml_malformed"]
    _, problems = load(doc(node("a"), "<widget/>"))
    assert [(p.code, p.path) for p in problems] == [("unknown_element", "/harness/widget[1]")]


def test_a_bad_guard_is_reported_at_its_element():
    _, problems = load(doc(node("a", "<guard>x &lt;</guard>")))
    assert problems[0].code == "bad_expression"
    assert problems[0].path == "/harness/node[@id='a']/guard[1]"


# -- the validation gate ----------------------------------------------------------------------


def test_quorum_is_required_and_bounded_by_the_incoming_edges():
    # HX-JOIN-2: HX-2401 and HX-2402.
    base = [node("a"), node("b"), edge("a", "j"), edge("b", "j")]
    assert "HX-2401" in codes(doc(*base, node("j", joinPolicy="quorum")))
    assert "HX-2402" in codes(doc(*base, node("j", joinPolicy="quorum", quorum="3")))
    assert codes(doc(*base, node("j", joinPolicy="quorum", quorum="2"))) == []


def test_an_invalid_document_never_runs(tmp_path, capsys):
    # HX-INST-3: "A runtime MUST NOT execute a document that fails validation."
    from wforacle.oracle.cli import main

    path = tmp_path / "bad.xml"
    path.write_text(doc(node("a"), node("j", joinPolicy="quorum"), edge("a", "j")))
    assert main(["run", str(path)]) == 1
    assert "HX-2401" in capsys.readouterr().out


def test_entry_set_and_handlers():
    # HX-START-2: every node with no incoming edge; HX-START-3: a node reachable only by
    # an error or compensation edge is a handler, not a start.
    text = doc(node("a"), node("b"), node("h"), edge("a", "b"), edge("a", "h", "error"))
    structure = validate(text).structure
    assert structure.entry == ("a",) and structure.handlers == {"h"}
    assert validate(doc(node("a"), node("b"), edge("a", "b"), entry="b")).structure.entry == ("b",)


def test_a_guarded_producer_feeding_a_required_input_is_warned():
    # HX-DATA-4: "A validator SHOULD warn about the pattern".
    text = doc(
        node("p", "<guard>params.go == true</guard><output name='v'/>"),
        node("c", "<input name='v' required='true'/>"),
        edge("p", "c", "data", fromPort="v", toPort="v"),
    )
    assert "guarded_producer" in codes(text)


# -- z3 -----------------------------------------------------------------------------------


def test_a_guard_no_value_satisfies_is_found():
    text = doc(node("a", "<guard>params.x &gt; 5 and params.x &lt; 3</guard>"))
    assert "guard_never_true" in codes(text)
    assert "guard_never_true" not in codes(doc(node("a", "<guard>params.x &gt; 5</guard>")))


def test_decision_overlap_and_exhaustiveness_have_witnesses():
    text = doc(
        node("src"),
        '<decision id="d"><case to="a" when="params.n &gt; 1"/>'
        '<case to="b" when="params.n &gt; 5"/></decision>',
        node("a"),
        node("b"),
        edge("src", "d"),
    )
    report = validate(text).report
    overlap = next(d for d in report.diagnostics if d.code == "cases_overlap")
    assert "params.n" in overlap.message
    missed = next(d for d in report.diagnostics if d.code == "cases_not_exhaustive")
    assert "params.n" in missed.message


def test_a_quorum_over_exclusive_cases_never_fires():
    # At most one case of a decision routes, so a quorum of two over its two cases can
    # never be met, though HX-2402 is satisfied.
    text = doc(
        node("src"),
        '<decision id="d"><case to="j" when="params.n &gt; 1"/><case to="j"/></decision>',
        node("j", joinPolicy="quorum", quorum="2"),
        edge("src", "d"),
    )
    assert "join_never_fires" in codes(text)


# -- semantics --------------------------------------------------------------------------------


DECIDE = doc(
    node("src"),
    '<decision id="d"><case to="left" when="params.go == true"/><case to="right"/></decision>',
    node("left"),
    node("right"),
    node("join"),
    edge("src", "d"),
    edge("left", "join"),
    edge("right", "join"),
)


def test_an_untaken_branch_stays_pending_and_the_join_resolves_on_the_taken_one():
    # HX-UNREACH-2: no deadlock; HX-DONE-2: never-reached nodes remain PENDING.
    (only,) = outcomes(instance(DECIDE, {"params": {"go": True}}))
    assert states(only) == {
        "src": SUCCEEDED,
        "d": SUCCEEDED,
        "left": SUCCEEDED,
        "right": PENDING,
        "join": SUCCEEDED,
    }
    assert only["status"] == "completed"


def test_an_all_negative_join_stays_pending_not_skipped():
    # HX-JOIN-3 — and the earlier draft's reading, selectable, differs observably.
    text = doc(
        node("src"),
        '<decision id="d"><case to="a" when="params.go == true"/></decision>',
        node("a"),
        node("after"),
        edge("src", "d"),
        edge("a", "after"),
    )
    (chapter,) = outcomes(instance(text))
    assert states(chapter)["a"] == PENDING and states(chapter)["after"] == PENDING
    # The draft made the untaken branch look as if it had run: "a" SKIPPED, and its
    # successor then runs.
    (draft,) = outcomes(instance(text, options=Options(all_negative="skipped")))
    assert states(draft)["a"] == SKIPPED and states(draft)["after"] == SUCCEEDED


def test_the_drafts_reading_skips_joins_not_handlers_nothing_reaches():
    # A-61 (4) speaks of joins: a handler whose error source succeeded has no
    # incoming forward edge and stays PENDING under either reading.
    text = doc(node("src"), node("handler"), edge("src", "handler", "error"))
    for options in (Options(), Options(all_negative="skipped")):
        (only,) = outcomes(instance(text, options=options))
        assert states(only)["handler"] == PENDING


def test_a_false_guard_skips_and_its_control_successors_still_run():
    # HX-EXEC-1, HX-JOIN-5.
    text = doc(node("a", "<guard>params.go == true</guard>"), node("b"), edge("a", "b"))
    (only,) = outcomes(instance(text))
    assert states(only) == {"a": SKIPPED, "b": SUCCEEDED}


@pytest.mark.parametrize(("default", "expected"), [("", FAILED), (' default="7"', SUCCEEDED)])
def test_a_skipped_producers_output_is_unavailable(default, expected):
    # HX-DATA-2/3: HX-4101 unless the input declares a default; never a silent null.
    text = doc(
        node("p", "<guard>params.go == true</guard><output name='v'/>"),
        node("c", f"<input name='v' required='true'{default}/>"),
        edge("p", "c", "data", fromPort="v", toPort="v"),
    )
    run = instance(text)
    trace = execute(run).trace
    (only,) = outcomes(run)
    assert states(only)["c"] == expected
    if expected == FAILED:
        assert only["nodes"]["c"]["error"] == "HX-4101"
        assert not any(e.get("node") == "c" and e["event"] == "node_started" for e in trace)
    else:
        started = next(e for e in trace if e["event"] == "node_started" and e["node"] == "c")
        assert started["inputs"] == {"v": 7}


def test_an_unresolvable_resource_fails_before_execution():
    # HX-EXEC-3, HX-EXEC-7: HX-4102, no side effect.
    run = instance(doc(node("a", resourceRef="db")), {"failingResources": ["db"]})
    trace = execute(run).trace
    assert [e["event"] for e in trace][1] == "node_failed" and trace[1]["error"] == "HX-4102"


RACE = doc(
    node("a"),
    node("b", idempotent="false"),
    node("j", joinPolicy="any"),
    edge("a", "j"),
    edge("b", "j"),
)


def test_any_never_interrupts_a_running_non_idempotent_node():
    # HX-CANCEL-1/2: a running idempotent="false" sibling finishes; its result is discarded.
    run = instance(RACE)
    seen_discard = False
    for seed in range(60):
        execution = execute(run, seeded(seed))
        for event in execution.trace:
            if event.get("node") == "b" and event["event"] == "node_cancelled":
                started = any(
                    e["event"] == "node_started" and e.get("node") == "b" for e in execution.trace
                )
                # RUNNING: it finishes, its result discarded (HX-CANCEL-2); READY: cancelled
                # before it starts, and reported then.
                assert event.get("finished") is (True if started else None)
                seen_discard = seen_discard or started
        final = outcome(run, execution.final)
        assert final["nodes"]["j"]["state"] == SUCCEEDED
        if final["nodes"]["b"]["state"] == CANCELLED:
            assert final["nodes"]["b"]["outputs"] is None
    assert seen_discard


def test_an_error_edge_handles_the_failure():
    # HX-FAIL-2.
    text = doc(node("a"), node("h"), node("after"), edge("a", "h", "error"), edge("a", "after"))
    (only,) = outcomes(instance(text, {"nodes": {"a": {"attempts": [{"error": {"code": "x"}}]}}}))
    assert only["status"] == "completed"
    assert states(only) == {"a": FAILED, "h": SUCCEEDED, "after": PENDING}


def test_an_unhandled_failure_unwinds_with_compensation_in_reverse_order():
    # HX-FAIL-3 (chapter 8 not included: A-64).
    text = doc(
        node("one"),
        node("two"),
        node("boom"),
        node("undo1"),
        node("undo2"),
        edge("one", "two"),
        edge("two", "boom"),
        edge("one", "undo1", "compensation"),
        edge("two", "undo2", "compensation"),
    )
    run = instance(text, {"nodes": {"boom": {"attempts": [{"error": {"code": "x"}}]}}})
    trace = execute(run).trace
    assert [e["node"] for e in trace if e["event"] == "node_compensated"] == ["undo2", "undo1"]
    assert trace[-1] == {"event": "instance_completed", "status": "failed", "failedNode": "boom"}


def test_retries_up_to_max_attempts():
    text = doc(node("a", "<retry maxAttempts='3'/>"))
    failing = {"nodes": {"a": {"attempts": [{"error": {"code": "x"}}]}}}
    (only,) = outcomes(instance(text, failing))
    assert only["nodes"]["a"]["attempts"] == 3 and only["nodes"]["a"]["state"] == FAILED


def test_a_loop_runs_its_body_per_item_in_sequence_order():
    text = doc(
        '<loop id="l" over="params.items" maxConcurrency="1">'
        + node("body", "<output name='x'/>")
        + "</loop>"
    )
    run = instance(text, {"params": {"items": [1, 2, 3]}})
    (only,) = outcomes(run)
    assert len(only["nodes"]["l"]["outputs"]["items"]) == 3


def test_a_loop_over_something_other_than_a_list_fails():
    # the chapter is silent; the loop fails (HX-EXEC-6), its body never runs.
    text = doc('<loop id="l" over="params.items">' + node("body") + "</loop>")
    run = instance(text, {"params": {"items": 5}})
    (only,) = outcomes(run)
    assert only["nodes"]["l"]["state"] == "FAILED"
    assert only["nodes"]["l"]["error"] == "loop_over_not_a_list"
    steps = execute(run, seeded(0)).steps
    failed = next(t for t in steps if t.event.get("error") == "loop_over_not_a_list")
    assert failed.clauses == ("HX-EXEC-6",)


def test_any_ready_node_may_run_first():
    # HX-SCHED-1: two independent READY nodes run in either order; the explorer sees both.
    text = doc(node("a"), node("b"))
    run = instance(text)
    orders = set()
    for seed in range(40):
        trace = execute(run, seeded(seed)).trace
        orders.add(tuple(e["node"] for e in trace if e["event"] == "node_started"))
    assert orders == {("a", "b"), ("b", "a")}


# -- properties over generated documents --------------------------------------------------------


@st.composite
def harnesses(draw):
    n = draw(st.integers(2, 6))
    ids = [f"n{i}" for i in range(n)]
    parts = []
    for i, node_id in enumerate(ids):
        join = draw(st.sampled_from(["all", "any"]))
        guard = "<guard>params.go == true</guard>" if draw(st.integers(0, 4)) == 0 else ""
        retry = "<retry maxAttempts='2'/>" if draw(st.booleans()) else ""
        parts.append(
            node(
                node_id,
                guard + retry,
                joinPolicy=join,
                idempotent=draw(st.sampled_from(["true", "false"])),
            )
        )
        if i:
            for source in draw(
                st.lists(st.sampled_from(ids[:i]), min_size=1, max_size=2, unique=True)
            ):
                kind = draw(st.sampled_from(["control", "control", "dependency", "error"]))
                parts.append(edge(source, node_id, kind))
    failing = draw(st.lists(st.sampled_from(ids), max_size=2, unique=True))
    scenario = {
        "params": {"go": draw(st.booleans())},
        "nodes": {f: {"attempts": [{"error": {"code": "x"}}]} for f in failing},
    }
    return doc(*parts), scenario


@settings(deadline=None, max_examples=60)
@given(harnesses())
def test_every_instance_completes_and_every_outcome_is_reached_by_some_schedule(case):
    text, scenario = case
    result = validate(text)
    if not result.report.valid:
        return
    run = HarnessRun(result.harness, Scenario.of(scenario))
    explored = explore(run, lambda c: outcome(run, c), config_key, max_states=50_000)
    assert explored.complete
    values = {canonical(o.value) for o in explored.outcomes}
    for found in explored.outcomes:
        # HX-DONE-1: complete means nothing READY, RUNNING or RETRYING.
        assert not {"READY", "RUNNING", "RETRYING"} & set(states(found.value).values())
    sampled = {canonical(outcome(run, execute(run, seeded(s)).final)) for s in range(150)}
    assert sampled <= values
    assert sampled == values or len(values) > 8


def test_any_cancels_an_idempotent_sibling_that_could_only_reach_the_join():
    # HX-CANCEL-1: "sibling branches still running that could only have reached this
    # node MUST be moved to CANCELLED".
    run = instance(RACE.replace('idempotent="false"', 'idempotent="true"'))
    found = {states(o)["b"] for o in outcomes(run)}
    assert CANCELLED in found and SUCCEEDED in found  # b lost the race, or won it


# -- readiness and unreachability, clause by clause ------------------------------------------------


def test_a_false_condition_resolves_negative_and_neither_blocks_nor_counts():
    # HX-READY-1, HX-READY-3, HX-READY-4, HX-JOIN-1: the all-join fires on the other edge.
    text = doc(
        node("a"),
        node("c"),
        node("b"),
        edge("a", "b", condition="params.go == true"),
        edge("c", "b"),
    )
    (only,) = outcomes(instance(text, {"params": {"go": False}}))
    assert states(only)["b"] == SUCCEEDED


def test_error_edges_do_not_take_part_in_readiness():
    # HX-READY-2: only control, data and dependency edges participate.
    text = doc(node("a"), node("h"), node("b"), edge("a", "b"), edge("h", "b", "error"))
    (only,) = outcomes(instance(text))
    assert states(only)["b"] == SUCCEEDED and states(only)["h"] == SUCCEEDED


def test_unreachability_propagates_down_a_chain():
    # HX-UNREACH-1, HX-UNREACH-4, HX-JOIN-4, HX-JOIN-6: x, y, z never reached stay PENDING,
    # and the join behind them fires on the taken branch.
    text = doc(
        node("src"),
        '<decision id="d"><case to="x" when="params.go == true"/><case to="w"/></decision>',
        node("x"),
        node("y"),
        node("z"),
        node("w"),
        node("j"),
        edge("src", "d"),
        edge("x", "y"),
        edge("y", "z"),
        edge("z", "j"),
        edge("w", "j"),
    )
    (only,) = outcomes(instance(text, {"params": {"go": False}}))
    assert [states(only)[n] for n in "xyz"] == [PENDING] * 3
    assert states(only)["j"] == SUCCEEDED


@pytest.mark.parametrize(("default", "expected"), [("", PENDING), (' default="1"', SUCCEEDED)])
def test_a_required_input_fed_by_an_unreachable_source_is_unreachable(default, expected):
    # HX-UNREACH-5: "the node can never obtain a value it declared it needs".
    text = doc(
        node("src"),
        '<decision id="d"><case to="p" when="params.go == true"/><case to="q"/></decision>',
        node("p", "<output name='v'/>"),
        node("q"),
        node("c", f"<input name='v' required='true'{default}/>"),
        edge("src", "d"),
        edge("p", "c", "data", fromPort="v", toPort="v"),
        edge("q", "c"),
    )
    (only,) = outcomes(instance(text, {"params": {"go": False}}))
    assert states(only)["c"] == expected


def test_only_declared_outputs_are_bound():
    # HX-EXEC-4, HX-EXEC-5: "Declared outputs become available to outgoing data edges".
    text = doc(node("a", "<output name='v'/>"))
    run = instance(text, {"nodes": {"a": {"attempts": [{"outputs": {"v": 1, "extra": 2}}]}}})
    (only,) = outcomes(run)
    assert only["nodes"]["a"]["outputs"] == {"v": 1}


def test_an_entry_attribute_starts_that_single_node():
    # HX-START-1: "if @entry is present, that single node"; HX-INST-1: every node has a state.
    text = doc(node("a"), node("b"), entry="b")
    (only,) = outcomes(instance(text))
    assert states(only) == {"a": PENDING, "b": SUCCEEDED}


def test_validation_is_a_gate():
    # HX-INST-2, HX-INST-3: an invalid document has no structure to run.
    result = validate(doc(node("a"), node("j", joinPolicy="quorum"), edge("a", "j")))
    assert not result.report.valid and result.structure is None


def test_loop_concurrency_and_sequence_order():
    # HX-SCHED-2, HX-SCHED-4: maxConcurrency="1" executes iterations in sequence order.
    text = doc(
        '<loop id="l" over="params.items" maxConcurrency="1">'
        + node("body", "<guard>params.item &gt; 1</guard>")
        + "</loop>"
    )
    trace = execute(instance(text, {"params": {"items": [1, 2]}})).trace
    loop = next(e for e in trace if e.get("node") == "l")
    assert [[e["event"] for e in it if e["event"].startswith("node_")] for it in loop["inner"]] == [
        ["node_skipped"],
        ["node_started", "node_succeeded"],
    ]


def test_a_guarded_producer_feeding_an_input_with_a_value_is_not_warned():
    # The input takes its value when the producer is SKIPPED: the run does not
    # fail, so guarded_producer, which says it does, is not said.
    text = doc(
        node("p", "<guard>params.go == true</guard><output name='v'/>"),
        node("c", "<input name='v' required='true' value='1'/>"),
        edge("p", "c", "data", fromPort="v", toPort="v"),
    )
    assert "guarded_producer" not in codes(text)


def test_a_condition_on_an_error_edge_is_said_to_be_unread():
    # HX-FAIL-2 "all are traversed"; not "always resolved-negative", which it is not.
    text = doc(node("a"), node("b"), edge("a", "b", "error", condition="false"))
    assert "condition_not_read" in codes(text)
    assert "condition_never_true" not in codes(text)
    control = doc(node("a"), node("b"), edge("a", "b", condition="false"))
    assert "condition_never_true" in codes(control) and "condition_not_read" not in codes(control)
