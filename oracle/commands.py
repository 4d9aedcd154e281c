"""The oracle's commands against engines: fuzz, shrink, fixtures, conform, protocol-selftest.

Each handler takes the parsed arguments and returns the exit code (0 pass,
1 a divergence or fault found, 2 a usage problem); oracle/cli.py wires them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

JSON = Any
EXIT_OK, EXIT_FINDING, EXIT_USAGE = 0, 1, 2
# The bundled example engine (examples/engines/w6w_engine.py), for the README's main job.
EXAMPLE_ENGINE = Path(__file__).resolve().parent.parent / "examples" / "engines" / "w6w_engine.py"
HARNESS_ENGINE = EXAMPLE_ENGINE.with_name("harness_engine.py")


def _engine(args: argparse.Namespace) -> Any:
    from wforacle.oracle.engine import Engine

    bundled = (str(EXAMPLE_ENGINE), str(HARNESS_ENGINE))
    if any(path in args.engine for path in bundled) and not EXAMPLE_ENGINE.is_file():
        raise _usage(
            "the bundled example engines live in the repository's examples/ folder, which this "
            "installation does not have: pass --engine CMD"
        )
    return Engine(args.engine, timeout=args.timeout)


def cmd_fuzz(args: argparse.Namespace) -> int:
    """A seeded campaign: generate, drive, check, shrink, explain, save."""
    from wforacle.oracle.fuzz import campaign, explain, save, terminal_progress

    if args.spec == "harness":
        return _fuzz_harness(args)
    if args.spec != "w6w":
        raise _usage(f"--spec {args.spec}: campaigns exist for w6w and harness")
    engine = _engine(args)
    try:
        result = campaign(
            engine,
            examples=args.examples,
            seed_value=args.seed,
            time_budget=args.time_budget,
            progress=None if args.json else terminal_progress(),
            stop_on_fault=args.stop_on_fault,
        )
    finally:
        engine.stop()
    saved = None
    if result.finding is not None and args.save:
        saved = save(result.finding, Path(args.save))
    faults = [
        {"case": case, "judgement": judgement.to_json()} for case, judgement in result.fault_cases
    ]
    if args.json:
        found = result.finding
        print(
            json.dumps(
                {
                    "examples": result.examples,
                    "seconds": round(result.seconds, 3),
                    "examplesPerSecond": round(result.examples / result.seconds, 1)
                    if result.seconds
                    else None,
                    "faults": result.faults,
                    "faultCases": faults,
                    "finding": None
                    if found is None
                    else {
                        "case": found.case,
                        "judgement": found.judgement.to_json(),
                        "size": found.size,
                        "secondsToFind": round(found.seconds_to_find, 3),
                        "secondsToShrink": round(found.seconds_to_shrink, 3),
                        "saved": str(saved) if saved else None,
                    },
                },
                ensure_ascii=False,
            )
        )
    else:
        rate = result.examples / result.seconds if result.seconds else 0.0
        print(
            f"{result.examples} examples in {result.seconds:.1f} s ({rate:.0f}/s), seed {args.seed}"
        )
        if result.fault_cases:
            case, judgement = result.fault_cases[0]
            assert judgement.fault is not None
            print(
                f"{result.faults} engine fault(s), the engine restarted each time; first: "
                f"{judgement.fault.kind}: {judgement.fault.message}"
            )
            print("  on document:", json.dumps(case["document"], ensure_ascii=False))
        if result.finding is None and not result.fault_cases:
            print("no divergence: every run matched the model")
        elif result.finding is None:
            print("no divergence; rerun with --stop-on-fault to shrink a fault")
        else:
            print(explain(result.finding))
            print("\nminimal document:")
            print(json.dumps(result.finding.case["document"], ensure_ascii=False))
            print("scenario:", json.dumps(result.finding.case["scenario"], ensure_ascii=False))
            print("schedule:", json.dumps(result.finding.case["schedule"]))
            if saved:
                print(f"saved as a regression fixture: {saved}")
    return EXIT_OK if result.finding is None and not result.fault_cases else EXIT_FINDING


def _fuzz_harness(args: argparse.Namespace) -> int:
    """A seeded campaign against a Harness engine (oracle/harness_oracle.py)."""
    from wforacle.oracle.harness_oracle import campaign
    from wforacle.properties.clauses import clause_text

    if args.engine == f"{sys.executable} {EXAMPLE_ENGINE}":
        args.engine = f"{sys.executable} {HARNESS_ENGINE}"
    engine = _engine(args)
    try:
        result = campaign(engine, examples=args.examples, seed_value=args.seed)
    finally:
        engine.stop()
    examples, finding = result.examples, result.finding
    if result.fault_cases:
        case, judgement = result.fault_cases[0]
        assert judgement.fault is not None
        print(
            f"{result.faults} engine fault(s), the engine restarted each time; first: "
            f"{judgement.fault.kind}: {judgement.fault.message}"
        )
        print("  on document:", case["document"])
    if finding is None:
        if result.fault_cases:
            return EXIT_FINDING
        print(f"{examples} examples, seed {args.seed}: every run matched the model")
        return EXIT_OK
    divergence = finding.judgement.divergence
    assert divergence is not None
    saved = None
    if args.save:
        directory = Path(args.save)
        directory.mkdir(parents=True, exist_ok=True)
        saved = directory / f"harness-seed{args.seed}.json"
        saved.write_text(
            json.dumps(
                {"case": finding.case, "finding": finding.judgement.to_json()},
                indent=2,
                sort_keys=True,
            )
            + "\n",
            encoding="utf-8",
        )
    if args.json:
        print(
            json.dumps(
                {
                    "examples": examples,
                    "case": finding.case,
                    "judgement": finding.judgement.to_json(),
                }
            )
        )
        return EXIT_FINDING
    print(
        f"{examples} examples; found after {finding.examples} in {finding.seconds_to_find:.2f} s, "
        f"shrunk in {finding.seconds_to_shrink:.2f} s"
    )
    print(f"DIVERGENCE at event {divergence.index}: {divergence.message}")
    print(f"  engine:    {json.dumps(divergence.observed, ensure_ascii=False)}")
    for event in divergence.permitted[:4]:
        print(f"  permitted: {json.dumps(event, ensure_ascii=False)}")
    for clause in divergence.clauses:
        try:
            print(f"  {clause}: {clause_text(clause)}")
        except KeyError:
            print(f"  {clause}")
    print("\nminimal document:", finding.case["document"])
    print("scenario:", json.dumps(finding.case["scenario"]))
    if saved:
        print(f"saved: {saved}")
    return EXIT_FINDING


def cmd_shrink(args: argparse.Namespace) -> int:
    """Reduce a failing case from a bug report while the engine's divergence persists."""
    from wforacle.oracle.cli import read_json
    from wforacle.oracle.fuzz import Finding, explain, judge_case, model_of, reduce_case, signature
    from wforacle.oracle.harness_commands import is_harness

    if is_harness(None, args.file):
        raise _usage("shrink reads w6w documents; Harness cases shrink inside fuzz --spec harness")
    case = {
        "document": read_json(args.file),
        "scenario": read_json(args.scenario) if args.scenario else {},
        "schedule": read_json(args.schedule) if args.schedule else [],
    }
    try:
        model_of(case)
    except ValueError as exc:
        raise _usage(str(exc)) from None
    engine = _engine(args)
    try:
        first = judge_case(engine, case)
        if first.verdict == "pass":
            print("the engine passes this case: nothing to shrink")
            return EXIT_OK
        wanted = signature(first)

        def still_fails(candidate: JSON) -> bool:
            j = judge_case(engine, candidate)
            return signature(j) == wanted

        import time

        started = time.perf_counter()
        reduced = reduce_case(case, still_fails, budget=args.budget)
        seconds = time.perf_counter() - started
        final = judge_case(engine, reduced)
    finally:
        engine.stop()
    if args.json:
        print(json.dumps({"case": reduced, "judgement": final.to_json()}, ensure_ascii=False))
    else:
        print(explain(Finding(reduced, final, 1, 0.0, seconds)))
        print(json.dumps(reduced, ensure_ascii=False, indent=2))
    return EXIT_FINDING


def cmd_fixtures(args: argparse.Namespace) -> int:
    """Write a deterministic conformance suite."""
    from wforacle.oracle.fixtures import write_suite

    if args.spec not in ("w6w", "harness", "all"):
        raise _usage(f"--spec {args.spec}: fixtures exist for w6w and harness")
    if args.spec == "all":
        for spec, profile in (("w6w", args.profile), ("harness", "harness")):
            written = write_suite(Path(args.out) / spec, args.count, args.seed, profile)
            print(f"wrote {len(written)} {spec} cases to {Path(args.out) / spec}")
        return EXIT_OK
    profile = "harness" if args.spec == "harness" else args.profile
    written = write_suite(Path(args.out), args.count, args.seed, profile)
    print(f"wrote {len(written)} cases to {args.out} (seed {args.seed}, profile {profile})")
    return EXIT_OK


def cmd_conform(args: argparse.Namespace) -> int:
    """Run an engine over a suite and print the pass table."""
    from wforacle.oracle.fixtures import conform, junit

    directory = Path(args.suite)
    if not directory.is_dir():
        raise _usage(f"{args.suite}: not a directory")
    engine = _engine(args)
    try:
        results = conform(engine, directory)
    finally:
        engine.stop()
    if not results:
        raise _usage(f"{args.suite}: no cases (directories with a manifest.json)")
    if args.junit:
        Path(args.junit).write_text(junit(results), encoding="utf-8")
    passed = sum(r.verdict == "pass" for r in results)
    if args.json:
        print(
            json.dumps(
                {
                    "passed": passed,
                    "total": len(results),
                    "cases": [
                        {"case": r.case, "verdict": r.verdict, "detail": r.detail} for r in results
                    ],
                }
            )
        )
    else:
        width = max(len(r.case) for r in results)
        for r in results:
            mark = "PASS" if r.verdict == "pass" else r.verdict.upper()
            print(f"{r.case:<{width}}  {mark:<10} {r.detail}")
        print(f"\n{passed}/{len(results)} passed")
    return EXIT_OK if passed == len(results) else EXIT_FINDING


def cmd_protocol_selftest(args: argparse.Namespace) -> int:
    """Walk an adapter through the protocol, message by message, saying where it departs."""
    from wforacle.oracle.selftest import selftest

    checks = selftest(args.engine, timeout=args.timeout)
    for check in checks:
        print(f"{'ok  ' if check.ok else 'FAIL'} {check.name}: {check.detail}")
    failed = [c for c in checks if not c.ok]
    print(f"\n{len(checks) - len(failed)}/{len(checks)} protocol checks pass")
    return EXIT_OK if not failed else EXIT_FINDING


def _usage(message: str) -> Exception:
    from wforacle.oracle.cli import UsageError

    return UsageError(message)


def add_commands(add: Any) -> None:
    """Register the commands on the CLI's ``add(name, handler, help)``."""

    def engine_option(command: Any, required: bool = True) -> None:
        command.add_argument(
            "--engine",
            metavar="CMD",
            required=required,
            default=None if required else f"{sys.executable} {EXAMPLE_ENGINE}",
            help="the engine's command line (it speaks docs/engine-protocol.md)",
        )
        command.add_argument(
            "--timeout", type=float, default=10.0, help="seconds to wait for one message"
        )

    fuzz = add("fuzz", cmd_fuzz, "a seeded differential campaign against an engine")
    engine_option(fuzz, required=False)
    fuzz.add_argument("--spec", default="w6w", choices=("w6w", "harness"), help="specification")
    fuzz.add_argument("--examples", type=int, default=500, help="examples to try")
    fuzz.add_argument("--time-budget", type=float, help="stop trying new examples after S seconds")
    fuzz.add_argument("--seed", type=int, default=0, help="the campaign's seed")
    fuzz.add_argument(
        "--stop-on-fault",
        action="store_true",
        help="treat an engine fault as the finding and shrink it (default: count and go on)",
    )
    fuzz.add_argument(
        "--save", metavar="DIR", default="wforacle-regressions", help="where findings are saved"
    )
    fuzz.add_argument("--json", action="store_true", help="print a JSON report")

    shrink = add("shrink", cmd_shrink, "reduce a failing case while the divergence persists")
    shrink.add_argument("file", metavar="DOC", help="the workflow document")
    shrink.add_argument("--scenario", metavar="S", help="the scenario")
    shrink.add_argument("--schedule", metavar="FILE", help="a JSON array: the completion order")
    shrink.add_argument("--budget", type=float, default=60.0, help="seconds to spend reducing")
    engine_option(shrink)
    shrink.add_argument("--json", action="store_true", help="print a JSON report")

    fixtures = add("fixtures", cmd_fixtures, "write a deterministic conformance suite")
    fixtures.add_argument("--spec", default="w6w", help="specification (w6w, all)")
    fixtures.add_argument("--out", required=True, metavar="DIR", help="the suite's directory")
    fixtures.add_argument("--count", type=int, default=50, help="number of cases")
    fixtures.add_argument("--seed", type=int, default=0, help="the generation's seed")
    fixtures.add_argument(
        "--profile",
        choices=("core", "full"),
        default="core",
        help="core: plans, strands, retries, routing, meta; full: also the controls",
    )

    conform = add("conform", cmd_conform, "run an engine over a conformance suite")
    conform.add_argument("suite", metavar="DIR", help="a suite written by wforacle fixtures")
    engine_option(conform)
    conform.add_argument("--junit", metavar="FILE", help="also write JUnit XML")
    conform.add_argument("--json", action="store_true", help="print a JSON report")

    selftest = add(
        "protocol-selftest", cmd_protocol_selftest, "check an engine adapter against the protocol"
    )
    engine_option(selftest)
