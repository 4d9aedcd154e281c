"""Hypothesis properties of validation over generated documents."""

from __future__ import annotations

import copy
import json

from hypothesis import assume, given
from hypothesis import strategies as st

from wforacle.properties.strategies.w6w import json_values, workflows
from wforacle.properties.w6w.plan import plan_order
from wforacle.properties.w6w.validate import validate


def error_codes(doc):
    return {d.code for d in validate(doc).report.errors}


@given(workflows())
def test_every_generated_workflow_is_valid_and_plans_along_every_edge(doc):
    # W6W-CONF-1, W6W-PLAN-5, W6W-PLAN-7.
    result = validate(doc)
    assert result.report.valid, result.report.codes()
    plan = plan_order(result.workflow)
    position = {step_id: i for i, step_id in enumerate(plan)}
    assert len(plan) == len(doc["steps"])
    for edge in doc.get("edges", []):
        assert position[edge["from"]] < position[edge["to"]]


@given(workflows(min_steps=2), st.data())
def test_a_back_edge_is_always_rejected_as_a_cycle(doc, data):
    # W6W-PLAN-6 / W6W-CONF-1: a back edge against the plan closes a cycle.
    plan = plan_order(validate(doc).workflow)
    i = data.draw(st.integers(0, len(plan) - 2))
    j = data.draw(st.integers(i + 1, len(plan) - 1))
    bad = copy.deepcopy(doc)
    # Make sure a path plan[i] → plan[j] exists, then add plan[j] → plan[i].
    bad.setdefault("edges", []).append({"from": plan[i], "to": plan[j]})
    bad["edges"].append(
        {"from": plan[j], "to": plan[i], "when": data.draw(st.sampled_from(["success", "error"]))}
    )
    assert "cycle" in error_codes(bad)


@given(workflows(), st.data())
def test_a_duplicate_id_is_always_rejected(doc, data):
    # W6W-PLAN-1.
    bad = copy.deepcopy(doc)
    twin = copy.deepcopy(data.draw(st.sampled_from(bad["steps"])))
    bad["steps"].insert(data.draw(st.integers(0, len(bad["steps"]))), twin)
    assert "duplicate_step_id" in error_codes(bad)


@given(workflows(), st.data(), st.text(min_size=1, max_size=5))
def test_a_dangling_edge_is_always_rejected(doc, data, unknown):
    # W6W-PLAN-3.
    assume(unknown not in {s["id"] for s in doc["steps"]})
    bad = copy.deepcopy(doc)
    known = data.draw(st.sampled_from(bad["steps"]))["id"]
    edge = data.draw(
        st.sampled_from([{"from": known, "to": unknown}, {"from": unknown, "to": known}])
    )
    bad.setdefault("edges", []).append(edge)
    assert "dangling_edge" in error_codes(bad)


@given(json_values(40))
def test_the_loader_never_raises_on_arbitrary_json(value):
    result = validate(value)
    assert result.report.errors or result.workflow is not None
    json.dumps(result.report.to_json())  # the report is always serialisable


@st.composite
def mutated_workflows(draw):
    """A valid document with random members replaced by arbitrary JSON."""
    doc = draw(workflows(max_steps=5))
    for _ in range(draw(st.integers(1, 4))):
        target = doc
        keys = []
        while isinstance(target, dict | list) and target and draw(st.booleans()):
            key = draw(
                st.sampled_from(list(target) if isinstance(target, dict) else range(len(target)))
            )
            keys.append(key)
            parent, target = target, target[key]
        if keys:
            parent[keys[-1]] = draw(json_values(6))
    return doc


@given(mutated_workflows())
def test_validation_never_raises_on_mutated_documents(doc):
    result = validate(doc)
    for d in result.report.diagnostics:
        assert d.path.startswith("$") and d.clause.startswith("W6W-") and d.message


@given(workflows(), json_values(8), json_values(8))
def test_presentation_never_changes_the_report(doc, position, settings):
    # W6W-PRES-1.
    noisy = copy.deepcopy(doc)
    noisy["settings"] = settings
    for step in noisy["steps"]:
        step["position"] = position
        step["notes"] = settings
    assert validate(doc).report == validate(noisy).report
