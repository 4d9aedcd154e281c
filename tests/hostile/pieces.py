"""The raw material of the hostile corpus: seed inputs, hostile values and text mutations.

Everything here is small and built in code or read from examples/; the
large inputs (100,000-deep nesting, megabyte lines) are made when a case is
built, never checked in.  Every random choice takes a ``random.Random``
the caller seeded, so a case is the same for the same seed.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
JSON = Any

# -- nesting, numbers and strings that no parser should meet unprepared -----------------


def nested(depth: int, leaf: str = "0", open_: str = "[", close: str = "]") -> str:
    """``[[[...0...]]]`` as text, ``depth`` deep."""
    return open_ * depth + leaf + close * depth


def nested_objects(depth: int) -> str:
    return '{"a": ' * depth + "0" + "}" * depth


# Text fragments spliced into a JSON text where a value goes.  "reject": no strict JSON
# reader may accept the text; "any": valid JSON (or arguably so) a tool may accept or refuse.
RAW_VALUES: list[tuple[str, str, str]] = [
    ("NaN", "NaN", "reject"),
    ("Infinity", "Infinity", "reject"),
    ("-Infinity", "-Infinity", "reject"),
    ("1e400", "1e400", "reject"),
    ("-1e400", "-1e400", "reject"),
    ("int-5000-digits", "9" * 5000, "any"),
    ("int-4000-digits", "8" * 4000, "any"),
    ("int-400-digits", "7" * 400, "any"),
    ("1e-400", "1e-400", "any"),
    ("lone-surrogate", '"\\ud800"', "reject"),
    ("reversed-surrogates", '"\\udc00\\ud800"', "reject"),
    ("nul-escape", '"a\\u0000b"', "any"),
    ("deep-100000", nested(100_000), "any"),
    ("deep-5000", nested(5000), "any"),
    ("deep-990", nested(990), "any"),
    ("deep-900", nested(900), "any"),
    ("deep-600-objects", nested_objects(600), "any"),
    ("deep-300", nested(300), "any"),
    ("string-1MB", '"' + "x" * (1 << 20) + '"', "any"),
    ("array-100000", "[" + ",".join(["1"] * 100_000) + "]", "any"),
    ("object-20000-keys", "{" + ",".join(f'"k{i}": {i}' for i in range(20_000)) + "}", "any"),
    ("minus-zero", "-0", "any"),
    ("max-float", "1.7976931348623157e308", "any"),
    ("tiny-float", "5e-324", "any"),
    ("int64-overflow", "18446744073709551617", "any"),
    ("float-int", "1.0", "any"),
    ("exp-int", "1E2", "any"),
]
RAW_BY_NAME = {name: (text, expect) for name, text, expect in RAW_VALUES}

# Python values (all strict JSON) put where another value was.
PLAIN_VALUES: list[JSON] = [
    None,
    True,
    False,
    0,
    -1,
    1.5,
    -0.0,
    2**63,
    -(2**63) - 1,
    10**30,
    1e308,
    -1e308,
    5e-324,
    "",
    " ",
    "x" * 5000,
    "\u202eevil",
    "\u0000",
    "\ufeff",
    "💥",
    "{{",
    "}}",
    "{{ vars.x }}",
    "{{ secrets.API_KEY }}",
    '{{ = {"var": "x"} }}',
    "{{ ((((((((((1)))))))))) }}",
    "$",
    "../../../../etc/passwd",
    "/dev/zero",
    "a.b.c",
    "NaN",
    "Infinity",
    "1e400",
    "true",
    "null",
    "\n\r\t",
    "\U0010ffff",
    [],
    {},
    [[]],
    [None],
    {"": None},
    {"$": "vars.x"},
    {"$": ""},
    {"$": 5},
    {"$expr": {"var": "x"}},
    {"$expr": {"*": [1e308, 10]}},
    {"$expr": {"+": ["1e999"]}},
    {"$expr": {"/": [1, 0]}},
    {"type": "expr", "parts": [{"kind": "render", "ref": "x"}]},
    {"__proto__": {"polluted": True}},
    list(range(50)),
    {"a": {"b": {"c": {"d": {"e": {"f": {"g": 1}}}}}}},
]


def hostile_value(rng: random.Random) -> JSON:
    return copy.deepcopy(rng.choice(PLAIN_VALUES))


# -- walking a JSON value: paths, replacing and deleting ----------------------------------


Path_ = tuple[Any, ...]


def paths(value: JSON, prefix: Path_ = ()) -> list[Path_]:
    """Every path into ``value`` (the root included), depth first."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, (*prefix, index))
    return found


def get(value: JSON, path: Path_) -> JSON:
    for part in path:
        value = value[part]
    return value


def put(value: JSON, path: Path_, new: JSON) -> JSON:
    """``value`` with the member at ``path`` replaced by ``new`` (the root: ``new``)."""
    if not path:
        return new
    value = copy.deepcopy(value)
    get(value, path[:-1])[path[-1]] = new
    return value


def delete(value: JSON, path: Path_) -> JSON:
    value = copy.deepcopy(value)
    parent = get(value, path[:-1])
    del parent[path[-1]]
    return value


def show_path(path: Path_) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


MARK = "\u0007HOSTILE\u0007"


def splice(value: JSON, path: Path_, raw: str) -> str:
    """The JSON text of ``value`` with the member at ``path`` written as the raw text ``raw``."""
    marked = put(value, path, MARK)
    text = json.dumps(marked, indent=1, ensure_ascii=False)
    return text.replace(json.dumps(MARK, ensure_ascii=False), raw, 1)


def mutate_json(value: JSON, rng: random.Random) -> tuple[bytes, str, str]:
    """One structural or textual mutation of a JSON value: (bytes, summary, expect).

    ``expect`` is "reject" only when no strict reader may accept the bytes;
    a structural mutation ("any") may well leave a valid input.
    """
    every = paths(value)
    inner = [p for p in every if p] or [()]
    path = rng.choice(inner)
    where = show_path(path)
    kind = rng.choices(
        ["replace", "raw", "delete", "wrap", "add-member", "text"],
        weights=[30, 25, 10, 8, 7, 20],
    )[0]
    if kind == "replace":
        new = hostile_value(rng)
        text = json.dumps(put(value, path, new), ensure_ascii=False)
        return text.encode(), f"{where} := {json.dumps(new)[:60]}", "any"
    if kind == "raw":
        name, raw, expect = rng.choice(RAW_VALUES)
        return splice(value, path, raw).encode(), f"{where} := <{name}>", expect
    if kind == "delete":
        return json.dumps(delete(value, path)).encode(), f"delete {where}", "any"
    if kind == "wrap":
        old = get(value, path)
        return json.dumps(put(value, path, [old])).encode(), f"{where} wrapped in a list", "any"
    if kind == "add-member":
        target = rng.choice([p for p in every if isinstance(get(value, p), dict)] or [()])
        new = copy.deepcopy(value)
        if isinstance(get(new, target), dict):
            get(new, target)[rng.choice(["x-unknown", "", "__proto__", "\u00e9", "id"])] = 1
        return json.dumps(new).encode(), f"a member added at {show_path(target)}", "any"
    return text_mutation(json.dumps(value, indent=1).encode(), rng)


def text_mutation(
    data: bytes, rng: random.Random, readable: Callable[[bytes], bool] | None = None
) -> tuple[bytes, str, str]:
    """A mutation of the text itself: "reject" when ``readable`` (strict JSON by default)
    cannot read the result, else "any"."""
    out, summary, _ = _text_mutation(data, rng)
    return out, summary, "any" if (readable or json_readable)(out) else "reject"


def json_readable(data: bytes) -> bool:
    def constant(name: str) -> object:
        raise ValueError(name)

    try:
        json.loads(data.decode("utf-8"), parse_constant=constant)
    except (ValueError, RecursionError):
        return False
    return True


def _text_mutation(data: bytes, rng: random.Random) -> tuple[bytes, str, str]:
    kind = rng.choice(
        [
            "truncate",
            "garbage-byte",
            "not-utf8",
            "trailing",
            "unclosed-string",
            "comment",
            "single-quotes",
            "duplicate-comma",
            "control-char",
        ]
    )
    if kind == "truncate":
        cut = rng.randrange(1, max(2, len(data) - 1))
        out = data[:cut]
        try:
            json.loads(out)
            return data[:-1] + b"{", "truncated (then an open brace)", "reject"
        except ValueError:
            return out, f"truncated at byte {cut} of {len(data)}", "reject"
    if kind == "garbage-byte":
        at = rng.randrange(len(data))
        return data[:at] + b"\x01" + data[at:], f"a raw 0x01 byte at {at}", "reject"
    if kind == "not-utf8":
        quote = data.find(b'"', rng.randrange(len(data)))
        at = quote + 1 if quote >= 0 else 1
        return (
            data[:at] + b"\xff\xfe\xc0" + data[at:],
            f"bytes that are not UTF-8 at {at}",
            "reject",
        )
    if kind == "trailing":
        return data + b"\n}{ trailing", "text after the value", "reject"
    if kind == "unclosed-string":
        return data.rstrip() + b' "unclosed', "an unclosed string at the end", "reject"
    if kind == "comment":
        return b"// a comment\n" + data, "a // comment first", "reject"
    if kind == "single-quotes":
        return data.replace(b'"', b"'", 4), "single quotes", "reject"
    if kind == "duplicate-comma":
        at = data.find(b",")
        if at < 0:
            return b"[1,,2]", "[1,,2]", "reject"
        return data[:at] + b",," + data[at + 1 :], "a doubled comma", "reject"
    return data.replace(b'"', b'"\x1b', 1), "a raw ESC inside a string", "reject"


# Inputs that are not a JSON document at all (for every JSON-reading command).
NOT_DOCUMENTS: list[tuple[str, bytes, str]] = [
    ("empty", b"", "reject"),
    ("whitespace", b" \n\t\n", "reject"),
    ("null", b"null", "reject"),
    ("zero", b"0", "reject"),
    ("string", b'"a workflow"', "reject"),
    ("array", b"[]", "reject"),
    ("array-of-objects", b"[{}, {}]", "reject"),
    ("bom-object", b"\xef\xbb\xbf{}", "reject"),
    ("utf16-object", "{}".encode("utf-16"), "reject"),
    ("binary", bytes(range(256)), "reject"),
    ("yaml-not-json", b"steps:\n  - a: {}\n", "any"),
    ("xml-not-json", b"<harness id='h'/>", "any"),
    ("NaN", b"NaN", "reject"),
    ("deep-array-100000", nested(100_000).encode(), "reject"),
    ("deep-object-100000", nested_objects(100_000).encode(), "reject"),
    ("deep-array-990", nested(990).encode(), "reject"),
    ("lone-surrogate-key", b'{"\\ud800": 1}', "reject"),
    ("huge-string", b'"' + b"x" * (4 << 20) + b'"', "reject"),
    ("two-values", b"{} {}", "reject"),
]

# -- seeds -------------------------------------------------------------------------------------


def read_json(path: Path) -> JSON:
    return json.loads(path.read_text("utf-8"))


def app(step_id: str, **extra: JSON) -> dict[str, JSON]:
    return {"id": step_id, "uses": {"app": "demo", "action": "run"}, **extra}


def workflow(*steps: JSON, edges: list[JSON] | None = None, **extra: JSON) -> dict[str, JSON]:
    doc: dict[str, JSON] = {"manifestVersion": "2", "id": "wf_h", "name": "hostile"}
    doc["steps"] = list(steps)
    if edges is not None:
        doc["edges"] = edges
    doc.update(extra)
    return doc


def control(step_id: str, action: str, **with_: JSON) -> dict[str, JSON]:
    return {"id": step_id, "uses": {"app": "@w6w/control", "action": action}, "with": with_}


def w6w_seeds() -> list[tuple[str, JSON, JSON]]:
    """(name, document, scenario): the examples and a few shapes they lack."""
    seeds = []
    for name in ("error-routing", "daily-report"):
        seeds.append(
            (
                name,
                read_json(EXAMPLES / "w6w" / f"{name}.json"),
                read_json(EXAMPLES / "w6w" / "scenarios" / f"{name}.json"),
            )
        )
    race = workflow(
        app("r", fanOut="parallel"),
        app("a"),
        app("b", retry={"maxAttempts": 2, "backoff": "fixed", "delayMs": 10}),
        app("j", **{"with": {"seen": {"$": "steps.b.output"}}}),
        edges=[
            {"from": "r", "to": "a"},
            {"from": "r", "to": "b"},
            {"from": "a", "to": "j"},
            {"from": "b", "to": "j"},
        ],
    )
    seeds.append(
        (
            "race",
            race,
            {
                "steps": {
                    "b": {
                        "attempts": [
                            {"error": {"code": "x", "message": "m", "retryable": True}},
                            {"output": 1},
                        ]
                    }
                },
                "crashAfterCheckpoints": [2],
            },
        )
    )
    controls = workflow(
        control(
            "check", "if", condition={"$": "vars.go"}, then=[app("yes")], **{"else": [app("no")]}
        ),
        control(
            "loop",
            "foreach",
            items=[1, 2, 3],
            body=[app("each", **{"with": {"i": {"$": "foreach.index"}}})],
        ),
        control("par", "parallel", branches=[[app("l")], [app("r2")]]),
        variables=[{"key": "go", "type": "boolean", "required": False, "default": True}],
    )
    seeds.append(("controls", controls, {"variables": {"go": True}}))
    child = workflow(
        app("inner", **{"with": {"got": {"$": "vars.n"}}}),
        variables=[{"key": "n", "required": True}],
    ) | {"id": "wf_child"}
    caller = workflow(
        {
            "id": "c",
            "uses": {"app": "@w6w/call", "action": "run"},
            "with": {"workflow": "wf_child", "inputs": {"n": 7}},
        },
        {"id": "w", "uses": {"app": "@w6w/control", "action": "wait"}, "with": {"afterMs": 10}},
    )
    seeds.append(
        (
            "call-wait",
            caller,
            {
                "calls": {"wf_child": {"document": child, "scenario": {}}},
                "resumes": [{"output": 1}],
            },
        )
    )
    return seeds


def harness_seeds() -> list[tuple[str, str, JSON]]:
    seeds = []
    for name in ("decision", "error-edge"):
        seeds.append(
            (
                name,
                (EXAMPLES / "harness" / f"{name}.xml").read_text("utf-8"),
                read_json(EXAMPLES / "harness" / f"{name}.scenario.json"),
            )
        )
    seeds.append(
        ("any-join-race", (EXAMPLES / "harness" / "any-join-race.xml").read_text("utf-8"), {})
    )
    loop = (
        '<harness id="l">\n'
        '  <node id="src" impl="s"><output name="items"/></node>\n'
        '  <loop id="each" over="params.items" maxConcurrency="2">\n'
        '    <node id="work" impl="w"><guard>params.index &gt;= 0</guard></node>\n'
        "  </loop>\n"
        '  <node id="q" impl="q" joinPolicy="quorum" quorum="1">'
        '<input name="x" required="false" default="1"/><retry maxAttempts="2"/></node>\n'
        '  <edge from="src" to="each"/>\n'
        '  <edge from="each" to="q"/>\n'
        '  <edge from="src" to="q" type="data" fromPort="items" toPort="x"/>\n'
        "</harness>\n"
    )
    seeds.append(
        (
            "loop-quorum",
            loop,
            {
                "params": {"items": [1, 2, 3]},
                "nodes": {"q": {"attempts": [{"error": {"code": "t"}}, {"outputs": {}}]}},
            },
        )
    )
    return seeds


def workfile_seeds() -> list[tuple[str, str, JSON]]:
    """(name, YAML text, scenario) — Core and state-form, all read with examples' manifests."""
    seeds = []
    for name in ("onboarding", "approval"):
        seeds.append(
            (
                name,
                (EXAMPLES / "workfile" / f"{name}.workfile.yaml").read_text("utf-8"),
                read_json(EXAMPLES / "workfile" / f"{name}.scenario.json"),
            )
        )
    core = (
        "inputs:\n  items: { type: array, default: [1, 2] }\n"
        "steps:\n"
        '  - each:\n      wf.for_each:\n        items: "{{ inputs.items }}"\n'
        "        concurrency: 2\n        steps:\n"
        '          - ping: { svc.get: { n: "{{ item }}" }, retry: { attempts: 2 } }\n'
        "  - loop:\n      wf.repeat:\n        max_iterations:"
        ' 3\n        until: "{{ tick.n > 1 }}"\n'
        "        steps:\n          - tick: { svc.get: {} }\n"
        "  - par:\n      wf.parallel:\n        branches:\n"
        "          left: [ { l: { svc.get: {} } } ]\n          right: [ { r: { svc.put: {} } } ]\n"
        'outputs:\n  n: "{{ each | length }}"\n'
    )
    seeds.append(
        ("constructs", core, {"inputs": {}, "attempts": {"loop.tick": [{"output": {"n": 5}}]}})
    )
    return seeds


WORKFILE_MANIFESTS = EXAMPLES / "workfile" / "manifests"
SVC_MANIFEST = (
    "connector: svc\nactions:\n"
    "  get: { effects: read, errors: { svc.busy: retryable } }\n"
    "  put: { effects: write, idempotency: keyed, errors: { svc.lost: unknown } }\n"
)


def yaml_bomb(levels: int = 9) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        refs = ",".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    lines.append(f"steps:\n  - s: {{ svc.get: {{ x: *a{levels - 1} }} }}")
    return "\n".join(lines) + "\n"


def xml_bomb(levels: int = 9) -> str:
    entities = ['<!ENTITY lol0 "lol">']
    for i in range(1, levels):
        entities.append(f'<!ENTITY lol{i} "' + f"&lol{i - 1};" * 10 + '">')
    return (
        '<?xml version="1.0"?>\n<!DOCTYPE harness [\n' + "\n".join(entities) + "\n]>\n"
        f'<harness id="h"><node id="a" impl="&lol{levels - 1};"/></harness>\n'
    )
