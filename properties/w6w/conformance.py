"""What the oracle compares for w6w beyond the trace: invocations, the final RunState, secrets.

The judge (oracle/engine.py) checks the engine's trace against the model;
these are the w6w comparisons around it (docs/engine-protocol.md,
"Verdicts"): before the trace, no recorded text may hold a secret's
plaintext (W6W-ENV-17, A-70); after it, the engine must have invoked exactly
the attempts its trace reports, and its final RunState must agree with one
the model ends in.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from wforacle.model.kernel.explore import canonical
from wforacle.model.kernel.lts import Transition
from wforacle.model.w6w.controls import masked
from wforacle.model.w6w.document import written_steps
from wforacle.model.w6w.resolve import REDACTED, stringify
from wforacle.model.w6w.rules import REROUTE
from wforacle.model.w6w.scenario import Scenario
from wforacle.model.w6w.semantics import W6wRun, run_state
from wforacle.properties.specification import Divergence, Observation, strings

JSON = Any


def compare(model: W6wRun, seen: Observation, finals: tuple[Any, ...]) -> Divergence | None:
    """After the trace check: the invocations, then the final RunState."""
    mismatch = invocations_mismatch(model, seen)
    if mismatch is None:
        states = [run_state(model, final) for final in finals]
        mismatch = state_mismatch(states, seen, unordered_errors=_blocks_beside_strands(model))
    return mismatch


def _blocks_beside_strands(model: W6wRun) -> bool:
    """Whether a control's block may record a failure while another strand runs (A-53).

    The model runs a sub-block within its control's attempt (big-step) and
    appends the block's continue-record failures to stepErrors when that
    attempt ends; an engine may append each when it happens, as
    docs/controls.md says, between another strand's.  The order of
    stepErrors then says nothing the model can judge (a stranger's engine,
    session 26), so their order is not compared.
    """
    return len(model.strands) > 1 and any(
        step.is_control and step.blocks for step in model.by_id.values()
    )


def invocations_mismatch(model: W6wRun, seen: Observation) -> Divergence | None:
    """The engine must invoke exactly the attempts its trace reports, with their inputs.

    An attempt in flight when the host crashed may or may not have reached
    the action: it is allowed either way (W6W-CONCEPT-3).  An attempt whose
    with block failed to resolve invokes nothing: its step_started (or
    retry_scheduled) is followed by the step's step_failed or next
    retry_scheduled with no attempt_failed between (phase "resolution").
    """
    inputs: dict[str, JSON] = {}
    claimed: list[str | None] = []
    in_flight: dict[str, int] = {}  # step -> the index of its attempt's claim
    lost: Counter[str] = Counter()
    for event in _attempt_events(model, seen.trace):
        step = event.get("step")
        name = event.get("event")
        if name in ("step_failed", "retry_scheduled") and step in in_flight:
            claimed[in_flight.pop(step)] = None  # resolution failed: nothing was invoked
        if name == "step_started":
            inputs[step] = event.get("input")
            claimed.append(canonical([step, event.get("input")]))
            in_flight[step] = len(claimed) - 1
        elif name == "retry_scheduled":
            claimed.append(canonical([step, inputs.get(step)]))
            in_flight[step] = len(claimed) - 1
        elif name in ("step_succeeded", "attempt_failed"):
            in_flight.pop(step, None)
        elif name == "run_rerouted" and event.get("input") is not None:
            # The reroute target's dispatch (W6W-RUNERR-3): one invoke of REROUTE with
            # the resolved with block; none when resolving it failed.
            claimed.append(canonical([REROUTE, event.get("input")]))
        elif name == "crashed":
            lost.update(c for c in (claimed[k] for k in in_flight.values()) if c is not None)
            in_flight.clear()
    reported = [c for c in claimed if c is not None]
    # An action receives a secret's plaintext where the trace records the marker
    # an invocation made with the claimed input, secrets filled in, is it.
    plain = _secret_texts(model.scenario)
    claims: dict[str, list[JSON]] = {}
    for text in dict.fromkeys(reported):
        step, value = json.loads(text)
        claims.setdefault(step, []).append(value)
    made = []
    for step, value in seen.invocations:
        match = [v for v in claims.get(step, []) if _fills(v, value, plain)]
        made.append(canonical([step, match[0] if match else _masked(value, plain)]))
    missing = Counter(reported) - Counter(made)
    extra = Counter(made) - Counter(reported)
    # A crash may cut a control's sub-block short: its steps' invocations before the
    # crash are in no trace event (the control's inner is never sent), A-161.
    cut = _cut_short(model, seen.trace)
    extra = Counter({k: n for k, n in extra.items() if json.loads(k)[0] not in cut})
    if not extra and not (missing - lost):
        return None
    shown = sorted(extra.elements()) or sorted(made)
    return Divergence(
        len(seen.trace),
        {"invoked": [json.loads(x) for x in shown][:5]},
        tuple({"reported": json.loads(x)} for x in reported[:5]),
        ("W6W-FIELD-10", "W6W-STATE-4"),
        "the invocations the engine made are not the attempts its trace reports",
    )


def _cut_short(model: W6wRun, trace: Sequence[JSON]) -> set[str]:
    """The block steps of the controls whose attempt was in flight at a crash (A-161)."""
    from wforacle.model.w6w.controls import action

    steps = model.every_step
    running: set[str] = set()
    cut: set[str] = set()
    for event in trace:
        named = event.get("step") if isinstance(event, dict) else None
        step = steps.get(named) if isinstance(named, str) else None
        name = event.get("event") if isinstance(event, dict) else None
        if step is not None and action(step) is not None:
            if name == "step_started":
                running.add(step.id)
            elif name in ("step_succeeded", "attempt_failed", "step_failed"):
                running.discard(step.id)
        elif name == "crashed":
            for control in running:
                cut.update(s.id for block in steps[control].blocks for s in block.steps)
            running.clear()
    return cut


def _attempt_events(
    model: W6wRun,
    trace: Sequence[JSON],
    kinds: dict[str, str] | None = None,
    prefix: str = "",
    calls: Mapping[str, JSON] | None = None,
) -> Iterator[JSON]:
    """The events that report action attempts, sub-blocks' and child runs' included, in order.

    A control's attempt invokes no action: its sub-block's steps do, and
    their events travel in the control's event as ``inner`` (A-53), so they
    come first and the control's own events are left out.  So does a
    @w6w/call of a workflow the scenario supplies (A-56): its child run's
    steps are invoked as ``<call>.(run).<step>`` (docs/engine-protocol.md,
    "Calls"), and their events come with that name.  A call of a workflow
    the scenario does not supply is judged as an app step (its own script
    answers it).
    """
    calls = model.scenario.calls if calls is None else calls
    if kinds is None:
        kinds = step_kinds(calls, model.every_step.values())
    for event in trace:
        named = event.get("step") if isinstance(event, dict) else None
        kind = kinds.get(named, "") if isinstance(named, str) else ""
        inner = event.get("inner") if isinstance(event, dict) else None
        if kind == "control":
            if isinstance(inner, list):
                yield from _attempt_events(model, inner, kinds, prefix, calls)
            continue
        if kind.startswith("call:"):
            callee = calls[kind[5:]]
            if isinstance(inner, list):
                # The child's own scenario supplies the workflows its calls run.
                scenario = callee.get("scenario") if isinstance(callee, dict) else None
                nested = scenario.get("calls") if isinstance(scenario, dict) else None
                nested = nested if isinstance(nested, dict) else {}
                child = step_kinds(nested, called_steps(callee.get("document")))
                here = f"{prefix}{named}.(run)."
                yield from _attempt_events(model, inner, child, here, nested)
            continue
        yield {**event, "step": prefix + named} if prefix and isinstance(named, str) else event


def step_kinds(calls: Mapping[str, JSON], steps: Iterable[Any]) -> dict[str, str]:
    """Each step id of a workflow (block steps included): "control", "call:<id>" or "".

    "call:<id>" for a @w6w/call whose ``with.workflow`` is a literal id the
    scenario's ``calls`` supplies: a child run (A-56).  ``steps`` are model
    steps or a called document's raw step objects.
    """
    found: dict[str, str] = {}
    for step in steps:
        if isinstance(step, dict):
            uses, with_, step_id = step.get("uses") or {}, step.get("with"), step.get("id")
            app = uses.get("app") if isinstance(uses, dict) else None
        else:
            app, with_, step_id = step.uses.app if step.uses else None, step.with_, step.id
        target = with_.get("workflow") if isinstance(with_, dict) else None
        if not isinstance(step_id, str):
            continue
        if app == "@w6w/control":
            found[step_id] = "control"
        elif app == "@w6w/call" and isinstance(target, str) and target in calls:
            found[step_id] = f"call:{target}"
    return found


def called_steps(document: JSON) -> list[JSON]:
    """A called document's steps, its controls' block steps included (raw JSON)."""
    return written_steps(document.get("steps") if isinstance(document, dict) else None)


# The clauses that say what each member of the final RunState is (the rule broken when
# it differs), in the order _comparable lists the members.
FINAL_FIELDS = {
    # W6W-EDGE-12: "A run ends failed only when a failure reaches a step that …"
    "status": ("W6W-EDGE-12",),
    # W6W-FAN-10: "lastOutput is the output of the last succeeded step by plan order"
    "output": ("W6W-FAN-10",),
    # W6W-FAN-10: "The reported error is the first failure by plan order"
    "error": ("W6W-FAN-10",),
    # W6W-FIELD-13: continue-record "rolls the step's StepError into the run's end
    # state (RunState.stepErrors)"
    "stepErrors": ("W6W-FIELD-13",),
    # W6W-FAN-10: "A suspension returns one token — that of the first suspended step
    # by plan order" (its step and token, A-55)
    "suspension": ("W6W-FAN-10",),
    # W6W-STATE-1: "Map of step id → StepExecution"
    "steps": ("W6W-STATE-1",),
}


def state_mismatch(
    states: list[JSON], seen: Observation, unordered_errors: bool = False
) -> Divergence | None:
    """The engine's final RunState must agree with one the model ends in.

    The nearest of the model's RunStates (fewest differing members) says
    what the engine got wrong; the clauses of those members
    (``FINAL_FIELDS``) come first.  ``unordered_errors``: stepErrors are
    compared as a multiset (``_blocks_beside_strands``).
    """
    observed = _comparable(seen.state, unordered_errors)
    comparable = [_comparable(state, unordered_errors) for state in states]
    if observed in comparable:
        return None
    expected = min(comparable, key=lambda e: len(_differing(e, observed)), default=None)
    differing = _differing(expected, observed) if expected is not None else []
    cited = [c for member in differing for c in FINAL_FIELDS[member]]
    continued = any(isinstance(e, dict) and e.get("event") == "run_continued" for e in seen.trace)
    if "stepErrors" in differing and continued:
        # W6W-RUNERR-5: a run the run-level handler resolved "appends the original failure
        # to RunState.stepErrors" — the rule, where the engine continued the run.
        cited.insert(0, "W6W-RUNERR-5")
    if (
        "error" in differing
        and continued
        and expected is not None
        and expected.get("error") is None
    ):
        # W6W-RUNERR-13: a continued run's "run-level error cleared" (stranger 22's engine
        # kept it after an abort at run_continued's checkpoint: W6W-FAN-10 was cited).
        cited.insert(0, "W6W-RUNERR-13")
    rest = ("W6W-STATE-1", "W6W-FAN-10", "W6W-FIELD-13")
    return Divergence(
        len(seen.trace),
        {"runState": observed},
        ({"runState": expected},),
        tuple(dict.fromkeys([*cited, *rest])),
        "the final RunState differs from the model's: " + _first_difference(expected, observed),
    )


def _differing(expected: JSON, observed: JSON) -> list[str]:
    """The members of two comparable RunStates that differ (``FINAL_FIELDS``' order)."""
    return [m for m in FINAL_FIELDS if expected.get(m) != observed.get(m)]


def _comparable(state: JSON, unordered_errors: bool = False) -> JSON:
    if not isinstance(state, dict):
        return {"invalid": state}
    raw = state.get("steps")
    steps: dict[str, JSON] = raw if isinstance(raw, dict) else {}
    errors = state.get("stepErrors", [])
    if unordered_errors and isinstance(errors, list):
        errors = sorted(errors, key=canonical)
    return {
        "status": state.get("status"),
        "output": state.get("output"),
        "error": state.get("error"),
        "stepErrors": errors,
        "suspension": state.get("suspension"),
        "steps": {
            step_id: {"status": r.get("status"), "output": r.get("output")}
            for step_id, r in steps.items()
            if isinstance(r, dict)
        },
    }


def _first_difference(expected: JSON, observed: JSON, path: str = "$") -> str:
    if isinstance(expected, dict) and isinstance(observed, dict):
        for key in sorted(set(expected) | set(observed)):
            if expected.get(key) != observed.get(key):
                return _first_difference(expected.get(key), observed.get(key), f"{path}.{key}")
    return f"{path}: expected {json.dumps(expected)}, observed {json.dumps(observed)}"


# -- secrets (W6W-ENV-17, assumption A-70) -------------------------------------------


def _secret_texts(scenario: Scenario) -> list[str]:
    """The plaintexts of the scenario's secrets, as a secret part contributes them."""
    texts = {stringify(v) for v in scenario.secrets.values() if v is not None}
    return sorted((t for t in texts if t), key=len, reverse=True)


def _may_hold(value: JSON, texts: Sequence[str]) -> bool:
    """Whether a string in ``value`` may hold one of ``texts``: False only when none does.

    Speed only (a campaign checks every run it judges, issue 16): JSON text
    escapes each character of a string on its own, so a text inside a
    string or a member name is, escaped, inside the value's JSON text, which
    the C encoder writes at once (attrs records by their fields, as
    ``strings`` walks them; member names are strings, as JSON read them).  A
    value it cannot write (not JSON, too deep) may hold anything: the caller
    then walks it.
    """
    try:
        written = json.dumps(value, ensure_ascii=False, default=_fields)
    except (TypeError, ValueError, RecursionError):
        return True
    return any(json.dumps(text, ensure_ascii=False)[1:-1] in written for text in texts)


def _fields(record: Any) -> dict[str, Any]:
    """An attrs record's fields, as ``strings`` walks them (a scenario's StepError)."""
    if attrs.has(type(record)):
        return attrs.asdict(record, recurse=False)
    raise TypeError(f"not JSON: {type(record).__name__}")


def _masked(value: JSON, plain: Sequence[str]) -> JSON:
    """``value`` with each plaintext in ``plain`` (longest first) shown as the marker."""
    if isinstance(value, str):
        for text in plain:
            value = value.replace(text, REDACTED)
        return value
    if isinstance(value, dict):
        return {_masked(k, plain): _masked(v, plain) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v, plain) for v in value]
    return value


def _fills(recorded: JSON, invoked: JSON, plain: Sequence[str]) -> bool:
    """Whether ``invoked`` is ``recorded`` with each marker standing for a secret's plaintext."""
    if isinstance(recorded, str) and isinstance(invoked, str):
        if recorded == invoked:
            return True
        if REDACTED not in recorded or not plain:
            return False
        secret = "(?:" + "|".join(re.escape(t) for t in plain) + ")"
        pattern = secret.join(re.escape(piece) for piece in recorded.split(REDACTED))
        return re.fullmatch(pattern, invoked, re.DOTALL) is not None
    if isinstance(recorded, dict) and isinstance(invoked, dict):
        return recorded.keys() == invoked.keys() and all(
            _fills(recorded[k], invoked[k], plain) for k in recorded
        )
    if isinstance(recorded, list) and isinstance(invoked, list):
        return len(recorded) == len(invoked) and all(
            _fills(r, v, plain) for r, v in zip(recorded, invoked, strict=True)
        )
    return bool(canonical(recorded) == canonical(invoked))


def secret_leak(scenario: Scenario, document: JSON, seen: Observation) -> Divergence | None:
    """A secret's plaintext in what the engine recorded: its trace, checkpoints or RunState.

    W6W-ENV-17: "secrets is injected by the host from its vault before the
    run and is never persisted with run state".  A secret counts when its
    plaintext occurs nowhere else in the case (the document, or the
    scenario's variables, trigger, documents and results): text an action
    returned, or a variable holds, may be recorded verbatim.  The report
    shows the marker, never the plaintext (assumption A-70).
    """
    secrets = _secret_texts(scenario)
    if not secrets:
        return None
    public = [
        document,
        [scenario.variables, scenario.trigger, scenario.documents, scenario.calls],
        [scenario.default, scenario.reroute, *scenario.resumes],
        [
            [result.output, result.error, list(result.meta)]
            for script in scenario.steps.values()
            for result in script.attempts
        ],
    ]
    held = [t for t in secrets if _may_hold(public, [t])]
    if held:
        texts = list(strings(public))
        held = [t for t in held if any(t in s for s in texts)]
    plain = [t for t in secrets if t not in held]
    if not plain:
        return None
    if not _may_hold([seen.trace, seen.durable, seen.state], plain):
        return None
    names = {stringify(v): k for k, v in scenario.secrets.items() if v is not None}
    places = [
        *((i, f"trace[{i}]", event) for i, event in enumerate(seen.trace)),
        *((len(seen.trace), f"checkpoint {k + 1}", s) for k, s in enumerate(seen.durable)),
        (len(seen.trace), "the final RunState", seen.state),
    ]
    for index, where, value in places:
        for text in strings(value):
            found = next((t for t in plain if t in text), None)
            if found is not None:
                observed = _masked(value, plain)
                return Divergence(
                    index,
                    observed if where.startswith("trace") else {"runState": observed},
                    (),
                    ("W6W-ENV-17",),
                    f"{where} holds the plaintext of secret {names.get(found, '?')!r}: "
                    "secrets are never persisted with run state (W6W-ENV-17); "
                    f"a recorded input shows {REDACTED!r} in its place (A-70)",
                )
    return None


# -- explanations (oracle/explain.py) --------------------------------------------------

LAUNCHES = ("step_started", "step_skipped", "step_replayed")  # a strand launching a step
ATTEMPT_ENDS = ("step_succeeded", "attempt_failed")  # an attempt that reached the action
RUN_HANDLED = ("run_restarted", "run_continued", "run_rerouted")  # the run-level policy read


def why_not(run: W6wRun, event: JSON, before: tuple[Any, ...]) -> tuple[tuple[str, ...], str]:
    """Why the model does not launch the engine's step at this point (explain.py).

    ``before`` holds the model's configurations where the engine launched
    it.  A step that had ended before a crash, launched again after the
    resume, breaks W6W-CONCEPT-3 ("resumes from the first non-terminal
    step").  A step that is ready while the model launches an earlier one
    of the plan there is out of the plan's order between two ready steps,
    which no edge decides: W6W-PLAN-5 ("Ties broken by declared step
    order"), or W6W-PLAN-2 without edges ("the plan is steps in declared
    order").  A step launched while the run drains after a plain fail or
    a wait's suspension breaks W6W-FAN-9.  ((), "") otherwise, or when the
    configurations disagree.
    """
    name = event.get("event")
    if name == "run_continued" and before and all(c.rerouted for c in before):
        # W6W-RUNERR-14: "Leave the run failed, and propagate, when the reroute target
        # itself fails" — the handler's onError is not consulted after a reroute.
        return ("W6W-RUNERR-14", "W6W-RUNERR-3"), (
            "the run was rerouted and the reroute target failed: the run stays failed, "
            "onError is not consulted after it"
        )
    step = event.get("step")
    if not isinstance(step, str) or step not in run.position or not before:
        return (), ""
    signalled = name == "step_failed" and all(c.signalled for c in before)
    if signalled and any(
        e.get("event") == "retry_scheduled" for e in _permitted(run, before, step)
    ):
        # W6W-FAN-9: "On … an abort the engine stops launching new steps, lets
        # in-flight steps finish"; the model's retry is part of finishing (A-165).
        return ("W6W-FAN-9", "W6W-HOST-3"), (
            f"the abort signal fired while {step} was in flight: in-flight steps "
            f"finish, and {step}'s retry is part of finishing it (A-165; its other "
            "reading, --retries-after-abort stop, polls the signal between attempts)"
        )
    if name in LAUNCHES:
        answers = {_not_here(run, c, run.position[step], name) for c in before}
        return answers.pop() if len(answers) == 1 else ((), "")
    return _control_attempt(run, event, before)


def _permitted(run: W6wRun, before: tuple[Any, ...], step: str) -> list[JSON]:
    """The events the model permits about ``step`` in the configurations ``before``."""
    return [t.event for c in before for t in run.enabled(c) if t.event.get("step") == step]


def _control_attempt(
    run: W6wRun, event: JSON, before: tuple[Any, ...]
) -> tuple[tuple[str, ...], str]:
    """A control's attempt the model does not end as the engine did (A-53).

    W6W-EDGE-8: control and call steps "run no retry loop", so a
    retry_scheduled for one breaks it.  W6W-EDGE-10: "A sub-block failure
    is handled by its enclosing control's own failure modes": where every
    way the model ends the attempt is a failure, an engine whose control
    succeeded let its sub-block's failure pass.
    """
    step = run.by_id[str(event["step"])]
    if not (step.is_control or step.is_call):
        return (), ""
    name = event.get("event")
    if name == "retry_scheduled":
        return ("W6W-EDGE-8",), (
            f"{step.id} is a {'@w6w/call' if step.is_call else '@w6w/control'} step: it runs "
            "no retry loop and takes its failure to its error edge or onError at once"
        )
    if name == "step_succeeded" and step.is_call:
        codes = {
            (e.get("event"), (e.get("error") or {}).get("code"))
            for e in _permitted(run, before, step.id)
        }
        if codes == {("attempt_failed", "call_depth_exceeded")}:
            # W6W-RUNERR-3: "the same call-depth-bounded seam a @w6w/call step uses";
            # one level past maxCallDepth the call's attempt fails.
            bound = run.scenario.max_call_depth
            return ("W6W-RUNERR-3", "A-56"), (
                f"the calls {step.id} makes go one level past the call depth bound ({bound}): "
                "calls are depth-bounded, and that call's attempt fails with "
                "call_depth_exceeded, which fails its caller"
            )
    if name == "step_succeeded" and step.is_control:
        ends = {e.get("event") for e in _permitted(run, before, step.id)}
        if ends == {"attempt_failed"}:
            return ("W6W-EDGE-10",), (
                f"{step.id}'s sub-block failed in every way the model runs it, and a "
                "sub-block failure is its control's: the control's attempt fails"
            )
    return (), ""


def _not_here(run: W6wRun, c: Any, i: int, name: str) -> tuple[tuple[str, ...], str]:
    from wforacle.model.w6w.config import TERMINAL

    step, state = run.plan[i], c.steps[i]
    if state.status in TERMINAL and c.resumed:
        return ("W6W-CONCEPT-3",), (
            f"{step} had ended ({state.status}) before the crash; the run resumes from "
            "the first non-terminal step"
        )
    if state.status != "pending":
        return (), ""
    if not run.ready(c, i):
        return _not_ready(run, c, i)
    if c.signalled:
        # W6W-HOST-3: "the engine polls between steps and aborts cleanly on signal";
        # W6W-FAN-9: "On … an abort the engine stops launching new steps".
        return ("W6W-HOST-3", "W6W-FAN-9"), (
            "the host's abort signal fired (the oracle answered a checkpoint with abort): "
            "the run launches no new step, lets in-flight steps finish, then ends canceled"
        )
    if c.failure is not None:
        # W6W-FAN-9: "On a plain fail … the engine stops launching new steps, lets
        # in-flight steps finish, then finalizes."
        return ("W6W-FAN-9",), (
            f"{c.failure[0]} failed (a plain fail): the run drains, launching no new step"
        )
    waits = [run.plan[k] for k, s in enumerate(c.steps) if s.stage == "suspended"]
    if not waits and c.suspension is not None:
        waits = [c.suspension[0]]  # the run has suspended: its token's step
    if waits:
        # W6W-FAN-9: "On … a wait suspension … the engine stops launching new steps".
        return ("W6W-FAN-9", "W6W-FAN-10"), (
            f"the wait {', '.join(waits)} suspended the run: it drains, launching no new "
            "step, and then suspends"
        )
    other = _launched_otherwise(run, c, i, name)
    if other[0]:
        return other
    earlier = [
        t.event["step"]
        for t in run.enabled(c)
        if t.event.get("event") in LAUNCHES and run.position.get(str(t.event["step"]), i) < i
    ]
    if not earlier:
        return (), ""
    if not any(run.inbound.values()):
        return ("W6W-PLAN-2",), f"without edges the plan is the declared order: {earlier[0]} first"
    return ("W6W-PLAN-5",), (
        f"{step} and {earlier[0]} are both ready and no edge orders them: the plan's tie "
        f"is broken by declared step order, {earlier[0]} first"
    )


def _not_ready(run: W6wRun, c: Any, i: int) -> tuple[tuple[str, ...], str]:
    """A step launched while an inbound source has not ended: it was not ready.

    W6W-FAN-5: "A step is ready when every inbound edge is resolved (its
    source reached a terminal status, or the edge was skipped)", and W6W-FAN-7
    for a join ("A step with indegree > 1 runs once"); without a parallel
    step, W6W-FAN-4: "the plan's order, one step at a time".
    """
    from wforacle.model.w6w.config import TERMINAL

    waiting = [run.plan[j] for j in run.sources[i] if c.steps[j].status not in TERMINAL]
    if not waiting:
        return (), ""
    if not run.parallel:
        clauses: tuple[str, ...] = ("W6W-FAN-4",)
    else:
        clauses = ("W6W-FAN-5", *(("W6W-FAN-7",) if len(run.sources[i]) > 1 else ()))
    states = ", ".join(f"{run.plan[j]} {c.steps[j].status}" for j in run.sources[i])
    return clauses, (
        f"{run.plan[i]} is not ready: its inbound source(s) {', '.join(waiting)} have not "
        f"ended ({states}), and a step is ready when every inbound edge is resolved"
    )


def _launched_otherwise(run: W6wRun, c: Any, i: int, name: str) -> tuple[tuple[str, ...], str]:
    """A ready step launched the wrong way: skipped with an active edge, replayed or not.

    W6W-EDGE-11: "a step is skipped only when every inbound edge is
    skipped".  W6W-FAN-11: replay "from" re-runs "that step plus all its
    graph descendants"; RFC "Replay" (W6W-REPLAY-1): a step that succeeded in
    the original run reuses its recorded output, one "pending or failed"
    runs fresh.
    """
    from wforacle.model.w6w.rules import _all_inbound_skipped, _reused

    step = run.plan[i]
    if name == "step_skipped" and not _all_inbound_skipped(run, c, step):
        live = [e.from_ for e in run.inbound[step] if (e.from_, e.to, e.when.value) in c.activated]
        because = f": the edge from {live[0]} is active" if live else ""
        return ("W6W-EDGE-11", "W6W-EDGE-4"), (
            f"{step} has an inbound edge that is not skipped{because}; a step is skipped "
            "only when every inbound edge is skipped"
        )
    replay = run.replay
    if replay is None or _all_inbound_skipped(run, c, step):
        return (), ""
    if name == "step_replayed" and not _reused(run, step):
        if step in replay.fresh:
            return ("W6W-FAN-11",), (
                f"the replay re-runs its from step and all its graph descendants; {step} is "
                "one of them, so it runs fresh"
            )
        return ("W6W-REPLAY-1", "W6W-REPLAY-2"), (
            f"{step} did not succeed in the original run: a step that was pending or failed "
            "runs fresh"
        )
    if name == "step_started" and _reused(run, step):
        return ("W6W-REPLAY-1", "W6W-REPLAY-2"), (
            f"{step} succeeded in the original run and the replay does not re-run it: it "
            "reuses the recorded output, not invoking the action"
        )
    return (), ""


def nested(
    run: W6wRun, before: tuple[Any, ...], observed: JSON
) -> tuple[tuple[str, Any, list[JSON]], ...]:
    """A control event's sub-block runs: (where, the sub-block's run, the engine's trace of it).

    explain.py checks the engine's ``inner`` events against the model's run
    of the sub-block and explains the first divergent one by its own rule
    (a body step's input, a branch step's meta).  An ``if`` runs its chosen
    block; a ``foreach`` one run per item, each ending at its
    ``run_finished`` (A-53), with ``foreach`` bound and the scenario's
    invocations counted on from the iterations before; a ``parallel`` its
    branches as one run (``observed`` in the engine's own order, which the
    check needs: A-160's branch order is not always an interleaving).
    The control's parameters and scope are read in a configuration just
    before its event.
    """
    from wforacle.model.w6w import controls

    inner = observed.get("inner") if isinstance(observed, dict) else None
    named = observed.get("step") if isinstance(observed, dict) else None
    if not isinstance(inner, list) or not isinstance(named, str) or named not in run.position:
        return ()
    step = run.by_id[named]
    kind = "call" if step.is_call else controls.action(step)
    i = run.position[named]
    for c in before:
        state = c.steps[i]
        if state.status != "running" or not isinstance(state.invoked, dict):
            continue
        params, scope = state.invoked, run.scope(c)
        counts = controls.shared_counts(run, c)  # as controls.endings starts a block

        def sub(blocks: list[Any], where: dict[str, JSON], parallel: bool = False) -> Any:
            # Called at once: the counts and the clock as they are now (B023 holds no risk).
            start = controls.Start(dict(counts), c.clock)  # noqa: B023
            return controls.inner_run(run, where, blocks, start, parallel)

        if kind == "call":
            # the child run the call starts; its record is the engine's ``inner``
            # (an inner divergence by its own rule, not the call's W6W-FIELD-10).
            target = params.get("workflow")
            callee = run.scenario.calls.get(target) if isinstance(target, str) else None
            deeper = run.depth + 1 > run.scenario.max_call_depth
            if callee is None or deeper or run.validate is None:
                return ()
            child = controls.child_run(run, named, callee, params.get("inputs", {}), counts)
            if child is None:
                return ()
            recorded = _Recorded(
                child.workflow,
                child.plan,
                child.scenario,
                start_invocations=child.start_invocations,
                start_counts=child.start_counts,
                depth=child.depth,
                options=child.options,
                validate=child.validate,
            )
            if state.plaintext is not None:
                # The inputs carried a secret's plaintext: the child's recorded events show
                # the marker, as controls.endings records them.  Unmasked, a correct
                # engine's inner events were "in an order no run permits" (session 24).
                recorded.masked = _secret_texts(run.scenario)
            return ((f"in {named}'s call of {target}", recorded, inner),)
        if kind == "if":
            chosen = controls.chosen(run, params.get("condition"))
            block = controls.block(step, (chosen,))
            return ((f"in {named}'s {chosen} block", sub([block], scope), inner),)
        if kind == "parallel":
            branches = [b.steps for b in step.blocks if b.where and b.where[0] == "branches"]
            return ((f"in {named}'s branches", sub(branches, scope, True), inner),)
        items = params.get("items")
        if kind != "foreach" or not isinstance(items, list):
            return ()
        body = controls.block(step, ("body",))
        runs: list[tuple[str, Any, list[JSON]]] = []
        segment: list[JSON] = []
        for event in inner:
            segment.append(event)
            if not (isinstance(event, dict) and event.get("event") == "run_finished"):
                continue
            index = len(runs)
            if index >= len(items):
                break
            here = {**scope, "foreach": {"item": items[index], "index": index}}
            runs.append((f"in iteration {index} of foreach {named}", sub([body], here), segment))
            # The attempts that reached the action count on, a nested control's and
            # a call's child run's too (as units: <call>.(run).<step>).
            for done in _attempt_events(run, segment):
                reached = isinstance(done, dict) and done.get("event") in ATTEMPT_ENDS
                if reached and isinstance(done.get("step"), str):
                    counts[done["step"]] = counts.get(done["step"], 0) + 1
            segment = []
        return tuple(runs)
    return ()


class _Recorded(W6wRun):
    """A called run as its call's ``inner`` records it: events without checkpoint numbers.

    A-56: the child run's events travel in the call's attempt event, persisted
    with it (controls.finals strips the numbers the child run writes).
    """

    masked: Sequence[str] = ()  # plaintexts its events show as the marker (a secret input)

    def _checkpointed(self, c: Any, t: Any) -> Any:
        if self.masked:
            # Masked as controls.endings masks the events it records (Worded text kept, A-155).
            event = masked(t.event, self.masked)
            return Transition(event, t.rule, t.clauses, t.target)
        return t


def blame(run: W6wRun, divergence: Divergence) -> tuple[str, ...]:
    """The clause the engine's event breaks, where the rule alone does not say (explain.py).

    A control's own definition (``_control_blame``).  W6W-META-19:
    "Parallel strands and foreach iterations never share a callback: each
    invocation gets its own."  In a foreach iteration's or a
    parallel branch's run, an attempt whose meta differs from the model's
    and is what another invocation of the same step reported was given
    another invocation's report.
    """
    from wforacle.model.w6w.meta import normalise_meta

    observed = divergence.observed
    if not isinstance(observed, dict):
        return ()
    called = _call_blame(run, observed, divergence.permitted)
    if called:
        return called
    canceled = any(
        isinstance(p, dict) and p.get("event") == "run_finished" and p.get("status") == "canceled"
        for p in divergence.permitted
    )
    if canceled and observed.get("event") in RUN_HANDLED:
        # The run-level policy read although the run was canceled (a stranger's engine
        # retried an aborted run): the rule that ends it cites W6W-HOST-3 first.
        return ("W6W-RUNERR-6",)  # "a canceled run [is] not [a failure]: neither is retried
        # and neither reads the policy"
    if _block_cut_by_signal(run, observed, divergence.permitted):
        # A-165 with W6W-FAN-9 ("lets in-flight steps finish"): a control or call in
        # flight at the abort signal runs its block to the end (stranger 22's engine
        # skipped it; the start rule of the block's first step was cited).
        return ("W6W-FAN-9", "A-165")
    if _foreach_left_verbatim(observed, divergence.permitted):
        # W6W-ROOT-25: foreach is one of "the eight-member RunScope root set": a
        # {{ foreach.… }} marker is root-anchored, in a foreach body too, where the
        # resolution cites W6W-ROOT-6 (the body's scope) first.
        return ("W6W-ROOT-25",)
    if _printed_nothing(observed, divergence.permitted):
        # W6W-ROOT-10: "A reference that resolves to nothing contributes the empty string"
        # (stranger 22's engine printed "null"; W6W-ROOT-9 was cited first).
        return ("W6W-ROOT-10",)
    if _reordered_output(run, observed, divergence.permitted):
        # a foreach's or parallel's output is "[lastOutput of each iteration]" /
        # "[… of each branch]" in their order, not the order they ended in (a stranger's
        # engine was told W6W-FIELD-10, the invocation target, session 24).
        return ("A-53",)
    controlled = _control_blame(run, observed)
    if controlled or observed.get("event") not in ATTEMPT_ENDS:
        return controlled
    if run.outer is None or not ("foreach" in run.outer or run.separate_roots):
        return ()
    step, meta = observed.get("step"), observed.get("meta")
    if not isinstance(step, str) or meta is None:
        return ()
    model = [e.get("meta") for e in divergence.permitted if e.get("step") == step]
    if meta in model:
        return ()
    attempts = run.scenario.script(step).attempts
    reports = [normalise_meta(result.meta[0]) for result in attempts if result.meta]
    return ("W6W-META-19",) if meta in reports else ()


FOREACH_MARKER = re.compile(r"\{\{\s*foreach\b")


def _foreach_left_verbatim(observed: JSON, permitted: Any) -> bool:
    """Whether a step start's input kept a ``{{ foreach… }}`` marker the model resolved."""
    return any(
        isinstance(engine, str)
        and FOREACH_MARKER.search(engine)
        and not (isinstance(model, str) and FOREACH_MARKER.search(model))
        for engine, model in _input_leaves(observed, permitted)
    )


def _printed_nothing(observed: JSON, permitted: Any) -> bool:
    """Whether a step start's input printed "null" where the model's printed nothing.

    A string of the input that is the model's with "null" or "undefined"
    where a reference that resolved to nothing contributed the empty string.
    """
    return any(
        isinstance(model, str)
        and isinstance(engine, str)
        and engine != model
        and re.sub("null|undefined", "", engine) == model
        for engine, model in _input_leaves(observed, permitted)
    )


def _input_leaves(observed: JSON, permitted: Any) -> Iterator[tuple[Any, Any]]:
    """(the engine's, the model's) scalar at each path of a step start's input.

    For the engine's ``step_started`` and each the model permits for that step;
    a path the engine's input lacks pairs None with the model's scalar.
    """
    if observed.get("event") != "step_started":
        return
    mine = dict(_leaves(observed.get("input")))
    for event in permitted:
        if not isinstance(event, dict) or event.get("event") != "step_started":
            continue
        if event.get("step") != observed.get("step"):
            continue
        for path, model in _leaves(event.get("input")):
            yield mine.get(path), model


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """(path, scalar) for every leaf of a JSON value."""
    if isinstance(value, dict):
        for key, member in value.items():
            yield from _leaves(member, (*path, key))
    elif isinstance(value, list):
        for k, item in enumerate(value):
            yield from _leaves(item, (*path, k))
    else:
        yield path, value


def _block_cut_by_signal(run: W6wRun, observed: JSON, permitted: Any) -> bool:
    """Whether a control's or call's attempt ended after the abort signal, cut short.

    Fewer block steps started than in every ending the model permits.
    """
    signal = run.scenario.cancel_after
    checkpoint = observed.get("checkpoint")
    inner = observed.get("inner")
    if signal is None or not isinstance(checkpoint, int) or checkpoint <= signal:
        return False
    if observed.get("event") not in ATTEMPT_ENDS or not isinstance(inner, list):
        return False

    def started(events: Any) -> int:
        listed = events if isinstance(events, list) else []
        return sum(1 for e in listed if isinstance(e, dict) and e.get("event") == "step_started")

    model = [
        started(p.get("inner"))
        for p in permitted
        if isinstance(p, dict) and p.get("event") == observed.get("event")
        if p.get("step") == observed.get("step")
    ]
    return bool(model) and started(inner) < min(model)


def _call_blame(run: W6wRun, observed: JSON, permitted: Any) -> tuple[str, ...]:
    """A call whose child did not run as the model's, by the rule it breaks.

    A call that ran no child run where the model's runs one: W6W-RUNERR-7.

    A-56: the call's output is the child's lastOutput; W6W-FAN-10: "lastOutput
    is the output of the last succeeded step by plan order" (a stranger's
    engine returned the first).  Or the child started without a declared
    default (W6W-FIELD-19).  The child's step events agree (in any
    order: the child's strands interleave as the engine schedules them);
    only its run_finished or the call's own output differs.
    """
    named = observed.get("step")
    step = run.by_id.get(named) if isinstance(named, str) else None
    inner = observed.get("inner")
    if step is None or not step.is_call or observed.get("event") not in ATTEMPT_ENDS:
        return ()
    if not isinstance(inner, list):
        return ()
    if not inner and any(
        isinstance(p, dict) and p.get("step") == named and p.get("inner") for p in permitted
    ):
        # The engine's call ran no child run where the model's runs one (a call answered
        # from an earlier call's result): W6W-RUNERR-7, "A run may be started by … a
        # @w6w/call step"; each call is a fresh child run (A-56).
        return ("W6W-RUNERR-7", "A-56")
    bounded = '"call_depth_exceeded"'
    if bounded not in json.dumps(observed) and any(bounded in json.dumps(p) for p in permitted):
        # A call past the depth bound ran (in the child, or deeper) where the model's fails.
        return ("W6W-RUNERR-3",)  # calls are "call-depth-bounded"

    def parts(events: list[JSON]) -> tuple[list[str], list[JSON]]:
        """The child's other events (as sorted text: any order) and its run_finished."""
        ended: list[JSON] = []
        rest: list[JSON] = []
        for e in events:
            (ended if isinstance(e, dict) and e.get("event") == "run_finished" else rest).append(e)
        return sorted(json.dumps(e, sort_keys=True) for e in rest), ended

    mine, mine_parts = _started_with(inner), parts(inner)
    for event in permitted:
        theirs = event.get("inner") if isinstance(event, dict) else None
        same_step = event.get("event") == observed["event"] and event.get("step") == named
        if not same_step or not isinstance(theirs, list):
            continue
        if _more_variables(inner, theirs):
            # A child run (here or in a call below) started with a variable the model's has
            # not: A-56, "variables: the resolved inputs" -- a stranger's engine merged the
            # caller's variables in and was told W6W-FIELD-18 (session 24).
            return ("A-56",)
        model = _started_with(theirs)
        if isinstance(mine, dict) and isinstance(model, dict) and set(model) - set(mine):
            # The child started without a variable the model's has: the inputs are the
            # engine's too, so a declared default was not applied (a stranger's engine).
            return ("W6W-FIELD-19", "A-56")  # default: "Used when the caller doesn't
            # supply a value"
        if observed["event"] != "step_succeeded":
            continue
        (body, ended), (model_body, model_ended) = mine_parts, parts(theirs)
        if body == model_body and (
            ended != model_ended or observed.get("output") != event.get("output")
        ):
            return ("W6W-FAN-10", "A-56")
    return ()


def _reordered_output(run: W6wRun, observed: JSON, permitted: Any) -> bool:
    """A foreach's or parallel's output with the model's members in another order."""
    from wforacle.model.w6w.controls import action

    named, output = observed.get("step"), observed.get("output")
    step = run.by_id.get(named) if isinstance(named, str) else None
    if step is None or action(step) not in ("foreach", "parallel") or not isinstance(output, list):
        return False
    mine = sorted(json.dumps(v, sort_keys=True) for v in output)
    for event in permitted if isinstance(permitted, list | tuple) else ():
        theirs = event.get("output") if isinstance(event, dict) else None
        if (
            event.get("step") == named
            and isinstance(theirs, list)
            and theirs != output
            and sorted(json.dumps(v, sort_keys=True) for v in theirs) == mine
        ):
            return True
    return False


def _started_with(events: list[JSON]) -> JSON:
    """The variables a child run's ``run_started`` among ``events`` carries, or None."""
    return next(
        (
            e.get("variables")
            for e in events
            if isinstance(e, dict) and e.get("event") == "run_started"
        ),
        None,
    )


def _more_variables(mine: list[JSON], model: list[JSON]) -> bool:
    """Whether a child run in ``mine`` started with a variable its ``model`` counterpart lacks.

    ``mine`` and ``model`` are a call's inner events; calls below are searched too.
    """
    here, there = _started_with(mine), _started_with(model)
    if isinstance(here, dict) and isinstance(there, dict) and set(here) - set(there):
        return True
    calls = {
        (e.get("event"), e.get("step")): e["inner"]
        for e in model
        if isinstance(e, dict) and isinstance(e.get("inner"), list)
    }
    for e in mine:
        if isinstance(e, dict) and isinstance(e.get("inner"), list):
            below = calls.get((e.get("event"), e.get("step")))
            if below is not None and _more_variables(e["inner"], below):
                return True
    return False


def _control_blame(run: W6wRun, observed: JSON) -> tuple[str, ...]:
    """A control's event that breaks A-53's definition of the control itself.

    Its input holds a sub-block (the input is its parameters, the with block
    without its blocks: A-53, A-06); a foreach ran on after an iteration
    failed ("the first failing iteration ends the control", A-53; W6W-EDGE-10:
    "A sub-block failure is handled by its enclosing control's own failure
    modes"); an if ran the block its condition did not choose (the truthiness
    of the reading judged under, A-53, A-20).
    """
    from wforacle.model.w6w.controls import BLOCK_KEYS, action, block, chosen

    named = observed.get("step")
    step = run.by_id.get(named) if isinstance(named, str) else None
    kind = action(step) if step is not None else None
    if step is None or kind is None:
        return ()
    given = observed.get("input")
    started = observed.get("event") == "step_started" and isinstance(given, dict)
    if started and set(given) & set(BLOCK_KEYS.get(kind, ())):
        return ("A-53", "A-06")
    inner = observed.get("inner")
    if not isinstance(inner, list):
        return ()
    ends = [
        k for k, e in enumerate(inner) if isinstance(e, dict) and e.get("event") == "run_finished"
    ]
    if kind == "foreach" and any(
        inner[k].get("status") == "failed" for k in ends if k < len(inner) - 1
    ):
        return ("A-53", "W6W-EDGE-10")
    if kind == "if" and isinstance(step.with_, dict):
        ran = {e.get("step") for e in inner if isinstance(e, dict)}
        for where in ("then", "else"):
            if ran & {s.id for s in block(step, (where,))}:
                condition = step.with_.get("condition")
                if where != chosen(run, condition) and not isinstance(condition, dict):
                    return ("A-53", "A-20")
    return ()
