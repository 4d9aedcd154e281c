"""Hostile folders: fixture suites for conform, JSON Logic suites, clause test folders,
connector manifests and called workflows, and fixtures' output folder.

A suite is written by ``wforacle fixtures`` once per run (corpus.suite) and
copied into each case's folder, where the case spoils one part of it.
``conform`` runs the specification's bundled correct engine, so a spoilt
suite is the only thing wrong.
"""

from __future__ import annotations

import json
import os
import random
import sys
from collections.abc import Callable
from pathlib import Path

from .corpus import Case, Invocation, copy_suite
from .gen_documents import manifests_folder
from .pieces import EXAMPLES, REPO, nested, xml_bomb, yaml_bomb

ENGINES = {"w6w": "w6w_engine.py", "harness": "harness_engine.py", "workfile": "workfile_engine.py"}
SUITES = {  # name -> (spec given to fixtures, profile, engine spec)
    "w6w": ("w6w", None, "w6w"),
    "harness": ("harness", None, "harness"),
    "workfile": ("workfile", None, "workfile"),
    "stateful": ("workfile", "workfile-stateful", "workfile"),
}


def engine(spec: str) -> str:
    return f"{sys.executable} {REPO / 'examples' / 'engines' / ENGINES[spec]}"


Spoil = Callable[[Path], None]


def write(relative: str, data: bytes | str) -> Spoil:
    def spoil(suite: Path) -> None:
        target = suite / relative
        if target.parent.is_file():  # "x.json/inner": x.json becomes a folder
            target.parent.unlink()
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_dir() and not target.is_symlink():
            import shutil

            shutil.rmtree(target)
        target.write_bytes(data if isinstance(data, bytes) else data.encode())

    return spoil


def remove(relative: str) -> Spoil:
    def spoil(suite: Path) -> None:
        target = suite / relative
        if target.is_dir():
            import shutil

            shutil.rmtree(target)
        else:
            target.unlink()

    return spoil


def edit_json(relative: str, change: Callable[[object], object]) -> Spoil:
    def spoil(suite: Path) -> None:
        target = suite / relative
        target.write_text(json.dumps(change(json.loads(target.read_text()))))

    return spoil


def first_case(suite: Path) -> str:
    return json.loads((suite / "suite.json").read_text())["cases"][0]


def in_case(relative: str, spoil_for: Callable[[str], Spoil]) -> Spoil:
    """Spoil ``relative`` inside the suite's first case."""

    def spoil(suite: Path) -> None:
        spoil_for(f"{first_case(suite)}/{relative}")(suite)

    return spoil


def symlink(relative: str, to: str) -> Spoil:
    def spoil(suite: Path) -> None:
        target = suite / relative
        if target.exists() or target.is_symlink():
            remove(relative)(suite)
        os.symlink(to, target)

    return spoil


SUITE_LEVEL = 21  # suite_spoils' first 21 spoil the suite as a whole; the rest, one file


def document_name(name: str) -> str:
    return {"w6w": "document.json", "harness": "document.xml"}.get(name, "document.workfile.yaml")


def suite_spoils(name: str) -> list[tuple[str, Spoil, str]]:
    """(summary, spoil, expect) for a suite of ``name``."""
    doc = document_name(name)
    # conform finds the cases by their manifest.json and never reads the index suite.json
    # (oracle/fixtures.py), so a spoilt index may pass; a case it silently drops may not
    INDEX = "any"  # the expectation for a spoilt index, named once
    spoils: list[tuple[str, Spoil, str]] = [
        ("no suite.json", remove("suite.json"), INDEX),
        ("suite.json not JSON", write("suite.json", "{"), INDEX),
        ("suite.json with NaN", write("suite.json", '{"cases": [NaN]}'), INDEX),
        ("suite.json nested 100,000 deep", write("suite.json", nested(100_000)), INDEX),
        ("suite.json a list", write("suite.json", "[]"), INDEX),
        (
            "cases a string",
            edit_json("suite.json", lambda s: {**s, "cases": s["cases"][0]}),
            INDEX,
        ),
        ("cases of numbers", edit_json("suite.json", lambda s: {**s, "cases": [1, 2]}), INDEX),
        (
            "a case escaping the suite (../..)",
            edit_json("suite.json", lambda s: {**s, "cases": ["../../../../etc"]}),
            INDEX,
        ),
        (
            "a case at an absolute path",
            edit_json("suite.json", lambda s: {**s, "cases": ["/etc"]}),
            INDEX,
        ),
        (
            "a case that does not exist",
            edit_json("suite.json", lambda s: {**s, "cases": ["9999-ghost"]}),
            INDEX,
        ),
        ("no cases", edit_json("suite.json", lambda s: {**s, "cases": []}), "any"),
        (
            "the first case listed 500 times",
            edit_json("suite.json", lambda s: {**s, "cases": s["cases"][:1] * 500}),
            "any",
        ),
        ("spec bogus", edit_json("suite.json", lambda s: {**s, "spec": "bogus"}), "any"),
        (
            "format from the future",
            edit_json("suite.json", lambda s: {**s, "format": "wforacle-fixture/99"}),
            "any",
        ),
        ("suite.json a folder", write("suite.json/x", "{}"), INDEX),
        ("suite.json a symlink to itself", symlink("suite.json", "suite.json"), INDEX),
        ("suite.json a symlink to /dev/null", symlink("suite.json", "/dev/null"), INDEX),
        ("the first case a file", lambda s: write(first_case(s), "x")(s), "reject"),
        ("the first case a symlink to /", lambda s: symlink(first_case(s), "/")(s), "reject"),
        (
            "the first case empty",
            lambda s: (remove(first_case(s))(s), (s / first_case_name(s)).mkdir()),
            "reject",
        ),
        (
            "junk files beside the case's",
            in_case("junk.bin", lambda r: write(r, bytes(range(256)))),
            "any",
        ),
    ]
    for member in ("manifest.json", doc, "scenario.json", "outcomes.json"):
        spoils.append((f"{member} missing", in_case(member, remove), "reject"))
        spoils.append(
            (f"{member} not UTF-8", in_case(member, lambda r: write(r, b"\xff\xfe{")), "reject")
        )
    for member in ("manifest.json", "scenario.json", "schedule.json", "outcomes.json"):
        for label, data, expect in [
            ("not JSON", "{", "reject"),
            ("NaN", "NaN", "reject"),
            ("1e400", "[1e400]", "reject"),
            ("nested 100,000 deep", nested(100_000), "reject"),
            ("nested 990 deep", nested(990), "any"),
            ("a lone surrogate", '["\\ud800"]', "reject"),
            ("null", "null", "any"),
            ("a 5,000-digit integer", "[" + "9" * 5000 + "]", "any"),
        ]:
            if member == "schedule.json" and label in ("null",):
                continue
            if member != "schedule.json" and label in ("null", "a 5,000-digit integer"):
                expect = "reject"
            spoils.append(
                (f"{member} {label}", in_case(member, lambda r, d=data: write(r, d)), expect)
            )
    spoils += [
        ("outcomes.json []", in_case("outcomes.json", lambda r: write(r, "[]")), "reject"),
        ("outcomes.json {}", in_case("outcomes.json", lambda r: write(r, "{}")), "reject"),
        (
            "outcomes.json one empty outcome",
            in_case("outcomes.json", lambda r: write(r, '[{"outcome": {}, "witness": []}]')),
            "reject",
        ),
        (
            "outcomes.json outcomes of wrong types",
            in_case(
                "outcomes.json", lambda r: write(r, '[{"outcome": [1], "witness": "x"}, 5, null]')
            ),
            "reject",
        ),
        ("manifest.json {}", in_case("manifest.json", lambda r: write(r, "{}")), "any"),
        (
            "manifest.json spec harness/w6w swapped",
            in_case(
                "manifest.json",
                lambda r: edit_json(
                    r, lambda m: {**m, "spec": "w6w" if m.get("spec") != "w6w" else "harness"}
                ),
            ),
            "reject",
        ),
        (
            "manifest.json spec ../../x",
            in_case("manifest.json", lambda r: edit_json(r, lambda m: {**m, "spec": "../../x"})),
            "reject",
        ),
        (
            "manifest.json complete a string",
            in_case("manifest.json", lambda r: edit_json(r, lambda m: {**m, "complete": "yes"})),
            "any",
        ),
        (
            "schedule.json [-1, 2**64, 1e300]",
            in_case("schedule.json", lambda r: write(r, "[-1, 18446744073709551616, 1e300]")),
            "any",
        ),
        ('schedule.json ["0"]', in_case("schedule.json", lambda r: write(r, '["0"]')), "any"),
        (
            "schedule.json an object",
            in_case("schedule.json", lambda r: write(r, '{"0": 1}')),
            "any",
        ),
        (
            "schedule.json 1,000,000 entries",
            in_case("schedule.json", lambda r: write(r, "[" + ",".join(["7"] * 1_000_000) + "]")),
            "any",
        ),
        ("schedule.json missing", in_case("schedule.json", remove), "any"),
        (
            "replay.json garbage",
            in_case("replay.json", lambda r: write(r, '{"runState": [1]}')),
            "any",
        ),
        (f"{doc} from the other case", lambda s: _swap_documents(s, doc), "reject"),
    ]
    if name == "w6w":
        spoils += [
            ("document.json an empty object", in_case(doc, lambda r: write(r, "{}")), "reject"),
            (
                "document.json nested 990 deep",
                in_case(doc, lambda r: write(r, nested(990))),
                "reject",
            ),
        ]
    elif name == "harness":
        spoils += [
            ("document.xml an entity bomb", in_case(doc, lambda r: write(r, xml_bomb())), "reject"),
            (
                "document.xml with an external entity",
                in_case(
                    doc,
                    lambda r: write(
                        r,
                        '<!DOCTYPE h [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
                        '<harness id="h"><node id="a" impl="&x;"/></harness>',
                    ),
                ),
                "reject",
            ),
            ("document.xml empty", in_case(doc, lambda r: write(r, "")), "reject"),
        ]
    else:
        spoils += [
            (f"{doc} an alias bomb", in_case(doc, lambda r: write(r, yaml_bomb())), "reject"),
            (f"{doc} empty", in_case(doc, lambda r: write(r, "")), "reject"),
            (
                f"{doc} a python tag",
                in_case(
                    doc,
                    lambda r: write(
                        r, "steps:\n  - a: !!python/object/apply:os.system ['touch pwned']\n"
                    ),
                ),
                "reject",
            ),
            (
                "manifests.json not JSON",
                in_case("manifests.json", lambda r: write(r, "{")),
                "reject",
            ),
            (
                "manifests.json a list",
                in_case("manifests.json", lambda r: write(r, "[1]")),
                "reject",
            ),
            (
                "manifests.json with an alias bomb",
                in_case("manifests.json", lambda r: write(r, json.dumps({"svc": yaml_bomb()}))),
                "reject",
            ),
            (
                "manifests.json with a manifest that is not text",
                in_case("manifests.json", lambda r: write(r, '{"svc": {"connector": "svc"}}')),
                "reject",
            ),
        ]
    return spoils


def first_case_name(suite: Path) -> str:
    return first_case(suite)


def _swap_documents(suite: Path, doc: str) -> None:
    names = json.loads((suite / "suite.json").read_text())["cases"]
    first, second = suite / names[0] / doc, suite / names[1] / doc
    a, b = first.read_bytes(), second.read_bytes()
    if a == b:  # the same document: spoil the outcomes instead
        (suite / names[0] / "outcomes.json").write_text("[]")
        return
    first.write_bytes(b)
    second.write_bytes(a)


def conform_cases(seed: int) -> list[Case]:
    cases = []
    for name, (spec, profile, engine_spec) in SUITES.items():
        for i, (summary, spoil, expect) in enumerate(suite_spoils(name)):
            if name in ("harness", "stateful") and i >= SUITE_LEVEL and i % 2:
                continue  # the file-level spoils: half of them for these two

            def build(
                folder: Path, spec=spec, profile=profile, spoil=spoil, engine_spec=engine_spec
            ) -> Invocation:
                target = copy_suite(spec, folder, profile)
                spoil(target)
                return Invocation(
                    [
                        "conform",
                        "suite",
                        "--engine",
                        engine(engine_spec),
                        "--timeout",
                        "5",
                        "--json",
                    ]
                )

            cases.append(
                Case(
                    f"conform/{name}/{i:02d}",
                    "conform",
                    "fixture-folder",
                    f"{name} suite: {summary}",
                    expect,
                    build,
                    timeout=60,
                    cheap=False,
                )
            )
        # the same suite, untouched: the control
        cases.append(
            Case(
                f"conform/{name}/control",
                "conform",
                "fixture-folder",
                f"{name} suite, untouched (the control)",
                "pass",
                lambda folder, spec=spec, profile=profile, engine_spec=engine_spec: (
                    copy_suite(spec, folder, profile),
                    Invocation(["conform", "suite", "--engine", engine(engine_spec), "--json"]),
                )[1],
                timeout=60,
                cheap=False,
            )
        )
    places = [
        ("a folder that does not exist", "no-such-folder", "reject"),
        ("a file", "file.txt", "reject"),
        ("an empty folder", "empty", "reject"),
        ("/", "/", "reject"),
        ("/dev/null", "/dev/null", "reject"),
        ("an empty argument", "", "reject"),
    ]
    for i, (summary, where, expect) in enumerate(places):

        def build(folder: Path, where=where) -> Invocation:
            (folder / "file.txt").write_text("{}")
            (folder / "empty").mkdir()
            return Invocation(["conform", where, "--engine", engine("w6w"), "--json"])

        cases.append(
            Case(
                f"conform/place/{i}",
                "conform",
                "fixture-folder",
                f"conform on {summary}",
                expect,
                build,
            )
        )
    for i, (summary, junit, expect) in enumerate(
        [
            ("--junit to a folder", "folder", "reject"),
            ("--junit into a folder that does not exist", "no/such/dir/j.xml", "reject"),
            ("--junit to /dev/full", "/dev/full", "reject"),
            ("--junit to the suite's own suite.json", "suite/suite.json", "any"),
        ]
    ):

        def build(folder: Path, junit=junit) -> Invocation:
            copy_suite("w6w", folder)
            (folder / "folder").mkdir()
            return Invocation(["conform", "suite", "--engine", engine("w6w"), "--junit", junit])

        cases.append(
            Case(
                f"conform/junit/{i}",
                "conform",
                "fixture-folder",
                summary,
                expect,
                build,
                cheap=False,
            )
        )
    return cases


# -- jsonlogic suite ---------------------------------------------------------------------------

GOOD_SUITE_FILE = json.dumps(
    ["a description", {"description": "sum", "rule": {"+": [1, 2]}, "data": None, "result": 3}]
)


def jsonlogic_suite_cases(seed: int) -> list[Case]:
    spoils: list[tuple[str, dict[str, bytes | str], str]] = [
        ("no index.json", {"a.json": GOOD_SUITE_FILE}, "reject"),
        ("index.json not JSON", {"index.json": "["}, "reject"),
        ("index.json [NaN]", {"index.json": "[NaN]"}, "reject"),
        ("index.json nested 100,000 deep", {"index.json": nested(100_000)}, "reject"),
        ("index.json nested 990 deep", {"index.json": nested(990)}, "reject"),
        ("index.json an object", {"index.json": '{"a.json": 1}'}, "reject"),
        ("index.json not UTF-8", {"index.json": b'["\xff.json"]'}, "reject"),
        (
            "index naming ../../../etc/passwd",
            {"index.json": '["../../../../../etc/passwd"]'},
            "reject",
        ),
        ("index naming /dev/null", {"index.json": '["/dev/null"]'}, "reject"),
        ("index naming a folder", {"index.json": '["sub"]', "sub/x": "1"}, "reject"),
        ("index naming a missing file", {"index.json": '["ghost.json"]'}, "reject"),
        ("a suite file not JSON", {"index.json": '["a.json"]', "a.json": "[{"}, "reject"),
        (
            "a suite file nested 100,000 deep",
            {"index.json": '["a.json"]', "a.json": nested(100_000)},
            "reject",
        ),
        ("a suite file an object", {"index.json": '["a.json"]', "a.json": '{"rule": 1}'}, "reject"),
        ("a case that is a number", {"index.json": '["a.json"]', "a.json": "[1, 2]"}, "reject"),
        (
            "a case without rule",
            {"index.json": '["a.json"]', "a.json": '[{"data": 1, "result": 1}]'},
            "any",
        ),
        (
            "a case expecting NaN",
            {
                "index.json": '["a.json"]',
                "a.json": '[{"rule": {"+": ["nan"]}, "data": null, "result": NaN}]',
            },
            "any",
        ),
        (
            "a case whose rule gives Infinity",
            {
                "index.json": '["a.json"]',
                "a.json": '[{"rule": {"*": [1e308, 10]}, "data": null, "result": 1}]',
            },
            "any",
        ),
        (
            "a case whose rule holds Infinity",
            {
                "index.json": '["a.json"]',
                "a.json": '[{"rule": {"+": [Infinity]}, "data": null, "result": 1}]',
            },
            "any",
        ),
        (
            "a case with a rule nested 990 deep",
            {
                "index.json": '["a.json"]',
                "a.json": (
                    '[{"rule": '
                    + '{"!": ' * 990
                    + "true"
                    + "}" * 990
                    + ', "data": null, "result": 1}]'
                ),
            },
            "any",
        ),
        (
            "a case with a 5,000-digit result",
            {
                "index.json": '["a.json"]',
                "a.json": '[{"rule": 1, "data": null, "result": ' + "9" * 5000 + "}]",
            },
            "any",
        ),
        (
            "a case with a lone surrogate",
            {
                "index.json": '["a.json"]',
                "a.json": '[{"rule": {"cat": ["\\ud800"]}, "data": null, "result": "\\ud800"}]',
            },
            "any",
        ),
        (
            "a case with an error of a wrong type",
            {
                "index.json": '["a.json"]',
                "a.json": '[{"rule": {"throw": "x"}, "data": null, "error": "x"}]',
            },
            "any",
        ),
        (
            "a case with decimal a string",
            {
                "index.json": '["a.json"]',
                "a.json": '[{"rule": 1, "data": null, "result": 1, "decimal": "yes"}]',
            },
            "any",
        ),
        (
            "100,000 cases",
            {
                "index.json": '["a.json"]',
                "a.json": json.dumps(
                    [{"rule": {"+": [1, i]}, "data": None, "result": i + 1} for i in range(100_000)]
                ),
            },
            "any",
        ),
        (
            "a good suite (the control)",
            {"index.json": '["a.json"]', "a.json": GOOD_SUITE_FILE},
            "pass",
        ),
    ]
    cases = []
    for i, (summary, files, expect) in enumerate(spoils):
        for json_flag in ([], ["--json"]):

            def build(folder: Path, files=files, json_flag=json_flag) -> Invocation:
                suite = folder / "suite"
                suite.mkdir()
                for name, data in files.items():
                    (suite / name).parent.mkdir(parents=True, exist_ok=True)
                    (suite / name).write_bytes(data if isinstance(data, bytes) else data.encode())
                return Invocation(["jsonlogic", "suite", *json_flag, "suite"])

            cases.append(
                Case(
                    f"jsonlogic-suite/{i:02d}{''.join(json_flag)}",
                    "jsonlogic suite",
                    "jsonlogic-suite",
                    summary,
                    expect,
                    build,
                    timeout=60,
                )
            )
    for i, (summary, where) in enumerate(
        [("a missing folder", "nope"), ("a file", "f"), ("an empty argument", "")]
    ):
        cases.append(
            Case(
                f"jsonlogic-suite/place/{i}",
                "jsonlogic suite",
                "jsonlogic-suite",
                f"jsonlogic suite on {summary}",
                "reject",
                lambda folder, where=where: (
                    (folder / "f").write_text("[]"),
                    Invocation(["jsonlogic", "suite", where]),
                )[1],
            )
        )
    return cases


# -- clauses --tests ---------------------------------------------------------------------------


def clauses_cases(seed: int) -> list[Case]:
    trees: list[tuple[str, dict[str | bytes, bytes | str], str]] = [
        ("an empty folder", {}, "any"),
        (
            "a test citing an id the catalogue lacks",
            {"test_x.py": "# W6W-" + "NOPE-999\n"},
            "reject",
        ),
        (
            "100,000 citations of one unknown id",
            {"test_x.py": ("# W6W-" + "NOPE-1\n") * 100_000},
            "reject",
        ),
        ("a file that is not UTF-8", {"test_x.py": b"# W6W-FIELD-1 \xff\xfe\n"}, "any"),
        (
            "binary files",
            {"test_bin.py": bytes(range(256)) * 100, "data.bin": b"\x00" * 1000},
            "any",
        ),
        ("a file name that is not UTF-8", {b"test_\xff.py": "# W6W-FIELD-1\n"}, "any"),
        ("a file name with a newline", {"test_\nx.py": "# W6W-FIELD-1\n"}, "any"),
        (
            "a citation with a 5,000-digit number",
            {"test_x.py": "# W6W-FIELD-" + "9" * 5000},
            "reject",
        ),
        ("a 20 MiB file", {"test_big.py": "x" * (20 << 20)}, "any"),
        (
            "a folder nested 200 deep",
            {"/".join(["d"] * 200) + "/test_x.py": "# W6W-FIELD-1\n"},
            "any",
        ),
        ("a symlink loop", {"@loop": "."}, "any"),
        ("a dangling symlink", {"@test_gone.py": "nowhere"}, "any"),
    ]
    cases = []
    for i, (summary, files, expect) in enumerate(trees):
        for spec, json_flag in (("w6w", ["--json"]), ("workfile-stateful", [])):

            def build(folder: Path, files=files, spec=spec, json_flag=json_flag) -> Invocation:
                root = folder / "t"
                root.mkdir()
                for name, data in files.items():
                    if isinstance(name, str) and name.startswith("@"):
                        os.symlink(data, root / name[1:])
                        continue
                    path = (
                        os.path.join(bytes(root), name)
                        if isinstance(name, bytes)
                        else (root / name)
                    )
                    if isinstance(path, Path):
                        path.parent.mkdir(parents=True, exist_ok=True)
                    with open(path, "wb") as handle:
                        handle.write(data if isinstance(data, bytes) else data.encode())
                return Invocation(["clauses", "--spec", spec, "--tests", "t", *json_flag])

            cases.append(
                Case(
                    f"clauses/{i:02d}-{spec}",
                    "clauses",
                    "test-folder",
                    f"clauses --tests: {summary}",
                    # a W6W id is checked against the w6w catalogue only
                    expect if spec == "w6w" or expect != "reject" else "any",
                    build,
                    timeout=60,
                )
            )
    for i, (summary, args, expect) in enumerate(
        [
            ("--tests a missing folder", ["--tests", "nope"], "reject"),
            ("--tests a file", ["--tests", "f"], "reject"),
            ("--tests an empty argument", ["--tests", ""], "reject"),
            ("--tests /dev/null", ["--tests", "/dev/null"], "reject"),
            ("--spec bogus", ["--spec", "bogus"], "reject"),
            (
                "--uncovered --json, every spec",
                ["--uncovered", "--json", "--spec", "harness"],
                "any",
            ),
        ]
    ):
        cases.append(
            Case(
                f"clauses/args/{i}",
                "clauses",
                "argument",
                summary,
                expect,
                lambda folder, args=args: (
                    (folder / "f").write_text("x"),
                    Invocation(["clauses", *args]),
                )[1],
            )
        )
    return cases


# -- --manifests and --workflows -------------------------------------------------------------


def manifest_cases(seed: int) -> list[Case]:
    doc = (EXAMPLES / "workfile" / "onboarding.workfile.yaml").read_bytes()
    scenario = (EXAMPLES / "workfile" / "onboarding.scenario.json").read_bytes()
    spoils: list[tuple[str, dict[str | bytes, bytes | str], str]] = [
        ("an empty folder", {}, "reject"),
        ("a manifest that is not YAML", {"crm.yaml": "connector: [crm\n"}, "reject"),
        ("a manifest alias bomb", {"crm.yaml": yaml_bomb()}, "reject"),
        (
            "a manifest nested 100,000 deep",
            {"crm.yaml": "connector: crm\nactions: " + nested(100_000) + "\n"},
            "reject",
        ),
        ("a manifest not UTF-8", {"crm.yaml": b"connector: crm\xff\n"}, "reject"),
        (
            "a manifest classifying the reserved code timeout",
            {
                "crm.yaml": "connector: crm\nactions:\n  create_account: { effects: write, errors: "
                "{ timeout: retryable } }\n"
            },
            "reject",
        ),
        (
            "a manifest classifying flow.*",
            {
                "crm.yaml": "connector: crm\nactions:\n  create_account:"
                " { effects: write, errors: { flow.x: "
                "fatal } }\n"
            },
            "reject",
        ),
        (
            "a manifest whose connector is another name",
            {"crm.yaml": "connector: chat\nactions: {}\n"},
            "reject",
        ),
        (
            "two manifests for one connector",
            {
                "crm.yaml": "connector: crm\nactions: {}\n",
                "crm2.yaml": "connector: crm\nactions: {}\n",
            },
            "reject",
        ),
        (
            "a manifest with effects a list",
            {"crm.yaml": "connector: crm\nactions:\n  create_account: { effects: [write] }\n"},
            "reject",
        ),
        (
            "a manifest with a python tag",
            {"crm.yaml": "connector: !!python/name:os.system crm\n"},
            "reject",
        ),
        ("a manifest that is a folder", {"crm.yaml/x": "y"}, "reject"),
        ("a manifest that is a dangling symlink", {"@crm.yaml": "nowhere"}, "reject"),
        ("a manifest symlinked to /dev/null", {"@crm.yaml": "/dev/null"}, "reject"),
        (
            "a manifest file name that is not UTF-8",
            {b"\xff.yaml": "connector: x\nactions: {}\n"},
            "any",
        ),
        (
            "a manifest with 5,000-digit numbers",
            {
                "x.yaml": "connector: x\nactions:\n  a: { effects:"
                " read, retries: " + "9" * 5000 + " }\n"
            },
            "reject",
        ),
        (
            "a manifest with a trigger correlating on 10,000 fields",
            {
                "t.yaml": "connector: t\nactions: {}\ntriggers:\n  e:"
                " { kind: external, correlate_on: ["
                + ", ".join(f"f{i}" for i in range(10_000))
                + "] }\n"
            },
            "any",
        ),
    ]
    cases = []
    for i, (summary, files, expect) in enumerate(spoils):
        for command in (
            ["validate", "doc.workfile.yaml", "--json"],
            ["run", "doc.workfile.yaml", "--scenario", "scenario.json", "--json"],
        ):

            def build(folder: Path, files=files, command=command) -> Invocation:
                manifests_folder(folder)
                target = folder / "manifests"
                if summary_replaces(files):
                    for path in list(target.iterdir()):
                        path.unlink()
                for name, data in files.items():
                    if isinstance(name, str) and name.startswith("@"):
                        (target / name[1:]).unlink(missing_ok=True)
                        os.symlink(data, target / name[1:])
                        continue
                    if isinstance(name, bytes):
                        with open(os.path.join(bytes(target), name), "wb") as handle:
                            handle.write(data if isinstance(data, bytes) else data.encode())
                        continue
                    path = target / name
                    if path.exists() and not path.is_dir():
                        path.unlink()
                    if path.parent.is_file():  # "crm.yaml/x": crm.yaml becomes a folder
                        path.parent.unlink()
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(data if isinstance(data, bytes) else data.encode())
                (folder / "doc.workfile.yaml").write_bytes(doc)
                (folder / "scenario.json").write_bytes(scenario)
                return Invocation([*command, "--manifests", "manifests"])

            cases.append(
                Case(
                    f"manifests/{i:02d}-{command[0]}",
                    command[0],
                    "manifest-folder",
                    f"--manifests: {summary}",
                    expect,
                    build,
                )
            )
    for i, (summary, where) in enumerate([("a missing folder", "nope"), ("a file", "f")]):
        cases.append(
            Case(
                f"manifests/place/{i}",
                "validate",
                "manifest-folder",
                f"--manifests {summary}",
                "reject",
                lambda folder, where=where: (
                    (folder / "f").write_text("x"),
                    (folder / "doc.workfile.yaml").write_bytes(doc),
                    Invocation(["validate", "doc.workfile.yaml", "--manifests", where]),
                )[2],
            )
        )
    return cases + workflow_cases(seed)


def summary_replaces(files: dict) -> bool:
    return not files  # the empty folder: remove the examples' manifests


def unreadable(summary: str) -> bool:
    return "bomb" in summary or "not YAML" in summary


CALLER = (
    "steps:\n  - sub: { wf.call: { workflow: child, inputs: { n: 1 } } }\n"
    'outputs:\n  r: "{{ sub }}"\n'
)


def workflow_cases(seed: int) -> list[Case]:
    children: list[tuple[str, dict[str, str], str]] = [
        (
            "a child calling itself",
            {"child.yaml": "steps:\n  - again: { wf.call: { workflow: child, inputs: {} } }\n"},
            "reject",
        ),
        (
            "two workflows calling each other",
            {
                "child.yaml": "inputs: { n: { type: integer }"
                " }\nsteps:\n  - x: { wf.call: { workflow:"
                " other, inputs: {} } }\n",
                "other.yaml": "steps:\n  - y: { wf.call: { workflow: child, inputs: { n: 1 } } }\n",
            },
            "reject",
        ),
        ("a child that is an alias bomb", {"child.yaml": yaml_bomb()}, "reject"),
        ("a child that is not YAML", {"child.yaml": "steps: [\n"}, "reject"),
        (
            "a state-form child",
            {
                "child.yaml": "inputs: { n: { type: integer } }\ninitial: a\n"
                "states:\n  a: { final: true }\n"
            },
            "reject",
        ),
        ("no child", {}, "reject"),
        ("a child named with spaces", {"my child.yaml": "steps: []\n"}, "reject"),
        (
            "a chain of 300 calls",
            {
                **{
                    f"w{i}.yaml": f"steps:\n  - c: {{ wf.call: {{"
                    f" workflow: w{i + 1}, inputs: {{}} }} }}\n"
                    for i in range(300)
                },
                "w300.yaml": "steps:\n  - a: { svc.get: {} }\n",
                "child.yaml": "inputs: { n: { type: integer }"
                " }\nsteps:\n  - c: { wf.call: { workflow:"
                " w0, inputs: {} } }\n",
            },
            "any",
        ),
        (
            "a good child (the control)",
            {
                "child.yaml": "inputs: { n: { type: integer } }\nsteps:\n"
                '  - a: { svc.get: { n: "{{ inputs.n }}" }'
                ' }\noutputs:\n  n: "{{ a }}"\n'
            },
            "pass",
        ),
    ]
    cases = []
    for i, (summary, files, expect) in enumerate(children):
        for command in (
            ["validate", "doc.workfile.yaml", "--json"],
            ["run", "doc.workfile.yaml", "--scenario", "scenario.json", "--json"],
        ):

            def build(folder: Path, files=files, command=command) -> Invocation:
                manifests_folder(folder)
                (folder / "workflows").mkdir()
                for name, data in files.items():
                    (folder / "workflows" / name).write_text(data)
                (folder / "doc.workfile.yaml").write_text(CALLER)
                (folder / "scenario.json").write_text('{"inputs": {}}')
                return Invocation(
                    [*command, "--manifests", "manifests", "--workflows", "workflows"]
                )

            # validate reads the folder's documents (a bomb, a syntax error); a cycle, a
            # missing or state-form child only matter when the call runs (A-140)
            if command[0] == "validate" and expect == "reject" and not unreadable(summary):
                expect = "any"
            cases.append(
                Case(
                    f"workflows/{i:02d}-{command[0]}",
                    command[0],
                    "workflow-folder",
                    f"--workflows: {summary}",
                    expect,
                    build,
                    timeout=60,
                )
            )
    return cases


# -- fixtures --out -----------------------------------------------------------------------------


def fixtures_cases(seed: int) -> list[Case]:
    places = [
        ("--out an existing file", "file.txt", "reject"),
        ("--out under a file", "file.txt/sub", "reject"),
        ("--out /dev/null", "/dev/null", "reject"),
        ("--out an empty argument", "", "reject"),
        ("--out a folder holding other files", "busy", "any"),
        ("--out an existing suite of another specification", "old-suite", "any"),
        ("--out a dangling symlink", "dangling", "any"),
        ("--out a path of 300 nested folders", "/".join(["d"] * 300), "any"),
        ("--out a name that is not UTF-8", b"out-\xff", "any"),
    ]
    cases = []
    for i, (summary, where, expect) in enumerate(places):
        for spec in ("w6w", "harness", "workfile"):

            def build(folder: Path, where=where, spec=spec) -> Invocation:
                (folder / "file.txt").write_text("x")
                (folder / "busy").mkdir()
                (folder / "busy" / "notes.txt").write_text("keep me")
                os.symlink("nowhere/at/all", folder / "dangling")
                copy_suite("harness" if spec != "harness" else "w6w", folder, name="old-suite")
                return Invocation(["fixtures", "--spec", spec, "--out", where, "--count", "2"])

            cases.append(
                Case(
                    f"fixtures/{i:02d}-{spec}",
                    "fixtures",
                    "argument",
                    f"fixtures --spec {spec} {summary}",
                    expect,
                    build,
                    timeout=60,
                    cheap=False,
                )
            )
    return cases


def cases(seed: int) -> list[Case]:
    return (
        conform_cases(seed)
        + jsonlogic_suite_cases(seed)
        + clauses_cases(seed)
        + manifest_cases(seed)
        + fixtures_cases(seed)
    )


_ = random  # the folders are hand-made: no random choice yet
