"""An HTML report of a campaign (``fuzz --report DIR``) or a conformance run (``conform --report``).

Notation (docs/report.md): a *page* is one self-contained HTML file,
``DIR/index.html``: no script, no link to anything outside it (its
Content-Security-Policy forbids both), each document's graph inline as the
SVG Graphviz lays out (oracle/drawing.py).  An *exhibit* is what the page
shows of one failing case: the document drawn, the model's and the
engine's events side by side with the first divergent one marked, the
events the model permits there, the clauses with their text, and the
command lines that reproduce it.

The page is a Jinja2 template (``templates/report.html.j2``) rendered with
autoescaping, so every string — a step id, an engine's message, a fault's
stderr — is escaped unless the template marks it safe, and the only
thing it marks safe is dot's SVG (dot escapes the labels it writes).
Everything that varies from one run of the same campaign to the next (the
seconds) is in one section, ``<section id="timing">``; the rest of the
page is the same bytes for the same campaign, wforacle and Graphviz.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import attrs
import jinja2
import markupsafe

from wforacle.model.diagnostics import InvalidInput
from wforacle.model.kernel.budget import Stopped
from wforacle.oracle.check import differing, model_run
from wforacle.oracle.console import json_text
from wforacle.oracle.drawing import Drawing, draw
from wforacle.oracle.engine import Judgement
from wforacle.oracle.explain import clause_or_assumption
from wforacle.oracle.fixtures import CaseResult, load_case, read_fixture_json, spec_of
from wforacle.oracle.fuzz import Campaign
from wforacle.oracle.readings import describe
from wforacle.properties.clauses import clause_text
from wforacle.properties.specification import Specification

JSON = Any
MAX_ROWS = 400  # events shown per side of an exhibit
MAX_TEXT = 4_000  # characters of one event or value shown
MAX_EXHIBITS = 20  # failing cases of a conformance run drawn in full
PASSING = ("pass", "reading")  # the verdicts that count as passed (``conform``'s count)


@attrs.frozen
class Event:
    """One event as a row shows it: its name, and its other fields as JSON."""

    name: str
    fields: str


@attrs.frozen
class Row:
    """One line of the side-by-side events: index, the model's event, the engine's."""

    index: str
    model: Event | None
    engine: Event | None
    divergent: bool = False
    differs: str = ""  # at the divergent row: the fields in which the two events differ


@attrs.frozen
class Exhibit:
    """What the page shows of one failing case (see the module notation)."""

    anchor: str  # the element id, "finding-1", "case-0003-ab12cd34"
    title: str
    verdict: str
    message: str
    drawing: Drawing
    document: str
    parts: tuple[tuple[str, str], ...]  # (name, text): scenario, schedule, replay, children
    rows: tuple[Row, ...]
    rows_note: str
    permitted: tuple[Event, ...]
    clauses: tuple[tuple[str, str], ...]  # (id, text)
    reproduce: tuple[tuple[str, str], ...]  # (what it does, command line)
    facts: tuple[tuple[str, str], ...] = ()  # (label, value): size, examples to find …


def exhibit(
    spec: Specification,
    case: JSON,
    judgement: Judgement,
    anchor: str,
    reproduce: Sequence[tuple[str, str]] = (),
    options: Any = None,
    facts: Sequence[tuple[str, str]] = (),
    message: str = "",
) -> Exhibit:
    """An exhibit of ``case`` as ``judgement`` judged it (``options``: its readings)."""
    divergence = judgement.divergence
    trace = list(judgement.observation.trace) if judgement.observation is not None else []
    if judgement.fault is not None:
        title = f"engine fault ({judgement.fault.kind})"
        message = message or judgement.fault.message
    elif divergence is not None:
        title = f"divergence at event {divergence.index}"
        if judgement.verdict == "reading":
            title += f" (depends on reading {describe(judgement.reading)})"
        message = message or divergence.message
    else:
        title = judgement.verdict
    model, note = _model_events(spec, case, trace, divergence, options)
    rows, rows_note = _rows(model, trace, divergence)
    if note:
        rows_note = f"{note} {rows_note}".strip()
    clauses = divergence.clauses if divergence is not None else ()
    return Exhibit(
        anchor=anchor,
        title=title,
        verdict=judgement.verdict,
        message=message,
        drawing=_drawing(spec, case["document"]),
        document=_document_text(case["document"]),
        parts=_parts(spec, case),
        rows=rows,
        rows_note=rows_note,
        permitted=tuple(_event(e) for e in (divergence.permitted if divergence else ())),
        clauses=tuple((c, clause_or_assumption(c)) for c in clauses),
        reproduce=tuple(reproduce),
        facts=tuple(facts),
    )


def _drawing(spec: Specification, document: JSON) -> Drawing:
    try:
        model = spec.validate(document).model
    except InvalidInput as exc:
        return Drawing(note=f"not drawn: the document could not be read ({exc})")
    return draw(spec.diagram(model))


def _model_events(
    spec: Specification, case: JSON, trace: list[JSON], divergence: Any, options: Any
) -> tuple[list[JSON] | None, str]:
    """The model's run beside the engine's (``check.model_run``), or None and why not."""
    index = divergence.index if divergence is not None else len(trace)
    bounds: tuple[type[Exception], ...] = (Stopped, *spec.limits())
    try:
        semantics = spec.prepare(case, options).semantics
        return model_run(semantics, spec.key, trace, index), ""
    except InvalidInput as exc:
        return None, f"The model cannot run this case ({exc})."
    except bounds as exc:  # what the model does not cover (spec.limits), a budget
        return None, f"The model's run could not be followed ({exc})."


def _rows(
    model: list[JSON] | None, trace: list[JSON], divergence: Any
) -> tuple[tuple[Row, ...], str]:
    """The events side by side; the first divergent one marked (a final state: a row after)."""
    model = model or []
    # Past the trace with something observed: not an event the trace check refused but
    # what the run ended in or what it invoked (spec.compare, spec.screen): a row "end".
    ending = (
        divergence is not None
        and divergence.index >= len(trace)
        and divergence.observed is not None
    )
    marked = divergence.index if divergence is not None and not ending else -1
    count = max(len(model), len(trace), marked + 1)
    rows = [
        Row(
            str(i),
            _event(model[i]) if i < len(model) else None,
            _event(trace[i]) if i < len(trace) else None,
            divergent=i == marked,
            differs=_differs(model[i], trace[i])
            if i == marked < min(len(model), len(trace))
            else "",
        )
        for i in range(min(count, MAX_ROWS))
    ]
    note = f"The first {MAX_ROWS} of {count} events are shown." if count > MAX_ROWS else ""
    if ending:
        expected = divergence.permitted[0] if divergence.permitted else None
        rows.append(
            Row(
                "end",
                _event(expected) if expected is not None else None,
                _event(divergence.observed),
                divergent=True,
            )
        )
    return tuple(rows), note


def _differs(model: JSON, engine: JSON) -> str:
    """The fields two events of one kind differ in, as check compares them (``at`` aside)."""
    if not (isinstance(model, dict) and isinstance(engine, dict)):
        return ""
    if model.get("event") != engine.get("event"):
        return "event"
    return ", ".join(differing(model, engine))


def _event(value: JSON) -> Event:
    """An event as a row shows it; any other value (a final state) as JSON."""
    if isinstance(value, dict) and isinstance(value.get("event"), str):
        rest = {k: v for k, v in value.items() if k != "event"}
        return Event(value["event"], _json(rest))
    return Event("", _json(value))


def _json(value: JSON) -> str:
    text = json_text(value, sort_keys=True)
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def _document_text(document: JSON) -> str:
    """A document as its author reads it: text as it is, JSON indented."""
    if isinstance(document, str):
        return document
    return json_text(document, indent=2, sort_keys=False)


def _parts(spec: Specification, case: JSON) -> tuple[tuple[str, str], ...]:
    """The case beside its document: scenario, schedule, and the specification's other parts."""
    found = [("scenario", json_text(case.get("scenario", {}), indent=2, sort_keys=True))]
    found.append(("schedule", json_text(case.get("schedule", []))))
    for part in spec.layout.optional:
        if part in case and part not in ("manifests",):
            found.append((part, json_text(case[part], indent=2, sort_keys=True)))
    return tuple(found)


# -- pages ------------------------------------------------------------------------------------


def campaign_page(
    spec: Specification,
    result: Campaign,
    settings: Sequence[tuple[str, str]],
    reproduce: Sequence[tuple[str, str]] = (),
    readings: Mapping[str, Mapping[str, JSON]] | None = None,
    options: Any = None,
) -> str:
    """The page of a campaign: summary, readings, faults, the finding, timing.

    ``settings``: (label, value) of what the campaign was asked (engine,
    seed, examples …); ``reproduce``: the command lines that reproduce the
    finding; ``readings``: ``fuzz --json``'s ``readingTable``.
    """
    finding = result.finding
    summary = [
        ("specification", spec.name),
        *settings,
        ("examples tried", str(result.examples)),
        ("findings", "1" if finding is not None else "0"),
        ("engine faults", str(result.faults)),
    ]
    if finding is not None:
        summary.append(("examples to the finding", str(finding.examples)))
        summary.append(("shrinking runs", str(result.shrink_runs)))
    if result.budget_spent:
        summary.append(("time budget", "spent: the budget stopped the search"))
    exhibits = []
    if finding is not None:
        size = ", ".join(f"{count} {noun}" for noun, count in finding.size.items())
        facts = [("minimal case", size), ("found after", f"{finding.examples} example(s)")]
        if result.nondeterministic:
            facts.append(("nondeterministic engine", result.nondeterministic))
        exhibits.append(
            exhibit(spec, finding.case, finding.judgement, "finding-1", reproduce, options, facts)
        )
    faults = [
        (j.fault.kind if j.fault else j.verdict, j.fault.message if j.fault else "", _doc(c))
        for c, j in result.fault_cases
    ]
    table = [
        (assumption, row["model"], "pinned" if row["pinned"] else "", _needed(row["needed"]))
        for assumption, row in (readings or {}).items()
    ]
    witnesses = [
        (describe(w.departures), w.examples, _doc(w.case["document"])) for w in result.readings
    ]
    coverage = None
    if result.coverage is not None and result.coverage.runs:
        coverage = {
            "summary": result.coverage.summary(),
            "exercised": [(c, n, clause_text(c)) for c, n in result.coverage.exercised()],
            "never": [(c, clause_text(c)) for c in result.coverage.never_reached()],
        }
    timing = [
        ("campaign", f"{result.seconds:.2f} s"),
        ("searching", f"{result.seconds_searching:.2f} s"),
        ("shrinking", f"{result.seconds_shrinking:.2f} s"),
        ("in the engine", f"{result.engine_seconds:.2f} s"),
    ]
    if result.seconds_searching:
        timing.append(("examples per second", f"{result.examples / result.seconds_searching:.0f}"))
    if finding is not None:
        timing.append(("to the finding", f"{finding.seconds_to_find:.2f} s"))
    return _render(
        title=f"wforacle campaign: {spec.name}",
        kind="campaign",
        summary=summary,
        verdict="a finding" if finding is not None else "no finding",
        passed=finding is None and not result.faults,
        exhibits=exhibits,
        faults=faults,
        readings=table,
        witnesses=witnesses,
        coverage=coverage,
        timing=timing,
    )


def conformance_page(
    suite: Path,
    cases: Sequence[Path],
    results: Sequence[CaseResult],
    settings: Sequence[tuple[str, str]],
    reproduce: Any,
    options: Any = None,
) -> str:
    """The page of a conformance run: a row per case, a pass table by clause, failing cases drawn.

    ``reproduce(case_dir)`` gives the command lines that rerun one case;
    ``options(spec)`` the readings a case's model runs under.
    """
    where = {path.name: path for path in cases}
    rows = []
    by_clause: dict[str, list[str]] = {}
    exhibits: list[Exhibit] = []
    for result in results:
        here = where.get(result.case)
        clauses, name = _manifest(here)
        rows.append((result.case, name, result.verdict, result.detail, result.explanation))
        for clause in clauses:
            by_clause.setdefault(clause, []).append(result.verdict)
        drawn = result.verdict not in PASSING and result.judgement is not None
        if drawn and here is not None and len(exhibits) < MAX_EXHIBITS:
            found = _case_exhibit(here, result, reproduce, options)
            if found is not None:
                exhibits.append(found)
    passed = sum(r.verdict in PASSING for r in results)
    counts: dict[str, int] = {}
    for result in results:
        counts[result.verdict] = counts.get(result.verdict, 0) + 1
    summary = [
        ("suite", str(suite)),
        *settings,
        ("cases", str(len(results))),
        ("passed", str(passed)),
        *((f"verdict {verdict}", str(n)) for verdict, n in sorted(counts.items())),
    ]
    failing = [r for r in results if r.verdict not in PASSING]
    clause_rows = [
        (
            clause,
            clause_or_assumption(clause),
            len(verdicts),
            sum(v in PASSING for v in verdicts),
        )
        for clause, verdicts in sorted(by_clause.items(), key=lambda item: _natural(item[0]))
    ]
    timing = [("in the engine", f"{sum(r.seconds for r in results):.2f} s")]
    slowest = sorted(results, key=lambda r: -r.seconds)[:5]
    timing += [(f"case {r.case}", f"{r.seconds:.3f} s") for r in slowest]
    return _render(
        title=f"wforacle conformance run: {suite.name or suite}",
        kind="conformance",
        summary=summary,
        verdict=f"{passed}/{len(results)} passed",
        passed=not failing,
        exhibits=exhibits,
        cases=rows,
        clauses=clause_rows,
        more_failing=max(0, len([r for r in failing if r.judgement is not None]) - MAX_EXHIBITS),
        timing=timing,
    )


def _case_exhibit(here: Path, result: CaseResult, reproduce: Any, options: Any) -> Exhibit | None:
    try:
        spec = spec_of(here)
        case = load_case(spec, here)
    except InvalidInput:
        return None
    assert result.judgement is not None
    return exhibit(
        spec,
        case,
        result.judgement,
        f"case-{here.name}",
        reproduce(here),
        options(spec) if options is not None else None,
        message=result.detail,
    )


def _manifest(here: Path | None) -> tuple[list[str], str]:
    """A case's clause ids and specification, from its manifest (none when unreadable)."""
    if here is None:
        return [], ""
    try:
        manifest = read_fixture_json(here / "manifest.json")
    except InvalidInput:
        return [], ""
    if not isinstance(manifest, dict):
        return [], ""
    clauses = manifest.get("clauses")
    spec = manifest.get("spec")
    found = [c for c in clauses if isinstance(c, str)] if isinstance(clauses, list) else []
    return found, spec if isinstance(spec, str) else ""


def _natural(clause: str) -> list[Any]:
    """W6W-EDGE-4 before W6W-EDGE-11."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", clause)]


def _needed(needed: Mapping[str, int]) -> str:
    return ", ".join(f"{name} by {count} example(s)" for name, count in needed.items())


def _doc(document: JSON) -> str:
    """A document on one line: text as it is, JSON compact."""
    if isinstance(document, dict) and "document" in document:
        document = document["document"]
    if isinstance(document, str):
        return document
    return json.dumps(document, ensure_ascii=False)


# -- rendering --------------------------------------------------------------------------------


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _render(**values: Any) -> str:
    """The page template with ``values`` (every string autoescaped; dot's SVG marked safe)."""
    template = resources.files("wforacle.oracle").joinpath("templates/report.html.j2")
    page = _environment().from_string(template.read_text(encoding="utf-8"))
    defaults: dict[str, Any] = {
        "exhibits": [],
        "faults": [],
        "readings": [],
        "witnesses": [],
        "cases": [],
        "clauses": [],
        "coverage": None,
        "more_failing": 0,
    }
    return page.render(**{**defaults, **values}, svg=_svg)


def _svg(drawing: Drawing) -> markupsafe.Markup:
    """The SVG dot wrote: the one thing the page does not escape (dot escaped its labels)."""
    if drawing.svg:
        return markupsafe.Markup(drawing.svg)
    return markupsafe.Markup('<p class="note">{}</p>').format(drawing.note)


def write(directory: Path, page: str) -> Path:
    """Write the page as ``directory/index.html`` (the folder made if need be); OSError."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "index.html"
    path.write_text(page, encoding="utf-8", errors="backslashreplace")
    return path
