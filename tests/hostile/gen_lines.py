"""Hostile lines and arguments for the line tools and the expression commands.

``jsonlogic eval`` and ``w6w resolve`` read JSON lines: each case sends one
hostile line and one good line after it (docs/cli.md: a bad line is
answered with an error object and the lines after it still are; exit code
2 when any line was bad).  ``w6w parse`` and ``workfile refs`` take their
input as a command-line argument, some of it not UTF-8.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from .corpus import Case, Invocation
from .pieces import nested, nested_objects

BIG400 = "7" * 400
BIG4000 = "9" * 4000
GOOD_EVAL = b'{"rule": {"+": [1, 2]}, "data": {}}'
GOOD_RESOLVE = b'{"scope": {"vars": {"a": 1}}, "with": {"$": "vars.a"}}'

# Lines no reader may take as a request: (summary, line); answered with an error, exit code 2.
BAD_LINES: list[tuple[str, bytes]] = [
    ("an unclosed object", b"{"),
    ("NaN", b"NaN"),
    ("a rule NaN", b'{"rule": NaN, "data": {}}'),
    ("a rule -Infinity", b'{"rule": {"+": [-Infinity]}, "data": {}}'),
    ("a rule 1e400", b'{"rule": 1e400, "data": {}}'),
    ("data 1e400", b'{"rule": {"var": "x"}, "data": {"x": 1e400}}'),
    ("nested 100,000 deep", nested(100_000).encode()),
    ("a rule nested 100,000 deep", ('{"rule": ' + nested(100_000) + "}").encode()),
    ("bytes that are not UTF-8", b'{"rule": "\xff\xfe", "data": {}}'),
    ("an overlong UTF-8 encoding", b'{"rule": "\xc0\xaf", "data": {}}'),
    ("a raw NUL", b'{"rule": "a\x00b", "data": {}}'),
    ("a JSON array", b"[1, 2]"),
    ("a JSON string", b'"rule"'),
    ("null", b"null"),
    ("true", b"true"),
    ("two objects on a line", b'{"rule": 1} {"rule": 2}'),
    ("a trailing comma", b'{"rule": 1,}'),
    ("single quotes", b"{'rule': 1}"),
    ("a comment", b'{"rule": 1} // one'),
]

# Rules the evaluator must answer, with a value or its own error (good lines).
HOSTILE_RULES: list[tuple[str, str]] = [
    ("1e308 * 10", '{"*": [1e308, 10]}'),
    ("1e308 + 1e308", '{"+": [1e308, 1e308]}'),
    ("-1e308 - 1e308", '{"-": [-1e308, 1e308]}'),
    ("1 / 0", '{"/": [1, 0]}'),
    ("1 % 0", '{"%": [1, 0]}'),
    ("1e308 / 1e-308", '{"/": [1e308, 1e-308]}'),
    ("5e-324 / 1e308", '{"/": [5e-324, 1e308]}'),
    ("two 4,000-digit integers multiplied", '{"*": [' + BIG4000 + ", " + BIG4000 + "]}"),
    (
        "a 4,000-digit integer squared, then cat",
        '{"cat": [{"*": [' + BIG4000 + ", " + BIG4000 + "]}]}",
    ),
    ("a 4,000-digit integer * 1.5", '{"*": [' + BIG4000 + ", 1.5]}"),
    ("a 400-digit integer + 0.5", '{"+": [' + BIG400 + ", 0.5]}"),
    ("a 4,000-digit integer + 1", '{"+": [' + BIG4000 + ", 1]}"),
    ("a 4,000-digit integer - 1", '{"-": [' + BIG4000 + ", 1]}"),
    ("a 4,000-digit integer / 3", '{"/": [' + BIG4000 + ", 3]}"),
    ("a 4,000-digit integer % 1e-300", '{"%": [' + BIG4000 + ", 1e-300]}"),
    ('+ "1e999"', '{"+": ["1e999"]}'),
    ('+ "nan"', '{"+": ["nan"]}'),
    ('+ "NaN"', '{"+": ["NaN"]}'),
    ('+ "inf"', '{"+": ["inf"]}'),
    ('+ "-Infinity"', '{"+": ["-Infinity"]}'),
    ('- "nan"', '{"-": ["nan"]}'),
    ('* "1e200" "1e200"', '{"*": ["1e200", "1e200"]}'),
    ('/ "1" "0"', '{"/": ["1", "0"]}'),
    ('% "nan" 1', '{"%": ["nan", 1]}'),
    ('max "1e999"', '{"max": ["1e999"]}'),
    ('min "-1e999" 1', '{"min": ["-1e999", 1]}'),
    ('max "nan" 1', '{"max": ["nan", 1]}'),
    ("max of nothing", '{"max": []}'),
    ("min of nothing", '{"min": []}'),
    ("+ of nothing", '{"+": []}'),
    ("* of nothing", '{"*": []}'),
    ("- of nothing", '{"-": []}'),
    ("/ of one", '{"/": [1]}'),
    ("% of one", '{"%": [1]}'),
    ('< 1 "nan"', '{"<": [1, "nan"]}'),
    ('== "nan" "nan"', '{"==": ["nan", "nan"]}'),
    ('== 1 "1e4000"', '{"==": [1, "1e4000"]}'),
    ("< a 4,000-digit integer 1e308", '{"<": [' + BIG4000 + ", 1e308]}"),
    ("<= of four", '{"<=": [1, 2, 3, 4]}'),
    ("== [] []", '{"==": [[], []]}'),
    ("< {} []", '{"<": [{}, []]}'),
    ("cat 1e308", '{"cat": [1e308]}'),
    ("cat 5e-324", '{"cat": [5e-324]}'),
    ("cat a 4,000-digit integer", '{"cat": [' + BIG4000 + "]}"),
    ("substr at a 400-digit index", '{"substr": ["abc", ' + BIG400 + "]}"),
    ("substr at 1e308", '{"substr": ["abc", 1e308]}'),
    ("substr at -1e308", '{"substr": ["abc", -1e308]}'),
    ("substr length a 400-digit integer", '{"substr": ["abc", 0, ' + BIG400 + "]}"),
    ("substr at 1.5", '{"substr": ["abc", 1.5]}'),
    ('substr at "x"', '{"substr": ["abc", "x"]}'),
    ("in a 400-digit integer", '{"in": ["a", ' + BIG400 + "]}"),
    ("in [] abc", '{"in": [[], "abc"]}'),
    ("var 1e300", '{"var": 1e300}'),
    ("var -1", '{"var": -1}'),
    ("var a 400-digit integer", '{"var": ' + BIG400 + "}"),
    ("var [[a]]", '{"var": [["a"]]}'),
    ("var an object", '{"var": {"a": 1}}'),
    ("var with a default nested rule", '{"var": ["a", {"var": "a"}]}'),
    ("var __class__", '{"var": "__class__"}'),
    ("var __proto__.polluted", '{"var": "__proto__.polluted"}'),
    ("var a path of 20,000 dots", '{"var": "' + "." * 20000 + '"}'),
    ("var a path of 10,000 segments", '{"var": "' + ".".join(["a"] * 10000) + '"}'),
    ("missing a 400-digit integer", '{"missing": [' + BIG400 + "]}"),
    ("missing_some 1e308", '{"missing_some": [1e308, ["a"]]}'),
    ("missing_some strings", '{"missing_some": ["x", "y"]}'),
    (
        "reduce doubling a string 64 times",
        '{"reduce": [{"var": "xs"}, {"cat": [{"var":'
        ' "accumulator"}, {"var": "accumulator"}]}, "ab"]}',
    ),
    (
        "reduce doubling a list 64 times",
        '{"reduce": [{"var": "xs"}, {"merge": [{"var":'
        ' "accumulator"}, {"var": "accumulator"}]}, [1]]}',
    ),
    (
        "reduce squaring an integer 64 times",
        '{"reduce": [{"var": "xs"}, {"*": [{"var": "accumulator"}, {"var": "accumulator"}]}, 3]}',
    ),
    (
        "reduce summing 1e308",
        '{"reduce": [[1e308, 1e308], {"+": [{"var": "current"}, {"var": "accumulator"}]}, 0]}',
    ),
    ("map over 200,000 items", '{"map": [{"var": "big"}, {"*": [{"var": ""}, 2]}]}'),
    (
        "map in map in map",
        '{"map": [{"var": "xs"}, {"map": [{"var": "xs"}, {"map": [{"var": "xs"}, {"var": ""}]}]}]}',
    ),
    ("filter with a non-list", '{"filter": [1, true]}'),
    ("all over []", '{"all": [[], {"var": ""}]}'),
    ("some over a number", '{"some": [1, true]}'),
    ("none over a string", '{"none": ["abc", true]}'),
    ("merge nested lists", '{"merge": [[[[1]]], [[2]]]}'),
    ("if of nothing", '{"if": []}'),
    ("if of one", '{"if": [true]}'),
    ("if not a list", '{"if": 1}'),
    ("and of nothing", '{"and": []}'),
    ("or of nothing", '{"or": []}'),
    ("! of nothing", '{"!": []}'),
    ("!! [[]]", '{"!!": [[]]}'),
    ("throw a string", '{"throw": "x"}'),
    ("throw an object", '{"throw": {"type": {"nested": [1]}}}'),
    ("throw a 4,000-digit integer", '{"throw": ' + BIG4000 + "}"),
    ("an unknown operator eval", '{"eval": "1"}'),
    ("operator __proto__", '{"__proto__": 1}'),
    ("operator constructor", '{"constructor": []}'),
    ("an empty operator", '{"": []}'),
    ("two operators", '{"+": [1], "-": [2]}'),
    ("+ a number", '{"+": 1}'),
    ("! nested 900 deep", '{"!": ' * 900 + "true" + "}" * 900),
    ("! nested 990 deep", '{"!": ' * 990 + "true" + "}" * 990),
    ("if nested 500 deep", '{"if": [true, ' * 500 + "1" + ", 2]}" * 500),
    ("a list nested 990 deep", nested(990)),
    ("objects nested 600 deep", nested_objects(600)),
    ("a lone surrogate string", '"\\ud800"'),
    ("cat with a lone surrogate", '{"cat": ["\\udfff", "a"]}'),
    ("substr splitting a surrogate pair", '{"substr": ["\\ud83d\\udca5", 0, 1]}'),
    ("a 1 MiB string", '"' + "x" * (1 << 20) + '"'),
]

# data for the rules that read it
RULE_DATA = {"xs": list(range(64)), "big": list(range(200_000)), "a": 1}


def eval_line(rule: str) -> bytes:
    data = json.dumps(RULE_DATA)
    return ('{"rule": ' + rule + ', "data": ' + data + "}").encode()


def lines_case(
    cid: str,
    command: list[str],
    summary: str,
    expect: str,
    stdin: bytes | Callable[[], bytes],
    timeout: float = 30.0,
    cheap: bool = True,
) -> Case:
    """A line-tool case; a large standard input is a function, made when the case is built."""

    def build(folder: object) -> Invocation:  # the input is the standard input
        return Invocation(command, stdin() if callable(stdin) else stdin)

    return Case(
        cid,
        " ".join(command),
        "json-lines",
        summary,
        expect,
        build,
        output="lines",
        timeout=timeout,
        cheap=cheap,
    )


def random_rule(rng: random.Random, ops: list[str], leaves: list[object], depth: int) -> object:
    """An operator over hostile leaves, ``depth`` levels at most."""
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(leaves)
    return {
        rng.choice(ops): [
            random_rule(rng, ops, leaves, depth - 1) for _ in range(rng.randrange(0, 4))
        ]
    }


def jsonlogic_cases(seed: int) -> list[Case]:
    cases = []
    for i, (summary, line) in enumerate(BAD_LINES):
        cases.append(
            lines_case(
                f"jsonlogic-eval/bad/{i:02d}",
                ["jsonlogic", "eval"],
                f"a bad line: {summary}",
                "reject",
                line + b"\n" + GOOD_EVAL + b"\n",
            )
        )
    for i, (summary, rule) in enumerate(HOSTILE_RULES):
        cases.append(
            lines_case(
                f"jsonlogic-eval/rule/{i:03d}",
                ["jsonlogic", "eval"],
                f"a hostile rule: {summary}",
                "any",
                lambda rule=rule: eval_line(rule) + b"\n" + GOOD_EVAL + b"\n",
            )
        )
    # seeded random rules: operators applied to hostile leaves, a few levels deep
    ops = [
        "+",
        "-",
        "*",
        "/",
        "%",
        "max",
        "min",
        "cat",
        "substr",
        "in",
        "==",
        "===",
        "<",
        "!",
        "if",
        "and",
        "or",
        "merge",
        "map",
        "filter",
        "reduce",
        "all",
        "some",
        "var",
        "missing",
        "missing_some",
        "log",
        "!!",
        "!=",
        "!==",
        ">",
        ">=",
        "<=",
        "?:",
        "none",
        "throw",
    ]
    leaves = [
        1e308,
        -1e308,
        5e-324,
        0,
        -0.0,
        2**70,
        "1e999",
        "nan",
        "",
        [],
        {},
        None,
        True,
        "x" * 1000,
        [1e308, 1e308],
        {"var": "xs"},
        {"var": "big"},
        {"var": ""},
    ]
    for i in range(60):
        rng = random.Random(f"{seed}/jsonlogic-random/{i}")

        text = json.dumps(random_rule(rng, ops, leaves, 4))
        cases.append(
            lines_case(
                f"jsonlogic-eval/random/{i:02d}",
                ["jsonlogic", "eval"],
                f"a random rule: {text[:100]}",
                "any",
                lambda text=text: eval_line(text) + b"\n" + GOOD_EVAL + b"\n",
            )
        )
    cases.append(
        lines_case(
            "jsonlogic-eval/many/blank-and-crlf",
            ["jsonlogic", "eval"],
            "blank lines, CR LF endings, a BOM first",
            "any",
            b"\xef\xbb\xbf" + GOOD_EVAL + b"\r\n\r\n   \n" + GOOD_EVAL + b"\r\n",
        )
    )
    cases.append(
        lines_case(
            "jsonlogic-eval/many/100000-lines",
            ["jsonlogic", "eval"],
            "100,000 good lines",
            "any",
            lambda: (GOOD_EVAL + b"\n") * 100_000,
            timeout=60,
            cheap=False,
        )
    )
    cases.append(
        lines_case(
            "jsonlogic-eval/many/no-final-newline",
            ["jsonlogic", "eval"],
            "a last line without a newline",
            "any",
            GOOD_EVAL + b"\n" + GOOD_EVAL,
        )
    )
    cases.append(
        lines_case(
            "jsonlogic-eval/many/one-8MiB-line",
            ["jsonlogic", "eval"],
            "one 8 MiB line",
            "any",
            lambda: b'{"rule": {"cat": ["' + b"x" * (8 << 20) + b'"]}, "data": {}}\n',
            cheap=False,
        )
    )
    return cases


RESOLVE_WITH: list[tuple[str, str]] = [
    ("$ of a 10,000-segment path", '{"$": "vars.' + ".".join(["a"] * 10000) + '"}'),
    ("$ of a number", '{"$": 5}'),
    ("$ of a list", '{"$": ["vars", "a"]}'),
    ("$ of an empty path", '{"$": ""}'),
    ("$ of secrets", '{"$": "secrets.KEY"}'),
    ("$ of __class__", '{"$": "vars.__class__"}'),
    ("$ with another member", '{"$": "vars.a", "x": 1}'),
    ("$expr 1e308 * 10", '{"$expr": {"*": [1e308, 10]}}'),
    ('$expr + "nan"', '{"$expr": {"+": ["nan"]}}'),
    ('$expr + "1e999"', '{"$expr": {"+": ["1e999"]}}'),
    (
        "$expr two 4,000-digit integers multiplied",
        '{"$expr": {"*": [' + BIG4000 + ", " + BIG4000 + "]}}",
    ),
    (
        "$expr reduce doubling a string",
        '{"$expr": {"reduce": [{"var": "vars.xs"}, {"cat": '
        '[{"var": "accumulator"}, {"var": "accumulator"}]}, "ab"]}}',
    ),
    ("$expr nested 900 deep", '{"$expr": ' + '{"!": ' * 900 + "true" + "}" * 900 + "}"),
    ("a template of 10,000 markers", '"' + "{{ vars.a }}" * 10000 + '"'),
    ("a template of 10,000 open braces", '"' + "{{" * 10000 + '"'),
    ("a template = NaN", '"{{ = NaN }}"'),
    ("a template = 1e400", '"{{ = 1e400 }}"'),
    ("a template = a nested 5,000-deep list", '"{{ = ' + nested(5000) + ' }}"'),
    ("a template = a nested 990-deep list", '"{{ = ' + nested(990) + ' }}"'),
    ("a template = 1e308 * 10", '"{{ = {\\"*\\": [1e308, 10]} }}"'),
    ("a template of a 5,000-operand chain", '"{{ ' + " || ".join(["vars.a"] * 5000) + ' }}"'),
    ("a template reading a lone surrogate", '"{{ vars.s }}"'),
    (
        "an expr part list of 100,000 texts",
        '{"type": "expr", "parts": ['
        + ",".join(['{"kind": "text", "text": "x"}'] * 100_000)
        + "]}",
    ),
    ("an expr part that is a string", '{"type": "expr", "parts": "x"}'),
    ("an expr part of unknown kind", '{"type": "expr", "parts": [{"kind": "\\ud800"}]}'),
    (
        "a render part with a list ref",
        '{"type": "expr", "parts": [{"kind": "render", "ref": [1]}]}',
    ),
    (
        "a render part reading a deep document",
        '{"type": "expr", "parts": [{"kind": "render", "ref": "documents.deep"}]}',
    ),
    ("a secret part with no name", '{"type": "expr", "parts": [{"kind": "secret"}]}'),
    (
        "an expr part of a 4,000-digit product",
        '{"type": "expr", "parts": [{"kind": "expr", '
        '"expr": {"*": [' + BIG4000 + ", " + BIG4000 + "]}}]}",
    ),
    ("objects nested 900 deep", nested_objects(900)),
    ("a list nested 990 deep", nested(990)),
    ("a value of 200,000 members", "[" + ",".join(["{}"] * 200_000) + "]"),
]

RESOLVE_SCOPE = {
    "vars": {"a": 1, "xs": list(range(64)), "s": "\ud800"},
    "secrets": {"KEY": "k"},
    "documents": {"deep": json.loads(nested(500))},
}


def resolve_cases(seed: int) -> list[Case]:
    cases = []
    scope = json.dumps(RESOLVE_SCOPE)
    for i, (summary, line) in enumerate(BAD_LINES):
        cases.append(
            lines_case(
                f"w6w-resolve/bad/{i:02d}",
                ["w6w", "resolve"],
                f"a bad line: {summary}",
                "reject",
                line + b"\n" + GOOD_RESOLVE + b"\n",
            )
        )
    for i, (summary, with_) in enumerate(RESOLVE_WITH):
        line = ('{"scope": ' + scope + ', "with": ' + with_ + "}").encode()
        cases.append(
            lines_case(
                f"w6w-resolve/with/{i:02d}",
                ["w6w", "resolve"],
                f"a hostile with: {summary}",
                "any",
                line + b"\n" + GOOD_RESOLVE + b"\n",
            )
        )
    odd_requests = [
        ("the scope a list", b'{"scope": [], "with": 1}'),
        ("no scope", b'{"with": {"$": "vars.a"}}'),
        ("no with", b'{"scope": {}}'),
        ("the scope's vars a string", b'{"scope": {"vars": "abc"}, "with": {"$": "vars.a"}}'),
        (
            "a scope with a 5,000-digit integer",
            ('{"scope": {"vars": {"a": ' + "9" * 5000 + '}}, "with": {"$": "vars.a"}}').encode(),
        ),
        (
            "a scope nested 100,000 deep",
            ('{"scope": {"vars": ' + nested(100_000) + '}, "with": 1}').encode(),
        ),
    ]
    for i, (summary, line) in enumerate(odd_requests):
        cases.append(
            lines_case(
                f"w6w-resolve/request/{i:02d}",
                ["w6w", "resolve"],
                f"an odd request: {summary}",
                "any",
                line + b"\n" + GOOD_RESOLVE + b"\n",
            )
        )
    return cases


PARSE_TEXTS: list[tuple[str, str | bytes]] = [
    ("{{", "{{"),
    ("}}", "}}"),
    ("an empty marker", "{{ }}"),
    ("= NaN", "{{ = NaN }}"),
    ("= 1e400", "{{ = 1e400 }}"),
    ("= a 5,000-digit integer", "{{ = " + "9" * 5000 + " }}"),
    ("= a list nested 5,000 deep", "{{ = " + nested(5000) + " }}"),
    ("= a list nested 990 deep", "{{ = " + nested(990) + " }}"),
    ("= a lone surrogate escape", '{{ = "\\ud800" }}'),
    ("= a rule", '{{ = {"var": "x"} }}'),
    ("a mixed chain", "{{ a || b ?? c }}"),
    ("a chain of 5,000 operands", "{{ " + " || ".join(["a"] * 5000) + " }}"),
    ("a chain with an empty operand", "{{ a || || b }}"),
    ("secrets. without a name", "{{ secrets. }}"),
    ("a secret named with a bidi override", "{{ secrets.\u202eKEY }}"),
    ("10,000 open markers", "{{" * 10000),
    ("5,000 markers", "{{ x }}" * 5000),
    ("a NUL", "a\x01{{ x }}"),
    ("bytes that are not UTF-8", b"{{ \xff\xfe }}"),
    ("a lone surrogate as bytes", b"{{ \xed\xa0\x80 }}"),
    ("an argument of 100,000 characters", "x" * 100_000),
    ("an emoji chain", "{{ 💥 || 🔥 }}"),
    ("newlines in a marker", "{{ a\n||\nb }}"),
]

REFS_EXPRESSIONS: list[tuple[str, str | bytes, str]] = [
    ("empty", "", "any"),
    ("an open parenthesis", "(", "reject"),
    ("an unclosed index", "a[", "reject"),
    ("a lone operator", "+", "reject"),
    ("two operands", "1 2", "reject"),
    ("a close parenthesis", ")", "reject"),
    ("an unclosed marker", "{{ a", "any"),
    ("1,000 nested parentheses", "(" * 1000 + "a" + ")" * 1000, "any"),
    ("30,000 nested parentheses", "(" * 30000 + "a" + ")" * 30000, "any"),
    ("5,000 indexes", "a" + "[0]" * 5000, "any"),
    ("20,000 members", "a" + ".b" * 20000, "any"),
    ("2,000 nested computed indexes", "a[" * 2000 + "0" + "]" * 2000, "any"),
    ("1,000 filters", "a" + " | length" * 1000, "any"),
    ("1,000 nested filter arguments", "a | default(" * 1000 + "b" + ")" * 1000, "any"),
    ("a 5,000-digit number", "9" * 5000, "any"),
    ("1e400", "1e400", "any"),
    ("a lone surrogate escape", '"\\ud800"', "any"),
    ("bytes that are not UTF-8", b"a.\xff", "any"),
    ("2,000 nested conditionals", "a if b else " * 2000 + "c", "any"),
    ("5,000 nots", "not " * 5000 + "a", "any"),
    ("5,000 minus signs", "-" * 5000 + "a", "any"),
    ("list literals nested 3,000 deep", "[" * 3000 + "]" * 3000, "any"),
    ("object literals nested 1,000 deep", "{a: " * 1000 + "1" + "}" * 1000, "any"),
    ("a template of 5,000 markers", "{{ a }}" * 5000, "any"),
    ("a keyword as a name", "if", "reject"),
    ("uppercase names", "A.B", "any"),
    ("an argument of 100,000 characters", "a" * 100_000, "any"),
]


def argument_cases(seed: int) -> list[Case]:
    cases = []
    for i, (summary, text) in enumerate(PARSE_TEXTS):
        for extra in ([], ["--json"], ["--mode", "render", "--json"]):
            if extra and i % 2 and extra[0] == "--mode":
                continue
            args = ["w6w", "parse", *extra, text]
            cases.append(
                Case(
                    f"w6w-parse/{i:02d}{''.join(extra)}",
                    "w6w parse",
                    "argument",
                    f"template: {summary}",
                    "any",
                    lambda folder, args=args: Invocation(args),
                )
            )
    for i, (summary, text, expect) in enumerate(REFS_EXPRESSIONS):
        for extra in ([], ["--json"]):
            args = ["workfile", "refs", *extra, text]
            cases.append(
                Case(
                    f"workfile-refs/{i:02d}{''.join(extra)}",
                    "workfile refs",
                    "argument",
                    f"expression: {summary}",
                    expect,
                    lambda folder, args=args: Invocation(args),
                )
            )
    return cases


def cases(seed: int) -> list[Case]:
    return jsonlogic_cases(seed) + resolve_cases(seed) + argument_cases(seed)
