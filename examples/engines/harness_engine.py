#!/usr/bin/env python3
"""hx-lite: a small Harness runtime (chapter 5) speaking the wforacle engine protocol.

Written as a third party would write one: it imports nothing from wforacle
and parses the document with the standard library.  Protocol: the same JSON
lines as the w6w one (docs/engine-protocol.md); a run message carries the
Harness XML in ``document``, plus ``params`` and ``failingResources``; an
``invoke`` names a ``node`` and its ``inputs`` (a loop body's node also
``within``: ``[[loop, iteration], ...]``, outermost first); a RUNNING node
cancelled under an ``any`` join is withdrawn with ``{"type": "cancel",
"call": N}``.

Implements: entry sets (@entry, or every root), joins all / any / quorum,
guards, edge conditions, inputs (edge, value, default; HX-4101), resources
(HX-4102), decisions, unreachability, cancellation under any and while
unwinding (each reported by node_cancelled at once), retries, error edges,
compensation (invoked with the inputs its node_compensated reports), and
loops: a READY loop runs once nothing else is in flight, its iterations one
after another, each a run of the body with params.item and params.index; the
first failing iteration fails it.

Expressions (guards, conditions, cases): or / and / not, the comparisons
== != < <= > >=, numbers, strings, true, false, null, dotted references to
params and to the outputs of SUCCEEDED nodes (an absent one reads as null).
Only true is true; == compares JSON values; ordering compares two numbers or
two strings and is false otherwise.

Seeded bugs (--bug NAME, repeatable):

  all-negative-skipped     not a bug but A-61's other reading (docs/readings.md): an
                           all-negative join makes the node SKIPPED (the earlier draft)
  no-unreachability        unreachability does not propagate: a join behind an untaken branch waits
  cancel-non-idempotent    a RUNNING idempotent="false" node is cancelled under any
  null-for-unavailable     an unavailable required input is passed as null instead of HX-4101
  resources-after-invoke   resourceRefs are resolved after the invocation, not before (HX-EXEC-3/7):
                           the node is invoked, then fails HX-4102
  guard-inverted-null      a guard's == null / != null comparison is inverted (HX-EXEC-1)
  condition-control-only   conditions on data and dependency edges are ignored (HX-READY-3)
  quorum-counts-negative   a resolved-negative edge counts toward a quorum (HX-READY-4)
  retry-success-attempts   a node that succeeds on a retry reports its failed attempts as its
                           attempts (HX-FAIL-1)
  compensation-forward-order
                           compensation runs in completion order, not reverse (HX-FAIL-3, A-64)
  entry-and-roots          with @entry, every other root starts too (HX-START-1)
  value-over-edge          an input's value attribute wins over its incoming data edge (HX-EXEC-2)
  cancel-silently          a node cancelled under any or while unwinding is not reported
                           (no node_cancelled event: HX-CANCEL-1, HX-FAIL-3)
  loop-last-failure        a failed iteration does not end its loop: the later iterations run
                           and the loop reports the last one that failed (HX-SCHED-2, A-80)

Readings, switched on with --reading ID=NAME (repeatable): where the chapter is
open, hx-lite can take the reading wforacle's model does not (`wforacle
readings --spec harness` lists them).  These are not bugs.

  A-80=any                 a loop whose maxConcurrency is not "1" runs its iterations
                           last first (one at a time), so its first failure in time is
                           the last failing iteration in sequence order
  A-81=running             an any join cancels only the nodes of its branch that are
                           RUNNING (idempotent) or RETRYING: a READY one still starts
  A-81=instant             an any join cancels its branch as it is the instant the
                           join fires: a node of the branch that the cancellation
                           itself readies (an all join whose other edge is
                           satisfied) starts
  A-82=retried             an HX-4101 / HX-4102 failure is retried like a failed
                           invocation: each try counts an attempt, node_retrying while
                           attempts remain, and the last node_failed carries attempt
  A-87=incomparable        a reference to something absent is not null: every
                           comparison with it is false, != included
  A-159=first              a decision whose guard is false still routes: only its first
                           case whose when holds is taken
  A-156=none               a compensation target is invoked with no inputs (not the
                           inputs its input elements bind)
  A-64=running             an unwinding instance cancels its RUNNING and RETRYING
                           idempotent nodes too, not only its READY ones
  A-85=run                 the error-edge targets of a node that fails while the
                           instance unwinds run (they are not cancelled)
  A-166=default            a required input with a value, fed by a data edge from an
                           unreachable source, makes its node unreachable (only a
                           default exempts it, as HX-UNREACH-5 is worded)
  A-179=routed             a case target every decision routed elsewhere is
                           unreachable, whatever other edge reaches it
  A-167=last               an input fed by several data edges takes the value of the
                           last of them (document order) that carries one
  A-168=one                a loop iteration's params.index counts from 1, not 0
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import xml.etree.ElementTree as ET

BUGS = {
    "all-negative-skipped",
    "no-unreachability",
    "cancel-non-idempotent",
    "null-for-unavailable",
    "resources-after-invoke",
    "guard-inverted-null",
    "condition-control-only",
    "quorum-counts-negative",
    "retry-success-attempts",
    "compensation-forward-order",
    "entry-and-roots",
    "value-over-edge",
    "cancel-silently",
    "loop-last-failure",
}
READINGS = {
    "A-80=any",
    "A-81=running",
    "A-81=instant",
    "A-82=retried",
    "A-87=incomparable",
    "A-159=first",
    "A-156=none",
    "A-64=running",
    "A-85=run",
    "A-166=default",
    "A-167=last",
    "A-179=routed",
    "A-168=one",
}
TERMINAL = ("SUCCEEDED", "FAILED", "SKIPPED", "CANCELLED")


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def receive():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


# -- expressions: or / and / not / comparisons / literals / dotted names ---------------------

TOKEN = re.compile(
    r'\s*(?:(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|("(?:[^"\\]|\\.)*")|(==|!=|<=|>=|<|>|\(|\))|([A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)*))'
)


def tokenize(text):
    tokens, pos = [], 0
    while pos < len(text.rstrip()):
        match = TOKEN.match(text, pos)
        if not match:
            raise ValueError(f"bad expression {text!r}")
        pos = match.end()
        number, string, op, name = match.groups()
        if number is not None:
            value = float(number)
            tokens.append(
                (
                    "lit",
                    int(value)
                    if value.is_integer() and "." not in number and "e" not in number.lower()
                    else value,
                )
            )
        elif string is not None:
            tokens.append(("lit", json.loads(string)))
        elif op is not None:
            tokens.append(("op", op))
        elif name in ("and", "or", "not"):
            tokens.append(("op", name))
        elif name in ("true", "false", "null"):
            tokens.append(("lit", {"true": True, "false": False, "null": None}[name]))
        else:
            tokens.append(("ref", name.split(".")))
    return tokens


class Expr:
    def __init__(self, text):
        self.tokens = tokenize(text)
        self.pos = 0
        self.tree = self.parse_or()

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else (None, None)

    def take(self):
        token = self.peek()
        self.pos += 1
        return token

    def parse_or(self):
        left = self.parse_and()
        while self.peek() == ("op", "or"):
            self.take()
            left = ("or", left, self.parse_and())
        return left

    def parse_and(self):
        left = self.parse_not()
        while self.peek() == ("op", "and"):
            self.take()
            left = ("and", left, self.parse_not())
        return left

    def parse_not(self):
        if self.peek() == ("op", "not"):
            self.take()
            return ("not", self.parse_not())
        left = self.parse_atom()
        kind, value = self.peek()
        if kind == "op" and value in ("==", "!=", "<", "<=", ">", ">="):
            self.take()
            return ("cmp", value, left, self.parse_atom())
        return left

    def parse_atom(self):
        kind, value = self.take()
        if kind == "op" and value == "(":
            inner = self.parse_or()
            self.take()
            return inner
        return (kind, value)


class Absent:
    """An absent reference under the reading A-87=incomparable."""


ABSENT = Absent()


def evaluate(tree, env, invert_null=False, absent=None):
    kind = tree[0]
    if kind == "lit":
        return tree[1]
    if kind == "ref":
        value = env
        for name in tree[1]:
            if not isinstance(value, dict) or name not in value:
                return absent
            value = value[name]
        return value
    if kind == "not":
        return evaluate(tree[1], env, invert_null, absent) is not True
    if kind == "and":
        return (
            evaluate(tree[1], env, invert_null, absent) is True
            and evaluate(tree[2], env, invert_null, absent) is True
        )
    if kind == "or":
        return (
            evaluate(tree[1], env, invert_null, absent) is True
            or evaluate(tree[2], env, invert_null, absent) is True
        )
    _, op, left, right = tree
    a, b = evaluate(left, env, invert_null, absent), evaluate(right, env, invert_null, absent)
    if a is ABSENT or b is ABSENT:
        return False  # A-87=incomparable
    if invert_null and op in ("==", "!=") and ("lit", None) in (left, right):
        op = "!=" if op == "==" else "=="  # the seeded bug guard-inverted-null
    number = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)  # noqa: E731
    same = (a == b) if number(a) and number(b) else (type(a) is type(b) and a == b)
    if op == "==":
        return same
    if op == "!=":
        return not same
    if not ((number(a) and number(b)) or (isinstance(a, str) and isinstance(b, str))):
        return False
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def holds(tree, env, invert_null=False, absent=None):
    return tree is None or evaluate(tree, env, invert_null, absent) is True


# -- the runtime ---------------------------------------------------------------------------------


class Runtime:
    """One execution instance: the document's, or one iteration of a loop's body."""

    def __init__(self, bugs, readings=(), counter=None, within=(), sink=None):
        self.bugs = bugs
        self.readings = set(readings)
        self.counter = counter if counter is not None else [0]  # call numbers, shared
        self.within = list(within)  # [[loop, iteration], ...] of a loop body's instance
        self.sink = sink  # a loop iteration's events are collected, not sent
        self.absent = ABSENT if "A-87=incomparable" in self.readings else None

    def load(self, text):
        root = ET.fromstring(text)
        self.load_scope(list(root), root.get("entry"))

    def load_scope(self, elements, entry):
        self.nodes, self.order = {}, []
        self.links, self.error_edges, self.compensation = [], {}, {}
        for element in elements:
            tag = element.tag
            if tag in ("node", "decision", "loop"):
                node_id = element.get("id")
                guard = element.find("guard")
                self.nodes[node_id] = {
                    "kind": tag,
                    "guard": Expr(guard.text.strip()).tree
                    if guard is not None and guard.text
                    else None,
                    "inputs": [
                        {
                            "name": i.get("name"),
                            "required": i.get("required") == "true",
                            "value": json.loads(i.get("value"))
                            if i.get("value") is not None
                            else None,
                            "has_value": i.get("value") is not None,
                            "default": json.loads(i.get("default"))
                            if i.get("default") is not None
                            else None,
                            "has_default": i.get("default") is not None,
                        }
                        for i in element.findall("input")
                    ],
                    "outputs": [o.get("name") for o in element.findall("output")],
                    "resources": (element.get("resourceRef") or "").split(),
                    "idempotent": element.get("idempotent", "true") != "false",
                    "join": element.get("joinPolicy", "all"),
                    "quorum": int(element.get("quorum")) if element.get("quorum") else None,
                    "attempts": int(element.find("retry").get("maxAttempts"))
                    if element.find("retry") is not None
                    else 1,
                    "cases": [
                        {
                            "to": c.get("to"),
                            "when": Expr(c.get("when")).tree if c.get("when") else None,
                        }
                        for c in element.findall("case")
                    ],
                    "over": Expr(element.get("over")).tree if tag == "loop" else None,
                    "window": element.get("maxConcurrency"),
                    "body": [e for e in element if e.tag in ("node", "decision", "loop")],
                }
                self.order.append(node_id)
        for element in elements:
            if element.tag != "edge":
                continue
            kind = element.get("type", "control")
            source, target = element.get("from"), element.get("to")
            if kind == "error":
                self.error_edges.setdefault(source, []).append(target)
            elif kind == "compensation":
                self.compensation.setdefault(source, []).append(target)
            else:
                condition = element.get("condition")
                self.links.append(
                    {
                        "from": source,
                        "to": target,
                        "type": kind,
                        "condition": Expr(condition).tree if condition else None,
                        "fromPort": element.get("fromPort"),
                        "toPort": element.get("toPort"),
                    }
                )
        for node_id in self.order:
            for k, case in enumerate(self.nodes[node_id]["cases"]):
                self.links.append(
                    {
                        "from": node_id,
                        "to": case["to"],
                        "type": "case",
                        "case": k,
                        # A SKIPPED decision's case is a conditional edge: its when.
                        "condition": case["when"],
                    }
                )
        roots = [
            n
            for n in self.order
            if not any(l["to"] == n for l in self.links)
            and not any(n in ts for ts in self.error_edges.values())
            and not any(n in ts for ts in self.compensation.values())
        ]
        self.entry = [entry] if entry else roots
        if entry and "entry-and-roots" in self.bugs:
            self.entry += [n for n in roots if n != entry]

    def run(self, request):
        self.load(request["document"])
        return self.execute(request.get("params") or {}, request.get("failingResources") or [])

    def execute(self, params, failing):
        self.params = params
        self.failing = set(failing)
        self.state = {n: "PENDING" for n in self.order}
        self.attempt = {n: 0 for n in self.order}
        self.outputs = {}
        self.inputs = {}  # node -> the inputs its first attempt resolved
        self.error = {}
        self.edge = ["unresolved"] * len(self.links)
        self.unreached = set()
        self.discard = set()
        self.late_resource = {}
        self.finished = []
        self.outstanding = {}
        self.unwinding = False
        self.failed_node = None
        for n in self.entry:
            self.state[n] = "READY"
        self.event("instance_started", entry=list(self.entry))
        self.settle()
        while True:
            progressed = self.launch()
            if self.outstanding:
                send({"type": "wait"})
                message = receive()
                node = self.outstanding.pop(message["call"])
                self.completed(node, message)
                continue
            if progressed:
                continue
            owed = self.compensations_owed() if self.unwinding else []
            if owed:
                self.compensate(owed[0])
                continue
            break
        status = "failed" if self.failed_node else "completed"
        extra = {"failedNode": self.failed_node} if self.failed_node else {}
        self.event("instance_completed", status=status, **extra)
        return {
            "status": status,
            "failedNode": self.failed_node,
            "nodes": {
                n: {
                    "state": self.state[n],
                    "attempts": self.attempt[n],
                    "outputs": self.outputs.get(n) if self.state[n] == "SUCCEEDED" else None,
                    "error": self.error.get(n),
                }
                for n in self.order
            },
        }

    def compensate(self, target):
        """Invoke a compensation target once, with the inputs that have a value."""
        inputs = {} if "A-156=none" in self.readings else self.resolve(target)[0]
        self.invoke(target, inputs)
        send({"type": "wait"})
        message = receive()
        del self.outstanding[message["call"]]
        ok = "error" not in message
        self.state[target] = "SUCCEEDED" if ok else "FAILED"
        if ok:
            declared = self.nodes[target]["outputs"]
            produced = message.get("outputs") or {}
            self.outputs[target] = {k: v for k, v in produced.items() if k in declared}
        self.event("node_compensated", node=target, inputs=inputs, status=self.state[target])

    def compensations_owed(self):
        """Compensation targets of every node that succeeded, latest first, each once,
        not yet run."""
        owed = []
        finished = self.finished if "compensation-forward-order" in self.bugs else None
        for j in finished or reversed(self.finished):
            if self.state[j] != "SUCCEEDED":
                continue
            for t in self.compensation.get(j, []):
                if self.state[t] == "PENDING" and t not in owed:
                    owed.append(t)
        return owed

    def env(self):
        env = {"params": self.params}
        for n in self.order:
            if self.state[n] == "SUCCEEDED":
                env[n] = self.outputs.get(n, {})
        return env

    def launch(self):
        """Start every READY node (each invocation outstanding at once); a READY loop
        only once nothing else is in flight, since its iterations run here and now."""
        started = False
        # While unwinding nothing new starts -- but, under A-85=run, the handlers of a node
        # that failed then (the only READY nodes while unwinding).
        while not self.unwinding or "A-85=run" in self.readings:
            ready = [n for n in self.order if self.state[n] == "READY"]
            tasks = [n for n in ready if self.nodes[n]["kind"] != "loop"]
            if tasks:
                self.start(tasks[0])
            elif ready and not self.outstanding:
                self.start(ready[0])
            else:
                break
            started = True
        return started

    def resolve(self, n):
        """The node's inputs (data edge, value, default) and the first required input
        without a value, or None."""
        inputs, missing = {}, None
        for item in self.nodes[n]["inputs"]:
            if item["has_value"] and "value-over-edge" in self.bugs:
                inputs[item["name"]] = item["value"]
                continue
            bound = False
            links = list(enumerate(self.links))
            if "A-167=last" in self.readings:
                links.reverse()
            for k, link in links:
                if (
                    link["type"] == "data"
                    and link["to"] == n
                    and link.get("toPort") == item["name"]
                    and self.edge[k] == "satisfied"
                ):
                    if self.state[link["from"]] == "SUCCEEDED" and link[
                        "fromPort"
                    ] in self.outputs.get(link["from"], {}):
                        inputs[item["name"]] = self.outputs[link["from"]][link["fromPort"]]
                        bound = True
                        break
            if bound:
                continue
            # A-166=default: only a default stands in for a required input's data edge
            # that brought nothing (HX-DATA-3: "unless the input declares a default").
            only_default = (
                "A-166=default" in self.readings and item["required"] and self.fed(n, item["name"])
            )
            if item["has_value"] and not only_default:
                inputs[item["name"]] = item["value"]
            elif item["has_default"]:
                inputs[item["name"]] = item["default"]
            elif item["required"]:
                if "null-for-unavailable" in self.bugs:
                    inputs[item["name"]] = None
                elif missing is None:
                    missing = item["name"]
        return inputs, missing

    def fed(self, n, port):
        """Whether a data edge feeds input ``port`` of node ``n``."""
        return any(
            link["type"] == "data" and link["to"] == n and link.get("toPort") == port
            for link in self.links
        )

    def retry_before_execution(self, n, failure):
        """Whether a node that failed steps 1-3 tries them again (A-82).

        Not by default: HX-EXEC-7, "a node which cannot run fails without side
        effects", and no attempt is counted.  Under A-82=retried the failure is one
        more attempt (HX-FAIL-1: FAILED once "its retry policy is exhausted"):
        node_retrying while attempts remain, else the node_failed ``failure`` carries
        the attempt."""
        if "A-82=retried" not in self.readings:
            return False
        self.attempt[n] += 1
        if self.attempt[n] < self.nodes[n]["attempts"]:
            self.event("node_retrying", node=n, attempt=self.attempt[n], error=failure["error"])
            return True
        failure["attempt"] = self.attempt[n]
        return False

    def route(self, n, env):
        """Resolve a decision's case edges: the first case whose when holds (HX-SCHED-4)."""
        cases = self.nodes[n]["cases"]
        chosen = next(
            (k for k, c in enumerate(cases) if holds(c["when"], env, False, self.absent)), None
        )
        for k, link in enumerate(self.links):
            if link["from"] == n and link["type"] == "case":
                self.edge[k] = "satisfied" if link["case"] == chosen else "negative"
        return chosen

    def start(self, n):
        """Steps 1-3 (guard, inputs, resources), then run the node: a decision routes,
        a loop runs its iterations, a task is invoked.  Under A-82=retried a failure
        in steps 1-3 tries them again at once while attempts remain (nothing else has
        happened meanwhile, so each try fails as the first did)."""
        node = self.nodes[n]
        while True:
            env = self.env()
            if not holds(node["guard"], env, "guard-inverted-null" in self.bugs, self.absent):
                self.event("node_skipped", node=n)
                if node["kind"] == "decision" and "A-159=first" in self.readings:
                    self.route(n, env)  # a skipped decision still takes its first true case
                self.terminal(n, "SKIPPED")
                return
            inputs, missing = self.resolve(n)
            failing = [r for r in node["resources"] if r in self.failing]
            if missing is not None:
                failure = {"error": "HX-4101", "input": missing}
            elif failing and "resources-after-invoke" in self.bugs and node["kind"] == "node":
                self.late_resource[n] = failing[0]  # resolved once the invocation returns
                failure = None
            elif failing:
                failure = {"error": "HX-4102", "resource": failing[0]}
            else:
                failure = None
            if failure is None:
                break
            if not self.retry_before_execution(n, failure):
                self.event("node_failed", node=n, **failure)
                self.terminal(n, "FAILED", error=failure["error"])
                return
        if node["kind"] == "decision":
            chosen = self.route(n, env)
            self.event(
                "decision_routed",
                node=n,
                to=node["cases"][chosen]["to"] if chosen is not None else None,
            )
            self.outputs[n] = {}
            self.terminal(n, "SUCCEEDED")
            return
        if node["kind"] == "loop":
            self.run_loop(n, evaluate(node["over"], env, False, self.absent))
            return
        self.state[n] = "RUNNING"
        self.attempt[n] += 1  # the first attempt, or the next after A-82=retried's tries
        self.inputs[n] = inputs  # every attempt is invoked with them
        self.event("node_started", node=n, inputs=inputs)
        self.invoke(n, inputs)

    def run_loop(self, n, items):
        """Run the loop's iterations one after another, each a run of its body with
        params.item and params.index; the first that fails fails the loop.  Under
        A-80=any a loop that may run iterations together runs the last first."""
        if not isinstance(items, list):
            self.event("node_failed", node=n, error="loop_over_not_a_list")
            self.terminal(n, "FAILED", error="loop_over_not_a_list")
            return
        ended, failure = {}, None  # iteration -> (its trace, its nodes' outputs)
        order = list(enumerate(items))
        if "A-80=any" in self.readings and self.nodes[n]["window"] != "1":
            order.reverse()  # the last iteration first, where HX-SCHED-4 fixes no order
        for index, item in order:
            body = Runtime(
                self.bugs, self.readings, self.counter, [*self.within, [n, index]], sink=[]
            )
            body.load_scope(self.nodes[n]["body"], None)
            position = index + 1 if "A-168=one" in self.readings else index
            state = body.execute({**self.params, "item": item, "index": position}, self.failing)
            if state["status"] == "failed":
                code = state["nodes"][state["failedNode"]]["error"]
                failure = (code, index, body.sink)
                if "loop-last-failure" in self.bugs:
                    continue  # the seeded bug: later iterations still run
                break
            outputs = {
                m: v["outputs"] for m, v in state["nodes"].items() if v["state"] == "SUCCEEDED"
            }
            ended[index] = (body.sink, outputs)
        traces = [ended[index][0] for index in sorted(ended)]  # in sequence order
        results = [ended[index][1] for index in sorted(ended)]
        if failure is not None:
            code, index, trace = failure
            self.event("node_failed", node=n, error=code, iteration=index, inner=[trace])
            self.terminal(n, "FAILED", error=code)
            return
        self.outputs[n] = {"items": results}
        self.event("node_succeeded", node=n, outputs=self.outputs[n], inner=traces)
        self.terminal(n, "SUCCEEDED")

    def invoke(self, n, inputs):
        self.counter[0] += 1
        call = self.counter[0]
        self.outstanding[call] = n
        message = {"type": "invoke", "call": call, "node": n, "inputs": inputs}
        if self.within:
            message["within"] = self.within
        send(message)

    def completed(self, n, message):
        node = self.nodes[n]
        if n in self.discard:
            self.discard.discard(n)
            self.event("node_cancelled", node=n, finished=True)
            self.terminal(n, "CANCELLED")
            return
        if n in self.late_resource:
            resource = self.late_resource.pop(n)
            self.event("node_failed", node=n, error="HX-4102", resource=resource)
            self.terminal(n, "FAILED", error="HX-4102")
            return
        if "error" in message:
            code = str(message["error"].get("code", "error"))
            if self.attempt[n] < node["attempts"]:
                self.event("node_retrying", node=n, attempt=self.attempt[n], error=code)
                self.attempt[n] += 1
                self.event("node_started", node=n, attempt=self.attempt[n], retry=True)
                self.invoke(n, self.inputs[n])
                return
            self.event("node_failed", node=n, error=code, attempt=self.attempt[n])
            self.terminal(n, "FAILED", error=code)
            return
        outputs = {k: v for k, v in (message.get("outputs") or {}).items() if k in node["outputs"]}
        self.outputs[n] = outputs
        if self.attempt[n] > 1 and "retry-success-attempts" in self.bugs:
            self.attempt[n] -= 1  # counts the failed attempts, not the one that succeeded
        self.event("node_succeeded", node=n, outputs=outputs)
        self.terminal(n, "SUCCEEDED")

    def terminal(self, n, state, error=None):
        self.state[n] = state
        if error:
            self.error[n] = error
        self.finished.append(n)
        env = self.env()
        for k, link in enumerate(self.links):
            if link["from"] == n and self.edge[k] == "unresolved":
                condition = link["condition"]
                if link["type"] in ("data", "dependency") and "condition-control-only" in self.bugs:
                    condition = None
                ok = state in ("SUCCEEDED", "SKIPPED") and holds(condition, env, False, self.absent)
                self.edge[k] = "satisfied" if ok else "negative"
        if state == "FAILED":
            if self.error_edges.get(n):
                for target in self.error_edges[n]:
                    if self.state[target] == "PENDING":
                        if self.unwinding and "A-85=run" not in self.readings:
                            # nothing new starts while unwinding: the handler is cancelled
                            self.cancel(target)
                        else:
                            self.state[target] = "READY"
            elif self.failed_node is None:
                self.failed_node = n
                self.unwinding = True
                for m in self.order:
                    if self.state[m] == "READY":
                        self.cancel(m, negate=False)  # nothing new starts while unwinding
                    elif "A-64=running" in self.readings and self.nodes[m]["idempotent"]:
                        # A-64=running: unwinding cancels RUNNING and RETRYING idempotent
                        # nodes too (HX-CANCEL-2: an idempotent="false" one finishes).
                        if self.state[m] == "RETRYING":
                            self.cancel(m, negate=False)
                        elif self.state[m] == "RUNNING":
                            self.withdraw(m, negate=False)
        self.settle()

    def settle(self):
        fired = []  # the any joins that fired while settling: their READY nodes too
        instant = "A-81=instant" in self.readings
        deferred = []  # under A-81=instant: joins that fired, cancelling once settled
        changed = True
        while changed or deferred:
            if not changed:
                # Settled: the joins that fired cancel their branches as they are now;
                # what the cancellation readies settles next, and none of these joins
                # cancels it.
                for n in deferred:
                    self.cancel_siblings(n)
                deferred, fired = [], []
            changed = False
            for n in self.order:
                if self.state[n] != "PENDING" or n in self.unreached:
                    continue
                if n in self.entry:
                    continue
                incoming = [k for k, l in enumerate(self.links) if l["to"] == n]
                verdict = self.join(n, incoming) if incoming else "unreachable"
                if verdict == "unreachable" and self.handler_may_run(n):
                    continue
                if verdict == "ready" and not self.unwinding:
                    self.state[n] = "READY"
                    changed = True
                    if self.nodes[n]["join"] == "any":
                        fired.append(n)
                        if instant:
                            deferred.append(n)
                        else:
                            self.cancel_siblings(n)
                    elif not instant and "A-81=running" not in self.readings and any(
                        n in self.only_reaching(f) for f in fired
                    ):
                        # READY at the instant an any join it could only reach fired
                        # (HX-CANCEL-1), whichever the document lists first.
                        self.cancel(n)
                elif verdict == "unreachable":
                    # A join whose every incoming edge is negative: a node with no
                    # incoming edge has no join to be all-negative.
                    if (
                        "all-negative-skipped" in self.bugs
                        and incoming
                        and all(self.edge[k] == "negative" for k in incoming)
                    ):
                        self.state[n] = "SKIPPED"
                        for k, l in enumerate(self.links):
                            if l["from"] == n and self.edge[k] == "unresolved":
                                self.edge[k] = "satisfied"
                        changed = True
                        continue
                    self.unreached.add(n)
                    if "no-unreachability" not in self.bugs:
                        for k, l in enumerate(self.links):
                            if l["from"] == n and self.edge[k] == "unresolved":
                                self.edge[k] = "negative"
                    changed = True

    def handler_may_run(self, n):
        """Can an error edge (its source may still fail) or a compensation edge (its
        source may still succeed, or has) still bring ``n`` in?"""
        alive = ("PENDING", "READY", "RUNNING", "RETRYING")
        for source, targets in self.error_edges.items():
            if n in targets and self.state[source] in alive and source not in self.unreached:
                return True
        for source, targets in self.compensation.items():
            if (
                n in targets
                and self.state[source] in (*alive, "SUCCEEDED")
                and source not in self.unreached
            ):
                return True
        return False

    def join(self, n, incoming):
        node = self.nodes[n]
        satisfied = sum(self.edge[k] == "satisfied" for k in incoming)
        unresolved = sum(self.edge[k] == "unresolved" for k in incoming)
        for k in incoming:
            link = self.links[k]
            if (
                link["type"] == "data"
                and self.edge[k] == "negative"
                and link["from"] in self.unreached
            ):
                item = next((x for x in node["inputs"] if x["name"] == link.get("toPort")), None)
                escapes = item and item["has_value"] and "A-166=default" not in self.readings
                if item and item["required"] and not item["has_default"] and not escapes:
                    return "unreachable"
        if "A-179=routed" in self.readings:
            cases = [k for k in incoming if self.links[k]["type"] == "case"]
            if cases and all(self.edge[k] == "negative" for k in cases):
                return "unreachable"  # HX-UNREACH-3 as worded
        if node["join"] == "any":
            return "ready" if satisfied else ("unreachable" if not unresolved else "waiting")
        if node["join"] == "quorum":
            quorum = node["quorum"] or len(incoming)
            if "quorum-counts-negative" in self.bugs:
                satisfied = len(incoming) - unresolved  # every resolved edge counted
            if satisfied >= quorum:
                return "ready"
            return "unreachable" if satisfied + unresolved < quorum else "waiting"
        if unresolved:
            return "waiting"
        return "ready" if satisfied else "unreachable"

    def cancel_siblings(self, join):
        """HX-CANCEL-1: "sibling branches still running that could only have reached
        this node MUST be moved to CANCELLED" -- their READY, RETRYING and RUNNING
        nodes; under A-81=running only RUNNING and RETRYING ones (a READY node starts)."""
        ready_too = "A-81=running" not in self.readings
        for m in self.only_reaching(join):
            if self.state[m] == "RETRYING" or (self.state[m] == "READY" and ready_too):
                self.cancel(m)
            elif self.state[m] == "RUNNING":
                if self.nodes[m]["idempotent"] or "cancel-non-idempotent" in self.bugs:
                    self.withdraw(m)
                else:
                    self.discard.add(m)

    def withdraw(self, m, negate=True):
        """Cancel RUNNING node ``m``: its outstanding call withdrawn (``cancel``), then
        CANCELLED as ``cancel`` does."""
        call = next(c for c, node in self.outstanding.items() if node == m)
        del self.outstanding[call]
        send({"type": "cancel", "call": call})
        self.cancel(m, negate)

    def cancel(self, m, negate=True):
        """CANCELLED, reported at once (its outgoing edges resolve negative)."""
        self.state[m] = "CANCELLED"
        if negate:
            self.negate(m)
        if "cancel-silently" not in self.bugs:
            self.event("node_cancelled", node=m)

    def negate(self, m):
        for k, l in enumerate(self.links):
            if l["from"] == m and self.edge[k] == "unresolved":
                self.edge[k] = "negative"

    def only_reaching(self, join):
        """Nodes every path from which runs into ``join``: walking forward from them
        without entering ``join`` never reaches a node with no successor."""
        succ = {n: {l["to"] for l in self.links if l["from"] == n} for n in self.order}

        def reach(n, avoid=None):
            seen, todo = set(), [n]
            while todo:
                for m in succ[todo.pop()]:
                    if m != avoid and m not in seen:
                        seen.add(m)
                        todo.append(m)
            return seen

        found = []
        for n in self.order:
            if n == join or join not in reach(n):
                continue
            if not any(not succ[m] for m in reach(n, avoid=join) | {n}):
                found.append(n)
        return found

    def event(self, name, **fields):
        if self.sink is not None:
            self.sink.append({"event": name, **fields})
        else:
            send({"type": "event", "event": {"event": name, **fields}})


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog=__doc__[__doc__.index("Seeded bugs") :],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--bug", action="append", default=[], choices=sorted(BUGS))
    parser.add_argument("--reading", action="append", default=[], choices=sorted(READINGS))
    args = parser.parse_args()
    runtime = Runtime(set(args.bug), args.reading)
    send({"type": "ready", "protocol": 1, "engine": "hx-lite", "spec": "harness"})
    while True:
        message = receive()
        if message.get("type") == "shutdown":
            return
        if message.get("type") == "run":
            state = runtime.run(message)
            send({"type": "done", "run": message.get("runId"), "state": state})


if __name__ == "__main__":
    main()
