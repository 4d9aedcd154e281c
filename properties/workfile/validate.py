"""Static validation of Workfile Core documents: one report with every problem.

Checks, each citing its clause (``wforacle clauses --spec workfile``) or
assumption (docs/workfile.md):

* reading: safe YAML, the closed vocabulary (model/workfile/loader.py);
* names and scopes: single assignment, references to earlier bindings only,
  no reference into a sibling scope or a construct not yet joined, void
  steps bind nothing (WF-STEP-10, WF-STEP-11, A-114);
* templates read only their ``with`` projection (WF-SUPP-22);
* retry: a delay policy needs ``initial``, ``initial`` not above ``max``
  (WF-RETRY-3/4, A-110);
* catch: a handler omits no required result where the handled operation has
  an output contract (WF-CATCH-5/6, ``document.control``); a pattern that a
  more precise one always beats, or that matches no code the action can
  produce, never runs (WF-CODE-1/2);
* with manifests (``Static Facts``): actions and triggers exist; the
  ambiguity warnings of on_unknown (WF-UNK-15..19).

A state-form document (the Stateful Profile) gets the same checks in each
entry's step lists, its cross-state checks (properties/workfile/states.py),
and the scopes of its entries and outputs (``_StateChecker``: WFS-ENTRY-8..15,
WFS-TRANS-21..26, WFS-FORM-13; A-147).
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Mapping
from typing import Any

import attrs

from wforacle.model.diagnostics import Diagnostic, Gate, Report, error, sort_diagnostics, warning
from wforacle.model.workfile.codes import RESERVED_CODES, CodePattern, select
from wforacle.model.workfile.document import (
    ABSENT,
    VOID_BODIES,
    Action,
    Call,
    Choose,
    Fail,
    ForEach,
    Handler,
    Parallel,
    Render,
    Repeat,
    Route,
    Step,
    Stop,
    WaitFor,
    Workfile,
    walk,
)
from wforacle.model.workfile.expr import ExprError, Path, path_text, refs, template, template_refs
from wforacle.model.workfile.loader import Loader
from wforacle.model.workfile.manifest import ActionSpec, Manifests
from wforacle.model.workfile.states import Direct, State, StateWorkfile, Transition
from wforacle.model.workfile.types import joined_shape, static_type

JSON = Any
# Root names every scope can read: the invocation's inputs and run metadata.
RESERVED_ROOTS = frozenset({"inputs", "run"})
# Names no step may bind: the roots, and the handler's error binding (WF-CATCH-8).
RESERVED_NAMES = RESERVED_ROOTS | {"error"}


@attrs.frozen
class Validation:
    """The report and, when the document could be read, the Workfile.

    ``workfile`` is a Core document (the one a run reads); ``states`` a
    state-form document of the Stateful Profile, which the model validates
    but does not run yet.
    """

    report: Report
    workfile: Workfile | None
    states: StateWorkfile | None = None

    @property
    def document(self) -> Workfile | StateWorkfile | None:
        """Whichever document was read."""
        return self.workfile if self.workfile is not None else self.states


def validate(
    text: str | bytes,
    manifests: Manifests | None = None,
    workflows: Mapping[str, Workfile] | None = None,
) -> Validation:
    """Validate a Workfile's YAML text, against ``manifests`` and the callees when supplied."""
    loader = Loader()
    document = loader.load_text(text)
    problems = list(loader.problems)
    if isinstance(document, StateWorkfile):
        problems += list(_StateChecker(document, manifests).run())
        return Validation(Report(sort_diagnostics(problems)), None, document)
    if document is not None:
        problems += list(_Checker(document, manifests).run())
        if workflows is not None:
            problems += call_contracts(document, workflows)
    return Validation(Report(sort_diagnostics(problems)), document)


def call_contracts(workfile: Workfile, workflows: Mapping[str, Workfile]) -> list[Diagnostic]:
    """A wf.call handler's literal result members against its callee's joined object shape.

    WF-CATCH-23: "The replacement result MUST be statically assignable to
    … the callee's joined successful result type"; WF-CATCH-24: "For a
    callee's joined object shape, replacement members MUST have declared
    names and assignable types; every member whose type excludes null is
    required".  Checked where the callee is known (``--workflows DIR``, a
    case's ``workflows``) and the result is written as a mapping; a type
    only where the document establishes it on both sides (A-148, A-172:
    a literal, a template with text, a typed input), so a member whose
    value is known only at run time is checked at run time
    (model/workfile/run.py ``_handled``), as is a result written as one
    template.
    """
    found: list[Diagnostic] = []
    inputs = {field.name: field for field in workfile.inputs}
    for step in walk(workfile.steps):
        body = step.body
        if not isinstance(body, Call) or body.workflow not in workflows:
            continue
        shape = joined_shape(workflows[body.workflow])
        if shape is None:
            continue
        for handler in step.modifiers.catch:
            if not isinstance(handler.result, dict):
                continue
            where = f"{handler.path}.result"
            replaces = f"the handler for {handler.pattern.text!r} replaces {step.id}'s result"
            for member in sorted(set(handler.result) - set(shape)):
                shown = ", ".join(shape) or "none"
                found.append(
                    _error(
                        "document.type",
                        f"{where}.{member}",
                        f"{replaces} with a member {member!r} that {body.workflow!r} does not "
                        f"declare (its outputs and stop results declare: {shown})",
                        "WF-CATCH-24",
                    )
                )
            for member, slot in shape.items():
                if member not in handler.result:
                    if slot.required:
                        found.append(
                            _error(
                                "document.type",
                                where,
                                f"{replaces} without {member!r}, which every successful result "
                                f"of {body.workflow!r} holds as {slot.type}: a member whose type "
                                "excludes null is required (A-172)",
                                "WF-CATCH-24",
                            )
                        )
                    continue
                given = static_type(handler.result[member], inputs, {})
                if given is not None and not slot.admits(given):
                    nullable = " or null" if slot.nullable else ""
                    found.append(
                        _error(
                            "document.type",
                            f"{where}.{member}",
                            f"{replaces} with {member!r} as {given}, which is not assignable to "
                            f"{body.workflow!r}'s {slot.type}{nullable} (A-172)",
                            "WF-CATCH-24",
                        )
                    )
    return found


def _error(code: str, path: str, message: str, clause: str) -> Diagnostic:
    return error(code, path, message, clause, Gate.SAVE)


def _warning(code: str, path: str, message: str, clause: str) -> Diagnostic:
    return warning(code, path, message, clause, Gate.SAVE)


@attrs.frozen
class Scope:
    """What a point of the document can read: name → the step binding it (None: a root).

    A chain of frames, one per step list or construct, so a long step list
    does not copy what it can see at every step; ``continuing`` lists the
    continue policies around this point (for WF-UNK-15).
    """

    names: dict[str, Step | None] = attrs.field(factory=dict)
    parent: Scope | None = None
    continuing: tuple[str, ...] = ()

    def lookup(self, name: str) -> tuple[bool, Step | None]:
        """Whether ``name`` is visible here, and the step that binds it."""
        frame: Scope | None = self
        while frame is not None:
            if name in frame.names:
                return True, frame.names[name]
            frame = frame.parent
        return False, None

    def child(self, **names: Step | None) -> Scope:
        """A new frame inside this one, holding ``names``."""
        return Scope(dict(names), self, self.continuing)

    def continued(self, how: str) -> Scope:
        """A new frame inside a continue policy (``on_fail``, ``on_iteration_fail``, …)."""
        return Scope({}, self, (*self.continuing, how))


class _Checker:
    def __init__(self, workfile: Workfile, manifests: Manifests | None) -> None:
        self.workfile = workfile
        self.manifests = manifests

    def run(self) -> Generator[Diagnostic, None, None]:
        root = Scope(dict.fromkeys(RESERVED_ROOTS))
        scope = yield from self.step_list(self.workfile.steps, root)
        if self.workfile.outputs is not ABSENT:
            yield from self.reads(self.workfile.outputs, "$.outputs", scope)

    # -- scopes ------------------------------------------------------------------------

    def step_list(
        self, steps: tuple[Step, ...], scope: Scope
    ) -> Generator[Diagnostic, None, Scope]:
        """Check a step list in order; return the scope after its last step."""
        local = scope.child()
        for step in steps:
            yield from self.step(step, local)
            visible, bound = local.lookup(step.id)
            if step.id in local.names and bound is not None:
                yield _error(
                    "document.duplicate_binding",
                    step.path,
                    f"{step.id!r} is bound twice in one step list (first at {bound.path}); "
                    "a step id binds once per scope",
                    "WF-STEP-11",
                )
            elif visible:
                where = "a reserved name" if bound is None else f"bound at {bound.path}"
                yield _error(
                    "document.duplicate_binding",
                    step.path,
                    f"{step.id!r} is already visible here ({where}); single assignment forbids "
                    "binding it again in a nested scope",
                    "WF-STEP-11",
                )
            if not visible:
                local.names[step.id] = step
        return local

    def step(self, step: Step, scope: Scope) -> Iterator[Diagnostic]:
        m = step.modifiers
        if m.when is not ABSENT:
            yield from self.reads(m.when, f"{step.path}.when", scope)
        inner = scope.continued("on_fail") if m.on_fail == "continue" else scope
        yield from self.body(step, inner)
        for handler in m.catch:
            yield from self.handler(step, handler, scope)
        yield from self.retry(step)
        yield from self.patterns(step)
        yield from self.manifest_facts(step, inner)

    def body(self, step: Step, scope: Scope) -> Iterator[Diagnostic]:
        body = step.body
        here = step.path
        if isinstance(body, Action):
            yield from self.reads(body.args, here, scope)
        elif isinstance(body, ForEach):
            yield from self.reads(body.items, f"{here}.items", scope)
            iteration = scope.child(**{body.name: None})
            if body.on_iteration_fail == "continue":
                iteration = iteration.continued("on_iteration_fail")
            yield from self.step_list(body.steps, iteration)
        elif isinstance(body, Parallel):
            branch_scope = (
                scope.continued("on_branch_fail") if body.on_branch_fail == "continue" else scope
            )
            for _, steps in body.branches:
                yield from self.step_list(steps, branch_scope)
        elif isinstance(body, Repeat):
            after = yield from self.step_list(body.steps, scope)
            # ``until`` is checked after each iteration, in the iteration's scope.
            yield from self.reads(body.until, f"{here}.until", after)
        elif isinstance(body, Choose):
            for k, arm in enumerate(body.arms):
                yield from self.reads(arm.when, f"{here}.arms[{k}].when", scope)
                yield from self.step_list(arm.steps, scope)
            if body.otherwise is not None:
                yield from self.step_list(body.otherwise, scope)
        elif isinstance(body, Route):
            yield from self.reads(body.subject, f"{here}.subject", scope)
            for _, steps in body.cases:
                yield from self.step_list(steps, scope)
            if body.otherwise is not None:
                yield from self.step_list(body.otherwise, scope)
        elif isinstance(body, Call):
            yield from self.reads(body.inputs, f"{here}.inputs", scope)
        elif isinstance(body, Stop):
            yield from self.reads(body.reason, f"{here}.reason", scope)
            if body.result is not ABSENT:
                yield from self.reads(body.result, f"{here}.result", scope)
        elif isinstance(body, Fail):
            if body.reason is not ABSENT:
                yield from self.reads(body.reason, f"{here}.reason", scope)
        elif isinstance(body, WaitFor):
            yield from self.reads(body.match, f"{here}.match", scope)
        elif isinstance(body, Render):
            yield from self.reads(body.projection, f"{here}.with", scope)
            yield from self.render_template(step, body)

    def handler(self, step: Step, handler: Handler, scope: Scope) -> Iterator[Diagnostic]:
        inner = scope.child(error=None)
        after = yield from self.step_list(handler.steps, inner)
        if handler.result is not ABSENT:
            yield from self.reads(handler.result, f"{handler.path}.result", after)
        elif self.output_contract(step) is not None:
            yield _error(
                "document.control",
                handler.path,
                f"the handler for {handler.pattern.text!r} gives no result, but "
                f"{self.output_contract(step)}: omitting a handler's required result is invalid",
                "WF-CATCH-5",
            )

    def output_contract(self, step: Step) -> str | None:
        """Why the step's operation has an output contract, or None (WF-CATCH-5/6)."""
        if isinstance(step.body, Call):
            return "every wf.call has an object result contract (WF-CATCH-6)"
        if isinstance(step.body, Action) and self.manifests is not None:
            spec = self.manifests.action(step.body.name)
            if spec is not None and spec.output is not None:
                return f"{step.body.name} declares an output of type {spec.output}"
        return None

    # -- references --------------------------------------------------------------------

    def reads(self, value: JSON, path: str, scope: Scope) -> Iterator[Diagnostic]:
        """Every reference in ``value``'s templates must name something visible here."""
        try:
            found = template_refs(value)
        except ExprError:
            return  # reported by the loader
        for ref in sorted(found, key=path_text):
            yield from self.reference(ref, path, scope)

    def reference(self, ref: Path, path: str, scope: Scope) -> Iterator[Diagnostic]:
        root = ref[0]
        visible, bound = scope.lookup(root)
        if not visible:
            yield _error(
                "document.reference",
                path,
                f"{path_text(ref)} reads {root!r}, which no earlier step in this scope or an "
                "enclosing one binds (a binding is visible only to later steps in its scope and "
                "to scopes nested after its creation)",
                "WF-STEP-10",
            )
            return
        if bound is not None and isinstance(bound.body, VOID_BODIES):
            yield _error(
                "document.reference",
                path,
                f"{path_text(ref)} reads {root!r}, a {type(bound.body).__name__.lower()} step, "
                "which creates no binding",
                "A-114",
            )

    def render_template(self, step: Step, body: Render) -> Iterator[Diagnostic]:
        """A template reads only its projected bindings (WF-SUPP-22)."""
        if body.template is None:
            return
        try:
            parsed = template(body.template)
        except ExprError:
            return
        projected = set(body.projection) if isinstance(body.projection, dict) else set()
        for expr in parsed.expressions:
            for ref in sorted(refs(expr), key=path_text):
                if ref[0] not in projected:
                    yield _error(
                        "document.reference",
                        f"{step.path}.template",
                        f"the template reads {path_text(ref)}, but a template reads only the "
                        "bindings its with projection supplies "
                        f"({', '.join(sorted(projected)) or 'none'})",
                        "WF-SUPP-22",
                    )

    # -- modifiers ---------------------------------------------------------------------

    def retry(self, step: Step) -> Iterator[Diagnostic]:
        retry = step.modifiers.retry
        if retry is None:
            return
        if retry.policy in ("fixed", "exponential") and retry.initial_ms is None:
            yield _error(
                "document.retry",
                retry.path,
                f"a {retry.policy} retry computes its delay from initial, which is missing",
                "WF-RETRY-3",
            )
        if (
            retry.initial_ms is not None
            and retry.max_ms is not None
            and retry.initial_ms > retry.max_ms
        ):
            yield _error(
                "document.retry",
                retry.path,
                f"initial ({retry.initial_ms} ms) exceeds max ({retry.max_ms} ms): every delay "
                "would be capped at max, so initial says nothing",
                "WF-RETRY-4",
            )

    def patterns(self, step: Step) -> Iterator[Diagnostic]:
        """Catch patterns that can never be selected (WF-CODE-1/2)."""
        handlers = step.modifiers.catch
        patterns = [h.pattern for h in handlers]
        for handler in handlers:
            shadow = _always_beaten(handler.pattern, patterns)
            if shadow is not None:
                yield _warning(
                    "catch_never_matches",
                    handler.path,
                    f"{handler.pattern.text!r} never runs: every code it matches is taken by "
                    f"{shadow.text!r} (a prefix pattern takes precedence over an HTTP-status "
                    "pattern)",
                    "WF-CODE-2",
                )
        domain = self.codes(step)
        if domain is None:
            return
        for handler in handlers:
            if not handler.pattern.text.startswith("flow."):
                # A connector code the manifest does not cover still fails the step and is
                # offered to catch: a pattern that may match one can run.
                continue
            if not any(select(code, patterns) == handler.pattern for code in domain):
                yield _warning(
                    "catch_never_matches",
                    handler.path,
                    f"{handler.pattern.text!r} matches none of the codes this step can fail with "
                    f"({', '.join(sorted(domain))}), or a more precise pattern always takes them",
                    "WF-CODE-1",
                )

    def codes(self, step: Step) -> frozenset[str] | None:
        """The codes an action step can offer its handlers, when the manifest lists them all.

        Besides these, a connector code the manifest does not cover (A-119): ``patterns``
        judges by this set only the patterns in the ``flow.`` namespace, which no connector
        code is in.
        """
        if not isinstance(step.body, Action) or self.manifests is None:
            return None
        spec = self.manifests.action(step.body.name)
        finite = None if spec is None else spec.finite_codes
        if finite is None:
            return None
        if step.modifiers.on_unknown == "fail":
            finite |= {"flow.action_ambiguous"}  # WF-CATCH-10
        if step.modifiers.timeout_ms is not None:
            finite |= {"flow.timeout"}
        return finite | RESERVED_CODES

    # -- static facts from manifests ------------------------------------------------------

    def manifest_facts(self, step: Step, scope: Scope) -> Iterator[Diagnostic]:
        if self.manifests is None:
            return
        body = step.body
        if isinstance(body, WaitFor):
            if (
                self.manifests.knows(body.event.partition(".")[0])
                and self.manifests.trigger(body.event) is None
            ):
                yield _error(
                    "document.unknown_trigger",
                    f"{step.path}.event",
                    f"no manifest declares the trigger {body.event!r}",
                    "A-116",
                )
            return
        if not isinstance(body, Action):
            return
        if not self.manifests.knows(body.connector):
            yield _error(
                "document.unknown_action",
                step.path,
                f"no manifest was supplied for connector {body.connector!r}",
                "A-116",
            )
            return
        spec = self.manifests.action(body.name)
        if spec is None:
            yield _error(
                "document.unknown_action",
                step.path,
                f"the {body.connector} manifest declares no action {body.action!r}",
                "A-116",
            )
            return
        yield from self.ambiguity(step, spec, scope)

    def ambiguity(self, step: Step, spec: ActionSpec, scope: Scope) -> Iterator[Diagnostic]:
        """The validator warnings of on_unknown (WF-UNK-15..19)."""
        if spec.effects != "write" or step.modifiers.on_unknown not in (None, "abort"):
            return
        if not scope.continuing:
            return
        policy = {
            "on_fail": "on_fail: continue",
            "on_iteration_fail": "an enclosing on_iteration_fail: continue",
            "on_branch_fail": "an enclosing on_branch_fail: continue",
        }[scope.continuing[-1]]
        if spec.idempotency == "none":
            yield _warning(
                "ambiguity_bypasses_continue",
                step.path,
                f"{spec.connector}.{spec.name} writes with idempotency: none under {policy}, and "
                "its on_unknown is abort: an ambiguous result (the connector cannot say whether "
                "the write happened) bypasses the expressed continuation policy and terminates "
                "the run with flow.action_ambiguous.  If ordinary failure policy is intended, "
                "declare on_unknown: fail, which passes flow.action_ambiguous into catch, "
                "on_fail and the enclosing policy; choosing fail does not establish whether the "
                "external write occurred.",
                "WF-UNK-15",
            )
        elif step.modifiers.effective_attempts == 1:
            yield _warning(
                "reissue_not_authorized",
                step.path,
                f"{spec.connector}.{spec.name} is {spec.idempotency}ly idempotent, so reissuing an "
                f"ambiguous attempt would be safe, but the effective retry policy has one attempt: "
                "the reissue lacks retry authorization, not safe idempotency; with "
                "on_unknown: abort an ambiguous result terminates the run despite "
                f"{policy}.  Allow attempts: 2 or more to permit the reissue.",
                "WF-UNK-19",
            )


class _StateChecker(_Checker):
    """A state-form Workfile: every entry is a new scope nested in the root (WFS-ENTRY-7).

    An entry binds its accepted values, then ``on_enter``'s and ``steps``'
    bindings (WFS-ENTRY-8); it reads the root's ``inputs`` and ``run``
    (WFS-ENTRY-9) and nothing of another state (WFS-ENTRY-10), which holds
    because no entry scope is nested in another; no scope holds a state name
    (WFS-ENTRY-11: "A state name is not a readable binding").  When each expression of a
    state is evaluated decides what it sees (A-147): configuration over the
    root (WFS-TRANS-23), match and ``after`` after ``on_enter``
    (WFS-TRANS-26, WFS-TRANS-12), transitions after ``steps``, a
    subscription's with its payload bound under its name (WFS-TRANS-21,
    WFS-ENTRY-15).
    """

    def __init__(self, document: StateWorkfile, manifests: Manifests | None) -> None:
        super().__init__(Workfile(document.inputs), manifests)
        self.document = document

    def run(self) -> Generator[Diagnostic, None, None]:
        # The state graph (networkx) and the overlap check (z3): a Core document needs neither.
        from wforacle.properties.workfile.states import state_checks

        yield from state_checks(self.document, self.manifests)
        root = Scope(dict.fromkeys(RESERVED_ROOTS))
        finals: list[tuple[State, Scope]] = []
        for state in self.document.states:
            last = yield from self.entry(state, root)
            if state.final:
                finals.append((state, last))
        if self.document.outputs is not ABSENT:
            yield from self.final_outputs(root, finals)

    def entry(self, state: State, root: Scope) -> Generator[Diagnostic, None, Scope]:
        """Check one state's entry in phase order; return the scope after ``steps``.

        WFS-FORM-7: "subscription configuration and activation precede
        on_enter; on_enter then runs, correlation and the timer are fixed, and
        steps runs"; every entry is a new scope (WFS-ENTRY-7).
        """
        for field in state.accepts or ():
            if field.name in RESERVED_NAMES:
                yield _error(
                    "document.duplicate_binding",
                    field.path,
                    f"the accepted value {field.name!r} would bind a reserved name in the entry "
                    "scope; accepted values bind directly by name",
                    "WFS-ENTRY-8",
                )
        for subscription in state.on:
            for key, value in (
                ("configuration", subscription.configuration),
                ("connection", subscription.connection),
            ):
                if value is not ABSENT:
                    yield from self.reads(value, f"{subscription.path}.{key}", root)
        accepted: dict[str, Step | None] = {f.name: None for f in state.accepts or ()}
        entry = Scope(accepted, root, root.continuing)
        after_enter = yield from self.step_list(state.on_enter, entry)
        for subscription in state.on:
            yield from self.reads(subscription.match, f"{subscription.path}.match", after_enter)
        if state.timeout is not None:
            yield from self.reads(state.timeout.after, f"{state.timeout.path}.after", after_enter)
        last = yield from self.step_list(state.steps, after_enter)
        if state.exit is not None:
            yield from self.transition(state.exit, last)
        for subscription in state.on:
            payload = Scope({subscription.name: None}, last, last.continuing)
            yield from self.transition(subscription.transition, payload)
        if state.timeout is not None:
            yield from self.transition(state.timeout.transition, last)
        return last

    def transition(self, transition: Transition, scope: Scope) -> Iterator[Diagnostic]:
        """``into`` and ``route`` read the source entry's scope (WFS-ENTRY-14)."""
        if isinstance(transition, Direct):
            yield from self.reads(transition.into, f"{transition.path}.into", scope)
            return
        yield from self.reads(transition.subject, f"{transition.path}.route", scope)
        for _, case in transition.cases:
            yield from self.transition(case, scope)
        if transition.otherwise is not None:
            yield from self.transition(transition.otherwise, scope)

    def final_outputs(self, root: Scope, finals: list[tuple[State, Scope]]) -> Iterator[Diagnostic]:
        """Outputs across every final-entry scope, by the cross-branch rule (WFS-FORM-13)."""
        try:
            found = template_refs(self.document.outputs)
        except ExprError:
            return  # reported by the loader
        for ref in sorted(found, key=path_text):
            name = ref[0]
            if root.lookup(name)[0]:
                continue
            looked = [(state, scope.lookup(name)) for state, scope in finals]
            where = [(state, bound) for state, (visible, bound) in looked if visible]
            if not where:
                yield _error(
                    "document.reference",
                    "$.outputs",
                    f"{path_text(ref)} reads {name!r}, which neither the root nor any final-entry "
                    "scope binds (final states: "
                    f"{', '.join(s.name for s, _ in finals) or 'none'})",
                    "WFS-FORM-13",
                )
                continue
            void = [bound for _, bound in where if bound is not None]
            void = [b for b in void if isinstance(b.body, VOID_BODIES)]
            if void:
                yield _error(
                    "document.reference",
                    "$.outputs",
                    f"{path_text(ref)} reads {name!r}, a {type(void[0].body).__name__.lower()} "
                    "step, which creates no binding",
                    "A-114",
                )
                continue
            from wforacle.model.workfile.types import join

            types = [self.binding_type(state, name, bound) for state, bound in where]
            known = [t for t in types if t is not None]
            if len(ref) == 1 and len(known) == len(types) and join(known) is None:
                shown = ", ".join(f"{s.name}: {t}" for (s, _), t in zip(where, known, strict=True))
                yield _error(
                    "document.type",
                    "$.outputs",
                    f"{name!r} has no available join across the final-entry scopes that bind it "
                    f"({shown})",
                    "WFS-FORM-13",
                )

    def binding_type(self, state: State, name: str, bound: Step | None) -> str | None:
        """The static type of a final entry's binding, when established (A-147)."""
        if bound is None:
            field = next((f for f in state.accepts or () if f.name == name), None)
            return None if field is None else field.type
        body = bound.body
        if isinstance(body, Render):
            return "string"
        if isinstance(body, Call):
            return "object"
        if isinstance(body, Action) and self.manifests is not None:
            spec = self.manifests.action(body.name)
            return None if spec is None else spec.output
        return None


def _always_beaten(pattern: CodePattern, patterns: list[CodePattern]) -> CodePattern | None:
    """A pattern that wins every code ``pattern`` matches, or None.

    Only an HTTP-status pattern can be beaten everywhere: a prefix covering
    ``http`` takes all of its codes.  An exact code or a prefix always has
    some code that it alone decides.
    """
    if pattern.kind != "http":
        return None
    return next(
        (p for p in patterns if p.kind == "prefix" and p.stem == "http"),
        None,
    )
