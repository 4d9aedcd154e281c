"""Harness model faults of issue 10, each with its witness in the chapter's vocabulary.

Each test failed on the model before its fix; the clause each one exercises
is named with a short quote.
"""

from __future__ import annotations

# The document builders and model helpers the Harness tests share.
from tests.harness.test_harness import doc, edge, instance, node, outcomes, states
from wforacle.model.harness.semantics import (
    CANCELLED,
    FAILED,
    PENDING,
    SUCCEEDED,
    HarnessRun,
    Options,
    config_key,
)
from wforacle.model.kernel.lts import execute, seeded
from wforacle.oracle.check import check
from wforacle.properties.harness.validate import validate


def traces(run: HarnessRun, seeds: int = 80) -> list[list[dict]]:
    return [execute(run, seeded(s)).trace for s in range(seeds)]


FAILS = {"attempts": [{"error": {"code": "x"}}]}


# -- item 4: loops with maxConcurrency > 1 -------------------------------------------------------

LOOP = doc(
    '<loop id="l" over="params.items" maxConcurrency="{k}">'
    + node("b0", "<guard>params.index == 0</guard>")
    + node("b1", "<guard>params.index == 1</guard>")
    + "</loop>"
)
LOOP_SCENARIO = {
    "params": {"items": ["p", "q"]},
    "nodes": {
        "b0": {"attempts": [{"error": {"code": "e0"}}]},
        "b1": {"attempts": [{"error": {"code": "e1"}}]},
    },
}


def test_with_max_concurrency_two_either_failing_iteration_may_be_reported():
    # HX-SCHED-2: "A loop's maxConcurrency bounds concurrent iterations" — two may run at
    # once, so the second can fail first; HX-SCHED-4: with maxConcurrency="1" only the
    # first in sequence order.
    two = {o["nodes"]["l"]["error"] for o in outcomes(instance(LOOP.format(k=2), LOOP_SCENARIO))}
    assert two == {"e0", "e1"}
    one = {o["nodes"]["l"]["error"] for o in outcomes(instance(LOOP.format(k=1), LOOP_SCENARIO))}
    assert one == {"e0"}


def test_the_checker_admits_a_runtime_that_reports_the_second_iteration():
    run = instance(LOOP.format(k=2), LOOP_SCENARIO)
    reported = set()
    for trace in traces(run, 60):
        failed = next(e for e in trace if e.get("node") == "l")
        reported.add(failed["iteration"])
        assert check(run, config_key, trace).divergence is None
    assert reported == {0, 1}


def test_the_sequence_reading_of_loop_starts_is_selectable():
    # iterations start in sequence order (the default) or in any order.
    three = doc(
        '<loop id="l" over="params.items" maxConcurrency="2">'
        + "".join(node(f"b{i}", f"<guard>params.index == {i}</guard>") for i in range(3))
        + "</loop>"
    )
    scenario = {
        "params": {"items": [0, 1, 2]},
        "nodes": {
            "b0": {"attempts": [{"outputs": {}}]},
            "b1": {"attempts": [{"error": {"code": "e1"}}]},
            "b2": {"attempts": [{"error": {"code": "e2"}}]},
        },
    }
    window = {o["nodes"]["l"]["error"] for o in outcomes(instance(three, scenario))}
    assert window == {"e1", "e2"}
    scenario["nodes"]["b0"] = {"attempts": [{"error": {"code": "e0"}}]}
    window = {o["nodes"]["l"]["error"] for o in outcomes(instance(three, scenario))}
    assert window == {"e0", "e1"}  # iteration 2 starts only after 0 or 1 finished
    anywhere = instance(three, scenario, Options(loop_start="any"))
    assert {o["nodes"]["l"]["error"] for o in outcomes(anywhere)} == {"e0", "e1", "e2"}


# -- item 5: readings nobody wrote down, selectable ---------------------------------------------

READY_SIBLING = doc(
    node("a"), node("b"), node("j", joinPolicy="any"), edge("a", "j"), edge("b", "j")
)


def test_any_cancelling_ready_siblings_is_a_selectable_reading():
    # HX-CANCEL-1: "sibling branches still running that could only have reached this
    # node MUST be moved to CANCELLED"; A-81: a READY sibling is part of a branch still
    # running (default), or only RUNNING/RETRYING nodes are "still running".
    def b(options: Options) -> set[tuple[str, int]]:
        run = instance(READY_SIBLING, options=options)
        return {(o["nodes"]["b"]["state"], o["nodes"]["b"]["attempts"]) for o in outcomes(run)}

    assert (CANCELLED, 0) in b(Options())
    running_only = b(Options(any_cancels="running"))
    assert (CANCELLED, 0) not in running_only and (CANCELLED, 1) in running_only


def test_pre_execution_failures_are_not_retried_unless_the_other_reading_is_selected():
    # HX-EXEC-7: "Steps 1–3 happen before execution begins"; HX-FAIL-1: "When a node
    # reaches FAILED and its retry policy is exhausted"; A-82.
    text = doc(node("a", "<retry maxAttempts='3'/>", resourceRef="db"))
    scenario = {"failingResources": ["db"]}
    (default,) = outcomes(instance(text, scenario))
    assert default["nodes"]["a"]["error"] == "HX-4102"
    assert default["nodes"]["a"]["attempts"] == 0
    retried = instance(text, scenario, Options(pre_execution_retry=True))
    (only,) = outcomes(retried)
    assert only["nodes"]["a"] == {
        "state": FAILED,
        "attempts": 3,
        "outputs": None,
        "error": "HX-4102",
    }
    events = [e["event"] for e in execute(retried).trace]
    assert events.count("node_retrying") == 2 and "node_started" not in events


QUORUM_WITH_ERROR_EDGE = doc(
    node("a"),
    node("f"),
    node("j", joinPolicy="quorum", quorum="2"),
    edge("a", "j"),
    edge("f", "j", "error"),
)


def test_quorum_bounds_count_participating_edges_and_the_other_reading_is_selectable():
    # HX-JOIN-2: "MUST NOT exceed the number of incoming edges (HX-2401, HX-2402)";
    # HX-READY-2: "Only control, data and dependency edges participate" (A-83, F-15).
    assert "HX-2402" in validate(QUORUM_WITH_ERROR_EDGE).report.codes()
    every = validate(QUORUM_WITH_ERROR_EDGE, quorum_edges="all").report.codes()
    assert "HX-2402" not in every and "join_never_fires" in every


def test_a_quorum_below_one_is_hx_2401():
    # HX-JOIN-2: "quorum is required" — a quorum below 1 is no quorum.
    text = doc(node("a"), node("j", joinPolicy="quorum", quorum="0"), edge("a", "j"))
    assert "HX-2401" in validate(text).report.codes()


# -- item 6: faults against the chapter's text ---------------------------------------------------


def test_a_required_input_from_a_failed_and_handled_producer_fails_hx_4101():
    # HX-UNREACH-5 makes the consumer unreachable only when the source is unreachable;
    # f FAILED (handled) is not: HX-DATA-3 "a runtime error (HX-4101)", HX-DATA-4 "the
    # runtime MUST fail rather than pass a null downstream".
    text = doc(
        node("a"),
        node("f", "<output name='v'/>"),
        node("h"),
        node("x", "<input name='v' required='true'/>"),
        edge("a", "x"),
        edge("f", "x", "data", fromPort="v", toPort="v"),
        edge("f", "h", "error"),
    )
    for found in outcomes(instance(text, {"nodes": {"f": FAILS}})):
        assert found["nodes"]["x"]["state"] == FAILED
        assert found["nodes"]["x"]["error"] == "HX-4101"
        assert found["status"] == "failed"


def test_a_required_input_over_a_false_data_edge_fails_hx_4101():
    # HX-READY-3/4: the edge is resolved-negative; its source SUCCEEDED, so it is not
    # unreachable (HX-UNREACH-5); the consumer runs and fails HX-4101 (HX-DATA-4).
    text = doc(
        node("a"),
        node("f", "<output name='v'/>"),
        node("x", "<input name='v' required='true'/>"),
        edge("a", "x"),
        edge("f", "x", "data", fromPort="v", toPort="v", condition="params.go == true"),
    )
    (only,) = outcomes(instance(text, {"params": {"go": False}}))
    assert only["nodes"]["x"]["error"] == "HX-4101"


def test_an_error_handler_whose_source_succeeded_is_unreachable_and_the_join_resolves():
    # HX-UNREACH-2: "A runtime MUST propagate unreachability so that such a join can
    # resolve on the branch that was taken"; HX-UNREACH-1.
    text = doc(
        node("s"),
        node("f"),
        node("h1"),
        node("x"),
        edge("s", "f"),
        edge("f", "h1", "error"),
        edge("s", "x"),
        edge("h1", "x"),
    )
    (only,) = outcomes(instance(text))
    assert states(only) == {"s": SUCCEEDED, "f": SUCCEEDED, "h1": PENDING, "x": SUCCEEDED}


def test_a_root_outside_the_entry_is_unreachable():
    # HX-START-1: "if @entry is present, that single node"; the other root is never
    # reached, so the join behind it resolves on the entry's branch (HX-UNREACH-2).
    text = doc(node("a"), node("r"), node("x"), edge("a", "x"), edge("r", "x"), entry="a")
    (only,) = outcomes(instance(text))
    assert states(only) == {"a": SUCCEEDED, "r": PENDING, "x": SUCCEEDED}


def test_a_node_failing_during_unwinding_leaves_nothing_ready():
    # HX-DONE-1: complete "when no node is PENDING, READY, RUNNING or RETRYING"; nothing
    # new starts while unwinding, so the error-edge target is CANCELLED.
    text = doc(node("a"), node("b"), node("h"), edge("b", "h", "error"))
    run = instance(text, {"nodes": {"a": FAILS, "b": FAILS}})
    found = outcomes(run)
    for value in found:
        assert "READY" not in states(value).values()
    assert any(states(v)["h"] == CANCELLED for v in found)


def test_any_does_not_cancel_an_ancestor_with_a_path_around_the_join():
    # HX-CANCEL-1: only branches "that could only have reached this node"; a and m also
    # reach z through k.
    text = doc(
        node("a"),
        node("m"),
        node("b"),
        node("j", joinPolicy="any"),
        node("k"),
        node("z"),
        edge("a", "m"),
        edge("m", "j"),
        edge("m", "k"),
        edge("k", "z"),
        edge("j", "z"),
        edge("b", "j"),
    )
    for found in outcomes(instance(text)):
        assert states(found)["k"] == SUCCEEDED and states(found)["a"] == SUCCEEDED


def test_a_node_that_succeeds_during_unwinding_is_compensated():
    # HX-FAIL-3 and A-64: "the compensation targets of the SUCCEEDED nodes"; slow
    # succeeds after boom's failure started unwinding.
    text = doc(
        node("boom"),
        node("slow"),
        node("undo"),
        edge("slow", "undo", "compensation"),
    )
    run = instance(text, {"nodes": {"boom": FAILS}})
    for found in outcomes(run):
        if states(found)["slow"] == SUCCEEDED:
            assert states(found)["undo"] == SUCCEEDED


def test_a_shared_compensation_target_runs_once():
    # each compensation target runs once.
    text = doc(
        node("one"),
        node("two"),
        node("boom"),
        node("undo"),
        edge("one", "two"),
        edge("two", "boom"),
        edge("one", "undo", "compensation"),
        edge("two", "undo", "compensation"),
    )
    trace = execute(instance(text, {"nodes": {"boom": FAILS}})).trace
    assert [e["node"] for e in trace if e["event"] == "node_compensated"] == ["undo"]
