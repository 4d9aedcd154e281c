#!/usr/bin/env python3
"""toyflow: a small w6w workflow engine that speaks the wforacle engine protocol.

Written the way a third party would write an engine against the w6w RFC: it
imports nothing from wforacle.  It reads JSON lines on stdin and writes JSON
lines on stdout (docs/engine-protocol.md); the host (the oracle) answers its
invocations and decides the order in which concurrent ones complete.

What it implements: planning (topological order, ties by declared order),
`$` path markers, `{{ secrets.NAME }}` markers in strings (the action gets
the plaintext; the trace and the RunState record "[secret]"), step retry
with fixed / exponential backoff capped at 300000 ms, the retry
classification, onError fail / continue / continue-record, error edges,
skip propagation, fanOut "parallel" strands with joins, draining,
first-failure-by-plan-order reporting, lastOutput, step metadata from
onExecuted reports, replay (from a step and its descendants), crash and
resume (checkpoints sent when the host asks; a crashed run is rebuilt from
the durable RunState).  Not implemented: other templates, $expr, controls,
@w6w/call, the run-level ladder.

Seeded bugs, switched on with --bug NAME (repeatable), for showing that a
campaign finds them:

  error-edge-ignored      a failing step with an error edge and onError "fail" ends the run
  no-skip                 a step reachable only through skipped edges runs anyway
  retry-auth              auth-phase errors are retried like execute errors
  uncapped-backoff        exponential waits are not capped at 300000 ms
  plan-fifo               ready steps are planned first-in first-out, not by declared order
  meta-from-output        step meta is read from the action's output, not onExecuted
  record-drops            continue-record failures are not kept in stepErrors
  last-output-by-time     the run's output is the last step to finish, not the last by plan
  first-failure-by-time   the reported failure is the first to happen, not the first by plan
  replay-reinvokes        replay calls the actions of steps that succeeded in the original run
  resume-from-start       after a crash, the run starts over instead of resuming its durable state

Readings, switched on with --reading ID=NAME (repeatable): where the RFC is
open, toyflow can take the reading wforacle's model does not (`wforacle
readings` lists them).  These are not bugs: a campaign under the default
`--readings any` passes and reports the reading the engine took.

  A-50=edges              a step's indegree counts inbound edges, not distinct sources
                          (a success and an error edge from one source make a join)
  A-41=retried            the retry policy retries a resolution-phase failure
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import json
import re
import sys
from collections import deque

BUGS = {
    "error-edge-ignored",
    "no-skip",
    "retry-auth",
    "uncapped-backoff",
    "plan-fifo",
    "meta-from-output",
    "record-drops",
    "last-output-by-time",
    "first-failure-by-time",
    "replay-reinvokes",
    "resume-from-start",
}
READINGS = {"A-50=edges", "A-41=retried"}
CAP_MS = 300_000
SECRET_MARKER = re.compile(r"\{\{\s*secrets\.([A-Za-z0-9_-]+)\s*\}\}")


class Crash(Exception):
    """The host crashed the process after a checkpoint (simulated: state is dropped)."""
TERMINAL = ("succeeded", "failed", "skipped")


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def receive():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


class Engine:
    def __init__(self, bugs):
        self.bugs = bugs
        self.calls = 0

    # -- planning -------------------------------------------------------------

    def plan(self, steps, edges):
        ids = [s["id"] for s in steps]
        if not edges:
            return ids
        index = {step_id: i for i, step_id in enumerate(ids)}
        indegree = {step_id: 0 for step_id in ids}
        successors = {step_id: [] for step_id in ids}
        for edge in edges:
            successors[edge["from"]].append(edge["to"])
            indegree[edge["to"]] += 1
        order = []
        if "plan-fifo" in self.bugs:
            queue = deque(step_id for step_id in ids if indegree[step_id] == 0)
            while queue:
                step_id = queue.popleft()
                order.append(step_id)
                for nxt in successors[step_id]:
                    indegree[nxt] -= 1
                    if indegree[nxt] == 0:
                        queue.append(nxt)
            return order
        ready = [index[step_id] for step_id in ids if indegree[step_id] == 0]
        heapq.heapify(ready)
        while ready:
            step_id = ids[heapq.heappop(ready)]
            order.append(step_id)
            for nxt in successors[step_id]:
                indegree[nxt] -= 1
                if indegree[nxt] == 0:
                    heapq.heappush(ready, index[nxt])
        return order

    # -- one run --------------------------------------------------------------

    def run(self, request):
        doc = request["document"]
        self.recorded = {}
        self.fresh = set()
        if request.get("type") == "replay":
            steps_state = (request.get("runState") or {}).get("steps") or {}
            for step_id, record in steps_state.items():
                if record.get("status") == "succeeded":
                    self.recorded[step_id] = record
            start = request.get("from")
            if start is not None:
                self.fresh = {start} | self.descendants(doc, start)
        self.run_id = request.get("runId", "run_1")
        self.checkpoint = 0
        self.clock = 0
        steps = {s["id"]: s for s in doc["steps"]}
        edges = doc.get("edges") or []
        order = self.plan(doc["steps"], edges)
        self.order = order
        self.position = {step_id: i for i, step_id in enumerate(order)}
        self.steps = steps
        self.inbound = {s: [] for s in order}
        self.outbound = {s: [] for s in order}
        for edge in edges:
            key = (edge["from"], edge["to"], edge.get("when", "success"))
            self.inbound[edge["to"]].append(key)
            self.outbound[edge["from"]].append(key)
        supplied = request.get("variables") or {}
        variables = dict(supplied)
        for var in doc.get("variables") or []:
            if var["key"] in supplied:
                continue
            if "default" in var:
                variables[var["key"]] = var["default"]
            elif var.get("required"):
                # Refused at the start: a failed run that never ran (no "rejected" status).
                error = {"code": "missing_variable",
                         "message": f"required variable {var['key']!r} has no value",
                         "phase": "resolution", "retryable": False}
                self.event("run_rejected", checkpointed=False, status="failed",
                           variable=var["key"], error=error)
                return {"runId": self.run_id, "status": "failed", "steps": {}, "error": error}
        self.variables = variables
        self.trigger = request.get("trigger", {"type": "manual"})
        self.secrets = request.get("secrets") or {}
        self.plain = {}  # step -> the input its action gets (secrets in plaintext)
        self.documents = request.get("documents", {})
        self.checkpoints = request.get("checkpoints") is True
        self.record = {s: {"status": "pending"} for s in order}
        self.skipped = set()
        self.strand = {}
        self.next_strand = 1
        for step_id in order:
            if not self.inbound[step_id]:
                self.strand[step_id] = 0  # one strand runs the roots
        self.busy = {}  # strand -> step running on it
        self.outstanding = {}  # call -> step
        self.failures = []  # (position, step, error) of plain fails
        self.step_errors = []
        self.finished = []  # completion order of succeeded steps
        self.draining = False
        replaying = {"replay": True} if request.get("type") == "replay" else {}
        try:
            self.event("run_started", status="running", attempt=1, runId=self.run_id,
                       variables=variables, **replaying)
            return self.loop()
        except Crash:
            return self.crashed(request)

    def crashed(self, request):
        """The host killed us after a checkpoint: wait to be resumed from the durable state."""
        send({"type": "crashed"})
        while True:
            message = receive()
            if message.get("type") != "resume":
                raise SystemExit(f"expected resume after a crash, got {message!r}")
            try:
                self.resume(message)
                return self.loop()
            except Crash:
                send({"type": "crashed"})

    def resume(self, message):
        """Rebuild the run from a durable RunState: terminal steps stay, running ones restart."""
        state = message["runState"]
        if "resume-from-start" in self.bugs:
            state = {}
        self.checkpoint = message.get("checkpoints", self.checkpoint)
        self.record = {s: {"status": "pending"} for s in self.order}
        self.skipped = set()
        self.strand = {s: 0 for s in self.order if not self.inbound[s]}
        self.next_strand = 1
        self.busy, self.outstanding, self.failures, self.finished = {}, {}, [], []
        self.step_errors = list(state.get("stepErrors") or [])
        self.draining = False
        for step_id in self.order:
            saved = (state.get("steps") or {}).get(step_id)
            if not saved or saved.get("status") not in ("succeeded", "failed", "skipped"):
                continue
            record = {k: v for k, v in saved.items() if k != "stepId"}
            self.record[step_id] = record
            status = record["status"]
            if status == "succeeded":
                self.finished.append(step_id)
                self.skipped.update(k for k in self.outbound[step_id] if k[2] != "success")
            elif status == "skipped":
                self.skipped.update(self.outbound[step_id])
            else:
                has_error_edge = any(k[2] == "error" for k in self.outbound[step_id])
                on_error = self.steps[step_id].get("onError", "fail")
                if has_error_edge and not (on_error == "fail" and "error-edge-ignored" in self.bugs):
                    self.skipped.update(k for k in self.outbound[step_id] if k[2] != "error")
                elif on_error == "fail":
                    self.failures.append((self.position[step_id], step_id, record["error"]))
                    self.draining = True
            self.assign(step_id, self.strand.get(step_id, 0))

    def snapshot(self):
        steps = {}
        for step_id in self.order:
            record = self.record[step_id]
            if record["status"] != "pending":
                steps[step_id] = {"stepId": step_id,
                                  **{k: v for k, v in record.items() if k != "strand"}}
        state = {"runId": self.run_id, "status": "running", "steps": steps}
        if self.step_errors:
            state["stepErrors"] = list(self.step_errors)
        return state

    def loop(self):
        while True:
            self.launch()
            if not self.outstanding:
                break
            send({"type": "wait"})
            message = receive()
            if message.get("type") != "result" or message.get("call") not in self.outstanding:
                raise SystemExit(f"unexpected message {message!r}")
            self.completed(self.outstanding.pop(message["call"]), message)
        return self.finish()

    def launch(self):
        if self.draining:
            return
        progressed = True
        while progressed and not self.draining:
            progressed = False
            for strand in sorted(set(self.strand.values())):
                if strand in self.busy:
                    continue
                for step_id in self.order:
                    if (
                        self.strand.get(step_id) == strand
                        and self.record[step_id]["status"] == "pending"
                        and self.is_ready(step_id)
                    ):
                        self.start(step_id, strand)
                        progressed = True
                        break
                if self.draining:
                    break

    def is_ready(self, step_id):
        return all(self.record[src]["status"] in TERMINAL for src, _, _ in self.inbound[step_id])

    def start(self, step_id, strand):
        inbound = self.inbound[step_id]
        if inbound and all(key in self.skipped for key in inbound) and "no-skip" not in self.bugs:
            self.record[step_id] = {"status": "skipped", "attempt": 0}
            self.skipped.update(self.outbound[step_id])
            self.event("step_skipped", step=step_id)
            self.assign(step_id, strand)
            return
        if (
            step_id in self.recorded
            and step_id not in self.fresh
            and "replay-reinvokes" not in self.bugs
        ):
            record = self.recorded[step_id]
            self.record[step_id] = {"status": "succeeded", "attempt": 1,
                                    "output": record.get("output")}
            if isinstance(record.get("meta"), dict):
                self.record[step_id]["meta"] = record["meta"]
            for key in self.outbound[step_id]:
                if key[2] != "success":
                    self.skipped.add(key)
            self.finished.append(step_id)
            self.event("step_replayed", step=step_id, output=record.get("output"))
            self.assign(step_id, strand)
            return
        step = self.steps[step_id]
        resolved = self.resolve(step.get("with", {}))
        # The action gets the secrets' plaintext; the record shows a marker (never persisted).
        self.plain[step_id] = self.resolve(step.get("with", {}), self.secrets)
        self.record[step_id] = {"status": "running", "attempt": 1, "input": resolved,
                                "strand": strand}
        self.event("step_started", step=step_id, attempt=1, input=resolved)
        self.busy[strand] = step_id
        self.invoke(step_id, self.plain[step_id])

    def invoke(self, step_id, resolved):
        self.calls += 1
        self.outstanding[self.calls] = step_id
        send({"type": "invoke", "call": self.calls, "run": self.run_id, "step": step_id,
              "input": resolved})

    def completed(self, step_id, message):
        step = self.steps[step_id]
        record = self.record[step_id]
        strand = record["strand"]
        if "error" not in message:
            output = message.get("output")
            meta = self.meta(step, message, output)
            record.update(status="succeeded", output=output)
            if meta is not None:
                record["meta"] = meta
            for key in self.outbound[step_id]:
                if key[2] != "success":
                    self.skipped.add(key)
            self.finished.append(step_id)
            extra = {"meta": meta} if meta is not None else {}
            self.event("step_succeeded", step=step_id, attempt=record["attempt"], output=output,
                       **extra)
            del self.busy[strand]
            self.assign(step_id, strand)
            return
        error = message["error"]
        error = {"code": error["code"], "message": error.get("message", ""),
                 "phase": error.get("phase", "execute"),
                 "retryable": error.get("retryable", False) is True}
        self.event("attempt_failed", checkpointed=False, step=step_id,
                   attempt=record["attempt"], error=error)
        retry = step.get("retry")
        if retry and record["attempt"] < retry["maxAttempts"] and self.retryable(error, message):
            wait = self.wait(retry, record["attempt"])
            self.clock += wait
            record["attempt"] += 1
            self.event("retry_scheduled", step=step_id, attempt=record["attempt"], waitMs=wait)
            self.invoke(step_id, self.plain[step_id])
            return
        record.update(status="failed", error=error)
        has_error_edge = any(key[2] == "error" for key in self.outbound[step_id])
        on_error = step.get("onError", "fail")
        if has_error_edge and not (on_error == "fail" and "error-edge-ignored" in self.bugs):
            routing = "error-edge"
            for key in self.outbound[step_id]:
                if key[2] != "error":
                    self.skipped.add(key)
        elif on_error == "fail":
            routing = "fail"
            self.failures.append((self.position[step_id], step_id, error))
            self.draining = True
        else:
            routing = on_error
            if on_error == "continue-record" and "record-drops" not in self.bugs:
                self.step_errors.append({"stepId": step_id, **error})
        self.event("step_failed", step=step_id, attempt=record["attempt"], error=error,
                   routing=routing)
        del self.busy[strand]
        self.assign(step_id, strand)

    def retryable(self, error, message):
        idempotent = message.get("idempotent") is True
        if error["phase"] == "auth":
            return "retry-auth" in self.bugs
        if error["phase"] == "resolution":
            return "A-41=retried" in self.bugs
        if error["phase"] == "execute":
            return idempotent or error["retryable"]
        return error["retryable"]

    def wait(self, retry, failed_attempt):
        delay = retry.get("delayMs", 0)
        if retry.get("backoff") == "exponential":
            delay = delay * 2 ** (failed_attempt - 1)
        if "uncapped-backoff" in self.bugs:
            return int(delay)
        return int(min(delay, CAP_MS))

    def meta(self, step, message, output):
        if step["uses"]["app"].startswith("@w6w/"):
            return None
        reports = [output] if "meta-from-output" in self.bugs else message.get("meta") or []
        if not reports:
            return None
        report = reports[0]  # the first report wins
        if not isinstance(report, dict):
            return None
        meta = {}
        for name in ("app", "version", "action"):
            value = report.get(name)
            if not isinstance(value, str) or len(value) > 256:
                return None
            meta[name] = value
        connection = report.get("connectionId")
        ok = isinstance(connection, str) and len(connection) <= 256
        meta["connectionId"] = connection if ok else None
        return meta

    def assign(self, step_id, strand):
        """Put the newly ready successors of a completed step on strands (FAN-6, FAN-7)."""
        parallel = self.steps[step_id].get("fanOut") == "parallel"
        successors = []
        for _, to, _ in self.outbound[step_id]:
            if to not in successors:
                successors.append(to)
        successors.sort(key=self.position.get)
        first = True
        for to in successors:
            if to in self.strand or not self.is_ready(to):
                continue
            sources = {src for src, _, _ in self.inbound[to]}
            edges = "A-50=edges" in self.bugs
            if (len(self.inbound[to]) if edges else len(sources)) > 1:
                earliest = min(sources, key=self.position.get)
                self.strand[to] = self.strand[earliest]
            elif parallel and not first:
                self.strand[to] = self.next_strand
                self.next_strand += 1
            else:
                self.strand[to] = strand
                first = False

    @staticmethod
    def descendants(doc, step_id):
        edges = doc.get("edges") or []
        if not edges:  # the implicit chain: each step leads to the next declared one
            ids = [s["id"] for s in doc["steps"]]
            edges = [{"from": a, "to": b} for a, b in itertools.pairwise(ids)]
        found, frontier = set(), [step_id]
        while frontier:
            current = frontier.pop()
            for edge in edges:
                if edge["from"] == current and edge["to"] not in found:
                    found.add(edge["to"])
                    frontier.append(edge["to"])
        return found

    # -- resolution -----------------------------------------------------------

    def resolve(self, value, secrets=None):
        """Resolve `$` markers, and `{{ secrets.NAME }}` markers in strings.

        Without `secrets` a secret marker resolves to "[secret]": the form that
        is recorded, since secrets are never persisted with run state.
        """
        if isinstance(value, dict):
            if len(value) == 1 and "$" in value and isinstance(value["$"], str):
                return self.lookup(value["$"])
            return {k: self.resolve(v, secrets) for k, v in value.items()}
        if isinstance(value, list):
            return [self.resolve(v, secrets) for v in value]
        if isinstance(value, str) and SECRET_MARKER.search(value):
            def fill(match):
                if secrets is None:
                    return "[secret]"
                plain = secrets.get(match.group(1))
                return plain if isinstance(plain, str) else json.dumps(plain)
            return SECRET_MARKER.sub(fill, value)
        return value

    def lookup(self, path):
        steps = {}
        for step_id, record in self.record.items():
            if record["status"] == "succeeded":
                steps[step_id] = {"output": record["output"]}
                if "meta" in record:
                    steps[step_id]["meta"] = record["meta"]
        value = {"vars": self.variables, "steps": steps, "trigger": self.trigger,
                 "documents": self.documents}
        for segment in path.split("."):
            if isinstance(value, dict) and segment in value:
                value = value[segment]
            elif isinstance(value, list) and segment.isdigit() and int(segment) < len(value):
                value = value[int(segment)]
            else:
                return None
        return value

    # -- ending ---------------------------------------------------------------

    def finish(self):
        state = {"runId": self.run_id, "steps": {}}
        for step_id in self.order:
            record = self.record[step_id]
            if record["status"] != "pending":
                state["steps"][step_id] = {k: v for k, v in record.items() if k != "strand"}
        if self.failures:
            chosen = self.failures[0] if "first-failure-by-time" in self.bugs else min(
                self.failures)
            _, step_id, error = chosen
            state.update(status="failed", error=error)
            self.event("run_finished", status="failed", error=error, step=step_id)
        else:
            if "last-output-by-time" in self.bugs:
                output = self.record[self.finished[-1]]["output"] if self.finished else None
            else:
                done = [s for s in self.order if self.record[s]["status"] == "succeeded"]
                output = self.record[done[-1]]["output"] if done else None
            state.update(status="succeeded", output=output)
            self.event("run_finished", status="succeeded", output=output)
        if self.step_errors:
            state["stepErrors"] = self.step_errors
        return state

    def event(self, name, checkpointed=True, **fields):
        event = {"event": name, "at": self.clock, **fields}
        if checkpointed:
            self.checkpoint += 1
            event["checkpoint"] = self.checkpoint
        send({"type": "event", "run": self.run_id, "event": event})
        if checkpointed and self.checkpoints and name != "run_finished":
            self.calls += 1
            send({"type": "checkpoint", "call": self.calls, "number": self.checkpoint,
                  "state": self.snapshot()})
            reply = receive()
            if reply.get("type") == "crash":
                raise Crash()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bug", action="append", default=[], choices=sorted(BUGS))
    parser.add_argument("--reading", action="append", default=[], choices=sorted(READINGS))
    args = parser.parse_args()
    engine = Engine(set(args.bug) | set(args.reading))
    send({"type": "ready", "protocol": 1, "engine": "toyflow", "bugs": sorted(args.bug)})
    while True:
        message = receive()
        if message.get("type") == "shutdown":
            return
        if message.get("type") in ("run", "replay"):
            state = engine.run(message)
            send({"type": "done", "run": state["runId"], "state": state})


if __name__ == "__main__":
    main()
