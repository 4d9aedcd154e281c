"""The oracle's commands against engines: fuzz, shrink, fixtures, conform, protocol-selftest.

Each handler takes the parsed arguments and returns the exit code
(oracle/console.py); oracle/cli.py registers them with ``add_commands``.
Every command is written once over the specification record
(properties/specification.py) that ``--spec`` names or the case shows.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from wforacle.model.diagnostics import InvalidInput
from wforacle.oracle.arguments import (
    command_line,
    folder,
    nonnegative_seconds,
    positive_int,
    positive_seconds,
)
from wforacle.oracle.console import (
    EXIT_FINDING,
    EXIT_OK,
    UsageError,
    emit_json,
    json_text,
    progress_bar,
    read_document,
    read_json,
    specification,
)
from wforacle.oracle.readings import ANY, MODES, Selection, UnknownReading, describe, label
from wforacle.properties.registry import SPECIFICATIONS
from wforacle.properties.specification import CONFORMANCE, Specification, schedule_of

JSON = Any
# The bundled example engines (examples/engines/), for the README's main job.
EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "engines"
DEFAULT = next(iter(SPECIFICATIONS))  # the specification a command takes without --spec


def _engine(args: argparse.Namespace, spec: Specification) -> Any:
    """The engine ``--engine`` names; without it, ``spec``'s bundled example engine."""
    from wforacle.oracle.engine import Engine

    command = args.engine
    if command is None:
        command = f"{sys.executable} {EXAMPLES / spec.example_engine}"
    bundled = [str(EXAMPLES / s.example_engine) for s in SPECIFICATIONS.values()]
    if any(path in command for path in bundled) and not EXAMPLES.is_dir():
        raise UsageError(
            "the bundled example engines live in the repository's examples/ folder, which this "
            "installation does not have: pass --engine CMD"
        )
    return Engine(command, timeout=args.timeout)


def _document_line(document: JSON) -> str:
    """A document on one line: text as it is, JSON compact."""
    return document if isinstance(document, str) else json.dumps(document, ensure_ascii=False)


def reproduce_case(args: argparse.Namespace, engine: str, case: Path) -> str:
    """The command line that judges one saved case again: ``conform CASE --engine CMD``.

    With the options the verdict depends on (``--timeout``, ``--readings``,
    ``--reading``) as the campaign or conformance run had them.  ``fuzz``
    prints it under a finding and ``--report`` shows it (docs/report.md).
    """
    words = ["wforacle", "conform", str(case), "--engine", engine, *_judging(args)]
    return shlex.join(words)


def rerun_campaign(args: argparse.Namespace, engine: str) -> str:
    """The command line that runs the same campaign again (same seed, same examples)."""
    words = ["wforacle", "fuzz", "--spec", args.spec, "--engine", engine, "--seed", str(args.seed)]
    if args.examples != UNBOUNDED_EXAMPLES:
        words += ["--examples", str(args.examples)]
    if args.time_budget is not None:
        words += ["--time-budget", f"{args.time_budget:g}"]
    if args.shrink_allowance is not None:
        words += ["--shrink-allowance", f"{args.shrink_allowance:g}"]
    if args.profile is not None:
        words += ["--profile", args.profile]
    if args.stop_on_fault:
        words.append("--stop-on-fault")
    if args.regressions is not None:
        words += ["--regressions", args.regressions]
    if args.workers not in (None, 1):  # the same shards (docs/cluster.md)
        words += ["--workers", str(args.workers)]
    if args.cluster is not None:
        words += ["--cluster", args.cluster]
    return shlex.join([*words, *_judging(args)])


def _judging(args: argparse.Namespace) -> list[str]:
    """The options of ``fuzz`` and ``conform`` a verdict depends on, where not the defaults."""
    words = [] if args.timeout == 10.0 else ["--timeout", f"{args.timeout:g}"]
    if args.readings != ANY:
        words += ["--readings", args.readings]
    for pin in args.reading:
        words += ["--reading", pin]
    return words


def _write_report(args: argparse.Namespace, page: Callable[[], str]) -> Path | None:
    """Write ``--report DIR``'s page, if asked; its path.  UsageError when it cannot be written."""
    if not args.report:
        return None
    from wforacle.oracle.report import write  # start-up time: Jinja2, graphviz

    try:
        return write(Path(args.report), page())
    except OSError as exc:
        raise UsageError(
            f"--report {args.report}: cannot write the report: {exc.strerror or exc}"
        ) from None


DEFAULT_EXAMPLES = 500  # fuzz without --examples or --time-budget
UNBOUNDED_EXAMPLES = 10**9  # fuzz --time-budget S alone: the budget ends the search


def cmd_fuzz(args: argparse.Namespace) -> int:
    """A seeded campaign: generate, drive, check, shrink, reduce, explain, save."""
    from wforacle.oracle.fuzz import (
        HANG_LIMIT,
        SHRINK_ALLOWANCE,
        Campaign,
        campaign,
        explain,
        replay_regressions,
        save,
        save_unshrunk,
    )

    args.spec = _spec_named(args.spec, args.profile)
    spec = specification(args.spec)
    if args.examples is None:
        # --time-budget alone bounds the campaign by time (a stranger's 120 s budget had
        # stopped at the default 500 examples in 2.7 s).
        args.examples = DEFAULT_EXAMPLES if args.time_budget is None else UNBOUNDED_EXAMPLES
    allowance = SHRINK_ALLOWANCE if args.shrink_allowance is None else args.shrink_allowance
    _known_profile(spec, args.profile)
    chosen = selection(args, spec)
    engine = _engine(args, spec)
    first_saved: dict[str, Path] = {}

    def keep_first(case: Any, judgement: Any) -> None:
        # Saved the moment it is seen, before shrinking: nothing later can lose it.
        if args.save:
            first_saved["path"] = save_unshrunk(spec, case, judgement, Path(args.save))

    replayed, sharded = None, None
    try:
        if args.regressions is not None:
            replayed = replay_regressions(spec, engine, Path(args.regressions), chosen)
        if replayed is not None and replayed.finding is not None:
            result = Campaign(0, replayed.seconds, replayed.finding, 0)
        elif args.workers not in (None, 1) or args.cluster is not None:
            sharded = _fuzz_shards(args, spec, chosen, engine.command)
            result = sharded.campaign
            if args.save and sharded.first_seen is not None:
                case, judgement = sharded.first_seen
                first_saved["path"] = save_unshrunk(spec, case, judgement, Path(args.save))
        else:
            total = None if args.examples == UNBOUNDED_EXAMPLES else args.examples
            with progress_bar("examples", total, quiet=args.json) as update:
                result = campaign(
                    spec,
                    engine,
                    examples=args.examples,
                    seed_value=args.seed,
                    time_budget=args.time_budget,
                    reduce_budget=allowance,
                    progress=update,
                    stop_on_fault=args.stop_on_fault,
                    first_seen=keep_first,
                    cases=None if args.profile is None else spec.suites[args.profile](),
                    selection=chosen,
                )
    finally:
        engine.stop()
    saved, existed = None, False
    if result.finding is not None and args.save:
        saved, existed = save(result.finding, Path(args.save))
    reproduce = []
    if saved is not None:
        again = reproduce_case(args, engine.command, saved)
        reproduce.append(("judge the saved case again", again))
    reproduce.append(("run the campaign again", rerun_campaign(args, engine.command)))

    def page() -> str:
        from wforacle.oracle.report import campaign_page  # start-up time

        asked = [
            ("engine", engine.command),
            ("seed", str(args.seed)),
            (
                "examples asked",
                "no cap" if args.examples == UNBOUNDED_EXAMPLES else str(args.examples),
            ),
            ("time budget", "none" if args.time_budget is None else f"{args.time_budget:g} s"),
            ("profile", args.profile or "the campaign's default"),
            ("readings", chosen.mode),
        ]
        if saved is not None:
            asked.append(("saved as", str(saved)))
        table = reading_table(result.readings, chosen)
        return campaign_page(
            spec, result, asked, reproduce if result.finding else (), table, chosen.options()
        )

    report = _write_report(args, page)
    others = _other_findings(sharded, args.save)
    faults = [
        {"case": case, "judgement": judgement.to_json()} for case, judgement in result.fault_cases
    ]
    if args.json:
        found = result.finding
        print(
            json_text(
                {
                    "spec": spec.name,
                    "examples": result.examples,
                    "seconds": round(result.seconds, 3),
                    "examplesPerSecond": round(result.examples / result.seconds_searching, 1)
                    if result.seconds_searching
                    else None,
                    "searching": {
                        "examples": result.examples,
                        "seconds": round(result.seconds_searching, 3),
                    },
                    "shrinking": {
                        "runs": result.shrink_runs,
                        "seconds": round(result.seconds_shrinking, 3),
                    },
                    "engineSeconds": round(result.engine_seconds, 3),
                    "budget": {
                        "seconds": args.time_budget,
                        "spent": result.budget_spent,
                        "shrinkAllowance": allowance,
                    },
                    "faults": result.faults,
                    "hangsStopped": result.hangs_stopped,
                    "faultCases": faults,
                    "readingMode": chosen.mode,
                    "readingTable": reading_table(result.readings, chosen),
                    "readings": [found.to_json() for found in result.readings],
                    "coverage": result.coverage.to_json() if result.coverage else None,
                    "regressions": None if replayed is None else regressions_json(replayed),
                    "finding": None
                    if found is None
                    else {
                        "case": found.case,
                        "judgement": found.judgement.to_json(),
                        "size": found.size,
                        "examplesToFind": found.examples,
                        "secondsToFind": round(found.seconds_to_find, 3),
                        "secondsToShrink": round(found.seconds_to_shrink, 3),
                        # The shrink allowance ended shrinking: the case may hold more.
                        "shrinkStopped": result.shrink_stopped,
                        "nondeterministic": result.nondeterministic,
                        "saved": str(saved) if saved else None,
                        "savedUnshrunk": str(first_saved["path"]) if first_saved else None,
                        "reproduce": reproduce_case(args, engine.command, saved) if saved else None,
                    },
                    "report": str(report) if report else None,
                    **({} if sharded is None else shards_json(sharded, others)),
                },
            )
        )
    else:
        if replayed is not None:
            print(regressions_line(replayed, args.regressions))
        rate = result.examples / result.seconds_searching if result.seconds_searching else 0.0
        summary = (
            f"{result.examples} examples in {result.seconds_searching:.1f} s ({rate:.0f}/s) "
            f"of {args.profile or spec.name} cases{_spec_hint(spec)}"
        )
        if replayed is not None and replayed.finding is not None:
            summary = "no search: a saved regression fails"
        elif result.finding is not None:
            # Sharded, the finding's example index is its shard's, not the merged count's.
            where = "" if sharded is None else f" of shard {sharded.finder}"
            summary += (
                f", the first finding at example {result.finding.examples}{where}; then "
                f"{result.shrink_runs} shrinking runs in {result.seconds_shrinking:.1f} s"
            )
        if result.budget_spent:
            summary += f"; the {args.time_budget:g} s budget stopped the search"
        if result.hangs_stopped:
            summary += (
                f"; the engine hung {HANG_LIMIT} times (each waits out --timeout), so the "
                "search stopped: the first fault below says where"
            )
        print(f"{summary}; seed {args.seed}")
        if sharded is not None:
            for line in shards_lines(sharded, others):
                print(line)
        if result.fault_cases:
            case, judgement = result.fault_cases[0]
            assert judgement.fault is not None
            print(
                f"{result.faults} engine fault(s), the engine restarted each time; first: "
                f"{judgement.fault.kind}: {judgement.fault.message}"
            )
            print("  on document:", _document_line(case["document"]))
            print("  scenario:", json.dumps(case.get("scenario", {}), ensure_ascii=False))
            print("  schedule:", json.dumps(case.get("schedule", [])))
        for line in reading_lines(result.readings, chosen):
            print(line)
        if result.coverage is not None:
            for line in result.coverage.lines():
                print(line)
            besides = [name for name in spec.suites if name != _profile(spec, args.profile)]
            if result.coverage.never_reached() and besides:
                # A profile draws its own shapes: what it never reached, another may draw
                # (a --profile workfile campaign lists the Stateful Profile's WFS-* clauses).
                print(f"  (other profiles draw other shapes: --profile {', '.join(besides)})")
        if result.finding is None and not result.fault_cases:
            print("no divergence: every run matched the model")
        elif result.finding is None:
            print(
                "no divergence; the engine's first fault above is the finding (its case "
                "reduced to what the fault needs, unless it is a hang)"
            )
        else:
            if result.nondeterministic:
                print(f"NONDETERMINISTIC ENGINE: {result.nondeterministic}")
            print(explain(result.finding))
            if result.shrink_stopped:
                print(
                    f"\nSHRINKING STOPPED at its {allowance:g} s allowance: the case "
                    "below may hold more than the bug needs (rerun with a larger "
                    "--shrink-allowance, or reduce the saved case with wforacle shrink)"
                )
            print("\nminimal document:")
            print(_document_line(result.finding.case["document"]))
            for part in spec.layout.shown:
                for name, text in sorted((result.finding.case.get(part) or {}).items()):
                    print(f"{part} {name}:")
                    print(_document_line(text))
            print("scenario:", json.dumps(result.finding.case["scenario"], ensure_ascii=False))
            print("schedule:", json.dumps(result.finding.case.get("schedule", [])))
            for part in spec.layout.inline:
                if part in result.finding.case:
                    print(f"{part}:", json.dumps(result.finding.case[part], ensure_ascii=False))
            if saved:
                again = " (the same case an earlier run saved; unchanged)" if existed else ""
                print(f"saved as a regression fixture: {saved}{again}")
            if first_saved:
                print(f"the case as first found, before shrinking: {first_saved['path']}")
            if saved:
                print(f"reproduce: {reproduce_case(args, engine.command, saved)}")
        if report:
            print(f"HTML report: {report}")
    return EXIT_OK if result.finding is None and not result.fault_cases else EXIT_FINDING


def _fuzz_shards(
    args: argparse.Namespace, spec: Specification, chosen: Selection, engine: str
) -> Any:
    """``fuzz --workers N`` / ``--cluster ADDRESS``: the campaign in shards (docs/cluster.md)."""
    # Lazy, as cmd_fuzz's own imports: the shards import Hypothesis through oracle/fuzz.py.
    from wforacle.oracle import shards

    job = shards.Job(
        spec.name,
        engine,
        timeout=args.timeout,
        time_budget=args.time_budget,
        **({} if args.shrink_allowance is None else {"shrink_allowance": args.shrink_allowance}),
        stop_on_fault=args.stop_on_fault,
        profile=args.profile,
        pinned=dict(chosen.pinned),
        mode=chosen.mode,
        unshrunk=args.save if args.cluster is None else None,
    )

    def progress(part: Any, done: int, n: int) -> None:
        print(shards.progress_line(part, done, n), file=sys.stderr, flush=True)

    started = time.perf_counter()
    try:
        if args.cluster is not None:
            _, summaries = shards.run_cluster(
                args.cluster, job, args.seed, args.examples, args.workers, progress
            )
        else:
            planned = shards.plan(args.seed, args.examples, args.workers)
            summaries = shards.run_local(job, planned, progress)
    except shards.CannotShard as exc:
        raise UsageError(str(exc)) from None
    merged = shards.merge(spec, summaries)
    wall = time.perf_counter() - started
    return attrs.evolve(merged, campaign=attrs.evolve(merged.campaign, seconds=wall))


def _other_findings(sharded: Any, save_to: str | None) -> list[tuple[int, Any, Path | None]]:
    """The other shards' findings (shard, finding, where saved), each saved under ``--save``."""
    from wforacle.oracle.fuzz import save  # lazy: see cmd_fuzz

    if sharded is None:
        return []
    return [
        (k, found, save(found, Path(save_to))[0] if save_to else None)
        for k, found in sharded.others
    ]


def shards_json(sharded: Any, others: list[tuple[int, Any, Path | None]]) -> dict[str, JSON]:
    """``fuzz --json``'s members for a sharded campaign: the shards and their other findings."""
    parts = sharded.shards
    return {
        "shards": [
            {
                "seed": s["seed"],
                "examples": s["examples"],
                "planned": s["planned"],
                "finding": s["finding"] is not None,
                "seconds": round(s["seconds"], 3),
            }
            for s in parts
        ],
        "findingShard": sharded.finder,
        "otherFindings": [
            {
                "shard": k,
                "seed": parts[k]["seed"],
                "case": found.case,
                "judgement": found.judgement.to_json(),
                "size": found.size,
                "examplesToFind": found.examples,
                "saved": str(saved) if saved else None,
            }
            for k, found, saved in others
        ],
    }


def shards_lines(sharded: Any, others: list[tuple[int, Any, Path | None]]) -> list[str]:
    """The text report's shards: one line each, then the other shards' findings."""
    from wforacle.oracle.shards import other_line  # lazy: see _fuzz_shards

    n = len(sharded.shards)
    lines = [f"{n} shards (docs/cluster.md), each reproducible alone as a campaign:"]
    for s in sharded.shards:
        mark = ""
        if s["finding"] is not None:
            mark = "; the finding below" if s["shard"] == sharded.finder else "; a finding"
        lines.append(
            f"  shard {s['shard']}: --seed {s['seed']} --examples {s['planned']}: "
            f"{s['examples']} examples in {s['seconds']:.1f} s{mark}"
        )
    best = sharded.campaign.finding
    for k, found, saved in others:
        if best is not None and found.case == best.case:
            lines.append(f"  shard {k}'s finding: the same minimal case as shard {sharded.finder}")
            continue
        lines.append(f"  shard {k}'s finding: {other_line(found)}")
        if saved:
            lines.append(f"    saved as a regression fixture: {saved}")
    return lines


def regressions_json(replayed: Any) -> dict[str, JSON]:
    """``fuzz --json``'s account of the regression fixtures replayed first."""
    return {
        "replayed": replayed.cases,
        "failed": replayed.name,
        "skipped": list(replayed.skipped),
        "seconds": round(replayed.seconds, 3),
    }


def regressions_line(replayed: Any, directory: Path) -> str:
    """The text line: how many fixtures were replayed, and the one the engine failed."""
    line = f"replayed {replayed.cases} regression fixture(s) from {directory} first"
    if replayed.name is not None:
        line += f": the engine fails {replayed.name} (not searched further)"
    else:
        line += ": the engine passes them all"
    if replayed.skipped:
        line += f"; skipped {len(replayed.skipped)} of another specification or unreadable"
    return line


def reading_table(readings: Any, chosen: Selection) -> dict[str, dict[str, JSON]]:
    """Per assumption: the reading in force and how many examples needed each other one.

    The campaign's answer to "which reading does this engine take?" (issue 18):
    an assumption no example needed another reading of is reported with none.
    """
    table: dict[str, dict[str, JSON]] = {}
    primary = chosen.primary()
    for reading in chosen.spec.readings:
        pinned = reading.dest in chosen.pinned
        needed: dict[str, int] = {}
        for found in readings:
            for assumption, name in found.departures:
                if assumption == label(reading):
                    needed[name] = needed.get(name, 0) + found.examples
        table[label(reading)] = {
            "model": reading.name(primary[reading.dest]),
            "pinned": pinned,
            "needed": needed,
        }
    return table


def reading_lines(readings: Any, chosen: Selection) -> list[str]:
    """The campaign's readings table: which readings the engine's runs needed, and where."""
    lines = []
    for assumption, row in reading_table(readings, chosen).items():
        if row["needed"]:
            taken = ", ".join(f"{n!r} by {k} example(s)" for n, k in row["needed"].items())
            lines.append(f"  {assumption}: the engine's runs needed {taken}")
        else:
            how = "pinned" if row["pinned"] else "no example needed another"
            lines.append(f"  {assumption}: {row['model']!r} ({how})")
    if not lines:
        return []
    lines.insert(0, f"readings (--readings {chosen.mode}; docs/readings.md):")
    verb = "passed under" if chosen.mode == ANY else "DEPEND ON (not bugs)"
    for found in readings:
        under = describe(found.departures)
        lines.append(
            f"  {found.examples} example(s) {verb} {under}; the first, reduced to what "
            "the reading needs:"
        )
        lines += _case_lines(found.case, "    ")
    return lines


def _case_lines(case: JSON, indent: str) -> list[str]:
    """A case as a report shows it: its document (every line indented), scenario, schedule.

    What judging it again needs (``wforacle shrink DOC --scenario FILE
    --schedule FILE --engine CMD`` reads the three); ``--json`` holds it too.
    """
    document = case.get("document")
    text = document if isinstance(document, str) else json.dumps(document, indent=2)
    lines = [f"{indent}document:"]
    lines += [f"{indent}  {line}" for line in str(text).rstrip("\n").splitlines()]
    for member in ("scenario", "schedule", "replay"):
        if case.get(member) not in (None, {}, []) or member == "scenario":
            value = json.dumps(case.get(member) or {}, ensure_ascii=False, sort_keys=True)
            lines.append(f"{indent}{member}: {value}")
    return lines


def cmd_shrink(args: argparse.Namespace) -> int:
    """Reduce a failing case from a bug report while the engine's divergence persists."""
    from wforacle.model.diagnostics import InvalidInput
    from wforacle.oracle.fuzz import (
        Finding,
        explain,
        explained,
        judge_case,
        reduce_by_rule,
        reduce_case,
        signature,
    )

    spec, document = read_document(args.spec, args.file)
    if isinstance(document, bytes):  # XML as read: the run message carries text (issue 19)
        try:
            document = document.decode("utf-8")
        except UnicodeDecodeError:
            raise UsageError(f"{args.file}: not UTF-8") from None
    case = {
        "document": document,
        "scenario": read_json(args.scenario) if args.scenario else {},
        "schedule": read_json(args.schedule) if args.schedule else [],
    }
    try:
        case["schedule"] = schedule_of(case["schedule"], args.schedule or "--schedule")
        case.update(spec.case_inputs(vars(args)))
        spec.prepare(case, None)
    except InvalidInput as exc:
        raise UsageError(str(exc)) from None
    chosen = selection(args, spec)
    engine = _engine(args, spec)
    try:
        first = judge_case(spec, engine, case, selection=chosen)
        if first.verdict == "pass":
            if args.json:  # issue 19: --json output is always JSON
                print(json_text({"shrunk": False, "reason": "the engine passes this case"}))
            else:
                print("the engine passes this case: nothing to shrink")
            return EXIT_OK
        wanted = signature(first)

        def still_fails(candidate: JSON) -> bool:
            return signature(judge_case(spec, engine, candidate, selection=chosen)) == wanted

        started = time.perf_counter()
        reduced = reduce_case(spec, case, still_fails, budget=args.budget)
        judged = judge_case(spec, engine, reduced, selection=chosen)
        left = max(0.0, args.budget - (time.perf_counter() - started))
        reduced, judged = reduce_by_rule(
            spec, engine, reduced, judged, left, chosen.options(), chosen
        )
        seconds = time.perf_counter() - started
        final = explained(spec, reduced, judged, chosen.options())
    finally:
        engine.stop()
    if args.json:
        print(json_text({"case": reduced, "judgement": final.to_json()}))
    else:
        print(explain(Finding(spec, reduced, final, 1, 0.0, seconds), found=False))
        print(json.dumps(reduced, ensure_ascii=False, indent=2))
    return EXIT_FINDING


def cmd_fixtures(args: argparse.Namespace) -> int:
    """Write a deterministic conformance suite (``--spec all``: one per specification)."""
    from wforacle.oracle.fixtures import write_suite

    out = Path(args.out)
    blocked = any(p.exists() and not p.is_dir() for p in out.parents)  # under a file
    if args.out == "" or (out.exists() and not out.is_dir()) or out.is_symlink() or blocked:
        # A file, a device, '' or a link (dangling or not): the suite replaces a folder
        # it owns and nothing else (issue 19: these were internal errors).
        raise UsageError(f"--out {args.out!r}: not a folder wforacle can write a suite into")
    args.spec = _spec_named(args.spec, args.profile)
    if args.spec == "all":
        for spec in SPECIFICATIONS.values():
            out = Path(args.out) / spec.name
            try:
                written = write_suite(
                    spec, out, args.count, args.seed, _profile(spec, args.profile)
                )
            except InvalidInput as exc:  # a specification without execution yet
                print(f"no {spec.name} cases: {exc}")
                continue
            print(f"wrote {len(written)} {spec.name} cases to {out}")
        return EXIT_OK
    spec = specification(args.spec)
    profile = _profile(spec, args.profile)
    written = write_suite(spec, Path(args.out), args.count, args.seed, profile)
    print(f"wrote {len(written)} cases to {args.out} (seed {args.seed}, profile {profile})")
    return EXIT_OK


def _spec_named(asked: str | None, profile: str | None) -> str:
    """``--spec`` as given, else the specification whose profile ``--profile`` names, else w6w.

    Profile names are unique across specifications (``conformance`` is every
    specification's, so it names none): ``fuzz --profile workfile-stateful``
    is a Workfile campaign without ``--spec workfile``.  Before, ``fuzz
    --profile workfile`` was refused with "w6w has no profile 'workfile'",
    and ``fixtures --profile workfile-stateful`` wrote w6w's core cases.
    """
    if asked is not None:
        return asked
    owners = [spec.name for spec in SPECIFICATIONS.values() if profile in spec.suites]
    return owners[0] if len(owners) == 1 else DEFAULT


def _known_profile(spec: Specification, asked: str | None) -> None:
    """A usage error when ``asked`` (``--profile``) is not one of ``spec``'s profiles."""
    if asked is not None and asked not in spec.suites:
        raise UsageError(
            f"{spec.name} has no profile {asked!r} (its profiles: {', '.join(spec.suites)})"
        )


def _profile(spec: Specification, asked: str | None) -> str:
    """The profile asked for where ``spec`` has it, else (none asked, too) its first.

    ``conformance`` is every specification's hand-written cases.
    """
    if asked == CONFORMANCE and spec.conformance():
        return asked
    return asked if asked is not None and asked in spec.suites else next(iter(spec.suites))


def cmd_conform(args: argparse.Namespace) -> int:
    """Run an engine over a suite and print the pass table."""
    from wforacle.oracle.fixtures import conform, suite_cases

    directory = Path(args.suite)
    if not directory.is_dir():
        raise UsageError(f"{args.suite}: not a directory")
    try:
        cases = suite_cases(directory)
    except InvalidInput as exc:  # a spoilt suite.json (issue 19)
        raise UsageError(str(exc)) from None
    if not cases:
        raise UsageError(f"{args.suite}: no cases (directories with a manifest.json)")
    engine = _engine(args, specification(DEFAULT))
    if args.junit:
        selection(args, specification(DEFAULT))  # a pin that names no reading: exit 2 now
        results = _conform_junit(engine, directory, Path(args.junit), args)
    else:
        try:
            with progress_bar("cases", len(cases), quiet=args.json) as update:
                results = conform(engine, directory, lambda spec: selection(args, spec), update)
        finally:
            engine.stop()
    passed = sum(r.verdict in ("pass", "reading") for r in results)

    def page() -> str:
        from wforacle.oracle.report import conformance_page  # start-up time

        def rerun(case: Path) -> list[tuple[str, str]]:
            return [("judge this case again", reproduce_case(args, engine.command, case))]

        asked = [("engine", engine.command), ("readings", args.readings)]
        return conformance_page(
            directory, cases, results, asked, rerun, lambda spec: selection(args, spec).options()
        )

    report = _write_report(args, page)
    if args.json:
        print(
            json_text(
                {
                    "passed": passed,
                    "total": len(results),
                    "report": str(report) if report else None,
                    "cases": [
                        {
                            "case": r.case,
                            "verdict": r.verdict,
                            "detail": r.detail,
                            **({"explanation": list(r.explanation)} if r.explanation else {}),
                        }
                        for r in results
                    ],
                }
            )
        )
    else:
        width = max(len(r.case) for r in results)
        for r in results:
            mark = "PASS" if r.verdict == "pass" else r.verdict.upper()
            print(f"{r.case:<{width}}  {mark:<10} {r.detail}")
            for line in r.explanation:
                print(f"{'':<{width}}    {line}")
        print(f"\n{passed}/{len(results)} passed")
        if report:
            print(f"HTML report: {report}")
    return EXIT_OK if passed == len(results) else EXIT_FINDING


def _conform_junit(engine: Any, directory: Path, junit: Path, args: argparse.Namespace) -> Any:
    """Run the suite through pytest and the plugin, and copy pytest's JUnit XML to ``junit``.

    One writer of JUnit XML, pytest's, for ``conform --junit`` and ``pytest
    --wforacle-suite … --junitxml`` alike (docs/pytest-plugin.md).  pytest
    writes into a folder of its own first, so a ``--junit`` that cannot be
    written is a usage error as before (pytest would make missing folders).
    """
    import tempfile

    from wforacle.oracle.pytest_plugin import run_suite

    with tempfile.TemporaryDirectory() as scratch:
        written = Path(scratch) / "junit.xml"
        results = run_suite(
            engine.command, directory, engine.timeout, written, args.readings, tuple(args.reading)
        )
        try:
            junit.write_bytes(written.read_bytes())
        except OSError as exc:  # a directory, a missing folder, a full disk (issue 19)
            raise UsageError(f"--junit {junit}: cannot write: {exc.strerror or exc}") from None
    return results


def _profiles() -> str:
    """Each specification's fixture profiles, for the help text."""
    parts = [f"{s.name}: {', '.join(s.suites)}" for s in SPECIFICATIONS.values()]
    return f"{'; '.join(parts)}"


def cmd_protocol_selftest(args: argparse.Namespace) -> int:
    """Walk an adapter through the protocol, message by message, saying where it departs."""
    from wforacle.oracle.selftest import selftest

    spec = specification(_spec_named(args.spec, args.profile))
    _known_profile(spec, args.profile)
    checks = selftest(spec, args.engine, timeout=args.timeout, profile=args.profile)
    for check in checks:
        print(f"{'ok  ' if check.ok else 'FAIL'} {check.name}: {check.detail}")
    failed = [c for c in checks if not c.ok]
    print(
        f"\n{len(checks) - len(failed)}/{len(checks)} protocol checks pass "
        f"({spec.name}{_spec_hint(spec)})"
    )
    return EXIT_OK if not failed else EXIT_FINDING


def _spec_hint(spec: Specification) -> str:
    """The other specifications' --spec, when a command ran the default one (w6w).

    A stranger's Workfile executor was run with w6w cases by a command that
    did not name --spec (session 23): the summary says which cases it ran.
    """
    others = ", ".join(f"--spec {name}" for name in SPECIFICATIONS if name != spec.name)
    return f"; {others} for the others" if spec.name == DEFAULT else ""


def add_readings(command: Any, modes: bool = True) -> None:
    """``--reading ID=NAME`` pins (and, where a verdict is judged, ``--readings MODE``)."""
    command.add_argument(
        "--reading",
        action="append",
        default=[],
        metavar="ID=NAME",
        help="pin an assumption's reading (A-50=edges; `wforacle readings` lists them); repeatable",
    )
    if modes:
        command.add_argument(
            "--readings",
            choices=MODES,
            default=ANY,
            help="any (default): a run some recorded reading permits passes, and the "
            "readings it needed are reported; default: only the model's readings (and the "
            "pinned ones) pass, and a run another reading permits is reported as "
            "depending on that reading, never as a bug (docs/readings.md)",
        )


def selection(args: argparse.Namespace, spec: Specification) -> Selection:
    """The readings ``args`` select for ``spec``; a usage error for a pin that names none."""
    try:
        return Selection.of(
            spec, getattr(args, "reading", ()), getattr(args, "readings", ANY), vars(args)
        )
    except UnknownReading as exc:
        raise UsageError(str(exc)) from None


def add_inputs(command: Any) -> None:
    """The files documents are read with, per specification (Workfile: --manifests DIR)."""
    for spec in SPECIFICATIONS.values():
        for given in spec.inputs:
            command.add_argument(
                given.flag,
                dest=given.dest,
                metavar=given.metavar,
                help=f"{spec.name}: {given.help}",
            )


def report_option(command: Any) -> None:
    """``--report DIR``: an HTML page of the run (docs/report.md)."""
    command.add_argument(
        "--report",
        metavar="DIR",
        type=folder,
        help="also write a self-contained HTML report, DIR/index.html (docs/report.md)",
    )


def add_commands(add: Any) -> None:
    """Register the commands on the CLI's ``add(name, handler, help)``."""
    names = list(SPECIFICATIONS)

    def engine_option(command: Any, required: bool = True) -> None:
        command.add_argument(
            "--engine",
            metavar="CMD",
            type=command_line,
            required=required,
            default=None,
            help="the engine's command line (it speaks docs/engine-protocol.md)"
            + ("" if required else "; default: the specification's bundled example engine"),
        )
        command.add_argument(
            "--timeout", type=positive_seconds, default=10.0, help="seconds to wait for one message"
        )

    fuzz = add("fuzz", cmd_fuzz, "a seeded differential campaign against an engine")
    engine_option(fuzz, required=False)
    fuzz.add_argument(
        "--shrink-allowance",
        type=nonnegative_seconds,
        default=None,
        metavar="S",
        help="seconds shrinking may take after a finding (default 30; 0: none, the case "
        "as first found); a finding whose shrinking it stopped says so",
    )
    fuzz.add_argument(
        "--spec",
        choices=names,
        help=f"specification (default: the one --profile names, else {DEFAULT})",
    )
    fuzz.add_argument(
        "--examples",
        type=positive_int,
        help=f"examples to try (default {DEFAULT_EXAMPLES}; with --time-budget alone, no limit)",
    )
    fuzz.add_argument(
        "--time-budget", type=positive_seconds, help="stop trying new examples after S seconds"
    )
    fuzz.add_argument("--seed", type=int, default=0, help="the campaign's seed")
    fuzz.add_argument(
        "--regressions",
        metavar="DIR",
        type=folder,
        help="replay the regression fixtures saved in DIR (an earlier --save) before searching; "
        "the first the engine fails is the finding",
    )
    fuzz.add_argument(
        "--stop-on-fault",
        action="store_true",
        help="treat an engine fault as the finding and shrink it (default: count and go on)",
    )
    fuzz.add_argument(
        "--save",
        metavar="DIR",
        type=folder,
        default="wforacle-regressions",
        help="where findings are saved",
    )
    fuzz.add_argument(
        "--profile",
        choices=sorted({p for s in SPECIFICATIONS.values() for p in s.suites}),
        help="draw the cases of this fixture profile (the specification's own; e.g. "
        "workfile-stateful: state-form Workfiles) instead of the campaign's default mix",
    )
    fuzz.add_argument(
        "--workers",
        type=positive_int,
        metavar="N",
        help="run the campaign as N seeded shards, in N processes of this machine (or on "
        "--cluster), merged deterministically: same seed and N, same findings (docs/cluster.md); "
        "default 1, or with --cluster one shard per worker thread",
    )
    fuzz.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="run the shards on the Dask distributed scheduler at ADDRESS "
        "(tcp://host:8786; pip install 'wforacle[cluster]'; docs/cluster.md)",
    )
    add_readings(fuzz)
    fuzz.add_argument("--json", action="store_true", help="print a JSON report")
    report_option(fuzz)

    shrink = add("shrink", cmd_shrink, "reduce a failing case while the divergence persists")
    shrink.add_argument("file", metavar="DOC", help="the document")
    shrink.add_argument("--spec", choices=names, help="specification (default: detected)")
    shrink.add_argument("--scenario", metavar="S", help="the scenario")
    shrink.add_argument("--schedule", metavar="FILE", help="a JSON array: the completion order")
    shrink.add_argument(
        "--budget", type=positive_seconds, default=60.0, help="seconds to spend reducing"
    )
    add_inputs(shrink)
    add_readings(shrink)
    engine_option(shrink)
    shrink.add_argument("--json", action="store_true", help="print a JSON report")

    fixtures = add("fixtures", cmd_fixtures, "write a deterministic conformance suite")
    fixtures.add_argument(
        "--spec",
        choices=[*names, "all"],
        help=f"specification, or all (default: the one --profile names, else {DEFAULT})",
    )
    fixtures.add_argument("--out", required=True, metavar="DIR", help="the suite's directory")
    fixtures.add_argument("--count", type=positive_int, default=50, help="number of cases")
    fixtures.add_argument("--seed", type=int, default=0, help="the generation's seed")
    profiles = sorted({p for s in SPECIFICATIONS.values() for p in s.suites} | {CONFORMANCE})
    fixtures.add_argument(
        "--profile",
        choices=profiles,
        help=f"the suite's profile ({_profiles()}; default: the specification's first); "
        "a specification without the profile asked for takes its first",
    )

    conform = add("conform", cmd_conform, "run an engine over a conformance suite")
    conform.add_argument("suite", metavar="DIR", help="a suite written by wforacle fixtures")
    engine_option(conform)
    add_readings(conform)
    conform.add_argument("--junit", metavar="FILE", help="also write JUnit XML")
    conform.add_argument("--json", action="store_true", help="print a JSON report")
    report_option(conform)

    selftest = add(
        "protocol-selftest", cmd_protocol_selftest, "check an engine adapter against the protocol"
    )
    selftest.add_argument(
        "--spec",
        choices=names,
        help="the specification the engine implements (default: the one --profile names, "
        f"else {DEFAULT})",
    )
    selftest.add_argument(
        "--profile",
        choices=sorted({p for s in SPECIFICATIONS.values() for p in s.suites}),
        help="only the checks of this fixture profile (workfile-stateful: state-form runs, "
        "for an executor of the Stateful Profile alone)",
    )
    engine_option(selftest)


def cmd_review(args: argparse.Namespace, command: Callable[[list[str]], int]) -> int:
    """The reviewer's view: catalogue coverage, assumptions, and every finding re-checked."""
    from wforacle.oracle.coverage import CATALOGUES
    from wforacle.oracle.review import assumptions, checked, default_docs, review_specs
    from wforacle.properties.clauses import Coverage, default_tests_dir

    docs = Path(args.docs) if args.docs else default_docs()
    if docs is None or not (docs / "spec-review.md").is_file():
        where = "the source checkout's docs/" if docs is None else str(docs)
        raise UsageError(f"--docs {where}: no spec-review.md there (pass --docs DIR)")
    tests = default_tests_dir()
    recorded = (docs / "assumptions.md").read_text("utf-8")
    report: list[dict[str, Any]] = []
    for name in review_specs(args.spec):
        spec = specification(name)
        catalogues = {c: Coverage.compute(c, tests).figures() for c in CATALOGUES[name]}
        found = [c.to_json() for c in checked(docs, [name], command)]
        report.append(
            {
                "spec": name,
                "catalogues": catalogues,
                "assumptions": [{"id": a, "title": t} for a, t in assumptions(recorded, name)],
                "readings": [label(r) for r in spec.readings],
                "findings": found,
            }
        )
    failing = [f for part in report for f in part["findings"] if f["status"] != "holds"]
    if args.json:
        emit_json({"specs": report, "holds": not failing})
        return EXIT_FINDING if failing else EXIT_OK
    for part in report:
        print(f"{part['spec']}:")
        for catalogue, figures in part["catalogues"].items():
            print(
                f"  clauses of {catalogue}: {figures['clauses']}; covered (a rule and a test) "
                f"{figures['covered']}, rules only {figures['rules_only']}, tests only "
                f"{figures['tests_only']}, uncovered {figures['uncovered']} "
                f"(wforacle clauses --spec {catalogue})"
            )
        readings = ", ".join(part["readings"]) or "none"
        print(
            f"  assumptions: {len(part['assumptions'])} recorded (docs/assumptions.md); "
            f"selectable readings: {readings} (wforacle readings)"
        )
        print("  findings (docs/spec-review.md), each witness re-run:")
        for found in part["findings"]:
            status = found["status"] if found["status"] == "holds" else found["status"].upper()
            print(f"    {found['finding']:<5} {status:<16} {found['title']}")
            for problem in found["problems"]:
                print(f"          {problem}")
    total = sum(len(part["findings"]) for part in report)
    print(f"{total - len(failing)}/{total} findings hold")
    return EXIT_FINDING if failing else EXIT_OK
