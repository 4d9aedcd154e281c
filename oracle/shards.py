"""Campaigns in shards: one seed split over local processes or a Dask cluster, merged in order.

Notation: a campaign of seed ``S`` and ``E`` examples in ``n`` shards is
``plan(S, E, n)``.  Shard ``k`` runs ``E // n`` examples (the first
``E % n`` shards one more) from the seed ``shard_seed(S, k)``: shard 0
takes ``S`` itself, shard ``k > 0`` the first four bytes of
BLAKE2b(``"wforacle shard S k"``) as an unsigned integer.  A shard is an
ordinary campaign (oracle/fuzz.py) with its own engine process, so shard
``k`` alone is ``wforacle fuzz --seed <its seed> --examples <its
examples>``, and one shard is exactly today's campaign.

``run_shard`` is what a local process or a Dask worker runs: it starts the
engine from its command line, runs the shard's campaign, stops the engine
and returns a *summary*: plain JSON (counts, seconds, faults, the finding
as case and judgement, readings, coverage counts), so it crosses process
and machine boundaries by pickle or by text alike.  ``merge`` makes one
campaign of the summaries, in shard order whatever order they finished
in: counts added, coverage tallies added, readings added per set of
departures, and *the* finding is the lowest-numbered shard's that has one;
the other shards' findings follow it.  Same seed and shard count, same
findings (docs/cluster.md).
"""

from __future__ import annotations

import hashlib
import uuid
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
from hypothesis.errors import HypothesisDeprecationWarning

from wforacle.oracle.coverage import Coverage, Tally
from wforacle.oracle.engine import Engine, Judgement
from wforacle.oracle.fuzz import (
    SHRINK_ALLOWANCE,
    Campaign,
    Finding,
    Witness,
    campaign,
    save_unshrunk,
)
from wforacle.oracle.readings import Selection
from wforacle.properties.registry import SPECIFICATIONS
from wforacle.properties.specification import Specification

JSON = Any
# Seconds to wait for a Dask scheduler to answer before ``--cluster`` gives up.
CONNECT_TIMEOUT = 10.0
INSTALL_DASK = "pip install 'wforacle[cluster]'"
RANDOM_IN_STRATEGIES = "Do not use the `random` module inside strategies"


class CannotShard(Exception):
    """A sharded campaign cannot start: too few examples, or no Dask cluster to run on.

    Too few examples for the shards, Dask not installed, a scheduler that does
    not answer: the command line's usage errors (exit 2), found before any shard runs.
    """


@attrs.frozen
class Shard:
    """One part of a sharded campaign: its number, its seed and its examples."""

    number: int
    seed: int
    examples: int


@attrs.frozen
class Job:
    """What every shard of one campaign shares: what a ``wforacle fuzz`` command line says."""

    spec: str
    engine: str  # the engine's command line; each shard starts its own process
    timeout: float = 10.0
    time_budget: float | None = None  # per shard: shards run side by side
    stop_on_fault: bool = False
    profile: str | None = None
    pinned: Mapping[str, Any] = attrs.field(factory=dict)  # the readings pinned (Selection)
    mode: str = "any"
    # Where a shard saves a finding the moment it sees it (local processes share the
    # file system; on a cluster this is None and the coordinator saves it).
    unshrunk: str | None = None
    shrink_allowance: float = SHRINK_ALLOWANCE  # seconds each shard may spend shrinking


def shard_seed(seed: int, number: int) -> int:
    """Shard ``number``'s seed: the campaign's own for shard 0, else a hash of both.

    A hash, not ``seed + number``: the shards of seeds 0 and 1 would then share
    all but one seed, and a nightly campaign that takes the date as its seed
    would repeat most of yesterday's.
    """
    if number == 0:
        return seed
    digest = hashlib.blake2b(f"wforacle shard {seed} {number}".encode(), digest_size=4)
    return int.from_bytes(digest.digest(), "big")


def plan(seed: int, examples: int, n: int) -> tuple[Shard, ...]:
    """Split a campaign of ``examples`` into ``n`` shards, each seeded from ``seed``."""
    if n < 1:
        raise CannotShard(f"{n} shards: a campaign has at least one")
    if examples < n:
        raise CannotShard(f"{examples} examples cannot fill {n} shards: ask for at least {n}")
    share, rest = divmod(examples, n)
    return tuple(Shard(k, shard_seed(seed, k), share + (k < rest)) for k in range(n))


def run_shard(job: Job, shard: Shard) -> dict[str, JSON]:
    """Run one shard's campaign against its own engine process; its summary (plain JSON)."""
    spec = SPECIFICATIONS[job.spec]
    selection = Selection(spec, dict(job.pinned), job.mode)
    engine = Engine(job.engine, timeout=job.timeout)
    first: dict[str, Any] = {}

    def keep_first(case: JSON, judgement: Judgement) -> None:
        first.update(case=case, judgement=judgement.to_json())
        if job.unshrunk is not None:  # saved before shrinking: nothing later can lose it
            save_unshrunk(spec, case, judgement, Path(job.unshrunk))

    try:
        with warnings.catch_warnings():
            # On a Dask worker, the worker's own threads use the ``random`` module while
            # Hypothesis draws, and Hypothesis takes that for a strategy that uses it.
            # The draws do not (the same shards in local processes find the same).
            warnings.filterwarnings("ignore", RANDOM_IN_STRATEGIES, HypothesisDeprecationWarning)
            result = campaign(
                spec,
                engine,
                examples=shard.examples,
                seed_value=shard.seed,
                time_budget=job.time_budget,
                reduce_budget=job.shrink_allowance,
                stop_on_fault=job.stop_on_fault,
                first_seen=keep_first,
                cases=None if job.profile is None else spec.suites[job.profile](),
                selection=selection,
            )
    finally:
        engine.stop()
    return summary(shard, result, first)


def summary(shard: Shard, result: Campaign, first: Mapping[str, JSON]) -> dict[str, JSON]:
    """A shard's campaign as plain JSON; ``first``: its finding as first seen (case, judgement)."""
    found = result.finding
    coverage = result.coverage
    return {
        "shard": shard.number,
        "seed": shard.seed,
        "planned": shard.examples,
        "examples": result.examples,
        "seconds": result.seconds,
        "secondsSearching": result.seconds_searching,
        "secondsShrinking": result.seconds_shrinking,
        "shrinkRuns": result.shrink_runs,
        "engineSeconds": result.engine_seconds,
        "budgetSpent": result.budget_spent,
        "hangsStopped": result.hangs_stopped,
        "shrinkStopped": result.shrink_stopped,
        "faults": result.faults,
        "faultCases": [{"case": c, "judgement": j.to_json()} for c, j in result.fault_cases],
        "readings": [w.to_json() for w in result.readings],
        "coverage": None
        if coverage is None
        else {"runs": coverage.runs, "counts": dict(coverage.counts)},
        "nondeterministic": result.nondeterministic,
        "finding": None
        if found is None
        else {
            "case": found.case,
            "judgement": found.judgement.to_json(),
            "size": found.size,
            "examplesToFind": found.examples,
            "secondsToFind": found.seconds_to_find,
            "secondsToShrink": found.seconds_to_shrink,
            "firstSeen": dict(first) or None,
        },
    }


@attrs.frozen
class Merged:
    """A sharded campaign: one ``Campaign`` as a single run reports it, and its shards."""

    campaign: Campaign
    shards: tuple[Mapping[str, JSON], ...]  # the summaries, in shard order
    # The finding's shard (None without a finding); the other shards' findings after it.
    finder: int | None
    others: tuple[tuple[int, Finding], ...]
    first_seen: tuple[JSON, Judgement] | None  # the finding as its shard first saw it


def merge(spec: Specification, summaries: Iterable[Mapping[str, JSON]]) -> Merged:
    """One campaign of the shards' summaries, whatever order they came in.

    Counts, engine seconds and coverage tallies are added; a set of readings'
    examples are added and its smallest witness kept (ties: the lower shard);
    the first ten engine faults in shard order are kept.  The finding is the
    lowest-numbered shard's that has one, with its shrinking figures and
    nondeterminism; the searching seconds are the longest shard's (the
    shards search side by side).
    """
    ordered = tuple(sorted(summaries, key=lambda s: s["shard"]))
    found = [(s["shard"], _finding(spec, s["finding"])) for s in ordered if s["finding"]]
    finder = next((s for s in ordered if s["finding"]), None)
    fault_cases = [
        (f["case"], Judgement.from_json(f["judgement"])) for s in ordered for f in s["faultCases"]
    ]
    merged = Campaign(
        sum(s["examples"] for s in ordered),
        max((s["seconds"] for s in ordered), default=0.0),
        found[0][1] if found else None,
        sum(s["faults"] for s in ordered),
        tuple(fault_cases[:10]),
        shrink_runs=finder["shrinkRuns"] if finder else 0,
        seconds_searching=max((s["secondsSearching"] for s in ordered), default=0.0),
        seconds_shrinking=finder["secondsShrinking"] if finder else 0.0,
        engine_seconds=sum(s["engineSeconds"] for s in ordered),
        budget_spent=any(s["budgetSpent"] for s in ordered),
        hangs_stopped=any(s.get("hangsStopped", False) for s in ordered),
        shrink_stopped=bool(finder.get("shrinkStopped")) if finder else False,
        nondeterministic=finder["nondeterministic"] if finder else None,
        readings=_readings(spec, ordered),
        coverage=_coverage(spec, ordered),
    )
    seen = finder["finding"]["firstSeen"] if finder else None
    return Merged(
        merged,
        ordered,
        finder["shard"] if finder else None,
        tuple(found[1:]),
        None if seen is None else (seen["case"], Judgement.from_json(seen["judgement"])),
    )


def _finding(spec: Specification, found: Mapping[str, JSON]) -> Finding:
    """A summary's finding as the report prints it (the judgement rebuilt from its JSON)."""
    return Finding(
        spec,
        found["case"],
        Judgement.from_json(found["judgement"]),
        found["examplesToFind"],
        found["secondsToFind"],
        found["secondsToShrink"],
    )


def _readings(spec: Specification, ordered: Sequence[Mapping[str, JSON]]) -> tuple[Witness, ...]:
    """Each set of readings the shards needed: examples added, the smallest witness kept."""
    merged: dict[tuple[tuple[str, str], ...], Witness] = {}
    for part in ordered:
        for found in part["readings"]:
            departures = tuple(found["readings"].items())
            judgement = Judgement.from_json(found["judgement"])
            here = Witness(departures, found["examples"], found["case"], judgement)
            kept = merged.get(departures)
            if kept is None:
                merged[departures] = here
                continue
            smaller = _weight(spec, here.case) < _weight(spec, kept.case)
            chosen = here if smaller else kept
            merged[departures] = attrs.evolve(chosen, examples=kept.examples + here.examples)
    return tuple(merged.values())


def _weight(spec: Specification, case: JSON) -> int:
    """A case's size as one number (w6w: steps and edges together)."""
    return sum(spec.size(case).values())


def _coverage(spec: Specification, ordered: Sequence[Mapping[str, JSON]]) -> Coverage | None:
    """The shards' coverage tallies added."""
    tallies = [s["coverage"] for s in ordered if s["coverage"] is not None]
    if not tallies:
        return None
    merged = Tally()
    for tally in tallies:
        merged.include(tally["runs"], tally["counts"])
    return merged.freeze(spec.name)


Progress = Callable[[Mapping[str, JSON], int, int], None]  # (a shard's summary, done, shards)


def run_local(job: Job, shards: Sequence[Shard], progress: Progress) -> list[dict[str, JSON]]:
    """Run the shards in processes of this machine, all at once; their summaries.

    Spawned, not forked: each process imports wforacle fresh (no engine
    threads or pipes of this one inherited), as a Dask worker would.
    """
    import multiprocessing  # only a sharded campaign starts processes
    from concurrent.futures import ProcessPoolExecutor, as_completed

    context = multiprocessing.get_context("spawn")
    done = []
    with ProcessPoolExecutor(max_workers=len(shards), mp_context=context) as pool:
        futures = [pool.submit(run_shard, job, shard) for shard in shards]
        try:
            for future in as_completed(futures):
                done.append(future.result())
                progress(done[-1], len(done), len(shards))
        except BaseException:  # an interrupt or a shard's error: start no more shards
            for future in futures:
                future.cancel()
            raise
    return done


def run_cluster(
    address: str, job: Job, seed: int, examples: int, n: int | None, progress: Progress
) -> tuple[tuple[Shard, ...], list[dict[str, JSON]]]:
    """Run ``n`` shards as tasks on the Dask cluster at ``address``; the plan and summaries.

    ``n`` None: one shard per worker thread the cluster has when the campaign
    starts.  Each task is ``run_shard``: the worker imports wforacle and
    starts the engine from ``job.engine``, so both must be installed on
    every worker.
    """
    client = connect(address)
    try:
        if n is None:
            n = max(1, sum(client.nthreads().values()))
        shards = plan(seed, examples, n)
        campaign_id = uuid.uuid4().hex[:8]  # keys unique on a cluster other campaigns share
        futures = [
            client.submit(run_shard, job, shard, key=f"wforacle-{campaign_id}-shard-{shard.number}")
            for shard in shards
        ]
        with client.as_current():  # distributed.as_completed finds its client there
            return shards, gather(futures, len(shards), progress)
    finally:
        client.close()


def connect(address: str) -> Any:
    """A Dask client of the scheduler at ``address`` (CannotShard when there is none)."""
    try:
        # Lazy: Dask is an optional extra, needed only under --cluster.
        from distributed import Client
    except ImportError:
        raise CannotShard(
            f"--cluster needs Dask distributed, which is not installed: {INSTALL_DASK}"
        ) from None
    try:
        return Client(  # type: ignore[no-untyped-call]
            address, timeout=CONNECT_TIMEOUT, set_as_default=False
        )
    except (OSError, ValueError, TypeError) as exc:  # refused, timed out, not an address
        raise CannotShard(
            f"--cluster {address}: cannot reach a Dask scheduler there within "
            f"{CONNECT_TIMEOUT:g} s ({type(exc).__name__}: {exc})"
        ) from None


def gather(futures: Sequence[Any], n: int, progress: Progress) -> list[dict[str, JSON]]:
    """The Dask futures' results as they complete, each reported to ``progress``."""
    from distributed import as_completed  # lazy: see connect

    done = []
    for future in as_completed(futures):  # type: ignore[no-untyped-call]
        done.append(future.result())
        progress(done[-1], len(done), n)
    return done


def other_line(found: Finding) -> str:
    """One line for another shard's finding: where it departs."""
    judgement = found.judgement
    if judgement.fault is not None:
        return f"ENGINE FAULT ({judgement.fault.kind}): {judgement.fault.message}"
    if judgement.divergence is None:
        return judgement.verdict
    return f"DIVERGENCE at event {judgement.divergence.index}: {judgement.divergence.message}"


def progress_line(part: Mapping[str, JSON], done: int, n: int) -> str:
    """The line a finished shard prints (stderr): which, its seed, examples, time, finding."""
    found = "a finding" if part["finding"] else "no finding"
    return (
        f"[{done}/{n}] shard {part['shard']} done: seed {part['seed']}, "
        f"{part['examples']} examples in {part['seconds']:.1f} s, {found}"
    )
