"""The transition rules of a w6w run, in the RFC's order.

Notation: ``run`` is the run's fixed parts (run.py), ``c`` its configuration
(config.py), ``i`` a plan position.  Each rule is a pure function named after
the rule it implements, returning the transitions it permits from ``c`` —
none or one, except a control's or call's attempt, which ends once for each
way its sub-block can end (controls.py).  ``semantics.W6wRun.enabled`` looks
up in ``RUN_TABLE`` and ``STEP_TABLE`` which rules apply where the run or a
strand is, and offers what they permit; the rules of one row exclude one
another, except where the RFC leaves the host a choice (a host that
validates variable types, A-73).

Virtual time: an attempt takes no time; a retry wait advances the clock by
the computed wait (model/kernel/time.py).  No rule reads the clock: it only
stamps events and StepExecution times.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from enum import Enum, auto
from typing import Any

from wforacle.model.kernel.lts import Nesting, Transition
from wforacle.model.w6w import controls
from wforacle.model.w6w.config import (
    KEPT_COUNTS,
    KEPT_STEPS,
    TERMINAL,
    Config,
    EdgeKey,
    StepState,
)
from wforacle.model.w6w.document import Backoff, Edge, RetryPolicy, Step, When
from wforacle.model.w6w.fast import evolve
from wforacle.model.w6w.meta import attempt_meta, meta_clauses
from wforacle.model.w6w.resolve import (
    FAILURE_CLAUSES,
    Compiled,
    ResolutionError,
    compile_plain,
    quoted,
    resolve_labelled,
    resolve_recorded,
    resolve_with,
)
from wforacle.model.w6w.run import Run, routing
from wforacle.model.w6w.runstate import last_output
from wforacle.model.w6w.scenario import Result, StepError

JSON = Any
WAIT_CEILING_MS = 300_000  # W6W-RETRY-9: "cap every computed wait at 300000 ms"
RUN_BOUNDARY = "(run)"  # the failure's "step" when the run is refused at its start
# The reroute target's dispatch: its failure's "step", and the unit an engine invokes for
# it over the protocol (docs/engine-protocol.md, "Reroute").
REROUTE = "(reroute)"

RunRule = Callable[[Run, Config], list[Transition[Config]]]
StepRule = Callable[[Run, Config, int], list[Transition[Config]]]
Rule = RunRule


# -- helpers -----------------------------------------------------------------------


def _replace(config: Config, index: int, state: StepState) -> tuple[StepState, ...]:
    steps = config.steps
    if isinstance(steps, KEPT_STEPS):
        return steps.replace(index, state)
    return (*steps[:index], state, *steps[index + 1 :])  # a configuration built by hand


def _event(config: Config, name: str, **fields: JSON) -> dict[str, JSON]:
    return {"event": name, "at": config.clock, **fields}


def _key(edge: Edge) -> EdgeKey:
    return (edge.from_, edge.to, edge.when.value)


def _route(
    run: Run, step_id: str, lane: When, c: Config
) -> tuple[frozenset[EdgeKey], frozenset[EdgeKey]]:
    """Activate the step's edges of ``lane`` and skip the others (W6W-EDGE-4)."""
    taken, other = _lanes(run, step_id, lane)
    return c.activated | taken, c.skipped | other


def _lanes(run: Run, step_id: str, lane: When) -> tuple[frozenset[EdgeKey], frozenset[EdgeKey]]:
    """The keys of the step's outbound edges of ``lane``, and of the others (computed once)."""
    found = run.lanes.get((step_id, lane))
    if found is None:
        outbound = run.outbound[step_id]
        found = run.lanes[step_id, lane] = (
            frozenset(_key(e) for e in outbound if e.when is lane),
            frozenset(_key(e) for e in outbound if e.when is not lane),
        )
    return found


def _in_flight(c: Config) -> bool:
    return any(s.status == "running" and s.stage != "suspended" for s in c.steps)


def _suspended(c: Config) -> bool:
    return c.waiting > 0


# -- run start (W6W-FIELD-17..19, A-72, A-73) --------------------------------------


def bind_variables(run: Run) -> tuple[dict[str, JSON], str | None]:
    """The run's variables: supplied values, then defaults; and a missing required key.

    W6W-FIELD-19: a default is "Used when the caller doesn't supply a value"
    (a required variable with a default is satisfied by it, assumption A-42;
    under the reading ``supplied`` — W6W-FIELD-18's "no value provided at
    run start" read as "none supplied" — it is missing all the same).
    """
    supplied = run.scenario.variables
    bound: dict[str, JSON] = dict(supplied)
    missing = None
    default_satisfies = run.options.required_default == "default"
    for variable in run.workflow.variables:
        if variable.key in supplied:
            continue
        if variable.has_default:
            bound[variable.key] = variable.default
        satisfied = variable.has_default and default_satisfies
        if variable.required and not satisfied and missing is None:
            missing = variable.key
    return bound, missing


VARIABLE_TYPES: dict[str, Callable[[JSON], bool]] = {
    "string": lambda v: isinstance(v, str),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}


def mistyped_variable(run: Run, bound: dict[str, JSON]) -> tuple[str, str] | None:
    """The first bound variable whose value is not of its declared type: (key, type)."""
    for variable in run.workflow.variables:
        check = VARIABLE_TYPES.get(variable.type or "")
        if check is not None and variable.key in bound and not check(bound[variable.key]):
            return variable.key, variable.type or ""
    return None


def _rejected(
    run: Run, c: Config, variable: str, error: StepError, clause: str, rule: str
) -> Transition[Config]:
    """The transition of a run refused at its start: a failed run that never ran (A-72).

    Under A-72's reading ``canceled`` the refused run is ``canceled`` instead:
    the event still says why, the RunState has no error (RunState.error is
    the "Terminal error when status === failed").
    """
    status = run.options.rejected_status
    rejection = {"status": status, "variable": variable, "error": error.to_json()}
    ended = (
        evolve(c, status="failed", failure=(RUN_BOUNDARY, error), rejection=rejection)
        if status == "failed"
        else evolve(c, status="canceled", rejection=rejection)
    )
    return Transition(_event(c, "run_rejected", **rejection), rule, (clause,), ended)


def _json_type(value: JSON) -> str:
    if value is None:
        return "null"
    for name, check in VARIABLE_TYPES.items():
        if check(value):
            return name
    return type(value).__name__


def reject_missing_variable(run: Run, c: Config) -> list[Transition[Config]]:
    """Refuse a run a required variable of which has no value.

    W6W-FIELD-18: "If true and no value provided at run start, the run is
    rejected."  The refused run is failed, with a resolution-phase error
    ``missing_variable``, no step and no handler read (assumption A-72).
    """
    if c.status != "queued":
        return []
    _, missing = bind_variables(run)
    if missing is None:
        return []
    error = StepError.raised(
        "missing_variable", f"required variable {quoted(missing)} has no value", "resolution"
    )
    return [_rejected(run, c, missing, error, "W6W-FIELD-18", "reject_missing_variable")]


def reject_mistyped_variable(run: Run, c: Config) -> list[Transition[Config]]:
    """Refuse a run a variable of which is not of its declared type — a host that validates.

    W6W-FIELD-17: the type is "Advisory; hosts SHOULD validate at
    trigger/run boundary."  A SHOULD: a host may also start the run
    (``start_run``), so both are permitted (assumption A-73).
    """
    if c.status != "queued":
        return []
    bound, missing = bind_variables(run)
    mistyped = mistyped_variable(run, bound)
    if missing is not None or mistyped is None:
        return []
    key, declared = mistyped
    error = StepError.raised(
        "variable_type_mismatch",
        f"variable {quoted(key)} is declared {declared} and was given {_json_type(bound[key])}",
        "resolution",
    )
    return [_rejected(run, c, key, error, "W6W-FIELD-17", "reject_mistyped_variable")]


def start_run(run: Run, c: Config) -> list[Transition[Config]]:
    """Start a queued run with its variables bound.

    W6W-FIELD-18: not when a required variable has no value (then
    ``reject_missing_variable``).  W6W-FIELD-19: defaults fill what the
    caller did not supply.  A value of another type than declared does not
    stop a host that treats the type as advisory (W6W-FIELD-17, A-73).
    """
    if c.status != "queued":
        return []
    bound, missing = bind_variables(run)
    if missing is not None:
        return []
    replaying = {"replay": True} if run.replay is not None else {}
    return [
        Transition(
            _event(
                c,
                "run_started",
                status="running",
                attempt=1,
                runId=run.scenario.run_id,
                variables=bound,
                **replaying,
            ),
            "start_run",
            ("W6W-FIELD-18", "W6W-FIELD-19"),
            evolve(c, status="running", variables=bound),
        )
    ]


# -- launching a step (W6W-FAN-4..7, W6W-EDGE-4/11, Replay) ------------------------


# ``W6wRun.strand_transitions`` picks the step (W6W-FAN-5); these rules decide
# what launching it means, exactly one applying.


def _all_inbound_skipped(run: Run, c: Config, step_id: str) -> bool:
    inbound = _inbound_keys(run, step_id)
    if not inbound:
        return False
    # A loop, not all() of a generator: every launch asks this twice (issue 16).
    skipped = c.skipped
    for key in inbound:  # noqa: SIM110
        if key not in skipped:
            return False
    return True


def _inbound_keys(run: Run, step_id: str) -> tuple[EdgeKey, ...]:
    """The keys of the step's inbound edges (computed once: every launch asks)."""
    found = run.lanes.get((step_id, None))
    if found is None:
        found = run.lanes[step_id, None] = tuple(_key(e) for e in run.inbound[step_id])
    return found


def skip_step(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """Skip a step every inbound edge of which was skipped, and skip its outgoing edges.

    W6W-EDGE-4: "A step reachable only through skipped edges is recorded
    status: "skipped""; W6W-EDGE-11: "a step is skipped only when every
    inbound edge is skipped".
    """
    step_id = run.plan[i]
    if c.steps[i].status != "pending" or not _all_inbound_skipped(run, c, step_id):
        return []
    skipped = c.skipped | {_key(e) for e in run.outbound[step_id]}
    return [
        Transition(
            _event(c, "step_skipped", step=step_id),
            "skip_step",
            ("W6W-EDGE-4", "W6W-EDGE-11"),
            evolve(
                c,
                steps=_replace(c, i, evolve(c.steps[i], status="skipped")),
                skipped=skipped,
            ),
        )
    ]


def _reused(run: Run, step_id: str) -> bool:
    return (
        run.replay is not None and step_id in run.replay.outputs and step_id not in run.replay.fresh
    )


def replay_step(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """Reuse a step's recorded output verbatim: no resolution, no invocation.

    RFC "Replay" (W6W-REPLAY-1, W6W-REPLAY-2): "Replay re-executes a completed
    or failed run without re-invoking actions … it uses the recorded
    StepExecution.output verbatim."  W6W-CONCEPT-4, W6W-CONF-5.
    """
    step_id, state = run.plan[i], c.steps[i]
    if state.status != "pending" or _all_inbound_skipped(run, c, step_id):
        return []
    if not _reused(run, step_id):
        return []
    assert run.replay is not None
    output = run.replay.outputs[step_id]
    activated, skipped = _route(run, step_id, When.SUCCESS, c)
    # W6W-META-18: "Resume and replay reuse the stored meta wherever they reuse
    # the stored output".
    replayed = evolve(
        state,
        status="succeeded",
        attempt=1,
        output=output,
        started_at=c.clock,
        finished_at=c.clock,
        meta=run.replay.metas.get(step_id),
    )
    return [
        Transition(
            _event(c, "step_replayed", step=step_id, output=output),
            "replay_step",
            ("W6W-REPLAY-1", "W6W-REPLAY-2", "W6W-CONCEPT-4", "W6W-CONF-5"),
            evolve(c, steps=_replace(c, i, replayed), activated=activated, skipped=skipped),
        )
    ]


def start_step(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """Start a step: resolve its with block and make its first attempt due.

    W6W-FAN-4: "the plan's order, one step at a time" (one strand; with
    strands, W6W-FAN-5).  The with block resolves against the scope as it is
    now; a resolution failure is the attempt's failure with phase
    "resolution" (assumption A-41).
    """
    step_id, state = run.plan[i], c.steps[i]
    if state.status != "pending" or _all_inbound_skipped(run, c, step_id):
        return []  # skip_step's case
    if _reused(run, step_id):
        return []  # replay_step's case
    pending: StepError | None = None
    try:
        # W6W-ENV-17: the recorded input never holds a secret's plaintext.
        parameters, reads_scope, plain = _parameters(run, i)
        if plain is not None:  # literals and $ markers only: the same, compiled (speed)
            labels: list[str] = []
            invoked = resolved = plain(run.scope(c) if reads_scope else _NO_SCOPE, labels)
            used = tuple(dict.fromkeys(labels))
        else:
            invoked, resolved, used = resolve_labelled(
                parameters,
                run.scope(c) if reads_scope else _NO_SCOPE,
                readings=run.resolution,
                block=run.by_id if run.outer is not None else (),
            )
    except ResolutionError as failure:
        invoked = resolved = None
        used = failure.clauses
        pending = StepError.raised(failure.code, failure.message, "resolution", False)
    attempt = state.attempt or 1  # a pending step's is 0, but a resumed one's under A-46 kept
    started = evolve(
        state,
        status="running",
        attempt=attempt,
        input=resolved,
        plaintext=None if invoked is resolved else invoked,
        started_at=c.clock,
        stage="decide" if pending else "invoke",
        pending=pending,
    )
    return [
        Transition(
            _event(c, "step_started", step=step_id, attempt=attempt, input=resolved),
            "start_step",
            # The resolution features the with block used come first (resolve_labelled):
            # a step starting with another input broke one of those.
            (
                *used,
                *run.scheduling,
                *run.placement[i],
                "W6W-PLAN-7",
                "W6W-STATE-4",
                "W6W-ENV-17",
            ),
            evolve(c, steps=_replace(c, i, started)),
        )
    ]


STARTED = ("W6W-PLAN-7", "W6W-STATE-4", "W6W-ENV-17")  # what every step start cites last

# A with block that reads nothing resolves to itself whatever the scope: building the
# scope (the succeeded steps' outputs) for it would cost O(steps) per start (issue 19).
_NO_SCOPE: dict[str, JSON] = {}


def _parameters(run: Run, i: int) -> tuple[JSON, bool, Compiled | None]:
    """A start of position ``i``: what it resolves, whether it may read the run scope.

    With its resolution compiled when the with block is plain
    (``resolve.compile_plain``).

    Computed once per run and position (``Run.starts``): a step's with block
    never changes, and every start of it asked again.
    """
    found = run.starts.get(i)
    if found is None:
        parameters = controls.parameters(run.by_id[run.plan[i]])
        found = run.starts[i] = (
            parameters,
            _reads_scope(parameters),
            compile_plain(parameters),
        )
    return found


def _reads_scope(value: JSON) -> bool:
    """Whether resolving ``value`` may read the run scope: a marker, a template, an envelope."""
    if isinstance(value, str):
        return "{{" in value
    if isinstance(value, dict):
        if "$" in value or "$expr" in value or "parts" in value:
            return True
        return any(_reads_scope(v) for v in value.values())
    if isinstance(value, list):
        return any(_reads_scope(v) for v in value)
    return False


# -- an attempt (W6W-FIELD-10, W6W-META-*, controls, wait) -------------------------


def invoke(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """Make the due attempt of an app step: the scenario answers with an output or a StepError.

    W6W-FIELD-10: the step's action is invoked; a @w6w/call whose workflow
    the scenario does not supply is answered by the step's own script too.
    """
    step_id, state = run.plan[i], c.steps[i]
    if state.status != "running" or state.stage != "invoke":
        return []
    step = run.by_id[step_id]
    if _is_wait(step) or ((step.is_control or step.is_call) and not controls.scripted(run, c, i)):
        return []  # suspend_step's or complete's case
    # A block step with the same id as this one has used the id's scripted results too.
    shared = dict(c.sub_invocations).get(step_id, 0) if c.sub_invocations else 0
    invocation = c.invocations[i] + shared + 1
    counts = c.invocations
    invocations = (
        counts.bumped(i)
        if isinstance(counts, KEPT_COUNTS)
        else (*counts[:i], invocation, *counts[i + 1 :])  # a configuration built by hand
    )
    result: Result = run.scenario.script(step_id).result(invocation, run.scenario.default)
    changes = {"invocations": invocations}
    return [_attempt_ended(run, c, i, result, state, changes, {}, invoke.__name__)]


def _is_wait(step: Step) -> bool:
    return step.is_control and step.uses is not None and step.uses.action == "wait"


def complete(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """End a control's or a call's attempt, once for each way it can end (controls.py).

    W6W-EDGE-8: these steps "run no retry loop", so a failure goes straight
    to the decision, where ``retry_step`` never applies.  The sub-block's
    events travel inside the step's event; its continue-record failures join
    RunState.stepErrors (assumption A-53).
    """
    state = c.steps[i]
    step = run.by_id[run.plan[i]]
    if state.status != "running" or state.stage != "invoke" or _is_wait(step):
        return []
    if not (step.is_control or step.is_call) or controls.scripted(run, c, i):
        return []  # invoke's case
    found: list[Transition[Config]] = []
    for ending in controls.endings(run, c, i):
        changes = {
            "clock": ending.clock,
            "sub_invocations": controls.block_counts(run, c, ending.sub_invocations),
            "errors": (*c.errors, *ending.errors),
        }
        ended = evolve(state, inner=list(ending.records))
        events = ending.events
        parallel = controls.action(step) == "parallel"
        if parallel:
            inner = controls.branch_order(step, events)
        else:
            inner = controls.call_order(events) if step.is_call else list(events)
        extra = {"inner": inner}
        t = _attempt_ended(run, c, i, ending.result, ended, changes, extra, complete.__name__)
        # The runs inside cited their own rules' clauses: the step exercised them too.
        found.append(Nesting(t.event, t.rule, t.clauses, t.target, ending.clauses))
    return found


def _own_callback(run: Run) -> tuple[str, ...]:
    """W6W-META-19 where an attempt runs in a foreach iteration or a parallel control's branch.

    "Parallel strands and foreach iterations never share a callback: each
    invocation gets its own": the attempt's meta is its own report's.
    """
    if run.outer is not None and ("foreach" in run.outer or run.separate_roots):
        return ("W6W-META-19",)
    return ()


def _attempt_ended(
    run: Run,
    c: Config,
    i: int,
    result: Result,
    state: StepState,
    changes: dict[str, JSON],
    extra: dict[str, JSON],
    rule: str,
) -> Transition[Config]:
    """The transition of an attempt that ended with ``result``, labelled ``rule``.

    ``state`` is the step's state the attempt ended in, ``changes`` what else
    the attempt changed in ``c`` (the invocation counters; a control's clock,
    sub-block counters and records): the target is built once, with them.
    """
    step_id = run.plan[i]
    step = run.by_id[step_id]
    clock = changes.get("clock", c.clock)  # a control's sub-block may have advanced it
    if result.error is not None:
        return Transition(
            _event(
                c,
                "attempt_failed",
                step=step_id,
                attempt=state.attempt,
                error=result.error.to_json(),
                **extra,
            ),
            rule,
            ("W6W-FIELD-10", "W6W-META-14", "W6W-META-16", *_own_callback(run)),
            # W6W-META-14: "A failed step MAY record its last attempt's meta" — recorded;
            # each attempt's own report replaces the superseded one's (W6W-META-16).
            evolve(
                c,
                steps=_replace(
                    c,
                    i,
                    evolve(
                        state,
                        meta=attempt_meta(step, result),
                        stage="decide",
                        pending=result.error,
                    ),
                ),
                **changes,
            ),
        )
    meta = attempt_meta(step, result)
    finished = evolve(
        state,
        status="succeeded",
        output=result.output,
        finished_at=clock,
        meta=meta,
        stage=None,
        pending=None,
    )
    activated, skipped = _route(run, step_id, When.SUCCESS, c)
    reported = {"meta": meta} if meta is not None else {}
    return Transition(
        _event(
            c,
            "step_succeeded",
            step=step_id,
            attempt=state.attempt,
            output=result.output,
            **reported,
            **extra,
        ),
        rule,
        # The event carries the attempt's meta, or none: the clauses that decided it.
        (
            "W6W-FIELD-10",
            "W6W-EDGE-4",
            "W6W-EDGE-1",
            *meta_clauses(step, result),
            *_own_callback(run),
        ),
        evolve(c, steps=_replace(c, i, finished), activated=activated, skipped=skipped, **changes),
    )


def suspend_step(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """A wait step suspends: it asks the host to schedule its resumption.

    RFC WorkflowContext.schedule: "Durable scheduling for wait / delay steps"
    with a directive ``{ at | afterMs, resumeToken }``.  W6W-FAN-9: a wait
    suspension drains the run.  The token names the run, the step and the
    suspension (assumption A-55).
    """
    step_id, state = run.plan[i], c.steps[i]
    if state.status != "running" or state.stage != "invoke" or not _is_wait(run.by_id[step_id]):
        return []
    token = f"{run.scenario.run_id}/{step_id}/{c.suspensions + 1}"
    directive = state.input if isinstance(state.input, dict) else {}
    return [
        Transition(
            _event(c, "step_suspended", step=step_id, resumeToken=token, directive=directive),
            "suspend_step",
            ("W6W-FAN-9",),
            evolve(
                c, steps=_replace(c, i, evolve(state, stage="suspended")), waiting=c.waiting + 1
            ),
        )
    ]


# -- after a failed attempt: retry or fail (W6W-FIELD-20..24, W6W-EDGE-5..8) -------


def is_retryable(error: StepError, idempotent: bool, resolution_retry: bool = False) -> bool:
    """The runtime's retry classification (W6W-FIELD-23, W6W-FIELD-24, W6W-CONF-4).

    "phase: "auth" errors are never retried. phase: "execute" errors are
    retried only when the action declared idempotent: true or the error
    itself sets retryable: true."  Resolution errors are never retried and
    output errors only when retryable (assumption A-41); under A-41's other
    reading (``resolution_retry``) the policy retries a resolution failure,
    and the retry resolves the with block again.
    """
    if error.phase == "resolution":
        return resolution_retry
    if error.phase == "auth":
        return False
    if error.phase == "execute":
        return idempotent or error.retryable
    return error.retryable


def _computed_wait(policy: RetryPolicy, failed_attempt: int) -> float:
    """The wait the policy computes before the attempt after ``failed_attempt``, uncapped.

    W6W-FIELD-22: "Base delay in ms before the first retry. Defaults to 0.
    Exponential doubles each attempt."  Past 2^64 doublings: infinite.
    """
    delay = policy.delay_ms
    if policy.backoff is not Backoff.EXPONENTIAL or delay == 0:
        return delay
    exponent = failed_attempt - 1
    return math.inf if exponent >= 64 else delay * 2**exponent


def _policy_wait(policy: RetryPolicy, failed_attempt: int) -> int:
    """The wait before the attempt after ``failed_attempt`` (1-based), capped.

    W6W-RETRY-9: "cap every computed wait at 300000 ms".  The run-level
    ladder uses the same backoff (W6W-RUNERR-2).
    """
    return _capped(_computed_wait(policy, failed_attempt))


def _capped(wait: float) -> int:
    """W6W-RETRY-9: "cap every computed wait at 300000 ms"."""
    return int(min(wait, WAIT_CEILING_MS))


RETRY = ("W6W-FIELD-20", "W6W-FIELD-22", "W6W-FIELD-24", "W6W-RETRY-9", "W6W-CONF-4", "W6W-STATE-4")
CAPPED_RETRY = ("W6W-RETRY-9", *(c for c in RETRY if c != "W6W-RETRY-9"))


def will_retry(run: Run, step: Step, state: StepState, signalled: bool = False) -> bool:
    """Whether the failed attempt in ``state`` is retried (the decide stage's choice).

    ``signalled``: the host's abort signal has fired.  A step in flight then
    finishes, retries included (W6W-FAN-9: "lets in-flight steps finish"),
    unless A-165's other reading (``Options.signal_retries`` "stop") has the
    signal polled between attempts too.
    """
    last = run.decided
    if last is not None and last[0] is state and last[1] is step and last[2] == signalled:
        return last[3]  # retry_step's answer, asked again by fail_step (speed only)
    answer = (
        not _retries_stopped(run, signalled)
        and state.pending is not None
        and step.retry is not None
        and step.runs_retry_loop
        and state.attempt < step.retry.max_attempts
        and is_retryable(
            state.pending,
            run.scenario.script(step.id).idempotent,
            run.options.resolution_retry,
        )
    )
    run.decided = (state, step, signalled, answer)
    return answer


def _retries_stopped(run: Run, signalled: bool) -> bool:
    """A-165 (b): the abort signal is polled between a running step's attempts (W6W-HOST-3)."""
    return signalled and run.options.signal_retries == "stop"


def retry_step(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """Retry a failed attempt the policy and the classification allow.

    W6W-FIELD-20: maxAttempts is "Total attempts including the first";
    W6W-EDGE-8: control and call steps run no retry loop.  The wait advances
    the virtual clock (model/kernel/time.py).  A wait the ceiling cut cites
    W6W-RETRY-9 first ("cap every computed wait at 300000 ms"): the rule that
    decided it.
    """
    step_id, state = run.plan[i], c.steps[i]
    step = run.by_id[step_id]
    if state.status != "running" or state.stage != "decide":
        return []
    if not will_retry(run, step, state, c.signalled):
        return []
    assert step.retry is not None  # will_retry checked it
    # _policy_wait's wait, with the uncapped one kept: whether W6W-RETRY-9 cut it.
    computed = _computed_wait(step.retry, state.attempt)
    wait = _capped(computed)
    clock = c.clock + wait  # the wait advances the virtual clock
    # A-41's other reading: the retry of a resolution failure resolves the with block again.
    again: dict[str, Any] = {"stage": "invoke", "pending": None}
    if state.pending is not None and state.pending.phase == "resolution":
        try:
            invoked, resolved = resolve_recorded(
                controls.parameters(step),
                run.scope(c),
                readings=run.resolution,
            )
            plaintext = None if invoked is resolved else invoked
            again.update(input=resolved, plaintext=plaintext)
        except ResolutionError as failure:
            pending = StepError.raised(failure.code, failure.message, "resolution", False)
            again.update(stage="decide", pending=pending)
    return [
        Transition(
            _event(c, "retry_scheduled", step=step_id, attempt=state.attempt + 1, waitMs=wait),
            "retry_step",
            CAPPED_RETRY if computed > WAIT_CEILING_MS else RETRY,
            evolve(
                c,
                clock=clock,
                # RFC StepExecution: startedAt is "When the last attempt started".
                steps=_replace(
                    c,
                    i,
                    evolve(state, attempt=state.attempt + 1, started_at=clock, **again),
                ),
            ),
        )
    ]


def fail_step(run: Run, c: Config, i: int) -> list[Transition[Config]]:
    """Finish a step whose failure is final, and route it.

    W6W-EDGE-6: an outgoing error edge overrides onError: "The run takes the
    error edge and continues"; W6W-EDGE-7: whatever the phase.  W6W-EDGE-5:
    with no error edge "its onError alone decides": fail ends the run;
    continue and continue-record proceed along the ordinary edges, and
    continue-record keeps the StepError in RunState.stepErrors
    (W6W-FIELD-13).  W6W-EDGE-8: only "once it is finally failed".  With
    strands the run's failure is the first by plan order, whichever finished
    first (W6W-FAN-10).
    """
    step_id, state = run.plan[i], c.steps[i]
    step = run.by_id[step_id]
    if state.status != "running" or state.stage != "decide" or state.pending is None:
        return []
    if will_retry(run, step, state, c.signalled):
        return []
    error = state.pending
    failed = evolve(
        state, status="failed", error=error, finished_at=c.clock, stage=None, pending=None
    )
    steps = _replace(c, i, failed)
    route = routing(run, step)
    clauses: tuple[str, ...]
    if route == "error-edge":
        clauses = ("W6W-EDGE-6", "W6W-EDGE-7", "W6W-EDGE-2")
        activated, skipped = _route(run, step_id, When.ERROR, c)
        after = evolve(c, activated=activated, skipped=skipped)
    elif route == "fail":
        clauses = ("W6W-EDGE-5", "W6W-FIELD-13", "W6W-FAN-10")
        first = c.failure is None or run.position.get(c.failure[0], -1) > i
        after = evolve(c, failure=(step_id, error)) if first else c
    else:
        # W6W-FIELD-13 defines continue and continue-record; W6W-EDGE-5 hands them the step.
        clauses = ("W6W-FIELD-13", "W6W-EDGE-5")
        activated = c.activated | {_key(e) for e in run.outbound[step_id]}
        errors = (*c.errors, (step_id, error)) if route == "continue-record" else c.errors
        after = evolve(c, activated=activated, errors=errors)
    return [
        Transition(
            _event(
                c,
                "step_failed",
                step=step_id,
                attempt=state.attempt,
                error=error.to_json(),
                routing=route,
            ),
            "fail_step",
            tuple(
                dict.fromkeys(
                    (
                        *_resolution_failure(error),
                        *_final_because(run, step, state, c.signalled),
                        *clauses,
                        "W6W-EDGE-8",
                    )
                )
            ),
            evolve(after, steps=steps),
        )
    ]


def _resolution_failure(error: StepError) -> tuple[str, ...]:
    """The clause a resolution failure's code comes from (resolve.FAILURE_CLAUSES)."""
    if error.phase != "resolution" or error.code not in FAILURE_CLAUSES:
        return ()
    return (FAILURE_CLAUSES[error.code],)


def _final_because(run: Run, step: Step, state: StepState, signalled: bool) -> tuple[str, ...]:
    """Why a failed step is not retried: the clause of the guard that held.

    W6W-FIELD-24 (and A-41): the error's classification; W6W-FIELD-20:
    "maxAttempts … Total attempts including the first" ran out; W6W-HOST-3
    when the abort signal stopped the retries (A-165's "stop").  A step
    without a policy: W6W-RETRY-10, "An absent or null retry … means no
    retry — one attempt" (W6W-FIELD-12: "Defaults to no retry"); a control
    or call: W6W-EDGE-8, "Two step kinds run no retry loop at all".  An
    engine that retries where the model fails the step broke this clause,
    which the explanation cites first (oracle/explain.py: what the model
    does here leads; a stranger's engine retrying a step without a policy
    was told W6W-EDGE-5).
    """
    if not step.runs_retry_loop:
        return ("W6W-EDGE-8",)
    if step.retry is None:
        return ("W6W-RETRY-10", "W6W-FIELD-12")
    if state.attempt >= step.retry.max_attempts:
        return ("W6W-FIELD-20",)
    if _retries_stopped(run, signalled) and will_retry(run, step, state):
        return ("W6W-HOST-3", "W6W-FAN-9")
    return ("W6W-FIELD-24", "W6W-FIELD-23")


# -- wait: the run suspends and resumes (A-55) -------------------------------------


def suspend_run(run: Run, c: Config) -> list[Transition[Config]]:
    """The drained run suspends: status queued, one resume token.

    W6W-FAN-10: "A suspension returns one token — that of the first suspended
    step by plan order".  W6W-RUNERR-6: "A queued run (a wait suspend) … [is]
    not [a failure]: neither is retried and neither reads the policy."  A
    failure in the same drain wins (assumption A-55).
    """
    if c.status != "running" or c.failure is not None or _in_flight(c) or not _suspended(c):
        return []
    first = next(i for i, s in enumerate(c.steps) if s.stage == "suspended")
    step_id = run.plan[first]
    token = f"{run.scenario.run_id}/{step_id}/{c.suspensions + 1}"
    return [
        Transition(
            _event(c, "run_suspended", status="queued", step=step_id, resumeToken=token),
            "suspend_run",
            ("W6W-FAN-10", "W6W-RUNERR-6"),
            evolve(c, status="queued", suspension=(step_id, token)),
        )
    ]


def resume_run(run: Run, c: Config) -> list[Transition[Config]]:
    """The host resumes a suspended run with its token, as the scenario scripts.

    The first suspended wait succeeds with the resumption's output; W6W-FAN-10:
    "other waits re-run after resume" (they start over).  Without a scripted
    resumption the run stays suspended: a terminal configuration.
    """
    if c.status != "queued" or c.suspension is None:
        return []
    if c.suspensions >= len(run.scenario.resumes):
        return []
    resumption = run.scenario.resumes[c.suspensions]
    step_id, token = c.suspension
    waiting = run.position[step_id]
    steps = run.layout.steps(
        (
            evolve(s, status="succeeded", output=resumption.output, finished_at=c.clock, stage=None)
            if k == waiting
            else StepState()
            if s.stage == "suspended"
            else s
        )
        for k, s in enumerate(c.steps)
    )
    activated, skipped = _route(run, step_id, When.SUCCESS, c)
    return [
        Transition(
            _event(
                c,
                "run_resumed",
                status="running",
                resumeToken=token,
                step=step_id,
                output=resumption.output,
            ),
            "resume_run",
            ("W6W-FAN-10",),
            evolve(
                c,
                status="running",
                steps=steps,
                activated=activated,
                skipped=skipped,
                suspension=None,
                suspensions=c.suspensions + 1,
                waiting=0,
            ),
        )
    ]


# -- crash and resume (W6W-CONCEPT-3, W6W-HOST-2) ----------------------------------


def crash_and_resume(run: Run, c: Config) -> list[Transition[Config]]:
    """The host crashes after a checkpoint; the run resumes from its durable state.

    W6W-CONCEPT-3: "If the engine crashes mid-run, the host reads the RunState
    back and resumes from the first non-terminal step."  W6W-HOST-2 /
    W6W-CONF-3: the state read back is the last checkpoint's.  A step that was
    running starts over (assumption A-46).  W6W-RUNERR-8 / W6W-RUNERR-12: the
    resumed execution never runs the authored retry ladder.
    """
    if not c.crash_due:
        return []
    resume = next((i for i, s in enumerate(c.steps) if s.status not in TERMINAL), None)
    # a running step starts over from attempt 1, or under the other reading
    # (``Options.resumed_attempt`` "kept") at the attempt its checkpoint holds.
    kept = run.options.resumed_attempt == "kept"
    steps = run.layout.steps(
        (StepState(attempt=s.attempt) if kept else StepState()) if s.status == "running" else s
        for s in c.steps
    )
    return [
        Transition(
            _event(
                c,
                "crashed",
                afterCheckpoint=c.checkpoints,
                resumeAt=(run.plan[resume] if resume is not None else None),
            ),
            "crash_and_resume",
            ("W6W-CONCEPT-3", "W6W-HOST-2", "W6W-CONF-3", "W6W-RUNERR-8", "W6W-RUNERR-12"),
            evolve(c, crash_due=False, resumed=True, steps=steps, waiting=0),
        )
    ]


# -- cancellation (W6W-HOST-3) -----------------------------------------------------


def signal_polled(run: Run, c: Config) -> bool:
    """Whether the abort signal decides how the drained run ends (``abort_run``).

    W6W-HOST-3: "the engine polls between steps and aborts cleanly on
    signal".  A signal that fires once the run-level handler has acted
    (``run_continued``, ``run_rerouted``) finds no step left to poll between:
    the model still polls it as the run finalizes (A-164 (a)); under A-164's
    other reading (``Options.handler_abort`` "resolved") the run ends as the
    handler left it.
    """
    if not c.signalled:
        return False
    return run.options.handler_abort == "canceled" or not (c.handled or c.rerouted)


def abort_run(run: Run, c: Config) -> list[Transition[Config]]:
    """Abort a signalled run once nothing is in flight: status canceled, no further step.

    W6W-HOST-3: "When provided, the engine polls between steps and aborts
    cleanly on signal."  RunState.status includes "canceled".  W6W-RUNERR-6:
    "a canceled run [is] not [a failure]: neither is retried and neither
    reads the policy."  W6W-FAN-9: an abort drains — in-flight steps finish
    first (``W6wRun.strand_transitions`` launches nothing once the signal fired).
    """
    if not (signal_polled(run, c) and c.status == "running") or _in_flight(c):
        return []
    return [
        Transition(
            _event(c, "run_finished", status="canceled"),
            "abort_run",
            ("W6W-HOST-3", "W6W-RUNERR-6", "W6W-FAN-9"),
            evolve(c, status="canceled"),
        )
    ]


# -- the run-level handler and the run end (Amendment 2026-08-21) ------------------


def _failed_and_unhandled(c: Config) -> bool:
    return c.status == "running" and c.failure is not None and not _in_flight(c)


def retry_run(run: Run, c: Config) -> list[Transition[Config]]:
    """Re-run the whole graph from the top after the run-level backoff.

    W6W-RUNERR-2: "retry re-runs the whole graph, from the top, up to
    maxAttempts total, with the same backoff Step.retry uses. It is not a
    resume: steps that already SUCCEEDED on the previous attempt run again."
    W6W-RUNERR-11: the seed (the bound variables) is resolved once for the
    whole ladder.  W6W-RUNERR-10: each attempt is one run-level "running"
    transition.  W6W-RETRY-9: the wait is capped at 300000 ms.
    """
    policy = run.workflow.retry
    if not _failed_and_unhandled(c) or policy is None or c.run_attempt >= policy.max_attempts:
        return []
    if c.resumed:
        return []  # W6W-RUNERR-12: "Never run the authored ladder on a resumed execution."
    wait = _policy_wait(policy, c.run_attempt)
    restarted = evolve(
        c,
        clock=c.clock + wait,
        steps=run.layout.steps(StepState() for _ in run.plan),
        activated=run.layout.edges(),
        skipped=run.layout.edges(),
        failure=None,
        errors=(),  # assumption A-45: each attempt starts with no stepErrors
        waiting=0,
        run_attempt=c.run_attempt + 1,
    )
    return [
        Transition(
            _event(c, "run_restarted", status="running", attempt=c.run_attempt + 1, waitMs=wait),
            "retry_run",
            ("W6W-RUNERR-2", "W6W-RUNERR-10", "W6W-RUNERR-11", "W6W-RETRY-9"),
            restarted,
        )
    ]


def reroute_run(run: Run, c: Config) -> list[Transition[Config]]:
    """Dispatch the reroute target once, after retry is exhausted.

    W6W-RUNERR-3: "reroute is consulted after retry is exhausted, dispatched
    exactly once … Its with resolves against { inputs, error, trigger } …
    The target's output becomes the run's output."  W6W-RUNERR-5: a handled
    run succeeds and "appends the original failure to RunState.stepErrors".
    W6W-RUNERR-14: "Leave the run failed, and propagate, when the reroute
    target itself fails" (the target's error becomes the run's, A-45).
    """
    if not _failed_and_unhandled(c) or run.workflow.reroute is None or c.rerouted:
        return []
    if retry_run(run, c):
        return []
    assert c.failure is not None
    step_id, original = c.failure
    reroute = run.workflow.reroute
    with_value = reroute.get("with", {}) if isinstance(reroute, dict) else {}
    scope = {"inputs": c.variables, "error": original.to_json(), "trigger": run.scenario.trigger}
    try:
        resolved = resolve_with(
            with_value,
            scope,
            readings=run.resolution,
        )
        result = run.scenario.reroute
    except ResolutionError as failure:
        resolved = None
        result = Result(error=StepError.raised(failure.code, failure.message, "resolution"))
    outcome_fields: dict[str, JSON]
    if result.error is not None:
        after = evolve(c, rerouted=True, failure=(REROUTE, result.error))
        outcome_fields = {"error": result.error.to_json()}
    else:
        after = evolve(
            c,
            rerouted=True,
            failure=None,
            handled=True,
            handled_output=result.output,
            errors=(*c.errors, (step_id, original)),
        )
        outcome_fields = {"output": result.output}
    return [
        Transition(
            _event(c, "run_rerouted", input=resolved, **outcome_fields),
            "reroute_run",
            ("W6W-RUNERR-3", "W6W-RUNERR-5", "W6W-RUNERR-14"),
            after,
        )
    ]


def continue_run(run: Run, c: Config) -> list[Transition[Config]]:
    """Resolve the failed run with a null output: the run-level onError "continue".

    W6W-RUNERR-4: "onError is consulted last. "fail" (and absent) leaves the
    run failed. "continue" resolves the run with a null output."  Never after
    a reroute, whose failure is final (W6W-RUNERR-14).
    """
    if not _failed_and_unhandled(c) or run.workflow.on_error.value != "continue":
        return []
    if c.rerouted or run.workflow.reroute is not None or retry_run(run, c):
        return []
    assert c.failure is not None
    return [
        Transition(
            _event(c, "run_continued", error=c.failure[1].to_json()),
            "continue_run",
            ("W6W-RUNERR-4", "W6W-RUNERR-5", "W6W-RUNERR-13"),
            evolve(
                c, failure=None, handled=True, handled_output=None, errors=(*c.errors, c.failure)
            ),
        )
    ]


def _ladder_left(run: Run, c: Config) -> bool:
    return any(rule(run, c) for rule in (retry_run, reroute_run, continue_run))


def finish_run(run: Run, c: Config) -> list[Transition[Config]]:
    """End the run once no step is left to start, or a failure nothing handles ended it.

    W6W-EDGE-12: "A run ends failed only when a failure reaches a step that
    declares neither an error edge nor a continuing onError"; otherwise it
    ends succeeded, its output the output of the last succeeded step by plan
    order (W6W-FAN-10's lastOutput, assumption A-43), or the handler's.
    Draining: once a failure is set no step is launched, and the run ends
    only when no step is in flight (W6W-FAN-9).  W6W-RUNERR-1 /
    W6W-RUNERR-9: with no handler fields a failing run is driven once and
    ends failed.  When more than one step failed, the error reported is the
    one W6W-FAN-10 chooses ("The reported error is the first failure by plan
    order"), cited first.
    """
    if c.status != "running" or _in_flight(c):
        return []
    if c.failure is None and not c.handled and any(s.status not in TERMINAL for s in c.steps):
        return []
    if c.failure is not None:
        if _ladder_left(run, c):
            return []
        step_id, error = c.failure
        chosen = ("W6W-FAN-10",) if sum(s.status == "failed" for s in c.steps) > 1 else ()
        return [
            Transition(
                _event(c, "run_finished", status="failed", error=error.to_json(), step=step_id),
                "finish_run",
                (*chosen, "W6W-EDGE-12", "W6W-FAN-9", "W6W-RUNERR-1", "W6W-RUNERR-9"),
                evolve(c, status="failed"),
            )
        ]
    output = c.handled_output if c.handled else last_output(run, c)
    # A resumed run the handler had resolved finishes from the state read back
    # (W6W-CONCEPT-3: "the host reads the RunState back and resumes"): it does not act
    # again, which a stranger's engine did (its run_continued sent twice, session 22).
    read_back = ("W6W-CONCEPT-3", "W6W-CONF-3") if c.resumed and c.handled else ()
    return [
        Transition(
            _event(c, "run_finished", status="succeeded", output=output),
            "finish_run",
            (*read_back, "W6W-EDGE-12", "W6W-FAN-10", "W6W-RUNERR-13"),
            evolve(c, status="succeeded"),
        )
    ]


# -- the rule table ----------------------------------------------------------------


class Where(Enum):
    """Where the run is: the row of ``RUN_TABLE`` whose run-level rules may fire."""

    CRASH_DUE = auto()  # right after a scripted crash's checkpoint
    QUEUED = auto()
    SUSPENDED = auto()  # queued with a resume token
    ENDED = auto()
    STRANDS = auto()  # running: the strands move (``W6wRun.strand_transitions``)
    SIGNALLED = auto()  # no strand can move, and the abort signal fired
    DRAINED = auto()  # no strand can move (W6W-FAN-9)

    # A member is its own key: Enum's __hash__, hash(name) in Python, cost a call per
    # state where rows are looked up by it (issue 16).  No set of these is iterated.
    __hash__ = object.__hash__


class Due(Enum):
    """What a strand's step is due for: the row of ``STEP_TABLE`` whose rules may fire."""

    LAUNCH = auto()  # the strand's earliest ready pending step
    INVOKE = auto()  # running, an attempt is due
    DECIDE = auto()  # running, an attempt failed
    SUSPENDED = auto()  # a wait awaiting the run's resumption

    __hash__ = object.__hash__  # as Where's


# A running step's ``stage`` → what it is due for.
STAGES = {"invoke": Due.INVOKE, "decide": Due.DECIDE, "suspended": Due.SUSPENDED}

RUN_TABLE: dict[Where, tuple[RunRule, ...]] = {
    Where.CRASH_DUE: (crash_and_resume,),
    Where.QUEUED: (reject_missing_variable, reject_mistyped_variable, start_run),
    Where.SUSPENDED: (resume_run,),
    Where.ENDED: (),
    # The abort signal is polled between steps and wins (W6W-HOST-3).
    Where.SIGNALLED: (abort_run,),
    Where.DRAINED: (suspend_run, retry_run, reroute_run, continue_run, finish_run),
}

STEP_TABLE: dict[Due, tuple[StepRule, ...]] = {
    Due.LAUNCH: (skip_step, replay_step, start_step),
    Due.INVOKE: (suspend_step, complete, invoke),
    Due.DECIDE: (retry_step, fail_step),
    Due.SUSPENDED: (),
}


def may_fire(run: Run, rule: StepRule, i: int) -> bool:
    """Whether ``rule`` can ever fire for plan position ``i`` of ``run`` (speed only).

    A static part of the rule's own guard, read from the document, the plan
    and the replay, which never change during a run: the rules check it
    again, so this only spares the calls that would return nothing
    (``W6wRun.rules_at``).  tests/w6w/test_fast.py checks, on generated
    runs, that no rule left out of a row fires.
    """
    step_id = run.plan[i]
    step = run.by_id[step_id]
    if rule is skip_step:
        return bool(run.inbound[step_id])
    if rule is replay_step:
        return _reused(run, step_id)
    if rule is start_step:
        return not _reused(run, step_id)
    if rule is suspend_step:
        return _is_wait(step)
    if rule is complete:
        return not _is_wait(step) and (step.is_control or step.is_call)
    if rule is invoke:
        return not _is_wait(step)
    return True


START_RULES: tuple[RunRule, ...] = RUN_TABLE[Where.QUEUED]
RUN_RULES: tuple[RunRule, ...] = RUN_TABLE[Where.DRAINED]
LAUNCH_RULES = frozenset(rule.__name__ for rule in STEP_TABLE[Due.LAUNCH])
