"""Guards that order strings: z3 encodes them with whatever API the installed release has.

z3 5 removed ``z3.StrLT``/``z3.StrLE``; the encoder used them and every
validation of a string-ordering guard stopped with an internal error (issue 10).
Each witness z3 returns is replayed through the runtime evaluator, so the
encoding and the evaluator cannot drift apart unnoticed.
"""

from __future__ import annotations

import pytest

from wforacle.model.harness.expr import holds, parse
from wforacle.oracle.cli import main
from wforacle.properties.harness.smt import Encoder, solve


def test_an_unsatisfiable_string_order_is_warned_and_a_satisfiable_one_is_not(tmp_path, capsys):
    never = tmp_path / "never.xml"
    never.write_text(
        '<harness id="h"><node id="a"><guard>params.x &lt; "b" and params.x &gt; "c"</guard>'
        "</node></harness>"
    )
    assert main(["validate", str(never)]) == 0
    out = capsys.readouterr().out
    assert "guard_never_true" in out and "internal error" not in out
    fine = tmp_path / "fine.xml"
    fine.write_text(
        '<harness id="h"><node id="a"><guard>params.x &lt; "b"</guard></node></harness>'
    )
    assert main(["validate", str(fine)]) == 0
    assert "guard_never_true" not in capsys.readouterr().out
    assert main(["run", str(fine)]) == 0


@pytest.mark.parametrize(
    "text",
    [
        'params.x < "b"',
        'params.x <= "b" and params.x > "a"',
        'params.x >= "m" and params.x != "m"',
        '"k" > params.x and params.x >= "j"',
    ],
)
def test_every_string_order_witness_satisfies_the_runtime_evaluator(text):
    expr = parse(text)
    valuation = solve(Encoder([expr]).encode(expr))
    assert valuation is not None, text
    value = valuation["params.x"]
    assert isinstance(value, str)
    assert holds(expr, {"params": {"x": value}}), (text, value)
