"""Workfile Core as the oracle sees it: the record of its parts.

What exists (issue 12): reading, validation against connector manifests
(``--manifests DIR``, the Static Facts), the clause catalogue, and the
``wforacle workfile refs`` tool.  The execution semantics is not modelled
yet (issue 13): every part that needs it raises ``NotModelled``, which the
command line reports as one line, so ``run``, ``explore``, ``check``,
``fuzz`` and ``fixtures`` say so instead of failing obscurely.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

import attrs

from wforacle.model.diagnostics import InvalidInput, Report, sort_diagnostics
from wforacle.properties.specification import Input, Layout, Loaded, Specification

JSON = Any


class NotModelled(InvalidInput):
    """A Workfile operation that needs the execution semantics, which is not modelled yet."""


def _not_modelled(*_: Any) -> NoReturn:
    raise NotModelled(
        "Workfile execution is not modelled yet (issue 13): wforacle validates Workfiles "
        "(validate --spec workfile [--manifests DIR]) and lists their clauses"
    )


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


def _validate(document: bytes, manifests: Any = None, problems: tuple[Any, ...] = ()) -> Loaded:
    from wforacle.properties.workfile.validate import validate

    result = validate(document, manifests)
    report = result.report
    if problems:
        report = Report(sort_diagnostics((*problems, *report.diagnostics)))
    return Loaded(report, result.workfile)


def _bind(spec: Specification, values: Mapping[str, Any]) -> Specification:
    """The record validating against the manifests in ``--manifests DIR`` (A-112)."""
    folder = values.get("manifests")
    if not folder:
        return spec
    from wforacle.model.workfile.manifest import load_manifests

    path = Path(folder)
    if not path.is_dir():
        raise InvalidInput(f"--manifests {folder}: not a directory")
    manifests, problems = load_manifests(path)
    found = tuple(problems)

    def validate(document: bytes) -> Loaded:
        return _validate(document, manifests, found)

    return attrs.evolve(
        spec,
        validate=validate,
        validate_many=lambda documents, previous: [validate(d).report for d in documents],
    )


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


def _tools(sub: Any) -> None:
    workfile = sub.add_parser("workfile", help="Workfile tools: the references of an expression")
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


WORKFILE = Specification(
    name="workfile",
    sniffs=_sniffs,
    claims=_claims,
    read=lambda data, source: data,
    validate=_validate,
    validate_many=lambda documents, previous: [_validate(d).report for d in documents],
    readings=(),
    readings_title="Workfile readings",
    options=lambda chosen: None,
    semantics=_not_modelled,
    key=_not_modelled,
    outcome=_not_modelled,
    explore=_not_modelled,
    limits=lambda: {NotModelled: ""},
    final_state=_not_modelled,
    final_name="outcome",
    prepare=_not_modelled,
    cases=_not_modelled,
    suites={"workfile": _not_modelled},
    protocol=_not_modelled,
    screen=_not_modelled,
    compare=_not_modelled,
    layout=Layout("document.workfile.yaml", lambda text: str(text), lambda text: text),
    smaller=_not_modelled,
    size=_not_modelled,
    inputs=(
        Input(
            "--manifests",
            "manifests",
            "a folder of connector manifests (*.yaml): the Static Facts validation checks "
            "actions, triggers, output contracts and the ambiguity warnings against",
            "DIR",
        ),
    ),
    bind=_bind,
    tools=_tools,
)
