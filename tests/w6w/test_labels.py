"""One arm, one label: every w6w transition carries the name of the rule that made it."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from wforacle.model.kernel.explore import Visiting, explore
from wforacle.model.w6w.scenario import load_scenario
from wforacle.model.w6w.semantics import (
    RUN_TABLE,
    STAGES,
    STEP_TABLE,
    Due,
    W6wRun,
    config_key,
    outcome,
)
from wforacle.properties.strategies.w6w import parallel_workflows, scenarios
from wforacle.properties.w6w.validate import validate

RULES = {rule.__name__ for row in (*RUN_TABLE.values(), *STEP_TABLE.values()) for rule in row}


def test_the_rule_names_are_distinct():
    rows = [rule for row in (*RUN_TABLE.values(), *STEP_TABLE.values()) for rule in row]
    assert len({rule.__name__ for rule in rows}) == len(set(rows))


@settings(max_examples=40)
@given(st.data(), parallel_workflows(max_steps=5, controls=True))
def test_every_label_is_a_rule_of_the_tables(data, doc):
    run = _run(data, doc)
    seen: set[str] = set()

    def visit(c):
        seen.update(t.rule for t in run.enabled(c))
        for row in RUN_TABLE.values():
            for rule in row:
                assert all(t.rule == rule.__name__ for t in rule(run, c))
        for i, state in enumerate(c.steps):
            due = Due.LAUNCH if state.status == "pending" else STAGES.get(state.stage or "")
            for rule in STEP_TABLE.get(due, ()) if due is not None else ():
                assert all(t.rule == rule.__name__ for t in rule(run, c, i))

    explore(Visiting(run, visit), lambda c: outcome(run, c), config_key, max_states=400)
    assert seen <= RULES


@settings(max_examples=40)
@given(st.data(), parallel_workflows(max_steps=5, controls=False))
def test_a_start_cites_strands_only_where_the_run_has_several(data, doc):
    # W6W-FAN-5 ("A strand runs one step at a time … the earliest-in-plan-order step
    # that is ready and assigned to it") labels a start where strands exist; W6W-FAN-4
    # ("the plan's order, one step at a time") every start (session 22's stranger read
    # FAN-5 on a one-strand run's input divergence as noise).
    run = _run(data, doc)
    several = len(run.strands) > 1
    c = run.initial()
    while True:
        enabled = run.enabled(c)
        if not enabled:
            break
        for t in enabled:
            if t.rule == "start_step":
                assert "W6W-FAN-4" in t.clauses
                assert ("W6W-FAN-5" in t.clauses) is several
        c = enabled[0].target


def _run(data, doc):
    """The run of a generated document under a scenario drawn for it."""
    result = validate(copy.deepcopy(doc))
    loaded, _ = load_scenario(data.draw(scenarios(doc)))
    return W6wRun(result.workflow, result.plan, loaded, validate=validate)
