"""Workfile Core documents: safe reading, the closed vocabulary, expressions, codes, checks.

Each test names the clause or assumption of the rule it would catch the
removal of (docs/workfile.md, ``wforacle clauses --spec workfile``).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wforacle.model.workfile.codes import PatternError, code_pattern, duration_ms, select
from wforacle.model.workfile.expr import ExprError, parse, path_text, refs, template
from wforacle.model.workfile.manifest import Manifests, load_manifest
from wforacle.model.workfile.yamlsafe import MAX_DEPTH, YamlProblem, read
from wforacle.properties.workfile.validate import validate

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "workfile"


def findings(text: str, manifests: Manifests | None = None) -> list[tuple[str, str, str]]:
    report = validate(textwrap.dedent(text), manifests).report
    return [(d.code, d.severity.value, d.clause) for d in report.diagnostics]


def codes(text: str, manifests: Manifests | None = None) -> list[str]:
    return [code for code, _, _ in findings(text, manifests)]


def manifests(*texts: str) -> Manifests:
    found = {}
    for text in texts:
        manifest, problems = load_manifest(textwrap.dedent(text))
        assert not problems and manifest is not None, problems
        found[manifest.connector] = manifest
    return Manifests(found)


CRM = """
    connector: crm
    actions:
      create:
        effects: write
        output: { type: object }
        errors: { crm.duplicate: fatal, crm.busy: retryable }
      upsert:
        effects: write
        idempotency: inherent
      lookup:
        effects: read
"""


# -- reading YAML safely (A-107) ---------------------------------------------------------


def test_yaml_core_schema_keeps_on_yes_times_and_dates_as_strings():
    # The Stateful Profile's `on:` key must not become the boolean true (YAML 1.1).
    value = read("on: {a: 1}\nb: yes\nc: 1:30\nd: 2026-01-01\ne: 012\nf: true\ng: 24h")
    assert value == {
        "on": {"a": 1},
        "b": "yes",
        "c": "1:30",
        "d": "2026-01-01",
        "e": 12,
        "f": True,
        "g": "24h",
    }


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("a: 1\na: 2\n", "document.duplicate_key"),
        ("[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5), "document.too_deep"),
        ("x: !!python/object/apply:os.system [echo]", "document.tag"),
        ("x: [1", "document.syntax"),
        ("x: " + "a" * (5 * 1024 * 1024), "document.too_large"),
        # JSON has no infinity or NaN: no --json output could render them (issue 19).
        ("x: .inf", "document.syntax"),
        ("x: -.Inf", "document.syntax"),
        ("x: .nan", "document.syntax"),
        ("x: 1e400", "document.syntax"),
        # Standard tags whose values are not JSON: bytes, a set, a date, pairs.
        ("x: !!binary aGVsbG8=", "document.tag"),
        ("x: !!set {a, b}", "document.tag"),
        ("x: !!timestamp 2026-01-01", "document.tag"),
        ("x: !!omap [a: 1]", "document.tag"),
        ("x: !!pairs [a: 1]", "document.tag"),
    ],
)
def test_hostile_yaml_is_refused_with_a_code(text, code):
    with pytest.raises(YamlProblem) as caught:
        read(text)
    assert caught.value.code == code


def test_an_alias_bomb_is_refused_before_it_is_built():
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for k in range(1, 9):
        lines.append(f"a{k}: &a{k} [" + ", ".join([f"*a{k - 1}"] * 10) + "]")
    with pytest.raises(YamlProblem) as caught:
        read("\n".join(lines))
    assert caught.value.code == "document.too_large"


# -- the closed vocabulary (A-106) -------------------------------------------------------


def test_unknown_keys_are_diagnostics_everywhere_and_extension_keys_pass():
    text = """
        x-owner: team-a
        colour: red
        steps:
          - a:
              crm.lookup: {}
              retries: 3
          - b:
              wf.for_each: { items: [1], steps: [], parallelism: 2 }
    """
    found = validate(textwrap.dedent(text)).report.diagnostics
    unknown = sorted(d.path for d in found if d.code == "document.unknown_key")
    assert unknown == ["$.colour", "$.steps[1].b['wf.for_each'].parallelism"]
    # `retries` is read as a second body, not silently ignored.
    assert "document.step" in codes(text)


@pytest.mark.parametrize(
    "step",
    [
        "- a: { crm.lookup: {}, crm.create: {} }",  # two bodies
        "- a: { when: true }",  # no body
        "- a: 1",  # not a mapping
        "- {a: {crm.lookup: {}}, b: {crm.lookup: {}}}",  # two ids
    ],
)
def test_a_step_has_one_id_and_exactly_one_body(step):
    assert "document.step" in codes("steps:\n  " + step) or "document.shape" in codes(
        "steps:\n  " + step
    )


def test_a_step_id_is_an_ordinary_name():
    assert "document.name" in codes("steps:\n  - Fetch-All: { crm.lookup: {} }")


def test_wf_agent_is_refused_as_not_modelled():
    assert findings("steps:\n  - a: { wf.agent: {} }") == [("document.construct", "error", "A-113")]


def test_a_state_form_workfile_is_not_read_as_steps():
    # WFS-INTRO-5: "A Core Validator MUST NOT reinterpret states as a step list."
    # The Stateful Profile's reader takes it (tests/workfile/test_stateful_documents.py).
    result = validate("initial: a\nstates: { a: { final: true } }")
    assert result.report.diagnostics == ()
    assert result.workfile is None and result.states is not None
    assert [state.name for state in result.states.states] == ["a"]


# -- expressions (A-100, A-101) ----------------------------------------------------------


def paths(text: str) -> list[str]:
    return sorted(path_text(p) for p in refs(parse(text)))


def test_refs_include_every_branch_operand_and_filter_argument():
    # Suppression Dependencies: "including conditional branches, short-circuited
    # operands, and filter arguments such as default" (WF-SUPP-6).
    assert paths("a.x if b.y else c.z") == ["a.x", "b.y", "c.z"]
    assert paths("false and d.e or f") == ["d.e", "f"]
    assert paths("g.h | default(i.j)") == ["g.h", "i.j"]


def test_literal_paths_are_kept_and_a_computed_index_widens_its_level():
    # WF-SUPP-4/5: literal member access and indexing restrict selection; a
    # computed index selects every member at that level and depends on the index.
    assert paths('a.b[0]["k"]') == ["a.b[0].k"]
    assert paths("a.b[n.i].c") == ["a.b[*].c", "n.i"]


def test_a_whole_value_marker_keeps_its_type_and_mixed_text_interpolates():
    assert template("{{ a.b }}").whole is not None
    assert template("id {{ a.b }}").whole is None
    assert template('{{ "}}" }}').whole is not None  # a marker ends outside string literals


@pytest.mark.parametrize("bad", ["a..b", "a +", "{{", "a |", "not"])
def test_a_bad_expression_is_a_document_expression_diagnostic(bad):
    with pytest.raises(ExprError):
        parse(bad) if bad != "{{" else template("x {{ a")
    assert "document.expression" in codes(
        f"steps:\n  - a: {{ crm.lookup: {{ x: '{{{{ {bad} }}}}' }} }}"
    )


# -- codes and durations (A-104, A-105) ----------------------------------------------------


def test_code_pattern_precedence_exact_then_longest_prefix_then_http_status():
    # WF-CODE-1/2.
    patterns = [code_pattern(t) for t in ("crm.*", "crm.auth.*", "crm.auth.expired", "http.5xx")]
    assert select("crm.auth.expired", patterns).text == "crm.auth.expired"
    assert select("crm.auth.denied", patterns).text == "crm.auth.*"
    assert select("crm.busy", patterns).text == "crm.*"
    assert select("http.503", patterns).text == "http.5xx"
    assert select("http.503", [*patterns, code_pattern("http.*")]).text == "http.*"
    assert select("mail.bounced", patterns) is None


@given(st.lists(st.sampled_from(["a", "a.b", "a.b.c", "http"]), min_size=1, unique=True))
def test_the_longest_matching_prefix_always_wins(stems):
    patterns = [code_pattern(s + ".*") for s in stems]
    chosen = select("a.b.c.d", patterns)
    matching = [s for s in stems if "a.b.c.d".startswith(s + ".")]
    assert (chosen is None) == (not matching)
    if chosen is not None:
        assert chosen.stem == max(matching, key=len)


def test_durations():
    assert duration_ms("1h30m") == 5_400_000
    assert duration_ms("250ms") == 250
    for bad in ("30", "1s1h", "1m1m", "", "1.5s"):
        with pytest.raises(PatternError):
            duration_ms(bad)


# -- names and scopes (WF-STEP-10, WF-STEP-11, A-114) ----------------------------------------


def test_a_step_id_binds_once_per_scope_and_never_shadows():
    assert "document.duplicate_binding" in codes(
        "steps:\n  - a: { crm.lookup: {} }\n  - a: { crm.lookup: {} }"
    )
    nested = """
        steps:
          - a: { crm.lookup: {} }
          - each:
              wf.for_each: { items: [1], steps: [ { a: { crm.lookup: {} } } ] }
    """
    assert "document.duplicate_binding" in codes(nested)
    assert "document.duplicate_binding" in codes("steps:\n  - inputs: { crm.lookup: {} }")


def test_a_reference_reads_only_earlier_bindings_of_its_scope_chain():
    forward = """
        steps:
          - a: { crm.lookup: { x: "{{ b.id }}" } }
          - b: { crm.lookup: {} }
    """
    assert codes(forward) == ["document.reference"]
    backward = """
        steps:
          - b: { crm.lookup: {} }
          - a: { crm.lookup: { x: "{{ b.id }}", y: "{{ inputs.q }}", z: "{{ run.dry_run }}" } }
    """
    assert codes(backward) == []


def test_a_branch_cannot_read_a_sibling_branch_or_its_own_construct():
    text = """
        steps:
          - par:
              wf.parallel:
                branches:
                  one: [ { x: { crm.lookup: {} } } ]
                  two: [ { y: { crm.lookup: { v: "{{ x.id }}", w: "{{ par.one.x }}" } } } ]
          - after: { crm.lookup: { v: "{{ par.one.x.id }}" } }
    """
    assert codes(text) == ["document.reference", "document.reference"]


def test_a_void_step_binds_nothing():
    text = """
        steps:
          - pause: { wf.wait: { for: 1s } }
          - a: { crm.lookup: { x: "{{ pause }}" } }
    """
    assert findings(text) == [("document.reference", "error", "A-114")]


def test_an_iteration_variable_and_the_handler_error_are_visible_only_inside():
    text = """
        steps:
          - each:
              wf.for_each:
                items: [1, 2]
                as: item
                steps: [ { a: { crm.lookup: { v: "{{ item }}" } } } ]
          - b:
              crm.lookup: {}
              catch:
                "crm.*": { steps: [ { log: { crm.lookup: { code: "{{ error.code }}" } } } ] }
          - c: { crm.lookup: { v: "{{ item }}", w: "{{ error.code }}" } }
    """
    assert codes(text) == ["document.reference", "document.reference"]


def test_a_template_reads_only_its_with_projection():
    # WF-SUPP-22: "templates read only the resulting projected bindings".
    text = """
        steps:
          - a: { crm.lookup: {} }
          - r: { wf.render: { template: "{{ name }} {{ a.id }}", with: { name: "{{ a.name }}" } } }
    """
    assert findings(text) == [("document.reference", "error", "WF-SUPP-22")]


# -- retry (WF-RETRY-3/4, A-110) -----------------------------------------------------------


def test_retry_initial_above_max_and_a_delay_policy_without_initial():
    assert findings(
        "steps:\n  - a: { crm.lookup: {}, retry: { policy: fixed, initial: 2m, max: 1m } }"
    ) == [("document.retry", "error", "WF-RETRY-4")]
    assert findings(
        "steps:\n  - a: { crm.lookup: {}, retry: { policy: exponential, attempts: 3 } }"
    ) == [("document.retry", "error", "WF-RETRY-3")]
    assert (
        codes("steps:\n  - a: { crm.lookup: {}, retry: { policy: fixed, initial: 1s, max: 1m } }")
        == []
    )


# -- catch (WF-CATCH-5/6, WF-CODE-1/2) -------------------------------------------------------


def test_a_handler_omitting_the_required_result_is_document_control():
    action = """
        steps:
          - a:
              crm.create: {}
              catch: { crm.duplicate: { steps: [] } }
    """
    assert ("document.control", "error", "WF-CATCH-5") in findings(action, manifests(CRM))
    assert "document.control" not in codes(action)  # no manifest: no known output contract
    call = """
        steps:
          - c:
              wf.call: { workflow: child }
              catch: { "flow.*": { steps: [] } }
    """
    assert ("document.control", "error", "WF-CATCH-5") in findings(call)
    with_result = call.replace("steps: [] }", "steps: [], result: {} }")
    assert "document.control" not in codes(with_result)


def test_catch_patterns_that_can_never_run_are_warned():
    shadowed = """
        steps:
          - a:
              crm.lookup: {}
              catch:
                "http.*": { steps: [] }
                "http.5xx": { steps: [] }
    """
    assert ("catch_never_matches", "warning", "WF-CODE-2") in findings(shadowed)
    # A flow. pattern for a failure the step cannot have (no timeout: no flow.timeout) never
    # runs.  A connector pattern may: a code the manifest does not cover still fails the
    # step and is offered to catch (A-119; a stranger's executor, session 25, was warned
    # about a "svc.*" handler the model itself then ran).
    unreachable = """
        steps:
          - a:
              crm.create: {}
              catch:
                crm.duplicate: { steps: [], result: {} }
                "mail.*": { steps: [], result: {} }
                "crm.other": { steps: [], result: {} }
                flow.timeout: { steps: [], result: {} }
    """
    assert findings(unreachable, manifests(CRM)) == [
        ("catch_never_matches", "warning", "WF-CODE-1")
    ]
    (warned,) = validate(textwrap.dedent(unreachable), manifests(CRM)).report.diagnostics
    assert "flow.timeout" in warned.path


# -- static facts: manifests and the ambiguity warnings (WF-UNK-15..19) ------------------------


def test_a_write_with_no_idempotency_under_continue_warns_that_ambiguity_bypasses_it():
    text = "steps:\n  - a: { crm.create: {}, on_fail: continue }"
    (warning,) = [d for d in validate(text, manifests(CRM)).report.diagnostics]
    assert (warning.code, warning.clause) == ("ambiguity_bypasses_continue", "WF-UNK-15")
    # WF-UNK-16..18: bypass and termination, the remedy, and what the remedy does not establish.
    for words in ("bypasses", "terminates the run", "on_unknown: fail", "does not establish"):
        assert words in warning.message
    assert (
        codes(
            text.replace("on_fail: continue", "on_fail: continue, on_unknown: fail"), manifests(CRM)
        )
        == []
    )
    assert codes(text.replace(", on_fail: continue", ""), manifests(CRM)) == []
    enclosing = """
        steps:
          - each:
              wf.for_each:
                items: [1]
                on_iteration_fail: continue
                steps: [ { a: { crm.create: {} } } ]
    """
    assert codes(enclosing, manifests(CRM)) == ["ambiguity_bypasses_continue"]
    assert codes(enclosing) == []  # no static facts, no warning


def test_a_safe_reissue_with_one_attempt_is_warned_as_lacking_retry_authorization():
    text = "steps:\n  - a: { crm.upsert: {}, on_fail: continue }"
    (warning,) = validate(text, manifests(CRM)).report.diagnostics
    assert (warning.code, warning.clause) == ("reissue_not_authorized", "WF-UNK-19")
    assert "retry authorization" in warning.message and "idempoten" in warning.message
    retried = text.replace("on_fail: continue", "on_fail: continue, retry: { attempts: 2 }")
    assert codes(retried, manifests(CRM)) == []


def test_actions_and_connectors_are_checked_only_against_supplied_manifests():
    text = "steps:\n  - a: { crm.delete: {} }\n  - b: { mail.send: {} }"
    assert codes(text) == []
    assert codes(text, manifests(CRM)) == ["document.unknown_action", "document.unknown_action"]


def test_a_manifest_may_not_classify_reserved_or_standard_codes():
    _, problems = load_manifest(
        "connector: x\nactions:\n  a:\n    effects: read\n"
        "    errors: { timeout: retryable, 'flow.*': fatal }"
    )
    assert [p.code for p in problems] == ["manifest.reserved", "manifest.reserved"]


# -- examples -----------------------------------------------------------------------------


def test_the_example_validates_with_exactly_the_warnings_its_manifests_imply():
    from wforacle.model.workfile.manifest import load_manifests

    found, problems = load_manifests(EXAMPLES / "manifests")
    assert problems == []
    report = validate((EXAMPLES / "onboarding.workfile.yaml").read_bytes(), found).report
    assert report.valid
    assert sorted(d.code for d in report.diagnostics) == ["ambiguity_bypasses_continue"] * 3
    assert validate((EXAMPLES / "onboarding.workfile.yaml").read_bytes()).report.diagnostics == ()


def test_modifiers_that_would_never_apply_to_a_construct_are_diagnostics():
    # Found by review: catch, retry and on_unknown on a wf.for_each were accepted
    # and then ignored at run time; catch applies to actions and wf.call only
    # (WF-CATCH-9/12), retry and on_unknown to actions.
    document = """
    steps:
      - each:
          wf.for_each: { items: [1], steps: [ { a: { c.act: {} } } ] }
          catch: { c.bad: { steps: [ { h: { c.act: {} } } ] } }
          retry: { policy: none, attempts: 2 }
          on_unknown: fail
      - ok: { c.act: {}, retry: { policy: none, attempts: 2 }, on_unknown: fail }
    """
    assert codes(textwrap.dedent(document)) == ["document.modifier"] * 3


def test_error_is_not_a_step_id():
    # The handler's error binding (WF-CATCH-8) and a retained failed scope's error
    # member (WF-POLICY-14) would shadow or overwrite such a step.
    assert codes("steps:\n  - error: { c.act: {} }\n") == ["document.name"]


@pytest.mark.parametrize(
    "result",
    ["[1, 2]", "7", "done", "null", "true", '"{{ 1 }} items"'],
)
def test_a_stop_result_other_than_a_mapping_or_one_marker_is_refused(result):
    # A-177 (WF-PART-1 "each entry", WF-CATCH-6 "an object result contract"): a literal
    # that is not a mapping, or a template with text around its marker, is no object.
    found = findings(f"steps:\n  - halt: {{ wf.stop: {{ reason: r, result: {result} }} }}\n")
    assert ("document.shape", "error", "A-177") in found


@pytest.mark.parametrize("result", ["{ n: 1 }", "{}", '"{{ {n: 1} }}"', '"{{ inputs.x }}"'])
def test_a_stop_result_that_is_a_mapping_or_one_marker_is_accepted(result):
    document = "inputs:\n  x: { type: json, required: true }\n"
    document += f"steps:\n  - halt: {{ wf.stop: {{ reason: r, result: {result} }} }}\n"
    assert codes(document) == []
