"""``wforacle protocol-selftest``: walk an engine adapter through the protocol, step by step.

Each check names the protocol rule it exercises (docs/engine-protocol.md)
and says, on failure, which message departed and how.  The checks run in
order and stop at the first that leaves the engine unusable.
"""

from __future__ import annotations

from typing import Any

import attrs

from wforacle.oracle.engine import Engine, Fault, judge

JSON = Any


@attrs.frozen
class Check:
    """One protocol check and its result."""

    name: str
    ok: bool
    detail: str


def _doc(*steps: JSON, edges: list[JSON] | None = None) -> JSON:
    doc: dict[str, JSON] = {"manifestVersion": "2", "id": "wf_selftest", "name": "selftest"}
    doc["steps"] = list(steps)
    if edges is not None:
        doc["edges"] = edges
    return doc


def _step(step_id: str, **extra: JSON) -> JSON:
    return {"id": step_id, "uses": {"app": "demo", "action": "run"}, **extra}


CASES = [
    (
        "one step succeeds (run, event, invoke, wait, result, done)",
        _doc(_step("a", **{"with": {"x": 1}})),
        {"steps": {"a": {"attempts": [{"output": {"ok": True}}]}}},
    ),
    (
        "a failing step fails the run",
        _doc(_step("a")),
        {"steps": {"a": {"attempts": [{"error": {"code": "boom", "message": "m"}}]}}},
    ),
    (
        "a $ binding reads an upstream output",
        _doc(_step("a"), _step("b", **{"with": {"v": {"$": "steps.a.output"}}})),
        {"steps": {"a": {"attempts": [{"output": 42}]}}},
    ),
]


def selftest(command: str, timeout: float = 10.0) -> list[Check]:
    """Run the protocol checks against ``command``."""
    from wforacle.oracle.fuzz import model_of

    checks: list[Check] = []
    engine = Engine(command, timeout=timeout)
    try:
        engine.start()
    except Fault as fault:
        return [Check("starts and says ready (protocol 1)", False, f"{fault.kind}: {fault}")]
    checks.append(
        Check("starts and says ready (protocol 1)", True, f"engine {engine.hello.get('engine')!r}")
    )
    for name, document, scenario in CASES:
        case = {"document": document, "scenario": scenario, "schedule": []}
        judgement = judge(engine, model_of(case), document, [])
        if judgement.verdict == "pass":
            checks.append(Check(name, True, "trace, invocations and RunState match"))
        elif judgement.fault is not None:
            checks.append(Check(name, False, f"{judgement.fault.kind}: {judgement.fault.message}"))
        else:
            assert judgement.divergence is not None
            d = judgement.divergence
            checks.append(
                Check(name, False, f"event {d.index}: {d.message}; observed {d.observed}")
            )
    checks.append(_concurrency(engine))
    checks.append(_shutdown(engine))
    return checks


def _concurrency(engine: Engine) -> Check:
    """A fan-out exposes both invocations before waiting, so the oracle can order them."""
    name = "concurrent invocations are outstanding together before wait (W6W-FAN-5)"
    document = _doc(
        _step("a", fanOut="parallel"),
        _step("b"),
        _step("c"),
        edges=[{"from": "a", "to": "b"}, {"from": "a", "to": "c"}],
    )
    outstanding: list[JSON] = []
    most = 0
    try:
        if engine.process is None:
            engine.start()
        engine.write({"type": "run", "runId": "run_1", "document": document, "variables": {}})
        for _ in range(1000):
            message = engine.read()
            kind = message.get("type") if isinstance(message, dict) else None
            if kind == "invoke":
                outstanding.append(message.get("call"))
                most = max(most, len(outstanding))
            elif kind == "wait":
                if not outstanding:
                    return Check(name, False, "wait with no invocation outstanding")
                engine.write({"type": "result", "call": outstanding.pop(0), "output": None})
            elif kind == "done":
                break
    except Fault as fault:
        return Check(name, False, f"{fault.kind}: {fault}")
    if most >= 2:
        return Check(name, True, f"{most} invocations outstanding at once")
    return Check(
        name,
        False,
        "never more than one invocation outstanding: the oracle cannot choose completion "
        "orders, so interleavings are not exercised",
    )


def _shutdown(engine: Engine) -> Check:
    name = "exits on shutdown"
    process = engine.process
    if process is None:
        return Check(name, False, "the engine is not running")
    try:
        engine.write({"type": "shutdown"})
    except Fault as fault:
        return Check(name, False, str(fault))
    try:
        process.wait(timeout=engine.timeout)
    except Exception:
        engine.stop()
        return Check(name, False, f"still running {engine.timeout:g} s after shutdown")
    engine.stop()
    return Check(name, True, f"exit code {process.returncode}")
