"""The explorer over small transition systems whose reachable sets are known."""

from __future__ import annotations

import attrs
import pytest

from wforacle.model.kernel.explore import explore, time_budget
from wforacle.model.kernel.lts import Transition, execute, seeded


@attrs.frozen
class Interleave:
    """n processes each appending its id to a log once: n! orders, n! distinct logs."""

    n: int
    order_matters: bool = True

    def initial(self):
        return ((), frozenset())

    def enabled(self, config):
        log, done = config
        return [
            Transition({"event": "step", "process": p}, "step", (), ((*log, p), done | {p}))
            for p in range(self.n)
            if p not in done
        ]

    def outcome(self, config):
        log, _ = config
        return list(log) if self.order_matters else sorted(log)


@pytest.mark.parametrize(
    ("n", "outcomes", "states"), [(1, 1, 2), (2, 2, 5), (3, 6, 16), (4, 24, 65)]
)
def test_every_order_is_an_outcome(n, outcomes, states):
    lts = Interleave(n)
    result = explore(lts, lts.outcome, key=lambda c: c)
    assert result.complete and len(result.outcomes) == outcomes
    # states: sum over k of n!/(n-k)! partial logs
    assert result.states == states


def test_equal_outcomes_are_merged_and_each_has_a_witness():
    lts = Interleave(3, order_matters=False)
    result = explore(lts, lts.outcome, key=lambda c: c)
    assert [o.value for o in result.outcomes] == [[0, 1, 2]]
    witness = result.outcomes[0].witness
    assert sorted(e["process"] for e in witness) == [0, 1, 2]


def test_a_bound_makes_the_result_incomplete_and_says_why():
    lts = Interleave(4)
    result = explore(lts, lts.outcome, key=lambda c: c, max_states=10)
    assert not result.complete and "state bound (10)" in result.stopped_because
    assert result.states <= 10


def test_a_spent_time_budget_makes_the_result_incomplete_and_says_why():
    # Issue 19: explore had no default bound a user would call seconds; a time
    # budget stops it, reported like the state bound.
    lts = Interleave(7)  # 7! orders: far more than a zero budget allows
    with time_budget(1e-9):
        result = explore(lts, lts.outcome, key=lambda c: c)
    assert not result.complete and "time budget" in result.stopped_because
    assert explore(lts, lts.outcome, key=lambda c: c).complete  # outside it: no budget


def test_every_explored_outcome_is_reachable_by_some_random_schedule():
    lts = Interleave(3)
    explored = {tuple(o.value) for o in explore(lts, lts.outcome, key=lambda c: c).outcomes}
    sampled = {tuple(lts.outcome(execute(lts, seeded(seed)).final)) for seed in range(200)}
    assert sampled == explored
