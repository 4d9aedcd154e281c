"""Hypothesis strategies for Workfile Core documents (docs/workfile.md).

``workfiles()`` draws documents that are valid by construction: unique step
ids, references only to bindings visible at the point of use (earlier
value-producing steps of the scope chain, ``inputs``, iteration variables),
constructs nested to a bounded depth.  ``mutants()`` draws a valid document
and breaks it in one known way, returning the document and the diagnostic
code the validator must report — so the validator is tested against
generated documents, valid and invalid, not only hand-written ones.
Documents are JSON data; ``yaml.safe_dump`` writes them.
"""

from __future__ import annotations

import itertools
from typing import Any

import attrs
from hypothesis import strategies as st

from wforacle.properties.strategies.sampled import sampled

JSON = Any
ACTIONS = ("crm.lookup", "crm.create", "mail.send")


@attrs.define
class _Names:
    """Fresh step ids, and what each point of the document may read."""

    counter: itertools.count[int] = attrs.field(factory=itertools.count)

    def fresh(self) -> str:
        return f"s{next(self.counter)}"


def _ref(draw: st.DrawFn, visible: list[str]) -> str:
    """A template reading something visible (or only literal text when nothing is).

    Aims at WF-STEP-10 (a binding is visible to later steps and nested scopes)
    and WF-SUPP-6 (references in every branch, operand and filter argument).
    """
    if not visible or draw(st.integers(0, 4)) == 0:
        return draw(sampled(["plain", "{{ inputs.q }}", "{{ run.dry_run }}"]))
    name = draw(sampled(visible))
    form = draw(st.integers(0, 3))
    if form == 0:
        return f"{{{{ {name} }}}}"
    if form == 1:
        return f"{{{{ {name}.id | default('none') }}}}"
    if form == 2:
        return f"id {{{{ {name}.items[0] }}}}"
    return f"{{{{ {name}.a if {name}.ok else inputs.q }}}}"


def _step_list(draw: st.DrawFn, names: _Names, visible: list[str], depth: int) -> list[JSON]:
    steps: list[JSON] = []
    scope = list(visible)
    for _ in range(draw(st.integers(1 if depth == 0 else 0, 4 if depth == 0 else 2))):
        step_id = names.fresh()
        kind = draw(
            sampled(["action"] * 4 + (["for_each", "parallel", "choose"] if depth < 2 else []))
        )
        declaration: dict[str, JSON]
        if kind == "action":
            declaration = {draw(sampled(ACTIONS)): {"x": _ref(draw, scope)}}
        elif kind == "for_each":
            variable = f"v{step_id}"
            declaration = {
                "wf.for_each": {
                    "items": _ref(draw, scope),
                    "as": variable,
                    "steps": _step_list(draw, names, [*scope, variable], depth + 1),
                    "on_iteration_fail": draw(sampled(["fail_fast", "continue"])),
                }
            }
        elif kind == "parallel":
            declaration = {
                "wf.parallel": {
                    "branches": {
                        branch: _step_list(draw, names, scope, depth + 1)
                        for branch in ("one", "two")
                    }
                }
            }
        else:
            declaration = {
                "wf.choose": {
                    "arms": [
                        {
                            "when": _ref(draw, scope),
                            "steps": _step_list(draw, names, scope, depth + 1),
                        }
                    ],
                    "else": _step_list(draw, names, scope, depth + 1),
                }
            }
        if draw(st.integers(0, 3)) == 0:
            declaration["when"] = _ref(draw, scope)
        construct = any(key.startswith("wf.") for key in declaration)
        if draw(st.integers(0, 3)) == 0 and not construct:  # retry is an action's
            declaration["retry"] = {
                "policy": "fixed",
                "initial": "1s",
                "max": "1m",
                "attempts": draw(st.integers(1, 4)),
            }
        if draw(st.integers(0, 3)) == 0:
            declaration["on_fail"] = draw(sampled(["abort", "continue"]))
        steps.append({step_id: declaration})
        scope.append(step_id)
    return steps


@st.composite
def workfiles(draw: st.DrawFn) -> JSON:
    """A valid Workfile Core document (JSON data)."""
    names = _Names()
    steps = _step_list(draw, names, [], 0)
    bound = [next(iter(step)) for step in steps]
    document: dict[str, JSON] = {
        "inputs": {"q": {"type": "string", "required": False, "default": ""}},
        "steps": steps,
    }
    if draw(st.booleans()):
        document["outputs"] = {"last": _ref(draw, bound)}
    return document


MUTATIONS = (
    "unknown_root_key",
    "unknown_modifier",
    "duplicate_id",
    "forward_reference",
    "unknown_root_name",
    "bad_duration",
    "bad_expression",
    "two_bodies",
)


@st.composite
def mutants(draw: st.DrawFn) -> tuple[JSON, str, str]:
    """A valid document broken in one way: (document, mutation, the code it must give)."""
    document = draw(workfiles())
    steps = document["steps"]
    first_id = next(iter(steps[0]))
    first = steps[0][first_id]
    mutation = draw(sampled(MUTATIONS))
    if mutation == "unknown_root_key":
        document["colour"] = "red"
        return document, mutation, "document.unknown_key"
    if mutation == "unknown_modifier":
        first["retries"] = 3  # not a modifier: read as a second body
        return document, mutation, "document.step"
    if mutation == "duplicate_id":  # WF-STEP-11: single assignment
        steps.append({first_id: {"crm.lookup": {}}})
        return document, mutation, "document.duplicate_binding"
    if mutation == "forward_reference":  # WF-STEP-10: only later steps see a binding
        steps.insert(0, {"early": {"crm.lookup": {"x": "{{ later.id }}"}}})
        steps.append({"later": {"crm.lookup": {}}})
        return document, mutation, "document.reference"
    if mutation == "unknown_root_name":
        steps.append({"reader": {"crm.lookup": {"x": "{{ nowhere.id }}"}}})
        return document, mutation, "document.reference"
    if mutation == "bad_duration":
        first["timeout"] = draw(sampled(["30", "1s1h", "soon", "1.5s"]))
        return document, mutation, "document.duration"
    if mutation == "bad_expression":
        steps.append(
            {"broken": {"crm.lookup": {"x": draw(sampled(["{{ a. }}", "{{ a +", "{{ | f }}"]))}}}
        )
        return document, mutation, "document.expression"
    first["chat.post"] = {}  # a second body
    return document, mutation, "document.step"


# -- connector manifests (A-116) ------------------------------------------------------------

_CODES = st.sampled_from(["busy", "gone", "denied", "lost", "conflict"])


@st.composite
def manifests(draw: st.DrawFn) -> JSON:
    """A valid connector manifest (JSON data): actions with effects, idempotency, errors."""
    connector = draw(sampled(["crm", "mail", "chat"]))
    actions: dict[str, JSON] = {}
    for name in draw(st.lists(sampled(["create", "lookup", "send"]), min_size=1, unique=True)):
        action: dict[str, JSON] = {"effects": draw(sampled(["read", "write"]))}
        if draw(st.booleans()):
            action["idempotency"] = draw(sampled(["none", "inherent", "keyed"]))
        if action["effects"] == "write" and draw(st.booleans()):
            action["dry_run"] = "delegate"
        if draw(st.booleans()):
            action["output"] = {"type": draw(sampled(["object", "string", "json"]))}
        errors: dict[str, str] = {}
        for code in draw(st.lists(_CODES, max_size=3, unique=True)):
            errors[f"{connector}.{code}"] = draw(sampled(["retryable", "fatal", "unknown"]))
        if draw(st.booleans()):
            errors[f"{connector}.transient.*"] = "retryable"
        if draw(st.booleans()):
            errors["http.5xx"] = "retryable"
        action["errors"] = errors
        actions[name] = action
    return {"connector": connector, "actions": actions}


MANIFEST_MUTATIONS = (
    "unknown_key",
    "reserved_code",
    "standard_namespace",
    "bad_effects",
    "bad_pattern",
)


@st.composite
def manifest_mutants(draw: st.DrawFn) -> tuple[JSON, str, str]:
    """A valid manifest broken in one way: (manifest, mutation, the code it must give)."""
    manifest = draw(manifests())
    action = next(iter(manifest["actions"].values()))
    mutation = draw(sampled(MANIFEST_MUTATIONS))
    if mutation == "unknown_key":
        action["retries"] = 3
        return manifest, mutation, "manifest.unknown_key"
    if mutation == "reserved_code":  # WF-CLASS-7: no reclassification of a reserved code
        action["errors"][draw(sampled(["timeout", "invalid_output"]))] = "retryable"
        return manifest, mutation, "manifest.reserved"
    if mutation == "standard_namespace":
        action["errors"]["flow.action_ambiguous"] = "retryable"
        return manifest, mutation, "manifest.reserved"
    if mutation == "bad_effects":
        action["effects"] = "delete"
        return manifest, mutation, "manifest.value"
    action["errors"]["crm.*.x"] = "fatal"
    return manifest, mutation, "manifest.code"
