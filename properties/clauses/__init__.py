"""The clause catalogue: every normative sentence of a specification, with an id.

A catalogue is a YAML file beside this module (``w6w.yaml``) holding, per
clause, a stable id (``W6W-EDGE-3``), the section heading, the line of the
specification file it stands on, its kind (must, should, testably, rule …)
and its exact text.  ``extract.py`` proposes clauses from the specification
text; the YAML is the source of truth and ids in it never change.

Coverage is computed from citations, never from a hand-kept list.  A clause
is *covered* only when both hold: a rule site names it (its id appears in
the source of ``wforacle`` itself — ``model/``, ``grammar/``, ``properties/``,
``oracle/``) and a test names it (its id appears in a file under ``tests/``).
A clause named only by rules, only by tests, or by neither is reported as
such.  The Hypothesis strategies (``properties/strategies/``) aim generation
at a clause without implementing it: their citations are listed apart as
generators and are not rule sites.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from collections.abc import Iterable, Iterator
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import attrs
import yaml

from wforacle.properties.clauses.configs import CONFIGS

__all__ = [
    "CONFIGS",
    "Catalogue",
    "Citation",
    "Clause",
    "Coverage",
    "catalogue_path",
    "load",
    "read_yaml",
]

CLAUSE_ID = re.compile(r"\b(?:W6W|HX|WFS|WF|ST)-[A-Z]+-\d+\b")

# Citations here steer generation towards a clause; they implement nothing.
GENERATORS = "wforacle.properties/strategies/"


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


# libyaml's parser when PyYAML was built with it (its wheels are): the w6w catalogue took
# 0.19 s of CPU to parse in Python, 0.02 s in C, paid by every command that reports
# coverage — a sharded campaign's parent, after its shards (issue 16).
_LOADER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(text: str) -> Any:
    """The data of a YAML text of the project's own (catalogues, assumption titles): safe."""
    return yaml.load(text, Loader=_LOADER)  # a safe loader, C or Python


@cache
def load(spec: str) -> Catalogue:
    """Load the catalogue of ``spec`` (``w6w``, …)."""
    if spec not in CONFIGS:
        raise KeyError(f"no clause catalogue for spec {spec!r}; known: {', '.join(CONFIGS)}")
    data = read_yaml(resources.files(__name__).joinpath(f"{spec}.yaml").read_text("utf-8"))
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
    owner: str = "<module>"  # the function or class whose text holds the citation

    def site(self) -> str:
        """``file:line owner``, for reports."""
        return f"{self.file}:{self.line} {self.owner}"


def scan(files: Iterable[tuple[str, str]]) -> Iterator[Citation]:
    """Yield the clause ids cited in ``(name, text)`` files."""
    for name, text in files:
        owners: list[tuple[int, int, str]] | None = None
        for number, line in enumerate(text.splitlines(), start=1):
            for match in CLAUSE_ID.finditer(line):
                if owners is None:
                    owners = _definitions(text) if name.endswith(".py") else []
                yield Citation(match.group(0), name, number, _owner(owners, number))


def _definitions(text: str) -> list[tuple[int, int, str]]:
    """``(first, last, qualified name)`` of every function and class of a module."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    found: list[tuple[int, int, str]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                found.append((first, child.end_lineno or child.lineno, name))
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def _owner(definitions: list[tuple[int, int, str]], line: int) -> str:
    """The innermost definition spanning ``line``, or ``<module>``."""
    spanning = [d for d in definitions if d[0] <= line <= d[1]]
    return max(spanning, key=lambda d: d[0])[2] if spanning else "<module>"


# The distribution's packages, as pyproject.toml's package-dir installs them.
PACKAGES = ("wforacle.model", "wforacle.grammar", "wforacle.properties", "wforacle.oracle")


def package_sources() -> Iterator[tuple[str, str]]:
    """The Python and grammar sources of the installed ``wforacle`` package.

    Read as text from where each package is installed, never imported: the
    catalogue sits in a lower layer than the oracle whose sources it scans
    (docs/architecture.md, "Layers").
    """
    skip = {"clauses"}  # the catalogue machinery names ids without implementing them
    for package in PACKAGES:
        yield from _walk(_source_folder(package), package, skip)


def _source_folder(package: str) -> Path:
    """The folder ``package`` is installed from, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"package {package!r} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _walk(node: Path, name: str, skip: set[str]) -> Iterator[tuple[str, str]]:
    for child in node.iterdir():
        child_name = f"{name}/{child.name}"
        if child.is_dir():
            if child.name not in skip and child.name != "__pycache__":
                yield from _walk(child, child_name, skip)
        elif child.name.endswith((".py", ".lark")):
            yield child_name, child.read_text("utf-8")


# The catalogue's own tests name ids to check the catalogue, not the rules.
CATALOGUE_TESTS = frozenset({"test_clauses.py"})


def test_sources(tests_dir: Path) -> Iterator[tuple[str, str]]:
    """The test files under ``tests_dir``, the catalogue's own tests aside."""
    for path in sorted(tests_dir.rglob("*.py")):
        if path.name in CATALOGUE_TESTS or not path.is_file():  # a dangling link, a folder
            continue
        # A test file that is not UTF-8 still cites what it can (issue 19: it was exit 3).
        text = path.read_bytes().decode("utf-8", errors="replace")
        yield str(path.relative_to(tests_dir.parent)), text


def default_tests_dir() -> Path | None:
    """``tests/`` of the source checkout the package runs from, if any."""
    here = _source_folder("wforacle.model")
    for parent in here.parents:
        if (parent / "pyproject.toml").exists() and (parent / "tests").is_dir():
            return parent / "tests"
    return None


@attrs.frozen
class Coverage:
    """Which rules, tests and generators cite which clauses of one catalogue."""

    catalogue: Catalogue
    rules: dict[str, tuple[Citation, ...]]
    tests: dict[str, tuple[Citation, ...]]
    unknown: tuple[Citation, ...]  # cited ids the catalogue does not have
    tests_scanned: bool
    generators: dict[str, tuple[Citation, ...]] = attrs.field(factory=dict)

    @classmethod
    def compute(cls, spec: str, tests_dir: Path | None) -> Coverage:
        """Scan the package (and ``tests_dir``) for citations of ``spec``."""
        catalogue = load(spec)
        ids = catalogue.ids()
        prefix = catalogue.clauses[0].id.split("-", 1)[0] + "-"
        rules: dict[str, list[Citation]] = {}
        generators: dict[str, list[Citation]] = {}
        tests: dict[str, list[Citation]] = {}
        unknown: list[Citation] = []
        found: list[tuple[bool, Citation]] = [(False, c) for c in scan(package_sources())]
        if tests_dir is not None:
            found += [(True, c) for c in scan(test_sources(tests_dir))]
        for is_test, citation in found:
            if not citation.clause.startswith(prefix):
                continue
            if citation.clause not in ids:
                unknown.append(citation)
                continue
            if is_test:
                bucket = tests
            elif citation.file.startswith(GENERATORS):
                bucket = generators
            else:
                bucket = rules
            bucket.setdefault(citation.clause, []).append(citation)
        return cls(
            catalogue,
            {k: tuple(v) for k, v in rules.items()},
            {k: tuple(v) for k, v in tests.items()},
            tuple(unknown),
            tests_dir is not None,
            {k: tuple(v) for k, v in generators.items()},
        )

    def status(self, clause_id: str) -> str:
        """``covered`` (a rule and a test), ``rules-only``, ``tests-only`` or ``uncovered``."""
        by_rules, by_tests = clause_id in self.rules, clause_id in self.tests
        if by_rules and by_tests:
            return "covered"
        if by_rules:
            return "rules-only"
        return "tests-only" if by_tests else "uncovered"

    def rule_sites(self, clause_id: str) -> list[str]:
        """The distinct ``file owner`` places whose code cites ``clause_id``."""
        sites = {f"{c.file} {c.owner}": None for c in self.rules.get(clause_id, ())}
        return list(sites)

    def test_files(self, clause_id: str) -> list[str]:
        """The distinct test files that cite ``clause_id``."""
        return list({c.file: None for c in self.tests.get(clause_id, ())})

    def figures(self) -> dict[str, int]:
        """Counts of clauses per status, and cited by rules, by tests, by both."""
        ids = [c.id for c in self.catalogue.clauses]
        statuses = [self.status(i) for i in ids]
        return {
            "clauses": len(ids),
            "by_rules": sum(1 for i in ids if i in self.rules),
            "by_tests": sum(1 for i in ids if i in self.tests),
            "by_both": statuses.count("covered"),
            "covered": statuses.count("covered"),
            "rules_only": statuses.count("rules-only"),
            "tests_only": statuses.count("tests-only"),
            "uncovered": statuses.count("uncovered"),
            "by_generators": sum(1 for i in ids if i in self.generators),
        }

    def sections(self) -> dict[str, dict[str, int]]:
        """Per section code (``PLAN``, ``EDGE`` …): its clauses and how many are covered."""
        result: dict[str, dict[str, int]] = {}
        for clause in self.catalogue.clauses:
            code = clause.id.split("-")[1]
            counts = result.setdefault(code, {"clauses": 0, "covered": 0})
            counts["clauses"] += 1
            counts["covered"] += self.status(clause.id) == "covered"
        return result
