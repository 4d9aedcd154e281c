"""The clause catalogue: every normative sentence of a specification, with an id.

A catalogue is a YAML file beside this module (``w6w.yaml``) holding, per
clause, a stable id (``W6W-EDGE-3``), the section heading, the line of the
specification file it stands on, its kind (must, should, testably, rule …)
and its exact text.  ``extract.py`` proposes clauses from the specification
text; the YAML is the source of truth and ids in it never change.

Coverage is computed from citations, never from a hand-kept list: a clause is
covered by a rule when its id appears in the source of ``wforacle`` itself,
and by a test when its id appears in a file under ``tests/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache
from importlib import resources
from pathlib import Path

import attrs
import yaml

from wforacle.properties.clauses.configs import CONFIGS

__all__ = ["CONFIGS", "Catalogue", "Citation", "Clause", "Coverage", "catalogue_path", "load"]

CLAUSE_ID = re.compile(r"\b(?:W6W|HX|WF|ST)-[A-Z]+-\d+\b")


@attrs.frozen
class Clause:
    """One normative sentence of a specification."""

    id: str
    section: str
    line: int
    kind: str
    text: str


@attrs.frozen
class Catalogue:
    """All catalogued clauses of one specification, in document order."""

    spec: str
    file: str
    clauses: tuple[Clause, ...]

    def ids(self) -> set[str]:
        """Every clause id of the catalogue."""
        return {c.id for c in self.clauses}

    def __getitem__(self, clause_id: str) -> Clause:
        for clause in self.clauses:
            if clause.id == clause_id:
                return clause
        raise KeyError(clause_id)


def catalogue_path(spec: str) -> Path:
    """The catalogue file of ``spec`` in the source tree (for the extractor)."""
    return Path(str(resources.files(__name__).joinpath(f"{spec}.yaml")))


@cache
def load(spec: str) -> Catalogue:
    """Load the catalogue of ``spec`` (``w6w``, …)."""
    if spec not in CONFIGS:
        raise KeyError(f"no clause catalogue for spec {spec!r}; known: {', '.join(CONFIGS)}")
    data = yaml.safe_load(resources.files(__name__).joinpath(f"{spec}.yaml").read_text("utf-8"))
    clauses = tuple(Clause(**c) for c in data["clauses"])
    return Catalogue(data["spec"], data["file"], clauses)


def clause_text(clause_id: str) -> str:
    """The catalogued text of ``clause_id`` (for messages and explanations)."""
    prefix = clause_id.split("-", 1)[0]
    spec = next((s for s, config in CONFIGS.items() if config.prefix == prefix), prefix.lower())
    return load(spec)[clause_id].text


@attrs.frozen
class Citation:
    """A place in code or tests that names a clause id."""

    clause: str
    file: str
    line: int


def scan(files: Iterable[tuple[str, str]]) -> Iterator[Citation]:
    """Yield the clause ids cited in ``(name, text)`` files."""
    for name, text in files:
        for number, line in enumerate(text.splitlines(), start=1):
            for match in CLAUSE_ID.finditer(line):
                yield Citation(match.group(0), name, number)


def package_sources() -> Iterator[tuple[str, str]]:
    """The Python and grammar sources of the installed ``wforacle`` package."""
    import wforacle.grammar
    import wforacle.model
    import wforacle.oracle
    import wforacle.properties

    skip = {"clauses"}  # the catalogue machinery names ids without implementing them
    for package in (wforacle.model, wforacle.grammar, wforacle.properties, wforacle.oracle):
        root = resources.files(package)
        yield from _walk(root, package.__name__, skip)


def _walk(node: object, name: str, skip: set[str]) -> Iterator[tuple[str, str]]:
    for child in node.iterdir():  # type: ignore[attr-defined]
        child_name = f"{name}/{child.name}"
        if child.is_dir():
            if child.name not in skip and child.name != "__pycache__":
                yield from _walk(child, child_name, skip)
        elif child.name.endswith((".py", ".lark")):
            yield child_name, child.read_text("utf-8")


def test_sources(tests_dir: Path) -> Iterator[tuple[str, str]]:
    """The test files under ``tests_dir``."""
    for path in sorted(tests_dir.rglob("*.py")):
        yield str(path.relative_to(tests_dir.parent)), path.read_text("utf-8")


def default_tests_dir() -> Path | None:
    """``tests/`` of the source checkout the package runs from, if any."""
    import wforacle.model

    here = Path(str(resources.files(wforacle.model)))
    for parent in here.parents:
        if (parent / "pyproject.toml").exists() and (parent / "tests").is_dir():
            return parent / "tests"
    return None


@attrs.frozen
class Coverage:
    """Which rules and tests cite which clauses of one catalogue."""

    catalogue: Catalogue
    rules: dict[str, tuple[Citation, ...]]
    tests: dict[str, tuple[Citation, ...]]
    unknown: tuple[Citation, ...]  # cited ids the catalogue does not have
    tests_scanned: bool

    @classmethod
    def compute(cls, spec: str, tests_dir: Path | None) -> Coverage:
        """Scan the package (and ``tests_dir``) for citations of ``spec``."""
        catalogue = load(spec)
        ids = catalogue.ids()
        prefix = catalogue.clauses[0].id.split("-", 1)[0] + "-"
        rules: dict[str, list[Citation]] = {}
        tests: dict[str, list[Citation]] = {}
        unknown: list[Citation] = []
        sources: list[tuple[dict[str, list[Citation]], Iterable[tuple[str, str]]]] = [
            (rules, package_sources())
        ]
        if tests_dir is not None:
            sources.append((tests, test_sources(tests_dir)))
        for bucket, files in sources:
            for citation in scan(files):
                if not citation.clause.startswith(prefix):
                    continue
                if citation.clause in ids:
                    bucket.setdefault(citation.clause, []).append(citation)
                else:
                    unknown.append(citation)
        return cls(
            catalogue,
            {k: tuple(v) for k, v in rules.items()},
            {k: tuple(v) for k, v in tests.items()},
            tuple(unknown),
            tests_dir is not None,
        )

    def figures(self) -> dict[str, int]:
        """Counts of clauses covered by rules, by tests, and by both."""
        ids = [c.id for c in self.catalogue.clauses]
        return {
            "clauses": len(ids),
            "by_rules": sum(1 for i in ids if i in self.rules),
            "by_tests": sum(1 for i in ids if i in self.tests),
            "by_both": sum(1 for i in ids if i in self.rules and i in self.tests),
        }
