"""JSON Logic where A-20's readings part, over the engine protocol (profile w6w-jsonlogic).

The default campaigns draw $expr values over var, cat, == and if, where the JSON
Logic community semantics (the model's reading of A-20) and json-logic-js 2.0.5
agree.  The profile draws the operators where they part; an evaluator bug that
neither reading permits is a finding citing W6W-EXPR-2 ("Full JSONLogic
evaluation over the run scope"), and an engine that calls json-logic-js is
told it took A-20's other reading (tests/test_readings.py).
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

from wforacle.oracle.engine import Engine, judge
from wforacle.oracle.fuzz import campaign, reduce_case
from wforacle.oracle.power import PROFILE_BUGS
from wforacle.properties.w6w.specification import W6W

TOYFLOW = (
    f"{sys.executable} {Path(__file__).resolve().parents[2] / 'examples/engines/w6w_engine.py'}"
)


@pytest.fixture(scope="module")
def toyflow():
    engine = Engine(TOYFLOW)
    yield engine
    engine.stop()


def test_the_correct_engine_passes_a_campaign_of_the_profile(toyflow):
    result = campaign(W6W, toyflow, examples=300, seed_value=0, cases=W6W.suites["w6w-jsonlogic"]())
    assert result.finding is None and result.faults == 0
    assert result.readings == ()  # toyflow takes the community semantics, as the model


def _operations(logic):
    if isinstance(logic, dict):
        for op, args in logic.items():
            yield op
            yield from _operations(args)
    elif isinstance(logic, list):
        for item in logic:
            yield from _operations(item)


@pytest.mark.parametrize("bug", PROFILE_BUGS["w6w-jsonlogic"][1])
def test_a_campaign_of_the_profile_finds_and_explains_the_seeded_bug(bug, toyflow):
    engine = Engine(f"{TOYFLOW} --bug {bug}")
    try:
        result = campaign(
            W6W, engine, examples=600, seed_value=0, cases=W6W.suites["w6w-jsonlogic"]()
        )
    finally:
        engine.stop()
    finding = result.finding
    assert finding is not None
    # JSONLogic evaluated: a $expr value (W6W-EXPR-2) or a {{ = }} part (W6W-ENV-4).
    assert finding.judgement.divergence.clauses[0] in ("W6W-EXPR-2", "W6W-ENV-4")
    assert "A-20" in finding.judgement.divergence.clauses  # the semantics read into it
    (step,) = [s for s in finding.case["document"]["steps"] if s["id"] == "b"]
    (value,) = step["with"].values()  # the one value the bug computes
    # One operation, the one the bug is in: its enclosing rules are shrunk away.
    wanted = {"missing-only-absent": ["missing"], "plus-concatenates": ["+"]}[bug]
    assert list(_operations(_rule(value))) == wanted, value
    assert judge(toyflow, W6W, finding.case).verdict == "pass"  # not a false alarm


NESTED = {"if": [{"<": [1, 2]}, {"-": [7, {"+": ["3", 1]}]}, "no"]}


def _rule(value):
    if isinstance(value, str):  # "= {{ =RULE }}"
        return json.loads(value[value.index("{{ =") + 4 : value.rindex("}}")])
    return value["$expr"]


@pytest.mark.parametrize(
    "written",
    [{"$expr": NESTED}, "= {{ =" + json.dumps(NESTED) + " }}"],
    ids=["expr-value", "template-payload"],
)
def test_a_finding_in_a_nested_rule_shrinks_to_the_operation_the_bug_is_in(written):
    # The shrinker puts an operand in its operation's place and drops an operand, in a
    # $expr value or a {{ = }} payload (properties/w6w/specification.py _simpler_logic):
    # "+" concatenating a string is the bug; the "-" and the "if" around it, and the 7,
    # are not needed.
    case = {
        "document": {
            "manifestVersion": "2",
            "id": "wf",
            "name": "g",
            "steps": [
                {
                    "id": "b",
                    "uses": {"app": "demo", "action": "run"},
                    "with": {"x": written},
                }
            ],
        },
        "scenario": {},
    }
    engine = Engine(f"{TOYFLOW} --bug plus-concatenates")
    try:

        def still_fails(candidate):
            return judge(engine, W6W, candidate).verdict == "divergence"

        assert still_fails(copy.deepcopy(case))
        reduced = reduce_case(W6W, copy.deepcopy(case), still_fails)
    finally:
        engine.stop()
    (value,) = reduced["document"]["steps"][0]["with"].values()
    assert list(_operations(_rule(value))) == ["+"], value
