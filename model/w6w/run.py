"""The fixed parts of a w6w run: document, plan, scenario, graph and strands.

``Run`` holds what no transition changes — the plan positions, each step's
inbound and outbound edges, the strand of every position (W6W-FAN-5..7,
``assign_strands``) — and answers the questions the rules ask of it: the
run scope a with block resolves against, whether a step is ready, how a
failed step routes.  ``W6wRun`` (semantics.py) adds the transitions.
"""

from __future__ import annotations

import abc
import functools
from collections.abc import Callable, Sequence
from typing import Any, Self

from wforacle.model.kernel.lts import Transition
from wforacle.model.w6w.config import (
    KEPT_STEPS,
    READINGS,
    TERMINAL,
    Config,
    Layout,
    Options,
    Replay,
    Steps,
)
from wforacle.model.w6w.document import Edge, Step, When, Workflow
from wforacle.model.w6w.resolve import Readings
from wforacle.model.w6w.scenario import Scenario

JSON = Any

# What a @w6w/call needs of its target's document (controls.py): the caller's
# validator — properties.w6w.validate.validate, passed in by the oracle, since
# the model does not import the layers above it.  It returns an object with
# ``report.valid``, ``workflow`` and ``plan``.
Validate = Callable[[JSON], Any]


class Run(abc.ABC):
    """One run of ``workflow`` under ``scenario``: its fixed parts (see the module notation)."""

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
        start_counts: Sequence[tuple[str, int]] = (),
        depth: int = 0,
        options: Options = READINGS,
        validate: Validate | None = None,
    ) -> None:
        """The run of ``workflow`` in ``plan`` order under ``scenario``.

        The keyword arguments make the run of a control's sub-block
        (model/w6w/controls.py): ``outer`` is the enclosing run scope it reads
        (with any extra root, such as ``foreach``), ``separate_roots`` puts each
        root on a strand of its own (parallel branches), ``start_invocations``
        continues the scenario's per-step invocation counts and ``start_counts``
        those of the units the run's plan does not hold (steps in its controls'
        blocks, ``c.(run).s`` of its calls' child runs); ``depth`` is the
        @w6w/call depth of this run; ``options`` the readings (A-74, A-50, A-41);
        ``validate`` checks a called workflow's document (controls.py: @w6w/call).
        ``refuse`` first says whether the semantics models the document.
        """
        self.refuse(workflow, outer)
        self.workflow = workflow
        self.outer = outer
        self.separate_roots = separate_roots
        self.start_invocations = tuple(start_invocations or ())
        self.start_counts = tuple(sorted(start_counts))
        self.depth = depth
        self.options = options
        self.launch = options.launch
        self.validate = validate
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
        self.layout = Layout(self.plan, self.strand, self.strands)
        # What a step start cites for the order it starts in: W6W-FAN-4, "the plan's order,
        # one step at a time"; with several strands W6W-FAN-5 too, "A strand runs one step
        # at a time … the earliest-in-plan-order step that is ready and assigned to it" (a
        # stranger read FAN-5 on a one-step run's input divergence as noise).
        self.scheduling = ("W6W-FAN-4", "W6W-FAN-5") if len(self.strands) > 1 else ("W6W-FAN-4",)
        # Speed only, filled as asked: a position's rule rows by what it is due for
        # (semantics.py ``rules_at``), a step's lane and inbound keys (rules.py ``_lanes``,
        # ``_inbound_keys``), what a position's start resolves (rules.py ``_parameters``).
        self.rows: dict[Any, list[Any]] = {}
        self.lanes: dict[tuple[str, Any], Any] = {}
        self.starts: dict[int, Any] = {}
        # Speed only: the last retry decision (rules.py ``will_retry``), which the decide
        # stage's two rules both ask for the same state, one after the other.
        self.decided: tuple[Any, Any, bool, bool] | None = None
        # Per position, the clauses that placed the step, which its start cites: W6W-FAN-6
        # ("When a parallel step completes, its newly-ready direct successors … S2…Sk
        # each open a new strand") after a parallel source, W6W-FAN-7 ("A step with
        # indegree > 1 runs once, on the strand of its earliest-plan-order inbound
        # source") for a join; and the plan's order: W6W-PLAN-2 without edges ("the
        # plan is steps in declared order"), W6W-PLAN-5 where the sort had a tie ("Ties
        # broken by declared step order"; a DAG's order is unique exactly when an edge
        # joins each two consecutive steps of it).
        parallel = {s.id for s in workflow.steps if s.fan_out.value == "parallel"}
        linked = {(e.from_, e.to) for e in workflow.edges}
        tied = any(pair not in linked for pair in zip(self.plan, self.plan[1:], strict=False))
        order = ("W6W-PLAN-2",) if not workflow.edges else ("W6W-PLAN-5",) if tied else ()
        self.placement: tuple[tuple[str, ...], ...] = tuple(
            (
                *(("W6W-FAN-6",) if any(e.from_ in parallel for e in self.inbound[s]) else ()),
                *(("W6W-FAN-7",) if len(self.sources[i]) > 1 else ()),
                *order,
            )
            for i, s in enumerate(self.plan)
        )

    @functools.cached_property
    def resolution(self) -> Readings:
        """The readings resolving a with block takes: the run's (config.Options)."""
        o = self.options
        return Readings(
            o.chain_check, o.bare_secret, o.structured, o.unterminated_render, o.jsonlogic
        )

    @functools.cached_property
    def every_step(self) -> dict[str, Step]:
        """Every step of the document by id, sub-blocks' included (main graph first).

        ``by_id`` holds the main graph's only: this map is for what reads a
        control's events, whose ``inner`` names block steps.
        """
        found: dict[str, Step] = {}
        for _, step in self.workflow.all_steps():
            found.setdefault(step.id, step)
        return found

    @abc.abstractmethod
    def initial(self) -> Config:
        """The configuration the run starts in (semantics.py)."""

    @abc.abstractmethod
    def enabled(self, config: Config) -> list[Transition[Config]]:
        """Every transition permitted from ``config`` (semantics.py)."""

    @abc.abstractmethod
    def refuse(self, workflow: Workflow, outer: dict[str, JSON] | None) -> None:
        """Raise Unsupported for what the semantics does not model (semantics.py)."""

    def derive(
        self, workflow: Workflow, plan: Sequence[str], scenario: Scenario, **kw: Any
    ) -> Self:
        """A run of the same kind: a control's sub-block or a called workflow's child run."""
        return type(self)(
            workflow, plan, scenario, validate=self.validate, options=self.options, **kw
        )

    def ready(self, c: Config, i: int) -> bool:
        """Whether every inbound edge of position ``i`` is resolved.

        W6W-FAN-5: "ready when every inbound edge is resolved (its source
        reached a terminal status, or the edge was skipped)".
        """
        # A loop, not all() of a generator, which cost 2% of an exploration (issue 16).
        steps = c.steps
        for j in self.sources[i]:  # noqa: SIM110
            if steps[j].status not in TERMINAL:
                return False
        return True

    def steps_of(self, config: Config) -> Steps:
        """``config``'s step states with their derived facts (config.Steps).

        The rules keep a configuration's steps a ``Steps``; a configuration
        built by hand holds a plain tuple, whose facts are computed here.
        """
        steps = config.steps
        if isinstance(steps, KEPT_STEPS):
            return steps
        return self.layout.steps(steps)

    def scope(self, config: Config) -> dict[str, JSON]:
        """The run scope a step's with block resolves against (RFC "RunScope").

        ``steps`` holds the outputs of succeeded steps only: "A $ binding to an
        absent, skipped or failed upstream path resolves to null" (W6W-BIND-4).
        """
        # W6W-META-13: "A succeeded app step publishes meta beside output";
        # W6W-META-2: the entry is { output; meta? } (StepState.published).
        steps = self.steps_of(config).published
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


def assign_strands(run: Run) -> tuple[int, ...]:
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
    (assumption A-50); under ``Options(indegree="edges")`` it counts inbound
    edges, so a step with a success and an error edge from one source is a
    join on its source's strand.  Strands are numbered in the order they open.
    """
    if run.options.indegree == "edges":
        indegree = [len(run.inbound[step_id]) for step_id in run.plan]
    else:
        indegree = [len(sources) for sources in run.sources]
    strand: list[int] = [0] * len(run.plan)
    opened = 0
    for i, step_id in enumerate(run.plan):
        sources = run.sources[i]
        if not sources and run.separate_roots and i > 0:
            opened += 1  # a parallel control's branches: one strand each
            strand[i] = opened
        elif indegree[i] > 1:
            strand[i] = strand[sources[0]]
        followers = [j for j in run.successors[i] if indegree[j] == 1]
        parallel = run.by_id[step_id].fan_out.value == "parallel"
        for n, j in enumerate(followers):
            if parallel and n > 0:
                opened += 1
                strand[j] = opened
            else:
                strand[j] = strand[i]
    return tuple(strand)


def routing(run: Run, step: Step) -> str:
    """How a finally failed step routes: "error-edge", or its onError."""
    if any(e.when is When.ERROR for e in run.outbound[step.id]):
        return "error-edge"
    return step.on_error.value
