"""toyflow's expression layer, written from the RFC alone, against the model's resolver.

The bundled engine (examples/engines/w6w_engine.py) imports nothing from
wforacle; these tests load its module and resolve the same with values as
model/w6w/resolve.py, over the campaign's own value strategy and over the
resolver's property-test strategy (``with_values``) restricted to the JSON
Logic operators toyflow supports.  A disagreement is decided by the RFC text.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from wforacle.model.expr.jsonlogic import OPERATORS
from wforacle.model.w6w.resolve import REDACTED, ResolutionError, resolve_recorded
from wforacle.oracle.differential import same_json
from wforacle.properties.strategies import templates
from wforacle.properties.strategies.w6w import expression_cases

ENGINE = Path(__file__).resolve().parents[2] / "examples" / "engines" / "w6w_engine.py"
_spec = importlib.util.spec_from_file_location("toyflow", ENGINE)
assert _spec is not None and _spec.loader is not None
toyflow = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(toyflow)

SUPPORTED = {"var", "cat", "==", "if", "or", "??"}
# The model's operators toyflow does not have, as they appear in JSON text.
OTHERS = [op for op in OPERATORS if op not in SUPPORTED]


def _uses_other_operators(value):
    text = json.dumps(value)
    return any(f'"{op}"' in text or f'\\"{op}\\"' in text for op in OTHERS)


def _toyflow(value, scope, bugs=frozenset()):
    secrets = scope.get("secrets") or {}
    data = {k: v for k, v in scope.items() if k != "secrets"}
    masked = {k: REDACTED for k, v in secrets.items() if v is not None}
    try:
        plain = toyflow.Resolution(data, secrets, bugs).value(value)
        recorded = toyflow.Resolution(data, masked, bugs).value(value)
    except toyflow.ResolutionFailure as failure:
        return ("error", failure.code, failure.message)
    return ("value", plain, recorded)


def _model(value, scope):
    try:
        plain, recorded = resolve_recorded(value, scope)
    except ResolutionError as failure:
        return ("error", failure.code, failure.message)
    return ("value", plain, recorded)


def _same(a, b):
    # JSON equality: one number type (0 == 0.0, as the protocol's JSON text has it:
    # the model's $expr results pass through to_json, toyflow's do not), and 1 apart
    # from True and from "1".
    return same_json(list(a), list(b))


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(templates.with_values(), templates.scopes())
# CI's find: a $expr result 0.0 is the JSON number 0 (the model prints it as 0).
@example([{"$expr": {"var": "output"}}], {"output": {"a": 0.0}, "secrets": {}, "vars": {}})
def test_toyflow_resolves_as_the_model_does(value, scope):
    # The resolver's own property-test values, JSON Logic within toyflow's operators.
    if _uses_other_operators(value):
        return
    assert _same(_toyflow(value, scope), _model(value, scope))


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_toyflow_resolves_the_campaign_values_as_the_model_does(data):
    with_, scope = data.draw(expression_cases())
    assert _same(_toyflow(with_, scope), _model(with_, scope))


def test_toyflow_writes_the_model_s_failure_messages():
    # docs/expressions.md "Error codes": an absent ref is named '' (never None).
    scope = {"vars": {"n": 5}, "secrets": {}}
    for part in (
        {"kind": "secret"},
        {"kind": "render"},
        {"kind": "render", "ref": ""},
        {"kind": "render", "ref": "vars.n"},
        {"kind": "secret", "ref": "NOPE"},
    ):
        value = {"type": "expr", "parts": [part]}
        model = _model(value, scope)
        assert model[0] == "error" and "None" not in model[2]
        assert _toyflow(value, scope) == model


def test_a_structured_value_is_stringified_as_json_stringify_writes_it():
    # compact JSON as JSON.stringify writes it — numbers as JavaScript prints them
    # (Python's json.dumps wrote 1e-07 and 1e+20), integer-like keys first, ascending.
    scope = {"vars": {"o": {"b": [1e-7, 1e20, 0.000001, None, True], "1": "x", "0": {}}}}
    value = "{{ vars.o }}!"
    expected = '{"0":{},"1":"x","b":[1e-7,100000000000000000000,0.000001,null,true]}!'
    assert _model(value, scope) == ("value", expected, expected)
    assert _toyflow(value, scope) == _model(value, scope)
