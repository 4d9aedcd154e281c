"""Small builders for w6w documents used across the tests."""

from __future__ import annotations

import copy
from typing import Any

from wforacle.properties.w6w.validate import validate


def app_step(step_id: str, **extra: Any) -> dict[str, Any]:
    return {"id": step_id, "uses": {"app": "demo", "action": "run"}, **extra}


def workflow(
    *steps: dict[str, Any], edges: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "manifestVersion": "2",
        "id": "wf_test",
        "name": "test",
        "steps": list(steps) or [app_step("a")],
        **extra,
    }
    if edges is not None:
        doc["edges"] = edges
    return doc


def codes(document: Any, previous: Any = None) -> list[str]:
    return validate(copy.deepcopy(document), previous).report.codes()


def diagnostics(document: Any) -> list[dict[str, str]]:
    return [d.to_json() for d in validate(document).report.diagnostics]
