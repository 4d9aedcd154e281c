"""Small-step operational semantics of a Workfile Core run (docs/workfile-execution.md).

A run is an initial configuration and ``enabled(c)`` (model/kernel/lts.py);
each transition is labelled with its event, its rule and the clauses that
decide it.  The configuration is plain JSON data (``Config.data``), never
changed after it is built: a rule copies it and changes the copy.

Notation.  A *frame* is a step list being executed (the root list, one
iteration of ``wf.for_each`` or ``wf.repeat``, one branch of
``wf.parallel``, the selected arm of ``wf.choose``/``wf.route``, a ``catch``
handler)::

    {"list": KEY, "prefix": "each[1].", "env": Map(name → value), "pc": i,
     "cur": ACTIVE | None, "state": "running" | "failed" | "halted",
     "error": {code, step} | None, "scope": Map(step id → value), "supp": {…}}

``env`` and ``scope`` are persistent maps (``immutables.Map``), like the
outcome table: a rule binds with ``set``, sharing the rest, so a long run
costs O(log n) per binding, not a copy of every binding so far.

``cur`` is the step at ``pc`` once it has begun (``ACTIVE``: its ``path``,
``phase`` and what the phase needs); ``children`` of an active construct or
handled action are frames.  A frame is *settled* when it failed, was halted
by cancellation, or ran every step.  A location is the tuple of child
indexes from the root frame down.

The rules, in the chapter's order (``RULES`` below lists them with their
clauses): ``start``/``reject`` (Starting a Run), ``reach`` (Step Evaluation
1-2: guard, then the enclosing-scope fields), ``dispatch`` / ``complete`` /
``retry`` (an action's attempts, Effective Retry Policy, Core Ambiguity
Disposition), ``handle`` / ``handled`` (catch), ``succeed`` / ``fail``
(Step Evaluation 5 and Failure Policy Precedence), ``iterate`` /
``join`` (the constructs), ``stop`` / ``author_fail`` (wf.stop, wf.fail),
``request_cancel`` and ``cancel`` (Core Cancellation and Internal Work
Cancellation), ``finish`` (Successful Completion, Reaching a Terminal
Outcome).  Environment choices are the transitions of ``complete`` (which
outstanding attempt's result arrives next) and ``request_cancel``; every
other transition is determined by the configuration, and concurrent frames
interleave (Permitted Scheduling Variation).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar

import attrs
from immutables import Map

from wforacle.model.diagnostics import InvalidCase, InvalidScenario
from wforacle.model.kernel import budget
from wforacle.model.kernel.lts import Transition
from wforacle.model.workfile.codes import select
from wforacle.model.workfile.document import (
    ABSENT,
    Action,
    Call,
    Choose,
    Fail,
    ForEach,
    Parallel,
    Render,
    Repeat,
    Route,
    Step,
    Stop,
    Wait,
    WaitFor,
    Workfile,
    case_name,
    walk,
)
from wforacle.model.workfile.evaluate import EvaluationFault, equal, resolve, stringify, tested
from wforacle.model.workfile.expr import ANY, template_refs
from wforacle.model.workfile.manifest import ActionSpec, Manifests
from wforacle.model.workfile.scenario import Scenario, static_path
from wforacle.model.workfile.states import StateWorkfile
from wforacle.model.workfile.types import joined_shape, literal_type

JSON = Any
Data = dict[str, Any]
Loc = tuple[int, ...]
MAX_DELAY_MS = 2**63 - 1  # a computed delay above this overflows
MAX_ITERATIONS = 1_000  # items of one wf.for_each the model runs
AMBIGUOUS = "flow.action_ambiguous"
INPUT_TYPES: dict[str, Callable[[JSON], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "json": lambda v: True,
    "null": lambda v: v is None,
}


class ModelLimit(Exception):
    """A document the model refuses to run: what it uses is not modelled (A-131)."""


class StopResultFault(EvaluationFault):
    """A fault in a ``wf.stop`` ``result``: the step's, or the run's under A-169's "run"."""


@attrs.frozen(eq=False)
class Config:
    """A configuration: JSON data nobody changes after it is built."""

    data: Data

    @property
    def key(self) -> str:
        """A canonical rendering (configurations are compared by it)."""
        return json.dumps(self.data, sort_keys=True, separators=(",", ":"), default=dict)


@attrs.frozen
class Labelled:
    """An event with the rule that produced it, where a change chose among rules."""

    rule: str
    event: JSON


# The rules and the clauses each cites (docs/workfile-execution.md).
RULES: dict[str, tuple[str, ...]] = {
    "start": ("WF-START-1", "WF-START-2", "WF-START-4", "WF-START-6"),
    "reject": ("WF-START-4", "WF-START-5", "A-120"),
    # WF-DRY-15: "the executor MUST reject it with invocation.dry_run".
    "reject_dry": ("WF-DRY-15", "A-133"),
    "reach": ("WF-STEP-1", "WF-STEP-2", "WF-STEP-3", "WF-BIND-1", "WF-SCHED-4", "A-129"),
    "skip": ("WF-STEP-2", "WF-SOUT-3", "WF-SUPP-8"),
    "fault": (
        "WF-STEP-7",
        "WF-BIND-1",
        "WF-BIND-2",
        "WF-CATCH-15",
        "WF-CATCH-16",
        "WF-POLICY-1",
        "A-117",
        "A-169",  # a fault in a wf.stop result: the step's, or the run's
    ),
    "dispatch": ("WF-STEP-4", "WF-STEP-8", "WF-STEP-12", "WF-CUT-1"),
    "complete": ("WF-STEP-9", "WF-CLASS-1", "WF-CODE-1", "WF-CODE-2", "A-119"),
    "attempt_timeout": ("WF-CATCH-11", "WF-CLASS-7", "WF-LATE-3", "WF-LATE-5", "A-141"),
    "retry": (
        "WF-RETRY-3",
        "WF-RETRY-4",
        "WF-RETRY-5",
        "WF-RETRY-6",
        "WF-RETRY-7",  # "Otherwise the computed delay applies"
        "WF-RETRY-10",
        "WF-AMB-1",
        "WF-AMB-2",  # "The reissue uses the ordinary retry delay and the same fixed key"
    ),
    "handle": (
        "WF-CODE-1",
        "WF-CODE-2",
        "WF-CATCH-2",
        "WF-CATCH-3",
        "WF-CATCH-8",
        "WF-CATCH-9",
        "WF-CATCH-10",
        "WF-CATCH-7",  # "Each handler step has path <step-path>.(catch).<id>"
    ),
    "handled": ("WF-CATCH-22", "WF-CATCH-23", "WF-CATCH-26", "A-122"),
    "succeed": ("WF-STEP-6", "WF-STEP-10", "WF-SOUT-2"),
    "call_succeeded": ("WF-STEP-6", "WF-STEP-10", "WF-PART-5", "WF-CATCH-6", "A-140"),
    # A failed step, by why it failed; the policy ladder (WF-POLICY-3/4/7/19) applies
    # in the same transition.
    "exhausted": ("WF-RETRY-10", "WF-RETRY-11", "WF-FAIL-2", "WF-SOUT-6", "WF-POLICY-1"),
    # WF-UNK-6: "The action creates no binding" (cited last, after the disposition's rules).
    "abort_ambiguous": (
        "WF-AMB-4",
        "WF-UNK-1",
        "WF-UNK-4",
        "WF-UNK-10",
        "WF-CATCH-20",
        "A-170",
        "WF-UNK-6",
    ),
    "fail_ambiguous": ("WF-AMB-4", "WF-UNK-7", "WF-CATCH-10", "A-170", "WF-UNK-6"),
    "handler_failed": ("WF-CATCH-26", "WF-CATCH-23", "A-122"),
    # The handler's replacement result broke the operation's output contract: it is
    # the handler's failure (a stranger's executor kept a string for a call's object
    # result and was told WF-BIND-5, session 23).
    "result_refused": ("WF-CATCH-23", "WF-CATCH-24", "WF-CATCH-26", "A-122"),
    "construct_failed": ("WF-POLICY-8", "WF-POLICY-9", "WF-POLICY-13", "WF-POLICY-15"),
    "repeat_exhausted": ("WF-SUPP-11", "A-125"),  # "until … checked after each … iteration"
    "iterate": ("WF-SCHED-1", "WF-SCHED-4", "A-125", "A-127"),
    # Child runs (wf.call, A-140) and timeouts.
    # The child's outputs, entry by entry in a dry run (WF-PART-1..3), give its result.
    "child_finished": (
        "WF-STEP-13",
        "WF-PART-1",
        "WF-PART-2",
        "WF-PART-3",
        "WF-PART-5",
        "WF-CATCH-6",
        "WF-TERM-1",
        "WF-BIND-1",
        "A-140",
    ),
    "child_failed": ("WF-CATCH-12", "WF-CATCH-13", "WF-CATCH-14", "WF-UNK-12", "A-140"),
    "request_cancel_child": ("WF-CANCEL-2", "WF-CANCEL-14", "A-140"),
    "child_cancelled": ("WF-CANCEL-14", "WF-CANCEL-15", "WF-CATCH-12", "A-140"),
    "expire": ("WF-IWC-1", "WF-IWC-3", "WF-LATE-2", "WF-SCHED-2", "A-141"),
    "timed_out": ("WF-IWC-1", "WF-CATCH-12", "WF-CATCH-21", "A-141"),
    # Dry runs (issue 14).
    "finish_dry": (
        "WF-PART-1",
        "WF-PART-2",
        "WF-PART-3",
        "WF-SUPP-3",
        "WF-SUPP-4",
        "WF-SUPP-5",
        "WF-SUPP-6",
        "WF-SUPP-7",
        "WF-DONE-2",
        "WF-TERM-1",
    ),
    "suppress": (
        "WF-SUPP-3",
        "WF-SUPP-4",
        "WF-SUPP-5",
        "WF-SUPP-6",
        "WF-SUPP-7",
        "WF-SUPP-9",
        "WF-SUPP-10",
        "WF-SUPP-13",
        "WF-SUPP-14",
        "A-134",
    ),
    "suppress_write": ("WF-DRY-4", "WF-DRY-5", "WF-DRY-6", "WF-DRY-7", "WF-DRY-8"),
    "unaffected": ("WF-SUPP-3", "WF-SUPP-4", "WF-SUPP-7", "WF-SUPP-8", "WF-DRY-4"),
    "delegate": ("WF-DRY-4", "WF-DRY-11", "WF-SUPP-3", "WF-SUPP-4"),
    "suppress_later": ("WF-SUPP-16", "WF-SUPP-17"),
    "suppress_control": ("WF-SCTL-1", "WF-SCTL-2"),
    "join": (
        "WF-POLICY-8",
        "WF-POLICY-13",
        "WF-POLICY-15",
        "WF-POLICY-16",
        "WF-SCHED-5",
        "WF-SUPP-8",  # a retained scope's skipped steps are not suppressed members
        "WF-SUPP-19",
        "WF-SUPP-20",
        "WF-SUPP-21",
    ),
    "stop": ("WF-IWC-4", "WF-SOUT-5", "WF-TERM-4", "A-123"),
    "author_fail": ("WF-IWC-5", "WF-RETRY-11", "WF-TERM-5", "WF-ROUT-5"),
    "request_cancel": ("WF-CANCEL-4", "WF-CANCEL-5", "WF-CANCEL-11", "A-130"),
    # An active step ended by the cancellation in force, by its source.
    # WF-SOUT-7: "cancelled — The step had begun when Core Cancellation or Internal Work
    # Cancellation ended it" (the outcome's row, after the rules that end it).
    "cancel_run": (
        "WF-CANCEL-5",
        "WF-CANCEL-8",
        "WF-CANCEL-11",
        "WF-LATE-3",
        "WF-CUT-1",
        "WF-SOUT-7",
    ),
    "cancel_internal": ("WF-IWC-3", "WF-IWC-5", "WF-POLICY-15", "WF-SCHED-7", "WF-SOUT-7"),
    "cancel_stop": ("WF-IWC-3", "WF-IWC-4", "WF-SOUT-5", "A-123", "A-171"),
    # WF-UNK-14: a call's modifiers and enclosing policy "MUST NOT intercept" a child's abort.
    "cancel_abort": ("WF-POLICY-3", "WF-UNK-4", "WF-UNK-11", "WF-CUT-1", "A-121", "WF-UNK-14"),
    "cancel_child": ("WF-CANCEL-7", "WF-CANCEL-8", "WF-CANCEL-16", "A-140"),
    "finish": (
        "WF-BIND-1",  # outputs read bindings: a step that did not succeed reads null
        "WF-DONE-1",
        "WF-DONE-2",
        "WF-DONE-3",
        "WF-DONE-5",
        "WF-DONE-6",
        "WF-TERM-1",
        "WF-TERM-8",
        "WF-ROUT-6",
        "WF-UNK-3",
        "WF-CANCEL-9",
        "WF-PART-1",
        "WF-PART-2",
        "WF-PART-3",
    ),
}


def delay_ms(step: Step, retry_number: int, server_ms: int | None) -> int:
    """The selected delay before retry ``retry_number`` (1-based) (WF-RETRY-3..7, A-128).

    Computed: 0 for ``none``, ``initial`` for ``fixed``, ``initial * 2^(n-1)``
    for ``exponential``; overflow yields ``max``.  With ``honor_retry_after``
    a server-requested delay replaces it; ``max`` caps whichever is selected.
    """
    retry = step.modifiers.retry
    if retry is None or retry.policy == "none":
        computed = 0
    elif retry.policy == "fixed":
        computed = retry.initial_ms or 0
    else:
        computed = (retry.initial_ms or 0) * 2 ** (retry_number - 1)
        if computed > MAX_DELAY_MS:
            computed = retry.max_ms if retry.max_ms is not None else MAX_DELAY_MS
    selected = computed
    if retry is not None and retry.honor_retry_after and server_ms is not None:
        selected = server_ms
    if retry is not None and retry.max_ms is not None:
        selected = min(selected, retry.max_ms)
    return selected


@attrs.frozen
class Options:
    """The readings the Workfile model takes where the text is open (issue 18).

    ``absent_field`` A-153 (the Stateful Profile): a match field the payload
    does not have is ``unequal`` to every match value (the model's choice),
    or reads as ``null`` so that a ``null`` match value matches it;
    ``unclassified`` A-119: a connector code the manifest does not classify
    is ``fatal`` (the model's choice), ``retryable`` or ``unknown``;
    ``abort_chain`` A-121: the constructs enclosing an aborting step become
    ``failed`` (the model's choice) or ``cancelled``; ``stop_outcome`` A-123:
    the ``wf.stop`` step itself is ``stopped`` (the model's choice) or
    ``succeeded``; ``truthiness`` A-117: ``not``, ``and``, ``or``, a
    conditional's test and a guard take ``booleans`` only (the model's
    choice), or any value by its truthiness (``truthy``); ``choose_guards``
    A-124: a ``wf.choose`` evaluates ``every`` arm guard (the model's
    choice), or its guards in order up to the ``first`` that holds;
    ``stop_fault`` A-169: a fault in a ``wf.stop`` ``result`` fails the
    ``step`` (the model's choice: its failure policy applies) or the ``run``
    (as ``on_fail: abort`` would); ``reissue_failure`` A-170: an action
    step whose ambiguous attempt was reissued and then failed definitely
    fails with the ``final`` attempt's code (the model's choice) or goes to
    its ``on_unknown`` disposition (``unknown``); ``handled_stop`` A-171: an
    action step whose handler's ``wf.stop`` ends the run is ``stopped`` with
    the containment chain (the model's choice) or ``succeeded``;
    ``route_keys`` A-174: a quoted route key spelling a number or boolean
    matches that value (``text``, the model's choice) or only that string
    (``json``); ``delegated_read`` A-135: in a dry run, a read declaring
    ``dry_run: delegate`` runs ``plain`` (the model's choice: WF-DRY-4, a read
    "executes normally") or ``flagged`` with the dry-run flag, as WF-DRY-11's
    "unaffected delegated action" may also say; ``handler_deadline`` A-141: a
    ``wf.call``'s timeout does not bound a ``catch`` handler another failure
    started (``outside``, the model's choice) or does (``bounded``: its expiry
    cancels the handler's work and the call fails with flow.timeout).
    """

    absent_field: str = attrs.field(
        default="unequal", validator=attrs.validators.in_(("unequal", "null"))
    )
    unclassified: str = attrs.field(
        default="fatal", validator=attrs.validators.in_(("fatal", "retryable", "unknown"))
    )
    abort_chain: str = attrs.field(
        default="failed", validator=attrs.validators.in_(("failed", "cancelled"))
    )
    stop_outcome: str = attrs.field(
        default="stopped", validator=attrs.validators.in_(("stopped", "succeeded"))
    )
    truthiness: str = attrs.field(
        default="booleans", validator=attrs.validators.in_(("booleans", "truthy"))
    )
    # a wf.choose evaluates ``every`` arm guard before it selects (the model's
    # choice), or its guards in order up to the ``first`` that holds (a later one that
    # would fault is never evaluated).
    choose_guards: str = attrs.field(
        default="every", validator=attrs.validators.in_(("every", "first"))
    )
    stop_fault: str = attrs.field(default="step", validator=attrs.validators.in_(("step", "run")))
    reissue_failure: str = attrs.field(
        default="final", validator=attrs.validators.in_(("final", "unknown"))
    )
    handled_stop: str = attrs.field(
        default="stopped", validator=attrs.validators.in_(("stopped", "succeeded"))
    )
    # a wf.route case key written as quoted text ("1", "true") also matches the
    # number or boolean it spells (``text``, the model's choice), or only a string (``json``).
    route_keys: str = attrs.field(default="text", validator=attrs.validators.in_(("text", "json")))
    # a read declaring dry_run: delegate runs in a dry run as any read does
    # (``plain``, the model's choice), or with the dry-run flag (``flagged``, WF-DRY-11).
    delegated_read: str = attrs.field(
        default="plain", validator=attrs.validators.in_(("plain", "flagged"))
    )
    # a wf.call's timeout bounds its child run only, so a catch handler another
    # failure started runs ``outside`` that deadline (the model's choice, as WF-CATCH-21
    # says of a handler the timeout started), or the deadline also ``bounded`` it.
    handler_deadline: str = attrs.field(
        default="outside", validator=attrs.validators.in_(("outside", "bounded"))
    )
    # a wf.stop result written as one marker must evaluate to an ``object`` (the
    # model's choice: else the stop step faults with expression.type), or to ``any`` value.
    stop_result: str = attrs.field(
        default="object", validator=attrs.validators.in_(("object", "any"))
    )


class WorkfileRun:
    """The semantics of one run of ``workfile`` under ``scenario`` and ``manifests``."""

    rules: ClassVar[dict[str, tuple[str, ...]]] = RULES

    def __init__(
        self,
        workfile: Workfile | StateWorkfile,
        manifests: Manifests,
        scenario: Scenario,
        workflows: Mapping[str, Workfile] | None = None,
        options: Options | None = None,
    ) -> None:
        self.options = options or Options()
        self.workfile = workfile
        self.manifests = manifests
        self.scenario = scenario
        self.workflows = dict(workflows or {})
        self.lists: dict[str, tuple[Step, ...]] = {}
        self.steps: dict[str, Step] = {}
        self.callees: dict[str, Workfile] = {}  # a wf.call's static path → its workflow
        self.roots: tuple[str, ...] = ()  # the keys of the step lists no step holds
        for key, steps in self._roots():
            self.lists[key] = steps
            self.roots += (key,)
            self._index(steps, ())
        self.actions = frozenset(p for p, s in self.steps.items() if isinstance(s.body, Action))
        self.fails, self.halting = _halting(self)
        self._check_scenario()

    def resolve(self, value: JSON, env: Mapping[str, JSON]) -> JSON:
        """``value`` with its templates evaluated under this run's A-117 reading."""
        return resolve(value, env, self.options.truthiness == "truthy")

    def tested(self, value: JSON, what: str) -> bool:
        """A guard's value tested under this run's A-117 reading (``evaluate.tested``)."""
        return tested(value, what, self.options.truthiness == "truthy")

    def _roots(self) -> list[tuple[str, tuple[Step, ...]]]:
        """The step lists no step holds, by key: Core's root list (a state's lists: stateful.py)."""
        assert isinstance(self.workfile, Workfile)
        return [("", self.workfile.steps)]

    def _index(self, steps: tuple[Step, ...], calling: tuple[str, ...]) -> None:
        """Every step and step list by static path; a call's child steps under ``C.(run).``.

        A child workflow's steps are copied once per call site with their
        static paths prefixed (A-140), so a child step is one step of the
        model like any other.
        """
        for step in walk(steps):
            self.steps[step.step_path] = step
            for segment, inner in step.nested:
                self.lists[f"{step.step_path}/{segment}"] = inner
            for k, handler in enumerate(step.modifiers.catch):
                self.lists[f"{step.step_path}/(catch){k}"] = handler.steps
            self._refuse(step, self.scenario.dry_run)
            body = step.body
            if isinstance(body, Call):
                callee = self.workflows.get(body.workflow)
                if callee is None:
                    raise InvalidCase(
                        f"step {step.step_path}: wf.call starts the workflow {body.workflow!r}, "
                        "which the case does not supply (workflows; --workflows DIR)"
                    )
                if body.workflow in calling:
                    chain = " → ".join((*calling, body.workflow))
                    raise ModelLimit(
                        f"step {step.step_path}: a wf.call cycle ({chain}) is not modelled (A-140)"
                    )
                inner = _prefixed(callee.steps, f"{step.step_path}.(run).")
                self.callees[step.step_path] = callee
                self.lists[f"{step.step_path}/(run)"] = inner
                self._index(inner, (*calling, body.workflow))

    def nested(self, step: Step) -> tuple[tuple[str, tuple[Step, ...]], ...]:
        """The step lists nested in a step's body, a call's child run included."""
        if isinstance(step.body, Call):
            return (("(run)", self.lists[f"{step.step_path}/(run)"]),)
        return step.nested

    def _check_scenario(self) -> None:
        """What the scenario scripts must fit the steps they name (A-140, A-141).

        A path naming no step is ignored, as a script for a step that never runs
        is (A-118): a reduced case keeps the scripts of the steps it removed.
        """
        scenario = self.scenario
        if scenario.events and isinstance(self.workfile, Workfile):
            raise InvalidScenario(
                "events deliver trigger events to a state-form Workfile's subscriptions "
                "(docs/workfile-stateful.md); this document has steps",
                "$.events",
            )
        for key, results in scenario.attempts.items():
            if any("timeout" in r for r in results):
                step = self.steps.get(static_path(key))
                if step is not None and step.modifiers.timeout_ms is None:
                    raise InvalidScenario(
                        "a timed-out attempt belongs to an action step that declares timeout "
                        "(A-141)",
                        f"$.attempts[{key!r}]",
                    )
        for path in scenario.expire:
            step = self.steps.get(static_path(path))
            if step is None:
                continue
            if step.modifiers.timeout_ms is None or isinstance(step.body, Action):
                raise InvalidScenario(
                    "expire names a step other than an action that declares timeout (an "
                    'action\'s timeout bounds each attempt: script {"timeout": true}) (A-141)',
                    f"$.expire[{path!r}]",
                )
        for path in scenario.cancel_child:
            step = self.steps.get(static_path(path))
            if step is not None and not isinstance(step.body, Call):
                raise InvalidScenario(
                    "cancelChild names a wf.call step (A-140)", f"$.cancelChild[{path!r}]"
                )

    @staticmethod
    def _refuse(step: Step, dry_run: bool) -> None:
        body = step.body
        what = None
        if isinstance(body, WaitFor) and not dry_run:  # a dry run is rejected (WF-DRY-15)
            what = "wf.wait_for (live events)"
        elif isinstance(body, Render) and body.file is not None:
            what = "wf.render with a template file"
        if what is not None:
            raise ModelLimit(f"step {step.step_path}: {what} is not modelled (A-131)")

    def live_events(self) -> bool:
        """Whether the definition needs a live event source (A-133: by presence)."""
        return any(isinstance(s.body, WaitFor) for s in self.steps.values())

    def begin(self, data: Data, root: dict[str, JSON]) -> None:
        """The run's first work once its inputs are established: the root step list."""
        data["root"] = _new_frame("", "", root)

    def spec(self, step: Step) -> ActionSpec | None:
        """The manifest's declaration of an action step's action."""
        assert isinstance(step.body, Action)
        return self.manifests.action(step.body.name)

    # -- the LTS ------------------------------------------------------------------

    def initial(self) -> Config:
        """A run not yet begun: the invocation's inputs are not yet established."""
        return Config(
            {
                "phase": "created",
                "root": None,
                "end": None,
                "cancel": False,
                "outcomes": Map(),
                "effects": [],
                "fired": [],
                "final": None,
            }
        )

    def enabled(self, config: Config) -> list[Transition[Config]]:
        """Every transition the chapter permits from ``config``."""
        data = config.data
        phase = data["phase"]
        if phase == "created":
            return [self._make(config, "start", _start)]
        if phase == "finished":
            return []
        found, active = self._frame_moves(config)
        if not found:
            found.append(self._make(config, "finish", _finish))
            found += self._other_faults(config, found[0], (), self.workfile.outputs, _finish)
        elif phase == "running":
            found.extend(self._environment(config, active))
        return found

    def _frame_moves(self, config: Config) -> tuple[list[Transition[Config]], dict[str, Loc]]:
        """Every frame's transitions, and the run-time path of each active step → its frame."""
        found: list[Transition[Config]] = []
        active: dict[str, Loc] = {}
        for loc, frame, halt in self._frames(config.data):
            found.extend(self._frame_rules(config, loc, frame, halt))
            if frame["cur"] is not None:
                active[frame["cur"]["path"]] = loc
        return found, active

    def _environment(self, config: Config, active: dict[str, Loc]) -> list[Transition[Config]]:
        """The cancellation request and the scenario's pending expiries and child cancellations.

        A-130: the request may arrive at any point before the run ends (over
        the protocol it reaches the engine while it waits for a result); so
        may a deadline's expiry and a child run's own cancellation (A-140/141).
        """
        found: list[Transition[Config]] = []
        if self.scenario.cancel and not config.data["cancel"]:
            found.append(self._make(config, "request_cancel", _request_cancel))
        for what, path in self._pending(config.data):
            found.append(self._interrupt(config, what, path, active))
        return found

    def _interrupt(
        self, config: Config, what: str, path: str, active: dict[str, Loc]
    ) -> Transition[Config]:
        """A deadline's expiry or a child run's cancellation (``what``) for the step at ``path``."""
        change = _expire if what == "expire" else _request_cancel_child
        rule = "expire" if what == "expire" else "request_cancel_child"
        return self._make(config, rule, change, active.get(path, ()), path in active, path)

    def _pending(self, data: Data) -> list[tuple[str, str]]:
        """The deadlines and child cancellations of the scenario that have not happened yet."""
        return sorted(
            (what, path)
            for what, path in self.scenario.interrupts.values()
            if path is not None and f"{what} {path}" not in data["fired"]  # not the run's cancel
        )

    def ample(self, config: Config, enabled: list[Transition[Config]]) -> list[Transition[Config]]:
        """A persistent subset of ``enabled`` (docs/workfile-execution.md, "Exploring").

        Transitions of different frames touch disjoint parts of the
        configuration (their own frames, their own steps' outcomes, the sorted
        effects), so they commute, unless one can halt the others: a failure
        that reaches a ``fail_fast`` construct, an abort, ``wf.stop``,
        ``wf.fail`` or the cancellation request.  When no step that may still
        run concurrently can halt anything (``self.halting``), the first
        frame's transitions are persistent; while the run is ending, the
        cancellations of distinct steps commute and one suffices.
        """
        data = config.data
        if any(type(t) is Deferred for t in enabled):
            enabled = [t for t in enabled if type(t) is not Deferred]
        if len(enabled) < 2 or (data["phase"] != "running" and data["phase"] != "ending"):
            return enabled
        if data["end"] is not None:
            cancels = all(t.rule.startswith("cancel_") for t in enabled)
            return enabled[:1] if cancels else enabled
        if (self.scenario.cancel and not data["cancel"]) or self._pending(data):
            return enabled
        if self._risky(data):
            return enabled
        groups: dict[Loc, list[Transition[Config]]] = {}
        for loc, frame, halt in self._frames(data):
            found = self._own_rules(config, loc, frame, halt)
            if found:
                groups[loc] = found
        return next(iter(groups.values()), enabled)

    def _risky(self, data: Data) -> bool:
        """Whether a step that may halt other work can still run concurrently with it.

        A step halts concurrent work when it may end the run (``halts``) or
        when it may fail (``fails``) in a frame whose failure is not absorbed
        at its own boundary: any frame but an iteration or branch of a
        ``continue`` construct (a ``fail_fast`` boundary cancels the
        siblings; a ``wf.choose`` arm, a ``wf.repeat`` iteration or a handler
        passes the failure up).
        """
        fails, halts = self.fails, self.halting

        def risky(steps: Any, absorbed: bool) -> bool:
            return any(halts[s.step_path] or (fails[s.step_path] and not absorbed) for s in steps)

        def visit(frame: Data, concurrent: bool, absorbed: bool) -> bool:
            steps = self.lists[frame["list"]]
            cur = frame["cur"]
            later = steps[frame["pc"] :] if concurrent and frame["state"] == "running" else ()
            if risky(later, absorbed):
                return True
            if cur is None:
                return False
            body = self.steps[cur["static"]].body
            isolated = isinstance(body, Parallel) or (
                isinstance(body, ForEach) and body.concurrency > 1
            )
            inner = concurrent or isolated
            continues = (isinstance(body, ForEach) and body.on_iteration_fail == "continue") or (
                isinstance(body, Parallel) and body.on_branch_fail == "continue"
            )
            unstarted = body.steps if isinstance(body, ForEach) and inner else ()
            if unstarted and cur["pending"] and risky(unstarted, continues):
                return True  # an iteration not started yet may halt the others
            return any(visit(child, inner, continues) for child in cur.get("children", ()))

        return visit(data["root"], False, False)

    def _make(
        self, config: Config, rule: str | None, change: Callable[..., JSON], *args: Any
    ) -> Transition[Config]:
        """The transition ``change`` makes; a change may name its rule (None: it always does)."""
        data = _spine(config.data, args[0] if args else ())
        event = change(self, data, *args)
        if isinstance(event, Labelled):  # the rule a change decided on (reach: skip, fault)
            rule, event = event.rule, event.event
        assert rule is not None, f"{change.__name__} named no rule"
        clauses = self.rules[rule]
        ladder = data.pop(CITED, None)  # the failure policy a failing step met (_fail)
        if ladder:
            clauses = (*clauses, *(c for c in ladder if c not in clauses))
        return Transition(event, rule, clauses, Config(data))

    def _other_faults(
        self,
        config: Config,
        first: Transition[Config],
        loc: Loc,
        outputs: JSON,
        change: Callable[..., JSON],
    ) -> list[Transition[Config]]:
        """The transitions like ``first`` failing with another output entry's fault (A-176).

        ``first`` (made by ``change``) ends a run (``loc`` is the root) or a
        call's child run (``loc`` is the call's frame) by projecting
        ``outputs`` in the frame its run ran in; when that faults, WF-DONE-6
        ("fails the run with that fault code") does not say which entry's
        fault, when several fault: each distinct code is a transition.
        """
        event = first.event
        error = event.get("error")
        if event.get("outcome") != "failed" or error is None or "step" in error:
            return []  # not an output fault: those alone have no step
        data = config.data
        if not loc:
            if data["end"] is not None or data["root"]["state"] == "failed":
                return []
            frame = data["root"]
        else:
            cur = _at(data, loc)["cur"]
            if cur.get("end") is not None or cur["children"][0]["state"] == "failed":
                return []
            frame = cur["children"][0]
        codes = _output_faults(self, frame, outputs, self.scenario.dry_run)
        return [
            self._make(config, first.rule, change, loc, code)
            for code in codes
            if code != error["code"]
        ]

    def _frames(self, data: Data) -> Iterator[tuple[Loc, Data, Data | None]]:
        """Every frame with its location and the end cancelling work in it (None: none).

        The run's end governs every frame; below it, a construct whose
        nested work is being cancelled (``failing``: fail_fast, its own
        timeout) and a call whose child run is ending (``end``) govern their
        nested frames.
        """

        def visit(
            frame: Data, loc: Loc, halt: Data | None
        ) -> Iterator[tuple[Loc, Data, Data | None]]:
            yield loc, frame, halt
            cur = frame["cur"]
            if cur is not None:
                inner = halt
                if inner is None and cur.get("failing") is not None:
                    inner = INTERNAL
                elif inner is None:
                    inner = cur.get("end")
                for k, child in enumerate(cur.get("children", ())):
                    yield from visit(child, (*loc, k), inner)

        if data["root"] is not None:
            yield from visit(data["root"], (), data["end"])

    def _frame_rules(
        self, config: Config, loc: Loc, frame: Data, halt: Data | None
    ) -> list[Transition[Config]]:
        """The frame's transitions, and those of a cancellation begun before its source's event.

        A-175: the step whose own end begins a cancellation (``wf.stop``,
        ``wf.fail``, a failure that aborts the run or fails a ``fail_fast``
        construct) may report its ``step_finished`` after some of the work
        it cancels: WF-IWC-3/4 end that work "when one of those rules
        invokes Internal Work Cancellation" and set no order between its
        events and the invoking step's own.  Each such order is a
        ``Deferred`` transition (``_deferred``).
        """
        found = self._own_rules(config, loc, frame, halt)
        cur = frame["cur"]
        if cur is None or halt is not None:
            return found
        more: list[Transition[Config]] = []
        for t in found:
            if _may_begin_cancellation(t, cur["path"]):
                more += self._deferred(config, loc, t)
        return found + more if more else found

    def _deferred(
        self, config: Config, loc: Loc, begins: Transition[Config]
    ) -> list[Transition[Config]]:
        """Every cancellation ``begins`` causes, taken before the event of ``begins`` (A-175).

        The target of each: ``begins``'s, but its step still active
        (``finishing``: its event and its frame's state after it kept for
        ``_finish_own``), and one step it cancels ended.  Terminal
        configurations are those of ``begins`` followed by the cancellation
        (the two change disjoint frames), so the explorer's reduction leaves
        these out (``ample``); the trace checker takes them.
        """
        data = _spine(begins.target.data, loc)
        frame = _at(data, loc)
        after = dict(frame)
        cur = _at(config.data, loc)["cur"]
        frame["state"] = "running"
        frame["cur"] = {
            "path": cur["path"],
            "static": cur["static"],
            "phase": "finishing",
            "event": copy.deepcopy(begins.event),  # a configuration's own, never an event's
            "rule": begins.rule,
            "clauses": list(begins.clauses),
            "after": after,
        }
        pending = Config(data)
        found: list[Transition[Config]] = []
        for at, other, halt in self._frames(data):
            if halt is None or other["cur"] is None or at == loc:
                continue  # work the cancellation does not reach, or the finishing step
            for t in self._own_rules(pending, at, other, halt):
                if t.rule.startswith("cancel_"):
                    clauses = (*t.clauses, *(c for c in begins.clauses if c not in t.clauses))
                    found.append(Deferred(t.event, t.rule, clauses, t.target))
        return found

    def _own_rules(
        self, config: Config, loc: Loc, frame: Data, halt: Data | None
    ) -> list[Transition[Config]]:
        if frame["state"] != "running":
            return []
        cur = frame["cur"]
        steps = self.lists[frame["list"]]
        if cur is None:
            if halt is not None or frame["pc"] >= len(steps):
                return []
            return [self._make(config, "reach", _reach_at, loc)]
        if cur["phase"] == "finishing":  # its cancellation began before its event
            return [self._make(config, cur["rule"], _finish_own, loc)]
        step = self.steps[cur["static"]]
        if halt is not None:
            if _active_below(cur):
                return []
            return [self._make(config, None, _cancel, loc, halt)]
        phase = cur["phase"]
        if phase == "dispatch":
            return [self._make(config, "dispatch", _dispatch, loc)]
        if phase == "outstanding":
            return [self._make(config, "complete", _complete, loc)]
        if phase == "retry":
            return [self._make(config, "retry", _retry, loc)]
        if phase == "succeeded":
            return [self._make(config, "succeed", _succeed, loc)]
        if phase == "failed":
            if _handler(self, step, cur) is not None:
                return [self._make(config, "handle", _handle, loc)]
            return [self._make(config, None, _fail_current, loc)]
        if phase == "handler":
            if cur.get("failing") is not None:  # A-141 "bounded": the deadline passed
                if _active_below(cur):
                    return []
                return [self._make(config, "timed_out", _handler_expired, loc)]
            if _settled(self, cur["children"][0]):
                return [self._make(config, "handled", _handled, loc)]
            return []
        if phase == "stop":
            return [self._make(config, "stop", _stop, loc)]
        if phase == "author_fail":
            return [self._make(config, "author_fail", _author_fail, loc)]
        if phase == "children":
            return self._construct_rules(config, loc, step, cur)
        raise AssertionError(f"unknown phase {phase}")  # pragma: no cover

    def _construct_rules(
        self, config: Config, loc: Loc, step: Step, cur: Data
    ) -> list[Transition[Config]]:
        children = cur["children"]
        body = step.body
        if not _open(cur):  # fail_fast, a timeout, a child run's end: the rest is cancelled
            if all(c["cur"] is None for c in children):
                return [self._make(config, "join", _join, loc)]
            return []
        if isinstance(body, ForEach):
            running = sum(1 for c in children if not _settled(self, c))
            if cur["pending"] and running < body.concurrency and body.steps:
                # Any unstarted iteration may start next (WF-SCHED-1, A-127).
                return [self._make(config, "iterate", _iterate, loc, k) for k in cur["pending"]]
        if all(_settled(self, c) for c in children):
            join = self._make(config, "join", _join, loc)
            if isinstance(body, Call) and children:
                callee = self.callees[step.step_path].outputs
                return [join, *self._other_faults(config, join, loc, callee, _join)]
            return [join]
        return []


# The end governing nested work that Internal Work Cancellation ends (fail_fast, a timeout).
INTERNAL: Data = {"chain": "cancelled", "paths": [], "source": "internal"}


def _prefixed(value: Any, prefix: str) -> Any:
    """A child workflow's steps with ``prefix`` before every static step path (A-140)."""
    if isinstance(value, tuple):
        return tuple(_prefixed(v, prefix) for v in value)
    if isinstance(value, Step):
        fields = {a.name: _prefixed(getattr(value, a.name), prefix) for a in attrs.fields(Step)}
        fields["step_path"] = prefix + value.step_path
        return Step(**fields)
    if attrs.has(type(value)):
        changed = {
            a.name: _prefixed(getattr(value, a.name), prefix) for a in attrs.fields(type(value))
        }
        return type(value)(**changed)
    return value


# -- reaching a step (Step Evaluation 1-2) -------------------------------------------------


def _env(frame: Data) -> dict[str, JSON]:
    env: dict[str, JSON] = frame["env"]
    return env


def _spine(data: Data, loc: Loc) -> Data:
    """A copy of ``data`` a rule at ``loc`` may change: fresh along the path, shared elsewhere.

    Rules change only the frames from the root to ``loc`` (their active
    step and its list of children; their ``env``, ``scope`` and ``supp``
    are replaced, never changed: the first two are persistent maps, so a
    binding costs O(log n), not a copy of the scope), the outcome table (a
    persistent map too), the effects and the run's end; every other part of
    a configuration is shared with the configuration it came from, and never
    changed (tests/workfile/test_run_properties.py checks the result equals
    a deep copy's).
    """
    new = dict(data)
    new["effects"] = list(data["effects"])
    if data["root"] is None:
        return new
    frame = new["root"] = _frame_copy(data["root"])
    for k in loc:
        children = frame["cur"]["children"]
        frame = children[k] = _frame_copy(children[k])
    return new


def _frame_copy(frame: Data) -> Data:
    copied = dict(frame)  # env and scope are persistent maps; supp is replaced, never changed
    cur = frame["cur"]
    if cur is not None:
        cur = copied["cur"] = dict(cur)
        if "children" in cur:
            cur["children"] = list(cur["children"])
    return copied


def _at(data: Data, loc: Loc) -> Data:
    frame: Data = data["root"]
    for k in loc:
        frame = frame["cur"]["children"][k]
    return frame


def _owner(data: Data, loc: Loc) -> Data | None:
    """The active construct (or handled step) whose nested frame is the one at ``loc``."""
    if not loc:
        return None
    owner: Data = _at(data, loc[:-1])["cur"]
    return owner


def _new_frame(
    key: str, prefix: str, env: Mapping[str, JSON], supp: Mapping[str, JSON] | None = None
) -> Data:
    """A frame for a step list; ``supp`` is the suppression it inherits (dry runs)."""
    return {
        "list": key,
        "prefix": prefix,
        "env": Map(env),
        "pc": 0,
        "cur": None,
        "state": "running",
        "error": None,
        "scope": Map(),
        "supp": dict(supp or {}),
    }


def _settled(run: WorkfileRun, frame: Data) -> bool:
    """Whether a frame ran to its end, failed or was halted (nothing in it is active)."""
    if frame["state"] != "running":
        return True
    return frame["cur"] is None and frame["pc"] >= len(run.lists[frame["list"]])


def _active_below(cur: Data) -> bool:
    """Whether a step nested in the active step ``cur`` is still active."""
    return any(child["cur"] is not None for child in cur.get("children", ()))


def _reach_at(run: WorkfileRun, data: Data, loc: Loc) -> JSON:
    return _reach(run, data, _at(data, loc), loc)


def _reach(run: WorkfileRun, data: Data, frame: Data, loc: Loc) -> JSON:
    """Step Evaluation 1-2 for the step at ``frame``'s ``pc`` (WF-STEP-1..3, WF-STEP-7).

    The guard, then the operation's enclosing-scope fields, evaluated at once
    (A-129): a false guard skips the step, a fault fails it before anything
    begins (its own evaluation fault is not offered to catch, WF-CATCH-15);
    otherwise the step begins.
    """
    step = run.lists[frame["list"]][frame["pc"]]
    path = frame["prefix"] + step.id
    env = _env(frame)
    dry = run.scenario.dry_run
    if dry and _affected(frame, _checked(step)):  # before the guard (WF-STEP-2, WF-SUPP-9)
        return Labelled("suppress", _suppress(data, frame, step, path))
    try:
        when = step.modifiers.when
        if when is not ABSENT and not run.tested(run.resolve(when, env), "a when guard"):
            frame["pc"] += 1
            data["outcomes"] = data["outcomes"].set(path, "skipped")
            return Labelled("skip", {"event": "step_finished", "step": path, "outcome": "skipped"})
        cur = _begin(run, step, path, frame)
    except EvaluationFault as fault:
        error = {"code": fault.code, "step": path}
        # under the reading "run", a fault in a wf.stop result fails the run (WF-PART-3:
        # it "still prevents a successful workflow result"), as on_fail: abort would.
        ends_run = isinstance(fault, StopResultFault) and run.options.stop_fault == "run"
        return Labelled("fault", _fail(run, data, frame, loc, step, error, ends_run))
    if dry and isinstance(step.body, Action):
        spec = run.spec(step)
        if _writes(spec) and not (spec is not None and spec.dry_run_delegate):
            # An unaffected write: evaluated and validated, then withheld (WF-DRY-4..6);
            # a fault in that evaluation failed it normally above (WF-DRY-8).
            return Labelled("suppress_write", _suppress(data, frame, step, path))
        # A delegated write runs with the flag (WF-DRY-11); a read declaring delegate
        # does only under A-135's reading "flagged" (WF-DRY-4: a read "executes normally").
        delegated = spec is not None and spec.dry_run_delegate
        flagged = run.options.delegated_read == "flagged" and delegated
        cur["dry"] = _writes(spec) or flagged
    frame["cur"] = cur
    event = {"event": "step_started", "step": path}
    if dry:  # dependency checking found nothing affected
        return Labelled("delegate" if cur.get("dry") else "unaffected", event)
    return event


def _begin(run: WorkfileRun, step: Step, path: str, frame: Data) -> Data:
    """The active step's state once its enclosing-scope fields are evaluated (WF-STEP-3).

    Constructs refine the sequence with their nested frames, each keeping
    the enclosing list's order and scope (WF-STEP-13/14).
    """
    env = _env(frame)
    body = step.body
    cur: Data = {"path": path, "static": step.step_path}
    if isinstance(body, Action):
        args = run.resolve(body.args, env)
        cur.update(phase="dispatch", args=args, attempt=1, server=None)
    elif isinstance(body, ForEach):
        items = run.resolve(body.items, env)
        if not isinstance(items, list):
            raise EvaluationFault("expression.type", "wf.for_each items is an array (A-127)")
        if len(items) > MAX_ITERATIONS:
            # Any unstarted iteration may start next: n items offer n transitions,
            # each with its own list of the rest, which no memory holds for 100,000 (issue 19).
            raise budget.ModelBound(
                f"a wf.for_each over {len(items)} items is past the model's bound"
                f" ({MAX_ITERATIONS} items, A-127)"
            )
        pending = list(range(len(items)))
        cur.update(phase="children", items=items, pending=pending, children=[], failing=None)
    elif isinstance(body, Parallel):
        cur.update(
            phase="children",
            failing=None,
            children=[
                _new_frame(f"{step.step_path}/{name}", f"{path}.{name}.", env, frame["supp"])
                for name, _ in body.branches
            ],
        )
    elif isinstance(body, Choose):
        # Every arm guard is evaluated (A-124), each a boolean (A-117); under A-124's
        # other reading, in order up to the first that holds.
        chosen = None
        if run.options.choose_guards == "first":
            for k, arm in enumerate(body.arms):
                if run.tested(run.resolve(arm.when, env), "a wf.choose arm guard"):
                    chosen = str(k)
                    break
        else:
            guards = [
                run.tested(run.resolve(arm.when, env), "a wf.choose arm guard") for arm in body.arms
            ]
            chosen = next((str(k) for k, g in enumerate(guards) if g), None)
        if chosen is None and body.otherwise is not None:
            chosen = "else"
        cur.update(phase="children", children=_arm(step, path, chosen, frame), selected=chosen)
    elif isinstance(body, Route):
        subject = run.resolve(body.subject, env)
        chosen = next(
            (
                case_name(v)
                for v, _ in body.cases
                if _same(v, subject, run.options.route_keys == "text")
            ),
            "else" if body.otherwise is not None else None,
        )
        cur.update(phase="children", children=_arm(step, path, chosen, frame), selected=chosen)
    elif isinstance(body, Repeat):
        cur.update(
            phase="children",
            iteration=0,
            children=[_new_frame(f"{step.step_path}/", f"{path}[0].", env, frame["supp"])],
        )
    elif isinstance(body, Call):
        # The inputs, established against the callee's contract before its run starts: a
        # mismatch is the call's own fault, never its handler's (WF-CATCH-16, A-140).
        callee = run.callees[step.step_path]
        inputs, problem = establish(callee, run.resolve(body.inputs, env))
        if problem is not None:
            raise EvaluationFault(
                problem["code"], f"the input {problem['input']!r} of {body.workflow!r}"
            )
        child = _new_frame(
            f"{step.step_path}/(run)",
            f"{path}.(run).",
            {"inputs": inputs, "run": {"dry_run": run.scenario.dry_run}},
        )
        cur.update(phase="children", call=body.workflow, children=[child], failing=None)
    elif isinstance(body, Stop):
        reason = run.resolve(body.reason, env)
        try:
            result, withheld = _project(run, frame, body.result, run.scenario.dry_run)
            if (
                withheld != ["$"]
                and not isinstance(result, dict)
                and run.options.stop_result == "object"
            ):
                # the result is an object (one marker's value: a mapping written out
                # is one already, the loader refuses any other literal).
                raise EvaluationFault(
                    "expression.type", f"a wf.stop result is an object, not {literal_type(result)}"
                )
        except EvaluationFault as fault:
            raise StopResultFault(fault.code, fault.message) from fault
        cur.update(phase="stop", reason=reason, result=result, suppressed=withheld)
    elif isinstance(body, Fail):
        reason = None if body.reason is ABSENT else run.resolve(body.reason, env)
        cur.update(phase="author_fail", reason=reason)
    elif isinstance(body, Wait):
        cur.update(phase="succeeded", value=None)
    elif isinstance(body, Render):
        projection = run.resolve(body.projection, env)
        assert body.template is not None  # a file is refused
        scope = projection if isinstance(projection, dict) else {}
        cur.update(phase="succeeded", value=_render(run, body.template, scope))
    else:  # pragma: no cover - refused at construction
        raise ModelLimit(f"{type(body).__name__} is not modelled")
    return cur


def _render(run: WorkfileRun, text: str, scope: Mapping[str, JSON]) -> str:
    """The rendered string: the template's text, every marker written as template text (A-173).

    A template that is one marker writes its value as an interpolated marker
    does (``stringify``: a string as it is, null as nothing, any other value
    compact JSON), not as a typed value: a render's binding is a string.
    """
    value = run.resolve(text, scope)
    return value if isinstance(value, str) else stringify(value)


def _same(case: JSON, subject: JSON, text: bool = True) -> bool:
    """A route case matches a subject its key equals (A-124, A-174).

    Equal under the run-time ``==`` (A-117: the key ``1`` matches 1 and 1.0,
    never ``true``), or, under A-174's reading ``text``, a quoted key written
    as a JSON number or boolean that equals a number or boolean subject
    (``"1"`` matches 1 and 1.0, ``"true"`` true, ``"01"`` and ``" 1"``
    nothing): YAML writes a mapping key as text as often as not, and a
    route reads values.
    """
    if equal(case, subject):
        return True
    if not text or not isinstance(case, str) or not isinstance(subject, int | float):
        return False  # (a boolean is an int here)
    return bool(_WRITTEN_SCALAR.fullmatch(case)) and equal(json.loads(case), subject)


_WRITTEN_SCALAR = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false")


def _arm(step: Step, path: str, chosen: str | None, frame: Data) -> list[Data]:
    if chosen is None:
        return []
    key, prefix = f"{step.step_path}/{chosen}", f"{path}.{chosen}."
    return [_new_frame(key, prefix, _env(frame), frame["supp"])]


# -- actions: attempts, retries, ambiguity ---------------------------------------------------


def _dispatch(run: WorkfileRun, data: Data, loc: Loc) -> JSON:
    """An attempt begins: the complete argument map, explicit nulls included (WF-STEP-8)."""
    cur = _at(data, loc)["cur"]
    cur["phase"] = "outstanding"
    event = {
        "event": "attempt_started",
        "step": cur["path"],
        "attempt": cur["attempt"],
        "input": cur["args"],
    }
    if cur.get("dry"):
        event["dryRun"] = True
    return event


def classification(spec: ActionSpec | None, code: str, uncovered: str = "fatal") -> str:
    """The manifest's classification of a connector code; ``uncovered`` when none (A-119).

    WF-CLASS-1..4: retryable, fatal or unknown (ambiguous).  WF-CLASS-8: the
    classification is not the attempt's result nor the step's outcome;
    WF-CLASS-9: details travel with the code and do not change it.  The
    classification of an uncovered code is in a section not included
    (WF-CLASS-5): fatal, the model's reading, or ``Options.unclassified``.
    """
    found = spec.classify(code) if spec is not None else None
    return found or uncovered


def failure_kind(spec: ActionSpec | None, result: JSON, uncovered: str) -> tuple[str, str]:
    """A failed attempt's code and classification: retryable, fatal or unknown.

    A timed-out attempt (the deadline passed first) has the executor-produced
    code timeout (WF-CATCH-11), which no manifest classifies (WF-CLASS-7): a
    dispatched write's effect is unknown, a read is retryable (A-141).  Any
    other is classified by the manifest (``classification``, A-119).
    """
    if result.get("timeout") is True:
        return "timeout", "unknown" if _writes(spec) else "retryable"
    code = result["error"]
    return code, classification(spec, code, uncovered)


def _writes(spec: ActionSpec | None) -> bool:
    return spec is None or spec.effects == "write"


def _complete(run: WorkfileRun, data: Data, loc: Loc) -> JSON:
    """The outstanding attempt's result arrives (the environment's choice of order).

    The result is selected here, once (WF-LATE-5: a classification "selects an
    attempt result"); an ambiguous one goes to the Core Ambiguity Disposition
    (WF-RETRY-12); attempts are events of one step (WF-STEP-12).
    """
    frame = _at(data, loc)
    cur = frame["cur"]
    step = run.steps[cur["static"]]
    spec = run.spec(step)
    path, attempt = cur["path"], cur["attempt"]
    result = run.scenario.result(path, attempt)
    event: Data = {"event": "attempt_finished", "step": path, "attempt": attempt}
    if "output" in result:
        event["result"] = "succeeded"
        cur.update(phase="succeeded", value=result["output"])
        # A successful reissue resolves the step's earlier ambiguous attempts.
        data["effects"] = [e for e in data["effects"] if e["step"] != path]
        return event
    timed_out = result.get("timeout") is True
    code, kind = failure_kind(spec, result, run.options.unclassified)
    details = None if timed_out else result.get("details")
    event.update(result=kind, code=code)
    attempts = step.modifiers.effective_attempts
    if kind == "unknown" and run.options.reissue_failure == "unknown":
        cur["ambiguous"] = True  # a later definite failure goes to on_unknown
    if kind == "unknown" and _writes(spec):
        effect = {"step": path, "attempt": attempt, "effect": "unknown", "code": code}
        if details is not None:
            effect["details"] = details
        _record(data, effect)
    idempotent = spec is not None and spec.idempotency in ("inherent", "keyed")
    if attempt < attempts and (kind == "retryable" or (kind == "unknown" and idempotent)):
        cur.update(phase="retry", server=result.get("retryAfterMs"))
    else:
        if kind == "unknown" or cur.get("ambiguous"):
            disposition = step.modifiers.on_unknown or "abort"  # WF-UNK-1
            failure = {"code": AMBIGUOUS, "step": path, "disposition": disposition}
        else:
            failure = {"code": code, "step": path}
        if details is not None:
            failure["details"] = details
        cur.update(phase="failed", failure=failure)
    return Labelled("attempt_timeout", event) if timed_out else event


def _record(data: Data, effect: Data) -> None:
    """An unresolved write attempt, kept sorted (so concurrent steps' records commute)."""
    data["effects"] = sorted([*data["effects"], effect], key=lambda e: (e["step"], e["attempt"]))


def _retry(run: WorkfileRun, data: Data, loc: Loc) -> JSON:
    """A retry or reissue, after the selected delay (virtual time) (WF-RETRY-3..6, WF-AMB-2)."""
    cur = _at(data, loc)["cur"]
    step = run.steps[cur["static"]]
    delay = delay_ms(step, cur["attempt"], cur["server"])
    cur.update(phase="dispatch", attempt=cur["attempt"] + 1, server=None)
    return {
        "event": "retry_scheduled",
        "step": cur["path"],
        "attempt": cur["attempt"],
        "delayMs": delay,
    }


# -- catch -----------------------------------------------------------------------------------


def _handler(run: WorkfileRun, step: Step, cur: Data) -> int | None:
    """The index of the handler for an eligible failure, by code precedence (WF-CATCH-2/9)."""
    failure = cur["failure"]
    if cur.get("handled") or failure.get("disposition") == "abort":  # WF-UNK-4, WF-CATCH-20
        return None
    handlers = step.modifiers.catch
    chosen = select(failure["code"], [h.pattern for h in handlers])
    if chosen is None:
        return None
    return next(k for k, h in enumerate(handlers) if h.pattern == chosen)


def _handle(run: WorkfileRun, data: Data, loc: Loc) -> JSON:
    """The selected handler begins, with the reserved ``error`` binding (WF-CATCH-7/8)."""
    frame = _at(data, loc)
    cur = frame["cur"]
    step = run.steps[cur["static"]]
    k = _handler(run, step, cur)
    assert k is not None
    failure = cur["failure"]
    error = {
        "code": failure["code"],
        "step": cur["path"].removeprefix(frame["prefix"]),
        "details": failure.get("details"),
    }
    env = {**_env(frame), "error": error}
    handler_frame = _new_frame(
        f"{step.step_path}/(catch){k}", f"{cur['path']}.(catch).", env, frame["supp"]
    )
    cur.update(phase="handler", handled=True, handler=k, children=[handler_frame])
    return {
        "event": "handler_started",
        "step": cur["path"],
        "pattern": step.modifiers.catch[k].pattern.text,
        "code": failure["code"],
    }


def _handled(run: WorkfileRun, data: Data, loc: Loc) -> JSON:
    """The handler ran: its result replaces the output, or the original failure stays."""
    frame = _at(data, loc)
    cur = frame["cur"]
    step = run.steps[cur["static"]]
    inner = cur["children"][0]
    if inner["state"] == "running":
        handler = step.modifiers.catch[cur["handler"]]
        if run.scenario.dry_run and _affected(inner, handler.result):  # WF-SUPP-16/17
            frame["cur"] = None
            return Labelled("suppress_later", _suppress(data, frame, step, cur["path"]))
        env = {**inner["env"], **inner["scope"]}
        try:
            value = None if handler.result is ABSENT else run.resolve(handler.result, env)
        except EvaluationFault:
            value = _NO_RESULT
        if isinstance(step.body, Call):
            contract: str | None = "object"  # WF-CATCH-6: an object result contract
        else:
            spec = run.spec(step)
            contract = spec.output if spec is not None else None
        typed = value is not _NO_RESULT and (contract is None or INPUT_TYPES[contract](value))
        if typed and _declared(run, step, value):
            cur.update(phase="succeeded", value=value, children=[])
            return _succeed(run, data, loc)
        cur["refused"] = True  # the replacement broke the contract (WF-CATCH-23, A-122)
    cur.update(phase="failed", children=[])  # WF-CATCH-26: the original failure stays
    return _fail_current(run, data, loc)


_NO_RESULT = object()


def _declared(run: WorkfileRun, step: Step, value: JSON) -> bool:
    """Whether a wf.call's replacement object fits its callee's joined object shape.

    WF-CATCH-24: "For a callee's joined object shape, replacement members
    MUST have declared names and assignable types; every member whose type
    excludes null is required"; a result that breaks the contract is the
    handler's failure (WF-CATCH-26, A-122).  A member's type where the
    callee's document establishes it (A-172; a value's own type here).  The
    validator refuses a literal mapping that breaks it (properties/workfile/
    validate.py ``call_contracts``); this catches what only the run shows.
    """
    if not isinstance(step.body, Call) or not isinstance(value, dict):
        return True
    shape = joined_shape(run.callees[step.step_path])
    if shape is None:
        return True
    if not set(value) <= set(shape):
        return False
    return all(
        slot.admits(literal_type(value[name])) if name in value else not slot.required
        for name, slot in shape.items()
    )


# -- outcomes and the failure policy ---------------------------------------------------------


def _succeed(run: WorkfileRun, data: Data, loc: Loc) -> JSON:
    """The step succeeds and, for a value- or scope-producing body, binds (WF-STEP-6/10)."""
    frame = _at(data, loc)
    cur = frame["cur"]
    step = run.steps[cur["static"]]
    event: Data = {"event": "step_finished", "step": cur["path"], "outcome": "succeeded"}
    if isinstance(step.body, Action | Render | Call):
        event["value"] = cur["value"]
    if not isinstance(step.body, Stop | Fail | Wait):
        frame["scope"] = frame["scope"].set(step.id, cur["value"])
        frame["env"] = frame["env"].set(step.id, cur["value"])
    tree = cur.get("supp")
    if tree:  # a retained scope keeps suppression per member (WF-SUPP-20, WF-SUPP-21)
        frame["supp"] = {**frame["supp"], step.id: tree}
        event["suppressed"] = sorted(_member_paths(tree))
    data["outcomes"] = data["outcomes"].set(cur["path"], "succeeded")
    frame["cur"] = None
    frame["pc"] += 1
    if isinstance(step.body, Call) and not cur.get("handled"):
        return Labelled("call_succeeded", event)  # the child's result, member suppression kept
    return event


def _fail_current(run: WorkfileRun, data: Data, loc: Loc) -> JSON:
    """An action step fails: labelled by why (its attempts, its ambiguity, its handler)."""
    frame = _at(data, loc)
    cur = frame["cur"]
    step = run.steps[cur["static"]]
    failure = cur["failure"]
    why = (
        "result_refused"
        if cur.get("refused")
        else "handler_failed"
        if cur.get("handled")
        else cur["why"]  # a call's: its child failed or was cancelled, or it timed out
        if "why" in cur
        else "abort_ambiguous"
        if failure.get("disposition") == "abort"
        else "fail_ambiguous"
        if failure.get("disposition") == "fail"
        else "exhausted"
    )
    return Labelled(why, _fail(run, data, frame, loc, step, failure))


def _fail(
    run: WorkfileRun,
    data: Data,
    frame: Data,
    loc: Loc,
    step: Step,
    error: Data,
    aborts: bool = False,
) -> JSON:
    """The step fails; the failure policy ladder applies (Failure Policy Precedence).

    An ``on_unknown: abort`` disposition and ``on_fail: abort`` fail the run
    directly (WF-UNK-4, WF-POLICY-3); ``on_fail: continue`` goes on with the
    next step, the failed step reading null (WF-POLICY-4); otherwise the
    frame fails and its construct's policy decides (WF-POLICY-5/8/19).  The
    failed step binds nothing (WF-STEP-5, WF-BIND-5, WF-UNK-6).
    """
    path = frame["prefix"] + step.id
    event = {
        "event": "step_finished",
        "step": path,
        "outcome": "failed",
        "error": {"code": error["code"], "step": error["step"]},
    }
    data["outcomes"] = data["outcomes"].set(path, "failed")
    frame["cur"] = None
    crossing = error.get("disposition") == "abort"
    if aborts or crossing or step.modifiers.on_fail == "abort":
        # An abort disposition ends the caller's run too, across every wf.call
        # (WF-UNK-11, WF-UNK-14); on_fail: abort ends the run the step is in.
        chain = run.options.abort_chain  # the enclosing constructs fail, or cancel
        _end(data, loc, "failed", error, chain, "abort", crossing)
        frame["state"] = "halted"
        # WF-UNK-4: "on_fail, catch … MUST NOT intercept that disposition"; WF-POLICY-3:
        # "on_fail: abort fails the run directly".
        _cite(data, "WF-UNK-4" if crossing else "WF-POLICY-3")
        return event
    if step.modifiers.on_fail == "continue":
        frame["pc"] += 1
        # WF-POLICY-4: "on_fail: continue leaves the step failed, binds it as null, and
        # continues with the next step"; WF-BIND-5: "creates no successful value assignment".
        _cite(data, "WF-POLICY-4", "WF-BIND-5")
        return event
    frame["state"] = "failed"
    frame["error"] = error
    construct = _owner(data, loc)
    # WF-POLICY-5: "The nearest enclosing wf.for_each or wf.parallel applies its iteration
    # or branch failure policy"; outside one the failure reaches the run (WF-STEP-5).
    _cite(data, "WF-POLICY-5" if construct is not None else "WF-STEP-5", "WF-BIND-5")
    if construct is not None:
        body = run.steps[construct["static"]].body
        policy = (
            body.on_iteration_fail
            if isinstance(body, ForEach)
            else body.on_branch_fail
            if isinstance(body, Parallel)
            else None
        )
        if policy == "fail_fast" and construct.get("failing") is None:
            construct["failing"] = error  # the first failed scope fails the construct
    return event


# The key under which a change leaves the failure policy it applied for ``_make`` to cite
# (never part of a configuration: ``_make`` pops it).
CITED = "cited"


def _cite(data: Data, *clauses: str) -> None:
    """The transition being made also cites ``clauses`` (after its rule's own)."""
    data[CITED] = (*data.get(CITED, ()), *clauses)


def _end(
    data: Data,
    loc: Loc,
    outcome: str,
    error: Data | None,
    chain: str,
    source: str,
    crossing: bool = False,
    **more: JSON,
) -> None:
    """A run ends: what its terminal event will say, and the chain's outcome (A-121, A-123).

    The run is the innermost one holding the frame at ``loc``: a call's child
    run (its call keeps the end, A-140) or, when ``crossing`` (an abort
    disposition) or outside any call, the run itself.  The chain is the
    active containment chain of the step that ended it: the active steps of
    the frames enclosing ``loc`` within that run.  The source decides the
    outcome; the cancellation it causes does not (WF-IWC-2, WF-IWC-6/7,
    WF-TERM-11).  ``source`` names the cancellation rule that ends the rest.
    """
    top = 0
    if not crossing:
        top = next(
            (k + 1 for k in reversed(range(len(loc))) if "call" in _at(data, loc[:k])["cur"]), 0
        )
    paths = [_at(data, loc[:k])["cur"]["path"] for k in range(top, len(loc))]
    end: Data = {"outcome": outcome, "chain": chain, "paths": paths, "source": source, **more}
    if error is not None:
        end["error"] = error
    if top:
        _at(data, loc[: top - 1])["cur"]["end"] = end
    else:
        data["end"] = end
        data["phase"] = "ending"


# -- constructs ------------------------------------------------------------------------------


def _iterate(run: WorkfileRun, data: Data, loc: Loc, index: int) -> JSON:
    """Iteration ``index`` of a wf.for_each begins; any unstarted one may (A-127)."""
    frame = _at(data, loc)
    cur = frame["cur"]
    step = run.steps[cur["static"]]
    body = step.body
    assert isinstance(body, ForEach)
    env = {**_env(frame), body.name: cur["items"][index]}
    child = _new_frame(f"{step.step_path}/", f"{cur['path']}[{index}].", env, frame["supp"])
    child["index"] = index
    cur["children"].append(child)
    cur["pending"] = [k for k in cur["pending"] if k != index]
    return _reach(run, data, child, (*loc, len(cur["children"]) - 1))


def _scope(run: WorkfileRun, frame: Data) -> dict[str, JSON]:
    """A retained scope: every step id of the list, null where nothing was bound.

    A failed scope also retains ``error``: "In a retained failed scope,
    error.step is the innermost unhandled failure's step path relative to
    that iteration or branch scope" (WF-POLICY-14, WF-POLICY-10).
    """
    scope = {s.id: frame["scope"].get(s.id) for s in run.lists[frame["list"]]}
    error = frame["error"]
    if frame["state"] == "failed" and error is not None:
        scope["error"] = {
            "code": error["code"],
            "step": error["step"].removeprefix(frame["prefix"]),
        }
    return scope


def _join(run: WorkfileRun, data: Data, loc: Loc, code: str | None = None) -> JSON:
    """A construct whose nested frames settled: its outcome, or its next iteration.

    ``code``: a call's child run's outputs fault with it (A-176, ``_other_faults``).
    """
    frame = _at(data, loc)
    cur = frame["cur"]
    step = run.steps[cur["static"]]
    body = step.body
    children = cur["children"]
    if cur.get("failing") is not None:
        if isinstance(body, Call):  # its own timeout, offered to its catch (WF-CATCH-12/21)
            return _call_fails(run, data, loc, cur["failing"], "timed_out")
        return _construct_fails(run, data, frame, loc, step, cur["failing"])
    if isinstance(body, Call):
        return _child_finished(run, data, loc, code)
    if isinstance(body, ForEach | Parallel):
        if isinstance(body, ForEach):
            ordered = sorted(children, key=lambda c: c["index"])  # iteration indexes (WF-SCHED-4)
            if not body.steps:
                value: JSON = [{} for _ in cur["items"]]
            else:
                value = [_scope(run, c) for c in ordered]
            cur["supp"] = _tree({c["index"]: _scope_supp(run, c) for c in ordered})
        else:
            names = [name for name, _ in body.branches]
            value = {name: _scope(run, c) for name, c in zip(names, children, strict=True)}
            cur["supp"] = _tree(
                {name: _scope_supp(run, c) for name, c in zip(names, children, strict=True)}
            )
        cur["value"] = value  # under continue, failed scopes keep their nulls (WF-POLICY-16)
        return _succeed(run, data, loc)
    failed = next((c for c in children if c["state"] == "failed"), None)
    if failed is not None:
        return _construct_fails(run, data, frame, loc, step, failed["error"])
    if isinstance(body, Choose | Route):
        cur["value"] = _scope(run, children[0]) if children else None
        cur["supp"] = _scope_supp(run, children[0]) if children else {}
        return _succeed(run, data, loc)
    assert isinstance(body, Repeat)
    child = children[-1]
    if run.scenario.dry_run and _affected(child, body.until):  # WF-SCTL-1: no further iteration
        frame["cur"] = None
        return Labelled("suppress_control", _suppress(data, frame, step, cur["path"]))
    try:
        done = run.tested(
            run.resolve(body.until, {**child["env"], **child["scope"]}), "wf.repeat until"
        )
    except EvaluationFault as fault:
        return _construct_fails(
            run, data, frame, loc, step, {"code": fault.code, "step": cur["path"]}
        )
    if done:
        cur["value"] = [_scope(run, c) for c in children]
        cur["supp"] = _tree({k: _scope_supp(run, c) for k, c in enumerate(children)})
        return _succeed(run, data, loc)
    iteration = cur["iteration"] + 1
    if body.max_iterations is not None and iteration >= body.max_iterations:
        error = {"code": "flow.repeat_exhausted", "step": cur["path"]}
        return _construct_fails(run, data, frame, loc, step, error)
    cur["iteration"] = iteration
    nxt = _new_frame(
        f"{step.step_path}/", f"{cur['path']}[{iteration}].", _env(frame), frame["supp"]
    )
    children.append(nxt)
    return _reach(run, data, nxt, (*loc, len(children) - 1))


def _construct_fails(
    run: WorkfileRun, data: Data, frame: Data, loc: Loc, step: Step, error: Data
) -> JSON:
    """A construct failed by a nested failure carries its code and path (WF-POLICY-8/9).

    The policy above it applies as to any failed step (WF-IWC-8).
    """
    why = (
        "repeat_exhausted"
        if error["code"] == "flow.repeat_exhausted"
        else "timed_out"
        if frame["cur"].get("expired")
        else "construct_failed"
    )
    return Labelled(why, _fail(run, data, frame, loc, step, error))


def _child_finished(run: WorkfileRun, data: Data, loc: Loc, code: str | None = None) -> JSON:
    """A call's child run reached its terminal outcome; the call succeeds or fails by it (A-140).

    Completed (outputs evaluated in the child's root scope) or stopped: the
    call binds the result, keeping each member's suppression (WF-PART-5).
    Failed: the call fails with the child's terminal code and details
    (WF-CATCH-12..14).  Cancelled on its own: flow.child_cancelled
    (WF-CANCEL-15).
    """
    frame = _at(data, loc)
    cur = frame["cur"]
    step = run.steps[cur["static"]]
    child = cur["children"][0]
    end = cur.pop("end", None)  # consumed: a handler's frame is not the child's
    event: Data = {"event": "child_finished", "step": cur["path"]}
    error: Data | None = None
    withheld: list[str] = []
    if end is not None and end["source"] == "child":
        event["outcome"] = "cancelled"
        cur.update(phase="failed", children=[], why="child_cancelled")
        cur["failure"] = {"code": "flow.child_cancelled", "step": cur["path"]}
        return Labelled("child_finished", event)
    if end is not None and end["outcome"] == "stopped":
        outcome, result, withheld = "stopped", end["result"], end.get("suppressed", [])
    elif end is not None:
        outcome, error = "failed", end["error"]
    elif child["state"] == "failed":
        outcome, error = "failed", child["error"]
    else:
        callee = run.callees[step.step_path]
        try:
            outcome = "completed"
            result, withheld = _project(run, child, callee.outputs, run.scenario.dry_run)
        except EvaluationFault as fault:
            outcome, error = "failed", {"code": code or fault.code}
    event["outcome"] = outcome
    if error is not None:
        event["error"] = {k: error[k] for k in ("code", "step") if k in error}
        failure = {"code": error["code"], "step": cur["path"]}
        failure.update({k: error[k] for k in ("details", "disposition") if k in error})
        cur.update(phase="failed", children=[], why="child_failed", failure=failure)
        return Labelled("child_finished", event)
    event["result"] = result
    if withheld:
        event["suppressed"] = withheld
    tree: JSON = True if "$" in withheld else {name: True for name in withheld}
    cur.update(phase="succeeded", children=[], value=result, supp=tree)
    return Labelled("child_finished", event)


def _call_fails(run: WorkfileRun, data: Data, loc: Loc, failure: Data, why: str) -> JSON:
    """A call whose nested work was cancelled fails; its catch is offered the code first."""
    cur = _at(data, loc)["cur"]
    # The timeout ended the child run; the handler runs outside that deadline (WF-CATCH-21).
    cur.update(phase="failed", children=[], why=why, failure=failure, failing=None)
    if _handler(run, run.steps[cur["static"]], cur) is not None:
        return Labelled("handle", _handle(run, data, loc))
    return _fail_current(run, data, loc)


# -- termination constructs and cancellation -----------------------------------------------


def _stop(run: WorkfileRun, data: Data, loc: Loc) -> JSON:
    """wf.stop: the step and its enclosing constructs become stopped (A-123).

    Under A-123's other reading (``Options.stop_outcome``) the ``wf.stop``
    step itself succeeded; its enclosing constructs are stopped all the same.
    """
    frame = _at(data, loc)
    cur = frame["cur"]
    own = run.options.stop_outcome
    data["outcomes"] = data["outcomes"].set(cur["path"], own)
    more = {"suppressed": cur["suppressed"]} if cur["suppressed"] else {}
    _end(
        data,
        loc,
        "stopped",
        None,
        "stopped",
        "stop",
        result=cur["result"],
        reason=cur["reason"],
        **more,
    )
    frame["cur"] = None
    frame["state"] = "halted"
    return {"event": "step_finished", "step": cur["path"], "outcome": own}


def _author_fail(run: WorkfileRun, data: Data, loc: Loc) -> JSON:
    """wf.fail: the step fails, never retried or handled; enclosing constructs are cancelled."""
    frame = _at(data, loc)
    cur = frame["cur"]
    step = run.steps[cur["static"]]
    assert isinstance(step.body, Fail)
    error = {"code": step.body.code, "step": cur["path"]}
    data["outcomes"] = data["outcomes"].set(cur["path"], "failed")
    more = {} if cur["reason"] is None else {"reason": cur["reason"]}
    _end(data, loc, "failed", error, "cancelled", "fail", **more)
    frame["cur"] = None
    frame["state"] = "halted"
    return {"event": "step_finished", "step": cur["path"], "outcome": "failed", "error": error}


def _request_cancel(run: WorkfileRun, data: Data) -> JSON:
    """The deployment's cancellation request arrives (the environment's choice, A-130).

    A deployment decision, not syntax (WF-CANCEL-1/2), offered only while the
    run is running (WF-CANCEL-3: against a terminal run it has no effect);
    from here the cutoffs hold (WF-CANCEL-6).
    """
    data["cancel"] = True
    _end(data, (), "cancelled", None, "cancelled", "run")
    return {"event": "cancel_requested"}


def _expire(run: WorkfileRun, data: Data, loc: Loc, found: bool, path: str) -> JSON:
    """The timeout of the step at ``path`` expires (the environment's choice of instant, A-141).

    When that step is active, Internal Work Cancellation ends its nested work
    (WF-IWC-1, WF-IWC-3); it then fails with flow.timeout (``_join``).  When
    it is not (not begun, or ended), the timer is no longer pending and its
    expiry is late: it changes nothing (WF-LATE-2, WF-LATE-3).
    """
    cur = _interrupted(data, "expire", path, loc, found)
    if cur is None and found and run.options.handler_deadline == "bounded":
        cur = _at(data, loc)["cur"]  # A-141's other reading: the handler is bounded too
        if cur is None or cur.get("phase") != "handler" or not _open(cur):
            cur = None
    if cur is not None:
        cur["failing"] = {"code": "flow.timeout", "step": path}
        cur["expired"] = True
    return {"event": "timer_fired", "step": path}


def _handler_expired(run: WorkfileRun, data: Data, loc: Loc) -> JSON:
    """A call's deadline passed while its catch handler ran (A-141, reading ``bounded``).

    Internal Work Cancellation ended the handler's work (WF-IWC-1, WF-IWC-3);
    the call fails with flow.timeout, its own path, and is not offered to
    its catch again (the handler ran; the expiry's failure replaces the one
    it handled).
    """
    frame = _at(data, loc)
    cur = frame["cur"]
    step = run.steps[cur["static"]]
    return Labelled("timed_out", _fail(run, data, frame, loc, step, cur["failing"]))


def _request_cancel_child(run: WorkfileRun, data: Data, loc: Loc, found: bool, path: str) -> JSON:
    """The deployment cancels the child run of the call at ``path`` on its own (A-140).

    It does not cancel the caller (WF-CANCEL-14); the child's active work is
    cancelled, then the call fails with flow.child_cancelled (WF-CANCEL-15).
    Against a call that is not active, it has no effect (WF-CANCEL-3).
    """
    cur = _interrupted(data, "cancelChild", path, loc, found)
    if cur is not None and "call" in cur:
        cur["end"] = {"outcome": "cancelled", "chain": "cancelled", "paths": [], "source": "child"}
    return {"event": "child_cancel_requested", "step": path}


def _interrupted(data: Data, what: str, path: str, loc: Loc, found: bool) -> Data | None:
    """Record the interruption as fired; the step it reaches, when its nested work is open."""
    data["fired"] = sorted([*data["fired"], f"{what} {path}"])
    cur = _at(data, loc)["cur"] if found else None
    return cur if cur is not None and cur.get("phase") == "children" and _open(cur) else None


def _open(cur: Data) -> bool:
    """Whether an active construct's nested work is neither being cancelled nor ending."""
    return cur.get("failing") is None and cur.get("end") is None


def _cancel(run: WorkfileRun, data: Data, loc: Loc, end: Data) -> JSON:
    """An active step whose nested work has ended is ended by the cancellation in force.

    Under a run's end, the constructs on the chain of the step that ended it
    take the chain's outcome (stopped for wf.stop, failed for an abort,
    cancelled for wf.fail and Core Cancellation); every other active step
    becomes cancelled (WF-CANCEL-8, WF-IWC-3..5, WF-SOUT-7: it "had begun").
    An outstanding write attempt's effect stays unknown (WF-TERM-8,
    WF-CANCEL-12/13); its result, if it comes, is late and changes nothing
    here (WF-LATE-1, WF-LATE-4: the unknown effect is retained).  The engine
    withdraws the call (WF-CANCEL-7: "requests cancellation of in-flight work").
    """
    frame = _at(data, loc)
    cur = frame["cur"]
    path = cur["path"]
    outcome = "cancelled"
    event: Data = {"event": "step_finished", "step": path}
    if path in end["paths"] and end["chain"] != "cancelled":
        outcome = end["chain"]
        if (
            outcome == "stopped"
            and run.options.handled_stop == "succeeded"
            and isinstance(run.steps[cur["static"]].body, Action)
        ):
            outcome = "succeeded"  # the handled action step is not a construct
        if outcome == "failed":
            event["error"] = {"code": end["error"]["code"], "step": end["error"]["step"]}
    if cur.get("phase") == "outstanding":
        step = run.steps[cur["static"]]
        if _writes(run.spec(step)):
            _record(data, {"step": path, "attempt": cur["attempt"], "effect": "unknown"})
    data["outcomes"] = data["outcomes"].set(path, outcome)
    frame["cur"] = None
    frame["state"] = "halted"
    event["outcome"] = outcome
    return Labelled(CANCELLED_BY[end["source"]], event)


class Deferred(Transition[Config]):
    """A cancellation taken before the event of the step whose end began it (A-175)."""

    __slots__ = ()


def _may_begin_cancellation(t: Transition[Config], path: str) -> bool:
    """Whether ``t`` ends the step at ``path`` in a way that may cancel other work.

    ``wf.stop`` (whatever its own outcome, A-123), and a failure: ``wf.fail``,
    an abort, one a ``fail_fast`` construct meets.  Whether it does is
    ``_deferred``'s to find.
    """
    event = t.event
    return (
        event.get("step") == path
        and event.get("event") == "step_finished"
        and (t.rule == "stop" or event.get("outcome") == "failed")
    )


def _finish_own(run: WorkfileRun, data: Data, loc: Loc) -> JSON:
    """The step whose end began a cancellation reports it, after work it cancelled (A-175).

    Its frame becomes what the step's own rule left it (``_deferred``), and
    the event and clauses are that rule's.
    """
    frame = _at(data, loc)
    cur = frame["cur"]
    _cite(data, *cur["clauses"])
    frame.clear()
    frame.update(cur["after"])
    return copy.deepcopy(cur["event"])


# The rule that ends an active step, by what ended its run or its enclosing work.
CANCELLED_BY = {
    "run": "cancel_run",
    "stop": "cancel_stop",
    "abort": "cancel_abort",
    "fail": "cancel_internal",
    "internal": "cancel_internal",
    "child": "cancel_child",
}


def _finish(run: WorkfileRun, data: Data, loc: Loc = (), code: str | None = None) -> JSON:
    """The run becomes terminal: exactly one outcome (WF-TERM-1, Outputs, WF-CUT-3).

    Nothing follows it (WF-TERM-7, WF-CUT-2).  A cancelled run has no result
    (WF-CANCEL-10, WF-ROUT-4, WF-CUT-4); an ambiguity's disposition is part
    of the terminal failure (WF-ROUT-7).
    """
    end = data["end"]
    root = data["root"]
    if end is None:
        assert _settled(run, root), "no rule applies, yet the root step list has not ended"
        if root["state"] == "failed":
            end = {"outcome": "failed", "error": root["error"]}
        else:
            try:
                result, withheld = _project(run, root, run.workfile.outputs, run.scenario.dry_run)
                end = {"outcome": "completed", "result": result}
                if withheld:
                    end["suppressed"] = withheld
            except EvaluationFault as fault:
                # ``code``: another entry's fault (A-176, ``WorkfileRun._other_faults``).
                end = {"outcome": "failed", "error": {"code": code or fault.code}}
    elif code is not None and "others" in end:
        # The implicit dry-run stop's outputs faulted in several entries (A-176, stateful.py).
        end = {**end, "error": {**end["error"], "code": code}}
    final: Data = {"outcome": end["outcome"]}
    for member in ("result", "reason", "suppressed"):
        if member in end:
            final[member] = end[member]
    if "error" in end:
        error = end["error"]
        final["error"] = {k: error[k] for k in ("code", "step") if k in error}
        if error.get("code") == AMBIGUOUS and "disposition" in error:
            final["disposition"] = error["disposition"]  # WF-UNK-3
    final["unknownEffects"] = sorted(data["effects"], key=lambda e: (e["step"], e["attempt"]))
    data["final"] = final
    data["phase"] = "finished"
    event = {"event": "run_finished", **final}
    if run.scenario.dry_run:  # outputs were checked for dependencies (WF-PART-1)
        return Labelled("finish_dry", event)
    return event


def _start(run: WorkfileRun, data: Data) -> JSON:
    """Inputs validated and established before the first step (WF-START-1..6, A-120)."""
    inputs, problem = establish(run.workfile, run.scenario.inputs)
    if problem is None and run.scenario.dry_run and run.live_events():
        problem = {"code": "invocation.dry_run"}  # a live event source (WF-DRY-15, A-133)
    if problem is not None:
        data["phase"] = "finished"
        data["final"] = {"outcome": "rejected", "error": problem}
        rule = "reject_dry" if problem["code"] == "invocation.dry_run" else "reject"
        return Labelled(rule, {"event": "run_rejected", "error": problem})
    data["phase"] = "running"
    run.begin(data, {"inputs": inputs, "run": {"dry_run": run.scenario.dry_run}})
    return {"event": "run_started", "inputs": inputs}


def establish(
    workfile: Workfile | StateWorkfile, given: JSON
) -> tuple[dict[str, JSON], Data | None]:
    """A run's inputs from the caller's values: defaults applied, or the first problem (A-120)."""
    fields = {f.name: f for f in workfile.inputs}
    problem = None
    inputs: dict[str, JSON] = {}
    for name in given:
        if name not in fields:
            problem = problem or {"code": "input.unknown", "input": name}
    for name, field in fields.items():
        if name in given:
            if not INPUT_TYPES.get(field.type, lambda v: True)(given[name]):
                problem = problem or {"code": "input.type", "input": name}
            inputs[name] = given[name]
        elif field.default is not ABSENT:
            inputs[name] = field.default
        elif field.required:
            problem = problem or {"code": "input.required", "input": name}
    return inputs, problem


# -- dry runs: suppression (issue 14) ------------------------------------------------------
#
# A frame's ``supp`` maps a visible binding name to its suppression tree:
# True (the value, or an ancestor of what a path selects, is suppressed) or
# {member or list index: tree} holding only suppressed leaves (never empty).


def _checked(step: Step) -> list[JSON]:
    """The enclosing-scope expressions checked before a step starts (WF-SUPP-9/10, A-134).

    Nested bodies and handlers are checked when reached (WF-SUPP-11/12);
    for ``wf.render`` only the ``with`` projection (WF-SUPP-22/23).
    """
    body = step.body
    fields: list[JSON] = [step.modifiers.when]
    if isinstance(body, Action):
        fields.append(body.args)
    elif isinstance(body, ForEach):
        fields.append(body.items)
    elif isinstance(body, Choose):
        fields.extend(arm.when for arm in body.arms)
    elif isinstance(body, Route):
        fields.append(body.subject)
    elif isinstance(body, Render):
        fields.append(body.projection)
    elif isinstance(body, Stop | Fail):
        fields.append(body.reason)
    elif isinstance(body, Call):
        fields.append(body.inputs)
    return [f for f in fields if f is not ABSENT]


def _affected(frame: Data, value: JSON) -> bool:
    """Whether a reference of a template in ``value`` is affected (WF-SUPP-3..7).

    Statically, without evaluating: every reference of every branch,
    operand and filter argument (``template_refs``); a literal path selects
    one member, a computed index (``ANY``) every member at its level.
    """
    supp = frame["supp"]
    if not supp or value is ABSENT:
        return False
    return any(_selects(supp.get(path[0]), path[1:]) for path in template_refs(value))


def _selects(tree: JSON, rest: tuple[Any, ...]) -> bool:
    """Whether selecting ``rest`` under a suppression tree meets suppression."""
    if tree is None:
        return False
    if tree is True or not rest:  # a suppressed ancestor, or a suppressed descendant
        return True
    segment, more = rest[0], rest[1:]
    if segment is ANY:
        return any(_selects(sub, more) for sub in tree.values())
    return _selects(tree.get(segment), more)


def _suppress(data: Data, frame: Data, step: Step, path: str) -> JSON:
    """The step ends suppressed: no binding, references read null, tracked (WF-DRY-7, WF-SUPP-1).

    Its list goes on (WF-DRY-9, WF-SUPP-19); a body that never starts leaves
    its steps not_run (WF-SUPP-15).
    """
    frame["pc"] += 1
    data["outcomes"] = data["outcomes"].set(path, "suppressed")
    if not isinstance(step.body, Stop | Fail | Wait):
        frame["supp"] = {**frame["supp"], step.id: True}
    return {"event": "step_finished", "step": path, "outcome": "suppressed"}


def _scope_supp(run: WorkfileRun, frame: Data) -> dict[Any, JSON]:
    """A retained scope's suppression: its own steps' trees (not those it inherited)."""
    ids = {s.id for s in run.lists[frame["list"]]}
    return {name: tree for name, tree in frame["supp"].items() if name in ids}


def _tree(members: Mapping[Any, JSON]) -> dict[Any, JSON]:
    """A suppression tree without empty members."""
    return {key: tree for key, tree in members.items() if tree}


def _member_paths(tree: JSON, prefix: str = "") -> list[str]:
    """The suppressed member paths of a tree, as references write them (``[1].b``, ``x.y``)."""
    if tree is True:
        return [prefix]
    found: list[str] = []
    for key, sub in tree.items():
        segment = f"[{key}]" if isinstance(key, int) else (f".{key}" if prefix else str(key))
        found.extend(_member_paths(sub, prefix + segment))
    return found


def _project(run: WorkfileRun, frame: Data, value: JSON, dry: bool) -> tuple[JSON, list[str]]:
    """Outputs or a stop result, entry by entry in a dry run (WF-PART-1..4, A-136).

    Each top-level member is checked whole before any part of it is
    evaluated: an affected one is null and named in the second result;
    the others evaluate as usual, and their faults still fault.  A result
    that is not a mapping is one entry, named ``$``.
    """
    env = {**frame["env"], **frame["scope"]}
    if value is ABSENT:
        return {}, []
    if not dry:
        return run.resolve(value, env), []
    if not isinstance(value, dict):
        return (None, ["$"]) if _affected(frame, value) else (run.resolve(value, env), [])
    result: dict[str, JSON] = {}
    withheld: list[str] = []
    for name, entry in value.items():
        if _affected(frame, entry):
            result[name] = None
            withheld.append(name)
        else:
            result[name] = run.resolve(entry, env)
    return result, sorted(withheld)


def _output_faults(run: WorkfileRun, frame: Data, value: JSON, dry: bool) -> list[str]:
    """The distinct fault codes of ``value``'s templates evaluated one by one (A-176).

    In document order; in a dry run, a top-level member the run's
    suppression affects is not evaluated (``_project``).
    """
    env = {**frame["env"], **frame["scope"]}
    codes: list[str] = []

    def visit(member: JSON) -> None:
        if isinstance(member, dict | list):
            for item in member.values() if isinstance(member, dict) else member:
                visit(item)
            return
        try:
            run.resolve(member, env)
        except EvaluationFault as fault:
            if fault.code not in codes:
                codes.append(fault.code)

    if value is ABSENT:
        return codes
    for entry in value.values() if isinstance(value, dict) else [value]:
        if not (dry and _affected(frame, entry)):
            visit(entry)
    return codes


def _halting(run: WorkfileRun) -> tuple[dict[str, bool], dict[str, bool]]:
    """For each step (by static path): whether it may fail, and whether it may halt others.

    Over-approximated from the document and the scenario.  A step *fails*
    (passes a failure to its list) when it may fail and ``on_fail`` is not
    ``continue``: an action with a scripted error or a template that may
    fault; a construct whose fields hold a template, whose nested list may
    fail (``wf.choose``, ``wf.route``, ``wf.repeat``, a ``fail_fast``
    iteration or branch), or a ``wf.repeat`` (which may exhaust).  A step
    *halts* work it does not contain when it may end the run: ``wf.stop``,
    ``wf.fail``, ``on_fail: abort`` on a step that may fail, an ambiguous
    result (its abort bypasses every policy), a ``fail_fast`` construct whose
    iterations or branches may fail (it cancels them), or a nested step
    that halts.
    """
    scripted: dict[str, list[JSON]] = {}
    for key, results in run.scenario.attempts.items():
        scripted.setdefault(static_path(key), []).extend(results)
    fails: dict[str, bool] = {}
    halts: dict[str, bool] = {}

    def visit(steps: tuple[Step, ...]) -> tuple[bool, bool]:
        """Whether some step of the list fails, and whether some halts."""
        any_fails = any_halts = False
        for step in steps:
            body = step.body
            nested = [visit(inner) for _, inner in run.nested(step)]
            handlers = [visit(h.steps) for h in step.modifiers.catch]
            nested_fails = any(f for f, _ in nested)
            isolated = isinstance(body, ForEach | Parallel)
            continues = (isinstance(body, ForEach) and body.on_iteration_fail == "continue") or (
                isinstance(body, Parallel) and body.on_branch_fail == "continue"
            )
            errors = [r["error"] for r in scripted.get(step.step_path, ()) if "error" in r]
            spec = run.spec(step) if isinstance(body, Action) else None
            ambiguous = any(
                classification(spec, code, run.options.unclassified) == "unknown" for code in errors
            )
            may_fail = (
                bool(errors)
                or _templated(step)
                or isinstance(body, Repeat | Fail | Call)  # a child run may fail
                or (nested_fails and not continues)
            )
            fails[step.step_path] = may_fail and step.modifiers.on_fail != "continue"
            halts[step.step_path] = (
                isinstance(body, Stop | Fail | Call)
                or ambiguous
                or (may_fail and step.modifiers.on_fail == "abort")
                or (isolated and nested_fails and not continues)
                or any(h for _, h in nested + handlers)
            )
            any_fails = any_fails or fails[step.step_path]
            any_halts = any_halts or halts[step.step_path]
        return any_fails, any_halts

    for key in run.roots:
        visit(run.lists[key])
    return fails, halts


def _templated(step: Step) -> bool:
    """Whether evaluating the step's fields may fault: a template, or a literal of the wrong kind.

    A guard or a ``wf.choose`` arm guard that is not a boolean literal, and
    ``items`` that is not a list literal, may fault even without a marker
    (A-117: guards take booleans; A-127: items is an array).
    """
    body = step.body
    when = step.modifiers.when
    if when is not ABSENT and not isinstance(when, bool):
        return True
    if isinstance(body, ForEach) and not isinstance(body.items, list):
        return True
    if isinstance(body, Choose) and any(not isinstance(arm.when, bool) for arm in body.arms):
        return True
    fields = [getattr(body, a.name) for a in attrs.fields(type(body))]
    text = json.dumps(
        [f for f in fields if not isinstance(f, tuple) and f is not ABSENT], default=str
    )
    return "{{" in text


def outcome(run: WorkfileRun, config: Config) -> JSON:
    """A terminal configuration's final state: the run's outcome and each begun step's.

    A step that never began is not listed: its outcome is not_run (WF-SOUT-8).
    """
    data = config.data
    final = dict(data["final"] or {"outcome": None})
    final["steps"] = dict(sorted(data["outcomes"].items()))
    final.setdefault("unknownEffects", [])
    return final
