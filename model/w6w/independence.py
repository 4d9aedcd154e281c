"""Which strand interleavings commute: the w6w explorer's partial-order reduction.

Notation: ``t`` is a transition of strand ``a`` on plan position ``i``; ``j``
ranges over the positions not yet terminal on the other strands — everything
those strands may still do.  ``t`` *conflicts* with ``j`` when one can change
what the other does or reads:

1. ``t`` completes ``i`` (succeeded, failed, skipped, replayed) and ``j``,
   still to be launched, reads ``steps.i`` in its with block, or ``i`` has a
   successor on ``j``'s strand earlier in plan order than ``j`` (it would
   become that strand's next step instead of ``j``, W6W-FAN-5);
2. ``t`` launches ``i`` and ``j`` may complete: ``i`` reads ``steps.j``, or
   ``j`` has a successor on ``a`` earlier than ``i``;
3. the drain: ``t`` is a final failure routed "fail" (W6W-FAN-9: "stops
   launching new steps") and ``j`` is still to be launched, or ``t``
   launches and ``j`` may fail that way;
4. the record: both add failures to RunState.stepErrors, whose order is
   completion order (a continue-record failure, or a control or call whose
   sub-block records one);
5. a control's attempt reads the scope like a launch does: its sub-block
   resolves against the run scope when the attempt is made (controls.py);
   and a wait's suspension drains the run like a plain fail.

Two transitions on different strands that do not conflict commute, up to the
virtual clock: the run's failure is the first by plan order whatever the
completion order (W6W-FAN-10), invocation counters are per step, and edge
sets are unions.  The clock differs (a retry wait advances it) but no rule
reads it — it only stamps events and StepExecution times — so the outcome,
which holds no time, is the same.

Reduction (persistent sets of size one, Godefroid 1996, ch. 4): at a
configuration with several enabled transitions, if some ``t`` conflicts
with no ``j`` of any other strand, every transition the other strands could
take before ``t`` is independent of it, so exploring ``t`` alone reaches
every terminal outcome; otherwise all enabled transitions are explored.  The
state graph is acyclic (every transition advances a step, a checkpoint
counter or the run's attempt), so the ignoring problem does not arise.  A
scenario with scripted crashes or a cancellation point numbers checkpoints
in interleaving order and makes every transition dependent: the reduction
is then off.

What a with block reads is over-approximated from its text: each occurrence
of ``steps`` must be followed by ``.<step id>``; anything else (a JSONLogic
``$expr``, an ``expr`` envelope part, an empty path, a computed reference)
reads every step.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

import attrs

from wforacle.model.kernel.explore import Exploration, canonical, explore
from wforacle.model.kernel.lts import Transition
from wforacle.model.w6w.config import TERMINAL, Config, Launch, config_key
from wforacle.model.w6w.run import Run, routing
from wforacle.model.w6w.runstate import outcome

COMPLETIONS = frozenset({"step_succeeded", "step_failed", "step_skipped", "step_replayed"})
LAUNCHES = frozenset({"start_step", "skip_step", "replay_step"})
# Text in a with block that can fail resolution (ResolutionError's codes):
# secrets, render references, JSONLogic.
_MAY_FAIL_TO_RESOLVE = ("secret", "{{", "expr", "render")
# A render part reads what its content names, and the content is data (a document,
# a step's output): it may read any step.
_READS_EVERYTHING = ('"$expr"', '"kind":"expr"', '"kind":"render"', '"$":""', '"ref":""')
_STEP_REF = re.compile(r"steps(.?)")


@attrs.frozen
class Footprint:
    """What one step may read and do, fixed by the document and the scenario."""

    reads: frozenset[int] | None  # plan positions whose scope entry it reads; None: all
    stops: bool  # it may fail finally with routing "fail" (the drain)
    records: bool  # it may fail finally with routing "continue-record"


def footprints(run: Run) -> tuple[Footprint, ...]:
    """The footprint of every plan position."""
    found = []
    for step_id in run.plan:
        step = run.by_id[step_id]
        text = canonical(step.with_)
        reads = _reads(run, text)
        script = run.scenario.script(step_id)
        results = script.attempts or (run.scenario.default,)
        may_fail = any(r.error is not None for r in results) or any(
            marker in text for marker in _MAY_FAIL_TO_RESOLVE
        )
        if run.replay is not None and step_id in run.replay.outputs:
            may_fail = may_fail and step_id in run.replay.fresh
        route = routing(run, step)
        composite = step.is_control or step.is_call  # a sub-block or child run inside
        wait = step.is_control and step.uses is not None and step.uses.action == "wait"
        may_fail = may_fail or composite
        found.append(
            Footprint(
                reads,
                # a wait's suspension drains the run as a plain fail does (W6W-FAN-9)
                (may_fail and route == "fail") or wait,
                may_fail and (route == "continue-record" or composite),
            )
        )
    return tuple(found)


def _reads(run: Run, text: str) -> frozenset[int] | None:
    if any(marker in text for marker in _READS_EVERYTHING):
        return None
    read: set[int] = set()
    for match in _STEP_REF.finditer(text):
        if match.group(1) != ".":
            return None
        rest = text[match.end() :]
        step_id = re.match(r"[^.\"\s\[\]{}|]+", rest)
        if step_id is None or step_id.group(0) not in run.position:
            return None
        read.add(run.position[step_id.group(0)])
    return frozenset(read)


class Reduction:
    """Persistent-set reduction for one run (see the module notation)."""

    name = "persistent-sets"

    def __init__(self, run: Run) -> None:
        self.run = run
        # The eager launch reading (A-74) makes a launch disable other strands'
        # completions for a moment: the independence argument does not cover it.
        self.active = not (
            run.scenario.crashes
            or run.scenario.cancel_after is not None
            or run.launch is not Launch.SEPARATE
            # A-41's other reading: a retry resolves the with block again, reading the scope.
            or run.options.resolution_retry
        )

    # What ``conflict`` reads of the run, derived when a configuration first offers
    # transitions of two strands (a run on one strand never does).

    @functools.cached_property
    def footprints(self) -> tuple[Footprint, ...]:
        """The footprint of every plan position."""
        return footprints(self.run)

    @functools.cached_property
    def composite(self) -> frozenset[int]:
        """The positions of control steps."""
        return frozenset(
            i for i, step_id in enumerate(self.run.plan) if self.run.by_id[step_id].is_control
        )

    @functools.cached_property
    def earliest_successor(self) -> tuple[dict[int, int], ...]:
        """Per position ``i`` and strand ``k``: ``i``'s earliest successor on ``k``, if any."""
        return tuple(_earliest_by_strand(self.run, i) for i in range(len(self.run.plan)))

    def ample(
        self, c: Config, enabled: Sequence[Transition[Config]]
    ) -> Sequence[Transition[Config]]:
        """A subset of ``enabled`` that reaches every terminal outcome ``enabled`` does."""
        if len(enabled) < 2 or not self.active:
            return enabled
        open_steps = [j for j, s in enumerate(c.steps) if s.status not in TERMINAL]
        # A strand's transitions exclude each other (a control's alternative
        # endings), so a persistent set takes a strand's transitions together.
        groups: dict[int, list[Transition[Config]]] = {}
        for t in enabled:
            i = self.run.position.get(t.event.get("step", ""), None)
            if i is None:
                return enabled  # a run-level transition: never co-enabled, but be safe
            groups.setdefault(self.run.strand[i], []).append(t)
        if len(groups) < 2:
            return enabled
        for strand, group in groups.items():
            if not any(
                self.conflict(c, t, self.run.position[t.event["step"]], j)
                for t in group
                for j in open_steps
                if self.run.strand[j] != strand
            ):
                return group
        return enabled

    def conflict(self, c: Config, t: Transition[Config], i: int, j: int) -> bool:
        """Whether ``t`` (on position ``i``) and anything position ``j`` may still do conflict."""
        fp_i, fp_j = self.footprints[i], self.footprints[j]
        strand = self.run.strand
        j_to_launch = c.steps[j].status == "pending"
        # A control's sub-block reads the scope when its attempt is made, too.
        j_reads_later = j_to_launch or (j in self.composite and c.steps[j].stage == "invoke")
        event = t.event["event"]
        if event in COMPLETIONS:
            if j_reads_later and (fp_j.reads is None or i in fp_j.reads):
                return True
            if j_to_launch and self.earliest_successor[i].get(strand[j], len(strand)) < j:
                return True
        reads_now = t.rule == "start_step" or (t.rule == "complete" and i in self.composite)
        if reads_now and (fp_i.reads is None or j in fp_i.reads):
            return True
        records = (event == "step_failed" and t.event["routing"] == "continue-record") or (
            t.rule == "complete"  # a sub-block's continue-record failures join stepErrors
        )
        if records and fp_j.records:
            return True
        if t.rule in LAUNCHES:
            if self.earliest_successor[j].get(strand[i], len(strand)) < i:
                return True
            if fp_j.stops and c.failure is None:
                return True
        if event == "step_suspended" and c.failure is None and j_to_launch:
            return True
        return event == "step_failed" and (
            t.event["routing"] == "fail" and c.failure is None and j_to_launch
        )


def _earliest_by_strand(run: Run, i: int) -> dict[int, int]:
    found: dict[int, int] = {}
    for z in run.successors[i]:
        k = run.strand[z]
        found[k] = min(found.get(k, z), z)
    return found


def explore_run(run: Run, max_states: int = 1_000_000, reduce: bool = True) -> Exploration[Config]:
    """Every distinct terminal outcome of ``run``, with the reduction unless ``reduce`` is off."""
    reduction = Reduction(run) if reduce else None
    return explore(
        run,
        lambda c: outcome(run, c),
        config_key,
        max_states,
        ample=reduction.ample if reduction is not None and reduction.active else None,
        reduction=reduction.name if reduction is not None and reduction.active else "none",
    )
