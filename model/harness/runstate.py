"""What a Harness exploration compares, and one reference execution (output only)."""

from __future__ import annotations

from typing import Any

from wforacle.model.harness.config import Config
from wforacle.model.harness.run import Run
from wforacle.model.kernel.lts import execute

JSON = Any


def outcome(run: Run, c: Config) -> dict[str, JSON]:
    """The instance's status and each node's state, attempts, outputs and error."""
    return {
        "status": c.status,
        "failedNode": run.nodes[c.failure].id if c.failure is not None else None,
        "nodes": {
            node.id: {
                "state": c.states[i],
                "attempts": c.attempts[i],
                "outputs": c.outputs[i],
                "error": c.errors[i],
            }
            for i, node in enumerate(run.nodes)
        },
    }


def reference_run(run: Run) -> tuple[list[JSON], Config]:
    """One execution in the model's own order: its trace and final configuration."""
    execution = execute(run)
    return execution.trace, execution.final
