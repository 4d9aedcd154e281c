"""Export a model run to the Informal Trace Format (ITF) read by Apalache and Quint.

Format (Apalache ADR-015, "ITF"): ``{"#meta": {...}, "vars": [...],
"states": [{"#meta": {"index": i}, <var>: <value>, ...}]}``.  Values: a
boolean, a string, an integer as ``{"#bigint": "<decimal>"}``, a list as an
array, a record as an object.  ITF has no null and no fractional number:
those become ``{"#unserializable": "<JSON text>"}``, which ITF readers
accept and keep verbatim.

Two variables per state: ``event`` (the transition that led to it, ``init``
for the first) and the specification's final-state view of the configuration
under its own name (``Specification.final_name``: w6w ``runState``, Harness
``outcome``).
"""

from __future__ import annotations

import json
from typing import Any

from wforacle.model.kernel.lts import Execution
from wforacle.properties.specification import Specification

JSON = Any
DESCRIPTION = "https://apalache-mc.org/docs/adr/015adr-trace.html"


def itf_value(value: JSON) -> JSON:
    """A JSON value as an ITF value."""
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return {"#bigint": str(value)}
    if isinstance(value, list):
        return [itf_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): itf_value(v) for k, v in value.items()}
    return {"#unserializable": json.dumps(value)}


def to_itf(spec: Specification, run: Any, execution: Execution[Any], source: str) -> JSON:
    """The ITF trace of one execution of ``run``, a semantics of ``spec``."""
    name = spec.final_name
    states = [
        {
            "#meta": {"index": 0},
            "event": {"event": "init"},
            name: spec.final_state(run, run.initial()),
        }
    ]
    for index, step in enumerate(execution.steps, start=1):
        states.append(
            {
                "#meta": {"index": index},
                "event": step.event,
                name: spec.final_state(run, step.target),
            }
        )
    return {
        "#meta": {
            "format": "ITF",
            "format-description": DESCRIPTION,
            "source": source,
            "description": f"a wforacle reference run of a {spec.name} document",
        },
        "vars": ["event", name],
        "states": [
            {"#meta": s["#meta"], "event": itf_value(s["event"]), name: itf_value(s[name])}
            for s in states
        ],
    }
