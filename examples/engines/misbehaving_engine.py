#!/usr/bin/env python3
"""misbehaving: an engine that breaks the engine protocol on purpose, one fault at a time.

Usage:  python3 misbehaving_engine.py --fault NAME [--spec w6w|harness|workfile] [--after N]

It exists to test the oracle, not engines (issue 19, "hostile input"): every
fault below is something a real engine may do, and wforacle must answer each
with a verdict (a ``fault`` or a ``divergence``, exit 1) — never a pass, a
hang, a traceback or output that is not strict JSON.

How it behaves when it is not misbehaving: it is a proxy in front of the
bundled correct engine of ``--spec`` (examples/engines/w6w_engine.py,
harness_engine.py, workfile_engine.py), which it starts as a child and
whose JSON lines it relays both ways.  So with ``--fault none`` (and the
benign faults marked *pass* below) every run is correct and the oracle must
judge it a pass; the other faults strike the relayed conversation at a
chosen point.  It imports nothing from wforacle.

``--after N``: a fault marked "mid-run" strikes after N messages of a run
have been relayed (default 1: the run has begun).

Faults (``--list`` prints them):
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
INNER = {"w6w": "w6w_engine.py", "harness": "harness_engine.py", "workfile": "workfile_engine.py"}
UNIT = {"w6w": "step", "harness": "node", "workfile": "step"}  # the invoke member naming the unit

# name -> (expected verdict, what it does).  "pass": the oracle must judge every run a pass;
# "fail": it must report a fault or a divergence (exit 1), and nothing worse; "any": the
# departure is one the oracle need not notice (it must still answer sanely).
FAULTS: dict[str, tuple[str, str]] = {
    # -- benign: a correct engine with unusual manners -------------------------------------
    "none": ("pass", "a transparent proxy: the correct engine, relayed"),
    "stderr-flood": ("pass", "8 MiB to stderr (some of it not UTF-8) before ready, then behaves"),
    "stderr-chatter": ("pass", "a line of stderr before every message it sends, then behaves"),
    "log-noise": ("pass", "a log message (with odd members) before every message it sends"),
    "slow": ("pass", "waits 20 ms before every message it sends"),
    "slow-start": ("pass", "waits 1 s before saying ready (pass with --timeout 2)"),
    "ignore-shutdown": ("pass", "ignores shutdown and SIGTERM after its runs (it must be killed)"),
    "crlf": ("pass", "ends every line with CR LF"),
    # -- start-up ----------------------------------------------------------------------------
    "never-ready": ("fail", "reads its input and says nothing, ever"),
    "silent-after-ready": ("fail", "says ready, then never says anything again"),
    "exit-before-ready": ("fail", "exits 0 at once, saying nothing"),
    "crash-before-ready": ("fail", "writes a traceback-like text to stderr and exits 1"),
    "ready-wrong-protocol": ("fail", "ready with protocol 2"),
    "ready-protocol-string": ("fail", 'ready with protocol "1"'),
    "ready-not-object": ("fail", "a JSON array where ready belongs"),
    "ready-deep-name": ("fail", "ready whose engine name is nested 990 deep, then no runs"),
    "garbage-before-ready": ("fail", "a line of plain text on stdout before ready"),
    "event-before-ready": ("fail", "an event message before ready"),
    "ready-twice": ("fail", "says ready again as a run's first message"),
    # -- the process during a run (mid-run) -------------------------------------------------
    "crash": ("fail", "mid-run: exits with code 70"),
    "exit-mid-run": ("fail", "mid-run: exits with code 0, as if it had finished"),
    "killed": ("fail", "mid-run: SIGKILLs itself"),
    "sigstop": ("fail", "mid-run: SIGSTOPs itself (a stopped process, not an exited one)"),
    "close-stdout": ("fail", "mid-run: closes its stdout and lives on"),
    "exit-leaving-child": ("fail", "mid-run: exits, leaving a child holding stdout open"),
    "hang": ("fail", "mid-run: silent after a message, still reading its input"),
    "hang-partial-line": ("fail", "mid-run: half a message, no newline, then silence"),
    "close-stdin": ("fail", "mid-run: closes its stdin (the oracle's writes fail)"),
    # -- volume (mid-run) -----------------------------------------------------------------------
    "flood": ("fail", "mid-run: endless small event messages"),
    "flood-log": ("fail", "mid-run: endless log messages"),
    "flood-no-newline": ("fail", "mid-run: endless bytes without a newline"),
    "huge-line": ("fail", "mid-run: one 2 MiB event line"),
    "near-limit-line": ("fail", "mid-run: an event line just under 1 MiB (a valid message)"),
    "many-invokes": ("fail", "mid-run: 200,000 invokes of one unit with distinct call ids"),
    # -- not strict JSON (mid-run) -------------------------------------------------------------
    "nan": ("fail", "mid-run: NaN in an event"),
    "infinity": ("fail", "mid-run: -Infinity in an event"),
    "big-float": ("fail", "mid-run: 1e400 in an event"),
    "big-int": ("fail", "mid-run: a 10,000-digit integer in an event"),
    "big-int-4000": ("fail", "mid-run: a 4,000-digit integer (under Python's limit) as an attempt"),
    "deep-json": ("fail", "mid-run: an event nested 100,000 deep"),
    "deep-json-990": ("fail", "mid-run: an event whose payload is nested 990 deep"),
    "deep-json-500": ("fail", "mid-run: an event whose payload is nested 500 deep"),
    "lone-surrogate": ("fail", r"mid-run: an event string holding \ud800"),
    "lone-surrogate-key": ("fail", r"mid-run: an event member name holding \udfff"),
    "invalid-utf8": ("fail", "mid-run: bytes that are not UTF-8 inside a string"),
    "raw-nul": ("fail", "mid-run: a raw NUL byte inside a message"),
    "bom": ("any", "mid-run: a UTF-8 byte order mark before a message (JSON readers may skip it)"),
    "blank-line": ("fail", "mid-run: an empty line"),
    "trailing-garbage": ("fail", "mid-run: text after a message on its line"),
    "two-per-line": ("fail", "mid-run: two messages on one line"),
    "random-bytes": ("fail", "mid-run: a line of random bytes"),
    # -- wrong types (mid-run, or on the first message of a kind) ---------------------------
    "type-list": ("fail", 'mid-run: {"type": ["event"]}'),
    "type-object": ("fail", 'mid-run: {"type": {"event": 1}}'),
    "type-number": ("fail", 'mid-run: {"type": 7}'),
    "type-missing": ("fail", "mid-run: a message without type"),
    "message-array": ("fail", "mid-run: a JSON array as a message"),
    "message-string": ("fail", "mid-run: a JSON string as a message"),
    "message-null": ("fail", "mid-run: null as a message"),
    "event-not-object": ("fail", "mid-run: an event message whose event is a string"),
    "event-name-list": ("fail", "mid-run: an event whose name is a list"),
    "event-name-object": ("fail", "mid-run: an event whose name is an object"),
    "event-fields-lists": ("fail", "every member of the first event after the first but its name wrapped in a list"),
    "event-fields-objects": ("fail", "every member of the first event but its name replaced by an object"),
    "event-fields-null": ("fail", "every member of the second event but its name set to null"),
    "event-step-huge": ("fail", "the first event naming a step (node) gets a 500,000-character one"),
    "invoke-call-float": ("fail", "the first invoke's call id is 1.5"),
    "invoke-call-bool": ("fail", "the first invoke's call id is true"),
    "invoke-call-object": ("fail", "the first invoke's call id is an object"),
    "invoke-call-null": ("fail", "the first invoke's call id is null"),
    "invoke-unit-list": ("fail", "the first invoke names its unit as a list"),
    "invoke-unit-number": ("fail", "the first invoke names its unit as a number"),
    "invoke-unit-missing": ("fail", "the first invoke names no unit"),
    "invoke-input-deep": ("fail", "the first invoke's input is nested 990 deep"),
    "done-state-list": ("fail", "done.state is a list"),
    "done-state-string": ("fail", "done.state is a string"),
    "done-state-null": ("fail", "done.state is null"),
    "done-state-missing": ("fail", "done without state"),
    "done-state-lists": ("fail", "every member of done.state wrapped in a list"),
    "done-state-objects": ("fail", "every member of done.state replaced by an object"),
    "done-state-deep": ("fail", "done.state nested 990 deep"),
    "done-steps-wrong": ("fail", "done.state's per-unit map (steps/nodes) is a list of lists"),
    "checkpoint-number-list": ("any", "every checkpoint's number is a list (w6w crash cases only)"),
    # -- out of protocol -----------------------------------------------------------------------
    "unknown-type": ("fail", 'mid-run: {"type": "frobnicate"}'),
    "result-from-engine": ("fail", "mid-run: a result for a call that does not exist"),
    "cancel-unknown-call": ("fail", "mid-run: a cancel of a call that does not exist"),
    "ack-from-engine": ("fail", "mid-run: an ack the oracle never asked for"),
    "crashed-unasked": ("fail", "mid-run: crashed without a crash"),
    "wait-first": ("fail", "a wait before the run's first message, nothing outstanding"),
    "duplicate-invoke": ("fail", "the first invoke is sent twice"),
    "invoke-unknown-unit": ("fail", "an invoke of a unit the case does not have, before the first"),
    "done-early": ("fail", "done (with an empty state) as the run's first message"),
    "done-outstanding": ("fail", "done right after the first invoke, with it outstanding"),
    "extra-after-done": ("fail", "an event after each done (it lands in the next run)"),
    "done-twice": ("fail", "each done sent twice"),
    "echo": ("fail", "mid-run: echoes the oracle's last message back"),
    "drop-event": ("fail", "the first event of each run is not sent"),
    "duplicate-event": ("fail", "the first event of each run is sent twice"),
    "wrong-run-id": ("any", "every message's run id is another run's"),
}

FAULT_DOC = "\n".join(f"  {name:<24} {verdict:<5} {what}" for name, (verdict, what) in FAULTS.items())
__doc__ = (__doc__ or "") + FAULT_DOC + "\n"

out = sys.stdout.buffer
out_lock = threading.Lock()
# the oracle's last line; runs begun; messages of this run; stdin to be closed
state = {"last_in": b"", "runs": 0, "in_run": 0, "close_stdin": False}


def send(data: bytes, newline: bytes = b"\n") -> None:
    """Write raw bytes (and a line end) to stdout."""
    with out_lock:
        out.write(data + newline)
        out.flush()


def send_json(message: object) -> None:
    send(json.dumps(message).encode("utf-8"))


def nested(depth: int, leaf: str = "0") -> str:
    return "[" * depth + leaf + "]" * depth


def event_text(body: str) -> bytes:
    return ('{"type": "event", "run": "run_x", "event": ' + body + "}").encode("utf-8")


def sleep_forever() -> None:
    while True:
        time.sleep(3600)


def drain_stdin_forever() -> None:
    """Read (and forget) the oracle's messages until it closes our input, then sleep."""
    for _ in sys.stdin.buffer:
        pass
    sleep_forever()


# -- the faults that replace the whole engine ------------------------------------------------


def standalone(fault: str) -> bool:
    """Faults that never relay a run; return False for the relayed ones."""
    ready = {"type": "ready", "protocol": 1, "engine": f"misbehaving-{fault}"}
    if fault == "never-ready":
        drain_stdin_forever()
    elif fault == "silent-after-ready":
        send_json(ready)
        drain_stdin_forever()
    elif fault == "exit-before-ready":
        os._exit(0)
    elif fault == "crash-before-ready":
        sys.stderr.write("Traceback (most recent call last):\n  File engine.py\nKeyError: 'x'\n")
        sys.stderr.flush()
        os._exit(1)
    elif fault == "ready-wrong-protocol":
        send_json({**ready, "protocol": 2})
        drain_stdin_forever()
    elif fault == "ready-protocol-string":
        send_json({**ready, "protocol": "1"})
        drain_stdin_forever()
    elif fault == "ready-not-object":
        send_json(["ready", 1])
        drain_stdin_forever()
    elif fault == "ready-deep-name":
        send(('{"type": "ready", "protocol": 1, "engine": ' + nested(990) + "}").encode())
        drain_stdin_forever()
    else:
        return False
    return True


# -- the relay ----------------------------------------------------------------------------------


class Relay:
    """The correct engine as a child; its lines pass through ``outgoing``, where faults strike."""

    def __init__(self, spec: str, fault: str, after: int) -> None:
        self.spec, self.fault, self.after = spec, fault, after
        self.unit = UNIT[spec]
        self.child = subprocess.Popen(
            [sys.executable, str(HERE / INNER[spec])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self.seen: set[str] = set()  # one-shot faults already struck
        self.counts: dict[str, int] = {}  # events seen per run, for the event-fields faults

    # oracle -> engine
    def pump_in(self) -> None:
        assert self.child.stdin is not None
        try:
            for line in sys.stdin.buffer:
                if state["close_stdin"]:
                    os.close(0)  # the oracle's next write finds no reader
                    return
                state["last_in"] = line.rstrip(b"\r\n")
                kind = _kind(line)
                if kind in ("run", "replay", "resume"):
                    state["runs"] += 1
                    state["in_run"] = 0
                    if self.fault == "wait-first" and kind == "run":
                        send_json({"type": "wait"})
                    if self.fault == "done-early" and kind == "run":
                        send_json({"type": "done", "run": "run_x", "state": {}})
                if kind == "shutdown" and self.fault == "ignore-shutdown":
                    signal.signal(signal.SIGTERM, signal.SIG_IGN)
                    sleep_forever()
                self.child.stdin.write(line)
                self.child.stdin.flush()
        except (BrokenPipeError, OSError):
            pass
        try:
            self.child.stdin.close()
        except OSError:
            pass

    # engine -> oracle
    def pump_out(self) -> None:
        assert self.child.stdout is not None
        for line in self.child.stdout:
            self.outgoing(line.rstrip(b"\n"))
        code = self.child.wait()
        out.flush()
        os._exit(code)

    def once(self, name: str) -> bool:
        if name in self.seen:
            return False
        self.seen.add(name)
        return True

    def outgoing(self, line: bytes) -> None:
        fault = self.fault
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "ready":
            if fault == "slow-start":
                time.sleep(1.0)
            if fault == "garbage-before-ready":
                send(b"engine starting up, please wait")
            if fault == "event-before-ready":
                send_json({"type": "event", "run": "run_x", "event": {"event": "run_started"}})
            if fault == "stderr-flood":
                flood_stderr()
            send(line)  # ready comes first, with no manners before it
            return
        if state["runs"] == 0:  # nothing else happens before the first run
            self.plain(line)
            return
        state["in_run"] += 1
        mid = state["in_run"] > self.after
        if mid and self.mid_run(line, message, kind):
            return
        if self.shaped(line, message, kind):
            return
        self.plain(line)

    def plain(self, line: bytes) -> None:
        """Send a line of the correct engine, with the benign faults' manners."""
        fault = self.fault
        if fault == "slow":
            time.sleep(0.02)
        elif fault == "stderr-chatter":
            sys.stderr.write(f"[engine] about to send {len(line)} bytes\n")
            sys.stderr.flush()
        elif fault == "log-noise":
            send_json({"type": "log", "level": ["odd"], "text": "x" * 100, "n": 1.5e300})
        send(line, b"\r\n" if fault == "crlf" else b"\n")

    def mid_run(self, line: bytes, message: object, kind: object) -> bool:
        """The faults that strike once the run is under way; True when the line was handled."""
        fault = self.fault
        if fault in ("crash", "exit-mid-run", "killed", "exit-leaving-child"):
            self.child.kill()
            if fault == "exit-leaving-child":
                subprocess.Popen(["sleep", "30"], stdout=sys.stdout, start_new_session=False)
            if fault == "killed":
                os.kill(os.getpid(), signal.SIGKILL)
            os._exit(0 if fault in ("exit-mid-run", "exit-leaving-child") else 70)
        if fault == "sigstop":
            os.kill(os.getpid(), signal.SIGSTOP)
            return False
        if fault == "close-stdout":
            os.close(1)
            sleep_forever()
        if fault == "hang":
            sleep_forever()
        if fault == "hang-partial-line":
            send(b'{"type": "event", "run": "run_x", "ev', b"")
            sleep_forever()
        if fault == "close-stdin":
            state["close_stdin"] = True
            return False
        if fault == "flood":
            n = 0
            while True:
                n += 1
                send(event_text('{"event": "step_started", "step": "s%d", "attempt": 1}' % n))
        if fault == "flood-log":
            while True:
                send(b'{"type": "log", "text": "still here"}')
        if fault == "flood-no-newline":
            chunk = b"x" * 65536
            while True:
                send(chunk, b"")
        if fault == "many-invokes":
            for n in range(200_000):
                send_json({"type": "invoke", "call": f"m{n}", "run": "run_x", self.unit: "x", "input": {}})
            sleep_forever()
        if not self.once("mid"):
            return False
        simple = {
            "huge-line": event_text('{"event": "log", "text": "' + "x" * (2 << 20) + '"}'),
            "near-limit-line": event_text('{"event": "step_started", "step": "' + "y" * 1_040_000 + '"}'),
            "nan": event_text('{"event": "step_started", "attempt": NaN}'),
            "infinity": event_text('{"event": "step_started", "attempt": -Infinity}'),
            "big-float": event_text('{"event": "step_started", "attempt": 1e400}'),
            "big-int": event_text('{"event": "step_started", "attempt": ' + "9" * 10_000 + "}"),
            "big-int-4000": event_text('{"event": "step_started", "step": "a", "attempt": ' + "9" * 4000 + "}"),
            "deep-json": event_text(nested(100_000)),
            "deep-json-990": event_text('{"event": "step_started", "input": ' + nested(990) + "}"),
            "deep-json-500": event_text('{"event": "step_started", "input": ' + nested(500) + "}"),
            "lone-surrogate": event_text('{"event": "step_started", "step": "\\ud800"}'),
            "lone-surrogate-key": event_text('{"event": "step_started", "\\udfff": 1}'),
            "invalid-utf8": event_text('{"event": "step_started", "step": "\xff\xfe"}').replace(
                "\xff\xfe".encode(), b"\xff\xfe"
            ),
            "raw-nul": event_text('{"event": "step_started", "step": "a\x00b"}'),
            "bom": b"\xef\xbb\xbf" + line,
            "blank-line": b"",
            "trailing-garbage": line + b" trailing words",
            "two-per-line": line + b" " + line,
            "random-bytes": bytes(random.Random(7).randrange(256) for _ in range(300)).replace(b"\n", b" "),
            "type-list": b'{"type": ["event"], "event": {"event": "x"}}',
            "type-object": b'{"type": {"event": 1}}',
            "type-number": b'{"type": 7}',
            "type-missing": b'{"event": {"event": "run_started"}}',
            "message-array": b'["event", {"event": "run_started"}]',
            "message-string": b'"event"',
            "message-null": b"null",
            "event-not-object": b'{"type": "event", "run": "run_x", "event": "run_started"}',
            "event-name-list": event_text('{"event": ["run_started"], "step": "a"}'),
            "event-name-object": event_text('{"event": {"run_started": true}, "step": "a"}'),
            "unknown-type": b'{"type": "frobnicate", "call": 1}',
            "result-from-engine": b'{"type": "result", "call": 987654, "output": 1}',
            "cancel-unknown-call": b'{"type": "cancel", "call": 987654}',
            "ack-from-engine": b'{"type": "ack", "call": 987654}',
            "crashed-unasked": b'{"type": "crashed"}',
            "echo": state["last_in"] or b"{}",
        }
        if fault in simple:
            send(simple[fault])
            if fault in ("bom", "two-per-line", "trailing-garbage"):
                return True  # the line itself was sent, spoilt
            return False
        return False

    def shaped(self, line: bytes, message: object, kind: object) -> bool:
        """Faults on a message of one kind; True when the line was handled."""
        fault = self.fault
        if not isinstance(message, dict):
            return False
        if fault == "ready-twice" and self.once("ready-twice"):
            send_json({"type": "ready", "protocol": 1, "engine": "misbehaving-again"})
            return False
        if kind == "event":
            event = message.get("event")
            if fault == "drop-event" and state["in_run"] == 1:
                return True
            if fault == "duplicate-event" and state["in_run"] == 1:
                self.plain(line)
                self.plain(line)
                return True
            if fault.startswith("event-fields-") and isinstance(event, dict):
                target = 1 if fault == "event-fields-null" else 0
                key = f"{fault}-{state['runs']}"
                count = self.counts.get(key, 0)
                self.counts[key] = count + 1
                if count == target:
                    change = {
                        "event-fields-lists": lambda v: [v],
                        "event-fields-objects": lambda v: {"value": v},
                        "event-fields-null": lambda v: None,
                    }[fault]
                    message["event"] = {
                        k: (v if k == "event" else change(v)) for k, v in event.items()
                    }
                    send_json(message)
                    return True
            member = "node" if isinstance(event, dict) and "node" in event else "step"
            if fault == "event-step-huge" and isinstance(event, dict) and member in event:
                if self.once("huge"):
                    message["event"] = {**event, member: "z" * 500_000}
                    send_json(message)
                    return True
        if kind == "invoke":
            first = self.once(f"invoke-{state['runs']}")
            if fault == "invoke-unknown-unit" and first:
                send_json({**message, "call": "ghost-call", self.unit: "no-such-unit-anywhere"})
                return False
            if fault == "duplicate-invoke" and first:
                self.plain(line)
                self.plain(line)
                return True
            if fault == "done-outstanding" and first:
                self.plain(line)
                send_json({"type": "done", "run": message.get("run"), "state": {}})
                return True
            replacements = {
                "invoke-call-float": ("call", 1.5),
                "invoke-call-bool": ("call", True),
                "invoke-call-object": ("call", {"id": 1}),
                "invoke-call-null": ("call", None),
                "invoke-unit-list": (self.unit, [message.get(self.unit)]),
                "invoke-unit-number": (self.unit, 42),
                "invoke-input-deep": ("input", None),
            }
            if fault == "invoke-unit-missing" and first:
                send_json({k: v for k, v in message.items() if k != self.unit})
                return True
            if fault in replacements and first:
                member, value = replacements[fault]
                if fault == "invoke-input-deep":
                    text = json.dumps({**message, "input": "@@"})
                    send(text.replace('"@@"', nested(990)).encode())
                    return True
                send_json({**message, member: value})
                return True
        if kind == "checkpoint" and fault == "checkpoint-number-list":
            send_json({**message, "number": [message.get("number")]})
            return True
        if kind == "done":
            done = self.done(line, message)
            if done:
                return True
        if fault == "wrong-run-id" and "run" in message:
            message["run"] = "someone-elses-run"
            send_json(message)
            return True
        return False

    def done(self, line: bytes, message: dict) -> bool:
        fault = self.fault
        st = message.get("state")
        if fault == "extra-after-done":
            self.plain(line)
            send_json({"type": "event", "run": "stale", "event": {"event": "run_finished"}})
            return True
        if fault == "done-twice":
            self.plain(line)
            self.plain(line)
            return True
        whole = {
            "done-state-list": [st],
            "done-state-string": "completed",
            "done-state-null": None,
        }
        if fault in whole:
            send_json({**message, "state": whole[fault]})
            return True
        if fault == "done-state-missing":
            send_json({k: v for k, v in message.items() if k != "state"})
            return True
        if fault == "done-state-lists" and isinstance(st, dict):
            send_json({**message, "state": {k: [v] for k, v in st.items()}})
            return True
        if fault == "done-state-objects" and isinstance(st, dict):
            send_json({**message, "state": {k: {"value": v} for k, v in st.items()}})
            return True
        if fault == "done-state-deep":
            text = json.dumps({**message, "state": "@@"})
            send(text.replace('"@@"', nested(990)).encode())
            return True
        if fault == "done-steps-wrong" and isinstance(st, dict):
            member = "nodes" if "nodes" in st else "steps"
            send_json({**message, "state": {**st, member: [[1, 2], ["x"]]}})
            return True
        return False


def _kind(line: bytes) -> object:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message.get("type") if isinstance(message, dict) else None


def flood_stderr() -> None:
    chunk = (b"engine warming up \xff\xfe \x1b[31mred\x1b[0m " * 40 + b"\n") * 64
    written = 0
    while written < 8 << 20:
        sys.stderr.buffer.write(chunk)
        written += len(chunk)
    sys.stderr.buffer.flush()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=FAULT_DOC,
    )
    parser.add_argument("--fault", default="none", choices=sorted(FAULTS), metavar="NAME")
    parser.add_argument("--spec", default="w6w", choices=sorted(INNER))
    parser.add_argument("--after", type=int, default=1, help="messages of a run before a mid-run fault")
    parser.add_argument("--list", action="store_true", help="print the faults and their verdicts")
    parser.add_argument("--tag", default="", help="ignored: lets a test find this process")
    args = parser.parse_args()
    if args.list:
        for name, (verdict, what) in FAULTS.items():
            print(f"{name}\t{verdict}\t{what}")
        return
    if standalone(args.fault):
        return
    relay = Relay(args.spec, args.fault, args.after)
    threading.Thread(target=relay.pump_in, name="oracle-to-engine", daemon=True).start()
    relay.pump_out()


if __name__ == "__main__":
    main()
