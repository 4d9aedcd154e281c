"""The command line for Harness documents: validate, run, explore (``--spec harness``)."""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

JSON = Any


def is_harness(spec: str | None, source: str) -> bool:
    """Whether ``source`` is to be read as a Harness document (``--spec harness``, or XML)."""
    if spec is not None:
        return spec == "harness"
    if source == "-":
        return False
    try:
        with Path(source).open("rb") as handle:
            return handle.read(64).lstrip().startswith(b"<")
    except OSError:
        return False


@contextlib.contextmanager
def _within_limits() -> Iterator[None]:
    """A document beyond what the model enumerates is a usage error, said in one line."""
    from wforacle.model.harness.semantics import ModelLimit
    from wforacle.oracle.cli import UsageError

    try:
        yield
    except ModelLimit as exc:
        raise UsageError(str(exc)) from None


def _read(source: str) -> bytes:
    from wforacle.oracle.cli import UsageError

    try:
        return Path(source).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {source}: {exc.strerror or exc}") from None


def validate_files(files: list[str], as_json: bool) -> int:
    """``wforacle validate`` for Harness documents."""
    from wforacle.oracle.cli import EXIT_FINDING, EXIT_OK, _print_report, emit_json
    from wforacle.properties.harness.validate import validate

    reports = [validate(_read(source)).report for source in files]
    if as_json:
        if len(reports) == 1:
            emit_json(reports[0].to_json())
        else:
            emit_json(
                {
                    "valid": all(r.valid for r in reports),
                    "documents": [
                        {"file": s, **r.to_json()} for s, r in zip(files, reports, strict=True)
                    ],
                }
            )
    else:
        for source, report in zip(files, reports, strict=True):
            _print_report(source, report)
    return EXIT_OK if all(r.valid for r in reports) else EXIT_FINDING


def _load(args: argparse.Namespace) -> Any:
    from wforacle.model.harness.semantics import HarnessRun, Scenario
    from wforacle.oracle.cli import EXIT_FINDING, _print_report, emit_json, read_json
    from wforacle.properties.harness.validate import validate

    result = validate(_read(args.file))
    if not result.report.valid or result.harness is None:
        # HX-INST-3: "A runtime MUST NOT execute a document that fails validation."
        if getattr(args, "json", False):
            emit_json({"valid": False, **result.report.to_json()})
        else:
            _print_report(args.file, result.report)
        return EXIT_FINDING
    from wforacle.oracle.cli import UsageError

    try:
        scenario = Scenario.of(read_json(args.scenario) if args.scenario else {})
    except ValueError as exc:
        raise UsageError(f"{args.scenario}: {exc}") from None
    return HarnessRun(result.harness, scenario, options_of(args))


def options_of(args: argparse.Namespace) -> Any:
    """The model's readings named on the command line, where a parser offers them (A-80..A-82)."""
    from wforacle.model.harness.semantics import Options

    chosen = {
        name: getattr(args, name)
        for name in ("all_negative", "any_cancels", "pre_execution_retry", "loop_start")
        if getattr(args, name, None) is not None
    }
    return Options(**chosen)


def run(args: argparse.Namespace) -> int:
    """``wforacle run`` for a Harness document."""
    from wforacle.model.harness.semantics import outcome
    from wforacle.model.kernel.lts import execute, first, seeded
    from wforacle.oracle.cli import EXIT_OK, emit_json

    semantics = _load(args)
    if isinstance(semantics, int):
        return semantics
    scheduler = seeded(args.seed) if args.schedule == "random" else first
    with _within_limits():
        execution = execute(semantics, scheduler)
    result = outcome(semantics, execution.final)
    if args.json:
        emit_json({"trace": execution.trace, "outcome": result})
    else:
        for event in execution.trace:
            fields = {k: v for k, v in event.items() if k != "event"}
            print(f"{event['event']:<20} {json.dumps(fields, ensure_ascii=False)}")
        print(f"\ninstance {result['status']}")
    return EXIT_OK


def explore(args: argparse.Namespace) -> int:
    """``wforacle explore`` for a Harness document."""
    from wforacle.model.harness.semantics import config_key, outcome
    from wforacle.model.kernel.explore import explore as search
    from wforacle.oracle.cli import report_exploration

    semantics = _load(args)
    if isinstance(semantics, int):
        return semantics
    with _within_limits():
        result = search(semantics, lambda c: outcome(semantics, c), config_key, args.max_states)
    return report_exploration(result, args.json)


def plan(args: argparse.Namespace) -> int:
    """``wforacle plan`` for a Harness document: entry set, handlers, a topological order."""
    from wforacle.oracle.cli import EXIT_FINDING, EXIT_OK, _print_report, emit_json
    from wforacle.properties.harness.validate import validate

    result = validate(_read(args.file))
    if not result.report.valid or result.structure is None:
        if args.json:
            emit_json({"order": None, **result.report.to_json()})
        else:
            _print_report(args.file, result.report)
        return EXIT_FINDING
    structure = result.structure
    found = {
        "entry": list(structure.entry),
        "handlers": sorted(structure.handlers),
        "order": list(structure.order),
    }
    if args.json:
        emit_json(found)
    else:
        print(f"entry:    {', '.join(found['entry'])}  (HX-START-1/2)")
        print(f"handlers: {', '.join(found['handlers']) or '(none)'}  (HX-START-3)")
        for position, node_id in enumerate(found["order"], start=1):
            print(f"{position:>4}  {node_id}")
    return EXIT_OK


def check(args: argparse.Namespace, trace: list[JSON]) -> int:
    """``wforacle check`` for a Harness document."""
    from wforacle.model.harness.semantics import config_key
    from wforacle.oracle.check import FrontierTooLarge
    from wforacle.oracle.check import check as check_trace
    from wforacle.oracle.cli import UsageError, report_check

    semantics = _load(args)
    if isinstance(semantics, int):
        return semantics
    try:
        with _within_limits():
            verdict = check_trace(semantics, config_key, trace)
    except FrontierTooLarge as exc:
        raise UsageError(str(exc)) from None
    return report_check(verdict, args.json, "an execution chapter 5 allows")
