"""The speed-only code (model/w6w/fast.py, ``W6wRun.enabled_for``) agrees with the plain path."""

from __future__ import annotations

import copy
import itertools

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wforacle.model.kernel.explore import Visiting, canonical, explore
from wforacle.model.w6w.config import Counts, Edges, EdgeSet, Steps, StepState
from wforacle.model.w6w.fast import (
    _plain,
    amend,
    canonical_plain,
    edge_set_key,
    evolve,
    plain_key,
    render_edges,
)
from wforacle.model.w6w.scenario import load_scenario
from wforacle.model.w6w.semantics import Config, W6wRun, config_key, outcome
from wforacle.oracle.check import matches
from wforacle.properties.strategies.w6w import parallel_workflows, scenarios, wait_cases
from wforacle.properties.w6w.validate import validate


def configurations(doc, scenario):
    """Every configuration the explorer visits for ``doc`` under ``scenario``."""
    return visited(doc, scenario)[1]


def visited(doc, scenario):
    """The run of ``doc`` under ``scenario``, and every configuration the explorer visits."""
    result = validate(copy.deepcopy(doc))
    loaded, _ = load_scenario(scenario)
    run = W6wRun(result.workflow, result.plan, loaded)
    seen: list[Config] = []
    explore(Visiting(run, seen.append), lambda c: outcome(run, c), config_key, max_states=400)
    return run, seen


@settings(max_examples=40)
@given(
    st.data(),
    parallel_workflows(max_steps=5),
)
def test_config_key_equals_the_plain_key(data, doc):
    """Two configurations have equal keys exactly when every field renders alike."""
    scenario = data.draw(scenarios(doc))
    seen = configurations(doc, scenario)
    for a, b in itertools.combinations(seen[:60], 2):
        assert (config_key(a) == config_key(b)) == (plain_key(a) == plain_key(b))


@settings(max_examples=40)
@given(st.data(), parallel_workflows(max_steps=5))
def test_evolve_equals_attrs_evolve(data, doc):
    """``evolve`` builds the record ``attrs.evolve`` builds, field for field."""
    scenario = data.draw(scenarios(doc))
    seen = configurations(doc, scenario)
    for a, b in itertools.pairwise(seen[:30]):
        changes = {f.name: getattr(b, f.name) for f in attrs.fields(Config) if f.name != "clock"}
        assert plain_key(evolve(a, **changes)) == plain_key(attrs.evolve(a, **changes))
        for state in a.steps[:3]:
            fast = evolve(state, status="running", attempt=state.attempt + 1)
            slow = attrs.evolve(state, status="running", attempt=state.attempt + 1)
            assert plain_key(fast) == plain_key(slow)
            assert fast.key == slow.key


@settings(max_examples=40, deadline=None)
@given(st.data(), parallel_workflows(max_steps=6, controls=True))
def test_steps_keep_their_derived_facts_current(data, doc):
    """What ``Steps.replace`` derives is what ``Layout.steps`` computes afresh."""
    run, seen = visited(doc, data.draw(scenarios(doc)))
    for c in seen:
        assert type(c.steps) is Steps and type(c.invocations) is Counts
        fresh = run.layout.steps(tuple(c.steps))
        assert c.steps.running == fresh.running
        assert c.steps.lead == fresh.lead
        assert c.steps.digest == fresh.digest
        assert c.steps.published == fresh.published
        assert list(c.steps.published) == list(fresh.published)  # plan order
        assert c.invocations.digest == run.layout.counts(tuple(c.invocations)).digest
        assert_edge_digests_current(c)
        # The configuration's digest, derived from its predecessor's, is the one computed afresh.
        assert c.digest == attrs.evolve(c).digest


@settings(max_examples=40, deadline=None)
@given(st.data(), parallel_workflows(max_steps=6, controls=True))
def test_canonical_plain_renders_what_the_plain_path_renders(data, doc):
    """``canonical_plain`` renders every configuration, and its fields, as the plain path does."""
    _, seen = visited(doc, data.draw(scenarios(doc)))
    for c in seen[:40]:
        for value in (c, *c.steps, *(getattr(c, f.name) for f in attrs.fields(Config))):
            assert canonical_plain(value) == canonical(_plain(value))


def assert_edge_digests_current(c):
    """Each edge set's kept digest is the sum ``edge_set_key`` computes afresh for its keys."""
    for edges in (c.activated, c.skipped):
        assert type(edges) in (Edges, EdgeSet)
        assert render_edges(edges) == edge_set_key(frozenset(edges))


@settings(max_examples=40, deadline=None)
@given(st.data(), parallel_workflows(max_steps=6, controls=True))
def test_enabled_for_keeps_every_transition_an_event_can_be(data, doc):
    """``enabled_for`` leaves out no transition that matches the event, nor reorders them."""
    assert_enabled_for_agrees(*visited(doc, data.draw(scenarios(doc))))


def test_enabled_for_on_three_strands_that_fail_and_retry():
    """The same, on a root fanning out to three chains whose steps fail once and retry."""
    steps = [{"id": "root", "uses": {"app": "demo", "action": "run"}, "fanOut": "parallel"}]
    edges = []
    for b in range(3):
        for d in range(2):
            steps.append(
                {
                    "id": f"b{b}_{d}",
                    "uses": {"app": "demo", "action": "run"},
                    "retry": {"maxAttempts": 2},
                }
            )
            edges.append({"from": f"b{b}_{d - 1}" if d else "root", "to": f"b{b}_{d}"})
    doc = {"manifestVersion": "2", "id": "wf", "name": "fan", "steps": steps, "edges": edges}
    failing = {"error": {"code": "t", "message": "", "retryable": True}}
    scenario = {"steps": {s["id"]: {"attempts": [failing, {"output": 1}]} for s in steps[1:]}}
    run, seen = visited(doc, scenario)
    assert len(run.strands) == 3
    assert_enabled_for_agrees(run, seen)


def assert_enabled_for_agrees(run, seen):
    """At each configuration, the events tried match the same transitions of both, in order.

    The events tried: each permitted one, and the first two again about every
    other step (what another strand's transition would be).
    """

    def matching(transitions, event):
        return [
            (t.rule, t.clauses, repr(t.event), config_key(t.target))
            for t in transitions
            if matches(t.event, event)
        ]

    for c in seen[:80]:
        enabled = run.enabled(c)
        events = [t.event for t in enabled]
        events += [{**e, "step": step_id} for e in events[:2] for step_id in run.plan]
        for event in events:
            assert matching(run.enabled_for(c, event), event) == matching(enabled, event)


def test_a_strand_skips_its_ended_steps_and_finds_its_running_one():
    doc = {
        "manifestVersion": "2",
        "id": "wf",
        "name": "chain",
        "steps": [{"id": f"s{i}", "uses": {"app": "demo", "action": "run"}} for i in range(4)],
    }
    result = validate(doc)
    run = W6wRun(result.workflow, result.plan, load_scenario({})[0])
    steps = run.layout.steps(StepState() for _ in range(4))
    assert steps.lead == (0,) and steps.running == ((),)
    steps = steps.replace(0, StepState(status="succeeded", output=1))
    steps = steps.replace(1, StepState(status="running", stage="invoke"))
    assert steps.lead == (1,) and steps.running == ((1,),)
    assert list(steps.published) == ["s0"] and steps.published["s0"] == {"output": 1}
    steps = steps.replace(1, StepState(status="failed"))
    steps = steps.replace(0, StepState())  # a run-level retry starts a step over
    assert steps.lead == (0,) and steps.running == ((),) and steps.published == {}
    assert steps.digest == run.layout.steps(tuple(steps)).digest


# -- long plans: chunked step states and persistent edge sets (issue 19) ------------------


def _explored(doc, scenario):
    """Every outcome and every configuration key the explorer reaches."""
    run, seen = visited(doc, scenario)
    keys = sorted({config_key(c) for c in seen})
    return run, seen, keys


@settings(max_examples=30, deadline=None)
@given(st.data(), parallel_workflows(max_steps=6, controls=True))
def test_a_long_plans_chunked_states_run_as_a_short_plans_tuple(data, doc):
    """With every plan "long" (BIG below its length, chunks of two), a run explores the same
    configurations — the same keys — and each keeps the same derived facts."""
    import wforacle.model.w6w.config as config

    scenario = data.draw(scenarios(doc))
    _, short, short_keys = _explored(doc, scenario)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(config, "BIG", 0)
        patched.setattr(config, "EDGES_BIG", 0)
        patched.setattr(config, "CHUNK_BITS", 1)
        run, long, long_keys = _explored(doc, scenario)
        assert long_keys == short_keys
        for c in long:
            assert type(c.steps) is config.ChunkedSteps
            assert type(c.invocations) is config.ChunkedCounts
            assert type(c.activated) is config.EdgeSet is type(c.skipped)
            assert c.steps == tuple(c.steps) and list(reversed(c.steps)) == list(c.steps)[::-1]
            fresh = run.layout.steps(tuple(c.steps))
            assert (c.steps.running, c.steps.lead) == (fresh.running, fresh.lead)
            assert c.steps.digest == fresh.digest and c.steps.published == fresh.published
            assert c.invocations.digest == run.layout.counts(tuple(c.invocations)).digest
            assert_edge_digests_current(c)
        for a, b in zip(short, long, strict=True):
            assert plain_key(a) == plain_key(b)  # field for field, sets as sorted lists


def test_an_edge_set_is_a_persistent_set_equal_to_a_frozenset():
    from wforacle.model.w6w.config import EdgeSet

    empty = EdgeSet()
    one = empty | [("a", "b", "success")]
    two = one | {("b", "c", "error")}
    assert len(empty) == 0 and len(one) == 1 and len(two) == 2  # each version kept
    assert ("a", "b", "success") in two and ("b", "c", "error") not in one
    assert two == frozenset({("a", "b", "success"), ("b", "c", "error")})
    assert two == (EdgeSet() | [("b", "c", "error"), ("a", "b", "success")])
    assert hash(two) == hash(frozenset(two))


@settings(max_examples=30, deadline=None)
@given(st.data(), parallel_workflows(max_steps=5, controls=True))
def test_no_rule_left_out_of_a_positions_row_fires_there(data, doc):
    """``W6wRun.rules_at`` drops a rule for a position only where it never fires (may_fire):
    on every configuration the explorer visits, fresh and replayed (from a step or
    whole), each dropped rule offers nothing at every position."""
    _rows_hold(data, doc, data.draw(scenarios(doc)))


@settings(max_examples=15, deadline=None)
@given(st.data(), wait_cases())
def test_no_rule_left_out_of_a_wait_documents_rows_fires_there(data, case):
    """The same, for documents with wait controls (suspend_step's)."""
    _rows_hold(data, case["document"], case["scenario"])


def _rows_hold(data, doc, scenario):
    from wforacle.model.w6w.config import Replay
    from wforacle.model.w6w.rules import STEP_TABLE

    run, seen = visited(doc, scenario)
    runs = [(run, seen)]
    ended = explore(run, lambda c: outcome(run, c), config_key, max_states=400).outcomes
    final = ended[0].value if ended else None
    if isinstance(final, dict) and isinstance(final.get("steps"), dict):
        start = data.draw(st.sampled_from([None, *run.plan]))
        again = W6wRun(run.workflow, run.plan, run.scenario, Replay.of(final, run.workflow, start))
        states: list[Config] = []
        explore(Visiting(again, states.append), lambda c: outcome(again, c), config_key, 400)
        runs.append((again, states))
    for each, configs in runs:
        for due, row in STEP_TABLE.items():
            for i in range(len(each.plan)):
                dropped = [r for r in row if r not in each.rules_at(due, i)]
                for c in configs:
                    for rule in dropped:
                        assert rule(each, c, i) == [], (rule.__name__, i, c)


def test_amend_refuses_a_record_whose_digest_was_computed():
    """``amend`` writes into a fresh record only: a computed digest would go stale."""
    fresh = evolve(Config(), status="running")
    amend(fresh, {"checkpoints": 1})
    assert fresh.checkpoints == 1
    assert fresh.digest == attrs.evolve(fresh).digest
    with pytest.raises(ValueError, match="computed already"):
        amend(fresh, {"checkpoints": 2})


# -- a plain with value's resolution, compiled (resolve.compile_plain) ------------------

_IDS = st.sampled_from(["a", "b", "0", "length", "secrets"])
_PATHS = st.one_of(
    st.lists(_IDS, min_size=1, max_size=4).map(".".join),
    st.builds(lambda i, rest: f"steps.{i}.{rest}", _IDS, st.sampled_from(["output", "meta", "x"])),
    st.sampled_from(["", "steps", "foreach.item", "secrets.k", "vars.a", "steps.a.output.0"]),
    st.integers(0, 2),
)
_LITERALS = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from(["x", "{{ steps.a }}", "{{"])
)
_WITH = st.recursive(
    st.one_of(_LITERALS, st.builds(lambda p: {"$": p}, _PATHS)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["p", "q", "$", "$expr", "type"]), inner, max_size=3),
    ),
    max_leaves=8,
)
_JSON = st.recursive(
    st.one_of(st.none(), st.integers(0, 3), st.sampled_from(["s", ""])),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b", "0"]), inner)
    ),
    max_leaves=6,
)
_SCOPES = st.fixed_dictionaries(
    {
        "vars": _JSON,
        "steps": st.dictionaries(
            _IDS, st.fixed_dictionaries({"output": _JSON}, optional={"meta": _JSON}), max_size=3
        ),
        "secrets": st.dictionaries(st.sampled_from(["k", "a"]), st.just("plain"), max_size=2),
    }
)


@settings(max_examples=300)
@given(_WITH, _SCOPES)
def test_a_compiled_plain_with_value_resolves_as_the_resolver_does(value, scope):
    # Speed only: the compiled resolution gives the Resolver's value and labels, or is
    # None (then the Resolver runs).  That the generated values reach both branches:
    # the test below.
    from wforacle.model.w6w.resolve import ResolutionError, compile_plain, resolve_labelled

    compiled = compile_plain(value)
    if compiled is None:
        return
    labels: list[str] = []
    found = compiled(scope, labels)
    try:
        invoked, recorded, used = resolve_labelled(value, scope)
    except ResolutionError:  # pragma: no cover - a plain value never fails
        raise AssertionError(f"the Resolver failed on a plain value {value!r}") from None
    assert found == invoked == recorded
    assert canonical(found) == canonical(invoked)  # the same kinds too (1 == True in Python)
    assert tuple(dict.fromkeys(labels)) == used


def test_compile_plain_leaves_to_the_resolver_what_it_labels_or_reads():
    from wforacle.model.w6w.resolve import compile_plain

    for value in (
        {"p": {"$": "secrets.k"}},  # the generic root's secrets (W6W-ENV-18)
        {"p": {"$": "steps.a.meta.x"}},  # a meta read (W6W-META-13/20)
        [{"$": "foreach.item"}],  # W6W-ROOT-6
        {"p": "{{ steps.a.output }}"},  # a template
        {"$expr": {"var": "a"}},
        {"type": "expr", "parts": []},
        {"$": ""},
    ):
        assert compile_plain(value) is None, value
    labels: list[str] = []
    compiled = compile_plain({"p": [{"$": "steps.a.output"}, 1, "x"], "q": {"$": "vars.b"}})
    assert compiled is not None
    scope = {"steps": {"a": {"output": {"v": 1}}}, "vars": {}}
    assert compiled(scope, labels) == {"p": [{"v": 1}, 1, "x"], "q": None}
    assert labels == ["W6W-EXPR-1", "W6W-BIND-4", "W6W-EXPR-1"]


def test_chunks_are_small_on_a_plan_of_hundreds_and_larger_past_large():
    # issue 16: a replace copies a chunk and the tuple of chunks; chunks of 32 suit a
    # plan of hundreds, chunks of 128 one of tens of thousands.
    import wforacle.model.w6w.config as config

    middling = config.ChunkedCounts.of(tuple(range(200)))
    large = config.ChunkedCounts.of(tuple(range(config.LARGE + 1)))
    assert (middling.bits, large.bits) == (config.CHUNK_BITS, config.LARGE_CHUNK_BITS)
    assert max(map(len, middling.chunks)) == 1 << config.CHUNK_BITS
    changed = large._with(4000, -1)
    assert changed[4000] == -1 and changed.bits == large.bits
    assert list(changed) == [*range(4000), -1, *range(4001, config.LARGE + 1)]
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(config, "CHUNK_BITS", 2)
        other = config.ChunkedCounts.of(tuple(range(200)))
    assert other.bits == 2 and other == middling  # equal items, whatever the chunks
