"""Conformance fixtures: write a deterministic suite, and run an engine over one.

Notation (docs/fixtures.md): a suite is a directory of cases, one directory
each, named ``<nnnn>-<digest>``; a case holds the document (the
specification's ``layout``: ``document.json``, ``document.xml``),
``scenario.json``, ``schedule.json`` (the completion order the oracle
imposes at each ``wait``), ``outcomes.json`` (every outcome the model
permits, each with a witness trace) and ``manifest.json`` (format version,
spec, clause ids, the outcome count and whether the exploration was
complete).  Every JSON file is canonical (sorted keys, two-space indent,
UTF-8, one trailing newline), and cases come from a seeded Hypothesis
generation with no database, so a suite is byte-identical for the same
seed, count and wforacle version.  Written once over a ``Specification``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
from hypothesis import HealthCheck, Phase, given, seed, settings

from wforacle.model.diagnostics import InvalidCase, InvalidInput
from wforacle.model.kernel.budget import Stopped
from wforacle.model.kernel.explore import canonical
from wforacle.model.kernel.lts import execute
from wforacle.oracle.console import json_text
from wforacle.oracle.engine import Engine, Judgement, judge
from wforacle.oracle.explain import by_rule, clause_or_assumption
from wforacle.oracle.readings import Selection, describe
from wforacle.properties.registry import SPECIFICATIONS
from wforacle.properties.specification import (
    CONFORMANCE,
    Specification,
    parse_json,
    schedule_of,
)
from wforacle.properties.strategies.hermetic import hermetic

JSON = Any
FORMAT = "wforacle-fixture/1"
MAX_STATES = 200_000  # the exploration bound of a fixture's outcomes


def dump(value: JSON) -> str:
    """Canonical fixture JSON text, strict and UTF-8 (``json_text``: docs/cli.md, "Output")."""
    return json_text(value, sort_keys=True, indent=2) + "\n"


def write_case(
    spec: Specification, directory: Path, case: JSON, number: int = 0, extra: JSON = None
) -> Path:
    """Write one case (document, scenario, schedule, outcomes, manifest) under ``directory``."""
    prepared = spec.prepare(case, None)
    model = prepared.semantics
    explored = spec.explore(model, MAX_STATES, True)
    outcomes = sorted(
        ({"outcome": o.value, "witness": list(o.witness)} for o in explored.outcomes),
        key=lambda o: canonical(o["outcome"]),
    )
    cited = {c for t in execute(model).steps for c in t.clauses}
    # A rule also cites the assumptions it reads ("A-20": which JSON Logic); the manifest
    # keeps them apart from the specification's clause ids.
    assumptions = sorted(c for c in cited if c.startswith("A-"))
    clauses = sorted(cited.difference(assumptions))
    digest = hashlib.blake2b(canonical(case).encode("utf-8"), digest_size=4).hexdigest()
    here = directory / f"{number:04d}-{digest}"
    here.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, JSON] = {
        "format": FORMAT,
        "spec": spec.name,
        "id": here.name,
        "clauses": clauses,
        **({"assumptions": assumptions} if assumptions else {}),
        "outcomes": len(outcomes),
        "complete": explored.complete,
    }
    if extra:
        manifest.update(extra)
    layout = spec.layout
    (here / layout.document_file).write_text(
        layout.dump_document(case["document"]), encoding="utf-8"
    )
    files = {
        "scenario.json": case["scenario"],
        "schedule.json": case.get("schedule", []),
        "outcomes.json": outcomes,
        "manifest.json": manifest,
        **{f"{name}.json": value for name, value in prepared.files.items()},
    }
    for name, value in files.items():
        (here / name).write_text(dump(value), encoding="utf-8")
    return here


def generate(spec: Specification, count: int, seed_value: int, profile: str) -> list[JSON]:
    """``count`` cases from a seeded generation of ``spec``'s ``profile`` (deterministic)."""
    cases: list[JSON] = []
    seen: set[str] = set()

    @seed(seed_value)
    @settings(
        max_examples=count * 4,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(spec.suites[profile]())
    def collect(case: JSON) -> None:
        text = canonical(case)
        if len(cases) < count and text not in seen:
            seen.add(text)
            cases.append(case)

    with hermetic():
        collect()
    return cases


def write_suite(
    spec: Specification, directory: Path, count: int, seed_value: int, profile: str | None = None
) -> list[Path]:
    """Write a suite of ``count`` cases (``profile``: one of ``spec.suites``, default the first).

    The directory is replaced.
    """
    chosen = profile if profile is not None else next(iter(spec.suites))
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    if chosen == CONFORMANCE:
        # The hand-written cases, each with the expectation its test checks.
        written = []
        for number, conformance in enumerate(spec.conformance(), start=1):
            here = write_case(spec, directory, conformance.case, number)
            (here / "expect.json").write_text(dump(conformance.expect), encoding="utf-8")
            written.append(here)
    else:
        written = [
            write_case(spec, directory, case, number)
            for number, case in enumerate(generate(spec, count, seed_value, chosen), start=1)
        ]
    index = {
        "format": FORMAT,
        "spec": spec.name,
        "seed": seed_value,
        "profile": chosen,
        "cases": [p.name for p in written],
    }
    (directory / "suite.json").write_text(dump(index), encoding="utf-8")
    return written


@attrs.frozen
class CaseResult:
    """One case of a conformance run."""

    case: str
    verdict: str  # pass | divergence | fault | invalid | reading (oracle/readings.py)
    detail: str
    seconds: float
    # A divergence's explanation: the engine's event, what the model permits, the clauses.
    explanation: tuple[str, ...] = ()
    # The judgement behind the verdict, when the case ran (an HTML report draws it).
    judgement: Judgement | None = attrs.field(default=None, eq=False, repr=False)


def read_fixture_json(path: Path) -> JSON:
    """A fixture file's strict JSON (properties/specification.py ``parse_json``); InvalidCase.

    Every JSON file of a case is read here, so a NaN, a lone surrogate or
    nesting past MAX_DEPTH (A-154) makes the case unreadable, never an
    internal error.
    """
    try:
        return parse_json(path.read_bytes(), path.name)
    except OSError as exc:
        raise InvalidCase(f"{path.name}: {exc.strerror or exc}") from None
    except InvalidInput as exc:
        raise InvalidCase(str(exc)) from None


def spec_of(here: Path) -> Specification:
    """The specification a case directory follows: its manifest's ``spec``."""
    manifest = read_fixture_json(here / "manifest.json")
    name = manifest.get("spec") if isinstance(manifest, dict) else None
    if not isinstance(name, str) or name not in SPECIFICATIONS:
        raise InvalidCase(f"manifest.json names no known specification: {short(name, 80)}")
    return SPECIFICATIONS[name]


def load_case(spec: Specification, here: Path) -> JSON:
    """A case directory's document, scenario and schedule (and optional parts); InvalidCase."""
    layout = spec.layout
    try:
        case = {"document": layout.read_document((here / layout.document_file).read_text("utf-8"))}
    except (OSError, ValueError) as exc:
        raise InvalidCase(str(exc)) from None
    for name in ("scenario", "schedule", *layout.optional):
        path = here / f"{name}.json"
        if name in ("scenario", "schedule") or path.is_file():
            case[name] = read_fixture_json(path)
    case["schedule"] = schedule_of(case["schedule"], "schedule.json")
    return case


def load_outcomes(here: Path) -> set[str]:
    """The canonical texts of the outcomes ``outcomes.json`` permits; InvalidCase."""
    outcomes = read_fixture_json(here / "outcomes.json")
    try:
        return {canonical(o["outcome"]) for o in outcomes}
    except (KeyError, TypeError) as exc:
        raise InvalidCase(f"outcomes.json: {exc}") from None


def conform(
    engine: Engine,
    directory: Path,
    readings: Callable[[Specification], Selection] | None = None,
    progress: Callable[[int, float], None] | None = None,
) -> list[CaseResult]:
    """Run ``engine`` over every case of the suite at ``directory``.

    Each case is judged as a campaign judges it (trace, the specification's
    comparisons, the final state against the model), and the engine's
    outcome must also be one of ``outcomes.json``.  ``readings`` gives each
    case's specification the readings its verdict may use (oracle/readings.py):
    a run only another reading permits passes or is ``reading``, and is not
    held to ``outcomes.json`` (written under the model's readings).
    """
    results, start = [], time.perf_counter()
    for here in suite_cases(directory):
        results.append(conform_case(engine, here, readings))
        if progress is not None:
            progress(len(results), time.perf_counter() - start)
    return results


def suite_cases(directory: Path) -> list[Path]:
    """The case directories of a suite, in order; InvalidInput when its index is spoilt.

    docs/fixtures.md: ``suite.json`` lists the suite's cases, so each case it
    names is run, and one that is missing, not a directory or unreadable is
    judged ``invalid`` (a case replaced by a file or emptied was silently
    dropped, issue 19).  A directory with a ``manifest.json`` that the index
    does not name (``fuzz --save`` into the suite) is run after them.  A
    folder without ``suite.json`` (``fuzz --save DIR``) is every directory
    holding a ``manifest.json``.  A directory that holds a ``manifest.json``
    itself is one case, the whole suite (``conform`` of one saved finding).
    """
    if (directory / "manifest.json").is_file():
        return [directory]
    present = sorted(p for p in directory.iterdir() if (p / "manifest.json").is_file())
    index_path = directory / "suite.json"
    if not index_path.exists() and not index_path.is_symlink():
        return present
    try:
        index = read_fixture_json(index_path)
    except InvalidCase as exc:
        raise InvalidInput(f"{index_path}: {exc}") from None
    names = index.get("cases") if isinstance(index, dict) else None
    if not isinstance(names, list) or not all(_case_name(n) for n in names):
        raise InvalidInput(
            f"{index_path}: cases must be an array of the suite's case directory names"
        )
    listed = set(names)
    return [directory / name for name in names] + [p for p in present if p.name not in listed]


def _case_name(name: JSON) -> bool:
    """A name of a directory directly inside the suite (no path, no parent)."""
    return (
        isinstance(name, str)
        and name not in ("", ".", "..")
        and not any(c in name for c in "/\\\0")
    )


def conform_case(
    engine: Engine,
    here: Path,
    readings: Callable[[Specification], Selection] | None = None,
) -> CaseResult:
    """Judge ``engine`` on the case at ``here`` (one row of ``conform``, one pytest item)."""
    try:
        spec = spec_of(here)
        case = load_case(spec, here)
        selection = readings(spec) if readings is not None else None
        prepared = spec.prepare(case, selection.options() if selection is not None else None)
        permitted = load_outcomes(here)
    except InvalidInput as exc:
        return CaseResult(here.name, "invalid", f"unreadable case: {exc}", 0.0)
    except Stopped as exc:  # a bound of the model: this case, not the whole run
        return CaseResult(here.name, "invalid", f"the model cannot decide: {exc}", 0.0)
    try:
        judgement = judge(engine, spec, case, prepared, selection)
    except Stopped as exc:
        return CaseResult(here.name, "invalid", f"the model cannot decide: {exc}", 0.0)
    if judgement.verdict == "divergence":  # explained by the rule the engine broke
        seen = judgement.observation.trace if judgement.observation is not None else ()
        divergence = by_rule(spec, prepared.semantics, judgement.divergence, seen)
        judgement = attrs.evolve(judgement, divergence=divergence)
    if (
        judgement.verdict == "pass"
        and not judgement.reading
        and not any(
            canonical(spec.outcome(prepared.semantics, c)) in permitted for c in judgement.finals
        )
    ):
        seconds = judgement.observation.seconds if judgement.observation else 0.0
        return CaseResult(
            here.name,
            "divergence",
            "outcome not among outcomes.json",
            seconds,
            judgement=judgement,
        )
    return _case_result(here, judgement)


def _case_result(here: Path, judgement: Judgement) -> CaseResult:
    """A conformance row from a judgement: its verdict and what departed."""
    seconds = judgement.observation.seconds if judgement.observation else 0.0
    explanation: tuple[str, ...] = ()
    if judgement.divergence is not None:
        divergence = judgement.divergence
        detail = f"event {divergence.index}: {divergence.message}"
        first = divergence.clauses[0] if divergence.clauses else None
        against = divergence.permitted[0] if divergence.permitted else None
        explanation = (
            *(
                [f"engine:    {short(divergence.observed, 200, against)}"]
                if divergence.observed
                else []
            ),
            *(
                f"permitted: {short(event, 200, divergence.observed)}"
                for event in divergence.permitted[:3]
            ),
            # Every clause (a stranger missed the one his bug broke, ninth of a list cut at
            # eight), the first with its text.
            f"clauses:   {', '.join(divergence.clauses) or '(none)'}",
            *([f"first:     {first} — {_cut(clause_or_assumption(first), 200)}"] if first else []),
            # An exception in the engine often ends its trace early: its words say why.
            *(f"stderr:    {_cut(line, 200)}" for line in judgement.stderr.splitlines()),
        )
    elif judgement.fault is not None:
        detail = f"{judgement.fault.kind}: {judgement.fault.message}"
    else:
        detail = ""
    if judgement.reading:  # a pass under, or the verdict "reading" of, other readings
        detail = f"depends on reading {describe(judgement.reading)}" + (
            f"; under the model's: {detail}" if detail else ""
        )
    return CaseResult(here.name, judgement.verdict, detail, seconds, explanation, judgement)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def short(value: JSON, limit: int = 220, beside: JSON = None) -> str:
    """An event as one line of canonical JSON, cut at ``limit`` characters.

    ``beside``: the event it is shown against (the engine's, or the first
    permitted one).  When the two first differ past the cut, the line shows
    the stretch around that difference instead of its start, "…" either
    side: a stranger saw an engine and a permitted line cut at the same
    place, which hid where they differed (session 27).
    """
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    if len(text) <= limit:
        return text
    if beside is not None:
        other = json.dumps(beside, ensure_ascii=False, sort_keys=True)
        differ = next(
            (k for k, (a, b) in enumerate(zip(text, other, strict=False)) if a != b),
            min(len(text), len(other)),
        )
        if differ >= limit - 40:
            start = min(differ - 60, len(text) - (limit - 2))
            return "…" + text[start : start + limit - 2] + "…"
    return text[: limit - 1] + "…"
