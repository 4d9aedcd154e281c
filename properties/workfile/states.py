"""Static checks of state-form Workfiles across states (the Stateful Profile).

model/workfile/state_loader.py decides what one state declaration decides by
itself; this module checks what needs the whole document or the manifests,
each diagnostic citing its clause (``wforacle clauses --spec
workfile-stateful``) or assumption:

* targets: ``initial`` and every transition target name a declared state
  (WFS-FORM-18, ``document.unknown_state``);
* the state graph (networkx): a final state reachable from ``initial``
  (WFS-FORM-18, ``document.final_unreachable``); no cycle of immediate
  transitions (WFS-FORM-19, ``document.immediate_cycle``);
* ``accepts``: the initial state declares none (WFS-ENTRY-2); each ``into``
  supplies no undeclared name and omits no required one (WFS-ENTRY-3,
  ``document.accepts``), and a value whose type is established statically
  fits its field (``document.type``, A-148);
* subscriptions: distinct from the entry's accepted names and step ids
  (WFS-TRANS-22); with manifests, ``event`` names an external or poll trigger
  and ``match`` only its ``correlate_on`` fields, at least one
  (WFS-TRANS-17, WFS-TRANS-20, ``document.subscription``); two subscriptions
  of one state that every delivery matching one also matches are rejected
  (z3, WFS-TRANS-35, ``document.ambiguous_subscription``, A-145).

Scopes (what an entry's expressions and the outputs may read) are
properties/workfile/validate.py's, where the Core scope rules live.

Notation: ``G`` is the state graph, a networkx multigraph whose nodes are
state names and whose edges ``s → t`` carry the kind of the transition
(``immediate``, ``event``, ``timeout``) and the path of the direct
transition naming ``t``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import networkx as nx
import z3

from wforacle.model.diagnostics import Diagnostic, Gate, error
from wforacle.model.workfile.document import ABSENT, Field, Step, walk
from wforacle.model.workfile.evaluate import EvaluationFault, equal, render
from wforacle.model.workfile.expr import (
    ExprError,
    is_template,
    refs,
    template,
)
from wforacle.model.workfile.manifest import Manifests
from wforacle.model.workfile.states import (
    Direct,
    State,
    StateWorkfile,
    Subscription,
    leaves,
)
from wforacle.model.workfile.types import fits, static_type

JSON = Any


def _error(code: str, path: str, message: str, clause: str) -> Diagnostic:
    return error(code, path, message, clause, Gate.SAVE)


def state_checks(document: StateWorkfile, manifests: Manifests | None) -> Iterator[Diagnostic]:
    """Every cross-state problem of ``document``, against ``manifests`` when supplied."""
    yield from targets(document)
    graph = state_graph(document)
    yield from final_reachable(document, graph)
    yield from immediate_cycles(document, graph)
    yield from accepts(document)
    for state in document.states:
        yield from subscription_names(state)
        yield from subscription_facts(state, manifests)
        yield from overlaps(state)


# -- targets and the state graph ---------------------------------------------------------


def targets(document: StateWorkfile) -> Iterator[Diagnostic]:
    """``initial`` and every transition target MUST name a declared state (WFS-FORM-18)."""
    declared = {state.name for state in document.states}
    names = ", ".join(sorted(declared))
    if document.initial not in declared:
        yield _error(
            "document.unknown_state",
            "$.initial",
            f"initial names {document.initial!r}, which is not a declared state ({names})",
            "WFS-FORM-18",
        )
    for state in document.states:
        for _, transition in state.transitions():
            for leaf in leaves(transition):
                if leaf.goto not in declared:
                    yield _error(
                        "document.unknown_state",
                        f"{leaf.path}.goto",
                        f"goto names {leaf.goto!r}, which is not a declared state ({names})",
                        "WFS-FORM-18",
                    )


def state_graph(document: StateWorkfile) -> nx.MultiDiGraph:
    """``G``: an edge per direct transition to a declared state, with its kind."""
    graph = nx.MultiDiGraph()
    graph.add_nodes_from(state.name for state in document.states)
    for state in document.states:
        for kind, transition in state.transitions():
            for leaf in leaves(transition):
                if leaf.goto in graph:
                    graph.add_edge(state.name, leaf.goto, kind=kind, path=leaf.path)
    return graph


def final_reachable(document: StateWorkfile, graph: nx.MultiDiGraph) -> Iterator[Diagnostic]:
    """At least one final state MUST be reachable from ``initial`` (WFS-FORM-18)."""
    if document.initial not in graph or not document.complete:
        return  # reported by targets(); or the graph lacks what the loader could not read
    finals = [state.name for state in document.states if state.final]
    reached = nx.descendants(graph, document.initial) | {document.initial}
    if any(name in reached for name in finals):
        return
    if not finals:
        message = "no state is final (final: true), so no final state is reachable from initial"
    else:
        message = (
            f"no final state is reachable from initial {document.initial!r}: "
            f"unreachable final states {', '.join(finals)}"
        )
    yield _error("document.final_unreachable", "$.initial", message, "WFS-FORM-18")


def immediate_cycles(document: StateWorkfile, graph: nx.MultiDiGraph) -> Iterator[Diagnostic]:
    """Every directed cycle MUST contain an event or timeout transition (WFS-FORM-19).

    Equivalently the immediate transitions alone form no cycle: one
    diagnostic per strongly connected set of them, naming a shortest cycle
    through its first declared state.
    """
    immediate = nx.DiGraph()
    immediate.add_nodes_from(graph.nodes)
    immediate.add_edges_from(
        (s, t) for s, t, kind in graph.edges(data="kind") if kind == "immediate"
    )
    order = {state.name: k for k, state in enumerate(document.states)}
    for component in nx.strongly_connected_components(immediate):
        first = min(component, key=order.__getitem__)
        if len(component) == 1 and not immediate.has_edge(first, first):
            continue
        cycle = _shortest_cycle(immediate.subgraph(component), first)
        shown = " → ".join([*cycle, cycle[0]])
        yield _error(
            "document.immediate_cycle",
            f"$.states.{first}",
            f"the immediate transitions {shown} form a cycle with no event or timeout "
            "transition: immediate transitions alone MUST NOT create an unbounded execution "
            f"loop (cycle: {json.dumps(cycle)})",
            "WFS-FORM-19",
        )


def _shortest_cycle(graph: nx.DiGraph, start: str) -> list[str]:
    """A shortest cycle through ``start`` in a strongly connected ``graph``, as states."""
    if graph.has_edge(start, start):
        return [start]
    paths = [nx.shortest_path(graph, after, start) for after in sorted(graph.successors(start))]
    best = min(paths, key=len)
    return [start, *best[:-1]]


# -- accepts and into --------------------------------------------------------------------


def accepts(document: StateWorkfile) -> Iterator[Diagnostic]:
    """``accepts`` of the initial state, and every ``into`` against its target's ``accepts``."""
    initial = document.state(document.initial)
    if initial is not None and initial.accepts is not None:
        yield _error(
            "document.accepts",
            f"{initial.path}.accepts",
            f"the initial state {initial.name!r} MUST NOT declare accepts: the run's first "
            "entry is created by no transition, so nothing could supply the values",
            "WFS-ENTRY-2",
        )
    inputs = {field.name: field for field in document.inputs}
    for state in document.states:
        own = {field.name: field for field in state.accepts or ()}
        for _, transition in state.transitions():
            for leaf in leaves(transition):
                target = document.state(leaf.goto)
                if target is not None:
                    yield from into(leaf, target, inputs, own)


def into(
    leaf: Direct, target: State, inputs: dict[str, Field], own: dict[str, Field]
) -> Iterator[Diagnostic]:
    """WFS-ENTRY-3: no undeclared supplied name, no omitted required name, no incompatible value."""
    declared = {field.name: field for field in target.accepts or ()}
    where = f"{leaf.path}.into"
    for name, value in leaf.into.items():
        field = declared.get(name)
        if field is None:
            yield _error(
                "document.accepts",
                f"{where}.{name}",
                f"into supplies {name!r}, which {target.name!r} does not declare in accepts "
                f"({', '.join(declared) or 'it declares none'})",
                "WFS-ENTRY-3",
            )
            continue
        found = static_type(value, inputs, own)
        if found is not None and not fits(found, field.type):
            yield _error(
                "document.type",
                f"{where}.{name}",
                f"into supplies {name!r} as {found}, which is statically incompatible with its "
                f"declared type {field.type} in {target.name!r}",
                "WFS-ENTRY-3",
            )
    for name, field in declared.items():
        # WFS-ENTRY-4: "An omitted name uses its declared default".
        if field.required and field.default is ABSENT and name not in leaf.into:
            yield _error(
                "document.accepts",
                where if leaf.into else leaf.path,
                f"the transition to {target.name!r} omits {name!r}, which its accepts declares "
                "required with no default",
                "WFS-ENTRY-3",
            )


# -- subscriptions -----------------------------------------------------------------------


def entry_step_ids(state: State) -> dict[str, Step]:
    """Every step id of the entry's lists, nested and handler steps included (A-149)."""
    return {step.id: step for step in walk((*state.on_enter, *state.steps))}


def subscription_names(state: State) -> Iterator[Diagnostic]:
    """Subscription names MUST be distinct from accepted values and step ids (WFS-TRANS-22)."""
    accepted = {field.name for field in state.accepts or ()}
    steps = entry_step_ids(state)
    for subscription in state.on:
        name = subscription.name
        clash = None
        if name in accepted:
            clash = "an accepted value of the state"
        elif name in steps:
            clash = f"a step id of the entry ({steps[name].path})"
        elif name in ("inputs", "run", "error"):
            clash = "a reserved root binding (A-149)"
        if clash is not None:
            yield _error(
                "document.duplicate_binding",
                subscription.path,
                f"the subscription {name!r} binds the delivered payload in the entry scope, "
                f"but {name!r} is {clash}: subscription names MUST be distinct from accepted "
                "values and step ids in the entry",
                "WFS-TRANS-22",
            )


def subscription_facts(state: State, manifests: Manifests | None) -> Iterator[Diagnostic]:
    """With manifests: ``event`` and ``match`` against the trigger (WFS-TRANS-17, -20)."""
    if manifests is None:
        return
    for subscription in state.on:
        connector = subscription.event.partition(".")[0]
        if not manifests.knows(connector):
            continue  # as for wf.wait_for: an unsupplied connector is not checked
        trigger = manifests.trigger(subscription.event)
        here = f"{subscription.path}.event"
        if trigger is None:
            yield _error(
                "document.unknown_trigger",
                here,
                f"no manifest declares the trigger {subscription.event!r}",
                "A-116",
            )
            continue
        if trigger.kind not in ("external", "poll"):
            yield _error(
                "document.subscription",
                here,
                f"{subscription.event} is a {trigger.kind} trigger: a subscription's event is a "
                "trigger of kind external or poll; schedule triggers are not state subscriptions",
                "WFS-TRANS-17",
            )
            continue
        correlated = set(trigger.correlate_on)
        for field in subscription.match:
            if field not in correlated:
                yield _error(
                    "document.subscription",
                    f"{subscription.path}.match.{field}",
                    f"match names {field!r}, which {subscription.event} does not declare in "
                    f"correlate_on ({', '.join(trigger.correlate_on) or 'none'}): match MUST NOT "
                    "name another field",
                    "WFS-TRANS-20",
                )
        if not correlated & set(subscription.match):
            yield _error(
                "document.subscription",
                f"{subscription.path}.match",
                f"match supplies no field of {subscription.event}'s correlate_on "
                f"({', '.join(trigger.correlate_on) or 'none'}); it MUST supply at least one",
                "WFS-TRANS-20",
            )


# -- overlapping subscriptions (z3) ------------------------------------------------------


def overlaps(state: State) -> Iterator[Diagnostic]:
    """Two subscriptions every delivery to one of which also matches the other (WFS-TRANS-35)."""
    subscriptions = state.on
    for k, first in enumerate(subscriptions):
        for second in subscriptions[k + 1 :]:
            if overlap_established(first, second):
                yield _error(
                    "document.ambiguous_subscription",
                    second.path,
                    f"the subscriptions {first.name!r} and {second.name!r} of {state.name!r} "
                    f"both take {first.event} events, and whatever their match values are at run "
                    "time one payload matches both: a delivery that matches more than one "
                    "subscription in the same entry is ambiguous configuration, rejected when "
                    "the overlap can be established statically",
                    "WFS-TRANS-35",
                )


def overlap_established(first: Subscription, second: Subscription) -> bool:
    """Whether for every run-time value of the match expressions one payload matches both (A-145).

    Both take the same event with the same configuration and connection.  A
    payload matches a subscription when each match field equals its value
    (WFS-TRANS-30), and fields outside both matches are free, so one payload
    matches both exactly when the values of every shared field are equal.
    Constants (literals and templates without references) are distinct
    values of an uninterpreted sort unless equal under ``==``; a template
    with references is an unknown of that sort, the same unknown for the
    same text (the match values are evaluated atomically in one scope,
    WFS-TRANS-26).  The overlap is established when z3 finds no valuation
    of the unknowns under which the shared fields differ.
    """
    if first.event != second.event:
        return False
    if _canonical(first.configuration) != _canonical(second.configuration):
        return False
    if _canonical(first.connection) != _canonical(second.connection):
        return False
    shared = sorted(set(first.match) & set(second.match))
    if not shared:
        return True  # disjoint fields: one payload carries both (WFS-TRANS-31)
    values = _Values()
    equal = z3.And([values.term(first.match[f]) == values.term(second.match[f]) for f in shared])
    solver = z3.Solver()
    solver.add(values.distinct())
    solver.add(z3.Not(equal))
    return bool(solver.check() == z3.unsat)


class _Values:
    """Match values as z3 terms of one uninterpreted sort ``Value``."""

    def __init__(self) -> None:
        self.sort = z3.DeclareSort("Value")
        self.constants: list[tuple[JSON, Any]] = []  # (value, term), one per ==-class
        self.unknowns: dict[object, Any] = {}

    def term(self, value: JSON) -> Any:
        """The term of one match value."""
        constant = _constant(value)
        if constant is _UNKNOWN:
            key = _unknown_key(value)
            if key not in self.unknowns:
                self.unknowns[key] = z3.Const(f"u{len(self.unknowns)}", self.sort)
            return self.unknowns[key]
        for known, term in self.constants:
            if equal(known, constant):  # run-time == (A-117, WFS-TRANS-30)
                return term
        term = z3.Const(f"c{len(self.constants)}", self.sort)
        self.constants.append((constant, term))
        return term

    def distinct(self) -> Any:
        """Distinct constants denote distinct values."""
        terms = [term for _, term in self.constants]
        return z3.Distinct(terms) if len(terms) > 1 else z3.BoolVal(True)


_UNKNOWN = object()


def _constant(value: JSON) -> JSON:
    """A match value known statically (a literal, or a template without references)."""
    if isinstance(value, dict | list):
        return _UNKNOWN if "{{" in _canonical(value) else value
    if not is_template(value):
        return value
    try:
        parsed = template(value)
        if any(refs(expr) for expr in parsed.expressions):
            return _UNKNOWN
        return render(parsed, {})
    except (ExprError, EvaluationFault):
        return _UNKNOWN


def _unknown_key(value: JSON) -> object:
    """What makes two unknown match values the same unknown: the same parsed template.

    ``{{ notify.id }}`` and ``{{notify.id}}`` are one expression (the spacing
    inside a marker is not part of it), so they denote one run-time value;
    a structured value is keyed by its text.
    """
    if isinstance(value, str):
        try:
            return template(value)
        except ExprError:
            pass
    return _canonical(value)


def _canonical(value: JSON) -> str:
    return "" if value is ABSENT else json.dumps(value, sort_keys=True)
