"""State-form Workfiles (the Stateful Profile): the document, its static checks, no run yet.

Each test names the clause (``wforacle clauses --spec workfile-stateful``)
or assumption of the rule it would catch the removal of, and quotes the
profile; the expected codes are docs/workfile.md's, the verdicts the
profile's.
"""

from __future__ import annotations

import json
import textwrap
from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wforacle.model.workfile.manifest import Manifests, load_manifest
from wforacle.model.workfile.stateful import StatefulRun
from wforacle.oracle.cli import main
from wforacle.properties.specification import Loaded
from wforacle.properties.workfile.execution import prepare, semantics
from wforacle.properties.workfile.validate import validate

# The profile's own example, as the State Document Form section writes it.
EXAMPLE = """\
inputs:
  approval_channel: { type: string, required: true }

initial: awaiting_approval

states:
  awaiting_approval:
    on_enter:
      - notify: { messaging.post: { channel: approvals, text: Ready for review. } }
    on:
      decision:
        event: messaging.approval
        configuration: { channel: "{{ inputs.approval_channel }}" }
        match: { request_id: "{{ notify.id }}" }
        route: "{{ decision.action }}"
        cases:
          approve: { goto: provisioning, into: { approver: "{{ decision.user }}" } }
          reject: { goto: closed }
        else: { goto: escalated }
    timeout: { after: 24h, goto: escalated }

  provisioning:
    accepts:
      approver: { type: string, required: true }
    steps:
      - account: { crm.provision: { owner: "{{ approver }}" } }
    goto: closed

  escalated:
    steps: [{ page: { messaging.post: { channel: managers, text: Approval timed out. } } }]
    goto: closed

  closed: { final: true }
"""

# What the example uses: messaging.post and crm.provision, the trigger
# messaging.approval correlated on request_id (WFS-TRANS-17: external or poll).
MESSAGING = """
    connector: messaging
    actions:
      post: { effects: write, output: { type: object } }
    triggers:
      approval: { kind: external, correlate_on: [request_id] }
      digest: { kind: poll, correlate_on: [channel, day] }
      nightly: { kind: schedule }
      broadcast: { kind: external }
"""
CRM = """
    connector: crm
    actions:
      provision: { effects: write }
      lookup: { effects: read, output: { type: string } }
      count: { effects: read, output: { type: integer } }
"""


def manifests(*texts: str) -> Manifests:
    found = {}
    for text in texts:
        manifest, problems = load_manifest(textwrap.dedent(text))
        assert not problems and manifest is not None, problems
        found[manifest.connector] = manifest
    return Manifests(found)


FACTS = manifests(MESSAGING, CRM)


def found(text: str, facts: Manifests | None = None) -> list[tuple[str, str, str]]:
    report = validate(textwrap.dedent(text), facts).report
    return [(d.code, d.path, d.clause) for d in report.diagnostics]


def codes(text: str, facts: Manifests | None = None) -> list[str]:
    return [code for code, _, _ in found(text, facts)]


def machine(states: str, *, initial: str = "a", head: str = "") -> str:
    """A state-form document: ``head`` (inputs, outputs), ``initial`` and ``states``."""
    body = textwrap.indent(textwrap.dedent(states).strip("\n"), "  ")
    return f"{textwrap.dedent(head)}initial: {initial}\nstates:\n{body}\n"


# -- the profile's example -----------------------------------------------------------------


def test_the_profiles_example_is_the_one_the_specification_writes(spec_text):
    lines = spec_text("workfile-stateful-profile.txt").splitlines()
    start = lines.index("inputs:")
    end = lines.index("  closed: { final: true }")
    assert "\n".join(lines[start : end + 1]) + "\n" == EXAMPLE


def test_the_profiles_example_is_valid_with_and_without_its_manifests():
    # WFS-FORM-1: "A state-form Workfile declares states, a nonempty map from state
    # names to state declarations, and initial, the name of one declared state."
    assert found(EXAMPLE) == []
    assert found(EXAMPLE, FACTS) == []
    states = validate(EXAMPLE).states
    assert states is not None and states.initial == "awaiting_approval"
    assert [s.name for s in states.states] == [
        "awaiting_approval",
        "provisioning",
        "escalated",
        "closed",
    ]


def test_entry_steps_have_the_static_path_state_dot_id():
    # WFS-ENTRY-12: "Entry positions … form step paths such as
    # awaiting_approval[2].notify"; statically, without the position (A-146).
    states = validate(EXAMPLE).states
    assert states is not None
    first = states.state("awaiting_approval")
    assert first is not None and first.on_enter[0].step_path == "awaiting_approval.notify"


# -- the document form ---------------------------------------------------------------------


def test_the_states_key_activates_the_profile_without_a_declaration():
    # WFS-INTRO-4: "Use of the top-level states key structurally activates this profile;
    # no separate declaration is permitted."  A profile key is not a key at all.
    assert found(machine("a: { final: true }")) == []
    assert codes(machine("a: { final: true }") + "profile: stateful\n") == ["document.unknown_key"]


def test_step_lists_are_optional_and_default_to_empty():
    # WFS-FORM-5: "on_enter and steps are optional step lists and default to empty."
    states = validate(machine("a: { goto: z }\nz: { final: true }")).states
    assert states is not None
    assert [(s.on_enter, s.steps) for s in states.states] == [((), ()), ((), ())]


def test_a_state_form_workfile_may_not_declare_top_level_steps():
    # WFS-FORM-2: "It MUST NOT declare top-level steps."
    text = machine("a: { final: true }") + "steps: [ { s: { crm.lookup: {} } } ]\n"
    assert found(text) == [("document.shape", "$.steps", "WFS-FORM-2")]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("initial: a\nstates: {}\n", "document.shape"),  # "a nonempty map"
        ("initial: a\nstates: [a]\n", "document.shape"),
        ("states: { a: { final: true } }\n", "document.missing"),  # no initial
        ("initial: a\n", "document.missing"),  # no states
    ],
)
def test_states_is_a_nonempty_map_and_initial_is_required(text, code):
    # WFS-FORM-1: "states, a nonempty map …, and initial, the name of one declared state".
    assert found(text) == [(code, found(text)[0][1], "WFS-FORM-1")]


def test_state_names_follow_the_ordinary_name_syntax():
    # WFS-FORM-3: "State names follow the ordinary name syntax".
    assert codes(machine("Bad-Name: { final: true }", initial="Bad-Name")) == [
        "document.name",
        "document.name",
    ]


def test_a_state_declaration_admits_only_its_keys_and_extension_keys():
    # WFS-FORM-4: "A state declaration admits only accepts, on_enter, steps, on,
    # timeout, final, goto, into, route, cases, else, recovery, and extension keys".
    text = machine("a: { final: true, colour: red, x-owner: team }")
    assert found(text) == [("document.unknown_key", "$.states.a.colour", "WFS-FORM-4")]


def test_recovery_activates_the_durable_profile_which_is_not_modelled():
    # WFS-FORM-4: "recovery is governed by the Durable Execution Profile and activates it."
    text = machine("a: { final: true, recovery: {} }")
    assert found(text) == [("document.profile", "$.states.a.recovery", "WFS-FORM-4")]


@pytest.mark.parametrize("value", ["false", "'yes'", "1"])
def test_final_is_true_or_omitted_never_false(value):
    # WFS-FORM-10: "final: true declares a terminal state, and final MUST NOT be false;
    # omission declares a nonfinal state."
    text = machine(f"a: {{ final: {value}, goto: b }}\nb: {{ final: true }}")
    assert found(text) == [("document.value", "$.states.a.final", "WFS-FORM-10")]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("on", "{ e: { event: svc.done, match: { id: 1 }, goto: b } }"),
        ("timeout", "{ after: 1s, goto: b }"),
        ("goto", "b"),
        ("into", "{ x: 1 }"),
        ("route", "'{{ inputs.k }}'"),
        ("cases", "{ x: { goto: b } }"),
        ("else", "{ goto: b }"),
    ],
)
def test_a_final_state_declares_no_transition_subscription_or_timeout(key, value):
    # WFS-FORM-11: "A final state can declare accepts, on_enter, steps, and recovery,
    # but MUST NOT declare on, timeout, goto, into, route, cases, or else."
    text = machine(f"a: {{ final: true, {key}: {value} }}\nb: {{ final: true }}")
    assert ("document.control", f"$.states.a.{key}", "WFS-FORM-11") in found(text)


def test_a_final_state_can_declare_accepts_on_enter_and_steps():
    # WFS-FORM-11: "A final state can declare accepts, on_enter, steps, and recovery".
    text = machine(
        """
        a: { goto: b, into: { n: 1 } }
        b:
          final: true
          accepts: { n: { type: integer } }
          on_enter: [ { x: { crm.lookup: {} } } ]
          steps: [ { y: { crm.lookup: {} } } ]
        """
    )
    assert found(text) == []


def test_a_nonfinal_state_declares_a_way_out():
    # WFS-FORM-16: "A nonfinal state MUST declare at least one immediate transition,
    # subscription, or timeout."
    text = machine("a: { steps: [ { x: { crm.lookup: {} } } ] }")
    assert ("document.control", "$.states.a", "WFS-FORM-16") in found(text)
    for way_out in (
        "goto: z",
        "on: { e: { event: svc.done, match: { id: 1 }, goto: z } }",
        "timeout: { after: 1s, goto: z }",
    ):
        assert found(machine(f"a: {{ {way_out} }}\nz: {{ final: true }}")) == []


@pytest.mark.parametrize(
    ("exit_", "key", "value"),
    [
        ("goto: z", "timeout", "{ after: 1s, goto: z }"),
        ("goto: z", "on", "{ e: { event: svc.done, match: { id: 1 }, goto: z } }"),
        ("route: '{{ inputs.k }}', cases: { x: { goto: z } }, else: { goto: z }", "on", "{}"),
    ],
)
def test_an_immediate_transition_excludes_on_and_timeout(exit_, key, value):
    # WFS-FORM-17: "A state that declares an immediate goto or route MUST NOT declare on
    # or timeout; a violation is invalid with document.control."
    text = machine(f"a: {{ {exit_}, {key}: {value} }}\nz: {{ final: true }}")
    assert found(text) == [("document.control", f"$.states.a.{key}", "WFS-FORM-17")]


# -- transitions ---------------------------------------------------------------------------


def test_a_transition_is_direct_or_routed():
    # WFS-TRANS-1: "A transition is either direct or routed."  WFS-TRANS-2: "A direct
    # transition contains required goto and optional into."  WFS-TRANS-3: "A routed
    # transition contains route and cases, plus else exactly when required below."
    states = validate(EXAMPLE).states
    assert states is not None
    decision = states.states[0].on[0].transition
    assert type(decision).__name__ == "Routed"
    assert [(label, type(t).__name__, t.goto) for label, t in decision.cases] == [
        ("approve", "Direct", "provisioning"),
        ("reject", "Direct", "closed"),
    ]
    assert decision.cases[0][1].into == {"approver": "{{ decision.user }}"}
    assert decision.otherwise is not None and decision.otherwise.goto == "escalated"
    text = machine("a: { route: '{{ run.dry_run }}', else: { goto: z } }\nz: { final: true }")
    assert ("document.missing", "$.states.a", "WFS-TRANS-3") in found(text)


def test_every_kind_of_transition_is_an_edge_of_the_state_graph():
    # WFS-TRANS-10: "A transition can appear as the immediate exit of a state, as a
    # state's timeout, or within a subscription."  Each alone reaches the final state.
    for way in (
        "goto: z",
        "timeout: { after: 1s, goto: z }",
        "on: { e: { event: svc.e, match: { id: 1 }, goto: z } }",
    ):
        assert found(machine(f"a: {{ {way} }}\nz: {{ final: true }}")) == []


@pytest.mark.parametrize(
    ("transition", "code", "path"),
    [
        ("goto: z, route: '{{ inputs.k }}'", "document.shape", "$.states.a"),  # both
        ("into: { n: 1 }", "document.missing", "$.states.a"),  # neither
        ("goto: z, cases: { x: { goto: z } }", "document.shape", "$.states.a.cases"),
        ("goto: z, else: { goto: z }", "document.shape", "$.states.a.else"),
        (
            "route: '{{ inputs.k }}', cases: { x: { goto: z } }, else: { goto: z }, into: {}",
            "document.shape",
            "$.states.a.into",
        ),
    ],
)
def test_a_transition_has_exactly_one_of_goto_and_route(transition, code, path):
    # WFS-TRANS-6: "A transition map MUST contain exactly one of goto and route; cases
    # and else appear only with route, and into appears only with goto."
    text = machine(
        f"a: {{ {transition} }}\nz: {{ final: true }}", head="inputs: { k: { type: string } }\n"
    )
    assert (code, path, "WFS-TRANS-6") in found(text)


@pytest.mark.parametrize("cases", ["{}", "[x]"])
def test_cases_is_a_nonempty_map(cases):
    # WFS-TRANS-5: "cases is a nonempty map from distinct literal string labels to nested
    # transitions".
    text = machine(
        f"a: {{ route: '{{{{ inputs.k }}}}', cases: {cases}, else: {{ goto: z }} }}\n"
        "z: { final: true }"
    )
    assert ("document.shape", "$.states.a.cases", "WFS-TRANS-5") in found(text)


def test_case_labels_are_literal_strings():
    # WFS-TRANS-5: "… from distinct literal string labels …"; YAML 1.2 reads `1:` as 1.
    text = machine(
        "a: { route: '{{ run.dry_run }}', cases: { 1: { goto: z } }, else: { goto: z } }\n"
        "z: { final: true }"
    )
    assert found(text) == [("document.value", "$.states.a.cases['1']", "WFS-TRANS-5")]


def test_a_routed_transition_without_a_closed_domain_needs_else():
    # WFS-TRANS-7: "For a subject without a statically established closed enum domain,
    # else is REQUIRED."  No subject has one here (A-143).
    text = machine("a: { route: 'x', cases: { x: { goto: z } } }\nz: { final: true }")
    assert found(text) == [("document.missing", "$.states.a", "WFS-TRANS-7")]


def test_nested_transitions_route_again_and_have_only_transition_keys():
    # WFS-TRANS-5: "… to nested transitions, and else, when present, is a nested
    # transition."
    nested = """
        a:
          route: '{{ run.dry_run }}'
          cases:
            x: { route: 'y', cases: { y: { goto: z } }, else: { goto: z } }
          else: { goto: z, colour: red }
        z: { final: true }
    """
    assert found(machine(nested)) == [
        ("document.unknown_key", "$.states.a.else.colour", "WFS-TRANS-5")
    ]


def test_goto_names_a_state_literally():
    # WFS-FORM-3: state names "are labels, not expression bindings".
    text = machine(
        "a: { goto: '{{ inputs.k }}' }\nz: { final: true }",
        head="inputs: { k: { type: string } }\n",
    )
    assert ("document.value", "$.states.a.goto", "WFS-FORM-3") in found(text)


@pytest.mark.parametrize("after", ["24h", "0s", "2030-01-01T00:00:00Z", "'{{ inputs.when }}'"])
def test_after_is_a_duration_a_timestamp_or_an_expression(after):
    # WFS-TRANS-12: "after … MUST produce a nonnegative duration or a timestamp."
    head = "inputs: { when: { type: string } }\n"
    text = machine(
        f"a: {{ timeout: {{ after: {after}, goto: z }} }}\nz: {{ final: true }}", head=head
    )
    assert found(text) == []


@pytest.mark.parametrize("after", ["soon", "-1s", "10", "2030-13-01T00:00:00Z"])
def test_a_literal_after_that_is_neither_duration_nor_timestamp_is_refused(after):
    text = machine(f"a: {{ timeout: {{ after: '{after}', goto: z }} }}\nz: {{ final: true }}")
    assert found(text) == [("document.duration", "$.states.a.timeout.after", "WFS-TRANS-12")]


def test_a_timeout_contains_after_plus_one_transition():
    # WFS-TRANS-11: "timeout contains after plus one transition."
    assert found(machine("a: { timeout: { goto: z } }\nz: { final: true }")) == [
        ("document.missing", "$.states.a.timeout", "WFS-TRANS-11")
    ]
    assert ("document.missing", "$.states.a.timeout", "WFS-TRANS-6") in found(
        machine("a: { timeout: { after: 1s } }\nz: { final: true }")
    )


# -- targets and the state graph -------------------------------------------------------------


def test_initial_and_every_target_name_a_declared_state():
    # WFS-FORM-18: "initial and every transition target MUST name a declared state".
    assert ("document.unknown_state", "$.initial", "WFS-FORM-18") in found(
        machine("a: { final: true }", initial="b")
    )
    text = machine(
        """
        a:
          on:
            e:
              event: svc.e
              match: { id: 1 }
              route: 'x'
              cases: { x: { goto: nowhere } }
              else: { goto: z }
        z: { final: true }
        """
    )
    assert found(text) == [
        ("document.unknown_state", "$.states.a.on.e.cases.x.goto", "WFS-FORM-18")
    ]


def test_a_final_state_must_be_reachable_from_initial():
    # WFS-FORM-18: "at least one final state MUST be reachable from initial."
    text = machine(
        """
        a: { timeout: { after: 1s, goto: b } }
        b: { timeout: { after: 1s, goto: a } }
        done: { final: true }
        end: { final: true }
        """
    )
    (diagnostic,) = validate(text).report.diagnostics
    assert (diagnostic.code, diagnostic.clause) == ("document.final_unreachable", "WFS-FORM-18")
    assert "done, end" in diagnostic.message  # the unreachable finals are named
    none_final = machine("a: { timeout: { after: 1s, goto: a } }")
    (diagnostic,) = validate(none_final).report.diagnostics
    assert (
        diagnostic.code == "document.final_unreachable"
        and "no state is final" in diagnostic.message
    )


def test_a_final_state_reached_only_through_a_case_counts():
    text = machine(
        """
        a: { route: '{{ run.dry_run }}', cases: { 'x': { goto: a2 } }, else: { goto: b } }
        a2: { timeout: { after: 1s, goto: a } }
        b: { final: true }
        """
    )
    assert found(text) == []


def test_immediate_transitions_alone_may_not_form_a_cycle():
    # WFS-FORM-19: "Every directed cycle in the state graph MUST contain an event or
    # timeout transition; immediate transitions alone MUST NOT create an unbounded
    # execution loop."
    text = machine(
        """
        a: { goto: b }
        b: { route: '{{ run.dry_run }}', cases: { 'x': { goto: c } }, else: { goto: z } }
        c: { goto: a }
        z: { final: true }
        """
    )
    (diagnostic,) = validate(text).report.diagnostics
    assert (diagnostic.code, diagnostic.clause) == ("document.immediate_cycle", "WFS-FORM-19")
    assert json.loads(diagnostic.message.rsplit("(cycle: ", 1)[1].rstrip(")")) == ["a", "b", "c"]
    selfloop = machine(
        "a: { route: 'x', cases: { x: { goto: a } }, else: { goto: z } }\nz: { final: true }"
    )
    assert codes(selfloop) == ["document.immediate_cycle"]


@pytest.mark.parametrize(
    "wait",
    [
        "timeout: { after: 1s, goto: a }, on: { y: { event: svc.y, match: { id: 2 }, goto: z } }",
        "on: { e: { event: svc.e, match: { id: 1 }, goto: a }, "
        "y: { event: svc.y, match: { id: 2 }, goto: z } }",
    ],
)
def test_a_cycle_through_an_event_or_a_timeout_is_allowed(wait):
    # WFS-FORM-19: the cycle a → b → a contains b's timeout or event transition.
    assert found(machine(f"a: {{ goto: b }}\nb: {{ {wait} }}\nz: {{ final: true }}")) == []


# -- accepts and into ----------------------------------------------------------------------


def test_accepts_is_a_map_of_field_declarations():
    # WFS-ENTRY-1: "accepts is a closed map from names to field declarations".
    text = machine("a: { goto: b }\nb: { final: true, accepts: [n] }")
    assert found(text) == [("document.shape", "$.states.b.accepts", "WFS-ENTRY-1")]
    undeclared_type = machine("a: { goto: b }\nb: { final: true, accepts: { n: { size: 1 } } }")
    assert codes(undeclared_type) == ["document.unknown_key", "document.missing"]


def test_into_is_a_projection_evaluated_in_the_source_entry():
    # WFS-ENTRY-14: "into is a projection evaluated atomically in the source entry's
    # scope after its transition has been selected."
    text = machine("a: { goto: b, into: [1] }\nb: { final: true }")
    assert ("document.shape", "$.states.a.into", "WFS-ENTRY-14") in found(text)
    source = machine(
        """
        a: { steps: [ { x: { crm.lookup: {} } } ], goto: b, into: { v: '{{ x }}' } }
        b: { accepts: { v: { type: json } }, steps: [ { y: { crm.lookup: {} } } ], goto: z }
        z: { final: true }
        """
    )
    assert found(source) == []
    target = source.replace("into: { v: '{{ x }}' }", "into: { v: '{{ y }}' }")
    assert found(target) == [("document.reference", "$.states.a.into", "WF-STEP-10")]


def test_the_initial_state_declares_no_accepts():
    # WFS-ENTRY-2: "The initial state MUST NOT declare accepts."
    text = machine("a: { final: true, accepts: {} }")
    assert found(text) == [("document.accepts", "$.states.a.accepts", "WFS-ENTRY-2")]


ACCEPTING = """
    a: {{ goto: b, into: {into} }}
    b:
      final: true
      accepts:
        name: {{ type: string, required: true }}
        count: {{ type: number }}
        tier: {{ type: string, required: true, default: basic }}
"""


@pytest.mark.parametrize(
    ("into", "code", "path"),
    [
        ("{ name: n, extra: 1 }", "document.accepts", "$.states.a.into.extra"),  # undeclared
        ("{ count: 1 }", "document.accepts", "$.states.a.into"),  # omits required name
        ("{ name: 5 }", "document.type", "$.states.a.into.name"),  # a literal of another type
        ("{ name: n, count: 'many' }", "document.type", "$.states.a.into.count"),
        ("{ name: '{{ inputs.size }}' }", "document.type", "$.states.a.into.name"),
    ],
)
def test_into_supplies_declared_names_all_required_ones_with_compatible_values(into, code, path):
    # WFS-ENTRY-3: "For every transition to another state, static validation MUST reject
    # an undeclared supplied name, an omitted required name, or a statically
    # incompatible value."
    head = "inputs: { size: { type: integer } }\n"
    text = machine(ACCEPTING.format(into=into), head=head)
    assert found(text) == [(code, path, "WFS-ENTRY-3")]


@pytest.mark.parametrize(
    "into",
    [
        "{ name: n }",  # tier has a default: "An omitted name uses its declared default"
        "{ name: n, count: 3 }",  # an integer is a number
        "{ name: '{{ inputs.size }} items' }",  # text around a marker: a string
        "{ name: '{{ inputs.blob }}' }",  # json: known only at run time
        "{ name: '{{ run.dry_run }}' }",  # not established statically
    ],
)
def test_compatible_into_values_pass(into):
    # WFS-ENTRY-4: "An omitted name uses its declared default"; A-148.
    head = "inputs: { size: { type: integer }, blob: { type: json } }\n"
    assert found(machine(ACCEPTING.format(into=into), head=head)) == []


def test_into_is_checked_for_every_transition_to_the_target():
    # WFS-ENTRY-3, in every case of a routed transition and in a subscription.
    text = machine(
        """
        a:
          on:
            e:
              event: svc.e
              match: { id: 1 }
              route: '{{ e.kind }}'
              cases: { x: { goto: b, into: { n: 1 } } }
              else: { goto: b }
        b: { final: true, accepts: { n: { type: integer, required: true } } }
        """
    )
    assert found(text) == [("document.accepts", "$.states.a.on.e.else", "WFS-ENTRY-3")]


# -- subscriptions ---------------------------------------------------------------------------


def subscribing(subscription: str, extra: str = "") -> str:
    return machine(f"a:\n  on:\n    s: {subscription}\n{extra}z: {{ final: true }}")


def test_on_maps_subscription_binding_names():
    # WFS-TRANS-15: "on maps subscription binding names to subscription declarations."
    text = subscribing("{ event: svc.e, match: { id: 1 }, goto: z }").replace("s: {", "Sub: {")
    assert codes(text) == ["document.name"]
    assert codes(machine("a: { on: [x] }\nz: { final: true }"))[0] == "document.shape"


def test_a_subscription_contains_event_match_and_one_transition():
    # WFS-TRANS-16: "Each declaration contains event, match, and one transition, and can
    # contain configuration and connection."
    assert found(subscribing("{ match: { id: 1 }, goto: z }")) == [
        ("document.missing", "$.states.a.on.s", "WFS-TRANS-16")
    ]
    assert ("document.missing", "$.states.a.on.s", "WFS-TRANS-16") in found(
        subscribing("{ event: svc.e, goto: z }")
    )
    assert ("document.missing", "$.states.a.on.s", "WFS-TRANS-6") in found(
        subscribing("{ event: svc.e, match: { id: 1 } }")
    )
    full = "{ event: svc.e, match: { id: 1 }, configuration: { c: 1 }, connection: main, goto: z }"
    assert found(subscribing(full)) == []


@pytest.mark.parametrize("event", ["'{{ inputs.k }}'", "approval", "svc.e.f"])
def test_event_is_a_literal_connector_trigger_reference(event):
    # WFS-TRANS-17: "event is a literal connector.trigger reference".
    text = subscribing(f"{{ event: {event}, match: {{ id: 1 }}, goto: z }}")
    assert ("document.value", "$.states.a.on.s.event", "WFS-TRANS-17") in found(text)


@pytest.mark.parametrize("event", ["messaging.approval", "messaging.digest"])
def test_an_external_or_poll_trigger_is_subscribed_to(event):
    # WFS-TRANS-17: "… whose resolved manifest kind is external or poll".
    field = "request_id" if event.endswith("approval") else "channel"
    text = subscribing(f"{{ event: {event}, match: {{ {field}: x }}, goto: z }}")
    assert found(text, FACTS) == []


def test_a_schedule_trigger_is_not_a_subscription():
    # WFS-TRANS-17: "schedule triggers are not state subscriptions."
    text = subscribing("{ event: messaging.nightly, match: { id: 1 }, goto: z }")
    assert found(text, FACTS) == [
        ("document.subscription", "$.states.a.on.s.event", "WFS-TRANS-17")
    ]
    assert found(text) == []  # without manifests the kind is unknown


def test_an_undeclared_trigger_is_reported_with_manifests():
    text = subscribing("{ event: messaging.approved, match: { request_id: 1 }, goto: z }")
    assert codes(text, FACTS) == ["document.unknown_trigger"]


def test_match_names_only_correlate_on_fields_and_at_least_one():
    # WFS-TRANS-20: "match is a nonempty map that MUST supply at least one name from the
    # trigger's correlate_on declaration, MUST NOT name another field".
    text = subscribing("{ event: messaging.approval, match: { request_id: 1, user: u }, goto: z }")
    assert found(text, FACTS) == [
        ("document.subscription", "$.states.a.on.s.match.user", "WFS-TRANS-20")
    ]
    uncorrelated = subscribing("{ event: messaging.broadcast, match: { id: 1 }, goto: z }")
    assert found(uncorrelated, FACTS) == [
        ("document.subscription", "$.states.a.on.s.match.id", "WFS-TRANS-20"),
        ("document.subscription", "$.states.a.on.s.match", "WFS-TRANS-20"),
    ]
    # Fields declared by correlate_on but omitted from match are fine (WFS-TRANS-31).
    some = subscribing("{ event: messaging.digest, match: { day: mon }, goto: z }")
    assert found(some, FACTS) == []


@pytest.mark.parametrize("match", ["{}", "[request_id]", "x"])
def test_match_is_a_nonempty_map(match):
    text = subscribing(f"{{ event: svc.e, match: {match}, goto: z }}")
    assert found(text) == [("document.shape", "$.states.a.on.s.match", "WFS-TRANS-20")]


@pytest.mark.parametrize(
    "state",
    [
        "a:\n  accepts: { s: { type: string } }\n",  # an accepted value
        "a:\n  on_enter: [ { s: { crm.lookup: {} } } ]\n",  # a step id
        "a:\n  steps:\n    - w: { wf.for_each: { items: [1], steps: [ { s: { c.get: {} } } ] } }\n",
    ],
)
def test_subscription_names_are_distinct_from_accepted_values_and_step_ids(state):
    # WFS-TRANS-22: "Subscription names MUST be distinct from accepted values and step
    # ids in the entry."  Nested step ids are step ids of the entry (A-149).
    text = (
        "initial: i\nstates:\n  i: { goto: a, into: {} }\n"
        + textwrap.indent(state, "  ")
        + "    on: { s: { event: svc.e, match: { id: 1 }, goto: z } }\n  z: { final: true }\n"
    )
    diagnostics = found(text)
    assert ("document.duplicate_binding", "$.states.a.on.s", "WFS-TRANS-22") in diagnostics


# -- overlapping subscriptions (z3) ---------------------------------------------------------


def two(first: str, second: str, on_enter: str = "[]") -> str:
    return machine(
        f"""
        a:
          on_enter: {on_enter}
          on:
            p: {{ event: svc.e, {first}, goto: z }}
            q: {{ event: svc.e, {second}, goto: z }}
        z: {{ final: true }}
        """,
        head="inputs: { k: { type: string }, j: { type: string } }\n",
    )


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("match: { id: 1 }", "match: { id: 1 }"),  # one constant, equal
        ("match: { id: 1 }", "match: { id: 1.0 }"),  # equal under ==
        ("match: { id: 1 }", "match: { user: u }"),  # disjoint fields: one payload has both
        ("match: { id: '{{ inputs.k }}' }", "match: { id: '{{ inputs.k }}' }"),  # one value
        ("match: { id: '{{ inputs.k }}' }", "match: { id: '{{inputs.k}}' }"),  # one expression
        ("match: { id: 1, v: 2 }", "match: { id: 1 }"),  # one is narrower: still both match
        ("match: { id: \"{{ 'x' }}\" }", "match: { id: x }"),  # a constant template
    ],
)
def test_statically_overlapping_subscriptions_are_rejected(first, second):
    # WFS-TRANS-35: "A delivery that matches more than one subscription in the same entry
    # is ambiguous configuration and MUST be rejected at activation when overlap can be
    # established statically"; eligibility is equality of every supplied match value
    # (WFS-TRANS-30).  A-145: established = for every run-time value.
    assert found(two(first, second)) == [
        ("document.ambiguous_subscription", "$.states.a.on.q", "WFS-TRANS-35")
    ]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("match: { id: 1 }", "match: { id: 2 }"),  # different constants: never both
        ("match: { id: 1 }", "match: { id: '1' }"),  # a number is not a string
        ("match: { id: '{{ inputs.k }}' }", "match: { id: '{{ inputs.j }}' }"),  # run time
        ("match: { id: '{{ inputs.k }}' }", "match: { id: x }"),  # run time
        ("match: { id: 1 }, configuration: { c: 1 }", "match: { id: 1 }, configuration: { c: 2 }"),
        ("match: { id: 1 }, connection: a", "match: { id: 1 }, connection: b"),
    ],
)
def test_subscriptions_that_may_not_overlap_are_left_to_run_time(first, second):
    # WFS-TRANS-35: "if it arises only from runtime values, the entry fails with
    # state.ambiguous_subscription rather than selecting by map order."
    assert found(two(first, second)) == []


def test_the_activation_witness_of_f22_is_rejected_at_validation():
    # docs/spec-review.md F-22: the overlap is established by the text alone, before any
    # activation could evaluate notify.id.
    text = machine(
        """
        a:
          on_enter: [ { notify: { messaging.post: {} } } ]
          on:
            p: { event: messaging.approval, match: { request_id: "{{ notify.id }}" }, goto: z }
            q: { event: messaging.approval, match: { request_id: "{{ notify.id }}" }, goto: z }
        z: { final: true }
        """
    )
    assert found(text, FACTS) == [
        ("document.ambiguous_subscription", "$.states.a.on.q", "WFS-TRANS-35")
    ]


def test_the_reentry_witness_of_f24_is_checked_like_any_transition():
    # docs/spec-review.md F-24: a transition to its own state is checked.
    text = machine(
        """
        a: { goto: b, into: { n: 1 } }
        b:
          accepts: { n: { type: integer, required: true } }
          on: { e: { event: svc.e, match: { id: 1 }, goto: b, into: { n: "x" } } }
          timeout: { after: 1s, goto: z }
        z: { final: true }
        """
    )
    assert found(text) == [("document.type", "$.states.b.on.e.into.n", "WFS-ENTRY-3")]


def test_subscriptions_on_different_events_never_overlap():
    text = two("match: { id: 1 }", "match: { id: 1 }").replace(
        "q: { event: svc.e", "q: { event: svc.f"
    )
    assert found(text) == []


# -- scopes ----------------------------------------------------------------------------------


def test_an_entry_reads_no_binding_of_another_state():
    # WFS-ENTRY-7: "Every entry … creates a new nested scope"; WFS-ENTRY-10: "A state
    # entry MUST NOT read a binding from a prior entry or another state unless a
    # transition carries the value through into and the target declares it in accepts."
    text = machine(
        """
        a: { steps: [ { x: { crm.lookup: {} } } ], goto: b }
        b: { steps: [ { y: { crm.lookup: { v: '{{ x }}' } } } ], goto: z }
        z: { final: true }
        """
    )
    assert found(text) == [("document.reference", "$.states.b.steps[0].y", "WF-STEP-10")]
    carried = text.replace("goto: b }", "goto: b, into: { x: '{{ x }}' } }").replace(
        "b: { steps", "b: { accepts: { x: { type: json } }, steps"
    )
    assert found(carried) == []


def test_a_state_name_is_not_a_readable_binding():
    # WFS-ENTRY-11: "A state name is not a readable binding."
    text = machine(
        "a: { steps: [ { x: { crm.lookup: { v: '{{ z }}' } } } ], goto: z }\nz: { final: true }"
    )
    assert codes(text) == ["document.reference"]


def test_an_entry_reads_root_inputs_and_run():
    # WFS-ENTRY-9: "The entry can read root inputs, run, root trigger bindings, and other
    # root bindings under ordinary scope rules."
    text = machine(
        "a: { steps: [ { x: { crm.lookup: { v: '{{ inputs.k }}', d: '{{ run.dry_run }}' } } } ],"
        " goto: z }\nz: { final: true }",
        head="inputs: { k: { type: string } }\n",
    )
    assert found(text) == []


def test_configuration_reads_root_inputs_only():
    # WFS-TRANS-23: "each subscription's configuration is evaluated over root inputs" —
    # before on_enter runs (WFS-FORM-7).
    def document(configuration: str) -> str:
        return machine(
            f"""
            a:
              on_enter: [ {{ n: {{ crm.lookup: {{}} }} }} ]
              on:
                s:
                  event: svc.e
                  match: {{ id: 1 }}
                  configuration: {{ c: '{configuration}' }}
                  goto: z
            z: {{ final: true }}
            """,
            head="inputs: { k: { type: string } }\n",
        )

    assert found(document("{{ inputs.k }}")) == []
    assert codes(document("{{ n }}")) == ["document.reference"]


def test_match_and_after_read_on_enter_but_not_steps():
    # WFS-TRANS-26: "The subscription's match expressions are evaluated atomically after
    # on_enter succeeds"; WFS-TRANS-12: "after evaluates after on_enter succeeds".
    def document(reference: str) -> str:
        return machine(
            f"""
            a:
              on_enter: [ {{ n: {{ crm.lookup: {{}} }} }} ]
              steps: [ {{ m: {{ crm.lookup: {{}} }} }} ]
              on: {{ s: {{ event: svc.e, match: {{ id: '{{{{ {reference}.id }}}}' }}, goto: z }} }}
              timeout: {{ after: '{{{{ {reference}.wait }}}}', goto: z }}
            z: {{ final: true }}
            """
        )

    assert found(document("n")) == []
    assert codes(document("m")) == ["document.reference", "document.reference"]


def test_the_payload_is_bound_for_its_own_transition_only():
    # WFS-TRANS-21: "The subscription name binds the delivered payload directly in the
    # current entry scope for transition selection and into"; WFS-ENTRY-15: "For an event
    # transition, the event payload binding is also in scope."
    text = machine(
        """
        a:
          on:
            p:
              event: svc.e
              match: { id: 1 }
              route: '{{ p.kind }}'
              cases: { x: { goto: b, into: { v: '{{ p.v }}' } } }
              else: { goto: b, into: { v: 0 } }
            q: { event: svc.f, match: { id: 1 }, goto: b, into: { v: '{{ p.v }}' } }
          timeout: { after: 1s, goto: b, into: { v: '{{ q.v }}' } }
        b: { final: true, accepts: { v: { type: json, required: true } } }
        """
    )
    assert found(text) == [
        ("document.reference", "$.states.a.on.q.into", "WF-STEP-10"),
        ("document.reference", "$.states.a.timeout.into", "WF-STEP-10"),
    ]


def test_accepted_values_bind_by_name_before_the_entry_steps():
    # WFS-ENTRY-8: "Its accepted values bind directly by name, followed by the bindings
    # created by on_enter and steps."
    text = machine(
        """
        a: { goto: b, into: { v: 1 } }
        b:
          accepts: { v: { type: integer, required: true } }
          on_enter: [ { x: { crm.lookup: { v: '{{ v }}' } } } ]
          steps: [ { v: { crm.lookup: {} } } ]
          goto: z
        z: { final: true }
        """
    )
    # Single assignment (WFS-INTRO-3): a step may not rebind an accepted value.
    assert codes(text) == ["document.duplicate_binding"]


# -- outputs across final entries ------------------------------------------------------------


FINALS = """
    a:
      on:
        p: {{ event: svc.e, match: {{ id: 1 }}, goto: one }}
        q: {{ event: svc.f, match: {{ id: 1 }}, goto: two }}
    one: {{ final: true, steps: [ {{ r: {{ crm.{one}: {{}} }} }} ] }}
    two: {{ final: true, steps: [ {{ {name}: {{ crm.{two}: {{}} }} }} ] }}
"""


def test_an_output_may_read_a_binding_of_at_least_one_final_entry():
    # WFS-FORM-13: "a reference is permitted when its binding exists in the root or at
    # least one final-entry scope … absence from one or more final-entry scopes makes the
    # joined type nullable."
    text = machine(FINALS.format(one="lookup", two="lookup", name="other"))
    text += "outputs: { r: '{{ r }}', k: '{{ inputs.k }}' }\n"
    assert found(text, FACTS) == []


def test_an_output_binding_absent_from_root_and_every_final_entry_is_invalid():
    # WFS-FORM-13: "… absence from every final-entry and root scope is invalid".
    text = machine(FINALS.format(one="lookup", two="lookup", name="other"))
    text += "outputs: { r: '{{ nothing }}' }\n"
    assert found(text) == [("document.reference", "$.outputs", "WFS-FORM-13")]
    # A binding of a nonfinal state is not in any final-entry scope.
    nonfinal = (
        machine("a: { steps: [ { x: { crm.lookup: {} } } ], goto: z }\nz: { final: true }")
        + "outputs: { x: '{{ x }}' }\n"
    )
    assert found(nonfinal) == [("document.reference", "$.outputs", "WFS-FORM-13")]


def test_an_output_binding_without_an_available_join_is_invalid():
    # WFS-FORM-13: "its type is the join across scopes where it exists; no available join
    # … is invalid" (A-147: a string and an integer have none).
    text = machine(FINALS.format(one="lookup", two="count", name="r"))
    text += "outputs: { r: '{{ r }}' }\n"
    assert found(text, FACTS) == [("document.type", "$.outputs", "WFS-FORM-13")]
    assert found(text) == []  # without manifests the outputs' types are unknown
    same = (
        machine(FINALS.format(one="lookup", two="lookup", name="r")) + "outputs: { r: '{{ r }}' }\n"
    )
    assert found(same, FACTS) == []


# -- running is refused, validating is not ---------------------------------------------------


def test_validate_says_a_valid_state_form_workfile_is_valid(tmp_path, capsys):
    document = tmp_path / "approval.workfile.yaml"
    document.write_text(EXAMPLE)
    assert main(["validate", str(document), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["valid"] is True


def test_a_state_form_workfile_prepares_and_runs(tmp_path, capsys):
    # Issue 15: the profile's execution is modelled (docs/workfile-stateful.md).
    case = {
        "document": EXAMPLE,
        "manifests": {"messaging": textwrap.dedent(MESSAGING), "crm": textwrap.dedent(CRM)},
        "scenario": {"inputs": {"approval_channel": "c"}},
    }
    prepared = prepare(case)
    assert isinstance(prepared.semantics, StatefulRun)
    loaded = Loaded(validate(EXAMPLE).report, validate(EXAMPLE).document, (Manifests(), {}))
    assert isinstance(semantics(loaded, {}, None, None), StatefulRun)
    document = tmp_path / "approval.workfile.yaml"
    document.write_text(EXAMPLE)
    scenario = tmp_path / "scenario.json"
    scenario.write_text('{"inputs": {"approval_channel": "c"}}')
    assert main(["run", str(document), "--scenario", str(scenario)]) == 0
    out = capsys.readouterr().out
    assert "entry_started" in out and "awaiting_approval[0].notify" in out


def test_a_core_case_still_prepares():
    prepared = prepare({"document": "steps:\n  - a: { wf.wait: { for: 1s } }\n", "scenario": {}})
    assert prepared.request["type"] == "run"


# -- generated state graphs (networkx against a brute-force search) -------------------------


@st.composite
def state_graphs(draw: st.DrawFn) -> list[dict[str, object]]:
    """Up to six states: final, immediate (goto or route) or waiting (events, timeout)."""
    size = draw(st.integers(1, 6))
    names = [f"s{k}" for k in range(size)]
    target = st.sampled_from(names)
    states = []
    for _ in names:
        kind = draw(st.sampled_from(["final", "immediate", "waiting"]))
        if kind == "final":
            states.append({"kind": kind})
        elif kind == "immediate":
            states.append({"kind": kind, "targets": draw(st.lists(target, min_size=1, max_size=2))})
        else:
            events = draw(st.lists(target, max_size=2))
            timeout = draw(st.none() | target)
            if not events and timeout is None:
                timeout = names[0]
            states.append({"kind": kind, "events": events, "timeout": timeout})
    return states


def _document(states: list[dict[str, object]]) -> str:
    declared: dict[str, object] = {}
    for k, state in enumerate(states):
        if state["kind"] == "final":
            declared[f"s{k}"] = {"final": True}
        elif state["kind"] == "immediate":
            first, *rest = state["targets"]
            if rest:
                declared[f"s{k}"] = {
                    "route": "{{ run.dry_run }}",
                    "cases": {"x": {"goto": first}},
                    "else": {"goto": rest[0]},
                }
            else:
                declared[f"s{k}"] = {"goto": first}
        else:
            spec: dict[str, object] = {}
            if state["events"]:
                spec["on"] = {
                    f"e{n}": {"event": f"svc.e{n}", "match": {"id": n}, "goto": t}
                    for n, t in enumerate(state["events"])
                }
            if state["timeout"] is not None:
                spec["timeout"] = {"after": "1s", "goto": state["timeout"]}
            declared[f"s{k}"] = spec
    return json.dumps({"initial": "s0", "states": declared})


def _edges(states: list[dict[str, object]], immediate_only: bool) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {f"s{k}": set() for k in range(len(states))}
    for k, state in enumerate(states):
        if state["kind"] == "immediate":
            edges[f"s{k}"] |= set(state["targets"])
        elif state["kind"] == "waiting" and not immediate_only:
            edges[f"s{k}"] |= set(state["events"])
            edges[f"s{k}"] |= {state["timeout"]} - {None}
    return edges


def _reachable(edges: dict[str, set[str]], start: str) -> set[str]:
    seen, queue = {start}, deque([start])
    while queue:
        for after in edges[queue.popleft()]:
            if after not in seen:
                seen.add(after)
                queue.append(after)
    return seen


@settings(max_examples=150, deadline=None)
@given(state_graphs())
def test_graph_verdicts_agree_with_a_brute_force_search(states):
    # WFS-FORM-18 (a final state reachable from initial) and WFS-FORM-19 (no cycle of
    # immediate transitions), decided here by breadth-first search from every state.
    report = validate(_document(states)).report
    finals = {f"s{k}" for k, s in enumerate(states) if s["kind"] == "final"}
    reaches_final = bool(_reachable(_edges(states, False), "s0") & finals)
    immediate = _edges(states, True)
    on_cycle = {s for s in immediate if any(s in _reachable(immediate, t) for t in immediate[s])}
    found_codes = report.codes()
    assert ("document.final_unreachable" in found_codes) == (not reaches_final)
    assert ("document.immediate_cycle" in found_codes) == bool(on_cycle)
    assert set(found_codes) <= {"document.final_unreachable", "document.immediate_cycle"}
    # Every state on an immediate cycle is named by some reported cycle.
    named = set()
    for d in report.diagnostics:
        if d.code == "document.immediate_cycle":
            cycle = json.loads(d.message.rsplit("(cycle: ", 1)[1].rstrip(")"))
            assert all(
                b in immediate[a] for a, b in zip(cycle, [*cycle[1:], cycle[0]], strict=True)
            )
            named |= set(cycle)
    assert named <= on_cycle


def test_a_manifest_may_declare_a_schedule_trigger():
    # WFS-TRANS-17 names the kinds external, poll and schedule.
    assert FACTS.trigger("messaging.nightly").kind == "schedule"
