"""The clause a Workfile engine broke at a divergence (issue 18, part 4).

Notation: at a divergence the model applies a *rule* ``R`` (its transition
makes the permitted event ``p`` for the engine's step or entry) and the
engine sent ``o`` instead.  A rule cites every clause that decides what it
does (model/workfile/run.py ``RULES``, stateful.py ``STATE_RULES``); which
of them the engine broke depends on what it did instead: where
``abort_ambiguous`` applies, a retry breaks WF-AMB-4 ("For idempotency:
none … the executor applies the action step's on_unknown policy") but a
handler breaks WF-UNK-4 ("catch … MUST NOT intercept that disposition").

``BLAME`` has one function per rule, ``(o, p, run) → clause | None``, each
quoting the clause it names; ``blame`` finds the rule (the model's
transitions that make a permitted event for the engine's unit, among a
bounded number of reachable configurations) and asks it.  oracle/explain.py
cites the answer first.  Keyed by rule and by what the engine did, never by
a seeded bug.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

JSON = Any
Blame = Callable[[JSON, JSON, Any], str | None]
STATES = 5_000  # reachable configurations searched for the rule that makes a permitted event
STARTS = ("step_started", "attempt_started", "retry_scheduled")  # work begun or begun again


def blame(run: Any, divergence: Any) -> tuple[str, ...]:
    """The clause the engine's event breaks where the model applies its rule; () if none."""
    observed, permitted = divergence.observed, divergence.permitted
    if not isinstance(observed, dict) or not permitted:
        return ()
    mine = [p for p in permitted if _unit(p) == _unit(observed) and _unit(p) != (None, None)]
    wanted = {_text(p): p for p in (mine or permitted)}
    found: list[str] = [*_late_expiry(observed, run)]
    for rule, event in _rules(run, wanted):
        why = BLAME.get(rule)
        clause = why(observed, event, run) if why is not None else None
        if clause is not None and clause not in found:
            found.append(clause)
    return tuple(found)


def _late_expiry(o: JSON, run: Any) -> tuple[str, ...]:
    """A-141 and WF-CATCH-21, when the engine cancelled a catch handler's work on an expiry.

    The model's timeout of a call or construct bounds its nested work, not the
    handler that runs after it (WF-CATCH-21: "handler work … is outside the
    expired operation deadline"): an expiry while the handler runs is late and
    changes nothing (A-141, WF-LATE-2).  A stranger's executor cancelled the
    handler and was told WF-STEP-9 (session 23).
    """
    step = o.get("step")
    if o.get("event") != "step_finished" or o.get("outcome") != "cancelled":
        return ()
    if not isinstance(step, str):
        return ()
    expiring = getattr(getattr(run, "scenario", None), "expire", {}) or {}
    if any(step.startswith(f"{path}.(catch).") for path in expiring):
        return ("A-141", "WF-CATCH-21", "WF-LATE-2")
    return ()


def _unit(event: JSON) -> tuple[Any, Any]:
    return event.get("step"), event.get("entry")


def _text(event: JSON) -> str:
    import json

    return json.dumps({k: v for k, v in event.items() if k != "at"}, sort_keys=True)


def _rules(run: Any, wanted: dict[str, JSON]) -> list[tuple[str, JSON]]:
    """(rule, permitted event) for each rule that makes a wanted event in the run's reach."""
    from wforacle.properties.workfile.execution import limits

    found: dict[tuple[str, str], JSON] = {}
    try:
        start = run.initial()
        seen: set[Hashable] = {start.key}
        frontier = [start]
        while frontier and len(seen) < STATES:
            for transition in run.enabled(frontier.pop()):
                text = _text(transition.event)
                if text in wanted:
                    found.setdefault((transition.rule, text), wanted[text])
                if transition.target.key not in seen:
                    seen.add(transition.target.key)
                    frontier.append(transition.target)
    except tuple(limits()):  # what the model does not cover: keep what was found
        pass
    return [(rule, event) for (rule, _), event in found.items()]


def _step(run: Any, path: JSON) -> Any:
    from wforacle.model.workfile.scenario import static_path

    return run.steps.get(static_path(path)) if isinstance(path, str) else None


# -- Core rules --------------------------------------------------------------------------


def _abort_ambiguous(o: JSON, p: JSON, run: Any) -> str | None:
    if o.get("event") in STARTS:
        return "WF-AMB-4"  # "For idempotency: none … applies the action step's on_unknown policy"
    return "WF-UNK-4"  # "on_fail, catch … MUST NOT intercept that disposition"


def _cancel_abort(o: JSON, p: JSON, run: Any) -> str | None:
    error = p.get("error") or {}
    if ".(run)." in str(error.get("step", "")):
        return "WF-UNK-11"  # "If a child run terminates under the abort disposition, its
        # calling run terminates directly with flow.action_ambiguous"
    return "WF-UNK-4"  # "the action step and run fail directly"


def _cancel_run(o: JSON, p: JSON, run: Any) -> str | None:
    if o.get("event") in STARTS:
        return "WF-CANCEL-5"  # "before that decision starts another step, action attempt, retry"
    if o.get("event") == "attempt_finished":
        return "WF-LATE-3"  # "MUST NOT use a late result to … replace an attempt result"
    return "WF-CANCEL-8"  # "An active step becomes cancelled"


def _child_failed(o: JSON, p: JSON, run: Any) -> str | None:
    mine, theirs = o.get("error") or {}, p.get("error") or {}
    if o.get("outcome") == p.get("outcome") and mine.get("step") != theirs.get("step"):
        return "A-140"  # a failed call's error names the call step, not the child's
    return None


def _evaluated(o: JSON, p: JSON) -> bool:
    """The engine began the step (or an attempt) where the model's evaluation faults."""
    code = str((p.get("error") or {}).get("code", ""))
    return (
        o.get("event") in STARTS
        and o.get("step") == p.get("step")
        and (code.startswith("expression."))
    )


def _faulted(o: JSON, p: JSON) -> bool:
    """The engine's evaluation faulted where the model's evaluates and the step begins."""
    code = str((o.get("error") or {}).get("code", ""))
    return (
        o.get("event") == "step_finished"
        and o.get("step") == p.get("step")
        and o.get("outcome") == "failed"
        and code.startswith("expression.")
    )


def _fault(o: JSON, p: JSON, run: Any) -> str | None:
    from wforacle.model.workfile.document import Call

    if _evaluated(o, p):
        # The expression language (docs/workfile-expressions.md): the model's evaluation
        # of the step's expressions faults, the engine's gave a value.
        return "A-117"
    mine, theirs = (str((e.get("error") or {}).get("code", "")) for e in (o, p))
    if _faulted(o, p) and mine != theirs and theirs.startswith("expression."):
        # Both evaluations fault, with other codes: the expression language decides which
        # (a stranger's filter binding loosely made a type fault a syntax fault).
        return "A-117"
    skipped = o.get("event") == "step_finished" and o.get("outcome") == "skipped"
    if skipped and o.get("step") == p.get("step"):
        # The engine read a guard that faults as false (docs/workfile-expressions.md).
        return "WF-STEP-7"  # "No operation begins if guard or argument evaluation faults"
        # (and the step fails with the fault's code: it is not skipped)
    if o.get("event") != "handler_started":
        return None
    step = _step(run, p.get("step"))
    code = str((p.get("error") or {}).get("code", ""))
    if step is not None and isinstance(step.body, Call) and code.startswith("input."):
        return "WF-CATCH-16"  # "a runtime mismatch against a callee's input contract"
    return "WF-CATCH-15"  # "Faults in the handled step's own evaluation … are not eligible"


def _reach(o: JSON, p: JSON, run: Any) -> str | None:
    """The engine ended a construct or a wf.call whose member the model reaches next.

    Or, in a dry run, suppressed a step the model runs (an unaffected read).
    """
    ended, member = o.get("step"), p.get("step")
    chosen = _route_case(o, p, run) or _continued(o, run)
    if chosen is not None:
        return chosen
    if o.get("event") == "run_finished" and isinstance(member, str):
        state = _state_of(run, member.split(".", 1)[0])
        if state is not None and state.final:
            # "After its step lists succeed, the run completes": a stranger's executor
            # completed on entering the final state and was told WF-STEP-1 (session 23).
            return "WFS-FORM-12"
    if _faulted(o, p):
        return "A-117"  # the model's evaluation gives a value where the engine's faulted
    if o.get("event") != "step_finished" or not isinstance(ended, str):
        return None
    if ended == member and o.get("outcome") == "suppressed":
        return "WF-DRY-4"  # "an unaffected read action executes normally"
    unrepeated = _unrepeated(o, p, run)
    if unrepeated is not None:
        return unrepeated
    if isinstance(member, str) and member.startswith(ended + "."):
        # "Constructs can refine this sequence for … child runs. Those refinements MUST
        # preserve the enclosing list's ordering": a member runs inside its construct.
        return "WF-STEP-13"
    return None


def _route_case(o: JSON, p: JSON, run: Any) -> str | None:
    """The engine began a step of another case of the wf.route whose case the model runs."""
    from wforacle.model.workfile.document import Route

    began, member = o.get("step"), p.get("step")
    if o.get("event") != "step_started" or not isinstance(began, str) or began == member:
        return None
    parts = str(member).split(".")
    for end in range(len(parts) - 1, 0, -1):
        prefix = ".".join(parts[:end])
        step = _step(run, prefix)
        if step is not None and isinstance(step.body, Route) and began.startswith(prefix + "."):
            return "A-124"  # "A route case matches a subject equal to its key"
    return None


def _succeed(o: JSON, p: JSON, run: Any) -> str | None:
    from wforacle.model.workfile.document import Render

    step = _step(run, p.get("step"))
    same = o.get("step") == p.get("step") and o.get("outcome") == p.get("outcome")
    rendered = isinstance(getattr(step, "body", None), Render)
    if same and rendered and o.get("value") != p.get("value"):
        return "A-173"  # a render writes each marker as template text
    return None


def _call_succeeded(o: JSON, p: JSON, run: Any) -> str | None:
    if o.get("outcome") == p.get("outcome") and o.get("suppressed") != p.get("suppressed"):
        return "WF-PART-5"  # "preserves each child's output-member suppression"
    return None


def _handle(o: JSON, p: JSON, run: Any) -> str | None:
    code = (o.get("error") or {}).get("code") if isinstance(o.get("error"), dict) else None
    if o.get("event") == "step_finished" and o.get("step") == p.get("step") and code:
        # The failure was not offered to catch although a handler matches it.
        from wforacle.model.workfile.document import Call

        step = _step(run, p.get("step"))
        if step is not None and isinstance(step.body, Call):
            return "WF-CATCH-12"  # "For wf.call, eligible failures are a failed child's
            # terminal code, independent child cancellation (flow.child_cancelled), and the
            # call's own composite timeout (flow.timeout)"
        return "WF-CATCH-9"  # an action's failures are offered to its catch
    if o.get("event") != "handler_started" or o.get("pattern") == p.get("pattern"):
        return None
    if p.get("pattern") == p.get("code"):
        return "WF-CODE-1"  # "an exact code takes precedence over any matching pattern"
    return "WF-CODE-2"  # "The longest matching prefix takes precedence over a shorter one"


def _child_cancelled(o: JSON, p: JSON, run: Any) -> str | None:
    return "WF-CANCEL-15"  # "child cancellation supplies a flow.child_cancelled failure"


def _suppress(o: JSON, p: JSON, run: Any) -> str | None:
    if o.get("event") != "step_started":
        return "WF-SUPP-13"  # "suppressed without evaluating those expressions, starting its body"
    # The engine found the step unaffected: by what the model's check reads that it did not.
    return _affected_by(_step(run, p.get("step")))


def _affected_by(step: Any) -> str:
    """The clause that makes a step's references affected: a computed index, a branch, or any."""
    from wforacle.model.workfile.expr import ANY, Bool, Cond, Filter, template, template_refs
    from wforacle.model.workfile.run import _checked

    fields = _checked(step) if step is not None else []
    if any(ANY in path for path in template_refs(fields)):
        return "WF-SUPP-5"  # "A computed index conservatively selects every member"
    kinds = (Bool, Cond, Filter)
    expressions = [e for text in _strings(fields) for e in template(text).expressions]
    if any(_contains(e, kinds) for e in expressions):
        return "WF-SUPP-6"  # "conditional branches, short-circuited operands, filter arguments"
    return "WF-SUPP-3"  # "A reference is affected when its selected value is suppressed"


def _strings(value: JSON) -> list[str]:
    if isinstance(value, str):
        return [value] if "{{" in value else []
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


def _contains(expr: Any, kinds: tuple[type, ...]) -> bool:
    import attrs

    if isinstance(expr, kinds):
        return True
    if attrs.has(type(expr)):
        return any(_contains(v, kinds) for v in attrs.astuple(expr, recurse=False))
    if isinstance(expr, tuple | list):
        return any(_contains(v, kinds) for v in expr)
    return False


def _suppress_write(o: JSON, p: JSON, run: Any) -> str | None:
    if o.get("event") in (*STARTS, "step_finished") and o.get("outcome") != "suppressed":
        if _unmanifested(run, p.get("step")):
            return "A-126"  # "an action without a manifest counts as a write"
        return "WF-DRY-6"  # "it dispatches no action attempt … gives the step outcome suppressed"
    return None


def _unmanifested(run: Any, path: JSON) -> bool:
    """Whether the step at ``path`` is an action no manifest declares (a case without one).

    The text has no such action (WF-STEP-9: a result "is interpreted under its
    resolved connector manifest"); the model runs it as a write (A-126), and an
    engine that ran it as a read was told only the dry-run or timeout clause
    (session 24).
    """
    from wforacle.model.workfile.document import Action

    step = _step(run, path)
    return step is not None and isinstance(step.body, Action) and run.spec(step) is None


def _unaffected(o: JSON, p: JSON, run: Any) -> str | None:
    if o.get("event") == "step_finished" and o.get("outcome") == "suppressed":
        from wforacle.model.workfile.expr import template_refs
        from wforacle.model.workfile.run import _checked

        step = _step(run, p.get("step"))
        if step is not None and not list(template_refs(_checked(step))):
            # Nothing to be affected by (a stranger's executor suppressed every read).
            return "WF-DRY-4"  # "an unaffected read action executes normally"
        return "WF-SUPP-4"  # "Literal member access and literal indexing restrict selection"
    return None


def _child_finished(o: JSON, p: JSON, run: Any) -> str | None:
    if o.get("outcome") == p.get("outcome") and o.get("suppressed") != p.get("suppressed"):
        return "WF-PART-2"  # "An affected entry produces null with suppression recorded for
        # that result member" (and only that member)
    if o.get("step") == p.get("step") and o.get("event") != "child_finished":
        # The engine ended the call without its child run's end (a stranger's executor,
        # session 24, was told WF-STEP-13 for both of these).
        if p.get("outcome") == "cancelled":
            return "WF-CANCEL-15"  # "child cancellation supplies a flow.child_cancelled
            # failure to the calling step"
        failing = _step(run, (p.get("error") or {}).get("step"))
        if failing is not None and failing.modifiers.on_fail == "abort":
            return "WF-POLICY-3"  # "on_fail: abort fails the run directly": the child's run,
            # whose end the call then reports as any child's failure
        return "A-140"  # the call reports its child run's end, then fails or succeeds by it
    return None


def _join(o: JSON, p: JSON, run: Any) -> str | None:
    if o.get("outcome") == "suppressed" != p.get("outcome"):
        return "WF-SUPP-19"  # "does not itself … suppress the enclosing … construct"
    extra = set(o.get("suppressed") or ()) - set(p.get("suppressed") or ())
    if o.get("outcome") == p.get("outcome") and extra:
        return "WF-SUPP-8"  # "steps skipped by when do not themselves introduce suppression"
    missing = set(p.get("suppressed") or ()) - set(o.get("suppressed") or ())
    if o.get("outcome") == p.get("outcome") and missing:
        return "WF-SUPP-20"  # "Retained scopes and aggregates preserve suppression at each
        # affected member" (a stranger's executor dropped a branch member's)
    return None


def _delegate(o: JSON, p: JSON, run: Any) -> str | None:
    if o.get("event") == "step_finished":
        return "WF-DRY-11"  # "An unaffected delegated action executes normally with the
        # dry-run flag"
    return None


def _construct_failed(o: JSON, p: JSON, run: Any) -> str | None:
    if o.get("event") == "step_finished" and o.get("step") != p.get("step"):
        return "WF-POLICY-15"  # "prevents unstarted iterations or branches from starting"
    member = str(o.get("step", ""))
    inside = member.startswith(f"{p.get('step')}[") or member.startswith(f"{p.get('step')}.")
    if o.get("event") in STARTS and inside:
        # A member started while the construct fails: fail_fast "prevents unstarted
        # iterations or branches from starting" (a stranger's executor ran the rest).
        return "WF-POLICY-15"
    return None


def _continued(o: JSON, run: Any) -> str | None:
    """The engine failed a construct or the run with a failure its step continues past."""
    error = o.get("error")
    if o.get("outcome") != "failed" or not isinstance(error, dict):
        return None
    if o.get("step") == error.get("step"):
        return None  # the failing step's own step_finished: the model fails it too
    failed = _step(run, error.get("step"))
    if failed is not None and failed.modifiers.on_fail == "continue":
        return "WF-POLICY-4"  # "on_fail: continue leaves the step failed, binds it as
        # null, and continues with the next step" (a stranger's executor propagated it)
    return None


def _finish(o: JSON, p: JSON, run: Any) -> str | None:
    if p.get("outcome") == "cancelled" and "result" in o and "result" not in p:
        return "WF-CANCEL-9"  # "Workflow outputs are not evaluated for the cancelled run"
    continued = _continued(o, run)
    if continued is not None:
        return continued
    if p.get("disposition") == "abort" and (
        o.get("event") != "run_finished" or o.get("outcome") != p.get("outcome")
    ):
        # The engine went on (started the next step, completed the run) where the abort
        # disposition ends the run: on_fail: continue intercepted it (CI, session 21: the
        # shrink of abort-caught reached on_fail rather than catch and cited WF-BIND-1).
        return "WF-UNK-4"  # "on_fail, catch … MUST NOT intercept that disposition"
    return _terminal(o, p)


def _terminal(o: JSON, p: JSON) -> str | None:
    """What the engine's terminal information left out or added, of a run ending as the model's."""
    if o.get("event") != "run_finished" or o.get("outcome") != p.get("outcome"):
        return None
    if o.get("unknownEffects") != p.get("unknownEffects"):
        return "WF-TERM-8"  # "its terminal information MUST identify every affected action
        # attempt known at termination, including attempts made uncertain by cancellation
        # after dispatch" (a stranger's executor forgot a write cancelled in flight)
    mine, theirs = o.get("error"), p.get("error")
    both = isinstance(mine, dict) and isinstance(theirs, dict)
    # run_finished's own disposition (docs/workfile-execution.md), or one in the error.
    if o.get("disposition") != p.get("disposition") or (
        both and mine.get("disposition") != theirs.get("disposition")
    ):
        return "WF-UNK-3"  # "its terminal result records whether the unresolved attempt
        # applied abort or fail"
    return None


def _exhausted(o: JSON, p: JSON, run: Any) -> str | None:
    if o.get("event") not in STARTS:
        return None
    step = _step(run, p.get("step"))
    attempts = step.modifiers.effective_attempts if step is not None else 1
    if isinstance(o.get("attempt"), int) and o["attempt"] > attempts:
        return "WF-RETRY-10"  # "Only a retryable failure with an unused attempt can be retried"
    return "WF-RETRY-11"  # "A fatal failure … MUST NOT be retried"


def _retry(o: JSON, p: JSON, run: Any) -> str | None:
    step = _step(run, p.get("step"))
    if o.get("event") != "retry_scheduled" and o.get("step") == p.get("step"):
        # The engine ended or handled the step where the model tries it again (a
        # stranger's executor, session 20: its missing retry and missing reissue were
        # blamed on the delay formula).
        return "WF-AMB-1" if _ambiguous(run, step, p) else "WF-RETRY-10"
    retry = step.modifiers.retry if step is not None else None
    cap = retry.max_ms if retry is not None else None
    delay = o.get("delayMs")
    if cap is not None and p.get("delayMs") == cap and isinstance(delay, int) and delay > cap:
        return "WF-RETRY-4"  # "every selected retry delay is capped at max, whether … computed
        # or supplied by a server"
    attempt = p.get("attempt")
    earlier = run.scenario.result(p.get("step"), attempt - 1) if isinstance(attempt, int) else None
    server = earlier.get("retryAfterMs") if isinstance(earlier, dict) else None
    if isinstance(server, int) and delay != p.get("delayMs") and retry is not None:
        if retry.honor_retry_after:
            return "WF-RETRY-6"  # "that delay replaces the computed delay before the cap"
        if delay == server:
            return "WF-RETRY-7"  # "Otherwise the computed delay applies" (a stranger's
            # executor used the server's delay without honor_retry_after, session 24)
    return None


def _ambiguous(run: Any, step: Any, p: JSON) -> bool:
    """Whether the attempt before the model's retry was ambiguous (its retry a reissue)."""
    from wforacle.model.workfile.document import Action
    from wforacle.model.workfile.run import failure_kind

    attempt, path = p.get("attempt"), p.get("step")
    if step is None or not isinstance(step.body, Action) or not isinstance(attempt, int):
        return False
    result = run.scenario.result(path, attempt - 1)
    if not isinstance(result, dict) or "output" in result:
        return False
    _, kind = failure_kind(run.spec(step), result, run.options.unclassified)
    return kind == "unknown"


def _cancel_stop(o: JSON, p: JSON, run: Any) -> str | None:
    if o.get("event") in STARTS:
        # Work begun after the stop (a stranger's executor started a sibling branch).
        return "WF-IWC-3"  # "a step that has not begun becomes not_run"
    if p.get("outcome") == "stopped" != o.get("outcome"):
        return "WF-IWC-4"  # "An enclosing construct on the active containment chain from a
        # wf.stop step … becomes stopped as a step"
    return None


def _attempt_timeout(o: JSON, p: JSON, run: Any) -> str | None:
    if o.get("result") == "succeeded":
        return "WF-LATE-5"  # "a subsequent response to that attempt is late"
    if o.get("result") != p.get("result"):
        if _unmanifested(run, p.get("step")):
            return "A-126"  # "an action without a manifest counts as a write": unknown
        return "WF-CLASS-7"  # the reserved code timeout is classified by no manifest
    return None


# -- Stateful Profile rules --------------------------------------------------------------


def _enter(o: JSON, p: JSON, run: Any) -> str | None:
    if set(p.get("values") or {}) - set(o.get("values") or {}):
        return "WFS-ENTRY-4"  # "An omitted name uses its declared default"
    return None


def _dry_stop(o: JSON, p: JSON, run: Any) -> str | None:
    return "WF-SCTL-4"  # "An affected state control evaluation initiates an implicit
    # dry-run stop"


def _waiting(o: JSON, p: JSON, run: Any) -> str | None:
    if o.get("event") != "entry_exited":
        return None
    if o.get("by") == "timeout":
        return "WFS-TRANS-37"  # "An event accepted no later than the deadline wins over that
        # timeout"; the timer is due only once the clock is past its deadline
    return _ineligible(o, run) or "WFS-TRANS-28"  # "An event accepted before activation is
    # not eligible for that subscription": what is left when a payload matches


def _ineligible(o: JSON, run: Any) -> str | None:
    """Why no event of the scenario is eligible for the subscription the engine left by.

    Only what the case itself shows is read: the subscription's trigger and
    its literal match values (a templated one may equal anything) against
    every stimulus's trigger and payload.
    """
    from wforacle.model.workfile.evaluate import equal  # run-time == (A-117)

    subscription = _subscription(run, o)
    if subscription is None:
        return None
    triggered = [s for s in run.scenario.events if s.event == subscription.event]
    if not triggered:
        return "WFS-TRANS-34"  # "An event for which the current entry has no matching
        # subscription does not change the run"
    literal = {
        field: value
        for field, value in subscription.match.items()
        if not (isinstance(value, str) and "{{" in value)
    }
    null = run.options.absent_field == "null"

    def matches(payload: JSON) -> bool:
        return all(
            (field in payload and equal(payload[field], value))
            or (field not in payload and null and value is None)
            for field, value in literal.items()
        )

    if not any(matches(s.payload) for s in triggered):
        return "WFS-TRANS-30"  # "An event is eligible when every supplied match value equals
        # the corresponding payload field"
    return None


def _subscription(run: Any, o: JSON) -> Any:
    """The subscription ``o`` (an ``entry_exited``) names ``by``, in its entry's state."""
    state, by = _state_of(run, o.get("entry")), o.get("by")
    if state is None or not isinstance(by, str):
        return None
    return next((s for s in state.on if s.name == by), None)


def _state_of(run: Any, entry: JSON) -> Any:
    """The state an entry (``b[2]``) is of, in a state-form run; None otherwise."""
    states = getattr(run, "states", None)
    if not isinstance(states, dict) or not isinstance(entry, str):
        return None
    return states.get(entry.split("[", 1)[0])


def _in_entry(o: JSON, p: JSON, run: Any) -> str | None:
    from wforacle.model.workfile.stateful import StatefulRun

    if isinstance(run, StatefulRun) and o.get("outcome") == "cancelled":
        return "WFS-TRANS-29"  # "It MUST NOT interrupt a running step list"
    return _classified(o, p, run)


def _classified(o: JSON, p: JSON, run: Any) -> str | None:
    """The engine classified an attempt's code otherwise, where several patterns match it."""
    from wforacle.model.workfile.document import Action

    step, code = _step(run, p.get("step")), p.get("code")
    if o.get("event") != "attempt_finished" or o.get("result") == p.get("result"):
        return None
    if step is None or not isinstance(step.body, Action) or not isinstance(code, str):
        return None
    spec = run.spec(step)
    matching = [pattern for pattern, _ in spec.errors if pattern.matches(code)] if spec else []
    if len(matching) < 2:
        return None
    if any(pattern.kind == "exact" for pattern in matching):
        return "WF-CODE-1"  # "an exact code takes precedence over any matching pattern"
    return "WF-CODE-2"  # "The longest matching prefix takes precedence over a shorter one,
    # and a prefix pattern takes precedence over an HTTP-status pattern"


def _transition_failed(o: JSON, p: JSON, run: Any) -> str | None:
    if o.get("event") in ("entry_exited", "entry_started"):
        return "WFS-ENTRY-6"  # "A mismatch causes fault.type in the source entry and prevents
        # the transition without creating a partial target entry"
    return None


def _dispatch(o: JSON, p: JSON, run: Any) -> str | None:
    import re

    from wforacle.model.workfile.stateful import StatefulRun

    later = re.match(r"^[^.\[]+\[([1-9]\d*)\]\.", str(p.get("step", "")))
    if later and isinstance(run, StatefulRun) and o.get("input") != p.get("input"):
        # state[n].step: a later entry of a state (a Core run's each[1].a is an iteration).
        return "WFS-ENTRY-10"  # "A state entry MUST NOT read a binding from a prior entry"
    step = _step(run, p.get("step"))
    if o.get("input") != p.get("input") and ".(catch)." not in str(p.get("step", "")):
        from wforacle.model.workfile.document import Action

        body = getattr(step, "body", None)
        if isinstance(body, Action) and any("{{" in text for text in _strings(body.args)):
            # The argument map's templates evaluate to other values: the expression
            # language (docs/workfile-expressions.md, A-100/A-101/A-117).
            return "A-117"
    if o.get("input") != p.get("input") and ".(catch)." in str(p.get("step", "")):
        from wforacle.model.workfile.run import _checked

        if any("error.step" in text for text in _strings(_checked(step) if step else [])):
            # A stranger's executor bound the handled step's full path (a nested one).
            return "WF-CATCH-8"  # "error.step is the handled step's path relative to the
            # scope containing that step"
    return None


def _deliver(o: JSON, p: JSON, run: Any) -> str | None:
    if o.get("event") == "quiet":
        # The engine waits on as though no event were eligible; the model delivers one.
        return _undelivered(p, run)
    if o.get("event") != "entry_exited":
        return None
    if o.get("by") == "timeout":
        return "WFS-TRANS-37"  # "An event accepted no later than the deadline wins over that
        # timeout"
    if o.get("by") != p.get("by") or o.get("number") != p.get("number"):
        if o.get("by") != p.get("by") and _ineligible(o, run) is not None:
            return _ineligible(o, run)  # the engine's subscription could not match at all
        later = o.get("number"), p.get("number")
        if all(isinstance(n, int) for n in later) and later[0] > later[1]:
            # A later event delivered where the model delivers an earlier one: the engine
            # lost it — in an entry with steps, accepted while they ran (a stranger's
            # executor, session 23, was told WFS-TRANS-36).
            return _undelivered(p, run)
        return "WFS-TRANS-36"  # "The first eligible event or timeout selects the transition"
    if o.get("to") != p.get("to"):
        return "WFS-ENTRY-12"  # "Entry positions are counted from zero separately for each
        # state"
    return None


def _undelivered(p: JSON, run: Any) -> str:
    """Why an eligible event the model delivers is one the engine must still hold.

    An entry with steps may have accepted it while they ran (a stranger's
    executor dropped such events); an entry without them was waiting for it.
    """
    state = _state_of(run, p.get("entry"))
    if state is not None and (state.on_enter or state.steps):
        return "WFS-TRANS-27"  # "An implementation MUST retain a candidate event accepted
        # after activation while correlation evaluation or steps is in progress"
    if state is not None and state.timeout is not None:
        # The model delivers the event over the timer: it came no later than the deadline
        # (a stranger's executor let the timer win the tie and was told WFS-TRANS-36).
        return "WFS-TRANS-37"  # "An event accepted no later than the deadline wins over
        # that timeout"
    return "WFS-TRANS-36"  # "The first eligible event or timeout selects the transition"


def _time_out(o: JSON, p: JSON, run: Any) -> str | None:
    if o.get("event") != "entry_exited" or o.get("by") == "timeout":
        return None
    # The engine delivered an event where the timer was due: the event came after the
    # deadline, or matched nothing.
    return _ineligible(o, run) or "WFS-TRANS-36"  # "The first eligible event or timeout
    # selects the transition"


def _correlate(o: JSON, p: JSON, run: Any) -> str | None:
    if o.get("deadlineMs") != p.get("deadlineMs"):
        # "A duration is measured from that evaluation" — the evaluation after on_enter
        # succeeds (WFS-TRANS-12, governing next): a deadline fixed from another instant
        # (the entry's start: a stranger's executor and wf-lite's timer-from-entry) breaks it.
        return "WFS-TRANS-13"
    return None


def _finish_state(o: JSON, p: JSON, run: Any) -> str | None:
    if o.get("outcome") == p.get("outcome") and o.get("result") != p.get("result"):
        return "WFS-FORM-12"  # "workflow outputs are evaluated in that final entry's scope"
    return _terminal(o, p)


def _skip(o: JSON, p: JSON, run: Any) -> str | None:
    """The engine's guard faulted where the model's evaluates to false."""
    if _faulted(o, p):
        return "A-117"  # the expression language: the model's guard gives a value
    return None


def _unrepeated(o: JSON, p: JSON, run: Any) -> str | None:
    """The engine ended a wf.repeat whose first iteration's first step the model reaches."""
    from wforacle.model.workfile.document import Repeat

    construct = o.get("step")
    if o.get("event") != "step_finished" or not isinstance(construct, str):
        return None
    if not str(p.get("step", "")).startswith(f"{construct}[0]."):
        return None
    step = _step(run, construct)
    if step is not None and isinstance(step.body, Repeat):
        return "WF-SUPP-11"  # "the adjacent until of wf.repeat is checked after each
        # successful iteration" (a stranger's executor checked it before the first)
    return None


def _repeat_exhausted(o: JSON, p: JSON, run: Any) -> str | None:
    """The engine ended or went on with a wf.repeat where the model exhausts it: A-125.

    The exhaustion after ``max_iterations`` and its code ``flow.repeat_exhausted``
    are A-125's (the construct's section is not included); WF-SUPP-11 says only
    when ``until`` is checked.  A stranger's executor that reported another code
    was told WF-SUPP-11, a dry-run clause, in a run that was not one (session 23).
    """
    construct, step = p.get("step"), o.get("step")
    if not isinstance(construct, str) or not isinstance(step, str):
        return None
    if _faulted(o, p):
        # The engine's evaluation of ``until`` faulted where the model's gave a value: the
        # expression language decides (wf-lite's filter-binds-loose, shrunk to an until).
        return "A-117"
    if step == construct or step.startswith(f"{construct}["):
        return "A-125"
    return None


def _result_refused(o: JSON, p: JSON, run: Any) -> str | None:
    """The engine kept a handler's replacement result the model refuses: WF-CATCH-23.

    "The replacement result MUST be statically assignable to and satisfy the
    handled operation's output contract at runtime" — a call's result is an
    object (a stranger's executor kept a string and was told WF-BIND-5, session 23).
    """
    if o.get("event") == "step_finished" and o.get("step") == p.get("step"):
        return "WF-CATCH-23"
    return None


BLAME: dict[str, Blame] = {
    "repeat_exhausted": _repeat_exhausted,
    "result_refused": _result_refused,
    "skip": _skip,
    "abort_ambiguous": _abort_ambiguous,
    "cancel_abort": _cancel_abort,
    "cancel_run": _cancel_run,
    "child_failed": _child_failed,
    "fault": _fault,
    "call_succeeded": _call_succeeded,
    "succeed": _succeed,
    "reach": _reach,
    "handle": _handle,
    "child_cancelled": _child_cancelled,
    "suppress": _suppress,
    "suppress_write": _suppress_write,
    "unaffected": _unaffected,
    "child_finished": _child_finished,
    "join": _join,
    "delegate": _delegate,
    "construct_failed": _construct_failed,
    "finish": _finish,
    "exhausted": _exhausted,
    "retry": _retry,
    "cancel_stop": _cancel_stop,
    "attempt_timeout": _attempt_timeout,
    "complete": _in_entry,
    "enter": _enter,
    "dry_stop": _dry_stop,
    "quiet": _waiting,
    "wait_forever": _waiting,
    "finish_waiting": _waiting,
    "transition_failed": _transition_failed,
    "dispatch": _dispatch,
    "deliver": _deliver,
    "time_out": _time_out,
    "correlate": _correlate,
    "finish_state": _finish_state,
}
