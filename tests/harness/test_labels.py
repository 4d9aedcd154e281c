"""One arm, one label: every Harness transition carries the name of the rule that made it."""

from __future__ import annotations

from hypothesis import given, settings

from wforacle.model.harness.loader import load
from wforacle.model.harness.rules import INSTANCE_TABLE, NODE_TABLE, Where
from wforacle.model.harness.semantics import (
    READINGS,
    HarnessRun,
    Options,
    Scenario,
    config_key,
    outcome,
)
from wforacle.model.kernel.explore import Visiting, explore
from wforacle.properties.strategies.harness import harness_cases

RULES = {rule.__name__ for row in (*INSTANCE_TABLE.values(), *NODE_TABLE.values()) for rule in row}


def labels(case, options=READINGS):
    harness, problems = load(case["document"])
    assert harness is not None, problems
    run = HarnessRun(harness, Scenario.of(case["scenario"]), options)
    seen: set[str] = set()

    def visit(c):
        seen.update(t.rule for t in run.enabled(c))
        for rule in INSTANCE_TABLE[Where.QUIESCENT]:
            assert all(t.rule == rule.__name__ for t in rule(run, c))
        for i, state in enumerate(c.states):
            for rule in NODE_TABLE.get((state, run.nodes[i].kind), ()):
                assert all(t.rule == rule.__name__ for t in rule(run, c, i))

    explore(Visiting(run, visit), lambda c: outcome(run, c), config_key, max_states=2_000)
    return seen


def test_the_rule_names_are_distinct():
    rows = [rule for row in (*INSTANCE_TABLE.values(), *NODE_TABLE.values()) for rule in row]
    assert len({rule.__name__ for rule in rows}) == len(set(rows))


@settings(max_examples=60)
@given(harness_cases())
def test_every_label_is_a_rule_of_the_tables(case):
    assert labels(case) <= RULES
    assert labels(case, Options(pre_execution_retry=True)) <= RULES
