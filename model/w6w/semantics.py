"""Small-step operational semantics of a w6w run: the public entry.

A run is an initial configuration and ``enabled(c)`` (model/kernel/lts.py).
The module family:

- config.py — the configuration records (``Config``, ``StepState``) and their
  notation, ``config_key``, ``Replay``, ``Launch``;
- run.py — the run's fixed parts: plan, graph, strands (``assign_strands``),
  the run scope;
- rules.py — one pure function per transition rule, in the RFC's order, and
  the tables ``RUN_TABLE`` / ``STEP_TABLE`` that say where each may fire;
- controls.py — the canonical controls and @w6w/call (big-step sub-runs);
- meta.py — step metadata; runstate.py — the RunState output and the outcome;
- independence.py — which interleavings commute (the explorer's reduction);
- fast.py — speed only: ``evolve`` and the key renderers.

``W6wRun.enabled`` only dispatches: it finds where the run and each strand
are, and offers what the rules of that row of the table permit.  A strand
offers one transition — its running step continues, or its earliest ready
pending step launches — and the run-level rules fire once no strand can
move.  A plan without a parallel step has one strand, so exactly one
transition is enabled at every point (W6W-FAN-4: "the plan's order, one step
at a time") and a sequential run has one outcome.  With strands, the
interleavings are the nondeterminism.

Modelled: run start (and refusal), plan order, strands, resolution, retry
and backoff, onError and error edges, skipping, terminal status, draining,
the run-level handler, replay, checkpoints with crash and resume, step
metadata, cancellation between steps, the canonical controls, wait
suspension and resumption, and @w6w/call (model/w6w/controls.py).  An
extension control, or a wait inside a sub-block, is refused with
``Unsupported``.
"""

from __future__ import annotations

import functools
from typing import Any

import attrs

from wforacle.model.kernel.lts import Event, Transition

# Re-exported as well as used: this module is the public entry of the family.
from wforacle.model.w6w.config import KEPT_STEPS
from wforacle.model.w6w.config import TERMINAL as TERMINAL
from wforacle.model.w6w.config import Config as Config
from wforacle.model.w6w.config import EdgeKey as EdgeKey
from wforacle.model.w6w.config import Launch as Launch
from wforacle.model.w6w.config import Options as Options
from wforacle.model.w6w.config import Replay as Replay
from wforacle.model.w6w.config import StepState as StepState
from wforacle.model.w6w.config import Unsupported as Unsupported
from wforacle.model.w6w.config import config_key as config_key
from wforacle.model.w6w.config import descendants as descendants
from wforacle.model.w6w.controls import CONTROLS, in_branch_order
from wforacle.model.w6w.document import Workflow
from wforacle.model.w6w.fast import amend
from wforacle.model.w6w.fast import evolve as evolve
from wforacle.model.w6w.meta import META_CAP as META_CAP
from wforacle.model.w6w.meta import attempt_meta as attempt_meta
from wforacle.model.w6w.meta import normalise_meta as normalise_meta
from wforacle.model.w6w.rules import LAUNCH_RULES as LAUNCH_RULES
from wforacle.model.w6w.rules import RUN_BOUNDARY as RUN_BOUNDARY
from wforacle.model.w6w.rules import RUN_RULES as RUN_RULES
from wforacle.model.w6w.rules import RUN_TABLE as RUN_TABLE
from wforacle.model.w6w.rules import STAGES as STAGES
from wforacle.model.w6w.rules import START_RULES as START_RULES
from wforacle.model.w6w.rules import STEP_TABLE as STEP_TABLE
from wforacle.model.w6w.rules import VARIABLE_TYPES as VARIABLE_TYPES
from wforacle.model.w6w.rules import WAIT_CEILING_MS as WAIT_CEILING_MS
from wforacle.model.w6w.rules import Due as Due
from wforacle.model.w6w.rules import Rule as Rule
from wforacle.model.w6w.rules import StepRule as StepRule
from wforacle.model.w6w.rules import Where as Where
from wforacle.model.w6w.rules import abort_run as abort_run
from wforacle.model.w6w.rules import bind_variables as bind_variables
from wforacle.model.w6w.rules import complete as complete
from wforacle.model.w6w.rules import continue_run as continue_run
from wforacle.model.w6w.rules import crash_and_resume as crash_and_resume
from wforacle.model.w6w.rules import fail_step as fail_step
from wforacle.model.w6w.rules import finish_run as finish_run
from wforacle.model.w6w.rules import invoke as invoke
from wforacle.model.w6w.rules import is_retryable as is_retryable
from wforacle.model.w6w.rules import may_fire as may_fire
from wforacle.model.w6w.rules import mistyped_variable as mistyped_variable
from wforacle.model.w6w.rules import reject_missing_variable as reject_missing_variable
from wforacle.model.w6w.rules import reject_mistyped_variable as reject_mistyped_variable
from wforacle.model.w6w.rules import replay_step as replay_step
from wforacle.model.w6w.rules import reroute_run as reroute_run
from wforacle.model.w6w.rules import resume_run as resume_run
from wforacle.model.w6w.rules import retry_run as retry_run
from wforacle.model.w6w.rules import retry_step as retry_step
from wforacle.model.w6w.rules import signal_polled as signal_polled
from wforacle.model.w6w.rules import skip_step as skip_step
from wforacle.model.w6w.rules import start_run as start_run
from wforacle.model.w6w.rules import start_step as start_step
from wforacle.model.w6w.rules import suspend_run as suspend_run
from wforacle.model.w6w.rules import suspend_step as suspend_step
from wforacle.model.w6w.rules import will_retry as will_retry
from wforacle.model.w6w.run import Run as Run
from wforacle.model.w6w.run import Validate as Validate
from wforacle.model.w6w.run import assign_strands as assign_strands
from wforacle.model.w6w.run import routing as routing
from wforacle.model.w6w.runstate import last_output as last_output
from wforacle.model.w6w.runstate import outcome as outcome
from wforacle.model.w6w.runstate import run_state as run_state

JSON = Any


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


class W6wRun(Run):
    """The semantics of one run of ``workflow`` under ``scenario``."""

    def refuse(self, workflow: Workflow, outer: dict[str, JSON] | None) -> None:
        """Refuse what the semantics does not model.

        An extension control, and a wait inside a control's sub-block
        (``outer`` is set for a sub-block's run).
        """
        for step in workflow.steps:
            action = step.uses.action if step.uses else None
            if step.is_control and action not in CONTROLS:
                raise Unsupported(
                    f"step {step.id!r} uses @w6w/control action {action!r}; the canonical "
                    f"controls are {', '.join(sorted(CONTROLS))} (extension controls are a "
                    "future RFC)"
                )
            if outer is not None and step.is_control and action == "wait":
                raise Unsupported(
                    f"step {step.id!r}: a wait inside a control's sub-block is not modelled "
                    "(assumption A-55)"
                )

    @functools.cached_property
    def serialized(self) -> tuple[str, ...]:
        """What a checkpoint cites: W6W-STATE-2, and W6W-FAN-8 where strands run together.

        W6W-FAN-8: "Checkpoints are serialized: one call in flight at a time,
        in completion order".
        """
        return ("W6W-STATE-2", "W6W-FAN-8") if self.parallel else ("W6W-STATE-2",)

    def initial(self) -> Config:
        """A queued run with every step pending (a sub-block's: already running)."""
        invocations = self.layout.counts(self.start_invocations or (0 for _ in self.plan))
        steps = self.layout.steps(StepState() for _ in self.plan)
        edges = self.layout.edges()
        if self.outer is not None:
            return Config(
                status="running",
                steps=steps,
                invocations=invocations,
                sub_invocations=self.start_counts,
                variables=self.outer.get("vars"),
                activated=edges,
                skipped=edges,
            )
        return Config(
            steps=steps,
            invocations=invocations,
            sub_invocations=self.start_counts,
            activated=edges,
            skipped=edges,
        )

    def canonical(self, event: JSON) -> JSON:
        """An engine's event in the form the checker compares (oracle/check.py).

        A parallel control's sub-block events in branch order (A-160,
        controls.branch_order): the order in which the engine interleaved its
        branches is its own, as it is for the main graph's strands.
        """
        if not isinstance(event, dict) or "inner" not in event:
            return event
        return in_branch_order(self.every_step, event)

    def enabled(self, config: Config) -> list[Transition[Config]]:
        """Every transition permitted from ``config``, checkpoints numbered.

        Strand transitions first, one per strand (W6W-FAN-5: "A strand runs one
        step at a time"); the run-level rules only once no strand can move —
        the run has drained (W6W-FAN-9: "lets in-flight steps finish, then
        finalizes").  Right after a scripted crash's checkpoint, the crash is
        all that can happen.
        """
        where = _where(config)
        if where is not Where.STRANDS:
            found = [t for rule in RUN_TABLE[where] for t in rule(self, config)]
        else:
            launching = _launching(config)
            found = []
            for k in range(len(self.strands)):
                found += self.strand_transitions(config, k, launching)
            if self.launch is Launch.EAGER:
                # A-74 "eager": what can launch launches before any attempt ends.
                found = [t for t in found if t.rule in LAUNCH_RULES] or found
            if not found:
                where = Where.SIGNALLED if signal_polled(self, config) else Where.DRAINED
                found = [t for rule in RUN_TABLE[where] for t in rule(self, config)]
        for k, t in enumerate(found):  # the list is this call's own: numbered in place
            found[k] = self._checkpointed(config, t)
        return found

    def enabled_for(self, config: Config, event: Event) -> list[Transition[Config]]:
        """The transitions of ``enabled(config)`` that an observed ``event`` can be, in order.

        Speed only (oracle/check.py): every strand transition names a step of
        its own strand, so an event about a step can only be a transition of
        that step's strand.  When the strands move and that one can, its
        transitions are all that is computed: the other strands' cannot
        match, and the run-level rules wait until no strand can move.
        Otherwise — no step named, the eager reading (A-74: another strand's
        launch would hide this strand's transitions), a strand that cannot
        move — every transition.  tests/w6w/test_fast.py checks, on
        generated runs, that the transitions that match are the same.
        """
        step = event.get("step")
        position = self.position.get(step) if isinstance(step, str) else None
        if position is None or self.launch is not Launch.SEPARATE:
            return self.enabled(config)
        if _where(config) is not Where.STRANDS:
            return self.enabled(config)
        found = self.strand_transitions(config, self.strand[position], _launching(config))
        if not found:
            return self.enabled(config)
        for k, t in enumerate(found):  # in place: a comprehension is a call more (issue 16)
            found[k] = self._checkpointed(config, t)
        return found

    def strand_transitions(
        self, c: Config, strand: int, launching: bool
    ) -> list[Transition[Config]]:
        """The transitions strand ``strand`` may take from ``c``.

        One, or none — except that a control or call step's attempt may end in
        several ways (its sub-block's own interleavings, controls.py).

        W6W-FAN-5: "always the earliest-in-plan-order step that is ready and
        assigned to it".  A running step continues (the rules of its stage);
        otherwise the strand launches its earliest ready pending step, unless
        the run is draining (W6W-FAN-9: "stops launching new steps" — on a
        plain fail, a wait suspension or an abort) or was handled:
        ``launching`` says.
        """
        steps = c.steps
        if not isinstance(steps, KEPT_STEPS):
            # steps_of's case, tested here: its call cost 2% of a checked event (issue 16).
            steps = self.steps_of(c)
        running = steps.running[strand]
        if running:
            i = running[0]  # the earliest in plan order
            stage = steps[i].stage
            assert stage is not None  # a running step is always at a stage
            rules = self.rules_at(STAGES[stage], i)
        else:
            if not launching:
                return []
            members = self.strands[strand]
            # The members before ``lead`` have ended (config.Steps); the rest, not running, wait.
            for rank in range(steps.lead[strand], len(members)):
                i = members[rank]
                if steps[i].status not in TERMINAL and self.ready(c, i):
                    break
            else:
                return []
            rules = self.rules_at(Due.LAUNCH, i)
        found: list[Transition[Config]] = []
        for rule in rules:  # a loop, not a nested comprehension: one call fewer (issue 16)
            found += rule(self, c, i)
        return found

    def rules_at(self, due: Due, i: int) -> tuple[StepRule, ...]:
        """The rules of ``STEP_TABLE[due]`` that may fire for position ``i`` (``may_fire``)."""
        rows = self.rows.get(due)
        if rows is None:
            rows = self.rows[due] = [None] * len(self.plan)
        row = rows[i]
        if row is None:
            row = rows[i] = tuple(r for r in STEP_TABLE[due] if may_fire(self, r, i))
        return row  # type: ignore[no-any-return]

    def _checkpointed(self, c: Config, t: Transition[Config]) -> Transition[Config]:
        """Number the checkpoint a transition writes, and schedule a scripted crash.

        W6W-STATE-2: "The engine writes a checkpoint … after every observable
        transition (status change, step start, step end, retry attempt)."
        W6W-FAN-8: "Checkpoints are serialized: one call in flight at a time,
        in completion order" — the interleaving's order numbers them.
        """
        if t.event["event"] not in CHECKPOINTED or self.outer is not None:
            # A sub-block's events are persisted with its control's step end, unnumbered
            # its run writes no checkpoint of its own.
            return t
        number = c.checkpoints + 1
        target = t.target
        crash_due = number in self.scenario.crashes and target.status == "running"
        signalled = target.signalled or number == self.scenario.cancel_after
        # Only the fields that change: a configuration's key follows the changed ones.
        changes = {"checkpoints": number}
        if crash_due != target.crash_due:
            changes["crash_due"] = crash_due
        if signalled != target.signalled:
            changes["signalled"] = signalled
        if target is c:
            target = evolve(c, **changes)  # a rule that changed nothing: c is not the rule's
        else:
            # The rule built its target and event for this transition alone: the number
            # is written into them, not into copies (fast.amend).
            amend(target, changes)
        t.event["checkpoint"] = number
        if target is t.target:
            # The rule's transition is its own as its event is: the clauses are added in
            # place, sparing a second Transition per state (issue 16).
            object.__setattr__(t, "clauses", t.clauses + self.serialized)
            return t
        clauses = (*t.clauses, *self.serialized)
        if type(t) is Transition:
            return Transition(t.event, t.rule, clauses, target)
        return attrs.evolve(t, clauses=clauses, target=target)  # a Nesting keeps its nested


def _launching(c: Config) -> bool:
    """Whether the strands may launch steps: the run is neither draining nor handled."""
    return (
        c.failure is None
        and not c.signalled
        and not c.handled
        and c.waiting == 0  # no wait suspension drains the run
    )


def _where(c: Config) -> Where:
    """Where the run is: the row of ``RUN_TABLE`` to consult, or the strands."""
    if c.crash_due:
        return Where.CRASH_DUE
    if c.status == "queued":
        return Where.SUSPENDED if c.suspension else Where.QUEUED
    return Where.STRANDS if c.status == "running" else Where.ENDED
