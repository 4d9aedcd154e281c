"""Connector manifests: what each action does, and how its error codes are classified.

The chapter reads manifests (Error Classification, Effects and Dry Runs,
Core Ambiguity Disposition) but their format is in sections not included;
this is the smallest manifest those rules need (assumption A-116)::

    connector: crm
    actions:
      create_account:
        effects: write            # read | write
        dry_run: delegate         # optional: a write that runs in a dry run
        idempotency: keyed        # none (default) | inherent | keyed
        output: { type: object }  # optional declared output (A-109 types)
        errors:                   # exact codes, dotted prefixes, HTTP-status patterns
          crm.duplicate: fatal    # retryable | fatal | unknown
          "crm.transient.*": retryable
          "http.5xx": retryable
    triggers:
      approval: { kind: external, correlate_on: [request_id] }   # external | poll | schedule

Reserved codes (``timeout``, ``invalid_output``) and the Standard's own code
namespaces may not be classified by a connector (Error Classification: an
executor MUST NOT "apply a connector-supplied reclassification to such a
reserved code").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from wforacle.model.diagnostics import Diagnostic, Gate, error
from wforacle.model.workfile.codes import (
    RESERVED_CODES,
    CodePattern,
    PatternError,
    code_pattern,
    select,
)
from wforacle.model.workfile.yamlsafe import YamlProblem, read

JSON = Any
CLASSIFICATIONS = ("retryable", "fatal", "unknown")
# Code namespaces of the Standard's own faults and failures.
STANDARD_NAMESPACES = ("flow", "document", "invocation", "agent", "expression", "input")
# The Stateful Profile names the three: "whose resolved manifest kind is external or
# poll; schedule triggers are not state subscriptions" (WFS-TRANS-17, A-150).
TRIGGER_KINDS = ("external", "poll", "schedule")
OUTPUT_TYPES = ("string", "integer", "number", "boolean", "object", "array", "json", "null")


@attrs.frozen
class ActionSpec:
    """One action of a connector."""

    connector: str
    name: str
    effects: str  # "read" | "write"
    dry_run_delegate: bool = False
    idempotency: str = "none"
    output: str | None = None  # the declared output type; None: no output contract
    errors: tuple[tuple[CodePattern, str], ...] = ()

    def classify(self, code: str) -> str | None:
        """The classification the manifest gives ``code`` (precedence of Code-Pattern Matching).

        None when no entry covers the code: its classification is defined
        under Errors and Classification, which the excerpt does not include.
        """
        chosen = select(code, [pattern for pattern, _ in self.errors])
        return None if chosen is None else dict(self.errors)[chosen]

    @property
    def finite_codes(self) -> frozenset[str] | None:
        """The codes the action can fail with, when the manifest lists only exact codes."""
        if any(pattern.kind != "exact" for pattern, _ in self.errors):
            return None
        return frozenset(pattern.text for pattern, _ in self.errors) | RESERVED_CODES


@attrs.frozen
class TriggerSpec:
    """An event source of a connector (the Stateful Profile and ``wf.wait_for`` read it)."""

    connector: str
    name: str
    kind: str  # "external" | "poll" | "schedule" (a schedule trigger is no subscription: A-150)
    correlate_on: tuple[str, ...] = ()


@attrs.frozen
class Manifest:
    """A connector's actions and triggers."""

    connector: str
    actions: dict[str, ActionSpec] = attrs.field(factory=dict)
    triggers: dict[str, TriggerSpec] = attrs.field(factory=dict)


@attrs.frozen
class Manifests:
    """The manifests a document is validated against (``--manifests DIR``)."""

    connectors: dict[str, Manifest] = attrs.field(factory=dict)

    def action(self, name: str) -> ActionSpec | None:
        """``connector.action``'s spec, or None."""
        connector, _, action = name.partition(".")
        manifest = self.connectors.get(connector)
        return None if manifest is None else manifest.actions.get(action)

    def trigger(self, name: str) -> TriggerSpec | None:
        """``connector.trigger``'s spec, or None."""
        connector, _, trigger = name.partition(".")
        manifest = self.connectors.get(connector)
        return None if manifest is None else manifest.triggers.get(trigger)

    def knows(self, connector: str) -> bool:
        """Whether a manifest for ``connector`` was supplied."""
        return connector in self.connectors


class _Reader:
    def __init__(self, where: str) -> None:
        self.where = where
        self.problems: list[Diagnostic] = []

    def fail(self, code: str, path: str, message: str) -> None:
        self.problems.append(error(code, f"{self.where}:{path}", message, "A-116", Gate.SAVE))

    def keys(self, value: dict[str, Any], path: str, allowed: tuple[str, ...]) -> None:
        for key in value:
            if not (isinstance(key, str) and (key in allowed or key.startswith("x-"))):
                self.fail("manifest.unknown_key", f"{path}.{key}", f"{key!r} is not a key here")

    def manifest(self, data: JSON) -> Manifest | None:
        if not isinstance(data, dict) or not isinstance(data.get("connector"), str):
            self.fail("manifest.shape", "$", "a manifest is a mapping with a connector name")
            return None
        self.keys(data, "$", ("connector", "version", "description", "actions", "triggers"))
        connector = data["connector"]
        actions = {
            name: spec
            for name, raw in _mapping(data.get("actions", {})).items()
            if (spec := self.action(connector, str(name), raw)) is not None
        }
        triggers = {
            name: trigger
            for name, raw in _mapping(data.get("triggers", {})).items()
            if (trigger := self.trigger(connector, str(name), raw)) is not None
        }
        return Manifest(connector, actions, triggers)

    def action(self, connector: str, name: str, raw: JSON) -> ActionSpec | None:
        path = f"$.actions.{name}"
        if not isinstance(raw, dict):
            self.fail("manifest.shape", path, "an action is a mapping")
            return None
        self.keys(
            raw, path, ("effects", "dry_run", "idempotency", "output", "errors", "description")
        )
        effects = raw.get("effects")
        if effects not in ("read", "write"):
            self.fail("manifest.value", f"{path}.effects", "effects is read or write")
            return None
        dry_run = raw.get("dry_run")
        if dry_run not in (None, "delegate"):
            self.fail("manifest.value", f"{path}.dry_run", "dry_run is delegate when present")
        idempotency = raw.get("idempotency", "none")
        if idempotency not in ("none", "inherent", "keyed"):
            self.fail(
                "manifest.value", f"{path}.idempotency", "idempotency is none, inherent or keyed"
            )
            idempotency = "none"
        output = raw.get("output")
        output_type = None
        if output is not None:
            output_type = output.get("type") if isinstance(output, dict) else None
            if output_type not in OUTPUT_TYPES:
                self.fail(
                    "manifest.value",
                    f"{path}.output",
                    f"output is {{type: {'|'.join(OUTPUT_TYPES)}}}",
                )
                output_type = None
        return ActionSpec(
            connector,
            name,
            effects,
            dry_run == "delegate",
            idempotency,
            output_type,
            self.errors(raw.get("errors", {}), f"{path}.errors"),
        )

    def errors(self, raw: JSON, path: str) -> tuple[tuple[CodePattern, str], ...]:
        found: list[tuple[CodePattern, str]] = []
        for key, classification in _mapping(raw).items():
            here = f"{path}[{key!r}]"
            try:
                pattern = code_pattern(key)
            except PatternError as exc:
                self.fail("manifest.code", here, exc.message)
                continue
            if classification not in CLASSIFICATIONS:
                self.fail(
                    "manifest.value",
                    here,
                    f"a classification is one of {', '.join(CLASSIFICATIONS)}",
                )
                continue
            if pattern.kind == "exact" and pattern.text in RESERVED_CODES:
                self.fail(
                    "manifest.reserved",
                    here,
                    f"{key!r} is reserved: a connector may not classify it",
                )
                continue
            if pattern.stem.split(".")[0] in STANDARD_NAMESPACES and pattern.kind != "http":
                self.fail(
                    "manifest.reserved",
                    here,
                    f"{key!r} is in a namespace of the Standard's own codes "
                    f"({', '.join(STANDARD_NAMESPACES)})",
                )
                continue
            found.append((pattern, str(classification)))
        return tuple(found)

    def trigger(self, connector: str, name: str, raw: JSON) -> TriggerSpec | None:
        path = f"$.triggers.{name}"
        if not isinstance(raw, dict):
            self.fail("manifest.shape", path, "a trigger is a mapping")
            return None
        self.keys(raw, path, ("kind", "correlate_on", "description"))
        kind = raw.get("kind")
        if kind not in TRIGGER_KINDS:
            self.fail("manifest.value", f"{path}.kind", "kind is external, poll or schedule")
            return None
        fields = raw.get("correlate_on", [])
        if not (isinstance(fields, list) and all(isinstance(f, str) for f in fields)):
            self.fail("manifest.value", f"{path}.correlate_on", "correlate_on is a list of names")
            fields = []
        return TriggerSpec(connector, name, str(kind), tuple(fields))


def _mapping(value: JSON) -> dict[Any, Any]:
    return value if isinstance(value, dict) else {}


def load_manifest(
    text: str | bytes, where: str = "manifest"
) -> tuple[Manifest | None, list[Diagnostic]]:
    """One manifest from YAML text, and the problems found."""
    reader = _Reader(where)
    try:
        data = read(text)
    except YamlProblem as problem:
        reader.fail(problem.code, "$", str(problem))
        return None, reader.problems
    return reader.manifest(data), reader.problems


def load_manifests(directory: Path) -> tuple[Manifests, list[Diagnostic]]:
    """Every ``*.yaml``/``*.yml`` manifest in ``directory`` (sorted by name)."""
    connectors: dict[str, Manifest] = {}
    problems: list[Diagnostic] = []
    files = sorted(p for p in directory.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
    for file in files:
        manifest, found = load_manifest(file.read_bytes(), file.name)
        problems.extend(found)
        if manifest is not None:
            if manifest.connector in connectors:
                problems.append(
                    error(
                        "manifest.duplicate",
                        f"{file.name}:$.connector",
                        f"a second manifest for connector {manifest.connector!r}",
                        "A-116",
                        Gate.SAVE,
                    )
                )
                continue
            connectors[manifest.connector] = manifest
    return Manifests(connectors), problems
