"""The canonical controls and @w6w/call: sub-blocks and child runs, composed big-step.

The RFC names the four canonical controls — "if, foreach, parallel, wait,
all under the first-party @w6w/control app" (RFC "Concept") — and @w6w/call
steps, and fixes only this about them: they run no retry loop and take their
error edge on their first failure (W6W-EDGE-8); their sub-blocks'
steps (foreach.body, parallel.branches, an if branch block) stay out of
main-graph routing, and "a sub-block failure is handled by its enclosing
control's own failure modes" (W6W-EDGE-10); foreach adds ``foreach.item``
and ``foreach.index`` to the sub-block's run scope (W6W-ROOT-6); control and
call steps carry no meta (W6W-META-15).  Their full definitions live in the
Engine RFC, which is not included: every other choice below is assumption
A-53 (controls), A-55 (wait) or A-56 (call), and docs/controls.md shows them.

Notation: a control's attempt is one transition of its enclosing run
(big-step).  Its sub-block runs as a run of its own (``W6wRun`` with an
``outer`` scope: the enclosing run scope when the attempt is made, plus
``foreach``), explored to every distinct way it can end; each becomes one
``Ending`` — a result (output or StepError), the sub-block's events, its
scenario invocation counts, its continue-record failures and the clock.

- ``if``: ``with.condition`` is resolved; if JSONLogic-truthy the ``then``
  block runs, otherwise ``else`` (JavaScript's truthiness under the other
  reading of A-53: ``chosen``).  Output: the block's lastOutput.
- ``foreach``: ``with.items`` must resolve to an array; the ``body`` block
  runs once per item, in order, with ``foreach: {item, index}``.  Output:
  the array of each iteration's lastOutput.  The first failing iteration
  ends the control with its failure.
- ``parallel``: every block of ``with.branches`` runs as a chain on a strand
  of its own, all interleaved (W6W-FAN-5's strands).  Output: the array of
  each branch's lastOutput, in branch order; the failure reported is the
  first by plan order (W6W-FAN-10).
- ``wait``: suspends the run (rules.py: ``suspend_step``).
- ``@w6w/call``: ``with.workflow`` names a workflow the scenario's ``calls``
  supplies (document and scenario); it runs as a child run with
  ``with.inputs`` as its variables, one call level deeper.  Past
  ``maxCallDepth`` the attempt fails with ``call_depth_exceeded``.  A
  workflow the scenario does not supply is answered by the step's own
  script, as an app step's would be.

Inside a block, a step's lastOutput is its block's last succeeded step by
plan order (W6W-FAN-10's rule, applied to the block).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import attrs

from wforacle.model.expr.js import truthy
from wforacle.model.kernel import budget
from wforacle.model.kernel.explore import canonical, explore
from wforacle.model.kernel.lts import Event, Worded
from wforacle.model.w6w.config import Config, Unsupported, config_key
from wforacle.model.w6w.document import Edge, Step, Workflow
from wforacle.model.w6w.independence import Reduction
from wforacle.model.w6w.resolve import REDACTED, kind_of
from wforacle.model.w6w.run import Run
from wforacle.model.w6w.runstate import last_output, outcome
from wforacle.model.w6w.scenario import Result, StepError, load_scenario

JSON = Any
CONTROLS = frozenset({"if", "foreach", "parallel", "wait"})
# Where each control keeps its sub-blocks under ``with`` (assumption A-06).
BLOCK_KEYS = {"if": ("then", "else"), "foreach": ("body",), "parallel": ("branches",)}
MAX_ENDINGS = 4096  # a control whose sub-block can end in more ways is refused
CHILD = ".(run)."  # a child run's step is the unit <call step>.(run).<its step> (A-56)


@attrs.frozen
class Ending:
    """One way a control's or call's attempt can end."""

    result: Result
    events: tuple[Event, ...] = attrs.field(eq=False)
    sub_invocations: tuple[tuple[str, int], ...]
    errors: tuple[tuple[str, StepError], ...]
    clock: int
    # What ran inside, for the outcome: per sub-block run (an if's block, each
    # foreach iteration, the parallel branches) its steps' records; for a call,
    # the child run's outcome.
    records: tuple[JSON, ...] = attrs.field(default=(), eq=False)
    # The clauses the runs inside cited on the way to this ending (coverage: the
    # step's transition carries them as ``Nesting.nested``).
    clauses: tuple[str, ...] = attrs.field(default=(), eq=False)


def action(step: Step) -> str | None:
    """The control's action name (``if``, ``foreach``, …), or None for other steps."""
    return step.uses.action if step.is_control and step.uses is not None else None


def chosen(run: Run, condition: JSON) -> str:
    """The block an ``if`` whose condition resolved to ``condition`` runs: then or else.

    A-53 (with A-20): the condition is truthy as JSONLogic has it (``[]`` is
    false), or, under ``Options(if_truthiness="javascript")``, as
    JavaScript's ``!!value`` (``[]`` and ``{}`` are true).
    """
    if run.options.if_truthiness == "javascript" and isinstance(condition, list):
        return "then"  # JavaScript: every array is truthy; JSONLogic: only a nonempty one
    return "then" if truthy(condition) else "else"


def parameters(step: Step) -> dict[str, JSON]:
    """What a step's start resolves: its with block, minus a control's sub-blocks."""
    blocks = BLOCK_KEYS.get(action(step) or "", ())
    if not blocks:
        return step.with_
    return {k: v for k, v in step.with_.items() if k not in blocks}


def scripted(run: Run, c: Config, i: int) -> bool:
    """Whether the due attempt of call position ``i`` is answered by the step's own script.

    So it is for a @w6w/call whose workflow the scenario does not supply
    (assumption A-56), as an app step's would be.
    """
    step = run.by_id[run.plan[i]]
    state = c.steps[i]
    params = state.invoked if isinstance(state.invoked, dict) else {}
    target = params.get("workflow")
    return step.is_call and not (isinstance(target, str) and target in run.scenario.calls)


def endings(run: Run, c: Config, i: int) -> list[Ending]:
    """Every distinct way the due attempt of control/call position ``i`` ends.

    Not for a call the step's own script answers (``scripted``).
    """
    step = run.by_id[run.plan[i]]
    state = c.steps[i]
    params = state.invoked if isinstance(state.invoked, dict) else {}
    start = Start(shared_counts(run, c), c.clock)
    if step.is_call:
        found = _call(run, step, params, start)
        assert found is not None, "a scripted call has no endings (see ``scripted``)"
        if state.plaintext is None:
            return found
        # The call's inputs carried a secret's plaintext, now the child run's
        # variables: its recorded events and records show the marker.
        secrets = run.scope(c).get("secrets")
        plain = [v for v in (secrets or {}).values() if isinstance(v, str) and v]
        return [
            attrs.evolve(e, events=masked(e.events, plain), records=masked(e.records, plain))
            for e in found
        ]
    scope = run.scope(c)
    kind = action(step)
    if kind == "if":
        chosen_block = block(step, (chosen(run, params.get("condition")),))
        return _finish(_run_blocks(run, scope, [chosen_block], start), lambda outs: outs[0])
    if kind == "foreach":
        items = params.get("items")
        if not isinstance(items, list):
            return [
                start.ending(
                    Result(
                        error=StepError.raised(
                            "foreach_items_not_array",
                            f"foreach items resolved to {kind_of(items)}, not an array",
                            "resolution",
                        )
                    )
                )
            ]
        return _foreach(run, step, scope, items, start)
    if kind == "parallel":
        branches = [
            block.steps for block in step.blocks if block.where and block.where[0] == "branches"
        ]
        return _finish(_run_blocks(run, scope, branches, start, parallel=True), list)
    raise AssertionError(f"no endings for control {kind!r}")


def shared_counts(run: Run, c: Config) -> dict[str, int]:
    """Each step id's invocations so far, main-graph steps' and block steps' together.

    The scenario answers a step's n-th invocation in the whole run with its
    n-th result, by id (docs/engine-protocol.md): a block step that repeats
    a main-graph step's id (a warning, duplicate_nested_step_id) continues
    that step's count, as the oracle's does.
    """
    counts = dict(c.sub_invocations)
    for j, step_id in enumerate(run.plan):
        if c.invocations[j] or step_id in counts:
            counts[step_id] = counts.get(step_id, 0) + c.invocations[j]
    return counts


def block_counts(
    run: Run, c: Config, after: tuple[tuple[str, int], ...]
) -> tuple[tuple[str, int], ...]:
    """The block steps' own invocations after a control's attempt (``shared_counts`` undone).

    ``after`` counts each id's invocations in the whole run; a main-graph
    step's own count stays in ``c.invocations``.
    """
    own = {step_id: c.invocations[j] for j, step_id in enumerate(run.plan)}
    found = ((step_id, n - own.get(step_id, 0)) for step_id, n in after)
    return tuple((step_id, n) for step_id, n in found if n)


def branch_order(step: Step, events: Sequence[Event]) -> list[Event]:
    """A parallel control's sub-block events, branch by branch (assumption A-160).

    The branches are strands that interleave as the engine schedules them
    (W6W-FAN-5), and the record of the attempt is compared with the model's:
    each branch's events in their order, the branches in ``with.branches``
    order, then what names no branch step (the sub-block's ``run_finished``).
    Two interleavings that end the same way record the same events.
    """
    branch = {
        inner.id: block.where[1]
        for block in step.blocks
        if block.where and block.where[0] == "branches"
        for inner in block.steps
    }
    last = len(branch)

    def place(event: Event) -> Any:
        named = event.get("step") if isinstance(event, dict) else None
        if not isinstance(named, str) or event.get("event") == "run_finished":
            return last
        return branch.get(named, last)

    return sorted(events, key=place)


def call_order(events: Sequence[Event]) -> list[Event]:
    """A called run's events as its call's record holds them (assumption A-56).

    The child run's strands interleave as the engine schedules them, as the
    main graph's do; its record is compared in one order: ``run_started``,
    then each step's events in their order, the steps by id, then the
    run-level rest (``run_finished``).  A nested call's record likewise.
    """

    def place(event: Event) -> tuple[int, str]:
        name = str(event.get("event", ""))
        if name == "run_started":
            return (0, "")
        if name.startswith("run_"):
            return (2, "")
        return (1, str(event.get("step")))

    return sorted((_nested_calls(e) for e in events), key=place)


def _nested_calls(event: Event) -> Event:
    inner = event.get("inner") if isinstance(event, dict) else None
    if isinstance(inner, list) and inner and inner[0].get("event") == "run_started":
        return {**event, "inner": call_order(inner)}  # a child run's record starts so
    return event


def in_branch_order(steps: dict[str, Step], event: Event) -> Event:
    """An engine's event as it is compared: every parallel control's ``inner`` in branch order.

    ``steps`` maps every step id of the document, sub-blocks included.
    Applied recursively: a parallel control may sit in another control's block.
    An event that holds no parallel control is returned itself (not a copy):
    explain.interleaved checks the engine's order of those that do.
    """
    inner = event.get("inner") if isinstance(event, dict) else None
    if not isinstance(inner, list):
        return event
    events = [in_branch_order(steps, e) for e in inner]
    named = event.get("step")
    step = steps.get(named) if isinstance(named, str) else None
    if step is not None and action(step) == "parallel":
        events = branch_order(step, events)
    elif step is not None and step.is_call:
        events = call_order(events)
    elif all(a is b for a, b in zip(events, inner, strict=True)):
        return event  # nothing in it is put in branch order: the event itself
    return {**event, "inner": events}


@attrs.frozen
class Start:
    """Where a sub-block run starts: invocation counts, clock, what came before it.

    What came before: the events, continue-record failures and records of
    the runs before it in the same attempt (a foreach's earlier iterations).
    """

    counts: dict[str, int] = attrs.field(eq=False)
    clock: int
    events: tuple[Event, ...] = ()
    errors: tuple[tuple[str, StepError], ...] = ()
    records: tuple[JSON, ...] = ()
    clauses: tuple[str, ...] = attrs.field(default=(), eq=False)  # what the runs before cited

    def ending(self, result: Result) -> Ending:
        """The attempt ends here with ``result``."""
        return Ending(
            result,
            self.events,
            tuple(sorted(self.counts.items())),
            self.errors,
            self.clock,
            self.records,
            self.clauses,
        )


def block(step: Step, where: tuple[str | int, ...]) -> tuple[Step, ...]:
    """The steps of ``step``'s sub-block at ``where`` (("then",), ("branches", 1)); () if none."""
    for sub in step.blocks:
        if sub.where == where:
            return sub.steps
    return ()


def inner_run(
    run: Run,
    scope: dict[str, JSON],
    blocks: Sequence[Sequence[Step]],
    start: Start,
    parallel: bool,
) -> Run:
    """The run of a control's ``blocks`` as a run of its own (``outer``: ``scope``).

    Each block's steps in array order; ``parallel``: each block a chain on a
    strand of its own.  Invocations counted on from ``start``.
    """
    steps = [s for block in blocks for s in block]
    edges = [
        Edge(block[k].id, block[k + 1].id)
        for block in blocks
        if parallel
        for k in range(len(block) - 1)
    ]
    workflow = Workflow(run.workflow.manifest_version, run.workflow.id, "sub-block", tuple(steps))
    workflow = attrs.evolve(workflow, edges=tuple(edges))
    scenario = attrs.evolve(run.scenario, crashes=frozenset(), cancel_after=None, resumes=())
    plan = [s.id for s in steps]  # W6W-PLAN-5: the earliest-declared ready step next
    if parallel and run.options.tie_break == "fifo":
        # A-02's other reading: ready steps in the order they became ready — each chain's
        # first step, then each chain's second, and so on.
        depth = max((len(block) for block in blocks), default=0)
        plan = [block[d].id for d in range(depth) for block in blocks if d < len(block)]
    return run.derive(
        workflow,
        plan,
        scenario,
        outer=scope,
        separate_roots=parallel,
        start_invocations=[start.counts.get(step_id, 0) for step_id in plan],
        start_counts=_held(start.counts, plan, {s.id for _, s in workflow.all_steps()}),
        depth=run.depth,
    )


def _held(counts: dict[str, int], plan: Sequence[str], ids: set[str]) -> list[tuple[str, int]]:
    """The counts a run carries beside its plan's: units of steps nested in it (``ids``).

    A step in a block of one of its controls, or ``s`` of a call ``c``'s child
    run as ``c.(run).s``: the scenario answers a unit's n-th invocation in the
    whole execution with its n-th result (docs/engine-protocol.md), so a
    block run or a child run made again (a foreach's next iteration, a call in
    a foreach body, a run-level retry) counts on from the runs before it.
    """
    own = set(plan)
    return [
        (unit, n)
        for unit, n in counts.items()
        if n and unit not in own and unit.split(CHILD, 1)[0] in ids
    ]


def _run_blocks(
    run: Run,
    scope: dict[str, JSON],
    blocks: Sequence[Sequence[Step]],
    start: Start,
    parallel: bool = False,
) -> list[tuple[Start, Result | None, list[JSON]]]:
    """Run ``blocks`` as one sub-block run, every distinct way it can end.

    Per end: the state after, its failure (a Result with an error) or None,
    and each block's lastOutput.
    """
    inner = inner_run(run, scope, blocks, start, parallel)
    found = []
    for final, events, clauses in finals(inner):
        # Every unit's count after the run, its nested controls' and calls' too.
        counts = {**start.counts, **shared_counts(inner, final)}
        after = Start(
            counts,
            final.clock if final.clock > start.clock else start.clock,
            (*start.events, *events),
            (*start.errors, *final.errors),
            (*start.records, outcome(inner, final)["steps"]),
            tuple(dict.fromkeys((*start.clauses, *clauses))),
        )
        failure = Result(error=final.failure[1]) if final.failure is not None else None
        outputs = []
        by_id = dict(zip(inner.plan, final.steps, strict=True))  # the plan may interleave
        for block in blocks:  # a block's lastOutput: its last succeeded step in array order
            succeeded = [by_id[s.id].output for s in block if by_id[s.id].status == "succeeded"]
            outputs.append(succeeded[-1] if succeeded else None)
        found.append((after, failure, outputs))
    return found


def _finish(ends: list[tuple[Start, Result | None, list[JSON]]], shape: Any) -> list[Ending]:
    return [
        after.ending(failure if failure is not None else Result(output=shape(outputs)))
        for after, failure, outputs in ends
    ]


def _foreach(
    run: Run, step: Step, scope: dict[str, JSON], items: list[JSON], start: Start
) -> list[Ending]:
    body = block(step, ("body",))
    done: list[Ending] = []
    frontier: list[tuple[Start, list[JSON]]] = [(start, [])]
    for index, item in enumerate(items):
        budget.check()  # one transition runs every item: a run's or explore's budget holds here
        following = []
        for partial, outputs in frontier:
            here = {**scope, "foreach": {"item": item, "index": index}}
            for after, failure, last in _run_blocks(run, here, [body], partial):
                if failure is not None:
                    done.append(after.ending(failure))
                else:
                    following.append((after, [*outputs, last[0]]))
        frontier = following
        _bounded(len(frontier) + len(done), step)
    done.extend(partial.ending(Result(output=outputs)) for partial, outputs in frontier)
    return done


def _call(run: Run, step: Step, params: dict[str, JSON], start: Start) -> list[Ending] | None:
    target = params.get("workflow")
    callee = run.scenario.calls.get(target) if isinstance(target, str) else None
    if callee is None:
        return None
    if run.depth + 1 > run.scenario.max_call_depth:
        error = StepError.raised(
            "call_depth_exceeded",
            f"calling {target!r} would exceed the call depth bound ({run.scenario.max_call_depth})",
            "execute",
        )
        return [start.ending(Result(error=error))]
    if run.validate is None:
        raise Unsupported(
            f"step {step.id!r} calls {target!r}: checking a called workflow needs the "
            "document validator (W6wRun(..., validate=properties.w6w.validate.validate))"
        )
    child = child_run(run, step.id, callee, params.get("inputs", {}), start.counts)
    if child is None:
        error = StepError.raised(
            "call_target_invalid", f"the called workflow {target!r} is not runnable", "execute"
        )
        return [start.ending(Result(error=error))]
    found = []
    prefix = step.id + CHILD
    for final, events, clauses in finals(child):
        counts = {prefix + unit: n for unit, n in shared_counts(child, final).items()}
        after = attrs.evolve(
            start,
            counts={**start.counts, **counts},
            events=tuple(events),
            records=(outcome(child, final),),
            clauses=clauses,
        )
        if final.status == "succeeded":
            output = final.handled_output if final.handled else last_output(child, final)
            found.append(after.ending(Result(output=output)))
        elif final.status == "failed" and final.failure is not None:
            found.append(after.ending(Result(error=final.failure[1])))
        else:
            error = StepError.raised(
                f"call_{final.status}", f"the called run ended {final.status}", "execute"
            )
            found.append(after.ending(Result(error=error)))
    return found


def child_run(
    run: Run, call: str, callee: dict[str, JSON], inputs: JSON, counts: dict[str, int]
) -> Run | None:
    """The child run step ``call``'s call of ``callee`` (a ``calls`` entry) starts, or None.

    A-56: the called document with its own scenario, the call's inputs as
    its variables; None when the document or the scenario is not runnable
    (``call_target_invalid``).  ``run.validate`` must be set (``_call``).
    Its steps are the units ``<call>.(run).<step>``, whose invocations
    ``counts`` holds so far (the execution's earlier calls of ``call``).
    """
    assert run.validate is not None
    checked = run.validate(copy.deepcopy(callee["document"]))
    scenario, problems = load_scenario(copy.deepcopy(callee.get("scenario", {})))
    if not checked.report.valid or problems or checked.workflow is None or checked.plan is None:
        return None
    # The child is part of its caller's execution: it reports the caller's run id.
    # Its trigger is its own scenario's (the manual trigger), or under A-56's other reading
    # (``Options.child_trigger``) its caller's.
    inherited = run.options.child_trigger == "inherit"
    scenario = attrs.evolve(
        scenario,
        variables=inputs if isinstance(inputs, dict) else {},
        max_call_depth=run.scenario.max_call_depth,
        run_id=run.scenario.run_id,
        trigger=run.scenario.trigger if inherited else scenario.trigger,
    )
    prefix = call + CHILD
    own = {unit[len(prefix) :]: n for unit, n in counts.items() if unit.startswith(prefix)}
    plan = checked.plan
    return run.derive(
        checked.workflow,
        plan,
        scenario,
        start_invocations=[own.get(step_id, 0) for step_id in plan],
        start_counts=[(unit, n) for unit, n in own.items() if unit not in plan],
        depth=run.depth + 1,
    )


def finals(run: Run) -> list[tuple[Config, tuple[Event, ...], tuple[str, ...]]]:
    """Every distinct final configuration of ``run`` (up to time), a trace to it, its clauses."""
    kept: dict[str, Config] = {}

    def end(c: Config) -> dict[str, JSON]:
        value = {
            "outcome": outcome(run, c),
            "invocations": list(c.invocations),
            "clock": c.clock,
        }
        kept.setdefault(canonical(value), c)
        return value

    reduction = Reduction(run)
    result = explore(
        run,
        end,
        config_key,
        max_states=200_000,
        ample=reduction.ample if reduction.active else None,
    )
    if not result.complete:
        raise _too_many(run)
    if len(result.outcomes) > MAX_ENDINGS:
        raise _too_many(run)
    return [
        (kept[canonical(o.value)], tuple(_unnumbered(e) for e in o.witness), o.clauses())
        for o in result.outcomes
    ]


def _unnumbered(event: Event) -> Event:
    # Sub-block records are persisted with the control's step end.
    return {k: v for k, v in event.items() if k != "checkpoint"}


def _bounded(count: int, step: Step) -> None:
    if count > MAX_ENDINGS:
        raise Unsupported(f"control {step.id!r} can end in more than {MAX_ENDINGS} ways")


def _too_many(run: Run) -> Exception:
    return Unsupported(
        f"a sub-block or called run of workflow {run.workflow.id!r} has more than "
        f"{MAX_ENDINGS} endings or 200000 states"
    )


def masked(value: Any, plain: Sequence[str]) -> Any:
    """``value`` with every occurrence of each plaintext in ``plain`` replaced (A-70).

    Text the engine words itself (``Worded``, A-155) stays as it is: any text
    an engine reports matches it, and ``str.replace`` would have made it
    plain text, compared word for word (a stranger's engine, session 26: its
    own ``call_depth_exceeded`` message inside a child run that received a
    secret was a divergence; at the root it was not).
    """
    if isinstance(value, Worded):
        return value
    if isinstance(value, str):
        for text in sorted(plain, key=len, reverse=True):
            value = value.replace(text, REDACTED)
        return value
    if isinstance(value, dict):
        return {k: masked(v, plain) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(masked(v, plain) for v in value)
    return value
