"""Hostile documents, scenarios and traces for validate, plan, run, explore, check, test-step.

Formats: w6w JSON documents (Core shapes, controls, calls), Harness XML,
Workfile YAML (Core and state-form), their scenarios and traces.  Each
seed input is mutated (structurally: a member replaced by a hostile value,
deleted, wrapped, added; or as text: truncated, not UTF-8, NaN …), and hand-made
inputs cover what random mutation rarely reaches: bombs, depth, size,
documents the specification says are invalid, and runs that ask for a
great deal of work.
"""

from __future__ import annotations

import copy
import json
import random
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

from .corpus import Case, Invocation, reference_run
from .pieces import (
    EXAMPLES,
    NOT_DOCUMENTS,
    PLAIN_VALUES,
    SVC_MANIFEST,
    app,
    control,
    delete,
    harness_seeds,
    mutate_json,
    nested,
    put,
    text_mutation,
    w6w_seeds,
    workfile_seeds,
    workflow,
    xml_bomb,
    yaml_bomb,
)

JSON = object
Files = dict[str, bytes]


def dumps(value: JSON) -> bytes:
    return json.dumps(value, indent=1, ensure_ascii=False).encode()


def build_with(
    files: Files,
    args: list[str],
    stdin: bytes | None = None,
    extra: Callable[[Path], None] | None = None,
) -> Callable[[Path], Invocation]:
    """A build function writing ``files`` (name -> bytes; a name ending / is a folder)."""

    def build(folder: Path) -> Invocation:
        for name, data in files.items():
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        if extra is not None:
            extra(folder)
        return Invocation(args, stdin)

    return build


def manifests_folder(folder: Path) -> None:
    target = folder / "manifests"
    target.mkdir(exist_ok=True)
    for path in (EXAMPLES / "workfile" / "manifests").glob("*.yaml"):
        (target / path.name).write_bytes(path.read_bytes())
    (target / "svc.yaml").write_text(SVC_MANIFEST)


# -- w6w ------------------------------------------------------------------------------------

W6W_COMMANDS = ["validate", "validate-json", "plan", "run", "explore", "check", "test-step"]


def w6w_args(command: str, first_step: str) -> list[str]:
    return {
        "validate": ["validate", "doc.json"],
        "validate-json": ["validate", "doc.json", "--json"],
        "plan": ["plan", "doc.json", "--json"],
        "run": ["run", "doc.json", "--scenario", "scenario.json", "--json"],
        "explore": [
            "explore",
            "doc.json",
            "--scenario",
            "scenario.json",
            "--json",
            "--time-budget",
            "4",
            "--max-states",
            "20000",
        ],
        "check": [
            "check",
            "doc.json",
            "--scenario",
            "scenario.json",
            "--trace",
            "trace.json",
            "--json",
        ],
        "test-step": ["w6w", "test-step", "doc.json", first_step, "--json"],
    }[command]


def w6w_trace(name: str, doc: JSON, scenario: JSON) -> bytes:
    return reference_run(
        f"w6w-{name}",
        ["doc.json", "--scenario", "scenario.json"],
        {"doc.json": dumps(doc), "scenario.json": dumps(scenario)},
    )


def w6w_case(
    cid: str,
    command: str,
    summary: str,
    expect: str,
    doc: bytes | Callable[[], bytes],
    scenario: JSON,
    trace: Callable[[], bytes] | None,
    first_step: str,
    fmt: str = "w6w-json",
    timeout: float = 40.0,
) -> Case:
    """A w6w case; a large document is given as a function, made when the case is built."""

    def build(folder: Path) -> Invocation:
        files = {"doc.json": doc() if callable(doc) else doc, "scenario.json": dumps(scenario)}
        if command == "check":
            files["trace.json"] = trace() if trace is not None else b"[]"
        return build_with(files, w6w_args(command, first_step))(folder)

    name = command.split("-")[0] if command != "test-step" else "w6w test-step"
    return Case(
        cid,
        name,
        fmt,
        summary,
        expect,
        build,
        timeout=timeout,
        cheap=command in ("validate", "validate-json", "plan", "test-step"),
    )


def _set(path: tuple, value: JSON) -> Callable[[JSON], JSON]:
    return lambda d: put(d, path, value)


def _drop(path: tuple) -> Callable[[JSON], JSON]:
    return lambda d: delete(d, path)


W6W_INVALID: list[tuple[str, Callable[[JSON], JSON]]] = [
    ("no manifestVersion", _drop(("manifestVersion",))),
    ('manifestVersion "3"', _set(("manifestVersion",), "3")),
    ("manifestVersion 2 (a number)", _set(("manifestVersion",), 2)),
    ("no id", _drop(("id",))),
    ("no name", _drop(("name",))),
    ("name is a number", _set(("name",), 5)),
    ("no steps", _drop(("steps",))),
    ("steps is []", _set(("steps",), [])),
    ("steps is an object", _set(("steps",), {"a": {}})),
    ('step id ""', _set(("steps", 0, "id"), "")),
    ("dotted step id", _set(("steps", 0, "id"), "a.b")),
    ("step id a list", _set(("steps", 0, "id"), ["a"])),
    ("step without uses", _drop(("steps", 0, "uses"))),
    ('onError "explode"', _set(("steps", 0, "onError"), "explode")),
    ('fanOut "sideways"', _set(("steps", 0, "fanOut"), "sideways")),
    ("retry is 5", _set(("steps", 0, "retry"), 5)),
    ("maxAttempts 0", _set(("steps", 0, "retry"), {"maxAttempts": 0})),
    ("maxAttempts 1.5", _set(("steps", 0, "retry"), {"maxAttempts": 1.5})),
    (
        "maxAttempts a 400-digit integer as text",
        _set(("steps", 0, "retry"), {"maxAttempts": "9" * 400}),
    ),
    ("delayMs -1", _set(("steps", 0, "retry"), {"maxAttempts": 2, "delayMs": -1})),
    ('backoff "linear"', _set(("steps", 0, "retry"), {"maxAttempts": 2, "backoff": "linear"})),
    ("duplicate step id", lambda d: put(d, ("steps", 1, "id"), d["steps"][0]["id"])),
    ("dangling edge", lambda d: put(d, ("edges",), [{"from": d["steps"][0]["id"], "to": "ghost"}])),
    (
        "a two-step cycle",
        lambda d: put(
            d,
            ("edges",),
            [
                {"from": d["steps"][0]["id"], "to": d["steps"][1]["id"]},
                {"from": d["steps"][1]["id"], "to": d["steps"][0]["id"]},
            ],
        ),
    ),
    (
        "a self edge",
        lambda d: put(d, ("edges",), [{"from": d["steps"][0]["id"], "to": d["steps"][0]["id"]}]),
    ),
    (
        'edge when "maybe"',
        lambda d: put(
            d,
            ("edges",),
            [{"from": d["steps"][0]["id"], "to": d["steps"][1]["id"], "when": "maybe"}],
        ),
    ),
    ("edge without to", lambda d: put(d, ("edges",), [{"from": d["steps"][0]["id"]}])),
    ("edges is an object", _set(("edges",), {"from": "a"})),
    ("variable without key", _set(("variables",), [{"type": "string"}])),
    ("the document inside a list", lambda d: [d]),
    (
        "every step id the same 10,000 times",
        lambda d: put(d, ("steps",), [app("same") for _ in range(10_000)]),
    ),
]


def w6w_resource_docs() -> list[tuple[str, JSON, JSON, str]]:
    """(summary, document, scenario, expect): valid documents that ask for a lot of work."""
    chain = [app(f"s{i}") for i in range(3000)]
    edges = [{"from": f"s{i}", "to": f"s{i + 1}"} for i in range(2999)]
    wide = [app("r", fanOut="parallel")] + [app(f"b{i}") for i in range(14)]
    wide_edges = [{"from": "r", "to": f"b{i}"} for i in range(14)]
    fail = {"error": {"code": "flaky", "message": "m", "retryable": True}}
    selfish = workflow(
        {
            "id": "again",
            "uses": {"app": "@w6w/call", "action": "run"},
            "with": {"workflow": "wf_h", "inputs": {}},
        }
    )
    return [
        ("a chain of 3,000 steps", workflow(*chain, edges=edges), {}, "pass"),
        ("3,000 steps without edges", workflow(*chain), {}, "pass"),
        ("fanOut parallel over 14 strands", workflow(*wide, edges=wide_edges), {}, "any"),
        (
            "maxAttempts 1,000,000,000, every attempt failing",
            workflow(
                app(
                    "s",
                    retry={"maxAttempts": 1_000_000_000, "backoff": "exponential", "delayMs": 1},
                )
            ),
            {"steps": {"s": {"attempts": [fail]}}},
            "any",
        ),
        (
            "maxAttempts 2**63 with delayMs 1e308",
            workflow(
                app("s", retry={"maxAttempts": 2**63, "backoff": "exponential", "delayMs": 1e308})
            ),
            {"steps": {"s": {"attempts": [fail, {"output": 1}]}}},
            "any",
        ),
        (
            "foreach over 100,000 items",
            workflow(control("loop", "foreach", items=list(range(100_000)), body=[app("each")])),
            {},
            "any",
        ),
        (
            "foreach in foreach in foreach, 60 items each",
            workflow(
                control(
                    "l1",
                    "foreach",
                    items=list(range(60)),
                    body=[
                        control(
                            "l2",
                            "foreach",
                            items=list(range(60)),
                            body=[
                                control("l3", "foreach", items=list(range(60)), body=[app("leaf")])
                            ],
                        )
                    ],
                )
            ),
            {},
            "any",
        ),
        (
            "parallel control with 12 branches of 3 steps",
            workflow(
                control(
                    "par",
                    "parallel",
                    branches=[[app(f"p{i}a"), app(f"p{i}b"), app(f"p{i}c")] for i in range(12)],
                )
            ),
            {},
            "any",
        ),
        (
            "a workflow calling itself, maxCallDepth 1,000,000",
            selfish,
            {"maxCallDepth": 1_000_000, "calls": {"wf_h": {"document": selfish, "scenario": {}}}},
            "any",
        ),
        (
            "$expr multiplying 1e308 by 10 (Infinity)",
            workflow(app("s", **{"with": {"x": {"$expr": {"*": [1e308, 10]}}}})),
            {},
            "any",
        ),
        (
            '$expr {"+": ["1e999"]} (a string that reads as Infinity)',
            workflow(app("s", **{"with": {"x": {"$expr": {"+": ["1e999"]}}}})),
            {},
            "any",
        ),
        (
            '$expr {"+": ["nan"]}',
            workflow(app("s", **{"with": {"x": {"$expr": {"+": ["nan"]}}}})),
            {},
            "any",
        ),
        (
            "$expr multiplying two 4,000-digit integers",
            workflow(
                app("s", **{"with": {"x": {"$expr": {"*": [int("9" * 4000), int("9" * 4000)]}}}})
            ),
            {},
            "any",
        ),
        (
            "a step output that is a 4,000-digit integer, read by $",
            workflow(
                app("a"),
                app("b", **{"with": {"x": {"$": "steps.a.output"}}}),
                edges=[{"from": "a", "to": "b"}],
            ),
            {"steps": {"a": {"attempts": [{"output": int("7" * 4000)}]}}},
            "any",
        ),
        (
            "a with value nested 900 deep",
            workflow(app("s", **{"with": {"x": json.loads(nested(900))}})),
            {},
            "any",
        ),
        (
            "a template with 20,000 markers",
            workflow(app("s", **{"with": {"x": "{{ vars.a }}" * 20_000}})),
            {},
            "any",
        ),
        (
            "a $expr nested 900 deep",
            workflow(
                app(
                    "s",
                    **{
                        "with": {
                            "x": {"$expr": json.loads('{"if": [' * 300 + "true" + ", 1, 2]}" * 300)}
                        }
                    },
                )
            ),
            {},
            "any",
        ),
        (
            "a wait with afterMs 1e308 and 100 resumes",
            workflow(
                {
                    "id": "w",
                    "uses": {"app": "@w6w/control", "action": "wait"},
                    "with": {"afterMs": 1e308},
                }
            ),
            {"resumes": [{"output": 1}] * 100},
            "any",
        ),
        (
            "crashAfterCheckpoints 1..5,000",
            workflow(app("a"), app("b"), edges=[{"from": "a", "to": "b"}]),
            {"crashAfterCheckpoints": list(range(1, 5001))},
            "any",
        ),
    ]


W6W_SCENARIO_INVALID: list[tuple[str, JSON]] = [
    ("the scenario is a list", []),
    ("steps is a list", {"steps": []}),
    ("attempts is an object", {"steps": {"x": {"attempts": {}}}}),
    ("an attempt with neither output nor error", {"steps": {"x": {"attempts": [{}]}}}),
    ("an error without code", {"steps": {"x": {"attempts": [{"error": {"message": "m"}}]}}}),
    (
        "an error phase outside the four",
        {"steps": {"x": {"attempts": [{"error": {"code": "c", "phase": "bogus"}}]}}},
    ),
    ("crashAfterCheckpoints [0]", {"crashAfterCheckpoints": [0]}),
    ('crashAfterCheckpoints ["1"]', {"crashAfterCheckpoints": ["1"]}),
    ("crashAfterCheckpoints 1 (not a list)", {"crashAfterCheckpoints": 1}),
    ("cancelAfterCheckpoint 0", {"cancelAfterCheckpoint": 0}),
    ("cancelAfterCheckpoint 1.5", {"cancelAfterCheckpoint": 1.5}),
    ("maxCallDepth -1", {"maxCallDepth": -1}),
    ("runId 5", {"runId": 5}),
    ("variables a list", {"variables": [1]}),
    ("a call without its document", {"calls": {"wf_x": {"scenario": {}}}}),
    ("default is a string", {"default": "output"}),
    ("idempotent is a string", {"steps": {"x": {"idempotent": "yes", "attempts": []}}}),
    ("resumes is an object", {"resumes": {"output": 1}}),
]


def w6w_cases(seed: int) -> list[Case]:
    cases: list[Case] = []
    seeds = w6w_seeds()
    traces = {name: (lambda n=name, d=doc, s=sc: w6w_trace(n, d, s)) for name, doc, sc in seeds}
    for n, (name, doc, scenario) in enumerate(seeds):
        first = doc["steps"][0]["id"]
        for i in range(24):
            rng = random.Random(f"{seed}/w6w-doc/{name}/{i}")
            data, summary, expect = mutate_json(doc, rng)
            command = W6W_COMMANDS[(i + n) % len(W6W_COMMANDS)]
            cases.append(
                w6w_case(
                    f"w6w-doc/{name}/{i:02d}",
                    command,
                    f"{name} document: {summary}",
                    expect,
                    data,
                    scenario,
                    traces[name],
                    first,
                )
            )
        for i in range(10):
            rng = random.Random(f"{seed}/w6w-scenario/{name}/{i}")
            data, summary, expect = mutate_json(scenario, rng)
            command = ["run", "explore", "check"][i % 3]
            case = w6w_case(
                f"w6w-scenario/{name}/{i:02d}",
                command,
                f"{name} scenario: {summary}",
                expect,
                dumps(doc),
                None,
                traces[name],
                first,
                fmt="w6w-scenario",
            )
            cases.append(_with_scenario_bytes(case, data))
    base = seeds[0][1]
    for i, (summary, change) in enumerate(W6W_INVALID):

        def bad(change: Callable[[JSON], JSON] = change) -> bytes:
            return dumps(change(copy.deepcopy(base)))

        for command in ("validate-json", ["plan", "run", "explore"][i % 3]):
            cases.append(
                w6w_case(
                    f"w6w-invalid/{i:02d}-{command}",
                    command,
                    f"invalid w6w document: {summary}",
                    "reject",
                    bad,
                    {},
                    None,
                    "charge",
                )
            )
    for i, (summary, data, expect) in enumerate(NOT_DOCUMENTS):
        for command in (
            ["validate", "plan"][i % 2],
            ["run", "explore", "check", "test-step"][i % 4],
        ):
            cases.append(
                w6w_case(
                    f"w6w-not-a-document/{summary}-{command}",
                    command,
                    f"not a w6w document: {summary}",
                    expect,
                    data,
                    {},
                    lambda: b"[]",
                    "a",
                )
            )
    for i, (summary, doc, scenario, expect) in enumerate(w6w_resource_docs()):
        for command in ("validate-json", "run", "explore"):
            if command == "validate-json" and i % 2:
                continue
            exp = expect if command != "explore" else "any"
            cases.append(
                w6w_case(
                    f"w6w-work/{i:02d}-{command}",
                    command,
                    f"w6w document asking for work: {summary}",
                    exp,
                    lambda doc=doc: dumps(doc),
                    scenario,
                    None,
                    doc["steps"][0]["id"],
                    timeout=60,
                )
            )
    for i, (summary, scenario) in enumerate(W6W_SCENARIO_INVALID):
        name, doc, _ = seeds[i % 2]
        cases.append(
            w6w_case(
                f"w6w-scenario-invalid/{i:02d}",
                ["run", "explore"][i % 2],
                f"{name} with an invalid scenario: {summary}",
                "reject",
                dumps(doc),
                scenario,
                None,
                "a",
                fmt="w6w-scenario",
            )
        )
    for i, (summary, data, expect) in enumerate(NOT_DOCUMENTS[:12]):
        name, doc, _ = seeds[i % len(seeds)]
        case = w6w_case(
            f"w6w-scenario-not-json/{summary}",
            ["run", "explore"][i % 2],
            f"{name} with a scenario that is {summary}",
            expect,
            dumps(doc),
            None,
            None,
            "a",
            fmt="w6w-scenario",
        )
        cases.append(_with_scenario_bytes(case, data))
    cases += w6w_trace_cases(seed, seeds, traces)
    cases += w6w_other_inputs(seeds)
    return cases


def _with_scenario_bytes(case: Case, data: bytes) -> Case:
    inner = case.build

    def build(folder: Path) -> Invocation:
        invocation = inner(folder)
        (folder / "scenario.json").write_bytes(data)
        return invocation

    return Case(
        case.id,
        case.command,
        case.fmt,
        case.summary,
        case.expect,
        build,
        case.output,
        case.timeout,
        case.cheap,
    )


# -- traces ---------------------------------------------------------------------------------


TRACE_KINDS = [
    "json",
    "json",
    "json",
    "drop-last",
    "drop-first",
    "reverse",
    "duplicate",
    "rename",
    "not-object",
    "flood",
    "lines-bad",
    "shape",
]
TRACE_LABELS = {
    "json": ("a structural or textual mutation (any member, any value)", "any"),
    "drop-last": ("the last event dropped", "reject"),
    "drop-first": ("the first event dropped", "reject"),
    "reverse": ("the events reversed", "reject"),
    "duplicate": ("one event twice (a repeated quiet may be permitted)", "any"),
    "rename": ('one event renamed ("", frobnicated, RUN_STARTED or a NUL suffix)', "reject"),
    "not-object": ("one event replaced by null, 1, a string, [] or true", "reject"),
    "flood": ("the first event 100,000 times", "reject"),
    "lines-bad": ("JSON lines with a line that is not JSON", "reject"),
}


def trace_mutations(trace: list[JSON], rng: random.Random) -> tuple[bytes, str, str]:
    """A mutated trace (bytes, summary, expect); "reject" where no model can permit it."""
    kind = rng.choice(TRACE_KINDS)
    if kind == "json":
        return mutate_json(trace, rng)
    if kind == "drop-last":
        return dumps(trace[:-1]), "the last event dropped", "reject"
    if kind == "drop-first":
        return dumps(trace[1:]), "the first event dropped", "reject"
    if kind == "reverse":
        return dumps(trace[::-1]), "the events reversed", "reject"
    if kind == "duplicate":
        at = rng.randrange(len(trace))
        return dumps(trace[: at + 1] + trace[at:]), f"event {at} twice", "any"
    if kind == "rename":
        at = rng.randrange(len(trace))
        changed = copy.deepcopy(trace)
        changed[at]["event"] = rng.choice(["", "frobnicated", "RUN_STARTED", "run_started\u0000"])
        return dumps(changed), f"event {at} renamed", "reject"
    if kind == "not-object":
        at = rng.randrange(len(trace))
        new = rng.choice([None, 1, "event", [], True])
        return dumps([*trace[:at], new, *trace[at + 1 :]]), f"event {at} := {new!r}", "reject"
    if kind == "flood":
        return dumps(trace[:1] * 100_000), "the first event 100,000 times", "reject"
    if kind == "lines-bad":
        lines = [json.dumps(e).encode() for e in trace]
        lines.insert(rng.randrange(len(lines)), b"{not json")
        return b"\n".join(lines), "JSON lines with a line that is not JSON", "reject"
    value = rng.choice(PLAIN_VALUES)
    return dumps({"trace": value, "runState": {}}), _shape_label(value), _shape_expect(value)


def _shape_label(value: JSON) -> str:
    return f"run --json output whose trace is {json.dumps(value)[:40]}"


def _shape_expect(value: JSON) -> str:
    # no hostile value is a finished run's trace: not a list, empty, or not of events
    return "reject"


def w6w_trace_cases(seed: int, seeds: list, traces: dict) -> list[Case]:
    cases = []
    for name, doc, scenario in seeds[:3]:
        for i in range(10):

            def build(folder: Path, name=name, doc=doc, scenario=scenario, i=i) -> Invocation:
                trace = json.loads(traces[name]())["trace"]
                rng = random.Random(f"{seed}/w6w-trace/{name}/{i}")
                data, _, _ = trace_mutations(trace, rng)
                files = {
                    "doc.json": dumps(doc),
                    "scenario.json": dumps(scenario),
                    "trace.json": data,
                }
                return build_with(
                    files,
                    [
                        "check",
                        "doc.json",
                        "--scenario",
                        "scenario.json",
                        "--trace",
                        "trace.json",
                        "--json",
                    ],
                )(folder)

            # the summary and expectation, without the trace (made lazily): a dry run of the rng
            summary, expect = _trace_label(seed, "w6w", name, i)
            cases.append(
                Case(
                    f"w6w-trace/{name}/{i:02d}",
                    "check",
                    "w6w-trace",
                    f"{name} trace: {summary}",
                    expect,
                    build,
                    cheap=False,
                )
            )
    return cases


def _trace_label(seed: int, spec: str, name: str, i: int) -> tuple[str, str]:
    """The label of the trace mutation a case will make: its kind is the rng's first draw."""
    rng = random.Random(f"{seed}/{spec}-trace/{name}/{i}")
    kind = rng.choice(TRACE_KINDS)
    if kind == "shape":
        value = rng.choice(PLAIN_VALUES)
        return _shape_label(value), _shape_expect(value)
    return TRACE_LABELS[kind]


def w6w_other_inputs(seeds: list) -> list[Case]:
    """--previous, --replay, --itf, test-step --state: the w6w commands' other input files."""
    _, doc, scenario = seeds[0]
    cases = []
    others = [
        ("previous", ["validate", "doc.json", "--previous", "other.json", "--json"]),
        (
            "replay",
            ["run", "doc.json", "--scenario", "scenario.json", "--replay", "other.json", "--json"],
        ),
        (
            "replay-from",
            [
                "run",
                "doc.json",
                "--scenario",
                "scenario.json",
                "--replay",
                "other.json",
                "--replay-from",
                "charge",
                "--json",
            ],
        ),
        (
            "test-step-state",
            ["w6w", "test-step", "doc.json", "charge", "--state", "other.json", "--json"],
        ),
    ]
    values = [
        ("not JSON", b"{", "reject"),
        ("NaN", b'{"status": NaN}', "reject"),
        ("a list", b"[1, 2]", "any"),
        ("deep 100,000", nested(100_000).encode(), "reject"),
        (
            "deep 990 under steps",
            ('{"steps": {"charge": {"output": ' + nested(990) + "}}}").encode(),
            "any",
        ),
        ("a RunState with steps a list", b'{"status": "succeeded", "steps": [1]}', "any"),
        (
            "wrong types everywhere",
            json.dumps(
                {"status": [], "steps": {"charge": []}, "vars": 5, "output": {"x": None}}
            ).encode(),
            "any",
        ),
        ("lone surrogate", b'{"vars": {"\\ud800": 1}}', "reject"),
        ("empty", b"", "reject"),
    ]
    for option, args in others:
        for label, data, expect in values:
            if option == "previous" and expect == "any":
                expect = "any"
            files = {"doc.json": dumps(doc), "scenario.json": dumps(scenario), "other.json": data}
            command = "w6w test-step" if option == "test-step-state" else args[0]
            cases.append(
                Case(
                    f"w6w-{option}/{label}",
                    command,
                    "w6w-json",
                    f"{option} file: {label}",
                    expect,
                    build_with(files, args),
                )
            )
    for label, path in [
        ("a folder", "folder/"),
        ("a missing file", "missing.json"),
        ("/dev/null", "/dev/null"),
    ]:
        args = ["run", "doc.json", "--scenario", "scenario.json", "--itf", path]
        files = {"doc.json": dumps(doc), "scenario.json": dumps(scenario), "folder/x": b""}
        expect = "reject" if label == "a folder" else "any"
        if label == "a missing file":
            args[-1] = "no/such/dir/itf.json"
            expect = "reject"
        cases.append(
            Case(
                f"w6w-itf/{label}",
                "run",
                "w6w-json",
                f"--itf to {label}",
                expect,
                build_with(files, args),
            )
        )
    return cases


# -- Harness --------------------------------------------------------------------------------


def _xml(body: str, root: str = '<harness id="h">') -> str:
    return f"{root}{body}</harness>"


HX_NODE = '<node id="a" impl="i"/><node id="b" impl="i"/><edge from="a" to="b"/>'

HARNESS_HOSTILE: list[tuple[str, bytes | str, str]] = [
    ("a billion-laughs entity bomb", xml_bomb(), "reject"),
    (
        "an external entity (XXE) reading /etc/passwd",
        '<?xml version="1.0"?><!DOCTYPE harness [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        '<harness id="h"><node id="a" impl="&x;"/></harness>',
        "reject",
    ),
    (
        "an external DTD",
        '<?xml version="1.0"?><!DOCTYPE harness SYSTEM "http://example.invalid/h.dtd">'
        + _xml(HX_NODE),
        "reject",
    ),
    (
        "a parameter entity",
        '<?xml version="1.0"?><!DOCTYPE harness [<!ENTITY % p "<!ENTITY y \'z\'>"> %p;]>'
        + _xml(HX_NODE),
        "reject",
    ),
    ("an internal DTD without entities", "<!DOCTYPE harness []>" + _xml(HX_NODE), "reject"),
    (
        "elements nested 100,000 deep",
        '<harness id="h">'
        + '<loop id="l" over="params.x">' * 100_000
        + "</loop>" * 100_000
        + "</harness>",
        "reject",
    ),
    (
        "loops nested 17 deep",
        '<harness id="h">'
        + "".join(f'<loop id="l{i}" over="params.x">' for i in range(17))
        + '<node id="n" impl="i"/>'
        + "</loop>" * 17
        + "</harness>",
        "reject",
    ),
    ("a document over 4 MiB", _xml(HX_NODE + "<!--" + "x" * (4 << 20) + "-->"), "reject"),
    ("empty", "", "reject"),
    ("whitespace", "  \n ", "reject"),
    ("unclosed root", '<harness id="h"><node id="a" impl="i"/>', "reject"),
    ("a wrong root", "<workflow id='h'/>", "reject"),
    ("a default namespace", '<harness xmlns="urn:x" id="h">' + HX_NODE + "</harness>", "reject"),
    ("a prefixed root", '<h:harness xmlns:h="urn:h" id="h">' + HX_NODE + "</h:harness>", "reject"),
    ("two roots", _xml(HX_NODE) + _xml(HX_NODE), "reject"),
    ("duplicate ids", _xml('<node id="a" impl="i"/><node id="a" impl="i"/>'), "reject"),
    ("a dangling edge", _xml('<node id="a" impl="i"/><edge from="a" to="ghost"/>'), "reject"),
    ("a cycle", _xml(HX_NODE + '<edge from="b" to="a"/>'), "reject"),
    ("an unknown element", _xml(HX_NODE + "<script>alert(1)</script>"), "reject"),
    ("a node without id", _xml('<node impl="i"/>'), "reject"),
    (
        "joinPolicy some",
        _xml(
            '<node id="a" impl="i"/><node id="b" impl="i" joinPolicy="some"/>'
            '<edge from="a" to="b"/>'
        ),
        "reject",
    ),
    (
        "quorum 0",
        _xml(
            '<node id="a" impl="i"/><node id="b" impl="i" joinPolicy="quorum" '
            'quorum="0"/><edge from="a" to="b"/>'
        ),
        "reject",
    ),
    (
        "quorum 1e999",
        _xml(
            '<node id="a" impl="i"/><node id="b" impl="i" joinPolicy="quorum" '
            'quorum="1e999"/><edge from="a" to="b"/>'
        ),
        "reject",
    ),
    (
        "quorum a 30-digit integer",
        _xml(
            '<node id="a" impl="i"/><node id="b" impl="i" '
            'joinPolicy="quorum" quorum="' + "9" * 30 + '"/>'
            '<edge from="a" to="b"/>'
        ),
        "reject",
    ),
    (
        "quorum a 5,000-digit integer",
        _xml(
            '<node id="a" impl="i"/><node id="b" impl="i" '
            'joinPolicy="quorum" quorum="' + "9" * 5000 + '"/>'
            '<edge from="a" to="b"/>'
        ),
        "reject",
    ),
    (
        "quorum NaN",
        _xml(
            '<node id="a" impl="i"/><node id="b" impl="i" joinPolicy="quorum" '
            'quorum="NaN"/><edge from="a" to="b"/>'
        ),
        "reject",
    ),
    (
        "a guard that does not parse",
        _xml('<node id="a" impl="i"><guard>params.x &gt;</guard></node>'),
        "reject",
    ),
    (
        "a guard of 1,000 nested parentheses",
        _xml(
            '<node id="a" impl="i"><guard>' + "(" * 1000 + "true" + ")" * 1000 + "</guard></node>"
        ),
        "any",
    ),
    (
        "a guard of 20,000 nested parentheses",
        _xml(
            '<node id="a" impl="i"><guard>' + "(" * 20000 + "true" + ")" * 20000 + "</guard></node>"
        ),
        "any",
    ),
    (
        "a guard of 3,000 nots",
        _xml('<node id="a" impl="i"><guard>' + "not " * 3000 + "true</guard></node>"),
        "any",
    ),
    (
        "a guard of 5,000 ands",
        _xml(
            '<node id="a" impl="i"><guard>'
            + " and ".join(f"params.p{i} == {i}" for i in range(5000))
            + "</guard></node>"
        ),
        "any",
    ),
    (
        "a guard with a 5,000-digit number",
        _xml('<node id="a" impl="i"><guard>params.x &gt; ' + "9" * 5000 + "</guard></node>"),
        "any",
    ),
    (
        "a guard with 1e999",
        _xml('<node id="a" impl="i"><guard>params.x &lt; 1e999</guard></node>'),
        "any",
    ),
    (
        "a guard comparing a string with a number",
        _xml('<node id="a" impl="i"><guard>"a" &lt; 1</guard></node>'),
        "any",
    ),
    (
        "an input value NaN",
        _xml('<node id="a" impl="i"><input name="x" value="NaN"/></node>'),
        "reject",
    ),
    (
        "an input value 1e400",
        _xml('<node id="a" impl="i"><input name="x" value="1e400"/></node>'),
        "reject",
    ),
    (
        "an input default Infinity",
        _xml('<node id="a" impl="i"><input name="x" default="Infinity"/></node>'),
        "reject",
    ),
    (
        "an input value nested 990 deep",
        _xml('<node id="a" impl="i"><input name="x" value="' + nested(990) + '"/></node>'),
        "any",
    ),
    (
        "an input value nested 100,000 deep",
        _xml('<node id="a" impl="i"><input name="x" value="' + nested(100_000) + '"/></node>'),
        "any",
    ),
    (
        "an input value with a lone surrogate escape",
        _xml('<node id="a" impl="i"><input name="x" value="&quot;\\ud800&quot;"/></node>'),
        "any",
    ),
    ("a character reference to NUL", _xml('<node id="a" impl="&#0;"/>'), "reject"),
    ("a character reference to a surrogate", _xml('<node id="a" impl="&#xD800;"/>'), "reject"),
    (
        "declared UTF-16, written UTF-8",
        '<?xml version="1.0" encoding="UTF-16"?>' + _xml(HX_NODE),
        "reject",
    ),
    (
        "UTF-16 with a byte order mark",
        ('<?xml version="1.0" encoding="UTF-16"?>' + _xml(HX_NODE)).encode("utf-16"),
        "any",
    ),
    (
        "latin-1 declared, an é in an id",
        ('<?xml version="1.0" encoding="ISO-8859-1"?>' + _xml('<node id="\xe9" impl="i"/>')).encode(
            "latin-1"
        ),
        "any",
    ),
    (
        "bytes that are not UTF-8",
        _xml(HX_NODE).encode().replace(b'impl="i"', b'impl="\xff"', 1),
        "reject",
    ),
    ("a processing instruction", '<?php system("id"); ?>' + _xml(HX_NODE), "any"),
    ("a comment only", "<!-- nothing -->", "reject"),
    (
        "a CDATA guard",
        _xml('<node id="a" impl="i"><guard><![CDATA[params.x < 1]]></guard></node>'),
        "any",
    ),
    ("entry names no node", '<harness id="h" entry="ghost">' + HX_NODE + "</harness>", "reject"),
    ("a 1 MiB attribute", _xml('<node id="a" impl="' + "i" * (1 << 20) + '"/>'), "any"),
    ("maxAttempts 0", _xml('<node id="a" impl="i"><retry maxAttempts="0"/></node>'), "any"),
    ("maxAttempts -1", _xml('<node id="a" impl="i"><retry maxAttempts="-1"/></node>'), "any"),
    ("timeout ms -5", _xml('<node id="a" impl="i"><timeout ms="-5"/></node>'), "any"),
    (
        "maxConcurrency 0",
        _xml(
            '<node id="s" impl="i"/><loop id="l" over="params.x" '
            'maxConcurrency="0"><node id="w" impl="i"/></loop>'
            '<edge from="s" to="l"/>'
        ),
        "any",
    ),
    (
        "a data edge to a port that is no input",
        _xml(
            '<node id="a" impl="i"><output name="y"/></node><node id="b" impl="i"/>'
            '<edge from="a" to="b" type="data" fromPort="y" toPort="nope"/>'
        ),
        "reject",
    ),
    (
        "an edge type that is none of five",
        _xml(HX_NODE.replace('<edge from="a" to="b"/>', '<edge from="a" to="b" type="teleport"/>')),
        "reject",
    ),
    (
        "a decision without cases",
        _xml('<node id="a" impl="i"/><decision id="d"/><edge from="a" to="d"/>'),
        "reject",
    ),
]


def harness_resource_docs() -> list[tuple[str, str, JSON]]:
    chain = "".join(f'<node id="n{i}" impl="i"/>' for i in range(2000)) + "".join(
        f'<edge from="n{i}" to="n{i + 1}"/>' for i in range(1999)
    )
    fan = (
        '<node id="r" impl="i"/>'
        + "".join(
            f'<node id="b{i}" impl="i"/><edge from="r" to="b{i}"/><edge from="b{i}" to="j"/>'
            for i in range(12)
        )
        + '<node id="j" impl="i" joinPolicy="any"/>'
    )
    quorum = (
        '<node id="r" impl="i"/>'
        + "".join(
            f'<node id="b{i}" impl="i"/><edge from="r" to="b{i}"/>'
            f'<edge from="b{i}" to="j" condition="params.p{i} == true"/>'
            for i in range(400)
        )
        + '<node id="j" impl="i" joinPolicy="quorum" quorum="200"/>'
    )
    dense = "".join(f'<node id="n{i}" impl="i"/>' for i in range(150)) + "".join(
        f'<edge from="n{i}" to="n{j}"/>' for i in range(150) for j in range(i + 1, 150)
    )
    loop = (
        '<node id="s" impl="i"/><loop id="l" over="params.items"><node id="w" impl="i"/>'
        '</loop><edge from="s" to="l"/>'
    )
    retry = '<node id="a" impl="i"><retry maxAttempts="1000000000"/></node>'
    return [
        ("a chain of 2,000 nodes", _xml(chain), {}),
        ("12 branches into an any join", _xml(fan), {}),
        ("a quorum of 200 over 400 conditional edges (z3)", _xml(quorum), {}),
        ("150 nodes, every forward edge (11,175 edges)", _xml(dense), {}),
        ("a loop over 100,000 items", _xml(loop), {"params": {"items": list(range(100_000))}}),
        (
            "a loop over 13 items, no maxConcurrency",
            _xml(loop),
            {
                "params": {"items": list(range(13))},
                "nodes": {"w": {"attempts": [{"error": {"code": "x"}}]}},
            },
        ),
        (
            "maxAttempts 1,000,000,000, every attempt failing",
            _xml(retry),
            {"nodes": {"a": {"attempts": [{"error": {"code": "t"}}]}}},
        ),
    ]


HARNESS_SCENARIO_INVALID: list[tuple[str, JSON]] = [
    ("the scenario is a list", []),
    ("nodes is a list", {"nodes": []}),
    ("attempts is an object", {"nodes": {"measure": {"attempts": {}}}}),
    ("a failingResources entry a number", {"failingResources": [1]}),
    ("failingResources a string", {"failingResources": "db"}),
    ("params a list", {"params": [1]}),
    ("an attempt neither outputs nor error", {"nodes": {"measure": {"attempts": [{"x": 1}]}}}),
]


def xml_readable(data: bytes) -> bool:
    """Well-formed XML (what any XML reader must refuse otherwise)."""
    try:
        ET.fromstring(data)
    except ET.ParseError:
        return False
    return True


def yaml_readable(data: bytes) -> bool:
    """YAML PyYAML's safe loader reads (wforacle's reader is stricter, never laxer)."""
    import yaml

    try:
        yaml.safe_load(data)
    except (yaml.YAMLError, ValueError, RecursionError):
        return False
    return True


def mutate_xml(text: str, rng: random.Random) -> tuple[bytes, str, str]:
    root = ET.fromstring(text)
    elements = list(root.iter())
    element = rng.choice(elements)
    kind = rng.choice(
        [
            "attr",
            "attr",
            "attr",
            "drop-attr",
            "add-attr",
            "rename",
            "child",
            "text",
            "drop",
            "textual",
        ]
    )
    if kind in ("attr", "drop-attr") and not element.attrib:
        kind = "add-attr"
    if kind == "attr":
        name = rng.choice(sorted(element.attrib))
        value = rng.choice(
            [
                "",
                " ",
                "-1",
                "0",
                "1e999",
                "NaN",
                "9" * 40,
                "9" * 5000,
                "true",
                "null",
                "params.x",
                "((((",
                "a b c",
                "x" * 10_000,
                "\u202e",
                "💥",
                "params.",
                "..",
                "{{ x }}",
                "any",
                "quorum",
                "all",
                "error",
                "compensation",
                "data",
                "[1, 2]",
                '{"a": NaN}',
                nested(900),
                "\\ud800",
            ]
        )
        element.set(name, value)
        summary = f"<{element.tag} {name}={value[:30]!r}>"
    elif kind == "drop-attr":
        name = rng.choice(sorted(element.attrib))
        del element.attrib[name]
        summary = f"<{element.tag}> without {name}"
    elif kind == "add-attr":
        name = rng.choice(
            [
                "joinPolicy",
                "quorum",
                "idempotent",
                "entry",
                "type",
                "when",
                "condition",
                "x-extra",
                "resourceRef",
                "maxConcurrency",
                "over",
            ]
        )
        element.set(name, rng.choice(["quorum", "2", "false", "ghost", "error", "nope"]))
        summary = f"<{element.tag}> gets {name}"
    elif kind == "rename":
        new = rng.choice(
            [
                "node",
                "decision",
                "loop",
                "edge",
                "case",
                "guard",
                "input",
                "output",
                "timeout",
                "retry",
                "harness",
                "bogus",
            ]
        )
        summary = f"<{element.tag}> renamed <{new}>"
        element.tag = new
    elif kind == "child":
        tag = rng.choice(["node", "edge", "guard", "input", "retry", "case", "loop", "harness"])
        ET.SubElement(
            element,
            tag,
            {"id": "extra", "impl": "i", "from": "a", "to": "b", "name": "x", "maxAttempts": "3"},
        )
        summary = f"<{element.tag}> gets a <{tag}> child"
    elif kind == "text":
        element.text = rng.choice(["params.x > 1", "\u0000", "x" * 1000, "&amp;", "true"])
        summary = f"<{element.tag}> gets text"
    elif kind == "drop":
        parent = next((p for p in elements if element in list(p)), None)
        if parent is None:
            return text_mutation(text.encode(), rng, xml_readable)
        parent.remove(element)
        summary = f"<{element.tag} id={element.get('id')!r}> removed"
    else:
        return text_mutation(text.encode(), rng, xml_readable)
    try:
        data = ET.tostring(root, encoding="unicode").encode("utf-8", "surrogatepass")
    except ValueError:
        data = text.encode()
    return data, summary, "any"


HX_COMMANDS = ["validate", "validate-json", "plan", "run", "explore", "check"]


def hx_args(command: str) -> list[str]:
    return {
        "validate": ["validate", "doc.xml"],
        "validate-json": ["validate", "doc.xml", "--json"],
        "plan": ["plan", "doc.xml", "--json"],
        "run": ["run", "doc.xml", "--scenario", "scenario.json", "--json"],
        "explore": [
            "explore",
            "doc.xml",
            "--scenario",
            "scenario.json",
            "--json",
            "--time-budget",
            "4",
            "--max-states",
            "20000",
        ],
        "check": [
            "check",
            "doc.xml",
            "--scenario",
            "scenario.json",
            "--trace",
            "trace.json",
            "--json",
        ],
    }[command]


def hx_case(
    cid: str,
    command: str,
    summary: str,
    expect: str,
    doc: bytes,
    scenario: bytes | Callable[[], bytes],
    trace: Callable[[], bytes] | None,
    fmt: str = "harness-xml",
    timeout: float = 40.0,
) -> Case:
    def build(folder: Path) -> Invocation:
        files = {"doc.xml": doc, "scenario.json": scenario() if callable(scenario) else scenario}
        if command == "check":
            files["trace.json"] = trace() if trace is not None else b"[]"
        return build_with(files, hx_args(command))(folder)

    return Case(
        cid,
        command.split("-")[0],
        fmt,
        summary,
        expect,
        build,
        timeout=timeout,
        cheap=command in ("validate", "validate-json", "plan"),
    )


def harness_cases(seed: int) -> list[Case]:
    cases: list[Case] = []
    seeds = harness_seeds()

    def trace_of(name: str, text: str, scenario: JSON) -> Callable[[], bytes]:
        return lambda: reference_run(
            f"hx-{name}",
            ["doc.xml", "--scenario", "scenario.json"],
            {"doc.xml": text.encode(), "scenario.json": dumps(scenario)},
        )

    for k, (name, text, scenario) in enumerate(seeds):
        trace = trace_of(name, text, scenario)
        for i in range(16):
            rng = random.Random(f"{seed}/hx-doc/{name}/{i}")
            data, summary, expect = mutate_xml(text, rng)
            command = HX_COMMANDS[(i + k) % len(HX_COMMANDS)]
            cases.append(
                hx_case(
                    f"harness-doc/{name}/{i:02d}",
                    command,
                    f"{name}.xml: {summary}",
                    expect,
                    data,
                    dumps(scenario),
                    trace,
                )
            )
        for i in range(6):
            rng = random.Random(f"{seed}/hx-scenario/{name}/{i}")
            data, summary, expect = mutate_json(scenario or {"params": {}}, rng)
            cases.append(
                hx_case(
                    f"harness-scenario/{name}/{i:02d}",
                    ["run", "explore", "check"][i % 3],
                    f"{name} scenario: {summary}",
                    expect,
                    text.encode(),
                    data,
                    trace,
                    fmt="harness-scenario",
                )
            )
        for i in range(6):

            def build(
                folder: Path, name=name, text=text, scenario=scenario, i=i, trace=trace
            ) -> Invocation:
                events = json.loads(trace())["trace"]
                data, _, _ = trace_mutations(events, random.Random(f"{seed}/hx-trace/{name}/{i}"))
                return build_with(
                    {
                        "doc.xml": text.encode(),
                        "scenario.json": dumps(scenario),
                        "trace.json": data,
                    },
                    hx_args("check"),
                )(folder)

            summary, expect = _trace_label(seed, "hx", name, i)
            cases.append(
                Case(
                    f"harness-trace/{name}/{i:02d}",
                    "check",
                    "harness-trace",
                    f"{name} trace: {summary}",
                    expect,
                    build,
                    cheap=False,
                )
            )
    for i, (summary, text, expect) in enumerate(HARNESS_HOSTILE):
        data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
        for command in (["validate-json", "validate"][i % 2], ["plan", "run", "explore"][i % 3]):
            cases.append(
                hx_case(
                    f"harness-hostile/{i:02d}-{command}",
                    command,
                    f"Harness document: {summary}",
                    expect,
                    data,
                    b"{}",
                    None,
                )
            )
    for i, (summary, text, scenario) in enumerate(harness_resource_docs()):
        for command in ("validate-json", "run", "explore"):
            cases.append(
                hx_case(
                    f"harness-work/{i:02d}-{command}",
                    command,
                    f"Harness document asking for work: {summary}",
                    "any",
                    text.encode(),
                    lambda scenario=scenario: dumps(scenario),
                    None,
                    timeout=60,
                )
            )
    for i, (summary, scenario) in enumerate(HARNESS_SCENARIO_INVALID):
        name, text, _ = seeds[0]
        cases.append(
            hx_case(
                f"harness-scenario-invalid/{i:02d}",
                ["run", "explore"][i % 2],
                f"{name} with an invalid scenario: {summary}",
                "reject",
                text.encode(),
                dumps(scenario),
                None,
                fmt="harness-scenario",
            )
        )
    for i, (summary, data, expect) in enumerate(NOT_DOCUMENTS[:8]):
        name, text, _ = seeds[i % len(seeds)]
        cases.append(
            hx_case(
                f"harness-scenario-not-json/{summary}",
                ["run", "explore"][i % 2],
                f"{name} with a scenario that is {summary}",
                expect,
                text.encode(),
                data,
                None,
                fmt="harness-scenario",
            )
        )
    return cases


# -- Workfile ---------------------------------------------------------------------------------

WF_STEPS = "steps:\n  - a: { svc.get: { n: 1 } }\n"

WORKFILE_HOSTILE: list[tuple[str, bytes | str, str]] = [
    ("an alias bomb (9 levels of 9)", yaml_bomb(), "reject"),
    ("an alias bomb (4 levels, small)", yaml_bomb(4), "any"),
    ("flow sequences nested 100,000 deep", "steps: " + nested(100_000, "1") + "\n", "reject"),
    (
        "block mappings nested 70 deep",
        "steps:\n  - a:\n      svc.get:\n"
        + "".join("  " * (i + 4) + f"k{i}:\n" for i in range(70))
        + "  " * 74
        + "1\n",
        "reject",
    ),
    ("a document over 4 MiB", WF_STEPS + "# " + "x" * (4 << 20) + "\n", "reject"),
    (
        "a python/object tag",
        "steps:\n  - a: !!python/object/apply:os.system ['touch pwned']\n",
        "reject",
    ),
    ("a custom tag", "steps:\n  - a: !foo { svc.get: {} }\n", "reject"),
    ("a binary tag", "steps:\n  - a: { svc.get: { n: !!binary aGVsbG8= } }\n", "any"),
    ("a set", "steps:\n  - a: { svc.get: { n: !!set { x, y } } }\n", "any"),
    ("a timestamp tag", "steps:\n  - a: { svc.get: { n: !!timestamp 2001-12-14 } }\n", "any"),
    ("a duplicate key", "steps:\n  - a: { svc.get: {} }\nsteps: []\n", "reject"),
    ("a complex key", "? [a, b]\n: c\n" + WF_STEPS, "reject"),
    ("a null key", "~: 1\n" + WF_STEPS, "reject"),
    ("an integer key", "1: 2\n" + WF_STEPS, "reject"),
    ("two documents", WF_STEPS + "---\n" + WF_STEPS, "any"),
    ("empty", "", "reject"),
    ("a comment only", "# nothing\n", "reject"),
    ("a scalar", "hello\n", "reject"),
    ("a list", "- a\n- b\n", "reject"),
    ("bytes that are not UTF-8", b'steps:\n  - a: { svc.get: { n: "\xff\xfe" } }\n', "reject"),
    ("a byte order mark", b"\xef\xbb\xbf" + WF_STEPS.encode(), "any"),
    ("UTF-16", WF_STEPS.encode("utf-16"), "any"),
    ("a raw NUL", 'steps:\n  - a: { svc.get: { n: "a\x00b" } }\n', "reject"),
    ("tab indentation", "steps:\n\t- a: { svc.get: {} }\n", "reject"),
    ("an anchor and merge key", "base: &b { svc.get: {} }\nsteps:\n  - a: { <<: *b }\n", "reject"),
    (".nan and .inf as arguments", "steps:\n  - a: { svc.get: { x: .nan, y: -.inf } }\n", "any"),
    ("1e400 as an argument", "steps:\n  - a: { svc.get: { x: 1e400 } }\n", "any"),
    (
        "a 5,000-digit integer argument",
        "steps:\n  - a: { svc.get: { x: " + "9" * 5000 + " } }\n",
        "any",
    ),
    (
        "a 5,000-digit retry attempts",
        "steps:\n  - a: { svc.get: {}, retry: { attempts: " + "9" * 5000 + " } }\n",
        "any",
    ),
    ("attempts .inf", "steps:\n  - a: { svc.get: {}, retry: { attempts: .inf } }\n", "reject"),
    ("a lone surrogate escape", 'steps:\n  - a: { svc.get: { x: "\\ud800" } }\n', "any"),
    ("a NUL escape", 'steps:\n  - a: { svc.get: { x: "\\x00" } }\n', "any"),
    (
        "a lone surrogate in an output",
        'steps:\n  - a: { svc.get: {} }\noutputs:\n  x: "\\udfff"\n',
        "any",
    ),
    (
        "an expression that does not parse",
        'steps:\n  - a: { svc.get: { x: "{{ ( }}" } }\n',
        "reject",
    ),
    ("an empty marker", 'steps:\n  - a: { svc.get: { x: "{{ }}" } }\n', "reject"),
    (
        "an expression of 1,000 nested parentheses",
        'steps:\n  - a: { svc.get: { x: "{{ ' + "(" * 1000 + "1" + ")" * 1000 + ' }}" } }\n',
        "any",
    ),
    (
        "an expression of 30,000 nested parentheses",
        'steps:\n  - a: { svc.get: { x: "{{ ' + "(" * 30000 + "1" + ")" * 30000 + ' }}" } }\n',
        "any",
    ),
    (
        "an expression of 3,000 minus signs",
        'steps:\n  - a: { svc.get: { x: "{{ ' + "-" * 3000 + "1" + ' }}" } }\n',
        "any",
    ),
    (
        "an expression of 3,000 nots",
        'steps:\n  - a: { svc.get: { x: "{{ ' + "not " * 3000 + "true" + ' }}" } }\n',
        "any",
    ),
    (
        "a sum of 20,000 terms",
        'steps:\n  - a: { svc.get: { x: "{{ ' + " + ".join(["1"] * 20000) + ' }}" } }\n',
        "any",
    ),
    (
        "a list literal nested 2,000 deep",
        'steps:\n  - a: { svc.get: { x: "{{ ' + nested(2000, "1") + ' }}" } }\n',
        "any",
    ),
    (
        "1e400 in an expression",
        'steps:\n  - a: { svc.get: {} }\noutputs:\n  x: "{{ 1e400 }}"\n',
        "any",
    ),
    (
        "1e308 * 10 in an output",
        'steps:\n  - a: { svc.get: {} }\noutputs:\n  x: "{{ 1e308 * 10 }}"\n',
        "any",
    ),
    (
        "two 4,000-digit integers multiplied in an output",
        'steps:\n  - a: { svc.get: {} }\noutputs:\n  x: "{{ '
        + "9" * 4000
        + " * "
        + "9" * 4000
        + ' }}"\n',
        "any",
    ),
    (
        "a 5,000-digit integer literal in an output",
        'steps:\n  - a: { svc.get: {} }\noutputs:\n  x: "{{ ' + "9" * 5000 + ' }}"\n',
        "any",
    ),
    (
        "a string escape with a lone surrogate in an expression",
        "steps:\n  - a: { svc.get: {} }\noutputs:\n  x: '{{ \"\\ud800\" }}'\n",
        "any",
    ),
    ("an unknown construct", "steps:\n  - a: { wf.nope: {} }\n", "reject"),
    ("wf.agent", "steps:\n  - a: { wf.agent: { goal: x } }\n", "reject"),
    ("an unknown top-level key", "steps:\n  - a: { svc.get: {} }\nbogus: 1\n", "reject"),
    ("a step named error", "steps:\n  - error: { svc.get: {} }\n", "reject"),
    ("duplicate step ids", "steps:\n  - a: { svc.get: {} }\n  - a: { svc.get: {} }\n", "reject"),
    (
        "a reference to a later step",
        'steps:\n  - a: { svc.get: { x: "{{ b.id }}" } }\n  - b: { svc.get: {} }\n',
        "reject",
    ),
    ("on_fail explode", "steps:\n  - a: { svc.get: {}, on_fail: explode }\n", "reject"),
    ("a duration of 5 parsecs", "steps:\n  - a: { svc.get: {}, timeout: 5 parsecs }\n", "reject"),
    (
        "a duration of 10^30 hours",
        "steps:\n  - a: { svc.get: {}, timeout: " + "9" * 30 + "h }\n",
        "any",
    ),
    (
        "a retry without initial",
        "steps:\n  - a: { svc.get: {}, retry: { policy: exponential } }\n",
        "reject",
    ),
    (
        "catch on wf.for_each",
        "steps:\n  - a:\n      wf.for_each: { items: [1], steps: "
        "[ { b: { svc.get: {} } } ] }\n      catch: { x: { steps: [] } }\n",
        "reject",
    ),
    ("a step with two bodies", "steps:\n  - a: { svc.get: {}, svc.put: {} }\n", "reject"),
    ("a step with no body", "steps:\n  - a: { when: true }\n", "reject"),
    ("steps a mapping", "steps: { a: { svc.get: {} } }\n", "reject"),
    ("a step id with a dot", "steps:\n  - a.b: { svc.get: {} }\n", "reject"),
    (
        "a step id of 100,000 characters",
        "steps:\n  - " + "a" * 100_000 + ": { svc.get: {} }\n",
        "any",
    ),
    ("inputs with an unknown type", "inputs: { x: { type: quaternion } }\n" + WF_STEPS, "reject"),
    (
        "states and steps together",
        "initial: a\nstates: { a: { final: true } }\n" + WF_STEPS,
        "reject",
    ),
    ("recovery in a state", "initial: a\nstates:\n  a: { final: true, recovery: {} }\n", "reject"),
    (
        "final: false",
        "initial: a\nstates:\n  a: { final: false, goto: b }\n  b: { final: true }\n",
        "reject",
    ),
    ("initial names no state", "initial: ghost\nstates:\n  a: { final: true }\n", "reject"),
    (
        "no final state reachable",
        "initial: a\nstates:\n  a: { goto: b }\n  b: { goto: c }\n"
        "  c: { steps: [ { s: { svc.get: {} } } ], on: { e: { event: svc.sig, match: { r: x }, "
        "goto: c } } }\n",
        "reject",
    ),
    (
        "an immediate cycle",
        "initial: a\nstates:\n  a: { goto: b }\n  b: { goto: a }\n  c: { final: true }\n",
        "reject",
    ),
    (
        "the initial state accepts values",
        "initial: a\nstates:\n  a: { accepts: { x: { type: "
        "string } }, goto: b }\n  b: { final: true }\n",
        "reject",
    ),
    (
        "after that is no duration",
        "initial: a\nstates:\n  a: { timeout: { after: soon, goto: b } }\n  b: { final: true }\n",
        "reject",
    ),
    (
        "after 2026-13-45T99:99:99Z",
        "initial: a\nstates:\n  a: { timeout: { after: "
        "'2026-13-45T99:99:99Z', goto: b } }\n  b: { final: true }\n",
        "reject",
    ),
    (
        "after 10^25 hours",
        "initial: a\nstates:\n  a: { timeout: { after: "
        + "9" * 25
        + "h, goto: b } }\n  b: { final: true }\n",
        "any",
    ),
    (
        "after year 9999",
        "initial: a\nstates:\n  a: { timeout: { after: '9999-12-31T23:59:59Z', "
        "goto: b } }\n  b: { final: true }\n",
        "any",
    ),
    (
        "after year 0001",
        "initial: a\nstates:\n  a: { timeout: { after: '0001-01-01T00:00:00Z', "
        "goto: b } }\n  b: { final: true }\n",
        "any",
    ),
    (
        "after an offset of +25:00",
        "initial: a\nstates:\n  a: { timeout: { after: "
        "'2026-01-01T00:00:00+25:00', goto: b } }\n  b: { final: true }\n",
        "reject",
    ),
    (
        "after from an input that is a huge year",
        "inputs: { t: { type: string, default: "
        "'99999-01-01T00:00:00Z' } }\ninitial: a\nstates:\n  a:"
        " { timeout: { after: '{{ inputs.t }}', "
        "goto: b } }\n  b: { final: true }\n",
        "any",
    ),
    (
        "5,000 states in an immediate chain",
        "initial: s0\nstates:\n"
        + "".join(f"  s{i}: {{ goto: s{i + 1} }}\n" for i in range(5000))
        + "  s5000: { final: true }\n",
        "any",
    ),
    (
        "a routed transition without else",
        "initial: a\nstates:\n  a: { route: x, cases: { x: { goto: b } } }\n  b: { final: true }\n",
        "reject",
    ),
]


def workfile_resource_docs() -> list[tuple[str, str, JSON]]:
    return [
        (
            "retry attempts 1,000,000,000, every attempt retryable",
            "steps:\n  - a: { svc.get: {}, retry: { attempts: 1000000000 } }\n",
            {"attempts": {"a": [{"error": "svc.busy"}]}},
        ),
        (
            "exponential retry, max 10^20 hours",
            "steps:\n  - a: { svc.get: {}, retry: { attempts: 60,"
            " policy: exponential, initial: 1ms, "
            "max: " + "9" * 20 + "h } }\n",
            {"attempts": {"a": [{"error": "svc.busy"}]}},
        ),
        (
            "wf.repeat 1,000,000,000 times",
            "steps:\n  - r:\n      wf.repeat:\n        max_iterations: 1000000000\n"
            '        until: "{{ false }}"\n        steps: [ { t: { svc.get: {} } } ]\n',
            {},
        ),
        (
            "wf.for_each over 100,000 inputs, concurrency 10^18",
            "inputs: { xs: { type: array } }\nsteps:\n  - e:\n      wf.for_each:\n"
            '        items: "{{ inputs.xs }}"\n        concurrency: 1000000000000000000\n'
            "        steps: [ { t: { svc.get: {} } } ]\n",
            {"inputs": {"xs": list(range(100_000))}},
        ),
        (
            "wf.parallel of 14 branches",
            "steps:\n  - p:\n      wf.parallel:\n        branches:\n"
            + "".join(f"          b{i}: [ {{ s{i}: {{ svc.get: {{}} }} }} ]\n" for i in range(14)),
            {},
        ),
        ("wf.wait for 10^30 hours", "steps:\n  - w: { wf.wait: { for: " + "9" * 30 + "h } }\n", {}),
        (
            "a join of 100,000 strings in an output",
            "inputs: { xs: { type: array } }\nsteps:\n  - a: { svc.get: {} }\noutputs:\n"
            "  x: \"{{ inputs.xs | join(',') }}\"\n",
            {"inputs": {"xs": ["ab"] * 100_000}},
        ),
        (
            "a retry honouring a retryAfterMs of 10^300",
            "steps:\n  - a: { svc.get: {}, retry: { attempts: 3,"
            " honor_retry_after: true, policy: fixed,"
            " initial: 1s } }\n",
            {"attempts": {"a": [{"error": "svc.busy", "retryAfterMs": 10**300}]}},
        ),
    ]


WORKFILE_SCENARIO_INVALID: list[tuple[str, JSON]] = [
    ("the scenario is a list", []),
    ("attempts is a list", {"attempts": []}),
    ("a step's attempts an object", {"attempts": {"account": {}}}),
    ("an attempt result {}", {"attempts": {"account": [{}]}}),
    ("cancel 0", {"cancel": 0}),
    ("cancel -1", {"cancel": -1}),
    ('cancel "1"', {"cancel": "1"}),
    ("cancel 1.5", {"cancel": 1.5}),
    ('dryRun "yes"', {"dryRun": "yes"}),
    ("inputs a list", {"inputs": [1]}),
    ("expire with K 0", {"expire": {"account": 0}}),
    ("cancel and expire at the same K", {"cancel": 2, "expire": {"account": 2}}),
    ("an event wait 0", {"events": [{"wait": 0, "at": 0}]}),
    ("an event at -1", {"events": [{"wait": 1, "at": -1}]}),
    ("events going back in time", {"events": [{"wait": 1, "at": 5}, {"wait": 2, "at": 1}]}),
    ("an event without its payload", {"events": [{"wait": 1, "at": 0, "event": "chat.decision"}]}),
    ("an event at 1.5", {"events": [{"wait": 1, "at": 1.5}]}),
    ("events an object", {"events": {"wait": 1}}),
]


def wf_args(command: str, doc: str = "doc.workfile.yaml") -> list[str]:
    common = ["--manifests", "manifests"]
    return {
        "validate": ["validate", doc, *common],
        "validate-json": ["validate", doc, *common, "--json"],
        "validate-bare": ["validate", "--spec", "workfile", doc, "--json"],
        "run": ["run", doc, *common, "--scenario", "scenario.json", "--json"],
        "explore": [
            "explore",
            doc,
            *common,
            "--scenario",
            "scenario.json",
            "--json",
            "--time-budget",
            "4",
            "--max-states",
            "20000",
        ],
        "check": [
            "check",
            doc,
            *common,
            "--scenario",
            "scenario.json",
            "--trace",
            "trace.json",
            "--json",
        ],
    }[command]


def wf_case(
    cid: str,
    command: str,
    summary: str,
    expect: str,
    doc: bytes,
    scenario: bytes | Callable[[], bytes],
    trace: Callable[[], bytes] | None = None,
    fmt: str = "workfile-yaml",
    timeout: float = 40.0,
) -> Case:
    def build(folder: Path) -> Invocation:
        files = {
            "doc.workfile.yaml": doc,
            "scenario.json": scenario() if callable(scenario) else scenario,
        }
        if command == "check":
            files["trace.json"] = trace() if trace is not None else b"[]"
        return build_with(files, wf_args(command), extra=manifests_folder)(folder)

    return Case(
        cid,
        command.split("-")[0],
        fmt,
        summary,
        expect,
        build,
        timeout=timeout,
        cheap=command.startswith("validate"),
    )


def mutate_yaml(text: str, rng: random.Random) -> tuple[bytes, str, str]:
    """A structural mutation of a Workfile (written back as YAML), or a textual one."""
    import yaml

    if rng.random() < 0.2:
        return text_mutation(text.encode(), rng, yaml_readable)
    value = yaml.safe_load(text)
    from .pieces import get, paths, show_path

    every = [p for p in paths(value) if p]
    path = rng.choice(every)
    kind = rng.choice(["replace", "replace", "delete", "wrap", "special"])
    if kind == "replace":
        new = rng.choice(PLAIN_VALUES)
        summary = f"{show_path(path)} := {json.dumps(new)[:50]}"
        value = put(value, path, copy.deepcopy(new))
    elif kind == "delete":
        summary = f"delete {show_path(path)}"
        value = delete(value, path)
    elif kind == "wrap":
        summary = f"{show_path(path)} wrapped in a list"
        value = put(value, path, [get(value, path)])
    else:
        special = rng.choice(
            [
                ".nan",
                ".inf",
                "1e400",
                "9" * 5000,
                '"\\ud800"',
                "!!binary AA==",
                "*nowhere",
                "&a x",
                "{",
                "'{{ ( }}'",
                "'{{ 1e308 * 10 }}'",
                "'{{ x | nope }}'",
                "'{{ " + "(" * 900 + "1" + ")" * 900 + " }}'",
            ]
        )
        marker = "HOSTILE_MARKER_9"
        text2 = yaml.safe_dump(
            put(value, path, marker), sort_keys=False, allow_unicode=True, width=10**9
        )
        summary = f"{show_path(path)} := {special[:40]}"
        return text2.replace(marker, special, 1).encode(), summary, "any"
    return (
        yaml.safe_dump(value, sort_keys=False, allow_unicode=True, width=10**9).encode(),
        summary,
        "any",
    )


def workfile_cases(seed: int) -> list[Case]:
    cases: list[Case] = []
    seeds = workfile_seeds()

    def trace_of(name: str, text: str, scenario: JSON) -> Callable[[], bytes]:
        def make() -> bytes:
            files = {"doc.workfile.yaml": text.encode(), "scenario.json": dumps(scenario)}
            for path in (EXAMPLES / "workfile" / "manifests").glob("*.yaml"):
                files[f"manifests/{path.name}"] = path.read_bytes()
            files["manifests/svc.yaml"] = SVC_MANIFEST.encode()
            return reference_run(
                f"wf-{name}",
                ["doc.workfile.yaml", "--manifests", "manifests", "--scenario", "scenario.json"],
                files,
            )

        return make

    commands = ["validate", "validate-json", "validate-bare", "run", "explore", "check"]
    for k, (name, text, scenario) in enumerate(seeds):
        trace = trace_of(name, text, scenario)
        for i in range(20):
            rng = random.Random(f"{seed}/wf-doc/{name}/{i}")
            data, summary, expect = mutate_yaml(text, rng)
            command = commands[(i + k) % len(commands)]
            fmt = "workfile-state-yaml" if "states:" in text else "workfile-yaml"
            cases.append(
                wf_case(
                    f"workfile-doc/{name}/{i:02d}",
                    command,
                    f"{name}.workfile.yaml: {summary}",
                    expect,
                    data,
                    dumps(scenario),
                    trace,
                    fmt=fmt,
                )
            )
        for i in range(8):
            rng = random.Random(f"{seed}/wf-scenario/{name}/{i}")
            data, summary, expect = mutate_json(scenario, rng)
            cases.append(
                wf_case(
                    f"workfile-scenario/{name}/{i:02d}",
                    ["run", "explore", "check"][i % 3],
                    f"{name} scenario: {summary}",
                    expect,
                    text.encode(),
                    data,
                    trace,
                    fmt="workfile-scenario",
                )
            )
        for i in range(6):

            def build(
                folder: Path, text=text, scenario=scenario, i=i, trace=trace, name=name
            ) -> Invocation:
                events = json.loads(trace())["trace"]
                data, _, _ = trace_mutations(events, random.Random(f"{seed}/wf-trace/{name}/{i}"))
                return build_with(
                    {
                        "doc.workfile.yaml": text.encode(),
                        "scenario.json": dumps(scenario),
                        "trace.json": data,
                    },
                    wf_args("check"),
                    extra=manifests_folder,
                )(folder)

            summary, expect = _trace_label(seed, "wf", name, i)
            cases.append(
                Case(
                    f"workfile-trace/{name}/{i:02d}",
                    "check",
                    "workfile-trace",
                    f"{name} trace: {summary}",
                    expect,
                    build,
                    cheap=False,
                )
            )
    for i, (summary, text, expect) in enumerate(WORKFILE_HOSTILE):
        data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
        fmt = "workfile-state-yaml" if b"states:" in data else "workfile-yaml"
        for command in (
            ["validate-json", "validate", "validate-bare"][i % 3],
            ["run", "explore"][i % 2],
        ):
            cases.append(
                wf_case(
                    f"workfile-hostile/{i:02d}-{command}",
                    command,
                    f"Workfile: {summary}",
                    expect,
                    data,
                    b'{"inputs": {}}',
                    fmt=fmt,
                )
            )
    for i, (summary, text, scenario) in enumerate(workfile_resource_docs()):
        for command in ("validate-json", "run", "explore"):
            cases.append(
                wf_case(
                    f"workfile-work/{i:02d}-{command}",
                    command,
                    f"Workfile asking for work: {summary}",
                    "any",
                    text.encode(),
                    lambda scenario=scenario: dumps(scenario),
                    timeout=60,
                )
            )
    for i, (summary, scenario) in enumerate(WORKFILE_SCENARIO_INVALID):
        name, text, _ = seeds[1] if "event" in summary else seeds[0]
        cases.append(
            wf_case(
                f"workfile-scenario-invalid/{i:02d}",
                ["run", "explore"][i % 2],
                f"{name} with an invalid scenario: {summary}",
                "reject",
                text.encode(),
                dumps(scenario),
                fmt="workfile-scenario",
            )
        )
    for i, (summary, data, expect) in enumerate(NOT_DOCUMENTS[:8]):
        name, text, _ = seeds[i % len(seeds)]
        cases.append(
            wf_case(
                f"workfile-scenario-not-json/{summary}",
                ["run", "explore"][i % 2],
                f"{name} with a scenario that is {summary}",
                expect,
                text.encode(),
                data,
                fmt="workfile-scenario",
            )
        )
    return cases


def cases(seed: int) -> list[Case]:
    return w6w_cases(seed) + harness_cases(seed) + workfile_cases(seed)


__all__ = ["app", "build_with", "cases", "control", "dumps", "manifests_folder", "workflow"]
