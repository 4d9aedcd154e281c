"""Small-step operational semantics of a w6w run: plans, strands and the run-level handler.

Notation (RFC "Execution model", "Run state", Amendments 2026-07-29, -08-21,
-10-07, -10-12):

    c = (status, clock, steps, activated, skipped, failure, errors, …)

``status`` is the run's (queued → running → succeeded | failed | canceled;
a run refused at its start goes from queued to failed, A-72).  ``steps``
holds one StepState per plan position ``P`` (W6W-PLAN-7); a running step's
``stage`` is ``invoke`` (an attempt is due) or ``decide`` (an attempt
failed with ``pending``: retry or finish).
``activated`` and ``skipped`` hold edge keys ``(from, to, when)``
(W6W-EDGE-11: "The engine keys a skipped edge by (from, to, when)").
``failure`` is the StepError that ends the run (the first by plan order,
W6W-FAN-10); ``errors`` is RunState.stepErrors.  The remaining fields serve
the run-level handler (``run_attempt``, ``rerouted``, ``handled``), the
scenario's invocation counters, checkpoints and crashes (``checkpoints``,
``crash_due``, ``resumed``) and cancellation (``signalled``).

Strands (W6W-FAN-5..7) are a function of the graph (``assign_strands``), so
they are not part of ``c``.  ``enabled(c)`` offers one transition per strand
— the strand's running step continues, or its earliest ready pending step
launches — and the run-level rules once no strand can move.  Each rule is a
pure function returning the one transition it permits, or None.  A plan
without a parallel step has one strand, so exactly one transition is enabled
at every point (W6W-FAN-4: "the plan's order, one step at a time") and a
sequential run has one outcome.  With strands, the interleavings are the
nondeterminism; ``model/w6w/independence.py`` says which of them commute.

Modelled: run start (and refusal), plan order, strands, resolution, retry
and backoff, onError and error edges, skipping, terminal status, draining,
the run-level handler, replay, checkpoints with crash and resume, step
metadata, cancellation between steps, the canonical controls, wait
suspension and resumption, and @w6w/call (model/w6w/controls.py).  An
extension control, or a wait inside a sub-block, is refused with
``Unsupported``.

Virtual time: an attempt takes no time; a retry wait advances the clock by
the computed wait (model/kernel/time.py).  No rule reads the clock: it only
stamps events and StepExecution times.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any, TypeVar

import attrs

from wforacle.model.kernel.explore import canonical
from wforacle.model.kernel.lts import Transition
from wforacle.model.kernel.time import iso
from wforacle.model.w6w import controls
from wforacle.model.w6w.controls import CONTROLS
from wforacle.model.w6w.document import (
    Backoff,
    Edge,
    RetryPolicy,
    Step,
    When,
    Workflow,
)
from wforacle.model.w6w.resolve import ResolutionError, resolve_recorded, resolve_with
from wforacle.model.w6w.scenario import Result, Scenario, StepError

JSON = Any
_T = TypeVar("_T")
EdgeKey = tuple[str, str, str]
WAIT_CEILING_MS = 300_000  # W6W-RETRY-9: "cap every computed wait at 300000 ms"


@attrs.frozen
class StepState:
    """One StepExecution (RFC "StepExecution") as the run sees it."""

    status: str = "pending"  # pending | running | succeeded | failed | skipped
    attempt: int = 0
    input: JSON = attrs.field(default=None, eq=False)
    output: JSON = attrs.field(default=None, eq=False)
    error: StepError | None = None
    started_at: int | None = None
    finished_at: int | None = None
    meta: JSON = attrs.field(default=None, eq=False)  # a normalised StepMeta, or None
    # While running: "invoke" (an attempt is due), "decide" (it failed), or
    # "suspended" (a wait step awaiting its resumption, not in flight).
    stage: str | None = None
    pending: StepError | None = None  # the failed attempt's error, awaiting the decision
    # A control's or call's sub-block records (controls.Ending.records), or None.
    inner: JSON = attrs.field(default=None, eq=False)
    # The input the action receives when it differs from the recorded ``input``:
    # it holds a secret's plaintext, which is never recorded; else None.
    plaintext: JSON = attrs.field(default=None, eq=False)

    @property
    def invoked(self) -> JSON:
        """The input the action is invoked with (plaintext secrets included)."""
        return self.input if self.plaintext is None else self.plaintext

    @functools.cached_property
    def key(self) -> str:
        """Canonical text of every field (computed once: a StepState never changes).

        Every attrs field, each by its renderer (see ``config_key``): JSON values
        memoised per object, errors cached, scalars by ``repr``.
        """
        return "(" + "\x1e".join([r(getattr(self, n)) for n, r in _STEP_RENDERERS]) + ")"


@attrs.frozen
class Config:
    """A configuration of one run (see the module notation)."""

    status: str = "queued"
    clock: int = 0
    steps: tuple[StepState, ...] = ()
    variables: JSON = attrs.field(default=None, eq=False)
    activated: frozenset[EdgeKey] = frozenset()
    skipped: frozenset[EdgeKey] = frozenset()
    failure: tuple[str, StepError] | None = None
    errors: tuple[tuple[str, StepError], ...] = ()
    rejection: JSON = attrs.field(default=None, eq=False)
    invocations: tuple[int, ...] = ()  # per plan position, across the whole run
    run_attempt: int = 1
    rerouted: bool = False
    handled: bool = False  # the run-level handler resolved the failure
    handled_output: JSON = attrs.field(default=None, eq=False)
    checkpoints: int = 0  # checkpoints written so far (W6W-STATE-2)
    crash_due: bool = False  # the host crashes right after the last checkpoint
    resumed: bool = False  # this execution resumed a crashed one
    signalled: bool = False  # the host's abort signal has fired (W6W-HOST-3)
    sub_invocations: tuple[tuple[str, int], ...] = ()  # sub-block steps' invocations, by id
    suspensions: int = 0  # wait suspensions so far (each resumed one counts)
    waiting: int = 0  # steps suspended now (kept so that draining is known in O(1))
    suspension: tuple[str, str] | None = None  # a suspended run's (step id, resume token)


@attrs.frozen
class Replay:
    """What a replay reuses: the recorded outputs of the original run's succeeded steps.

    RFC "Replay": "for each step that succeeded in the original run, it uses
    the recorded StepExecution.output verbatim. Steps that were pending or
    failed run fresh."  ``fresh`` holds the steps replayed "from" (W6W-FAN-11:
    "from replays that step plus all its graph descendants").
    """

    outputs: dict[str, JSON] = attrs.field(eq=False)
    fresh: frozenset[str] = frozenset()
    metas: dict[str, JSON] = attrs.field(factory=dict, eq=False)

    @classmethod
    def of(cls, run_state: JSON, workflow: Workflow, start: str | None = None) -> Replay:
        """The replay of a recorded RunState, optionally from step ``start``."""
        records = run_state.get("steps", {}) if isinstance(run_state, dict) else {}
        outputs = {
            step_id: record.get("output")
            for step_id, record in records.items()
            if isinstance(record, dict) and record.get("status") == "succeeded"
        }
        metas = {
            step_id: records[step_id]["meta"]
            for step_id in outputs
            if isinstance(records[step_id].get("meta"), dict)
        }
        fresh: frozenset[str] = frozenset()
        if start is not None:
            fresh = frozenset({start} | descendants(workflow, start))
        return cls(outputs, fresh, metas)


def descendants(workflow: Workflow, step_id: str) -> set[str]:
    """Every step reachable from ``step_id`` along edges of either lane.

    Without edges the graph is the implicit chain: RFC Workflow.edges "When
    absent, the engine treats steps as a linear chain in declared order"
    (W6W-PLAN-2: "If edges is empty or absent → the plan is steps in declared
    order (implicit linear chain)"), so a step's descendants are the steps
    declared after it.  With edges, only the edges count (finding F-12).
    """
    successors: dict[str, list[str]] = {}
    if not workflow.edges:
        ids = [step.id for step in workflow.steps]
        successors = {a: [b] for a, b in itertools.pairwise(ids)}
    for edge in workflow.edges:
        successors.setdefault(edge.from_, []).append(edge.to)
    seen: set[str] = set()
    frontier = [step_id]
    while frontier:
        for successor in successors.get(frontier.pop(), []):
            if successor not in seen:
                seen.add(successor)
                frontier.append(successor)
    return seen


class Launch(StrEnum):
    """When a strand launches its next step (assumption A-74; W6W-FAN-5, W6W-FAN-9).

    ``separate``: a launch is a transition of its own, so another strand's
    completion — a failure that starts the drain — may come between a step's
    end and its strand's next launch.  ``eager``: every launch a completion
    makes possible happens before any other step's attempt ends (an engine
    that launches from its completion handler).  Every ``eager`` trace is a
    ``separate`` trace, so the default judges both kinds of engine; select
    ``eager`` to hold an engine to it (as ``TieBreak`` selects a plan).
    """

    SEPARATE = "separate"
    EAGER = "eager"


LAUNCH_RULES = frozenset({"start_step", "skip_step", "replay_step"})


class Unsupported(Exception):
    """The document uses something this semantics does not model yet."""


TERMINAL = frozenset({"succeeded", "failed", "skipped"})


class W6wRun:
    """The semantics of one run of ``workflow`` under ``scenario``."""

    def __init__(
        self,
        workflow: Workflow,
        plan: Sequence[str],
        scenario: Scenario,
        replay: Replay | None = None,
        *,
        outer: dict[str, JSON] | None = None,
        separate_roots: bool = False,
        start_invocations: Sequence[int] | None = None,
        depth: int = 0,
        launch: Launch = Launch.SEPARATE,
    ) -> None:
        """The run of ``workflow`` in ``plan`` order under ``scenario``.

        The keyword arguments make the run of a control's sub-block
        (model/w6w/controls.py): ``outer`` is the enclosing run scope it reads
        (with any extra root, such as ``foreach``), ``separate_roots`` puts each
        root on a strand of its own (parallel branches), ``start_invocations``
        continues the scenario's per-step invocation counts; ``depth`` is the
        @w6w/call depth of this run; ``launch`` the reading of A-74.
        """
        for step in workflow.steps:
            if step.is_control and (step.uses.action if step.uses else None) not in CONTROLS:
                raise Unsupported(
                    f"step {step.id!r} uses @w6w/control action "
                    f"{step.uses.action if step.uses else None!r}; the canonical controls are "
                    f"{', '.join(sorted(CONTROLS))} (extension controls are a future RFC)"
                )
            if outer is not None and step.is_control and step.uses and step.uses.action == "wait":
                raise Unsupported(
                    f"step {step.id!r}: a wait inside a control's sub-block is not modelled "
                    "(assumption A-55)"
                )
        self.workflow = workflow
        self.outer = outer
        self.separate_roots = separate_roots
        self.start_invocations = tuple(start_invocations or ())
        self.depth = depth
        self.launch = launch
        self.replay = replay
        self.plan = list(plan)
        self.scenario = scenario
        self.by_id = {step.id: step for step in workflow.steps}
        self.position = {step_id: i for i, step_id in enumerate(self.plan)}
        self.inbound: dict[str, list[Edge]] = {step_id: [] for step_id in self.plan}
        self.outbound: dict[str, list[Edge]] = {step_id: [] for step_id in self.plan}
        for edge in workflow.edges:
            self.inbound[edge.to].append(edge)
            self.outbound[edge.from_].append(edge)
        # Per plan position: the distinct sources of the inbound edges (by position).
        self.sources: tuple[tuple[int, ...], ...] = tuple(
            tuple(sorted({self.position[e.from_] for e in self.inbound[step_id]}))
            for step_id in self.plan
        )
        self.successors: tuple[tuple[int, ...], ...] = tuple(
            tuple(sorted({self.position[e.to] for e in self.outbound[step_id]}))
            for step_id in self.plan
        )
        self.parallel = any(s.fan_out.value == "parallel" for s in workflow.steps)
        self.strand = assign_strands(self)
        members: dict[int, list[int]] = {}
        for i, k in enumerate(self.strand):
            members.setdefault(k, []).append(i)
        self.strands: tuple[tuple[int, ...], ...] = tuple(
            tuple(members[k]) for k in sorted(members)
        )

    def initial(self) -> Config:
        """A queued run with every step pending (a sub-block's: already running)."""
        invocations = self.start_invocations or tuple(0 for _ in self.plan)
        steps = tuple(StepState() for _ in self.plan)
        if self.outer is not None:
            return Config(
                status="running",
                steps=steps,
                invocations=invocations,
                variables=self.outer.get("vars"),
            )
        return Config(steps=steps, invocations=invocations)

    def enabled(self, config: Config) -> list[Transition[Config]]:
        """Every transition permitted from ``config``, checkpoints numbered.

        Strand transitions first, one per strand (W6W-FAN-5: "A strand runs one
        step at a time"); the run-level rules only once no strand can move —
        the run has drained (W6W-FAN-9: "lets in-flight steps finish, then
        finalizes").  Right after a scripted crash's checkpoint, the crash is
        all that can happen.
        """
        found: list[Transition[Config] | None]
        if config.crash_due:
            found = [crash_and_resume(self, config)]
        elif config.status == "queued":
            if config.suspension:
                found = [resume_run(self, config)]
            else:
                found = [rule(self, config) for rule in START_RULES]
        elif config.status != "running":
            found = []
        else:
            launching = (
                config.failure is None
                and not config.signalled
                and not config.handled
                and not _suspended(config)
            )
            strands = range(len(self.strands))
            found = [t for k in strands for t in self.strand_transitions(config, k, launching)]
            if self.launch is Launch.EAGER:
                # A-74 "eager": what can launch launches before any attempt ends.
                found = [t for t in found if t is not None and t.rule in LAUNCH_RULES] or found
            if not found:
                # The abort signal is polled between steps (W6W-HOST-3) and wins.
                rules: tuple[Rule, ...] = (abort_run,) if config.signalled else RUN_RULES
                found = [rule(self, config) for rule in rules]
        return [self._checkpointed(config, t) for t in found if t is not None]

    def strand_transitions(
        self, c: Config, strand: int, launching: bool
    ) -> list[Transition[Config]]:
        """The transitions strand ``strand`` may take from ``c``.

        One, or none — except that a control or call step's attempt may end in
        several ways (its sub-block's own interleavings, controls.py).

        W6W-FAN-5: "always the earliest-in-plan-order step that is ready and
        assigned to it".  A running step continues its attempts; otherwise the
        strand launches its earliest ready pending step, unless the run is
        draining (W6W-FAN-9: "stops launching new steps" — on a plain fail, a
        wait suspension or an abort) or was handled: ``launching`` says.
        """
        candidate = None
        steps = c.steps
        for i in self.strands[strand]:
            state = steps[i]
            status = state.status
            if status in TERMINAL:
                continue
            if status == "running":
                if state.stage == "suspended":
                    return []  # awaits the run's resumption
                if state.stage == "invoke":
                    return invoke_all(self, c, i)
                return _one(retry_step(self, c, i) or fail_step(self, c, i))
            if launching and candidate is None and self.ready(c, i):
                candidate = i
        if candidate is None:
            return []
        return _one(
            skip_step(self, c, candidate)
            or replay_step(self, c, candidate)
            or start_step(self, c, candidate)
        )

    def ready(self, c: Config, i: int) -> bool:
        """Whether every inbound edge of position ``i`` is resolved.

        W6W-FAN-5: "ready when every inbound edge is resolved (its source
        reached a terminal status, or the edge was skipped)".
        """
        return all(c.steps[j].status in TERMINAL for j in self.sources[i])

    def _checkpointed(self, c: Config, t: Transition[Config]) -> Transition[Config]:
        """Number the checkpoint a transition writes, and schedule a scripted crash.

        W6W-STATE-2: "The engine writes a checkpoint … after every observable
        transition (status change, step start, step end, retry attempt)."
        W6W-FAN-8: "Checkpoints are serialized: one call in flight at a time,
        in completion order" — the interleaving's order numbers them.
        """
        if t.event["event"] not in CHECKPOINTED:
            return t
        number = c.checkpoints + 1
        target = evolve(
            t.target,
            checkpoints=number,
            crash_due=number in self.scenario.crashes and t.target.status == "running",
            signalled=t.target.signalled or number == self.scenario.cancel_after,
        )
        return Transition(
            {**t.event, "checkpoint": number}, t.rule, (*t.clauses, "W6W-STATE-2"), target
        )

    # -- helpers ---------------------------------------------------------------

    def scope(self, config: Config) -> dict[str, JSON]:
        """The run scope a step's with block resolves against (RFC "RunScope").

        ``steps`` holds the outputs of succeeded steps only: "A $ binding to an
        absent, skipped or failed upstream path resolves to null" (W6W-BIND-4).
        """
        steps = {
            # W6W-META-13: "A succeeded app step publishes meta beside output";
            # W6W-META-2: the entry is { output; meta? }.
            step_id: {"output": state.output}
            | ({"meta": state.meta} if state.meta is not None else {})
            for step_id, state in zip(self.plan, config.steps, strict=True)
            if state.status == "succeeded"
        }
        if self.outer is not None:
            # A sub-block reads the enclosing scope and its own steps (W6W-META-20:
            # "publishes meta into its inner scope exactly as it publishes output").
            return {**self.outer, "steps": {**self.outer.get("steps", {}), **steps}}
        return {
            "vars": config.variables,
            "steps": steps,
            "trigger": self.scenario.trigger,
            "secrets": self.scenario.secrets,
            "documents": self.scenario.documents,
        }


def _one(transition: Transition[Config] | None) -> list[Transition[Config]]:
    return [] if transition is None else [transition]


def assign_strands(run: W6wRun) -> tuple[int, ...]:
    """The strand of every plan position (W6W-FAN-5, W6W-FAN-6, W6W-FAN-7).

    "One strand runs the roots" (strand 0).  "When a parallel step completes,
    its newly-ready direct successors, in plan order, S1…Sk: S1 continues the
    strand, S2…Sk each open a new strand. The newly-ready successors of a
    sequential step stay on its strand."  "A step with indegree > 1 runs once,
    on the strand of its earliest-plan-order inbound source."

    The assignment depends on the graph alone: a step with one source becomes
    ready exactly when that source completes, and a join's strand is fixed by
    its earliest source — so it is computed once, in plan order (the plan is a
    topological order, so every source is placed first).  Indegree counts
    distinct sources, and the S1…Sk of FAN-6 are the single-source successors
    (assumption A-50).  Strands are numbered in the order they open.
    """
    strand: list[int] = [0] * len(run.plan)
    opened = 0
    for i, step_id in enumerate(run.plan):
        sources = run.sources[i]
        if not sources and run.separate_roots and i > 0:
            opened += 1  # a parallel control's branches: one strand each
            strand[i] = opened
        elif len(sources) > 1:
            strand[i] = strand[sources[0]]
        followers = [j for j in run.successors[i] if len(run.sources[j]) == 1]
        parallel = run.by_id[step_id].fan_out.value == "parallel"
        for n, j in enumerate(followers):
            if parallel and n > 0:
                opened += 1
                strand[j] = opened
            else:
                strand[j] = strand[i]
    return tuple(strand)


# Events whose transition writes a checkpoint (W6W-STATE-2): status changes, step
# start, step end, retry attempt.  A failed attempt is persisted by the retry or
# the step end that follows it.
CHECKPOINTED = frozenset(
    {
        "run_started",
        "run_restarted",
        "run_rerouted",
        "run_continued",
        "run_finished",
        "step_started",
        "step_succeeded",
        "step_failed",
        "step_skipped",
        "step_replayed",
        "retry_scheduled",
        "step_suspended",
        "run_suspended",
        "run_resumed",
    }
)


META_CAP = 256  # W6W-META-11: "A string of exactly 256 characters is kept; 257 is over the cap."


def normalise_meta(report: JSON) -> dict[str, JSON] | None:
    """The StepMeta an onExecuted report yields, or None when it is discarded.

    W6W-META-9: "A StepMeta has exactly these four keys; an engine drops
    anything else it receives."  W6W-META-11: "a missing or non-string
    connectionId becomes null; a report lacking a string app, version or
    action is discarded … A report whose app, version or action is not a
    string of at most 256 characters is likewise discarded; a connectionId
    that is not a string of at most 256 characters becomes null."
    """
    if not isinstance(report, dict):
        return None
    fields: dict[str, JSON] = {}
    for name in ("app", "version", "action"):
        value = report.get(name)
        if not isinstance(value, str) or len(value) > META_CAP:
            return None
        fields[name] = value
    connection = report.get("connectionId")
    ok = isinstance(connection, str) and len(connection) <= META_CAP
    fields["connectionId"] = connection if ok else None
    return fields


def attempt_meta(step: Step, result: Result) -> dict[str, JSON] | None:
    """The meta an attempt records: its FIRST report, normalised (W6W-META-12, W6W-META-22).

    "If it calls more than once, the engine keeps the FIRST report … even
    when the first report is discarded by the normalisation above."  Taken
    only from onExecuted, never from the output (W6W-META-8).  @w6w/* steps
    carry none (W6W-META-15).
    """
    if not result.meta or (step.uses and (step.uses.app or "").startswith("@w6w/")):
        return None
    return normalise_meta(result.meta[0])


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def evolve(instance: _T, **changes: Any) -> _T:
    """``attrs.evolve`` for the positional-init classes here, at a quarter of its cost."""
    cls = type(instance)
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in attrs.fields(cls))  # type: ignore[arg-type]
    return cls(*[changes[n] if n in changes else getattr(instance, n) for n in names])


def _replace(config: Config, index: int, state: StepState) -> tuple[StepState, ...]:
    return (*config.steps[:index], state, *config.steps[index + 1 :])


def _event(config: Config, name: str, **fields: JSON) -> dict[str, JSON]:
    return {"event": name, "at": config.clock, **fields}


# -- run start -------------------------------------------------------------------


def bind_variables(run: W6wRun) -> tuple[dict[str, JSON], str | None]:
    """The run's variables: supplied values, then defaults; and a missing required key.

    W6W-FIELD-19: a default is "Used when the caller doesn't supply a value"
    (a required variable with a default is satisfied by it, assumption A-42).
    """
    supplied = run.scenario.variables
    bound: dict[str, JSON] = dict(supplied)
    missing = None
    for variable in run.workflow.variables:
        if variable.key in supplied:
            continue
        if variable.has_default:
            bound[variable.key] = variable.default
        elif variable.required and missing is None:
            missing = variable.key
    return bound, missing


VARIABLE_TYPES: dict[str, Callable[[JSON], bool]] = {
    "string": lambda v: isinstance(v, str),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}


def mistyped_variable(run: W6wRun, bound: dict[str, JSON]) -> tuple[str, str] | None:
    """The first bound variable whose value is not of its declared type: (key, type)."""
    for variable in run.workflow.variables:
        check = VARIABLE_TYPES.get(variable.type or "")
        if check is not None and variable.key in bound and not check(bound[variable.key]):
            return variable.key, variable.type or ""
    return None


def _rejected(
    c: Config, variable: str, error: StepError, clause: str, rule: str
) -> Transition[Config]:
    """The transition of a run refused at its start: a failed run that never ran (A-72)."""
    rejection = {"status": "failed", "variable": variable, "error": error.to_json()}
    return Transition(
        _event(c, "run_rejected", **rejection),
        rule,
        (clause,),
        evolve(c, status="failed", failure=(RUN_BOUNDARY, error), rejection=rejection),
    )


RUN_BOUNDARY = "(run)"  # the failure's "step" when the run is refused at its start


def reject_missing_variable(run: W6wRun, c: Config) -> Transition[Config] | None:
    """Refuse a run a required variable of which has no value.

    W6W-FIELD-18: "If true and no value provided at run start, the run is
    rejected."  The refused run is failed, with a resolution-phase error
    ``missing_variable``, no step and no handler read (assumption A-72).
    """
    if c.status != "queued":
        return None
    _, missing = bind_variables(run)
    if missing is None:
        return None
    error = StepError(
        "missing_variable", f"required variable {missing!r} has no value", "resolution"
    )
    return _rejected(c, missing, error, "W6W-FIELD-18", "reject_missing_variable")


def reject_mistyped_variable(run: W6wRun, c: Config) -> Transition[Config] | None:
    """Refuse a run a variable of which is not of its declared type — a host that validates.

    W6W-FIELD-17: the type is "Advisory; hosts SHOULD validate at
    trigger/run boundary."  A SHOULD: a host may also start the run
    (``start_run``), so both are permitted (assumption A-73).
    """
    if c.status != "queued":
        return None
    bound, missing = bind_variables(run)
    mistyped = mistyped_variable(run, bound)
    if missing is not None or mistyped is None:
        return None
    key, declared = mistyped
    error = StepError(
        "variable_type_mismatch",
        f"variable {key!r} is declared {declared} and was given {_json_type(bound[key])}",
        "resolution",
    )
    return _rejected(c, key, error, "W6W-FIELD-17", "reject_mistyped_variable")


def _json_type(value: JSON) -> str:
    if value is None:
        return "null"
    for name, check in VARIABLE_TYPES.items():
        if check(value):
            return name
    return type(value).__name__


def start_run(run: W6wRun, c: Config) -> Transition[Config] | None:
    """Start a queued run with its variables bound.

    W6W-FIELD-18: not when a required variable has no value (then
    ``reject_missing_variable``).  W6W-FIELD-19: defaults fill what the
    caller did not supply.  A value of another type than declared does not
    stop a host that treats the type as advisory (W6W-FIELD-17, A-73).
    """
    if c.status != "queued":
        return None
    bound, missing = bind_variables(run)
    if missing is not None:
        return None
    replaying = {"replay": True} if run.replay is not None else {}
    return Transition(
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


START_RULES: tuple[Rule, ...] = (reject_missing_variable, reject_mistyped_variable, start_run)


# -- crash and resume ----------------------------------------------------------------


def crash_and_resume(run: W6wRun, c: Config) -> Transition[Config] | None:
    """The host crashes after a checkpoint; the run resumes from its durable state.

    W6W-CONCEPT-3: "If the engine crashes mid-run, the host reads the RunState
    back and resumes from the first non-terminal step."  W6W-HOST-2 /
    W6W-CONF-3: the state read back is the last checkpoint's.  A step that was
    running starts over (assumption A-46).  W6W-RUNERR-8 / W6W-RUNERR-12: the
    resumed execution never runs the authored retry ladder.
    """
    if not c.crash_due:
        return None
    resume = next((i for i, s in enumerate(c.steps) if s.status not in TERMINAL), None)
    steps = tuple(StepState() if s.status == "running" else s for s in c.steps)
    return Transition(
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


# -- cancellation --------------------------------------------------------------------


def _in_flight(c: Config) -> bool:
    return any(s.status == "running" and s.stage != "suspended" for s in c.steps)


def _suspended(c: Config) -> bool:
    return c.waiting > 0


def abort_run(run: W6wRun, c: Config) -> Transition[Config] | None:
    """Abort a signalled run once nothing is in flight: status canceled, no further step.

    W6W-HOST-3: "When provided, the engine polls between steps and aborts
    cleanly on signal."  RunState.status includes "canceled".  W6W-RUNERR-6:
    "a canceled run [is] not [a failure]: neither is retried and neither
    reads the policy."  W6W-FAN-9: an abort drains — in-flight steps finish
    first (``strand_transition`` launches nothing once the signal fired).
    """
    if not (c.signalled and c.status == "running") or _in_flight(c):
        return None
    return Transition(
        _event(c, "run_finished", status="canceled"),
        "abort_run",
        ("W6W-HOST-3", "W6W-RUNERR-6", "W6W-FAN-9"),
        evolve(c, status="canceled"),
    )


# -- launching a step -------------------------------------------------------------
#
# ``strand_transition`` picks the step (W6W-FAN-5); these rules decide what
# launching it means.  Each returns None when its case does not apply.


def _all_inbound_skipped(run: W6wRun, c: Config, step_id: str) -> bool:
    inbound = run.inbound[step_id]
    return bool(inbound) and all(_key(e) in c.skipped for e in inbound)


def skip_step(run: W6wRun, c: Config, i: int) -> Transition[Config] | None:
    """Skip a step every inbound edge of which was skipped, and skip its outgoing edges.

    W6W-EDGE-4: "A step reachable only through skipped edges is recorded
    status: "skipped""; W6W-EDGE-11: "a step is skipped only when every
    inbound edge is skipped".
    """
    step_id = run.plan[i]
    if c.steps[i].status != "pending" or not _all_inbound_skipped(run, c, step_id):
        return None
    skipped = c.skipped | {_key(e) for e in run.outbound[step_id]}
    return Transition(
        _event(c, "step_skipped", step=step_id),
        "skip_step",
        ("W6W-EDGE-4", "W6W-EDGE-11"),
        evolve(
            c,
            steps=_replace(c, i, evolve(c.steps[i], status="skipped")),
            skipped=skipped,
        ),
    )


def _reused(run: W6wRun, step_id: str) -> bool:
    return (
        run.replay is not None and step_id in run.replay.outputs and step_id not in run.replay.fresh
    )


def replay_step(run: W6wRun, c: Config, i: int) -> Transition[Config] | None:
    """Reuse a step's recorded output verbatim: no resolution, no invocation.

    RFC "Replay" (W6W-REPLAY-1, W6W-REPLAY-2): "Replay re-executes a completed
    or failed run without re-invoking actions … it uses the recorded
    StepExecution.output verbatim."  W6W-CONCEPT-4, W6W-CONF-5.
    """
    step_id, state = run.plan[i], c.steps[i]
    if state.status != "pending" or _all_inbound_skipped(run, c, step_id):
        return None
    if not _reused(run, step_id):
        return None
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
    return Transition(
        _event(c, "step_replayed", step=step_id, output=output),
        "replay_step",
        ("W6W-REPLAY-1", "W6W-REPLAY-2", "W6W-CONCEPT-4", "W6W-CONF-5"),
        evolve(c, steps=_replace(c, i, replayed), activated=activated, skipped=skipped),
    )


def start_step(run: W6wRun, c: Config, i: int) -> Transition[Config] | None:
    """Start a step: resolve its with block and make its first attempt due.

    W6W-FAN-4: "the plan's order, one step at a time" (one strand; with
    strands, W6W-FAN-5).  The with block resolves against the scope as it is
    now; a resolution failure is the attempt's failure with phase
    "resolution" (assumption A-41).
    """
    step_id, state = run.plan[i], c.steps[i]
    if state.status != "pending" or _all_inbound_skipped(run, c, step_id):
        return None  # skip_step's case
    if _reused(run, step_id):
        return None  # replay_step's case
    pending: StepError | None = None
    try:
        # W6W-ENV-17: the recorded input never holds a secret's plaintext.
        invoked, resolved = resolve_recorded(controls.parameters(run.by_id[step_id]), run.scope(c))
    except ResolutionError as failure:
        invoked = resolved = None
        pending = StepError(failure.code, failure.message, "resolution", False)
    started = evolve(
        state,
        status="running",
        attempt=1,
        input=resolved,
        plaintext=None if invoked is resolved else invoked,
        started_at=c.clock,
        stage="decide" if pending else "invoke",
        pending=pending,
    )
    return Transition(
        _event(c, "step_started", step=step_id, attempt=1, input=resolved),
        "start_step",
        ("W6W-FAN-4", "W6W-FAN-5", "W6W-PLAN-7", "W6W-STATE-4", "W6W-ENV-17"),
        evolve(c, steps=_replace(c, i, started)),
    )


# -- attempts ----------------------------------------------------------------------


def invoke_all(run: W6wRun, c: Config, i: int) -> list[Transition[Config]]:
    """Every way the due attempt of position ``i`` can end.

    An app step's attempt is the scenario's answer (``invoke``); a wait
    suspends (``suspend_step``); a control's or a called workflow's attempt
    runs its sub-block or child run to the end, and ends once for each
    distinct way that can end (controls.py: ``complete``).
    """
    step = run.by_id[run.plan[i]]
    if c.steps[i].status != "running" or c.steps[i].stage != "invoke":
        return []
    if step.is_control and step.uses is not None and step.uses.action == "wait":
        return _one(suspend_step(run, c, i))
    if step.is_control or step.is_call:
        endings = controls.endings(run, c, i)
        if endings is not None:
            return [complete(run, c, i, ending) for ending in endings]
    return _one(invoke(run, c, i))


def invoke(run: W6wRun, c: Config, i: int) -> Transition[Config] | None:
    """Make the due attempt: the scenario answers with an output or a StepError."""
    step_id, state = run.plan[i], c.steps[i]
    if state.status != "running" or state.stage != "invoke":
        return None
    invocation = c.invocations[i] + 1
    invocations = (*c.invocations[:i], invocation, *c.invocations[i + 1 :])
    result: Result = run.scenario.script(step_id).result(invocation, run.scenario.default)
    return _attempt_ended(run, c, i, result, evolve(c, invocations=invocations), {})


def complete(run: W6wRun, c: Config, i: int, ending: controls.Ending) -> Transition[Config]:
    """End a control's or a call's attempt one of the ways it can end (controls.py).

    W6W-EDGE-8: these steps "run no retry loop", so a failure goes straight
    to the decision, where ``retry_step`` never applies.  The sub-block's
    events travel inside the step's event; its continue-record failures join
    RunState.stepErrors (assumption A-53).
    """
    base = evolve(
        c,
        clock=ending.clock,
        sub_invocations=ending.sub_invocations,
        errors=(*c.errors, *ending.errors),
    )
    base = evolve(base, steps=_replace(c, i, evolve(c.steps[i], inner=list(ending.records))))
    return _attempt_ended(run, c, i, ending.result, base, {"inner": list(ending.events)})


def _attempt_ended(
    run: W6wRun, c: Config, i: int, result: Result, base: Config, extra: dict[str, JSON]
) -> Transition[Config]:
    """The transition of an attempt that ended with ``result``, from ``base``."""
    step_id, state = run.plan[i], base.steps[i]
    step = run.by_id[step_id]
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
            "invoke",
            ("W6W-FIELD-10", "W6W-META-14", "W6W-META-16"),
            # W6W-META-14: "A failed step MAY record its last attempt's meta" — recorded;
            # each attempt's own report replaces the superseded one's (W6W-META-16).
            evolve(
                base,
                steps=_replace(
                    base,
                    i,
                    evolve(
                        state,
                        meta=attempt_meta(step, result),
                        stage="decide",
                        pending=result.error,
                    ),
                ),
            ),
        )
    meta = attempt_meta(step, result)
    finished = evolve(
        state,
        status="succeeded",
        output=result.output,
        finished_at=base.clock,
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
        "invoke",
        ("W6W-FIELD-10", "W6W-EDGE-4", "W6W-EDGE-1"),
        evolve(base, steps=_replace(base, i, finished), activated=activated, skipped=skipped),
    )


# -- wait: suspension and resumption (assumption A-55) ----------------------------


def suspend_step(run: W6wRun, c: Config, i: int) -> Transition[Config] | None:
    """A wait step suspends: it asks the host to schedule its resumption.

    RFC WorkflowContext.schedule: "Durable scheduling for wait / delay steps"
    with a directive ``{ at | afterMs, resumeToken }``.  W6W-FAN-9: a wait
    suspension drains the run.  The token names the run, the step and the
    suspension (assumption A-55).
    """
    step_id, state = run.plan[i], c.steps[i]
    if state.status != "running" or state.stage != "invoke":
        return None
    token = f"{run.scenario.run_id}/{step_id}/{c.suspensions + 1}"
    directive = state.input if isinstance(state.input, dict) else {}
    return Transition(
        _event(c, "step_suspended", step=step_id, resumeToken=token, directive=directive),
        "suspend_step",
        ("W6W-FAN-9",),
        evolve(c, steps=_replace(c, i, evolve(state, stage="suspended")), waiting=c.waiting + 1),
    )


def suspend_run(run: W6wRun, c: Config) -> Transition[Config] | None:
    """The drained run suspends: status queued, one resume token.

    W6W-FAN-10: "A suspension returns one token — that of the first suspended
    step by plan order".  W6W-RUNERR-6: "A queued run (a wait suspend) … [is]
    not [a failure]: neither is retried and neither reads the policy."  A
    failure in the same drain wins (assumption A-55).
    """
    if c.status != "running" or c.failure is not None or _in_flight(c) or not _suspended(c):
        return None
    first = next(i for i, s in enumerate(c.steps) if s.stage == "suspended")
    step_id = run.plan[first]
    token = f"{run.scenario.run_id}/{step_id}/{c.suspensions + 1}"
    return Transition(
        _event(c, "run_suspended", status="queued", step=step_id, resumeToken=token),
        "suspend_run",
        ("W6W-FAN-10", "W6W-RUNERR-6"),
        evolve(c, status="queued", suspension=(step_id, token)),
    )


def resume_run(run: W6wRun, c: Config) -> Transition[Config] | None:
    """The host resumes a suspended run with its token, as the scenario scripts.

    The first suspended wait succeeds with the resumption's output; W6W-FAN-10:
    "other waits re-run after resume" (they start over).  Without a scripted
    resumption the run stays suspended: a terminal configuration.
    """
    if c.status != "queued" or c.suspension is None:
        return None
    if c.suspensions >= len(run.scenario.resumes):
        return None
    resumption = run.scenario.resumes[c.suspensions]
    step_id, token = c.suspension
    waiting = run.position[step_id]
    steps = tuple(
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
    return Transition(
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


def is_retryable(error: StepError, idempotent: bool) -> bool:
    """The runtime's retry classification (W6W-FIELD-23, W6W-FIELD-24, W6W-CONF-4).

    "phase: "auth" errors are never retried. phase: "execute" errors are
    retried only when the action declared idempotent: true or the error
    itself sets retryable: true."  Resolution errors are never retried and
    output errors only when retryable (assumption A-41).
    """
    if error.phase in ("auth", "resolution"):
        return False
    if error.phase == "execute":
        return idempotent or error.retryable
    return error.retryable


def wait_before(step: Step, failed_attempt: int) -> int:
    """The wait before the attempt after ``failed_attempt`` (1-based), capped.

    W6W-FIELD-22: "Base delay in ms before the first retry. Defaults to 0.
    Exponential doubles each attempt."  W6W-RETRY-9: "cap every computed wait
    at 300000 ms".
    """
    assert step.retry is not None
    return _policy_wait(step.retry, failed_attempt)


def will_retry(run: W6wRun, step: Step, state: StepState) -> bool:
    """Whether the failed attempt in ``state`` is retried (the decide stage's choice)."""
    return (
        state.pending is not None
        and step.retry is not None
        and step.runs_retry_loop
        and state.attempt < step.retry.max_attempts
        and is_retryable(state.pending, run.scenario.script(step.id).idempotent)
    )


def retry_step(run: W6wRun, c: Config, i: int) -> Transition[Config] | None:
    """Retry a failed attempt the policy and the classification allow.

    W6W-FIELD-20: maxAttempts is "Total attempts including the first";
    W6W-EDGE-8: control and call steps run no retry loop.  The wait advances
    the virtual clock (model/kernel/time.py).
    """
    step_id, state = run.plan[i], c.steps[i]
    step = run.by_id[step_id]
    if state.status != "running" or state.stage != "decide" or not will_retry(run, step, state):
        return None
    wait = wait_before(step, state.attempt)
    later = evolve(c, clock=c.clock + wait)
    return Transition(
        _event(c, "retry_scheduled", step=step_id, attempt=state.attempt + 1, waitMs=wait),
        "retry_step",
        (
            "W6W-FIELD-20",
            "W6W-FIELD-22",
            "W6W-FIELD-24",
            "W6W-RETRY-9",
            "W6W-CONF-4",
            "W6W-STATE-4",
        ),
        evolve(
            later,
            # RFC StepExecution: startedAt is "When the last attempt started".
            steps=_replace(
                c,
                i,
                evolve(
                    state,
                    attempt=state.attempt + 1,
                    started_at=later.clock,
                    stage="invoke",
                    pending=None,
                ),
            ),
        ),
    )


def routing(run: W6wRun, step: Step) -> str:
    """How a finally failed step routes: "error-edge", or its onError."""
    if any(e.when is When.ERROR for e in run.outbound[step.id]):
        return "error-edge"
    return step.on_error.value


def fail_step(run: W6wRun, c: Config, i: int) -> Transition[Config] | None:
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
        return None
    if will_retry(run, step, state):
        return None
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
        clauses = ("W6W-EDGE-5", "W6W-FIELD-13")
        activated = c.activated | {_key(e) for e in run.outbound[step_id]}
        errors = (*c.errors, (step_id, error)) if route == "continue-record" else c.errors
        after = evolve(c, activated=activated, errors=errors)
    return Transition(
        _event(
            c,
            "step_failed",
            step=step_id,
            attempt=state.attempt,
            error=error.to_json(),
            routing=route,
        ),
        "fail_step",
        (*clauses, "W6W-EDGE-8"),
        evolve(after, steps=steps),
    )


def _key(edge: Edge) -> EdgeKey:
    return (edge.from_, edge.to, edge.when.value)


def _route(
    run: W6wRun, step_id: str, lane: When, c: Config
) -> tuple[frozenset[EdgeKey], frozenset[EdgeKey]]:
    """Activate the step's edges of ``lane`` and skip the others (W6W-EDGE-4)."""
    taken = {_key(e) for e in run.outbound[step_id] if e.when is lane}
    other = {_key(e) for e in run.outbound[step_id] if e.when is not lane}
    return c.activated | taken, c.skipped | other


# -- run end and the run-level handler (Amendment 2026-08-21) ------------------------


def _failed_and_unhandled(c: Config) -> bool:
    return c.status == "running" and c.failure is not None and not _in_flight(c)


def retry_run(run: W6wRun, c: Config) -> Transition[Config] | None:
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
        return None
    if c.resumed:
        return None  # W6W-RUNERR-12: "Never run the authored ladder on a resumed execution."
    wait = _policy_wait(policy, c.run_attempt)
    restarted = evolve(
        c,
        clock=c.clock + wait,
        steps=tuple(StepState() for _ in run.plan),
        activated=frozenset(),
        skipped=frozenset(),
        failure=None,
        errors=(),  # assumption A-45: each attempt starts with no stepErrors
        waiting=0,
        run_attempt=c.run_attempt + 1,
    )
    return Transition(
        _event(c, "run_restarted", status="running", attempt=c.run_attempt + 1, waitMs=wait),
        "retry_run",
        ("W6W-RUNERR-2", "W6W-RUNERR-10", "W6W-RUNERR-11", "W6W-RETRY-9"),
        restarted,
    )


def reroute_run(run: W6wRun, c: Config) -> Transition[Config] | None:
    """Dispatch the reroute target once, after retry is exhausted.

    W6W-RUNERR-3: "reroute is consulted after retry is exhausted, dispatched
    exactly once … Its with resolves against { inputs, error, trigger } …
    The target's output becomes the run's output."  W6W-RUNERR-5: a handled
    run succeeds and "appends the original failure to RunState.stepErrors".
    W6W-RUNERR-14: "Leave the run failed, and propagate, when the reroute
    target itself fails" (the target's error becomes the run's, A-45).
    """
    if not _failed_and_unhandled(c) or run.workflow.reroute is None or c.rerouted:
        return None
    if retry_run(run, c) is not None:
        return None
    assert c.failure is not None
    step_id, original = c.failure
    reroute = run.workflow.reroute
    with_value = reroute.get("with", {}) if isinstance(reroute, dict) else {}
    scope = {"inputs": c.variables, "error": original.to_json(), "trigger": run.scenario.trigger}
    try:
        resolved = resolve_with(with_value, scope)
        result = run.scenario.reroute
    except ResolutionError as failure:
        resolved = None
        result = Result(error=StepError(failure.code, failure.message, "resolution"))
    outcome_fields: dict[str, JSON]
    if result.error is not None:
        after = evolve(c, rerouted=True, failure=("(reroute)", result.error))
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
    return Transition(
        _event(c, "run_rerouted", input=resolved, **outcome_fields),
        "reroute_run",
        ("W6W-RUNERR-3", "W6W-RUNERR-5", "W6W-RUNERR-14"),
        after,
    )


def continue_run(run: W6wRun, c: Config) -> Transition[Config] | None:
    """Resolve the failed run with a null output: the run-level onError "continue".

    W6W-RUNERR-4: "onError is consulted last. "fail" (and absent) leaves the
    run failed. "continue" resolves the run with a null output."  Never after
    a reroute, whose failure is final (W6W-RUNERR-14).
    """
    if not _failed_and_unhandled(c) or run.workflow.on_error.value != "continue":
        return None
    if c.rerouted or run.workflow.reroute is not None or retry_run(run, c) is not None:
        return None
    assert c.failure is not None
    return Transition(
        _event(c, "run_continued", error=c.failure[1].to_json()),
        "continue_run",
        ("W6W-RUNERR-4", "W6W-RUNERR-5", "W6W-RUNERR-13"),
        evolve(c, failure=None, handled=True, handled_output=None, errors=(*c.errors, c.failure)),
    )


def _ladder_left(run: W6wRun, c: Config) -> bool:
    return any(rule(run, c) is not None for rule in (retry_run, reroute_run, continue_run))


def finish_run(run: W6wRun, c: Config) -> Transition[Config] | None:
    """End the run once no step is left to start, or a failure nothing handles ended it.

    W6W-EDGE-12: "A run ends failed only when a failure reaches a step that
    declares neither an error edge nor a continuing onError"; otherwise it
    ends succeeded, its output the output of the last succeeded step by plan
    order (W6W-FAN-10's lastOutput, assumption A-43), or the handler's.
    Draining: once a failure is set no step is launched, and the run ends
    only when no step is in flight (W6W-FAN-9).  W6W-RUNERR-1 /
    W6W-RUNERR-9: with no handler fields a failing run is driven once and
    ends failed.
    """
    if c.status != "running" or _in_flight(c):
        return None
    if c.failure is None and not c.handled and any(s.status not in TERMINAL for s in c.steps):
        return None
    if c.failure is not None:
        if _ladder_left(run, c):
            return None
        step_id, error = c.failure
        return Transition(
            _event(c, "run_finished", status="failed", error=error.to_json(), step=step_id),
            "finish_run",
            ("W6W-EDGE-12", "W6W-FAN-9", "W6W-RUNERR-1", "W6W-RUNERR-9"),
            evolve(c, status="failed"),
        )
    output = c.handled_output if c.handled else last_output(run, c)
    return Transition(
        _event(c, "run_finished", status="succeeded", output=output),
        "finish_run",
        ("W6W-EDGE-12", "W6W-FAN-10", "W6W-RUNERR-13"),
        evolve(c, status="succeeded"),
    )


def _policy_wait(policy: RetryPolicy, failed_attempt: int) -> int:
    """The capped backoff wait of a RetryPolicy after ``failed_attempt`` (1-based)."""
    delay = policy.delay_ms
    if policy.backoff is Backoff.EXPONENTIAL:
        exponent = failed_attempt - 1
        if exponent >= 64 or delay * 2**exponent >= WAIT_CEILING_MS:
            return WAIT_CEILING_MS if delay > 0 else 0
        delay = delay * 2**exponent
    return int(min(delay, WAIT_CEILING_MS))


def last_output(run: W6wRun, c: Config) -> JSON:
    """The output of the last succeeded step by plan order (None if none succeeded)."""
    for state in reversed(c.steps):
        if state.status == "succeeded":
            return state.output
    return None


Rule = Callable[[W6wRun, Config], Transition[Config] | None]

# The run-level rules, tried once no strand can move (``W6wRun.enabled``).
RUN_RULES: tuple[Rule, ...] = (suspend_run, retry_run, reroute_run, continue_run, finish_run)


def config_key(c: Config) -> str:
    """A canonical rendering of every field of ``c`` (for exploration).

    Derived from the attrs fields themselves, so a field added to Config can
    never be left out of the key (two configurations with equal keys are the
    same configuration).  Each field has a renderer chosen once by its
    value's type: step states contribute their cached ``key``, edge sets and
    errors a cached rendering, scalars their ``repr`` (unambiguous within a
    field), and the JSON values a canonical text memoised per object — the
    variables object, for one, is shared by every configuration of a run.
    """
    return "\x1f".join([render(getattr(c, name)) for name, render in _KEY_RENDERERS])


def _render_steps(steps: tuple[StepState, ...]) -> str:
    return "[" + ",".join([step.key for step in steps]) + "]"


_JSON_MEMO: dict[int, tuple[object, str]] = {}


def _render_json(value: JSON) -> str:
    if type(value) in _SCALARS:
        return repr(value)
    memo = _JSON_MEMO.get(id(value))
    if memo is not None and memo[0] is value:
        return memo[1]
    if len(_JSON_MEMO) > 4096:
        _JSON_MEMO.clear()
    text = canonical(_plain(value))
    _JSON_MEMO[id(value)] = (value, text)  # holding the object keeps its id unique
    return text


@functools.lru_cache(maxsize=65536)
def _render_hashable(value: Any) -> str:
    return canonical(_plain(value))


@functools.lru_cache(maxsize=65536)
def _edge_set_key(edges: frozenset[EdgeKey]) -> str:
    return ";".join(",".join(edge) for edge in sorted(edges))


_SCALARS = (str, int, float, bool, type(None))


def _plain(value: Any) -> JSON:
    if type(value) in _SCALARS:
        return value
    if type(value) is tuple and all(type(v) is int for v in value):
        return value  # e.g. invocation counters: JSON renders them as they are
    if attrs.has(type(value)):
        return {f.name: _plain(getattr(value, f.name)) for f in attrs.fields(type(value))}
    if isinstance(value, frozenset):
        return sorted(_plain(v) for v in value)
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _renderer(name: str) -> Callable[[Any], str]:
    if name == "steps":
        return _render_steps
    if name in ("activated", "skipped"):
        return _edge_set_key
    if name == "invocations":
        return repr  # a tuple of ints
    if name in ("failure", "errors"):
        return _render_hashable
    if name in ("variables", "rejection", "handled_output"):
        return _render_json
    return repr  # str, int and bool fields


_STEP_RENDERERS: tuple[tuple[str, Callable[[Any], str]], ...] = tuple(
    (
        field.name,
        _render_json
        if field.name in ("input", "output", "meta", "inner", "plaintext")
        else _render_hashable,
    )
    for field in attrs.fields(StepState)
)
_KEY_RENDERERS: tuple[tuple[str, Callable[[Any], str]], ...] = tuple(
    (field.name, _renderer(field.name)) for field in attrs.fields(Config)
)


def outcome(run: W6wRun, c: Config) -> dict[str, JSON]:
    """What explore compares: the run's status, output, error and stepErrors.

    And per step its status, attempts, input and output.  The input is what
    the action was invoked with — the run's effect on the outside world — and
    with strands it can depend on the interleaving (a with block that reads
    a step on another strand): assumption A-51.
    """
    state = run_state(run, c)
    return {
        "status": state["status"],
        "output": state.get("output"),
        "error": state.get("error"),
        "stepErrors": state.get("stepErrors", []),
        **({"suspension": state["suspension"]} if "suspension" in state else {}),
        "steps": {
            step_id: {
                "status": record["status"],
                "attempt": record["attempt"],
                "input": record.get("input"),
                "output": record.get("output"),
            }
            | ({"inner": record["inner"]} if "inner" in record else {})
            for step_id, record in state["steps"].items()
        },
    }


def run_state(run: W6wRun, c: Config) -> dict[str, JSON]:
    """The RunState of a configuration (RFC "Run state")."""
    steps = {}
    for step_id, state in zip(run.plan, c.steps, strict=True):
        if state.status == "pending":
            continue  # W6W-STATE-1: "Only completed / running / failed steps appear."
        record: dict[str, JSON] = {
            "stepId": step_id,
            "status": state.status,
            "attempt": state.attempt,
        }
        if state.status != "skipped":
            record["input"] = state.input
        if state.status == "succeeded":
            record["output"] = state.output
        if state.error is not None:
            record["error"] = state.error.to_json()
        if state.meta is not None and state.status in ("succeeded", "failed"):
            record["meta"] = state.meta  # W6W-META-1, W6W-META-17 (persisted with it)
        if state.inner is not None:
            record["inner"] = state.inner  # a control's sub-block records
        if state.started_at is not None:
            record["startedAt"] = iso(state.started_at)
        if state.finished_at is not None:
            record["finishedAt"] = iso(state.finished_at)
        steps[step_id] = record
    out: dict[str, JSON] = {
        "runId": run.scenario.run_id,
        "workflowId": run.workflow.id,
        "status": c.status,
        "variables": c.variables if c.variables is not None else {},
        "steps": steps,
    }
    if c.status == "succeeded":
        out["output"] = c.handled_output if c.handled else last_output(run, c)
    if c.failure is not None:
        out["error"] = c.failure[1].to_json()
    if c.errors:
        out["stepErrors"] = [{"stepId": s, **e.to_json()} for s, e in c.errors]
    if c.suspension is not None:
        out["suspension"] = {"stepId": c.suspension[0], "resumeToken": c.suspension[1]}
    return out
