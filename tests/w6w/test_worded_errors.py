"""An error the engine raises itself is worded by the engine (assumption A-155).

RFC "StepError": ``message`` is a "Human-facing message".  For an error an
action returns (the scenario's), the engine passes it on and the oracle
compares it whole; for one the engine raises itself (a with block that does
not resolve, a missing variable, a call that cannot start) the words, and
the code unless the RFC names it, are the engine's own: an engine that words
them otherwise is no less conforming (a stranger's engine was reported
divergent for its messages alone).
"""

from __future__ import annotations

import copy

from wforacle.model.kernel.lts import Worded, execute
from wforacle.oracle.check import check
from wforacle.properties.w6w.specification import W6W

STEP = {"id": "a", "uses": {"app": "demo", "action": "run"}, "onError": "continue"}
CASE = {
    "document": {"manifestVersion": "2", "id": "wf", "name": "worded", "steps": [STEP]},
    "scenario": {},
    "schedule": [],
}


def _run(with_value):
    case = copy.deepcopy(CASE)
    case["document"]["steps"][0]["with"] = with_value
    prepared = W6W.prepare(case, None)
    return prepared, execute(prepared.semantics).trace


def _reworded(trace, **fields):
    changed = copy.deepcopy(trace)
    for event in changed:
        if isinstance(event.get("error"), dict):
            event["error"].update(fields)
    return changed


def test_worded_text_equals_any_text_from_either_side_and_nothing_else():
    worded = Worded("the model's words")
    assert worded == "an engine's words"
    assert "an engine's words" == worded  # noqa: SIM300 - the engine's text on the left
    assert {"message": "x"} == {"message": worded}  # noqa: SIM300 - likewise
    assert [worded] == ["y"]
    assert worded != 3 and worded != None  # noqa: E711 - a number or null is not text
    assert hash(worded) == hash("the model's words")


def test_an_engine_s_own_words_for_an_error_it_raises_are_not_compared():
    # A secret the run does not have: the step fails at resolution (W6W-ROOT-11).
    prepared, trace = _run({"key": "{{ secrets.missing }}"})
    failed = next(e for e in trace if e["event"] == "step_failed")
    assert failed["error"]["phase"] == "resolution"
    mine = _reworded(trace, message="no such secret", code="E_SECRET")
    assert check(prepared.semantics, W6W.key, mine).permitted
    # The phase and retryable are the RFC's: an engine that changes them diverges.
    assert not check(prepared.semantics, W6W.key, _reworded(trace, phase="execute")).permitted
    assert not check(prepared.semantics, W6W.key, _reworded(trace, retryable=True)).permitted


def test_a_code_the_rfc_names_is_compared():
    # W6W-ENV-25 names render_ref_unresolved: a render part whose ref resolves to nothing.
    prepared, trace = _run({"t": {"type": "expr", "parts": [{"kind": "render", "ref": "vars.x"}]}})
    failed = next(e for e in trace if e["event"] == "step_failed")
    assert failed["error"]["code"] == "render_ref_unresolved"
    assert check(prepared.semantics, W6W.key, _reworded(trace, message="mine")).permitted
    assert not check(prepared.semantics, W6W.key, _reworded(trace, code="other")).permitted


def test_an_action_s_error_is_compared_whole():
    case = copy.deepcopy(CASE)
    error = {"code": "boom", "message": "the action's", "phase": "execute"}
    case["scenario"] = {"steps": {"a": {"attempts": [{"error": error}]}}}
    prepared = W6W.prepare(case, None)
    trace = execute(prepared.semantics).trace
    assert check(prepared.semantics, W6W.key, trace).permitted
    assert not check(prepared.semantics, W6W.key, _reworded(trace, message="mine")).permitted
