"""The ``wforacle`` command.

Exit codes (docs/cli.md): 0 ok / valid / conforms; 1 invalid / nonconforming
/ divergence found; 2 usage error or unreadable input; 3 an internal error of
wforacle itself (failure kind 5, never reported as anything else).  No Python
traceback reaches a user unless ``WFORACLE_DEBUG=1`` is set.

Heavy modules (networkx, lark, z3, hypothesis) are imported inside the
command that needs them, so ``wforacle --help`` stays fast.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from wforacle.model.diagnostics import InvalidInput, InvalidScenario
from wforacle.model.kernel.budget import Stopped
from wforacle.oracle.arguments import positive_int, positive_seconds
from wforacle.oracle.commands import (
    add_commands,
    add_inputs,
    add_readings,
    cmd_review,
    selection,
)
from wforacle.oracle.console import (
    EXIT_FINDING,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    emit_json,
    json_text,
    print_report,
    read_document,
    read_json,
    read_text,
)
from wforacle.oracle.readings import ANY, describe
from wforacle.properties.registry import SPECIFICATIONS
from wforacle.properties.specification import BadLine, parse_json

# -- validate ----------------------------------------------------------------


def cmd_validate(args: argparse.Namespace) -> int:
    """Validate one or more documents (several documents share one account's keys)."""
    read = [read_document(args.spec, source) for source in args.files]
    specs = {spec.name: spec for spec, _ in read}
    if len(specs) > 1:
        raise UsageError(f"validate documents of different specifications separately: {specs}")
    spec = read[0][0]
    spec = spec.bind(spec, vars(args))
    previous = read_json(args.previous) if args.previous else None
    reports = spec.validate_many([document for _, document in read], previous)
    if args.json:
        if len(reports) == 1:
            emit_json(reports[0].to_json())
        else:
            emit_json(
                {
                    "valid": all(r.valid for r in reports),
                    "documents": [
                        {"file": source, **report.to_json()}
                        for source, report in zip(args.files, reports, strict=True)
                    ],
                }
            )
    else:
        for source, report in zip(args.files, reports, strict=True):
            print_report(source, report)
    return EXIT_OK if all(r.valid for r in reports) else EXIT_FINDING


# -- plan --------------------------------------------------------------------


def cmd_plan(args: argparse.Namespace) -> int:
    """Print the plan of a valid document, or its diagnostics."""
    spec, document = read_document(args.spec, args.file)
    if spec.plan is None:
        raise UsageError(f"{spec.name} documents have no plan")
    loaded = spec.validate(document)
    if not loaded.report.valid or loaded.model is None or loaded.plan is None:
        if args.json:
            emit_json({"order": None, **loaded.report.to_json()})
        else:
            print_report(args.file, loaded.report)
        return EXIT_FINDING
    found, lines = spec.plan(loaded, args.tie_break)
    if args.json:
        emit_json(found)
    else:
        for line in lines:
            print(line)
    return EXIT_OK


# -- clauses -----------------------------------------------------------------


def cmd_clauses(args: argparse.Namespace) -> int:
    """List the clause catalogue of a spec with the rules and tests citing each clause.

    A clause is covered when a rule site (wforacle's own source, generators
    aside) and a test both cite it; ``rules-only``, ``tests-only`` and
    ``uncovered`` say which half is missing.
    """
    from wforacle.properties.clauses import Coverage, default_tests_dir

    tests_dir = Path(args.tests) if args.tests is not None else default_tests_dir()
    if args.tests == "":  # Path("") is the current folder: never what was meant (issue 19)
        raise UsageError("--tests '': not a directory")
    if tests_dir is not None and not tests_dir.is_dir():
        raise UsageError(f"--tests {tests_dir}: not a directory")
    coverage = Coverage.compute(args.spec, tests_dir)
    figures = coverage.figures()
    rows: list[dict[str, Any]] = [
        {
            "id": c.id,
            "section": c.section,
            "line": c.line,
            "kind": c.kind,
            "text": c.text,
            "status": coverage.status(c.id),
            "rules": [f"{x.file}:{x.line}" for x in coverage.rules.get(c.id, ())],
            "rule_sites": coverage.rule_sites(c.id),
            "tests": [f"{x.file}:{x.line}" for x in coverage.tests.get(c.id, ())],
            "test_files": coverage.test_files(c.id),
            "generators": [f"{x.file}:{x.line}" for x in coverage.generators.get(c.id, ())],
        }
        for c in coverage.catalogue.clauses
    ]
    if args.uncovered:
        rows = [r for r in rows if r["status"] != "covered"]
    unknown = [f"{u.clause} at {u.file}:{u.line}" for u in coverage.unknown]
    if args.json:
        emit_json(
            {
                "spec": args.spec,
                "file": coverage.catalogue.file,
                "coverage": figures,
                "sections": coverage.sections(),
                "tests_scanned": coverage.tests_scanned,
                "unknown_citations": unknown,
                "clauses": rows,
            }
        )
    else:
        for r in rows:
            text = " ".join(r["text"].split("\t"))
            text = text if len(text) <= 60 else text[:59] + "…"
            print(
                f"{r['id']:<15} {r['kind']:<10} {r['status']:<10} "
                f"{len(r['rule_sites']):>2}R {len(r['test_files']):>2}T  {text}"
            )
        _print_coverage(args.spec, figures)
        if not coverage.tests_scanned:
            print("tests not scanned: no tests/ folder found (pass --tests DIR)")
        for u in unknown:
            print(f"warning: cited clause not in the catalogue: {u}")
    return EXIT_FINDING if unknown else EXIT_OK


def _print_coverage(spec: str, figures: dict[str, int]) -> None:
    """The coverage summary of ``clauses``: per status, then per citing side."""
    total = figures["clauses"] or 1

    def share(key: str) -> str:
        return f"{figures[key]} ({100 * figures[key] / total:.0f}%)"

    print(
        f"\n{spec}: {figures['clauses']} clauses; covered (a rule and a test) "
        f"{share('covered')}, rules only {share('rules_only')}, "
        f"tests only {share('tests_only')}, uncovered {share('uncovered')}"
    )
    print(
        f"cited by rules {share('by_rules')}, by tests {share('by_tests')}, "
        f"by both {share('by_both')}; aimed at by generators {figures['by_generators']}"
    )


# -- jsonlogic ---------------------------------------------------------------


def _answer_lines(answer: Callable[[Any], Any], invalid: Callable[[str], Any]) -> int:
    """Answer every non-blank line of standard input with one JSON line, in order.

    ``answer`` takes a parsed request and returns the answer, or raises
    BadLine.  A line that is not UTF-8, not strict JSON, not a request or
    nested too deeply is answered ``invalid(message)`` (the message never
    quotes the line), and the lines after it still are; the exit code is 2
    when any line was bad, else 0 (docs/cli.md).
    """
    bad = False
    for number, line in enumerate(sys.stdin.buffer, start=1):
        if not line.strip():
            continue
        try:
            reply = answer(parse_json(line, f"line {number}", surrogates=True))
            _write_line(reply)
        except InvalidInput as exc:  # its message names the line
            bad = True
            _write_line(invalid(str(exc)))
        except BadLine as exc:
            bad = True
            _write_line(invalid(f"line {number}: {exc}"))
        except RecursionError:  # a request within JSON's depth but too deep to evaluate
            bad = True
            _write_line(invalid(f"line {number}: nested too deeply"))
        sys.stdout.flush()
    return EXIT_USAGE if bad else EXIT_OK


def _write_line(value: object) -> None:
    """One strict JSON line, UTF-8 (``json_text``: a lone surrogate escaped, NaN as null)."""
    sys.stdout.buffer.write(json_text(value, separators=(",", ":")).encode("utf-8") + b"\n")


def cmd_jsonlogic_eval(args: argparse.Namespace) -> int:
    """Evaluate ``{"rule", "data"}`` JSON lines; one result line per input line."""
    from wforacle.model.expr.jsonlogic import JsonLogicError, evaluate, to_json

    def answer(request: Any) -> Any:
        if not (isinstance(request, dict) and "rule" in request):
            raise BadLine('expected an object {"rule": R, "data": D}')
        try:
            return {"value": to_json(evaluate(request["rule"], request.get("data")))}
        except JsonLogicError as failure:
            return {"error": {"type": failure.type, "message": _describe(failure.thrown)}}

    return _answer_lines(
        answer, lambda message: {"error": {"type": "Invalid Input", "message": message}}
    )


def _describe(thrown: object) -> str:
    return json.dumps(thrown, ensure_ascii=False, sort_keys=True)


def cmd_jsonlogic_suite(args: argparse.Namespace) -> int:
    """Run a JSON Logic test-suite folder and print a pass table per file."""
    from wforacle.oracle.jsonlogic_suite import SuiteError, run_suite

    folder = Path(args.folder)
    if not folder.is_dir():
        raise UsageError(f"{folder}: not a directory")
    try:
        outcomes = run_suite(folder)
    except SuiteError as exc:
        raise UsageError(str(exc)) from None
    files: dict[str, list[int]] = {}
    for outcome in outcomes:
        tally = files.setdefault(outcome.case.file, [0, 0])
        tally[0] += outcome.passed
        tally[1] += 1
    failures = [o for o in outcomes if not o.passed]
    passed = len(outcomes) - len(failures)
    if args.json:
        emit_json(
            {
                "passed": passed,
                "total": len(outcomes),
                "files": [{"file": f, "passed": p, "total": t} for f, (p, t) in files.items()],
                "failures": [
                    {
                        "file": o.case.file,
                        "index": o.case.index,
                        "description": o.case.description,
                        "rule": o.case.rule,
                        "data": o.case.data,
                        "expected": o.case.expected,
                        "actual": o.actual,
                    }
                    for o in failures
                ],
            }
        )
    else:
        width = max((len(f) for f in files), default=10)
        for name, (p, t) in files.items():
            mark = "" if p == t else "  ✗"
            print(f"{name:<{width}}  {p:>4}/{t:<4}{mark}")
        print(f"{'total':<{width}}  {passed:>4}/{len(outcomes):<4}")
        for o in failures:
            print(
                f"FAIL {o.case.file}[{o.case.index}] {o.case.description}: "
                f"expected {json.dumps(o.case.expected)}, got {json.dumps(o.actual)}"
            )
    return EXIT_OK if not failures else EXIT_FINDING


def cmd_jsonlogic_differential(args: argparse.Namespace) -> int:
    """Compare the evaluator with json-logic-js or json-logic-engine on generated rules."""
    from wforacle.oracle.differential import (
        AGREEING,
        NodeJsonLogic,
        ReferenceUnavailable,
        campaign,
    )

    if args.examples < 1:
        raise UsageError("--examples must be at least 1")
    try:
        reference = NodeJsonLogic(args.against)
    except ReferenceUnavailable as exc:
        raise UsageError(f"{exc}") from None
    try:
        result = campaign(reference, args.examples, args.seed, typed=args.typed)
    finally:
        reference.close()
    unexplained = {k: v for k, v in result.counts.items() if k not in AGREEING}
    if args.json:
        emit_json(
            {
                "against": args.against,
                "seed": args.seed,
                "examples": args.examples,
                "typed": args.typed,
                "counts": result.counts,
                "faults": result.faults,
                "samples": result.samples,
            }
        )
    else:
        for kind, count in result.counts.items():
            mark = "" if kind in AGREEING else "  ← unexplained divergence"
            print(f"{kind:<32} {count:>7}{mark}")
        print(f"reference faults (crash, hang, garbage): {result.faults}")
        for kind in unexplained:
            for sample in result.samples.get(kind, []):
                print(f"{kind}: {json.dumps(sample, ensure_ascii=False)}")
    return EXIT_FINDING if unexplained else EXIT_OK


# -- run, check, explore ------------------------------------------------------


def catalogues() -> list[str]:
    """The clause catalogues (``properties/clauses/NAME.yaml``), found without reading them.

    Importing the catalogue package reads YAML and the extractor's
    configuration; a parser built for ``validate`` needs only the names.
    """
    import importlib.util

    found = importlib.util.find_spec("wforacle.properties.clauses")
    assert found is not None and found.submodule_search_locations is not None
    folder = Path(next(iter(found.submodule_search_locations)))
    return sorted(path.stem for path in folder.glob("*.yaml"))


@contextlib.contextmanager
def _within_limits(spec: Any) -> Iterator[None]:
    """What the model says it does not cover (a document beyond it) is a usage error, one line."""
    limits = spec.limits()
    try:
        yield
    except tuple(limits) as exc:
        prefix = next(p for kind, p in limits.items() if isinstance(exc, kind))
        raise UsageError(f"{prefix}{exc}") from None


def _load(args: argparse.Namespace) -> tuple[Any, Any, Callable[[Mapping[str, Any]], Any]]:
    """Validate DOC and load the scenario: the specification, its semantics or an exit code.

    The third member builds the same run under other readings (``check``).

    A document with an error is never run (HX-INST-3: "A runtime MUST NOT
    execute a document that fails validation"; w6w the same): its
    diagnostics are printed and the exit code is 1.
    """
    spec, document = read_document(args.spec, args.file)
    spec = spec.bind(spec, vars(args))  # the files documents are read with (--manifests)
    scenario = read_json(args.scenario) if args.scenario else {}
    loaded = spec.validate(document)
    if not loaded.report.valid or loaded.model is None:
        if args.json:
            emit_json({"valid": False, **loaded.report.to_json()})
        else:
            print_report(args.file, loaded.report)
        return spec, EXIT_FINDING, lambda readings: None
    replay = None
    if getattr(args, "replay", None):
        recorded = read_json(args.replay)
        recorded = recorded.get("runState", recorded) if isinstance(recorded, dict) else recorded
        replay = {"runState": recorded, "from": args.replay_from}
    elif getattr(args, "replay_from", None):
        raise UsageError("--replay-from needs --replay RUNSTATE")

    def under(readings: Mapping[str, Any]) -> Any:
        return spec.semantics(loaded, scenario, spec.options(readings), replay)

    try:
        with _within_limits(spec):
            return spec, under(selection(args, spec).primary()), under
    except InvalidScenario as exc:
        raise UsageError(
            "\n".join(f"{args.scenario}: {line}" for line in exc.message.splitlines())
        ) from None
    except InvalidInput as exc:
        raise UsageError(str(exc)) from None


def cmd_run(args: argparse.Namespace) -> int:
    """One reference execution of a document under a scenario: the trace and the final state."""
    from wforacle.model.kernel.lts import execute_bounded, first, seeded

    spec, semantics, _ = _load(args)
    if isinstance(semantics, int):
        return semantics
    scheduler = seeded(args.seed) if args.schedule == "random" else first
    with _within_limits(spec):
        execution, stopped = execute_bounded(
            semantics, scheduler, args.max_steps, args.time_budget, states=bool(args.itf)
        )
        if stopped is not None:  # a bound: the path so far, said to be incomplete (issue 19)
            if args.json:
                emit_json({"trace": execution.trace, "complete": False, "stoppedBecause": stopped})
            else:
                for event in execution.trace:
                    print(spec.trace_line(event))
                print(f"\nINCOMPLETE: {stopped}; raise --max-steps or --time-budget")
            return EXIT_OK
        state = spec.final_state(semantics, execution.final)
        if args.itf:
            from wforacle.oracle.itf import to_itf

            itf = to_itf(spec, semantics, execution, args.file)
            text = json_text(itf) + "\n"
            try:
                Path(args.itf).write_text(text, encoding="utf-8")
            except OSError as exc:  # a directory, a missing folder, no permission (issue 19)
                raise UsageError(f"--itf {args.itf}: cannot write: {exc.strerror or exc}") from None
    if args.json:
        emit_json({"trace": execution.trace, spec.final_name: state})
    else:
        for event in execution.trace:
            print(spec.trace_line(event))
        print(f"\n{spec.ends(state)}")
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    """Check whether a recorded trace is one the specification permits for DOC."""
    from wforacle.model.kernel.budget import time_budget
    from wforacle.oracle.check import FrontierTooLarge, check

    spec, semantics, under = _load(args)
    if isinstance(semantics, int):
        return semantics
    trace = _read_trace(args.trace)
    if spec.rename is not None:  # what the specification leaves to the engine
        trace = spec.rename(semantics, trace, None)[0]
    chosen = selection(args, spec)
    departures: tuple[tuple[str, str], ...] = ()

    def permits(readings: dict[str, Any]) -> Any:
        other = check(under(readings), spec.key, trace)
        return other if other.divergence is None else None

    try:
        with _within_limits(spec), time_budget(args.time_budget):
            verdict = check(semantics, spec.key, trace)
            # Readings are not bugs (issue 18): a trace another reading permits.
            rescued = chosen.rescue(permits) if verdict.divergence is not None else None
            if rescued is not None:
                departures, passed = rescued
                verdict = passed if chosen.mode == ANY else verdict
    except FrontierTooLarge as exc:
        raise UsageError(str(exc)) from None
    if verdict.divergence is not None and not departures:
        from wforacle.oracle.explain import by_rule  # only a divergence pays for it

        with _within_limits(spec):
            explained = by_rule(spec, semantics, verdict.divergence, trace)
            verdict = attrs.evolve(verdict, divergence=explained)
    return report_check(verdict, args.json, spec.allowed, departures, chosen.mode)


def report_check(
    verdict: Any,
    as_json: bool,
    allowed: str,
    departures: tuple[tuple[str, str], ...] = (),
    mode: str = ANY,
) -> int:
    """Print a trace-check verdict; the exit code.

    ``departures``: the readings other than the model's under which the trace
    is permitted (oracle/readings.py) — a pass under ``any``, and under
    ``default`` the verdict "depends on reading", which exits 0 too.
    """
    depends = bool(departures) and verdict.divergence is not None
    if as_json:
        emit_json(
            {
                "permitted": verdict.permitted or depends,
                "events": verdict.events,
                "maxFrontier": verdict.max_frontier,
                "divergence": verdict.divergence.to_json() if verdict.divergence else None,
                "readings": dict(departures) if departures else None,
                "readingMode": mode,
            }
        )
    elif verdict.divergence is None:
        under = f" under reading {describe(departures)}" if departures else ""
        print(f"permitted: {verdict.events} events match {allowed}{under}")
    else:
        d = verdict.divergence
        if depends:
            print(
                f"DEPENDS ON READING {describe(departures)}: permitted under it, not under "
                "the model's readings (not a bug; docs/readings.md)"
            )
        print(f"DIVERGES at event {d.index}: {d.message}")
        if d.observed is not None:
            print(f"  observed:  {json.dumps(d.observed, ensure_ascii=False)}")
        for event in d.permitted:
            print(f"  permitted: {json.dumps(event, ensure_ascii=False)}")
        print(f"  clauses:   {', '.join(d.clauses) or '(none)'}")
    return EXIT_OK if verdict.permitted or depends else EXIT_FINDING


def _read_trace(source: str) -> list[Any]:
    """A trace: a JSON array of events, ``run --json`` output, or JSON lines."""
    text = sys.stdin.read() if source == "-" else read_text(source)
    try:  # strict JSON: no NaN or Infinity, nesting and integers bounded (issue 19)
        value = parse_json(text, source)
    except InvalidInput:
        value = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                value.append(parse_json(line, f"{source}: line {number}"))
            except InvalidInput as exc:
                raise UsageError(str(exc)) from None
    if isinstance(value, dict) and isinstance(value.get("trace"), list):
        value = value["trace"]
    if not isinstance(value, list) or not all(isinstance(e, dict) for e in value):
        raise UsageError(f"{source}: expected a trace: an array of event objects")
    return value


def cmd_readings(args: argparse.Namespace) -> int:
    """The readings the model takes as parameters: assumption, clauses, readings, default."""
    from wforacle.oracle.readings import catalogue

    names = list(SPECIFICATIONS) if args.spec in (None, "all") else [args.spec]
    found = {name: catalogue(SPECIFICATIONS[name]) for name in names}
    if args.json:
        emit_json(found)
        return EXIT_OK
    for name, readings in found.items():
        print(f"{name}:")
        for r in readings:
            others = [n for n in r["readings"] if n != r["default"]]
            print(
                f"  {r['assumption']:<6} {r['option']:<22} default {r['default']!r}; "
                f"also {', '.join(repr(n) for n in others)}  ({', '.join(r['clauses'])})"
            )
            print(f"         {r['summary']}")
    return EXIT_OK


def cmd_explore(args: argparse.Namespace) -> int:
    """Every distinct terminal outcome the specification permits for DOC under a scenario."""
    from wforacle.model.kernel.explore import time_budget

    spec, semantics, _ = _load(args)
    if isinstance(semantics, int):
        return semantics
    with _within_limits(spec), time_budget(args.time_budget):
        result = spec.explore(semantics, args.max_states, not args.naive)
    return report_exploration(result, args.json)


def report_exploration(result: Any, as_json: bool) -> int:
    """Print an exploration's outcomes and figures; the exit code."""
    if as_json:
        emit_json(
            {
                "complete": result.complete,
                "outcomes": [
                    {"outcome": o.value, "witness": list(o.witness)} for o in result.outcomes
                ],
                "figures": result.figures(),
            }
        )
    else:
        for number, found in enumerate(result.outcomes, start=1):
            print(f"outcome {number}: {json.dumps(found.value, ensure_ascii=False)}")
        state = "complete" if result.complete else f"INCOMPLETE: {result.stopped_because}"
        print(
            f"\n{len(result.outcomes)} outcome(s); {state}; {result.states} states, "
            f"{result.transitions} transitions, {result.seconds:.3f} s; "
            f"reduction: {result.reduction} ({result.pruned} transitions pruned)"
        )
    return EXIT_OK


# -- w6w expressions -----------------------------------------------------------


def cmd_w6w_resolve(args: argparse.Namespace) -> int:
    """Resolve ``{"scope", "with"}`` JSON lines; one result line per input line."""
    from wforacle.model.expr.jsonlogic import to_json
    from wforacle.model.w6w.resolve import ResolutionError, resolve_with

    def answer(request: Any) -> Any:
        if not (
            isinstance(request, dict)
            and "with" in request
            and isinstance(request.get("scope", {}), dict)
        ):
            raise BadLine('expected an object {"scope": {...}, "with": <value>}')
        try:
            return {"value": to_json(resolve_with(request["with"], request.get("scope", {})))}
        except ResolutionError as failure:
            return {"error": {"code": failure.code, "message": failure.message}}

    return _answer_lines(
        answer, lambda message: {"error": {"code": "invalid_input", "message": message}}
    )


def cmd_w6w_parse(args: argparse.Namespace) -> int:
    """Print the parts a template parses to in one parser mode."""
    from wforacle.grammar.template import Mode, parse_template, serialize
    from wforacle.model.w6w.parts import part_to_json
    from wforacle.model.w6w.resolve import is_root_anchored

    template = parse_template(args.text, Mode(args.mode))
    parts = [part_to_json(part) for part in template.parts]
    report = {
        "mode": args.mode,
        "parts": parts,
        "unterminated": template.unterminated,
        "root_anchored": is_root_anchored(template),
        "text": None if template.unterminated else serialize(template.parts),
    }
    if args.json:
        emit_json(report)
    else:
        for part in parts:
            print(json.dumps(part, ensure_ascii=False))
        if template.unterminated:
            print("unterminated {{: the rest of the string is text")
        print(f"root-anchored: {'yes' if report['root_anchored'] else 'no'}")
    return EXIT_OK


def cmd_w6w_test_step(args: argparse.Namespace) -> int:
    """The single-step test of one workflow step against supplied state (W6W-BIND-5..8)."""
    from wforacle.model.expr.jsonlogic import to_json
    from wforacle.model.w6w.resolve import ResolutionError
    from wforacle.model.w6w.single_step import test_step
    from wforacle.properties.w6w.validate import validate

    document = read_json(args.file)
    scope = read_json(args.state) if args.state else {}
    if not isinstance(scope, dict):
        raise UsageError(f"{args.state}: the supplied state must be a JSON object (a run scope)")
    result = validate(document)
    if result.workflow is None or not result.report.storable:
        if args.json:  # issue 19: --json output is always JSON
            emit_json({"params": None, **result.report.to_json()})
        else:
            print_report(args.file, result.report)
        return EXIT_FINDING
    if args.step not in {s.id for s in result.workflow.steps}:
        raise UsageError(f"{args.file} has no step {args.step!r}")
    try:
        params = to_json(test_step(result.workflow, args.step, scope))
    except ResolutionError as failure:
        report = {"error": {"code": failure.code, "message": failure.message, "step": args.step}}
        if args.json:
            emit_json(report)
        else:
            print(f"{failure.code}: {failure.message}")
        return EXIT_FINDING
    if args.json:
        emit_json({"params": params})
    else:
        print(json.dumps(params, indent=2))
    return EXIT_OK


# -- wiring ------------------------------------------------------------------


class DefaultsFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` shows each option's default, where it has one worth showing.

    An option whose default is None or False (absent, a switch) or whose help
    already says its default gets no ``(default: ...)``.
    """

    def _get_help_string(self, action: argparse.Action) -> str | None:
        help = action.help or ""
        if action.default is None or action.default is False or "default" in help:
            return action.help
        return super()._get_help_string(action)


class Parser(argparse.ArgumentParser):
    """An argument parser whose help shows defaults; its sub-parsers are Parsers too.

    (argparse makes a parser's sub-parsers of the parser's own class.)
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", DefaultsFormatter)
        super().__init__(*args, **kwargs)


def cmd_completion(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Print a completion script for ``args.shell``, generated from the parser by shtab.

    ``eval "$(wforacle completion bash)"`` in ~/.bashrc (docs/cli.md): every
    command, option and choice completes, and file arguments complete paths.
    """
    import shtab  # start-up time: only this command needs it

    sys.stdout.write(shtab.complete(parser, shell=args.shell))
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = Parser(
        prog="wforacle",
        description="Executable reference model and conformance oracle "
        "for workflow specifications.",
    )
    parser.add_argument(
        "--version", action=Version, nargs=0, help="show program's version number and exit"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def add(name: str, handler: Callable[[argparse.Namespace], int], help: str) -> Any:
        command = sub.add_parser(name, help=help, description=help)
        command.set_defaults(handler=handler)
        return command

    validate = add("validate", cmd_validate, "validate workflow documents")
    validate.add_argument("files", nargs="+", metavar="FILE", help="document(s), or - for stdin")
    validate.add_argument(
        "--spec", choices=list(SPECIFICATIONS), help="specification (default: detected)"
    )
    validate.add_argument("--json", action="store_true", help="print a JSON report")

    add_inputs(validate)
    validate.add_argument(
        "--previous",
        metavar="FILE",
        help="the stored version this save replaces (the key grammar is checked only on "
        "first assignment, W6W-KEY-3)",
    )

    plan = add("plan", cmd_plan, "print the execution plan of a workflow document")
    plan.add_argument("file", metavar="FILE", help="document, or - for stdin")
    plan.add_argument(
        "--spec", choices=list(SPECIFICATIONS), help="specification (default: detected)"
    )
    plan.add_argument("--json", action="store_true", help='print {"order": [...]}')
    plan.add_argument(
        "--tie-break",
        choices=("declared", "fifo"),
        default="declared",
        help="how steps that become ready together are ordered (assumption A-02)",
    )

    def document_and_scenario(command: Any) -> Any:
        command.add_argument("file", metavar="DOC", help="the workflow document")
        command.add_argument("--scenario", metavar="S", help="the scenario (docs/scenario.md)")
        command.add_argument(
            "--spec", choices=list(SPECIFICATIONS), help="specification (default: detected)"
        )
        add_inputs(command)
        for spec in SPECIFICATIONS.values():
            if not spec.readings:
                continue
            group = command.add_argument_group(
                spec.readings_title,
                "where the specification is open (docs/assumptions.md); default first",
            )
            for reading in spec.readings:
                if reading.choices:  # pinned as the model's other readings are (--reading)
                    group.add_argument(
                        reading.flag, dest=reading.dest, choices=reading.choices, help=reading.help
                    )
                else:
                    group.add_argument(
                        reading.flag,
                        dest=reading.dest,
                        action="store_const",
                        const=True,
                        help=reading.help,
                    )
        return command

    run = document_and_scenario(
        add("run", cmd_run, "one reference execution: the trace and the final RunState")
    )
    add_readings(run, modes=False)
    run.add_argument(
        "--schedule",
        choices=("first", "random"),
        default="first",
        help="which permitted transition to take where several are",
    )
    run.add_argument("--seed", type=int, default=0, help="seed of --schedule random")
    run.add_argument(
        "--max-steps",
        type=positive_int,
        default=250_000,
        help="stop (and say so: incomplete) after this many transitions (default 250,000)",
    )
    run.add_argument(
        "--time-budget",
        type=positive_seconds,
        default=30.0,
        metavar="S",
        help="stop (and say so: incomplete) after S seconds (default 30)",
    )
    run.add_argument(
        "--json",
        action="store_true",
        help='print {"trace", FINAL}: "runState" (w6w) or "outcome" (Harness, Workfile)',
    )
    run.add_argument(
        "--itf", metavar="FILE", help="also write the run as an ITF trace (Apalache, Quint)"
    )
    run.add_argument(
        "--replay",
        metavar="RUNSTATE",
        help="replay a recorded run (a RunState, or run --json output)",
    )
    run.add_argument(
        "--replay-from", metavar="STEP", help="with --replay: re-run STEP and its graph descendants"
    )

    check_cmd = document_and_scenario(
        add("check", cmd_check, "is a recorded trace one the specification permits?")
    )
    check_cmd.add_argument(
        "--trace",
        metavar="T",
        required=True,
        help="the trace: a JSON array of events, run --json output, or JSON lines ('-': stdin)",
    )
    add_readings(check_cmd)
    check_cmd.add_argument(
        "--time-budget",
        type=positive_seconds,
        default=60.0,
        metavar="S",
        help="give up after S seconds (default 60): 'cannot decide', exit 2",
    )
    check_cmd.add_argument("--json", action="store_true", help="print a JSON verdict")

    explore_cmd = document_and_scenario(
        add("explore", cmd_explore, "every distinct terminal outcome the RFC permits, with figures")
    )
    explore_cmd.add_argument(
        "--max-states",
        type=positive_int,
        default=100_000,
        help="stop (and say so: incomplete) after this many distinct states (default 100,000)",
    )
    explore_cmd.add_argument(
        "--time-budget",
        type=positive_seconds,
        default=30.0,
        metavar="S",
        help="stop (and say so: incomplete) after S seconds (default 30); raise both bounds "
        "for a complete exploration of a large document",
    )
    explore_cmd.add_argument(
        "--naive",
        action="store_true",
        help="enumerate every interleaving (no partial-order reduction), to measure what it saves",
    )
    add_readings(explore_cmd, modes=False)
    explore_cmd.add_argument("--json", action="store_true", help="print a JSON report")

    readings_cmd = add(
        "readings", cmd_readings, "where the specifications are open: the readings engines take"
    )
    readings_cmd.add_argument("--spec", choices=[*SPECIFICATIONS, "all"], help="default: all")
    readings_cmd.add_argument("--json", action="store_true", help="print JSON")

    review = add(
        "review",
        lambda args: cmd_review(args, main),  # a witness's runs are this command line's
        "the reviewer's view: clause coverage, assumptions, every spec-review finding re-checked",
    )
    review.add_argument(
        "--spec", choices=[*SPECIFICATIONS, "all"], default="all", help="specification"
    )
    review.add_argument(
        "--docs",
        metavar="DIR",
        help="the folder of spec-review.md, assumptions.md and findings/ "
        "(default: the source checkout's docs/)",
    )
    review.add_argument("--json", action="store_true", help="print JSON")

    completion = add(
        "completion",
        lambda args: cmd_completion(args, parser),
        "print a shell completion script (bash, zsh, tcsh)",
    )
    completion.add_argument("shell", choices=("bash", "zsh", "tcsh"), help="the shell")

    add_commands(add)
    for spec in SPECIFICATIONS.values():
        if spec.tools is not None:
            spec.tools(sub)

    jsonlogic = sub.add_parser("jsonlogic", help="the @w6w/expr JSONLogic evaluator")
    jsonlogic_sub = jsonlogic.add_subparsers(
        dest="jsonlogic_command", metavar="COMMAND", required=True
    )
    evaluate = jsonlogic_sub.add_parser(
        "eval",
        help='evaluate JSON lines {"rule": R, "data": D} from stdin',
        description='Read JSON lines {"rule": R, "data": D} on stdin; write {"value": V} or '
        '{"error": {"type": ..., "message": ...}} per line.',
    )
    evaluate.set_defaults(handler=cmd_jsonlogic_eval)
    suite = jsonlogic_sub.add_parser("suite", help="run a JSON Logic test-suite folder")
    suite.add_argument("folder", metavar="DIR", help="folder with index.json")
    suite.add_argument("--json", action="store_true", help="print a JSON report")
    suite.set_defaults(handler=cmd_jsonlogic_suite)
    differential = jsonlogic_sub.add_parser(
        "differential",
        help="compare with json-logic-js or json-logic-engine on generated rules",
        description="A seeded campaign of generated rules evaluated by wforacle and by a "
        "JavaScript implementation (npm ci --prefix tests/differential); prints the "
        "divergence classes of docs/jsonlogic.md.",
    )
    differential.add_argument(
        "--against",
        choices=("js", "engine"),
        default="js",
        help="the JavaScript implementation: json-logic-js or json-logic-engine",
    )
    differential.add_argument(
        "--examples", type=positive_int, default=1000, help="rules to generate"
    )
    differential.add_argument("--seed", type=int, default=0, help="the campaign's seed")
    differential.add_argument(
        "--typed", action="store_true", help="well-typed rules, on which both must agree exactly"
    )
    differential.add_argument("--json", action="store_true", help="print a JSON report")
    differential.set_defaults(handler=cmd_jsonlogic_differential)

    w6w = sub.add_parser("w6w", help="w6w expressions: resolve with values, parse templates")
    w6w_sub = w6w.add_subparsers(dest="w6w_command", metavar="COMMAND", required=True)
    resolve = w6w_sub.add_parser(
        "resolve",
        help='resolve JSON lines {"scope": {...}, "with": <value>} from stdin',
        description='Read JSON lines {"scope": {...}, "with": <value>} on stdin; write '
        '{"value": <resolved>} or {"error": {"code": ..., "message": ...}} per line.',
    )
    resolve.set_defaults(handler=cmd_w6w_resolve)
    test = w6w_sub.add_parser(
        "test-step",
        help="resolve one step's params against supplied state, as a single-step test",
    )
    test.add_argument("file", metavar="DOC", help="the workflow document")
    test.add_argument("step", metavar="STEP", help="the step id")
    test.add_argument(
        "--state",
        metavar="FILE",
        help='the supplied run scope: {"vars", "steps": {id: {"output"}}, ...}',
    )
    test.add_argument("--json", action="store_true", help="print a JSON report")
    test.set_defaults(handler=cmd_w6w_test_step)
    parse = w6w_sub.add_parser("parse", help="print the parts a {{ }} template parses to")
    parse.add_argument("text", metavar="TEXT", help="the template text")
    parse.add_argument(
        "--mode", choices=("editor", "render"), default="editor", help="the parser mode"
    )
    parse.add_argument("--json", action="store_true", help="print a JSON report")
    parse.set_defaults(handler=cmd_w6w_parse)

    clauses = add("clauses", cmd_clauses, "list catalogued clauses with their coverage")
    clauses.add_argument(
        "--spec",
        choices=catalogues(),  # every catalogue, the Stateful Profile's included
        default=next(iter(SPECIFICATIONS)),
        help="the specification whose catalogue to list",
    )
    clauses.add_argument("--json", action="store_true", help="print a JSON report")
    clauses.add_argument("--tests", metavar="DIR", help="test folder to scan for citations")
    clauses.add_argument(
        "--uncovered", action="store_true", help="list only clauses lacking a rule or a test"
    )
    return parser


class Version(argparse.Action):
    """``--version``: print the installed version and exit.

    As argparse's own version action, which takes the text when the parser
    is built: reading the installed metadata then would cost every command's
    start-up, so it is read only when asked for.
    """

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        """Print ``wforacle VERSION`` and exit 0."""
        print(f"wforacle {_version()}")
        parser.exit()


def _version() -> str:
    # Imported here: importlib.metadata is read only by --version (start-up time).
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("wforacle")
    except PackageNotFoundError:  # pragma: no cover - running from an uninstalled tree
        return "unknown"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    # A command builds large acyclic structures and exits: collect garbage
    # less often (measured in benchmarks/bench_plan.py: ~35% on 100,000 steps).
    gc.set_threshold(100_000, 50, 100)
    _utf8_output()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if getattr(args, "answer_line", None) is not None:
            # A specification's line tool (``wforacle workfile eval``): its answer to one
            # request, the reading of standard input and the exit code the line tools'.
            answer = args.answer_line(args)
            return _answer_lines(
                answer, lambda message: {"error": {"code": "invalid_input", "message": message}}
            )
        return int(args.handler(args))
    except (UsageError, InvalidInput) as exc:
        # InvalidInput: a document, case or input the user must fix, raised below
        # the command that met it (model/diagnostics.py); never a model bug.
        for line in str(exc).splitlines():
            print(f"wforacle: error: {line}", file=sys.stderr)
        return EXIT_USAGE
    except Stopped as exc:
        # A bound of the reference model met where no run or exploration reports it as
        # incomplete (check's trace, a case to judge): wforacle cannot decide (issue 19).
        _end_engines()
        print(f"wforacle: error: cannot decide: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        _end_engines()
        print("wforacle: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:
        _end_engines()
        if os.environ.get("WFORACLE_DEBUG"):
            raise
        print(
            f"wforacle: internal error (a bug in wforacle, not in your input): "
            f"{type(exc).__name__}: {exc}. Re-run with WFORACLE_DEBUG=1 for the traceback.",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


def _utf8_output() -> None:
    r"""Make stdout and stderr UTF-8 whatever a string holds (docs/cli.md, "Output").

    A command-line argument that is not UTF-8 (a file name) reaches Python as
    lone surrogates (PEP 383), which a report may echo; under a UTF-8 locale
    Python would write its raw bytes back.  Such a character is written as a
    ``\udcXX`` escape instead, so the output stays UTF-8 (issue 19).
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def _end_engines() -> None:
    """Kill every engine process a command started, before reporting its failure.

    Only a command that loaded the engine module can have started one, so a
    module not loaded means nothing to end (and nothing more to import on a
    failing path).
    """
    engine = sys.modules.get("wforacle.oracle.engine")
    if engine is not None:
        engine.end_engines()


def run() -> None:
    """Console-script entry point."""
    _hypothesis_home()
    raise SystemExit(main())


def _hypothesis_home() -> None:
    """Keep Hypothesis's files out of the user's working directory.

    Generating text, Hypothesis caches Unicode tables under ``.hypothesis/``
    in the current directory: a stranger found one beside their engine after
    ``fixtures`` and ``fuzz`` (session 26).  The command line points it at
    ``$XDG_CACHE_HOME/wforacle/hypothesis`` (``~/.cache`` when unset), unless
    ``HYPOTHESIS_STORAGE_DIRECTORY`` says otherwise; spawned shard workers
    inherit it.  Campaigns keep no example database (oracle/fuzz.py), so
    nothing there changes what a seed draws.
    """
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        return
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = os.path.join(cache, "wforacle", "hypothesis")
