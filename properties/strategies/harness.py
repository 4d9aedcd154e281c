"""Hypothesis strategies for Harness documents and scenarios (chapter 5).

A campaign must reach each clause's interesting shapes by construction, not
by chance (issue 10): an ``any`` join whose losing sibling is a RUNNING
``idempotent="false"`` node turned up once in thousands of random graphs.
So ``harness_cases`` draws either

* a **shape** from a catalogue, one per clause family, each the smallest
  graph in which that family's rules decide something, with its attributes,
  scenario and schedule still drawn; or
* a **swarm graph**: a random DAG whose feature set (which joins, guards,
  edge kinds, conditions, failures, retries, resources, value inputs,
  compensation, ``@entry``) is drawn first, so a feature is sometimes
  everywhere and sometimes absent (swarm testing).

Guards, edge conditions and decision cases are drawn by ``expressions``, a
strategy built on the productions of grammar/harness_expr.lark (``or_``,
``and_``, ``negation``, ``cmp`` with each operator, every kind of ``atom``)
over the references a case provides: ``params.go``, ``params.p`` and
``params.q`` (each drawn null, a boolean, a number or a string, or absent),
``params.r`` (never provided) and the outputs of earlier nodes; in a loop
body, ``params.item`` and ``params.index`` (A-65).  A loop's body is driven
over the engine protocol (an ``invoke`` with ``within``,
docs/engine-protocol.md, "Harness engines"); the loop shape keeps each loop
within what the model enumerates (``MAX_LOOP_OUTCOMES``).

Notation: nodes are ``n0…nk`` in document order (edges go forward only);
a case is ``{"document": XML, "scenario": JSON, "schedule": [int]}``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any
from xml.sax.saxutils import escape

import attrs
from hypothesis import strategies as st

from wforacle.properties.strategies.sampled import sampled

JSON = Any
GO = "params.go == true"
PARAMS = ("params.go", "params.p", "params.q", "params.r")  # params.r: never provided
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")  # the grammar's CMP terminal


# -- expressions (grammar/harness_expr.lark) -----------------------------------------------


@functools.cache  # each strategy is built once: building and validating one costs more than a draw
def values() -> st.SearchStrategy[JSON]:
    """The JSON values params, outputs and literals take: null first, then each type."""
    return st.one_of(st.none(), st.booleans(), st.integers(0, 2), sampled(["x", "y"]))


@functools.cache
def expressions(refs: tuple[str, ...] = PARAMS) -> st.SearchStrategy[str]:
    """Expression texts of grammar/harness_expr.lark over ``refs``, at most two operands.

    One alternative per production, the simplest first: ``cmp`` (a reference
    compared by any of the six operators with a literal of any JSON type or
    another reference), a bare ``atom``, then ``negation``, ``and_`` and
    ``or_`` over parenthesised operands (``"(" expr ")"``).
    """
    literals = values().map(lambda v: json.dumps(v))
    atoms = st.one_of(literals, sampled(refs))
    comparisons = st.builds("{} {} {}".format, sampled(refs), sampled(COMPARISONS), atoms)

    def compound(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        pairs = st.tuples(inner, inner)
        return st.one_of(
            inner.map("not ({})".format),
            pairs.map(lambda p: f"({p[0]}) and ({p[1]})"),
            pairs.map(lambda p: f"({p[0]}) or ({p[1]})"),
        )

    return st.recursive(st.one_of(comparisons, atoms), compound, max_leaves=2)


@functools.cache
def scenario_params() -> st.SearchStrategy[dict[str, JSON]]:
    """``params``: ``go`` a boolean; ``p`` and ``q`` any value, or absent."""
    return st.fixed_dictionaries({"go": st.booleans()}, optional={"p": values(), "q": values()})


def _attribute(value: str) -> str:
    return escape(value, {'"': "&quot;"})


def _element(tag: str, node_id: str, body: str, attributes: dict[str, str | None]) -> str:
    """A ``<node>`` or ``<loop>`` element; attributes that are None are left out."""
    extra = "".join(f' {k}="{_attribute(v)}"' for k, v in attributes.items() if v is not None)
    return f'<{tag} id="{node_id}"{extra}>{body}</{tag}>'


@attrs.define
class _Builder:
    """The parts of one document and its scenario, built in document order."""

    parts: list[str] = attrs.field(factory=list)
    attempts: dict[str, list[JSON]] = attrs.field(factory=dict)
    failing_resources: list[str] = attrs.field(factory=list)
    entry: str | None = None

    def node(self, node_id: str, body: str = "", /, **attributes: str | None) -> None:
        self.parts.append(_element("node", node_id, body, attributes))

    def edge(self, source: str, target: str, kind: str = "control", **attributes: str) -> None:
        extra = "".join(f' {k}="{_attribute(v)}"' for k, v in attributes.items())
        self.parts.append(f'<edge from="{source}" to="{target}" type="{kind}"{extra}/>')

    def data(self, source: str, target: str, condition: str | None = None) -> None:
        extra = {"condition": condition} if condition else {}
        self.edge(source, target, "data", fromPort="v", toPort="v", **extra)

    def decision(
        self, node_id: str, taken: str, other: str, when: str = GO, guarded: str | None = None
    ) -> None:
        """A decision routing to ``taken`` when ``when`` holds, else ``other``.

        ``guarded``: the decision's own guard; false, the decision is SKIPPED
        and its cases resolve as conditional edges (HX-EXEC-1, HX-JOIN-5, A-159).
        """
        own = guard(guarded) if guarded is not None else ""
        self.parts.append(
            f'<decision id="{node_id}">{own}<case to="{taken}" when="{_attribute(when)}"/>'
            f'<case to="{other}"/></decision>'
        )

    def fail(self, node_id: str, then_succeed: bool = False) -> None:
        """Script the node's invocations: an error, then (optionally) a success."""
        self.attempts[node_id] = [{"error": {"code": "x"}}]
        if then_succeed:
            self.attempts[node_id].append({"outputs": {"v": 1}})

    def case(self, draw: st.DrawFn) -> dict[str, JSON]:
        root = f' entry="{self.entry}"' if self.entry else ""
        scenario: dict[str, JSON] = {
            "params": draw(scenario_params()),
            "nodes": {k: {"attempts": v} for k, v in self.attempts.items()},
        }
        if self.failing_resources:
            scenario["failingResources"] = self.failing_resources
        return {
            "document": f'<harness id="h"{root}>' + "".join(self.parts) + "</harness>",
            "scenario": scenario,
            "schedule": draw(st.lists(st.integers(0, 5), max_size=10)),
        }


def guard(text: str) -> str:
    """A ``<guard>`` element holding the expression ``text``."""
    return f"<guard>{escape(text)}</guard>"


def _idempotent(draw: st.DrawFn) -> str | None:
    return draw(sampled([None, "false"]))


def _join(draw: st.DrawFn, incoming: int = 2) -> dict[str, str | None]:
    join = draw(sampled(["all", "any", "quorum"]))
    return {
        "joinPolicy": None if join == "all" else join,
        "quorum": str(draw(st.integers(1, incoming))) if join == "quorum" else None,
    }


def _retry(draw: st.DrawFn, b: _Builder, node_id: str) -> str:
    """A ``<retry>`` of two or three attempts, and a script of errors then (maybe) a success.

    HX-FAIL-1: the node is FAILED only once "its retry policy is exhausted";
    a later attempt that succeeds makes it SUCCEEDED with every attempt counted.
    """
    attempts = draw(st.integers(2, 3))
    errors = draw(st.integers(0, attempts))
    script: list[JSON] = [{"error": {"code": f"e{k}"}} for k in range(errors)]
    if errors < attempts:
        script.append({"outputs": {"v": draw(values())}})
    if script:
        b.attempts[node_id] = script
    return f"<retry maxAttempts='{attempts}'/>"


# -- the shape catalogue: one entry per clause family -------------------------------------


def _any_race(draw: st.DrawFn, b: _Builder) -> None:
    """HX-CANCEL-1/2: siblings racing into an ``any`` join.

    ``n0`` and ``n1`` both run; whichever the schedule completes first makes
    ``n2`` READY, and the other, still RUNNING, is cancelled, or, declared
    ``idempotent="false"``, finishes with its result discarded.  A drawn edge
    ``n1 → n3`` gives ``n1`` a path around the join, so it "could" reach
    another node and must not be cancelled.
    """
    common = draw(st.booleans())  # both siblings downstream of one source
    first = "s" if common else None
    if first:
        b.node("s")
    b.node("n0", idempotent=_idempotent(draw))
    b.node("n1", idempotent=_idempotent(draw))
    b.node("n2", joinPolicy="any")
    b.node("n3")
    if first:
        b.edge("s", "n0")
        b.edge("s", "n1")
    b.edge("n0", "n2")
    b.edge("n1", "n2")
    b.edge("n2", "n3")
    if draw(st.booleans()):
        b.edge("n1", "n3")
    if draw(st.integers(0, 3)) == 0:
        b.fail(draw(sampled(["n0", "n1"])))


def _untaken_branch(draw: st.DrawFn, b: _Builder) -> None:
    """HX-UNREACH-1..4, HX-JOIN-3, HX-DONE-2: a decision's untaken branch reconverges.

    The untaken branch (one or two nodes long) must propagate unreachability
    so the join resolves on the taken branch; with both branches joined by
    an all-join whose other input is also negative, the join stays PENDING.
    """
    b.node("s")
    b.decision("d", "n0", "n1")
    b.node("n0")
    long_branch = draw(st.booleans())
    b.node("n1")
    if long_branch:
        b.node("n1b")
    b.node("j", **_join(draw))
    b.node("z")
    b.edge("s", "d")
    b.edge("n0", "j")
    if long_branch:
        b.edge("n1", "n1b")
        b.edge("n1b", "j")
    else:
        b.edge("n1", "j")
    b.edge("j", "z")


def _unavailable_output(draw: st.DrawFn, b: _Builder) -> None:
    """HX-DATA-2..4, HX-EXEC-2, HX-UNREACH-5: a required input whose producer gives no value.

    The producer is guarded (SKIPPED: no outputs), fails with its failure
    handled, or sits on an untaken branch; the consumer's required input
    either has a default or must fail HX-4101, never receive a null.
    """
    how = draw(sampled(["guarded", "handled", "untaken", "condition"]))
    default = ' default="0"' if draw(st.booleans()) else ""
    b.node("a")
    if how == "untaken":
        b.decision("d", "p", "q")
        b.edge("a", "d")
        b.node("q")
    guard = f"<guard>{GO}</guard>" if how == "guarded" else ""
    b.node("p", guard + "<output name='v'/>")
    if how == "handled":
        b.node("h")
        b.edge("p", "h", "error")
        b.fail("p")
    b.node("c", f"<input name='v' required='true'{default}/>")
    b.node("z")
    if how != "untaken":
        b.edge("a", "p")
    b.data("p", "c", condition=GO if how == "condition" else None)
    b.edge("a", "c")
    b.edge("c", "z")


def _handled_failure(draw: st.DrawFn, b: _Builder) -> None:
    """HX-FAIL-1, HX-UNREACH-2: error edges, and handlers whose source succeeded.

    ``f`` fails (or not); its error edge makes ``h`` READY when it does; a
    join ``x`` after both ``h`` and a sibling must resolve either way.
    """
    b.node("s")
    retry = "<retry maxAttempts='2'/>" if draw(st.booleans()) else ""
    b.node("f", retry, idempotent=_idempotent(draw))
    b.node("h")
    b.node("x", **_join(draw))
    b.edge("s", "f")
    b.edge("f", "h", "error")
    b.edge("s", "x")
    b.edge("h", "x")
    if draw(st.booleans()):
        b.fail("f", then_succeed=bool(retry) and draw(st.booleans()))


def _unwinding(draw: st.DrawFn, b: _Builder) -> None:
    """HX-FAIL-2, A-64: an unhandled failure unwinds; compensation runs for what succeeded.

    ``a → b → c`` with compensation handlers on ``a`` and ``b``, a sibling
    ``r`` that may still be RUNNING when ``c`` fails, and ``c`` failing.
    """
    b.node("a")
    b.node("b")
    b.node("c")
    b.node("r", idempotent=_idempotent(draw))
    b.node("ca")
    b.node("cb")
    b.edge("a", "b")
    b.edge("b", "c")
    b.edge("a", "r")
    b.edge("a", "ca", "compensation")
    b.edge("b", "cb", "compensation")
    b.fail(draw(sampled(["c", "c", "b", "r"])))


def _quorum(draw: st.DrawFn, b: _Builder) -> None:
    """HX-JOIN-1/2, HX-READY-4, F-10: a quorum over three sources.

    Some sources fail, are guarded or sit behind a false condition: a
    negative edge never counts toward the quorum.
    """
    for name in ("p0", "p1", "p2"):
        body = guard(GO) if draw(st.integers(0, 2)) == 0 else ""
        b.node(name, body)
    # At most two conditioned edges, and a quorum the others can meet (else the join
    # can never fire, an invalid document: HX-JOIN-2).
    conditioned = draw(st.lists(sampled(["p0", "p1", "p2"]), max_size=2, unique=True))
    b.node("j", joinPolicy="quorum", quorum=str(draw(st.integers(1, 3 - len(conditioned)))))
    b.node("z")
    for name in ("p0", "p1", "p2"):
        if name in conditioned:
            b.edge(name, "j", condition=draw(expressions()))
        else:
            b.edge(name, "j")
    b.edge("j", "z")
    for name in draw(st.lists(sampled(["p0", "p1", "p2"]), max_size=2, unique=True)):
        b.fail(name)


def _resources(draw: st.DrawFn, b: _Builder) -> None:
    """HX-EXEC-3/7, HX-4102: an unresolvable resource fails the node before any invocation."""
    b.node("a", resourceRef="db")
    b.node("b", resourceRef="db cache", idempotent=_idempotent(draw))
    b.node("c")
    b.edge("a", "b")
    b.edge("b", "c", draw(sampled(["control", "error"])))
    b.failing_resources = draw(st.lists(sampled(["db", "cache"]), max_size=2, unique=True))


def _conditions(draw: st.DrawFn, b: _Builder) -> None:
    """HX-READY-3/4: a false condition is resolved-negative and never counts toward a join.

    Conditions are drawn from the grammar over params and the sources' own
    outputs (scripted values of every type), on control, data and
    dependency edges.
    """
    for name in ("a", "b"):
        b.node(name, "<output name='v'/>")
        if draw(st.booleans()):
            b.attempts[name] = [{"outputs": {"v": draw(values())}}]
    kind = draw(sampled(["control", "data", "dependency"]))
    default = " default='0'" if draw(st.booleans()) else ""
    body = f"<input name='v' required='true'{default}/>" if kind == "data" else ""
    # b's edge may go unconditioned, so a quorum of one can be met (else the document
    # is invalid: join_never_fires, HX-JOIN-2).
    b_condition = draw(st.booleans())
    join = _join(draw, incoming=1)
    if b_condition and join["joinPolicy"] == "quorum":
        join = {"joinPolicy": "any"}
    b.node("j", body, **join)
    b.node("z")
    refs = (*PARAMS, "a.v", "b.v")
    if kind == "data":
        b.data("a", "j", condition=draw(expressions(refs)))
    else:
        b.edge("a", "j", kind, condition=draw(expressions(refs)))
    kind = draw(sampled(["control", "dependency"]))
    b.edge("b", "j", kind, **({"condition": draw(expressions(refs))} if b_condition else {}))
    b.edge("j", "z")


def _entry(draw: st.DrawFn, b: _Builder) -> None:
    """HX-START-1..3: ``@entry`` names the single start; other roots are never reached."""
    b.entry = "a"
    b.node("a")
    b.node("b")
    b.node("orphan")
    b.node("j", **_join(draw))
    b.edge("a", "b")
    b.edge("b", "j")
    b.edge("orphan", "j")


def _guards(draw: st.DrawFn, b: _Builder) -> None:
    """HX-EXEC-1, HX-JOIN-5, HX-SCHED-4: guards and decision cases drawn from the grammar.

    ``g0`` and ``g1`` are guarded (``g1`` may read ``g0``'s output), a
    decision routes on a drawn case, and ``c`` consumes ``g0``'s output: a
    SKIPPED producer's successors still run, its output is unavailable.
    """
    b.node("g0", guard(draw(expressions())) + "<output name='v'/>")
    if draw(st.booleans()):
        b.attempts["g0"] = [{"outputs": {"v": draw(values())}}]
    b.node("g1", guard(draw(expressions((*PARAMS, "g0.v")))))
    # Half the decisions are guarded themselves: a false guard SKIPs the decision, and its
    # cases then resolve as any SKIPPED node's conditional edges (A-159's readings).
    when = draw(expressions((*PARAMS, "g0.v")))
    guarded = draw(expressions()) if draw(st.booleans()) else None
    b.decision("d", "t", "e", when=when, guarded=guarded)
    b.node("t")
    b.node("e")
    default = " default='0'" if draw(st.booleans()) else ""
    b.node("c", f"<input name='v' required='true'{default}/>")
    b.edge("g0", "g1")
    b.edge("g1", "d")
    b.data("g0", "c")


def _inputs(draw: st.DrawFn, b: _Builder) -> None:
    """HX-EXEC-2: each input from its data edge, else from ``value``, else from ``default``.

    ``c`` has an input fed by a data edge that may also carry a ``value`` and
    a ``default`` (the edge's value wins when the producer gives one), one
    with only a ``value``, one with only a ``default``; the producer may be
    guarded off or fail with its failure handled.
    """
    how = draw(sampled(["plain", "guarded", "handled"]))
    b.node("p", (guard(GO) if how == "guarded" else "") + "<output name='v'/>")
    if how == "handled":
        b.node("h")
        b.edge("p", "h", "error")
        b.fail("p")
    elif draw(st.booleans()):
        b.attempts["p"] = [{"outputs": {"v": draw(values())}}]

    def attribute(name: str) -> str:
        return f" {name}='{escape(json.dumps(draw(values())))}'" if draw(st.booleans()) else ""

    required = "true" if draw(st.booleans()) else "false"
    b.node(
        "c",
        f"<input name='v' required='{required}'{attribute('value')}{attribute('default')}/>"
        f"<input name='k' required='true' value='{escape(json.dumps(draw(values())))}'/>"
        f"<input name='d' required='false'{attribute('default')}/>",
    )
    b.data("p", "c")


def _retries(draw: st.DrawFn, b: _Builder) -> None:
    """HX-FAIL-1: a node retried until an attempt succeeds or its policy is exhausted.

    Its output feeds a consumer; an error edge may handle its final failure.
    """
    b.node("s")
    b.node("r", _retry(draw, b, "r") + "<output name='v'/>", idempotent=_idempotent(draw))
    b.node("c", "<input name='v' required='true'/>")
    b.edge("s", "r")
    b.data("r", "c")
    if draw(st.booleans()):
        b.node("h")
        b.edge("r", "h", "error")


# A loop body's expressions read the iteration's params (A-65) and the instance's.
BODY_PARAMS = ("params.item", "params.index", "params.go")


# A guard that tells iterations apart by their position (A-65: params.index is the
# zero-based position): an expression drawn over every body param rarely does.
_INDEX_TESTS = st.builds("params.index {} {}".format, sampled(COMPARISONS), st.integers(0, 2))


def _body_node(draw: st.DrawFn, b: _Builder, node_id: str, alone: bool) -> str:
    """A loop body's task, with its script.

    A guard over the iteration's params, an output, and either a way to
    succeed — plainly, with a value input, after a retry (only when ``alone``
    in its body: the model enumerates every interleaving of a body's nodes)
    — or, half the time, a way to fail: scripted, an unbound required input
    (HX-4101) or an unresolvable resource (HX-4102).  A failing node that is
    guarded fails in some iterations only.
    """
    body = ""
    if draw(st.booleans()):
        body += guard(draw(expressions(BODY_PARAMS) | _INDEX_TESTS))
    if draw(st.booleans()):
        body += "<output name='v'/>"
        if draw(st.booleans()):
            b.attempts[node_id] = [{"outputs": {"v": draw(values())}}]
    resource = None
    if draw(st.booleans()):
        how = draw(sampled(["plain", "value", "retried"]))
        if how == "value":
            value = escape(json.dumps(draw(values())))
            body += f"<input name='k' required='true' value='{value}'/>"
        elif how == "retried" and alone:
            body += _retry(draw, b, node_id)
        return _element("node", node_id, body, {})
    how = draw(sampled(["scripted", "unbound", "resource"]))
    if how == "scripted":
        b.fail(node_id)
    elif how == "unbound":
        body += "<input name='u' required='true'/>"
    else:
        resource = "db"
        b.failing_resources = ["db"]
    return _element("node", node_id, body, {"resourceRef": resource})


def _max_concurrency(draw: st.DrawFn) -> str | None:
    """A loop's maxConcurrency: one at a time half the time, else no bound or two.

    HX-SCHED-4: with "1", iterations "execute in sequence order", where the
    order is observable; with "2", HX-SCHED-2's bound (A-80).
    """
    return "1" if draw(st.booleans()) else draw(sampled([None, "2"]))


def _loops(draw: st.DrawFn, b: _Builder) -> None:
    """HX-SCHED-2/4, A-65, A-80: a loop over a producer's list, its body a run per item.

    ``a`` scripts the list ``l`` iterates over (zero to three items; sometimes
    not a list: the loop fails); the body has one or two units — tasks drawn
    by ``_body_node``, or a loop ``m`` over ``params.item`` (nested at most
    once: then the items are lists, or sometimes not) — and iterations fail
    when a body node does, so with maxConcurrency="1" only the first failing
    iteration in sequence order may fail the loop.  ``z`` follows the loop; an
    error edge may handle its failure.  At most two items with two body units,
    so the model enumerates every execution (rules.MAX_LOOP_OUTCOMES).
    """
    b.node("a", "<output name='xs'/>")
    units = draw(st.integers(1, 2))
    nested = draw(st.integers(0, 2)) == 0
    parts = [_body_node(draw, b, f"b{k}", alone=units == 1) for k in range(units - nested)]
    if nested:
        inner = _body_node(draw, b, "c0", alone=True)
        parts.append(
            _element(
                "loop",
                "m",
                inner,
                {"over": "params.item", "maxConcurrency": _max_concurrency(draw)},
            )
        )
    item = st.lists(values(), max_size=2) | values() if nested else values()
    count = draw(sampled([2, 1, 3, 0] if units == 1 else [2, 1, 0]))
    if count or draw(st.booleans()):  # else a.xs is the string "a.xs": not a list (A-65)
        items = draw(st.lists(item, min_size=count, max_size=count))
        b.attempts["a"] = [{"outputs": {"xs": items}}]
    b.parts.append(
        _element(
            "loop", "l", "".join(parts), {"over": "a.xs", "maxConcurrency": _max_concurrency(draw)}
        )
    )
    b.node("z")
    b.edge("a", "l")
    b.edge("l", "z")
    if draw(st.booleans()):
        b.node("h")
        b.edge("l", "h", "error")


SHAPES: tuple[Callable[[st.DrawFn, _Builder], None], ...] = (
    _any_race,
    _untaken_branch,
    _unavailable_output,
    _handled_failure,
    _unwinding,
    _quorum,
    _resources,
    _conditions,
    _entry,
    _guards,
    _inputs,
    _retries,
    _loops,
)


# -- swarm graphs ----------------------------------------------------------------------


@attrs.frozen
class Features:
    """Which features a swarm graph may use; drawn once per graph."""

    decisions: bool
    guards: bool
    joins: tuple[str, ...]
    non_idempotent: bool
    edge_kinds: tuple[str, ...]
    data: bool
    retries: bool
    failures: bool
    conditions: bool
    resources: bool
    values: bool
    compensation: bool
    entry: bool


@functools.cache
def features() -> st.SearchStrategy[Features]:
    """Feature sets for swarm graphs (swarm testing), one drawn per graph."""
    flag = st.booleans()
    return st.builds(
        Features,
        decisions=flag,
        guards=flag,
        joins=st.lists(sampled(["any", "quorum"]), unique=True).map(lambda more: ("all", *more)),
        non_idempotent=flag,
        edge_kinds=st.lists(sampled(["dependency", "error"]), unique=True).map(
            lambda more: ("control", *more)
        ),
        data=flag,
        retries=flag,
        failures=flag,
        conditions=flag,
        resources=flag,
        values=flag,
        compensation=flag,
        entry=st.integers(0, 3).map(lambda n: n == 0),
    )


@functools.cache
def _sources(i: int, at_least: int) -> st.SearchStrategy[list[str]]:
    """One to three (``at_least`` 0: up to three) distinct sources among n0…n(i-1)."""
    return st.lists(
        sampled([f"n{k}" for k in range(i)]), min_size=at_least, max_size=3, unique=True
    )


@functools.cache
def _resources_of() -> st.SearchStrategy[list[str]]:
    """A node's resourceRefs."""
    return st.lists(sampled(["db", "cache"]), min_size=1, max_size=2, unique=True)


def _swarm_graph(draw: st.DrawFn, b: _Builder, max_nodes: int) -> None:
    """A random DAG over n0…nk using only the drawn features.

    Each later node takes one to three sources among the earlier ones; a
    decision routes to the next two nodes; a data edge feeds a required
    input, with or without a default or a ``value``; guards, conditions and
    cases read params and earlier nodes' outputs; a compensation handler
    ``c<i>`` may follow a node; ``@entry`` may name a root.
    """
    f = draw(features())
    n = draw(st.integers(2, max_nodes))
    ids = [f"n{i}" for i in range(n)]
    decided: set[str] = set()
    handlers: list[str] = []
    roots: list[str] = []
    outputs: list[str] = []  # references to earlier nodes' outputs
    for i, node_id in enumerate(ids):
        refs = (*PARAMS, *outputs[-2:])
        if f.decisions and i + 2 < n and node_id not in decided and draw(st.integers(0, 3)) == 0:
            taken, other = ids[i + 1 : i + 3]
            decided.update((taken, other))
            when = draw(expressions(refs)) if f.guards else GO
            b.decision(node_id, taken, other, when=when)
            if i == 0:
                roots.append(node_id)
            continue
        body = ""
        if f.guards and draw(st.integers(0, 2)) == 0:
            body += guard(draw(expressions(refs)))
        if f.data or draw(st.booleans()):
            body += "<output name='v'/>"  # a data edge may leave from any earlier node
            outputs.append(f"{node_id}.v")
            if f.values and draw(st.booleans()):
                b.attempts[node_id] = [{"outputs": {"v": draw(values())}}]
        if f.retries and draw(st.booleans()):
            body += _retry(draw, b, node_id)
        sources: list[str] = []
        if i and node_id not in decided:
            sources = draw(_sources(i, 0 if f.entry else 1))
        if not sources and node_id not in decided:
            roots.append(node_id)
        data_source = sources[0] if f.data and sources and draw(st.booleans()) else None
        kinds = {s: "data" if s == data_source else draw(sampled(f.edge_kinds)) for s in sources}
        # A drawn condition may never hold, and error edges take no part in a join: the
        # quorum is one the other edges can meet (else HX-2402 or join_never_fires).
        conditioned = {
            s
            for s in sources
            if kinds[s] != "error" and f.conditions and draw(st.integers(0, 3)) == 0
        }
        plain = sum(kinds[s] != "error" and s not in conditioned for s in sources)
        join = draw(sampled(f.joins)) if sources else "all"
        if join == "quorum" and not plain:
            join = "any"
        resource = None
        if f.resources and draw(st.booleans()):
            resource = " ".join(draw(_resources_of()))
        attributes: dict[str, str | None] = {
            "joinPolicy": None if join == "all" else join,
            "quorum": str(draw(st.integers(1, plain))) if join == "quorum" else None,
            "idempotent": "false" if f.non_idempotent and draw(st.booleans()) else None,
            "resourceRef": resource,
        }
        if data_source is not None:
            default = " default='0'" if draw(st.booleans()) else ""
            value = ""
            if f.values and draw(st.booleans()):
                value = f" value='{escape(json.dumps(draw(values())))}'"
            body += f"<input name='v' required='true'{default}{value}/>"
        if f.values and draw(st.integers(0, 2)) == 0:
            body += (
                f"<input name='k' required='true' value='{escape(json.dumps(draw(values())))}'/>"
            )
        b.node(node_id, body, **attributes)
        for source in sources:
            condition = {}
            if source in conditioned:
                condition = {"condition": draw(expressions(refs))}
            if source == data_source:
                b.data(source, node_id, **condition)
            else:
                b.edge(source, node_id, kinds[source], **condition)
        if f.compensation and draw(st.integers(0, 2)) == 0:
            handlers.append(node_id)
    for node_id in handlers:
        b.node(f"c{node_id}")
        b.edge(node_id, f"c{node_id}", "compensation")
    if f.entry and roots:
        b.entry = draw(sampled(roots))
    if f.failures:
        for name in draw(st.lists(sampled(ids), min_size=1, max_size=2, unique=True)):
            if name not in b.attempts:
                b.fail(name, then_succeed=f.retries and draw(st.booleans()))
    if f.resources:
        b.failing_resources = draw(st.lists(sampled(["db", "cache"]), max_size=2, unique=True))


@st.composite
def harness_cases(draw: st.DrawFn, max_nodes: int = 6) -> dict[str, JSON]:
    """A Harness case: a document (XML text), its scenario and a completion schedule.

    Half the cases are swarm graphs of at most ``max_nodes`` nodes, half are
    shapes from the catalogue, so each clause family is met in a known share
    of every campaign (``SHAPES``; measured by benchmarks/bench_power.py).
    """
    b = _Builder()
    if draw(st.booleans()):
        draw(sampled(SHAPES))(draw, b)
    else:
        _swarm_graph(draw, b, max_nodes)
    return b.case(draw)


# -- hand-written conformance cases (written once: pytest and `fixtures --profile conformance`) --


def conformance_cases() -> tuple[Any, ...]:
    """Harness conformance cases, each expectation stated from chapter 5's text."""
    from wforacle.properties.specification import ConformanceCase

    def case(
        document: str, scenario: JSON | None = None, schedule: list[int] | None = None
    ) -> JSON:
        return {
            "document": f'<harness id="h">{document}</harness>',
            "scenario": scenario or {"params": {}},
            "schedule": schedule or [],
        }

    return (
        ConformanceCase(
            "untaken-branch-stays-pending-and-the-join-resolves",
            ("HX-UNREACH-1", "HX-UNREACH-2", "HX-DONE-2"),
            case(
                '<node id="s"/><decision id="d"><case to="a" when="params.go == true"/>'
                '<case to="b"/></decision><node id="a"/><node id="b"/><node id="j"/>'
                '<edge from="s" to="d"/><edge from="a" to="j"/><edge from="b" to="j"/>',
                {"params": {"go": True}},
            ),
            {
                "status": "completed",
                "nodes": {"b": {"state": "PENDING"}, "j": {"state": "SUCCEEDED"}},
            },
        ),
        ConformanceCase(
            "false-guard-skips-and-successors-run",
            ("HX-EXEC-1",),
            case(
                '<node id="a"><guard>params.go == true</guard></node><node id="b"/>'
                '<edge from="a" to="b"/>',
                {"params": {"go": False}},
            ),
            {
                "status": "completed",
                "nodes": {"a": {"state": "SKIPPED"}, "b": {"state": "SUCCEEDED"}},
            },
        ),
        ConformanceCase(
            # A race the chapter leaves open: when fast wins while pay is RUNNING,
            # pay is not interrupted; it finishes (one attempt) and is discarded.
            "a-running-non-idempotent-loser-finishes-and-is-discarded",
            ("HX-CANCEL-1", "HX-CANCEL-2"),
            case(
                '<node id="fast"/><node id="pay" idempotent="false"/>'
                '<node id="j" joinPolicy="any"/>'
                '<edge from="fast" to="j"/><edge from="pay" to="j"/>',
                schedule=[0],  # fast completes first
            ),
            {"status": "completed", "nodes": {"pay": {"state": "CANCELLED", "attempts": 1}}},
            every=False,
        ),
        ConformanceCase(
            "an-error-edge-handles-the-failure",
            ("HX-FAIL-1",),
            case(
                '<node id="f"/><node id="h"/><edge from="f" to="h" type="error"/>',
                {"params": {}, "nodes": {"f": {"attempts": [{"error": {"code": "x"}}]}}},
            ),
            {
                "status": "completed",
                "nodes": {"f": {"state": "FAILED"}, "h": {"state": "SUCCEEDED"}},
            },
        ),
        ConformanceCase(
            "a-required-input-from-a-skipped-producer-fails-hx-4101",
            ("HX-DATA-2", "HX-DATA-3", "HX-DATA-4"),
            case(
                "<node id=\"p\"><guard>params.go == true</guard><output name='v'/></node>"
                "<node id=\"c\"><input name='v' required='true'/></node>"
                '<edge from="p" to="c" type="data" fromPort="v" toPort="v"/>',
                {"params": {"go": False}},
            ),
            {"nodes": {"p": {"state": "SKIPPED"}, "c": {"state": "FAILED", "error": "HX-4101"}}},
        ),
    )
