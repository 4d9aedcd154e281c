#!/usr/bin/env python3
"""toyflow: a small w6w workflow engine that speaks the wforacle engine protocol.

Written the way a third party would write an engine against the w6w RFC: it
imports nothing from wforacle.  It reads JSON lines on stdin and writes JSON
lines on stdout (docs/engine-protocol.md); the host (the oracle) answers its
invocations and decides the order in which concurrent ones complete.

What it implements: planning (topological order, ties by declared order),
the expression layer of with values (below), step retry
with fixed / exponential backoff capped at 300000 ms, the retry
classification, onError fail / continue / continue-record, error edges,
skip propagation, fanOut "parallel" strands with joins, draining,
first-failure-by-plan-order reporting, lastOutput, step metadata from
onExecuted reports, replay (from a step and its descendants), crash and
resume (checkpoints sent when the host asks; a crashed run is rebuilt from
the durable RunState), and the canonical controls if, foreach and parallel
(docs/controls.md: a sub-block runs as a run of its own, its events sent
inside the control's step event as "inner"), and the wait control (the run
suspends, drains and waits idle for the host's wake or quiet;
docs/engine-protocol.md "Wait"), and the run-level handler's retry (the
whole graph again after the backoff, never on a resumed execution) and
onError "continue" (Amendment 2026-08-21).  Not implemented: @w6w/call, the
run-level reroute (no message delivers its target's result), a wait inside
a sub-block.

The expression layer (RFC "Expression markers", amendments 2026-08-11,
2026-08-14, 2026-08-20 and 2026-10-12): `{"$": path}` (typed; absent is null),
`{"$expr": logic}`, ExprValue envelopes `{"type": "expr", "parts": [...]}` with
text, var, secret, expr and render parts (one string; unknown kinds give ""),
`{{ }}` markers in strings, resolved only when every marker names one of the
eight run-scope roots (all-or-nothing, one string), fallback chains
`{{ A || B }}` / `{{ A ?? B }}`, `{{ =<JSON Logic> }}`, `{{ secrets.NAME }}`.
Expressions read the run scope without secrets (vars, steps, trigger,
documents); only a secret part or marker reads a secret, and the action gets
its plaintext while the trace and the RunState record "[secret]".  A render
part renders the string at its ref once, in render mode (no secret
production).  A resolution failure fails the step with phase "resolution":
secret_unavailable, render_ref_unresolved, render_ref_not_a_string,
expr_evaluation_failed.  JSON Logic, as the community semantics has it: var,
cat, ==, if, or and ?? (the operators chains compile to), and the arithmetic
(+ - * /), order (< <= > >=), missing, merge, max and min the w6w-jsonlogic
profile draws, each reading every operand; any other operator fails as an
unknown operator.  Under --reading A-20=classic every $expr and {{ = }}
payload is evaluated by json-logic-js 2.0.5 itself, in a Node.js process
(node on PATH; json-logic-js found through $WFORACLE_NODE_MODULES, NODE_PATH
or the checkout's tests/differential/node_modules, installed by npm ci there).

Seeded bugs, switched on with --bug NAME (repeatable), for showing that a
campaign finds them:

  error-edge-ignored      a failing step with an error edge and onError "fail" ends the run
  no-skip                 a step reachable only through skipped edges runs anyway
  retry-auth              auth-phase errors are retried like execute errors
  uncapped-backoff        exponential waits are not capped at 300000 ms
  meta-from-output        step meta is read from the action's output, not onExecuted
  record-drops            continue-record failures are not kept in stepErrors
  last-output-by-time     the run's output is the last step to finish, not the last by plan
  first-failure-by-time   the reported failure is the first to happen, not the first by plan
  replay-reinvokes        replay calls the actions of steps that succeeded in the original run
  resume-from-start       after a crash, the run starts over instead of resuming its durable state
  abort-ignored           the host's abort signal (abort, answering a checkpoint) is ignored
  reroute-failure-continued  a failed reroute target still lets onError "continue" resolve
                          the run (succeeded, null output) instead of leaving it failed
  call-retried            a failed @w6w/call is retried under its retry policy
  call-depth-unbounded    a call past maxCallDepth runs its workflow anyway
  call-defaults-ignored   a child run's variables are the call's inputs alone: the
                          child's declared defaults do not apply (W6W-FIELD-19)
  call-memoized           a call with the workflow and inputs of an earlier succeeded call
                          in the execution returns that call's output, running nothing
  resume-no-checkpoints   a resumed run sends no checkpoint messages (resume's "checkpoints"
                          is a number, not true), so a second scripted crash never comes
  template-partial-root   a string mixing rooted and unrooted {{ }} markers resolves its rooted ones
  secret-generic-root     secrets are on the generic data root: {"$": "secrets.K"} reads a secret
  template-untyped        a string that is one {{ }} marker resolves to the typed value, not a string
  render-two-pass         a render part's result is rendered again when it holds {{ }} markers
  chain-first-only        a fallback chain {{ A || B }} / {{ A ?? B }} yields its first operand
  control-retried         a failed control is retried under its retry policy
  foreach-shared-callback foreach iterations share one onExecuted callback: every iteration's
                          step keeps the first report the control's body received
  block-meta-unpublished  a sub-block step's meta is not published into the block's scope
  foreach-root-unknown    {{ foreach.x }} markers are not root-anchored (left verbatim)
  block-failure-ignored   a sub-block's failure does not fail its control
  nested-block-root-scope a control inside a sub-block runs its own blocks against the run's
                          top-level scope: the enclosing block's steps and foreach are unseen
  parallel-no-drain       a parallel control's branches keep launching steps after one
                          branch's step failed (the block does not drain)
  wait-no-drain           a wait's suspension does not drain the run: other strands keep
                          launching steps (fuzz --profile w6w-wait)
  missing-only-absent     JSON Logic missing counts only an absent path, not a null or ""
                          value (fuzz --profile w6w-jsonlogic)
  plus-concatenates       JSON Logic + with a string operand concatenates, as JavaScript's
                          + does ("3" + 1 is "31"), instead of adding numbers
  run-retry-no-wait       the run-level retry restarts at once, without the backoff
                          Step.retry uses (W6W-RUNERR-2)
  continue-no-step-error  the run-level onError "continue" does not append the failure to
                          stepErrors (W6W-RUNERR-5)

Readings, switched on with --reading ID=NAME (repeatable): where the RFC is
open, toyflow can take the reading wforacle's model does not (`wforacle
readings` lists them).  These are not bugs: a campaign under the default
`--readings any` passes and reports the reading the engine took.

  A-02=fifo               the plan breaks ties first-in first-out: ready steps queue up in
                          the order they became ready (newly ready ones in declared order),
                          not the earliest-declared ready step next
  A-33=string             an object or array in a string is JavaScript's String(v)
                          ([object Object], 1,2), not JSON.stringify's text
  A-42=supplied           a required variable must be supplied: its default does not
                          satisfy it (the run is rejected, missing_variable)
  A-72=canceled           a run refused at its start (a missing required variable) ends
                          canceled, not failed: run_rejected says canceled, no RunState error
  A-50=edges              a step's indegree counts inbound edges, not distinct sources
                          (a success and an error edge from one source make a join)
  A-41=retried            the retry policy retries a resolution-phase failure
  A-37=infix              only a {{ }} marker written with || or ?? is root-checked as a
                          fallback chain; an "=" payload shaped like one is exempt
  A-158=fails             {{ secrets }} and {{ secrets. }} name no secret and fail the
                          step (secret_unavailable), as an empty secret part does
  A-53=javascript         an if control's condition is truthy as in JavaScript: [] and {}
                          choose the then block
  A-71=edges              a replay from a step re-runs the steps its declared edges lead
                          to: in a document without edges, that step alone
  A-157=literal           a render part's content with an unterminated {{ is literal as a
                          whole (as a with-value string is), its earlier markers unresolved
  A-164=resolved          an abort signal that fires once the run-level handler acted
                          (run_continued, run_rerouted) is not polled: the run ends as the
                          handler left it
  A-165=stop              the abort signal is polled between a running step's attempts: a
                          step in flight makes no further retry, its failed attempt final
  A-56=inherit            a @w6w/call's child run sees its caller's trigger (not the
                          manual trigger)
  A-46=kept               a step running at a crash resumes at the attempt its checkpoint
                          holds (the lost attempt counts toward maxAttempts), not at 1
  A-20=classic            JSON Logic is json-logic-js 2.0.5's (it is called): -, / and the
                          comparisons read two operands, + and * parseFloat, NaN and
                          undefined are values (written as null), missing of "" is never
                          missing, a computed argument list is wrapped, not spread
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from collections import deque

REROUTE = "(reroute)"  # the unit a reroute target's dispatch invokes (docs/engine-protocol.md)
BUGS = {
    "error-edge-ignored",
    "no-skip",
    "retry-auth",
    "uncapped-backoff",
    "meta-from-output",
    "record-drops",
    "last-output-by-time",
    "first-failure-by-time",
    "replay-reinvokes",
    "resume-from-start",
    "resume-no-checkpoints",
    "abort-ignored",
    "reroute-failure-continued",
    "call-retried",
    "call-depth-unbounded",
    "call-defaults-ignored",
    "call-memoized",
    "template-partial-root",
    "secret-generic-root",
    "template-untyped",
    "render-two-pass",
    "chain-first-only",
    "control-retried",
    "foreach-shared-callback",
    "block-meta-unpublished",
    "foreach-root-unknown",
    "block-failure-ignored",
    "nested-block-root-scope",
    "parallel-no-drain",
    "wait-no-drain",
    "missing-only-absent",
    "plus-concatenates",
    "run-retry-no-wait",
    "continue-no-step-error",
}
READINGS = {
    "A-02=fifo",
    "A-33=string",
    "A-42=supplied",
    "A-72=canceled",
    "A-50=edges",
    "A-41=retried",
    "A-37=infix",
    "A-158=fails",
    "A-53=javascript",
    "A-71=edges",
    "A-157=literal",
    "A-164=resolved",
    "A-165=stop",
    "A-56=inherit",
    "A-46=kept",
    "A-20=classic",
}
CAP_MS = 300_000


BLOCK_KEYS = ("then", "else", "body", "branches")  # a control's sub-blocks under with


def is_control(step):
    uses = step.get("uses") or {}
    return uses.get("app") == "@w6w/control"


class Crash(Exception):
    """The host crashed the process after a checkpoint (simulated: state is dropped)."""


TERMINAL = ("succeeded", "failed", "skipped")
SECRET = "[secret]"  # what a secret's plaintext is recorded as: secrets are never persisted


# -- the expression layer (RFC "Expression markers" and its amendments) ---------
#
# What a with value resolves to, read from the RFC text:
#   {"$": path}                      the value at path in the generic data root, typed;
#                                    absent is null
#   {"$expr": logic}                 JSON Logic over the generic data root, typed
#   {"type": "expr", "parts": [...]} one string: the parts resolved and concatenated
#   a string with {{ }} markers      resolved iff every marker names one of the eight
#                                    roots (2026-08-14), to one string; else verbatim
#   other objects and arrays         member by member
# The generic data root is the run scope without secrets (2026-08-11): vars, steps,
# trigger, documents.  Only a secret part (or {{ secrets.NAME }}) reads a secret.
# Nothing a value resolves to is walked again (one pass).

ROOTS = {"vars", "steps", "trigger", "secrets", "documents", "inputs", "output", "foreach"}
MISSING = object()  # a path that is not there (JavaScript's undefined)
NUMBER = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|Infinity)")
RADIX = re.compile(r"0(?:[xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)")
JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008" \
           "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


class ResolutionFailure(Exception):
    """The step fails before its action is invoked (StepError phase "resolution")."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class LogicError(Exception):
    """A JSON Logic evaluation failed; `thrown` is the error value."""

    def __init__(self, thrown):
        super().__init__(thrown)
        self.thrown = thrown


def js_number(value):
    """Number::toString (ECMA-262): the shortest round-trip digits, an exponent only
    below 1e-6 or from 1e21 on."""
    if isinstance(value, int) and abs(value) < 10**21:
        return str(value)
    x = float(value)
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    mantissa, _, exponent = repr(abs(x)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    fraction = fraction.rstrip("0") if fraction != "0" else ""
    digits = (whole + fraction).lstrip("0")
    n = len(whole.lstrip("0")) + int(exponent or 0) if whole.strip("0") else (
        int(exponent or 0) - (len(fraction) - len(fraction.lstrip("0")))
    )
    digits = digits.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{sign}{head}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"


def js_string(value):
    """JavaScript's String(value), as JSON Logic's cat uses it."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number(value)
    if value is None:
        return "null"
    if isinstance(value, list):
        return ",".join("" if v is None or v is MISSING else js_string(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    return "undefined"


def to_number(value):
    """JavaScript's ToNumber; None when the result is NaN."""
    if isinstance(value, bool):
        return 1 if value else 0
    if isinstance(value, (int, float)):
        return value
    if value is None:
        return 0
    if not isinstance(value, str):
        return None
    text = value.strip(JS_SPACE)
    if not text:
        return 0
    if NUMBER.fullmatch(text):
        return float(text.replace("Infinity", "inf"))
    if RADIX.fullmatch(text):
        return int(text, 0)
    return None


def truthy(value):
    """JSON Logic truthiness: JavaScript's, except that [] is false."""
    if isinstance(value, list):
        return bool(value)
    if isinstance(value, dict):
        return True
    if value is MISSING or (isinstance(value, float) and value != value):
        return False
    return bool(value)


STRING_FORM = ["json"]  # --reading A-33=string: String(v) instead of JSON.stringify


def stringify(value):
    """A part's contribution to a string: null and absent are "", objects compact JSON."""
    if isinstance(value, str):
        return value
    if value is None or value is MISSING:
        return ""
    if isinstance(value, (dict, list)):
        return js_string(value) if STRING_FORM[0] == "string" else js_json(value)
    return js_string(value)


def js_json(value):
    """JSON.stringify(value) (A-33): numbers as JavaScript prints them (1e-7, not 1e-07),
    an object's integer-like keys first in ascending order, then the rest as given."""
    if value is None or value is MISSING:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(js_json(v) for v in value) + "]"
    indices = sorted((k for k in value if re.fullmatch(r"0|[1-9][0-9]*", k)), key=int)
    keys = indices + [k for k in value if k not in set(indices)]
    return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + js_json(value[k]) for k in keys) + "}"


def member(value, name):
    """value[name] for JSON values: own members, array indexes, length; else MISSING."""
    if isinstance(value, dict):
        return value.get(name, MISSING)
    if isinstance(value, (list, str)):
        if name == "length":
            return len(value) if isinstance(value, list) else len(value.encode("utf-16-le")) // 2
        if name.isdigit() and (name == "0" or name[0] != "0") and int(name) < len(value):
            return value[int(name)]
    return MISSING


def lookup(root, path):
    """The value at a dotted path (segments split on "."), or MISSING."""
    value = root
    for segment in path.split("."):
        if value is None or value is MISSING:
            return MISSING
        value = member(value, segment)
    return value


# -- JSON Logic: the operators toyflow supports ------------------------------------
# var, cat, ==, if, or and ?? (the operators fallback chains compile to).  Any other
# operator fails with "Unknown Operator": toyflow is not a full JSON Logic engine.


def evaluate(logic, data):
    if not isinstance(logic, (dict, list)) or not logic:
        return logic
    if isinstance(logic, list):
        return [evaluate(item, data) for item in logic]
    if len(logic) > 1:
        raise LogicError({"type": "Unknown Operator", "key": next(iter(logic))})
    ((op, args),) = logic.items()
    if op == "var":
        return op_var(args, data)
    if op == "if":
        if not isinstance(args, list):
            raise LogicError({"type": "Invalid Arguments"})
        if not args:
            return None
        for i in range(0, len(args) - 1, 2):
            if truthy(evaluate(args[i], data)):
                return evaluate(args[i + 1], data)
        return evaluate(args[-1], data) if len(args) % 2 == 1 else None
    if op == "or":
        if not isinstance(args, list):
            raise LogicError({"type": "Invalid Arguments"})
        item = False
        for rule in args:
            item = evaluate(rule, data)
            if truthy(item):
                return item
        return item
    if op == "??":
        if not isinstance(args, list):
            raise LogicError({"type": "Invalid Arguments"})
        for rule in args:
            item = evaluate(rule, data)
            if item is not None and item is not MISSING:
                return item
        return None
    if op == "==":
        if not isinstance(args, list) or len(args) < 2:
            raise LogicError({"type": "Invalid Arguments"})
        previous = evaluate(args[0], data)
        for rule in args[1:]:
            current = evaluate(rule, data)
            if not loose_equal(previous, current):
                return False
            previous = current
        return True
    if op == "cat":
        if isinstance(args, list):
            args = [evaluate(a, data) for a in args]
        else:
            value = evaluate(args, data)
            args = value if isinstance(args, dict) and isinstance(value, list) else [value]
        return "".join(js_string(a) for a in args if a is not None and a is not MISSING)
    if op in ARITHMETIC:
        return arithmetic(op, operands(args, data))
    if op in ORDER:
        if not isinstance(args, list) or len(args) < 2:
            raise LogicError({"type": "Invalid Arguments"})
        previous = evaluate(args[0], data)
        for rule in args[1:]:
            current = evaluate(rule, data)
            if not ordered(op, previous, current):
                return False
            previous = current
        return True
    if op == "missing":
        args = operands(args, data)
        keys = args[0] if args and isinstance(args[0], list) else args
        return [key for key in keys if is_missing(data, key)]
    if op == "merge":
        return [x for a in operands(args, data) for x in (a if isinstance(a, list) else [a])]
    if op in ("max", "min"):
        args = operands(args, data)
        if not args or not all(isinstance(a, (int, float)) and not isinstance(a, bool) for a in args):
            raise LogicError({"type": "Invalid Arguments"})
        return max(args) if op == "max" else min(args)
    raise LogicError({"type": "Unknown Operator", "key": op})


ARITHMETIC = ("+", "-", "*", "/")
ORDER = ("<", "<=", ">", ">=")
BUG_SWITCHES = set()  # the --bug names the evaluator reads (it has no engine at hand)


def operands(args, data):
    """An operation's operands: each evaluated; a computed argument list spread (A-25)."""
    if isinstance(args, list):
        return [evaluate(a, data) for a in args]
    value = evaluate(args, data)
    return value if isinstance(args, dict) and isinstance(value, list) else [value]


def number_operand(value):
    """An arithmetic operand through ToNumber; an object, array or NaN fails with NaN."""
    x = None if isinstance(value, (dict, list)) or value is MISSING else to_number(value)
    if x is None or x != x:
        raise LogicError({"type": "NaN"})
    return float(x)


def arithmetic(op, args):
    if op == "+" and "plus-concatenates" in BUG_SWITCHES and any(isinstance(a, str) for a in args):
        return "".join(js_string(a) for a in args)
    if op == "+":
        result = 0.0
        for a in args:
            result += number_operand(a)
    elif op == "*":
        result = 1.0
        for a in args:
            result *= number_operand(a)
    else:
        if not args:
            raise LogicError({"type": "Invalid Arguments"})
        if op == "-":
            result = -number_operand(args[0]) if len(args) == 1 else number_operand(args[0])
            for a in args[1:]:
                result -= number_operand(a)
        else:
            numbers = [1.0, *args] if len(args) == 1 else args
            result = number_operand(numbers[0])
            for a in numbers[1:]:
                divisor = number_operand(a)
                if divisor == 0:
                    raise LogicError({"type": "NaN"})
                result /= divisor
    if result != result or result in (float("inf"), float("-inf")):
        raise LogicError({"type": "NaN"})
    return int(result) if result.is_integer() and abs(result) < 2**53 else result


def ordered(op, a, b):
    """<, <=, >, >= as the community semantics compares: two strings as strings, a string
    and null as numbers (NaN compares false), anything else as numbers (NaN fails)."""
    if (a is None or isinstance(a, str)) and (b is None or isinstance(b, str)):
        if a is not None and b is not None:
            x, y = a.encode("utf-16-be", "surrogatepass"), b.encode("utf-16-be", "surrogatepass")
        else:
            x, y = to_number(a), to_number(b)
            if x is None or y is None:
                return False
    else:
        x, y = (
            None if isinstance(v, (dict, list)) or v is MISSING else to_number(v) for v in (a, b)
        )
        if x is None or y is None or x != x or y != y:
            raise LogicError({"type": "NaN"})
    return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]


def is_missing(data, key):
    """A missing key: its path, read as var reads it ("" is the whole data), absent, null
    or ""."""
    path = key if isinstance(key, str) else js_string(key)
    value = data if path == "" else lookup(data, path)
    if "missing-only-absent" in BUG_SWITCHES:
        return value is MISSING
    return value is MISSING or value is None or value == ""


def op_var(args, data):
    if isinstance(args, (dict, list)):
        args = evaluate(args, data)
    if isinstance(args, list):
        key = args[0] if args else None
        default = args[1] if len(args) > 1 else None
    else:
        key, default = args, None
    if key is None or key == "":
        return data
    if not isinstance(key, str):
        key = js_string(key)
    value = data
    for part in key.split("."):
        if value is None or value is MISSING:
            return default
        value = member(value, part)
        if value is MISSING:
            return default
    return value


def loose_equal(a, b):
    """JSON Logic ==: strings (or null) compare as strings, anything else as numbers."""
    if (a is None or isinstance(a, str)) and (b is None or isinstance(b, str)):
        return a == b
    x, y = to_number(a), to_number(b)
    if x is None or y is None or x != x or y != y:
        raise LogicError({"type": "NaN"})
    return x == y


# -- {{ }} templates ------------------------------------------------------------------
# A template is text and markers.  A marker body is read by the first production
# that accepts it: "=" then JSON → an expr part; a flat fallback chain (A || B,
# A ?? B) → an expr part; "secrets.NAME" → a secret part (editor mode only); anything
# else → a var part.  An unterminated {{ makes the rest of the string text.


def parse_template(text, render=False):
    """(segments, unterminated): segments are ("text", s) or ("marker", raw, part)."""
    segments = []
    position = 0
    while True:
        start = text.find("{{", position)
        if start < 0:
            if position < len(text):
                segments.append(("text", text[position:]))
            return segments, False
        end = marker_end(text, start + 2)
        if end is None:
            segments.append(("text", text[position:]))
            return segments, True
        if start > position:
            segments.append(("text", text[position:start]))
        body = text[start + 2:end].strip()
        segments.append(("marker", text[start:end + 2], parse_body(body, render)))
        position = end + 2


def marker_end(text, cursor):
    """Where the }} closing a marker is: after the JSON of an "=" body, else the first }}."""
    while cursor < len(text) and text[cursor] in " \t\n\r":
        cursor += 1
    if text.startswith("=", cursor):
        decoder = json.JSONDecoder(parse_constant=reject, parse_float=finite)
        start = cursor + 1
        while start < len(text) and text[start] in " \t\n\r":
            start += 1
        try:
            _, close = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            close = None
        if close is not None:
            while close < len(text) and text[close] in " \t\n\r":
                close += 1
            if text.startswith("}}", close):
                return close
    close = text.find("}}", cursor)
    return None if close < 0 else close


def reject(constant):
    raise ValueError(f"not JSON: {constant}")


def finite(text):
    # docs/assumptions.md A-154: a number too large for a float (1E400) is not a
    # JSON value wforacle reads, so a marker holding one is not an expression.
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"not a finite number: {text}")
    return value


def strict_json(text):
    try:
        return json.loads(text, parse_constant=reject, parse_float=finite)
    except (ValueError, RecursionError):
        return MISSING


def parse_body(body, render):
    if body.startswith("="):
        payload = strict_json(body[1:])
        if payload is not MISSING:
            return ("expr", payload)
    tokens = chain_tokens(body)
    if tokens is not None and any(kind == "op" for kind, _ in tokens):
        chain = chain_part(tokens)
        return chain if chain is not None else ("var", body)
    if not render and body.startswith("secrets.") and len(body) > len("secrets."):
        return ("secret", body[len("secrets."):])
    return ("var", body)


def chain_tokens(body):
    """The body as operand text and top-level || / ?? operators (JSON strings are opaque)."""
    if "||" not in body and "??" not in body:
        return []
    tokens, i, chunk = [], 0, ""
    while i < len(body):
        if body[i] == '"':
            j = i + 1
            while j < len(body) and body[j] != '"':
                if body[j] == "\n":
                    return None
                j += 2 if body[j] == "\\" else 1
            if j >= len(body):
                return None  # an unterminated JSON string: no chain to find
            chunk += body[i:j + 1]
            i = j + 1
        elif body.startswith("||", i) or body.startswith("??", i):
            tokens.append(("text", chunk))
            tokens.append(("op", body[i:i + 2]))
            chunk, i = "", i + 2
        else:
            chunk += body[i]
            i += 1
    tokens.append(("text", chunk))
    return tokens


def chain_part(tokens):
    """A flat chain: one operator kind, two or more non-empty operands, none secrets.*."""
    operators = {text for kind, text in tokens if kind == "op"}
    if len(operators) != 1:
        return None
    operands = []
    for kind, text in tokens:
        if kind == "op":
            continue
        text = text.strip()
        if not text or text.startswith("secrets."):
            return None
        literal = strict_json(text)
        operands.append({"var": text} if literal is MISSING else literal)
    return ("chain", "or" if operators == {"||"} else "??", operands)


def path_is_rooted(path):
    tokens = chain_tokens(path)
    chained = tokens is not None and any(kind == "op" for kind, _ in tokens)
    return path.split(".", 1)[0] in ROOTS and not chained


def chain_refs(logic):
    """The var paths of a flat {"or"|"??": [...]} chain's operands; None for other logic."""
    if not isinstance(logic, dict) or len(logic) != 1:
        return None
    ((operator, operands),) = logic.items()
    if operator not in ("or", "??") or not isinstance(operands, list) or len(operands) < 2:
        return None
    refs = []
    for operand in operands:
        if isinstance(operand, list):
            return None
        if isinstance(operand, dict):
            if set(operand) != {"var"} or not isinstance(operand["var"], str):
                return None
            refs.append(operand["var"])
    return refs


def is_rooted(part, infix_only=False):
    """Whether a marker names a run-scope root (root-anchoring, item 4, and the chain rule).

    {{ secrets.NAME }} and {{ =JSON }} always do; a fallback chain iff each of its var
    operands does, which toyflow checks on the shape of the JSON Logic (so an "=" payload
    shaped like a chain is checked the same way: wforacle's A-37) unless `infix_only`
    (--reading A-37=infix: only a marker written with || or ?? is checked); a path iff its
    first dot-segment is one of the eight roots.
    """
    kind = part[0]
    if kind == "secret" or (kind == "expr" and infix_only):
        return True
    if kind in ("expr", "chain"):
        refs = chain_refs(part[1] if kind == "expr" else {part[1]: part[2]})
        return refs is None or all(path_is_rooted(ref) for ref in refs)
    return path_is_rooted(part[1])


def read_part(raw):
    """An authored ExprValue part as ("kind", field); unknown kinds contribute ""."""
    if not isinstance(raw, dict):
        return ("unknown",)
    kind = raw.get("kind")
    if kind == "text":
        value = raw.get("value")
        # A value that is not a string is stringified as any part's is.
        return ("text", "" if value is None else value if isinstance(value, str) else stringify(value))
    if kind in ("var", "secret", "render"):
        ref = raw.get("ref")
        return (kind, ref if isinstance(ref, str) else None)
    if kind == "expr":
        return ("expr", raw["expr"]) if "expr" in raw else ("text", "")
    return ("unknown",)


class Resolution:
    """Resolves with values against one run scope; `secrets` is what secret parts read."""

    def __init__(self, data, secrets, bugs):
        self.bugs = bugs
        self.secrets = secrets
        self.data = dict(data)
        if "secret-generic-root" in bugs:
            self.data["secrets"] = secrets

    def value(self, value):
        if isinstance(value, dict):
            if len(value) == 1 and "$" in value:
                path = value["$"]
                if not isinstance(path, str) or not path:
                    return None
                found = lookup(self.data, path)
                return None if found is MISSING else found
            if len(value) == 1 and "$expr" in value:
                return self.logic(value["$expr"])
            if value.get("type") == "expr" and isinstance(value.get("parts"), list):
                return "".join(self.part(read_part(raw)) for raw in value["parts"])
            return {k: self.value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, str) and "{{" in value:
            return self.template(value)
        return value

    def logic(self, rule, chain=False, as_json=True):
        """A rule's value.  Under A-20=classic json-logic-js computes it (a chain is the
        RFC's own construct, the same under either reading); a value JSON cannot carry is
        null in a with value (``as_json``), and as JavaScript prints it in a string."""
        if "A-20=classic" in self.bugs and not chain:
            return CLASSIC.apply(rule, self.data, as_json)
        try:
            return evaluate(rule, self.data)
        except LogicError as failure:
            thrown = failure.thrown
            raise ResolutionFailure(
                "expr_evaluation_failed",
                f"expression failed with {thrown['type']}: "
                f"{json.dumps(thrown, ensure_ascii=False)}",
            ) from None

    def template(self, text):
        segments, unterminated = parse_template(text)
        markers = [s for s in segments if s[0] == "marker"]
        infix_only = "A-37=infix" in self.bugs
        rooted = [is_rooted(s[2], infix_only) for s in markers]
        if unterminated or not markers:
            return text
        if not all(rooted):
            if "template-partial-root" not in self.bugs or not any(rooted):
                return text  # all-or-nothing: the whole string as written
            return "".join(
                s[1] if s[0] == "text" else self.part(s[2]) if is_rooted(s[2], infix_only) else s[1]
                for s in segments
            )
        if "A-158=fails" in self.bugs and any(
            s[1][2:-2].strip() in ("secrets", "secrets.") for s in markers
        ):
            raise ResolutionFailure("secret_unavailable", "secret '' is not available to this run")
        if "template-untyped" in self.bugs and len(segments) == 1:
            return self.typed(segments[0][2])
        return "".join(s[1] if s[0] == "text" else self.part(s[2]) for s in segments)

    def typed(self, part):
        """A lone marker's value itself, not its string form (the template-untyped bug)."""
        kind = part[0]
        if kind == "var":
            found = lookup(self.data, part[1])
            return None if found is MISSING else found
        if kind == "expr":
            return self.logic(part[1])
        if kind == "chain":
            return self.chain(part)
        return self.part(part)

    def part(self, part):
        kind = part[0]
        if kind == "text":
            return part[1]
        if kind == "var":
            return stringify(lookup(self.data, part[1])) if part[1] else ""
        if kind == "secret":
            name = part[1]
            if name and self.secrets.get(name) is not None:
                return stringify(self.secrets[name])
            raise ResolutionFailure(
                "secret_unavailable", f"secret '{name or ''}' is not available to this run"
            )
        if kind == "expr":
            return stringify(self.logic(part[1], as_json=False))
        if kind == "chain":
            return stringify(self.chain(part))
        if kind == "render":
            return self.render(part[1])
        return ""

    def chain(self, part):
        _, operator, operands = part
        if "chain-first-only" in self.bugs:
            return self.logic(operands[0], chain=True)
        return self.logic({operator: operands}, chain=True)

    def render(self, ref):
        """A render part: the string at ref, parsed in render mode and resolved, once."""
        found = lookup(self.data, ref) if ref else MISSING
        if found is None or found is MISSING:
            raise ResolutionFailure(
                "render_ref_unresolved", f"render ref '{ref or ''}' resolves to nothing"
            )
        if not isinstance(found, str):
            kind = ("a boolean" if isinstance(found, bool) else "a number"
                    if isinstance(found, (int, float)) else "an array"
                    if isinstance(found, list) else "an object")
            raise ResolutionFailure(
                "render_ref_not_a_string",
                f"render ref '{ref or ''}' resolves to {kind}, not a string",
            )
        text = self.rendered(found)
        if "render-two-pass" in self.bugs and "{{" in text:
            text = self.rendered(text)
        return text

    def rendered(self, content):
        segments, unterminated = parse_template(content, render=True)
        if unterminated and "A-157=literal" in self.bugs:
            return content  # the other reading: literal as a whole
        return "".join(s[1] if s[0] == "text" else self.part(s[2]) for s in segments)


# -- the protocol ---------------------------------------------------------------------


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def receive():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


class Engine:
    def __init__(self, bugs, parent=None):
        self.bugs = bugs
        self.calls = 0
        # A control's sub-block runs as an Engine of its own (run_block), nested in
        # the run that started it: call ids come from the root, and a result for
        # an enclosing run's call that arrives while the block waits is kept for it.
        self.parent = parent
        self.root = parent.root if parent is not None else self
        # A whole run — the root, or a called workflow's child run — ends by the run-level
        # rules (handler, run_finished); a control's sub-block does not (run_block).
        self.whole = parent is None
        self.prefix = "" if parent is None else parent.prefix  # a child run's step names
        self.depth = 0 if parent is None else parent.depth  # call depth
        self.owners = {}  # root only: call -> the engine (run or block) that made it
        self.stash = {}  # root only: call -> a result its owner has not read yet
        self.outer = None  # a sub-block's enclosing scope (run_block)
        self.callback = None  # a sub-block's control's reports (foreach-shared-callback)
        self.kept_attempts = {}  # A-46=kept: a resumed step's checkpointed attempt (resume)

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
        if "A-02=fifo" in self.bugs:
            queue = deque(step_id for step_id in ids if indegree[step_id] == 0)
            while queue:
                step_id = queue.popleft()
                order.append(step_id)
                for nxt in sorted(successors[step_id], key=index.__getitem__):
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
                chain = "A-71=edges" not in self.bugs  # the implicit chain is the graph
                self.fresh = {start} | self.descendants(doc, start, chain)
        self.run_id = request.get("runId", "run_1")
        self.doc = doc
        self.run_attempt = 1  # the run-level retry's attempt (Amendment 2026-08-21)
        self.resumed = False  # a crashed execution resumed never runs the ladder
        self.handled = False  # the run-level onError continued the run (resume)
        self.aborted = False  # the host's abort signal fired (W6W-HOST-3)
        self.suspensions = 0  # resumptions so far: a token's k is one more
        self.checkpoint = 0
        self.clock = 0
        self.graph(doc["steps"], doc.get("edges") or [])
        order = self.order
        supplied = request.get("variables") or {}
        variables = dict(supplied)
        for var in doc.get("variables") or []:
            if var["key"] in supplied:
                continue
            supplied_only = "A-42=supplied" in self.bugs and var.get("required")
            if self.parent is not None and "call-defaults-ignored" in self.bugs:
                supplied_only = True  # the seeded bug: a child run takes its inputs alone
            if "default" in var and not supplied_only:
                variables[var["key"]] = var["default"]
            elif var.get("required"):
                # Refused at the start: a failed run that never ran (no "rejected" status).
                error = {"code": "missing_variable",
                         "message": f"required variable '{var['key']}' has no value",
                         "phase": "resolution", "retryable": False}
                # A-72=canceled, the other reading: a refused run is canceled, with no error
                status = "canceled" if "A-72=canceled" in self.bugs else "failed"
                self.event("run_rejected", checkpointed=False, status=status,
                           variable=var["key"], error=error)
                state = {"runId": self.run_id, "status": status, "steps": {}}
                return {**state, "error": error} if status == "failed" else state
        self.variables = variables
        self.trigger = request.get("trigger", {"type": "manual"})
        self.secrets = request.get("secrets") or {}
        self.plain = {}  # step -> the input its action gets (secrets in plaintext)
        self.recorded_input = {}  # step -> its input as recorded (secrets as "[secret]")
        self.documents = request.get("documents", {})
        if self.parent is None:  # the workflows @w6w/call steps may run
            self.workflows = request.get("workflows") or {}
            self.max_depth = request.get("maxCallDepth", 4)
            self.memo = {}  # call-memoized: (workflow, inputs) -> an earlier call's output
        self.checkpoints = request.get("checkpoints") is True
        self.outer = None  # a sub-block's enclosing scope (run_block)
        self.fresh_state(separate_roots=False)
        replaying = {"replay": True} if request.get("type") == "replay" else {}
        try:
            self.event("run_started", status="running", attempt=1, runId=self.run_id,
                       variables=variables, **replaying)
            return self.loop()
        except Crash:
            return self.crashed(request)

    def graph(self, steps, edges):
        self.order = order = self.plan(steps, edges)
        self.position = {step_id: i for i, step_id in enumerate(order)}
        self.steps = {s["id"]: s for s in steps}
        self.inbound = {s: [] for s in order}
        self.outbound = {s: [] for s in order}
        for edge in edges:
            key = (edge["from"], edge["to"], edge.get("when", "success"))
            self.inbound[edge["to"]].append(key)
            self.outbound[edge["from"]].append(key)

    def fresh_state(self, separate_roots):
        self.branches = separate_roots  # a parallel control's block: a strand per branch
        self.record = {s: {"status": "pending"} for s in self.order}
        self.skipped = set()
        self.strand = {}
        self.next_strand = 0
        for step_id in self.order:
            if not self.inbound[step_id]:
                # One strand runs the roots; a parallel control's branches are one each.
                self.strand[step_id] = self.next_strand if separate_roots else 0
                self.next_strand += 1 if separate_roots else 0
        self.next_strand = max(self.next_strand, 1)
        self.busy = {}  # strand -> step running on it
        self.outstanding = {}  # call -> step
        self.failures = []  # (position, step, error) of plain fails
        self.step_errors = []
        self.finished = []  # completion order of succeeded steps
        self.draining = False
        self.suspended = []  # wait steps suspended since the last resumption

    # -- controls (docs/controls.md) --------------------------------------------

    def run_block(self, blocks, scope, parallel, callback):
        """Run a control's sub-block: its blocks' steps as a run of their own.

        The steps of each block run in array order; a parallel control's
        blocks are chains on strands of their own.  The sub-block reads the
        enclosing scope as it is now, plus its own steps (and foreach).
        Returns the block run's final state, its events, each block's
        lastOutput and its steps' records.
        """
        parent = self
        steps = [step for block in blocks for step in block]
        edges = []
        if parallel:
            for block in blocks:
                edges += [{"from": a["id"], "to": b["id"]} for a, b in itertools.pairwise(block)]
        sub = Engine(self.bugs, parent=parent)
        sub.graph(steps, edges)
        sub.run_id = parent.run_id
        sub.clock = parent.clock
        sub.checkpoint = 0
        sub.checkpoints = False
        sub.collected = []
        sub.outer = scope
        sub.callback = callback
        sub.variables, sub.trigger = parent.variables, parent.trigger
        sub.secrets, sub.documents = parent.secrets, parent.documents
        sub.plain, sub.recorded_input = {}, {}
        sub.recorded, sub.fresh = {}, set()
        sub.fresh_state(separate_roots=parallel)
        state = sub.loop()
        parent.clock = max(parent.clock, sub.clock)
        outputs = []
        for block in blocks:
            done = [s["id"] for s in block if sub.record[s["id"]]["status"] == "succeeded"]
            outputs.append(sub.record[done[-1]]["output"] if done else None)
        records = {step_id: {k: record.get(k) for k in ("status", "attempt", "input", "output")}
                   for step_id, record in sub.record.items() if record["status"] != "pending"}
        return state, sub.collected, outputs, records

    def control(self, step_id):
        """A control's one attempt (no retry, W6W-EDGE-8): its sub-block, then its result."""
        step = self.steps[step_id]
        action = step["uses"]["action"]
        params = self.plain[step_id] or {}
        scope = self.scope()
        if "nested-block-root-scope" in self.bugs and self.outer is not None:
            scope = self.root.scope()
        with_ = step.get("with") or {}
        inner, records, errors = [], [], []

        callback = {}  # the control's one onExecuted callback, under foreach-shared-callback

        def block(blocks, where, parallel=False):
            state, events, outputs, recorded = self.run_block(blocks, where, parallel, callback)
            inner.extend(events)
            records.append(recorded)
            errors.extend(state.get("stepErrors") or [])
            if "block-failure-ignored" in self.bugs:
                state = {**state, "status": "succeeded"}
            return state, outputs

        message = None
        if action == "if":
            condition = params.get("condition")
            javascript = "A-53=javascript" in self.bugs and isinstance(condition, list)
            chosen = "then" if javascript or truthy(condition) else "else"
            state, outputs = block([with_.get(chosen) or []], scope)
            message = {"error": state["error"]} if state["status"] == "failed" else {
                "output": outputs[0]}
        elif action == "foreach":
            items = params.get("items")
            if not isinstance(items, list):
                kind = ("null" if items is None else "a string" if isinstance(items, str)
                        else "a boolean" if isinstance(items, bool) else "a number"
                        if isinstance(items, (int, float)) else "an object")
                message = {"error": {"code": "foreach_items_not_array",
                                     "message": f"foreach items resolved to {kind}, not an array",
                                     "phase": "resolution", "retryable": False}}
            else:
                collected = []
                for index, item in enumerate(items):
                    here = {**scope, "foreach": {"item": item, "index": index}}
                    state, outputs = block([with_.get("body") or []], here)
                    if state["status"] == "failed":
                        message = {"error": state["error"]}
                        break
                    collected.append(outputs[0])
                if message is None:
                    message = {"output": collected}
        else:  # parallel
            state, outputs = block(with_.get("branches") or [], scope, parallel=True)
            message = {"error": state["error"]} if state["status"] == "failed" else {
                "output": outputs}
        self.step_errors.extend(errors)  # continue-record failures inside join the run's
        self.record[step_id]["inner"] = records
        self.completed(step_id, message, inner=inner)

    # -- @w6w/call (docs/engine-protocol.md "Calls", A-56) --------------------------

    def supplied(self, step_id):
        """Whether a step is a @w6w/call of a workflow the host supplied (a child run)."""
        uses = self.steps[step_id].get("uses") or {}
        target = (self.plain.get(step_id) or {}).get("workflow")
        return uses.get("app") == "@w6w/call" and target in self.root.workflows

    def call(self, step_id):
        """A call's one attempt (no retry, W6W-EDGE-8): the callee runs as a child run.

        Its variables are the call's inputs; it reports the caller's run id; its
        steps are invoked as <call>.(run).<step>; its events travel in the call's
        attempt event as inner.  Succeeded: the child's output; failed: its error;
        otherwise a call_<status> error.  One level past maxCallDepth fails the
        attempt with call_depth_exceeded.
        """
        params = self.plain[step_id] or {}
        target = params.get("workflow")
        bound = self.root.max_depth
        if self.depth + 1 > bound and "call-depth-unbounded" not in self.bugs:
            error = {"code": "call_depth_exceeded",
                     "message": f"calling {target!r} would exceed the call depth bound ({bound})",
                     "phase": "execute", "retryable": False}
            self.record[step_id]["inner"] = []
            self.completed(step_id, {"error": error}, inner=[])
            return
        # The child's variables are the inputs as recorded: a secret the caller resolved
        # crosses the call as "[secret]", never as its plaintext (W6W-ENV-17, A-70, A-56).
        recorded = self.record[step_id].get("input")
        inputs = (recorded if isinstance(recorded, dict) else params).get("inputs")
        memo = (target, json.dumps(inputs, sort_keys=True))
        if "call-memoized" in self.bugs and memo in self.root.memo:
            self.record[step_id]["inner"] = self.root.memo[memo][1]
            self.completed(step_id, {"output": self.root.memo[memo][0]}, inner=[])
            return
        child = Engine(self.bugs, parent=self)
        child.whole = True
        child.prefix = f"{self.prefix}{step_id}.(run)."
        child.depth = self.depth + 1
        child.collected = []
        request = {"type": "run", "runId": self.run_id,
                   "document": self.root.workflows[target],
                   "variables": inputs if isinstance(inputs, dict) else {}}
        if "A-56=inherit" in self.bugs:  # the other reading: the child sees the caller's trigger
            request["trigger"] = self.trigger
        state = child.run(request)
        self.clock = max(self.clock, child.clock)
        status = state.get("status")
        if status == "succeeded":
            message = {"output": state.get("output")}
        elif status == "failed" and "error" in state:
            message = {"error": state["error"]}
        else:
            message = {"error": {"code": f"call_{status}",
                                 "message": f"the called run ended {status}",
                                 "phase": "execute", "retryable": False}}
        steps = {step: {k: record.get(k) for k in ("status", "attempt", "input", "output")}
                 | ({"inner": record["inner"]} if "inner" in record else {})
                 for step, record in (state.get("steps") or {}).items()}
        self.record[step_id]["inner"] = [{
            "status": status, "output": state.get("output"), "error": state.get("error"),
            "stepErrors": state.get("stepErrors", []), "steps": steps}]
        if status == "succeeded" and "call-memoized" in self.bugs:
            self.root.memo[memo] = (state.get("output"), self.record[step_id]["inner"])
        self.completed(step_id, message, inner=child.collected)

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
        self.resumed = True  # W6W-RUNERR-12: "Never run the authored ladder on a resumed execution"
        if "resume-from-start" in self.bugs:
            state = {}
        self.checkpoint = message.get("checkpoints", self.checkpoint)
        if "resume-no-checkpoints" in self.bugs:
            self.checkpoints = False
        self.record = {s: {"status": "pending"} for s in self.order}
        self.skipped = set()
        self.strand = {s: 0 for s in self.order if not self.inbound[s]}
        self.next_strand = 1
        self.busy, self.outstanding, self.failures, self.finished = {}, {}, [], []
        self.step_errors = list(state.get("stepErrors") or [])
        self.draining = False
        self.suspended = []  # a suspended wait was running: it starts over
        self.kept_attempts = {}  # A-46=kept: a running step resumes at its checkpointed attempt
        for step_id in self.order:
            saved = (state.get("steps") or {}).get(step_id)
            if saved and saved.get("status") == "running" and "A-46=kept" in self.bugs:
                self.kept_attempts[step_id] = saved.get("attempt", 1)
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
        # A failure the run-level onError continued is in stepErrors: the run was handled
        # before the crash (run_continued was checkpointed); it only finishes, output null.
        self.handled = any(
            {"stepId": step_id, **error} in self.step_errors for _, step_id, error in self.failures
        )
        if self.handled:
            self.failures = []

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
                if self.suspended and not self.failures and not self.aborted:
                    suspension = self.wake()
                    if suspension is None:
                        continue  # resumed
                    return self.queued(suspension)
                break
            message = self.result()
            self.completed(self.outstanding.pop(message["call"]), message)
        return self.finish()

    # -- wait (docs/controls.md, A-55) --------------------------------------------

    def suspend(self, step_id):
        """A wait step suspends: it reports its token; the run launches nothing more."""
        record = self.record[step_id]
        token = f"{self.run_id}/{step_id}/{self.suspensions + 1}"
        directive = record["input"] if isinstance(record["input"], dict) else {}
        self.suspended.append(step_id)
        self.event("step_suspended", step=step_id, resumeToken=token, directive=directive)

    def wake(self):
        """The drained run suspends with the first wait's token and waits for the host.

        Woken ({"type": "wake", "output": V}), the first suspended wait by plan
        order succeeds with V and the others start over (FAN-10); returns None.
        Told quiet, the run stays queued: returns its suspension.
        """
        first = min(self.suspended, key=self.position.get)
        token = f"{self.run_id}/{first}/{self.suspensions + 1}"
        self.event("run_suspended", status="queued", step=first, resumeToken=token)
        send({"type": "wait"})
        message = receive()
        if message.get("type") != "wake":
            return {"stepId": first, "resumeToken": token}
        output = message.get("output")
        # The state run_resumed's checkpoint writes is the resumed one: the woken wait
        # succeeded, the others pending again (a crash there resumes from it).
        self.suspensions += 1
        for step_id in sorted(self.suspended, key=self.position.get):
            strand = self.record[step_id]["strand"]
            del self.busy[strand]
            if step_id == first:
                self.record[step_id].update(status="succeeded", output=output)
                for key in self.outbound[step_id]:
                    if key[2] != "success":
                        self.skipped.add(key)
                self.finished.append(step_id)
                self.assign(step_id, strand)
            else:
                self.record[step_id] = {"status": "pending"}  # runs again
        self.suspended = []
        self.event("run_resumed", status="running", resumeToken=token, step=first,
                   output=output)
        return None

    def queued(self, suspension):
        """The end state of a run left suspended: no run_finished (A-55)."""
        return {**self.end_state(), "status": "queued", "suspension": suspension}

    def result(self):
        """The next result for one of this run's calls (others are kept for their runs)."""
        root = self.root
        for call in list(root.stash):
            if call in self.outstanding:
                return root.stash.pop(call)
        while True:
            send({"type": "wait"})
            message = receive()
            call = message.get("call") if message.get("type") == "result" else None
            owner = root.owners.pop(call, None) if isinstance(call, int) else None
            if owner is self:
                return message
            if owner is None:
                raise SystemExit(f"unexpected message {message!r}")
            root.stash[call] = message  # an enclosing run's call, completed while we wait

    def stopped(self):
        """Whether the run drains: it launches no new step (W6W-FAN-9).

        A failure drains it, and so does a wait's suspension.
        """
        if self.suspended and "wait-no-drain" not in self.bugs:
            return True
        if self.parent is None and self.aborted:
            return True  # W6W-FAN-9: "On … an abort the engine stops launching new steps"
        if self.whole and self.handled:
            return True  # the run-level onError handled the run before a crash
        return self.draining and not (self.branches and "parallel-no-drain" in self.bugs)

    def launch(self):
        if self.stopped():
            return
        progressed = True
        while progressed and not self.stopped():
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
                if self.stopped():
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
        failure = self.resolve(step_id)
        attempt = self.kept_attempts.pop(step_id, 1)
        self.record[step_id] = {"status": "running", "attempt": attempt,
                                "input": self.recorded_input.pop(step_id, None), "strand": strand}
        self.event("step_started", step=step_id, attempt=attempt,
                   input=self.record[step_id]["input"])
        self.busy[strand] = step_id
        if failure is not None:
            self.failed(step_id, failure)  # resolution failed: nothing is invoked
        elif is_control(self.steps[step_id]) and self.steps[step_id]["uses"]["action"] == "wait":
            self.suspend(step_id)
        elif is_control(self.steps[step_id]):
            self.control(step_id)
        elif self.supplied(step_id):
            self.call(step_id)
        else:
            self.invoke(step_id, self.plain[step_id])

    def resolve(self, step_id):
        """Resolve a step's with block twice: for the action, and for the record.

        The action gets the secrets' plaintext; the record (the step_started event,
        the RunState) shows "[secret]" wherever a secret contributed.  Returns the
        StepError of a resolution failure, or None.
        """
        value = self.steps[step_id].get("with", {})
        if is_control(self.steps[step_id]):
            value = {k: v for k, v in value.items() if k not in BLOCK_KEYS}
        masked = {name: SECRET for name, plain in self.secrets.items() if plain is not None}
        try:
            self.plain[step_id] = Resolution(self.scope(), self.secrets, self.bugs).value(value)
            self.recorded_input[step_id] = Resolution(self.scope(), masked, self.bugs).value(value)
        except ResolutionFailure as failure:
            self.plain[step_id] = None
            self.recorded_input[step_id] = None
            return {"code": failure.code, "message": failure.message, "phase": "resolution",
                    "retryable": False}
        return None

    def invoke(self, step_id, resolved):
        root = self.root
        root.calls += 1
        self.outstanding[root.calls] = step_id
        root.owners[root.calls] = self
        send({"type": "invoke", "call": root.calls, "run": self.run_id,
              "step": self.prefix + step_id, "input": resolved})

    def completed(self, step_id, message, inner=None):
        step = self.steps[step_id]
        nested = {"inner": inner} if inner is not None else {}
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
                       **extra, **nested)
            del self.busy[strand]
            self.assign(step_id, strand)
            return
        error = message["error"]
        error = {"code": error["code"], "message": error.get("message", ""),
                 "phase": error.get("phase", "execute"),
                 "retryable": error.get("retryable", False) is True}
        self.event("attempt_failed", checkpointed=False, step=step_id,
                   attempt=record["attempt"], error=error, **nested)
        self.failed(step_id, error, message.get("idempotent") is True)

    def failed(self, step_id, error, idempotent=False):
        """An attempt failed: retry it if the policy and the classification allow, else route."""
        step = self.steps[step_id]
        record = self.record[step_id]
        strand = record["strand"]
        retry = step.get("retry")
        if is_control(step) and "control-retried" not in self.bugs:
            retry = None  # W6W-EDGE-8: a control runs no retry loop
        if (step.get("uses") or {}).get("app") == "@w6w/call" and "call-retried" not in self.bugs:
            retry = None  # W6W-EDGE-8: nor does a call
        # the model lets an in-flight step finish, retries included (W6W-FAN-9).
        stopped = self.parent is None and self.aborted and "A-165=stop" in self.bugs
        while (retry and record["attempt"] < retry["maxAttempts"] and not stopped
               and self.retryable(error, idempotent)):
            wait = self.wait(retry, record["attempt"])
            self.clock += wait
            record["attempt"] += 1
            self.event("retry_scheduled", step=step_id, attempt=record["attempt"], waitMs=wait)
            if error["phase"] == "resolution":
                # A retried resolution failure resolves the with block again.
                failure = self.resolve(step_id)
                if failure is not None:
                    error = failure
                    continue
                record["input"] = self.recorded_input.pop(step_id)
            if is_control(step):
                self.control(step_id)
            elif self.supplied(step_id):
                self.call(step_id)
            else:
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

    def retryable(self, error, idempotent):
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
        if reports and self.callback is not None and "foreach-shared-callback" in self.bugs:
            reports = [self.callback.setdefault(step["id"], reports[0])]
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
    def descendants(doc, step_id, chain=True):
        edges = doc.get("edges") or []
        if not edges and chain:  # the implicit chain: each step leads to the next declared one
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

    def scope(self):
        """The generic data root: the run scope without secrets."""
        steps = {}
        for step_id, record in self.record.items():
            if record["status"] == "succeeded":
                steps[step_id] = {"output": record["output"]}
                if "meta" in record:
                    steps[step_id]["meta"] = record["meta"]
        if self.outer is not None:
            if "block-meta-unpublished" in self.bugs:
                steps = {k: {"output": v["output"]} for k, v in steps.items()}
            return {**self.outer, "steps": {**self.outer["steps"], **steps}}
        return {"vars": self.variables, "steps": steps, "trigger": self.trigger,
                "documents": self.documents}

    # -- ending ---------------------------------------------------------------

    def end_state(self):
        """The RunState's run id, the records of the steps that started, and stepErrors."""
        state = {"runId": self.run_id, "steps": {}}
        for step_id in self.order:
            record = self.record[step_id]
            if record["status"] != "pending":
                state["steps"][step_id] = {k: v for k, v in record.items() if k != "strand"}
        if self.step_errors:
            state["stepErrors"] = self.step_errors
        return state

    def finish(self):
        if self.parent is None and self.aborted:
            # W6W-HOST-3: "aborts cleanly on signal", once in-flight steps finished; the
            # abort wins over a failure (whose error the RunState keeps) and the handler.
            state = self.end_state()
            state["status"] = "canceled"
            if self.failures:
                state["error"] = min(self.failures)[2]
            self.event("run_finished", status="canceled")
            return state
        if self.whole and self.handled:
            state = self.end_state()
            state.update(status="succeeded", output=None)
            self.event("run_finished", status="succeeded", output=None)
            return state
        if self.failures and self.whole:
            handled = self.run_level()
            if handled is not None:
                return handled
        state = self.end_state()
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
        return state

    def run_level(self):
        """The run-level handler, once the run drained on a failure (Amendment 2026-08-21).

        retry re-runs the whole graph from the top (W6W-RUNERR-2) after the
        step retry's backoff, capped (W6W-RETRY-9); once it is exhausted,
        onError "continue" resolves the run with a null output and appends the
        failure to stepErrors (W6W-RUNERR-4, -5).  Between them, reroute
        (W6W-RUNERR-3): the target is dispatched once, as an invoke of the unit
        "(reroute)" with its with block resolved against { inputs, error,
        trigger }; its output is the run's (the original failure kept in
        stepErrors), its failure the run's (W6W-RUNERR-14).
        None: the run fails as it would without a handler.
        """
        retry = self.doc.get("retry")
        attempts = retry.get("maxAttempts", 1) if isinstance(retry, dict) else 1
        if self.run_attempt < attempts and not self.resumed:
            wait = self.wait(retry, self.run_attempt)
            if "run-retry-no-wait" in self.bugs:
                wait = 0
            self.clock += wait
            self.run_attempt += 1
            # Reset first: the checkpoint run_restarted writes is the new attempt's state.
            self.fresh_state(separate_roots=False)
            self.event("run_restarted", status="running", attempt=self.run_attempt, waitMs=wait)
            return self.loop()
        reroute = self.doc.get("reroute")
        if isinstance(reroute, dict):
            return self.reroute(reroute)
        if self.doc.get("onError") == "continue" and self.doc.get("reroute") is None:
            return self.continued()
        return None

    def continued(self):
        """onError "continue" resolves the run: null output, the failure kept (W6W-RUNERR-4/5)."""
        _, step_id, error = min(self.failures)
        if "continue-no-step-error" not in self.bugs:
            self.step_errors.append({"stepId": step_id, **error})
        self.event("run_continued", error=error)
        if self.polled():
            # The abort signal fired at run_continued's checkpoint: it still wins, and
            # the run ends canceled with the handled failure in stepErrors.
            self.failures = []
            return self.finish()
        state = self.end_state()
        state.update(status="succeeded", output=None)
        self.event("run_finished", status="succeeded", output=None)
        return state

    def polled(self):
        """Whether an abort signal decides the run's end once its handler acted (A-164)."""
        return self.aborted and "A-164=resolved" not in self.bugs

    def reroute(self, reroute):
        """Dispatch the reroute target once and end the run by its result."""
        _, step_id, error = min(self.failures)
        scope = {"inputs": self.variables, "error": error, "trigger": self.trigger}
        try:
            resolved = Resolution(scope, {}, self.bugs).value(reroute.get("with", {}))
        except ResolutionFailure as failure:
            resolved = None
            result = {"error": {"code": failure.code, "message": failure.message,
                                "phase": "resolution", "retryable": False}}
        else:
            self.invoke(REROUTE, resolved)
            result = self.result()
            self.outstanding.pop(result["call"], None)
        if "error" in result:
            self.event("run_rerouted", input=resolved, error=result["error"])
            if "reroute-failure-continued" in self.bugs and self.doc.get("onError") == "continue":
                return self.continued()
            if self.polled():  # the target's failure is the run's error (W6W-RUNERR-14)
                self.failures = [(0, REROUTE, result["error"])]
                return self.finish()
            state = self.end_state()
            state.update(status="failed", error=result["error"])
            self.event("run_finished", status="failed", error=result["error"], step=REROUTE)
            return state
        self.step_errors.append({"stepId": step_id, **error})
        output = result.get("output")
        self.event("run_rerouted", input=resolved, output=output)
        if self.polled():
            self.failures = []
            return self.finish()
        state = self.end_state()
        state.update(status="succeeded", output=output)
        self.event("run_finished", status="succeeded", output=output)
        return state

    def event(self, name, checkpointed=True, **fields):
        event = {"event": name, "at": self.clock, **fields}
        if self.parent is not None:
            self.collected.append(event)  # a sub-block's: sent inside its control's event
            return
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
            if reply.get("type") == "abort" and "abort-ignored" not in self.bugs:
                self.aborted = True  # polled between steps: nothing new launches


CLASSIC_WORKER = r"""
const jsonLogic = require('json-logic-js')
const rl = require('readline').createInterface({ input: process.stdin, terminal: false })
console.log = () => {}  // json-logic-js's log operation; stdout carries the answers
const tag = (k, v) => (typeof v === 'number' && !Number.isFinite(v)) ? { $js: String(v) }
  : v === undefined ? { $js: 'undefined' } : v
rl.on('line', (line) => {
  const request = JSON.parse(line)
  let out
  try { out = { value: jsonLogic.apply(request.rule, request.data) } }
  catch (e) { out = { error: (e && e.constructor && e.constructor.name) || 'Error', message: String(e && e.message || e) } }
  process.stdout.write(JSON.stringify(out, tag) + '\n')
})
"""


class ClassicLogic:
    """json-logic-js 2.0.5 in a Node.js process (--reading A-20=classic)."""

    def __init__(self):
        self.process = None

    @staticmethod
    def modules():
        here = os.path.dirname(os.path.abspath(__file__))
        places = [os.environ.get("WFORACLE_NODE_MODULES", "")]
        places += os.environ.get("NODE_PATH", "").split(os.pathsep)
        places.append(os.path.join(here, "..", "..", "tests", "differential", "node_modules"))
        for place in places:
            if place and os.path.isdir(os.path.join(place, "json-logic-js")):
                return os.path.abspath(place)
        return None

    def start(self):
        modules = self.modules()
        if shutil.which("node") is None or modules is None:
            sys.stderr.write(
                "toyflow: --reading A-20=classic needs node on PATH and json-logic-js "
                "(NODE_PATH, or npm ci --prefix tests/differential)\n"
            )
            sys.exit(2)
        self.process = subprocess.Popen(
            ["node", "-e", CLASSIC_WORKER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "NODE_PATH": modules},
        )

    def apply(self, rule, data, as_json):
        if self.process is None:
            self.start()
        self.process.stdin.write(json.dumps({"rule": rule, "data": data}) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        if "error" in answer:
            raise ResolutionFailure(
                "expr_evaluation_failed",
                f"expression failed with {answer['error']}: {answer['message']}",
            )
        return untag(answer["value"], as_json, top=True)


def untag(value, as_json, top=False):
    """A worker's answer as toyflow's values: NaN, Infinity and undefined are null in JSON;
    a string shows a lone one as JavaScript prints it (NaN, Infinity; undefined as absent)."""
    if isinstance(value, dict):
        if set(value) == {"$js"}:
            if as_json or not top:
                return None
            return MISSING if value["$js"] == "undefined" else float(value["$js"].replace("Infinity", "inf"))
        return {k: untag(v, as_json) for k, v in value.items()}
    if isinstance(value, list):
        return [untag(v, as_json) for v in value]
    return value


CLASSIC = ClassicLogic()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bug", action="append", default=[], choices=sorted(BUGS))
    parser.add_argument("--reading", action="append", default=[], choices=sorted(READINGS))
    args = parser.parse_args()
    if "foreach-root-unknown" in args.bug:
        ROOTS.discard("foreach")
    if "A-33=string" in args.reading:
        STRING_FORM[0] = "string"
    BUG_SWITCHES.update(args.bug)
    if "A-20=classic" in args.reading:
        CLASSIC.start()  # fails at once, saying why, without node or json-logic-js
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
