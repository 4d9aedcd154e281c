"""The execution parts of the Workfile record (properties/workfile/specification.py).

The model (model/workfile/run.py), cases and their reduction, the engine
protocol's payloads and the judge's comparison (docs/workfile-execution.md).

A case is ``{"document": YAML text, "manifests": {connector: YAML text},
"scenario", "schedule"}``.  The protocol payloads: ``run`` carries the
document's text, the manifests as JSON and the scenario's ``inputs``;
``invoke`` names a ``step`` (its run-time path) and its ``input`` (the
argument map); a result is ``{"output": V}`` or ``{"error": {"code",
"details"?}, "retryAfterMs"?}``; an engine withdraws a call whose work was
cancelled with ``{"type": "cancel", "call": N}``; at the scenario's
``cancel``-th wait the oracle sends ``cancel_run`` with the late results.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from typing import Any

from wforacle.model.diagnostics import InvalidCase, InvalidInput
from wforacle.properties.specification import Divergence, Loaded, Observation, Prepared, Protocol

JSON = Any
INDEX = re.compile(r"\[\d+\]")


# -- the model -------------------------------------------------------------------------


def semantics(loaded: Loaded, scenario: JSON, options: Any, replay: JSON) -> Any:
    """The run of a valid document under a scenario (the manifests are ``loaded.plan``)."""
    from wforacle.model.workfile.manifest import Manifests
    from wforacle.model.workfile.run import WorkfileRun
    from wforacle.model.workfile.scenario import Scenario

    if replay is not None:
        raise InvalidCase("a Workfile run is not replayed (Replay is a profile's, not Core's)")
    manifests = loaded.plan if loaded.plan is not None else Manifests()
    return WorkfileRun(loaded.model, manifests, Scenario.of(scenario))


def key(config: Any) -> Any:
    """A configuration's key."""
    return config.key


def outcome(run: Any, config: Any) -> JSON:
    """A terminal configuration's final state."""
    from wforacle.model.workfile.run import outcome

    return outcome(run, config)


def explore(run: Any, max_states: int, reduce: bool) -> Any:
    """Every outcome (every interleaving and every instant of the cancellation request)."""
    from wforacle.model.kernel.explore import explore

    return explore(run, lambda c: outcome(run, c), key, max_states)


def limits() -> dict[type[Exception], str]:
    """What the model says it does not cover."""
    from wforacle.model.kernel.lts import Divergent
    from wforacle.model.workfile.run import ModelLimit

    return {ModelLimit: "", Divergent: ""}


# -- cases -----------------------------------------------------------------------------


def manifests_of(case: JSON) -> Any:
    """The case's manifests (connector → YAML text or JSON), read; InvalidCase if unreadable."""
    from wforacle.model.workfile.manifest import Manifests, load_manifest

    raw = case.get("manifests") or {}
    if not isinstance(raw, dict):
        raise InvalidCase("the case's manifests are an object: connector → manifest")
    connectors = {}
    for name, text in sorted(raw.items()):
        source = text if isinstance(text, str) else json.dumps(text)
        manifest, problems = load_manifest(source, f"manifests.{name}")
        if manifest is None or any(p.severity == "error" for p in problems):
            raise InvalidCase(f"the case's manifest {name!r} is invalid")
        connectors[manifest.connector] = manifest
    return Manifests(connectors)


def manifest_json(text: JSON) -> JSON:
    """A manifest as the run message carries it: JSON."""
    from wforacle.model.workfile.yamlsafe import read

    return read(text) if isinstance(text, str) else text


def prepare(case: JSON, options: Any = None) -> Prepared:
    """The model of a case and the ``run`` message; InvalidCase when it cannot run."""
    from wforacle.model.diagnostics import InvalidScenario
    from wforacle.model.workfile.run import ModelLimit, WorkfileRun
    from wforacle.model.workfile.scenario import Scenario
    from wforacle.properties.workfile.validate import validate

    document = case.get("document")
    if not isinstance(document, str):
        raise InvalidCase("a Workfile case's document is YAML text")
    manifests = manifests_of(case)
    result = validate(document.encode("utf-8"), manifests)
    if not result.report.valid or result.workfile is None:
        raise InvalidCase(f"invalid Workfile: {result.report.codes()}")
    try:
        scenario = Scenario.of(copy.deepcopy(case.get("scenario", {})))
        run = WorkfileRun(result.workfile, manifests, scenario)
    except InvalidScenario as exc:
        raise InvalidCase(f"the case's scenario is invalid: {exc}", exc.path) from None
    except ModelLimit as exc:
        raise InvalidCase(str(exc)) from None
    request = {
        "type": "run",
        "runId": "run_1",
        "document": document,
        "manifests": {
            name: manifest_json(text)
            for name, text in sorted((case.get("manifests") or {}).items())
        },
        "inputs": scenario.inputs,
    }
    return Prepared(run, request)


def cases() -> Any:
    """The campaign's cases (properties/strategies/workfile_runs.py)."""
    from wforacle.properties.strategies.workfile_runs import workfile_cases

    return workfile_cases()


def valid_cases() -> Any:
    """Profile ``workfile``: the campaign's cases that can run."""

    def valid(case: JSON) -> bool:
        try:
            prepare(case)
        except InvalidInput:
            return False
        return True

    return cases().filter(valid)


def _document(case: JSON) -> JSON:
    from wforacle.model.workfile.yamlsafe import YamlProblem, read

    try:
        return read(case["document"])
    except (YamlProblem, KeyError, TypeError):
        return None


def _dump(data: JSON) -> str:
    import yaml

    return str(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1 << 16))


def size(case: JSON) -> dict[str, int]:
    """Steps (handler steps included) and scripted attempt results of a case."""
    data = _document(case)
    steps = sum(1 for _ in _lists(data)) if data is not None else 0
    scenario = case.get("scenario")
    attempts = scenario.get("attempts") if isinstance(scenario, dict) else None
    scripts = attempts.values() if isinstance(attempts, dict) else ()
    results = sum(len(r) for r in scripts if isinstance(r, list))
    return {"steps": steps, "scripted results": results}


def _lists(data: JSON) -> Iterator[tuple[list[Any], int]]:
    """Every (step list, index) of a document, outermost first, in document order."""

    def visit(value: JSON) -> Iterator[tuple[list[Any], int]]:
        if isinstance(value, dict):
            for member in value.values():
                yield from visit(member)
        elif isinstance(value, list):
            is_steps = all(isinstance(v, dict) and len(v) == 1 for v in value)
            for k, item in enumerate(value):
                if (
                    is_steps
                    and isinstance(item, dict)
                    and isinstance(next(iter(item.values())), dict)
                ):
                    yield value, k
                yield from visit(item)

    yield from visit(data)


MODIFIERS = ("when", "retry", "on_fail", "on_unknown", "catch", "honor_retry_after")


def smaller(case: JSON) -> Iterator[JSON]:
    """One reduction step: smaller variants of a case, each with one thing removed.

    In order: a step (the last first), a modifier of a step, a handler, an
    output, a scenario's step script or one of its results, the
    cancellation request, an input, the schedule's last choice.
    """
    data = _document(case)
    if isinstance(data, dict):
        count = sum(1 for _ in _lists(data))
        for n in reversed(range(count)):
            variant = copy.deepcopy(data)
            steps, k = list(_lists(variant))[n]
            del steps[k]
            yield {**copy.deepcopy(case), "document": _dump(variant)}
        for n in range(count):
            steps, k = list(_lists(data))[n]
            body = next(iter(steps[k].values()))
            for member in MODIFIERS:
                if member in body or (
                    isinstance(body.get("retry"), dict) and member in body["retry"]
                ):
                    variant = copy.deepcopy(data)
                    vsteps, vk = list(_lists(variant))[n]
                    vbody = next(iter(vsteps[vk].values()))
                    if member in vbody:
                        del vbody[member]
                    else:
                        del vbody["retry"][member]
                    yield {**copy.deepcopy(case), "document": _dump(variant)}
            for pattern in list(body.get("catch") or {}):
                if len(body["catch"]) > 1:
                    variant = copy.deepcopy(data)
                    vsteps, vk = list(_lists(variant))[n]
                    del next(iter(vsteps[vk].values()))["catch"][pattern]
                    yield {**copy.deepcopy(case), "document": _dump(variant)}
        outputs = data.get("outputs")
        if isinstance(outputs, dict):
            for name in list(outputs):
                variant = copy.deepcopy(data)
                del variant["outputs"][name]
                if not variant["outputs"]:
                    del variant["outputs"]
                yield {**copy.deepcopy(case), "document": _dump(variant)}
    yield from _smaller_scenarios(case)


def _smaller_scenarios(case: JSON) -> Iterator[JSON]:
    scenario = case.get("scenario")
    if not isinstance(scenario, dict):
        return
    attempts = scenario.get("attempts")
    for path in list(attempts or {}):
        variant = copy.deepcopy(case)
        del variant["scenario"]["attempts"][path]
        yield variant
        results = attempts[path]  # type: ignore[index]
        for k in reversed(range(len(results) if isinstance(results, list) else 0)):
            if len(results) > 1:
                variant = copy.deepcopy(case)
                del variant["scenario"]["attempts"][path][k]
                yield variant
            if isinstance(results[k], dict) and "retryAfterMs" in results[k]:
                variant = copy.deepcopy(case)
                del variant["scenario"]["attempts"][path][k]["retryAfterMs"]
                yield variant
    for member in ("cancel", "inputs"):
        if scenario.get(member):
            variant = copy.deepcopy(case)
            del variant["scenario"][member]
            yield variant
    if case.get("schedule"):
        variant = copy.deepcopy(case)
        variant["schedule"] = variant["schedule"][:-1]
        yield variant


# -- the engine protocol ---------------------------------------------------------------------


def protocol() -> Protocol:
    """The engine protocol's Workfile payloads (module docstring)."""
    return Protocol(
        unit="step",
        argument="input",
        known=known,
        answer=answer,
        withdraw="cancel",
        interrupts=lambda prepared: frozenset(
            {prepared.semantics.scenario.cancel} if prepared.semantics.scenario.cancel else ()
        ),
        interrupt="cancel_run",
        interrupted={"event": "cancel_requested"},
    )


def known(prepared: Prepared, step: JSON) -> bool:
    """Whether an invoke names an action step of the case (by its run-time path)."""
    return isinstance(step, str) and INDEX.sub("", step) in prepared.semantics.actions


def answer(prepared: Prepared, step: str, attempt: int) -> dict[str, JSON]:
    """The scenario's result of the step's ``attempt``-th attempt, as a result message's fields."""
    run = prepared.semantics
    result = run.scenario.result(step, INDEX.sub("", step), attempt)
    if "output" in result:
        return {"output": result["output"]}
    error = {"code": result["error"]}
    if "details" in result:
        error["details"] = result["details"]
    found: dict[str, JSON] = {"error": error}
    if "retryAfterMs" in result:
        found["retryAfterMs"] = result["retryAfterMs"]
    return found


def compare(prepared: Prepared, seen: Observation, finals: tuple[Any, ...]) -> Divergence | None:
    """The engine's invocations and final state against the trace and the model.

    The invocations must be exactly the attempts the trace reports, with the
    argument maps it reports (WF-STEP-8: "the complete evaluated argument
    map"); ``done.state`` must be the final state of a final configuration
    the trace reaches.
    """
    from wforacle.model.workfile.run import outcome

    reported = sorted(
        _canonical([e.get("step"), e.get("input")])
        for e in seen.trace
        if isinstance(e, dict) and e.get("event") == "attempt_started"
    )
    invoked = sorted(_canonical([step, value]) for step, value in seen.invocations)
    if reported != invoked:
        extra = sorted(set(invoked) - set(reported)) or sorted(set(reported) - set(invoked))
        return Divergence(
            len(seen.trace),
            {"invocations": [json.loads(x) for x in invoked]},
            tuple({"attempt_started": json.loads(x)} for x in reported[:4]),
            ("WF-STEP-8", "WF-STEP-12"),
            "the engine's invocations are not the attempts its trace reports "
            f"(first difference: {extra[0] if extra else '?'})",
        )
    expected = [outcome(prepared.semantics, c) for c in finals]
    observed = _comparable(seen.state)
    if any(_comparable(e) == observed for e in expected):
        return None
    return Divergence(
        len(seen.trace),
        {"final": seen.state},
        tuple({"final": e} for e in expected[:2]),
        ("WF-TERM-1", "WF-SOUT-1", "WF-TERM-8"),
        "the engine's final state differs from the model's",
    )


def _canonical(value: JSON) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _comparable(state: JSON) -> str:
    if not isinstance(state, dict):
        return _canonical({"invalid": state})
    members = ("outcome", "result", "error", "reason", "disposition", "steps", "unknownEffects")
    return _canonical({k: state.get(k) for k in members})


def trace_line(event: JSON) -> str:
    """One event of ``run``'s text output."""
    fields = {k: v for k, v in event.items() if k != "event"}
    return f"{event['event']:<18} {json.dumps(fields, ensure_ascii=False)}"


def ends(state: JSON) -> str:
    """``run``'s last line."""
    return f"run {state.get('outcome')}"
