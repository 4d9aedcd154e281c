"""The configuration of a w6w run: the records the rules read and write.

Notation (RFC "Execution model", "Run state", Amendments 2026-07-29, -08-21,
-10-07, -10-12):

    c = (status, clock, steps, activated, skipped, failure, errors, …)

``status`` is the run's (queued → running → succeeded | failed | canceled;
a run refused at its start goes from queued to failed, A-72).  ``steps``
holds one StepState per plan position ``P`` (W6W-PLAN-7); a running step's
``stage`` is ``invoke`` (an attempt is due) or ``decide`` (an attempt
failed with ``pending``: retry or finish).
``activated`` and ``skipped`` hold edge keys ``(from, to, when)``
(W6W-EDGE-11: "The engine keys a skipped edge by (from, to, when)").
``failure`` is the StepError that ends the run (the first by plan order,
W6W-FAN-10); ``errors`` is RunState.stepErrors.  The remaining fields serve
the run-level handler (``run_attempt``, ``rerouted``, ``handled``), the
scenario's invocation counters, checkpoints and crashes (``checkpoints``,
``crash_due``, ``resumed``) and cancellation (``signalled``).

Strands (W6W-FAN-5..7) are a function of the graph (run.py:
``assign_strands``), so they are not part of ``c``.

``config_key`` renders every field (the renderers, a speed-only matter, are
in fast.py); ``Replay`` is what a replay reuses; ``Launch`` selects the
reading of A-74.
"""

from __future__ import annotations

import collections.abc
import hashlib
import itertools
import operator
from collections.abc import Callable, Iterable, Iterator, Sequence
from enum import StrEnum
from typing import Any

import attrs
import immutables

from wforacle.model.diagnostics import InvalidInput
from wforacle.model.w6w import fast
from wforacle.model.w6w.document import Workflow
from wforacle.model.w6w.scenario import StepError

JSON = Any
EdgeKey = tuple[str, str, str]

TERMINAL = frozenset({"succeeded", "failed", "skipped"})


@attrs.frozen(slots=False)  # a __dict__: fast.evolve copies it in one call (issue 16)
class StepState:
    """One StepExecution (RFC "StepExecution") as the run sees it."""

    status: str = "pending"  # pending | running | succeeded | failed | skipped
    attempt: int = 0
    input: JSON = attrs.field(default=None, eq=False)
    output: JSON = attrs.field(default=None, eq=False)
    error: StepError | None = None
    started_at: int | None = None
    finished_at: int | None = None
    meta: JSON = attrs.field(default=None, eq=False)  # a normalised StepMeta, or None
    # While running: "invoke" (an attempt is due), "decide" (it failed), or
    # "suspended" (a wait step awaiting its resumption, not in flight).
    stage: str | None = None
    pending: StepError | None = None  # the failed attempt's error, awaiting the decision
    # A control's or call's sub-block records (controls.Ending.records), or None.
    inner: JSON = attrs.field(default=None, eq=False)
    # The input the action receives when it differs from the recorded ``input``:
    # it holds a secret's plaintext, which is never recorded; else None.
    plaintext: JSON = attrs.field(default=None, eq=False)

    @property
    def invoked(self) -> JSON:
        """The input the action is invoked with (plaintext secrets included)."""
        return self.input if self.plaintext is None else self.plaintext

    @fast.cached
    def key(self) -> str:
        """Canonical text of every field (computed once: a StepState never changes).

        Every attrs field, each by its renderer (see ``config_key``): JSON values
        memoised per object, errors cached, scalars by ``repr``.
        """
        return _step_key(self)

    @fast.cached
    def digest(self) -> int:
        """A 128-bit digest of ``key`` (BLAKE2b): what ``Steps.digest`` sums."""
        return int.from_bytes(hashlib.blake2b(self.key.encode(), digest_size=16).digest(), "big")

    @fast.cached
    def published(self) -> dict[str, JSON]:
        """The step's entry in the run scope's ``steps`` once it succeeded (``Run.scope``).

        W6W-META-13: "A succeeded app step publishes meta beside output";
        W6W-META-2: the entry is { output; meta? }.  Shared by every scope
        that holds it: nothing writes into a scope.
        """
        return {"output": self.output} | ({"meta": self.meta} if self.meta is not None else {})


_MASK = (1 << 128) - 1


class Layout:
    """The run's fixed parts a ``Steps`` keeps its derived facts by: ids and strands.

    ``plan`` holds the step id of every position, ``strand`` its strand,
    ``strands`` every strand's positions in plan order and ``rank`` a
    position's index among its strand's.  ``weights`` are odd 128-bit numbers,
    one per position, so that a digest tells apart the same states at other
    positions.
    """

    def __init__(
        self, plan: Sequence[str], strand: Sequence[int], strands: Sequence[Sequence[int]]
    ) -> None:
        """The layout of a run whose positions ``plan`` lie on strands ``strands``."""
        self.plan = tuple(plan)
        self.position = {step_id: i for i, step_id in enumerate(self.plan)}
        self.strand = tuple(strand)
        self.strands = tuple(tuple(members) for members in strands)
        rank = [0] * len(self.plan)
        for members in self.strands:
            for r, i in enumerate(members):
                rank[i] = r
        self.rank = tuple(rank)
        self.weights = tuple(
            int.from_bytes(hashlib.blake2b(b"w6w-position-%d" % i, digest_size=16).digest()) | 1
            for i in range(len(self.plan))
        )

    def steps(self, states: Iterable[StepState]) -> Steps:
        """``states`` with every derived fact computed afresh (O(n); ``Steps.replace`` is O(1)).

        A plan longer than ``BIG`` keeps its states in chunks (``ChunkedSteps``),
        so that replacing one copies a chunk, not the plan (issue 19: a long
        chain runs in time and memory proportional to the document).
        """
        steps: Steps
        if len(self.plan) > BIG:
            steps = ChunkedSteps.of(tuple(states))
        else:
            steps = tuple.__new__(Steps, states)
        steps.layout = self
        steps.running = tuple(
            tuple(i for i in members if steps[i].status == "running") for members in self.strands
        )
        steps.lead = tuple(
            next((r for r, i in enumerate(ms) if steps[i].status not in TERMINAL), len(ms))
            for ms in self.strands
        )
        steps.digest_ = None
        steps.delta = None
        steps.published_ = None
        return steps

    def edges(self) -> frozenset[EdgeKey]:
        """An empty edge set: a persistent ``EdgeSet`` past ``EDGES_BIG``, else an ``Edges``."""
        if len(self.plan) > EDGES_BIG:
            return EdgeSet()  # type: ignore[return-value]
        return Edges.empty()

    def counts(self, counts: Iterable[int]) -> Counts:
        """Per-position counters with their digest (chunked past ``BIG``, as ``steps``)."""
        tally: Counts
        if len(self.plan) > BIG:
            tally = ChunkedCounts.of(tuple(counts))
        else:
            tally = tuple.__new__(Counts, counts)
        tally.weights = self.weights
        tally.digest = sum(w * n for w, n in zip(self.weights, tally, strict=True)) & _MASK
        return tally


class Steps(tuple[StepState, ...]):
    """A configuration's step states by plan position, with facts the rules ask kept current.

    A tuple — equal to, and hashing as, the plain tuple of its states — that
    also knows, without scanning the steps (a speed matter only; nothing here
    decides what a run may do):

    - ``running``: per strand, its running positions;
    - ``lead``: per strand, the rank of its first member that has not ended,
      so a strand finds its next step without passing those that ended;
    - ``published``: the run scope's ``steps`` object (``Run.scope``);
    - ``digest``: Σ weight(i)·digest(state i) mod 2^128, so a configuration's
      key does not grow with the plan (``config_key``).

    ``replace`` derives them from the tuple it changes one position of, at a
    cost proportional to the change.  The digest and the published outputs
    are derived only when asked for, and from the tuple replaced only when
    that one had them (the trace checker asks for neither while one
    configuration fits the trace).  tests/w6w/test_fast.py checks, on
    generated runs, that they equal what ``Layout.steps`` computes afresh.
    """

    layout: Layout
    running: tuple[tuple[int, ...], ...]
    lead: tuple[int, ...]
    digest_: int | None
    delta: tuple[int, int, StepState, StepState] | None  # (digest replaced, i, old, new)
    published_: dict[str, JSON] | None

    def replace(self, i: int, state: StepState) -> Steps:
        """These states with position ``i``'s replaced by ``state``."""
        states = list(self)  # one copy: faster than slicing around i at every size
        states[i] = state
        new = tuple.__new__(Steps, states)
        return self._derived(new, i, state)

    def _derived(self, new: Steps, i: int, state: StepState) -> Steps:
        """``new`` (these states but ``state`` at ``i``) with the facts derived from these."""
        layout = new.layout = self.layout
        old = self[i]
        k = layout.strand[i]
        running = self.running
        if (old.status == "running") != (state.status == "running"):
            members = running[k]
            members = (
                tuple(sorted((*members, i)))
                if state.status == "running"
                else tuple(p for p in members if p != i)
            )
            running = (*running[:k], members, *running[k + 1 :])
        new.running = running
        lead = self.lead
        first = lead[k]
        rank = layout.rank[i]
        if state.status in TERMINAL:
            if rank == first:
                members = layout.strands[k]
                while first < len(members) and new[members[first]].status in TERMINAL:
                    first += 1
                lead = (*lead[:k], first, *lead[k + 1 :])
        elif rank < first:
            lead = (*lead[:k], rank, *lead[k + 1 :])
        new.lead = lead
        new.digest_ = None
        new.delta = None if self.digest_ is None else (self.digest_, i, old, state)
        was, now = old.status == "succeeded", state.status == "succeeded"
        # Only a step that comes to succeed, or stops having succeeded, changes what the
        # succeeded steps publish: no call for the others (issue 16).
        published = self.published_
        new.published_ = self._published_after(i, state, was, now) if was or now else published
        return new

    def _published_after(
        self, i: int, state: StepState, was: bool, now: bool
    ) -> dict[str, JSON] | None:
        """The published outputs once position ``i`` (succeeded: ``was``) becomes ``state``."""
        published = self.published_
        if published is None:
            return None  # computed when first asked for
        step_id = self.layout.plan[i]
        if now and not was and published and self.layout.position[next(reversed(published))] > i:
            return None  # a step published before later ones: plan order is rebuilt
        published = dict(published)
        if now:
            published[step_id] = state.published
        else:
            del published[step_id]
        return published

    @property
    def digest(self) -> int:
        """Σ weight(i)·digest(state i) mod 2^128 over the positions i."""
        if self.digest_ is None:
            if self.delta is not None:
                base, i, old, new = self.delta
                self.digest_ = (base + self.layout.weights[i] * (new.digest - old.digest)) & _MASK
                self.delta = None
            else:
                weights = self.layout.weights
                self.digest_ = sum(w * s.digest for w, s in zip(weights, self, strict=True)) & _MASK
        return self.digest_

    @property
    def published(self) -> dict[str, JSON]:
        """The outputs of the succeeded steps, in plan order: the run scope's ``steps``.

        W6W-BIND-4: "A $ binding to an absent, skipped or failed upstream path
        resolves to null" — only succeeded steps publish.
        """
        if self.published_ is None:
            plan = self.layout.plan
            self.published_ = {
                plan[i]: state.published
                for i, state in enumerate(self)
                if state.status == "succeeded"
            }
        return self.published_


# Plans longer than BIG keep their states (and counters) in chunks of 2^CHUNK_BITS, and
# plans longer than LARGE in chunks of 2^LARGE_CHUNK_BITS: a replace copies one chunk and
# the tuple of chunks (issue 16: at 200 steps, chunks of 32 cost 6% fewer instructions a
# state than the flat tuple; at 100,000 they cost a quarter more time than chunks of 128).
BIG = 64
CHUNK_BITS = 5
LARGE = 4096
LARGE_CHUNK_BITS = 7
# Plans longer than this keep their edge sets persistent (``EdgeSet``): adding an edge to
# a frozenset of 200 copies it (6 µs, measured), to an EdgeSet costs 1 µs at any size.
EDGES_BIG = 32


class _Chunked:
    """A sequence kept as a tuple of chunks: one item replaced copies one chunk.

    Equal to a tuple of the same items; equal chunks are shared between the
    versions a run goes through, so a long run's configurations cost
    O(n / C + C) each instead of O(n), for chunks of C = 2^bits items.
    """

    __slots__ = ("bits", "chunks", "size")
    bits: int
    chunks: tuple[tuple[Any, ...], ...]
    size: int

    @classmethod
    def of(cls, items: tuple[Any, ...]) -> Any:
        new = object.__new__(cls)
        bits = new.bits = LARGE_CHUNK_BITS if len(items) > LARGE else CHUNK_BITS
        size = 1 << bits
        new.chunks = tuple(items[k : k + size] for k in range(0, len(items), size))
        new.size = len(items)
        return new

    def _with(self, i: int, item: Any) -> Any:
        if i < 0:
            i += self.size
        bits = self.bits
        k = i >> bits
        chunk = list(self.chunks[k])
        chunk[i & ((1 << bits) - 1)] = item
        chunks = list(self.chunks)
        chunks[k] = tuple(chunk)
        new = object.__new__(type(self))
        new.bits = bits
        new.chunks = tuple(chunks)
        new.size = self.size
        return new

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return tuple(self)[i]
        if i < 0:
            i += self.size
        if not 0 <= i < self.size:
            raise IndexError(i)
        bits = self.bits
        return self.chunks[i >> bits][i & ((1 << bits) - 1)]

    def __iter__(self) -> Iterator[Any]:
        return itertools.chain.from_iterable(self.chunks)

    def __reversed__(self) -> Iterator[Any]:
        return itertools.chain.from_iterable(map(reversed, reversed(self.chunks)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _Chunked) and other.bits == self.bits:
            return self.chunks == other.chunks  # shared chunks compare by identity first
        if isinstance(other, _Chunked):
            return tuple(self) == tuple(other)
        if isinstance(other, tuple):
            return tuple(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))


class ChunkedSteps(_Chunked):
    """``Steps`` of a plan longer than ``BIG``: the same facts, the states in chunks."""

    __slots__ = ("delta", "digest_", "layout", "lead", "published_", "running")

    def replace(self, i: int, state: StepState) -> Steps:
        """These states with position ``i``'s replaced by ``state``."""
        return Steps._derived(self, self._with(i, state), i, state)  # type: ignore[arg-type]

    _published_after = Steps._published_after
    digest = Steps.digest
    published = Steps.published


class Edges(frozenset[EdgeKey]):
    """A frozenset of edge keys that keeps its digest: Σ digest(edge) mod 2^128.

    What ``activated`` and ``skipped`` hold in a run of up to ``EDGES_BIG`` steps.
    Equal to, and hashing as, the plain frozenset; ``|`` adds the digests of
    the keys it adds, so a configuration's key does not sum every edge of
    the set afresh (fast.py: ``render_edges``; the sum is the one
    ``edge_set_key`` computes for a plain set).
    """

    __slots__ = ("digest",)
    digest: int

    @classmethod
    def empty(cls) -> Edges:
        """The empty set, digest 0."""
        edges = cls()
        edges.digest = 0
        return edges

    def __or__(self, other: Iterable[EdgeKey]) -> Edges:  # type: ignore[override]
        if not other:
            return self  # a step without edges of a lane: the common case
        added = [key for key in other if key not in self]
        if not added:
            return self
        new = Edges(itertools.chain(self, added))
        new.digest = fast.added_digest(self.digest, added)
        return new


class EdgeSet:
    """A persistent set of edge keys: adding k keys costs O(k log n), not O(n).

    What ``activated`` and ``skipped`` hold in a run whose plan is longer
    than ``EDGES_BIG`` (a frozenset's ``|`` copies the whole set, so a chain of n
    steps cost O(n²)); equal to a frozenset of the same keys.  It keeps its
    digest as ``Edges`` does.
    """

    __slots__ = ("digest", "items")

    def __init__(self, items: immutables.Map[EdgeKey, bool] | None = None, digest: int = 0) -> None:
        self.items = items if items is not None else immutables.Map()
        self.digest = digest

    def __or__(self, other: Iterable[EdgeKey]) -> EdgeSet:
        if not other:
            return self  # a step without edges of a lane: the common case
        new = [key for key in other if key not in self.items]
        if not new:
            return self
        added = self.items.mutate()
        for key in new:
            added[key] = True
        return EdgeSet(added.finish(), fast.added_digest(self.digest, new))

    def __contains__(self, key: object) -> bool:
        return key in self.items

    def __iter__(self) -> Iterator[EdgeKey]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EdgeSet):
            return self.items == other.items
        if isinstance(other, frozenset | set):
            return len(other) == len(self.items) and all(k in self.items for k in other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(frozenset(self.items))

    def __repr__(self) -> str:
        return f"EdgeSet({set(self.items)!r})"


collections.abc.Set.register(EdgeSet)
collections.abc.Sequence.register(_Chunked)


class ChunkedCounts(_Chunked):
    """``Counts`` of a plan longer than ``BIG``, in chunks."""

    __slots__ = ("digest", "weights")
    digest: int
    weights: tuple[int, ...]

    def bumped(self, i: int) -> Counts:
        """These counts with position ``i``'s one more."""
        tally = self._with(i, self[i] + 1)
        tally.weights = self.weights
        tally.digest = (self.digest + self.weights[i]) & _MASK
        return tally  # type: ignore[no-any-return]


class Counts(tuple[int, ...]):
    """Per-position counters (a run's invocations) with their digest kept current.

    A tuple — equal to the plain one — whose ``digest`` is Σ weight(i)·count(i)
    mod 2^128, so a configuration's key does not render every count.
    """

    weights: tuple[int, ...]
    digest: int

    def bumped(self, i: int) -> Counts:
        """These counts with position ``i``'s one more."""
        counts = list(self)
        counts[i] += 1
        tally = tuple.__new__(Counts, counts)
        tally.weights = self.weights
        tally.digest = (self.digest + self.weights[i]) & _MASK
        return tally


# What the rules keep a configuration's steps and counters in (``Layout``), as the one
# tuple ``isinstance`` takes: ``A | B`` built a union at every call (issue 16).
KEPT_STEPS = (Steps, ChunkedSteps)
KEPT_COUNTS = (Counts, ChunkedCounts)


@attrs.frozen(slots=False)  # a __dict__, as StepState's
class Config:
    """A configuration of one run (see the module notation)."""

    status: str = "queued"
    clock: int = 0
    steps: tuple[StepState, ...] = ()
    variables: JSON = attrs.field(default=None, eq=False)
    activated: frozenset[EdgeKey] = frozenset()
    skipped: frozenset[EdgeKey] = frozenset()
    failure: tuple[str, StepError] | None = None
    errors: tuple[tuple[str, StepError], ...] = ()
    rejection: JSON = attrs.field(default=None, eq=False)
    invocations: tuple[int, ...] = ()  # per plan position, across the whole run
    run_attempt: int = 1
    rerouted: bool = False
    handled: bool = False  # the run-level handler resolved the failure
    handled_output: JSON = attrs.field(default=None, eq=False)
    checkpoints: int = 0  # checkpoints written so far (W6W-STATE-2)
    crash_due: bool = False  # the host crashes right after the last checkpoint
    resumed: bool = False  # this execution resumed a crashed one
    signalled: bool = False  # the host's abort signal has fired (W6W-HOST-3)
    sub_invocations: tuple[tuple[str, int], ...] = ()  # sub-block steps' invocations, by id
    suspensions: int = 0  # wait suspensions so far (each resumed one counts)
    waiting: int = 0  # steps suspended now (kept so that draining is known in O(1))
    suspension: tuple[str, str] | None = None  # a suspended run's (step id, resume token)

    # Every field's rendering, digested (fast.kept_digest: derived from the digest of
    # the configuration this one was evolved from, by the fields that changed).
    digest = fast.kept_digest(fast.config_renderers)


_step_key = fast.compile_key(fast.step_renderers(StepState), "\x1e", "(", ")")


# config_key(c): a 128-bit digest of a canonical rendering of every field of c (for exploration).
#
# Derived from the attrs fields themselves, so a field added to Config can
# never be left out of the key (two configurations with equal keys are the
# same configuration, but with probability 2^-128).  Each field has a
# renderer chosen once by its value's type (fast.py: ``config_renderers``);
# the key sums the digests of the fields' texts (``fast.kept_digest``), so
# a configuration's is derived from its predecessor's by what changed.
# Read as an attribute getter, without a Python call of its own: the explorer and the
# checker ask once a state (issue 16).
config_key: Callable[[Config], int] = operator.attrgetter("digest")


@attrs.frozen
class Replay:
    """What a replay reuses: the recorded outputs of the original run's succeeded steps.

    RFC "Replay": "for each step that succeeded in the original run, it uses
    the recorded StepExecution.output verbatim. Steps that were pending or
    failed run fresh."  ``fresh`` holds the steps replayed "from" (W6W-FAN-11:
    "from replays that step plus all its graph descendants").
    """

    outputs: dict[str, JSON] = attrs.field(eq=False)
    fresh: frozenset[str] = frozenset()
    metas: dict[str, JSON] = attrs.field(factory=dict, eq=False)

    @classmethod
    def of(
        cls, run_state: JSON, workflow: Workflow, start: str | None = None, graph: str = "chain"
    ) -> Replay:
        """The replay of a recorded RunState, optionally from step ``start``.

        ``graph``: A-71's reading (``Options.replay_graph``, ``descendants``).
        """
        if not isinstance(run_state, dict):
            raise InvalidInput("a replayed RunState is a JSON object")
        records = run_state.get("steps", {})
        if not isinstance(records, dict):  # issue 19: a list here was an internal error
            raise InvalidInput("a replayed RunState's steps must be an object", "$.steps")
        outputs = {
            step_id: record.get("output")
            for step_id, record in records.items()
            if isinstance(record, dict) and record.get("status") == "succeeded"
        }
        metas = {
            step_id: records[step_id]["meta"]
            for step_id in outputs
            if isinstance(records[step_id].get("meta"), dict)
        }
        fresh: frozenset[str] = frozenset()
        if start is not None:
            fresh = frozenset({start} | descendants(workflow, start, graph == "chain"))
        return cls(outputs, fresh, metas)


def descendants(workflow: Workflow, step_id: str, implicit_chain: bool = True) -> set[str]:
    """Every step reachable from ``step_id`` along edges of either lane.

    Without edges the graph is the implicit chain: RFC Workflow.edges "When
    absent, the engine treats steps as a linear chain in declared order"
    (W6W-PLAN-2: "If edges is empty or absent → the plan is steps in declared
    order (implicit linear chain)"), so a step's descendants are the steps
    declared after it.  With edges, only the edges count (finding F-12).
    ``implicit_chain`` False is A-71's other reading: only declared edges make
    descendants, so an edgeless document's step has none.
    """
    successors: dict[str, list[str]] = {}
    if not workflow.edges and implicit_chain:
        ids = [step.id for step in workflow.steps]
        successors = {a: [b] for a, b in itertools.pairwise(ids)}
    for edge in workflow.edges:
        successors.setdefault(edge.from_, []).append(edge.to)
    seen: set[str] = set()
    frontier = [step_id]
    while frontier:
        for successor in successors.get(frontier.pop(), []):
            if successor not in seen:
                seen.add(successor)
                frontier.append(successor)
    return seen


class Launch(StrEnum):
    """When a strand launches its next step (assumption A-74; W6W-FAN-5, W6W-FAN-9).

    ``separate``: a launch is a transition of its own, so another strand's
    completion — a failure that starts the drain — may come between a step's
    end and its strand's next launch.  ``eager``: every launch a completion
    makes possible happens before any other step's attempt ends (an engine
    that launches from its completion handler).  Every ``eager`` trace is a
    ``separate`` trace, so the default judges both kinds of engine; select
    ``eager`` to hold an engine to it (as ``TieBreak`` selects a plan).
    """

    SEPARATE = "separate"
    EAGER = "eager"


@attrs.frozen
class Options:
    """The readings the model takes where the RFC is open (docs/assumptions.md; issue 18).

    Each field is one assumption's reading, the model's choice the default:
    ``launch`` A-74; ``indegree`` A-50 gap (1) — whether a step's indegree
    counts its inbound edges or their distinct sources (a success and an
    error edge from one source: a join, or a single-source successor that a
    parallel source may put on a new strand); ``resolution_retry`` A-41 —
    whether a with block that fails to resolve is retried like an execute
    failure the policy covers (each retry resolves again) or never;
    ``chain_check`` A-37 — whether an ``=`` payload shaped like a fallback
    chain is root-checked per operand like an infix chain ("part") or exempt
    ("infix": only a marker written with || / ?? is checked); ``bare_secret``
    A-158 — whether ``{{ secrets }}`` / ``{{ secrets. }}`` is a path marker on
    the generic data root that resolves to nothing ("empty") or a secret
    marker naming no secret, which fails the step ("fails"); ``if_truthiness``
    A-53 — whether an ``if`` control's condition is truthy as JSONLogic's
    truthiness has it ("jsonlogic": ``[]`` is false, A-20) or as JavaScript's
    ``!!value`` ("javascript": ``[]`` and ``{}`` are true); ``tie_break`` A-02 —
    how the plan orders steps that become ready together ("declared": the
    earliest-declared ready step next; "fifo": in the order they became
    ready), read where the plan is built (properties/w6w/specification.py
    ``_validator``: the run's and every called workflow's plan);
    ``required_default`` A-42 — whether a required variable's default
    satisfies it ("default": the run starts) or only a supplied value does
    ("supplied": the run is rejected, ``missing_variable``);
    ``rejected_status`` A-72 — a run refused at its start ends ``failed``
    with its error (the model's choice) or ``canceled``; ``structured`` A-33 —
    an object or array in a string is JSON.stringify's text ("json") or
    JavaScript's ``String(v)`` ("string": ``[object Object]``, ``1,2``);
    ``replay_graph`` A-71 — the graph whose descendants a replay ``from``
    re-runs: an edgeless document's implicit chain ("chain") or only the
    declared edges ("edges": an edgeless document has none);
    ``unterminated_render`` A-157 — a render part's content with an
    unterminated ``{{`` resolves the markers before it ("rest") or is
    literal as a whole ("literal"); ``handler_abort`` A-164 — an abort signal
    that fires once the run-level handler has acted (``run_continued``,
    ``run_rerouted``) is still polled as the run finalizes ("canceled") or
    the run ends as the handler left it ("resolved"); ``signal_retries``
    A-165 — a step in flight at the abort signal finishes with its retries
    ("finish") or makes no further attempt ("stop": its failed attempt is
    final); ``child_trigger`` A-56 — a @w6w/call's child run sees the manual
    trigger ("manual") or its caller's ("inherit"); ``resumed_attempt`` A-46 —
    a step running at a crash starts over from attempt 1 ("restart") or at
    the attempt number its checkpoint holds ("kept": the lost attempt counts
    toward maxAttempts).
    """

    launch: Launch = Launch.SEPARATE
    indegree: str = attrs.field(
        default="sources", validator=attrs.validators.in_(("sources", "edges"))
    )
    resolution_retry: bool = False
    chain_check: str = attrs.field(
        default="part", validator=attrs.validators.in_(("part", "infix"))
    )
    bare_secret: str = attrs.field(
        default="empty", validator=attrs.validators.in_(("empty", "fails"))
    )
    if_truthiness: str = attrs.field(
        default="jsonlogic", validator=attrs.validators.in_(("jsonlogic", "javascript"))
    )
    tie_break: str = attrs.field(
        default="declared", validator=attrs.validators.in_(("declared", "fifo"))
    )
    required_default: str = attrs.field(
        default="default", validator=attrs.validators.in_(("default", "supplied"))
    )
    rejected_status: str = attrs.field(
        default="failed", validator=attrs.validators.in_(("failed", "canceled"))
    )
    structured: str = attrs.field(
        default="json", validator=attrs.validators.in_(("json", "string"))
    )
    replay_graph: str = attrs.field(
        default="chain", validator=attrs.validators.in_(("chain", "edges"))
    )
    unterminated_render: str = attrs.field(
        default="rest", validator=attrs.validators.in_(("rest", "literal"))
    )
    handler_abort: str = attrs.field(
        default="canceled", validator=attrs.validators.in_(("canceled", "resolved"))
    )
    signal_retries: str = attrs.field(
        default="finish", validator=attrs.validators.in_(("finish", "stop"))
    )
    jsonlogic: str = attrs.field(
        default="community", validator=attrs.validators.in_(("community", "classic"))
    )
    child_trigger: str = attrs.field(
        default="manual", validator=attrs.validators.in_(("manual", "inherit"))
    )
    resumed_attempt: str = attrs.field(
        default="restart", validator=attrs.validators.in_(("restart", "kept"))
    )


READINGS = Options()  # the model's choices


class Unsupported(Exception):
    """The document uses something this semantics does not model yet."""
