"""Issue 19: a hostile guard is a bad_expression (A-62), never a recursion or an Infinity."""

from __future__ import annotations

import pytest

from wforacle.model.harness.expr import MAX_NESTING, ExprError, parse
from wforacle.model.harness.loader import load


@pytest.mark.parametrize(
    "guard",
    [
        "not " * 3000 + "true",
        " and ".join(["true"] * 5000),
        " or ".join(["params.a == 1"] * (MAX_NESTING + 2)),
        "params.a > 1e999",
        "params.a > " + "9" * 5000,
    ],
)
def test_a_hostile_guard_is_refused(guard):
    with pytest.raises(ExprError):
        parse(guard)
    decision = f'<decision id="d"><case to="a" when="{guard}"/></decision>'
    document = f'<harness id="h"><node id="a" impl="a"/>{decision}</harness>'
    _, problems = load(document)
    assert any(p.code == "bad_expression" for p in problems)


def test_guards_within_the_bounds_parse():
    parse("not " * (MAX_NESTING - 1) + "true")
    parse(" and ".join(["true"] * MAX_NESTING))
    parse("(" * 3000 + "params.a > 1e300" + ")" * 3000)  # parentheses build no operator
