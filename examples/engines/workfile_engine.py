#!/usr/bin/env python3
"""wf-lite: a small Workfile Core executor speaking the wforacle engine protocol.

Written as a third party would write one, from the documents only (the
chapter's Execution Semantics, docs/workfile-execution.md, docs/workfile.md
and the assumptions A-100..A-137): it imports nothing from wforacle and reads
the YAML with PyYAML under YAML 1.2 core typing.  Protocol: the JSON lines of
docs/engine-protocol.md; a ``run`` carries the Workfile YAML in ``document``,
the connector manifests in ``manifests`` and the caller's ``inputs``; an
``invoke`` names the run-time step path and its complete argument map; an
attempt abandoned by internal cancellation is withdrawn with
``{"type": "cancel", "call": N}``; ``cancel_run`` is Core Cancellation with the
late results of every outstanding call.

Implements: input validation, guards, the expression language (references,
member access and indexing, literals, not/and/or, comparisons, in,
arithmetic, conditionals, filters, list/object literals, typed whole-value
markers), connector actions with attempts, retry delays (none / fixed /
exponential, max cap, overflow, honor_retry_after), classification by the
manifest, ambiguity (reissue under inherent/keyed idempotency, on_unknown
abort/fail), catch, on_fail, wf.for_each / wf.parallel (concurrency,
fail_fast / continue), wf.choose, wf.route, wf.repeat, wf.wait, wf.render,
wf.stop, wf.fail, outputs, Core and Internal Work Cancellation, late results
and unknownEffects, and dry runs (issue 14: run.dry_run, the invocation.dry_run
rejection, suppression tracked apart from values, dependency checking over the
static references of every checked expression, suppressed writes, delegated
writes with the dry-run flag, partial outputs and stop results, and the
suppressed member paths of retained scopes), wf.call child runs (A-140: the
callee's inputs established like a run's, child paths under ``C.(run).``,
``child_finished``, the abort disposition crossing the boundary, independent
child cancellation with ``cancel_child``) and timeouts in virtual time (A-141:
an attempt's deadline answered with ``{"timeout": true, "late"?}``, a composite
deadline delivered as ``{"type": "expire", "step": P}``).  Not wf.wait_for.
State-form documents (the Stateful Profile) too: below.

Concurrency: each iteration and branch is a coroutine; the executor runs
every coroutine that can run, dispatching every attempt it can, then sends
``wait`` and lets the oracle pick the result.

Readings (--reading ID=NAME, repeatable): where the text is open, wf-lite can take the
reading wforacle's model does not (`wforacle readings --spec workfile`); not bugs.

  A-119=retryable, A-119=unknown a connector code its manifest does not classify is
                                 retryable / unknown (ambiguous), not fatal
  A-121=cancelled                the constructs enclosing a step that aborts the run are
                                 cancelled, not failed
  A-123=succeeded                the wf.stop step itself succeeded; its enclosing
                                 constructs are stopped
  A-117=truthy                   not, and, or, a conditional's test and a guard read
                                 any value by its truthiness (null, false, 0, "", [],
                                 {} are false), not booleans only
  A-124=first                    a wf.choose evaluates its arm guards in order up to
                                 the first that holds (a later faulting one is never
                                 evaluated), not every guard first
  A-169=run                      a fault in a wf.stop result fails the run (as on_fail:
                                 abort would), not only the stop step
  A-170=unknown                  an action step whose ambiguous attempt was reissued and
                                 then failed definitely goes to its on_unknown
                                 disposition, not fails with the final code
  A-171=succeeded                an action step whose catch handler's wf.stop ended the
                                 run succeeded, not stopped with the chain
  A-174=json                     a wf.route case key written as a quoted number or boolean ("1")
                                 matches that string only, not the number 1
  A-135=flagged                  in a dry run, a read declaring dry_run: delegate runs with the
                                 dry-run flag, not as any read does
  A-141=bounded                  a wf.call's timeout also bounds a catch handler another failure
                                 started: its expiry cancels the handler, the call fails with
                                 flow.timeout
  A-177=any                      a wf.stop result written as one {{ }} marker may be any value,
                                 not only an object

Seeded bugs (--bug NAME, repeatable):

  retry-fatal                    a fatal failure is retried like a retryable one
  server-delay-uncapped          an honored server retry delay is not capped by max
  exponential-from-zero          exponential delay initial * 2^n instead of 2^(n-1)
  reissue-without-idempotency    an ambiguous attempt is reissued under idempotency none
  abort-caught                   on_unknown: abort is offered to catch and on_fail: continue
  catch-declaration-order        the first matching catch pattern in declaration order wins
  catch-own-fault                a handler catches its step's own guard/argument fault
  fail-fast-unstarted-cancelled  fail_fast reports never-started siblings cancelled
  stop-enclosing-cancelled       wf.stop makes its enclosing constructs cancelled, not stopped
  late-result-binds              a late result delivered with cancel_run is applied
  cancel-one-more-attempt        after cancel_run an outstanding step dispatches one more attempt
  failed-ref-faults              a reference to a failed or skipped step faults
  outputs-on-cancel              a cancelled run evaluates outputs and reports them

Seeded dry-run bugs:

  dry-suppress-delegated         a dry_run: delegate write is suppressed, not run with the flag
  dry-dispatch-suppressed        an unaffected non-delegated write is dispatched in a dry run
  no-manifest-read               an action whose connector has no manifest runs as a read, not
                                 as a write (A-126)
  dry-evaluate-affected          an affected step's guard and arguments are evaluated anyway
  dry-short-circuit              a short-circuited operand or untaken branch is not a dependency
  dry-computed-index-narrow      a computed index depends only on the member it evaluates to
  dry-literal-sibling            a literal list index is affected when any sibling is suppressed
  dry-skipped-suppresses         a step skipped by a false when counts as suppressed
  dry-nested-suppresses-construct  a construct with a suppressed nested step is itself suppressed
  dry-outputs-all-null           one affected output entry nulls and lists every entry

Seeded child-run and timeout bugs:

  call-abort-caught              an on_unknown: abort in a child run is an ordinary child failure:
                                 child_finished failed, the call fails with flow.action_ambiguous
                                 and its catch / on_fail / enclosing policy may handle it
                                 (breaks WF-UNK-11, WF-UNK-14)
  call-error-child-step          a failed call's error.step is the child's innermost failing step
                                 (its prefixed path), not the call's path (A-140, WF-POLICY-9)
  call-suppression-lost          a dry run's suppressed child output members bind as plain nulls:
                                 no suppression marks, no `suppressed` on the call's step_finished
                                 (WF-PART-5)
  call-cancel-not-propagated     when a wf.call is cancelled (Core Cancellation, fail_fast, wf.stop,
                                 wf.fail, an abort, its own timeout) its child's active steps get
                                 no step_finished: their outstanding calls are still withdrawn (so
                                 the protocol stays sound) and the call ends as it would, but the
                                 child's steps are left without an outcome (WF-CANCEL-7, WF-IWC-3)
  child-cancel-as-cancelled      an independent child cancellation (cancel_child) makes the call
                                 step cancelled (after child_finished cancelled) and the caller's
                                 list goes on, instead of failing it with flow.child_cancelled
                                 (WF-CANCEL-15, WF-CATCH-12)
  timeout-write-retryable        an attempt timeout of a write is classified retryable, not
                                 unknown (WF-CLASS-7, A-141)
  timeout-late-binds             the late response (an output) delivered with an attempt timeout is
                                 the attempt's output: the attempt succeeds (WF-LATE-3, WF-LATE-5)
  expire-not-cancelled           on a composite expiry the step fails with flow.timeout but its
                                 active nested steps get no step_finished cancelled (their calls
                                 are still withdrawn) (WF-IWC-3)
  call-input-fault-caught        a callee-input mismatch (input.unknown / input.type /
                                 input.required) is offered to the call's catch (WF-CATCH-16)

Seeded expression-layer bugs (docs/workfile-expressions.md):

  filter-binds-loose             a filter applies to the whole sum before it: ``a + b | length``
                                 is ``(a + b) | length`` (A-100: a filter binds tightest)
  render-marker-typed            a wf.render template that is one marker writes a non-string value
                                 as Python's json.dumps default (", " and ": ", null as "null"),
                                 not as template text (A-173)
  eager-and-or                   ``and``/``or`` evaluate (and type-check) their right operand even
                                 when the left decides: ``false and 1`` faults (A-100: they
                                 short-circuit)
  guard-fault-skips              a when guard whose evaluation faults skips the step instead of
                                 failing it (WF-STEP-7: "No operation begins if guard or argument
                                 evaluation faults"; the step fails with the fault's code)

State-form runs (the Stateful Profile, docs/workfile-stateful.md): a document with top-level
``states`` runs as a sequence of entries ``S[N]`` (positions from 0 for each state).  Each entry:
its subscriptions' configuration over the root scope (a fault fails the entry), entry_started
(the subscriptions are active), on_enter (step paths ``S[N].ID``), entry_correlated (the match
values and the deadline, in a state with ``on`` or ``timeout``), steps, then a final state's
outputs in the entry's scope, an immediate transition, or a wait for the first eligible event or
the due timer; entry_exited; the next entry.  Virtual clock: 0 at the start, moved by the
oracle's ``accept`` / ``advance`` (at any wait) and to the deadline on ``quiet``; a timer is due
once the clock is past its deadline, and an event accepted at or before it wins.  With no call
outstanding the engine sends an idle ``wait``; ``quiet`` without a timer ends the run with
outcome ``waiting``.  ``done.state`` carries ``entries`` (with the delivered event's number
in ``event``; the trace's entry_exited cannot carry it, its ``event`` being the event's name).
A dry run of a document whose reachable
states declare a subscription is rejected with invocation.dry_run; a suppressed ``after``, route subject or
``into`` is an implicit dry-run stop.

Seeded Stateful Profile bugs:

  timeout-wins-tie               the timer is due once the clock reaches its deadline, and an event
                                 accepted exactly at the deadline loses to it (WFS-TRANS-37)
  early-event-delivered          events accepted before an entry's subscriptions became active (and
                                 not delivered) are candidates for it (WFS-TRANS-28)
  event-interrupts-steps         an eligible event accepted while ``steps`` runs cancels the list
                                 (its active steps cancelled, calls withdrawn) and is delivered at
                                 once (WFS-TRANS-29, WFS-TRANS-27)
  event-delivered-twice          a delivered event is never consumed: it stays a candidate of every
                                 later entry (WFS-TRANS-28, WFS-TRANS-33)
  into-partial-bind              the target's accepts types are not checked: a mistyped ``into``
                                 value is bound and the target entry created (WFS-ENTRY-5, -6)
  prior-entry-binding            a reentry reuses the scope of the state's earlier entry, so its
                                 bindings stay readable (a skipped step reads the old value)
                                 (WFS-ENTRY-7, WFS-ENTRY-10)
  overlap-map-order              a delivery matching two subscriptions selects the first in map
                                 order instead of failing with state.ambiguous_subscription
                                 (WFS-TRANS-35)
  timer-from-entry               a duration deadline is measured from the entry's start, not from
                                 after on_enter (WFS-TRANS-12, WFS-TRANS-13)
  reentry-same-position          a transition to the entry's own state reuses its position N
                                 instead of N+1 (WFS-ENTRY-12, WFS-ENTRY-13)
  match-before-on-enter          the match values are evaluated before on_enter, so they cannot
                                 read its bindings (WFS-TRANS-26)
  config-fault-ignored           a configuration fault does not fail the entry: it starts anyway
                                 (WFS-TRANS-24, WFS-TRANS-25)
  final-outputs-root-scope       a final state's outputs are evaluated in the root scope, not in
                                 the final entry's (WFS-FORM-12)
  accepts-defaults-skipped       an omitted accepted name with a default is left unbound instead
                                 of taking the default (WFS-ENTRY-4, WFS-ENTRY-5)
  dry-stop-ignored               an affected state control (after, a route subject, into) is
                                 evaluated anyway in a dry run: no implicit stop (WF-SCTL-4)
  match-ignored                  eligibility ignores the match values: any event of the
                                 subscription's trigger is delivered (WFS-TRANS-30)
  absent-field-null              not a bug but A-153's other reading (docs/readings.md): a match
                                 field absent from the payload reads as null, so a null match
                                 value matches it (WFS-TRANS-30)
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import re
import sys

import yaml

BUGS = {
    "retry-fatal",
    "server-delay-uncapped",
    "exponential-from-zero",
    "reissue-without-idempotency",
    "abort-caught",
    "catch-declaration-order",
    "catch-own-fault",
    "fail-fast-unstarted-cancelled",
    "stop-enclosing-cancelled",
    "late-result-binds",
    "cancel-one-more-attempt",
    "failed-ref-faults",
    "outputs-on-cancel",
    "dry-suppress-delegated",
    "dry-dispatch-suppressed",
    "no-manifest-read",
    "dry-evaluate-affected",
    "dry-short-circuit",
    "dry-computed-index-narrow",
    "dry-literal-sibling",
    "dry-skipped-suppresses",
    "dry-nested-suppresses-construct",
    "dry-outputs-all-null",
    "call-abort-caught",
    "call-error-child-step",
    "call-suppression-lost",
    "call-cancel-not-propagated",
    "child-cancel-as-cancelled",
    "timeout-write-retryable",
    "timeout-late-binds",
    "expire-not-cancelled",
    "call-input-fault-caught",
    "filter-binds-loose",
    "render-marker-typed",
    "guard-fault-skips",
    "eager-and-or",
    "timeout-wins-tie",
    "early-event-delivered",
    "event-interrupts-steps",
    "event-delivered-twice",
    "into-partial-bind",
    "prior-entry-binding",
    "overlap-map-order",
    "timer-from-entry",
    "reentry-same-position",
    "match-before-on-enter",
    "config-fault-ignored",
    "final-outputs-root-scope",
    "accepts-defaults-skipped",
    "dry-stop-ignored",
    "absent-field-null",
    "match-ignored",
}
READINGS = {
    "A-119=retryable",
    "A-119=unknown",
    "A-121=cancelled",
    "A-123=succeeded",
    "A-117=truthy",
    "A-124=first",
    "A-169=run",
    "A-170=unknown",
    "A-171=succeeded",
    "A-174=json",
    "A-135=flagged",
    "A-141=bounded",
    "A-177=any",
}
TRUTHY = False  # --reading A-117=truthy (main sets it: one reading per process)
LAZY_CHOOSE = False  # --reading A-124=first
INPUT_CODES = {"input.unknown", "input.type", "input.required"}
MODIFIERS = {"when", "retry", "on_fail", "on_unknown", "catch", "timeout", "description"}
VOID = {"wf.stop", "wf.fail", "wf.wait"}
DELAY_LIMIT = 2**63 - 1  # a computed delay beyond a signed 64-bit millisecond count overflows


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def receive():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


# -- YAML 1.2 core: only true/false are booleans, no timestamps, no sexagesimals -------------


class CoreLoader(yaml.SafeLoader):
    pass


CoreLoader.yaml_implicit_resolvers = {}
for _tag, _regexp, _first in [
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        "float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+0123456789.",
    ),
]:
    CoreLoader.add_implicit_resolver("tag:yaml.org,2002:" + _tag, re.compile(_regexp), list(_first))


def _construct_int(loader, node):
    text = loader.construct_scalar(node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)


CoreLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def load_yaml(text):
    return yaml.load(text, Loader=CoreLoader)


# -- values ---------------------------------------------------------------------------------------


class Fault(Exception):
    """An evaluation fault with its Standard code."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def compact(v):
    return json.dumps(v, separators=(",", ":"), sort_keys=True)


def as_text(v):
    """Interpolation: strings as they are, null as nothing, anything else compact JSON."""
    if isinstance(v, str):
        return v
    if v is None:
        return ""
    return compact(v)


def equal(a, b):
    if is_number(a) and is_number(b):
        return a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    return a == b


def has_type(value, declared):
    """Field and output types (A-109)."""
    kind = (declared or {}).get("type", "json") if isinstance(declared, dict) else "json"
    return {
        "json": lambda v: True,
        "string": lambda v: isinstance(v, str),
        "boolean": lambda v: isinstance(v, bool),
        "number": is_number,
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),  # 3.0 is not
        "object": lambda v: isinstance(v, dict),
        "array": lambda v: isinstance(v, list),
    }.get(kind, lambda v: True)(value)


DURATION = re.compile(r"^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?$")


def duration_ms(text):
    if text is None:
        return None
    match = DURATION.match(str(text))
    if not match or not str(text):
        raise ValueError(f"bad duration {text!r}")
    d, h, m, s, ms = (int(g) if g else 0 for g in match.groups())
    return (((d * 24 + h) * 60 + m) * 60 + s) * 1000 + ms


# -- expressions (A-100, A-117) -----------------------------------------------------------------

TOKEN = re.compile(
    r"""\s*(?:
      (?P<num>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
    | (?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
    | (?P<op>==|!=|<=|>=|[<>+\-*/%|()\[\]{},:.])
    | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
    )""",
    re.X,
)
ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "/": "/"}
CONSTANTS = {"true": True, "false": False, "null": None}
KEYWORDS = {"and", "or", "not", "in", "if", "else"}


def unquote(text):
    out, i, body = [], 0, text[1:-1]
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            n = body[i + 1]
            if n == "u" and i + 5 < len(body) + 0:
                out.append(chr(int(body[i + 2 : i + 6], 16)))
                i += 6
                continue
            out.append(ESCAPES.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def tokenize(text):
    tokens, pos, end = [], 0, len(text.rstrip())
    while pos < end:
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ValueError(f"bad expression {text!r}")
        pos = m.end()
        if m.group("num") is not None:
            t = m.group("num")
            tokens.append(("lit", float(t) if ("." in t or "e" in t.lower()) else int(t)))
        elif m.group("str") is not None:
            tokens.append(("lit", unquote(m.group("str"))))
        elif m.group("op") is not None:
            tokens.append(("op", m.group("op")))
        else:
            name = m.group("name")
            if name in CONSTANTS:
                tokens.append(("lit", CONSTANTS[name]))
            elif name in KEYWORDS:
                tokens.append(("op", name))
            else:
                tokens.append(("name", name))
    return tokens


class Parser:
    """cond > or > and > not > comparison/in > + - > * / % > unary - > filters > postfix."""

    def __init__(self, text):
        self.tokens, self.pos = tokenize(text), 0
        self.tree = self.cond()
        if self.pos != len(self.tokens):
            raise ValueError(f"trailing input in {text!r}")

    def peek(self, ahead=0):
        i = self.pos + ahead
        return self.tokens[i] if i < len(self.tokens) else (None, None)

    def accept(self, *ops):
        if self.peek()[0] == "op" and self.peek()[1] in ops:
            self.pos += 1
            return self.tokens[self.pos - 1][1]
        return None

    def expect(self, op):
        if not self.accept(op):
            raise ValueError(f"expected {op!r}")

    def cond(self):
        then = self.or_()
        if self.accept("if"):
            test = self.or_()
            self.expect("else")
            return ("cond", test, then, self.cond())
        return then

    def or_(self):
        left = self.and_()
        while self.accept("or"):
            left = ("or", left, self.and_())
        return left

    def and_(self):
        left = self.not_()
        while self.accept("and"):
            left = ("and", left, self.not_())
        return left

    def not_(self):
        if self.accept("not"):
            return ("not", self.not_())
        return self.comparison()

    def comparison(self):
        left = self.additive()
        while True:
            op = self.accept("==", "!=", "<", "<=", ">", ">=", "in")
            if op is None:
                return left
            left = ("cmp", op, left, self.additive())

    def additive(self):
        left = self.multiplicative()
        while True:
            while (op := self.accept("+", "-")) is not None:
                left = ("arith", op, left, self.multiplicative())
            if "filter-binds-loose" not in EXPR_BUGS or self.peek() != ("op", "|"):
                return left
            left = self.filters(left)  # the seeded bug: the filter takes the sum

    def filters(self, node):
        while self.accept("|"):
            kind, name = self.peek()
            if kind != "name":
                raise ValueError("filter name expected")
            self.pos += 1
            args = []
            if self.accept("("):
                if not self.accept(")"):
                    args.append(self.cond())
                    while self.accept(","):
                        args.append(self.cond())
                    self.expect(")")
            node = ("filter", name, node, args)
        return node

    def multiplicative(self):
        left = self.unary()
        while (op := self.accept("*", "/", "%")) is not None:
            left = ("arith", op, left, self.unary())
        return left

    def unary(self):
        if self.accept("-"):
            return ("neg", self.unary())
        if self.accept("+"):
            return ("pos", self.unary())
        return self.filtered()

    def filtered(self):
        node = self.postfix()
        if "filter-binds-loose" in EXPR_BUGS:
            return node  # additive takes the filters
        return self.filters(node)

    def postfix(self):
        node = self.primary()
        while True:
            if self.accept("."):
                kind, name = self.peek()
                if kind != "name" and not (kind == "op" and name in KEYWORDS):
                    raise ValueError("member name expected")
                self.pos += 1
                node = ("member", node, name)
            elif self.accept("["):
                index = self.cond()
                self.expect("]")
                node = ("index", node, index)
            else:
                return node

    def primary(self):
        kind, value = self.peek()
        self.pos += 1
        if kind == "lit":
            return ("lit", value)
        if kind == "name":
            return ("name", value)
        if (kind, value) == ("op", "("):
            inner = self.cond()
            self.expect(")")
            return inner
        if (kind, value) == ("op", "["):
            items = []
            if not self.accept("]"):
                items.append(self.cond())
                while self.accept(","):
                    if self.peek() == ("op", "]"):
                        break
                    items.append(self.cond())
                self.expect("]")
            return ("list", items)
        if (kind, value) == ("op", "{"):
            pairs = []
            if not self.accept("}"):
                while True:
                    k_kind, k_value = self.peek()
                    self.pos += 1
                    if k_kind == "name" or (k_kind == "lit" and isinstance(k_value, str)):
                        key = k_value
                    else:
                        raise ValueError("object key expected")
                    self.expect(":")
                    pairs.append((key, self.cond()))
                    if not self.accept(","):
                        break
                    if self.peek() == ("op", "}"):
                        break
                self.expect("}")
            return ("object", pairs)
        raise ValueError(f"unexpected {value!r}")


_PARSED = {}
EXPR_BUGS = set()  # the seeded bugs the module-level evaluator takes (main sets them)


def written_type(value, inputs):
    """A value's type where the document states it: a literal's, a template with text (a
    string), a whole {{ inputs.x }} of a typed input; None when only the run knows."""
    if isinstance(value, str):
        parts = [p for p in markers(value) if p != ("text", "")]
        if not any(kind == "expr" for kind, _ in parts):
            return "string"
        if len(parts) > 1:
            return "string"
        name = parts[0][1].strip()
        field = inputs.get(name[len("inputs.") :]) if name.startswith("inputs.") else None
        return (field or {}).get("type", "json") if isinstance(field, dict) else None
    if value is None:
        return "null"
    for kind, test in (("boolean", lambda v: isinstance(v, bool)), ("integer", lambda v: isinstance(v, int)),
                       ("number", lambda v: isinstance(v, float)), ("array", lambda v: isinstance(v, list)),
                       ("object", lambda v: isinstance(v, dict))):
        if test(value):
            return kind
    return "json"


def joined_shape(doc):
    """A callee's joined result shape (WF-CATCH-24): member -> (type or None, nullable), from
    its outputs and every wf.stop result (an absent one: {}); None when a result is written
    as one template (no shape).  A member some result lacks or holds as null is nullable."""
    results = [doc.get("outputs") if "outputs" in doc else {}]

    def walk(value):
        if isinstance(value, dict):
            for key, inner in value.items():
                if key == "wf.stop" and isinstance(inner, dict):
                    results.append(inner.get("result", {}))
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    walk(doc.get("steps") or [])
    if not all(isinstance(r, dict) for r in results):
        return None
    inputs = doc.get("inputs") if isinstance(doc.get("inputs"), dict) else {}
    shape = {}
    for name in {n for r in results for n in r}:
        types = [written_type(r[name], inputs) for r in results if name in r]
        nullable = len(types) < len(results) or "null" in types
        kinds = {t for t in types if t != "null"}
        if None in kinds or not kinds:
            kind = None
        elif "json" in kinds:
            kind = "json"
        elif kinds == {"integer", "number"}:
            kind = "number"
        else:
            kind = kinds.pop() if len(kinds) == 1 else None
        shape[name] = (kind, nullable)
    return shape


def fits_shape(replacement, shape):
    """WF-CATCH-24: declared names, assignable types, and every member whose type excludes
    null supplied."""
    if not set(replacement) <= set(shape):
        return False
    for name, (kind, nullable) in shape.items():
        if name not in replacement:
            if kind not in (None, "json") and not nullable:
                return False
        elif kind is not None and not (
            has_type(replacement[name], {"type": kind}) or (nullable and replacement[name] is None)
        ):
            return False
    return True


def gotos(value):
    """Every goto target named anywhere in a state's transitions."""
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "goto" and isinstance(inner, str):
                yield inner
            else:
                yield from gotos(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from gotos(inner)


def parse(text):
    if text not in _PARSED:
        _PARSED[text] = Parser(text).tree
    return _PARSED[text]


def select(value, key, literal_member):
    """Member access / indexing: absent reads null, through null reads null (A-117)."""
    if value is None:
        return None
    if isinstance(value, bool) or is_number(value) or isinstance(value, str):
        raise Fault("expression.type")
    if isinstance(value, dict):
        if not isinstance(key, str):
            raise Fault("expression.type")  # an object is indexed by a string
        return value.get(key)
    if isinstance(value, list):
        if literal_member or isinstance(key, bool) or not isinstance(key, int):
            raise Fault("expression.type")  # a list has no members, only integer indexes
        return value[key] if -len(value) <= key < len(value) else None  # -1 is the last
    return None


def boolean(v):
    if isinstance(v, bool):
        return v
    if TRUTHY:  # A-117's other reading
        return v not in (None, 0, "") and v != [] and v != {}
    raise Fault("expression.type")


def evaluate(tree, resolve):
    kind = tree[0]
    if kind == "lit":
        return tree[1]
    if kind == "name":
        return resolve(tree[1])
    if kind == "member":
        return select(evaluate(tree[1], resolve), tree[2], True)
    if kind == "index":
        return select(evaluate(tree[1], resolve), evaluate(tree[2], resolve), False)
    if kind == "list":
        return [evaluate(t, resolve) for t in tree[1]]
    if kind == "object":
        return {k: evaluate(t, resolve) for k, t in tree[1]}
    if kind == "not":
        return not boolean(evaluate(tree[1], resolve))
    if kind in ("and", "or") and "eager-and-or" in EXPR_BUGS:
        left, right = boolean(evaluate(tree[1], resolve)), boolean(evaluate(tree[2], resolve))
        return (left and right) if kind == "and" else (left or right)  # the seeded bug
    if kind == "and":
        return boolean(evaluate(tree[1], resolve)) and boolean(evaluate(tree[2], resolve))
    if kind == "or":
        return boolean(evaluate(tree[1], resolve)) or boolean(evaluate(tree[2], resolve))
    if kind == "cond":
        branch = tree[2] if boolean(evaluate(tree[1], resolve)) else tree[3]
        return evaluate(branch, resolve)
    if kind in ("neg", "pos"):
        v = evaluate(tree[1], resolve)
        if not is_number(v):
            raise Fault("expression.type")
        return -v if kind == "neg" else v
    if kind == "cmp":
        return compare(tree[1], evaluate(tree[2], resolve), evaluate(tree[3], resolve))
    if kind == "arith":
        return arithmetic(tree[1], evaluate(tree[2], resolve), evaluate(tree[3], resolve))
    if kind == "filter":
        value = evaluate(tree[2], resolve)
        args = [evaluate(t, resolve) for t in tree[3]]
        return apply_filter(tree[1], value, args)
    raise ValueError(kind)


def compare(op, a, b):
    if op == "==":
        return equal(a, b)
    if op == "!=":
        return not equal(a, b)
    if op == "in":
        if isinstance(b, list):
            found = any(equal(a, x) for x in b)
        elif isinstance(b, str) and isinstance(a, str):
            found = a in b
        elif isinstance(b, dict) and isinstance(a, str):
            found = a in b
        else:
            raise Fault("expression.type")
        return found
    if not ((is_number(a) and is_number(b)) or (isinstance(a, str) and isinstance(b, str))):
        raise Fault("expression.type")
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def arithmetic(op, a, b):
    if op == "+" and isinstance(a, str) and isinstance(b, str):
        return a + b
    if op == "+" and isinstance(a, list) and isinstance(b, list):
        return a + b
    if not (is_number(a) and is_number(b)):
        raise Fault("expression.type")
    if op in ("/", "%") and b == 0:
        raise Fault("expression.division_by_zero")
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
            "/": lambda: divide(a, b), "%": lambda: a % b}[op]()


def divide(a, b):
    """True division; an exact quotient of two integers stays an integer."""
    if isinstance(a, int) and isinstance(b, int) and a % b == 0:
        return a // b
    return a / b


FILTER_ARITY = {"default": (1, 1), "length": (0, 0), "lower": (0, 0), "upper": (0, 0),
                "string": (0, 0), "json": (0, 0), "keys": (0, 0), "join": (0, 1)}


def apply_filter(name, value, args):
    low, high = FILTER_ARITY.get(name, (1, 0))
    if not low <= len(args) <= high:
        raise Fault("expression.filter")  # an unknown filter or a wrong argument count
    if name == "default":
        return args[0] if value is None else value
    if name == "length":
        if not isinstance(value, (str, list, dict)):
            raise Fault("expression.type")
        return len(value)
    if name in ("lower", "upper"):
        if not isinstance(value, str):
            raise Fault("expression.type")
        return value.lower() if name == "lower" else value.upper()
    if name == "string":
        return as_text(value)
    if name == "json":
        return compact(value)
    if name == "keys":
        if not isinstance(value, dict):
            raise Fault("expression.type")
        return sorted(value)
    if name == "join":
        separator = args[0] if args else ""
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value + [separator]):
            raise Fault("expression.type")  # joins strings only
        return separator.join(value)
    raise Fault("expression.filter")


def markers(text):
    """Split a template into literal text and {{ }} expressions; a marker ends at the first
    }} outside a string literal (A-101)."""
    parts, pos = [], 0
    while True:
        start = text.find("{{", pos)
        if start < 0:
            parts.append(("text", text[pos:]))
            return parts
        i, quote = start + 2, None
        while i < len(text):
            c = text[i]
            if quote:
                if c == "\\":
                    i += 1
                elif c == quote:
                    quote = None
            elif c in "'\"":
                quote = c
            elif text.startswith("}}", i):
                break
            i += 1
        if i >= len(text):  # unterminated: literal text
            parts.append(("text", text[pos:]))
            return parts
        parts.append(("text", text[pos:start]))
        parts.append(("expr", text[start + 2 : i]))
        pos = i + 2


def render(value, resolve, as_string=False):
    """Evaluate an expression-bearing value: strings are templates, lists and mappings
    recursively; a string that is one marker keeps the value's type (A-101)."""
    if isinstance(value, str):
        parts = [p for p in markers(value) if p != ("text", "")]
        if len(parts) == 1 and parts[0][0] == "expr" and not as_string:
            return evaluate(parse(parts[0][1]), resolve)
        if len(parts) == 1 and parts[0][0] == "expr" and "render-marker-typed" in EXPR_BUGS:
            whole = evaluate(parse(parts[0][1]), resolve)  # the seeded bug
            return whole if isinstance(whole, str) else json.dumps(whole, sort_keys=True)
        if not any(kind == "expr" for kind, _ in parts):
            return value
        return "".join(t if k == "text" else as_text(evaluate(parse(t), resolve)) for k, t in parts)
    if isinstance(value, list):
        return [render(v, resolve) for v in value]
    if isinstance(value, dict):
        return {k: render(v, resolve) for k, v in value.items()}
    return value


# -- dry-run dependency checking (WF-SUPP-3..7) ---------------------------------------------------
#
# A reference is (root name, segments); a segment is ("key", K) for literal member access or a
# literal index (an integer or a string), or ("any", INDEX TREE) for a computed index, which
# selects every member at that level and whose own references are collected too.


def literal_key(index):
    value = index[1] if index[0] == "lit" else None
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return True
    return False


def reference_chain(tree):
    """A name followed by member access and indexing: (root, segments), or None."""
    segments, node = [], tree
    while True:
        if node[0] == "name":
            return node[1], segments[::-1]
        if node[0] == "member":
            segments.append(("key", node[2]))
        elif node[0] == "index":
            index = node[2]
            segments.append(("key", index[1]) if literal_key(index) else ("any", index))
        else:
            return None
        node = node[1]


def references(tree, out, lazy=None):
    """Collect every static reference of an expression: both branches of a conditional, both
    operands of and/or, filter arguments.  ``lazy`` (a resolver) is the seeded bug
    dry-short-circuit: only the operands and branches evaluation would take."""
    kind = tree[0]
    if kind == "lit":
        return out
    if kind in ("name", "member", "index"):
        chain = reference_chain(tree)
        if chain is not None:
            out.append(chain)
            for segment in chain[1]:
                if segment[0] == "any":
                    references(segment[1], out, lazy)
            return out
        references(tree[1], out, lazy)
        if kind == "index":
            references(tree[2], out, lazy)
        return out
    if kind in ("and", "or", "cond") and lazy is not None:
        test = tree[1]
        references(test, out, lazy)
        try:
            taken = evaluate(test, lazy)
        except Fault:
            taken = None
        if kind == "and":
            if taken is not False:
                references(tree[2], out, lazy)
        elif kind == "or":
            if taken is not True:
                references(tree[2], out, lazy)
        else:
            if taken is not False:
                references(tree[2], out, lazy)
            if taken is not True:
                references(tree[3], out, lazy)
        return out
    if kind == "list":
        for t in tree[1]:
            references(t, out, lazy)
    elif kind == "object":
        for _, t in tree[1]:
            references(t, out, lazy)
    elif kind == "filter":
        references(tree[2], out, lazy)
        for t in tree[3]:
            references(t, out, lazy)
    elif kind == "cmp" or kind == "arith":
        references(tree[2], out, lazy)
        references(tree[3], out, lazy)
    else:  # not, and, or, cond, neg, pos
        for t in tree[1:]:
            references(t, out, lazy)
    return out


def value_references(value, out, lazy=None):
    """The references of an expression-bearing value: every marker of every string in it."""
    if isinstance(value, str):
        for kind, text in markers(value):
            if kind == "expr":
                references(parse(text), out, lazy)
    elif isinstance(value, list):
        for v in value:
            value_references(v, out, lazy)
    elif isinstance(value, dict):
        for v in value.values():
            value_references(v, out, lazy)
    return out


def member(value, key):
    """Select without faulting (dependency checking walks values beside their marks)."""
    if isinstance(value, dict) and isinstance(key, str):
        return value.get(key)
    if isinstance(value, list) and isinstance(key, int) and not isinstance(key, bool):
        return value[key] if -len(value) <= key < len(value) else None
    return None


def mark_paths(mark, prefix=""):
    """The member paths of a suppression mark, relative to its binding: [1].b, left.x, b."""
    if mark is True:
        return [prefix]
    paths = []
    for key, child in (mark or {}).items():
        if isinstance(key, int):
            sub = f"{prefix}[{key}]"
        else:
            sub = f"{prefix}.{key}" if prefix else str(key)
        paths.extend(mark_paths(child, sub))
    return paths


def contains_wait_for(items, workflows=None, calling=()):
    """Does a step list hold wf.wait_for anywhere (bodies, arms, cases, branches, handlers),
    the child workflows its wf.call steps start included (a reachable definition, WF-DRY-15)?
    ``workflows``: name -> loaded document; ``calling``: the workflows being looked into."""
    for item in items or []:
        if not isinstance(item, dict):
            continue
        for spec in item.values():
            if not isinstance(spec, dict):
                continue
            if "wf.wait_for" in spec:
                return True
            call = spec.get("wf.call")
            if isinstance(call, dict) and workflows is not None:
                name = call.get("workflow")
                callee = workflows(name) if name not in calling else None
                if callee and contains_wait_for(callee.get("steps"), workflows, (*calling, name)):
                    return True
            for key, body in spec.items():
                if key == "catch":
                    lists = [(h or {}).get("steps") for h in (body or {}).values()
                             if isinstance(h, dict) or h is None]
                elif isinstance(body, dict) and str(key).startswith("wf."):
                    lists = [body.get("steps"), body.get("else")]
                    lists += list((body.get("branches") or {}).values())
                    lists += list((body.get("cases") or {}).values())
                    lists += [(arm or {}).get("steps") for arm in body.get("arms") or []]
                else:
                    continue
                if any(isinstance(steps, list) and contains_wait_for(steps, workflows, calling)
                       for steps in lists):
                    return True
    return False


# -- code patterns (A-105) ------------------------------------------------------------------------

HTTP_PATTERN = re.compile(r"^http\.(\d)([\dx])x$")
HTTP_CODE = re.compile(r"^http\.(\d{3})$")


def pattern_matches(pattern, code):
    if pattern == code:
        return True
    if pattern.endswith(".*"):
        return code.startswith(pattern[:-1])
    m, c = HTTP_PATTERN.match(pattern), HTTP_CODE.match(code)
    if m and c:
        return all(p in ("x", d) for p, d in zip(pattern[5:], c.group(1)))
    return False


def best_pattern(patterns, code, declaration_order=False):
    """Exact > longest dotted prefix > HTTP-status pattern (fewer wildcards first)."""
    patterns = list(patterns)
    if declaration_order:
        return next((p for p in patterns if pattern_matches(p, code)), None)
    if code in patterns:
        return code
    prefixes = [p for p in patterns if p.endswith(".*") and pattern_matches(p, code)]
    if prefixes:
        return max(prefixes, key=len)
    statuses = [p for p in patterns if HTTP_PATTERN.match(p) and pattern_matches(p, code)]
    if statuses:
        return min(statuses, key=lambda p: p.count("x"))
    return None


# -- the coroutine machinery ----------------------------------------------------------------------

JOIN = ("join",)
IDLE = ("idle",)  # a state entry waiting for an event or its timer, no call outstanding


class Suspend:
    def __init__(self, what):
        self.what = what

    def __await__(self):
        return (yield self.what)


class Cancelled(BaseException):
    """Thrown into active work: Core Cancellation (core=True) or Internal Work Cancellation.

    ``kind`` says why: "core" (Core Cancellation), "iwc" (fail_fast, wf.stop, wf.fail, an
    abort), "expire" (the composite timeout of the step at ``target``) or "child" (the child
    run of the wf.call at ``target`` is cancelled on its own).  ``origin`` is the run-time path
    of the step whose rule cancels the work ("" for the run)."""

    def __init__(self, core, kind=None, target=None, origin=""):
        super().__init__("cancelled")
        self.core = core
        self.kind = kind or ("core" if core else "iwc")
        self.target, self.origin = target, origin
        self.late = None  # the late result of the attempt this work was waiting for

    def derive(self):
        """The same cancellation, thrown into another task."""
        return Cancelled(self.core, self.kind, self.target, self.origin)


class Terminate(Exception):
    """Run-terminating control: wf.stop ('stop'), wf.fail ('fail'), on_fail: abort or the
    on_unknown abort disposition ('abort')."""

    def __init__(self, kind, origin, error=None, reason=None, result=None, suppressed=None):
        super().__init__(kind)
        self.kind, self.origin, self.error = kind, origin, error
        self.reason, self.result = reason, result
        self.suppressed = suppressed  # a dry run's suppressed entries of the stop result


class Err:
    def __init__(self, code, step, details=None, disposition=None):
        self.code, self.step, self.details, self.disposition = code, step, details, disposition

    def public(self):
        return {"code": self.code, "step": self.step}


class Task:
    def __init__(self, coro, parent):
        self.coro, self.parent = coro, parent
        self.started = self.done = False
        self.waiting = None
        self.inbox = []


class Scope:
    def __init__(self, parent=None, names=None):
        self.parent, self.names = parent, dict(names or {})
        self.bound, self.outcome = {}, {}
        self.ids = []
        # dry runs: suppression, apart from values.  step id -> True (the step was suppressed:
        # its binding as a whole) or the marks of its retained scopes ({member: mark}).
        self.supp = {}

    def value(self):
        """A retained scope maps every step id of its list to its binding or null (A-129)."""
        return {name: self.bound.get(name) for name in self.ids}

    def marks(self):
        """The suppression marks of this scope as a retained value, or None when none."""
        marks = {name: self.supp[name] for name in self.ids if self.supp.get(name)}
        return marks or None


OK = None  # a step list continues


class Step:
    def __init__(self, item):
        ((self.id, spec),) = item.items()
        spec = spec or {}
        bodies = [k for k in spec if k not in MODIFIERS and not str(k).startswith("x-")]
        self.kind = bodies[0]
        self.body = spec[self.kind]
        self.when = spec.get("when")
        self.has_when = "when" in spec
        self.retry = spec.get("retry") or {}
        self.on_fail = spec.get("on_fail")
        self.on_unknown = spec.get("on_unknown") or "abort"
        self.catch = spec.get("catch") or {}
        self.is_action = not self.kind.startswith("wf.")


# -- the executor ---------------------------------------------------------------------------------


class Executor:
    def __init__(self, bugs):
        self.bugs = bugs
        self.calls = 0

    # -- protocol plumbing

    def event(self, name, **fields):
        send({"type": "event", "run": self.run_id, "event": {"event": name, **fields}})

    def finish_step(self, path, outcome, value=..., error=None, suppressed=None):
        fields = {"step": path, "outcome": outcome}
        if value is not ...:
            fields["value"] = value
        if error is not None:
            fields["error"] = error.public()
        if suppressed:
            fields["suppressed"] = suppressed
        self.event("step_finished", **fields)
        self.steps[path] = outcome

    def spawn(self, coro, parent):
        task = Task(coro, parent)
        self.ready.append((task, "send", None))
        return task

    def pump(self):
        while self.ready:
            task, mode, value = self.ready.popleft()
            if not task.done:
                self.step_task(task, mode, value)

    def step_task(self, task, mode, value):
        previous, self.current = self.current, task
        task.started, task.waiting = True, None
        try:
            yielded = task.coro.send(value) if mode == "send" else task.coro.throw(value)
        except StopIteration as stop:
            self.task_done(task, True, stop.value)
        except Terminate as terminate:
            self.task_done(task, False, terminate)
        else:
            task.waiting = yielded
        finally:
            self.current = previous

    def task_done(self, task, ok, value):
        task.done = True
        if task.parent is None:
            self.final = value
            return
        parent = task.parent
        parent.inbox.append((task, ok, value))
        if parent.waiting == JOIN:
            parent.waiting = None
            self.ready.appendleft((parent, "send", None))  # the parent decides first (fail_fast)

    async def next_child(self, me):
        while not me.inbox:
            await Suspend(JOIN)
        return me.inbox.pop(0)

    def cancel_task(self, task, cause):
        """Cancel a task's active work (innermost first): withdraw its outstanding attempt and
        throw Cancelled (a copy of ``cause``) into it; a task that never ran is dropped without
        events."""
        if task.done:
            return
        task.done = True
        self.ready = collections.deque(e for e in self.ready if e[0] is not task)
        if not task.started:
            task.coro.close()
            return
        exc = cause.derive()
        core = exc.core
        waiting = task.waiting
        if waiting and waiting[0] == "call":
            self.abandon(waiting[1], core, exc)
        previous, self.current = self.current, task
        try:
            task.coro.throw(exc)
        except (Cancelled, StopIteration):
            pass
        else:
            raise RuntimeError("cancelled work suspended again")
        finally:
            self.current = previous

    def interrupt(self, task, exc):
        """Throw a cancellation into a task that goes on afterwards: a composite expiry or an
        independent child cancellation.  The step it targets catches it; the task then
        continues (a handler, the failure policy, later steps) until it waits again."""
        waiting = task.waiting
        if waiting and waiting[0] == "call":
            self.abandon(waiting[1], False, exc)
        self.ready = collections.deque(e for e in self.ready if e[0] is not task)
        self.step_task(task, "throw", exc)
        self.pump()

    def expire(self, path):
        """The composite timeout of the step at ``path`` expired: ignored unless that step is
        active (WF-LATE-2); an action's timeout bounds its attempts instead (A-141)."""
        entry = self.active.get(path)
        if entry is None:
            return
        task, st = entry
        if st.is_action:
            return
        if st.kind == "wf.call" and path not in self.children:
            # the call's deadline bounds its operation, the child run; once the child has
            # ended (the call's handler may be running) the timer is no longer pending: the
            # handler's work is outside the operation deadline (WF-CATCH-21, WF-LATE-2) --
            # unless --reading A-141=bounded, where it bounds a running handler too
            if "A-141=bounded" not in self.bugs or path not in self.handling:
                return
        self.interrupt(task, Cancelled(False, "expire", path, path))

    def cancel_child(self, path):
        """The deployment cancels the child run of the wf.call at ``path`` on its own: ignored
        unless that call is active with its child run still going."""
        task = self.children.get(path)
        if task is None:
            return
        self.interrupt(task, Cancelled(False, "child", path, path))

    def abandon(self, call, core, exc=None):
        info = self.outstanding.pop(call, None)
        if info is None:
            return
        if not core:
            send({"type": "cancel", "call": call})
        if exc is not None:
            exc.late = self.late.get(call)
        if info["write"]:
            self.unknown.append(
                {"step": info["step"], "attempt": info["attempt"], "effect": "unknown"}
            )

    # -- a run

    def run(self, message):
        self.run_id = message.get("runId")
        doc = load_yaml(message.get("document") or "") or {}
        self.manifests = {
            name: (load_yaml(m) if isinstance(m, str) else m) or {}
            for name, m in (message.get("manifests") or {}).items()
        }
        self.workflows = dict(message.get("workflows") or {})  # name -> YAML text (A-140)
        self.loaded = {}
        self.steps, self.unknown, self.outstanding, self.late = {}, [], {}, {}
        self.active = {}  # run-time path of an active step -> (its task, its Step)
        self.children = {}  # run-time path of a wf.call whose child run is going -> its task
        self.handling = set()  # run-time paths of the steps whose catch handler is running
        self.ready, self.current, self.final = collections.deque(), None, None
        self.dry = message.get("dryRun") is True
        # the Stateful Profile: a top-level ``states`` makes a state-form document
        self.state_form = isinstance(doc, dict) and "states" in doc
        self.reset_states()
        supplied = message.get("inputs") or {}
        inputs, rejection = self.validate_inputs(doc.get("inputs") or {}, supplied)
        if rejection is None and self.dry and self.live_source(doc):
            # a live event source cannot be dry-run: rejected before start (WF-DRY-15, A-133);
            # the inputs are validated first (the docs do not say which comes first)
            rejection = {"code": "invocation.dry_run"}
        if rejection:
            self.event("run_rejected", error=rejection)
            state = {"outcome": "rejected", "error": rejection, "steps": {}, "unknownEffects": []}
            if self.state_form:
                state["entries"] = []
            return state
        self.event("run_started", inputs=inputs)
        root = Scope(names={"inputs": inputs, "run": {"dry_run": self.dry}})
        body = self.state_main(doc, root) if self.state_form else self.main(doc, root)
        self.root = self.spawn(body, None)
        self.pump()
        while not self.root.done:
            idle = self.root.waiting == IDLE and not self.outstanding
            if not self.outstanding and not idle:
                raise RuntimeError("blocked with nothing outstanding")
            send({"type": "wait"})
            reply = receive()
            kind = reply.get("type")
            if kind == "result":
                info = self.outstanding.pop(reply.get("call"), None)
                if info is not None:
                    self.ready.append((info["task"], "send", reply))
                    self.pump()
            elif kind == "cancel_run":
                self.core_cancel(doc, root, reply)
            elif kind == "expire":
                self.expire(reply.get("step"))
            elif kind == "cancel_child":
                self.cancel_child(reply.get("step"))
            elif kind in ("accept", "advance", "quiet"):
                self.stimulus(reply, idle)
            elif kind == "shutdown":
                sys.exit(0)
        return self.final

    def live_source(self, doc):
        """Does the document need a live event source (WF-DRY-15)?  wf.wait_for anywhere, or, in
        a state-form document, a reachable state declaring a subscription or waiting for an
        event (docs/workfile-stateful.md, "Dry runs"; A-133)."""
        if not self.state_form:
            return contains_wait_for(doc.get("steps"), self.known)
        states = doc.get("states") or {}
        # The reachable definition: the states a path of transitions leads to from
        # initial, every route case counted (no subject evaluated).
        reachable = [doc.get("initial")]
        for name in reachable:
            state = states.get(name) if isinstance(states.get(name), dict) else {}
            moves = {k: v for k, v in state.items() if k not in ("on_enter", "steps", "accepts")}
            for target in gotos(moves):
                if target not in reachable:
                    reachable.append(target)
        for name in reachable:
            state = states.get(name) if isinstance(states.get(name), dict) else {}
            if "on" in state:
                return True
            for key in ("on_enter", "steps"):
                if contains_wait_for(state.get(key), self.known):
                    return True
        return False

    def validate_inputs(self, declared, supplied):
        for name in supplied:
            if name not in declared:
                return None, {"code": "input.unknown", "input": name}
        inputs = {}
        for name, field in declared.items():
            field = field or {}
            if name in supplied:
                if not has_type(supplied[name], field):
                    return None, {"code": "input.type", "input": name}
                inputs[name] = supplied[name]
            elif "default" in field:
                inputs[name] = field["default"]
            elif field.get("required"):
                return None, {"code": "input.required", "input": name}
        return inputs, None

    async def main(self, doc, root):
        try:
            err = await self.run_list(doc.get("steps") or [], root, "")
        except Terminate as t:
            if t.kind == "stop":
                return self.terminal("stopped", result=t.result, reason=t.reason,
                                     suppressed=t.suppressed)
            reason = t.reason if t.kind == "fail" else None
            return self.terminal("failed", error=t.error, reason=reason)
        if err is not None:
            return self.terminal("failed", error=err)
        try:
            result, suppressed = self.project(doc.get("outputs") or {}, root)
        except Fault as fault:
            return self.terminal("failed", error=Err(fault.code, None))
        return self.terminal("completed", result=result, suppressed=suppressed)

    def project(self, value, scope):
        """Outputs or a wf.stop result.  In a dry run each top-level entry is checked before any
        of it is evaluated: an affected entry is null and named (WF-PART-1..3)."""
        if not self.dry:
            return self.evaluate(value, scope), None
        if not isinstance(value, dict):  # one template: one entry, named $ (A-136)
            if self.affected(value, scope):
                return None, ["$"]
            return self.evaluate(value, scope), None
        affected = [name for name, entry in value.items() if self.affected(entry, scope)]
        if affected and "dry-outputs-all-null" in self.bugs:
            affected = list(value)
        result = {}
        for name, entry in value.items():
            result[name] = None if name in affected else self.evaluate(entry, scope)
        return result, sorted(affected)

    def terminal(self, outcome, result=None, error=None, reason=None, suppressed=None):
        fields = {"outcome": outcome}
        if outcome in ("completed", "stopped") or (outcome == "cancelled" and result is not None):
            fields["result"] = result
            if suppressed:
                fields["suppressed"] = sorted(suppressed)
        if error is not None:
            fields["error"] = {"code": error.code} if error.step is None else error.public()
            if error.code == "flow.action_ambiguous" and error.disposition:
                fields["disposition"] = error.disposition
        if reason is not None:
            fields["reason"] = reason
        fields["unknownEffects"] = sorted(self.unknown, key=lambda e: (e["step"], e["attempt"]))
        self.event("run_finished", **fields)
        state = dict(fields)  # disposition too: the oracle's final state carries it
        state["steps"] = dict(self.steps)
        if self.state_form:
            # every entry in order; the last one ends with the run (WFS-ENTRY-13)
            if self.entries and self.entries[-1]["outcome"] is None:
                self.entries[-1]["outcome"] = outcome
            state["entries"] = [dict(entry) for entry in self.entries]
        return state

    def core_cancel(self, doc, root, message):
        """Core Cancellation with the late results of every outstanding call (WF-LATE-2)."""
        for late in message.get("late") or []:
            self.late[late.get("call")] = late
        self.cancel_task(self.root, Cancelled(True))
        for call in list(self.outstanding):  # anything left was dispatched and is now unresolved
            self.abandon(call, True)
        result = None
        if "outputs-on-cancel" in self.bugs:
            try:
                result = self.evaluate(doc.get("outputs") or {}, root)
            except Fault:
                result = None
        self.final = self.terminal("cancelled", result=result)

    # -- evaluation

    def resolver(self, scope):
        def resolve(name):
            s = scope
            while s is not None:
                if name in s.bound:
                    return s.bound[name]
                if name in s.outcome:
                    bug = "failed-ref-faults" in self.bugs
                    if bug and s.outcome[name] in ("failed", "skipped"):
                        raise Fault("expression.null_reference")
                    return None
                if name in s.names:
                    return s.names[name]
                s = s.parent
            return None

        return resolve

    def evaluate(self, value, scope, as_string=False):
        return render(value, self.resolver(scope), as_string)

    # -- dry runs: suppression and dependency checking (WF-SUPP)

    def lookup_mark(self, scope, name):
        """The suppression mark and value of the binding a name resolves to."""
        s = scope
        while s is not None:
            if name in s.bound or name in s.outcome:
                return s.supp.get(name), s.bound.get(name)
            if name in s.names:
                return None, s.names[name]
            s = s.parent
        return None, None

    def affected(self, value, scope):
        """Is any static reference of an expression-bearing value affected?  Nothing is
        evaluated (but two seeded bugs evaluate what a correct checker does not)."""
        resolve = self.resolver(scope)
        lazy = resolve if "dry-short-circuit" in self.bugs else None
        for root, segments in value_references(value, [], lazy):
            mark, bound = self.lookup_mark(scope, root)
            if self.path_affected(mark, bound, segments, resolve):
                return True
        return False

    def path_affected(self, mark, value, segments, resolve):
        """A path is affected when a prefix of it is suppressed or the value it selects is, or
        contains a suppressed descendant; a computed index selects every member."""
        for position, (kind, key) in enumerate(segments):
            if mark is True:
                return True
            if not mark:
                return False
            if kind == "any" and "dry-computed-index-narrow" in self.bugs:
                try:
                    key = evaluate(key, resolve)
                    if isinstance(key, str) or (isinstance(key, int) and not isinstance(key, bool)):
                        kind = "key"
                except Fault:
                    pass
            if kind == "key" and isinstance(key, int) and "dry-literal-sibling" in self.bugs:
                kind = "any"
            rest = segments[position + 1:]
            if kind == "any":
                return any(self.path_affected(child, member(value, k), rest, resolve)
                           for k, child in mark.items())
            if isinstance(key, int) and isinstance(value, list) and key < 0:
                key += len(value)  # only a computed index (bug) is negative here
            mark, value = mark.get(key), member(value, key)
        return bool(mark)

    # -- steps

    async def run_list(self, items, scope, prefix):
        """Run a step list in declaration order; returns None, or the Err that propagates."""
        scope.ids = [Step(item).id for item in items]
        for item in items:
            err = await self.run_step(Step(item), scope, prefix)
            if err is not None:
                return err
        return None

    def prepare(self, st, scope):
        """Evaluate the enclosing-scope expressions before the step begins (WF-STEP-7)."""
        body = st.body if st.body is not None else {}
        if st.is_action:
            return self.evaluate(body, scope)
        if st.kind == "wf.for_each":
            items = self.evaluate(body.get("items"), scope)
            if not isinstance(items, list):
                raise Fault("expression.type")
            return items
        if st.kind == "wf.choose":  # every arm guard, then the first that holds (A-124)
            arms = body.get("arms") or []
            if LAZY_CHOOSE:  # --reading A-124=first: in order, up to the first that holds
                for index, arm in enumerate(arms):
                    if boolean(self.evaluate(arm.get("when", True), scope)):
                        return (str(index), arm.get("steps") or [])
                return ("else", body["else"]) if "else" in body else None
            held = [boolean(self.evaluate(arm.get("when", True), scope)) for arm in arms]
            for index, arm in enumerate(arms):
                if held[index]:
                    return (str(index), arm.get("steps") or [])
            return ("else", body["else"]) if "else" in body else None
        if st.kind == "wf.route":
            subject = self.evaluate(body.get("subject"), scope)
            for case, steps in (body.get("cases") or {}).items():
                if route_matches(case, subject):  # the key as JSON (A-124)
                    return (case_name(case), steps or [])
            return ("else", body["else"]) if "else" in body else None
        if st.kind == "wf.render":
            return self.evaluate(body.get("with") or {}, scope)
        if st.kind == "wf.stop":
            reason = self.evaluate(body.get("reason"), scope)
            if "result" not in body:
                return reason, {}, None
            try:
                result, suppressed = self.project(body["result"], scope)  # entry by entry
                if not isinstance(result, dict) and suppressed != ["$"]:
                    # a stop result is an object (A-177); --reading A-177=any: any value
                    if "A-177=any" not in self.bugs:
                        raise Fault("expression.type")
            except Fault as fault:
                fault.stop_result = True  # --reading A-169=run: it fails the run
                raise
            return reason, result, suppressed
        if st.kind == "wf.fail":
            return self.evaluate(body.get("reason"), scope)
        if st.kind == "wf.call":
            # the inputs, evaluated in the caller's scope, established against the callee's
            # declarations like a run's inputs (A-120, A-140): a problem faults the call step
            supplied = self.evaluate(body.get("inputs") or {}, scope)
            if not isinstance(supplied, dict):
                raise Fault("expression.type")
            callee = self.workflow(body.get("workflow"))
            inputs, problem = self.validate_inputs(callee.get("inputs") or {}, supplied)
            if problem is not None:
                raise Fault(problem["code"])
            return inputs
        return None

    def known(self, name):
        """A workflow of the run's ``workflows`` by name, or None."""
        try:
            return self.workflow(name)
        except Fault:
            return None

    def workflow(self, name):
        """The callee's document, from the run's ``workflows`` (A-140)."""
        if name not in self.loaded:
            if name not in self.workflows:
                raise Fault("document.reference")
            text = self.workflows[name]
            self.loaded[name] = (load_yaml(text) if isinstance(text, str) else text) or {}
        return self.loaded[name]

    def checked_fields(self, st):
        """A step's enclosing-scope expressions, checked before it starts (WF-SUPP-9/10): the
        guard, an action's arguments, items, every arm guard, subject, with, reasons.  Not
        wf.stop's result (checked entry by entry) and not nested bodies or handlers."""
        body = st.body if st.body is not None else {}
        fields = [st.when] if st.has_when else []
        if st.is_action:
            fields.append(body)
        elif st.kind == "wf.for_each":
            fields.append(body.get("items"))
        elif st.kind == "wf.choose":
            fields.extend((arm or {}).get("when") for arm in body.get("arms") or [])
        elif st.kind == "wf.route":
            fields.append(body.get("subject"))
        elif st.kind == "wf.render":
            fields.append(body.get("with"))
        elif st.kind in ("wf.stop", "wf.fail"):
            fields.append(body.get("reason"))
        elif st.kind == "wf.call":
            fields.append(body.get("inputs"))
        return fields

    def suppress(self, st, scope, path):
        """The step ends suppressed: no binding, and its binding reads as suppressed."""
        scope.outcome[st.id] = "suppressed"
        scope.supp[st.id] = True
        self.finish_step(path, "suppressed")
        return OK

    def withheld_write(self, st):
        """An unaffected write without dry_run: delegate is withheld in a dry run (WF-DRY-4..6)."""
        if not (self.dry and st.is_action) or "dry-dispatch-suppressed" in self.bugs:
            return False
        declared = self.action(st)
        if not self.writes(st, declared):
            return False
        delegated = declared.get("dry_run") == "delegate"
        return not delegated or "dry-suppress-delegated" in self.bugs

    def writes(self, st, declared):
        """Does the action write?  An action without a manifest counts as a write (A-126)."""
        if "no-manifest-read" in self.bugs and self.manifests.get(st.kind.partition(".")[0]) is None:
            return False  # the seeded bug: no manifest, so nothing says it writes
        return declared.get("effects", "write") != "read"

    async def run_step(self, st, scope, prefix):
        path = prefix + st.id
        late_check = "dry-evaluate-affected" in self.bugs
        if self.dry and not late_check and self.affected(self.checked_fields(st), scope):
            return self.suppress(st, scope, path)  # nothing evaluated, no policy (WF-SUPP-13)
        try:
            try:
                guard = st.has_when and not boolean(self.evaluate(st.when, scope))
            except Fault:
                if "guard-fault-skips" not in self.bugs:
                    raise
                guard = True  # the seeded bug: a guard that faults reads as false
            if guard:
                scope.outcome[st.id] = "skipped"
                if self.dry and "dry-skipped-suppresses" in self.bugs:
                    scope.supp[st.id] = True
                self.finish_step(path, "skipped")
                return OK
            prepared = self.prepare(st, scope)
        except Fault as fault:
            err = Err(fault.code, path)
            own = "catch-own-fault" in self.bugs and st.catch
            if ("call-input-fault-caught" in self.bugs and st.kind == "wf.call" and st.catch
                    and fault.code in INPUT_CODES):
                own = True  # the seeded bug: a callee-input mismatch offered to the call's catch
            if own and await self.try_catch(st, scope, path, err):
                return OK
            scope.outcome[st.id] = "failed"
            self.finish_step(path, "failed", error=err)
            if getattr(fault, "stop_result", False) and "A-169=run" in self.bugs:
                raise Terminate("abort", path, error=err)  # the other reading: the run fails
            return self.policy(st, scope, err)
        if self.dry and late_check and self.affected(self.checked_fields(st), scope):
            return self.suppress(st, scope, path)
        if self.withheld_write(st):
            return self.suppress(st, scope, path)  # evaluated, then withheld: no attempt
        self.event("step_started", step=path)
        self.active[path] = (self.current, st)
        try:
            try:
                outcome = await self.body(st, scope, path, prepared)
            except Cancelled as cancel:
                if not self.expired_here(cancel, path):
                    raise
                # the step's own timeout: its nested work is cancelled (above), then it fails
                # with flow.timeout, its own path (A-141)
                outcome = ("fail", Err("flow.timeout", path))
            if outcome[0] == "ok":
                return self.succeed(st, scope, path, outcome[1], *outcome[2:])
            if outcome[0] == "suppressed":
                return self.suppress(st, scope, path)
            if outcome[0] == "cancelled":  # the seeded bug child-cancel-as-cancelled
                scope.outcome[st.id] = "cancelled"
                self.finish_step(path, "cancelled")
                return OK
            if outcome[0] == "abort":
                err = outcome[1]
                scope.outcome[st.id] = "failed"
                self.finish_step(path, "failed", error=err)
                raise Terminate("abort", path, error=err)
            err = outcome[1]
            if (st.is_action or st.kind == "wf.call") and st.catch:
                try:
                    if await self.try_catch(st, scope, path, err):
                        return OK
                except Cancelled as cancel:
                    if not self.expired_here(cancel, path):
                        raise
                    # A-141=bounded: the deadline passed while the handler ran; its work is
                    # cancelled (above) and the call fails with flow.timeout
                    err = Err("flow.timeout", path)
        except Cancelled as cancel:
            if path not in self.steps:
                scope.outcome[st.id] = "cancelled"
                if not self.cancel_unreported(cancel, path):
                    self.finish_step(path, "cancelled")
            raise
        except Terminate as t:
            if path not in self.steps:
                self.finish_terminated(st, scope, path, t)
            raise
        finally:
            self.active.pop(path, None)
        scope.outcome[st.id] = "failed"
        self.finish_step(path, "failed", error=err)
        return self.policy(st, scope, err)

    def expired_here(self, cancel, path):
        """Is this cancellation the expiry of this step's own composite timeout?"""
        return cancel.kind == "expire" and cancel.target == path

    def cancel_unreported(self, cancel, path):
        """Two seeded bugs leave a cancelled step without its step_finished (its outstanding
        call is still withdrawn): expire-not-cancelled (a step nested in an expired construct)
        and call-cancel-not-propagated (a step of a child run whose wf.call is cancelled)."""
        if "expire-not-cancelled" in self.bugs and cancel.kind == "expire" and path != cancel.target:
            return True
        if "call-cancel-not-propagated" in self.bugs:
            cut = path.rfind(".(run).")
            if cut >= 0:
                call = path[:cut]
                own_child = cancel.kind == "child" and cancel.target == call
                inside = cancel.origin.startswith(call + ".(run).")
                return not own_child and not inside
        return False

    def finish_terminated(self, st, scope, path, t):
        """A step ended by run-terminating control: the stop step and its enclosing chain stop,
        wf.fail fails its step and cancels the enclosing chain, an abort fails the chain."""
        if t.kind == "stop":
            own = path == t.origin
            bug = "stop-enclosing-cancelled" in self.bugs
            outcome = "cancelled" if (bug and not own) else "stopped"
            if own and "A-123=succeeded" in self.bugs:
                outcome = "succeeded"  # the other reading: the stop step itself succeeded
            if not own and st.is_action and "A-171=succeeded" in self.bugs:
                outcome = "succeeded"  # the other reading: its handler's wf.stop recovered it
            scope.outcome[st.id] = outcome
            self.finish_step(path, outcome)
        elif t.kind == "fail" and path != t.origin:
            scope.outcome[st.id] = "cancelled"
            self.finish_step(path, "cancelled")
        elif t.kind == "abort" and path != t.origin and "A-121=cancelled" in self.bugs:
            scope.outcome[st.id] = "cancelled"  # the other reading: the chain is cancelled
            self.finish_step(path, "cancelled")
        else:
            scope.outcome[st.id] = "failed"
            self.finish_step(path, "failed", error=t.error)

    def succeed(self, st, scope, path, value, marks=None):
        if marks and "dry-nested-suppresses-construct" in self.bugs:
            return self.suppress(st, scope, path)
        scope.outcome[st.id] = "succeeded"
        if st.kind not in VOID:
            scope.bound[st.id] = value
        if marks:
            scope.supp[st.id] = marks  # retained scopes keep suppression per member
        if st.is_action or st.kind == "wf.render":
            self.finish_step(path, "succeeded", value=value)
        elif st.kind == "wf.call":  # the child's result, with its suppressed members
            self.finish_step(path, "succeeded", value=value, suppressed=sorted(mark_paths(marks)))
        else:
            self.finish_step(path, "succeeded", suppressed=sorted(mark_paths(marks)))
        return OK

    def policy(self, st, scope, err):
        """The failure ladder after retry and catch (WF-POLICY-1..5)."""
        if err.disposition == "abort" and "abort-caught" not in self.bugs:
            raise Terminate("abort", err.step, error=err)
        if st.on_fail == "abort":
            raise Terminate("abort", err.step, error=err)
        if st.on_fail == "continue":
            return OK
        return err

    async def try_catch(self, st, scope, path, err):
        """Run the handler selected for err's code; True when it recovered the step."""
        pattern = best_pattern(st.catch, err.code, "catch-declaration-order" in self.bugs)
        if pattern is None:
            return False
        handler = st.catch[pattern] or {}
        self.event("handler_started", step=path, pattern=pattern, code=err.code)
        error = {"code": err.code, "step": st.id, "details": err.details}
        hscope = Scope(scope, {"error": error})
        self.handling.add(path)
        try:
            ended = await self.run_list(handler.get("steps") or [], hscope, path + ".(catch).")
        finally:
            self.handling.discard(path)
        if ended is not None:
            return False
        if self.dry and "result" in handler and self.affected(handler["result"], hscope):
            self.suppress(st, scope, path)  # an affected handler result (WF-SUPP-16/17)
            return True
        try:
            replacement = self.evaluate(handler["result"], hscope) if "result" in handler else None
        except Fault:
            return False
        if st.kind == "wf.call":
            if not isinstance(replacement, dict):  # a call's result is an object (WF-CATCH-5)
                return False
            # WF-CATCH-24: "replacement members MUST have declared names and assignable
            # types; every member whose type excludes null is required".
            shape = joined_shape(self.workflow((st.body or {}).get("workflow")))
            if shape is not None and not fits_shape(replacement, shape):
                return False
        else:
            contract = self.action(st).get("output")
            if contract is not None and not has_type(replacement, contract):
                return False
        self.succeed(st, scope, path, replacement)
        return True

    async def body(self, st, scope, path, prepared):
        if st.is_action:
            return await self.run_action(st, path, prepared)
        body = st.body if st.body is not None else {}
        kind = st.kind
        if kind in ("wf.for_each", "wf.parallel"):
            return await self.run_concurrent(st, scope, path, prepared, body)
        if kind in ("wf.choose", "wf.route"):
            if prepared is None:
                return ("ok", None)
            name, steps = prepared
            inner = Scope(scope)
            err = await self.run_list(steps, inner, f"{path}.{name}.")
            return ("fail", err) if err else ("ok", inner.value(), inner.marks())
        if kind == "wf.repeat":
            return await self.run_repeat(body, scope, path)
        if kind == "wf.render":
            try:
                text = render(body.get("template", ""), self.resolver(Scope(names=prepared)), True)
            except Fault as fault:
                return ("fail", Err(fault.code, path))
            return ("ok", text)
        if kind == "wf.stop":
            reason, result, suppressed = prepared
            raise Terminate("stop", path, reason=reason, result=result, suppressed=suppressed)
        if kind == "wf.fail":
            err = Err(body.get("code"), path)
            self.finish_step(path, "failed", error=err)
            raise Terminate("fail", path, error=err, reason=prepared)
        if kind == "wf.wait":
            return ("ok", None)  # virtual time
        if kind == "wf.call":
            return await self.run_call(st, path, prepared)
        raise RuntimeError(f"{kind} is not supported by wf-lite")

    # -- child runs (A-140)

    async def run_call(self, st, path, inputs):
        """A wf.call's child run: its root scope holds only ``inputs`` and ``run``; its steps
        run here, in the call's task, under ``C.(run).``; then ``child_finished`` and the
        call's outcome.  The abort disposition crosses the boundary; a cancellation of the
        call (any Cancelled but the independent cancellation of this child) cancels the
        child's active steps on its way up, without child_finished."""
        doc = self.workflow((st.body or {}).get("workflow"))
        child = Scope(names={"inputs": inputs, "run": {"dry_run": self.dry}})
        result = suppressed = err = None
        self.children[path] = self.current
        try:
            try:
                failure = await self.run_list(doc.get("steps") or [], child, path + ".(run).")
            finally:
                self.children.pop(path, None)
        except Terminate as t:
            if t.kind == "stop":
                outcome, result, suppressed = "stopped", t.result, t.suppressed
            elif (t.kind == "abort" and t.error.disposition == "abort"
                  and "call-abort-caught" not in self.bugs):
                raise  # the caller's run ends directly (WF-UNK-11, WF-UNK-14)
            else:
                outcome, err = "failed", t.error
                if err.disposition == "abort":  # the seeded bug call-abort-caught
                    err = Err(err.code, err.step, err.details, "fail")
        except Cancelled as cancel:
            if not (cancel.kind == "child" and cancel.target == path):
                raise
            outcome = "cancelled"
        else:
            if failure is not None:
                outcome, err = "failed", failure
            else:
                try:
                    result, suppressed = self.project(doc.get("outputs") or {}, child)
                    outcome = "completed"
                except Fault as fault:
                    outcome, err = "failed", Err(fault.code, None)
        fields = {"step": path, "outcome": outcome}
        if outcome in ("completed", "stopped"):
            fields["result"] = result
            if suppressed:
                fields["suppressed"] = sorted(suppressed)
        if err is not None:
            fields["error"] = {"code": err.code} if err.step is None else err.public()
        self.event("child_finished", **fields)
        if outcome in ("completed", "stopped"):
            marks = {name: True for name in suppressed or []}
            if "$" in marks:  # a stop result that is one template: the whole value (A-136)
                marks = True
            if "call-suppression-lost" in self.bugs:
                marks = None
            return ("ok", result, marks or None)
        if outcome == "cancelled":
            if "child-cancel-as-cancelled" in self.bugs:
                return ("cancelled",)
            return ("fail", Err("flow.child_cancelled", path))
        step = path
        if "call-error-child-step" in self.bugs and err.step is not None:
            step = err.step
        disposition = "fail" if err.disposition == "fail" else None
        return ("fail", Err(err.code, step, err.details, disposition))

    # -- actions

    def action(self, st):
        connector, _, name = st.kind.partition(".")
        manifest = self.manifests.get(connector) or {}
        return ((manifest.get("actions") or {}).get(name)) or {}

    def classify(self, declared, code):
        errors = declared.get("errors") or {}
        pattern = best_pattern(errors, code)
        if pattern is not None:
            return errors[pattern]
        for reading in ("retryable", "unknown"):  # --reading A-119=...: not the model's
            if f"A-119={reading}" in self.bugs:
                return reading
        return "fatal"  # uncovered: fatal (A-119)

    def delay(self, retry, number, reply):
        policy = retry.get("policy", "none")
        initial = duration_ms(retry.get("initial")) or 0
        cap = duration_ms(retry.get("max"))
        if policy == "fixed":
            computed = initial
        elif policy == "exponential":
            exponent = number if "exponential-from-zero" in self.bugs else number - 1
            computed = initial * 2**exponent
        else:
            computed = 0
        if computed > DELAY_LIMIT:
            computed = cap if cap is not None else DELAY_LIMIT
        server = retry.get("honor_retry_after") is True and reply.get("retryAfterMs") is not None
        chosen = reply["retryAfterMs"] if server else computed
        if cap is not None and not (server and "server-delay-uncapped" in self.bugs):
            chosen = min(chosen, cap)
        return chosen

    async def run_action(self, st, path, args):
        declared = self.action(st)
        write = self.writes(st, declared)
        idempotency = declared.get("idempotency", "none")
        attempts = int(st.retry.get("attempts", 1))
        # a delegated write in a dry run carries the dry-run flag (WF-DRY-11, A-135); a
        # delegated read too under --reading A-135=flagged
        flagged = write or "A-135=flagged" in self.bugs
        delegated = self.dry and flagged and declared.get("dry_run") == "delegate"
        flag = {"dryRun": True} if delegated else {}
        attempt = 1
        ambiguous = False  # --reading A-170=unknown: an earlier attempt was ambiguous
        while True:
            self.calls += 1
            call = self.calls
            self.event("attempt_started", step=path, attempt=attempt, input=args, **flag)
            send({"type": "invoke", "call": call, "run": self.run_id, "step": path, "input": args,
                  **flag})
            self.outstanding[call] = {
                "task": self.current, "step": path, "attempt": attempt, "write": write
            }
            try:
                reply = await Suspend(("call", call))
            except Cancelled as cancel:
                self.on_cancelled_attempt(cancel, st, path, attempt, args, write, flag)
                raise
            timed_out = reply.get("timeout") is True
            if timed_out and "timeout-late-binds" in self.bugs:
                late = reply.get("late")
                if isinstance(late, dict) and "output" in late and "error" not in late:
                    reply, timed_out = late, False  # the seeded bug: the late response binds
            if not timed_out and "error" not in reply:
                self.event("attempt_finished", step=path, attempt=attempt, result="succeeded")
                # a successful reissue resolves the step's ambiguous attempts
                self.unknown = [u for u in self.unknown if u["step"] != path]
                return ("ok", reply.get("output"))
            if timed_out:
                # the attempt's deadline passed first: the executor-produced code timeout,
                # classified by what the action does, never by the manifest (WF-CLASS-7, A-141);
                # the late response changes nothing (WF-LATE-3, WF-LATE-5)
                code, details = "timeout", None
                result = "unknown" if write else "retryable"
                if write and "timeout-write-retryable" in self.bugs:
                    result = "retryable"
                reply = {}
            else:
                error = reply.get("error") or {}
                code, details = error.get("code"), error.get("details")
                result = self.classify(declared, code)
            self.event("attempt_finished", step=path, attempt=attempt, result=result, code=code)
            if result == "unknown":
                ambiguous = True
                if write:
                    effect = {"step": path, "attempt": attempt, "effect": "unknown", "code": code}
                    if details is not None:
                        effect["details"] = details
                    self.unknown.append(effect)
                safe = idempotency in ("inherent", "keyed")
                safe = safe or "reissue-without-idempotency" in self.bugs
                if safe and attempt < attempts:
                    attempt = self.schedule_retry(st, path, attempt, reply)
                    continue
                if st.on_unknown == "fail":
                    return ("fail", Err("flow.action_ambiguous", path, details, "fail"))
                err = Err("flow.action_ambiguous", path, details, "abort")
                return ("fail", err) if "abort-caught" in self.bugs else ("abort", err)
            retryable = result == "retryable" or (result == "fatal" and "retry-fatal" in self.bugs)
            if retryable and attempt < attempts:
                attempt = self.schedule_retry(st, path, attempt, reply)
                continue
            if ambiguous and "A-170=unknown" in self.bugs:  # the other reading: on_unknown decides
                if st.on_unknown == "fail":
                    return ("fail", Err("flow.action_ambiguous", path, details, "fail"))
                err = Err("flow.action_ambiguous", path, details, "abort")
                return ("fail", err) if "abort-caught" in self.bugs else ("abort", err)
            return ("fail", Err(code, path, details))

    def schedule_retry(self, st, path, attempt, reply):
        delay = self.delay(st.retry, attempt, reply)
        self.event("retry_scheduled", step=path, attempt=attempt + 1, delayMs=delay)
        return attempt + 1

    def on_cancelled_attempt(self, cancel, st, path, attempt, args, write, flag):
        """The attempt outstanding when its work was cancelled (already withdrawn and recorded
        as an unknown effect by abandon()).  Two seeded bugs live here."""
        late = cancel.late or {}
        if cancel.core and "late-result-binds" in self.bugs and "error" not in late and late:
            self.unknown = [u for u in self.unknown if (u["step"], u["attempt"]) != (path, attempt)]
            self.event("attempt_finished", step=path, attempt=attempt, result="succeeded")
            self.steps[path] = "succeeded"
            self.event("step_finished", step=path, outcome="succeeded", value=late.get("output"))
        elif cancel.core and "cancel-one-more-attempt" in self.bugs:
            self.calls += 1
            self.event("attempt_started", step=path, attempt=attempt + 1, input=args, **flag)
            invoke = {"type": "invoke", "call": self.calls, "run": self.run_id, "step": path}
            send({**invoke, "input": args, **flag})
            send({"type": "cancel", "call": self.calls})
            if write:
                self.unknown.append({"step": path, "attempt": attempt + 1, "effect": "unknown"})

    # -- constructs

    async def run_concurrent(self, st, scope, path, prepared, body):
        """wf.for_each iterations (up to concurrency, in index order) and wf.parallel branches,
        each a task of its own; the iteration or branch failure policy (WF-POLICY-12..17)."""
        me = self.current
        if st.kind == "wf.for_each":
            variable = body.get("as") or "item"
            units = [(f"{path}[{i}].", i, {variable: item}, body.get("steps") or [])
                     for i, item in enumerate(prepared)]
            limit = max(1, int(body.get("concurrency") or 1))
            policy = body.get("on_iteration_fail") or "fail_fast"
            results = [None] * len(units)
        else:
            units = [(f"{path}.{name}.", name, {}, steps or [])
                     for name, steps in (body.get("branches") or {}).items()]
            limit = max(1, len(units))
            policy = body.get("on_branch_fail") or "fail_fast"
            results = {}
        running, following, failure, marks = {}, 0, None, {}
        try:
            while True:
                while failure is None and following < len(units) and len(running) < limit:
                    prefix, key, names, steps = units[following]
                    inner = Scope(scope, names)
                    task = self.spawn(self.run_list(steps, inner, prefix), me)
                    running[task] = (prefix, key, inner, following)
                    following += 1
                if not running:
                    break
                task, ok, value = await self.next_child(me)
                prefix, key, inner, index = running.pop(task)
                if not ok:
                    raise value  # run-terminating control from inside the unit
                if value is None or policy == "continue":
                    results[key] = inner.value()
                    if inner.marks():
                        marks[key] = inner.marks()
                    if value is not None:
                        # WF-POLICY-14: a retained failed scope says which step failed,
                        # relative to the iteration or branch.
                        step = value.step[len(prefix):] if value.step.startswith(prefix) else value.step
                        results[key]["error"] = {"code": value.code, "step": step}
                else:
                    failure = value
                    unstarted = [i for t, (_, _, _, i) in running.items() if not t.started]
                    for other in list(running):
                        self.cancel_task(other, Cancelled(False, "iwc", None, path))
                    running.clear()
                    if "fail-fast-unstarted-cancelled" in self.bugs:
                        for i in sorted(unstarted + list(range(following, len(units)))):
                            for item in units[i][3]:
                                self.finish_step(units[i][0] + Step(item).id, "cancelled")
        except (Cancelled, Terminate) as stop:
            cause = stop if isinstance(stop, Cancelled) else Cancelled(False, "iwc", None, path)
            for other in list(running):
                self.cancel_task(other, cause)
            raise
        return ("fail", failure) if failure is not None else ("ok", results, marks or None)

    async def run_repeat(self, body, scope, path):
        limit = body.get("max_iterations")
        until = body.get("until")
        results, index, marks = [], 0, {}
        while True:
            if limit is not None and index >= int(limit):
                return ("fail", Err("flow.repeat_exhausted", path))
            inner = Scope(scope)
            err = await self.run_list(body.get("steps") or [], inner, f"{path}[{index}].")
            if err is not None:
                return ("fail", err)
            results.append(inner.value())
            if inner.marks():
                marks[index] = inner.marks()
            if self.dry and until is not None and self.affected(until, inner):
                return ("suppressed",)  # no binding, no further iteration (WF-SCTL-1)
            try:
                done = True if until is None else boolean(self.evaluate(until, inner))
            except Fault as fault:
                return ("fail", Err(fault.code, path))
            if done:
                return ("ok", results, marks or None)
            index += 1  # the delay between iterations is virtual time

    # -- the Stateful Profile: state-form runs (docs/workfile-stateful.md) ------------------------
    #
    # The root task runs the entries one after another.  Each entry: configuration over the
    # root scope, then its subscriptions are active (entry_started); on_enter; correlation (the
    # match values and the deadline, entry_correlated); steps; then a final completion, an
    # immediate transition, or a wait for the first eligible event or the due timer
    # (entry_exited).  Events reach the engine at any wait (accept), the clock moves with them
    # and with advance; an idle wait (no call outstanding) suspends the root task on IDLE.

    def reset_states(self):
        self.clock = 0  # virtual milliseconds since the run started (A-152)
        self.accepted = []  # every event accepted in the run, in acceptance order
        self.consumed = set()  # the numbers of the delivered events
        self.carried = []  # the seeded bug event-delivered-twice: delivered, never consumed
        self.entries = []  # the final state's ``entries``
        self.positions = collections.Counter()  # state -> the position of its next entry
        self.entry = None  # the current Entry
        self.entry_scopes = {}  # state -> the scope of its latest entry

    def stimulus(self, message, idle):
        """An ``accept``, ``advance`` or ``quiet`` from the oracle.  The clock moves to ``at``
        first; an event is recorded (retained for the entry whose subscriptions are active); a
        waiting entry looks again."""
        kind = message.get("type")
        if kind in ("accept", "advance") and is_number(message.get("at")):
            self.clock = message["at"]
        if kind == "accept":
            payload = message.get("payload")
            event = {"number": message.get("number", len(self.accepted)), "at": self.clock,
                     "event": message.get("event"),
                     "payload": payload if isinstance(payload, dict) else {}}
            self.accepted.append(event)
            entry = self.entry
            if (not idle and "event-interrupts-steps" in self.bugs and entry is not None
                    and entry.phase == "steps" and self.matching(entry, event)):
                # the seeded bug: an eligible event cuts the running list short
                self.interrupt(self.root, Cancelled(False, "event", entry.path, entry.path))
                return
        if idle and not self.root.done:
            self.ready.append((self.root, "send", message))
            self.pump()

    async def state_main(self, doc, root):
        states = doc.get("states") or {}
        name, position, values = doc.get("initial"), 0, {}
        while True:
            outcome = await self.run_entry(doc, states, name, position, values, root)
            if outcome[0] == "end":
                return outcome[1]
            _, name, position, values = outcome

    async def run_entry(self, doc, states, name, position, values, root):
        state = states.get(name)
        state = state if isinstance(state, dict) else {}
        path = f"{name}[{position}]"
        self.positions[name] = max(self.positions[name], position + 1)
        entry = Entry(path, name, state, self.clock)
        self.entry = entry
        self.entries.append({"entry": path, "outcome": None})
        # 1. enter: each subscription's configuration (and connection) over the root scope,
        # fixed for the entry; a fault fails the entry before on_enter (WFS-TRANS-23, -24)
        try:
            for sub in entry.subscriptions.values():
                self.evaluate(sub.get("configuration") or {}, root)
                if "connection" in sub:
                    self.evaluate(sub["connection"], root)
        except Fault as fault:
            if "config-fault-ignored" not in self.bugs:
                return ("end", self.entry_failed(entry, fault.code))
        # a new scope nested in the root, the accepted values bound by name (WFS-ENTRY-8)
        if "prior-entry-binding" in self.bugs and name in self.entry_scopes:
            scope = self.entry_scopes[name]  # the seeded bug: the earlier entry's scope again
            scope.names = dict(values)
        else:
            scope = Scope(root, values)
        self.entry_scopes[name] = scope
        # the subscriptions are active: an event accepted from here on is a candidate
        # (WFS-TRANS-28)
        entry.activation = len(self.accepted)
        self.event("entry_started", entry=path, state=name, values=values)
        try:
            return await self.entry_phases(doc, states, entry, scope, root)
        except Terminate as t:  # wf.stop / wf.fail / an abort end the run (WFS-ENTRY-18)
            if t.kind == "stop":
                return ("end", self.terminal("stopped", result=t.result, reason=t.reason,
                                             suppressed=t.suppressed))
            reason = t.reason if t.kind == "fail" else None
            return ("end", self.terminal("failed", error=t.error, reason=reason))

    async def entry_phases(self, doc, states, entry, scope, root):
        state, path = entry.state, entry.path
        early = None
        if "match-before-on-enter" in self.bugs and "on" in state:
            try:
                early = self.correlate(entry, scope)  # the seeded bug: before on_enter
            except Fault as fault:
                return ("end", self.entry_failed(entry, fault.code))
        # 2. on_enter
        entry.phase = "on_enter"
        err = await self.run_list(list(state.get("on_enter") or []), scope, path + ".")
        if err is not None:
            return ("end", self.terminal("failed", error=err))
        # 3. correlate: the match values at once, then the deadline (WFS-TRANS-26, -12)
        if "on" in state or "timeout" in state:
            try:
                entry.match = early if early is not None else self.correlate(entry, scope)
                if "timeout" in state:
                    after = (state.get("timeout") or {}).get("after")
                    if self.dry and self.affected(after, scope) and "dry-stop-ignored" not in self.bugs:
                        return ("end", self.dry_stop(doc, entry, root))
                    base = entry.start_clock if "timer-from-entry" in self.bugs else self.clock
                    entry.deadline = deadline_ms(self.evaluate(after, scope), base)
            except Fault as fault:
                return ("end", self.entry_failed(entry, fault.code))
            fields = {"entry": path, "match": entry.match}
            if entry.deadline is not None:
                fields["deadlineMs"] = entry.deadline
            self.event("entry_correlated", **fields)
        # 4. steps: events accepted meanwhile are retained, none interrupts (WFS-TRANS-29)
        entry.phase = "steps"
        try:
            err = await self.run_list(list(state.get("steps") or []), scope, path + ".")
        except Cancelled as cancel:
            if not (cancel.kind == "event" and cancel.target == path):
                raise
            err = None  # the seeded bug event-interrupts-steps
        if err is not None:
            return ("end", self.terminal("failed", error=err))
        entry.phase = "leave"
        # 5. leave
        if state.get("final") is True:  # outputs in this entry's scope (WFS-FORM-12)
            where = root if "final-outputs-root-scope" in self.bugs else scope
            try:
                result, suppressed = self.project(doc.get("outputs") or {}, where)
            except Fault as fault:
                return ("end", self.terminal("failed", error=Err(fault.code, None)))
            return ("end", self.terminal("completed", result=result, suppressed=suppressed))
        if "goto" in state or "route" in state:
            return self.transition(doc, states, entry, state, scope, root, "immediate", None)
        quiet = False
        while True:
            chosen = self.select(entry)
            if chosen is None and quiet:
                # quiet: nothing more comes and no time passes; a deadline at or before
                # the clock fires, otherwise the run waits forever (docs/workfile-stateful.md)
                if entry.deadline is None or entry.deadline > self.clock:
                    return ("end", self.terminal("waiting"))
                chosen = ("timeout",)
            if chosen is not None:
                break
            entry.phase = "idle"
            message = await Suspend(IDLE)
            entry.phase = "leave"
            if (message or {}).get("type") == "quiet":
                quiet = True
        # 6. transition
        if chosen[0] == "timeout":
            return self.transition(doc, states, entry, state.get("timeout") or {}, scope, root,
                                   "timeout", None)
        _, event, names = chosen
        if len(names) > 1 and "overlap-map-order" not in self.bugs:
            return ("end", self.entry_failed(entry, "state.ambiguous_subscription"))
        if "event-delivered-twice" in self.bugs:
            if event not in self.carried:
                self.carried.append(event)  # the seeded bug: never consumed
        else:
            self.consumed.add(event["number"])  # delivered once (WFS-TRANS-33)
        name = names[0]
        inner = Scope(scope, {name: event["payload"]})  # the payload under the name (WFS-TRANS-21)
        return self.transition(doc, states, entry, entry.subscriptions[name], inner, root, name,
                               event["number"])

    def correlate(self, entry, scope):
        """Every subscription's match values, evaluated at once in the entry scope."""
        return {name: self.evaluate(sub.get("match") or {}, scope)
                for name, sub in entry.subscriptions.items()}

    def candidates(self, entry):
        """The events this entry may receive, in acceptance order: those accepted since its
        subscriptions became active and not yet delivered."""
        start = 0 if "early-event-delivered" in self.bugs else entry.activation
        pool = [e for e in self.accepted[start:] if e["number"] not in self.consumed]
        if self.carried:
            pool = self.carried + [e for e in pool if e not in self.carried]
        return pool

    def matching(self, entry, event):
        """The subscriptions (in map order) an event is eligible for: its trigger is the
        subscription's event and every match value equals the payload's field (WFS-TRANS-30)."""
        if entry.match is None:
            return []
        payload = event["payload"]
        names = []
        for name, sub in entry.subscriptions.items():
            if sub.get("event") != event["event"]:
                continue
            wanted = entry.match.get(name)
            wanted = wanted if isinstance(wanted, dict) else {}
            absent_null = "absent-field-null" in self.bugs  # the seeded bug: absent reads null
            if "match-ignored" in self.bugs:
                wanted = {}  # the seeded bug: any event of the trigger is eligible
            if all((field in payload or absent_null) and equal(payload.get(field), value)
                   for field, value in wanted.items()):
                names.append(name)
        return names

    def select(self, entry):
        """The first eligible event or the due timer, or None: events by acceptance instant
        and order; one accepted at or before the deadline wins, a later one loses; the timer
        is due once the clock is past the deadline (WFS-TRANS-36..38, A-152)."""
        first = None
        for event in self.candidates(entry):
            names = self.matching(entry, event)
            if names:
                first = (event, names)
                break
        deadline = entry.deadline
        tie = "timeout-wins-tie" in self.bugs
        if first is not None:
            at = first[0]["at"]
            if deadline is None or (at < deadline if tie else at <= deadline):
                return ("event", *first)
        if deadline is not None and (self.clock >= deadline if tie else self.clock > deadline):
            return ("timeout",)
        return None

    def transition(self, doc, states, entry, trans, scope, root, by, number):
        """Evaluate the selected transition in ``scope``: route subjects case by case, then the
        target, ``into`` at once, the target's defaults and the type of every value before
        anything is bound (WFS-ENTRY-5, -6, -16).  A fault fails the source entry."""
        try:
            while isinstance(trans, dict) and "route" in trans:
                subject_text = trans.get("route")
                if self.dry and self.affected(subject_text, scope) and "dry-stop-ignored" not in self.bugs:
                    return ("end", self.dry_stop(doc, entry, root))
                subject = self.evaluate(subject_text, scope)
                nested = None
                for label, case in (trans.get("cases") or {}).items():
                    if equal(label, subject):
                        nested = case
                        break
                if nested is None:
                    if "else" not in trans:
                        raise Fault("fault.type")  # no case and no else: nothing to select
                    nested = trans["else"]
                trans = nested
            trans = trans if isinstance(trans, dict) else {}
            target = trans.get("goto")
            into = trans.get("into") or {}
            if self.dry and self.affected(into, scope) and "dry-stop-ignored" not in self.bugs:
                return ("end", self.dry_stop(doc, entry, root))
            supplied = self.evaluate(into, scope)
            values = self.accepted_values(states.get(target), supplied)
        except Fault as fault:
            return ("end", self.entry_failed(entry, fault.code))
        if "reentry-same-position" in self.bugs and target == entry.name:
            position = self.positions[target] - 1  # the seeded bug: the same S[N] again
        else:
            position = self.positions[target]
        to = f"{target}[{position}]"
        # docs/workfile-stateful.md: entry_exited and the entry's record carry ``number``,
        # the delivered event's number (with a subscription)
        delivered = {} if number is None else {"number": number}
        self.event("entry_exited", entry=entry.path, by=by, **delivered, to=to)
        record = {"outcome": "exited", "by": by, **delivered, "to": to}
        self.entries[-1].update(record)
        return ("next", target, position, values)

    def accepted_values(self, state, supplied):
        """``into``'s values with the target's defaults applied, each checked against its field
        declaration; a mismatch is fault.type (WFS-ENTRY-5)."""
        state = state if isinstance(state, dict) else {}
        declared = state.get("accepts") or {}
        if not isinstance(supplied, dict):
            raise Fault("fault.type")
        for name in supplied:
            if name not in declared:
                raise Fault("fault.type")
        values = {}
        for name, field in declared.items():
            field = field if isinstance(field, dict) else {}
            if name in supplied:
                values[name] = supplied[name]
            elif "default" in field and "accepts-defaults-skipped" not in self.bugs:
                values[name] = field["default"]
            elif field.get("required") is True:
                raise Fault("fault.type")
            # an optional name without a default is not bound (it reads null)
        if "into-partial-bind" not in self.bugs:
            for name, value in values.items():
                if not has_type(value, declared[name]):
                    raise Fault("fault.type")
        return values

    def entry_failed(self, entry, code):
        """One of the entry's own evaluations faulted: the entry fails, and with it the run."""
        err = Err(code, entry.path)
        self.event("entry_failed", entry=entry.path, error=err.public())
        return self.terminal("failed", error=err)

    def dry_stop(self, doc, entry, root):
        """An implicit dry-run stop (WF-SCTL-3..7): no transition, the timer removed, outputs in
        the root scope with every non-root binding treated as suppressed."""
        self.event("dry_run_stopped", entry=entry.path)
        outputs = doc.get("outputs") or {}
        shadow = Scope(root)
        for name, _ in value_references(outputs, []):
            if name not in root.names:
                shadow.outcome[name] = "suppressed"
                shadow.supp[name] = True
        try:
            result, suppressed = self.project(outputs, shadow)
        except Fault as fault:
            return self.terminal("failed", error=Err(fault.code, None))
        return self.terminal("stopped", result=result, reason="Dry-run dependency suppressed.",
                             suppressed=suppressed)


class Entry:
    """One visit to one state."""

    def __init__(self, path, name, state, clock):
        self.path, self.name, self.state = path, name, state
        subs = state.get("on")
        self.subscriptions = {k: (v if isinstance(v, dict) else {})
                              for k, v in (subs.items() if isinstance(subs, dict) else [])}
        self.start_clock = clock
        self.phase = "enter"
        self.activation = 0  # the index in Executor.accepted of the first candidate
        self.match = None  # {subscription: {field: value}} once correlated
        self.deadline = None  # virtual milliseconds, with a timeout


EPOCH = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)  # the clock's 0 (A-152)
TIMESTAMP = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?"
    r"(?:([Zz])|([+-])(\d{2}):(\d{2}))$"
)


def deadline_ms(value, clock):
    """A timeout's ``after``: a duration from ``clock`` or an RFC 3339 timestamp; anything else
    is fault.type."""
    if not isinstance(value, str):
        raise Fault("fault.type")
    match = TIMESTAMP.match(value)
    if match:
        year, month, day, hour, minute, second, fraction, _zulu, sign, oh, om = match.groups()
        try:
            offset = datetime.timedelta(hours=int(oh), minutes=int(om)) if sign else None
            if offset is not None and (int(oh) > 23 or int(om) > 59):
                raise ValueError
            zone = datetime.timezone(-offset if sign == "-" else offset) if offset is not None \
                else datetime.UTC
            micro = int((fraction or "0")[:6].ljust(6, "0"))
            moment = datetime.datetime(int(year), int(month), int(day), int(hour), int(minute),
                                       int(second), micro, tzinfo=zone)
        except ValueError:
            raise Fault("fault.type") from None
        return (moment - EPOCH) // datetime.timedelta(milliseconds=1)
    try:
        return clock + duration_ms(value)
    except ValueError:
        raise Fault("fault.type") from None


WRITTEN_SCALAR = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false")


def route_matches(case, subject):
    """A case key equal to the subject, or a quoted number or boolean equal to it (A-124)."""
    if equal(case, subject):
        return True
    if "A-174=json" in EXPR_BUGS:  # the other reading: a quoted key matches strings only
        return False
    if not isinstance(case, str) or not isinstance(subject, (bool, int, float)):
        return False
    return bool(WRITTEN_SCALAR.fullmatch(case)) and equal(json.loads(case), subject)


def case_name(case):
    if isinstance(case, bool):
        return "true" if case else "false"
    return "null" if case is None else str(case)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bug", action="append", default=[], choices=sorted(BUGS))
    parser.add_argument("--reading", action="append", default=[], choices=sorted(READINGS))
    args = parser.parse_args()
    global TRUTHY, LAZY_CHOOSE, EXPR_BUGS
    EXPR_BUGS = set(args.bug) | set(args.reading)
    TRUTHY = "A-117=truthy" in args.reading
    LAZY_CHOOSE = "A-124=first" in args.reading
    executor = Executor(set(args.bug) | set(args.reading))
    send({"type": "ready", "protocol": 1, "engine": "wf-lite"})
    while True:
        message = receive()
        if message.get("type") == "shutdown":
            return
        if message.get("type") == "run":
            state = executor.run(message)
            send({"type": "done", "run": message.get("runId"), "state": state})


if __name__ == "__main__":
    main()
