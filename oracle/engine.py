"""The engine protocol: drive a workflow engine over JSON lines and judge each run.

Notation (docs/engine-protocol.md): the oracle plays the host of the
specification the case follows (its ``Protocol``, properties/specification.py).
It sends ``run``; the engine sends ``event`` (its trace), ``invoke`` (a unit
of work: the oracle answers with the scenario's ``result`` for that unit's
next invocation), a withdrawal of a call where the specification has one
(Harness: ``cancel``), ``wait`` (it has sent every invocation it can and blocks for a
result: the oracle picks WHICH outstanding invocation completes, by the
case's schedule — so interleavings are generated, not hoped for),
``checkpoint`` / ``schedule`` (acknowledged), ``log``, and finally ``done``
with its final state.

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

No engine outlives wforacle: each starts in a session (process group) of
its own, and the whole group is killed when it stops, when it fails to
start, when it is restarted, at exit, on SIGTERM/SIGINT and on an internal
error (``end_engines``).  Its stderr is drained by a thread into a bounded
tail, so a chatty engine never blocks, and every fault shows that tail.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import selectors
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Sequence
from types import FrameType
from typing import Any

import attrs

from wforacle.model.diagnostics import InvalidInput
from wforacle.oracle.check import check
from wforacle.oracle.explain import interleaved
from wforacle.oracle.readings import ANY, Selection
from wforacle.properties.specification import (
    Divergence,
    Observation,
    Prepared,
    Protocol,
    Specification,
    parse_json,
)

JSON = Any
PROTOCOL = 1
STDERR_TAIL = 64 * 1024  # bytes of an engine's stderr kept for fault messages


@attrs.frozen
class EngineFault:
    """The engine is broken: crash, hang, flood or protocol."""

    kind: str
    message: str

    def to_json(self) -> dict[str, JSON]:
        """The fault as JSON."""
        return {"verdict": "fault", "kind": self.kind, "message": self.message}

    @classmethod
    def from_json(cls, found: dict[str, JSON]) -> EngineFault:
        """The fault ``to_json`` wrote."""
        return cls(found["kind"], found["message"])


@attrs.frozen
class Judgement:
    """A run's verdict: pass, divergence or fault, and what was observed."""

    # "pass" | "divergence" | "fault" | "reading": the run departs from the selected
    # readings and another reading permits it (oracle/readings.py).
    verdict: str
    divergence: Divergence | None = None
    fault: EngineFault | None = None
    observation: Observation | None = attrs.field(default=None, eq=False)
    # For a pass: the model's final configurations the observed trace reaches.
    finals: tuple[Any, ...] = attrs.field(default=(), eq=False)
    # The readings other than the model's that the run needed, (assumption, name)
    # each: of a pass under ``--readings any``, or of the verdict "reading".
    reading: tuple[tuple[str, str], ...] = ()
    # The clauses of the model's rules the observed run went through (oracle/coverage.py).
    exercised: frozenset[str] = attrs.field(default=frozenset(), eq=False)
    # The last lines the engine wrote to stderr during a run that diverged: a run an
    # exception cut short reads "the trace ends before the run does" (a stranger's
    # engine, session 26, whose traceback no report showed).
    stderr: str = attrs.field(default="", eq=False)

    def to_json(self) -> dict[str, JSON]:
        """The judgement as JSON."""
        found: dict[str, JSON] = {"verdict": self.verdict}
        if self.divergence is not None:
            found["divergence"] = self.divergence.to_json()
        if self.fault is not None:
            found["fault"] = self.fault.to_json()
        if self.reading:
            found["readings"] = dict(self.reading)
        if self.stderr:
            found["engineStderr"] = self.stderr
        return found

    @classmethod
    def from_json(cls, found: dict[str, JSON]) -> Judgement:
        """The judgement ``to_json`` wrote: verdict, divergence, fault and readings.

        What ``to_json`` leaves out (the observation, the model's final
        configurations, the clauses exercised) is left empty: a campaign
        shard's report (oracle/shards.py) carries the verdict, not the run.
        """
        divergence, fault = found.get("divergence"), found.get("fault")
        return cls(
            found["verdict"],
            Divergence.from_json(divergence) if divergence is not None else None,
            EngineFault.from_json(fault) if fault is not None else None,
            reading=tuple((found.get("readings") or {}).items()),
            stderr=str(found.get("engineStderr") or ""),
        )


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
        self.stderr: StderrTail | None = None
        self.buffer = b""
        self.restarts = 0
        self.hello: JSON = None
        # Why the engine could not start, once it could not: it is not started again,
        # so a campaign against an engine that never says ready ends in seconds, not in
        # examples times the timeout (issue 19).
        self.unstartable: Fault | None = None

    # -- process ------------------------------------------------------------------

    def start(self) -> None:
        """Start the engine and read its ``ready`` message."""
        if self.unstartable is not None:
            raise Fault(self.unstartable.kind, f"{self.unstartable} (not started again)")
        try:
            self._start()
        except Fault as fault:
            self.unstartable = fault
            raise

    def _start(self) -> None:
        try:
            argv = shlex.split(self.command)
        except ValueError as exc:
            raise Fault("crash", f"cannot parse the engine command: {exc}") from None
        _watch_signals()
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # its own process group, killed as one
            )
        except OSError as exc:
            raise Fault("crash", f"cannot start the engine: {exc.strerror or exc}") from None
        _LIVE.add(self)
        self.stderr = StderrTail(self.process.stderr)
        os.set_blocking(self.process.stdout.fileno(), False)  # type: ignore[union-attr]
        self.buffer = b""
        try:
            hello = self.read()
            if not isinstance(hello, dict) or hello.get("type") != "ready":
                raise Fault("protocol", f"expected a ready message first, got {hello!r}")
            if hello.get("protocol") != PROTOCOL:
                raise Fault("protocol", f"protocol {hello.get('protocol')!r}; this oracle speaks 1")
        except Fault as fault:
            note = self.kill()
            raise Fault(fault.kind, f"{fault}{note}") from None
        except BaseException:
            self.kill()
            raise
        self.hello = hello

    def stop(self) -> None:
        """Ask the engine to stop, then make sure it has."""
        if self.process is None:
            return
        with contextlib.suppress(Fault):
            self.write({"type": "shutdown"})
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=1)
        self.kill()  # whatever it left behind in its group, too

    def kill(self) -> str:
        """Kill the engine's process group, reap it, and return its stderr tail as a note."""
        process = self.process
        if process is None:
            return ""
        _kill_group(process)
        process.wait()
        note = ""
        if self.stderr is not None:
            self.stderr.join(timeout=1)
            note = self.stderr.note()
            self.stderr = None
        _close(process)
        self.process = None
        _LIVE.discard(self)
        return note

    def recover(self, fault: Fault) -> Judgement:
        """Classify ``fault`` as the run's verdict and restart the engine for the next run."""
        note = self.kill()
        try:
            self.restart()
        except Fault:
            self.process = None  # it cannot start: the next run reports that
        return Judgement("fault", fault=EngineFault(fault.kind, f"{fault}{note}"))

    def restart(self) -> None:
        """Kill a misbehaving engine and start a fresh one."""
        self.kill()
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
        if b"\n" not in self.buffer:
            self._fill()
        line, _, self.buffer = self.buffer.partition(b"\n")
        if len(line) > self.max_line:
            raise Fault("flood", f"a line longer than {self.max_line} bytes")
        try:
            return parse_json(line, "the message")
        except InvalidInput as exc:
            # Not JSON, not UTF-8, NaN, Infinity or 1e400, an integer past Python's digit
            # limit, or nesting deeper than MAX_DEPTH: an engine message is
            # hostile input, and each of these is the engine's fault (issue 19).
            raise Fault("protocol", f"not strict JSON: {line[:120]!r} ({exc})") from None

    def _fill(self) -> None:
        """Read until the buffer holds a whole line, within the timeout."""
        assert self.process is not None and self.process.stdout is not None
        deadline = time.monotonic() + self.timeout
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            while b"\n" not in self.buffer:
                if len(self.buffer) > self.max_line:
                    raise Fault("flood", f"a line longer than {self.max_line} bytes")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Fault("hang", f"no message within {self.timeout:g} s")
                if not selector.select(min(left, 0.25)):
                    # An engine that exited is a crash even while something it
                    # spawned still holds its output open.
                    if self.process.poll() is not None and not selector.select(0):
                        raise Fault("crash", self._exited())
                    continue
                chunk = self.process.stdout.read(1 << 16)
                if not chunk:
                    raise Fault("crash", self._exited())
                self.buffer += chunk

    def _exited(self) -> str:
        assert self.process is not None
        try:
            code = self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return "the engine closed its output"
        return f"the engine exited with code {code}"

    # -- one run --------------------------------------------------------------------

    def drive(self, protocol: Protocol, prepared: Prepared, schedule: Sequence[int]) -> Observation:
        """Run a prepared case on the engine, answering as its scenario says.

        The loop is the protocol's (docs/engine-protocol.md); ``protocol`` is
        the specification's mapping: which ``invoke`` member names the unit of
        work, how a ``result`` is answered, which messages are acknowledged,
        which message withdraws a call.  When the specification scripts
        crashes, after a scripted checkpoint the oracle answers ``crash``,
        waits for ``crashed``, records the model's ``crashed`` event and sends
        ``resume`` with the checkpointed state (W6W-CONCEPT-3, W6W-HOST-2).
        """
        if self.process is None:
            self.start()
        started = time.perf_counter()
        request = prepared.request
        crashes = protocol.crashes(prepared)
        abort_at = protocol.aborts(prepared)
        required = bool(crashes) or abort_at is not None  # checkpoint messages owed
        self.write(request)
        trace: list[JSON] = []
        invocations: list[tuple[str, JSON]] = []
        durable: list[JSON] = []
        crashed: list[tuple[int, int, JSON]] = []
        outstanding: dict[JSON, str] = {}
        counts: dict[str, int] = {}
        choices = iter(schedule)
        interrupts = dict(protocol.interrupts(prepared))
        idle = protocol.idle(prepared)
        waits = 0
        owed: JSON = None  # the checkpoint number whose checkpoint message must come next
        finished = False  # the engine sent run_finished (w6w: no checkpoint message follows)
        ended = False  # the engine reported the run's end: nothing interrupts it now
        status: JSON = "running"  # the run's last reported status (w6w: queued when suspended)

        def answer(unit: str) -> dict[str, JSON]:
            """The scenario's result for the unit's next invocation."""
            counts[unit] = counts.get(unit, 0) + 1
            return protocol.answer(prepared, unit, counts[unit])

        for _ in range(self.max_messages):
            message = self.read()
            kind = message.get("type") if isinstance(message, dict) else None
            if kind is not None and not isinstance(kind, str):  # issue 19: it was exit 3
                raise Fault(
                    "protocol", f"a message type that is not a string: {str(message)[:200]}"
                )
            if kind == "checkpoint" and required and finished:
                # A stranger's engine wrote one for run_finished; with a crash scripted at that
                # number the oracle crashed a finished run and reported a divergence at its own
                # crashed event, citing nothing.
                raise Fault(
                    "protocol",
                    "a checkpoint message after run_finished: run_finished carries its number "
                    "in the trace but gets no checkpoint message (docs/engine-protocol.md, "
                    f"Crashes and resume); got {str(message)[:200]}",
                )
            if kind == "checkpoint":
                owed = None
            elif owed is not None and kind != "log":
                raise Fault(
                    "protocol",
                    f"no checkpoint message after the event with checkpoint {owed!r}: this run "
                    'says "checkpoints" (true, or the K a resume started from), and then every '
                    "checkpointed event but run_finished is followed by its checkpoint message, "
                    f"a resumed run's too (docs/engine-protocol.md, Crashes and resume); got "
                    f"{str(message)[:200]}",
                )
            if kind == "event":
                if not isinstance(message.get("event"), dict):
                    raise Fault("protocol", f"an event message without an event object: {message}")
                said = message["event"].get("event")
                if isinstance(said, str) and said in protocol.recorded:
                    # The oracle writes these when it answers a wait (Workfile: timer_fired,
                    # quiet, …); in the trace the engine's own would pass for the oracle's.
                    raise Fault(
                        "protocol",
                        f"an event the oracle records itself, sent by the engine: the oracle "
                        f"writes {said} when it answers a wait with its "
                        f"message (docs/engine-protocol.md); got {str(message)[:200]}",
                    )
                trace.append(message["event"])
                if isinstance(message["event"].get("status"), str):
                    status = message["event"]["status"]  # the run's, as the engine reports it
                ended = ended or protocol.ends(message["event"])
                finished = finished or message["event"].get("event") == "run_finished"
                number = message["event"].get("checkpoint")
                if (
                    required
                    and number is not None
                    and message["event"].get("event") != "run_finished"
                ):
                    owed = number
            elif kind == "invoke":
                call = _identifier(message, "call")
                qualify = protocol.qualify
                unit = qualify(message) if qualify is not None else message.get(protocol.unit)
                if not isinstance(unit, str) or not protocol.known(prepared, unit):
                    raise Fault(
                        "protocol", f"an invoke of no unit of this case: {str(message)[:200]}"
                    )
                if call in outstanding:
                    raise Fault("protocol", f"a repeated invoke: {str(message)[:200]}")
                outstanding[call] = unit
                invocations.append((unit, message.get(protocol.argument)))
            elif protocol.withdraw is not None and kind == protocol.withdraw:
                if _identifier(message, "call") not in outstanding:
                    raise Fault(
                        "protocol", f"cancel of a call not outstanding: {str(message)[:200]}"
                    )
                del outstanding[message["call"]]
            elif kind == "wait":
                if not outstanding and idle is None:
                    raise Fault("protocol", "wait with no invocation outstanding")
                waits += 1
                interrupt = interrupts.pop(waits, None)
                if ended:
                    # A request against a terminal run has no effect (WF-CANCEL-3): the
                    # engine drains its calls; each wait is answered with a result.
                    interrupt = None
                    if not outstanding:
                        raise Fault("protocol", "wait after the run ended, nothing outstanding")
                elif interrupt is None and not outstanding:
                    # An idle engine (a state-form run waiting for an event or a
                    # timer) gets the next interrupt now, or is told nothing more comes.
                    interrupt = interrupts.pop(min(interrupts)) if interrupts else idle
                if interrupt is not None:
                    # The run is interrupted (Workfile: cancelled, a deadline, a child's
                    # cancellation, an event, the clock); on a run's cancellation every
                    # outstanding call's result goes with the message, as a late result.
                    message = dict(interrupt.message)
                    if interrupt.late:
                        message["late"] = [
                            {"call": call, **answer(unit)} for call, unit in outstanding.items()
                        ]
                        outstanding.clear()
                    if interrupt.event is not None:
                        trace.append(interrupt.event)
                    self.write(message)
                    continue
                call = choose(outstanding, choices)
                self.write({"type": "result", "call": call, **answer(outstanding.pop(call))})
            elif (
                kind == "checkpoint"
                and crashes
                and _identifier(message, "number") in crashes
                and status == "running"
            ):
                # A scripted crash fires only at a checkpoint of a running run, as the
                # model's does: not at run_suspended's (queued; a stranger's engine was
                # crashed there and told the model's run had ended, session 24).
                assert protocol.crashed is not None
                number, state = message["number"], message.get("state")
                durable.append(state)
                self.write({"type": "crash"})
                reply = self.read()
                while isinstance(reply, dict) and reply.get("type") == "log":  # allowed anywhere
                    reply = self.read()
                if not (isinstance(reply, dict) and reply.get("type") == "crashed"):
                    raise Fault("protocol", f"expected crashed after a crash, got {reply!r}")
                outstanding.clear()  # in-flight invocations die with the process
                crashed.append((len(trace), number, state))
                trace.append(protocol.crashed(prepared, number, state))
                self.write({**request, "type": "resume", "runState": state, "checkpoints": number})
            elif (
                kind == "checkpoint"
                and abort_at is not None
                and _identifier(message, "number") == abort_at
            ):
                # The host's abort signal fires after checkpoint K (W6W-HOST-3): answered
                # in place of the ack; the engine launches no new step from here.
                durable.append(message.get("state"))
                self.write({"type": "abort", "call": message.get("call")})
            elif kind in protocol.acknowledged:
                if kind == "checkpoint":
                    durable.append(message.get("state"))
                self.write({"type": "ack", "call": message.get("call")})
            elif kind == "log":
                continue
            elif kind == "done":
                if outstanding:
                    raise Fault("protocol", f"done with invocations outstanding: {outstanding}")
                if not isinstance(message.get("state"), dict):
                    # docs/engine-protocol.schema.json: done's state is an object
                    raise Fault("protocol", f"done's state is not an object: {str(message)[:200]}")
                return Observation(
                    tuple(trace),
                    tuple(invocations),
                    message.get("state"),
                    time.perf_counter() - started,
                    tuple(durable),
                    tuple(crashed),
                )
            else:
                raise Fault("protocol", f"unknown message: {str(message)[:200]}")
        raise Fault("flood", f"more than {self.max_messages} messages in one run")


def _identifier(message: JSON, member: str) -> JSON:
    """A call id or checkpoint number: a string or an integer, else a protocol fault."""
    value = message.get(member)
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise Fault("protocol", f"{member} must be a string or an integer: {str(message)[:200]}")
    return value


def choose(outstanding: dict[JSON, str], choices: Iterator[int]) -> JSON:
    """The outstanding call the schedule completes next.

    The next choice modulo the number outstanding, calls in the order the
    engine sent their invokes (``outstanding`` keeps insertion order), so a
    schedule means the same interleaving whatever ids the engine gives (0
    once the schedule runs out).
    """
    calls = list(outstanding)
    return calls[next(choices, 0) % len(calls)]


class StderrTail:
    """A thread draining an engine's stderr into the last ``STDERR_TAIL`` bytes."""

    def __init__(self, stream: Any, limit: int = STDERR_TAIL) -> None:
        self.stream = stream
        self.limit = limit
        self.data = bytearray()
        self.total = 0  # bytes read so far, the tail's end (``since``)
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._drain, name="engine-stderr", daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        with contextlib.suppress(OSError, ValueError):  # the pipe closed under us
            while chunk := self.stream.read1(1 << 16):
                with self.lock:
                    self.data += chunk
                    self.total += len(chunk)
                    del self.data[: -self.limit]

    def join(self, timeout: float) -> None:
        """Wait for the end of the stream (the group is dead, so it comes soon)."""
        self.thread.join(timeout)

    def text(self) -> str:
        """What is kept of the stream, decoded leniently."""
        with self.lock:
            return bytes(self.data).decode("utf-8", "replace")

    def since(self, mark: int, settle: float = 0.05) -> str:
        """What the engine wrote after ``mark`` (a ``total``), as far as the tail keeps it.

        Lines still in the pipe are waited for (at most ``settle`` seconds):
        the drain thread reads them as soon as it gets its turn.
        """
        deadline = time.monotonic() + settle
        with contextlib.suppress(OSError, ValueError):
            while time.monotonic() < deadline and select.select([self.stream], [], [], 0)[0]:
                time.sleep(0.001)
        with self.lock:
            kept = len(self.data) - max(0, self.total - mark)
            return bytes(self.data[max(0, kept) :]).decode("utf-8", "replace")

    def note(self, lines: int = 10) -> str:
        """The last lines of stderr as a suffix for a fault message, or ``""``."""
        tail = self.text().strip().splitlines()[-lines:]
        return ("\nengine stderr (last lines):\n  " + "\n  ".join(tail)) if tail else ""


# -- no engine outlives wforacle ----------------------------------------------------------

_LIVE: set[Engine] = set()  # every engine with a process running
_watching: dict[int, Any] = {}  # signal number -> the handler ours replaced


def end_engines() -> None:
    """Kill every engine process group wforacle started (at exit, on a signal or an error)."""
    for engine in list(_LIVE):
        with contextlib.suppress(Exception):
            engine.kill()
    _LIVE.clear()


def _on_signal(signum: int, frame: FrameType | None) -> None:
    """End every engine, then let the signal do what it did before (re-raise it)."""
    end_engines()
    previous = _watching.pop(signum, None)
    if previous is None:  # a handler not installed from Python
        previous = signal.SIG_DFL
    signal.signal(signum, previous)
    if callable(previous):
        previous(signum, frame)  # e.g. SIGINT's default: KeyboardInterrupt
    elif previous != signal.SIG_IGN:
        os.kill(os.getpid(), signum)


def _watch_signals() -> None:
    """Install ``_on_signal`` for SIGTERM and SIGINT (main thread only; once each)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in (signal.SIGTERM, signal.SIGINT):
        if signum not in _watching:
            _watching[signum] = signal.signal(signum, _on_signal)


atexit.register(end_engines)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the process group ``process`` leads (its own session), and ``process``."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()


def _close(process: subprocess.Popen[bytes]) -> None:
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):  # a pipe the engine already closed
                stream.close()


def judge(
    engine: Engine,
    spec: Specification,
    case: JSON,
    prepared: Prepared | None = None,
    selection: Selection | None = None,
) -> Judgement:
    """Run one case on the engine and compare it with the model.

    The specification's ``screen`` runs first (w6w: no secret's plaintext
    recorded), then the trace is checked against the model (oracle/check.py),
    then the specification's ``compare`` over the final configurations the
    trace reaches (w6w: invocations and RunState; Harness: node states).
    ``prepared`` is the model under the selected readings; when it rejects
    the run and ``selection`` has other readings, the same observation is
    judged under each (oracle/readings.py): the first that permits it makes
    the verdict a pass (``any``) or ``reading`` (``default``).
    InvalidCase when the case cannot be run.
    """
    if prepared is None:
        prepared = spec.prepare(case, None if selection is None else selection.options())
    # A stand-in with a ``drive`` alone (a recorded run) has no stderr to show.
    stderr: StderrTail | None = getattr(engine, "stderr", None)
    mark = stderr.total if stderr is not None else 0
    try:
        seen = engine.drive(spec.protocol(), prepared, case.get("schedule", []))
    except Fault as fault:
        return engine.recover(fault)
    found = _judged(spec, case, prepared, selection, seen)
    stderr = getattr(engine, "stderr", None)  # drive starts the process, and its tail
    if found.verdict in ("divergence", "reading") and stderr is not None:
        tail = stderr.since(mark).strip().splitlines()[-STDERR_LINES:]
        if tail:
            found = attrs.evolve(found, stderr="\n".join(tail))
    return found


STDERR_LINES = 10  # the lines of an engine's stderr a divergence's report shows


def _judged(
    spec: Specification,
    case: JSON,
    prepared: Prepared,
    selection: Selection | None,
    seen: Observation,
) -> Judgement:
    """``judge``'s verdict on what the engine showed (``seen``)."""
    if spec.rename is not None:  # what the specification leaves to the engine
        trace, state = spec.rename(prepared.semantics, seen.trace, seen.state)
        seen = attrs.evolve(seen, trace=tuple(trace), state=state)
    found = assess(spec, case, prepared, seen)
    if found.verdict == "pass" or selection is None:
        return found

    # The case as the engine was sent it: a w6w replay's run state is the selected
    # readings' reference run, and another reading's model replays that state,
    # not a reference run of its own (what the engine was given is fixed).
    sent = {**case, **prepared.files}

    def permits(chosen: dict[str, Any]) -> Judgement | None:
        try:
            other = spec.prepare(sent, spec.options(chosen))
        except InvalidInput:
            return None  # a case this reading's model does not run
        again = assess(spec, case, other, _recorded_by(spec, other, seen))
        return again if again.verdict == "pass" else None

    rescued = selection.rescue(permits, case)
    if rescued is None:
        return found
    departures, passed = rescued
    if selection.mode == ANY:
        return attrs.evolve(passed, reading=departures)
    return attrs.evolve(found, verdict="reading", reading=departures)


def _recorded_by(spec: Specification, prepared: Prepared, seen: Observation) -> Observation:
    """``seen`` with the events the oracle recorded as ``prepared``'s model records them.

    A ``crashed`` event is the model's (where the host resumes: the first step
    not terminal by the plan, which A-02's tie-break orders), so judging the
    run under another reading puts that reading's own in its place.
    """
    crashed = spec.protocol().crashed
    if not seen.crashes or crashed is None:
        return seen
    trace = list(seen.trace)
    for index, number, state in seen.crashes:
        trace[index] = crashed(prepared, number, state)
    return attrs.evolve(seen, trace=tuple(trace))


def assess(spec: Specification, case: JSON, prepared: Prepared, seen: Observation) -> Judgement:
    """Judge what an engine was seen to do against one model of the case (``judge``)."""
    screened = spec.screen(prepared, case, seen)
    if screened is not None:
        return Judgement("divergence", divergence=screened, observation=seen)
    verdict = check(prepared.semantics, spec.key, list(seen.trace))
    exercised = verdict.exercised
    if verdict.divergence is not None:
        return Judgement(
            "divergence", divergence=verdict.divergence, observation=seen, exercised=exercised
        )
    reordered = interleaved(spec, prepared.semantics, seen.trace)
    if reordered is not None:
        return Judgement("divergence", divergence=reordered, observation=seen, exercised=exercised)
    mismatch = spec.compare(prepared, seen, verdict.finals)
    if mismatch is not None:
        return Judgement("divergence", divergence=mismatch, observation=seen, exercised=exercised)
    return Judgement("pass", observation=seen, finals=verdict.finals, exercised=exercised)
