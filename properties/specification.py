"""A specification as one record: the parts the oracle needs, the same for every specification.

The oracle (check, explore, run, fuzz, shrink, fixtures, conform,
protocol-selftest, explain, JUnit, ITF) is written once over a
``Specification``; each specification builds its record in its own package
(``properties/<spec>/specification.py``) and ``properties/registry.py``
lists them.  Nothing here imports the oracle: the protocol mapping is plain
data and callables over plain JSON, and the two small records the mapping
and the judge share with the oracle (``Observation``, ``Divergence``) live
here, below it.

Notation: a *document* is the specification's document as a user writes it
(w6w: a JSON value; Harness: XML text); a *case* is ``{"document",
"scenario", "schedule"}`` (plus, for w6w, an optional ``replay``); a
*prepared* case is the model of a case made ready to run.
"""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from wforacle.grammar import jsontext
from wforacle.model.diagnostics import InvalidCase, InvalidInput, Report

JSON = Any


class BadLine(Exception):
    """An input line of a line tool that cannot be answered: not UTF-8, not JSON, too deep.

    Raised by a line tool's answer (``Specification.tools``' ``answer_line``)
    for a request of the wrong shape; the command line answers it
    ``invalid_input`` and goes on with the next line.
    """


def parse_json(data: bytes | str, source: str, surrogates: bool = False) -> JSON:
    """Strict JSON from a file's bytes: grammar/jsontext.py ``loads``, its refusal an InvalidInput.

    No NaN, no Infinity, no number out of float range, no nesting deeper
    than ``MAX_DEPTH`` (A-154).  A document, scenario or trace holds Unicode
    text; a line tool's data may hold a lone surrogate, which it answers
    escaped (``surrogates``, tests/oracle/test_line_tools).
    """
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInput(f"cannot read {source}: not UTF-8 text ({exc.reason})") from None
    try:
        return jsontext.loads(data, surrogates)
    except jsontext.NotStrictJson as exc:
        raise InvalidInput(f"{source} is not JSON: {exc}") from None


def schedule_of(value: JSON, source: str = "the schedule") -> list[int]:
    """A case's schedule: a JSON array of integers (the completion order); else InvalidCase.

    docs/fixtures.md: ``schedule.json`` is "the completion order the oracle
    imposes at each wait", an array of integers each taken modulo the number
    of outstanding calls (oracle/engine.py ``choose``).  A bool is not an
    integer here, as in JSON.  Checked where a case is read (conform's
    fixtures, shrink's ``--schedule``), never trusted by the engine driver.
    """
    if not isinstance(value, list):
        raise InvalidCase(f"{source} is not an array of integers: {_short(value)}")
    for index, item in enumerate(value):
        if isinstance(item, bool) or not isinstance(item, int):
            raise InvalidCase(f"{source}[{index}] is not an integer: {_short(item)}")
    return value


def strings(value: JSON) -> Iterator[str]:
    """Every string in a JSON-like value, member names included, depth first in order.

    attrs records are walked by their fields.  Iterative: a value's depth is
    bounded where it was read (A-154), not by Python's recursion limit.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif attrs.has(type(item)):
            stack.append(attrs.asdict(item, recurse=False))
        elif isinstance(item, dict):
            for key, member in reversed(list(item.items())):
                stack += [member, str(key)]
        elif isinstance(item, list | tuple):
            stack.extend(reversed(item))


def copy_case(value: JSON) -> JSON:
    """A deep copy of a case or a part of one (JSON values; records, tuples as they are).

    By a pickle round trip, which copies in C what ``copy.deepcopy`` copies
    in Python: a w6w campaign deep-copied each case's document and scenario
    to prepare it, 1.4% of its instructions (issue 16).  A value pickle
    refuses is copied by ``copy.deepcopy``.
    """
    try:
        return pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))
    except (pickle.PicklingError, TypeError, AttributeError):
        return copy.deepcopy(value)


def _short(value: JSON, limit: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@attrs.frozen
class Divergence:
    """Where a trace or a run leaves what the model permits, and why."""

    index: int  # the first observed event the model does not permit; len(trace): it stopped early
    observed: JSON | None = attrs.field(eq=False)
    permitted: tuple[JSON, ...] = attrs.field(eq=False)
    clauses: tuple[str, ...]
    message: str

    def to_json(self) -> dict[str, Any]:
        """The divergence as JSON (docs/trace.md)."""
        return {
            "index": self.index,
            "observed": self.observed,
            "permitted": list(self.permitted),
            "clauses": list(self.clauses),
            "message": self.message,
        }

    @classmethod
    def from_json(cls, found: dict[str, Any]) -> Divergence:
        """The divergence ``to_json`` wrote (a campaign shard's report, oracle/shards.py)."""
        return cls(
            found["index"],
            found["observed"],
            tuple(found["permitted"]),
            tuple(found["clauses"]),
            found["message"],
        )


@attrs.frozen
class Observation:
    """What one run of an engine showed."""

    trace: tuple[JSON, ...] = attrs.field(eq=False)
    # (unit of work, its input) per invocation, in the order the engine made them.
    invocations: tuple[tuple[str, JSON], ...] = attrs.field(eq=False)
    state: JSON = attrs.field(eq=False)
    seconds: float = 0.0
    # The states the engine checkpointed (sent only when the oracle asks).
    durable: tuple[JSON, ...] = attrs.field(default=(), eq=False)
    # The crashes the oracle made: (the index of the ``crashed`` event it recorded in
    # ``trace``, the checkpoint number, the durable state the engine resumes from).  The
    # event is the model's, so another reading's model records its own (oracle/engine.py).
    crashes: tuple[tuple[int, int, JSON], ...] = attrs.field(default=(), eq=False)


@attrs.frozen
class Loaded:
    """A document's diagnostics and, when usable, its document model (and plan)."""

    report: Report
    model: Any  # the document model (w6w: Workflow; Harness: Harness), None when unusable
    plan: Any = None  # what the planner computed, where the specification has one


@attrs.frozen
class Prepared:
    """A case made ready to run: its model, and what an engine is sent to start it."""

    semantics: Any  # an LTS on model/kernel: initial(), enabled(c)
    request: dict[str, JSON]  # the message that starts the run (``run``, ``replay``)
    # Case files a fixture keeps beyond document, scenario and schedule (name → JSON).
    files: Mapping[str, JSON] = attrs.field(factory=dict)


@attrs.frozen
class Protocol:
    """How the engine protocol's messages map to a specification's events (docs/engine-protocol.md).

    The message loop is the oracle's; these say what differs: which member
    of ``invoke`` names the unit of work and which carries its input, how a
    ``result`` is answered from the scenario, which messages are
    acknowledged, whether and how an engine may withdraw a call (Harness: ``cancel``), and
    after which checkpoints the oracle crashes the engine and with what
    ``crashed`` event the model records it.
    """

    unit: str  # the invoke member naming the unit of work ("step", "node")
    argument: str  # the invoke member carrying its input ("input", "inputs")
    known: Callable[[Prepared, JSON], bool]  # whether an invoke names a unit of the case
    # The result message's fields for the n-th (1-based) invocation of a unit.
    answer: Callable[[Prepared, str, int], dict[str, JSON]]
    acknowledged: frozenset[str] = frozenset()  # message types answered with ``ack``
    withdraw: str | None = None  # the message with which an engine withdraws a call
    crashes: Callable[[Prepared], frozenset[int]] = lambda prepared: frozenset()
    # Whether an engine's event ends the run (Workfile: ``run_finished``): no interrupt is
    # delivered after it, for "A request against an already terminal run has no effect"
    # (WF-CANCEL-3) — an engine may still drain its calls with waits then.
    ends: Callable[[JSON], bool] = lambda event: False
    # The checkpoint K whose checkpoint message the oracle answers ``abort`` instead of
    # ``ack`` (w6w: the host's abort signal fires after checkpoint K, W6W-HOST-3), or None.
    aborts: Callable[[Prepared], int | None] = lambda prepared: None
    # The model's ``crashed`` event after checkpoint K whose durable state is given.
    crashed: Callable[[Prepared, int, JSON], JSON] | None = None
    # The engine's waits (1-based) at which the oracle interrupts the run instead
    # of answering (Workfile: the cancellation request, a deadline's expiry, a
    # child run's cancellation): K → what it sends and records then.
    interrupts: Callable[[Prepared], Mapping[int, Interrupt]] = lambda prepared: {}
    # What the oracle sends when the engine waits with no call outstanding and no
    # interrupt is left (Workfile state-form runs: ``quiet``); None: such a wait is a
    # protocol fault.  At an idle wait the next interrupt comes early, whatever its K.
    idle: Callable[[Prepared], Interrupt | None] = lambda prepared: None
    # The trace events the oracle itself records (an interrupt's, a crash's): when they
    # are all the model permits, the model expected the engine to wait.
    recorded: frozenset[str] = frozenset()
    # The unit an ``invoke`` names when more members than ``unit`` name it (Harness: a
    # loop body's node and the iterations it runs within, ``l[0]/b``); None: ``unit``'s
    # value.  What it returns is what ``known`` and ``answer`` are asked about.
    qualify: Callable[[JSON], JSON] | None = None


@attrs.frozen
class Interrupt:
    """What the oracle sends at a wait instead of a result, and the event it records.

    With ``late``, the message carries the late results of every outstanding
    call (``late: [{call, …result}]``) and no call is outstanding afterwards
    (Workfile's run cancellation); without, the engine withdraws the calls of
    the work it cancels.
    """

    message: JSON  # {"type": ..., ...}
    event: JSON  # the trace event the oracle records; None: none (the engine reports it)
    late: bool = False


@attrs.frozen
class Layout:
    """How a case is kept in a fixture directory (docs/fixtures.md)."""

    document_file: str  # "document.json", "document.xml"
    dump_document: Callable[[JSON], str]  # the file's text
    read_document: Callable[[str], JSON]  # the document from the file's text; InvalidCase if not
    optional: tuple[str, ...] = ()  # further case parts kept as <name>.json when present
    # Of those, the parts a finding's explanation prints beside the minimal document
    # (Workfile: the child workflows the shrinker reduced; not the fixed manifests).
    shown: tuple[str, ...] = ()
    # Case parts printed on one line after the schedule, when present (w6w: a replay's
    # ``from``): what reproducing the minimal case needs beside the document.
    inline: tuple[str, ...] = ()


@attrs.frozen
class Reading:
    """An assumption's readings, which the model takes as a parameter (issue 18).

    Where the specification is open, docs/assumptions.md records the
    readings and the model's choice; each assumption the semantics is
    parametric in is one ``Reading``: its id, the clauses it reads, and its
    values, the model's default first.  A user pins one with its option
    (``flag``) or ``--reading ID=NAME``; campaigns and ``check`` accept what
    any combination of readings permits unless told otherwise
    (oracle/readings.py).  A switch (no ``choices``) has the values False
    and True, named by ``names``.
    """

    flag: str  # "--launch"
    dest: str  # the option's name in ``Specification.options``
    help: str
    choices: tuple[str, ...] = ()  # the readings' names, the model's default first; () a switch
    assumption: str = ""  # "A-74": the assumption in docs/assumptions.md
    clauses: tuple[str, ...] = ()  # the clauses whose text is open
    names: tuple[str, str] = ("no", "yes")  # a switch's readings: off (the default), on
    # The other readings admit only runs the default admits too (A-74's "eager": every
    # eager trace is a "separate" trace): they can never rescue a run the default
    # rejects, so oracle/readings.py does not try them; a pin still selects one.
    narrows: bool = False
    # Whether the reading can matter to a case at all (``None``: it may, always): a
    # reading only some documents reach (a decision with a guard, a loop) is left out of
    # the combinations tried for other cases — each combination is a whole re-judgement.
    relevant: Callable[[Mapping[str, Any]], bool] | None = None

    @property
    def values(self) -> tuple[Any, ...]:
        """The option's values, the model's default first."""
        return self.choices or (False, True)

    @property
    def default(self) -> Any:
        """The model's choice (docs/assumptions.md)."""
        return self.values[0]

    def name(self, value: Any) -> str:
        """A value's reading name (``eager``; a switch's ``names``)."""
        return str(value) if self.choices else self.names[bool(value)]

    def value(self, name: str) -> Any:
        """The value a reading's name selects; ValueError when it names none."""
        for value in self.values:
            if self.name(value) == name:
                return value
        raise ValueError(
            f"{self.assumption or self.dest} has no reading {name!r} "
            f"(its readings: {', '.join(self.name(v) for v in self.values)})"
        )


# -- a document as a graph to draw (oracle/drawing.py lays it out: docs/report.md) ----------

# What an arrow does, whatever the specification calls it; the drawing styles each alike.
ARROW_ROLES = ("next", "failure", "data", "condition", "nested", "other")
# What a box is: a unit of work, a choice between routes, a construct that owns others, an end.
BOX_ROLES = ("work", "choice", "construct", "final")


@attrs.frozen
class Box:
    """A unit of a document drawn as a box: a step, a node, a state."""

    id: str  # unique within its diagram (a document path where ids may repeat)
    label: str  # the unit's own name: its id
    detail: str = ""  # what it does, in the specification's words ("crm.send", "join any")
    role: str = attrs.field(default="work", validator=attrs.validators.in_(BOX_ROLES))
    group: str = ""  # the Group it is drawn inside ("" the top level)


@attrs.frozen
class Arrow:
    """A typed edge between two boxes: its kind in the specification's words and its role."""

    tail: str  # Box.id
    head: str  # Box.id
    kind: str  # "success", "error", "data", "case", "timeout" …
    role: str = attrs.field(default="next", validator=attrs.validators.in_(ARROW_ROLES))
    label: str = ""  # what the edge carries: a condition, a port, an error-code pattern


@attrs.frozen
class Group:
    """Boxes drawn together: a control's sub-block, a loop's body, a catch handler's steps."""

    id: str
    label: str
    parent: str = ""  # the enclosing Group's id


@attrs.frozen
class Diagram:
    """A document as a graph: boxes, typed arrows, groups (``Specification.diagram``)."""

    boxes: tuple[Box, ...] = ()
    arrows: tuple[Arrow, ...] = ()
    groups: tuple[Group, ...] = ()


CONFORMANCE = "conformance"  # the fixture profile of the hand-written cases


def without(case: JSON, members: tuple[str, ...]) -> Iterator[JSON]:
    """The last reductions of every case: each scenario member dropped, the schedule shortened."""
    scenario = case.get("scenario")
    for member in members:
        if isinstance(scenario, dict) and member in scenario:  # an empty member is noise too
            variant = copy_case(case)
            del variant["scenario"][member]
            yield variant
    if case.get("schedule"):
        variant = copy_case(case)
        variant["schedule"] = variant["schedule"][:-1]
        yield variant


def runnable(cases: Callable[[], Any], prepare: Callable[[JSON, Any], Prepared]) -> Any:
    """A fixture profile's strategy: the campaign's cases the model can run."""

    def valid(case: JSON) -> bool:
        try:
            prepare(case, None)
        except InvalidInput:
            return False
        return True

    return cases().filter(valid)


@attrs.frozen
class ConformanceCase:
    """A hand-written conformance case: written once, run by pytest, exported as a fixture.

    ``expect`` is stated from the specification's text, not computed by the
    model: a partial outcome (every member it names must equal the outcome's,
    recursively) that every outcome the model permits must match.  ``clauses``
    are the clauses the case exercises (consensus-specs' generators are the
    model: tests/test_conformance.py checks, ``wforacle fixtures --profile
    conformance`` writes the same cases with ``expect.json``).
    ``matches`` is defined below the class.
    """

    name: str
    clauses: tuple[str, ...]
    case: JSON  # {"document", "scenario", "schedule"}
    expect: JSON
    # True: every permitted outcome matches; False: some does (a race the
    # specification leaves open, where ``expect`` describes one way it can go).
    every: bool = True

    def holds(self, outcomes: list[JSON]) -> bool:
        """Whether the outcomes the model permits meet the expectation."""
        met = [matches(self.expect, outcome) for outcome in outcomes]
        return bool(met) and (all(met) if self.every else any(met))


def matches(expect: JSON, outcome: JSON) -> bool:
    """Whether ``outcome`` has every member ``expect`` names, with equal values (recursively)."""
    if isinstance(expect, dict):
        return isinstance(outcome, dict) and all(
            key in outcome and matches(value, outcome[key]) for key, value in expect.items()
        )
    return bool(expect == outcome) and type(expect) is type(outcome)


@attrs.frozen
class Input:
    """A file or folder a specification's documents are read with (a CLI option).

    Workfile: ``--manifests DIR``, the connector manifests that validation
    takes as Static Facts.  ``Specification.bind`` turns the chosen values into
    a specification whose parts use them.
    """

    flag: str  # "--manifests"
    dest: str  # the option's name in the parsed arguments
    help: str
    metavar: str = "PATH"


@attrs.frozen
class Specification:
    """One specification's parts, with the same names for every specification."""

    name: str
    # Recognising a document when --spec is absent: by the first bytes of its
    # file (which reader to use), then by the document read (whether it is this
    # specification's at all).
    sniffs: Callable[[bytes], bool]
    claims: Callable[[JSON], bool]
    read: Callable[[bytes, str], JSON]  # the document from a file's bytes; InvalidInput if not
    validate: Callable[[JSON], Loaded]  # diagnostics, the document model, the plan
    # The reports of several documents checked together (w6w: one account's keys),
    # given the stored version a single document replaces (or None).
    validate_many: Callable[[list[JSON], JSON], list[Report]]
    # The selectable readings, and the model's options built from the chosen ones.
    readings: tuple[Reading, ...]
    readings_title: str  # the title of their option group in --help
    options: Callable[[Mapping[str, Any]], Any]
    # The semantics of a valid document under a scenario (JSON) and options;
    # raises InvalidScenario / InvalidCase for input the user must fix.
    semantics: Callable[[Loaded, JSON, Any, JSON], Any]
    key: Callable[[Any], Hashable]  # a configuration's key
    outcome: Callable[[Any, Any], JSON]  # a terminal configuration's outcome (explore, fixtures)
    # Every outcome (kernel explore), with the specification's reduction where it has one.
    explore: Callable[[Any, int, bool], Any]
    # What the model says it does not cover: exception type → how its message begins.
    limits: Callable[[], Mapping[type[Exception], str]]
    final_state: Callable[[Any, Any], JSON]  # the state a run ends in (run --json, ITF)
    final_name: str  # its name in run --json and ITF ("runState", "outcome")
    prepare: Callable[[JSON, Any], Prepared]  # a case, ready to run; InvalidCase if it cannot
    cases: Callable[[], Any]  # the campaign's Hypothesis strategy of cases
    suites: Mapping[str, Callable[[], Any]]  # fixture profile → strategy of valid cases
    protocol: Callable[[], Protocol]  # built when first driven (start-up time)
    # The judge's extra comparisons: before the trace check (w6w: a secret's
    # plaintext recorded) and after it, given the model's final configurations
    # the trace reaches (w6w: invocations and RunState; Harness: node states).
    screen: Callable[[Prepared, JSON, Observation], Divergence | None]
    compare: Callable[[Prepared, Observation, tuple[Any, ...]], Divergence | None]
    layout: Layout
    smaller: Callable[[JSON], Iterator[JSON]]  # one reduction step: smaller variants of a case
    size: Callable[[JSON], dict[str, int]]  # a case's size, plural noun → count
    # The planner where the specification has one: (JSON, text lines) of a valid document.
    plan: Callable[[Loaded, str], tuple[JSON, list[str]]] | None = None
    example_engine: str = ""  # the bundled example engine under examples/engines/
    # protocol-selftest: named cases the engine must pass, and one case whose run
    # has two invocations outstanding together (so the oracle can order them).
    # A profile's own checks when given one (None: the default mix).
    selftest: Callable[[str | None], tuple[tuple[tuple[str, JSON], ...], JSON]] = lambda _: (
        (),
        None,
    )
    trace_line: Callable[[JSON], str] = lambda event: str(event)  # run's text output
    ends: Callable[[JSON], str] = lambda state: str(state)  # run's last text line
    allowed: str = "a run the specification allows"  # check's verdict wording
    # Files or folders documents are read with, and the specification bound to
    # the values a user gave for them (identity where there are none).
    inputs: tuple[Input, ...] = ()
    # Hand-written conformance cases (``fixtures --profile conformance``).
    conformance: Callable[[], tuple[ConformanceCase, ...]] = lambda: ()
    bind: Callable[[Specification, Mapping[str, Any]], Specification] = lambda spec, values: spec
    # Why the model does not let an event's unit do what the engine did (a Harness node
    # no run makes READY, a w6w step started out of the plan's order): the clauses that
    # forbid it, and a sentence; ((), "") if none.  Given the semantics, the engine's
    # event and the model's configurations at that point (empty when not known).
    why_not: Callable[[Any, JSON, tuple[Any, ...]], tuple[tuple[str, ...], str]] = (
        lambda semantics, event, before: ((), "")
    )
    # An event field → the clauses that govern it, for the fields no clause's text names
    # (w6w: a step_failed's ``routing``, a retry's ``waitMs``): when the engine's field
    # differs, those of them the model's rule cites come first (explain.py).
    governing: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)
    # The nested runs an event reports (a Harness loop's iterations): for the engine's
    # event and the model's configurations before it, each as (where, the nested run's
    # semantics, the engine's trace of it); explain.py checks them and explains the
    # first that diverges by its own rule.  () when the event nests nothing.
    nested: Callable[[Any, tuple[Any, ...], JSON], tuple[tuple[str, Any, list[JSON]], ...]] = (
        lambda semantics, before, observed: ()
    )
    # The clause the engine broke at a divergence, where the specification can say which
    # clause of the rule the model applies there the engine's event breaks (Workfile:
    # properties/workfile/blame.py); explain.py cites it first.  () when it cannot.
    blame: Callable[[Any, Divergence], tuple[str, ...]] = lambda semantics, divergence: ()
    # Values whose form the specification leaves to the engine, renamed to the model's
    # before the engine's run is judged: (semantics, trace, final state) → the same two
    # (w6w: a wait's resumeToken, A-55).  None: judged as the engine wrote them.
    rename: Callable[[Any, Sequence[JSON], JSON], tuple[list[JSON], JSON]] | None = None
    # The members a case takes from those files (Workfile: ``manifests`` from
    # --manifests DIR), for commands that build a case from a document (shrink).
    case_inputs: Callable[[Mapping[str, Any]], dict[str, JSON]] = lambda values: {}
    # The specification's own sub-commands (``wforacle workfile refs``): given
    # argparse's sub-parsers, it adds them (each sets its ``handler``, or, for a tool
    # that answers JSON lines on standard input, ``answer_line``: given the arguments,
    # the answer to one parsed request, raising BadLine for a request of the wrong shape).
    tools: Callable[[Any], None] | None = None
    # The document model (``Loaded.model``) as a graph to draw in a report (docs/report.md).
    diagram: Callable[[Any], Diagram] = lambda model: Diagram()
