"""The RunState of a w6w configuration (RFC "Run state"), and what explore compares.

Output only: nothing here decides what a run may do.
"""

from __future__ import annotations

from typing import Any

from wforacle.model.kernel.time import iso
from wforacle.model.w6w.config import Config
from wforacle.model.w6w.run import Run

JSON = Any


def run_state(run: Run, c: Config) -> dict[str, JSON]:
    """The RunState of a configuration (RFC "Run state")."""
    steps = {}
    for step_id, state in zip(run.plan, c.steps, strict=True):
        if state.status == "pending":
            continue  # W6W-STATE-1: "Only completed / running / failed steps appear."
        record: dict[str, JSON] = {
            "stepId": step_id,
            "status": state.status,
            "attempt": state.attempt,
        }
        if state.status != "skipped":
            record["input"] = state.input
        if state.status == "succeeded":
            record["output"] = state.output
        if state.error is not None:
            record["error"] = state.error.to_json()
        if state.meta is not None and state.status in ("succeeded", "failed"):
            record["meta"] = state.meta  # W6W-META-1, W6W-META-17 (persisted with it)
        if state.inner is not None:
            record["inner"] = state.inner  # a control's sub-block records
        if state.started_at is not None:
            record["startedAt"] = iso(state.started_at)
        if state.finished_at is not None:
            record["finishedAt"] = iso(state.finished_at)
        steps[step_id] = record
    out: dict[str, JSON] = {
        "runId": run.scenario.run_id,
        "workflowId": run.workflow.id,
        "status": c.status,
        "variables": c.variables if c.variables is not None else {},
        "steps": steps,
    }
    if c.status == "succeeded":
        out["output"] = c.handled_output if c.handled else last_output(run, c)
    if c.failure is not None:
        out["error"] = c.failure[1].to_json()
    if c.errors:
        out["stepErrors"] = [{"stepId": s, **e.to_json()} for s, e in c.errors]
    if c.suspension is not None:
        out["suspension"] = {"stepId": c.suspension[0], "resumeToken": c.suspension[1]}
    return out


def outcome(run: Run, c: Config) -> dict[str, JSON]:
    """What explore compares: the run's status, output, error and stepErrors.

    And per step its status, attempts, input and output.  The input is what
    the action was invoked with — the run's effect on the outside world — and
    with strands it can depend on the interleaving (a with block that reads
    a step on another strand): assumption A-51.
    """
    state = run_state(run, c)
    return {
        "status": state["status"],
        "output": state.get("output"),
        "error": state.get("error"),
        "stepErrors": state.get("stepErrors", []),
        **({"suspension": state["suspension"]} if "suspension" in state else {}),
        "steps": {
            step_id: {
                "status": record["status"],
                "attempt": record["attempt"],
                "input": record.get("input"),
                "output": record.get("output"),
            }
            | ({"inner": record["inner"]} if "inner" in record else {})
            for step_id, record in state["steps"].items()
        },
    }


def last_output(run: Run, c: Config) -> JSON:
    """The output of the last succeeded step by plan order (None if none succeeded)."""
    for state in reversed(c.steps):
        if state.status == "succeeded":
            return state.output
    return None
