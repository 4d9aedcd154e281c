"""Strategies that generate JSON Logic rules and the data they read.

``rules()`` draws well-typed-ish rules over the classic operators (those
json-logic-js implements) so that differential runs exercise real semantics
rather than mostly "Unknown Operator"; scalars come first so failures shrink
to small literals.  ``data()`` draws objects whose keys the rules' ``var``
paths name.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from wforacle.properties.strategies.sampled import sampled

KEYS = ("a", "b", "c", "")
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-10, 10)
    | sampled([0.5, -1.5, 1e21, 1e-7, 2**53, 0.1])
    | sampled(["", "0", "1", "a", "abc", " 2 ", "1e3", "0x10", "true", "null", "😀x"])
)

CLASSIC_OPERATORS = (
    "==",
    "===",
    "!=",
    "!==",
    ">",
    ">=",
    "<",
    "<=",
    "!",
    "!!",
    "%",
    "and",
    "or",
    "?:",
    "if",
    "log",
    "in",
    "cat",
    "substr",
    "+",
    "*",
    "-",
    "/",
    "min",
    "max",
    "merge",
    "var",
    "missing",
    "missing_some",
    "map",
    "filter",
    "reduce",
    "all",
    "none",
    "some",
)  # json-logic-js 2.0.5's operations


def paths() -> st.SearchStrategy[str]:
    """Dotted paths over KEYS, and array indexes."""
    segment = sampled([*KEYS, "0", "1", "length"])
    return st.lists(segment, min_size=1, max_size=3).map(".".join)


def data(max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """Objects keyed by KEYS holding scalars, arrays and nested objects."""
    return st.recursive(
        SCALARS,
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(sampled(KEYS), inner, max_size=4)
        ),
        max_leaves=max_leaves,
    )


@st.composite
def rules(draw: st.DrawFn, depth: int = 3, operators: tuple[str, ...] = CLASSIC_OPERATORS) -> Any:
    """A rule tree of at most ``depth`` nested operations."""
    if depth <= 0 or draw(st.integers(0, 3)) == 0:
        leaf = draw(st.integers(0, 3))
        if leaf == 0:
            return {"var": draw(paths())}
        if leaf == 1:
            return draw(st.lists(SCALARS, max_size=3))
        return draw(SCALARS)
    op = draw(sampled(operators))
    inner = rules(depth=depth - 1, operators=operators)
    if op == "var":
        args: Any = draw(paths() | st.tuples(paths(), SCALARS).map(list))
    elif op in ("missing",):
        args = draw(st.lists(paths(), max_size=3))
    elif op == "missing_some":
        args = [draw(st.integers(0, 3)), draw(st.lists(paths(), max_size=3))]
    elif op in ("map", "filter", "all", "none", "some"):
        args = [draw(inner), draw(rules(depth=depth - 1, operators=operators))]
    elif op == "reduce":
        args = [draw(inner), draw(inner), draw(SCALARS)]
    else:
        args = draw(st.lists(inner, max_size=4))
        if len(args) == 1 and draw(st.booleans()):
            args = args[0]
    return {op: args}


# -- well-typed rules ----------------------------------------------------------
#
# Rules on which the classic json-logic-js semantics and the community
# semantics must agree exactly: arithmetic over numbers with at least two
# operands, comparisons of two operands of one type, non-empty and/or, and
# paths into typed data.  A divergence on these is a real finding.

TYPED_DATA = st.fixed_dictionaries(
    {
        "n": st.integers(-20, 20),
        "f": sampled([0.5, -2.25, 3.0, 1e-7, 1e21]),
        "s": sampled(["", "a", "abc", "Hello", "x y", "😀"]),
        "b": st.booleans(),
        "xs": st.lists(st.integers(-5, 5), max_size=5),
        "o": st.fixed_dictionaries({"k": st.integers(0, 3), "t": sampled(["p", "q"])}),
    }
)

_NUMBER_PATHS = ("n", "f", "o.k", "xs.0", "xs.length", "s.length")
_STRING_PATHS = ("s", "o.t")


def _typed(kind: str, depth: int) -> st.SearchStrategy[Any]:
    return st.deferred(lambda: typed_rules(kind, depth))


@st.composite
def typed_rules(draw: st.DrawFn, kind: str = "number", depth: int = 3) -> Any:
    """A rule producing a value of ``kind`` (number, string, boolean, array)."""
    leaf = depth <= 0 or draw(st.integers(0, 2)) == 0
    if kind == "number":
        if leaf:
            return draw(
                st.integers(-9, 9)
                | sampled([0.5, 2.5, -1.25])
                | sampled([{"var": p} for p in _NUMBER_PATHS if p != "xs.0"])
            )
        op = draw(sampled(["+", "-", "*", "max", "min", "if", "reduce"]))
        if op == "if":
            return {
                "if": [
                    draw(_typed("boolean", depth - 1)),
                    draw(_typed("number", depth - 1)),
                    draw(_typed("number", depth - 1)),
                ]
            }
        if op == "reduce":
            return {
                "reduce": [
                    draw(_typed("array", depth - 1)),
                    {"+": [{"var": "accumulator"}, {"var": "current"}]},
                    draw(st.integers(-3, 3)),
                ]
            }
        # json-logic-js's "-" is binary (a - b, further operands ignored).
        most = 2 if op == "-" else 3
        operands = draw(st.lists(_typed("number", depth - 1), min_size=2, max_size=most))
        return {op: operands}
    if kind == "string":
        if leaf:
            return draw(
                sampled(["", "a", "b c", "xyz"]) | sampled([{"var": p} for p in _STRING_PATHS])
            )
        op = draw(sampled(["cat", "substr", "if"]))
        if op == "cat":
            return {
                "cat": draw(
                    st.lists(
                        _typed("string", depth - 1) | _typed("number", 0), min_size=1, max_size=3
                    )
                )
            }
        if op == "substr":
            return {
                "substr": [
                    draw(_typed("string", depth - 1)),
                    draw(st.integers(-4, 4)),
                    draw(st.integers(-4, 4)),
                ]
            }
        return {
            "if": [
                draw(_typed("boolean", depth - 1)),
                draw(_typed("string", depth - 1)),
                draw(_typed("string", depth - 1)),
            ]
        }
    if kind == "boolean":
        if leaf:
            return draw(st.booleans() | st.just({"var": "b"}))
        op = draw(
            sampled(
                [
                    "<",
                    ">",
                    "<=",
                    ">=",
                    "==",
                    "===",
                    "!=",
                    "!==",
                    "and",
                    "or",
                    "!",
                    "!!",
                    "in",
                    "some",
                    "all",
                    "none",
                ]
            )
        )
        if op in ("and", "or"):
            return {op: draw(st.lists(_typed("boolean", depth - 1), min_size=1, max_size=3))}
        if op in ("!", "!!"):
            return {op: [draw(_typed(draw(sampled(["boolean", "number", "string"])), depth - 1))]}
        if op == "in":
            if draw(st.booleans()):
                return {
                    "in": [draw(_typed("string", depth - 1)), draw(_typed("string", depth - 1))]
                }
            return {"in": [draw(_typed("number", depth - 1)), draw(_typed("array", depth - 1))]}
        if op in ("some", "all", "none"):
            return {
                op: [
                    draw(_typed("array", depth - 1)),
                    {
                        draw(sampled(["<", ">", "=="])): [
                            {"var": ""},
                            draw(st.integers(-3, 3)),
                        ]
                    },
                ]
            }
        operand = draw(sampled(["number", "string"]))
        return {op: [draw(_typed(operand, depth - 1)), draw(_typed(operand, depth - 1))]}
    # array
    if leaf:
        return draw(st.lists(st.integers(-5, 5), max_size=4) | st.just({"var": "xs"}))
    op = draw(sampled(["map", "filter", "merge"]))
    if op == "map":
        return {
            "map": [
                draw(_typed("array", depth - 1)),
                {draw(sampled(["+", "*", "-"])): [{"var": ""}, draw(st.integers(-3, 3))]},
            ]
        }
    if op == "filter":
        return {
            "filter": [
                draw(_typed("array", depth - 1)),
                {
                    draw(sampled(["<", ">=", "==="])): [
                        {"var": ""},
                        draw(st.integers(-3, 3)),
                    ]
                },
            ]
        }
    return {"merge": draw(st.lists(_typed("array", depth - 1), min_size=1, max_size=3))}


def typed_cases() -> st.SearchStrategy[tuple[Any, Any]]:
    """``(rule, data)`` pairs of well-typed rules over ``TYPED_DATA``."""
    kinds = sampled(["number", "string", "boolean", "array"])
    return st.tuples(kinds.flatmap(lambda k: typed_rules(k, 3)), TYPED_DATA)
