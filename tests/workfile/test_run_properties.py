"""Invariants of every Workfile run the model permits, over generated cases.

Each property is a sentence of the chapter that holds of a whole trace, and
is checked on every outcome's witness trace of ``explore`` and on seeded
random executions of generated cases (properties/strategies/workfile_runs.py).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings

from wforacle.model.kernel.explore import explore
from wforacle.model.kernel.lts import execute, seeded
from wforacle.model.workfile.scenario import static_path
from wforacle.properties.strategies.workfile_runs import ACTIONS, workfile_cases
from wforacle.properties.workfile.execution import outcome, prepare

JSON = Any
STARTS = {"step_started", "attempt_started", "retry_scheduled", "handler_started"}


def traces(case: JSON) -> list[tuple[list[JSON], JSON]]:
    """(trace, final state) of every outcome's witness and of three seeded executions."""
    run = prepare(case).semantics
    found = explore(run, lambda c: outcome(run, c), lambda c: c.key, 50_000)
    pairs = [(list(o.witness), o.value) for o in found.outcomes]
    for seed in range(3):
        execution = execute(run, seeded(seed))
        pairs.append((execution.trace, outcome(run, execution.final)))
    return pairs


def check_trace(trace: list[JSON], final: JSON, run: Any) -> None:
    names = [e["event"] for e in trace]
    # WF-TERM-1: "it reaches exactly one terminal outcome"; WF-TERM-2 it never changes;
    # WF-TERM-7 / WF-CUT-2: nothing follows the terminal event.
    assert names.count("run_finished") + names.count("run_rejected") == 1
    assert names[-1] in ("run_finished", "run_rejected")
    assert final["outcome"] == trace[-1].get("outcome", "rejected")
    # WF-SOUT-1: every step that began reaches exactly one outcome; one not begun at most one.
    finished: dict[str, int] = {}
    begun: set[str] = set()
    for k, e in enumerate(trace):
        step = e.get("step")
        if e["event"] == "step_started":
            assert step not in begun and step not in finished
            begun.add(step)
        elif e["event"] == "step_finished":
            assert step not in finished, f"{step} finished twice"
            finished[step] = k
            assert final["steps"][step] == e["outcome"]
            # A construct's outcome follows every nested step's (docs/workfile-execution.md).
            for inner in begun:
                if inner.startswith(step + ".") or inner.startswith(step + "["):
                    assert inner in finished and finished[inner] < k
    assert begun <= set(finished)
    assert set(final["steps"]) == set(finished)
    # WF-CANCEL-5: after the request, nothing starts.
    if "cancel_requested" in names:
        after = names[names.index("cancel_requested") :]
        assert not STARTS & set(after)
        assert final["outcome"] == "cancelled" and "result" not in final  # WF-CANCEL-9
    # WF-RETRY-10/11, WF-AMB-1: a retry follows a retryable or ambiguous attempt only.
    for k, e in enumerate(trace):
        if e["event"] == "retry_scheduled":
            previous = next(p for p in reversed(trace[:k]) if p.get("step") == e["step"])
            assert previous["event"] == "attempt_finished"
            assert previous["result"] in ("retryable", "unknown")
            assert previous["attempt"] + 1 == e["attempt"]
            step = run.steps[static_path(e["step"])]
            assert e["attempt"] <= step.modifiers.effective_attempts
    # WF-TERM-8: only write attempts are unresolved effects; A-126: an action without a
    # manifest counts as one (the cases drawn without manifests).
    for effect in final["unknownEffects"]:
        step = run.steps[static_path(effect["step"])]
        spec = run.spec(step)
        assert spec is None or spec.effects == "write", effect
        assert spec is None or step.body.action in ("put", "send", "notify")  # MANIFEST's
    if final["outcome"] in ("failed", "cancelled"):
        assert "result" not in final  # WF-ROUT-3/4: no workflow result


@settings(max_examples=60, deadline=None)
@given(workfile_cases())
def test_every_permitted_trace_keeps_the_chapters_invariants(case):
    run = prepare(case).semantics
    for trace, final in traces(case):
        check_trace(trace, final, run)


def test_the_generated_manifest_names_the_actions_the_invariants_read():
    assert set(ACTIONS) == {"get", "put", "send", "fetch"}


@settings(max_examples=40, deadline=None)
@given(workfile_cases())
def test_configurations_share_structure_exactly_as_a_deep_copy_would(case):
    # model/workfile/run.py: _spine copies only the path a rule changes; were a
    # rule to change a shared part, an earlier configuration would change
    # with it and the exploration would differ from one over deep copies.
    import copy

    from wforacle.model.workfile import run as module

    run = prepare(case).semantics
    shared = explore(run, lambda c: outcome(run, c), lambda c: c.key, 50_000)
    original = module._spine
    module._spine = lambda data, loc: copy.deepcopy(data)
    try:
        deep = explore(run, lambda c: outcome(run, c), lambda c: c.key, 50_000)
    finally:
        module._spine = original
    assert shared.states == deep.states and shared.transitions == deep.transitions
    assert sorted(map(repr, (o.value for o in shared.outcomes))) == sorted(
        map(repr, (o.value for o in deep.outcomes))
    )


@settings(max_examples=80, deadline=None)
@given(workfile_cases())
def test_the_reduction_keeps_every_outcome(case):
    # The frames reduction (WorkfileRun.ample) is a persistent-set reduction:
    # exploring it must find exactly the outcomes the naive search finds.
    from wforacle.properties.workfile.execution import explore as explore_case

    run = prepare(case).semantics
    naive = explore_case(run, 100_000, False)
    reduced = explore_case(run, 100_000, True)
    assert naive.complete and reduced.complete
    assert reduced.states <= naive.states
    assert sorted(map(repr, (o.value for o in naive.outcomes))) == sorted(
        map(repr, (o.value for o in reduced.outcomes))
    )


def test_every_rule_of_the_model_is_reached_by_generated_cases():
    # A rule no generated case reaches is a rule no campaign tests: the
    # generator (with its shapes) must exercise every one (RULES).
    from hypothesis import HealthCheck, Phase, seed

    from wforacle.model.workfile.run import RULES
    from wforacle.properties.strategies.hermetic import hermetic

    seen: set[str] = set()

    # Seed 3 reaches every rule by example 1,035 under Hypothesis 6.170.27 and 6.155.2
    # alike.  Session 24's draws (cases without manifests, a flow.timeout handler on an
    # expiring call) moved the streams: seeds 1-9 then reached the last rule at none in
    # 2,500, 2,109, 1,035, 875, 1,396, none, none, none, 1,733 (6.155.2) and none, -, 1,035,
    # 1,315, 1,396, 887, 690, none, 1,161 (6.170.27).  Session 23's result_refused (a
    # handler's replacement the contract refuses) is the rule reached last.
    @seed(3)
    @settings(
        max_examples=1200,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(workfile_cases())
    def collect(case: JSON) -> None:
        run = prepare(case).semantics
        for schedule in range(3):
            seen.update(step.rule for step in execute(run, seeded(schedule)).steps)

    with hermetic():
        collect()
    # reject_dry needs a live event source (WF-DRY-15): a Core document the campaigns draw
    # never holds one (wf.wait_for is refused); state-form dry runs reach it
    # (tests/workfile/test_stateful_run.py, the workfile-stateful profile).
    assert sorted(set(RULES) - seen - {"reject_dry"}) == []


def test_the_reduction_keeps_a_race_with_an_abort_behind_a_continue_boundary():
    # The branch's construct aborts the run although its branch policy is
    # continue: the reduction must still let branch b be at every point when
    # it happens (WF-POLICY-3, WF-SCHED-6..8).
    from wforacle.properties.strategies.workfile_runs import MANIFEST
    from wforacle.properties.workfile.execution import explore as explore_case

    document = """
steps:
  - p:
      wf.parallel:
        on_branch_fail: continue
        branches:
          a:
            - pick:
                on_fail: abort
                wf.choose:
                  arms: [ { when: true, steps: [ { x: { svc.send: {} } } ] } ]
          b: [ { y: { svc.send: {} } }, { z: { svc.get: {} } } ]
"""
    case = {
        "document": document,
        "manifests": {"svc": MANIFEST},
        "scenario": {"attempts": {"p.a.pick.0.x": [{"error": "svc.fatal"}]}},
    }
    run = prepare(case).semantics
    naive = explore_case(run, 100_000, False)
    reduced = explore_case(run, 100_000, True)
    outcomes = sorted(map(repr, (o.value for o in naive.outcomes)))
    assert len(outcomes) >= 3  # b had not begun; y cancelled; y done and z cancelled …
    assert sorted(map(repr, (o.value for o in reduced.outcomes))) == outcomes


def test_every_shape_yields_cases_the_model_runs():
    # A shape whose documents were invalid would be filtered out of every
    # campaign, silently taking its rule family with it.
    import yaml
    from hypothesis import HealthCheck
    from hypothesis import strategies as st

    from wforacle.properties.strategies import workfile_runs

    for shape in workfile_runs.SHAPES:

        @settings(max_examples=25, database=None, suppress_health_check=list(HealthCheck))
        @given(st.data(), st.just(shape))
        def each(data: Any, chosen: Any) -> None:
            builder = workfile_runs._Builder()
            steps = chosen(data.draw, builder)
            case = {
                "document": yaml.safe_dump({"steps": steps}),
                "manifests": {"svc": workfile_runs.MANIFEST},
                "workflows": {n: yaml.safe_dump(w) for n, w in builder.workflows.items()},
                "scenario": {"attempts": dict(builder.scripts), **builder.interrupts},
            }
            prepare(case)  # InvalidCase when the shape's document or scenario is invalid

        each()


def test_the_reduction_keeps_a_race_with_a_literal_guard_that_faults():
    # A guard written as a non-boolean literal faults without any {{ }} marker
    # found by review: the reduction treated it as safe and lost the
    # outcomes where the other branch had begun.
    from wforacle.properties.strategies.workfile_runs import MANIFEST
    from wforacle.properties.workfile.execution import explore as explore_case

    document = """
steps:
  - par:
      wf.parallel:
        branches:
          l: [ { e: { svc.get: {}, when: "yes" } } ]
          r: [ { b: { svc.send: {} } } ]
"""
    run = prepare({"document": document, "manifests": {"svc": MANIFEST}, "scenario": {}}).semantics
    naive = sorted(map(repr, (o.value for o in explore_case(run, 100_000, False).outcomes)))
    reduced = sorted(map(repr, (o.value for o in explore_case(run, 100_000, True).outcomes)))
    assert len(naive) >= 3 and reduced == naive
