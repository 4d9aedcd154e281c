"""The line tools answer every line of a mixed good/bad stream (issue 21)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

DEEP_JSON = b"[" * 100_000 + b"]" * 100_000  # beyond the JSON reader's depth
DEEP_RULE = b'{"rule": ' + b'{"!": ' * 900 + b"1" + b"}" * 900 + b"}"  # within it


def tool(*argv: str, stdin: bytes) -> tuple[int, list[dict]]:
    done = subprocess.run(
        [sys.executable, "-m", "wforacle.oracle", *argv],
        input=stdin,
        capture_output=True,
        timeout=60,
    )
    assert done.stderr == b"", done.stderr  # never an internal error
    text = done.stdout.decode("utf-8")  # strict: no invalid UTF-8 is echoed
    return done.returncode, [json.loads(line) for line in text.splitlines()]


def test_jsonlogic_eval_answers_every_line():
    lines = [
        b'{"rule": {"+": [1, 2]}}',
        b'{"rule": {"var": "a"}, "data": {"a": "\xff\xfe"}}',  # invalid UTF-8 bytes
        DEEP_JSON,
        b"not json",
        b'{"rule": {"bogus": 1}}',  # a rule the evaluator refuses: its answer
        b'["no rule"]',
        DEEP_RULE,
        b'{"rule": {"var": "a"}, "data": {"a": "\\ud800"}}',  # a lone surrogate
        b'{"rule": {"cat": ["\xc3\xa9", 1]}}',
    ]
    code, answers = tool("jsonlogic", "eval", stdin=b"\n".join(lines) + b"\n")
    assert len(answers) == len(lines)
    assert answers[0] == {"value": 3}
    for bad in (1, 2, 3, 5):
        assert answers[bad]["error"]["type"] == "Invalid Input", answers[bad]
    assert "not UTF-8" in answers[1]["error"]["message"]
    assert answers[4]["error"]["type"] == "Unknown Operator"
    assert "error" in answers[6] or "value" in answers[6]
    assert answers[7] == {"value": "\ud800"}  # escaped on output, not raw
    assert answers[8] == {"value": "é1"}
    assert code == 2  # some line was bad


def test_w6w_resolve_answers_every_line():
    lines = [
        b'{"with": "{{ vars.a }}", "scope": {"vars": {"a": 1}}}',
        b"\xff",
        DEEP_JSON,
        b'{"with": ' + b"[" * 900 + b"]" * 900 + b"}",  # RecursionError must not escape
        b'{"no": "with"}',
        b'{"with": "{{ vars.x }}", "scope": {"vars": {"x": "\\ud800"}}}',
        b'{"with": 2}',
    ]
    code, answers = tool("w6w", "resolve", stdin=b"\n".join(lines) + b"\n")
    assert len(answers) == len(lines)
    assert answers[0] == {"value": "1"}
    for bad in (1, 2, 3, 4):
        assert answers[bad]["error"]["code"] == "invalid_input", answers[bad]
    assert "value" in answers[5]
    assert answers[6] == {"value": 2}
    assert code == 2


def test_workfile_eval_answers_every_line():
    lines = [
        # WF-BIND-2: "Member access and indexing can continue through that null".
        b'{"env": {"a": null}, "expr": "a.b[0].c"}',
        b'{"expr": "\\"yes\\" and true"}',  # booleans only
        b'{"env": {"x": 1.5}, "value": {"t": "x={{ x }}", "w": "{{ x }}"}}',
        b"\xff",
        DEEP_JSON,
        b'{"expr": "1", "value": 1}',  # one of the two
        b'{"expr": "' + b"-" * 900 + b'1"}',  # operators past the 64 levels
        b'{"expr": "1 / 0"}',
        b'{"expr": "x | nosuchfilter"}',
    ]
    code, answers = tool("workfile", "eval", stdin=b"\n".join(lines) + b"\n")
    assert len(answers) == len(lines)
    assert answers[0] == {"value": None}
    assert answers[1]["error"]["code"] == "expression.type"
    assert answers[2] == {"value": {"t": "x=1.5", "w": 1.5}}
    for bad in (3, 4, 5):
        assert answers[bad]["error"]["code"] == "invalid_input", answers[bad]
    assert answers[6]["error"]["code"] == "document.expression"
    assert answers[7]["error"]["code"] == "expression.division_by_zero"
    assert answers[8]["error"]["code"] == "expression.filter"
    assert code == 2
    # A-117's other reading tests any value by its truthiness.
    code, answers = tool("workfile", "eval", "--truthiness", "truthy", stdin=lines[1] + b"\n")
    assert (code, answers) == (0, [{"value": True}])


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (("jsonlogic", "eval"), b'{"rule": 1}'),
        (("w6w", "resolve"), b'{"with": 1}'),
        (("workfile", "eval"), b'{"expr": "1"}'),
    ],
)
def test_a_stream_of_good_lines_exits_0(argv, line):
    code, answers = tool(*argv, stdin=line + b"\n\n" + line + b"\n")
    assert code == 0 and answers == [{"value": 1}, {"value": 1}]
