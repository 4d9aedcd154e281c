"""``wforacle protocol-selftest``: walk an engine adapter through the protocol, step by step.

Each check names the protocol rule it exercises (docs/engine-protocol.md)
and says, on failure, which message departed and how.  The checks run in
order and stop at the first that leaves the engine unusable.  The cases are
the specification's own (``Specification.selftest``, ``.concurrent``), so
each engine is sent documents of the specification it implements.
"""

from __future__ import annotations

from typing import Any

import attrs

from wforacle.oracle.engine import Engine, Fault, judge
from wforacle.properties.specification import Specification

JSON = Any


@attrs.frozen
class Check:
    """One protocol check and its result."""

    name: str
    ok: bool
    detail: str


def selftest(
    spec: Specification, command: str, timeout: float = 10.0, profile: str | None = None
) -> list[Check]:
    """Run the protocol checks of ``spec`` against ``command`` (of its ``profile``'s cases)."""
    checks: list[Check] = []
    engine = Engine(command, timeout=timeout)
    try:
        engine.start()
    except Fault as fault:
        return [Check("starts and says ready (protocol 1)", False, f"{fault.kind}: {fault}")]
    checks.append(
        Check("starts and says ready (protocol 1)", True, f"engine {engine.hello.get('engine')!r}")
    )
    cases, concurrent = spec.selftest(profile)
    for name, case in cases:
        judgement = judge(engine, spec, {**case, "schedule": []})
        if judgement.verdict == "pass":
            checks.append(Check(name, True, "trace, invocations and final state match"))
        elif judgement.fault is not None:
            checks.append(Check(name, False, f"{judgement.fault.kind}: {judgement.fault.message}"))
        else:
            assert judgement.divergence is not None
            d = judgement.divergence
            checks.append(
                Check(name, False, f"event {d.index}: {d.message}; observed {d.observed}")
            )
    if concurrent is not None:
        checks.append(_concurrency(spec, concurrent, engine))
    checks.append(_shutdown(engine))
    return checks


def _concurrency(spec: Specification, concurrent: JSON, engine: Engine) -> Check:
    """Concurrent invocations are all sent before ``wait``, so the oracle can order them."""
    name = "concurrent invocations are outstanding together before wait"
    case = {**concurrent, "schedule": []}
    prepared = spec.prepare(case, None)
    protocol = spec.protocol()
    outstanding: list[tuple[JSON, str]] = []
    counts: dict[str, int] = {}
    most = 0
    try:
        if engine.process is None:
            engine.start()
        engine.write(prepared.request)
        for _ in range(1000):
            message = engine.read()
            kind = message.get("type") if isinstance(message, dict) else None
            if kind == "invoke":
                unit = message.get(protocol.unit)
                if not isinstance(unit, str) or not protocol.known(prepared, unit):
                    return Check(name, False, f"an invoke of no unit of this case: {message}")
                outstanding.append((message.get("call"), unit))
                most = max(most, len(outstanding))
            elif kind == "wait":
                if not outstanding:
                    return Check(name, False, "wait with no invocation outstanding")
                call, unit = outstanding.pop(0)
                counts[unit] = counts.get(unit, 0) + 1
                answer = protocol.answer(prepared, unit, counts[unit])
                engine.write({"type": "result", "call": call, **answer})
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
    if engine.process is not None and engine.process.poll() is not None:
        engine.stop()  # an earlier check left it dead: shutdown is checked on a fresh one
    if engine.process is None:
        try:
            engine.start()
        except Fault as fault:
            return Check(name, False, f"cannot restart the engine: {fault.kind}: {fault}")
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
