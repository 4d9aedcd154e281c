"""Differential evaluation of JSON Logic against third-party implementations.

``NodeJsonLogic`` drives one persistent Node.js process (``js/
jsonlogic_worker.cjs``) over JSON lines, with a timeout per request and a
restart when the process dies, so a misbehaving reference can never hang the
campaign.  ``compare`` classifies each pair of outcomes; every divergence
class is explained in docs/jsonlogic.md.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import attrs

from wforacle.model.expr.jsonlogic import JsonLogicError, evaluate, to_json
from wforacle.properties.strategies.hermetic import hermetic

JS_TAG = "$js"


class ReferenceUnavailable(Exception):
    """Node.js or the reference package is not installed."""


class ReferenceFault(Exception):
    """The reference process crashed, hung, or answered garbage."""


def node_modules() -> Path | None:
    """``tests/differential/node_modules`` of the source checkout, or $WFORACLE_NODE_MODULES."""
    if env := os.environ.get("WFORACLE_NODE_MODULES"):
        return Path(env)
    import wforacle.model

    here = Path(str(resources.files(wforacle.model)))
    for parent in here.parents:
        candidate = parent / "tests" / "differential" / "node_modules"
        if candidate.is_dir():
            return candidate
    return None


class NodeJsonLogic:
    """A persistent json-logic-js (``js``) or json-logic-engine (``engine``) process."""

    def __init__(self, implementation: str = "js", timeout: float = 5.0) -> None:
        self.implementation = implementation
        self.timeout = timeout
        self.node = shutil.which("node")
        self.modules = node_modules()
        package = "json-logic-js" if implementation == "js" else "json-logic-engine"
        if self.node is None:
            raise ReferenceUnavailable("node is not on PATH")
        if self.modules is None or not (self.modules / package).is_dir():
            raise ReferenceUnavailable(
                f"{package} is not installed (npm ci --prefix tests/differential)"
            )
        self.process: subprocess.Popen[str] | None = None
        self.restarts = 0

    def _start(self) -> subprocess.Popen[str]:
        worker = resources.files("wforacle.oracle").joinpath("js/jsonlogic_worker.cjs")
        env = {**os.environ, "NODE_PATH": str(self.modules)}
        return subprocess.Popen(
            [str(self.node), str(worker), self.implementation],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            bufsize=1,
        )

    def apply(self, rule: Any, data: Any) -> dict[str, Any]:
        """``{"value": V}`` or ``{"error": {...}}`` from the reference."""
        if self.process is None or self.process.poll() is not None:
            self.process = self._start()
        process = self.process
        assert process.stdin is not None and process.stdout is not None
        line: list[str] = []

        def read() -> None:
            line.append(process.stdout.readline())  # type: ignore[union-attr]

        try:
            process.stdin.write(json.dumps({"rule": rule, "data": data}) + "\n")
            process.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            self._restart()
            raise ReferenceFault(f"reference process died: {exc}") from None
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(self.timeout)
        if reader.is_alive() or not line or not line[0]:
            self._restart()
            raise ReferenceFault("reference process hung or died")
        try:
            answer = json.loads(line[0])
        except ValueError:
            self._restart()
            raise ReferenceFault(f"reference answered non-JSON: {line[0][:200]!r}") from None
        if not isinstance(answer, dict) or not ({"value", "error"} & answer.keys()):
            raise ReferenceFault(f"reference answered {answer!r}")
        return answer

    def _restart(self) -> None:
        self.close()
        self.restarts += 1

    def close(self) -> None:
        """Stop the process."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


def ours(rule: Any, data: Any) -> dict[str, Any]:
    """Wforacle's outcome in the same shape."""
    try:
        return {"value": to_json(evaluate(rule, data))}
    except JsonLogicError as failure:
        return {"error": {"type": failure.type}}


@attrs.frozen
class Verdict:
    """How two outcomes relate: ``same`` or a divergence class (docs/jsonlogic.md)."""

    kind: str
    ours: dict[str, Any]
    theirs: dict[str, Any]

    @property
    def agrees(self) -> bool:
        """No divergence, or one explained by a recorded choice."""
        return self.kind in AGREEING


AGREEING = {
    "same",
    "both-fail",
    "nan-is-an-error",
    "invalid-arguments-is-an-error",
    "empty-and-or",
    "operand-count",
    "numeric-coercion",
    "missing-empty-path",
    "computed-arguments",
    "substr-string-length",
    "engine-lacks-log",
    "engine-stops-at-falsy",
    "engine-unary-cat",
    "engine-missing-null",
    "engine-substr-non-string",
}

# json-logic-js's operations that read exactly two operands (a further one is ignored).
_BINARY = {"-", "/", "%", "==", "===", "!=", "!==", ">", ">=", "in"}
_BETWEEN = {"<", "<="}  # two operands, or three for "between"


def _operations(rule: Any) -> Iterator[tuple[str, Any]]:
    """Every (operator, raw arguments) pair in a rule."""
    if isinstance(rule, list):
        for item in rule:
            yield from _operations(item)
    elif isinstance(rule, dict):
        for op, args in rule.items():
            yield op, args
            yield from _operations(args)


def _operand_count_differs(rule: Any) -> bool:
    """json-logic-js passes operands positionally; the community reads them all (A-25)."""
    for op, args in _operations(rule):
        count = len(args) if isinstance(args, list) else 1
        if op in _BINARY and count != 2:
            return True
        if op in _BETWEEN and count not in (2, 3):
            return True
        if op in ("+", "*", "max", "min", "substr") and count < 2:
            return True
        if op in ("if", "?:") and count % 2 == 0:
            return True
    return False


def _computed_arguments(rule: Any) -> bool:
    """An operation as the whole argument of another (A-25).

    json-logic-js wraps it (``{"log": X}`` is ``log(X)``); the community
    semantics evaluate it and spread an array result as the argument list.
    """
    return any(isinstance(args, dict) and args for _, args in _operations(rule))


def _substr_non_numeric_length(rule: Any) -> bool:
    """json-logic-js bug: a negative string length is concatenated (``4 + "-2"`` is "4-2")."""
    for op, args in _operations(rule):
        if op == "substr" and isinstance(args, list) and len(args) > 2:
            length = args[2]
            if not (isinstance(length, int | float) and not isinstance(length, bool)):
                return True
    return False


def _empty_and_or(rule: Any) -> bool:
    return any(op in ("and", "or") and args == [] for op, args in _operations(rule))


def _non_numeric_arithmetic(rule: Any) -> bool:
    """json-logic-js coerces + and * operands with parseFloat, the community with Number (A-25)."""
    for op, args in _operations(rule):
        if op in ("+", "*", "-", "/", "%", "<", "<=", ">", ">=", "==", "!=", "max", "min"):
            operands = args if isinstance(args, list) else [args]
            if not all(isinstance(a, int | float) and not isinstance(a, bool) for a in operands):
                return True
    return False


def _undefined_as_null(value: Any) -> Any:
    """JSON has no undefined: JSON.stringify writes it as null inside arrays."""
    if isinstance(value, dict):
        if value == {JS_TAG: "undefined"}:
            return None
        return {k: _undefined_as_null(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_undefined_as_null(v) for v in value]
    return value


def _has_tag(value: Any, tags: set[str]) -> bool:
    if isinstance(value, dict):
        if set(value) == {JS_TAG}:
            return value[JS_TAG] in tags
        return any(_has_tag(v, tags) for v in value.values())
    if isinstance(value, list):
        return any(_has_tag(v, tags) for v in value)
    return False


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON values, with one number type (1 == 1.0) and bool apart from numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return bool(a == b) or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    return bool(type(a) is type(b) and a == b)


def _uses_log(rule: Any) -> bool:
    return any(op == "log" for op, _ in _operations(rule))


def _dotted_path(rule: Any) -> bool:
    """json-logic-engine bug: a path through a falsy value ("" or false) returns that value."""
    return any(op in ("var", "val") and "." in json.dumps(args) for op, args in _operations(rule))


def compare(
    mine: dict[str, Any], theirs: dict[str, Any], rule: Any = None, reference: str = "js"
) -> Verdict:
    """Classify a pair of outcomes (docs/jsonlogic.md lists the classes)."""
    if "value" in theirs:
        theirs = {"value": _undefined_as_null(theirs["value"])}
    if "value" in mine and "value" in theirs and same_json(mine["value"], theirs["value"]):
        return Verdict("same", mine, theirs)
    if "error" in mine and "error" in theirs:
        return Verdict("both-fail", mine, theirs)
    if reference == "engine":
        if _uses_log(rule):
            return Verdict("engine-lacks-log", mine, theirs)
        if _dotted_path(rule):
            return Verdict("engine-stops-at-falsy", mine, theirs)
        if any(op == "cat" and isinstance(a, list) and len(a) == 1 for op, a in _operations(rule)):
            # json-logic-engine calls toString() on a lone operand: null fails.
            return Verdict("engine-unary-cat", mine, theirs)
        if any(op == "substr" for op, _ in _operations(rule)):
            # json-logic-engine calls .substr on the operand itself: a non-string fails.
            return Verdict("engine-substr-non-string", mine, theirs)
        if any(op in ("missing", "missing_some") for op, _ in _operations(rule)):
            # json-logic-engine counts only undefined as missing; json-logic-js
            # (and wforacle) also a present null or "".
            return Verdict("engine-missing-null", mine, theirs)
    if "error" in mine and "value" in theirs:
        kind = mine["error"]["type"]
        if kind == "NaN":
            return Verdict("nan-is-an-error", mine, theirs)
        if kind == "Invalid Arguments":
            return Verdict("invalid-arguments-is-an-error", mine, theirs)
    for kind, explains in (
        ("missing-empty-path", _names_empty_path),
        ("empty-and-or", _empty_and_or),
        ("operand-count", _operand_count_differs),
        ("numeric-coercion", _non_numeric_arithmetic),
        ("computed-arguments", _computed_arguments),
        ("substr-string-length", _substr_non_numeric_length),
    ):
        if explains(rule):
            return Verdict(kind, mine, theirs)
    return Verdict("divergence", mine, theirs)


def _names_empty_path(rule: Any) -> bool:
    """Whether a ``missing``/``missing_some`` in ``rule`` names the empty path (A-24)."""
    if isinstance(rule, list):
        return any(_names_empty_path(r) for r in rule)
    if not isinstance(rule, dict):
        return False
    for op, args in rule.items():
        if op in ("missing", "missing_some") and _has_empty(args):
            return True
        if _names_empty_path(args):
            return True
    return False


def _has_empty(value: Any) -> bool:
    if value == "":
        return True
    if isinstance(value, list):
        return any(_has_empty(v) for v in value)
    return False


@attrs.frozen
class CampaignResult:
    """Counts of verdict kinds, and the first few cases of each non-"same" kind."""

    counts: dict[str, int]
    samples: dict[str, list[dict[str, Any]]]
    faults: int


def campaign(reference: NodeJsonLogic, examples: int, seed: int, *, typed: bool) -> CampaignResult:
    """A seeded Hypothesis campaign: the same seed draws the same cases."""
    from collections import Counter

    import hypothesis
    from hypothesis import HealthCheck, Phase, given, settings

    from wforacle.properties.strategies.jsonlogic import data, rules, typed_cases

    counts: Counter[str] = Counter()
    samples: dict[str, list[dict[str, Any]]] = {}
    faults = 0
    strategy = typed_cases() if typed else hypothesis.strategies.tuples(rules(), data())

    @hypothesis.seed(seed)
    @settings(
        max_examples=examples,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def run(case: tuple[Any, Any]) -> None:
        nonlocal faults
        rule, values = case
        try:
            theirs = reference.apply(rule, values)
        except ReferenceFault:
            faults += 1
            return
        verdict = compare(ours(rule, values), theirs, rule, reference.implementation)
        counts[verdict.kind] += 1
        if verdict.kind != "same" and len(samples.setdefault(verdict.kind, [])) < 3:
            samples[verdict.kind].append(
                {"rule": rule, "data": values, "ours": verdict.ours, "theirs": verdict.theirs}
            )

    with hermetic():
        run()
    return CampaignResult(dict(counts.most_common()), samples, faults)
