"""``wforacle review``: the specification reviewer's view (issue 17, part 4; docs/review.md).

For one specification (or all): the clause catalogue with its coverage
(rules and tests citing each clause, properties/clauses), the assumptions
docs/assumptions.md records for it, and every finding of
docs/spec-review.md re-checked by running its witness.

A witness is a file ``docs/findings/F-NN.json`` (the schema is
docs/findings/witness.schema.json)::

    {"finding": "F-02", "spec": "w6w",
     "observation": "the two tie-breaks plan the document differently",
     "files": {"doc.json": {...}},                # written to a temporary folder
     "runs": [{"args": ["plan", "{doc.json}", "--json"],   # {name}: that file's path
               "stdin": "...",                    # optional
               "exit": 0,                         # the exit code expected
               "json": {"/order": ["a", "b"]},    # JSON pointers into stdout → values
               "some": {"/outcomes": [{"/status": "failed"}]},  # a member of the array has these
               "stdout": ["text"],                # substrings stdout must hold
               "absent": ["text"]}]}              # substrings it must not

Each run is ``wforacle ARGS`` in this process.  A finding *holds* when
every run of its witness gives what it expects; one that no longer holds
is what a model change silently made false, and ``review`` exits 1.  A
finding without a witness is reported as such, and exits 1 too: every
finding is to be re-checkable.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from wforacle.model.diagnostics import InvalidInput

JSON = Any

FINDING = re.compile(r"^## (F-\d+) — (.+?) \(([^,)]+)", re.M)
ASSUMPTION = re.compile(r"^## (A-\d+) — (.+)$", re.M)
# The specification a finding's heading names, as review's --spec spells it.
SPEC_NAMES = {
    "w6w": "w6w",
    "harness": "harness",
    "workfile": "workfile",
    "workfile stateful profile": "workfile",
}
PREFIXES = {"w6w": ("W6W-",), "harness": ("HX-",), "workfile": ("WF-", "WFS-")}
PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_.-]+)\}")
# The command line's ``main`` (argv → exit code), given by the command line that
# runs review: review sits below it and never imports it (docs/architecture.md).
Command = Callable[[list[str]], int]


class BadWitness(InvalidInput):
    """A witness file that cannot be run as written."""


@attrs.frozen
class Finding:
    """One finding of docs/spec-review.md."""

    id: str
    title: str
    spec: str


@attrs.frozen
class Checked:
    """A finding and what re-running its witness showed."""

    finding: Finding
    status: str  # holds | no longer holds | no witness | bad witness
    observation: str = ""
    problems: tuple[str, ...] = ()

    def to_json(self) -> dict[str, JSON]:
        """As ``review --json`` prints it."""
        return {
            "finding": self.finding.id,
            "title": self.finding.title,
            "spec": self.finding.spec,
            "status": self.status,
            "observation": self.observation,
            "problems": list(self.problems),
        }


def findings(review: str) -> list[Finding]:
    """The findings of a spec-review text, in order."""
    found = []
    for match in FINDING.finditer(review):
        spec = SPEC_NAMES.get(match.group(3).strip().lower())
        if spec is None:
            raise BadWitness(f"{match.group(1)}: no specification named {match.group(3)!r}")
        found.append(Finding(match.group(1), match.group(2), spec))
    return found


# The numbers docs/assumptions.md gave each specification's entries as they were
# written: the owner of an entry that cites no clause (A-20: JSON Logic is w6w's).
NUMBERED = {"w6w": range(1, 60), "harness": range(60, 100), "workfile": range(100, 154)}


def assumptions(text: str, spec: str) -> list[tuple[str, str]]:
    """The assumptions (id, title) of docs/assumptions.md that belong to ``spec``.

    An entry belongs to the specifications whose clauses it cites; one that
    cites none, to the specification its number was allotted to (``NUMBERED``;
    A-154, on JSON input, to none).
    """
    sections = ASSUMPTION.split(text)[1:]  # id, title, body, id, title, body, …
    chosen = []
    for index in range(0, len(sections), 3):
        ident, title, body = sections[index : index + 3]
        cites = {
            name
            for name, prefixes in PREFIXES.items()
            if any(prefix in title or prefix in body for prefix in prefixes)
        }
        if spec in cites or (not cites and int(ident[2:]) in NUMBERED[spec]):
            chosen.append((ident, title.strip()))
    return chosen


def check_finding(finding: Finding, directory: Path, command: Command) -> Checked:
    """Run ``finding``'s witness under ``directory`` (docs/findings) and say whether it holds."""
    path = directory / f"{finding.id}.json"
    if not path.is_file():
        return Checked(finding, "no witness", problems=(f"{path} does not exist",))
    try:
        witness = json.loads(path.read_text("utf-8"))
        runs = _runs(witness, finding)
    except (ValueError, OSError) as exc:
        return Checked(finding, "bad witness", problems=(f"{path}: {exc}",))
    observation = str(witness.get("observation", ""))
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix=f"wforacle-{finding.id}-") as folder:
        try:
            paths = _write_files(witness.get("files", {}), Path(folder))
        except BadWitness as exc:
            return Checked(finding, "bad witness", problems=(f"{path}: {exc}",))
        for number, run in enumerate(runs, start=1):
            problems += [f"run {number} ({_shown(run)}): {p}" for p in _run(run, paths, command)]
    status = "holds" if not problems else "no longer holds"
    return Checked(finding, status, observation, tuple(problems))


def _runs(witness: JSON, finding: Finding) -> list[dict[str, JSON]]:
    """The witness's runs, checked for shape; BadWitness names what is wrong."""
    if not isinstance(witness, dict) or witness.get("finding") != finding.id:
        raise BadWitness(f"not the witness of {finding.id} (its 'finding' member)")
    runs = witness.get("runs")
    if not isinstance(runs, list) or not runs:
        raise BadWitness("'runs' must be a non-empty array")
    for run in runs:
        args = run.get("args") if isinstance(run, dict) else None
        if not isinstance(args, list) or not args or not all(isinstance(a, str) for a in args):
            raise BadWitness("each run needs 'args', a non-empty array of strings")
        if not isinstance(run.get("exit"), int):
            raise BadWitness("each run needs 'exit', the exit code expected")
    return runs


def _write_files(files: Mapping[str, JSON], folder: Path) -> dict[str, str]:
    """Write the witness's files; a string is written as text, anything else as JSON."""
    if not isinstance(files, dict):
        raise BadWitness("'files' must be an object: name → content")
    paths = {}
    for name, content in files.items():
        if "/" in name or name in ("", ".", ".."):
            raise BadWitness(f"file name {name!r}: a plain name, no folders")
        target = folder / name
        text = content if isinstance(content, str) else json.dumps(content, indent=2)
        target.write_text(text, encoding="utf-8")
        paths[name] = str(target)
    return paths


def _shown(run: Mapping[str, JSON]) -> str:
    return "wforacle " + " ".join(run["args"])


def _run(run: Mapping[str, JSON], paths: Mapping[str, str], command: Command) -> list[str]:
    """Run one command of a witness; what it gave that the witness does not expect."""
    args = [PLACEHOLDER.sub(lambda m: paths.get(m.group(1), m.group(0)), a) for a in run["args"]]
    code, out, err = invoke(command, args, run.get("stdin"))
    problems = []
    if code != run["exit"]:
        problems.append(
            f"exit {code}, expected {run['exit']}" + (f": {err.strip()}" if err else "")
        )
    for text in run.get("stdout", []):
        if text not in out:
            problems.append(f"stdout lacks {text!r}")
    for text in run.get("absent", []):
        if text in out:
            problems.append(f"stdout holds {text!r}")
    expected = run.get("json") or {}
    some = run.get("some") or {}
    if expected or some:
        try:
            document = json.loads(out)
        except ValueError:
            return [*problems, "stdout is not JSON"]
        for pointer, value in expected.items():
            found = pointed(document, pointer)
            if found != value:
                problems.append(f"{pointer} is {json.dumps(found)}, expected {json.dumps(value)}")
        for pointer, wanted in some.items():
            problems += _some(pointed(document, pointer), pointer, wanted)
    return problems


def _some(members: JSON, pointer: str, wanted: JSON) -> list[str]:
    """``some``: each pattern matches at least one member of the array at ``pointer``.

    A pattern maps JSON pointers into a member to the values expected there,
    so a witness names an outcome of ``explore`` by what it is, not by where
    the search happened to list it.
    """
    if not isinstance(members, list):
        return [f"{pointer} is not an array"]
    patterns = wanted if isinstance(wanted, list) else [wanted]
    return [
        f"no member of {pointer} has {json.dumps(pattern)}"
        for pattern in patterns
        if not any(all(pointed(m, k) == v for k, v in pattern.items()) for m in members)
    ]


def invoke(command: Command, args: Sequence[str], stdin: str | None = None) -> tuple[int, str, str]:
    """``wforacle ARGS`` in this process, ``command`` being the CLI's ``main``.

    The exit code, stdout and stderr.
    """
    import sys

    # Text streams with bytes beneath, as a real stdin and stdout: the line tools
    # (w6w resolve, jsonlogic eval) read sys.stdin.buffer and write sys.stdout.buffer,
    # and a FILE of '-' reads sys.stdin.buffer.
    written = io.BytesIO()
    out = io.TextIOWrapper(written, encoding="utf-8", write_through=True)
    err = io.StringIO()
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO((stdin or "").encode("utf-8")), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = command(list(args))
            except SystemExit as exc:  # argparse's usage error (exit 2) and --help (exit 0)
                code = exc.code if isinstance(exc.code, int) else 2
        out.flush()
        text = written.getvalue().decode("utf-8", errors="replace")
    finally:
        sys.stdin = saved
    return code, text, err.getvalue()


def pointed(document: JSON, pointer: str) -> JSON:
    """The value at a JSON pointer (RFC 6901); ``"<absent>"`` where there is none."""
    if pointer in ("", "/"):
        return document
    value = document
    for token in pointer.lstrip("/").split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return "<absent>"
    return value


def default_docs() -> Path | None:
    """``docs/`` of the source checkout the package runs from, if any."""
    from wforacle.properties.clauses import default_tests_dir

    tests = default_tests_dir()
    return None if tests is None else tests.parent / "docs"


def review_specs(spec: str) -> list[str]:
    """The specifications ``--spec`` names (``all``: every one)."""
    return list(PREFIXES) if spec == "all" else [spec]


def checked(docs: Path, specs: Sequence[str], command: Command) -> Iterator[Checked]:
    """Every finding of ``specs`` in docs/spec-review.md, its witness re-run."""
    for finding in findings((docs / "spec-review.md").read_text("utf-8")):
        if finding.spec in specs:
            yield check_finding(finding, docs / "findings", command)
