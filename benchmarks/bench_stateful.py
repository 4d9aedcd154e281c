"""Stateful Profile figures: the explorer under every event order, the checker, campaigns, bugs.

Run:  python benchmarks/bench_stateful.py [--events 4] [--examples 500] [--seeds 3]
                                          [--bugs NAME ... | --bugs none]

- explorer: distinct states per second exploring a four-state approval
  machine (two subscriptions and a timeout in the waiting state) with
  --events stimuli against the entry's work (every interleaving the model
  permits), and how many outcomes that gives; then the same over every
  order of the stimuli (each permutation of what they carry over the same
  waits and instants), with the distinct outcomes of all orders;
- checker: events checked per second on the model's own trace of it;
- campaign: examples per second of ``fuzz --profile workfile-stateful``
  against the correct example executor (one persistent process);
- seeded bugs: per state-form bug of examples/engines/workfile_engine.py,
  seeds that found it, the median seconds to find and to shrink it, and the
  size (steps/scripted results) of each shrunk case.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from typing import Any

import yaml

from wforacle.model.kernel.lts import execute
from wforacle.oracle.check import check
from wforacle.oracle.fuzz import campaign
from wforacle.oracle.power import PROFILE_BUGS, example_engine, find_and_shrink
from wforacle.properties.strategies.workfile_states import STATE_MANIFEST
from wforacle.properties.workfile.execution import explore, prepare
from wforacle.properties.workfile.specification import WORKFILE

STATE_BUGS = PROFILE_BUGS["workfile-stateful"][1]


def approval(events: int, order: tuple[int, ...] | None = None) -> dict[str, Any]:
    """Ask, then wait for approve/reject (two subscriptions) or a 2 s timeout."""
    document = {
        "initial": "waiting",
        "states": {
            "waiting": {
                "on_enter": [{"ask": {"svc.send": {"k": 1}}}],
                "steps": [{"log": {"svc.get": {"k": 2}}}],
                "on": {
                    "approve": {
                        "event": "svc.signal",
                        "match": {"ref": "{{ ask.id }}", "kind": "x"},
                        "goto": "approved",
                        "into": {"v": "{{ approve.value }}"},
                    },
                    "reject": {
                        "event": "svc.signal",
                        "match": {"ref": "{{ ask.id }}", "kind": "y"},
                        "goto": "done",
                    },
                },
                "timeout": {"after": "2s", "goto": "escalated"},
            },
            "approved": {
                "accepts": {"v": {"type": "string", "required": True}},
                "steps": [{"grant": {"svc.send": {"who": "{{ v }}"}}}],
                "goto": "done",
            },
            "escalated": {"steps": [{"page": {"svc.send": {}}}], "goto": "done"},
            "done": {"final": True},
        },
    }
    # Repeating: an event for nobody, a rejection just past the deadline of an entry that
    # correlated at 0, the clock past it, an approval at the same instant.
    pattern = [("waiting[1].ask", "x", 0), ("waiting[0].ask", "y", 2001), (None, None, 2500)]
    pattern.append(("waiting[0].ask", "x", 2500))
    # ``order`` permutes what the stimuli carry over their fixed waits and instants.
    order = order if order is not None else tuple(range(events))
    stimuli: list[dict[str, Any]] = []
    for k in range(events):
        ref, kind, _ = pattern[order[k] % 4]
        at = pattern[k % 4][2] + 3000 * (k // 4)
        stimulus: dict[str, Any] = {"wait": k + 1, "at": at}
        if ref is not None:
            stimulus.update(event="svc.signal", payload={"ref": ref, "kind": kind, "value": "ok"})
        stimuli.append(stimulus)
    return {
        "document": yaml.safe_dump(document, sort_keys=False),
        "manifests": {"svc": STATE_MANIFEST},
        "scenario": {"events": stimuli},
    }


def explorer(events: int) -> None:
    run = prepare(approval(events)).semantics
    for reduce in (True, False):
        started = time.perf_counter()
        found = explore(run, 1_000_000, reduce)
        seconds = time.perf_counter() - started
        print(
            f"explore approval, {events} events {'frames' if reduce else 'naive':<7} "
            f"{found.states:>8} states {seconds:>8.3f} s {found.states / seconds:>9.0f} states/s  "
            f"{len(found.outcomes)} outcome(s), {'complete' if found.complete else 'INCOMPLETE'}"
        )


def orders(events: int) -> None:
    """Every order of the stimuli (each permutation of what they carry), each explored whole."""
    states, seconds, outcomes = 0, 0.0, set()
    permutations = list(itertools.permutations(range(events)))
    for order in permutations:
        run = prepare(approval(events, order)).semantics
        started = time.perf_counter()
        found = explore(run, 1_000_000, True)
        seconds += time.perf_counter() - started
        states += found.states
        assert found.complete
        outcomes.update(json.dumps(o, sort_keys=True, default=str) for o in found.outcomes)
    print(
        f"explore approval, every order of {events} stimuli ({len(permutations)} orders): "
        f"{states} states {seconds:.3f} s {states / seconds:.0f} states/s  "
        f"{len(outcomes)} distinct outcome(s)"
    )


def checker(events: int) -> None:
    prepared = prepare(approval(events))
    trace = execute(prepared.semantics).trace
    rounds = max(1, 20_000 // len(trace))
    started = time.perf_counter()
    for _ in range(rounds):
        verdict = check(prepared.semantics, lambda c: c.key, trace)
        assert verdict.permitted
    seconds = time.perf_counter() - started
    rate = rounds * len(trace) / seconds
    print(f"check approval trace ({len(trace)} events) {rate:>9.0f} events/s")


def throughput(examples: int) -> None:
    engine = example_engine("workfile")
    try:
        cases = WORKFILE.suites["workfile-stateful"]()
        result = campaign(WORKFILE, engine, examples=examples, seed_value=0, cases=cases)
    finally:
        engine.stop()
    rate = result.examples / result.seconds_searching
    verdict = "no finding" if result.finding is None else "A FINDING (the correct engine?)"
    print(f"campaign --profile workfile-stateful: {result.examples} ex, {rate:.1f} ex/s, {verdict}")


def bugs(names: list[str], seeds: int, examples: int) -> None:
    for bug in names:
        print(find_and_shrink("workfile", bug, seeds, examples, profile="workfile-stateful"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=4)
    parser.add_argument("--examples", type=int, default=500)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--bug-examples", type=int, default=3000)
    parser.add_argument("--bugs", nargs="*", default=list(STATE_BUGS))
    args = parser.parse_args()
    explorer(args.events)
    orders(args.events)
    checker(args.events)
    throughput(args.examples)
    if args.bugs != ["none"]:
        print(f"{'bug':<26} found  find s  shrink s  sizes (steps/scripted results)")
        bugs(args.bugs, args.seeds, args.bug_examples)


if __name__ == "__main__":
    main()
