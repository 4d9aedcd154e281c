"""Issue 17, part 2: the HTML report rendered in a real browser, headless Chromium.

Each test writes a report with the command line, has Chromium load it from
disk (no network: the page's policy forbids it, and the browser is told
not to reach out) and serialize the DOM it built, and takes a screenshot,
kept under the test's tmp dir (its path is printed; ``pytest -s`` or a
failure shows it).  The DOM must show the campaign's summary figures, the
finding's divergent event marked, the clause text, the command that
reproduces it, and the document's graph as an SVG with a box per unit.

Chromium comes from the operating system's packages (Debian: ``apt-get
install chromium``; .ci/run installs it).  Without it the tests fail when
``CI`` is set, as it is in CI, and are skipped otherwise (docs/report.md).
"""

from __future__ import annotations

import html
import json
import os
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from wforacle.oracle import drawing
from wforacle.oracle.cli import main
from wforacle.oracle.explain import clause_or_assumption
from wforacle.properties.registry import SPECIFICATIONS

ENGINES = Path(__file__).resolve().parents[2] / "examples" / "engines"
# A seeded bug per specification that a campaign finds in about a second (docs/power.md).
# Seeded bugs every seed finds within 200 examples (tests/test_power.py BUDGETS); a
# campaign asks twice that, so no Hypothesis release's draw can miss the finding.
BUGGY = {
    "w6w": f"{sys.executable} {ENGINES / 'w6w_engine.py'} --bug template-untyped",
    "harness": f"{sys.executable} {ENGINES / 'harness_engine.py'} --bug entry-and-roots",
    "workfile": f"{sys.executable} {ENGINES / 'workfile_engine.py'} --bug late-result-binds",
}
FLAGS = (
    "--headless",
    "--no-sandbox",  # CI runs as root
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
)


@pytest.fixture(scope="module")
def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        message = "headless Chromium is not installed (Debian: apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}; .ci/run installs it", pytrace=False)
        pytest.skip(f"{message}; CI=true makes this a failure")
    if drawing.dot_program() is None and os.environ.get("CI"):
        pytest.fail("Graphviz's dot is not installed; .ci/run installs it", pytrace=False)
    return found


class Element:
    """An element of the DOM Chromium serialized: tag, attributes, children, text."""

    def __init__(self, tag: str, attrs: dict[str, str]) -> None:
        self.tag, self.attrs, self.children, self.parts = tag, attrs, [], []

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def all(self, tag: str, cls: str | None = None) -> list[Element]:
        found = []
        for child in self.children:
            if child.tag == tag and (cls is None or cls in child.classes()):
                found.append(child)
            found.extend(child.all(tag, cls))
        return found

    def one(self, tag: str, cls: str | None = None) -> Element:
        found = self.all(tag, cls)
        assert found, f"no <{tag} class={cls}> in the page"
        return found[0]


class Dom(HTMLParser):
    """Builds Elements from the serialized DOM (text is unescaped as the browser shows it)."""

    VOID = frozenset({"meta", "br", "img", "col", "link", "input", "hr", "path", "polygon"})

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.open = [self.root]
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs})
        self.open[-1].children.append(element)
        if tag not in self.VOID:
            self.open.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.open[-1].children.append(Element(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.open) - 1, 0, -1):
            if self.open[depth].tag == tag:
                del self.open[depth:]
                return

    def handle_data(self, data: str) -> None:
        for element in self.open:
            element.parts.append(data)


def render(chromium: str, page: Path, tmp_path: Path, name: str) -> Element:
    """Load ``page`` in headless Chromium: the DOM it built; a screenshot kept beside it."""
    shot = tmp_path / f"{name}.png"
    done = subprocess.run(
        [
            chromium,
            *FLAGS,
            f"--user-data-dir={tmp_path / 'chromium-profile'}",
            "--window-size=1280,2400",
            f"--screenshot={shot}",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=False,
    )
    print(f"screenshot of {page}: {shot}")
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")[-2000:]
    assert shot.is_file() and shot.stat().st_size > 10_000  # a page, not a blank
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    dom = Dom(done.stdout.decode("utf-8"))
    assert not dom.root.all("script"), "the page runs no script"
    return dom.root


def field(dom: Element, label: str) -> str:
    cells = [td for td in dom.all("td") if td.attrs.get("data-field") == label]
    assert len(cells) == 1, label
    return cells[0].text


def check_graph(dom: Element, spec: str, case: dict) -> None:
    """The document's graph: an SVG laid out by dot, a box per unit with the unit's name."""
    svg = dom.one("figure", "graph").one("svg")
    for size in ("width", "height"):
        assert float(svg.attrs[size].removesuffix("pt")) > 0
    record = SPECIFICATIONS[spec]
    diagram = record.diagram(record.validate(case["document"]).model)
    boxes = svg.all("g", "node")
    assert len(boxes) == len(diagram.boxes) > 0
    shown = " ".join(box.text for box in boxes)
    assert all(box.label in shown for box in diagram.boxes)


@pytest.mark.parametrize("spec", list(BUGGY))
def test_a_campaign_report_in_the_browser(spec, chromium, tmp_path, capsys):
    report = tmp_path / "report"
    argv = ["fuzz", "--spec", spec, "--engine", BUGGY[spec], "--examples", "400", "--seed", "0"]
    argv += ["--save", str(tmp_path / "saved"), "--report", str(report), "--json"]
    assert main(argv) == 1
    result = json.loads(capsys.readouterr().out)
    finding = result["finding"]
    assert finding is not None, "the seeded bug is found (any case will do)"
    dom = render(chromium, report / "index.html", tmp_path, f"campaign-{spec}")

    # the summary
    assert field(dom, "specification") == spec
    assert field(dom, "examples tried") == str(result["examples"])
    assert field(dom, "engine faults") == str(result["faults"])
    assert field(dom, "findings") == "1"
    assert dom.one("span", "verdict").text == "a finding"
    # the first divergent event, marked, the engine's event in it
    divergence = finding["judgement"]["divergence"]
    marked = dom.one("tr", "divergent")
    cells = marked.all("td")
    index = str(divergence["index"]) if cells[0].text != "end" else "end"
    assert cells[0].text == index
    observed = divergence["observed"]
    assert observed.get("event", "") in cells[2].text
    # what the model permits there, and the clauses with their text
    permitted = dom.one("ul", "permitted").all("li")
    assert len(permitted) == len(divergence["permitted"])
    clauses = dom.one("dl", "clauses")
    assert [dt.text for dt in clauses.all("dt")] == divergence["clauses"]
    first = divergence["clauses"][0]
    assert " ".join(clause_or_assumption(first).split()) in " ".join(clauses.text.split())
    # the command that reproduces it, as fuzz --json gives it
    commands = [code.text for code in dom.all("code")]
    assert finding["reproduce"] in commands
    check_graph(dom, spec, finding["case"])
    # the coverage by clause (issue 17 §3), as fuzz --json counts it
    coverage = result["coverage"]
    exercised = dom.one("table", "coverage").all("tr")[1:]
    assert [row.all("td")[0].text for row in exercised] == list(coverage["exercised"])
    assert [row.all("td")[1].text for row in exercised] == [
        str(n) for n in coverage["exercised"].values()
    ]
    never = dom.one("table", "never").all("tr")[1:] if coverage["neverReached"] else []
    assert [row.all("td")[0].text for row in never] == coverage["neverReached"]
    assert dom.one("section").attrs["id"] == "summary"
    assert [s.attrs["id"] for s in dom.all("section")][-1] == "timing"


def test_a_conformance_report_in_the_browser(chromium, tmp_path, capsys):
    suite = tmp_path / "suite"
    argv = ["fixtures", "--spec", "harness", "--profile", "conformance", "--out", str(suite)]
    assert main(argv) == 0
    capsys.readouterr()
    # The hand-written cases: one of them shows this bug, whatever Hypothesis draws.
    engine = f"{sys.executable} {ENGINES / 'harness_engine.py'} --bug no-unreachability"
    argv = ["conform", str(suite), "--engine", engine, "--report", str(tmp_path / "r"), "--json"]
    assert main(argv) == 1
    result = json.loads(capsys.readouterr().out)
    dom = render(chromium, tmp_path / "r" / "index.html", tmp_path, "conformance")

    assert field(dom, "cases") == str(result["total"])
    assert field(dom, "passed") == str(result["passed"])
    rows = dom.one("table", "cases").all("tr")[1:]
    assert [r.all("td")[2].text for r in rows] == [c["verdict"] for c in result["cases"]]
    by_clause = dom.one("table", "by-clause").all("tr")[1:]
    assert by_clause and all(len(r.all("td")) == 5 for r in by_clause)
    assert any("failing" in r.classes() for r in by_clause)
    failing = [c for c in result["cases"] if c["verdict"] != "pass"]
    articles = dom.all("article", "finding")
    assert [a.attrs["id"] for a in articles] == [f"case-{c['case']}" for c in failing]
    assert articles[0].one("tr", "divergent")
    here = suite / failing[0]["case"]
    case = {"document": (here / "document.xml").read_text("utf-8")}
    check_graph(articles[0], "harness", case)


def test_what_an_engine_says_stays_text_in_the_browser(chromium, tmp_path, capsys):
    hostile = tmp_path / "hostile_engine.py"
    said = '<script>document.title="owned"</script><img src=x onerror=alert(1)>'
    hostile.write_text(f"import sys\nsys.stderr.write({said!r})\nsys.exit(1)\n")
    report = tmp_path / "report"
    argv = ["fuzz", "--engine", f"{sys.executable} {hostile}", "--examples", "3"]
    argv += ["--save", str(tmp_path / "saved"), "--report", str(report)]
    assert main(argv) == 1  # engine faults
    capsys.readouterr()
    dom = render(chromium, report / "index.html", tmp_path, "hostile")
    assert dom.one("title").text == "wforacle campaign: w6w"
    assert not dom.all("img")
    faults = dom.one("table", "faults")
    assert said in faults.text  # shown as the engine wrote it, as text
    assert html.escape(said) not in faults.text  # and escaped once, not twice
