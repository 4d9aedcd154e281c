"""Issue 19: a time budget holds inside one transition, and a nested exploration passes it up.

model/kernel/budget.py: the outermost bounded computation (explore,
execute_bounded) reports a spent budget or a model bound as incomplete; a
nested one (a w6w control's sub-block) raises, so no model result is made
of it.
"""

from __future__ import annotations

import time

import attrs
import pytest

from wforacle.model.kernel import budget
from wforacle.model.kernel.explore import explore, time_budget
from wforacle.model.kernel.lts import Transition, execute_bounded


@attrs.frozen
class Slow:
    """Two states; the one transition polls the budget for as long as ``work`` seconds."""

    work: float
    nested: bool = False

    def initial(self) -> int:
        return 0

    def enabled(self, config: int) -> list[Transition[int]]:
        if config == 1:
            return []
        if self.nested:  # the transition explores a sub-run, as a w6w control does
            inner = explore(Slow(self.work), lambda c: c, lambda c: c)
            assert inner.complete, "a nested exploration never reports a spent budget"
        else:
            until = time.monotonic() + self.work
            while time.monotonic() < until:
                budget.check()
        return [Transition({"event": "done"}, "done", (), 1)]


@pytest.mark.parametrize("nested", [False, True])
def test_explore_stops_inside_a_long_transition(nested):
    started = time.monotonic()
    with time_budget(0.2):
        result = explore(Slow(30.0, nested), lambda c: c, lambda c: c)
    assert time.monotonic() - started < 5
    assert not result.complete and "time budget (0.2 s)" in (result.stopped_because or "")


@pytest.mark.parametrize("nested", [False, True])
def test_a_run_stops_inside_a_long_transition(nested):
    started = time.monotonic()
    execution, stopped = execute_bounded(Slow(30.0, nested), seconds=0.2)
    assert time.monotonic() - started < 5
    assert stopped is not None and "time budget" in stopped and execution.steps == ()


def test_without_a_budget_the_transition_runs_to_its_end():
    execution, stopped = execute_bounded(Slow(0.05))
    assert stopped is None and len(execution.steps) == 1


def test_a_model_bound_is_reported_as_incomplete():
    class Bounded(Slow):
        def enabled(self, config: int) -> list[Transition[int]]:
            raise budget.ModelBound("past the model's bound")

    result = explore(Bounded(0.0), lambda c: c, lambda c: c)
    assert not result.complete and result.stopped_because == "past the model's bound"
    with pytest.raises(budget.ModelBound):
        Bounded(0.0).enabled(0)
