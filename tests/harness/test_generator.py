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
