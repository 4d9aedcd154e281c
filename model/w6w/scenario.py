"""Scenarios: everything outside a w6w document that one run depends on.

A scenario is JSON (schema: docs/scenario.schema.json; guide: docs/scenario.md):

    {"runId": "run_1",
     "trigger": {"type": "manual", "event": {...}},
     "variables": {...}, "secrets": {...}, "documents": {...},
     "steps": {"<step id>": {"idempotent": false,
                             "attempts": [{"output": V} | {"error": StepError}, ...]}},
     "reroute": {"output": V} | {"error": StepError},
     "default": {"output": null}}

A step's ``attempts`` are the results of its successive invocations in the
run, whatever caused them: a step retry, a run-level retry that re-runs the
graph (W6W-RUNERR-2), later a resumption.  ``reroute`` is the result of the
run-level reroute target (W6W-RUNERR-3), dispatched at most once.

Defaults (documented, assumption A-40): a step the scenario does not name
succeeds with ``default`` (``{"output": null}`` unless given); an attempt
beyond a step's list repeats the list's last entry, so a failing action keeps
failing; an action is not idempotent unless ``idempotent`` says so.
"""

from __future__ import annotations

from typing import Any

import attrs

from wforacle.model.diagnostics import Diagnostic, Gate, InvalidScenario, error, json_path
from wforacle.model.kernel.lts import Worded

JSON = Any
# W6W-STATE-21: StepError.phase is "resolution" | "auth" | "execute" | "output".
PHASES = ("resolution", "auth", "execute", "output")


# The codes of errors an engine raises itself that the RFC names (W6W-ENV-25: "Fail
# the step when a render part's ref …" with render_ref_unresolved / _not_a_string).
NAMED_CODES = frozenset({"render_ref_unresolved", "render_ref_not_a_string"})


@attrs.frozen
class StepError:
    """A StepError (RFC "StepError"): code, message, phase, retryable."""

    code: str
    message: str
    phase: str = "execute"
    retryable: bool = False

    @classmethod
    def raised(cls, code: str, message: str, phase: str, retryable: bool = False) -> StepError:
        """An error the engine raises itself, not an action's (assumption A-155).

        RFC "StepError": message is a "Human-facing message", so its words
        are the engine's; so is the code, except the codes the RFC names
        (``NAMED_CODES``).  Such text is ``Worded``: any text an engine
        reports matches it, while the phase and retryable are compared.
        """
        named = code if code in NAMED_CODES else Worded(code)
        return cls(named, Worded(message), phase, retryable)

    def to_json(self) -> dict[str, JSON]:
        """The StepError as the RFC shapes it."""
        return {
            "code": self.code,
            "message": self.message,
            "phase": self.phase,
            "retryable": self.retryable,
        }


@attrs.frozen
class Result:
    """One attempt's result: an output, or a StepError, and the host's onExecuted reports.

    ``meta`` holds the raw reports the host makes through onExecuted during
    the attempt, in call order, malformed ones included (W6W-META-3).
    """

    output: JSON = attrs.field(default=None, eq=False)
    error: StepError | None = None
    meta: tuple[JSON, ...] = attrs.field(default=(), eq=False)


@attrs.frozen
class StepScript:
    """What the outside world does for one step."""

    attempts: tuple[Result, ...] = ()
    idempotent: bool = False

    def result(self, invocation: int, default: Result) -> Result:
        """The result of the step's 1-based ``invocation`` in the run."""
        if not self.attempts:
            return default
        return self.attempts[min(invocation, len(self.attempts)) - 1]


UNSCRIPTED = StepScript()  # a step the scenario does not name (frozen: one serves every step)


@attrs.frozen
class Scenario:
    """Everything a run depends on besides the document."""

    run_id: str = "run_1"
    trigger: JSON = attrs.field(factory=lambda: {"type": "manual"}, eq=False)
    variables: dict[str, JSON] = attrs.field(factory=dict, eq=False)
    secrets: dict[str, JSON] = attrs.field(factory=dict, eq=False)
    documents: dict[str, JSON] = attrs.field(factory=dict, eq=False)
    steps: dict[str, StepScript] = attrs.field(factory=dict, eq=False)
    default: Result = Result()
    reroute: Result = Result()
    crashes: frozenset[int] = frozenset()  # checkpoint numbers after which the host crashes
    cancel_after: int | None = None  # checkpoint after which the host's abort signal fires
    # The k-th wait suspension of the run is resumed with resumes[k]'s output (A-55);
    # past the list's end the run stays suspended.
    resumes: tuple[Result, ...] = ()
    # Workflows a @w6w/call step may run: id -> {"document": ..., "scenario": ...}.
    calls: dict[str, JSON] = attrs.field(factory=dict, eq=False)
    max_call_depth: int = 4

    def script(self, step_id: str) -> StepScript:
        """The script of a step (empty: every attempt gets the default)."""
        return self.steps.get(step_id, UNSCRIPTED)

    @classmethod
    def of(cls, value: JSON) -> Scenario:
        """A scenario from JSON, or ``InvalidScenario`` naming its first problem and path.

        ``load_scenario`` reports every problem at once, as diagnostics.
        """
        scenario, problems = load_scenario(value)
        if problems:
            raise InvalidScenario(problems[0].message, problems[0].path)
        return scenario


def _object(
    value: JSON, path: tuple[str | int, ...], problems: list[Diagnostic]
) -> dict[str, JSON]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.append(
            error("wrong_type", json_path(path), "expected an object", "A-40", Gate.RUN)
        )
        return {}
    return value


def _result(value: JSON, path: tuple[str | int, ...], problems: list[Diagnostic]) -> Result:
    result = _outcome(value, path, problems)
    reports = value.get("meta", []) if isinstance(value, dict) else []
    if not isinstance(reports, list):
        problems.append(
            error(
                "wrong_type",
                json_path((*path, "meta")),
                "expected an array of onExecuted reports",
                "A-40",
                Gate.RUN,
            )
        )
        reports = []
    return attrs.evolve(result, meta=tuple(reports))


def _outcome(value: JSON, path: tuple[str | int, ...], problems: list[Diagnostic]) -> Result:
    if isinstance(value, dict) and "error" in value:
        raw = value["error"]
        if not isinstance(raw, dict) or not isinstance(raw.get("code"), str):
            problems.append(
                error(
                    "invalid_step_error",
                    json_path((*path, "error")),
                    "a StepError needs a string code",
                    "A-40",
                    Gate.RUN,
                )
            )
            return Result()
        phase = raw.get("phase", "execute")
        if phase not in PHASES:
            problems.append(
                error(
                    "invalid_step_error",
                    json_path((*path, "error", "phase")),
                    f"phase must be one of {', '.join(PHASES)}",
                    "A-40",
                    Gate.RUN,
                )
            )
            phase = "execute"
        return Result(
            error=StepError(
                raw["code"], str(raw.get("message", "")), phase, raw.get("retryable") is True
            )
        )
    if isinstance(value, dict) and "output" in value:
        return Result(output=value["output"])
    problems.append(
        error(
            "invalid_result",
            json_path(path),
            'a result is {"output": V} or {"error": StepError}',
            "A-40",
            Gate.RUN,
        )
    )
    return Result()


def load_scenario(value: JSON) -> tuple[Scenario, list[Diagnostic]]:
    """Build a Scenario from JSON, with every problem at once (paths into the scenario)."""
    problems: list[Diagnostic] = []
    if not isinstance(value, dict):  # null too (a file holding null): the schema says object
        problems.append(
            error("wrong_type", json_path(()), "a scenario is an object", "A-40", Gate.RUN)
        )
        value = {}
    root: dict[str, JSON] = value
    for member, kind, name in (("runId", str, "a string"), ("trigger", dict, "an object")):
        if member in root and not isinstance(root[member], kind):
            problems.append(
                error("wrong_type", json_path((member,)), f"expected {name}", "A-40", Gate.RUN)
            )
    steps: dict[str, StepScript] = {}
    for step_id, raw in _object(root.get("steps"), ("steps",), problems).items():
        here: tuple[str | int, ...] = ("steps", step_id)
        script = _object(raw, here, problems)
        attempts = script.get("attempts", [])
        if not isinstance(attempts, list):
            problems.append(
                error(
                    "wrong_type",
                    json_path((*here, "attempts")),
                    "expected an array of results",
                    "A-40",
                    Gate.RUN,
                )
            )
            attempts = []
        if not isinstance(script.get("idempotent", False), bool):
            problems.append(
                error(
                    "wrong_type",
                    json_path((*here, "idempotent")),
                    "expected a boolean",
                    "A-40",
                    Gate.RUN,
                )
            )
        steps[step_id] = StepScript(
            tuple(_result(a, (*here, "attempts", i), problems) for i, a in enumerate(attempts)),
            script.get("idempotent") is True,
        )
    default = _result(root["default"], ("default",), problems) if "default" in root else Result()
    reroute = _result(root["reroute"], ("reroute",), problems) if "reroute" in root else Result()
    crashes = root.get("crashAfterCheckpoints", [])
    if not isinstance(crashes, list) or not all(
        isinstance(k, int) and not isinstance(k, bool) and k >= 1 for k in crashes
    ):
        problems.append(
            error(
                "wrong_type",
                json_path(("crashAfterCheckpoints",)),
                "expected an array of checkpoint numbers >= 1",
                "A-40",
                Gate.RUN,
            )
        )
        crashes = []
    cancel_after = root.get("cancelAfterCheckpoint")
    if cancel_after is not None and (
        not isinstance(cancel_after, int) or isinstance(cancel_after, bool) or cancel_after < 1
    ):
        problems.append(
            error(
                "wrong_type",
                json_path(("cancelAfterCheckpoint",)),
                "expected a checkpoint number >= 1",
                "A-40",
                Gate.RUN,
            )
        )
        cancel_after = None
    resumes = root.get("resumes", [])
    if not isinstance(resumes, list):
        problems.append(
            error("wrong_type", json_path(("resumes",)), "expected an array", "A-55", Gate.RUN)
        )
        resumes = []
    calls = _object(root.get("calls"), ("calls",), problems)
    for workflow_id, callee in calls.items():
        if not (isinstance(callee, dict) and isinstance(callee.get("document"), dict)):
            problems.append(
                error(
                    "wrong_type",
                    json_path(("calls", workflow_id)),
                    'expected {"document": <workflow>, "scenario": <scenario>}',
                    "A-56",
                    Gate.RUN,
                )
            )
    depth = root.get("maxCallDepth", 4)
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        problems.append(
            error(
                "wrong_type",
                json_path(("maxCallDepth",)),
                "expected an integer >= 0",
                "A-56",
                Gate.RUN,
            )
        )
        depth = 4
    run_id = root.get("runId", "run_1")
    trigger = root.get("trigger", {"type": "manual"})
    trigger = trigger if isinstance(trigger, dict) else {"type": "manual"}
    return (
        Scenario(
            run_id=run_id if isinstance(run_id, str) else "run_1",
            trigger=trigger,
            variables=_object(root.get("variables"), ("variables",), problems),
            secrets=_object(root.get("secrets"), ("secrets",), problems),
            documents=_object(root.get("documents"), ("documents",), problems),
            steps=steps,
            default=default,
            reroute=reroute,
            crashes=frozenset(crashes),
            cancel_after=cancel_after,
            resumes=tuple(_result(r, ("resumes", i), problems) for i, r in enumerate(resumes)),
            calls={k: v for k, v in calls.items() if isinstance(v, dict)},
            max_call_depth=depth,
        ),
        problems,
    )
