"""The {{ }} template grammar: parser modes, the chain arm, serialization."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wforacle.grammar.template import Mode, parse_template, serialize
from wforacle.model.w6w.parts import ExprPart, RenderPart, SecretPart, TextPart, VarPart
from wforacle.properties.strategies.templates import adversarial_text, templates


def parts(text, mode=Mode.EDITOR):
    return list(parse_template(text, mode).parts)


def test_the_three_productions_of_editor_mode():
    # W6W-ENV-14: =<JSONLogic> → expr · secrets.<name> → secret · <path> → var.
    assert parts('{{ ={"var":"vars.a"} }}') == [ExprPart({"var": "vars.a"})]
    assert parts("{{ secrets.API_KEY }}") == [SecretPart("API_KEY")]
    assert parts("Hi {{ vars.name }}!") == [TextPart("Hi "), VarPart("vars.name"), TextPart("!")]


def test_render_mode_has_no_secret_production():
    # W6W-ENV-15, W6W-ENV-23: "{{ secrets.X }} in particular MUST parse to a var
    # part whose ref is the literal path secrets.X".
    assert parts("{{ secrets.X }}", Mode.RENDER) == [VarPart("secrets.X")]
    assert parts('{{ ={"var":"a"} }}', Mode.RENDER) == [ExprPart({"var": "a"})]


@given(templates())
def test_render_mode_never_yields_a_secret_part(text):
    # W6W-ENV-23 / W6W-CHAIN-6: "parsing any content string T in render mode
    # continues to yield zero parts of kind secret".
    assert not any(isinstance(p, SecretPart) for p in parts(text, Mode.RENDER))


def test_a_json_payload_may_contain_closing_braces():
    # an expr marker ends after its complete JSON value.
    assert parts('{{ ={"!":{"var":"a"}} }}') == [ExprPart({"!": {"var": "a"}})]


def test_equals_without_json_falls_back_to_the_path_production():
    #
    assert parts("{{ =nope }}") == [VarPart("=nope")]


@pytest.mark.parametrize(
    "text",
    ["{{ vars.a || vars.b ?? vars.c }}", '{{ secrets.K || "x" }}', "{{ vars.a || }}"],
)
@pytest.mark.parametrize("mode", list(Mode))
def test_refused_chains_are_a_single_var_part_with_the_original_text(text, mode):
    # W6W-CHAIN-5 (its Testably examples); W6W-CHAIN-4 "refuses outright — falling through
    # to the ordinary <path> production".
    body = text[2:-2].strip()
    assert parts(text, mode) == [VarPart(body)]


def test_flat_chains_build_an_expr_part():
    # W6W-CHAIN-1 / W6W-CHAIN-2 / W6W-CHAIN-3: "{ "or": [...] } for ||, { "??": [...] } for ??".
    assert parts('{{ vars.a || "x" }}') == [ExprPart({"or": [{"var": "vars.a"}, "x"]})]
    assert parts("{{ vars.a ?? 0 ?? null }}") == [ExprPart({"??": [{"var": "vars.a"}, 0, None]})]
    # an operator inside a JSON string operand is not at the top level
    assert parts('{{ "a||b" || vars.x }}') == [ExprPart({"or": ["a||b", {"var": "vars.x"}]})]


@given(templates())
def test_the_chain_arm_is_mode_independent(text):
    # W6W-CHAIN-6: "Parse the identical marker text the same way in render mode
    # as in editor mode" — every chain (expr) part is the same in both modes.
    editor = [p for p in parts(text) if isinstance(p, ExprPart)]
    render = [p for p in parts(text, Mode.RENDER) if isinstance(p, ExprPart)]
    assert editor == render


def test_a_render_part_has_no_text_spelling():
    # W6W-ENV-13: "render has no {{ }} text spelling, in either parser mode."
    with pytest.raises(ValueError, match="no"):
        serialize([RenderPart("documents.d")])
    # and no text parses to one
    assert not any(type(p).__name__ == "RenderPart" for p in parts("{{ render.x }}"))


def test_serialization_promotes_a_flat_chain_to_infix():
    # W6W-CHAIN-7: "round-tripping a hand-written {{ ={"or":[{"var":"vars.a"},"x"]} }}
    # promotes to {{ vars.a || "x" }}".
    assert serialize(parts('{{ ={"or":[{"var":"vars.a"},"x"]} }}')) == '{{ vars.a || "x" }}'
    assert serialize(parts('{{ ={"and":[1,2]} }}')) == '{{ ={"and":[1,2]} }}'


@given(templates())
def test_serialization_round_trips(text):
    template = parse_template(text)
    if template.unterminated:
        return
    again = parse_template(serialize(template.parts))
    assert _merged(again.parts) == _merged(template.parts)


def _merged(parts_):
    """Adjacent text parts merged (serialization may join them)."""
    out = []
    for part in parts_:
        if out and isinstance(part, TextPart) and isinstance(out[-1], TextPart):
            out[-1] = TextPart(out[-1].value + part.value)
        else:
            out.append(part)
    return out


@given(adversarial_text())
def test_parsing_never_fails_and_text_survives(text):
    template = parse_template(text)
    text_parts = "".join(p.value for p in template.parts if isinstance(p, TextPart))
    assert len(text_parts) <= len(text)
    if "{{" not in text:
        assert template.parts == ((TextPart(text),) if text else ())


@given(st.text(min_size=1))
def test_unterminated_marker_keeps_the_rest_as_written(tail):
    text = "x {{ " + tail.replace("}}", "")
    template = parse_template(text)
    assert template.unterminated
    assert "".join(p.value for p in template.parts) == text


def test_a_chain_without_spaces_around_its_operator_is_still_a_chain():
    # W6W-CHAIN-5: "exactly one of ||/?? at the top level …, two or more non-empty
    # operands" — spacing is not part of the rule.  The chain lexer once read a bare
    # true, null or number after the operator as a JSON token no operand accepted,
    # and refused the chain (found by toyflow's differential test).
    from wforacle.grammar.template import Mode, parse_body
    from wforacle.model.w6w.parts import ExprPart

    assert parse_body("vars.a||true", Mode.EDITOR).part == ExprPart(
        {"or": [{"var": "vars.a"}, True]}
    )
    assert parse_body("vars.a??0", Mode.EDITOR).part == ExprPart({"??": [{"var": "vars.a"}, 0]})
    assert parse_body("null||vars.a", Mode.EDITOR).part == ExprPart(
        {"or": [None, {"var": "vars.a"}]}
    )
