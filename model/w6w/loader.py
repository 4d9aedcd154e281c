"""Load a w6w workflow document from JSON, reporting every problem at once.

The loader checks what one field can tell on its own (type, enumeration,
RetryPolicy shape, dotted step ids) and builds the model of ``document.py``
from whatever is usable, so that graph-level checks (``properties/w6w``) run
over the same document and every problem is reported in one pass.  A field
of the wrong type is reported and read as absent.

Paths are JSONPaths into the document as written (``$.steps[1].retry``).
Unknown members are ignored, never reported: the RFC's documents grow by
additive amendments, and "a host that does not understand them ignores them"
(W6W-PRES-1, W6W-EDGE-13).  Presentation members (``notes``, ``position``,
``settings``) are carried without any check (W6W-PRES-1).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from enum import StrEnum
from typing import Any, TypeVar

import attrs

from wforacle.model.diagnostics import Diagnostic, Gate, error, json_path, warning
from wforacle.model.w6w.document import (
    CONTROL_APP,
    JSON,
    Backoff,
    Edge,
    FanOut,
    OnError,
    RetryPolicy,
    RunOnError,
    Settings,
    Step,
    SubBlock,
    Uses,
    When,
    Workflow,
    WorkflowVariable,
)

Path = tuple[str | int, ...]
E = TypeVar("E", bound=StrEnum)

KEBAB_CASE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
VARIABLE_TYPES = ("string", "number", "boolean", "object", "array")


def is_number(value: JSON) -> bool:
    """A JSON number (a Python bool is not one)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_integer(value: JSON) -> bool:
    """A JSON number with no fractional part: ``3`` and ``3.0`` alike (assumption A-03)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value) and value.is_integer()


def _type_name(value: JSON) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


class _Loader:
    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []

    # -- reporting ---------------------------------------------------------

    def error(self, code: str, path: Path, message: str, clause: str, gate: Gate) -> None:
        self.diagnostics.append(error(code, json_path(path), message, clause, gate))

    def warn(self, code: str, path: Path, message: str, clause: str) -> None:
        self.diagnostics.append(warning(code, json_path(path), message, clause))

    def wrong_type(self, path: Path, expected: str, value: JSON, clause: str) -> None:
        self.error(
            "wrong_type",
            path,
            f"expected {expected}, found {_type_name(value)}",
            clause,
            Gate.SAVE,
        )

    # -- field readers -----------------------------------------------------

    def string(
        self, obj: dict[str, JSON], name: str, path: Path, clause: str, *, required: bool = False
    ) -> str | None:
        """A string member; absent (or null when optional) reads as None."""
        if name not in obj or (obj[name] is None and not required):
            if required:
                self.error("missing_field", (*path, name), f"{name} is required", clause, Gate.RUN)
            return None
        value = obj[name]
        if not isinstance(value, str):
            self.wrong_type((*path, name), "a string", value, clause)
            return None
        return value

    def enum(
        self,
        obj: dict[str, JSON],
        name: str,
        path: Path,
        kind: type[E],
        default: E,
        clause: str,
        gate: Gate = Gate.RUN,
    ) -> E:
        """An enumerated string member; a value outside the enumeration is reported."""
        if name not in obj:
            return default
        value = obj[name]
        allowed = [member.value for member in kind]
        if isinstance(value, str) and value in allowed:
            return kind(value)
        self.error(
            f"invalid_{_snake(name)}",
            (*path, name),
            f"{name} must be one of {', '.join(map(repr, allowed))}; found {value!r}",
            clause,
            gate,
        )
        return default

    def array(self, obj: dict[str, JSON], name: str, path: Path, clause: str) -> list[JSON]:
        """An array member; absent or null reads as empty."""
        value = obj.get(name)
        if value is None:
            return []
        if not isinstance(value, list):
            self.wrong_type((*path, name), "an array", value, clause)
            return []
        return value

    def objects(
        self,
        items: list[JSON],
        path: Path,
        clause: str,
        build: Callable[[dict[str, JSON], Path], object],
    ) -> list[object]:
        out = []
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                self.wrong_type((*path, index), "an object", item, clause)
                continue
            built = build(item, (*path, index))
            if built is not None:
                out.append(built)
        return out

    # -- shapes ------------------------------------------------------------

    def workflow(self, doc: JSON) -> Workflow | None:
        if not isinstance(doc, dict):
            self.wrong_type((), "a workflow object", doc, "W6W-FIELD-1")
            return None
        root: Path = ()
        manifest = self.string(doc, "manifestVersion", root, "W6W-FIELD-1", required=True)
        if manifest is not None and manifest != "2":
            # W6W-FIELD-1: "Core spec version. "2" for the workflow model."
            self.error(
                "unsupported_manifest_version",
                ("manifestVersion",),
                f'manifestVersion must be "2" for a workflow; found {manifest!r}',
                "W6W-FIELD-1",
                Gate.RUN,
            )
        workflow_id = self.string(doc, "id", root, "W6W-FIELD-26", required=True)
        name = self.string(doc, "name", root, "W6W-FIELD-27", required=True)
        if name is not None and not KEBAB_CASE.fullmatch(name):
            # W6W-FIELD-3: "Lowercase, kebab-case." — advisory, and never
            # enforced unique (W6W-KEY-8).
            self.warn(
                "name_not_kebab_case",
                ("name",),
                f"name {name!r} is not lowercase kebab-case",
                "W6W-FIELD-3",
            )
        key = self.string(doc, "key", root, "W6W-KEY-1")
        display_name = self.string(doc, "displayName", root, "W6W-FIELD-1")
        description = self.string(doc, "description", root, "W6W-FIELD-1")
        trigger = doc.get("trigger")
        if trigger is not None and not isinstance(trigger, dict):
            self.wrong_type(("trigger",), "an object", trigger, "W6W-FIELD-1")
            trigger = None
        variables = self.objects(
            self.array(doc, "variables", root, "W6W-FIELD-16"),
            ("variables",),
            "W6W-FIELD-16",
            self.variable,
        )
        if "steps" not in doc:
            self.error("missing_field", ("steps",), "steps is required", "W6W-FIELD-4", Gate.RUN)
        step_items = self.array(doc, "steps", root, "W6W-FIELD-4")
        if "steps" in doc and isinstance(doc["steps"], list) and not step_items:
            # W6W-FIELD-4: "The graph nodes. At least one."
            self.error(
                "no_steps",
                ("steps",),
                "a workflow needs at least one step",
                "W6W-FIELD-4",
                Gate.RUN,
            )
        steps = self.objects(step_items, ("steps",), "W6W-FIELD-7", self.step)
        edges = self.objects(
            self.array(doc, "edges", root, "W6W-FIELD-5"), ("edges",), "W6W-FIELD-15", self.edge
        )
        retry = self.retry(doc, root)
        on_error = self.enum(doc, "onError", root, RunOnError, RunOnError.FAIL, "W6W-RUNERR-4")
        reroute = doc.get("reroute")
        if reroute is not None and not isinstance(reroute, dict):
            self.wrong_type(("reroute",), "an object", reroute, "W6W-RUNERR-3")
            reroute = None
        return Workflow(
            manifest_version=manifest,
            id=workflow_id,
            name=name,
            key=key,
            display_name=display_name,
            description=description,
            trigger=trigger,
            variables=tuple(v for v in variables if isinstance(v, WorkflowVariable)),
            steps=tuple(s for s in steps if isinstance(s, Step)),
            edges=tuple(e for e in edges if isinstance(e, Edge)),
            settings=Settings(doc.get("settings")),
            retry=retry,
            on_error=on_error,
            reroute=reroute,
        )

    def step(self, obj: dict[str, JSON], path: Path) -> Step | None:
        step_id = self.string(obj, "id", path, "W6W-FIELD-7", required=True)
        if step_id is None:
            return None
        if step_id == "":
            # Assumption A-05: an empty id can no more be addressed than a
            # dotted one (steps..output).
            self.error(
                "empty_step_id",
                (*path, "id"),
                "a step id must not be empty",
                "W6W-FIELD-9",
                Gate.SAVE,
            )
        elif "." in step_id:
            # W6W-FIELD-9: "MUST NOT contain ." / W6W-FIELD-8: "Hosts refuse
            # a dotted id when the workflow is saved."
            self.error(
                "dotted_step_id",
                (*path, "id"),
                f"step id {step_id!r} contains '.', so steps.{step_id}.output could never "
                "be addressed",
                "W6W-FIELD-9",
                Gate.SAVE,
            )
        uses = self.uses(obj, path)
        with_ = obj.get("with")
        if with_ is None:
            with_ = {}
        elif not isinstance(with_, dict):
            self.wrong_type((*path, "with"), "an object", with_, "W6W-FIELD-11")
            with_ = {}
        step = Step(
            id=step_id,
            uses=uses,
            with_=with_,
            retry=self.retry(obj, path),
            on_error=self.enum(obj, "onError", path, OnError, OnError.FAIL, "W6W-FIELD-13"),
            fan_out=self.enum(obj, "fanOut", path, FanOut, FanOut.SEQUENTIAL, "W6W-FAN-3"),
            ports_in=self.port(obj, path, "in"),
            ports_out=self.port(obj, path, "out"),
            notes=obj.get("notes"),
            position=obj.get("position"),
        )
        if uses is not None and uses.app == CONTROL_APP:
            step = _with_blocks(step, self.sub_blocks(step, with_, path))
        return step

    def uses(self, obj: dict[str, JSON], path: Path) -> Uses | None:
        value = obj.get("uses")
        if value is None:
            return None  # a draft; runnability is checked in properties/w6w
        if not isinstance(value, dict):
            self.wrong_type((*path, "uses"), "an object", value, "W6W-FIELD-10")
            return None
        here = (*path, "uses")
        return Uses(
            app=self.string(value, "app", here, "W6W-FIELD-10"),
            action=self.string(value, "action", here, "W6W-FIELD-10"),
            connection=self.string(value, "connection", here, "W6W-FIELD-10"),
        )

    def port(self, obj: dict[str, JSON], path: Path, side: str) -> int | None:
        """``ports.in`` or ``ports.out`` as a bound; None when absent (or "many" for out)."""
        ports = obj.get("ports")
        if ports is None:
            return None
        # W6W-FAN-12: port cardinality is "enforced by editor and import
        # only", so a malformed ports object is a warning, never an error.
        if not isinstance(ports, dict):
            if side == "in":  # reported once
                self.warn(
                    "invalid_ports", (*path, "ports"), "ports must be an object", "W6W-FAN-12"
                )
            return None
        value = ports.get(side)
        if value is None or (side == "out" and value == "many"):
            return None
        if not is_integer(value) or value < 1:
            allowed = "an integer >= 1" + (' or "many"' if side == "out" else "")
            self.warn(
                "invalid_ports",
                (*path, "ports", side),
                f"ports.{side} must be {allowed}; found {value!r}",
                "W6W-FAN-12",
            )
            return None
        return int(value)

    def sub_blocks(self, step: Step, with_: dict[str, JSON], path: Path) -> list[SubBlock]:
        """Sub-block steps of a canonical control (assumption A-06)."""
        action = step.uses.action if step.uses else None
        here = (*path, "with")
        lists: list[tuple[Path, JSON]] = []
        if action == "foreach" and "body" in with_:
            lists.append((("body",), with_["body"]))
        elif action == "if":
            lists += [((n,), with_[n]) for n in ("then", "else") if n in with_]
        elif action == "parallel" and isinstance(with_.get("branches"), list):
            lists += [(("branches", i), b) for i, b in enumerate(with_["branches"])]
        blocks = []
        for where, items in lists:
            block_path = (*here, *where)
            if not isinstance(items, list):
                self.wrong_type(block_path, "an array of steps", items, "W6W-EDGE-10")
                continue
            steps = self.objects(items, block_path, "W6W-EDGE-10", self.step)
            blocks.append(SubBlock(where, tuple(s for s in steps if isinstance(s, Step))))
        return blocks

    def retry(self, obj: dict[str, JSON], path: Path) -> RetryPolicy | None:
        """A RetryPolicy save site (W6W-RETRY-4): Step.retry or Workflow.retry."""
        value = obj.get("retry")
        if value is None:
            # W6W-RETRY-8: "Accept an absent or null retry as no retry"; W6W-FIELD-12
            # "Defaults to no retry."
            return None
        here = (*path, "retry")
        if not isinstance(value, dict):
            self.error(
                "invalid_retry",
                here,
                f"retry must be a RetryPolicy object or null; found {_type_name(value)}",
                "W6W-RETRY-7",
                Gate.SAVE,
            )
            return None
        ok = True
        max_attempts: Any = value.get("maxAttempts")
        # W6W-RETRY-1: "maxAttempts is an integer >= 1. It carries no upper bound"
        if not is_integer(max_attempts) or max_attempts < 1:
            found = "absent" if "maxAttempts" not in value else repr(max_attempts)
            self.error(
                "invalid_retry_max_attempts",
                (*here, "maxAttempts"),
                f"maxAttempts must be an integer >= 1; found {found}",
                "W6W-RETRY-1",
                Gate.SAVE,
            )
            ok = False
        delay = value.get("delayMs", 0)
        # W6W-RETRY-2: "delayMs, when present, is a finite number >= 0"
        # (a present null is not a number: assumption A-04).
        if not is_number(delay) or not math.isfinite(delay) or delay < 0:
            self.error(
                "invalid_retry_delay",
                (*here, "delayMs"),
                f"delayMs must be a finite number >= 0; found {delay!r}",
                "W6W-RETRY-2",
                Gate.SAVE,
            )
            ok = False
        backoff = value.get("backoff", Backoff.FIXED.value)
        # W6W-RETRY-3: "backoff, when present, is "fixed" or "exponential""
        if backoff not in (Backoff.FIXED.value, Backoff.EXPONENTIAL.value):
            self.error(
                "invalid_retry_backoff",
                (*here, "backoff"),
                f'backoff must be "fixed" or "exponential"; found {backoff!r}',
                "W6W-RETRY-3",
                Gate.SAVE,
            )
            ok = False
        if not ok:
            return None
        return RetryPolicy(int(max_attempts), Backoff(backoff), delay)

    def edge(self, obj: dict[str, JSON], path: Path) -> Edge | None:
        source, target = obj.get("from"), obj.get("to")
        if type(source) is str and type(target) is str and "when" not in obj:
            return Edge(source, target)  # the common, well-formed case, checked cheaply
        source = self.string(obj, "from", path, "W6W-FIELD-15", required=True)
        target = self.string(obj, "to", path, "W6W-FIELD-15", required=True)
        # W6W-EDGE-3: "A host MUST reject a when value outside the two-member
        # enum at load time".
        when = self.enum(obj, "when", path, When, When.SUCCESS, "W6W-EDGE-3")
        if source is None or target is None:
            return None
        return Edge(source, target, when)

    def variable(self, obj: dict[str, JSON], path: Path) -> WorkflowVariable | None:
        key = self.string(obj, "key", path, "W6W-FIELD-16", required=True)
        var_type = obj.get("type")
        if var_type is not None and var_type not in VARIABLE_TYPES:
            # W6W-FIELD-17: the type is "Advisory": a warning, not a gate.
            self.warn(
                "unknown_variable_type",
                (*path, "type"),
                f"type must be one of {', '.join(VARIABLE_TYPES)}; found {var_type!r}",
                "W6W-FIELD-17",
            )
            var_type = None
        required = obj.get("required", False)
        if not isinstance(required, bool):
            self.wrong_type((*path, "required"), "a boolean", required, "W6W-FIELD-18")
            required = False
        if key is None:
            return None
        return WorkflowVariable(
            key=key,
            type=var_type,
            required=required,
            has_default="default" in obj,
            default=obj.get("default"),
        )


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _with_blocks(step: Step, blocks: list[SubBlock]) -> Step:
    return attrs.evolve(step, blocks=tuple(blocks))


def load_workflow(document: JSON) -> tuple[Workflow | None, list[Diagnostic]]:
    """Build a Workflow from a parsed JSON value, with every field-level problem.

    Returns ``(None, diagnostics)`` only when the value is not an object at
    all; otherwise a Workflow built from the usable parts.
    """
    loader = _Loader()
    workflow = loader.workflow(document)
    return workflow, loader.diagnostics
