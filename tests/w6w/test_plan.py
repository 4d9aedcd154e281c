"""Planning: order, tie-breaking, implicit chain, and the fast path."""

from __future__ import annotations

import pytest
from hypothesis import given

from wforacle.properties.strategies.w6w import workflows
from wforacle.properties.w6w.plan import CycleError, TieBreak, fast_plan_order, plan_order
from wforacle.properties.w6w.validate import validate

from .helpers import app_step, workflow


def order(doc, tie_break=TieBreak.DECLARED):
    return plan_order(validate(doc).workflow, tie_break)


def test_no_edges_means_declared_order():
    # W6W-PLAN-2: "If edges is empty or absent → the plan is steps in declared order";
    # W6W-CONF-2 "Implicit chain".
    steps = [app_step(i) for i in ("z", "a", "m")]
    assert order(workflow(*steps)) == ["z", "a", "m"]
    assert order(workflow(*steps, edges=[])) == ["z", "a", "m"]


def test_edges_order_the_plan():
    # W6W-PLAN-4 in-degree map and adjacency; W6W-PLAN-5: "Topologically sort.";
    # W6W-FIELD-5 edges are directed dependencies.
    doc = workflow(app_step("post"), app_step("fetch"), edges=[{"from": "fetch", "to": "post"}])
    assert order(doc) == ["fetch", "post"]


def test_ties_are_broken_by_declared_order():
    # W6W-PLAN-5: "Ties broken by declared step order for determinism."
    # Witness of assumption A-02: the two readings differ here.
    doc = workflow(
        app_step("a"),
        app_step("b"),
        app_step("c"),
        app_step("d"),
        edges=[{"from": "a", "to": "d"}, {"from": "b", "to": "c"}],
    )
    assert order(doc, TieBreak.DECLARED) == ["a", "b", "c", "d"]
    assert order(doc, TieBreak.FIFO) == ["a", "b", "d", "c"]


def test_unconnected_steps_keep_declared_order_among_connected_ones():
    doc = workflow(app_step("x"), app_step("b"), app_step("a"), edges=[{"from": "a", "to": "b"}])
    assert order(doc) == ["x", "a", "b"]


def test_a_cycle_cannot_be_planned():
    doc = workflow(
        app_step("a"), app_step("b"), edges=[{"from": "a", "to": "b"}, {"from": "b", "to": "a"}]
    )
    wf = validate(doc).workflow
    for plan in (
        lambda: plan_order(wf),
        lambda: fast_plan_order(wf),
        lambda: plan_order(wf, TieBreak.FIFO),
    ):
        with pytest.raises(CycleError):
            plan()


@given(workflows())
def test_fast_path_agrees_with_networkx(doc):
    wf = validate(doc).workflow
    assert fast_plan_order(wf) == plan_order(wf)


@given(workflows())
def test_both_readings_are_topological_orders(doc):
    wf = validate(doc).workflow
    for tie_break in TieBreak:
        plan = plan_order(wf, tie_break)
        position = {step_id: i for i, step_id in enumerate(plan)}
        assert sorted(plan) == sorted(s.id for s in wf.steps)
        assert all(position[e.from_] < position[e.to] for e in wf.edges)


@given(workflows())
def test_declared_plan_is_the_least_topological_order(doc):
    # W6W-PLAN-5 under A-02: at every position, the step taken is the
    # earliest-declared one among those whose predecessors are all planned.
    wf = validate(doc).workflow
    plan = plan_order(wf)
    index = {s.id: i for i, s in enumerate(wf.steps)}
    preds = {s.id: {e.from_ for e in wf.edges if e.to == s.id} for s in wf.steps}
    done: set[str] = set()
    for step_id in plan:
        ready = [s for s in index if s not in done and preds[s] <= done]
        assert step_id == min(ready, key=index.__getitem__)
        done.add(step_id)
