"""Conformance fixtures: write a deterministic suite, and run an engine over one.

Notation (docs/fixtures.md): a suite is a directory of cases, one directory
each, named ``<nnnn>-<digest>``; a case holds ``document.json``,
``scenario.json``, ``schedule.json`` (the completion order the oracle
imposes at each ``wait``), ``outcomes.json`` (every outcome the model
permits, each with a witness trace) and ``manifest.json`` (format version,
spec, clause ids, the outcome count and whether the exploration was
complete).  Every file is canonical JSON (sorted keys, two-space indent,
UTF-8, one trailing newline), and cases come from a seeded Hypothesis
generation with no database, so a suite is byte-identical for the same
seed, count and wforacle version.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import attrs
from hypothesis import HealthCheck, Phase, given, seed, settings

from wforacle.model.kernel.explore import canonical
from wforacle.model.kernel.lts import execute
from wforacle.model.w6w.independence import explore_run
from wforacle.model.w6w.semantics import outcome
from wforacle.oracle.engine import Engine, Judgement

JSON = Any
FORMAT = "wforacle-fixture/1"
PROFILES = ("core", "full")


def dump(value: JSON) -> str:
    """Canonical fixture JSON text."""
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def write_case(directory: Path, case: JSON, number: int = 0, extra: JSON = None) -> Path:
    """Write one case (document, scenario, schedule, outcomes, manifest) under ``directory``."""
    from wforacle.oracle.fuzz import prepare

    model, request = prepare(case)
    explored = explore_run(model, max_states=200_000)
    outcomes = sorted(
        ({"outcome": o.value, "witness": list(o.witness)} for o in explored.outcomes),
        key=lambda o: canonical(o["outcome"]),
    )
    clauses = sorted({c for t in execute(model).steps for c in t.clauses})
    digest = hashlib.blake2b(canonical(case).encode("utf-8"), digest_size=4).hexdigest()
    here = directory / f"{number:04d}-{digest}"
    here.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, JSON] = {
        "format": FORMAT,
        "spec": "w6w",
        "id": here.name,
        "clauses": clauses,
        "outcomes": len(outcomes),
        "complete": explored.complete,
    }
    if extra:
        manifest.update(extra)
    files = {
        "document.json": case["document"],
        "scenario.json": case["scenario"],
        "schedule.json": case.get("schedule", []),
        "outcomes.json": outcomes,
        "manifest.json": manifest,
    }
    if request is not None:
        files["replay.json"] = request
    for name, value in files.items():
        (here / name).write_text(dump(value), encoding="utf-8")
    return here


def write_harness_case(directory: Path, case: JSON, number: int = 0) -> Path:
    """Write one Harness case: document.xml, scenario, schedule, outcomes, manifest."""
    from wforacle.model.harness.semantics import config_key as harness_key
    from wforacle.model.harness.semantics import outcome as harness_outcome
    from wforacle.model.kernel.explore import explore
    from wforacle.oracle.harness_oracle import model_of

    model = model_of(case)
    explored = explore(model, lambda c: harness_outcome(model, c), harness_key, 200_000)
    outcomes = sorted(
        ({"outcome": o.value, "witness": list(o.witness)} for o in explored.outcomes),
        key=lambda o: canonical(o["outcome"]),
    )
    clauses = sorted({c for t in execute(model).steps for c in t.clauses})
    digest = hashlib.blake2b(canonical(case).encode("utf-8"), digest_size=4).hexdigest()
    here = directory / f"{number:04d}-{digest}"
    here.mkdir(parents=True, exist_ok=True)
    (here / "document.xml").write_text(case["document"] + "\n", encoding="utf-8")
    files = {
        "scenario.json": case["scenario"],
        "schedule.json": case.get("schedule", []),
        "outcomes.json": outcomes,
        "manifest.json": {
            "format": FORMAT,
            "spec": "harness",
            "id": here.name,
            "clauses": clauses,
            "outcomes": len(outcomes),
            "complete": explored.complete,
        },
    }
    for name, value in files.items():
        (here / name).write_text(dump(value), encoding="utf-8")
    return here


def generate(count: int, seed_value: int, profile: str = "core") -> list[JSON]:
    """``count`` cases from a seeded generation (deterministic)."""
    from hypothesis import strategies as st

    from wforacle.properties.strategies.w6w import engine_cases, engine_scenarios
    from wforacle.properties.strategies.w6w import parallel_workflows as fan_out

    if profile == "harness":
        from wforacle.oracle.harness_oracle import model_of as harness_model
        from wforacle.properties.strategies.harness import harness_cases

        def valid(case: JSON) -> bool:
            try:
                harness_model(case)
            except ValueError:
                return False
            return True

        strategy = harness_cases().filter(valid)
    elif profile == "core":
        strategy = engine_cases()
    else:

        @st.composite
        def full(draw: st.DrawFn) -> JSON:
            document = draw(fan_out(max_steps=6, controls=True, max_delay=200_000))
            return {
                "document": document,
                "scenario": draw(engine_scenarios(document)),
                "schedule": draw(st.lists(st.integers(0, 7), max_size=12)),
            }

        strategy = full()
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
    @given(strategy)
    def collect(case: JSON) -> None:
        text = canonical(case)
        if len(cases) < count and text not in seen:
            seen.add(text)
            cases.append(case)

    collect()
    return cases


def write_suite(directory: Path, count: int, seed_value: int, profile: str = "core") -> list[Path]:
    """Write a suite of ``count`` cases; the directory is replaced."""
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    writer = write_harness_case if profile == "harness" else write_case
    written = [
        writer(directory, case, number)
        for number, case in enumerate(generate(count, seed_value, profile), start=1)
    ]
    index = {
        "format": FORMAT,
        "spec": "harness" if profile == "harness" else "w6w",
        "seed": seed_value,
        "profile": profile,
        "cases": [p.name for p in written],
    }
    (directory / "suite.json").write_text(dump(index), encoding="utf-8")
    return written


@attrs.frozen
class CaseResult:
    """One case of a conformance run."""

    case: str
    verdict: str  # pass | divergence | fault | invalid
    detail: str
    seconds: float


def load_case(here: Path) -> JSON:
    """A case directory's document, scenario and schedule."""
    case = {
        name: json.loads((here / f"{name}.json").read_text("utf-8"))
        for name in ("document", "scenario", "schedule")
    }
    if (here / "replay.json").is_file():
        case["replay"] = json.loads((here / "replay.json").read_text("utf-8"))
    return case


def conform(engine: Engine, directory: Path) -> list[CaseResult]:
    """Run ``engine`` over every case of the suite at ``directory``."""
    from wforacle.oracle.engine import judge
    from wforacle.oracle.fuzz import prepare

    cases = sorted(p for p in directory.iterdir() if (p / "manifest.json").is_file())
    results = []
    for here in cases:
        if (here / "document.xml").is_file():
            results.append(_conform_harness(engine, here))
            continue
        try:
            case = load_case(here)
            model, request = prepare(case)
            permitted = {
                canonical(o["outcome"])
                for o in json.loads((here / "outcomes.json").read_text("utf-8"))
            }
        except (OSError, ValueError, KeyError) as exc:
            results.append(CaseResult(here.name, "invalid", f"unreadable case: {exc}", 0.0))
            continue
        judgement = judge(engine, model, case["document"], case["schedule"], request)
        if judgement.verdict == "pass" and not any(
            canonical(outcome(model, c)) in permitted for c in judgement.finals
        ):
            seconds = judgement.observation.seconds if judgement.observation else 0.0
            results.append(
                CaseResult(here.name, "divergence", "outcome not among outcomes.json", seconds)
            )
            continue
        results.append(_case_result(here, judgement))
    return results


def _case_result(here: Path, judgement: Judgement) -> CaseResult:
    """A conformance row from a judgement: its verdict and what departed."""
    seconds = judgement.observation.seconds if judgement.observation else 0.0
    if judgement.divergence is not None:
        detail = f"event {judgement.divergence.index}: {judgement.divergence.message}"
    elif judgement.fault is not None:
        detail = f"{judgement.fault.kind}: {judgement.fault.message}"
    else:
        detail = ""
    return CaseResult(here.name, judgement.verdict, detail, seconds)


def _conform_harness(engine: Engine, here: Path) -> CaseResult:
    from wforacle.oracle.harness_oracle import judge as judge_harness

    try:
        case = {
            "document": (here / "document.xml").read_text("utf-8"),
            "scenario": json.loads((here / "scenario.json").read_text("utf-8")),
            "schedule": json.loads((here / "schedule.json").read_text("utf-8")),
        }
        judgement = judge_harness(engine, case)
    except (OSError, ValueError) as exc:
        return CaseResult(here.name, "invalid", f"unreadable case: {exc}", 0.0)
    return _case_result(here, judgement)


def junit(results: list[CaseResult], name: str = "wforacle.conform") -> str:
    """The results as JUnit XML (one testcase per case)."""
    failures = sum(r.verdict in ("divergence", "invalid") for r in results)
    errors = sum(r.verdict == "fault" for r in results)
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuite name={quoteattr(name)} tests="{len(results)}" '
        f'failures="{failures}" errors="{errors}">',
    ]
    for r in results:
        lines.append(
            f"  <testcase classname={quoteattr(name)} name={quoteattr(r.case)} "
            f'time="{r.seconds:.3f}">'
        )
        if r.verdict in ("divergence", "invalid"):
            lines.append(f"    <failure message={quoteattr(r.detail)}>{escape(r.detail)}</failure>")
        elif r.verdict == "fault":
            lines.append(f"    <error message={quoteattr(r.detail)}>{escape(r.detail)}</error>")
        lines.append("  </testcase>")
    lines.append("</testsuite>")
    return "\n".join(lines) + "\n"
