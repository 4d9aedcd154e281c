"""Campaign coverage by clause (issue 17, part 3): what a green campaign actually tested.

Every transition of a model is labelled with the clauses of the rule that
allows it (``Transition.clauses``).  When the checker matches an engine's
event to a transition, the run has *exercised* those clauses
(``Verdict.exercised``, ``Judgement.exercised``).  A campaign tallies, per
clause, how many of its runs exercised it, and reports against the
specification's catalogue:

- *exercised*: the catalogue clauses some run went through, with the
  number of runs;
- *never reached*: the clauses the model's run rules cite (their ids stand
  in the code of the modules that make transitions, ``RUN_RULES``: in
  string constants, not in docstrings or comments) that no run went
  through: what this campaign did not test, though the model could have;
- the rest of the catalogue (document checks, host and editor duties) is
  counted apart: no run of an engine can exercise it.

Assumption ids (``A-…``) that transitions cite are tallied too, apart from
the clauses: which of the model's readings of open text the runs relied on.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from typing import Any

import attrs

from wforacle.properties.clauses import CLAUSE_ID, load, package_sources

JSON = Any

# The clause catalogues of each specification (properties/clauses/NAME.yaml).
CATALOGUES: Mapping[str, tuple[str, ...]] = {
    "w6w": ("w6w",),
    "harness": ("harness",),
    "workfile": ("workfile", "workfile-stateful"),
}
# The modules whose functions make a specification's transitions (package-relative,
# as properties/clauses scans them): a clause cited there is one a run can exercise.
RUN_RULES: Mapping[str, tuple[str, ...]] = {
    "w6w": (
        "wforacle.model/w6w/rules.py",
        "wforacle.model/w6w/resolve.py",  # a step start cites the resolution features used
        "wforacle.model/w6w/controls.py",
        "wforacle.model/w6w/meta.py",
        "wforacle.model/w6w/run.py",
        "wforacle.model/w6w/semantics.py",
        "wforacle.model/w6w/single_step.py",
    ),
    "harness": (
        "wforacle.model/harness/rules.py",
        "wforacle.model/harness/run.py",
        "wforacle.model/harness/semantics.py",
    ),
    "workfile": (
        "wforacle.model/workfile/run.py",
        "wforacle.model/workfile/stateful.py",
    ),
}


@cache
def catalogue_ids(spec: str) -> tuple[str, ...]:
    """Every clause id of ``spec``'s catalogues, in document order."""
    return tuple(c.id for name in CATALOGUES.get(spec, (spec,)) for c in load(name).clauses)


@cache
def run_clauses(spec: str) -> frozenset[str]:
    """The catalogue clauses ``spec``'s run rules cite (``RUN_RULES``).

    Cited in code: a clause id in a string constant the modules compute
    with, as a transition's clauses are written; an id a docstring or a
    comment names only explains a rule, no transition cites it, and
    counting it made "never reached" list what no run could reach (session
    26: 28 of Workfile's 33 never-reached ids).
    """
    files = set(RUN_RULES.get(spec, ()))
    ids = set(catalogue_ids(spec))
    found: set[str] = set()
    for name, text in package_sources():
        if name in files:
            for constant in code_strings(text):
                found.update(m.group(0) for m in CLAUSE_ID.finditer(constant))
    return frozenset(found & ids)


def code_strings(text: str) -> Iterator[str]:
    """The string constants of a module's code: not its docstrings (nor its comments).

    A statement that is a string alone (a docstring, or a string written as
    a comment) is text for readers; every other string constant is a value.
    """
    tree = ast.parse(text)
    prose = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            yield node.value


@attrs.define
class Tally:
    """The clauses a campaign's runs exercised, counted per run (mutable while it runs)."""

    runs: int = 0
    counts: Counter[str] = attrs.field(factory=Counter)

    def add(self, exercised: Iterable[str]) -> None:
        """Count one run that went through ``exercised``."""
        self.runs += 1
        self.counts.update(set(exercised))

    def include(self, runs: int, counts: Mapping[str, int]) -> None:
        """Add another tally's runs and counts (a shard's, oracle/shards.py)."""
        self.runs += runs
        self.counts.update(counts)

    def freeze(self, spec: str) -> Coverage:
        """The coverage of the runs counted so far, against ``spec``'s catalogue."""
        return Coverage(spec, self.runs, dict(self.counts))


@attrs.frozen
class Coverage:
    """Which clauses a campaign's runs exercised, and which the model cites that they did not."""

    spec: str
    runs: int
    counts: Mapping[str, int]  # clause or assumption id → runs that exercised it

    def exercised(self) -> list[tuple[str, int]]:
        """The catalogue clauses exercised, most runs first (ties in document order)."""
        order = {clause: n for n, clause in enumerate(catalogue_ids(self.spec))}
        found = [(c, k) for c, k in self.counts.items() if c in order]
        return sorted(found, key=lambda item: (-item[1], order[item[0]]))

    def never_reached(self) -> list[str]:
        """The clauses the run rules cite that no run exercised, in document order."""
        cited = run_clauses(self.spec)
        return [c for c in catalogue_ids(self.spec) if c in cited and c not in self.counts]

    def assumptions(self) -> list[tuple[str, int]]:
        """The assumptions (``A-…``) the runs relied on, most runs first."""
        found = [(a, k) for a, k in self.counts.items() if a.startswith("A-")]
        return sorted(found, key=lambda item: (-item[1], int(item[0][2:])))

    def exercised_run_clauses(self) -> int:
        """How many of the clauses the run rules cite some run exercised."""
        cited = run_clauses(self.spec)
        return sum(1 for clause in self.counts if clause in cited)

    def summary(self) -> str:
        """One sentence: the runs, and the clauses they exercised (catalogue, run rules)."""
        return (
            f"{self.runs} runs exercised {len(self.exercised())} of "
            f"{len(catalogue_ids(self.spec))} catalogued; {self.exercised_run_clauses()} of the "
            f"{len(run_clauses(self.spec))} the model's run rules cite"
        )

    def to_json(self) -> dict[str, JSON]:
        """As ``fuzz --json`` prints it (docs/coverage.md)."""
        return {
            "runs": self.runs,
            "catalogued": len(catalogue_ids(self.spec)),
            "runClauses": len(run_clauses(self.spec)),
            "exercisedRunClauses": self.exercised_run_clauses(),
            "exercised": dict(self.exercised()),
            "neverReached": self.never_reached(),
            "assumptions": dict(self.assumptions()),
        }

    def lines(self, listed: int = 12) -> list[str]:
        """The text report: a summary, the least exercised, and what was never reached."""
        exercised = self.exercised()
        never = self.never_reached()
        lines = [f"clauses (docs/coverage.md): {self.summary()}"]
        if exercised:
            rare = exercised[::-1][:listed]  # fewest runs first
            lines.append("  least exercised: " + ", ".join(f"{c} ({k})" for c, k in rare))
        if never:
            shown = ", ".join(never[:listed])
            more = (
                f" and {len(never) - listed} more (--json lists all)" if len(never) > listed else ""
            )
            lines.append(f"  never reached ({len(never)}): {shown}{more}")
        return lines
