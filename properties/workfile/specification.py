"""Workfile Core as the oracle sees it: the record of its parts.

Reading, validation against connector manifests (``--manifests DIR``, the
Static Facts), the clause catalogue and the ``wforacle workfile refs`` tool
(issue 12); the execution semantics, cases, the engine protocol and the
judge's comparison (issue 13, properties/workfile/execution.py).  A
document's ``Loaded.plan`` is the manifests it was validated against: the
run reads its actions' classifications, effects and idempotency there.
The registry is read when the command line is built, so each part imports
what it needs when first used (start-up time).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs

from wforacle.model.diagnostics import InvalidInput, Report, sort_diagnostics
from wforacle.properties.specification import (
    BadLine,
    Input,
    Layout,
    Loaded,
    Reading,
    Specification,
)

JSON = Any


def _parts() -> ModuleType:
    from wforacle.properties.workfile import execution  # start-up time (module docstring)

    return execution


def _mentions(
    parts: tuple[str, ...], *words: str, test: Callable[[Any], bool] = all
) -> Callable[[Mapping[str, Any]], bool]:
    """A reading's relevance: the case's ``parts`` (as JSON text) hold every one of ``words``.

    ``test=any``: one of them is enough.

    Conservative (a word may stand anywhere), cheap, and exact enough to leave
    a reading out of the combinations tried for a case that cannot reach it.
    """

    def relevant(case: Mapping[str, Any]) -> bool:
        text = json.dumps([case.get(part) for part in parts])
        return test(word in text for word in words)

    return relevant


# Where the text is open and the model takes the reading as a parameter (issue 18).
READINGS = (
    Reading(
        "--absent-field",
        "absent_field",
        "Workfile, A-153: a match field absent from an event's payload equals no match "
        "value (default) or reads as null",
        ("unequal", "null"),
        assumption="A-153",
        clauses=("WFS-TRANS-30", "WFS-TRANS-31"),
    ),
    Reading(
        "--unclassified",
        "unclassified",
        "Workfile, A-119: a connector code the manifest does not classify is fatal "
        "(default), retryable or unknown (ambiguous)",
        ("fatal", "retryable", "unknown"),
        assumption="A-119",
        relevant=_mentions(("scenario",), "error"),  # a scripted error
        clauses=("WF-CLASS-5",),
    ),
    Reading(
        "--abort-chain",
        "abort_chain",
        "Workfile, A-121: the constructs enclosing a step that aborts the run become failed "
        "(default) or cancelled",
        ("failed", "cancelled"),
        assumption="A-121",
        # In a construct, an abort: on_fail/on_unknown written, or the default on_unknown
        # met by a scripted error or timeout (CI, session 21: an unknown code under
        # on_iteration_fail: continue, with no "abort" in the document, was not rescued).
        relevant=lambda case: (
            _mentions(("document", "workflows"), "wf.")(case)
            and (
                _mentions(("document", "workflows"), "abort")(case)
                or _mentions(("scenario",), "error", "timeout", test=any)(case)
            )
        ),
        clauses=("WF-POLICY-3", "WF-UNK-4"),
    ),
    Reading(
        "--stop-outcome",
        "stop_outcome",
        "Workfile, A-123: the wf.stop step itself is stopped (default) or succeeded; its "
        "enclosing constructs are stopped either way",
        ("stopped", "succeeded"),
        assumption="A-123",
        relevant=_mentions(("document", "workflows"), "wf.stop"),
        clauses=("WF-SOUT-5", "WF-IWC-4"),
    ),
    Reading(
        "--truthiness",
        "truthiness",
        "Workfile, A-117: not, and, or, a conditional's test and a guard take booleans only "
        "(default: any other value faults with expression.type) or any value by its "
        'truthiness (null, false, 0, "", [] and {} false)',
        ("booleans", "truthy"),
        assumption="A-117",
        # A guard, or an expression: only there is a value tested.
        relevant=_mentions(("document", "workflows"), "when", "until", "{{", test=any),
        clauses=("WF-STEP-7", "WF-BIND-2"),
    ),
    Reading(
        "--choose-guards",
        "choose_guards",
        "Workfile, A-124: a wf.choose evaluates every arm guard before it selects (default: "
        "every; a fault in any faults the step) or its guards in order up to the first that "
        "holds (first)",
        ("every", "first"),
        assumption="A-124",
        relevant=_mentions(("document", "workflows"), "wf.choose"),
        clauses=("WF-STEP-7", "WF-SUPP-10"),
    ),
    Reading(
        "--stop-fault",
        "stop_fault",
        "Workfile, A-169: a fault in a wf.stop result fails the stop step, whose failure "
        "policy applies (default: step), or the run, as on_fail: abort would (run)",
        ("step", "run"),
        assumption="A-169",
        relevant=_mentions(("document", "workflows"), "wf.stop", "result"),
        clauses=("WF-PART-3", "WF-STEP-7"),
    ),
    Reading(
        "--reissue-failure",
        "reissue_failure",
        "Workfile, A-170: an action step whose ambiguous attempt was reissued and then failed "
        "definitely fails with the final attempt's code (default: final) or goes to its "
        "on_unknown disposition (unknown)",
        ("final", "unknown"),
        assumption="A-170",
        # A reissue: an idempotent action, a second attempt, and a scripted error or timeout.
        relevant=lambda case: (
            _mentions(("manifests",), "inherent", "keyed", test=any)(case)
            and _mentions(("document", "workflows"), "attempts")(case)
            and _mentions(("scenario",), "error", "timeout", test=any)(case)
        ),
        clauses=("WF-AMB-1", "WF-AMB-4"),
    ),
    Reading(
        "--handled-stop",
        "handled_stop",
        "Workfile, A-171: an action step whose catch handler's wf.stop ends the run is stopped "
        "with the containment chain (default: stopped) or succeeded",
        ("stopped", "succeeded"),
        assumption="A-171",
        relevant=_mentions(("document", "workflows"), "catch", "wf.stop"),
        clauses=("WF-IWC-4", "WF-SOUT-5"),
    ),
    Reading(
        "--route-keys",
        "route_keys",
        "Workfile, A-174: a wf.route case key written as quoted text that spells a number or "
        'boolean ("1", "true") also matches that value (default: text) or only that '
        "string (json)",
        ("text", "json"),
        assumption="A-174",
        relevant=_mentions(("document", "workflows"), "wf.route"),
        clauses=("WF-STEP-3",),
    ),
    Reading(
        "--delegated-read",
        "delegated_read",
        "Workfile, A-135: in a dry run, a read action declaring dry_run: delegate runs as any "
        "read does (default: plain) or with the dry-run flag (flagged)",
        ("plain", "flagged"),
        assumption="A-135",
        relevant=lambda case: (
            _mentions(("manifests",), "delegate")(case) and _mentions(("scenario",), "dryRun")(case)
        ),
        clauses=("WF-DRY-4", "WF-DRY-11"),
    ),
    Reading(
        "--handler-deadline",
        "handler_deadline",
        "Workfile, A-141: a wf.call's timeout does not bound a catch handler another failure "
        "started (default: outside, as WF-CATCH-21 says of a handler the timeout started) or "
        "does (bounded: its expiry cancels the handler's work, the call fails with flow.timeout)",
        ("outside", "bounded"),
        assumption="A-141",
        # A call with a timeout and a catch, and a scripted expiry.
        relevant=lambda case: (
            _mentions(("document", "workflows"), "wf.call", "catch", "timeout")(case)
            and _mentions(("scenario",), "expire")(case)
        ),
        clauses=("WF-CATCH-21",),
    ),
    Reading(
        "--stop-result",
        "stop_result",
        "Workfile, A-177: a wf.stop result written as one {{ }} marker must evaluate to an "
        "object (default: any other value faults the stop step with expression.type) or may "
        "be any value (any)",
        ("object", "any"),
        assumption="A-177",
        relevant=_mentions(("document", "workflows"), "wf.stop", "result"),
        clauses=("WF-PART-1", "WF-CATCH-6"),
    ),
)


def _options(chosen: Mapping[str, Any]) -> Any:
    """The readings (``READINGS``' dests) named in ``chosen``; the model's own otherwise."""
    from wforacle.model.workfile.run import Options

    return Options(**{r.dest: chosen[r.dest] for r in READINGS if chosen.get(r.dest) is not None})


def _blame(semantics: Any, divergence: Any) -> tuple[str, ...]:
    from wforacle.properties.workfile.blame import blame  # only a report pays for it

    return blame(semantics, divergence)


def _conformance() -> Any:
    from wforacle.properties.workfile.conformance import conformance_cases

    return conformance_cases()


def _selftest(profile: str | None = None) -> Any:
    from wforacle.properties.workfile.selftest import selftest

    return selftest(profile)


def _diagram(document: Any) -> Any:
    from wforacle.properties.workfile.diagram import diagram  # start-up time

    return diagram(document)


def _sniffs(head: bytes) -> bool:
    """YAML that is neither JSON (w6w) nor XML (Harness): tried last."""
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return bool(start) and start[:1] not in (b"{", b"[", b"<")


def _claims(document: bytes) -> bool:
    """A YAML mapping with steps or states (issue 12: recognised by content)."""
    from wforacle.model.workfile.yamlsafe import YamlProblem, read

    try:
        data = read(document)
    except YamlProblem:
        return False
    return isinstance(data, dict) and ("steps" in data or "states" in data)


def _validate(
    document: bytes,
    manifests: Any = None,
    problems: tuple[Any, ...] = (),
    workflows: Mapping[str, Any] | None = None,
) -> Loaded:
    """The report, the document model and its plan: the manifests and the child workflows."""
    from wforacle.model.workfile.manifest import Manifests
    from wforacle.properties.workfile.validate import validate

    result = validate(document, manifests, workflows)
    report = result.report
    if problems:
        report = Report(sort_diagnostics((*problems, *report.diagnostics)))
    plan = (manifests if manifests is not None else Manifests(), dict(workflows or {}))
    return Loaded(report, result.document, plan)  # a state-form document too (issue 15)


def _folder(values: Mapping[str, Any], name: str) -> Path | None:
    folder = values.get(name)
    if not folder:
        return None
    path = Path(folder)
    if not path.is_dir():
        raise InvalidInput(f"--{name} {folder}: not a directory")
    return path


def _workflow_texts(values: Mapping[str, Any]) -> dict[str, str]:
    """``--workflows DIR``: workflow name (the file's stem) → YAML text (A-140)."""
    path = _folder(values, "workflows")
    if path is None:
        return {}
    return {
        file.stem: file.read_text("utf-8")
        for file in sorted(path.iterdir())
        if file.suffix in (".yaml", ".yml")
    }


def _bind(spec: Specification, values: Mapping[str, Any]) -> Specification:
    """The record validating against ``--manifests DIR``, running ``--workflows DIR`` (A-112)."""
    path = _folder(values, "manifests")
    texts = _workflow_texts(values)
    if path is None and not texts:
        return spec
    from wforacle.model.diagnostics import InvalidCase
    from wforacle.model.workfile.manifest import load_manifests
    from wforacle.properties.workfile.execution import valid_workflow

    # Without --manifests the document's and its callees' actions are unchecked references
    # (callees validated against an empty set were each document.unknown_action).
    checked, problems = load_manifests(path) if path is not None else (None, [])
    found = tuple(problems)
    try:
        workflows = {name: valid_workflow(text, checked, name) for name, text in texts.items()}
    except InvalidCase as exc:
        raise InvalidInput(f"--workflows: {exc}") from None

    def validate(document: bytes) -> Loaded:
        return _validate(document, checked, found, workflows)

    return attrs.evolve(
        spec,
        validate=validate,
        validate_many=lambda documents, previous: [validate(d).report for d in documents],
    )


def _case_inputs(values: Mapping[str, Any]) -> dict[str, Any]:
    """A case's ``manifests`` (connector → YAML text) and ``workflows`` from the folders."""
    case: dict[str, Any] = {}
    workflows = _workflow_texts(values)
    if workflows:
        case["workflows"] = workflows
    path = _folder(values, "manifests")
    if path is None:
        return case
    from wforacle.model.workfile.manifest import load_manifest

    found: dict[str, Any] = {}
    for file in sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml")):
        text = file.read_text("utf-8")
        manifest, _ = load_manifest(text, file.name)
        if manifest is not None:
            found[manifest.connector] = text
    return {"manifests": found, **case}


# -- wforacle workfile refs -------------------------------------------------------------


def _refs(args: argparse.Namespace) -> int:
    """Print the statically resolved references of an expression or template."""
    from wforacle.model.workfile.expr import ExprError, parse, path_text, refs, template

    text = args.expression
    try:
        found = (
            frozenset().union(*(refs(e) for e in template(text).expressions))
            if "{{" in text
            else refs(parse(text))
        )
    except ExprError as exc:
        raise InvalidInput(exc.message) from None
    paths = sorted(path_text(p) for p in found)
    if args.json:
        json.dump({"expression": text, "references": paths}, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        for path in paths:
            print(path)
    return 0


# -- wforacle workfile eval -------------------------------------------------------------


def _eval(args: argparse.Namespace) -> Callable[[Any], Any]:
    """The answer to one ``{"env", "expr"}`` or ``{"env", "value"}`` request (A-117).

    ``expr`` is an expression's text, ``value`` a JSON value whose strings
    may hold ``{{ }}`` templates (an argument, a projection, a result);
    ``env`` the visible bindings by root name (``inputs``, ``run``, step
    ids, iteration variables, ``error``), absent roots reading null.  The
    answer is ``{"value": …}`` or ``{"error": {"code", "message"}}``: an
    evaluation fault (``expression.type``, ``expression.division_by_zero``,
    ``expression.overflow``, ``expression.filter``), or
    ``document.expression`` for text that is no expression.
    """
    from wforacle.model.workfile.evaluate import EvaluationFault, evaluate, resolve
    from wforacle.model.workfile.expr import ExprError, parse

    truthy = args.truthiness == "truthy"

    def answer(request: Any) -> Any:
        if not (
            isinstance(request, dict)
            and ("expr" in request) != ("value" in request)
            and isinstance(request.get("env", {}), dict)
            and isinstance(request.get("expr", ""), str)
        ):
            raise BadLine('expected an object {"env": {...}, "expr": TEXT} or {"env", "value"}')
        env = request.get("env", {})
        try:
            if "expr" in request:
                return {"value": evaluate(parse(request["expr"]), env, truthy)}
            return {"value": resolve(request["value"], env, truthy)}
        except ExprError as exc:
            return {"error": {"code": "document.expression", "message": exc.message}}
        except EvaluationFault as fault:
            return {"error": {"code": fault.code, "message": fault.message}}

    return answer


def _tools(sub: Any) -> None:
    workfile = sub.add_parser(
        "workfile", help="Workfile tools: evaluate expressions, the references of one"
    )
    tools = workfile.add_subparsers(dest="tool", metavar="TOOL", required=True)
    refs = tools.add_parser(
        "refs",
        help="the statically resolved references of an expression or {{ }} template: "
        "what dry-run dependency checking reads (every branch, operand and filter argument; "
        "a computed index widened to [*])",
    )
    refs.add_argument("expression", metavar="EXPR")
    refs.add_argument("--json", action="store_true", help='print {"expression", "references"}')
    refs.set_defaults(handler=_refs)
    evaluate = tools.add_parser(
        "eval",
        help='evaluate JSON lines {"env": {...}, "expr": TEXT} (or "value": a JSON value with '
        "{{ }} templates) from stdin, as the model does (A-117)",
        description='Read JSON lines {"env": {...}, "expr": TEXT} or {"env": {...}, "value": '
        'JSON} on stdin; write {"value": ...} or {"error": {"code": ..., "message": ...}} per '
        "line (docs/workfile-expressions.md).",
    )
    evaluate.add_argument(
        "--truthiness",
        choices=("booleans", "truthy"),
        default="booleans",
        help="A-117: what not/and/or/if test: booleans only (default) or any value's truthiness",
    )
    evaluate.set_defaults(handler=None, answer_line=_eval)


WORKFILE = Specification(
    name="workfile",
    sniffs=_sniffs,
    claims=_claims,
    read=lambda data, source: data,
    validate=_validate,
    validate_many=lambda documents, previous: [_validate(d).report for d in documents],
    readings=READINGS,
    governing={
        # WFS-TRANS-13: "A duration is measured from that evaluation; a timestamp names the
        # deadline directly" — what fixes an entry's deadline (TRANS-12 says when after is
        # evaluated and what it must produce).
        "deadlineMs": ("WFS-TRANS-13", "WFS-TRANS-12"),
    },
    readings_title="Workfile readings",
    options=_options,
    semantics=lambda loaded, scenario, options, replay: _parts().semantics(
        loaded, scenario, options, replay
    ),
    key=lambda config: config.key,
    outcome=lambda run, config: _parts().outcome(run, config),
    explore=lambda run, max_states, reduce: _parts().explore(run, max_states, reduce),
    limits=lambda: _parts().limits(),
    final_state=lambda run, config: _parts().outcome(run, config),
    final_name="outcome",
    prepare=lambda case, options: _parts().prepare(case, options),
    cases=lambda: _parts().cases(),
    suites={
        "workfile": lambda: _parts().valid_cases(),
        "workfile-stateful": lambda: _parts().valid_state_cases(),
    },
    protocol=lambda: _parts().protocol(),
    screen=lambda prepared, case, seen: None,
    compare=lambda prepared, seen, finals: _parts().compare(prepared, seen, finals),
    layout=Layout(
        "document.workfile.yaml",
        lambda text: str(text),
        lambda text: text,
        optional=("manifests", "workflows"),
        shown=("workflows",),
    ),
    smaller=lambda case: _parts().smaller(case),
    blame=lambda semantics, divergence: _blame(semantics, divergence),
    size=lambda case: _parts().size(case),
    example_engine="workfile_engine.py",
    trace_line=lambda event: _parts().trace_line(event),
    ends=lambda state: _parts().ends(state),
    allowed="a run Workfile Core (and, for a state-form document, its Stateful Profile) allows",
    selftest=_selftest,
    conformance=lambda: _conformance(),
    diagram=_diagram,
    inputs=(
        Input(
            "--manifests",
            "manifests",
            "a folder of connector manifests (*.yaml): the Static Facts validation checks "
            "actions, triggers, output contracts and the ambiguity warnings against",
            "DIR",
        ),
        Input(
            "--workflows",
            "workflows",
            "a folder of Workfiles (NAME.yaml) that wf.call starts as child runs (A-140)",
            "DIR",
        ),
    ),
    bind=_bind,
    case_inputs=_case_inputs,
    tools=_tools,
)
