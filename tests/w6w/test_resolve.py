"""Resolution of with values: each Testably bullet of the expression amendments."""

from __future__ import annotations

import copy

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from wforacle.grammar.template import Mode, parse_template
from wforacle.model.w6w.parts import SecretPart
from wforacle.model.w6w.resolve import ResolutionError, is_expr_value, resolve_with
from wforacle.properties.strategies.templates import (
    ROOT_NAMES,
    paths,
    scopes,
    templates,
    with_values,
)
from wforacle.properties.strategies.w6w import json_values

SCOPE = {
    "vars": {"token": "T", "count": 5, "obj": {"a": 1}, "zero": 0, "flag": True},
    "secrets": {"API_KEY": "s3cr3t"},
    "documents": {"other": {"body": "{{ vars.token }} and {{ secrets.API_KEY }}"}},
    "steps": {"fetch": {"output": {"items": [{"title": "first"}]}}},
}


def resolve(value, scope=SCOPE):
    return resolve_with(copy.deepcopy(value), copy.deepcopy(scope))


def outcome(value, scope):
    try:
        return ("value", resolve(value, scope))
    except ResolutionError as failure:
        return ("error", failure.code)


def envelope(*parts_):
    return {"type": "expr", "parts": list(parts_)}


# -- markers -------------------------------------------------------------------


def test_whole_output_binding():
    # W6W-BIND-1: "The whole-output form an editor writes is { "$": "steps.<id>.output" }".
    assert resolve({"$": "steps.fetch.output"}) == {"items": [{"title": "first"}]}


def test_path_marker_is_type_preserving():
    # W6W-EXPR-1 "Path lookup sugar over the run scope"; W6W-BIND-3 a marker anywhere.
    assert resolve({"$": "steps.fetch.output.items.0.title"}) == "first"
    assert resolve({"x": [{"$": "vars.obj"}, {"$": "vars.count"}]}) == {"x": [{"a": 1}, 5]}


def test_absent_path_marker_is_null():
    # W6W-BIND-4: "A $ binding to an absent, skipped or failed upstream path resolves to null".
    assert resolve({"$": "steps.missing.output"}) is None


def test_expr_marker_evaluates_jsonlogic_type_preserving():
    # W6W-EXPR-2 "Full JSONLogic evaluation over the run scope".
    assert resolve({"$expr": {"+": [{"var": "vars.count"}, 1]}}) == 6
    assert resolve({"$expr": {"var": "vars.obj"}}) == {"a": 1}


def test_plain_objects_and_arrays_resolve_recursively():
    # W6W-EXPR-3 "Resolved recursively — nested markers evaluated in place."
    assert resolve({"a": {"b": [{"$": "vars.token"}, 1]}}) == {"a": {"b": ["T", 1]}}


def test_resolution_is_one_pass():
    # W6W-BIND-5: "values produced by resolution are never re-walked, so a payload
    # that contains { "$": … } or {{ … }} reaches the action verbatim".
    scope = {"vars": {"m": {"$": "vars.n"}, "t": "{{ vars.n }}", "n": 1}}
    assert resolve({"$": "vars.m"}, scope) == {"$": "vars.n"}
    assert resolve({"$": "vars.t"}, scope) == "{{ vars.n }}"
    assert resolve({"$expr": {"var": "vars.t"}}, scope) == "{{ vars.n }}"


@given(scopes(), st.sampled_from(["secrets", "secrets.a", "secrets.x"]))
def test_markers_cannot_read_secrets(scope, path):
    # W6W-ENV-18 secrets never on the generic data root; W6W-ENV-22 only a secret part reads them.
    # W6W-ENV-21 and the two barriers: "{ "$": "secrets.X" } is an unknown path".
    assert resolve({"$": path}, scope) is None
    assert resolve({"$expr": {"var": path}}, scope) is None
    assert resolve(envelope({"kind": "var", "ref": path}), scope) == ""


# -- the envelope --------------------------------------------------------------


def test_envelope_resolves_to_one_string():
    # W6W-ENV-7 "An ExprValue resolves to one string — always"; W6W-ENV-2 var part,
    # W6W-ENV-4 expr part, W6W-ENV-1 text part; W6W-BIND-2 envelopes stay string-producing.
    # W6W-ENV-20: "including when parts holds exactly one member, and including when
    # that member's value is an object or an array — which is stringified".
    assert resolve(envelope({"kind": "var", "ref": "vars.obj"})) == '{"a":1}'
    assert resolve(envelope({"kind": "var", "ref": "vars.count"})) == "5"
    assert (
        resolve(
            envelope(
                {"kind": "text", "value": "n="}, {"kind": "expr", "expr": {"var": "vars.count"}}
            )
        )
        == "n=5"
    )


def test_envelope_kinds_and_absent_content():
    # W6W-ENV-5: absent value / expr read as empty; W6W-ENV-6 unknown kinds contribute "".
    assert resolve(envelope({"kind": "text"}, {"kind": "expr"}, {"kind": "weird"})) == ""
    assert resolve(envelope({"kind": "secret", "ref": "API_KEY"})) == "s3cr3t"  # W6W-ENV-3


@pytest.mark.parametrize("part", [{"kind": "var"}, {"kind": "var", "ref": ""}])
def test_an_absent_or_empty_var_ref_names_nothing(part):
    # W6W-ENV-28 / W6W-ENV-29: "MUST produce the empty string — it MUST NOT produce a
    # serialization of S".
    assert resolve(envelope(part)) == ""


@given(scopes())
def test_an_empty_var_ref_never_exposes_the_scope(scope):
    # W6W-ENV-29 (Testably, for every run scope S).
    assert resolve(envelope({"kind": "var"}), scope) == ""
    assert resolve(envelope({"kind": "var", "ref": ""}), scope) == ""


@pytest.mark.parametrize(
    "part", [{"kind": "secret"}, {"kind": "secret", "ref": ""}, {"kind": "secret", "ref": "NOPE"}]
)
def test_a_secret_part_naming_no_secret_fails_the_step(part):
    # W6W-ENV-27, W6W-ENV-3, W6W-ENV-22 (secrets read directly): "fails the step rather than
    # contributing empty".
    with pytest.raises(ResolutionError) as failure:
        resolve(envelope(part))
    assert failure.value.code == "secret_unavailable"


def contains_secret_part(value):
    """Whether a with value contains a secret part (envelope or template string)."""
    if isinstance(value, dict):
        if is_expr_value(value):
            return any(isinstance(p, dict) and p.get("kind") == "secret" for p in value["parts"])
        return any(contains_secret_part(v) for v in value.values())
    if isinstance(value, list):
        return any(contains_secret_part(v) for v in value)
    if isinstance(value, str):
        return any(isinstance(p, SecretPart) for p in parse_template(value, Mode.EDITOR).parts)
    return False


@given(scopes(), with_values(secret=False))
def test_resolution_without_secret_parts_never_depends_on_secrets(scope, value):
    # W6W-ENV-21 (Testably): "for every run scope S and every with block that
    # contains no secret part, resolving that block against S MUST produce a
    # result identical to resolving it against { ...S, secrets: {} }".
    assume(not contains_secret_part(value))
    assert outcome(value, scope) == outcome(value, {**scope, "secrets": {}})


# -- render parts --------------------------------------------------------------


def test_render_substitutes_in_one_pass():
    # W6W-ENV-8..W6W-ENV-11 (the four steps), W6W-ENV-12 "One pass", W6W-ENV-16 (rendered
    # content reads the same data root: vars, documents …).
    # W6W-ENV-24 (Testably): "rendering content that contains {{ documents.other.body }}
    # MUST substitute that document's text verbatim, including any {{ }} sequences".
    scope = {
        **SCOPE,
        "documents": {**SCOPE["documents"], "main": {"body": "<{{ documents.other.body }}>"}},
    }
    assert resolve(envelope({"kind": "render", "ref": "documents.main.body"}), scope) == (
        "<{{ vars.token }} and {{ secrets.API_KEY }}>"
    )


@given(st.text())
def test_rendered_content_is_substituted_verbatim(body):
    scope = {"documents": {"other": {"body": body}, "main": {"body": "{{ documents.other.body }}"}}}
    assert resolve(envelope({"kind": "render", "ref": "documents.main.body"}), scope) == body


def test_rendered_secret_reference_renders_empty():
    # W6W-ENV-23: "{{ secrets.X }} ... MUST therefore render as the empty string".
    scope = {**SCOPE, "documents": {"d": {"body": "[{{ secrets.API_KEY }}]"}}}
    assert resolve(envelope({"kind": "render", "ref": "documents.d.body"}), scope) == "[]"


@given(scopes(), templates())
def test_rendering_never_reads_a_secret(scope, content):
    # W6W-ENV-23 / W6W-CHAIN-6: the render grammar has no secret production, and
    # the data root has no secrets — changing the secrets never changes a rendering.
    scope = {**scope, "documents": {"d": {"body": content}}}
    part = envelope({"kind": "render", "ref": "documents.d.body"})
    assert outcome(part, scope) == outcome(part, {**scope, "secrets": {"a": "LEAK", "x": "LEAK"}})


@pytest.mark.parametrize(
    ("ref", "code"),
    [
        ("vars.nothing", "render_ref_unresolved"),
        (None, "render_ref_unresolved"),
        ("", "render_ref_unresolved"),
        ("vars.null", "render_ref_unresolved"),
        ("vars.count", "render_ref_not_a_string"),
        ("vars.obj", "render_ref_not_a_string"),
        ("vars.flag", "render_ref_not_a_string"),
    ],
)
def test_render_ref_must_resolve_to_a_string(ref, code):
    # W6W-ENV-25 (Testably): "MUST fail the step — it MUST NOT render as the empty
    # string, and MUST NOT emit the literal text null".
    part = {"kind": "render"} if ref is None else {"kind": "render", "ref": ref}
    scope = {**SCOPE, "vars": {**SCOPE["vars"], "null": None}}
    with pytest.raises(ResolutionError) as failure:
        resolve(envelope(part), scope)
    assert failure.value.code == code
    assert (ref or "") in failure.value.message


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("{{ secrets.NOPE }}", "secret 'NOPE' is not available to this run"),
        (envelope({"kind": "secret"}), "secret '' is not available to this run"),
        (envelope({"kind": "render"}), "render ref '' resolves to nothing"),
        (envelope({"kind": "render", "ref": 7}), "render ref '' resolves to nothing"),
        (
            envelope({"kind": "render", "ref": "vars.no'pe"}),
            "render ref 'vars.no'pe' resolves to nothing",
        ),
        (
            envelope({"kind": "render", "ref": "vars.count"}),
            "render ref 'vars.count' resolves to a number, not a string",
        ),
        ({"$expr": {"/": [1, 0]}}, 'expression failed with NaN: {"type": "NaN"}'),
        (
            {"$expr": {"nope": 1}},
            'expression failed with Unknown Operator: {"type": "Unknown Operator", "key": "nope"}',
        ),
        ({"$expr": {"throw": {"/": [4, 2]}}}, 'expression failed with 2: {"type": 2}'),
    ],
)
def test_failure_messages_are_the_documented_templates(value, message):
    # docs/expressions.md "Error codes": a ref as written between single quotes (an
    # absent one as ''), never Python's None or repr; a thrown value as JSON, so 2
    # and not Python's 2.0.  An engine may word its own; these are the model's.
    with pytest.raises(ResolutionError) as failure:
        resolve(value)
    assert failure.value.message == message


def test_documents_are_ordinary_data():
    # W6W-ENV-26: "Make documents.<key> reachable through the generic data root".
    assert resolve({"$": "documents.other.body"}).startswith("{{ vars.token }}")


# -- root-anchored template strings ---------------------------------------------


def test_rooted_strings_resolve_and_interpolate():
    # W6W-ROOT-1 (the iff rule), W6W-ROOT-8 "Bearer {{ vars.token }}";
    # W6W-ROOT-9 "{{ vars.count }}" → "5".
    assert resolve("Bearer {{ vars.token }}") == "Bearer T"
    assert resolve("{{ vars.count }}") == "5"


@pytest.mark.parametrize(
    "text",
    [
        "no markers",
        "Hi {{ name }}, {{ vars.token }}",
        "a {{ vars.token",
        "{{ }}",
        "x {{ }} y",
        "{{var:name}}",
        "{{#if x}}{{ vars.token }}{{/if}}",
        "{{ vars.a || badroot.x }}",
        "{{ vars.a || vars.b ?? vars.c }}",
        "{{ user.name }}",
    ],
)
def test_unresolved_strings_are_byte_identical(text):
    # W6W-ROOT-19/20/21/25, W6W-ROOT-12 (unterminated), W6W-ROOT-13 (empty marker) and
    # W6W-CHAIN-8 ("{{ vars.a || badroot.x }} is refused in full").
    assert resolve(text) == text


@pytest.mark.parametrize(
    "root", ["vars", "steps", "trigger", "secrets", "documents", "inputs", "output", "foreach"]
)
def test_each_of_the_eight_roots_anchors_a_string(root):
    # W6W-ROOT-26 the closed set, its members W6W-ROOT-3 (vars, steps, trigger),
    # W6W-ROOT-4 (secrets, documents), W6W-ROOT-5 (inputs, output), W6W-ROOT-6 (foreach).
    scope = {root: {"k": "v"}}
    text = "<{{ " + root + ".k }}>"
    if root == "secrets":
        assert resolve("<{{ secrets.k }}>", {"secrets": {"k": "v"}}) == "<v>"
    else:
        assert resolve(text, scope) == "<v>"


def test_there_is_no_escape_form():
    # W6W-ROOT-14: "There is no escape mechanism" — a backslash is ordinary text.
    assert resolve("\\{{ vars.token }}") == "\\T"


def test_unrooted_root_is_not_resolved_whatever_the_scope_carries():
    # W6W-ROOT-25: "whatever else the host's ambient scope for that pass happens to carry".
    assert resolve("{{ user.name }}", {"user": {"name": "ada"}}) == "{{ user.name }}"


@given(
    scopes(),
    st.lists(paths(tuple(r for r in ROOT_NAMES if r != "secrets")), min_size=1, max_size=3),
    st.text(alphabet="abc ,", max_size=4),
)
def test_strings_with_only_rooted_markers_resolve(scope, refs, glue):
    # W6W-ROOT-19 (Testably): "for every string containing only rooted markers,
    # resolving it MUST differ from the input" — when no value re-spells a
    # marker (finding F-05).
    assume(not any("{{" in str(v) for v in scope.values()))
    text = glue.join("{{ " + ref + " }}" for ref in refs)
    assert resolve(text, scope) != text


@given(
    scopes(),
    templates(),
    st.sampled_from(["{{ name }}", "{{ badroot.x }}", "{{ }}", "{{ vars.a || nope.b }}"]),
)
def test_any_unrooted_marker_leaves_the_whole_string(scope, text, unrooted):
    # W6W-ROOT-2 all-or-nothing; W6W-ROOT-20 (Testably): "MUST resolve to the byte-identical
    # input".
    # (An unterminated "{{" in text would swallow the appended marker.)
    assume(not parse_template(text).unterminated)
    value = text + unrooted
    assert resolve(value, scope) == value


@given(st.text().filter(lambda t: "{{" not in t))
def test_strings_without_markers_are_identical(text):
    # W6W-ROOT-21.
    assert resolve(text, SCOPE) == text


@pytest.mark.parametrize(
    ("path", "expected"),
    [("vars.count", "5"), ("vars.flag", "true"), ("vars.obj", '{"a":1}'), ("vars.zero", "0")],
)
def test_a_sole_marker_resolves_to_a_string(path, expected):
    # W6W-ROOT-22 (Testably): "MUST resolve to that value's string form".
    assert resolve("{{ " + path + " }}") == expected


@given(paths(tuple(r for r in ROOT_NAMES if r != "secrets")))
def test_an_absent_rooted_path_contributes_the_empty_string(path):
    # W6W-ROOT-10 / W6W-ROOT-23 (Testably): "MUST resolve to "", not fail the step".
    assert resolve("<{{ " + path + " }}>", {}) == "<>"


def test_a_missing_secret_marker_fails_the_step():
    # W6W-ROOT-11 / W6W-ROOT-24 (Testably): "MUST NOT resolve to the empty string or to the
    # literal text".
    with pytest.raises(ResolutionError):
        resolve("key={{ secrets.NOPE }}")
    assert resolve("key={{ secrets.API_KEY }}") == "key=s3cr3t"


def test_chains_resolve_with_their_operators():
    # W6W-CHAIN-1 (truthy), W6W-CHAIN-2 (absent-only).
    assert resolve('{{ vars.zero || "x" }}') == "x"
    assert resolve('{{ vars.zero ?? "x" }}') == "0"
    assert resolve('{{ vars.none ?? "x" }}') == "x"


@given(scopes(), with_values())
def test_resolution_never_raises_anything_but_a_resolution_error(scope, value):
    kind, _ = outcome(value, scope)
    assert kind in ("value", "error")


@given(json_values(6))
def test_literals_pass_through(value):
    # W6W-FIELD-11: "Each value is a literal, an object, an array, or an expression marker."
    assume(not contains_marker(value))
    assert resolve(value, SCOPE) == value


def contains_marker(value):
    if isinstance(value, dict):
        return (
            (("$" in value or "$expr" in value) and len(value) == 1)
            or is_expr_value(value)
            or any(contains_marker(v) for v in value.values())
        )
    if isinstance(value, list):
        return any(contains_marker(v) for v in value)
    return isinstance(value, str) and "{{" in value


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ([1, True, None], "[1,true,null]"),
        (1.0, "1"),
        (1e-7, "1e-7"),
        (False, "false"),
        ({"x": 1}, '{"x":1}'),
        (None, ""),
    ],
)
def test_a_text_parts_value_that_is_not_a_string_is_stringified_as_any_parts(value, text):
    # W6W-ENV-20: an ExprValue "resolves to one string — always", a structured value
    # "stringified before it is concatenated" (A-163: as every part's value is, A-33).
    envelope = {"type": "expr", "parts": [{"kind": "text", "value": value}, {"kind": "text"}]}
    assert resolve(envelope) == text


@pytest.mark.parametrize("scope", [{"vars": {"name": None}}, {"vars": {}}])
def test_a_marker_reading_nothing_cites_root_10(scope):
    # W6W-ROOT-10: "A reference that resolves to nothing contributes the empty string" —
    # the rule an engine printing "null" breaks (a stranger's engine, issue 18 part 4);
    # after W6W-ROOT-9 ("always a single string"), which an untyped engine breaks.
    from wforacle.model.w6w.resolve import resolve_labelled

    _, resolved, used = resolve_labelled({"k": "Hi {{ vars.name }}"}, scope)
    assert resolved == {"k": "Hi "} and used[:2] == ("W6W-ROOT-9", "W6W-ROOT-10")
    _, _, used = resolve_labelled({"k": "Hi {{ vars.name }}"}, {"vars": {"name": "Ada"}})
    assert "W6W-ROOT-10" not in used
