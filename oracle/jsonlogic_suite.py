"""Run a JSON Logic community test-suite folder (json-logic/compat-tables format).

A folder holds ``index.json`` (the suite files in order) and the files it
names.  Each file is a JSON array of cases ``{"description", "rule", "data",
"result"}`` or ``{..., "error": {"type": …}}``, with description strings
among them (an entry that is neither makes the folder unreadable).  A case
passes when the evaluator returns ``result`` (numbers compared as JSON
numbers; within 1e-9 relative when the case is marked ``"decimal": true``)
or fails with the expected error ``type``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from wforacle.model.diagnostics import InvalidInput
from wforacle.model.expr.jsonlogic import JsonLogicError, evaluate, to_json
from wforacle.properties.specification import parse_json


@attrs.frozen
class Case:
    """One suite case."""

    file: str
    index: int
    description: str
    rule: Any
    data: Any
    expected: dict[str, Any]  # {"result": v} or {"error": {"type": …}}
    decimal: bool = False


@attrs.frozen
class Outcome:
    """A case and what the evaluator did with it."""

    case: Case
    actual: dict[str, Any]
    passed: bool


class SuiteError(Exception):
    """The folder is not a readable suite (a usage error, not a failing case)."""


def load_cases(folder: Path) -> Iterator[Case]:
    """Every case of the suite folder, in index order."""
    index_path = folder / "index.json"
    names = _read(index_path)
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise SuiteError(f"{index_path}: expected a JSON array of file names")
    for name in names:
        entries = _read(folder / name)
        if not isinstance(entries, list):
            raise SuiteError(f"{folder / name}: expected a JSON array of cases")
        for position, entry in enumerate(entries):
            if isinstance(entry, str):
                continue  # a description or section heading
            if not isinstance(entry, dict):
                raise SuiteError(f"{folder / name}[{position}]: expected a case object")
            if "result" in entry:
                expected = {"result": entry["result"]}
            elif "error" in entry:
                expected = {"error": entry["error"]}
            else:
                raise SuiteError(f"{folder / name}[{position}]: no result and no error")
            yield Case(
                name,
                position,
                str(entry.get("description", "")),
                entry.get("rule"),
                entry.get("data"),
                expected,
                bool(entry.get("decimal", False)),
            )


def _read(path: Path) -> Any:
    """A suite file's strict JSON (lone surrogates allowed: JavaScript strings hold them)."""
    try:
        return parse_json(path.read_bytes(), str(path), surrogates=True)
    except OSError as exc:
        raise SuiteError(f"{path}: {exc.strerror or exc}") from None
    except InvalidInput as exc:
        raise SuiteError(str(exc)) from None


def run_case(case: Case) -> Outcome:
    """Evaluate one case and compare."""
    try:
        actual: dict[str, Any] = {"result": to_json(evaluate(case.rule, case.data))}
    except JsonLogicError as failure:
        actual = {"error": {"type": failure.type}}
    return Outcome(case, actual, _matches(case, actual))


def _matches(case: Case, actual: dict[str, Any]) -> bool:
    if "error" in case.expected:
        expected_type = (
            case.expected["error"].get("type") if isinstance(case.expected["error"], dict) else None
        )
        return "error" in actual and actual["error"]["type"] == expected_type
    if "result" not in actual:
        return False
    return _same_json(case.expected["result"], actual["result"], case.decimal)


def _same_json(expected: Any, actual: Any, decimal: bool) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        if decimal:
            return math.isclose(expected, actual, rel_tol=1e-9, abs_tol=1e-12)
        return bool(expected == actual)
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(
            _same_json(e, a, decimal) for e, a in zip(expected, actual, strict=True)
        )
    if isinstance(expected, dict) and isinstance(actual, dict):
        return expected.keys() == actual.keys() and all(
            _same_json(expected[k], actual[k], decimal) for k in expected
        )
    return bool(type(expected) is type(actual) and expected == actual)


def run_suite(folder: Path) -> list[Outcome]:
    """Every case of the folder, evaluated."""
    return [run_case(case) for case in load_cases(folder)]
