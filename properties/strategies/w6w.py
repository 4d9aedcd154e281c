"""Strategies that generate w6w documents (as parsed JSON values).

``workflows()`` draws valid, runnable workflow documents whose edges respect
a hidden topological order that usually differs from the declared order, so
planning has real work to do.  Simplest alternatives come first so that a
failing example shrinks to few steps and no edges.  ``json_values()`` draws
arbitrary JSON for fuzzing the loader.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from wforacle.model.w6w.document import written_steps as all_steps
from wforacle.properties.strategies.sampled import sampled

STEP_ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789_-"

step_ids = st.text(STEP_ID_ALPHABET, min_size=1, max_size=6)

# Strategies built once: constructing them inside draws costs Hypothesis a cache
# lookup per call, which dominated case generation (benchmarks/bench_fuzz.py).
_S0 = st.booleans()
_S1 = st.sampled_from(["fixed", "exponential"])
_S2 = st.sampled_from(["linear", "slack", "http"])
_S3 = st.sampled_from(["fail", "continue", "continue-record"])
_S4 = st.sampled_from(["sequential", "parallel"])
_S5 = st.sampled_from(["success", "error"])
_S7 = st.sampled_from(["execute", "auth", "output", "resolution"])
_S8 = st.sampled_from(["fail", "continue-record"])
_S9 = st.sampled_from(["if", "foreach", "parallel"])
_S10 = st.lists(st.integers(0, 9), max_size=2)
_S11 = st.integers(1, 2)
_S12 = st.sampled_from(["exponential", "fixed"])
_S13 = st.integers(2, 3)
_S14 = st.sampled_from(["parallel", "parallel", "sequential"])
_S15 = st.integers(0, 4)
_S16 = st.integers(0, 3)
_S17 = st.sampled_from(["done", 0, None, {"ok": True}])
# A schedule (which outstanding invocation completes next, up to 12 times) in one
# choice: a byte string read as digits 0-7 (issue 16: a list of integers cost two
# choices an element, a tenth of a campaign's).  It shrinks as the list did: shorter
# first, then each byte, so each digit, smaller.
_S18 = st.binary(max_size=12).map(lambda raw: [byte & 7 for byte in raw])
_S19 = st.integers(1, 8)


# Strategies whose arguments come from a draw (the step ids so far, a step's id), built
# once per argument: a strategy object is validated and its properties computed at its
# first draw, which cost a tenth of a campaign's generation (issue 16).  The same
# strategy, so the same cases for a seed.
@functools.lru_cache(maxsize=4096)
def _sources(earlier: tuple[str, ...]) -> st.SearchStrategy[list[str]]:
    """One or two distinct step ids among ``earlier``: a step's inbound sources."""
    return st.lists(sampled(earlier), min_size=1, max_size=2, unique=True)


@functools.lru_cache(maxsize=4096)
def _replayed(ids: tuple[str, ...]) -> st.SearchStrategy[str | None]:
    """A replay's ``from``: none (the whole run) or a step id."""
    return st.none() | sampled(ids)


# W6W-KEY-1 grammar: a lowercase letter, then runs of [a-z0-9] joined by
# single hyphens, 3..39 characters in all.
workflow_keys = st.from_regex(r"[a-z][a-z0-9]{2,10}(-[a-z0-9]{1,8}){0,3}", fullmatch=True)


def json_values(max_leaves: int = 20) -> st.SearchStrategy[Any]:
    """Arbitrary JSON values (finite numbers, any strings)."""
    scalars = (
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=10)
    )
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=max_leaves,
    )


_MAX_ATTEMPTS = st.integers(1, 10**6)
_DELAYS = st.integers(0, 10**7) | st.floats(0, 1e9)


@st.composite
def retry_policies(draw: st.DrawFn) -> dict[str, Any] | None:
    """Well-formed RetryPolicy objects (W6W-RETRY-1..3), or null."""
    if draw(_S0):
        return None
    policy: dict[str, Any] = {"maxAttempts": draw(_MAX_ATTEMPTS)}
    if draw(_S0):
        policy["delayMs"] = draw(_DELAYS)
    if draw(_S0):
        policy["backoff"] = draw(_S1)
    return policy


@st.composite
def steps(draw: st.DrawFn, step_id: str, presentation: bool = True) -> dict[str, Any]:
    """One runnable app step (with presentation fields, which the engine never reads)."""
    step: dict[str, Any] = {
        "id": step_id,
        "uses": {"app": draw(_S2), "action": "run"},
    }
    if draw(_S0):
        step["retry"] = draw(_RETRY_POLICIES)
    if draw(_S0):
        step["onError"] = draw(_S3)
    if draw(_S0):
        step["fanOut"] = draw(_S4)
    if presentation and draw(_S0):
        # Presentation: arbitrary, never read (W6W-PRES-1).
        step["position"] = draw(json_values(4))
        step["notes"] = draw(json_values(4))
    return step


@st.composite
def workflows(draw: st.DrawFn, min_steps: int = 1, max_steps: int = 12) -> dict[str, Any]:
    """Valid, runnable workflow documents."""
    ids = draw(st.lists(step_ids, min_size=min_steps, max_size=max_steps, unique=True))
    hidden = draw(st.permutations(range(len(ids))))  # a topological order
    rank = {node: position for position, node in enumerate(hidden)}
    pairs = [(a, b) for a in range(len(ids)) for b in range(len(ids)) if rank[a] < rank[b]]
    chosen = draw(st.lists(sampled(pairs), max_size=2 * len(ids))) if pairs else []
    edges = []
    for a, b in chosen:
        edge: dict[str, Any] = {"from": ids[a], "to": ids[b]}
        if draw(_S0):
            edge["when"] = draw(_S5)
        edges.append(edge)
    doc: dict[str, Any] = {
        "manifestVersion": "2",
        "id": "wf_" + draw(st.text("abcdef0123456789", min_size=1, max_size=8)),
        "name": "generated",
        "steps": [draw(steps(step_id)) for step_id in ids],
    }
    keep_empty_edges = draw(_S0)
    if edges or keep_empty_edges:
        doc["edges"] = edges
    if draw(_S0):
        doc["key"] = draw(workflow_keys)
    if draw(_S0):
        doc["retry"] = draw(retry_policies())
    if draw(_S0):
        doc["settings"] = draw(json_values(6))
    return doc


@st.composite
def step_errors(draw: st.DrawFn) -> dict[str, Any]:
    """StepErrors of every phase, retryable or not."""
    code, phase, retryable = draw(_STEP_ERROR_FIELDS)
    return {"code": code, "message": "generated", "phase": phase, "retryable": retryable}


# Code, phase and retryable in one choice (issue 16: a choice costs ~30 µs), the
# simplest first: what each shrinks towards is what three draws shrank towards.
_STEP_ERROR_FIELDS = st.sampled_from(
    [
        (code, phase, retryable)
        for retryable in (False, True)
        for phase in ["execute", "auth", "output", "resolution"]
        for code in ["timeout", "denied", "bad_output", "network_error"]
    ]
)


# Small outputs: enough to tell steps apart and to flow through $ bindings.  Five
# kinds, a fifth of the draws each, as the one_of of the five once drew them: null,
# a boolean, an integer -2..9, one of three strings, a list of up to two of 0..3.
# Drawn in one choice (issue 16: the one_of and its list cost two to five), an index
# into blocks of equal size, the simplest first: null, false, 0, "a", [].  Lists are
# built afresh at each draw, so no two cases share one.
_OUTPUT_KINDS: tuple[tuple[Any, ...], ...] = (
    (None,),
    (False, True),
    (*range(10), -1, -2),
    ("a", "b", "{{ vars.x }}"),
    ((), *((n,) for n in range(4)), *((m, n) for m in range(4) for n in range(4))),
)
_KIND_BLOCK = math.lcm(*(len(kind) for kind in _OUTPUT_KINDS))  # 84
_SMALL_OUTPUTS = tuple(kind[k % len(kind)] for kind in _OUTPUT_KINDS for k in range(_KIND_BLOCK))
small_outputs = st.integers(0, len(_SMALL_OUTPUTS) - 1).map(
    lambda k: list(_SMALL_OUTPUTS[k]) if isinstance(_SMALL_OUTPUTS[k], tuple) else _SMALL_OUTPUTS[k]
)


@st.composite
def scenarios(
    draw: st.DrawFn, document: dict[str, Any], outputs: st.SearchStrategy[Any] | None = None
) -> dict[str, Any]:
    """Scenarios for ``document``: per step, a few attempts' results and idempotency."""
    steps = {}
    for step in all_steps(document["steps"]):
        idempotent = draw(_SCRIPTED)  # None: no script (half the steps)
        if idempotent is not None:
            attempts = draw(_attempt_lists(outputs))
            steps[step["id"]] = {"attempts": attempts, "idempotent": idempotent}
    return {"steps": steps}


# Whether a step is scripted and whether it is idempotent in one choice (issue 16).
_SCRIPTED = st.sampled_from([None, None, False, True])


@functools.cache
def _attempt_lists(outputs: st.SearchStrategy[Any] | None) -> st.SearchStrategy[list[Any]]:
    """One to four scripted results, outputs drawn from ``outputs`` (JSON values if None).

    Built once per ``outputs``: a strategy built inside a draw is validated
    at every draw, which was a third of case generation (bench_fuzz.py).
    """
    values = outputs if outputs is not None else json_values(3)
    results = st.builds(lambda o: {"output": o}, values)
    errors = st.builds(lambda e: {"error": e}, step_errors())
    return st.lists(results | errors, min_size=1, max_size=4)


def sequential_workflows(max_steps: int = 8) -> st.SearchStrategy[dict[str, Any]]:
    """Valid workflows with no parallel step (the semantics of issue 4 so far).

    Retry policies are capped at 4 attempts so that a run stays short: the
    RFC allows any maxAttempts (W6W-RETRY-8), and a million attempts of a
    permanently failing step is a valid but slow thing to execute.
    """

    def sequential(doc: dict[str, Any]) -> dict[str, Any]:
        for holder in (doc, *doc["steps"]):
            holder.pop("fanOut", None)
            if isinstance(holder.get("retry"), dict):
                holder["retry"]["maxAttempts"] = min(holder["retry"]["maxAttempts"], 4)
        return doc

    return workflows(max_steps=max_steps).map(sequential)


_BLOCK_READS = st.integers(0, 4)


@st.composite
def control_steps(draw: st.DrawFn, step_id: str, ids: list[str]) -> dict[str, Any]:
    """A canonical if, foreach or parallel control with small blocks (A-06, A-53).

    Block steps get ids ``<step_id>_<n>`` (distinct from every other id) and
    may read a main-graph step or an earlier block step's output, an earlier
    block step's meta (W6W-META-20: published "into its inner scope exactly
    as it publishes output"), or in a foreach body ``foreach.item`` and
    ``foreach.index`` as paths and as ``{{ }}`` markers (W6W-ROOT-6, the
    eight roots of W6W-ROOT-25).  A control may declare a retry policy,
    which it does not run (W6W-EDGE-8).
    """
    counter = iter(range(100))

    def block(size: int) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for _ in range(size):
            inner = {"id": f"{step_id}_{next(counter)}", "uses": {"app": "demo", "action": "run"}}
            if draw(_S0):
                inner["onError"] = draw(_S8)
            if draw(_S0):
                read = draw(_BLOCK_READS)
                earlier = [s["id"] for s in found]
                if read == 1 and earlier:
                    inner["with"] = {"meta": {"$": f"steps.{draw(sampled(earlier))}.meta"}}
                elif read == 2 and action == "foreach":
                    inner["with"] = {"item": {"$": "foreach.item"}, "i": {"$": "foreach.index"}}
                elif read == 3 and action == "foreach":
                    inner["with"] = {"item": "{{ foreach.item }}"}
                else:
                    other = draw(sampled([*ids, *earlier]))
                    inner["with"] = {"seen": {"$": f"steps.{other}.output"}}
            found.append(inner)
        return found

    action = draw(_S9)
    with_: dict[str, Any]
    if action == "if":
        with_ = {"condition": draw(_S0), "then": block(2), "else": block(1)}
    elif action == "foreach":
        with_ = {"items": draw(_S10), "body": block(1)}
    else:
        with_ = {"branches": [block(draw(_S11)) for _ in range(2)]}
    step: dict[str, Any] = {
        "id": step_id,
        "uses": {"app": "@w6w/control", "action": action},
        "with": with_,
    }
    if draw(_S0):
        step["onError"] = draw(_S3)
    if draw(_S0):
        step["fanOut"] = "parallel"
    if draw(_S15) == 0:
        step["retry"] = {"maxAttempts": 2}
    return step


@functools.cache
def _retry_delays(max_delay: int) -> st.SearchStrategy[int]:
    """Small delays, and near and past the 300000 ms ceiling (W6W-RETRY-9) when allowed."""
    delays = st.integers(0, min(max_delay, 3))
    if max_delay > 3:
        delays |= sampled([1000, 80_000, 150_001, max_delay])
    return delays


@st.composite
def _fan_out_workflow(
    draw: st.DrawFn, max_steps: int, controls: bool, max_delay: int
) -> dict[str, Any]:
    ids = draw(st.lists(step_ids, min_size=2, max_size=max_steps, unique=True))
    doc_steps = []
    edges: list[dict[str, Any]] = []
    for k, step_id in enumerate(ids):
        step = draw(_fan_out_step(step_id, max_delay))
        if draw(_S0):
            if draw(_S0):
                step["with"] = with_blocks(draw, ids)
            else:
                other = draw(sampled(ids))
                step["with"] = {"seen": {"$": f"steps.{other}.output"}}
        if controls and draw(_S15) == 0:
            step = draw(_control_step(step_id, tuple(ids)))
        doc_steps.append(step)
        if k:
            sources = draw(_sources(tuple(ids[:k])))
            for source in sources:
                edge: dict[str, Any] = {"from": source, "to": step_id}
                if draw(_S16) == 0:
                    edge["when"] = draw(_S5)
                edges.append(edge)
    if controls:
        _block_reads_upstream(doc_steps, edges)
    return {
        "manifestVersion": "2",
        "id": "wf_fan",
        "name": "generated",
        "steps": doc_steps,
        "edges": edges,
    }


def _block_reads_upstream(doc_steps: list[dict[str, Any]], edges: list[dict[str, Any]]) -> None:
    """Drop a block step's read of a main-graph step that is not upstream of its control.

    A sub-block reads the run scope as it is when its control's attempt is
    made (A-54); a step on a concurrent strand may or may not have succeeded
    by then, in the engine as in the model, so such a read is a race the
    case would leave to chance (a false divergence).  Reads of ancestors
    and of the block's own steps stay.
    """
    sources: dict[str, set[str]] = {}
    for edge in edges:
        sources.setdefault(edge["to"], set()).add(edge["from"])
    for step in doc_steps:
        if (step.get("uses") or {}).get("app") != "@w6w/control":
            continue
        upstream: set[str] = set()
        frontier = [step["id"]]
        while frontier:
            for source in sources.get(frontier.pop(), ()):
                if source not in upstream:
                    upstream.add(source)
                    frontier.append(source)
        own = {inner["id"] for inner in all_steps([step])}
        for inner in all_steps([step])[1:]:
            seen = (inner.get("with") or {}).get("seen")
            path = seen.get("$", "") if isinstance(seen, dict) else ""
            named = path.split(".")[1] if path.startswith("steps.") else None
            if named is not None and named not in upstream | own:
                del inner["with"]


_RETRY_POLICIES = retry_policies()


@functools.lru_cache(maxsize=4096)
def _fan_out_step(step_id: str, max_delay: int) -> st.SearchStrategy[dict[str, Any]]:
    """One runnable step of a fan-out graph, built once per id (see ``_sources``)."""
    return _fan_out_steps(step_id, max_delay)


@st.composite
def _fan_out_steps(draw: st.DrawFn, step_id: str, max_delay: int) -> dict[str, Any]:
    """A runnable app step whose retry is capped at 3 attempts and may fan out.

    Draws only what the step keeps (issue 16: every Hypothesis choice costs
    about 30 µs of a campaign's generation).  With ``max_delay`` past 3, the
    delays reach near and past the 300000 ms ceiling (W6W-RETRY-9) and the
    policy is drawn whole: backoff, two or three attempts, a delay.
    """
    step: dict[str, Any] = {"id": step_id, "uses": {"app": draw(_S2), "action": "run"}}
    if draw(_S0):
        delays = _retry_delays(max_delay)
        if max_delay > 3:
            if draw(_S0):
                step["retry"] = None
            else:
                step["retry"] = {"maxAttempts": draw(_S13), "backoff": draw(_S12)}
                step["retry"]["delayMs"] = draw(delays)
        else:
            policy = draw(_RETRY_POLICIES)
            if policy is not None:
                policy["maxAttempts"] = min(policy["maxAttempts"], 3)
                policy["delayMs"] = draw(delays)
            step["retry"] = policy
    if draw(_S0):
        step["onError"] = draw(_S3)
    step["fanOut"] = draw(_S14)
    return step


@functools.lru_cache(maxsize=4096)
def _control_step(step_id: str, ids: tuple[str, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``control_steps(step_id, ids)``, built once per id and ids (see ``_sources``)."""
    return control_steps(step_id, list(ids))


@functools.lru_cache(maxsize=64)
def _engine_workflows(max_steps: int) -> st.SearchStrategy[dict[str, Any]]:
    """The fan-out graphs of ``engine_cases``, with controls and delays near the ceiling."""
    return parallel_workflows(max_steps=max_steps, controls=True, max_delay=200_000)


def parallel_workflows(
    max_steps: int = 6, controls: bool = False, max_delay: int = 3
) -> st.SearchStrategy[dict[str, Any]]:
    """Valid workflows built to fan out: one root, every other step fed by earlier ones.

    Each step after the first takes one or two sources among the earlier
    steps (so strands open and join), may fan out in parallel, may bind
    ``{"$": "steps.<other>.output"}`` of any step, so that a with block can
    depend on the interleaving (W6W-FAN-5), and may route failures.  Retries
    are capped at 3 attempts with small delays, to keep naive exploration short.
    With ``controls``, about one step in five is a canonical control.
    """
    return _fan_out_workflow(max_steps, controls, max_delay)


# onExecuted reports (W6W-META-9..12): well-formed, over the 256 cap, malformed.
meta_reports = st.sampled_from(
    [
        {"app": "slack", "version": "2.1.0", "action": "post", "connectionId": "conn_1"},
        {"app": "slack", "version": "2.1.0", "action": "post"},
        {"app": "linear", "version": "1", "action": "x" * 257},
        {"app": "linear", "version": "1", "action": "run", "connectionId": 7},
        {"version": "1", "action": "run"},
        "not an object",
    ]
)
_META_REPORTS = st.lists(meta_reports, min_size=1, max_size=2)  # an attempt's reports


@st.composite
def engine_scenarios(draw: st.DrawFn, document: dict[str, Any]) -> dict[str, Any]:
    """Scenarios for engine campaigns: per step a few results, some with meta reports."""
    scenario = draw(scenarios(document, small_outputs))
    if any("with" in step for step in document["steps"]):
        expression_roots(draw, scenario)
    for step in document["steps"]:
        if isinstance(step.get("retry"), dict) and draw(_S0):
            # A retried step whose attempts keep failing retryably: the backoff ladder.
            error = {"code": "flaky", "message": "generated", "phase": "execute", "retryable": True}
            failures = draw(st.integers(1, step["retry"]["maxAttempts"]))
            attempts: list[dict[str, Any]] = [{"error": error}] * failures
            if draw(_S0):
                attempts.append({"output": draw(small_outputs)})
            scenario["steps"][step["id"]] = {"attempts": attempts, "idempotent": False}
    for script in scenario["steps"].values():
        for attempt in script["attempts"]:
            if draw(_S16) == 0:
                attempt["meta"] = draw(_META_REPORTS)
    scenario["default"] = {"output": draw(_S17)}
    return scenario


# -- with values from the whole expression grammar (issue 18, part 2) ----------------------
#
# RFC "Expression markers" and its amendments: {"$": path}, {"$expr": logic},
# ExprValue envelopes with text/var/secret/expr/render parts, {{ }} template
# strings (root-anchored, all-or-nothing), fallback chains, secrets and
# documents.  Biased to resolve: paths name roots the scenario provides
# (``expression_roots``), secret names the scenario holds; a few name nothing
# (an absent path, a missing secret, a render of a number), so some steps fail
# at resolution.  ``$expr`` and ``=`` markers use only var, cat, == and if (the
# bundled toyflow engine's JSON Logic).  docs/expressions.md lists what is drawn.

SECRET_NAMES = ("API_KEY", "TOKEN")
SECRET_VALUES = {"API_KEY": "tok-7f3a", "TOKEN": "pw-91c2"}
# The documents root: plain text, templates, a document rendering another (one pass),
# a rendered secret reference (a var part there, W6W-ENV-23), a non-string.
DOCUMENTS = {
    "greeting": {"body": "Hello {{ vars.name }}"},
    "nested": {"body": "see {{ documents.greeting.body }}"},
    "leak": {"body": "key={{ secrets.API_KEY }}"},
    "plain": {"body": "no markers"},
    "count": {"body": 3},
}
_VARIABLE_VALUES = st.sampled_from(
    [5, "Ada", "", 0, True, False, None, [1, 2], {"k": "v"}, "{{ vars.name }}"]
)
_VARIABLES = st.fixed_dictionaries({"name": _VARIABLE_VALUES, "n": _VARIABLE_VALUES})
_TRIGGERS = st.sampled_from(
    [{"type": "webhook", "event": {"since": "2026-07-02", "count": 2}}, {"type": "manual"}]
)
_SECRETS = st.sampled_from(
    [dict(SECRET_VALUES), {"API_KEY": SECRET_VALUES["API_KEY"]}, {"TOKEN": SECRET_VALUES["TOKEN"]}]
)
# Paths into the roots a scenario provides ("@" stands for an earlier step's id).
_PATHS = st.sampled_from(
    [
        "vars.name",
        "steps.@.output",
        "secrets.API_KEY",  # the generic data root has no secrets (W6W-ENV-18)
        "vars.n",
        "trigger.event.since",
        "documents.greeting.body",
        "vars.missing",
        "steps.@.output.0",
        "trigger.type",
    ]
)
_RENDER_REFS = st.sampled_from(
    [
        "documents.nested.body",  # renders another document's text, once (W6W-ENV-12)
        "documents.greeting.body",
        "documents.leak.body",  # {{ secrets.API_KEY }} rendered: a var part (W6W-ENV-23)
        "documents.plain.body",
        "documents.count.body",  # render_ref_not_a_string
        "vars.missing",  # render_ref_unresolved
    ]
)
_CHAIN_OPERANDS = ["vars.missing", "vars.name", "steps.@.output", "vars.n"]
_CHAIN_FIRST = st.sampled_from(_CHAIN_OPERANDS)
_CHAIN_LAST = st.sampled_from(_CHAIN_OPERANDS[1:])
_LITERALS = st.sampled_from(["x", "", 5, 0, True, None])
_UNROOTED = st.sampled_from(["{{ name }}", "{{var:name}}", "{{ badroot.x }}", "{{ }}"])
_TEXTS = st.sampled_from(["", "", "Hi ", "Bearer ", " and "])
_S22 = st.integers(0, 9)
_S23 = st.integers(0, 4)
_S24 = st.integers(1, 2)
_S25 = st.integers(0, 5)
_S26 = st.integers(0, 11)
_SECRET_NAMES = st.sampled_from(SECRET_NAMES)
_ON_ERRORS = st.sampled_from([None, None, "continue", "continue-record"])


def _path(draw: st.DrawFn, ids: list[str], refs: st.SearchStrategy[str] = _PATHS) -> str:
    path = draw(refs)
    if "@" in path:
        if not ids:
            return "vars.name"
        path = path.replace("@", ids[draw(_S26) % len(ids)])
    return path


def _logic(draw: st.DrawFn, ids: list[str]) -> Any:
    """JSON Logic over the generic data root: var, cat, == or if."""
    var = {"var": _path(draw, ids)}
    kind = draw(_S23)
    if kind == 0:
        return var
    if kind == 1:
        return {"cat": [draw(_LITERALS), var]}
    if kind == 2:
        # Compared as strings (cat): == of a string and a number that is not one is NaN.
        return {"==": [{"cat": [var]}, draw(_TEXTS)]}
    return {"if": [var, draw(_LITERALS), draw(_LITERALS)]}


def _path_marker(draw: st.DrawFn, ids: list[str]) -> str:
    return "{{ " + _path(draw, ids) + " }}"


_BARE_SECRETS = st.sampled_from(("", "", "", "", "{{ secrets }}", "{{ secrets. }}"))
_REFUSED_CHAINS = st.sampled_from(("mixed", "empty", "secret", "unrooted"))


def _chain_marker(draw: st.DrawFn, ids: list[str]) -> str:
    """A fallback chain whose first operand is often absent or falsy, so it falls back.

    One in six is not a chain the editor-mode arm builds, or not a rooted
    one: it mixes ``||`` and ``??``, has an empty operand or one beginning
    ``secrets.`` (W6W-CHAIN-4/5: the arm refuses it and the ordinary path
    production reads the marker), or an unrooted operand (W6W-CHAIN-8: the
    chain is rooted iff every operand is).
    """
    operator = " || " if draw(_S0) else " ?? "
    last = json.dumps(draw(_LITERALS)) if draw(_S0) else _path(draw, ids, _CHAIN_LAST)
    first = _path(draw, ids, _CHAIN_FIRST)
    if draw(_S25) == 5:
        other = " ?? " if operator == " || " else " || "
        refused = {
            "mixed": first + operator + _path(draw, ids, _CHAIN_LAST) + other + last,
            "empty": first + operator,
            "secret": "secrets." + draw(_SECRET_NAMES) + operator + last,
            "unrooted": "name" + operator + last,
        }
        return "{{ " + refused[draw(_REFUSED_CHAINS)] + " }}"
    return "{{ " + first + operator + last + " }}"


def _template(draw: st.DrawFn, ids: list[str]) -> str:
    """A string with {{ }} markers, one shape of the root-anchoring rule each.

    A lone path marker (one string, W6W-ROOT-9), rooted and unrooted markers
    mixed (all-or-nothing, W6W-ROOT-2), a fallback chain (W6W-CHAIN-1/2), a
    secret marker (W6W-ROOT-11), ``=`` JSON Logic, unrooted markers or an
    unterminated ``{{`` only (W6W-ROOT-1, W6W-ROOT-12).
    """
    kind = draw(_S25)
    if kind == 0:
        return _path_marker(draw, ids)
    if kind == 1:
        rooted, unrooted = _path_marker(draw, ids), draw(_UNROOTED)
        pair = (rooted, unrooted) if draw(_S0) else (unrooted, rooted)
        return draw(_TEXTS) + pair[0] + draw(_TEXTS) + pair[1]
    if kind == 2:
        return draw(_TEXTS) + _chain_marker(draw, ids)
    if kind == 3:
        # Now and then a bare {{ secrets }} or {{ secrets. }}: a path marker on the generic
        # data root, or a secret marker naming no secret (A-158's readings).
        bare = draw(_BARE_SECRETS)
        return draw(_TEXTS) + (bare or "{{ secrets." + draw(_SECRET_NAMES) + " }}")
    if kind == 4:
        return "{{ =" + json.dumps(_logic(draw, ids), separators=(",", ":")) + " }}"
    return draw(_TEXTS) + draw(_UNROOTED) + draw(_TEXTS) + ("{{ vars.name" if draw(_S0) else "")


def _part(draw: st.DrawFn, ids: list[str]) -> dict[str, Any]:
    kind = draw(_S25)
    if kind == 0:
        return {"kind": "render", "ref": _path(draw, ids, _RENDER_REFS)}
    if kind == 1:
        return {"kind": "var", "ref": _path(draw, ids)}
    if kind == 2:
        return {"kind": "text", "value": draw(_TEXTS) or "text"}
    if kind == 3:
        return {"kind": "secret", "ref": draw(_SECRET_NAMES)}
    if kind == 4:
        return {"kind": "expr", "expr": _logic(draw, ids)}
    return {"kind": "render", "ref": _path(draw, ids, _RENDER_REFS)}


def _envelope(draw: st.DrawFn, ids: list[str]) -> dict[str, Any]:
    return {"type": "expr", "parts": [_part(draw, ids) for _ in range(draw(_S24))]}


def _marker_value(draw: st.DrawFn, ids: list[str]) -> dict[str, Any]:
    return {"$": _path(draw, ids)} if draw(_S0) else {"$expr": _logic(draw, ids)}


def with_value(draw: st.DrawFn, ids: list[str]) -> Any:
    """One with value of the whole grammar; ``ids``: the steps its paths may name."""
    kind = draw(_S22)
    if kind <= 2:
        return _template(draw, ids)
    if kind <= 4:
        return _envelope(draw, ids)
    if kind <= 8:
        return _marker_value(draw, ids)
    return draw(_LITERALS)


def with_blocks(draw: st.DrawFn, ids: list[str]) -> dict[str, Any]:
    """A with block of one or two values (each member a with value)."""
    block = {"a": with_value(draw, ids)}
    if draw(_S23) == 0:
        block["b"] = with_value(draw, ids)
    return block


def expression_roots(draw: st.DrawFn, scenario: dict[str, Any]) -> dict[str, Any]:
    """Give ``scenario`` the roots with values read: variables, trigger, secrets, documents."""
    scenario["variables"] = draw(_VARIABLES)
    scenario["secrets"] = draw(_SECRETS)
    scenario["trigger"] = draw(_TRIGGERS)
    scenario["documents"] = DOCUMENTS  # the shrinker drops a root a finding does not need
    return scenario


@st.composite
def expression_cases(draw: st.DrawFn) -> tuple[Any, dict[str, Any]]:
    """A campaign's with value and a run scope to resolve it against (for resolver tests)."""
    roots = expression_roots(draw, {})
    scope = {
        "vars": roots["variables"],
        "steps": {"a": {"output": draw(small_outputs)}},
        "trigger": roots.get("trigger", {"type": "manual"}),
        "secrets": roots["secrets"],
        "documents": roots.get("documents", {}),
    }
    return with_blocks(draw, ["a"]), scope


# -- the shape catalogue ------------------------------------------------------------------
#
# A seeded bug that needs a particular shape must not depend on luck (issue 10):
# random fan-out graphs met "two parallel siblings both failing, the later one
# first" in about one example in a thousand.  Each shape below is the smallest
# document in which a clause family decides something; its scripts, retry
# figures and schedule are still drawn.

_ERROR = {"code": "boom", "message": "generated", "phase": "execute", "retryable": False}


def _app_step(step_id: str, **fields: Any) -> dict[str, Any]:
    return {"id": step_id, "uses": {"app": "demo", "action": "run"}, **fields}


@st.composite
def _parallel_siblings(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any], list[int]]:
    """W6W-FAN-5/9/10: a parallel root whose two successors race; either may fail.

    The reported error is the first failure by plan order and lastOutput the
    last success by plan order, whichever finishes first (W6W-FAN-10); the
    drain lets the in-flight sibling finish (W6W-FAN-9).
    """
    names = ["r", "a", "b"]
    on_error = draw(sampled([None, None, "continue", "continue-record"]))
    document_steps = [_app_step("r", fanOut="parallel")]
    for name in names[1:]:
        step = _app_step(name)
        if on_error is not None:
            step["onError"] = on_error
        document_steps.append(step)
    scripts: dict[str, Any] = {}
    for name in names[1:]:
        if draw(_S0):
            scripts[name] = {"attempts": [{"error": dict(_ERROR, code=f"{name}-failed")}]}
        else:
            scripts[name] = {"attempts": [{"output": f"{name}-output"}]}
    edges = [{"from": "r", "to": "a"}, {"from": "r", "to": "b"}]
    if draw(_S0):  # a join after both, on the earlier-planned strand (W6W-FAN-8)
        join = _app_step("j")
        join["with"] = {"seen": {"$": "steps.b.output"}}
        document_steps.append(join)
        edges += [{"from": "a", "to": "j"}, {"from": "b", "to": "j"}]
    document = {
        "manifestVersion": "2",
        "id": "wf_race",
        "name": "generated",
        "steps": document_steps,
        "edges": edges,
    }
    # The first wait has r alone outstanding; the second picks which sibling finishes first.
    return document, {"steps": scripts}, [0, int(draw(_S0))]


@st.composite
def _retry_ladder(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any], list[int]]:
    """W6W-RETRY-*: one retried step whose attempts fail in each phase, near the 300000 ms cap.

    Auth errors are never retried; execute errors only when idempotent or
    marked retryable; every computed wait is capped at 300000 ms.
    """
    backoff = draw(_S12)
    delay = draw(sampled([0, 1000, 80_000, 150_001, 299_999, 300_001]))
    attempts = draw(st.integers(2, 4))
    step = _app_step("s", retry={"maxAttempts": attempts, "backoff": backoff, "delayMs": delay})
    error = {
        "code": "flaky",
        "message": "generated",
        "phase": draw(_S7),
        "retryable": draw(_S0),
    }
    failures = draw(st.integers(1, attempts))
    script: list[dict[str, Any]] = [{"error": error}] * failures
    if draw(_S0):
        script.append({"output": "recovered"})
    document = {
        "manifestVersion": "2",
        "id": "wf_retry",
        "name": "generated",
        "steps": [step, _app_step("t")],
    }
    return document, {"steps": {"s": {"attempts": script, "idempotent": draw(_S0)}}}, []


@st.composite
def _expressions(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any], list[int]]:
    """W6W-EXPR-*, W6W-ENV-*, W6W-ROOT-*, W6W-CHAIN-*: a step whose with block reads a run scope.

    ``a`` succeeds with a small output; ``b``'s with block is drawn from the
    whole value grammar (``with_blocks``) over the scenario's roots; a
    resolution failure of ``b`` fails the run, or is swallowed by its onError.
    """
    first = _app_step("a")
    # One value of each family per run (two template strings): the template
    # grammar has the most shapes.
    block = {
        "t": _template(draw, ["a"]),
        "u": _template(draw, ["a"]),
        "e": _envelope(draw, ["a"]),
        "m": _marker_value(draw, ["a"]),
    }
    document, scenario = _reader_of_a(draw, "wf_expr", first, block)
    return document, scenario, []


def _reader_of_a(
    draw: st.DrawFn, name: str, first: dict[str, Any], block: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A document of ``first`` then ``b`` reading ``block``, and its scenario.

    ``a`` (``first``) succeeds with a small output; ``b``'s with block is
    ``block``, and the scenario has every root it may read; ``b``'s
    resolution failure fails the run, or is swallowed by a drawn onError.
    """
    second = _app_step("b", **{"with": block})
    on_error = draw(_ON_ERRORS)
    if on_error is not None:
        second["onError"] = on_error
    document = {"manifestVersion": "2", "id": name, "name": "generated", "steps": [first, second]}
    scenario = expression_roots(
        draw, {"steps": {"a": {"attempts": [{"output": draw(small_outputs)}]}}}
    )
    return document, scenario


# An if's condition by JSONLogic truthiness ([] is false, A-53), literal or read from a;
# a foreach's items, literal or a's output (not always an array: foreach_items_not_array).
_CONDITIONS = st.sampled_from([True, False, [], [0], 0, "", "x", {"$": "steps.a.output"}])
_ITEMS = st.lists(_S22, min_size=2, max_size=3) | st.just({"$": "steps.a.output"})
_BODY_READS = st.sampled_from(["marker", "item", "index"])
_WRAPPERS = st.sampled_from([None, None, "foreach", "if", "parallel"])
_FIRST_READS = st.sampled_from([None, "output", "meta"])
_SECOND_READS = st.sampled_from(["meta", "output"])
_ATTEMPTS = st.integers(1, 3)
_CONTROL_ON_ERRORS = st.sampled_from([None, None, "continue", "continue-record"])


@st.composite
def _controls(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any], list[int]]:
    """W6W-EDGE-8/10, W6W-META-19/20, W6W-ROOT-6/25: one canonical control reading its scope.

    ``a`` succeeds; the control ``c`` is an if (its condition truthy or not
    by JSONLogic, or ``a``'s output), a foreach over two or three items (or
    over ``a``'s output, an array or not) or a parallel of two branches,
    with blocks of one or two steps;
    a block step reads ``foreach.item`` or ``foreach.index`` (a path, or a
    ``{{ }}`` marker: foreach is one of the eight roots) or the earlier block
    step's output or meta; ``c`` may declare a retry policy, which it does
    not run (W6W-EDGE-8), and an onError, which handles its block's failure
    (W6W-EDGE-10); ``z`` reads its output.  Every attempt of a block step
    reports its own onExecuted record (iterations never share a callback,
    W6W-META-19), and about one in four fails.

    In three cases out of five ``c`` is itself a block step of a control
    ``w`` (A-06: a block holds steps, and a control is a step): the body of
    a foreach over two or three items (``c``'s first block step reads the
    outer ``foreach`` unless ``c`` is a foreach itself), the then-block of
    an if whose else-block is one step ``x0``, or one branch of a parallel
    whose other is ``x0``; ``z`` then reads ``w``.  Nested, the block runs
    repeat, and each repetition reads the scope and the scripted results
    where the last left them (docs/engine-protocol.md: a unit's n-th
    invocation in the whole execution gets its n-th result).
    """
    action = draw(_S9)
    wrapper = draw(_WRAPPERS)
    scripts: dict[str, Any] = {}

    def block(prefix: str) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for k in range(draw(_S11)):
            step = _app_step(f"{prefix}{k}")
            # A first block step reads foreach (in a body) or ``a``; a second, the first's
            # meta or output.
            in_foreach = "foreach" in (action, wrapper)
            reads = _SECOND_READS if found else _BODY_READS if in_foreach else _FIRST_READS
            read = draw(reads)
            earlier = found[-1]["id"] if found else "a"
            if read == "item":
                step["with"] = {"item": {"$": "foreach.item"}}
            elif read == "index":
                step["with"] = {"i": {"$": "foreach.index"}}
            elif read == "marker":
                step["with"] = {"item": "{{ foreach.item }}"}
            elif read == "meta":
                step["with"] = {"meta": {"$": f"steps.{earlier}.meta"}}
            elif read is not None:
                step["with"] = {"seen": {"$": f"steps.{earlier}.output"}}
            if draw(_S16) == 0:
                step["onError"] = "continue-record"
            attempts: list[dict[str, Any]] = []
            for n in range(draw(_ATTEMPTS)):
                if draw(_S16) == 0:
                    retryable = draw(_S16) != 0
                    error = dict(_ERROR, code=f"{step['id']}-failed", retryable=retryable)
                    attempts.append({"error": error})
                else:
                    # Well-formed (normalisation keeps it whole, W6W-META-9/11): what
                    # tells the attempts apart is whose report the engine kept.
                    report = {
                        "app": "demo",
                        "version": "1",
                        "action": f"run{n}",
                        "connectionId": "k",
                    }
                    attempts.append({"output": draw(small_outputs), "meta": [report]})
            scripts[step["id"]] = {"attempts": attempts}
            found.append(step)
        return found

    with_: dict[str, Any]
    if action == "if":
        with_ = {"condition": draw(_CONDITIONS), "then": block("t"), "else": block("e")}
    elif action == "foreach":
        with_ = {"items": draw(_ITEMS), "body": block("b")}
    else:
        with_ = {"branches": [block("p"), block("q")]}
    control: dict[str, Any] = {
        "id": "c",
        "uses": {"app": "@w6w/control", "action": action},
        "with": with_,
    }
    if draw(_S16) != 0:
        control["retry"] = {"maxAttempts": 2}
    on_error = draw(_CONTROL_ON_ERRORS)
    if on_error is not None:
        control["onError"] = on_error
    scripts["a"] = {"attempts": [{"output": draw(small_outputs)}]}
    if wrapper is not None:
        other = [_app_step("x0")]
        scripts["x0"] = {"attempts": [{"output": draw(small_outputs)}]}
        if wrapper == "foreach":
            with_ = {"items": draw(_ITEMS), "body": [control]}
        elif wrapper == "if":
            with_ = {"condition": draw(_CONDITIONS), "then": [control], "else": other}
        else:
            with_ = {"branches": [[control], other]}
        control = {"id": "w", "uses": {"app": "@w6w/control", "action": wrapper}, "with": with_}
    document = {
        "manifestVersion": "2",
        "id": "wf_control",
        "name": "generated",
        "steps": [
            _app_step("a"),
            control,
            _app_step("z", **{"with": {"c": {"$": f"steps.{control['id']}.output"}}}),
        ],
    }
    return document, {"steps": scripts}, []


W6W_SHAPES = (_parallel_siblings, _retry_ladder, _expressions, _controls)
_S20 = st.integers(0, 4)
_TIMING_SHAPES = st.sampled_from(W6W_SHAPES[:2])
_SHAPE_CASES = {shape: shape() for shape in W6W_SHAPES}  # each shape's strategy, built once


@st.composite
def engine_cases(
    draw: st.DrawFn,
    max_steps: int = 6,
    checkpoint_of: Callable[[dict[str, Any], str], int | None] | None = None,
) -> dict[str, Any]:
    """A document, a scenario and a schedule (which outstanding invocation completes next).

    ``checkpoint_of(case, event)``: the checkpoint the model's reference run
    of ``case`` writes with ``event`` (the specification supplies it: this
    module does not import the model's run); with it, an abort can be aimed
    at the run-level handler's own checkpoint (A-164).

    A fifth of the cases come from the timing and retry shapes of the
    catalogue (``W6W_SHAPES``), a fifth from its expression shape (with
    blocks over the whole value grammar), a fifth from its control shape,
    the rest are random fan-out graphs (some of whose with blocks are drawn
    from the same grammar, and about one step in five a canonical control).
    """
    kind = draw(_S20)
    if kind <= 2:
        shape = draw(_TIMING_SHAPES) if kind == 0 else _expressions if kind == 1 else _controls
        document, scenario, schedule = draw(_SHAPE_CASES[shape])
        scenario["default"] = {"output": draw(_S17)}
        schedule += draw(_S18)
    else:
        document = draw(_engine_workflows(max_steps))
        scenario = draw(engine_scenarios(document))
        schedule = draw(_S18)
    case: dict[str, Any] = {"document": document, "scenario": scenario, "schedule": schedule}
    if draw(_S15) == 0:
        # The host crashes after a checkpoint and resumes the run (W6W-CONCEPT-3) -
        # not where a control can run beside another strand (A-161; drawn all the same,
        # so that every other case stays what the seed made it).
        # An even K crashes the resumed run again two checkpoints later: a resumed run
        # still writes its checkpoints (a stranger's engine stopped, and no case showed it).
        k = draw(_S19)
        crash = [k, k + 2] if k % 2 == 0 else [k]
        if not control_beside_strand(document):
            scenario["crashAfterCheckpoints"] = crash
    elif draw(_S15) == 0:
        # Replay the model's reference run, whole or from a step (RFC "Replay").
        ids = [step["id"] for step in document["steps"]]
        case["replay"] = {"from": draw(_replayed(tuple(ids)))}
    # The run-level handler (Amendment 2026-08-21) in about a quarter of the cases: the
    # whole graph retried once more after a backoff, and/or a failed run continued with a
    # null output (W6W-RUNERR-2/4/5).  Not reroute: no message delivers its target's result
    # (docs/engine-protocol.md).
    if "crashAfterCheckpoints" not in scenario and "replay" not in case and draw(_S15) == 0:
        # The host's abort signal after checkpoint K (W6W-HOST-3), answered over the
        # protocol as abort in place of the checkpoint's ack (docs/engine-protocol.md).
        scenario["cancelAfterCheckpoint"] = draw(_S19)
    handler = draw(_RUN_HANDLERS)
    if handler in ("retry", "both"):
        document["retry"] = {"maxAttempts": 2, "delayMs": draw(_RUN_DELAYS)}
        if draw(_S0):
            document["retry"]["backoff"] = "exponential"
    if handler in ("continue", "both"):
        document["onError"] = "continue"
        if "cancelAfterCheckpoint" in scenario and draw(_S0) and checkpoint_of is not None:
            # The signal at the handler's own checkpoint, where no step is left to poll
            # between: a K drawn blind almost never lands there.  The model's
            # reference run without the signal says which checkpoint that is (nothing
            # before it depends on the signal).
            plain = {**case, "scenario": {**scenario}}
            del plain["scenario"]["cancelAfterCheckpoint"]
            at = checkpoint_of(plain, "run_continued")
            if at is not None:
                scenario["cancelAfterCheckpoint"] = at
    return case


_RUN_HANDLERS = st.sampled_from((None,) * 5 + ("retry", "continue", "both"))
_RUN_DELAYS = st.sampled_from((0, 10, 1000))


# -- the wait control over the protocol (profile ``w6w-wait``; A-55) ------------------------

_WAIT_DIRECTIVES = st.sampled_from([{"afterMs": 1000}, {"afterMs": 0}, {"at": "2026-07-02"}])
_WAIT_ROLES = st.sampled_from(["wait", "wait", "app"])
_RESUMES = st.integers(0, 2)


@st.composite
def wait_cases(draw: st.DrawFn) -> dict[str, Any]:
    """W6W-FAN-9/10, W6W-RUNERR-6: wait controls in a small fan-out graph, resumed or not.

    A root ``a`` (fanned out in parallel or not) feeds two to four steps,
    each a wait (its directive: ``afterMs`` or ``at``) or an app step; a
    step may follow one of them.  The scenario resumes the run's first
    suspensions (``resumes``, A-55: zero to two); a step may fail, so a
    failure and a suspension can meet in one drain ("the failure wins").
    A quarter of the cases crash once (no replay).
    """
    roles = draw(st.lists(_WAIT_ROLES, min_size=2, max_size=4))
    if "wait" not in roles:
        roles[0] = "wait"
    steps: list[dict[str, Any]] = [_app_step("a")]
    if draw(_S0):
        steps[0]["fanOut"] = "parallel"
    edges: list[dict[str, Any]] = []
    scripts: dict[str, Any] = {"a": {"attempts": [{"output": draw(small_outputs)}]}}
    for k, role in enumerate(roles):
        step_id = f"s{k}"
        if role == "wait":
            step = {
                "id": step_id,
                "uses": {"app": "@w6w/control", "action": "wait"},
                "with": draw(_WAIT_DIRECTIVES),
            }
        else:
            step = _app_step(step_id)
            if draw(_S16) == 0:
                failure = dict(_ERROR, code=f"{step_id}-failed", retryable=False)
                scripts[step_id] = {"attempts": [{"error": failure}]}
        steps.append(step)
        edges.append({"from": "a", "to": step_id})
    if draw(_S0):
        source = steps[1 + draw(st.integers(0, len(roles) - 1))]["id"]
        steps.append(_app_step("z", **{"with": {"seen": {"$": f"steps.{source}.output"}}}))
        edges.append({"from": source, "to": "z"})
    document = {
        "manifestVersion": "2",
        "id": "wf_wait",
        "name": "generated",
        "steps": steps,
        "edges": edges,
    }
    scenario: dict[str, Any] = {"steps": scripts, "default": {"output": draw(_S17)}}
    resumes = draw(_RESUMES)
    if resumes:
        scenario["resumes"] = [{"output": draw(small_outputs)} for _ in range(resumes)]
    schedule = draw(_S18)
    # Now and then a crash (drawn last: the cases before it are drawn as they were): at a
    # wait's step_suspended the suspended wait starts over on resume; at
    # run_suspended's checkpoint the run is queued and no crash happens.  No campaign drew
    # a wait and a crash together before (a stranger's review, session 24).
    if draw(_WAIT_CRASH) == 3:
        scenario["crashAfterCheckpoints"] = [draw(_CRASH_AT)]
    return {"document": document, "scenario": scenario, "schedule": schedule}


_WAIT_CRASH = st.integers(0, 3)
_CRASH_AT = st.integers(1, 12)


_REROUTE_WITHS = st.sampled_from(
    [
        {},
        {"why": {"$": "error.code"}},
        {"why": {"$": "error.code"}, "seed": {"$": "inputs.name"}},
        {"event": {"$": "trigger.type"}, "note": "fallback"},
    ]
)


@st.composite
def reroute_cases(draw: st.DrawFn) -> dict[str, Any]:
    """Profile ``w6w-reroute``: the run-level handler's reroute (W6W-RUNERR-3, -5, -14).

    A default case (``engine_cases``) given ``Workflow.reroute`` — its with block
    reads ``{ inputs, error, trigger }`` — and the scenario's result for the
    target: an output (the run succeeds with it) or an error (the run stays
    failed, whatever onError says).  No crash and no replay: a reroute's
    interplay with a resumed execution is not driven.
    """
    case = draw(engine_cases())
    case.pop("replay", None)
    scenario = case["scenario"]
    scenario.pop("crashAfterCheckpoints", None)
    case["document"]["reroute"] = {"with": draw(_REROUTE_WITHS)}
    if draw(_S0):
        case["document"]["onError"] = "continue"  # what a failed reroute must not reach
    if draw(_S0):
        scenario["reroute"] = {"output": draw(small_outputs)}
    else:
        scenario["reroute"] = {"error": dict(_ERROR, code="target_down", retryable=False)}
    return case


@st.composite
def call_cases(draw: st.DrawFn) -> dict[str, Any]:
    """Profile ``w6w-call``: @w6w/call child runs over the protocol (A-56).

    A default case (``engine_cases``) whose one plain step becomes a call of
    ``child`` — a workflow of one to three steps drawn as any other, with
    its own scripts — given inputs read by the child's with blocks as
    ``vars``; in a third of the cases the child itself calls ``grandchild``,
    and in a sixth ``maxCallDepth`` is 1, so that call fails
    ``call_depth_exceeded``.  In a quarter the child declares a variable the
    inputs do not supply, with a default one of its steps reads (W6W-FIELD-19);
    in a sixth the call names a workflow the scenario does not supply, so the
    call step is invoked as an app step, answered by its own script — a
    retryable failure then a success, in half (W6W-EDGE-8: still no retry
    loop).  Both drawn last, so that the other choices stay as they were
    (stranger 19: neither was ever drawn).  Then the calls made twice in one
    execution, whose child steps the scenario answers with their next
    results (a unit's invocations count over the execution): in a quarter
    the call sits in a foreach body, once per item, and the document's
    run-level retry (``engine_cases`` draws one in half) is kept in a third,
    re-running the call when the run fails (W6W-RUNERR-2).  No crash, replay
    or abort: a call's interplay with a resumed or signalled execution is
    not driven.
    """
    case = draw(engine_cases())
    case.pop("replay", None)
    scenario = case["scenario"]
    for member in ("crashAfterCheckpoints", "cancelAfterCheckpoint", "calls"):
        scenario.pop(member, None)
    retry = case["document"].pop("retry", None)  # kept in a third, drawn last
    steps = case["document"]["steps"]
    plain = [k for k, s in enumerate(steps) if (s.get("uses") or {}).get("app") == "demo"]
    if not plain:
        return case
    k = draw(sampled(plain))
    step = steps[k]
    scenario.get("steps", {}).pop(step["id"], None)
    kept = {key: step[key] for key in ("id", "fanOut", "onError") if key in step}
    steps[k] = {
        **kept,
        "uses": {"app": "@w6w/call", "action": "call"},
        "with": {"workflow": "child", "inputs": draw(_VARIABLES)},
    }
    if draw(st.integers(0, 2)) == 0:  # W6W-EDGE-8: a call runs no retry loop all the same
        steps[k]["retry"] = {"maxAttempts": 2, "delayMs": 10}
    child = draw(_callee("child"))
    if draw(st.integers(0, 2)) == 0:  # the child calls a grandchild
        inner = child["document"]["steps"]
        inner[-1] = {
            "id": inner[-1]["id"],
            "uses": {"app": "@w6w/call", "action": "call"},
            "with": {"workflow": "grandchild", "inputs": {"name": {"$": "vars.name"}}},
        }
        child["scenario"]["steps"].pop(inner[-1]["id"], None)
        child["scenario"]["calls"] = {"grandchild": draw(_callee("grandchild"))}
        if draw(st.integers(0, 1)) == 0:
            scenario["maxCallDepth"] = 1
    scenario["calls"] = {"child": child}
    first = child["document"]["steps"][0]
    app = str((first.get("uses") or {}).get("app", ""))
    if draw(st.integers(0, 3)) == 0 and not app.startswith("@w6w/"):
        # A declared variable the inputs leave to its default (W6W-FIELD-19, A-56).
        default = draw(_VARIABLE_VALUES)
        child["document"]["variables"] = [{"key": "extra", "default": default}]
        first["with"] = {**(first.get("with") or {}), "extra": {"$": "vars.extra"}}
    if draw(st.integers(0, 5)) == 0:
        # A workflow the scenario does not supply: the call is an app step's invocation.
        steps[k]["with"]["workflow"] = "elsewhere"
        failing = {"error": {"code": "flaky", "message": "generated", "retryable": True}}
        attempts = [failing, {"output": 2}] if draw(st.booleans()) else [{"output": 1}]
        scenario.setdefault("steps", {})[step["id"]] = {"attempts": attempts}
    if draw(st.integers(0, 3)) == 0:
        # The call in a foreach body: a child run per item, the item its input.
        call = steps[k]
        kept = {key: call.pop(key) for key in ("id", "fanOut", "onError") if key in call}
        call["id"] = f"{kept['id']}_call"
        call["with"]["inputs"] = {**call["with"]["inputs"], "name": {"$": "foreach.item"}}
        steps[k] = {
            **kept,
            "uses": {"app": "@w6w/control", "action": "foreach"},
            "with": {"items": draw(_CALL_ITEMS), "body": [call]},
        }
        if step["id"] in scenario.get("steps", {}):  # a call nobody supplies: its script
            scenario["steps"][call["id"]] = scenario["steps"].pop(step["id"])
    if retry is not None and draw(st.integers(0, 2)) == 0:
        case["document"]["retry"] = retry  # W6W-RUNERR-2: the run again, its call too
    if draw(st.integers(0, 5)) == 5:
        # A secret in the call's inputs (drawn last): the child's variables carry what the
        # caller records, never the plaintext (W6W-ENV-17, A-70).  A stranger's engine
        # leaked it into the child's events and no campaign could show it (session 24).
        call = steps[k]["with"]["body"][0] if "body" in steps[k]["with"] else steps[k]
        name = draw(_SECRET_NAMES)
        call["with"]["inputs"] = {**call["with"]["inputs"], "key": f"{{{{ secrets.{name} }}}}"}
        scenario["secrets"] = {**(scenario.get("secrets") or {}), name: SECRET_VALUES[name]}
    return case


_CALL_ITEMS = st.lists(st.sampled_from(["x", "y", ""]), min_size=1, max_size=3)


# -- JSON Logic where A-20's readings part (profile ``w6w-jsonlogic``) ---------------------
#
# The default campaigns' $expr values use var, cat, == and if, on which the JSON
# Logic community semantics and json-logic-js 2.0.5 agree.  This profile draws the
# operators where they part (docs/jsonlogic.md's difference classes): -, / and the
# order comparisons with three operands (json-logic-js reads two), + and * over
# strings (ToNumber against parseFloat), a lone / (a reciprocal against NaN),
# missing of "", a computed argument list, max and min, merge, and
# an if whose condition is one of them.  Each value is one the engine must
# compute and the trace shows (step_started.input).

_JL_NUMBERS = st.sampled_from([0, 1, 2, 7, -3, 0.5])
_JL_TEXTS = st.sampled_from([1, 2, "3", "3 apples", " 4 ", "", True, None])
_JL_KEYS = st.sampled_from(["", "vars.name", "vars.missing", "vars.n", "steps.a.output"])
_JL_WORDS = st.sampled_from(["a", "b", "", "x y"])
_JL_KINDS = st.integers(0, 9)
_JL_ORDER = st.sampled_from(["<", "<=", ">", ">="])
_JL_NESTED = st.integers(0, 5)


@st.composite
def _jl_number(draw: st.DrawFn, depth: int) -> Any:
    """A numeric operand: a literal, vars.n (any type), or (rarely) a nested arithmetic."""
    kind = draw(_JL_NESTED)
    if kind == 0:
        return {"var": "vars.n"}
    if kind == 1 and depth > 0:
        return draw(_jl_rule(depth - 1, kinds=st.integers(0, 1)))
    return draw(_JL_NUMBERS)


@st.composite
def _jl_rule(draw: st.DrawFn, depth: int = 1, kinds: st.SearchStrategy[int] = _JL_KINDS) -> Any:
    """One JSON Logic rule from the operators where A-20's readings part."""
    kind = draw(kinds)

    def numbers(least: int, most: int) -> list[Any]:
        return draw(st.lists(_jl_number(depth), min_size=least, max_size=most))

    if kind == 0:
        return {"-": numbers(1, 3)}
    if kind == 1:
        return {"/": numbers(1, 3)}
    if kind in (2, 3):
        texts = draw(st.lists(_JL_TEXTS, min_size=1, max_size=3))
        return {"+" if kind == 2 else "*": texts}
    if kind == 4:
        return {draw(_JL_ORDER): numbers(2, 3)}
    if kind == 5:
        keys = draw(st.lists(_JL_KEYS, min_size=1, max_size=2))
        return {"missing": [keys] if draw(_S0) else keys}
    if kind == 6:
        words = [draw(_JL_WORDS), draw(_JL_WORDS)]
        return {"cat": {"merge": [[w] for w in words]} if draw(_S0) else words}
    if kind == 7:
        return {draw(sampled(["max", "min"])): numbers(1, 3)}
    if kind == 8:
        return {"merge": [numbers(1, 2), draw(_JL_NUMBERS)]}
    condition = draw(_jl_rule(0, kinds=sampled([4, 5])))
    return {"if": [condition, draw(_JL_WORDS), draw(_jl_number(0))]}


@st.composite
def jsonlogic_cases(draw: st.DrawFn) -> dict[str, Any]:
    """Profile ``w6w-jsonlogic``: $expr values over the operators where A-20's readings part.

    ``a`` succeeds with a small output; ``b``'s with block holds one to three
    ``$expr`` values (``_jl_rule``) over the scenario's roots; a rule that
    fails fails ``b`` at resolution, or is swallowed by its onError.  An
    engine built on json-logic-js 2.0.5 passes under ``--readings any`` and
    is told it took A-20's "classic" reading; an evaluator bug neither
    reading permits is a finding (toyflow's ``missing-only-absent``,
    ``plus-concatenates``).
    """
    values: dict[str, Any] = {
        f"j{k}": {"$expr": draw(_jl_rule())} for k in range(draw(st.integers(1, 3)))
    }
    if draw(st.integers(0, 2)) == 0:
        # A {{ = }} payload: a value JSON cannot carry prints as JavaScript prints it
        # (NaN, Infinity) under A-20's classic reading.  The marker ends after the
        # payload's JSON value, not at an object's own }}.
        values["t"] = "= {{ =" + json.dumps(draw(_jl_rule())) + " }}"
    document, scenario = _reader_of_a(draw, "wf_jsonlogic", _app_step("a"), values)
    scenario["default"] = {"output": draw(_S17)}
    return {"document": document, "scenario": scenario, "schedule": draw(_S18)}


@st.composite
def _callee(draw: st.DrawFn, name: str) -> dict[str, Any]:
    """A called workflow and its scenario: steps and their scripts only (A-56)."""
    document = draw(parallel_workflows(max_steps=3, controls=False, max_delay=1000))
    document["id"] = name
    scripts = draw(engine_scenarios(document))
    return {"document": document, "scenario": {"steps": scripts.get("steps", {})}}


def control_beside_strand(document: dict[str, Any]) -> bool:
    """Whether a canonical control may run while another strand does (a parallel fan-out).

    A crash there may cut the control's sub-block short with invocations
    the trace never reports (A-161).
    """
    steps = document["steps"]
    controls = any((s.get("uses") or {}).get("app") == "@w6w/control" for s in steps)
    return controls and any(s.get("fanOut") == "parallel" for s in steps)


# -- hand-written conformance cases (written once: pytest and `fixtures --profile conformance`) --


def _conformance_document(*steps: dict[str, Any]) -> dict[str, Any]:
    return {
        "manifestVersion": "2",
        "id": "wf_conformance",
        "name": "conformance",
        "steps": list(steps),
    }


def _error(phase: str, retryable: bool) -> dict[str, Any]:
    return {
        "error": {"code": f"{phase}_failed", "message": "m", "phase": phase, "retryable": retryable}
    }


def conformance_cases() -> tuple[Any, ...]:
    """w6w conformance cases, each expectation stated from the RFC's text."""
    from wforacle.properties.specification import ConformanceCase

    step = {"uses": {"app": "demo", "action": "run"}}
    return (
        ConformanceCase(
            "retryable-execute-error-is-retried",
            ("W6W-FIELD-24",),  # execute errors are retried when the error sets retryable: true
            {
                "document": _conformance_document(
                    {"id": "a", **step, "retry": {"maxAttempts": 2}}, {"id": "b", **step}
                ),
                "scenario": {
                    "steps": {"a": {"attempts": [_error("execute", True), {"output": "A"}]}}
                },
                "schedule": [],
            },
            {"status": "succeeded", "steps": {"a": {"status": "succeeded", "attempt": 2}}},
        ),
        ConformanceCase(
            "auth-error-is-never-retried",
            ("W6W-FIELD-24", "W6W-CONF-4"),  # phase: "auth" errors are never retried
            {
                "document": _conformance_document({"id": "a", **step, "retry": {"maxAttempts": 3}}),
                "scenario": {"steps": {"a": {"attempts": [_error("auth", True), {"output": "A"}]}}},
                "schedule": [],
            },
            {"status": "failed", "steps": {"a": {"status": "failed", "attempt": 1}}},
        ),
        ConformanceCase(
            "on-error-continue-proceeds",
            ("W6W-FIELD-13",),  # continue swallows the failure and proceeds
            {
                "document": _conformance_document(
                    {"id": "a", **step, "onError": "continue"}, {"id": "b", **step}
                ),
                "scenario": {
                    "steps": {
                        "a": {"attempts": [_error("execute", False)]},
                        "b": {"attempts": [{"output": "B"}]},
                    }
                },
                "schedule": [],
            },
            {
                "status": "succeeded",
                "steps": {"a": {"status": "failed"}, "b": {"status": "succeeded"}},
            },
        ),
        ConformanceCase(
            "on-error-fail-aborts-the-run",
            ("W6W-FIELD-13",),  # fail (the default) aborts the run
            {
                "document": _conformance_document({"id": "a", **step}, {"id": "b", **step}),
                "scenario": {"steps": {"a": {"attempts": [_error("execute", False)]}}},
                "schedule": [],
            },
            {"status": "failed", "steps": {"a": {"status": "failed"}}},
        ),
        ConformanceCase(
            "last-output-is-the-last-step-by-plan",
            ("W6W-FAN-10",),  # lastOutput: the last succeeded step by plan order
            {
                "document": _conformance_document(
                    {"id": "r", **step, "fanOut": "parallel"},
                    {"id": "a", **step},
                    {"id": "b", **step},
                )
                | {"edges": [{"from": "r", "to": "a"}, {"from": "r", "to": "b"}]},
                "scenario": {
                    "steps": {
                        "a": {"attempts": [{"output": "A"}]},
                        "b": {"attempts": [{"output": "B"}]},
                    }
                },
                "schedule": [0, 1],  # b finishes before a
            },
            {"status": "succeeded", "output": "B"},
        ),
    )
