"""The w6w specification as the oracle sees it: the record of its parts.

The record type is properties/specification.py.

The registry is read when the command line is built, so this module imports
only attrs and the record type at the top; each part imports the model,
networkx, lark or Hypothesis when it runs (start-up time: `wforacle --help`
loads none of them, tests/test_cli.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, cast

import attrs

from wforacle.model.diagnostics import InvalidCase, InvalidInput, InvalidScenario, Report
from wforacle.properties.specification import (
    Divergence,
    Interrupt,
    Layout,
    Loaded,
    Observation,
    Prepared,
    Protocol,
    Reading,
    Specification,
    copy_case,
    parse_json,
    strings,
    without,
)

JSON = Any


# -- documents -------------------------------------------------------------------------


def _sniffs(head: bytes) -> bool:
    return not head.lstrip().startswith(b"<")


def _claims(document: JSON) -> bool:
    return isinstance(document, dict) and ("manifestVersion" in document or "steps" in document)


def _validate(document: JSON) -> Loaded:
    from wforacle.properties.w6w import validate as rules  # start-up time (module docstring)

    result = rules.validate(document)
    return Loaded(result.report, result.workflow, result.plan)


def _validate_many(documents: list[JSON], previous: JSON) -> list[Report]:
    """Several documents share one account's keys; ``previous`` applies to a single document."""
    from wforacle.model.diagnostics import sort_diagnostics
    from wforacle.properties.w6w import validate as rules

    results = [rules.validate(d, previous if len(documents) == 1 else None) for d in documents]
    reports = [r.report for r in results]
    for index, diagnostic in rules.key_conflicts([r.workflow for r in results]):
        merged = (*reports[index].diagnostics, diagnostic)
        reports[index] = Report(sort_diagnostics(merged))
    return reports


def _plan(loaded: Loaded, tie_break: str) -> tuple[JSON, list[str]]:
    order = _ordered(loaded.model, loaded.plan, tie_break)
    return {"order": order}, [f"{n:>4}  {step_id}" for n, step_id in enumerate(order, start=1)]


def _ordered(workflow: Any, declared: list[str] | None, tie_break: str) -> list[str]:
    """The plan under A-02's ``tie_break``: validation's own, else Kahn's FIFO.

    ``declared`` is validation's plan (its fast path), used when ties break by
    declared order; None computes it.
    """
    from wforacle.properties.w6w.plan import TieBreak, plan_order

    chosen = TieBreak(tie_break)
    if chosen is TieBreak.DECLARED and declared is not None:
        return declared
    return plan_order(workflow, chosen)


# -- the model -------------------------------------------------------------------------


# Where the RFC is open and the model takes the reading as a parameter (issue 18).
def _any_string(case: Mapping[str, JSON], pattern: str) -> bool:
    """Whether a string of the case matches ``pattern``: a reading's relevance.

    The document's strings and the scenario's (a render part renders a
    string from the scope: variables, documents, outputs), conservatively.
    """
    found = re.compile(pattern)
    texts = strings([case.get("document"), case.get("scenario")])
    return any(found.search(text) for text in texts)


def _error_edges(case: Mapping[str, JSON]) -> bool:
    document = case.get("document")
    edges = document.get("edges", []) if isinstance(document, dict) else None
    if not isinstance(edges, list):
        return True  # not a document this reads: the reading may matter
    return any(isinstance(e, dict) and e.get("when") == "error" for e in edges)


def _any_step(case: Mapping[str, JSON], holds: Callable[[dict[str, JSON]], bool]) -> bool:
    """Whether a step of the case's document (a control's block step too) ``holds``."""
    from wforacle.model.w6w.document import written_steps

    document = case.get("document")
    steps = document.get("steps") if isinstance(document, dict) else None
    return any(holds(step) for step in written_steps(steps))


def _if_controls(case: Mapping[str, JSON]) -> bool:
    """Whether the case's document holds an ``if`` control (A-53's truthiness reading)."""

    def is_if(step: dict[str, JSON]) -> bool:
        uses = step.get("uses")
        return isinstance(uses, dict) and uses.get("action") == "if"

    return _any_step(case, is_if)


def _jsonlogic(case: Mapping[str, JSON]) -> bool:
    """Whether the case's document holds JSONLogic (A-20's reading).

    A ``$expr`` value, an ExprValue ``expr`` part, or an ``=`` payload in a template.
    """
    text = json.dumps(case.get("document"))
    return '"$expr"' in text or '"expr"' in text or _any_string(case, r"\{\{\s*=")


def _calls(case: Mapping[str, Any]) -> bool:
    """Whether the case's scenario supplies workflows to call.

    A reading's relevance is then conservative: a called workflow's document
    and inputs are not read here.
    """
    scenario = case.get("scenario")
    return isinstance(scenario, dict) and bool(scenario.get("calls"))


def _edgeless_replay(case: Mapping[str, Any]) -> bool:
    """A-71 can matter: a replay from a step of a document that declares no edges."""
    replay, document = case.get("replay"), case.get("document")
    return (
        isinstance(replay, dict)
        and replay.get("from") is not None
        and isinstance(document, dict)
        and not document.get("edges")
    )


def _aborted(case: Mapping[str, Any]) -> bool:
    """Whether the case's scenario fires the host's abort signal (W6W-HOST-3)."""
    scenario = case.get("scenario")
    return isinstance(scenario, dict) and scenario.get("cancelAfterCheckpoint") is not None


def _aborted_handler(case: Mapping[str, Any]) -> bool:
    """A-164 can matter: an abort in a run whose document has a run-level handler."""
    document = case.get("document")
    return (
        _aborted(case)
        and isinstance(document, dict)
        and (document.get("onError") == "continue" or document.get("reroute") is not None)
    )


def _aborted_retries(case: Mapping[str, Any]) -> bool:
    """A-165 can matter: an abort in a run with a step (a block step too) with a retry policy."""
    return _aborted(case) and _any_step(case, lambda step: "retry" in step)


def _crashed_retries(case: Mapping[str, Any]) -> bool:
    """A-46 can matter: a scripted crash in a run with a step with a retry policy."""
    scenario = case.get("scenario")
    crashes = isinstance(scenario, dict) and bool(scenario.get("crashAfterCheckpoints"))
    return crashes and _any_step(case, lambda step: "retry" in step)


def _required_defaults(case: Mapping[str, Any]) -> bool:
    """Whether A-42 can matter: a required variable with a default that the run does not supply."""
    if _calls(case):
        return True
    scenario = case.get("scenario")
    scenario = scenario if isinstance(scenario, dict) else {}
    supplied = scenario.get("variables")
    supplied = supplied if isinstance(supplied, dict) else {}
    document = case.get("document")
    variables = document.get("variables") if isinstance(document, dict) else None
    return any(
        isinstance(v, dict)
        and v.get("required") is True
        and "default" in v
        and v.get("key") not in supplied
        for v in (variables if isinstance(variables, list) else [])
    )


def _templates(case: Mapping[str, Any]) -> bool:
    """Whether A-33 can matter: a string part or marker somewhere (a template, an envelope).

    Conservative: any ``{{`` in the document or the scenario's strings (a
    render part's content, a called workflow), or an ExprValue envelope.
    """
    return _any_string(case, r"\{\{") or '"parts"' in json.dumps(case.get("document"))


def _unterminated_render(case: Mapping[str, Any]) -> bool:
    """Whether A-157 can matter: a render part, and a ``{{`` with no ``}}`` after it somewhere."""
    return '"render"' in json.dumps(case.get("document")) and _any_string(case, r"\{\{(?!.*\}\})")


def _declares_variables(case: Mapping[str, Any]) -> bool:
    """Whether A-72 can matter: a run can be refused only over declared variables."""
    if _calls(case):
        return True
    document = case.get("document")
    return isinstance(document, dict) and bool(document.get("variables"))


def _chained_branches(value: JSON) -> bool:
    """Whether a parallel control somewhere has two branches, one of two steps or more."""
    if isinstance(value, dict):
        uses = value.get("uses")
        branches = (
            (value.get("with") or {}).get("branches")
            if isinstance(value.get("with"), dict)
            else None
        )
        if (
            isinstance(uses, dict)
            and uses.get("action") == "parallel"
            and isinstance(branches, list)
            and len(branches) >= 2
            and any(isinstance(b, list) and len(b) >= 2 for b in branches)
        ):
            return True
        return any(_chained_branches(v) for v in value.values())
    return isinstance(value, list) and any(_chained_branches(v) for v in value)


def _plans_differ(case: Mapping[str, Any]) -> bool:
    """Whether the two tie-breaks plan ``case``'s document differently (A-02 can matter)."""
    if _calls(case):
        return True
    if _chained_branches(case.get("document")):
        return True  # a parallel control's block: its chains' plan (controls.inner_run)
    document = case.get("document")
    if not isinstance(document, dict) or not document.get("edges"):
        return False  # W6W-PLAN-2: no edges, declared order under both
    from wforacle.properties.w6w import validate as rules

    try:
        checked = rules.validate(copy_case(document))
    except Exception:  # an unreadable document: let the judge say what is wrong
        return True
    if checked.plan is None or checked.workflow is None:
        return False
    return checked.plan != _ordered(checked.workflow, None, "fifo")


READINGS = (
    Reading(
        "--launch",
        "launch",
        "w6w, A-74: a strand's next launch is its own transition (default) or happens "
        "in the completion that enables it",
        ("separate", "eager"),
        assumption="A-74",
        clauses=("W6W-FAN-5", "W6W-FAN-9"),
        narrows=True,  # every eager trace is a separate trace (config.Launch)
    ),
    Reading(
        "--indegree",
        "indegree",
        "w6w, A-50: a step's indegree counts distinct sources (default) or inbound edges "
        "(a success and an error edge from one source make a join)",
        ("sources", "edges"),
        assumption="A-50",
        relevant=_error_edges,  # a success and an error edge from one source
        clauses=("W6W-FAN-6", "W6W-FAN-7"),
    ),
    Reading(
        "--resolution-retry",
        "resolution_retry",
        "w6w, A-41: the retry policy retries a with block that fails to resolve, resolving "
        "it again (default: never retried)",
        assumption="A-41",
        relevant=lambda case: any(k == "retry" for k in strings(case.get("document"))),
        clauses=("W6W-FIELD-24",),
        names=("never", "retried"),
    ),
    Reading(
        "--chain-check",
        "chain_check",
        "w6w, A-37: an = payload shaped like a fallback chain is root-checked per operand "
        "like an infix chain (default: the check is on the part) or exempt (infix: only "
        "a marker written with || or ?? is checked)",
        ("part", "infix"),
        assumption="A-37",
        relevant=lambda case: _any_string(case, r"\{\{\s*="),
        clauses=("W6W-CHAIN-8", "W6W-CHAIN-16"),
    ),
    Reading(
        "--bare-secret",
        "bare_secret",
        "w6w, A-158: {{ secrets }} or {{ secrets. }} resolves to nothing like a path on the "
        "generic data root (default: empty) or is a secrets.<name> marker naming no secret "
        "and fails the step (fails)",
        ("empty", "fails"),
        assumption="A-158",
        relevant=lambda case: _any_string(case, r"\{\{\s*secrets\.?\s*\}\}"),
        clauses=("W6W-ROOT-11", "W6W-ENV-18"),
    ),
    Reading(
        "--tie-break",
        "tie_break",
        "w6w, A-02: the plan breaks a tie by declared order (default: the earliest-declared "
        "ready step next) or first-in first-out (ready steps in the order they became ready)",
        ("declared", "fifo"),
        assumption="A-02",
        relevant=_plans_differ,
        clauses=("W6W-PLAN-4", "W6W-PLAN-5"),
    ),
    Reading(
        "--required-default",
        "required_default",
        "w6w, A-42: a required variable's default satisfies it (default: the run starts) "
        "or only a supplied value does (supplied: the run is rejected, missing_variable)",
        ("default", "supplied"),
        assumption="A-42",
        relevant=_required_defaults,
        clauses=("W6W-FIELD-18", "W6W-FIELD-19"),
    ),
    Reading(
        "--rejected-status",
        "rejected_status",
        "w6w, A-72: a run refused at its start (a missing or mistyped variable) ends failed "
        "with its error (default) or canceled",
        ("failed", "canceled"),
        assumption="A-72",
        relevant=_declares_variables,
        clauses=("W6W-FIELD-18", "W6W-FIELD-17"),
    ),
    Reading(
        "--structured-string",
        "structured",
        "w6w, A-33: an object or array in a string is JSON.stringify's text (default: json) "
        "or JavaScript's String(v) (string: [object Object], 1,2)",
        ("json", "string"),
        assumption="A-33",
        relevant=_templates,
        clauses=("W6W-ENV-20", "W6W-ROOT-22"),
    ),
    Reading(
        "--replay-graph",
        "replay_graph",
        "w6w, A-71: a replay from a step re-runs its descendants along the implicit chain of "
        "an edgeless document (default: chain) or along declared edges only (edges: an "
        "edgeless document's step has none)",
        ("chain", "edges"),
        assumption="A-71",
        relevant=_edgeless_replay,
        clauses=("W6W-FAN-11", "W6W-PLAN-2"),
    ),
    Reading(
        "--unterminated-render",
        "unterminated_render",
        "w6w, A-157: a render part's content with a {{ and no }} after it resolves the markers "
        "before it and keeps the rest as written (default: rest) or is literal as a whole, as "
        "a with-value string is (literal)",
        ("rest", "literal"),
        assumption="A-157",
        relevant=_unterminated_render,
        clauses=("W6W-ENV-10", "W6W-ROOT-12"),
    ),
    Reading(
        "--if-truthiness",
        "if_truthiness",
        "w6w, A-53: an if control's condition is truthy as JSONLogic has it (default: [] is "
        "false, A-20) or as JavaScript's !!value ([] and {} are true)",
        ("jsonlogic", "javascript"),
        assumption="A-53",
        relevant=_if_controls,
        clauses=("W6W-CONCEPT-9",),
    ),
    Reading(
        "--jsonlogic",
        "jsonlogic",
        "w6w, A-20 (with A-24, A-25): @w6w/expr's JSONLogic is the JSON Logic community "
        "semantics (default) or json-logic-js 2.0.5's (classic: operands read positionally, "
        'parseFloat in + and *, NaN and undefined as values, missing of "" never missing, '
        "a computed argument list wrapped)",
        ("community", "classic"),
        assumption="A-20",
        relevant=_jsonlogic,
        clauses=("W6W-EXPR-2", "W6W-ENV-4"),
    ),
    Reading(
        "--abort-after-handler",
        "handler_abort",
        "w6w, A-164: an abort signal that fires once the run-level handler has acted "
        "(run_continued, run_rerouted) is polled as the run finalizes (default: canceled) or "
        "the run ends as the handler left it (resolved)",
        ("canceled", "resolved"),
        assumption="A-164",
        relevant=_aborted_handler,
        clauses=("W6W-HOST-3", "W6W-RUNERR-6"),
    ),
    Reading(
        "--child-trigger",
        "child_trigger",
        "w6w, A-56: a @w6w/call's child run sees the manual trigger (default: manual) or its "
        "caller's (inherit)",
        ("manual", "inherit"),
        assumption="A-56",
        relevant=_calls,
        clauses=("W6W-RUNERR-3",),
    ),
    Reading(
        "--resumed-attempt",
        "resumed_attempt",
        "w6w, A-46: a step running at a crash starts over from attempt 1 (default: restart) "
        "or at the attempt its checkpoint holds, the lost attempt counted (kept)",
        ("restart", "kept"),
        assumption="A-46",
        relevant=_crashed_retries,
        clauses=("W6W-CONCEPT-3", "W6W-RUNERR-12"),
    ),
    Reading(
        "--retries-after-abort",
        "signal_retries",
        "w6w, A-165: a step in flight at the abort signal finishes with its retries (default: "
        "finish) or makes no further attempt, its failed attempt final (stop)",
        ("finish", "stop"),
        assumption="A-165",
        relevant=_aborted_retries,
        clauses=("W6W-HOST-3", "W6W-FAN-9"),
    ),
)


def _options(chosen: Mapping[str, Any]) -> Any:
    """The model's readings (``READINGS``' dests) named in ``chosen``; the model's own otherwise."""
    from wforacle.model.w6w.semantics import Launch, Options

    given = {r.dest: chosen[r.dest] for r in READINGS if chosen.get(r.dest) is not None}
    if "launch" in given:
        given["launch"] = Launch(given["launch"])
    return Options(**given)


def _scenario(value: JSON) -> Any:
    """The scenario, or InvalidScenario naming every problem (one line each)."""
    from wforacle.model.w6w.scenario import load_scenario

    scenario, problems = load_scenario(value)
    if problems:
        raise InvalidScenario(
            "\n".join(f"scenario {p.path}: {p.message}" for p in problems), problems[0].path
        )
    return scenario


def _semantics(loaded: Loaded, scenario: JSON, options: Any, replay: JSON) -> Any:
    """The run of a valid document; ``replay`` is ``{"runState", "from"}`` or None."""
    from wforacle.model.w6w.semantics import Replay, W6wRun

    run_scenario = _scenario(scenario)
    readings = options if options is not None else _options({})
    recorded = None
    if replay is not None:
        start = replay.get("from")
        if start is not None and start not in loaded.plan:
            raise InvalidCase(f"--replay-from {start}: no such step")
        recorded = Replay.of(replay["runState"], loaded.model, start, readings.replay_graph)
    # A @w6w/call target is validated by the validator the model is given; the plan
    # breaks ties as the readings say.
    plan = _ordered(loaded.model, loaded.plan, readings.tie_break)
    validate = _validator(readings)
    return W6wRun(loaded.model, plan, run_scenario, recorded, options=readings, validate=validate)


def _explore(run: Any, max_states: int, reduce: bool) -> Any:
    from wforacle.model.w6w.independence import explore_run

    return explore_run(run, max_states, reduce=reduce)


def _key(config: Any) -> Any:
    from wforacle.model.w6w.semantics import config_key

    return config_key(config)


def _outcome(run: Any, config: Any) -> JSON:
    from wforacle.model.w6w.semantics import outcome

    return outcome(run, config)


def _final_state(run: Any, config: Any) -> JSON:
    from wforacle.model.w6w.semantics import run_state

    return run_state(run, config)


def _limits() -> dict[type[Exception], str]:
    from wforacle.model.kernel.lts import Divergent
    from wforacle.model.w6w.semantics import Unsupported

    return {Unsupported: "not modelled: ", Divergent: ""}


# -- cases -----------------------------------------------------------------------------


def _validator(readings: Any) -> Callable[[JSON], Any]:
    """Document validation whose plan breaks ties as ``readings`` says (A-02).

    The declared-order plan is validation's own; under ``fifo`` the plan of
    the run, and of every workflow it calls, is Kahn's with a FIFO queue
    (properties/w6w/plan.py), the reading the RFC's "ties broken by declared
    step order" also admits (docs/spec-review.md F-02).
    """
    from wforacle.properties.w6w import validate as rules

    if readings.tie_break == "declared":
        return rules.validate

    def validate(document: JSON, previous: JSON = None) -> Any:
        checked = rules.validate(document, previous)
        if checked.plan is None or checked.workflow is None:
            return checked
        return attrs.evolve(checked, plan=_ordered(checked.workflow, None, readings.tie_break))

    return validate


def prepare(case: JSON, options: Any = None) -> Prepared:
    """The model run of a case and the message that starts it on an engine.

    The document is validated and the scenario loaded once; a replay case's
    ``{"runState", "from"}`` is the model's reference run of the same
    document and scenario (unless the case carries its own ``runState``),
    and the model is the run that replays it.  InvalidCase when the case is
    not runnable.
    """
    from wforacle.model.kernel.lts import execute
    from wforacle.model.w6w.scenario import load_scenario
    from wforacle.model.w6w.semantics import Replay, W6wRun, run_state

    readings = options if options is not None else _options({})
    checked = _validator(readings)
    result = checked(copy_case(case["document"]))
    if not result.report.valid or result.workflow is None or result.plan is None:
        raise InvalidCase(f"the case's document is invalid:\n{result.report.described()}")
    scenario, problems = load_scenario(copy_case(case["scenario"]))
    if problems:
        raise InvalidCase(f"the case's scenario is invalid: {[p.message for p in problems]}")
    run = W6wRun(result.workflow, result.plan, scenario, options=readings, validate=checked)
    replay = case.get("replay")
    files: dict[str, JSON] = {}
    if replay is not None and not isinstance(replay, dict):
        raise InvalidCase(f"replay.json must be an object, not {type(replay).__name__}")
    if isinstance(replay, dict):
        request = replay
        if "runState" not in replay:
            state = run_state(run, execute(run).final)
            request = {"runState": state, "from": replay.get("from")}
        start = request.get("from")
        if start is not None and (not isinstance(start, str) or start not in result.plan):
            raise InvalidCase(f"the case replays from {start!r}, which is not a step")
        run = W6wRun(
            result.workflow,
            result.plan,
            scenario,
            Replay.of(request["runState"], result.workflow, start, readings.replay_graph),
            options=readings,
            validate=checked,
        )
        files["replay"] = request
    message: dict[str, JSON] = {
        "type": "run",
        "runId": scenario.run_id,
        "document": case["document"],
        "variables": scenario.variables,
        "trigger": scenario.trigger,
        "secrets": scenario.secrets,
        "documents": scenario.documents,
    }
    if files:
        message.update(
            type="replay", runState=files["replay"]["runState"], **{"from": files["replay"]["from"]}
        )
    if scenario.crashes or scenario.cancel_after is not None:
        message["checkpoints"] = True
    if scenario.calls:
        # The workflows @w6w/call steps may run, and the depth bound (A-56;
        # docs/engine-protocol.md "Calls"): the host's, as variables and secrets are.
        message["workflows"] = _workflows(scenario.calls)
        message["maxCallDepth"] = scenario.max_call_depth
    return Prepared(run, message, files)


def _model() -> None:
    """Load the model the cases are written with before generating them.

    Hypothesis draws text and numbers partly from the literals of the local
    modules loaded when it generates; loading the w6w model first keeps a
    seed's suite the same whatever command or test loaded what before.
    """
    from wforacle.model.w6w import independence, semantics  # noqa: F401
    from wforacle.properties.w6w import conformance  # noqa: F401


def _cases() -> Any:
    from wforacle.properties.strategies.w6w import engine_cases

    return engine_cases(max_steps=6, checkpoint_of=_checkpoint_of)


def _core() -> Any:
    _model()
    from wforacle.properties.strategies.w6w import engine_cases

    return engine_cases(checkpoint_of=_checkpoint_of)


def _jsonlogic_cases() -> Any:
    """Profile ``w6w-jsonlogic``: $expr values over the operators where A-20's readings part."""
    _model()
    from wforacle.properties.strategies.w6w import jsonlogic_cases

    return jsonlogic_cases()


def _checkpoint_of(case: JSON, name: str) -> int | None:
    """The checkpoint the model's reference run of ``case`` writes with event ``name``, if any."""
    from wforacle.model.kernel.lts import execute

    trace = execute(prepare(case, _options({})).semantics).trace
    return next((e.get("checkpoint") for e in trace if e.get("event") == name), None)


def _waits() -> Any:
    """Profile ``w6w-wait``: wait controls that suspend the run, resumed or left queued."""
    _model()
    from wforacle.properties.strategies.w6w import wait_cases

    return wait_cases()


def _call_cases() -> Any:
    """Profile ``w6w-call``: @w6w/call child runs over the protocol (A-56)."""
    _model()
    from wforacle.properties.strategies.w6w import call_cases

    return call_cases()


def _reroutes() -> Any:
    """Profile ``w6w-reroute``: the run-level reroute over the protocol."""
    _model()
    from wforacle.properties.strategies.w6w import reroute_cases

    return reroute_cases()


def _full() -> Any:
    """Profile ``full``: fan-out documents with the canonical controls and long delays."""
    from hypothesis import strategies as st

    from wforacle.properties.strategies.w6w import engine_scenarios, parallel_workflows

    _model()

    @st.composite
    def full(draw: st.DrawFn) -> JSON:
        document = draw(parallel_workflows(max_steps=6, controls=True, max_delay=200_000))
        return {
            "document": document,
            "scenario": draw(engine_scenarios(document)),
            "schedule": draw(st.lists(st.integers(0, 7), max_size=12)),
        }

    return full()


def _size(case: JSON) -> dict[str, int]:
    """Steps (a control's block steps included, A-06) and edges."""
    from wforacle.model.w6w.document import written_steps as all_steps

    document = case["document"]
    return {"steps": len(all_steps(document["steps"])), "edges": len(document.get("edges") or [])}


def smaller(case: JSON) -> Iterator[JSON]:
    """One reduction step: smaller variants of a case, each with one thing removed.

    In order: a scenario feature (a crash, a cancellation, resumptions, …,
    and the case's replay:
    first, because a finding rarely needs one and a crash turns the model's
    reduction off, so every later candidate runs faster without it), a step
    (with its edges and scenario script), a step contracted (its sources led
    to its targets), an edge, a step's optional field (retry, onError,
    fanOut, with), a with member or an envelope part (``_with_members``), a
    scenario script or attempt or meta report or idempotent flag, one crash
    of several, a control made a plain app step (``_plain_steps``), a called
    workflow's case reduced as a case of its own (``_callees``), one of
    several documents, secrets or variables, the schedule's last choice.
    """
    # Issue 18: a shrunk case kept crashAfterCheckpoints although no bug concerned
    # crashes, when the reduction's time ran out before it reached the features.
    for feature in SCENARIO_FEATURES:
        if isinstance(case["scenario"], dict) and feature in case["scenario"]:
            variant = copy_case(case)
            del variant["scenario"][feature]
            yield variant
    crashes = (
        case["scenario"].get("crashAfterCheckpoints")
        if isinstance(case["scenario"], dict)
        else None
    )
    if isinstance(crashes, list) and len(crashes) > 1:
        for k in reversed(range(len(crashes))):  # one crash of several
            variant = copy_case(case)
            del variant["scenario"]["crashAfterCheckpoints"][k]
            yield variant
        # One crash at another checkpoint: two crashes [2, 4] where one at 3 shows the bug
        # (a stranger's resumed-attempt bug kept both, session 24).
        numbers = [n for n in crashes if isinstance(n, int) and not isinstance(n, bool)]
        for number in range(1, max(numbers, default=0)):
            if number not in crashes:
                variant = copy_case(case)
                variant["scenario"]["crashAfterCheckpoints"] = [number]
                yield variant
    if "replay" in case:  # a replay is a feature of the case a finding may not need either
        unreplayed = {k: v for k, v in copy_case(case).items() if k != "replay"}
        yield unreplayed
        # A replay re-runs its steps after the others ended: a completion-order finding
        # it showed needs, without it, another schedule (last-output-by-time kept
        # ``replay: {from: a}`` where schedule [1] shows the bug on a first run).
        for schedule in _RESCHEDULES:
            if schedule != unreplayed.get("schedule"):
                yield {**unreplayed, "schedule": list(schedule)}
    document, scenario = case["document"], case["scenario"]
    steps = document["steps"]
    edges = document.get("edges") or []
    cancel = scenario.get("cancelAfterCheckpoint") if isinstance(scenario, dict) else None
    for step in reversed(steps):
        if len(steps) == 1:
            break
        variant = copy_case(case)
        doc = variant["document"]
        doc["steps"] = [s for s in doc["steps"] if s["id"] != step["id"]]
        if "edges" in doc:
            doc["edges"] = [e for e in doc["edges"] if step["id"] not in (e["from"], e["to"])]
        variant["scenario"].get("steps", {}).pop(step["id"], None)
        yield variant
        # The step's checkpoints gone, the abort signal's number points later in the run:
        # the same point is that many checkpoints earlier (stranger 19: three steps kept,
        # cancelAfterCheckpoint 7, where one step and 3 showed the same bug).
        for fewer in range(1, CHECKPOINTS_PER_STEP + 1):
            if isinstance(cancel, int) and cancel - fewer >= 1:
                earlier = copy_case(variant)
                earlier["scenario"]["cancelAfterCheckpoint"] = cancel - fewer
                yield earlier
    yield from _contracted(case)
    yield from _blocks(case)
    yield from _plain_steps(case)
    yield from _callees(case)
    for k in reversed(range(len(edges))):
        variant = copy_case(case)
        del variant["document"]["edges"][k]
        yield variant
    declared = document.get("variables")
    for k in reversed(range(len(declared) if isinstance(declared, list) else 0)):
        variant = copy_case(case)  # a declared variable (a callee's default, stranger 19)
        del variant["document"]["variables"][k]
        if not variant["document"]["variables"]:
            del variant["document"]["variables"]
        yield variant
    for field in ("retry", "onError", "reroute"):  # the run-level handler (Amendment 2026-08-21)
        if field in document:
            variant = copy_case(case)
            del variant["document"][field]
            if field == "reroute":
                variant["scenario"].pop("reroute", None)
            yield variant
            if field == "retry" and isinstance(cancel, int):
                # The run-level retry's checkpoints gone, the abort signal's point is that
                # many checkpoints earlier (session 22's stranger: A-164's case kept a run
                # retry and cancelAfterCheckpoint 7 where the handler alone shows it).
                policy = document["retry"] if isinstance(document["retry"], dict) else {}
                rounds = policy.get("maxAttempts")
                rounds = rounds if isinstance(rounds, int) and not isinstance(rounds, bool) else 2
                most = (CHECKPOINTS_PER_STEP * len(steps) + 2) * max(1, rounds - 1)
                for fewer in range(1, min(most, 24) + 1):
                    if cancel - fewer >= 1:
                        earlier = copy_case(variant)
                        earlier["scenario"]["cancelAfterCheckpoint"] = cancel - fewer
                        yield earlier
            # A run-level retry and a replay can each re-run the failing steps: with both
            # gone the run waits fewer times, so the schedule's first choices go too (a
            # race the bug needs survives; three coordinated edits the greedy pass would
            # never make one at a time).
            if "replay" in case:
                alone = {k: v for k, v in variant.items() if k != "replay"}
                schedule = list(case.get("schedule") or [])
                for k in range(len(schedule) + 1):
                    yield {**copy_case(alone), "schedule": schedule[k:]}
    for k, step in enumerate(steps):
        for field in ("retry", "onError", "fanOut", "with"):
            if field in step:
                variant = copy_case(case)
                del variant["document"]["steps"][k][field]
                yield variant
        retry = step.get("retry")
        for field in ("backoff", "delayMs"):  # a retry's optional members (maxAttempts stays)
            if isinstance(retry, dict) and field in retry and len(retry) > 1:
                variant = copy_case(case)
                del variant["document"]["steps"][k]["retry"][field]
                yield variant
    yield from _with_members(case)
    for step_id in list(scenario.get("steps", {})):
        variant = copy_case(case)
        del variant["scenario"]["steps"][step_id]
        yield variant
        attempts = scenario["steps"][step_id].get("attempts", [])
        for k in reversed(range(len(attempts))):
            if len(attempts) > 1:
                variant = copy_case(case)
                del variant["scenario"]["steps"][step_id]["attempts"][k]
                yield variant
            if "meta" in attempts[k]:
                variant = copy_case(case)
                del variant["scenario"]["steps"][step_id]["attempts"][k]["meta"]
                yield variant
        if "idempotent" in scenario["steps"][step_id]:
            variant = copy_case(case)
            del variant["scenario"]["steps"][step_id]["idempotent"]
            yield variant
    # One entry of the scope the scenario supplies, where the finding needs another of
    # them (a render part reads one document of five: a stranger's engine, issue 18).
    for member in ("documents", "secrets", "variables"):
        entries = scenario.get(member)
        for name in list(entries) if isinstance(entries, dict) and len(entries) > 1 else ():
            variant = copy_case(case)
            del variant["scenario"][member][name]
            yield variant
    yield from without(case, ())  # the schedule's last choice


_RESCHEDULES: tuple[list[int], ...] = ([], [1], [1, 1], [0, 1], [2])
# The checkpoints a step's removal may take out of a run, tried when an abort signal's
# number must follow (W6W-STATE-2: a start, an end, and a failed attempt and its retry each).
CHECKPOINTS_PER_STEP = 4


def _callees(case: JSON) -> Iterator[JSON]:
    """Every reduction of a called workflow's own case, at any depth (A-56).

    A finding about calls needs the call and what its child does that shows
    the bug, rarely every step of the child — nor its steps' optional fields,
    scripts, meta reports (stranger 19: a shrunk child kept a retry, a fanOut
    and a meta report the bug did not need).  Each callee's document and
    scenario are reduced as a case of their own (``smaller``, which reaches
    the callee's callees in turn) and put back.
    """
    scenario = case["scenario"]
    calls = scenario.get("calls") if isinstance(scenario, dict) else None
    for name, callee in sorted((calls or {}).items()):
        if not isinstance(callee, dict) or not isinstance(callee.get("document"), dict):
            continue
        own = callee.get("scenario")
        sub = {"document": callee["document"], "scenario": own if isinstance(own, dict) else {}}
        for reduced in smaller(sub):
            if reduced["document"] == sub["document"] and reduced["scenario"] == sub["scenario"]:
                continue  # a reduction of what a callee has not (a schedule)
            variant = copy_case(case)
            there = variant["scenario"]["calls"][name]
            there["document"] = reduced["document"]
            if "scenario" in callee or reduced["scenario"]:
                there["scenario"] = reduced["scenario"]
            yield variant


def _plain_steps(case: JSON) -> Iterator[JSON]:
    """A control or @w6w/call step made a plain app step, or replaced by a block step.

    A finding about the graph (a join, a skip, a replay, a resume) needs a
    step there, not a control (a stranger's report: shrunk cases kept an
    ``if`` where an app step would show the bug).  The step keeps its id,
    edges, fanOut, retry and onError; its block steps' scripts go with it.
    """
    from wforacle.model.w6w.document import written_steps as all_steps

    for k, step in enumerate(case["document"]["steps"]):
        uses = step.get("uses") or {}
        if uses.get("app") not in ("@w6w/control", "@w6w/call"):
            continue
        if uses.get("action") == "wait":
            continue  # a wait suspends the run: what it does is the finding's business
        variant = copy_case(case)
        plain = {key: value for key, value in step.items() if key not in ("uses", "with")}
        variant["document"]["steps"][k] = {**plain, "uses": {"app": "demo", "action": "run"}}
        scripts = variant["scenario"].get("steps", {})
        inner = all_steps([step])[1:]
        for gone in inner:
            scripts.pop(gone.get("id"), None)
        yield variant
        # A finding that needs the step to fail, shown by a control that fails (a foreach
        # whose with went, items not an array): a plain step scripted to fail shows it
        # too (session 19: run-retry-no-wait kept a with-less foreach).  Two edits at
        # once, which the greedy reduction would never make one at a time.
        if isinstance(step.get("id"), str) and step["id"] not in scripts:
            failing = copy_case(variant)
            failing["scenario"].setdefault("steps", {})[step["id"]] = {
                "attempts": [{"error": {"code": "failed"}}]
            }
            yield failing
        # A completion-order finding (the output or failure taken from the step that ended
        # last) needs the plain step to end in another order than the block step did: the
        # same variant under a few short schedules (the reduction changes one thing at a
        # time, and this needs the step and the schedule changed together).
        for schedule in _RESCHEDULES:
            if schedule != variant.get("schedule"):
                yield {**variant, "schedule": list(schedule)}
        # Or one of its block steps in its place (a bug of a step that a control's
        # block holds, shown by the step alone): the control's edges lead to it.
        for lifted in inner:
            if (lifted.get("uses") or {}).get("app") == "@w6w/control" or "id" not in lifted:
                continue
            variant = copy_case(case)
            variant["document"]["steps"][k] = copy_case(lifted)
            for edge in variant["document"].get("edges") or []:
                for end in ("from", "to"):
                    if edge.get(end) == step["id"]:
                        edge[end] = lifted["id"]
            scripts = variant["scenario"].get("steps", {})
            for gone in inner:
                if gone is not lifted:
                    scripts.pop(gone.get("id"), None)
            yield variant


def _blocks(case: JSON) -> Iterator[JSON]:
    """A control made smaller: a block step or branch out, a block step's field, an item.

    A block step goes with its script; its fields are onError, with and
    retry; a parallel branch goes with its steps' scripts; a foreach drops
    its last item; an items or condition read from another step becomes a
    literal (one or two items; true, false).  A control in a block is made
    smaller the same way (``_nested_controls``): a finding in the inner
    block of a foreach body needs neither the inner if's other block's
    fields nor its neighbours.

    A finding inside a control needs the block step that shows it, not its
    neighbours (A-53); a variant the validator rejects (an empty branch list)
    is skipped by the reduction like any other invalid one.
    """
    for path, step in _nested_controls(case["document"]["steps"], ("steps",)):
        with_ = step["with"]
        for where in ("then", "else", "body"):
            yield from _block_steps(case, path, (where,), with_.get(where))
        branches = with_.get("branches")
        if isinstance(branches, list):
            for b in reversed(range(len(branches))):
                if len(branches) > 1:
                    variant = copy_case(case)
                    gone = _at(variant, path)["with"]["branches"].pop(b)
                    for inner in gone if isinstance(gone, list) else []:
                        if isinstance(inner, dict):
                            variant["scenario"].get("steps", {}).pop(inner.get("id"), None)
                    yield variant
                yield from _block_steps(case, path, ("branches", b), branches[b])
        items = with_.get("items")
        if isinstance(items, list) and items:
            variant = copy_case(case)
            _at(variant, path)["with"]["items"] = items[:-1]
            yield variant
        # A parameter read from another step made a literal, so that step can go too.
        literals = {"items": ([0], [0, 0]), "condition": (True, False)}
        for name, values in literals.items():
            if name in with_ and isinstance(with_[name], dict):
                for value in values:
                    variant = copy_case(case)
                    _at(variant, path)["with"][name] = value
                    yield variant


def _nested_controls(steps: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Each control step in ``steps`` and in their blocks, at any depth, with its path.

    A path leads from the case's document to the step: ``("steps", 1)``, or
    ``("steps", 1, "with", "body", 0)`` for a control in a foreach body.
    """
    from wforacle.model.w6w.document import written_paths

    for where, step in written_paths(steps, path):
        if isinstance(step.get("with"), dict) and (step.get("uses") or {}).get("app") == (
            "@w6w/control"
        ):
            yield where, step


def _at(case: JSON, path: tuple[Any, ...]) -> Any:
    """What ``path`` (``_nested_controls``) leads to in the case's document."""
    found = case["document"]
    for key in path:
        found = found[key]
    return found


def _block_steps(
    case: JSON, path: tuple[Any, ...], where: tuple[Any, ...], block: Any
) -> Iterator[JSON]:
    """``_blocks``' variants of the block at ``where`` under the with of the step at ``path``."""
    if not isinstance(block, list):
        return

    def located(variant: JSON) -> list[Any]:
        return cast(list[Any], _at(variant, (*path, "with", *where)))

    for m in reversed(range(len(block))):
        inner = block[m]
        if not isinstance(inner, dict):
            continue
        variant = copy_case(case)
        del located(variant)[m]
        variant["scenario"].get("steps", {}).pop(inner.get("id"), None)
        yield variant
        for field in ("onError", "with", "retry"):
            if field in inner:
                variant = copy_case(case)
                del located(variant)[m][field]
                yield variant


def _with_members(case: JSON) -> Iterator[JSON]:
    """An app step's with block without one member, an envelope without one part.

    A finding in a with block needs the value that resolves wrongly, not its
    neighbours (whose features the step start would cite before it).
    Control and call steps keep their with blocks: their members are the
    control's parameters — but a call's ``inputs``, or one of them, may go
    (stranger 19: a shrunk call kept two inputs its child never read).
    """
    for k, step in enumerate(case["document"]["steps"]):
        with_ = step.get("with")
        app = (step.get("uses") or {}).get("app", "")
        inputs = with_.get("inputs") if isinstance(with_, dict) else None
        if app == "@w6w/call" and isinstance(inputs, dict):
            variant = copy_case(case)
            del variant["document"]["steps"][k]["with"]["inputs"]
            yield variant
            for name in list(inputs) if len(inputs) > 1 else ():
                variant = copy_case(case)
                del variant["document"]["steps"][k]["with"]["inputs"][name]
                yield variant
        if not isinstance(with_, dict) or not isinstance(app, str) or app.startswith("@w6w/"):
            continue
        for name, value in with_.items():
            if len(with_) > 1:
                variant = copy_case(case)
                del variant["document"]["steps"][k]["with"][name]
                yield variant
            logic = value.get("$expr") if isinstance(value, dict) and len(value) == 1 else None
            for simpler in _simpler_logic(logic):
                variant = copy_case(case)
                variant["document"]["steps"][k]["with"][name] = {"$expr": simpler}
                yield variant
            for text in _simpler_payloads(value) if isinstance(value, str) else ():
                variant = copy_case(case)
                variant["document"]["steps"][k]["with"][name] = text
                yield variant
            parts = value.get("parts") if isinstance(value, dict) else None
            if isinstance(parts, list) and len(parts) > 1:
                for i in reversed(range(len(parts))):
                    variant = copy_case(case)
                    del variant["document"]["steps"][k]["with"][name]["parts"][i]
                    yield variant


def _simpler_logic(logic: JSON) -> Iterator[JSON]:
    """A JSON Logic rule with less in it, at any depth.

    One of its operations' operands in its place, or one operand of a list
    dropped: a finding in one operation of a nested rule needs that
    operation, not what encloses it.
    """
    if not (isinstance(logic, dict) and len(logic) == 1):
        return
    ((op, args),) = logic.items()
    operands = args if isinstance(args, list) else [args]
    for operand in operands:
        if isinstance(operand, dict) and len(operand) == 1:
            yield operand
    if isinstance(args, list):
        for i in range(len(args)):
            if len(args) > 1:
                yield {op: args[:i] + args[i + 1 :]}
            for simpler in _simpler_logic(args[i]):
                yield {op: [*args[:i], simpler, *args[i + 1 :]]}


def _simpler_payloads(text: str) -> Iterator[str]:
    """``text`` with one ``{{ =RULE }}`` marker's rule simpler (``_simpler_logic``).

    The markers are found as the template grammar reads them (``marker_spans``:
    an ``=`` body ends after its JSON value, A-31).
    """
    from wforacle.grammar.template import marker_spans

    for start, end in marker_spans(text):
        body = text[start:end].strip()
        if not body.startswith("="):
            continue
        try:
            rule = json.loads(body[1:])
        except ValueError:
            continue
        for simpler in _simpler_logic(rule):
            yield f"{text[:start]} ={json.dumps(simpler)} {text[end:]}"


def _contracted(case: JSON) -> Iterator[JSON]:
    """Each step with inbound and outbound edges taken out, its sources led to its targets.

    Removing a step drops its edges, which can cut what a finding needs (a
    skip that must travel, an order two steps apart); contracting keeps the
    path: an edge ``a -w-> s`` and an edge ``s -> b`` become ``a -w-> b``.
    """
    steps = case["document"]["steps"]
    edges = case["document"].get("edges") or []
    for step in reversed(steps):
        name = step["id"]
        inbound = [e for e in edges if e["to"] == name]
        outbound = [e for e in edges if e["from"] == name]
        if not inbound or not outbound:
            continue
        variant = copy_case(case)
        doc = variant["document"]
        doc["steps"] = [s for s in doc["steps"] if s["id"] != name]
        kept = [e for e in doc["edges"] if name not in (e["from"], e["to"])]
        for into in inbound:
            for out in outbound:
                edge = {k: v for k, v in out.items() if k != "when"}
                edge["from"] = into["from"]
                if "when" in into:
                    edge["when"] = into["when"]
                if edge["from"] != edge["to"] and edge not in kept:
                    kept.append(edge)
        doc["edges"] = kept
        variant["scenario"].get("steps", {}).pop(name, None)
        yield variant


SCENARIO_FEATURES = (
    "crashAfterCheckpoints",
    "cancelAfterCheckpoint",
    "resumes",
    "calls",
    "documents",
    "secrets",
    "variables",
    "trigger",
    "default",
)


# -- the engine protocol (docs/engine-protocol.md) -------------------------------------------


def _protocol() -> Protocol:
    """The engine protocol's w6w payloads (docs/engine-protocol.md)."""
    return Protocol(
        unit="step",
        argument="input",
        known=lambda prepared, step: isinstance(step, str),
        answer=_answer,
        acknowledged=frozenset({"checkpoint", "schedule"}),
        crashes=lambda prepared: prepared.semantics.scenario.crashes,
        aborts=lambda prepared: prepared.semantics.scenario.cancel_after,
        crashed=_crashed,
        interrupts=_wakes,
        idle=_quiet,
    )


# A wake is keyed past every wait an engine makes with calls outstanding: it comes only
# at an idle wait, where the driver sends the next interrupt whatever its key.
_IDLE_ONLY = 1 << 40


def _wakes(prepared: Prepared) -> dict[int, Interrupt]:
    """The host's resumptions of a suspended run: the scenario's ``resumes``, in order (A-55).

    A run that suspended at a wait (W6W-FAN-10: "A suspension returns one
    token") waits idle; the k-th such wait is answered ``{"type": "wake",
    "output": V}`` with ``resumes[k]``'s output, and the engine reports
    ``run_resumed`` itself (docs/engine-protocol.md "Wait").
    """
    resumes = prepared.semantics.scenario.resumes
    return {
        _IDLE_ONLY + k: Interrupt({"type": "wake", "output": r.output}, None)
        for k, r in enumerate(resumes)
    }


def _own_tokens(semantics: Any, trace: Sequence[JSON], state: JSON) -> tuple[list[JSON], JSON]:
    """The engine's wait tokens renamed to the model's: the trace and final state to judge.

    The RFC gives a token no form ("schedule?(directive: { afterMs;
    resumeToken })": a string the host hands back); the model writes
    ``<runId>/<stepId>/<k>`` (A-55).  What the RFC does fix is which token
    a suspension returns (W6W-FAN-10: "that of the first suspended step by
    plan order"), so within each suspension — up to its ``run_resumed`` —
    each ``step_suspended``'s string token becomes the model's for that
    step and suspension, a ``run_suspended`` naming a step with the token
    that step suspended with becomes that step's, a ``run_resumed`` with the
    ``run_suspended``'s token and a final state's ``suspension`` with it
    likewise; any other token stays as the engine wrote it (and diverges
    from the model's).  A stranger's engine writing ``run_1:s0:1`` was
    reported divergent at its first wait (session 24).
    """
    run_id = semantics.scenario.run_id
    found: list[JSON] = []
    own: dict[str, str] = {}  # this suspension: step -> the engine's token
    suspended: tuple[str, str] | None = None  # the run's: (engine's token, model's token)
    resumed = 0
    for event in trace:
        token = event.get("resumeToken") if isinstance(event, dict) else None
        if not isinstance(token, str):
            found.append(event)
            continue
        name, step = event.get("event"), event.get("step")
        model: str | None = None
        if name == "step_suspended" and isinstance(step, str):
            own[step] = token
            model = f"{run_id}/{step}/{resumed + 1}"
        elif name == "run_suspended" and isinstance(step, str) and own.get(step) == token:
            model = f"{run_id}/{step}/{resumed + 1}"
            suspended = (token, model)
        elif name == "run_resumed":
            if suspended is not None and suspended[0] == token:
                model = suspended[1]
            resumed, own, suspended = resumed + 1, {}, None
        found.append(event if model is None else {**event, "resumeToken": model})
    held = state.get("suspension") if isinstance(state, dict) else None
    if isinstance(held, dict) and suspended is not None and held.get("resumeToken") == suspended[0]:
        state = {**state, "suspension": {**held, "resumeToken": suspended[1]}}
    return found, state


def _quiet(prepared: Prepared) -> Interrupt | None:
    """A suspended run no resumption is left for: ``quiet`` (the run stays queued).

    Only a document with a wait step may wait idle; elsewhere a wait with no
    call outstanding stays a protocol fault.
    """
    from wforacle.model.w6w.controls import action

    steps = prepared.semantics.every_step.values()
    if not any(action(step) == "wait" for step in steps):
        return None
    return Interrupt({"type": "quiet"}, None)


def _answer(prepared: Prepared, step: str, invocation: int) -> dict[str, JSON]:
    """The result of a step's ``invocation``-th call, its meta reports and idempotency.

    The unit ``(reroute)`` is the run-level reroute target's dispatch
    (W6W-RUNERR-3): the scenario's ``reroute`` result answers it.
    """
    from wforacle.model.w6w.controls import CHILD
    from wforacle.model.w6w.rules import REROUTE

    scenario = prepared.semantics.scenario
    if CHILD in step:
        scenario = _callee_scenario(prepared, step)
        step = step.rsplit(CHILD, 1)[1]
    if step == REROUTE:
        reroute = scenario.reroute
        if reroute.error is not None:
            return {"error": reroute.error.to_json(), "idempotent": False}
        return {"output": reroute.output, "idempotent": False}
    script = scenario.script(step)
    result = script.result(invocation, scenario.default)
    message: dict[str, JSON] = {"idempotent": script.idempotent}
    if result.error is not None:
        message["error"] = result.error.to_json()
    else:
        message["output"] = result.output
    if result.meta:
        message["meta"] = list(result.meta)
    return message


def _workflows(calls: Mapping[str, JSON]) -> dict[str, JSON]:
    """Every workflow a run may call, at any depth: id → document (the first one named).

    A child's own scenario supplies the workflows its calls run (A-56); the
    host hands the engine them all at once, each id naming one document.
    """
    found: dict[str, JSON] = {}
    pending = [calls]
    while pending:
        level = pending.pop(0)
        for name, callee in sorted(level.items()):
            if name in found or not isinstance(callee, dict):
                continue
            found[name] = callee.get("document")
            nested = (callee.get("scenario") or {}).get("calls")
            if isinstance(nested, dict):
                pending.append(nested)
    return found


def _callee_scenario(prepared: Prepared, unit: str) -> Any:
    """The scenario of the child run a prefixed unit belongs to (docs/engine-protocol.md).

    ``c.(run).s`` is step ``s`` of the workflow call step ``c`` runs, answered
    by that workflow's scenario in ``calls``; ``c.(run).d.(run).s`` one level
    deeper, by the workflow the child's own scenario supplies (A-56).  A name
    that leads nowhere gets an empty scenario (every step succeeds with the
    default output), as an unknown step does.
    """
    from wforacle.model.w6w.controls import CHILD
    from wforacle.model.w6w.scenario import Scenario, load_scenario
    from wforacle.properties.w6w.conformance import called_steps, step_kinds

    scenario = prepared.semantics.scenario
    steps: list[Any] = list(prepared.semantics.every_step.values())
    for call in unit.split(CHILD)[:-1]:
        kind = step_kinds(scenario.calls, steps).get(call, "")
        callee = scenario.calls.get(kind[5:]) if kind.startswith("call:") else None
        if not isinstance(callee, dict):
            return Scenario()
        scenario, _ = load_scenario(copy_case(callee.get("scenario") or {}))
        steps = called_steps(callee.get("document"))
    return scenario


def _crashed(prepared: Prepared, number: int, state: JSON) -> JSON:
    """The model's ``crashed`` event: resume at the first plan step not terminal in ``state``."""
    steps = state.get("steps") if isinstance(state, dict) else None
    steps = steps if isinstance(steps, dict) else {}
    resume_at = None
    for step_id in prepared.semantics.plan:
        record = steps.get(step_id)
        if not (
            isinstance(record, dict) and record.get("status") in ("succeeded", "failed", "skipped")
        ):
            resume_at = step_id
            break
    return {"event": "crashed", "afterCheckpoint": number, "resumeAt": resume_at}


def _screen(prepared: Prepared, case: JSON, seen: Observation) -> Divergence | None:
    from wforacle.properties.w6w.conformance import secret_leak

    return secret_leak(prepared.semantics.scenario, case["document"], seen)


def _compare(prepared: Prepared, seen: Observation, finals: tuple[Any, ...]) -> Divergence | None:
    from wforacle.properties.w6w.conformance import compare

    return compare(prepared.semantics, seen, finals)


def _blame(semantics: Any, divergence: Any) -> tuple[str, ...]:
    from wforacle.properties.w6w.conformance import blame

    return blame(semantics, divergence)


def _nested(
    semantics: Any, before: tuple[Any, ...], observed: JSON
) -> tuple[tuple[str, Any, list[JSON]], ...]:
    from wforacle.properties.w6w.conformance import nested

    return nested(semantics, before, observed)


def _why_not(semantics: Any, event: JSON, before: tuple[Any, ...]) -> tuple[tuple[str, ...], str]:
    from wforacle.properties.w6w.conformance import why_not

    return why_not(semantics, event, before)


def _trace_line(event: JSON) -> str:
    fields = {k: v for k, v in event.items() if k not in ("event", "at")}
    detail = json.dumps(fields, ensure_ascii=False) if fields else ""
    return f"{event['at']:>8} ms  {event['event']:<16} {detail}"


def _selftest(profile: str | None = None) -> Any:
    from wforacle.properties.w6w.selftest import selftest

    return selftest()


def _read(data: bytes, source: str) -> JSON:
    return parse_json(data, source)


def _read_fixture(text: str) -> JSON:
    try:
        return parse_json(text, "document.json")
    except InvalidInput as exc:
        raise InvalidCase(str(exc)) from None


def _dump(document: JSON) -> str:
    return json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def _conformance() -> Any:
    from wforacle.properties.strategies.w6w import conformance_cases  # start-up time

    return conformance_cases()


def _diagram(workflow: Any) -> Any:
    from wforacle.properties.w6w.diagram import diagram  # start-up time

    return diagram(workflow)


W6W = Specification(
    name="w6w",
    sniffs=_sniffs,
    claims=_claims,
    read=_read,
    validate=_validate,
    validate_many=_validate_many,
    readings=READINGS,
    readings_title="w6w readings",
    options=_options,
    semantics=_semantics,
    key=_key,
    outcome=_outcome,
    explore=_explore,
    limits=_limits,
    final_state=_final_state,
    final_name="runState",
    prepare=prepare,
    cases=_cases,
    suites={
        "core": _core,
        "full": _full,
        "w6w-wait": _waits,
        "w6w-reroute": _reroutes,
        "w6w-call": _call_cases,
        "w6w-jsonlogic": _jsonlogic_cases,
    },
    conformance=lambda: _conformance(),
    protocol=_protocol,
    screen=_screen,
    compare=_compare,
    rename=_own_tokens,
    layout=Layout("document.json", _dump, _read_fixture, optional=("replay",), inline=("replay",)),
    smaller=smaller,
    size=_size,
    plan=_plan,
    example_engine="w6w_engine.py",
    trace_line=_trace_line,
    ends=lambda state: f"run {state['status']}",
    allowed="a run the specification allows",
    selftest=_selftest,
    diagram=_diagram,
    why_not=_why_not,
    nested=_nested,
    governing={
        # W6W-FIELD-13: "continue swallows the failure …; continue-record proceeds and rolls
        # the step's StepError into … RunState.stepErrors"; W6W-EDGE-5/6: no error edge
        # leaves the step to onError, an error edge takes it.
        "routing": ("W6W-FIELD-13", "W6W-EDGE-5", "W6W-EDGE-6", "W6W-EDGE-7", "W6W-EDGE-2"),
        # W6W-FIELD-22: "Base delay … Exponential doubles each attempt"; W6W-RETRY-9: "cap
        # every computed wait at 300000 ms" (retry_step cites the cap first when it applied);
        # W6W-RUNERR-2: the run-level retry waits "with the same backoff Step.retry uses"
        # (a run_restarted's waitMs: retry_run cites it first).
        "waitMs": ("W6W-RUNERR-2", "W6W-FIELD-22", "W6W-RETRY-9"),
        # A run's canceled status is the abort's (W6W-HOST-3: "aborts cleanly on signal");
        # W6W-STATE-2's text names "status" too, but only as a checkpointed change.
        "status": ("W6W-HOST-3",),
    },
    blame=_blame,
)
