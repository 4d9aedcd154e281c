"""Load a Workfile from YAML safely, reporting every problem with its path.

The vocabulary is closed (issue 12: "an unknown key is a diagnostic, not
silently ignored"): every mapping the document model reads admits exactly
the keys docs/workfile.md lists, plus extension keys ``x-…`` (A-108), which
are kept out of the model.  Each problem is a Diagnostic with a code, a JSON
path (``$.steps[2].fetch.retry.initial``), a message and the assumption or
clause that decides it; loading goes on past a problem so one report holds
them all.  Codes: docs/workfile.md.  A state-form document (``states``,
``initial``: the Stateful Profile) is read by model/workfile/state_loader.py,
which reuses this loader's step lists, fields, names and templates.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from wforacle.model.diagnostics import Diagnostic, Gate, error
from wforacle.model.workfile.codes import PatternError, code_pattern, duration_ms
from wforacle.model.workfile.document import (
    ABSENT,
    Action,
    Arm,
    Body,
    Call,
    Choose,
    Fail,
    Field,
    ForEach,
    Handler,
    Modifiers,
    Parallel,
    Render,
    Repeat,
    Retry,
    Route,
    Step,
    Stop,
    Wait,
    WaitFor,
    Workfile,
    case_name,
)
from wforacle.model.workfile.document import member as _member
from wforacle.model.workfile.evaluate import FILTERS
from wforacle.model.workfile.expr import ExprError, filters, template
from wforacle.model.workfile.state_loader import load_states
from wforacle.model.workfile.states import StateWorkfile
from wforacle.model.workfile.yamlsafe import YamlProblem, read

JSON = Any
NAME = re.compile(r"[a-z_][a-z0-9_]*")  # ordinary names
ACTION = re.compile(r"([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)")
FIELD_TYPES = ("string", "integer", "number", "boolean", "object", "array", "json")

ROOT_KEYS = ("inputs", "steps", "outputs")
MODIFIER_KEYS = ("when", "retry", "on_fail", "on_unknown", "catch", "timeout")
CONSTRUCT_KEYS: dict[str, tuple[str, ...]] = {
    "wf.for_each": ("items", "as", "steps", "on_iteration_fail", "concurrency"),
    "wf.parallel": ("branches", "on_branch_fail"),
    "wf.call": ("workflow", "inputs"),
    "wf.stop": ("reason", "result"),
    "wf.fail": ("code", "reason"),
    "wf.repeat": ("steps", "until", "delay", "max_iterations"),
    "wf.wait": ("for",),
    "wf.wait_for": ("event", "match", "timeout"),
    "wf.choose": ("arms", "else"),
    "wf.route": ("subject", "cases", "else"),
    "wf.render": ("template", "file", "with"),
}
NOT_MODELLED = {
    "wf.agent": "wf.agent is not modelled: its section (tools, budgets, on_exhausted, "
    "returns) is not in the excerpt (A-113)",
}


class Loader:
    """Builds a Workfile from parsed YAML, collecting diagnostics."""

    def __init__(self) -> None:
        self.problems: list[Diagnostic] = []

    def fail(self, code: str, path: str, message: str, clause: str = "A-106") -> None:
        """Record an error at ``path``."""
        self.problems.append(error(code, path, message, clause, Gate.SAVE))

    # -- entry ------------------------------------------------------------------------

    def load_text(self, text: str | bytes) -> Workfile | StateWorkfile | None:
        """The Workfile in YAML ``text``, or None when it cannot be read."""
        try:
            data = read(text)
        except YamlProblem as problem:
            self.fail(problem.code, "$", str(problem), "A-107")
            return None
        return self.load(data)

    def load(self, data: JSON) -> Workfile | StateWorkfile | None:
        """The Workfile in parsed YAML ``data``."""
        if not isinstance(data, dict):
            self.fail("document.shape", "$", "a Workfile is a YAML mapping")
            return None
        if "states" in data or "initial" in data:
            # The Stateful Profile: "A Core Validator MUST NOT reinterpret states as a
            # step list" (WFS-INTRO-5); its own reader takes the document (A-142).
            return load_states(self, data)
        self.keys(data, "$", ROOT_KEYS)
        inputs = self.fields(data.get("inputs", {}), "$.inputs")
        steps = self.steps(data.get("steps", ABSENT), "$.steps", "")
        outputs = data.get("outputs", ABSENT)
        if outputs is not ABSENT:
            if isinstance(outputs, dict):
                self.templates(outputs, "$.outputs")
            else:
                self.fail("document.shape", "$.outputs", "outputs is a mapping of names to values")
        return Workfile(inputs, steps, outputs)

    # -- shared readers ----------------------------------------------------------------

    def keys(self, mapping: dict[Any, Any], path: str, allowed: tuple[str, ...]) -> None:
        """Report every key outside ``allowed`` (extension keys ``x-…`` pass, A-108)."""
        for key in mapping:
            if isinstance(key, str) and (key in allowed or key.startswith("x-")):
                continue
            self.fail(
                "document.unknown_key",
                _member(path, str(key)),
                f"{key!r} is not a key here; expected one of {', '.join(allowed)}",
            )

    def mapping(self, value: JSON, path: str, what: str) -> dict[str, Any] | None:
        """``value`` when it is a mapping, else a diagnostic and None."""
        if isinstance(value, dict):
            return value
        self.fail("document.shape", path, f"{what} is a mapping, not {_kind(value)}")
        return None

    def templates(self, value: JSON, path: str) -> None:
        """Check that every ``{{ }}`` marker in ``value`` parses."""
        if isinstance(value, str):
            if "{{" in value:
                try:
                    parsed = template(value)
                except ExprError as exc:
                    self.fail("document.expression", path, exc.message, "A-100")
                    return
                for name in sorted(filters(parsed) - set(FILTERS)):
                    self.fail(
                        "document.expression",
                        path,
                        f"no filter named {name!r} ({', '.join(FILTERS)})",
                        "A-117",
                    )
        elif isinstance(value, dict):
            for key, member in value.items():
                self.templates(member, _member(path, str(key)))
        elif isinstance(value, list):
            for k, item in enumerate(value):
                self.templates(item, _member(path, k))

    def expression(self, value: JSON, path: str) -> JSON:
        """An expression-bearing field: a template string or a plain value."""
        self.templates(value, path)
        return value

    def choice(self, value: JSON, path: str, allowed: tuple[str, ...], clause: str) -> str | None:
        """A literal policy value among ``allowed``."""
        if value in allowed:
            return str(value)
        self.fail("document.value", path, f"{value!r} is not one of {', '.join(allowed)}", clause)
        return None

    def duration(self, value: JSON, path: str) -> int | None:
        """A duration in milliseconds (A-104)."""
        try:
            return duration_ms(value)
        except PatternError as exc:
            self.fail("document.duration", path, exc.message, "A-104")
            return None

    def count(self, value: JSON, path: str, what: str, least: int = 1) -> int | None:
        """A positive integer."""
        if isinstance(value, int) and not isinstance(value, bool) and value >= least:
            return value
        self.fail("document.value", path, f"{what} is an integer >= {least}, not {value!r}")
        return None

    def name(self, value: JSON, path: str, what: str) -> str | None:
        """An ordinary name (A-102)."""
        if isinstance(value, str) and NAME.fullmatch(value):
            return value
        self.fail(
            "document.name",
            path,
            f"{what} {value!r} is not a name: lowercase letters, digits and _, not "
            "starting with a digit",
            "A-102",
        )
        return None

    # -- inputs ------------------------------------------------------------------------

    def fields(self, value: JSON, path: str) -> tuple[Field, ...]:
        """Field declarations (A-109)."""
        declared = self.mapping(value, path, "inputs")
        found: list[Field] = []
        for name, spec in (declared or {}).items():
            here = _member(path, str(name))
            if self.name(name, here, "an input") is None:
                continue
            body = self.mapping(spec, here, "a field declaration")
            if body is None:
                continue
            self.keys(body, here, ("type", "required", "default", "description"))
            kind = body.get("type", ABSENT)
            if kind is ABSENT:
                self.fail("document.missing", here, "a field declaration needs a type", "A-109")
                continue
            if kind not in FIELD_TYPES:
                self.fail(
                    "document.value",
                    _member(here, "type"),
                    f"{kind!r} is not a field type ({', '.join(FIELD_TYPES)})",
                    "A-109",
                )
                continue
            required = body.get("required", False)
            if not isinstance(required, bool):
                self.fail("document.value", _member(here, "required"), "required is a boolean")
                required = False
            found.append(Field(str(name), str(kind), required, body.get("default", ABSENT), here))
        return tuple(found)

    # -- steps -------------------------------------------------------------------------

    def steps(self, value: JSON, path: str, parent: str) -> tuple[Step, ...]:
        """A step list; ``parent`` is the step path of the enclosing construct."""
        if value is ABSENT:
            return ()
        if not isinstance(value, list):
            self.fail("document.shape", path, f"a step list is a sequence, not {_kind(value)}")
            return ()
        found: list[Step] = []
        for k, entry in enumerate(value):
            step = self.step(entry, _member(path, k), parent)
            if step is not None:
                found.append(step)
        return tuple(found)

    def step(self, entry: JSON, path: str, parent: str) -> Step | None:
        """``- id: { body: …, modifiers… }`` (A-106)."""
        if not isinstance(entry, dict) or len(entry) != 1:
            self.fail(
                "document.step",
                path,
                "a step is a mapping with one key, its id: `- id: { connector.action: { … } }`",
            )
            return None
        ((step_id, declaration),) = entry.items()
        here = _member(path, str(step_id))
        if self.name(step_id, path, "a step id") is None:
            return None
        step_path = f"{parent}.{step_id}" if parent else str(step_id)
        spec = self.mapping(declaration, here, f"step {step_id!r}")
        if spec is None:
            return None
        bodies = [k for k in spec if isinstance(k, str) and k not in MODIFIER_KEYS]
        bodies = [k for k in bodies if not k.startswith("x-")]
        if len(bodies) != 1:
            self.fail(
                "document.step",
                here,
                f"step {step_id!r} declares {len(bodies)} bodies ({', '.join(bodies) or 'none'}); "
                "a step has exactly one: a connector action or a wf.* construct",
            )
            return None
        (key,) = bodies
        if step_id == "error":
            self.fail(
                "document.name",
                path,
                "error is reserved: a handler's error binding and the error member of a "
                "retained failed scope (WF-CATCH-8, WF-POLICY-14)",
                "WF-POLICY-14",
            )
            return None
        for modifier in ("catch", "retry", "on_unknown"):
            allowed = "wf.call" if modifier == "catch" else None
            if modifier in spec and key.startswith("wf.") and key != allowed:
                self.fail(
                    "document.modifier",
                    _member(here, modifier),
                    f"{modifier} applies to connector actions"
                    + (" and wf.call" if allowed else "")
                    + f", not to {key}: it would never apply (WF-CATCH-9/12, WF-RETRY-10, A-122)",
                    "A-122",
                )
        body = self.body(key, spec[key], _member(here, key), step_path)
        modifiers = self.modifiers(spec, here, step_path)
        if body is None:
            return None
        return Step(str(step_id), body, modifiers, here, step_path)

    def body(self, key: str, value: JSON, path: str, step_path: str) -> Body | None:
        """The step's body: a connector action or a construct."""
        if key in NOT_MODELLED:
            self.fail("document.construct", path, NOT_MODELLED[key], "A-113")
            return None
        if key in CONSTRUCT_KEYS:
            spec = self.mapping(value if value is not None else {}, path, key)
            if spec is None:
                return None
            self.keys(spec, path, CONSTRUCT_KEYS[key])
            build: Callable[[dict[str, Any], str, str], Body | None] = getattr(
                self, "construct_" + key.removeprefix("wf.")
            )
            return build(spec, path, step_path)
        if key.startswith("wf."):
            self.fail(
                "document.construct",
                path,
                f"{key!r} is not a construct ({', '.join(CONSTRUCT_KEYS)})",
                "A-111",
            )
            return None
        match = ACTION.fullmatch(key)
        if match is None:
            self.fail(
                "document.step",
                path,
                f"{key!r} is neither a modifier ({', '.join(MODIFIER_KEYS)}), a construct "
                "(wf.…) nor a connector action (connector.action)",
            )
            return None
        args = {} if value is None else value
        if not isinstance(args, dict):
            self.fail("document.shape", path, f"the arguments of {key} are a mapping")
            return None
        self.templates(args, path)
        return Action(match.group(1), match.group(2), args)

    def required(self, spec: dict[str, Any], key: str, path: str, what: str) -> JSON:
        """A required member, ABSENT (with a diagnostic) when missing."""
        if key not in spec:
            self.fail("document.missing", path, f"{what} needs {key!r}", "A-111")
            return ABSENT
        return spec[key]

    def construct_for_each(self, spec: dict[str, Any], path: str, step_path: str) -> Body | None:
        """``wf.for_each: { items, as, steps, on_iteration_fail, concurrency }``."""
        items = self.expression(self.required(spec, "items", path, "wf.for_each"), path)
        name = self.name(spec.get("as", "item"), _member(path, "as"), "an iteration variable")
        steps = self.steps(spec.get("steps", []), _member(path, "steps"), step_path)
        policy = self.choice(
            spec.get("on_iteration_fail", "fail_fast"),
            _member(path, "on_iteration_fail"),
            ("fail_fast", "continue"),
            "A-111",
        )
        concurrency = self.count(
            spec.get("concurrency", 1), _member(path, "concurrency"), "concurrency"
        )
        if items is ABSENT or name is None or policy is None or concurrency is None:
            return None
        return ForEach(items, name, steps, policy, concurrency)

    def construct_parallel(self, spec: dict[str, Any], path: str, step_path: str) -> Body | None:
        """``wf.parallel: { branches: { name: [steps] }, on_branch_fail }``."""
        branches = self.mapping(
            self.required(spec, "branches", path, "wf.parallel"),
            _member(path, "branches"),
            "branches",
        )
        built: list[tuple[str, tuple[Step, ...]]] = []
        for name, steps in (branches or {}).items():
            here = _member(_member(path, "branches"), str(name))
            if self.name(name, here, "a branch name") is not None:
                built.append((str(name), self.steps(steps, here, f"{step_path}.{name}")))
        policy = self.choice(
            spec.get("on_branch_fail", "fail_fast"),
            _member(path, "on_branch_fail"),
            ("fail_fast", "continue"),
            "A-111",
        )
        if branches is None or policy is None:
            return None
        return Parallel(tuple(built), policy)

    def construct_call(self, spec: dict[str, Any], path: str, step_path: str) -> Body | None:
        """``wf.call: { workflow, inputs }``."""
        workflow = self.required(spec, "workflow", path, "wf.call")
        inputs = spec.get("inputs", {})
        if not isinstance(inputs, dict):
            self.fail("document.shape", _member(path, "inputs"), "inputs is a mapping")
            return None
        self.templates(inputs, _member(path, "inputs"))
        if not isinstance(workflow, str):
            if workflow is not ABSENT:
                self.fail("document.shape", _member(path, "workflow"), "workflow is a string")
            return None
        return Call(workflow, inputs)

    def construct_stop(self, spec: dict[str, Any], path: str, step_path: str) -> Body | None:
        """``wf.stop: { reason, result }``."""
        reason = self.expression(self.required(spec, "reason", path, "wf.stop"), path)
        result = spec.get("result", ABSENT)
        if result is not ABSENT:
            self.templates(result, _member(path, "result"))
            if not isinstance(result, dict) and not _one_marker(result):
                # a stop result is an object, as outputs are (WF-PART-1 "each entry",
                # WF-CATCH-6 "an object result contract"); a marker's value is checked
                # when the run evaluates it.
                self.fail(
                    "document.shape",
                    _member(path, "result"),
                    "a wf.stop result is a mapping of names to values, or one {{ }} marker "
                    f"whose value is an object, not {_kind(result)}",
                    "A-177",
                )
        return None if reason is ABSENT else Stop(reason, result)

    def construct_fail(self, spec: dict[str, Any], path: str, step_path: str) -> Body | None:
        """``wf.fail: { code, reason }``; the code is an exact code (A-105)."""
        code = self.required(spec, "code", path, "wf.fail")
        reason = self.expression(spec.get("reason", ABSENT), _member(path, "reason"))
        if code is ABSENT:
            return None
        try:
            pattern = code_pattern(code)
        except PatternError as exc:
            self.fail("document.code", _member(path, "code"), exc.message, "A-105")
            return None
        if pattern.kind != "exact":
            self.fail("document.code", _member(path, "code"), f"{code!r} is a pattern, not a code")
            return None
        return Fail(str(code), reason)

    def construct_repeat(self, spec: dict[str, Any], path: str, step_path: str) -> Body | None:
        """``wf.repeat: { steps, until, delay, max_iterations }``."""
        until = self.expression(self.required(spec, "until", path, "wf.repeat"), path)
        steps = self.steps(spec.get("steps", []), _member(path, "steps"), step_path)
        delay = self.duration(spec["delay"], _member(path, "delay")) if "delay" in spec else None
        most = (
            self.count(spec["max_iterations"], _member(path, "max_iterations"), "max_iterations")
            if "max_iterations" in spec
            else None
        )
        return None if until is ABSENT else Repeat(steps, until, delay, most)

    def construct_wait(self, spec: dict[str, Any], path: str, step_path: str) -> Body | None:
        """``wf.wait: { for: duration }``."""
        value = self.required(spec, "for", path, "wf.wait")
        duration = None if value is ABSENT else self.duration(value, _member(path, "for"))
        return None if duration is None else Wait(duration)

    def construct_wait_for(self, spec: dict[str, Any], path: str, step_path: str) -> Body | None:
        """``wf.wait_for: { event: connector.trigger, match, timeout }``."""
        event = self.required(spec, "event", path, "wf.wait_for")
        match = spec.get("match", {})
        self.templates(match, _member(path, "match"))
        timeout = (
            self.duration(spec["timeout"], _member(path, "timeout")) if "timeout" in spec else None
        )
        if not (isinstance(event, str) and ACTION.fullmatch(event)):
            if event is not ABSENT:
                self.fail("document.value", _member(path, "event"), "event is connector.trigger")
            return None
        return WaitFor(event, match, timeout)

    def construct_choose(self, spec: dict[str, Any], path: str, step_path: str) -> Body | None:
        """``wf.choose: { arms: [ { when, steps } ], else: [steps] }``."""
        arms_value = self.required(spec, "arms", path, "wf.choose")
        arms: list[Arm] = []
        if isinstance(arms_value, list) and arms_value:
            for k, arm in enumerate(arms_value):
                here = _member(_member(path, "arms"), k)
                body = self.mapping(arm, here, "an arm")
                if body is None:
                    continue
                self.keys(body, here, ("when", "steps"))
                when = self.expression(self.required(body, "when", here, "an arm"), here)
                steps = self.steps(
                    body.get("steps", []), _member(here, "steps"), f"{step_path}.{k}"
                )
                arms.append(Arm(when, steps))
        elif arms_value is not ABSENT:
            self.fail("document.shape", _member(path, "arms"), "arms is a nonempty sequence")
        otherwise = (
            self.steps(spec["else"], _member(path, "else"), f"{step_path}.else")
            if "else" in spec
            else None
        )
        return Choose(tuple(arms), otherwise) if arms else None

    def construct_route(self, spec: dict[str, Any], path: str, step_path: str) -> Body | None:
        """``wf.route: { subject, cases: { value: [steps] }, else: [steps] }``."""
        subject = self.expression(self.required(spec, "subject", path, "wf.route"), path)
        cases_value = self.mapping(
            self.required(spec, "cases", path, "wf.route"), _member(path, "cases"), "cases"
        )
        cases = tuple(
            (
                value,
                self.steps(
                    steps,
                    _member(_member(path, "cases"), case_name(value)),
                    f"{step_path}.{case_name(value)}",
                ),
            )
            for value, steps in (cases_value or {}).items()
        )
        otherwise = (
            self.steps(spec["else"], _member(path, "else"), f"{step_path}.else")
            if "else" in spec
            else None
        )
        if subject is ABSENT or cases_value is None:
            return None
        return Route(subject, cases, otherwise)

    def construct_render(self, spec: dict[str, Any], path: str, step_path: str) -> Body | None:
        """``wf.render: { template | file, with }``: exactly one of template and file."""
        text, file = spec.get("template"), spec.get("file")
        if (text is None) == (file is None):
            self.fail("document.missing", path, "wf.render needs exactly one of template and file")
            return None
        for value, key in ((text, "template"), (file, "file")):
            if value is not None and not isinstance(value, str):
                self.fail("document.shape", _member(path, key), f"{key} is a string")
                return None
        projection = spec.get("with", {})
        if not isinstance(projection, dict):
            self.fail("document.shape", _member(path, "with"), "with is a mapping")
            return None
        self.templates(projection, _member(path, "with"))
        return Render(text, file, projection)

    # -- modifiers ---------------------------------------------------------------------

    def modifiers(self, spec: dict[str, Any], path: str, step_path: str) -> Modifiers:
        """``when``, ``retry``, ``on_fail``, ``on_unknown``, ``catch``, ``timeout``."""
        when = self.expression(spec.get("when", ABSENT), _member(path, "when"))
        retry = self.retry(spec["retry"], _member(path, "retry")) if "retry" in spec else None
        on_fail = (
            self.choice(spec["on_fail"], _member(path, "on_fail"), ("abort", "continue"), "A-106")
            if "on_fail" in spec
            else None
        )
        on_unknown = (
            self.choice(spec["on_unknown"], _member(path, "on_unknown"), ("abort", "fail"), "A-106")
            if "on_unknown" in spec
            else None
        )
        catch = (
            self.catch(spec["catch"], _member(path, "catch"), step_path) if "catch" in spec else ()
        )
        timeout = (
            self.duration(spec["timeout"], _member(path, "timeout")) if "timeout" in spec else None
        )
        return Modifiers(when, retry, on_fail, on_unknown, catch, timeout)

    def retry(self, value: JSON, path: str) -> Retry | None:
        """``retry: { policy, initial, max, attempts, honor_retry_after }`` (A-110)."""
        spec = self.mapping(value, path, "retry")
        if spec is None:
            return None
        self.keys(spec, path, ("policy", "initial", "max", "attempts", "honor_retry_after"))
        policy = self.choice(
            spec.get("policy", "none"),
            _member(path, "policy"),
            ("none", "fixed", "exponential"),
            "A-110",
        )
        initial = (
            self.duration(spec["initial"], _member(path, "initial")) if "initial" in spec else None
        )
        most = self.duration(spec["max"], _member(path, "max")) if "max" in spec else None
        attempts = self.count(spec.get("attempts", 1), _member(path, "attempts"), "attempts")
        honor = spec.get("honor_retry_after", False)
        if not isinstance(honor, bool):
            self.fail("document.value", _member(path, "honor_retry_after"), "a boolean")
            honor = False
        if policy is None or attempts is None:
            return None
        return Retry(policy, initial, most, attempts, honor, path)

    def catch(self, value: JSON, path: str, step_path: str) -> tuple[Handler, ...]:
        """``catch: { pattern: { steps, result } }``."""
        spec = self.mapping(value, path, "catch")
        handlers: list[Handler] = []
        for key, handler in (spec or {}).items():
            here = _member(path, str(key))
            try:
                pattern = code_pattern(key)
            except PatternError as exc:
                self.fail("document.code", here, exc.message, "A-105")
                continue
            body = self.mapping(handler, here, "a handler")
            if body is None:
                continue
            self.keys(body, here, ("steps", "result"))
            if "steps" not in body:
                self.fail("document.missing", here, "a handler contains required steps", "A-106")
            steps = self.steps(
                body.get("steps", []), _member(here, "steps"), f"{step_path}.(catch)"
            )
            result = body.get("result", ABSENT)
            if result is not ABSENT:
                self.templates(result, _member(here, "result"))
            handlers.append(Handler(pattern, steps, result, here))
        return tuple(handlers)


def _one_marker(value: JSON) -> bool:
    """Whether ``value`` is a string holding one ``{{ }}`` marker and nothing else (A-101).

    A marker that does not parse counts: ``templates`` has reported it.
    """
    if not isinstance(value, str) or "{{" not in value:
        return False
    try:
        return template(value).whole is not None
    except ExprError:
        return True


def _kind(value: JSON) -> str:
    if value is None:
        return "null"
    kinds = {dict: "a mapping", list: "a sequence", str: "a string", bool: "a boolean"}
    return kinds.get(type(value), "a number" if isinstance(value, int | float) else "a value")


def load(text: str | bytes) -> tuple[Workfile | StateWorkfile | None, list[Diagnostic]]:
    """The Workfile in YAML ``text`` and the problems found reading it."""
    loader = Loader()
    workfile = loader.load_text(text)
    return workfile, loader.problems
