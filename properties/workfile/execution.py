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
import functools
import json
import re
from collections.abc import Iterator
from typing import Any

from wforacle.model.diagnostics import InvalidCase
from wforacle.model.workfile.document import case_name
from wforacle.properties.specification import (
    Divergence,
    Interrupt,
    Loaded,
    Observation,
    Prepared,
    Protocol,
    runnable,
    without,
)

JSON = Any


# -- the model -------------------------------------------------------------------------


def semantics(loaded: Loaded, scenario: JSON, options: Any, replay: JSON) -> Any:
    """The run of a valid document under a scenario (``loaded.plan``: manifests, workflows)."""
    from wforacle.model.workfile.manifest import Manifests
    from wforacle.model.workfile.scenario import Scenario

    if replay is not None:
        raise InvalidCase("a Workfile run is not replayed (Replay is a profile's, not Core's)")
    manifests, workflows = loaded.plan if loaded.plan is not None else (Manifests(), {})
    return _run(loaded.model, manifests, Scenario.of(scenario), workflows, options)


def _run(
    model: Any, manifests: Any, scenario: Any, workflows: dict[str, Any], options: Any = None
) -> Any:
    """The run of a Core document (run.py) or of a state-form one (stateful.py)."""
    from wforacle.model.workfile.run import WorkfileRun
    from wforacle.model.workfile.stateful import StatefulRun
    from wforacle.model.workfile.states import StateWorkfile

    if isinstance(model, StateWorkfile):
        return StatefulRun(model, manifests, scenario, workflows, options)
    return WorkfileRun(model, manifests, scenario, workflows, options)


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

    if not reduce:
        return explore(run, lambda c: outcome(run, c), key, max_states)
    return explore(run, lambda c: outcome(run, c), key, max_states, run.ample, "frames")


def limits() -> dict[type[Exception], str]:
    """What the model says it does not cover."""
    from wforacle.model.kernel.lts import Divergent
    from wforacle.model.workfile.run import ModelLimit

    return {ModelLimit: "", Divergent: ""}


# -- cases -----------------------------------------------------------------------------


def manifests_of(case: JSON) -> Any:
    """The case's manifests (connector → YAML text or JSON), read; InvalidCase if unreadable."""
    return _manifests(_manifest_texts(case))


def _manifest_texts(case: JSON) -> tuple[tuple[str, str], ...]:
    """The case's manifests as sorted (connector, text) pairs: JSON ones as canonical text."""
    raw = case.get("manifests") or {}
    if not isinstance(raw, dict):
        raise InvalidCase("the case's manifests are an object: connector → manifest")
    return tuple(
        sorted(
            (name, text if isinstance(text, str) else json.dumps(text, sort_keys=True))
            for name, text in raw.items()
        )
    )


def _manifests(texts: tuple[tuple[str, str], ...]) -> Any:
    from wforacle.model.workfile.manifest import Manifests

    connectors = {}
    for name, source in texts:
        manifest = _manifest(source, name)
        if manifest is None:
            raise InvalidCase(f"the case's manifest {name!r} is invalid")
        connectors[manifest.connector] = manifest
    return Manifests(connectors)


@functools.lru_cache(maxsize=64)
def _manifest(source: str, name: str) -> Any:
    """A manifest read once per text (a campaign's cases share theirs); None if invalid."""
    from wforacle.model.workfile.manifest import load_manifest

    manifest, problems = load_manifest(source, f"manifests.{name}")
    return None if any(p.severity == "error" for p in problems) else manifest


def workflows_of(case: JSON, manifests: Any) -> dict[str, Any]:
    """The case's child workflows (name → YAML text), validated; InvalidCase if one is not."""
    raw = case.get("workflows") or {}
    if not isinstance(raw, dict) or not all(isinstance(t, str) for t in raw.values()):
        raise InvalidCase("the case's workflows are an object: workflow name → YAML text")
    return {name: valid_workflow(text, manifests, name) for name, text in sorted(raw.items())}


def valid_workflow(text: str, manifests: Any, name: str) -> Any:
    """A child workflow's document model; InvalidCase when it is not a valid Workfile."""
    from wforacle.properties.workfile.validate import validate

    result = validate(text.encode("utf-8"), manifests)
    if not result.report.valid:
        raise InvalidCase(f"the workflow {name!r} is not a valid Workfile: {result.report.codes()}")
    if result.workfile is None:  # a valid state-form Workfile (issue 15)
        raise InvalidCase(f"the workflow {name!r} is state-form: its execution is not modelled yet")
    return result.workfile


def manifest_json(text: JSON) -> JSON:
    """A manifest as the run message carries it: JSON (read once per text, never changed)."""
    return _read_manifest(text) if isinstance(text, str) else text


@functools.lru_cache(maxsize=64)
def _read_manifest(text: str) -> JSON:
    from wforacle.model.workfile.yamlsafe import read

    return read(text)


def prepare(case: JSON, options: Any = None) -> Prepared:
    """The model of a case and the ``run`` message; InvalidCase when it cannot run.

    The run uses the manifests it was validated against, and the engine is
    sent the same ones (WF-START-3: "the same resolved workflow and
    dependency surface"; WF-START-1: an invalid document never runs).
    """
    from wforacle.model.diagnostics import InvalidScenario
    from wforacle.model.workfile.run import ModelLimit
    from wforacle.model.workfile.scenario import Scenario

    document = case.get("document")
    if isinstance(document, bytes):  # as read from a file (shrink DOC)
        try:
            document = case["document"] = document.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidCase("a Workfile case's document is UTF-8 YAML text") from None
    if not isinstance(document, str):
        raise InvalidCase("a Workfile case's document is YAML text")
    texts = _manifest_texts(case)
    manifests, result = _validated(document, texts)
    model = result.states if result.states is not None else result.workfile
    if not result.report.valid or model is None:
        raise InvalidCase(f"invalid Workfile:\n{result.report.described()}")
    # A case without manifests validates its callees as its document: actions unchecked.
    workflows = workflows_of(case, manifests if texts else None)
    if result.workfile is not None:
        from wforacle.properties.workfile.validate import call_contracts

        # The document's calls and its callees' own (a middle workflow's call).
        for name, workfile in (("the document", result.workfile), *workflows.items()):
            broken = call_contracts(workfile, workflows)
            if broken:  # WF-START-1: an invalid document never runs
                where = name if name == "the document" else f"the workflow {name!r}"
                raise InvalidCase(f"{where} is invalid: {broken[0].message}", broken[0].path)
    try:
        scenario = Scenario.of(copy.deepcopy(case.get("scenario", {})))
        run = _run(model, manifests, scenario, workflows, options)
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
        "workflows": dict(sorted((case.get("workflows") or {}).items())),
        "inputs": scenario.inputs,
        "dryRun": scenario.dry_run,
    }
    files = {part: case[part] for part in ("manifests", "workflows") if case.get(part)}
    return Prepared(run, request, files)


@functools.lru_cache(maxsize=256)
def _validated(document: str, manifests: tuple[tuple[str, str], ...]) -> tuple[Any, Any]:
    """A document's manifests and validation, computed once per text.

    A campaign's filter and its probe prepare each case twice, and a shrink
    revisits cases; both results are never changed after they are built.
    """
    from wforacle.properties.workfile.validate import validate

    found = _manifests(manifests)
    # A case with no manifest is validated as `validate` without --manifests is: its
    # actions are references nothing checks (docs/workfile.md), and each runs as a write
    # .  Validated against an empty set, every action was document.unknown_action,
    # and shrink and conform refused what run accepted (a stranger, session 23).
    return found, validate(document.encode("utf-8"), found if manifests else None)


def cases() -> Any:
    """The campaign's cases (properties/strategies/workfile_runs.py)."""
    from wforacle.properties.strategies.workfile_runs import workfile_cases

    return workfile_cases()


def valid_cases() -> Any:
    """Profile ``workfile``: the campaign's cases that can run."""
    return runnable(cases, prepare)


def state_cases() -> Any:
    """State-form cases with their stimuli (properties/strategies/workfile_states.py)."""
    from wforacle.properties.strategies.workfile_states import state_cases

    return state_cases()


def valid_state_cases() -> Any:
    """Profile ``workfile-stateful``: the state-form cases that can run."""
    return runnable(state_cases, prepare)


def _document(case: JSON) -> JSON:
    from wforacle.model.workfile.yamlsafe import YamlProblem, read

    try:
        return read(case["document"])
    except (YamlProblem, KeyError, TypeError):
        return None


def _dump(data: JSON) -> str:
    from wforacle.model.workfile.yamlsafe import write

    return write(data, allow_unicode=True)


def size(case: JSON) -> dict[str, int]:
    """Steps (handler and child-workflow steps included) and scripted attempt results.

    A state-form case also counts its states and its stimuli (``events``).
    """
    data = _document(case)
    steps = len(_sites(data))
    workflows = case.get("workflows")
    if isinstance(workflows, dict):  # a child workflow's steps count too
        steps += sum(len(_sites(_document({"document": t}))) for t in workflows.values())
    scenario = case.get("scenario")
    attempts = scenario.get("attempts") if isinstance(scenario, dict) else None
    scripts = attempts.values() if isinstance(attempts, dict) else ()
    results = sum(len(r) for r in scripts if isinstance(r, list))
    found = {"steps": steps, "scripted results": results}
    if isinstance(data, dict) and isinstance(data.get("states"), dict):  # a state machine
        events = scenario.get("events") if isinstance(scenario, dict) else None
        found["states"] = len(data["states"])
        found["events"] = len(events) if isinstance(events, list) else 0  # stimuli
    return found


# A site: (the step list holding the step, its index, the step's static path).
Site = tuple[list[Any], int, str]
MODIFIER_KEYS = ("when", "retry", "on_fail", "on_unknown", "catch", "timeout")


def _body(entry: JSON) -> tuple[str, dict[str, Any]] | None:
    """A step entry's body key and its mapping (``{id: {key: spec, modifiers…}}``)."""
    if not isinstance(entry, dict) or len(entry) != 1:
        return None
    spec = next(iter(entry.values()))
    if not isinstance(spec, dict):
        return None
    keys = [k for k in spec if k not in MODIFIER_KEYS and not str(k).startswith("x-")]
    return (keys[0], spec) if len(keys) == 1 else None


def _nested(key: str, spec: dict[str, Any], path: str) -> list[tuple[list[Any], str]]:
    """The step lists nested in a step's body and handlers, each with its static prefix (A-115)."""
    body = spec.get(key)
    found: list[tuple[Any, str]] = []
    if isinstance(body, dict):
        if key in ("wf.for_each", "wf.repeat"):
            found.append((body.get("steps"), f"{path}."))
        elif key == "wf.parallel" and isinstance(body.get("branches"), dict):
            found.extend((steps, f"{path}.{name}.") for name, steps in body["branches"].items())
        elif key == "wf.choose" and isinstance(body.get("arms"), list):
            found.extend(
                (arm.get("steps"), f"{path}.{k}.")
                for k, arm in enumerate(body["arms"])
                if isinstance(arm, dict)
            )
        elif key == "wf.route" and isinstance(body.get("cases"), dict):
            found.extend(
                (steps, f"{path}.{case_name(value)}.") for value, steps in body["cases"].items()
            )
        if key in ("wf.choose", "wf.route") and "else" in body:
            found.append((body["else"], f"{path}.else."))
    catch = spec.get("catch")
    if isinstance(catch, dict):
        found.extend(
            (handler.get("steps"), f"{path}.(catch).")
            for handler in catch.values()
            if isinstance(handler, dict)
        )
    return [(steps, prefix) for steps, prefix in found if isinstance(steps, list)]


def _sites(data: JSON) -> list[Site]:
    """Every step of a document with its static path, outermost first, in document order."""
    found: list[Site] = []

    def visit(steps: list[Any], prefix: str) -> None:
        for k, entry in enumerate(steps):
            body = _body(entry)
            if body is None:
                continue
            path = prefix + str(next(iter(entry)))
            found.append((steps, k, path))
            for inner, inner_prefix in _nested(body[0], body[1], path):
                visit(inner, inner_prefix)

    if isinstance(data, dict) and isinstance(data.get("steps"), list):
        visit(data["steps"], "")
    states = data.get("states") if isinstance(data, dict) else None
    for name, state in states.items() if isinstance(states, dict) else ():
        for member in ("on_enter", "steps"):  # an entry step's static path: state.id
            if isinstance(state, dict) and isinstance(state.get(member), list):
                visit(state[member], f"{name}.")
    return found


def _variant(case: JSON, data: JSON, scenario: JSON | None = None) -> JSON:
    found = {**copy.deepcopy(case), "document": _dump(data)}
    if scenario is not None:
        found["scenario"] = scenario
    return found


def _hoisted(scenario: JSON, path: str, prefix: str, parent: str) -> JSON:
    """The scenario with attempt keys under ``prefix`` (any iteration) moved to ``parent``."""
    if not isinstance(scenario, dict) or not isinstance(scenario.get("attempts"), dict):
        return copy.deepcopy(scenario)
    inner = prefix[len(path) :]  # ".", ".name.", ".(catch)."
    pattern = re.compile(re.escape(path) + r"(\[\d+\])?" + re.escape(inner))
    moved = {
        pattern.sub(parent, key, count=1): value for key, value in scenario["attempts"].items()
    }
    return {**copy.deepcopy(scenario), "attempts": copy.deepcopy(moved)}


def smaller(case: JSON) -> Iterator[JSON]:
    """One reduction step: smaller variants of a case, each with one thing removed.

    In order: a step (the last first); a construct or handled step replaced by
    one of its nested step lists (the scenario's paths follow); a modifier or
    retry member of a step; one of several handlers; a handler's result
    member; a templated ``until`` or arm guard made ``{{ true }}`` or
    ``{{ false }}``; an empty branch of several; an argument of an
    action or a call; an input declaration (with the caller's value); an output; the
    same in each child workflow, and a child workflow; a connector's
    manifest; then the scenario's reductions: a step's script or one of its
    results, a server delay, details or a late response, a deadline's
    expiry, a child's cancellation, the cancellation request, the inputs,
    the dry run, an empty ``expire`` or ``cancelChild``, the schedule's last
    choice, an interruption one wait earlier.
    """
    data = _document(case)
    if isinstance(data, dict):
        for variant, scenario in _smaller_documents(case, data):
            yield _variant(case, variant, scenario)
            # A removed step may have been what led up to an interruption's wait: the
            # same removal with every interruption one wait earlier (two coordinated edits).
            base = scenario if scenario is not None else case.get("scenario")
            earlier = _earlier(base)
            first = _earlier(base, to_first=True)
            for moved in (earlier, None if first == earlier else first):
                if moved is not None:
                    yield _variant(case, variant, moved)
    workflows = case.get("workflows")
    if isinstance(workflows, dict):
        for name, text in workflows.items():
            child = _document({"document": text})
            if isinstance(child, dict):
                for variant, _ in _smaller_documents(case, child):
                    found = copy.deepcopy(case)
                    found["workflows"][name] = _dump(variant)
                    yield found
            found = copy.deepcopy(case)
            del found["workflows"][name]
            if not found["workflows"]:
                del found["workflows"]  # the last one too: an empty member is noise
            yield found
    for member in ("workflows", "manifests"):
        if case.get(member) == {}:
            yield {k: v for k, v in case.items() if k != member}
    manifests = case.get("manifests")
    if isinstance(manifests, dict):
        for connector in list(manifests):
            variant = copy.deepcopy(case)
            del variant["manifests"][connector]
            if not variant["manifests"]:
                del variant["manifests"]  # the last one too, where the bug needs none
            yield variant
    yield from _smaller_scenarios(case)


# What a templated ``after`` is tried as when shrinking (properties/strategies/workfile_states:
# the durations state-form cases draw).
LITERAL_AFTER = ("1s", "500ms", "2s")
# What a templated repeat condition or arm guard is tried as when shrinking.
LITERAL_CONDITIONS = ("{{ true }}", "{{ false }}")


def _smaller_documents(case: JSON, data: JSON) -> Iterator[tuple[JSON, JSON]]:
    """Smaller variants of one document, each with the scenario that goes with it (or None)."""
    count = len(_sites(data))
    for n in reversed(range(count)):
        variant = copy.deepcopy(data)
        steps, k, _ = _sites(variant)[n]
        del steps[k]
        yield variant, None
    for n in range(count):
        steps, k, path = _sites(data)[n]
        key, spec = _body(steps[k]) or ("", {})
        parent = path[: len(path) - len(str(next(iter(steps[k]))))]
        for m, (_, prefix) in enumerate(_nested(key, spec, path)):
            variant = copy.deepcopy(data)
            vsteps, vk, _ = _sites(variant)[n]
            vkey, vspec = _body(vsteps[vk]) or ("", {})
            inner = _nested(vkey, vspec, path)[m][0]
            vsteps[vk : vk + 1] = inner
            yield variant, _hoisted(case.get("scenario"), path, prefix, parent)
        # (the member of the step's mapping, the key within it or None)
        reducible: list[tuple[str, str | None]] = [(m, None) for m in MODIFIER_KEYS if m in spec]
        for container in ("retry", "catch", key):
            members = spec.get(container)
            if not isinstance(members, dict) or container.startswith("wf."):
                continue
            if container == "catch" and len(members) < 2:
                continue  # removing the only handler is removing catch
            reducible += [(container, member) for member in members]
        for outer, inner_key in reducible:
            variant = copy.deepcopy(data)
            vsteps, vk, _ = _sites(variant)[n]
            vspec = next(iter(vsteps[vk].values()))
            if inner_key is None:
                del vspec[outer]
            else:
                del vspec[outer][inner_key]
            yield variant, None
        # A handler's result member, one at a time (a stranger's shrunk case kept
        # result: {x: "{{ error.code }}", y: null} where {} showed the bug).
        handlers = spec.get("catch")
        for pattern, handler in handlers.items() if isinstance(handlers, dict) else ():
            result = handler.get("result") if isinstance(handler, dict) else None
            for member in list(result) if isinstance(result, dict) else ():
                variant = copy.deepcopy(data)
                vsteps, vk, _ = _sites(variant)[n]
                del next(iter(vsteps[vk].values()))["catch"][pattern]["result"][member]
                yield variant, None
        raw = spec.get(key)
        body: dict[str, Any] = raw if isinstance(raw, dict) else {}
        # A templated repeat condition or arm guard made a literal (a stranger's case kept
        # until: "{{ s5.id == null }}" where "{{ true }}" showed the bug).
        conditions: list[tuple[str, int | None]] = (
            [("until", None)] if isinstance(body.get("until"), str) else []
        )
        listed = body.get("arms")
        arms: list[Any] = listed if isinstance(listed, list) else []
        conditions += [("arms", k) for k, arm in enumerate(arms) if isinstance(arm, dict)]
        for field, index in conditions:
            current = body[field] if index is None else arms[index].get("when")
            for literal in LITERAL_CONDITIONS:
                if not isinstance(current, str) or current == literal or "{{" not in current:
                    continue
                variant = copy.deepcopy(data)
                vsteps, vk, _ = _sites(variant)[n]
                vbody = next(iter(vsteps[vk].values()))[key]
                if index is None:
                    vbody[field] = literal
                else:
                    vbody["arms"][index]["when"] = literal
                yield variant, None
        # An empty branch of several (a stranger's case kept a: []).
        named = body.get("branches")
        branches: dict[str, Any] = named if isinstance(named, dict) else {}
        for name, steps_of in branches.items() if len(branches) > 1 else ():
            if steps_of in ([], None):
                variant = copy.deepcopy(data)
                vsteps, vk, _ = _sites(variant)[n]
                del next(iter(vsteps[vk].values()))[key]["branches"][name]
                yield variant, None
        # A render's with member, a route's case (an expression probe's render kept a
        # projected name its template never read).
        for field in ("with", "cases") if key in ("wf.render", "wf.route") else ():
            members = body.get(field)
            for name in list(members) if isinstance(members, dict) else ():
                variant = copy.deepcopy(data)
                vsteps, vk, _ = _sites(variant)[n]
                del next(iter(vsteps[vk].values()))[key][field][name]
                yield variant, None
        # A call made an action that fails (a stranger's fail_fast case kept a call with a
        # wrongly typed input where any failing step showed the bug, session 20).
        failing = _failing_action(case) if key == "wf.call" else None
        if failing is not None:
            action, code = failing
            variant = copy.deepcopy(data)
            vsteps, vk, _ = _sites(variant)[n]
            step_id, vspec = next(iter(vsteps[vk].items()))
            kept = {m: v for m, v in vspec.items() if m in MODIFIER_KEYS}
            vsteps[vk] = {step_id: {action: {}, **kept}}
            scenario = copy.deepcopy(case.get("scenario")) or {}
            if isinstance(scenario, dict):
                scenario.setdefault("attempts", {})[path] = [{"error": code}]
                yield variant, scenario
        inlined = _inlined_call(case, data, n, path, parent) if key == "wf.call" else None
        if inlined is not None:
            yield inlined
        # A template made smaller: a whole marker replaced by one of its operands.
        for variant in _simpler_templates(data, n, key):
            yield variant, None
        # A render's template made plain text, so the with members it read can go (a
        # fault in evaluating the projection needs no template).
        if key == "wf.render" and "{{" in str(body.get("template", "")):
            variant = copy.deepcopy(data)
            vsteps, vk, _ = _sites(variant)[n]
            next(iter(vsteps[vk].values()))[key]["template"] = "text"
            yield variant, None
        passed = spec.get("wf.call", {}).get("inputs") if key == "wf.call" else None
        for name in list(passed) if isinstance(passed, dict) else ():  # a call's input
            variant = copy.deepcopy(data)
            vsteps, vk, _ = _sites(variant)[n]
            del next(iter(vsteps[vk].values()))["wf.call"]["inputs"][name]
            yield variant, None
    fields = data.get("inputs")
    if isinstance(fields, dict):
        for name in list(fields):
            variant = copy.deepcopy(data)
            del variant["inputs"][name]
            if not variant["inputs"]:
                del variant["inputs"]
            # The caller's value goes with its declaration (else: input.unknown).
            scenario = copy.deepcopy(case.get("scenario"))
            if isinstance(scenario, dict) and isinstance(scenario.get("inputs"), dict):
                scenario["inputs"].pop(name, None)
            yield variant, scenario
    yield from ((variant, None) for variant in _smaller_states(data))
    yield from ((variant, None) for variant in _literal_matches(data, case.get("scenario")))
    yield from _later_initial(data, case.get("scenario"))
    outputs = data.get("outputs")
    if isinstance(outputs, dict):
        for name in list(outputs):
            variant = copy.deepcopy(data)
            del variant["outputs"][name]
            if not variant["outputs"]:
                del variant["outputs"]
            yield variant, None


def _inlined_call(
    case: JSON, data: JSON, n: int, path: str, parent: str
) -> tuple[JSON, JSON] | None:
    """The call at site ``n`` replaced by its child workflow's steps, their scripts renamed.

    A bug in how the child runs a step needs no call around it (CI, session 21:
    abort-caught's shrink kept a call whose child's step was the bug's).
    ``c.(run).b``'s scripted attempts become ``b``'s; None where an id collides.
    """
    steps, k, _ = _sites(data)[n]
    call = _body(steps[k])
    name = call[1].get("wf.call", {}).get("workflow") if call is not None else None
    workflows = case.get("workflows")
    text = workflows.get(name) if isinstance(workflows, dict) and isinstance(name, str) else None
    child = _document({"document": text}) if isinstance(text, str) else None
    inner = child.get("steps") if isinstance(child, dict) else None
    if not isinstance(inner, list) or not all(isinstance(s, dict) for s in inner):
        return None
    taken = {i for step in steps for i in step} - set(steps[k])
    if any(i in taken for step in inner for i in step):
        return None
    variant = copy.deepcopy(data)
    vsteps, vk, _ = _sites(variant)[n]
    vsteps[vk : vk + 1] = copy.deepcopy(inner)
    scenario = copy.deepcopy(case.get("scenario")) or {}
    attempts = scenario.get("attempts") if isinstance(scenario, dict) else None
    if isinstance(attempts, dict):
        prefix = f"{path}.(run)."
        scenario["attempts"] = {
            (parent + key[len(prefix) :] if key.startswith(prefix) else key): value
            for key, value in attempts.items()
        }
    return variant, scenario


def _failing_action(case: JSON) -> tuple[str, str] | None:
    """An action of the case's first manifest and an exact code it classifies fatal."""
    manifests = case.get("manifests")
    for connector in sorted(manifests) if isinstance(manifests, dict) else ():
        text = manifests[connector]
        manifest = _manifest(text, connector) if isinstance(text, str) else None
        if manifest is None:
            continue
        for name, spec in sorted(manifest.actions.items()):
            for pattern, kind in spec.errors:
                if pattern.kind == "exact" and kind == "fatal":
                    return f"{manifest.connector}.{name}", pattern.text
    return None


def _simpler_templates(data: JSON, n: int, key: str) -> Iterator[JSON]:
    """The step's body with one template made smaller (docs/workfile-expressions.md).

    A string that is one marker becomes one of its expression's operands
    (``{{ a if t else b }}`` → ``{{ a }}``, ``{{ t }}``, ``{{ b }}``), or the
    same expression written with no parenthesis precedence does not need; a
    string with text and markers becomes one of its markers alone.  A bug
    in one operator needs that operator and its operands, not the
    expression around it (the campaigns' probes nest three deep).  Then a
    subexpression inside becomes one of its own operands (``1 % (-10 if t
    else 0)`` → ``1 % -10``: a stranger's ``%`` bug kept the conditional,
    session 23).  Last, a read in the expression (``inputs.k``,
    ``src.tags[0]``) becomes a literal (``LITERALS``) where the bug needs
    only a value of its kind.
    """
    from wforacle.model.workfile.expr import (
        ExprError,
        Lit,
        operands,
        references,
        replaced,
        template,
        unparse,
    )

    steps, k, _ = _sites(data)[n]
    body = next(iter(steps[k].values())).get(key)
    for where, text in _templated(body, ()):
        try:
            parsed = template(text)
        except ExprError:
            continue
        whole = parsed.whole
        found = [f"{{{{ {unparse(e)} }}}}" for e in operands(whole)] if whole is not None else []
        if whole is not None and f"{{{{ {unparse(whole)} }}}}" != text:
            found.append(f"{{{{ {unparse(whole)} }}}}")  # without a parenthesis it needs not
        if whole is None:
            found = [f"{{{{ {unparse(e)} }}}}" for e in parsed.expressions]
        else:  # then an inner subexpression one of its operands, then reads literals
            found += [
                f"{{{{ {unparse(replaced(whole, inner, operand))} }}}}"
                for inner in _inner(whole, operands)
                for operand in operands(inner)
            ]
            found += [
                f"{{{{ {unparse(replaced(whole, read, Lit(value)))} }}}}"
                for read in references(whole)
                for value in LITERALS
            ]
        for smaller in found:
            variant = copy.deepcopy(data)
            vsteps, vk, _ = _sites(variant)[n]
            holder = next(iter(vsteps[vk].values()))[key]
            for part in where[:-1]:
                holder = holder[part]
            holder[where[-1]] = smaller
            yield variant


def _inner(whole: Any, operands: Any) -> Iterator[Any]:
    """Every subexpression of ``whole`` but itself, outermost first (breadth first)."""
    queue = list(operands(whole))
    while queue:
        expr = queue.pop(0)
        yield expr
        queue += operands(expr)


# What a read in a shrunk expression may become: a value of each kind but lists and
# objects (a read of one is kept).
LITERALS: tuple[JSON, ...] = (0, 1, "a", True, None)


def _templated(value: JSON, where: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], str]]:
    """Each string holding a marker in ``value``, with the keys that lead to it."""
    if isinstance(value, str) and "{{" in value and where:
        yield where, value
    elif isinstance(value, dict):
        for name, member in value.items():
            yield from _templated(member, (*where, name))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _templated(item, (*where, index))


TRANSITION_KEYS = ("goto", "into", "route", "cases", "else")


def _smaller_states(data: JSON) -> Iterator[JSON]:
    """A state-form document's own reductions (docs/workfile-stateful.md).

    A state no transition reaches; one of several exits (a subscription, the
    timeout); a match field; a templated ``after`` replaced by a literal duration; a routed
    transition replaced by one of its cases or ``else``;
    a transition sent straight to a final state; an ``into`` member; an
    accepted value with every ``into`` that supplies it; an empty step list.
    """
    states = data.get("states")
    if not isinstance(states, dict):
        return
    for name in _unreached(data):
        variant = copy.deepcopy(data)
        del variant["states"][name]
        yield variant
    for name, state in states.items():
        if not isinstance(state, dict):
            continue
        on = state.get("on")
        subscriptions: dict[str, Any] = on if isinstance(on, dict) else {}
        exits = len(subscriptions) + ("timeout" in state)
        for sub in list(subscriptions) if exits > 1 else ():
            variant = copy.deepcopy(data)
            del variant["states"][name]["on"][sub]
            if not variant["states"][name]["on"]:
                del variant["states"][name]["on"]
            yield variant
        for sub, spec in subscriptions.items():
            match = spec.get("match") if isinstance(spec, dict) else None
            for field in list(match) if isinstance(match, dict) else ():
                # A match field the bug does not need (stranger 20's `kind: x`).
                variant = copy.deepcopy(data)
                del variant["states"][name]["on"][sub]["match"][field]
                yield variant
        if "timeout" in state and exits > 1:
            variant = copy.deepcopy(data)
            del variant["states"][name]["timeout"]
            yield variant
        timeout = state.get("timeout")
        after = timeout.get("after") if isinstance(timeout, dict) else None
        if isinstance(after, str) and "{{" in after:
            # A deadline read from a binding, replaced by a literal one: the binding's
            # step and its scripted result may then go too.
            for literal in LITERAL_AFTER:
                variant = copy.deepcopy(data)
                variant["states"][name]["timeout"]["after"] = literal
                yield variant
        for member in ("on_enter", "steps"):
            if state.get(member) == []:
                variant = copy.deepcopy(data)
                del variant["states"][name][member]
                yield variant
    for k, (_, transition) in enumerate(_transitions(data)):
        if "route" in transition:
            arms = [*(transition.get("cases") or {}).values(), transition.get("else")]
            for arm in arms:
                if isinstance(arm, dict):
                    variant = copy.deepcopy(data)
                    vtransition = _transitions(variant)[k][1]
                    for key in TRANSITION_KEYS:
                        vtransition.pop(key, None)
                    vtransition.update(copy.deepcopy(arm))
                    yield variant
        finals = [n for n, st in states.items() if isinstance(st, dict) and st.get("final")]
        for final in finals if transition.get("goto") not in finals else ():
            # Straight to a final state: the states it led through may then go.
            variant = copy.deepcopy(data)
            vtransition = _transitions(variant)[k][1]
            vtransition["goto"] = final
            vtransition.pop("into", None)
            yield variant
            target = states.get(transition.get("goto"))
            accepts = target.get("accepts") if isinstance(target, dict) else None
            if "into" in transition and isinstance(accepts, dict):
                # With what it hands over: the final state accepts what the target did (a
                # stranger's accepts-code bug kept the target state, session 23).
                variant = copy.deepcopy(data)
                vtransition = _transitions(variant)[k][1]
                vtransition["goto"] = final
                variant["states"][final]["accepts"] = copy.deepcopy(accepts)
                # The states only the old target led to go at once: their transitions
                # into the final state would not hand it what it now requires.
                while gone := _unreached(variant):
                    for name in gone:
                        del variant["states"][name]
                yield variant
        for member in list(transition.get("into") or {}):
            variant = copy.deepcopy(data)
            vinto = _transitions(variant)[k][1]["into"]
            del vinto[member]
            if not vinto:
                del _transitions(variant)[k][1]["into"]
            yield variant
    for name, state in states.items():
        accepts = state.get("accepts") if isinstance(state, dict) else None
        for field in list(accepts) if isinstance(accepts, dict) else ():
            variant = copy.deepcopy(data)
            del variant["states"][name]["accepts"][field]
            if not variant["states"][name]["accepts"]:
                del variant["states"][name]["accepts"]
            for _, transition in _transitions(variant):
                into = transition.get("into")
                if transition.get("goto") == name and isinstance(into, dict):
                    into.pop(field, None)
                    if not into:
                        del transition["into"]
            yield variant


# What a templated match value is tried as when no stimulus supplies a value that differs
# from the payloads' (the values properties/strategies/workfile_states draws).
LITERAL_MATCHES = ("r1", "r2", "r3")


def _literal_matches(data: JSON, scenario: JSON) -> Iterator[JSON]:
    """A templated match value replaced by a literal one (stranger 8's shrunk cases).

    A match value read from a binding (``ref: '{{ ask.id }}'``) keeps the
    step that binds it and that step's scripted result in every shrunk case,
    though the bug concerns only whether a payload matches.  Tried, for each
    templated value: each value a stimulus of that event carries in that
    field (a payload that matches), then the first of ``LITERAL_MATCHES``
    none of them carries (a payload that does not).  The binding's step and
    its script may then go.
    """
    states = data.get("states")
    stimuli = scenario.get("events") if isinstance(scenario, dict) else None
    stimuli = [s for s in stimuli if isinstance(s, dict)] if isinstance(stimuli, list) else []
    for name, state in states.items() if isinstance(states, dict) else ():
        on = state.get("on") if isinstance(state, dict) else None
        for sub, spec in on.items() if isinstance(on, dict) else ():
            match = spec.get("match") if isinstance(spec, dict) else None
            for field, value in match.items() if isinstance(match, dict) else ():
                if not (isinstance(value, str) and "{{" in value):
                    continue
                carried = []
                for stimulus in stimuli:
                    payload = stimulus.get("payload")
                    if stimulus.get("event") != spec.get("event") or not isinstance(payload, dict):
                        continue
                    if field in payload and payload[field] not in carried:
                        carried.append(payload[field])
                other = next((v for v in LITERAL_MATCHES if v not in carried), None)
                for literal in [*carried, other]:
                    if literal is None or isinstance(literal, (dict, list)):
                        continue
                    variant = copy.deepcopy(data)
                    variant["states"][name]["on"][sub]["match"][field] = literal
                    yield variant


def _later_initial(data: JSON, scenario: JSON) -> Iterator[tuple[JSON, JSON]]:
    """The run started in a state the initial one goes to, the way to it cut off.

    For each state ``T`` a transition of the initial state goes to:
    ``initial: T`` with the scenario as it is, then without its first
    stimulus and every later interruption one wait earlier (the stimulus
    that made the initial state leave).  The initial state is then reached
    by nothing, and goes next pass.  A final ``T`` too: a stranger's
    final-state bug kept the timed state before it and the stimulus that
    passed its deadline (session 23).
    """
    states = data.get("states")
    initial = data.get("initial")
    if not isinstance(states, dict) or not isinstance(states.get(initial), dict):
        return
    first: dict[str, Any] = {"states": {initial: states[initial]}}
    targets = {t.get("goto") for _, t in _transitions(first)} - {initial, None}
    for target in sorted(t for t in targets if isinstance(t, str)):
        if not isinstance(states.get(target), dict):
            continue
        variant = copy.deepcopy(data)
        variant["initial"] = target
        yield variant, None
        stimuli = scenario.get("events") if isinstance(scenario, dict) else None
        if isinstance(stimuli, list) and stimuli:
            rest = {**copy.deepcopy(scenario), "events": copy.deepcopy(stimuli[1:])}
            if not rest["events"]:
                del rest["events"]
            yield copy.deepcopy(variant), _earlier(rest) or rest


def _unreached(data: JSON) -> list[str]:
    """The states of a state-form document no transition goes to, ``initial`` aside."""
    reached = {t.get("goto") for _, t in _transitions(data)}
    return [n for n in data["states"] if n != data.get("initial") and n not in reached]


def _transitions(data: JSON) -> list[tuple[str, dict[str, Any]]]:
    """Every transition mapping of a state-form document (nested cases and else too)."""
    found: list[tuple[str, dict[str, Any]]] = []

    def visit(where: str, transition: JSON) -> None:
        if not isinstance(transition, dict):
            return
        found.append((where, transition))
        cases = transition.get("cases")
        for label, case in cases.items() if isinstance(cases, dict) else ():
            visit(f"{where}.cases.{label}", case)
        visit(f"{where}.else", transition.get("else"))

    states = data.get("states")
    for name, state in states.items() if isinstance(states, dict) else ():
        if not isinstance(state, dict):
            continue
        if "goto" in state or "route" in state:
            visit(name, state)
        subscriptions = state.get("on")
        for sub, spec in subscriptions.items() if isinstance(subscriptions, dict) else ():
            visit(f"{name}.on.{sub}", spec)
        visit(f"{name}.timeout", state.get("timeout"))
    return found


def _earlier(scenario: JSON, to_first: bool = False) -> JSON | None:
    """The scenario with each interruption past the first wait one wait earlier.

    With ``to_first``, at the first wait instead.  None when no interruption
    is past the first wait, or when the move would put two at one wait.
    """
    if not isinstance(scenario, dict):
        return None
    found = copy.deepcopy(scenario)
    places: list[tuple[dict[str, Any], str]] = [(found, "cancel")]
    for member in ("expire", "cancelChild"):
        waits = found.get(member)
        places += [(waits, path) for path in waits] if isinstance(waits, dict) else []
    stimuli = found.get("events")
    if isinstance(stimuli, list):  # state-form stimuli (docs/workfile-stateful.md)
        places += [(stimulus, "wait") for stimulus in stimuli if isinstance(stimulus, dict)]
    moved = False
    for holder, key in places:
        k = holder.get(key)
        if isinstance(k, int) and not isinstance(k, bool) and k > 1:
            holder[key], moved = 1 if to_first else k - 1, True
    ks = [h[k] for h, k in places if isinstance(h.get(k), int)]
    return found if moved and len(set(ks)) == len(ks) else None


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
            for member in ("retryAfterMs", "details", "late"):
                if isinstance(results[k], dict) and member in results[k]:
                    variant = copy.deepcopy(case)
                    del variant["scenario"]["attempts"][path][k][member]
                    yield variant
            # A member of a scripted output (an expression probe reads two of six).
            output = results[k].get("output") if isinstance(results[k], dict) else None
            for member in list(output) if isinstance(output, dict) else ():
                variant = copy.deepcopy(case)
                del variant["scenario"]["attempts"][path][k]["output"][member]
                yield variant
    for member in ("expire", "cancelChild"):
        for path in list(scenario.get(member) or {}):
            variant = copy.deepcopy(case)
            del variant["scenario"][member][path]
            yield variant
    yield from _smaller_stimuli(case)
    # An empty ``expire`` or ``cancelChild`` (its paths all removed, or drawn so) goes too.
    members = ("cancel", "inputs", "dryRun", "attempts", "events", "expire", "cancelChild")
    yield from without(case, members)
    # Every interruption one wait earlier: the steps that only led up to it can then go.
    earlier = _earlier(scenario)
    if earlier is not None:
        yield {**copy.deepcopy(case), "scenario": earlier}


def _smaller_stimuli(case: JSON) -> Iterator[JSON]:
    """Smaller stimuli: one removed, or its event, a payload member, its instant or its wait.

    The event dropped leaves the clock's move; the instant goes back to the
    one before it; the wait one earlier.
    """
    stimuli = case["scenario"].get("events")
    if not isinstance(stimuli, list):
        return

    def edited(k: int, change: Any) -> JSON:
        variant = copy.deepcopy(case)
        change(variant["scenario"]["events"], k)
        if not variant["scenario"]["events"]:
            del variant["scenario"]["events"]
        return variant

    for k in reversed(range(len(stimuli))):
        stimulus = stimuli[k]
        if not isinstance(stimulus, dict):
            continue
        yield edited(k, lambda found, k: found.pop(k))
        if "event" in stimulus:
            yield edited(k, lambda found, k: [found[k].pop(m, None) for m in ("event", "payload")])
        payload = stimulus.get("payload")
        for member in list(payload) if isinstance(payload, dict) else ():
            yield edited(k, lambda found, k, m=member: found[k]["payload"].pop(m))
        before = stimuli[k - 1].get("at", 0) if k and isinstance(stimuli[k - 1], dict) else 0
        if isinstance(stimulus.get("at"), int) and stimulus["at"] > before:
            yield edited(k, lambda found, k, at=before: found[k].update(at=at))
        waits = {s.get("wait") for s in stimuli if isinstance(s, dict)}
        wait = stimulus.get("wait")
        if isinstance(wait, int) and wait > 1 and wait - 1 not in waits:
            yield edited(k, lambda found, k: found[k].update(wait=found[k]["wait"] - 1))


# -- the engine protocol ---------------------------------------------------------------------


def protocol() -> Protocol:
    """The engine protocol's Workfile payloads (module docstring)."""
    return Protocol(
        unit="step",
        argument="input",
        known=known,
        answer=answer,
        withdraw="cancel",
        interrupts=interrupts,
        idle=idle,
        ends=lambda event: event.get("event") == "run_finished",
        recorded=frozenset(
            {
                "cancel_requested",
                "timer_fired",
                "child_cancel_requested",
                "event_accepted",
                "clock_advanced",
                "quiet",
            }
        ),
    )


QUIET = Interrupt({"type": "quiet"}, {"event": "quiet"})


def idle(prepared: Prepared) -> Interrupt | None:
    """A state-form run may wait with nothing outstanding: then ``quiet`` (A-152)."""
    from wforacle.model.workfile.stateful import StatefulRun

    return QUIET if isinstance(prepared.semantics, StatefulRun) else None


def interrupts(prepared: Prepared) -> dict[int, Interrupt]:
    """The scenario's cancellation request, deadlines and child cancellations, by wait."""
    found: dict[int, Interrupt] = {}
    for k, (what, path) in prepared.semantics.scenario.interrupts.items():
        if what == "cancel":
            found[k] = Interrupt({"type": "cancel_run"}, {"event": "cancel_requested"}, late=True)
        elif what == "expire":
            found[k] = Interrupt(
                {"type": "expire", "step": path}, {"event": "timer_fired", "step": path}
            )
        else:
            found[k] = Interrupt(
                {"type": "cancel_child", "step": path},
                {"event": "child_cancel_requested", "step": path},
            )
    number = 0
    for stimulus in prepared.semantics.scenario.events:  # docs/workfile-stateful.md
        if stimulus.event is None:
            found[stimulus.wait] = Interrupt(
                {"type": "advance", "at": stimulus.at},
                {"event": "clock_advanced", "at": stimulus.at},
            )
            continue
        accepted = {"number": number, "at": stimulus.at}
        found[stimulus.wait] = Interrupt(
            {"type": "accept", **accepted, "event": stimulus.event, "payload": stimulus.payload},
            {
                "event": "event_accepted",
                **accepted,
                "trigger": stimulus.event,
                "payload": stimulus.payload,
            },
        )
        number += 1
    return found


def known(prepared: Prepared, step: JSON) -> bool:
    """Whether an invoke names an action step of the case (by its run-time path)."""
    from wforacle.model.workfile.scenario import static_path

    return isinstance(step, str) and static_path(step) in prepared.semantics.actions


def answer(prepared: Prepared, step: str, attempt: int) -> dict[str, JSON]:
    """The scenario's result of the step's ``attempt``-th attempt, as a result message's fields."""
    run = prepared.semantics
    result = run.scenario.result(step, attempt)
    if result.get("timeout") is True:  # the deadline passed first; then the late response
        late = result.get("late")
        return {"timeout": True, **({"late": _result_fields(late)} if late is not None else {})}
    return _result_fields(result)


def _result_fields(result: JSON) -> dict[str, JSON]:
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
    state = seen.state if isinstance(seen.state, dict) else {}
    differing = [m for m in FINAL_MEMBERS if expected and state.get(m) != expected[0].get(m)]
    member = differing[0] if differing else "outcome"
    return Divergence(
        len(seen.trace),
        {"final": seen.state},
        tuple({"final": e} for e in expected[:2]),
        FINAL_CLAUSES[member],
        f"the engine's final state differs from the model's in {member!r}",
    )


FINAL_MEMBERS = (
    "outcome",
    "result",
    "suppressed",
    "error",
    "reason",
    "disposition",
    "steps",
    "unknownEffects",
    "entries",
)
# The clauses that decide each member of the final state (docs/workfile-execution.md).
FINAL_CLAUSES = {
    "outcome": ("WF-TERM-1", "WF-TERM-4", "WF-TERM-5", "WF-TERM-6"),
    "result": ("WF-ROUT-1", "WF-ROUT-2", "WF-DONE-3", "WF-CUT-4"),
    "suppressed": ("WF-PART-1", "WF-PART-2", "WF-PART-3"),
    "error": ("WF-ROUT-5", "WF-ROUT-6", "WF-POLICY-9"),
    "reason": ("WF-ROUT-5",),
    "disposition": ("WF-UNK-3",),
    "steps": ("WF-SOUT-1", "WF-SOUT-11", "WF-SOUT-12"),
    "unknownEffects": ("WF-TERM-8", "WF-TERM-9", "WF-UNK-8"),
    "entries": ("WFS-ENTRY-13", "WFS-ENTRY-12", "WFS-TRANS-39"),
}


def _canonical(value: JSON) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _comparable(state: JSON) -> str:
    if not isinstance(state, dict):
        return _canonical({"invalid": state})
    return _canonical({k: state.get(k) for k in FINAL_MEMBERS})


def trace_line(event: JSON) -> str:
    """One event of ``run``'s text output."""
    fields = {k: v for k, v in event.items() if k != "event"}
    return f"{event['event']:<18} {json.dumps(fields, ensure_ascii=False)}"


def ends(state: JSON) -> str:
    """``run``'s last line."""
    return f"run {state.get('outcome')}"
