"""The Harness specification as the oracle sees it: the record of its parts.

The record type is properties/specification.py; the parts are in
properties/harness/conformance.py and the protocol-selftest cases in
properties/harness/selftest.py.  The registry is read when the command line
is built, so this module holds the table alone and imports a part when it is
first used (start-up time: `wforacle --help` loads no model, networkx, z3 or
Hypothesis).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from wforacle.properties.specification import Layout, Reading, Specification


def _data_fan_in(case: Mapping[str, Any]) -> bool:
    """A-167 can matter: two data edges of the document end at the same node and port."""
    document = case.get("document")
    if not isinstance(document, str):
        return True  # conservative, as _has is
    ends = re.findall(
        r"<edge\b(?=[^>]*type\s*=\s*[\"']data)(?=[^>]*\bto\s*=\s*[\"']([^\"']*))"
        r"(?=[^>]*toPort\s*=\s*[\"']([^\"']*))",
        document,
    )
    return len(ends) != len(set(ends))


def _has(case: Mapping[str, Any], pattern: str) -> bool:
    """Whether the case's document text matches ``pattern``: a reading's relevance.

    Conservative: a document that is not text (bytes as read) may hold anything.
    """
    document = case.get("document")
    return not isinstance(document, str) or re.search(pattern, document) is not None


def _parts() -> ModuleType:
    from wforacle.properties.harness import conformance  # start-up time (module docstring)

    return conformance


def _selftest(profile: str | None = None) -> Any:
    from wforacle.properties.harness.selftest import selftest

    return selftest()


def _diagram(harness: Any) -> Any:
    from wforacle.properties.harness.diagram import diagram  # start-up time

    return diagram(harness)


def _conformance() -> Any:
    from wforacle.properties.strategies.harness import conformance_cases  # start-up time

    return conformance_cases()


HARNESS = Specification(
    name="harness",
    sniffs=lambda head: head.lstrip().startswith(b"<"),
    claims=lambda document: True,
    read=lambda data, source: data,
    validate=lambda document: _parts().validate(document),
    validate_many=lambda documents, previous: _parts().validate_many(documents, previous),
    readings=(
        Reading(
            "--all-negative",
            "all_negative",
            "an all-negative join stays PENDING (HX-JOIN-3) or is SKIPPED (the draft)",
            ("pending", "skipped"),
            assumption="A-61",
            clauses=("HX-JOIN-3",),
        ),
        Reading(
            "--any-cancels",
            "any_cancels",
            "A-81: an any join cancels its whole branch (branch), only running nodes "
            "(running), or the branch as it is when the join fires (instant)",
            ("branch", "running", "instant"),
            assumption="A-81",
            clauses=("HX-CANCEL-1",),
            relevant=lambda case: _has(case, r"joinPolicy\s*=\s*[\"']any"),
        ),
        Reading(
            "--pre-execution-retry",
            "pre_execution_retry",
            "A-82: retry HX-4101/HX-4102 failures like any other (default: never)",
            assumption="A-82",
            clauses=("HX-EXEC-7", "HX-FAIL-1"),
            names=("never", "retried"),
            # HX-4101 needs a required input, HX-4102 a resourceRef; a retry needs neither
            # (without <retry> a failure is one attempt, A-82 "retried" alike).
            relevant=lambda case: _has(case, r"<input|resourceRef"),
        ),
        Reading(
            "--loop-start",
            "loop_start",
            "A-80: loop iterations start in sequence order or in any order",
            ("sequence", "any"),
            assumption="A-80",
            clauses=("HX-SCHED-2", "HX-SCHED-4"),
            relevant=lambda case: _has(case, r"<loop"),
        ),
        Reading(
            "--absent-reference",
            "absent_reference",
            "A-87: a reference to something absent reads as null, or every comparison "
            "with it is false",
            ("null", "incomparable"),
            assumption="A-87",
            clauses=("HX-EXEC-1", "HX-READY-3"),
            relevant=lambda case: _has(case, r"<guard|condition\s*=|when\s*=|over\s*="),
        ),
        Reading(
            "--skipped-decision",
            "skipped_decision",
            "A-159: a decision whose guard is false takes every case whose when holds "
            "(default: conditions) or still routes to the first that holds (first)",
            ("conditions", "first"),
            assumption="A-159",
            clauses=("HX-EXEC-1", "HX-JOIN-5", "HX-SCHED-4"),
            relevant=lambda case: _has(case, r"<decision") and _has(case, r"<guard"),
        ),
        Reading(
            "--compensation-inputs",
            "compensation_inputs",
            "A-156 (2): a compensation target is invoked with the inputs HX-EXEC-2 binds "
            "(default: bound) or with none (none)",
            ("bound", "none"),
            assumption="A-156",
            clauses=("HX-FAIL-3", "HX-EXEC-2"),
            relevant=lambda case: _has(case, r"compensation") and _has(case, r"<input"),
        ),
        Reading(
            "--unwinding-cancels",
            "unwinding_cancels",
            "A-64: an unwinding instance cancels its READY nodes and lets RUNNING ones finish "
            "(default: ready), or also cancels its RUNNING and RETRYING idempotent nodes "
            "(running)",
            ("ready", "running"),
            assumption="A-64",
            clauses=("HX-FAIL-3", "HX-CANCEL-2"),
            relevant=lambda case: True,  # any node may fail while another runs
        ),
        Reading(
            "--unwinding-handlers",
            "unwinding_handlers",
            "A-85: the error-edge targets of a node failing while the instance unwinds are "
            "cancelled (default: cancelled) or run (run)",
            ("cancelled", "run"),
            assumption="A-85",
            clauses=("HX-FAIL-2", "HX-FAIL-3"),
            relevant=lambda case: _has(case, r"type\s*=\s*[\"']error"),
        ),
        Reading(
            "--unreach-value",
            "unreach_value",
            "A-166: a required input with a value, fed by a data edge that brings nothing "
            "(from an unreachable or SKIPPED source), takes its value (default: obtains), or "
            "only a default stands in, as HX-UNREACH-5's and HX-DATA-3's wording reads "
            "(default): its node is unreachable, or fails HX-4101",
            ("obtains", "default"),
            assumption="A-166",
            clauses=("HX-UNREACH-5", "HX-DATA-3", "HX-EXEC-2"),
            relevant=lambda case: _has(case, r"\svalue\s*=") and _has(case, r"data"),
        ),
        Reading(
            "--case-targets",
            "case_targets",
            "A-179: a case target its decisions routed away from runs when another edge's "
            "join says so (default: join), or is unreachable, as HX-UNREACH-3 is worded "
            "(routed)",
            ("join", "routed"),
            assumption="A-179",
            clauses=("HX-UNREACH-3", "HX-UNREACH-1"),
            relevant=lambda case: _has(case, r"<case"),
        ),
        Reading(
            "--data-fan-in",
            "data_fan_in",
            "A-167: an input fed by several data edges takes the value of the first of them "
            "in document order that carries one (default: first) or of the last (last)",
            ("first", "last"),
            assumption="A-167",
            clauses=("HX-EXEC-2",),
            relevant=_data_fan_in,
        ),
        Reading(
            "--loop-index",
            "loop_index",
            "A-168: a loop iteration's params.index is its item's position counted from 0 "
            "(default: zero) or from 1 (one)",
            ("zero", "one"),
            assumption="A-168",
            clauses=("HX-SCHED-2", "HX-SCHED-4"),
            relevant=lambda case: _has(case, r"params\.index"),
        ),
    ),
    governing={
        # HX-SCHED-4: "Decision cases evaluate in document order" — the first case whose
        # when holds is the route (HX-UNREACH-3 names "case/@to" but decides no route).
        "to": ("HX-SCHED-4",),
        # HX-FAIL-1: a retry's attempt count; HX-EXEC-6: the failed attempt that ends it.
        "attempt": ("HX-FAIL-1",),
    },
    readings_title="Harness readings",
    options=lambda chosen: _parts().options(chosen),
    semantics=lambda loaded, scenario, options, replay: _parts().semantics(
        loaded, scenario, options, replay
    ),
    key=lambda config: _parts().key(config),
    outcome=lambda run, config: _parts().outcome(run, config),
    explore=lambda run, max_states, reduce: _parts().explore(run, max_states, reduce),
    limits=lambda: _parts().limits(),
    final_state=lambda run, config: _parts().outcome(run, config),
    final_name="outcome",
    prepare=lambda case, options: _parts().prepare(case, options),
    cases=lambda: _parts().cases(),
    suites={"harness": lambda: _parts().valid_cases()},
    conformance=lambda: _conformance(),
    protocol=lambda: _parts().protocol(),
    screen=lambda prepared, case, seen: None,
    compare=lambda prepared, seen, finals: _parts().compare(prepared, seen, finals),
    nested=lambda semantics, before, observed: _parts().nested(semantics, before, observed),
    why_not=lambda semantics, event, before: _parts().why_not(semantics, event, before),
    layout=Layout("document.xml", lambda text: text + "\n", lambda text: text),
    smaller=lambda case: _parts().smaller(case),
    size=lambda case: _parts().size(case),
    plan=lambda loaded, tie_break: _parts().plan(loaded, tie_break),
    example_engine="harness_engine.py",
    trace_line=lambda event: _parts().trace_line(event),
    ends=lambda outcome: f"instance {outcome['status']}",
    allowed="an execution chapter 5 allows",
    selftest=_selftest,
    diagram=_diagram,
)
