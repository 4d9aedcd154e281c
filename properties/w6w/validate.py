"""Static validation of w6w documents: every load-time rule of the RFC.

Notation: ``W`` is a Workflow built by the loader (field-level rules already
applied there); each rule below is a function ``W, ctx -> diagnostics`` named
after what it checks, citing the clause it implements.  ``RULES`` lists them
in the order their diagnostics are reported.  ``validate`` runs the loader
and every rule, so a document gets all its problems in one report.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence

import attrs

from wforacle.grammar import matches
from wforacle.model.diagnostics import (
    Diagnostic,
    Gate,
    Report,
    error,
    json_path,
    sort_diagnostics,
    warning,
)
from wforacle.model.w6w.document import JSON, Step, Workflow
from wforacle.model.w6w.loader import load_workflow
from wforacle.properties.w6w.plan import CycleError, cycles, fast_plan_order


@attrs.frozen
class Context:
    """What a rule may know beyond the document itself, computed once per document."""

    # The stored version this save replaces, if any (W6W-KEY-3: the key
    # grammar is checked only when a key moves from absent/null to present).
    previous: Workflow | None
    # Every step with its path, main graph and sub-blocks.
    all_steps: list[tuple[tuple[str | int, ...], Step]]
    # The plan by the fast path, or None when the main graph has a cycle.
    plan: list[str] | None

    @classmethod
    def of(cls, workflow: Workflow, previous: Workflow | None = None) -> Context:
        """The context of validating ``workflow`` (replacing ``previous``)."""
        try:
            plan: list[str] | None = fast_plan_order(workflow)
        except CycleError:
            plan = None
        return cls(previous, workflow.all_steps(), plan)


Rule = Callable[[Workflow, Context], Iterator[Diagnostic]]


def step_is_runnable(workflow: Workflow, ctx: Context) -> Iterator[Diagnostic]:
    """Every step names its Invocation target: uses.app and uses.action (W6W-FIELD-10).

    A draft without them may be stored, not run ("it is not a storage-time
    constraint", RFC note under the Step table): gate ``run``.
    """
    for path, step in ctx.all_steps:
        missing = [
            name
            for name, value in (
                ("uses", step.uses),
                ("uses.app", step.uses and step.uses.app),
                ("uses.action", step.uses and step.uses.action),
            )
            if value is None
        ]
        if missing:
            where = (*path, "uses") if step.uses is None else (*path, "uses", missing[0][5:])
            yield error(
                "step_not_runnable",
                json_path(where),
                f"step {step.id!r} has no {missing[0]}: it may be stored as a draft but not run",
                "W6W-FIELD-10",
            )


def step_ids_are_unique(workflow: Workflow, ctx: Context) -> Iterator[Diagnostic]:
    """Reject duplicate step ids (W6W-PLAN-1: "Reject duplicate step ids.").

    Main-graph duplicates are errors.  A sub-block step sharing an id with any
    other step is a warning: the Engine RFC that owns sub-block scoping is
    not included (assumption A-06).
    """
    first: dict[str, str] = {}
    for index, step in enumerate(workflow.steps):
        path = json_path(("steps", index, "id"))
        if step.id in first:
            yield error(
                "duplicate_step_id",
                path,
                f"step id {step.id!r} is already declared at {first[step.id]}",
                "W6W-PLAN-1",
            )
        else:
            first[step.id] = path
    for step_path, step in ctx.all_steps:
        if len(step_path) == 2:
            continue  # a main-graph step, checked above
        where = json_path((*step_path, "id"))
        if step.id in first:
            yield warning(
                "duplicate_nested_step_id",
                where,
                f"sub-block step id {step.id!r} is already declared at {first[step.id]}",
                "W6W-PLAN-1",
            )
        else:
            first[step.id] = where


def edges_name_main_graph_steps(workflow: Workflow, ctx: Context) -> Iterator[Diagnostic]:
    """Reject edges naming unknown steps, or steps of a sub-block.

    W6W-PLAN-3: "Reject edges referencing unknown step ids (from or to)."
    W6W-EDGE-10: "an edge touching such a step is already rejected at plan time".
    """
    main = {step.id for step in workflow.steps}
    nested = {step.id for path, step in ctx.all_steps if len(path) > 2}
    for index, edge in enumerate(workflow.edges):
        if edge.from_ in main and edge.to in main:
            continue
        for end, step_id in (("from", edge.from_), ("to", edge.to)):
            if step_id in main:
                continue
            path = json_path(("edges", index, end))
            if step_id in nested:
                yield error(
                    "edge_touches_sub_block_step",
                    path,
                    f"edge {end} {step_id!r} names a step owned by a control's sub-block; "
                    "sub-block steps do not take part in main-graph edges",
                    "W6W-EDGE-10",
                )
            else:
                yield error(
                    "dangling_edge",
                    path,
                    f"edge {end} {step_id!r} names no step of the workflow",
                    "W6W-PLAN-3",
                )


def graph_is_acyclic(workflow: Workflow, ctx: Context) -> Iterator[Diagnostic]:
    """Reject cycles, naming each cycle's steps (W6W-PLAN-6, W6W-EDGE-9).

    Error edges are ordinary edges here: "dangling endpoints and cycles are
    rejected at load time" (W6W-EDGE-9).
    """
    if ctx.plan is not None:
        return  # the fast Kahn pass consumed every step: no cycle
    edge_index = {(e.from_, e.to): i for i, e in reversed(list(enumerate(workflow.edges)))}
    for cycle in cycles(workflow):
        closing = edge_index[(cycle[-1], cycle[0])]
        loop = " → ".join([*cycle, cycle[0]])
        yield error(
            "cycle",
            json_path(("edges", closing)),
            f"the steps {loop} form a cycle",
            "W6W-PLAN-6",
        )


def retry_is_read(workflow: Workflow, ctx: Context) -> Iterator[Diagnostic]:
    """Warn about a retry on a step kind that never reads it.

    W6W-RETRY-5: "A retry declared on such a step is still subject to the
    well-formedness rules above, but it is never read." W6W-RETRY-6:
    "Authoring tools SHOULD NOT offer retry on these step kinds."
    """
    for path, step in ctx.all_steps:
        if step.retry is not None and not step.runs_retry_loop:
            kind = "@w6w/control" if step.is_control else "@w6w/call"
            yield warning(
                "retry_never_read",
                json_path((*path, "retry")),
                f"step {step.id!r} is a {kind} step, which runs no retry loop; "
                "its retry is never read",
                "W6W-RETRY-5",
            )


def key_matches_grammar(workflow: Workflow, ctx: Context) -> Iterator[Diagnostic]:
    """Check the key grammar when a key is first assigned (W6W-KEY-5, W6W-KEY-7).

    W6W-KEY-1: 3 to 39 characters, a lowercase letter first, lowercase
    letters, digits and hyphens after, no ``--``, no trailing ``-``
    (``grammar/names.lark``; the whole key must match, assumption A-01).
    W6W-KEY-3: "checked only at the moment a key moves from absent/null to
    present, never again on a later save."
    """
    if workflow.key is None:
        return
    if ctx.previous is not None and ctx.previous.key is not None:
        return  # W6W-KEY-7: "Never re-validate a stored key against the grammar"
    if not matches("names", "workflow_key", workflow.key):
        yield error(
            "invalid_key",
            json_path(("key",)),
            f"key {workflow.key!r} must be 3 to 39 characters: a lowercase letter, then "
            "lowercase letters, digits or single hyphens, not ending in '-'",
            "W6W-KEY-5",
            Gate.SAVE,
        )


def variable_keys_are_unique(workflow: Workflow, ctx: Context) -> Iterator[Diagnostic]:
    """Warn when two variables share a key: only one can be ``vars.<key>`` (W6W-FIELD-16).

    The RFC does not say which wins (assumption A-08).
    """
    seen: set[str] = set()
    for index, variable in enumerate(workflow.variables):
        if variable.key in seen:
            yield warning(
                "duplicate_variable_key",
                json_path(("variables", index, "key")),
                f"variable key {variable.key!r} is declared twice; vars.{variable.key} "
                "can name only one of them",
                "W6W-FIELD-16",
            )
        seen.add(variable.key)


def fan_in_is_declared(workflow: Workflow, ctx: Context) -> Iterator[Diagnostic]:
    """Warn when a step has more inbound edges than its ports.in allows.

    W6W-FAN-1: the ports default is ``{ in: 1, out: "many" }``; "in > 1 opts
    the step into accepting multiple inbound edges".  W6W-FAN-12: port
    cardinality is "enforced by editor and import only" — a warning here.
    """
    inbound = Counter(edge.to for edge in workflow.edges)
    for index, step in enumerate(workflow.steps):
        allowed = step.ports_in or 1
        if inbound[step.id] > allowed:
            yield warning(
                "fan_in_exceeds_ports",
                json_path(("steps", index)),
                f"step {step.id!r} has {inbound[step.id]} inbound edges but accepts "
                f"{allowed} (declare ports.in to make it a fan-in step)",
                "W6W-FAN-12",
            )


def fan_out_is_declared(workflow: Workflow, ctx: Context) -> Iterator[Diagnostic]:
    """Warn when more edges leave a lane than the step's ports.out allows.

    W6W-FAN-12: "out bounds how many edges may leave a lane (enforced by
    editor and import only)"; the default is "many" (W6W-FAN-1).  Each lane —
    success and error — is counted on its own.
    """
    lanes = Counter((edge.from_, edge.when.value) for edge in workflow.edges)
    for index, step in enumerate(workflow.steps):
        if step.ports_out is None:
            continue
        for lane in ("success", "error"):
            if lanes[(step.id, lane)] > step.ports_out:
                yield warning(
                    "fan_out_exceeds_ports",
                    json_path(("steps", index)),
                    f"step {step.id!r} has {lanes[(step.id, lane)]} {lane} edges but "
                    f"ports.out allows {step.ports_out} per lane",
                    "W6W-FAN-12",
                )


RULES: tuple[Rule, ...] = (
    step_ids_are_unique,
    edges_name_main_graph_steps,
    graph_is_acyclic,
    step_is_runnable,
    key_matches_grammar,
    retry_is_read,
    variable_keys_are_unique,
    fan_in_is_declared,
    fan_out_is_declared,
)


def validate_workflow(workflow: Workflow, ctx: Context | None = None) -> list[Diagnostic]:
    """Run every graph-level rule over a loaded workflow."""
    ctx = ctx or Context.of(workflow)
    return [d for rule in RULES for d in rule(workflow, ctx)]


@attrs.frozen
class Validated:
    """A validated document: its model (if it could be built), its report, and its plan."""

    workflow: Workflow | None
    report: Report
    plan: list[str] | None  # the declared-order plan when the document is valid


def validate(document: JSON, previous: JSON = None) -> Validated:
    """Validate one parsed JSON document; ``previous`` is the stored version it replaces."""
    workflow, diagnostics = load_workflow(document)
    if workflow is None:
        return Validated(None, Report(sort_diagnostics(diagnostics)), None)
    before = load_workflow(previous)[0] if previous is not None else None
    ctx = Context.of(workflow, before)
    diagnostics += validate_workflow(workflow, ctx)
    report = Report(sort_diagnostics(diagnostics))
    return Validated(workflow, report, ctx.plan if report.valid else None)


def key_conflicts(workflows: Sequence[Workflow | None]) -> Iterator[tuple[int, Diagnostic]]:
    """Reject a second document with the same non-null key (W6W-KEY-6).

    The documents are taken as one account's; two documents without a key
    never collide ("partial index over non-null key values").  Yields
    ``(document index, diagnostic)``.
    """
    owner: dict[str, int] = {}
    for index, workflow in enumerate(workflows):
        if workflow is None or workflow.key is None:
            continue
        if workflow.key in owner:
            yield (
                index,
                error(
                    "key_conflict",
                    json_path(("key",)),
                    f"key {workflow.key!r} is already taken by document {owner[workflow.key] + 1}",
                    "W6W-KEY-6",
                    Gate.SAVE,
                ),
            )
        else:
            owner[workflow.key] = index
