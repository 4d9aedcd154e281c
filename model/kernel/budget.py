"""A time budget that a long computation polls, and which computation reports its end.

Notation: ``time_budget(s)`` sets, for the computations run inside it, a
deadline ``s`` seconds away.  ``check()`` raises ``BudgetSpent`` past it.
The explorer and ``execute_bounded`` are *bounded computations*: the
outermost one running reports a spent budget as its result (incomplete, and
why); one nested inside it (a w6w control's sub-block, explored inside the
transition that runs the control) passes ``BudgetSpent`` up instead, so that
a budget spent in the middle of a transition is never mistaken for the
model's answer (issue 19: one foreach over 100,000 items is one transition,
and the explorer's budget was checked only between transitions).

A rule that loops over input-sized data calls ``check()`` in its loop; with
no budget set it costs one context-variable read.  A rule given more than
the model computes raises ``ModelBound``, which ends the outermost bounded
computation the same way (``Stopped`` is either).
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator

# (the budget's seconds, its deadline on the monotonic clock), or None: no budget.
_BUDGET: contextvars.ContextVar[tuple[float, float] | None] = contextvars.ContextVar(
    "time_budget", default=None
)
_BOUNDED: contextvars.ContextVar[bool] = contextvars.ContextVar("bounded", default=False)


class Stopped(Exception):
    """A bounded computation cannot go on; its message says why (the reason it reports)."""


class BudgetSpent(Stopped):
    """The time budget ran out inside a bounded computation."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the time budget ({seconds:g} s) was spent")
        self.seconds = seconds


class ModelBound(Stopped):
    """The input is past a size the reference model computes (a bound of wforacle, not a rule).

    Reported like a spent budget: the run or exploration is incomplete and
    says which bound; no outcome is invented for it.
    """


@contextlib.contextmanager
def time_budget(seconds: float) -> Iterator[None]:
    """Bounded computations started inside stop (incomplete, saying why) after ``seconds``."""
    token = _BUDGET.set((seconds, time.monotonic() + seconds))
    try:
        yield
    finally:
        _BUDGET.reset(token)


def current() -> tuple[float, float] | None:
    """The budget in force: (its seconds, its deadline), or None."""
    return _BUDGET.get()


def check() -> None:
    """Raise BudgetSpent when the budget in force is spent."""
    budget = _BUDGET.get()
    if budget is not None and time.monotonic() > budget[1]:
        raise BudgetSpent(budget[0])


@contextlib.contextmanager
def bounded() -> Iterator[bool]:
    """Run a bounded computation; yields whether it is the outermost (the one that reports)."""
    outermost = not _BOUNDED.get()
    token = _BOUNDED.set(True)
    try:
        yield outermost
    finally:
        _BOUNDED.reset(token)
