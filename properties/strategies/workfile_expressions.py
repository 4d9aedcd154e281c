"""Workfile expressions drawn from the whole grammar, printed with the fewest parentheses.

The Core campaign's documents read step outputs with ``.id``, ``.n + 1``,
``== null`` and ``not`` only; an executor whose precedence, arithmetic,
filters or template text differ from the model's (docs/workfile-expressions.md,
A-100/A-101/A-117) passed them all.  ``probes`` draws the steps that
reach the rest: a fetch step ``src`` with a scripted output of every JSON
kind, then read actions whose arguments are expressions over it, over
``inputs`` and over literals — each a whole-value marker (its type kept)
or a marker written into text — and, now and then, a ``wf.route`` on an
expression with keys written as numbers, quoted numbers and strings, and a
``wf.render``.

Expressions are drawn by the type they should have (so most evaluate; now
and then an operand of another type makes one fault, which is observed
too) and printed with a parenthesis only where precedence needs one
(the model's ``unparse``), sometimes one more: ``a + b | length`` is printed as such,
which an executor that binds filters loosely reads as ``(a + b) | length``.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from hypothesis import strategies as st

from wforacle.model.workfile.expr import (
    Binary,
    Bool,
    Cond,
    Expr,
    Filter,
    Index,
    Minus,
    Not,
    operands,
    parse,
    unparse,
)
from wforacle.properties.strategies.sampled import sampled

JSON = Any

# The scripted output of the step every probe reads (``src``): each JSON kind.
SOURCE = {
    "id": "Ab",
    "n": 7,
    "f": 1.5,
    "tags": ["x", "Y"],
    "m": {"b": 1, "a": None},
    "none": None,
}
# A name or member path and the type it reads as.
REFERENCES = {
    "number": ("inputs.k", "src.n", "src.f"),
    "string": ("src.id", "src.tags[0]"),
    "boolean": ("inputs.flag",),
    "list": ("src.tags",),
    "object": ("src.m",),
    "null": ("src.none", "src.missing", "src.m.a"),
}
LITERALS = {
    "number": ("0", "1", "2", "3", "7", "10", "0.5", "2.0", "1.5"),
    # '"a}}b"': a marker ends at the first }} outside a string literal.
    "string": ('"a"', "'b'", '"Ab"', '"é"', '""', '"x y"', '"a}}b"'),
    "boolean": ("true", "false"),
    "null": ("null",),
}
KINDS = ("number", "string", "boolean", "list", "object", "null")


@functools.cache
def _leaf(text: str) -> Expr:
    return parse(text)


def _expression(draw: st.DrawFn, kind: str, depth: int) -> Expr:
    """A tree meant to evaluate to a value of ``kind`` (now and then, one that faults)."""
    if depth <= 0 or draw(st.integers(0, 3)) == 0:
        leaves = [*LITERALS.get(kind, ()), *REFERENCES.get(kind, ())]
        if kind == "list":
            leaves += ['["a", 1]', "[]", "[1, 2.5, null]"]
        if kind == "object":
            leaves += ['{a: 1, "b c": [true]}', "{}"]
        return _leaf(draw(sampled(leaves)))
    # Now and then an operand of a kind the operator does not take: the fault is observed.
    operand = kind if draw(st.integers(0, 11)) else draw(sampled(KINDS))
    sub = depth - 1

    def drawn(of: str) -> Expr:
        return _expression(draw, of, sub)

    choice = draw(st.integers(0, 5))
    if choice == 0:  # a conditional, of any kind
        return Cond(drawn(kind), drawn("boolean"), drawn(kind))
    if kind == "number":
        if choice == 1:
            return Minus(drawn(operand))
        if choice == 2:
            return Filter("length", drawn(draw(sampled(("string", "list", "object")))))
        op = draw(sampled(("+", "-", "*", "/", "%")))
        return Binary(op, drawn(operand), drawn("number"))
    if kind == "string":
        if choice == 1:
            return Binary("+", drawn(operand), drawn("string"))
        if choice == 2:
            name = draw(sampled(("string", "json")))
            return Filter(name, drawn(draw(sampled(KINDS))))
        if choice == 3:
            return Filter(draw(sampled(("lower", "upper"))), drawn(operand))
        if choice == 4:
            separator = _leaf(draw(sampled(('"-"', "', '", '""'))))
            return Filter("join", _leaf("src.tags"), (separator,))
        return Filter("default", drawn("null"), (drawn("string"),))
    if kind == "boolean":
        if choice == 1:
            return Not(drawn(operand))
        if choice == 2:
            # Now and then a right operand of another kind: short-circuit evaluation never
            # reads it where the left decides (a stranger's eager and/or went unfound).
            right = "boolean" if draw(st.integers(0, 2)) else draw(sampled(KINDS))
            return Bool(draw(sampled(("and", "or"))), drawn(operand), drawn(right))
        if choice == 3:
            op = draw(sampled(("<", "<=", ">", ">=")))
            compared = draw(sampled(("number", "string")))
            return Binary(op, drawn(compared), drawn(compared))
        if choice == 4:
            container = draw(sampled(("list", "string", "object")))
            element = "string" if container != "list" else draw(sampled(KINDS))
            return Binary("in", drawn(element), drawn(container))
        op = draw(sampled(("==", "!=")))
        compared = draw(sampled(KINDS))
        return Binary(op, drawn(compared), drawn(compared))
    if kind == "list":
        if choice == 1:
            return Binary("+", drawn(operand), drawn("list"))
        return Filter("keys", drawn("object"))
    if kind == "null":
        return Index(drawn("list"), _leaf(draw(sampled(("5", "-9")))))
    return Index(_leaf("src"), _leaf('"m"'))  # an object read through a literal index


def expression(draw: st.DrawFn, kind: str | None = None, depth: int = 3) -> str:
    """An expression's text: of ``kind`` (drawn when None), at most ``depth`` operators deep.

    Printed by the model's ``unparse``: a parenthesis only where precedence
    needs one, and now and then one pair more around an operand (the parser
    reads both alike).
    """
    if kind is None:
        kind = draw(sampled(KINDS))
    tree = _expression(draw, kind, depth)
    extra: frozenset[int] = frozenset()
    if draw(st.integers(0, 3)) == 0:
        inner = [t for t in _subtrees(tree) if t is not tree and operands(t)]
        if inner:
            # By index: ``sampled`` keeps one strategy per equal options, so drawing the
            # subtree itself could return an equal one of an earlier tree, whose id is
            # not in this one -- the parenthesis then depended on what the process had
            # generated before (a seed gave two fixture suites in one process).
            extra = frozenset({id(inner[draw(sampled(range(len(inner))))])})
    printed = unparse(tree, extra)
    if draw(st.integers(0, 3)) == 0:
        # Single quotes now and then (unparse writes double): a literal holds no quote.
        printed = re.sub(r'"([^"\'\\]*)"', r"'\1'", printed)
    return printed


def _subtrees(tree: Expr) -> list[Expr]:
    found = [tree]
    for operand in operands(tree):
        found += _subtrees(operand)
    return found


def probes(draw: st.DrawFn, fresh: Any) -> tuple[list[JSON], dict[str, JSON]]:
    """The probe steps (appended to a root step list) and the scenario results they need.

    ``fresh()`` gives an unused step id.  Every probe is a read with
    ``on_fail: continue``: a probe that faults fails alone and the run goes on,
    so what the rest of the case shows is unchanged.
    """
    source = fresh()
    steps: list[JSON] = [{source: {"svc.fetch": {}}}]
    scripts = {source: [{"output": dict(SOURCE)}]}

    def text(kind: str | None = None) -> str:
        return expression(draw, kind).replace("src", source)

    for _ in range(draw(st.integers(1, 2))):
        args: dict[str, JSON] = {"v": f"{{{{ {text()} }}}}"}
        if draw(st.booleans()):
            args["t"] = f"<{{{{ {text()} }}}}|{{{{ {text()} }}}}>"
        read: dict[str, JSON] = {"svc.get": args, "on_fail": "continue"}
        if draw(st.integers(0, 2)) == 0:
            # A guard (WF-STEP-1 item 1): a boolean, now and then another kind, which
            # faults under booleans and is tested for truth under truthy (A-117's reading).
            guard = "boolean" if draw(st.integers(0, 3)) else None
            read["when"] = f"{{{{ {text(guard)} }}}}"
        steps.append({fresh(): read})
    construct = draw(st.integers(0, 3))
    if construct == 0:  # a route on a number or a string, keys as written in YAML
        # Half the subjects are values the keys spell (7, 1, 2.5, "Ab"): a quoted key
        # meets the number it spells, an unquoted one a float equal to it.
        subject = draw(sampled(("src.n", "inputs.k + 1", "src.f + 1", "src.id", None, None, None)))
        if subject is None:
            subject = text(draw(sampled(("number", "string"))))
        keys = draw(
            st.lists(
                sampled((1, "1", 2, 7, "7", 2.5, "2.5", 1.0, "Ab", "a")),
                min_size=2,
                max_size=3,
                unique_by=lambda key: key if isinstance(key, str) else json.dumps(key),
            )
        )
        cases = {key: [{fresh(): {"svc.get": {"case": str(key)}}}] for key in keys}
        route: dict[str, JSON] = {"subject": f"{{{{ {subject.replace('src', source)} }}}}"}
        route["cases"] = cases
        if draw(st.booleans()):
            route["else"] = [{fresh(): {"svc.get": {"case": "else"}}}]
        steps.append({fresh(): {"wf.route": route, "on_fail": "continue"}})
    elif construct == 1:  # a render: a template over its with projection
        projection = {"a": f"{{{{ {text()} }}}}", "b": f"{{{{ {text()} }}}}"}
        # Half the templates are one marker: its value, of any kind, written as text.
        template = draw(sampled(("{{ a }}", "{{ b }}", "{{ a }}/{{ b }}", "[{{ b | json }}]")))
        rendered = fresh()
        render = {"wf.render": {"template": template, "with": projection}, "on_fail": "continue"}
        steps.append({rendered: render})
        steps.append({fresh(): {"svc.get": {"text": f"{{{{ {rendered} }}}}"}}})
    elif construct == 2:  # a repeat whose until is an expression, checked per iteration
        body = fresh()
        until = text("boolean")
        if draw(st.booleans()):  # over the iteration's own output (its binding, A-114)
            until = f"{body}.id == {text('string')} or {until}"
        repeat = {
            "steps": [{body: {"svc.get": {"i": f"{{{{ {text()} }}}}"}}}],
            "until": f"{{{{ {until} }}}}",
            "max_iterations": draw(st.integers(1, 2)),
        }
        steps.append({fresh(): {"wf.repeat": repeat, "on_fail": "continue"}})
    return steps, scripts
