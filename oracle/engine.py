"""The engine protocol: drive a workflow engine over JSON lines and judge each run.

Notation (docs/engine-protocol.md): the oracle plays the w6w host.  It sends
``run``; the engine sends ``event`` (its trace), ``invoke`` (an action call:
the oracle answers with the scenario's ``result`` for that step's next
invocation), ``wait`` (it has sent every invocation it can and blocks for a
result: the oracle picks WHICH outstanding invocation completes, by the
case's schedule — so interleavings are generated, not hoped for),
``checkpoint`` / ``schedule`` (acknowledged), ``log``, and finally ``done``
with its RunState.

A run ends in one of three verdicts, kept apart as the product brief asks:

- ``Pass``: the trace is one the model permits, the final RunState agrees
  with the model's, and the engine invoked exactly the attempts its trace
  reports, with the inputs it reports;
- ``Divergence``: the engine departs from the model — with the first
  divergent event, the events the model permits there and the clauses;
- ``EngineFault``: the engine is broken — ``crash`` (it exited), ``hang``
  (no message within the timeout), ``flood`` (a line or a run too long),
  ``protocol`` (malformed JSON, an unknown message, a result it cannot
  have asked for).  The process is restarted for the next run.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import selectors
import shlex
import subprocess
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import attrs

from wforacle.model.kernel.explore import canonical
from wforacle.model.w6w.resolve import REDACTED, stringify
from wforacle.model.w6w.scenario import Scenario
from wforacle.model.w6w.semantics import W6wRun, config_key, run_state
from wforacle.oracle.check import Divergence, check

JSON = Any
PROTOCOL = 1


@attrs.frozen
class EngineFault:
    """The engine is broken: crash, hang, flood or protocol."""

    kind: str
    message: str

    def to_json(self) -> dict[str, JSON]:
        """The fault as JSON."""
        return {"verdict": "fault", "kind": self.kind, "message": self.message}


@attrs.frozen
class Observation:
    """What one run of the engine showed."""

    trace: tuple[JSON, ...] = attrs.field(eq=False)
    invocations: tuple[tuple[str, JSON], ...] = attrs.field(eq=False)
    state: JSON = attrs.field(eq=False)
    seconds: float = 0.0
    # The RunStates the engine checkpointed (sent only when the oracle asks).
    durable: tuple[JSON, ...] = attrs.field(default=(), eq=False)


@attrs.frozen
class Judgement:
    """A run's verdict: pass, divergence or fault, and what was observed."""

    verdict: str  # "pass" | "divergence" | "fault"
    divergence: Divergence | None = None
    fault: EngineFault | None = None
    observation: Observation | None = attrs.field(default=None, eq=False)
    # For a pass: the model's final configurations the observed trace reaches.
    finals: tuple[Any, ...] = attrs.field(default=(), eq=False)

    def to_json(self) -> dict[str, JSON]:
        """The judgement as JSON."""
        found: dict[str, JSON] = {"verdict": self.verdict}
        if self.divergence is not None:
            found["divergence"] = self.divergence.to_json()
        if self.fault is not None:
            found["fault"] = self.fault.to_json()
        return found


class Fault(Exception):
    """Raised inside the driver; becomes an EngineFault."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class Engine:
    """One persistent engine process, restarted after a fault."""

    def __init__(
        self,
        command: str,
        timeout: float = 10.0,
        max_line: int = 1 << 20,
        max_messages: int = 100_000,
    ) -> None:
        self.command = command
        self.timeout = timeout
        self.max_line = max_line
        self.max_messages = max_messages
        self.process: subprocess.Popen[bytes] | None = None
        self.buffer = b""
        self.restarts = 0
        self.hello: JSON = None

    # -- process ------------------------------------------------------------------

    def start(self) -> None:
        """Start the engine and read its ``ready`` message."""
        try:
            argv = shlex.split(self.command)
        except ValueError as exc:
            raise Fault("crash", f"cannot parse the engine command: {exc}") from None
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except OSError as exc:
            raise Fault("crash", f"cannot start the engine: {exc.strerror or exc}") from None
        os.set_blocking(self.process.stdout.fileno(), False)  # type: ignore[union-attr]
        self.buffer = b""
        hello = self.read()
        if not isinstance(hello, dict) or hello.get("type") != "ready":
            raise Fault("protocol", f"expected a ready message first, got {hello!r}")
        if hello.get("protocol") != PROTOCOL:
            raise Fault("protocol", f"protocol {hello.get('protocol')!r}; this oracle speaks 1")
        self.hello = hello

    def stop(self) -> None:
        """Ask the engine to stop, then make sure it has."""
        if self.process is None:
            return
        with contextlib.suppress(Fault):
            self.write({"type": "shutdown"})
        try:
            self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        _close(self.process)
        self.process = None

    def recover(self, fault: Fault) -> Judgement:
        """Classify ``fault`` as the run's verdict and restart the engine for the next run."""
        try:
            self.restart()
        except Fault:
            self.process = None  # it cannot start: the next run reports that
        return Judgement("fault", fault=EngineFault(fault.kind, str(fault)))

    def restart(self) -> None:
        """Kill a misbehaving engine and start a fresh one."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            _close(self.process)
            self.process = None
        self.restarts += 1
        self.start()

    def write(self, message: JSON) -> None:
        """Send one message."""
        assert self.process is not None and self.process.stdin is not None
        try:
            self.process.stdin.write((json.dumps(message) + "\n").encode("utf-8"))
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise Fault("crash", self._exited()) from None

    def read(self) -> JSON:
        """Receive one message, within the timeout."""
        assert self.process is not None and self.process.stdout is not None
        deadline = time.monotonic() + self.timeout
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            while b"\n" not in self.buffer:
                if len(self.buffer) > self.max_line:
                    raise Fault("flood", f"a line longer than {self.max_line} bytes")
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    raise Fault("hang", f"no message within {self.timeout:g} s")
                chunk = self.process.stdout.read(1 << 16)
                if not chunk:
                    raise Fault("crash", self._exited())
                self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        if len(line) > self.max_line:
            raise Fault("flood", f"a line longer than {self.max_line} bytes")
        try:
            return json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise Fault("protocol", f"not JSON: {line[:120]!r} ({exc})") from None

    def _exited(self) -> str:
        assert self.process is not None
        try:
            code = self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return "the engine closed its output"
        err = b""
        if self.process.stderr is not None:
            with contextlib.suppress(OSError):
                err = self.process.stderr.read() or b""
        tail = err.decode("utf-8", "replace").strip().splitlines()[-3:]
        return f"the engine exited with code {code}" + (f": {' | '.join(tail)}" if tail else "")

    # -- one run --------------------------------------------------------------------

    def drive(
        self,
        document: JSON,
        scenario: Scenario,
        schedule: Sequence[int],
        replay: JSON = None,
        plan: Sequence[str] = (),
    ) -> Observation:
        """Run ``document`` on the engine, answering as ``scenario`` says.

        With ``replay`` (``{"runState", "from"}``) the engine is asked to replay
        the recorded RunState instead (RFC "Replay").  When the scenario scripts
        crashes, the engine is asked for its checkpoints; after a scripted one
        the oracle answers ``crash``, waits for ``crashed``, records the model's
        ``crashed`` event (``resumeAt``: the first non-terminal step of
        ``plan`` in the durable state) and sends ``resume`` with that state
        (W6W-CONCEPT-3, W6W-HOST-2).
        """
        if self.process is None:
            self.start()
        started = time.perf_counter()
        request: dict[str, JSON] = {
            "type": "run",
            "runId": scenario.run_id,
            "document": document,
            "variables": scenario.variables,
            "trigger": scenario.trigger,
            "secrets": scenario.secrets,
            "documents": scenario.documents,
        }
        if replay is not None:
            request.update(type="replay", runState=replay["runState"], **{"from": replay["from"]})
        if scenario.crashes:
            request["checkpoints"] = True
        self.write(request)
        trace: list[JSON] = []
        invocations: list[tuple[str, JSON]] = []
        durable: list[JSON] = []
        outstanding: dict[JSON, str] = {}
        counts: dict[str, int] = {}
        choices = iter(schedule)
        for _ in range(self.max_messages):
            message = self.read()
            kind = message.get("type") if isinstance(message, dict) else None
            if kind == "event":
                if not isinstance(message.get("event"), dict):
                    raise Fault("protocol", f"an event message without an event object: {message}")
                trace.append(message["event"])
            elif kind == "invoke":
                call, step = message.get("call"), message.get("step")
                if not isinstance(step, str) or call is None or call in outstanding:
                    raise Fault("protocol", f"a malformed or repeated invoke: {message}")
                outstanding[call] = step
                invocations.append((step, message.get("input")))
            elif kind == "wait":
                if not outstanding:
                    raise Fault("protocol", "wait with no invocation outstanding")
                call = choose(outstanding, choices)
                step = outstanding.pop(call)
                counts[step] = counts.get(step, 0) + 1
                self.write(_result(call, step, counts[step], scenario))
            elif kind == "checkpoint" and message.get("number") in scenario.crashes:
                number, state = message["number"], message.get("state")
                durable.append(state)
                self.write({"type": "crash"})
                reply = self.read()
                if not (isinstance(reply, dict) and reply.get("type") == "crashed"):
                    raise Fault("protocol", f"expected crashed after a crash, got {reply!r}")
                outstanding.clear()  # in-flight invocations die with the process
                trace.append(
                    {
                        "event": "crashed",
                        "afterCheckpoint": number,
                        "resumeAt": _resume_at(plan, state),
                    }
                )
                self.write({**request, "type": "resume", "runState": state, "checkpoints": number})
            elif kind in ("checkpoint", "schedule"):
                if kind == "checkpoint":
                    durable.append(message.get("state"))
                self.write({"type": "ack", "call": message.get("call")})
            elif kind == "log":
                continue
            elif kind == "done":
                if outstanding:
                    raise Fault("protocol", f"done with invocations outstanding: {outstanding}")
                return Observation(
                    tuple(trace),
                    tuple(invocations),
                    message.get("state"),
                    time.perf_counter() - started,
                    tuple(durable),
                )
            else:
                raise Fault("protocol", f"unknown message: {str(message)[:200]}")
        raise Fault("flood", f"more than {self.max_messages} messages in one run")


def choose(outstanding: dict[JSON, str], choices: Iterator[int]) -> JSON:
    """The outstanding call the schedule completes next.

    The next choice modulo the number outstanding, calls in the order the
    engine sent their invokes (``outstanding`` keeps insertion order), so a
    schedule means the same interleaving whatever ids the engine gives (0
    once the schedule runs out).
    """
    calls = list(outstanding)
    return calls[next(choices, 0) % len(calls)]


def _resume_at(plan: Sequence[str], state: JSON) -> str | None:
    steps = state.get("steps") if isinstance(state, dict) else None
    steps = steps if isinstance(steps, dict) else {}
    for step_id in plan:
        record = steps.get(step_id)
        if not (
            isinstance(record, dict) and record.get("status") in ("succeeded", "failed", "skipped")
        ):
            return step_id
    return None


def _close(process: subprocess.Popen[bytes]) -> None:
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):  # a pipe the engine already closed
                stream.close()


def _result(call: JSON, step: str, invocation: int, scenario: Scenario) -> JSON:
    script = scenario.script(step)
    result = script.result(invocation, scenario.default)
    message: dict[str, JSON] = {"type": "result", "call": call, "idempotent": script.idempotent}
    if result.error is not None:
        message["error"] = result.error.to_json()
    else:
        message["output"] = result.output
    if result.meta:
        message["meta"] = list(result.meta)
    return message


def judge(
    engine: Engine,
    model: W6wRun,
    document: JSON,
    schedule: Sequence[int],
    replay: JSON = None,
) -> Judgement:
    """Run one case on the engine and compare it with the model.

    For a replay, ``model`` is the replaying run and ``replay`` the request.
    """
    try:
        seen = engine.drive(document, model.scenario, schedule, replay, model.plan)
    except Fault as fault:
        return engine.recover(fault)
    leak = secret_leak(model.scenario, document, seen)
    if leak is not None:
        return Judgement("divergence", divergence=leak, observation=seen)
    verdict = check(model, config_key, seen.trace)
    if verdict.divergence is not None:
        return Judgement("divergence", divergence=verdict.divergence, observation=seen)
    mismatch = _invocations_mismatch(model, seen)
    if mismatch is None:
        states = [run_state(model, final) for final in verdict.finals]
        mismatch = _state_mismatch(states, seen)
    if mismatch is not None:
        return Judgement("divergence", divergence=mismatch, observation=seen)
    return Judgement("pass", observation=seen, finals=verdict.finals)


def _invocations_mismatch(model: W6wRun, seen: Observation) -> Divergence | None:
    """The engine must invoke exactly the attempts its trace reports, with their inputs.

    An attempt in flight when the host crashed may or may not have reached
    the action: it is allowed either way (W6W-CONCEPT-3).
    """
    inputs: dict[str, JSON] = {}
    claimed: list[str] = []
    in_flight: dict[str, str] = {}
    lost: Counter[str] = Counter()
    for event in seen.trace:
        step = event.get("step")
        name = event.get("event")
        if name == "step_started":
            inputs[step] = event.get("input")
            claimed.append(canonical([step, event.get("input")]))
            in_flight[step] = claimed[-1]
        elif name == "retry_scheduled":
            claimed.append(canonical([step, inputs.get(step)]))
            in_flight[step] = claimed[-1]
        elif name in ("step_succeeded", "attempt_failed"):
            in_flight.pop(step, None)
        elif name == "crashed":
            lost.update(in_flight.values())
            in_flight.clear()
    # An action receives a secret's plaintext where the trace records the marker
    # an invocation made with the claimed input, secrets filled in, is it.
    plain = _secret_texts(model.scenario)
    claims: dict[str, list[JSON]] = {}
    for text in dict.fromkeys(claimed):
        step, value = json.loads(text)
        claims.setdefault(step, []).append(value)
    made = []
    for step, value in seen.invocations:
        match = [v for v in claims.get(step, []) if _fills(v, value, plain)]
        made.append(canonical([step, match[0] if match else _masked(value, plain)]))
    missing = Counter(claimed) - Counter(made)
    extra = Counter(made) - Counter(claimed)
    if not extra and not (missing - lost):
        return None
    shown = sorted(extra.elements()) or sorted(made)
    return Divergence(
        len(seen.trace),
        {"invoked": [json.loads(x) for x in shown][:5]},
        tuple({"reported": json.loads(x)} for x in claimed[:5]),
        ("W6W-FIELD-10", "W6W-STATE-4"),
        "the invocations the engine made are not the attempts its trace reports",
    )


def _state_mismatch(states: list[JSON], seen: Observation) -> Divergence | None:
    """The engine's final RunState must agree with one the model ends in."""
    observed = _comparable(seen.state)
    for state in states:
        if _comparable(state) == observed:
            return None
    expected = _comparable(states[0]) if states else None
    return Divergence(
        len(seen.trace),
        {"runState": observed},
        ({"runState": expected},),
        ("W6W-STATE-1", "W6W-FAN-10", "W6W-FIELD-13"),
        "the final RunState differs from the model's: " + _first_difference(expected, observed),
    )


def _comparable(state: JSON) -> JSON:
    if not isinstance(state, dict):
        return {"invalid": state}
    raw = state.get("steps")
    steps: dict[str, JSON] = raw if isinstance(raw, dict) else {}
    return {
        "status": state.get("status"),
        "output": state.get("output"),
        "error": state.get("error"),
        "stepErrors": state.get("stepErrors", []),
        "steps": {
            step_id: {"status": r.get("status"), "output": r.get("output")}
            for step_id, r in steps.items()
            if isinstance(r, dict)
        },
    }


def _first_difference(expected: JSON, observed: JSON, path: str = "$") -> str:
    if isinstance(expected, dict) and isinstance(observed, dict):
        for key in sorted(set(expected) | set(observed)):
            if expected.get(key) != observed.get(key):
                return _first_difference(expected.get(key), observed.get(key), f"{path}.{key}")
    return f"{path}: expected {json.dumps(expected)}, observed {json.dumps(observed)}"


# -- secrets (W6W-ENV-17, assumption A-70) -------------------------------------------


def _secret_texts(scenario: Scenario) -> list[str]:
    """The plaintexts of the scenario's secrets, as a secret part contributes them."""
    texts = {stringify(v) for v in scenario.secrets.values() if v is not None}
    return sorted((t for t in texts if t), key=len, reverse=True)


def _strings(value: JSON) -> Iterator[str]:
    """Every string in a JSON-like value, member names included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, member in value.items():
            yield str(key)
            yield from _strings(member)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)
    elif attrs.has(type(value)):
        yield from _strings(attrs.asdict(value, recurse=False))


def _masked(value: JSON, plain: Sequence[str]) -> JSON:
    """``value`` with each plaintext in ``plain`` (longest first) shown as the marker."""
    if isinstance(value, str):
        for text in plain:
            value = value.replace(text, REDACTED)
        return value
    if isinstance(value, dict):
        return {_masked(k, plain): _masked(v, plain) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v, plain) for v in value]
    return value


def _fills(recorded: JSON, invoked: JSON, plain: Sequence[str]) -> bool:
    """Whether ``invoked`` is ``recorded`` with each marker standing for a secret's plaintext."""
    if isinstance(recorded, str) and isinstance(invoked, str):
        if recorded == invoked:
            return True
        if REDACTED not in recorded or not plain:
            return False
        secret = "(?:" + "|".join(re.escape(t) for t in plain) + ")"
        pattern = secret.join(re.escape(piece) for piece in recorded.split(REDACTED))
        return re.fullmatch(pattern, invoked, re.DOTALL) is not None
    if isinstance(recorded, dict) and isinstance(invoked, dict):
        return recorded.keys() == invoked.keys() and all(
            _fills(recorded[k], invoked[k], plain) for k in recorded
        )
    if isinstance(recorded, list) and isinstance(invoked, list):
        return len(recorded) == len(invoked) and all(
            _fills(r, v, plain) for r, v in zip(recorded, invoked, strict=True)
        )
    return bool(canonical(recorded) == canonical(invoked))


def secret_leak(scenario: Scenario, document: JSON, seen: Observation) -> Divergence | None:
    """A secret's plaintext in what the engine recorded: its trace, checkpoints or RunState.

    W6W-ENV-17: "secrets is injected by the host from its vault before the
    run and is never persisted with run state".  A secret counts when its
    plaintext occurs nowhere else in the case (the document, or the
    scenario's variables, trigger, documents and results): text an action
    returned, or a variable holds, may be recorded verbatim.  The report
    shows the marker, never the plaintext (assumption A-70).
    """
    public = [
        *_strings(document),
        *_strings([scenario.variables, scenario.trigger, scenario.documents, scenario.calls]),
        *_strings([scenario.default, scenario.reroute, *scenario.resumes]),
        *(
            text
            for script in scenario.steps.values()
            for result in script.attempts
            for text in _strings([result.output, result.error, list(result.meta)])
        ),
    ]
    plain = [t for t in _secret_texts(scenario) if not any(t in s for s in public)]
    if not plain:
        return None
    names = {stringify(v): k for k, v in scenario.secrets.items() if v is not None}
    places = [
        *((i, f"trace[{i}]", event) for i, event in enumerate(seen.trace)),
        *((len(seen.trace), f"checkpoint {k + 1}", s) for k, s in enumerate(seen.durable)),
        (len(seen.trace), "the final RunState", seen.state),
    ]
    for index, where, value in places:
        for text in _strings(value):
            found = next((t for t in plain if t in text), None)
            if found is not None:
                observed = _masked(value, plain)
                return Divergence(
                    index,
                    observed if where.startswith("trace") else {"runState": observed},
                    (),
                    ("W6W-ENV-17",),
                    f"{where} holds the plaintext of secret {names.get(found, '?')!r}: "
                    "secrets are never persisted with run state (W6W-ENV-17); "
                    f"a recorded input shows {REDACTED!r} in its place (A-70)",
                )
    return None
