"""Tests for clauses whose citations were nominal or that the catalogue only now holds.

Issue 10 found citations that named a clause the citing code does not
exercise, and normative statements the catalogue lacked.  Each test here
drives the behaviour its clause states, so it fails if the behaviour goes.
Where the implementing code does not cite the new id yet, the clause shows
as ``tests-only`` in ``wforacle clauses``: the rule exists, its citation not.
"""

from __future__ import annotations

import re

import pytest

from wforacle.model.w6w.resolve import ResolutionError, resolve_with
from wforacle.model.w6w.scenario import PHASES
from wforacle.properties.clauses import load
from wforacle.properties.w6w.validate import validate


def _document(**members: object) -> dict[str, object]:
    doc: dict[str, object] = {
        "manifestVersion": "2",
        "id": "wf_test",
        "name": "test",
        "steps": [{"id": "a", "uses": {"app": "demo", "action": "run"}}],
    }
    doc.update(members)
    return doc


def _found(doc: dict[str, object]) -> list[tuple[str, str, str | None]]:
    return [(d.code, d.path, d.clause) for d in validate(doc).report.diagnostics]


def _enumeration(clause_id: str) -> tuple[str, ...]:
    """The quoted values of an enumeration row ("a" | "b" | …), in order."""
    return tuple(re.findall(r'"([a-z-]+)"', load("w6w")[clause_id].text.split("\t")[-1]))


# -- W6W-FIELD-2 was cited for "id is a required string"; the row says that ---


def test_a_workflow_id_is_a_required_string():
    # W6W-FIELD-26: "id	string	✅	Host-issued opaque id. …" — the row, not
    # W6W-FIELD-2's description ("Stable across renames"), is what the loader
    # checks: present, and a string.
    doc = _document()
    del doc["id"]
    assert ("missing_field", "$.id", "W6W-FIELD-26") in _found(doc)
    assert ("wrong_type", "$.id", "W6W-FIELD-26") in _found(_document(id=7))
    assert not [f for f in _found(_document()) if f[1] == "$.id"]


# -- enumerations the catalogue now holds as rows --------------------------------


def test_the_error_phases_are_the_four_the_step_error_row_lists():
    # W6W-STATE-21: phase is "resolution" | "auth" | "execute" | "output".
    assert _enumeration("W6W-STATE-21") == ("resolution", "auth", "execute", "output")
    assert tuple(PHASES) == _enumeration("W6W-STATE-21")


# -- prose without a keyword, now catalogued ---------------------------------


def test_absent_meta_reads_as_null():
    # W6W-META-24: "Absent meta reads like any absent path: { "$":
    # "steps.<id>.meta.version" } and JSONLogic var yield null."
    scope = {"steps": {"a": {"output": {"n": 1}}}}
    assert resolve_with({"$": "steps.a.meta.version"}, scope) is None
    assert resolve_with({"$expr": {"var": "steps.a.meta.version"}}, scope) is None


@pytest.mark.parametrize("value", [{"k": [1, 2]}, [1, "x"], None, True, 0, 2.5])
def test_a_whole_value_marker_resolves_type_preserved(value):
    # W6W-BIND-10: "It resolves type-preserved — an object, array, null,
    # boolean or number stays itself".
    scope = {"vars": {"v": value}}
    assert resolve_with({"$": "vars.v"}, scope) == value
    assert type(resolve_with({"$": "vars.v"}, scope)) is type(value)
    assert resolve_with({"$expr": {"var": "vars.v"}}, scope) == value


@pytest.mark.parametrize("ref", [None, ""])
def test_an_absent_or_empty_ref_fails_a_secret_or_render_part(ref):
    # W6W-ENV-56: "a secret part with an absent or empty ref names no available
    # secret and so fails the step …; a render part with an absent or empty ref
    # has no resolved content and so fails the step with render_ref_unresolved".
    scope = {"secrets": {"": "not a secret", "K": "s"}, "vars": {"": "x"}}
    for kind, code in (("secret", "secret_unavailable"), ("render", "render_ref_unresolved")):
        part = {"kind": kind} if ref is None else {"kind": kind, "ref": ref}
        with pytest.raises(ResolutionError) as failed:
            resolve_with({"type": "expr", "parts": [part]}, scope)
        assert failed.value.code == code
