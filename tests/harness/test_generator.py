"""The Harness campaign's generator reaches what issue 18 listed as never generated."""

from __future__ import annotations

from hypothesis import HealthCheck, given, seed, settings

from wforacle.grammar import parser
from wforacle.model.harness.expr import parse
from wforacle.properties.strategies.harness import PARAMS, expressions, harness_cases


def _productions(tree, found):
    found.add(tree.data)
    for child in tree.children:
        if hasattr(child, "data"):
            _productions(child, found)
        elif getattr(child, "type", None) == "CMP":
            found.add(str(child))


def test_generated_expressions_parse_and_reach_every_production_of_the_guard_grammar():
    found: set[str] = set()
    grammar = parser("harness_expr", "start")

    @seed(0)
    @settings(max_examples=300, database=None, suppress_health_check=list(HealthCheck))
    @given(expressions((*PARAMS, "n0.v")))
    def each(text):
        parse(text)  # the model's reading: raises when the text is no expression
        _productions(grammar.parse(text), found)

    each()
    # grammar/harness_expr.lark: every alias and every comparison operator.
    wanted = {"or_", "and_", "negation", "cmp", "number", "string", "true", "false", "null"}
    wanted |= {"ref", "==", "!=", "<", "<=", ">", ">="}
    assert wanted <= found, wanted - found


def test_campaign_cases_reach_the_features_issue_18_listed():
    seen: set[str] = set()
    checks = {
        "condition": lambda c: "condition=" in c["document"],
        "resourceRef": lambda c: "resourceRef=" in c["document"],
        "failingResources": lambda c: bool(c["scenario"].get("failingResources")),
        "entry": lambda c: 'entry="' in c["document"],
        "compensation": lambda c: 'type="compensation"' in c["document"],
        "value": lambda c: " value=" in c["document"],
        "quorum above 1": lambda c: 'quorum="2"' in c["document"] or 'quorum="3"' in c["document"],
        "null in a guard": lambda c: "null</guard>" in c["document"],
        "absent param": lambda c: "p" not in c["scenario"]["params"],
        "retry that succeeds": lambda c: any(
            len(s["attempts"]) > 1 and "outputs" in s["attempts"][-1]
            for s in c["scenario"]["nodes"].values()
        ),
    }

    @seed(0)
    @settings(max_examples=400, database=None, suppress_health_check=list(HealthCheck))
    @given(harness_cases())
    def each(case):
        seen.update(name for name, check in checks.items() if check(case))

    each()
    assert seen == set(checks), set(checks) - seen


def test_the_loop_shape_reaches_each_loop_attribute_and_both_endings():
    # The loop's attributes (docs/harness.md: over, maxConcurrency; a body of nodes,
    # nested once) and the model's endings of a loop: a likelihood
    # statement over 200 draws of the shape alone, each feature met in one draw in
    # twenty or more (measured at seeds 0-2), so no Hypothesis release's stream
    # decides it (a miss in 200 has odds below 1e-4).
    import json

    from hypothesis import strategies as st

    from wforacle.model.kernel.lts import execute
    from wforacle.properties.harness.conformance import prepare
    from wforacle.properties.strategies import harness

    @st.composite
    def loops(draw):
        builder = harness._Builder()
        harness._loops(draw, builder)
        return builder.case(draw)

    seen: set[str] = set()
    checks = {
        "one at a time": lambda c, t: 'over="a.xs" maxConcurrency="1"' in c["document"],
        "two at a time": lambda c, t: 'over="a.xs" maxConcurrency="2"' in c["document"],
        "no bound": lambda c, t: 'over="a.xs">' in c["document"],
        "nested": lambda c, t: '<loop id="m" over="params.item"' in c["document"],
        "two body nodes": lambda c, t: 'id="b1"' in c["document"],
        "item in a guard": lambda c, t: "params.item" in c["document"].split("<guard>", 1)[-1],
        "index in a guard": lambda c, t: "params.index" in c["document"],
        "a loop that succeeds": lambda c, t: any(
            e.get("node") == "l" and e["event"] == "node_succeeded" and len(e["inner"]) > 1
            for e in t
        ),
        "an iteration fails": lambda c, t: any(
            e.get("node") == "l" and "iteration" in e for e in t
        ),
        "over not a list": lambda c, t: "loop_over_not_a_list" in json.dumps(t),
    }

    @seed(0)
    @settings(max_examples=200, database=None, suppress_health_check=list(HealthCheck))
    @given(loops())
    def each(case):
        prepared = prepare(case)  # raises when the case is invalid
        trace = execute(prepared.semantics).trace
        seen.update(name for name, check in checks.items() if check(case, trace))

    each()
    assert seen == set(checks), set(checks) - seen
