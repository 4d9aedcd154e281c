"""The parts of the Harness record (properties/harness/specification.py).

Documents, the model, cases and their reduction, the engine protocol's
payloads and the judge's comparison.

The protocol payloads (docs/engine-protocol.md, "Harness engines"): ``run``
carries the XML ``document``, ``params`` and ``failingResources``; ``invoke``
names a ``node`` and its ``inputs`` — a loop body's node also the iterations
it runs within, ``"within": [[loop, index], ...]`` outermost first, which the
oracle names ``loop[index]/node`` (``qualify``); the result is ``{"outputs":
{...}}`` or ``{"error": {...}}`` from the scenario, counted per iteration (each
iteration is a run of the body, A-65); an engine withdraws an invocation it
cancelled under an ``any`` join with ``{"type": "cancel", "call": N}``.

The registry is read when the command line is built, so the model, networkx,
z3 and Hypothesis are imported by the part that needs them (start-up time).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from wforacle.model.diagnostics import InvalidCase, InvalidInput, Report
from wforacle.model.kernel.explore import canonical
from wforacle.properties.specification import (
    Divergence,
    Loaded,
    Observation,
    Prepared,
    Protocol,
    copy_case,
    runnable,
    without,
)

JSON = Any
UNITS = ("node", "decision", "loop")  # the elements a document's graph is made of


# -- documents -------------------------------------------------------------------------


def validate(document: JSON) -> Loaded:
    """The diagnostics, the document model and its structure (entry set, handlers, order)."""
    from wforacle.properties.harness.validate import validate  # start-up time

    result = validate(document)
    return Loaded(result.report, result.harness, result.structure)


def validate_many(documents: list[JSON], previous: JSON) -> list[Report]:
    """Each document's report (Harness documents are checked one by one)."""
    return [validate(document).report for document in documents]


def plan(loaded: Loaded, tie_break: str) -> tuple[JSON, list[str]]:
    """The entry set, the handlers and a topological order (HX-START-1..3)."""
    structure = loaded.plan
    found = {
        "entry": list(structure.entry),
        "handlers": sorted(structure.handlers),
        "order": list(structure.order),
    }
    lines = [
        f"entry:    {', '.join(found['entry'])}  (HX-START-1/2)",
        f"handlers: {', '.join(found['handlers']) or '(none)'}  (HX-START-3)",
        *(f"{n:>4}  {node_id}" for n, node_id in enumerate(found["order"], start=1)),
    ]
    return found, lines


# -- the model -------------------------------------------------------------------------


def options(chosen: Mapping[str, Any]) -> Any:
    """The model's readings named (A-61, A-80..A-82, A-87, A-159); its defaults otherwise.

    Every field of ``Options`` is a reading (a list kept here missed A-159's).
    """
    import attrs

    from wforacle.model.harness.semantics import Options

    names = [field.name for field in attrs.fields(Options)]
    return Options(**{name: chosen[name] for name in names if chosen.get(name) is not None})


def semantics(loaded: Loaded, scenario: JSON, options: Any, replay: JSON) -> Any:
    """The instance of a valid document under a scenario and readings; InvalidScenario."""
    from wforacle.model.harness.semantics import HarnessRun, Scenario

    if replay is not None:
        raise InvalidCase("a Harness instance is not replayed (there is no replay in chapter 5)")
    return HarnessRun(loaded.model, Scenario.of(scenario), options)


def explore(run: Any, max_states: int, reduce: bool) -> Any:
    """Every outcome (the Harness explorer has no partial-order reduction yet)."""
    from wforacle.model.harness.semantics import config_key, outcome
    from wforacle.model.kernel.explore import explore

    return explore(run, lambda c: outcome(run, c), config_key, max_states)


def key(config: Any) -> Any:
    """A configuration's key."""
    from wforacle.model.harness.semantics import config_key

    return config_key(config)


def outcome(run: Any, config: Any) -> JSON:
    """A terminal configuration's outcome: status, failed node, node states."""
    from wforacle.model.harness.semantics import outcome

    return outcome(run, config)


def limits() -> dict[type[Exception], str]:
    """What the model says it does not enumerate."""
    from wforacle.model.harness.semantics import ModelLimit
    from wforacle.model.kernel.lts import Divergent

    return {ModelLimit: "", Divergent: ""}


# -- cases -----------------------------------------------------------------------------


def prepare(case: JSON, options: Any = None) -> Prepared:
    """The model instance of a case under the readings ``options``; InvalidCase when invalid."""
    from wforacle.model.harness.semantics import HarnessRun, Options, Scenario
    from wforacle.properties.harness.validate import validate

    result = validate(case["document"])
    if not result.report.valid or result.harness is None:
        raise InvalidCase(f"invalid Harness document:\n{result.report.described()}")
    try:
        scenario = Scenario.of(copy_case(case["scenario"]))
    except InvalidInput as exc:
        raise InvalidCase(f"the case's scenario is invalid: {exc}", exc.path) from None
    run = HarnessRun(result.harness, scenario, options if options is not None else Options())
    raw = case["scenario"]
    request = {
        "type": "run",
        "runId": "run_1",
        "document": case["document"],
        "params": raw.get("params", {}),
        "failingResources": raw.get("failingResources", []),
    }
    return Prepared(run, request)


def cases() -> Any:
    """The campaign's cases (properties/strategies/harness.py)."""
    from wforacle.properties.strategies.harness import harness_cases

    return harness_cases()


def valid_cases() -> Any:
    """Profile ``harness``: the campaign's cases whose document is valid."""
    return runnable(cases, prepare)


def _parse(document: str) -> Any:
    from defusedxml.ElementTree import fromstring  # safe XML; start-up time

    return fromstring(document)


def _text(root: Any) -> str:
    from xml.etree.ElementTree import tostring

    return str(tostring(root, encoding="unicode"))


def size(case: JSON) -> dict[str, int]:
    """Nodes (decisions and loops included) and edges of a case's document."""
    try:
        root = _parse(case["document"])
    except Exception:  # a case from a bug report that is not XML has no size to show
        return {"nodes": 0, "edges": 0}
    return {
        "nodes": sum(1 for e in root.iter() if e.tag in UNITS),
        "edges": sum(1 for e in root.iter() if e.tag == "edge"),
    }


OPTIONAL = (
    "entry",  # the root's @entry: a finding rarely needs it (issue 18, part 4)
    "guard",
    "retry",
    "timeout",
    "joinPolicy",
    "quorum",
    "resourceRef",
    "idempotent",
    "condition",
    "when",
    # A node's inputs and outputs (a stranger's runtime: a shrunk case kept an output and
    # a required input the bug did not need); one a data edge names stays, the variant
    # without it being invalid.
    "input",
    "output",
)


def smaller(case: JSON) -> Iterator[JSON]:
    """One reduction step: smaller variants of a case, each with one thing removed.

    In order: a node (with its edges, cases and script), a node contracted
    (its sources led to its targets), a loop body's unit, an edge, an optional
    attribute or child, a scenario script, attempt or parameter, the
    schedule's last choice.
    """
    try:
        root = _parse(case["document"])
    except Exception:  # not XML: nothing to remove from it
        return
    units = [e for e in root if e.tag in UNITS]
    for unit in reversed(units):
        if len(units) == 1:
            break
        name = unit.get("id")
        variant = _parse(case["document"])
        for element in list(variant):
            if element.get("id") == name or name in (element.get("from"), element.get("to")):
                variant.remove(element)
        for parent in variant.iter():
            for child in list(parent):
                if child.tag == "case" and child.get("to") == name:
                    parent.remove(child)
        if variant.get("entry") == name:
            del variant.attrib["entry"]
        scenario = copy_case(case["scenario"])
        if isinstance(scenario.get("nodes"), dict):
            scenario["nodes"].pop(name, None)
        yield {**copy_case(case), "document": _text(variant), "scenario": scenario}
    yield from _contracted(case, root)
    yield from _loop_bodies(case, root)
    yield from _resource_failures_scripted(case, root)
    edges = [k for k, e in enumerate(root) if e.tag == "edge"]
    for k in reversed(edges):
        variant = _parse(case["document"])
        variant.remove(variant[k])
        yield {**copy_case(case), "document": _text(variant)}
    for path, element in enumerate(root.iter()):
        for attribute in OPTIONAL:
            if attribute in element.attrib:
                variant = _parse(case["document"])
                target = list(variant.iter())[path]
                del target.attrib[attribute]
                yield {**copy_case(case), "document": _text(variant)}
        for k, child in enumerate(element):
            if child.tag in OPTIONAL:
                variant = _parse(case["document"])
                target = list(variant.iter())[path]
                target.remove(target[k])
                yield {**copy_case(case), "document": _text(variant)}
    yield from _smaller_scenarios(case)


def _resource_failures_scripted(case: JSON, root: Any) -> Iterator[JSON]:
    """A node failing HX-4102 made to fail by its script instead: its resourceRef dropped.

    A finding that needs a node to fail rarely needs it to fail before its
    invocation (HX-EXEC-7), and a failing resource costs an attribute and a
    scenario entry where a scripted error costs one attempt (a stranger's
    quorum bug shrank keeping ``resourceRef="cache"`` and ``failingResources``).
    """
    scenario = case.get("scenario")
    failing = scenario.get("failingResources") if isinstance(scenario, dict) else None
    if not isinstance(failing, list) or not failing:
        return
    for path, element in enumerate(root.iter()):
        refs = (element.get("resourceRef") or "").split()
        if element.tag != "node" or not any(r in failing for r in refs):
            continue
        variant = _parse(case["document"])
        del list(variant.iter())[path].attrib["resourceRef"]
        changed = copy_case(case)
        nodes = changed["scenario"].setdefault("nodes", {})
        if isinstance(nodes, dict):
            nodes[element.get("id")] = {"attempts": [{"error": {"code": "x"}}]}
            yield {**changed, "document": _text(variant)}


def _loop_bodies(case: JSON, root: Any) -> Iterator[JSON]:
    """Each unit of a loop body taken out (with its edges and script), the body kept nonempty.

    A loop's body is a graph of its own (HX-SCHED-2, A-65); the top-level
    removals above never reach into it, so a loop bug kept every body unit.
    """
    for path, loop in enumerate(root.iter()):
        if loop.tag != "loop":
            continue
        body = [e for e in loop if e.tag in UNITS]
        if len(body) < 2:
            continue
        for unit in reversed(body):
            name = unit.get("id")
            variant = _parse(case["document"])
            target = list(variant.iter())[path]
            for element in list(target):
                if element.get("id") == name or name in (element.get("from"), element.get("to")):
                    target.remove(element)
            scenario = copy_case(case["scenario"])
            if isinstance(scenario.get("nodes"), dict):
                scenario["nodes"].pop(name, None)
            yield {**copy_case(case), "document": _text(variant), "scenario": scenario}


def _contracted(case: JSON, root: Any) -> Iterator[JSON]:
    """Each node between control edges taken out, its sources led to its targets.

    Removing a node drops its edges, which can cut the path a finding needs
    (issue 18: a three-node bug shrank to six); contracting keeps it: ``a → n``
    and ``n → b`` become ``a → b`` (the incoming edge's attributes, the
    outgoing edge's target).  Only plain control edges (no ``type``) are
    contracted: a data edge's ports name the node's own.
    """
    edges = [e for e in root if e.tag == "edge"]
    for unit in reversed([e for e in root if e.tag == "node"]):
        name = unit.get("id")
        inbound = [e for e in edges if e.get("to") == name]
        outbound = [e for e in edges if e.get("from") == name]
        plain = all(e.get("type") in (None, "control") for e in inbound + outbound)
        if not inbound or not outbound or not plain or root.get("entry") == name:
            continue
        variant = _parse(case["document"])
        for element in list(variant):
            if element.get("id") == name or name in (element.get("from"), element.get("to")):
                variant.remove(element)
        present = {(e.get("from"), e.get("to")) for e in variant if e.tag == "edge"}
        for into in inbound:
            for out in outbound:
                pair = (into.get("from"), out.get("to"))
                if pair[0] != pair[1] and pair not in present:
                    present.add(pair)
                    edge = copy_case(into)
                    edge.set("to", pair[1])
                    variant.append(edge)
        scenario = copy_case(case["scenario"])
        if isinstance(scenario.get("nodes"), dict):
            scenario["nodes"].pop(name, None)
        yield {**copy_case(case), "document": _text(variant), "scenario": scenario}


def _smaller_scenarios(case: JSON) -> Iterator[JSON]:
    scenario = case["scenario"]
    nodes = scenario.get("nodes") if isinstance(scenario, dict) else None
    for node_id in list(nodes or {}):
        variant = copy_case(case)
        del variant["scenario"]["nodes"][node_id]
        yield variant
        script = nodes[node_id]  # type: ignore[index]
        attempts = script.get("attempts", []) if isinstance(script, dict) else []
        for k in reversed(range(len(attempts))):
            if len(attempts) > 1:
                variant = copy_case(case)
                del variant["scenario"]["nodes"][node_id]["attempts"][k]
                yield variant
    yield from without(case, ("params", "failingResources"))


# -- the engine protocol ---------------------------------------------------------------------


def protocol() -> Protocol:
    """The engine protocol's Harness payloads (module docstring)."""
    return Protocol(
        unit="node",
        argument="inputs",
        known=lambda prepared, unit: unit_node(prepared.semantics.nodes, unit) is not None,
        answer=answer,
        withdraw="cancel",
        qualify=qualify,
    )


def qualify(message: JSON) -> JSON:
    """The unit an ``invoke`` names: its ``node``, within its loops' iterations (``l[0]/b``).

    None when ``within`` is not a list of ``[loop id, iteration ≥ 0]`` pairs
    (a protocol fault: an invoke of no unit of the case).
    """
    node, within = message.get("node"), message.get("within", [])
    if not isinstance(node, str) or not isinstance(within, list):
        return None
    parts = []
    for scope in within:
        if not (
            isinstance(scope, list)
            and len(scope) == 2
            and isinstance(scope[0], str)
            and isinstance(scope[1], int)
            and not isinstance(scope[1], bool)
            and scope[1] >= 0
        ):
            return None
        parts.append(f"{scope[0]}[{scope[1]}]/")
    return "".join(parts) + node


def unit_node(nodes: Any, unit: str) -> Any:
    """The node a qualified unit names (``qualify``), a loop's body searched; None if none."""
    for node in nodes:
        if node.id == unit:
            return node
    for node in nodes:
        head = f"{node.id}["
        if node.body and unit.startswith(head):
            index, sep, rest = unit[len(head) :].partition("]/")
            if sep and index.isdigit() and str(int(index)) == index:
                found = unit_node(node.body, rest)
                if found is not None:
                    return found
    return None


def answer(prepared: Prepared, unit: str, invocation: int) -> dict[str, JSON]:
    """The scenario's result of a node's ``invocation``-th call (in its iteration, A-65)."""
    run = prepared.semantics
    result: dict[str, JSON] = run.scenario.result(unit_node(run.nodes, unit), invocation)
    return result


def compare(prepared: Prepared, seen: Observation, finals: tuple[Any, ...]) -> Divergence | None:
    """The invocations agree with the trace; the final state is one the trace reaches.

    Issue 18, part 3: an engine that invokes a node with inputs its trace does
    not report (or invokes a node its trace never starts, or starts one it
    never invokes) diverges (HX-EXEC-2: "Each input takes the value from its
    incoming data edge, or from value, or from default"; HX-EXEC-4), and the
    final state compares each node's attempts and the instance's failedNode
    too (HX-FAIL-1).  A compensation target's invocation is compared with
    its ``node_compensated`` inputs, a loop body's with its iteration's
    ``node_started`` in the loop event's ``inner``.
    """
    mismatch = _invocations_mismatch(prepared, seen)
    if mismatch is not None:
        return mismatch
    return _state_mismatch(prepared, seen, finals)


def reported_inputs(
    trace: Any, prefix: str, reported: dict[str, list[str]], hidden: list[tuple[str, str]]
) -> None:
    """The inputs ``trace`` reports per unit (``qualify``'s names), into ``reported``.

    A ``node_started`` reports a first attempt's inputs (a retry's none: it
    has its first's), a ``node_compensated`` a compensation's; a loop's
    event reports its iterations' in ``inner``.  A failed loop reports one
    iteration (A-80): ``hidden`` gets (the loop's iterations' prefix, the
    reported one's), as the trace does not show the others' invocations.
    """
    for event in trace if isinstance(trace, list) else ():
        node = event.get("node") if isinstance(event, dict) else None
        if not isinstance(node, str):
            continue
        unit, kind = prefix + node, event.get("event")
        if kind == "node_started":
            earlier = reported.get(unit, [])
            if "inputs" not in event and earlier:
                earlier.append(earlier[-1])
            else:
                reported.setdefault(unit, []).append(canonical(event.get("inputs")))
        elif kind == "node_compensated":
            reported.setdefault(unit, []).append(canonical(event.get("inputs")))
        inner = event.get("inner")
        if not isinstance(inner, list):
            continue
        if kind == "node_failed":
            scope = f"{unit}[{event.get('iteration')}]/"
            hidden.append((f"{unit}[", scope))
            reported_inputs(inner[0] if inner else [], scope, reported, hidden)
        else:
            for index, iteration_trace in enumerate(inner):
                reported_inputs(iteration_trace, f"{unit}[{index}]/", reported, hidden)


def _shown(unit: str, hidden: list[tuple[str, str]]) -> bool:
    """Whether the trace shows ``unit``'s invocations (``reported_inputs``' ``hidden``)."""
    return not any(unit.startswith(loop) and not unit.startswith(shown) for loop, shown in hidden)


def _invocations_mismatch(prepared: Prepared, seen: Observation) -> Divergence | None:
    reported: dict[str, list[str]] = {}
    hidden: list[tuple[str, str]] = []
    reported_inputs(list(seen.trace), "", reported, hidden)
    invoked: dict[str, list[str]] = {}
    for node, inputs in seen.invocations:
        invoked.setdefault(node, []).append(canonical(inputs))
    for node, values in invoked.items():
        if not _shown(node, hidden):
            continue  # an iteration of a failed loop the trace does not report
        for value in values:
            if value not in reported.get(node, []):
                return Divergence(
                    len(seen.trace),
                    {"invoked": {"node": node, "inputs": json.loads(value)}},
                    tuple(
                        {"reported": {"node": node, "inputs": json.loads(v)}}
                        for v in reported.get(node, [])[:3]
                    ),
                    ("HX-EXEC-2", "HX-EXEC-4"),
                    f"the engine invoked {node} with inputs its trace does not report",
                )
    for node in reported:
        if node not in invoked:
            return Divergence(
                len(seen.trace),
                {"invoked": None},
                ({"reported": {"node": node, "inputs": json.loads(reported[node][0])}},),
                ("HX-EXEC-4",),
                f"the engine's trace starts {node} but the engine never invoked it",
            )
    return None


# The clauses that say what each member of the final state is (the rule broken when it differs).
FINAL_FIELDS = {
    "status": ("HX-DONE-1", "HX-FAIL-3"),
    "failedNode": ("HX-FAIL-3",),
    "state": ("HX-DONE-1", "HX-DONE-2"),
    "attempts": ("HX-FAIL-1",),
    "outputs": ("HX-EXEC-5", "HX-DATA-1"),
    "error": ("HX-EXEC-6", "HX-FAIL-1"),
}


def _state_mismatch(
    prepared: Prepared, seen: Observation, finals: tuple[Any, ...]
) -> Divergence | None:
    """The final state is one the trace reaches; else cite the clauses of what differs.

    The nearest permitted final state (fewest differing members) says what
    the engine got wrong: attempts only is HX-FAIL-1, a node's state
    HX-DONE-1/2, and so on (``FINAL_FIELDS``), those clauses first.
    """
    from wforacle.model.harness.semantics import outcome

    expected = [_comparable(outcome(prepared.semantics, c)) for c in finals]
    observed = _comparable(seen.state)
    if observed in expected:
        return None
    differing = min((_differing(observed, e) for e in expected), key=len, default=[])
    cited = [c for field in differing for c in FINAL_FIELDS[field]]
    rest = ("HX-DONE-1", "HX-DONE-2", "HX-DATA-1", "HX-FAIL-1")
    what = f": {', '.join(differing)}" if differing else ""
    return Divergence(
        len(seen.trace),
        {"final": observed},
        tuple({"final": f} for f in expected[:2]),
        tuple(dict.fromkeys([*cited, *rest])),
        f"the engine's final node states differ from the model's{what}",
    )


def _differing(observed: JSON, expected: JSON) -> list[str]:
    """The members of the final state (FINAL_FIELDS) in which two differ, in that order."""
    found = {k for k in ("status", "failedNode") if observed[k] != expected[k]}
    nodes = set(observed["nodes"]) | set(expected["nodes"])
    for node in nodes:
        mine, theirs = observed["nodes"].get(node), expected["nodes"].get(node)
        if mine is None or theirs is None:
            found.add("state")
            continue
        found.update(k for k in mine if mine[k] != theirs[k])
    return [k for k in FINAL_FIELDS if k in found]


# -- explanations ----------------------------------------------------------------------

STARTS = ("node_started", "node_skipped", "node_failed", "decision_routed")  # a READY node's
WHY_NOT_STATES = 2_000  # configurations searched for a run in which the node becomes READY


def why_not(run: Any, event: JSON, before: tuple[Any, ...] = ()) -> tuple[tuple[str, ...], str]:
    """Why the model does not let the engine do what its event says (explain.py).

    An engine that starts (skips, fails, routes) a node no run makes READY
    broke the rule that kept it PENDING: the node is a root outside
    ``@entry`` (HX-START-1), or its join never fired — a negative edge
    counted toward a quorum (HX-READY-4, HX-JOIN-2 first), an edge whose
    condition is false (HX-READY-3), a case routed elsewhere (HX-UNREACH-3),
    an unreachable source (HX-UNREACH-1), a source that failed or was
    cancelled (HX-READY-1).  An engine that ends the instance while the
    model, at that point (``before``), has a node READY broke the rule that
    made it READY (``_made_ready``).  ((), "") when some run makes the node
    READY, or the search ends first.
    """
    if event.get("event") == "instance_completed":
        return _left_ready(run, before)
    if event.get("event") == "node_compensated":
        return _not_owed(run, event, before)
    if event.get("event") == "node_cancelled":
        return _same_everywhere(run, event, before, _not_cancelled)
    if event.get("event") == "node_retrying":
        return _same_everywhere(run, event, before, _not_retried)
    early = _not_yet_ready(run, event, before)
    if early[0]:
        return early
    return _never_ready(run, event)


Answer = tuple[tuple[str, ...], str]


def _same_everywhere(
    run: Any, event: JSON, before: tuple[Any, ...], why: Callable[[Any, Any, int], Answer]
) -> Answer:
    """``why``'s answer for the event's node, when every configuration at that point gives it."""
    name = event.get("node") if isinstance(event, dict) else None
    if name not in getattr(run, "index", {}) or not before:
        return (), ""
    answers = {why(run, c, run.index[name]) for c in before}
    return answers.pop() if len(answers) == 1 else ((), "")


def _not_cancelled(run: Any, c: Any, i: int) -> Answer:
    """Why the model does not cancel node ``i`` in configuration ``c``.

    HX-CANCEL-1: "When a node with joinPolicy="any" becomes ready, sibling
    branches still running that could only have reached this node MUST be
    moved to CANCELLED"; HX-CANCEL-2: "A runtime MUST NOT cancel a node that
    is RUNNING and declared idempotent="false""; HX-FAIL-3 with A-64: an
    unwinding instance cancels its READY nodes and lets RUNNING ones finish.
    A node still PENDING has nothing to cancel: the engine made it READY
    though its join had not fired (HX-READY-1, HX-JOIN-1).
    """
    from wforacle.model.harness.semantics import PENDING, READY, RETRYING, RUNNING

    node = run.nodes[i]
    state = c.states[i]
    if state == PENDING:
        join = node.join.value
        clauses = ("HX-READY-1", "HX-JOIN-1", *(("HX-JOIN-2",) if join == "quorum" else ()))
        return clauses, (
            f"{node.id} is PENDING here, its {join} join not satisfied: it never became "
            f"READY, so there is nothing to cancel ({', '.join(clauses)})"
        )
    if state not in (READY, RUNNING, RETRYING):
        return (), ""
    if state != READY and not node.idempotent:
        return ("HX-CANCEL-2",), (
            f'{node.id} is {state} and idempotent="false": it is never cancelled; it '
            "finishes and its result is discarded (HX-CANCEL-2)"
        )
    if c.status == "unwinding":
        return ("HX-FAIL-3", "A-64"), (
            f"the instance is unwinding: READY nodes are cancelled, and {node.id}, "
            f"{state}, finishes (HX-FAIL-3, A-64)"
        )
    return ("HX-CANCEL-1",), (
        f"the engine cancelled {node.id}; the model cancels only the branches that could "
        "only have reached an any join that became READY, and no such join makes "
        f"{node.id} one of them here (HX-CANCEL-1)"
    )


def _not_retried(run: Any, c: Any, i: int) -> Answer:
    """Why the model does not retry node ``i`` in configuration ``c``: no attempt is left.

    HX-FAIL-1: a node becomes FAILED once "its retry policy is exhausted";
    ``maxAttempts`` counts every attempt, the first included.
    """
    node = run.nodes[i]
    if c.attempts[i] < node.max_attempts:
        return (), ""
    return ("HX-FAIL-1",), (
        f"{node.id} has made {c.attempts[i]} of its {node.max_attempts} attempt(s) "
        "(maxAttempts counts the first): its retry policy is exhausted, it fails (HX-FAIL-1)"
    )


def _not_owed(run: Any, event: JSON, before: tuple[Any, ...]) -> tuple[tuple[str, ...], str]:
    """The engine compensates a node no SUCCEEDED node owes a compensation to, here.

    HX-FAIL-3: "compensation runs per chapter 8"; A-64: unwinding runs "the
    compensation targets of the SUCCEEDED nodes": a target whose every
    compensation source is, in every configuration at that point, anything
    but SUCCEEDED (SKIPPED, FAILED, PENDING) is owed nothing.
    """
    from wforacle.model.harness.semantics import SUCCEEDED

    name = event.get("node") if isinstance(event, dict) else None
    if name not in getattr(run, "index", {}) or not before:
        return (), ""
    i = run.index[name]
    sources = run.compensation_in.get(i, ())
    if not sources or any(c.states[j] == SUCCEEDED for c in before for j in sources):
        return (), ""
    states = sorted({f"{run.nodes[j].id} {c.states[j]}" for c in before for j in sources})
    reason = f"{name} compensates {', '.join(states)}: only SUCCEEDED nodes are compensated"
    return ("HX-FAIL-3", "A-64"), f"{reason} (HX-FAIL-3, A-64)"


def _not_yet_ready(run: Any, event: JSON, before: tuple[Any, ...]) -> tuple[tuple[str, ...], str]:
    """The engine starts a node the model, at that point, still holds PENDING: its join waits.

    HX-READY-1: "A node in PENDING becomes READY when its join condition
    over its incoming edges is satisfied"; HX-JOIN-1: the node's joinPolicy
    decides how (an ``all`` join needs every edge resolved).  In every
    configuration consistent with the prefix (``before``) the node is
    PENDING with an incoming edge still unresolved: the engine did not wait
    for it.  ((), "") otherwise (the node is READY in one of them, or no
    prefix is known).
    """
    from wforacle.model.harness.semantics import PENDING

    name = event.get("node") if isinstance(event, dict) else None
    if event.get("event") not in STARTS or name not in getattr(run, "index", {}) or not before:
        return (), ""
    i = run.index[name]
    waiting: set[str] = set()
    for c in before:
        if c.states[i] != PENDING:
            return (), ""
        open_edges = [k for k in run.incoming[i] if c.edges[k] == "unresolved"]
        if not open_edges:
            return (), ""
        waiting.update(run.nodes[run.links[k].source].id for k in open_edges)
    join = run.nodes[i].join.value
    clauses = ("HX-READY-1", "HX-JOIN-1", *(("HX-JOIN-2",) if join == "quorum" else ()))
    sources = ", ".join(sorted(waiting))
    reason = f"{name}'s {join} join still waits on the edge(s) from {sources}"
    return clauses, f"{reason} ({', '.join(clauses)})"


def _never_ready(run: Any, event: JSON) -> tuple[tuple[str, ...], str]:
    """The engine's event starts a node no run of the model makes READY: why (``why_not``)."""
    from wforacle.model.harness.semantics import PENDING, READY

    name = event.get("node") if isinstance(event, dict) else None
    if event.get("event") not in STARTS or name not in getattr(run, "index", {}):
        return (), ""
    i = run.index[name]
    kept: list[Any] = []  # configurations that end with the node still PENDING
    seen: set[str] = set()
    frontier = [run.initial()]
    while frontier:
        if len(seen) > WHY_NOT_STATES:
            return (), ""
        c = frontier.pop()
        if c.states[i] == READY:
            return (), ""  # the model starts it in some run: the point is when, not whether
        following = run.enabled(c)
        if not following and c.states[i] == PENDING:
            kept.append(c)
        for transition in following:
            key = config_key(transition.target)
            if key not in seen:
                seen.add(key)
                frontier.append(transition.target)
    if not kept:
        return (), ""
    clauses = _kept_pending(run, kept[0], i)
    return clauses, f"no run of the model makes {name} READY ({', '.join(clauses)})"


def _left_ready(run: Any, before: tuple[Any, ...]) -> tuple[tuple[str, ...], str]:
    """The engine ended the instance; the model has a node READY there: why it is READY.

    HX-DONE-1: an instance is complete only when no node is READY.  A node
    the engine left waiting is READY in the model because of how its join
    resolved: when an edge into it is negative because its source is
    unreachable, that is HX-UNREACH-2 ("A runtime MUST propagate
    unreachability so that such a join can resolve on the branch that was
    taken"), with HX-UNREACH-1 and the reason the source is unreachable.
    The same answer in every configuration at that point, or none.
    """
    from wforacle.model.harness.semantics import READY

    answers = set()
    for c in before:
        ready = [i for i, state in enumerate(c.states) if state == READY]
        if not ready:
            return (), ""
        i = ready[0]
        answers.add((i, _made_ready(run, c, i)))
    if len(answers) != 1:
        return (), ""
    ((i, clauses),) = answers
    name = run.nodes[i].id
    return clauses, f"the model has {name} READY here ({', '.join(clauses)})"


def _made_ready(run: Any, c: Any, i: int) -> tuple[str, ...]:
    """The clauses by which node ``i``'s join resolved in configuration ``c``."""
    from wforacle.model.harness.semantics import FAILED, SKIPPED

    if any(c.states[source] == FAILED for source in run.errors_in.get(i, ())):
        # Readied by an error edge from a failed node (a stranger's runtime ignored error
        # edges and was told HX-DONE-1 alone).
        return ("HX-FAIL-2", "HX-DONE-1")  # "If it has outgoing error edges, all are
        # traversed"
    negative = [k for k in run.incoming[i] if c.edges[k] == "negative"]
    unreached = [run.links[k].source for k in negative if run.links[k].source in c.unreached]
    if not unreached:
        # HX-JOIN-5: "SKIPPED means reached, and its guard was false — a terminal state
        # whose control successors proceed" (HX-EXEC-1): the engine held them back.
        skipped = [
            k
            for k in run.incoming[i]
            if c.edges[k] == "satisfied" and c.states[run.links[k].source] == SKIPPED
        ]
        return ("HX-JOIN-5", "HX-EXEC-1", "HX-DONE-1") if skipped else ("HX-DONE-1",)
    why = [_why_unreached(run, c, source) for source in unreached]
    return tuple(dict.fromkeys(["HX-UNREACH-2", "HX-UNREACH-1", *why, "HX-DONE-1"]))


def _why_unreached(run: Any, c: Any, source: int) -> str:
    """The clause by which node ``source`` is unreachable in configuration ``c``."""
    inbound = [run.links[k] for k in run.incoming[source]]
    if not inbound:
        return _no_forward_edge(run, source)
    if any(link.type == "case" for link in inbound):
        return "HX-UNREACH-3"  # a case target every decision routed elsewhere
    if all(c.edges[k] == "negative" for k in run.incoming[source]):
        return "HX-UNREACH-4"
    return "HX-UNREACH-5"


def _no_forward_edge(run: Any, i: int) -> str:
    """Why a node with no incoming forward edge did not start: a handler, or a root.

    HX-START-3: "A node reachable only by an error or compensation edge is a
    handler, not a start" (one never called); HX-START-1: with ``@entry``
    "that single node" starts, so another root does not.  A stranger's
    engine was shown HX-START-1 for a handler in a document without
    ``@entry`` (session 27).
    """
    if run.errors_in.get(i) or run.compensation_in.get(i):
        return "HX-START-3"
    return "HX-START-1"


def config_key(c: Any) -> str:
    """A configuration's key (model/harness/config.py)."""
    from wforacle.model.harness.semantics import config_key as key

    return str(key(c))


def _kept_pending(run: Any, c: Any, i: int) -> tuple[str, ...]:
    """The clauses that kept node ``i`` PENDING in the final configuration ``c``."""
    from wforacle.model.harness.document import JoinPolicy
    from wforacle.model.harness.rules import starved
    from wforacle.model.harness.semantics import CANCELLED, FAILED, SKIPPED, SUCCEEDED

    incoming = run.incoming[i]
    if not incoming:
        return (_no_forward_edge(run, i),)
    if starved(run, i, c.edges, c.unreached):
        # HX-UNREACH-5: a required input with no default "comes from an unreachable
        # source", whatever its other edges: the source's own reason follows.
        sources = [
            run.links[k].source
            for k in incoming
            if run.links[k].type == "data" and run.links[k].source in c.unreached
        ]
        why = [_why_unreached(run, c, source) for source in sources]
        return tuple(dict.fromkeys(["HX-UNREACH-5", "HX-UNREACH-1", *why, "HX-DATA-3"]))
    reasons: list[str] = []
    for k in incoming:
        if c.edges[k] != "negative":
            continue
        link = run.links[k]
        source = c.states[link.source]
        if link.type == "case":
            reasons.append("HX-UNREACH-3")
        elif link.condition is not None and source in (SUCCEEDED, SKIPPED):
            reasons.append("HX-READY-3")
        elif link.source in c.unreached:
            reasons.append("HX-UNREACH-1")
        elif source in (FAILED, CANCELLED):
            reasons.append("HX-READY-1")
    join = ("HX-READY-4", "HX-JOIN-2") if run.nodes[i].join is JoinPolicy.QUORUM else ()
    negative = ("HX-READY-4", "HX-JOIN-3", "HX-UNREACH-4")
    return tuple(dict.fromkeys([*join, *reasons, *negative]))


def _comparable(state: JSON) -> JSON:
    if not isinstance(state, dict):
        return {"invalid": state}
    raw = state.get("nodes")
    nodes: dict[str, JSON] = raw if isinstance(raw, dict) else {}
    return {
        "status": state.get("status"),
        "failedNode": state.get("failedNode"),
        "nodes": {
            k: {
                "state": v.get("state"),
                "attempts": v.get("attempts"),
                "outputs": v.get("outputs"),
                "error": v.get("error"),
            }
            for k, v in nodes.items()
            if isinstance(v, dict)
        },
    }


def trace_line(event: JSON) -> str:
    """One event of ``run``'s text output."""
    fields = {k: v for k, v in event.items() if k != "event"}
    return f"{event['event']:<20} {json.dumps(fields, ensure_ascii=False)}"


def nested(
    semantics: Any, before: tuple[Any, ...], observed: JSON
) -> tuple[tuple[str, Any, list[JSON]], ...]:
    """A loop event's iterations as runs of their own: (where, the iteration's run, its trace).

    A completed loop reports every iteration's trace in ``inner``, in order; a
    failed one the failing iteration's (``iteration``, A-80).  Each is the run
    of the loop's body with that iteration's item (``rules.iteration_run``),
    the items read in a configuration just before the loop's event.
    """
    from wforacle.model.harness.document import Kind
    from wforacle.model.harness.rules import iteration_run, loop_items

    inner = observed.get("inner") if isinstance(observed, dict) else None
    if not isinstance(inner, list):
        return ()
    run = semantics
    loop = next(
        (
            i
            for i, n in enumerate(run.nodes)
            if n.id == observed.get("node") and n.kind is Kind.LOOP
        ),
        None,
    )
    if loop is None:
        return ()
    if observed.get("event") == "node_failed":
        pairs = [(observed.get("iteration"), inner[0])] if inner else []
    else:
        pairs = list(enumerate(inner))
    for config in before:
        items = loop_items(run, config, loop)
        if items is None:
            continue
        return tuple(
            (
                f"in iteration {index} of loop {observed['node']}",
                iteration_run(run, loop, index, items[index]),
                trace,
            )
            for index, trace in pairs
            if isinstance(index, int) and 0 <= index < len(items) and isinstance(trace, list)
        )
    return ()
