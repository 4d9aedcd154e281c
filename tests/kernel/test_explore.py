"""The explorer over small transition systems whose reachable sets are known."""

from __future__ import annotations

import attrs
import pytest

from wforacle.model.kernel.explore import SAMPLE, explore, time_budget
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


@attrs.frozen
class Graph:
    """A transition system given by its successor lists; terminal states are outcomes."""

    successors: dict

    def initial(self):
        return 0

    def enabled(self, config):
        return [Transition({"event": "to", "to": s}, "to", (), s) for s in self.successors[config]]

    def outcome(self, config):
        return config


def counted_key(calls):
    def key(config):
        calls.append(config)
        return config

    return key


def test_a_path_that_never_forks_computes_almost_no_key():
    # issue 16: a state on the one path to the first fork can be met again only along a
    # cycle, so keys are sampled there; every state is still counted once.
    n = 3 * SAMPLE
    chain = Graph({i: [i + 1] if i < n else [] for i in range(n + 1)})
    calls = []
    result = explore(chain, chain.outcome, counted_key(calls))
    assert result.complete and [o.value for o in result.outcomes] == [n]
    assert result.states == n + 1
    assert len(calls) <= 1 + n // SAMPLE


def test_a_cycle_on_the_unforked_path_ends_as_a_visited_state_would():
    # 0 → 1 → … → 4 → 0: the keyed search stops where it meets 0 again, with no
    # outcome; the sampled one meets a sampled state within SAMPLE times the cycle.
    cycle = Graph({i: [(i + 1) % 5] for i in range(5)})
    result = explore(cycle, cycle.outcome, key=lambda c: c, max_states=10 * SAMPLE)
    assert result.complete and result.outcomes == ()


def test_after_the_first_fork_every_state_is_keyed_and_met_once():
    # 0 → 1 → 2 forks to 3 and 4, which join at 5 → 6; 2 also leads back to 0.
    graph = Graph({0: [1], 1: [2], 2: [3, 4, 0], 3: [5], 4: [5], 5: [6], 6: []})
    calls = []
    result = explore(graph, graph.outcome, counted_key(calls))
    assert result.complete and [o.value for o in result.outcomes] == [6]
    assert result.states == 7  # 5 and 6 once, though two paths reach them
    assert 0 in calls and 2 in calls and 1 not in calls


def test_an_outcome_tells_the_clauses_its_witness_cited_and_their_nested_runs():
    # Coverage of nested runs (w6w controls): Outcome.clauses() is the witness's
    # transitions' clauses, then any Nesting's nested ones, first cited first, once each.
    from wforacle.model.kernel.explore import explore
    from wforacle.model.kernel.lts import Nesting, Transition

    class Two:
        def initial(self):
            return 0

        def enabled(self, c):
            if c == 0:
                return [Transition({"event": "a"}, "a", ("X-1", "X-2"), 1)]
            if c == 1:
                return [Nesting({"event": "b"}, "b", ("X-2",), 2, ("Y-1", "X-1"))]
            return []

    (found,) = explore(Two(), lambda c: c, lambda c: c).outcomes
    assert found.witness == ({"event": "a"}, {"event": "b"})
    assert found.clauses() == ("X-1", "X-2", "Y-1")
