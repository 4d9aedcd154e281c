"""Hostile command lines: every command with arguments that mean nothing, point nowhere,
are not UTF-8, or name an engine that is no engine.

Each case's folder holds the bundled examples under short names (doc.json,
scenario.json, doc.xml, wf.yaml, manifests/) so the arguments are the only
hostile part.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .corpus import Case, Invocation
from .gen_documents import dumps, manifests_folder
from .pieces import EXAMPLES, REPO

W6W_ENGINE = f"{sys.executable} {REPO / 'examples' / 'engines' / 'w6w_engine.py'}"
HX_ENGINE = f"{sys.executable} {REPO / 'examples' / 'engines' / 'harness_engine.py'}"
WF_ENGINE = f"{sys.executable} {REPO / 'examples' / 'engines' / 'workfile_engine.py'}"


def lay_out(folder: Path) -> None:
    """The examples under short names, and a few odd files beside them."""
    w6w = EXAMPLES / "w6w"
    (folder / "doc.json").write_bytes((w6w / "error-routing.json").read_bytes())
    (folder / "scenario.json").write_bytes((w6w / "scenarios" / "error-routing.json").read_bytes())
    (folder / "race.json").write_text(
        json.dumps(
            {
                "manifestVersion": "2",
                "id": "wf_r",
                "name": "r",
                "steps": [
                    {"id": "r", "uses": {"app": "d", "action": "a"}, "fanOut": "parallel"},
                    {"id": "a", "uses": {"app": "d", "action": "a"}},
                    {"id": "b", "uses": {"app": "d", "action": "a"}},
                ],
                "edges": [{"from": "r", "to": "a"}, {"from": "r", "to": "b"}],
            }
        )
    )
    (folder / "doc.xml").write_bytes((EXAMPLES / "harness" / "decision.xml").read_bytes())
    (folder / "hx.json").write_bytes((EXAMPLES / "harness" / "decision.scenario.json").read_bytes())
    (folder / "wf.yaml").write_bytes(
        (EXAMPLES / "workfile" / "onboarding.workfile.yaml").read_bytes()
    )
    (folder / "wf.json").write_bytes(
        (EXAMPLES / "workfile" / "onboarding.scenario.json").read_bytes()
    )
    manifests_folder(folder)
    (folder / "folder").mkdir()
    (folder / "schedule-bad.json").write_text('{"0": 1}')
    (folder / "schedule-nan.json").write_text("[NaN]")
    (folder / "schedule-big.json").write_text("[1e300, -5, 18446744073709551616]")
    (folder / "file.txt").write_text("x")
    (folder / "trace.json").write_text("[]")
    (folder / b"\xff-doc.json".decode("utf-8", "surrogateescape")).write_bytes(
        (w6w / "error-routing.json").read_bytes()
    )
    (folder / "name\nwith a newline.json").write_bytes((w6w / "daily-report.json").read_bytes())
    (folder / "state.json").write_text(dumps({"vars": {"amount": 1}, "steps": {}}).decode())


def arg_case(
    cid: str,
    args: list,
    expect: str,
    summary: str,
    stdin: bytes | None = None,
    timeout: float = 40.0,
    command: str | None = None,
    cheap: bool = True,
) -> Case:
    def build(folder: Path) -> Invocation:
        lay_out(folder)
        return Invocation(args, stdin)

    words = [a for a in args[:2] if isinstance(a, str)]
    if (
        command is None
        and words
        and words[0] in ("w6w", "jsonlogic", "workfile")
        and len(words) > 1
    ):
        command = " ".join(words)
    name = command or (
        args[0] if args and isinstance(args[0], str) and not args[0].startswith("-") else "(none)"
    )
    return Case(
        f"args/{cid}", name, "argument", summary, expect, build, timeout=timeout, cheap=cheap
    )


RUN = ["doc.json", "--scenario", "scenario.json"]
EXPLORE = ["explore", "race.json"]
FUZZ = ["fuzz", "--examples", "2", "--save", "saved"]


def cases(seed: int) -> list[Case]:  # the command lines are hand-made
    doc = (EXAMPLES / "w6w" / "error-routing.json").read_bytes()
    c = arg_case
    out = [
        # no command, unknown commands, help
        c("none", [], "reject", "no arguments at all"),
        c("bogus", ["bogus"], "reject", "an unknown command"),
        c("version", ["--version"], "pass", "--version"),
        c("help", ["--help"], "pass", "--help"),
        c("validate-help", ["validate", "--help"], "pass", "validate --help"),
        c("unknown-option", ["validate", "-x", "doc.json"], "reject", "an unknown option"),
        c("not-utf8-command", [b"\xffvalidate"], "reject", "a command name that is not UTF-8"),
        # validate
        c("validate-none", ["validate"], "reject", "validate without a file"),
        c("validate-missing", ["validate", "nope.json"], "reject", "a file that does not exist"),
        c("validate-folder", ["validate", "folder"], "reject", "a folder as the document"),
        c("validate-empty-arg", ["validate", ""], "reject", "an empty file name"),
        c("validate-long-name", ["validate", "a" * 100_000], "reject", "a 100,000-byte file name"),
        c("validate-dev-null", ["validate", "/dev/null"], "reject", "/dev/null"),
        c("validate-proc", ["validate", "/proc/self/status"], "reject", "/proc/self/status"),
        c("validate-stdin-empty", ["validate", "-"], "reject", "- with an empty stdin", b""),
        c("validate-stdin-twice", ["validate", "-", "-"], "any", "- twice", doc),
        c("validate-stdin-doc", ["validate", "--json", "-"], "pass", "- with the example", doc),
        c(
            "validate-two-specs",
            ["validate", "doc.json", "doc.xml"],
            "reject",
            "a w6w and a Harness document together",
        ),
        c(
            "validate-same-key-twice",
            ["validate", "--json", "doc.json", "doc.json"],
            "reject",
            "one document twice (one key twice: key_conflict)",
        ),
        c(
            "validate-200-files",
            ["validate", "--json", *(["race.json"] * 200)],
            "any",
            "one keyless document 200 times",
        ),
        c(
            "validate-spec-bogus",
            ["validate", "--spec", "bogus", "doc.json"],
            "reject",
            "--spec bogus",
        ),
        c(
            "validate-json-as-harness",
            ["validate", "--spec", "harness", "doc.json"],
            "reject",
            "a JSON document read as Harness",
        ),
        c(
            "validate-json-as-workfile",
            ["validate", "--spec", "workfile", "--json", "doc.json"],
            "reject",
            "a w6w JSON document read as a Workfile",
        ),
        c(
            "validate-xml-as-w6w",
            ["validate", "--spec", "w6w", "doc.xml"],
            "reject",
            "an XML document read as w6w",
        ),
        c(
            "validate-yaml-as-w6w",
            ["validate", "--spec", "w6w", "wf.yaml"],
            "reject",
            "a Workfile read as w6w",
        ),
        c(
            "validate-yaml-as-harness",
            ["validate", "--spec", "harness", "--json", "wf.yaml"],
            "reject",
            "a Workfile read as Harness",
        ),
        c(
            "validate-not-utf8-name",
            ["validate", b"\xff-doc.json"],
            "any",
            "a file name that is not UTF-8 (the file exists)",
        ),
        c(
            "validate-not-utf8-name-json",
            ["validate", "--json", b"\xff-doc.json", "race.json"],
            "any",
            "a file name that is not UTF-8, in a two-document --json report",
        ),
        c(
            "validate-newline-name",
            ["validate", "name\nwith a newline.json", "race.json"],
            "any",
            "a file name holding a newline",
        ),
        c(
            "validate-previous-missing",
            ["validate", "doc.json", "--previous", "nope"],
            "reject",
            "--previous names no file",
        ),
        c(
            "validate-previous-folder",
            ["validate", "doc.json", "--previous", "folder"],
            "reject",
            "--previous names a folder",
        ),
        c(
            "validate-manifests-w6w",
            ["validate", "doc.json", "--manifests", "manifests"],
            "any",
            "--manifests with a w6w document",
        ),
        c(
            "validate-workflows-file",
            ["validate", "wf.yaml", "--workflows", "file.txt"],
            "reject",
            "--workflows names a file",
        ),
        # plan
        c("plan-workfile", ["plan", "wf.yaml"], "reject", "plan of a Workfile (it has none)"),
        c(
            "plan-tie-break",
            ["plan", "doc.json", "--tie-break", "random"],
            "reject",
            "--tie-break random",
        ),
        c("plan-harness", ["plan", "doc.xml", "--json"], "pass", "plan of the Harness example"),
        c(
            "plan-stdin-xml",
            ["plan", "-", "--json"],
            "pass",
            "plan of XML on stdin",
            (EXAMPLES / "harness" / "decision.xml").read_bytes(),
        ),
        # run
        c("run-no-scenario", ["run", "doc.json", "--json"], "any", "run without a scenario"),
        c(
            "run-scenario-missing",
            ["run", "doc.json", "--scenario", "nope"],
            "reject",
            "--scenario names no file",
        ),
        c(
            "run-scenario-folder",
            ["run", "doc.json", "--scenario", "folder"],
            "reject",
            "--scenario names a folder",
        ),
        c(
            "run-doc-as-scenario",
            ["run", "doc.json", "--scenario", "doc.json", "--json"],
            "any",
            "the document as its own scenario",
        ),
        c(
            "run-seed-negative",
            ["run", *RUN, "--schedule", "random", "--seed", "-1"],
            "any",
            "--seed -1",
        ),
        c(
            "run-seed-huge",
            ["run", *RUN, "--schedule", "random", "--seed", "9" * 100],
            "any",
            "--seed of 100 digits",
        ),
        c(
            "run-seed-float",
            ["run", *RUN, "--schedule", "random", "--seed", "1e3"],
            "reject",
            "--seed 1e3",
        ),
        c("run-seed-nan", ["run", *RUN, "--seed", "nan"], "reject", "--seed nan"),
        c(
            "run-replay-from-alone",
            ["run", *RUN, "--replay-from", "charge"],
            "any",
            "--replay-from without --replay",
        ),
        c(
            "run-replay-from-ghost",
            ["run", *RUN, "--replay", "scenario.json", "--replay-from", "ghost"],
            "reject",
            "--replay-from a step that is not there",
        ),
        c(
            "run-itf-onto-input",
            ["run", *RUN, "--itf", "doc.json"],
            "any",
            "--itf overwriting the document it runs",
        ),
        c("run-itf-dev-full", ["run", *RUN, "--itf", "/dev/full"], "reject", "--itf /dev/full"),
        c(
            "run-launch-harness",
            ["run", "doc.xml", "--scenario", "hx.json", "--launch", "eager"],
            "any",
            "a w6w reading for a Harness run",
        ),
        c(
            "run-harness-readings",
            [
                "run",
                "doc.xml",
                "--scenario",
                "hx.json",
                "--all-negative",
                "skipped",
                "--any-cancels",
                "running",
                "--pre-execution-retry",
                "--loop-start",
                "any",
                "--json",
            ],
            "pass",
            "every Harness reading at once",
        ),
        c(
            "run-workfile-no-manifests",
            ["run", "wf.yaml", "--scenario", "wf.json", "--json"],
            "any",
            "a Workfile run without its manifests",
        ),
        c(
            "run-workfile-spec-w6w",
            ["run", "--spec", "w6w", "wf.yaml"],
            "reject",
            "a Workfile run as w6w",
        ),
        c(
            "run-scenario-stdin-and-doc-stdin",
            ["run", "-", "--scenario", "-"],
            "any",
            "the document and the scenario both from stdin",
            doc,
        ),
        # explore
        c("explore-max-states-0", [*EXPLORE, "--max-states", "0"], "reject", "--max-states 0"),
        c("explore-max-states-neg", [*EXPLORE, "--max-states", "-1"], "reject", "--max-states -1"),
        c(
            "explore-max-states-1",
            [*EXPLORE, "--max-states", "1", "--json"],
            "any",
            "--max-states 1",
        ),
        c(
            "explore-max-states-huge",
            [*EXPLORE, "--max-states", "9" * 40, "--json"],
            "any",
            "--max-states of 40 digits",
        ),
        c(
            "explore-max-states-float",
            [*EXPLORE, "--max-states", "1e3"],
            "reject",
            "--max-states 1e3",
        ),
        c("explore-budget-0", [*EXPLORE, "--time-budget", "0"], "reject", "--time-budget 0"),
        c("explore-budget-neg", [*EXPLORE, "--time-budget", "-1"], "reject", "--time-budget -1"),
        c("explore-budget-nan", [*EXPLORE, "--time-budget", "nan"], "reject", "--time-budget nan"),
        c(
            "explore-budget-inf",
            [*EXPLORE, "--time-budget", "inf", "--json"],
            "any",
            "--time-budget inf",
        ),
        c(
            "explore-budget-tiny",
            [*EXPLORE, "--time-budget", "1e-300", "--json"],
            "any",
            "--time-budget 1e-300",
        ),
        c(
            "explore-budget-huge",
            [*EXPLORE, "--time-budget", "1e308", "--json"],
            "any",
            "--time-budget 1e308",
        ),
        c(
            "explore-budget-hex",
            [*EXPLORE, "--time-budget", "0x10"],
            "reject",
            "--time-budget 0x10",
        ),
        c("explore-naive", [*EXPLORE, "--naive", "--json"], "pass", "--naive"),
        # check
        c("check-no-trace", ["check", *RUN], "reject", "check without --trace"),
        c(
            "check-trace-missing",
            ["check", *RUN, "--trace", "nope"],
            "reject",
            "--trace names no file",
        ),
        c(
            "check-trace-folder",
            ["check", *RUN, "--trace", "folder"],
            "reject",
            "--trace names a folder",
        ),
        c(
            "check-trace-empty-list",
            ["check", *RUN, "--trace", "trace.json", "--json"],
            "reject",
            "an empty trace",
        ),
        c(
            "check-trace-stdin-garbage",
            ["check", *RUN, "--trace", "-"],
            "reject",
            "a trace on stdin that is not JSON",
            b"\x00\x01\x02",
        ),
        # fuzz
        c("fuzz-examples-0", [*FUZZ[:1], "--examples", "0"], "reject", "--examples 0"),
        c("fuzz-examples-neg", [*FUZZ[:1], "--examples", "-1"], "reject", "--examples -1"),
        c("fuzz-examples-float", [*FUZZ[:1], "--examples", "1e3"], "reject", "--examples 1e3"),
        c(
            "fuzz-examples-huge",
            ["fuzz", "--examples", "9" * 30, "--time-budget", "2", "--save", "saved", "--json"],
            "any",
            "--examples of 30 digits, 2 s budget",
            cheap=False,
        ),
        c("fuzz-budget-0", [*FUZZ, "--time-budget", "0"], "reject", "--time-budget 0"),
        c("fuzz-budget-nan", [*FUZZ, "--time-budget", "nan"], "reject", "--time-budget nan"),
        c(
            "fuzz-budget-inf",
            [*FUZZ, "--time-budget", "inf", "--json"],
            "any",
            "--time-budget inf with --examples 2",
            cheap=False,
        ),
        c(
            "fuzz-budget-tiny",
            ["fuzz", "--time-budget", "1e-9", "--save", "saved", "--json"],
            "any",
            "--time-budget 1e-9",
            cheap=False,
        ),
        c("fuzz-seed-neg", [*FUZZ, "--seed", "-1", "--json"], "any", "--seed -1", cheap=False),
        c(
            "fuzz-seed-huge",
            [*FUZZ, "--seed", "9" * 50, "--json"],
            "any",
            "--seed of 50 digits",
            cheap=False,
        ),
        c("fuzz-seed-word", [*FUZZ, "--seed", "abc"], "reject", "--seed abc"),
        c("fuzz-timeout-0", [*FUZZ, "--timeout", "0"], "reject", "--timeout 0"),
        c("fuzz-timeout-neg", [*FUZZ, "--timeout", "-1"], "reject", "--timeout -1"),
        c("fuzz-timeout-nan", [*FUZZ, "--timeout", "nan"], "reject", "--timeout nan"),
        c(
            "fuzz-timeout-inf",
            [*FUZZ, "--timeout", "inf", "--json"],
            "any",
            "--timeout inf with a correct engine",
            cheap=False,
        ),
        c("fuzz-engine-empty", [*FUZZ, "--engine", ""], "reject", "--engine ''"),
        c("fuzz-engine-blank", [*FUZZ, "--engine", "   "], "reject", "--engine of spaces"),
        c(
            "fuzz-engine-missing",
            [*FUZZ, "--engine", "no-such-engine-binary-xyz", "--json"],
            "reject",
            "--engine names no program",
        ),
        c(
            "fuzz-engine-unquoted",
            [*FUZZ, "--engine", 'python3 "unterminated'],
            "reject",
            "--engine with an unterminated quote",
        ),
        c(
            "fuzz-engine-true",
            [*FUZZ, "--engine", "true", "--json"],
            "reject",
            "--engine true (exits at once)",
        ),
        c(
            "fuzz-engine-cat",
            [*FUZZ, "--engine", "cat", "--timeout", "1", "--json"],
            "reject",
            "--engine cat (echoes the oracle)",
            cheap=False,
        ),
        c(
            "fuzz-engine-yes",
            [*FUZZ, "--engine", "yes", "--timeout", "1", "--json"],
            "reject",
            "--engine yes (floods y lines)",
        ),
        c(
            "fuzz-engine-sleep",
            [*FUZZ, "--engine", "sleep 100", "--timeout", "1", "--json"],
            "reject",
            "--engine sleep 100 (never ready)",
            cheap=False,
        ),
        c(
            "fuzz-engine-dev-null",
            [*FUZZ, "--engine", "/dev/null"],
            "reject",
            "--engine /dev/null (not executable)",
        ),
        c("fuzz-engine-folder", [*FUZZ, "--engine", "folder"], "reject", "--engine a folder"),
        c(
            "fuzz-engine-not-utf8",
            [*FUZZ, "--engine", b"\xff\xfe"],
            "reject",
            "--engine that is not UTF-8",
        ),
        c(
            "fuzz-engine-other-spec",
            [*FUZZ, "--spec", "harness", "--engine", W6W_ENGINE, "--timeout", "2", "--json"],
            "reject",
            "a w6w engine in a Harness campaign",
            cheap=False,
        ),
        c(
            "fuzz-engine-workfile-as-w6w",
            [*FUZZ, "--engine", WF_ENGINE, "--timeout", "2", "--json"],
            "reject",
            "a Workfile engine in a w6w campaign",
            cheap=False,
        ),
        c(
            "fuzz-profile-mismatch",
            [*FUZZ, "--spec", "w6w", "--profile", "workfile-stateful", "--json"],
            "any",
            "--profile of another specification",
            cheap=False,
        ),
        c(
            "fuzz-profile-harness-for-workfile",
            [*FUZZ, "--spec", "workfile", "--profile", "harness", "--json"],
            "any",
            "--profile harness for workfile",
            cheap=False,
        ),
        c(
            "fuzz-save-file",
            [
                "fuzz",
                "--engine",
                W6W_ENGINE + " --bug no-skip",
                "--examples",
                "300",
                "--time-budget",
                "10",
                "--save",
                "file.txt",
                "--json",
            ],
            "reject",
            "a finding saved under a file",
            timeout=90,
            cheap=False,
        ),
        c(
            "fuzz-save-dev-full",
            [
                "fuzz",
                "--engine",
                W6W_ENGINE + " --bug no-skip",
                "--examples",
                "300",
                "--time-budget",
                "10",
                "--save",
                "/dev/full",
            ],
            "reject",
            "a finding saved under /dev/full",
            timeout=90,
            cheap=False,
        ),
        # shrink
        c(
            "shrink-budget-0",
            ["shrink", *RUN, "--engine", W6W_ENGINE, "--budget", "0"],
            "reject",
            "--budget 0",
        ),
        c(
            "shrink-budget-nan",
            ["shrink", *RUN, "--engine", W6W_ENGINE, "--budget", "nan"],
            "reject",
            "--budget nan",
        ),
        c("shrink-no-engine", ["shrink", *RUN], "reject", "shrink without --engine"),
        c(
            "shrink-schedule-missing",
            ["shrink", *RUN, "--engine", W6W_ENGINE, "--schedule", "nope"],
            "reject",
            "--schedule names no file",
        ),
        c(
            "shrink-schedule-object",
            ["shrink", *RUN, "--engine", W6W_ENGINE, "--schedule", "schedule-bad.json"],
            "reject",
            "--schedule an object",
        ),
        c(
            "shrink-schedule-nan",
            ["shrink", *RUN, "--engine", W6W_ENGINE, "--schedule", "schedule-nan.json"],
            "reject",
            "--schedule [NaN]",
        ),
        c(
            "shrink-schedule-big",
            [
                "shrink",
                "race.json",
                "--engine",
                W6W_ENGINE,
                "--schedule",
                "schedule-big.json",
                "--json",
            ],
            "any",
            "--schedule [1e300, -5, 2**64]",
        ),
        c(
            "shrink-passing-json",
            ["shrink", *RUN, "--engine", W6W_ENGINE, "--json"],
            "any",
            "shrink --json of a case the engine passes",
        ),
        c(
            "shrink-harness-w6w-engine",
            [
                "shrink",
                "doc.xml",
                "--scenario",
                "hx.json",
                "--engine",
                W6W_ENGINE,
                "--timeout",
                "2",
                "--budget",
                "5",
                "--json",
            ],
            "reject",
            "shrink a Harness case with a w6w engine",
            cheap=False,
        ),
        c(
            "shrink-buggy",
            [
                "shrink",
                "race.json",
                "--engine",
                W6W_ENGINE + " --bug no-skip",
                "--budget",
                "5",
                "--json",
            ],
            "any",
            "shrink with a buggy engine",
            cheap=False,
        ),
        # fixtures
        c("fixtures-count-0", ["fixtures", "--out", "o", "--count", "0"], "reject", "--count 0"),
        c(
            "fixtures-count-neg",
            ["fixtures", "--out", "o", "--count", "-1"],
            "reject",
            "--count -1",
        ),
        c(
            "fixtures-count-float",
            ["fixtures", "--out", "o", "--count", "1e3"],
            "reject",
            "--count 1e3",
        ),
        c(
            "fixtures-seed-neg",
            ["fixtures", "--out", "o", "--count", "1", "--seed", "-5"],
            "any",
            "--seed -5",
        ),
        c(
            "fixtures-seed-huge",
            ["fixtures", "--out", "o", "--count", "1", "--seed", "9" * 60],
            "any",
            "--seed of 60 digits",
        ),
        c("fixtures-no-out", ["fixtures"], "reject", "fixtures without --out"),
        c(
            "fixtures-all",
            ["fixtures", "--spec", "all", "--out", "o", "--count", "1"],
            "pass",
            "--spec all",
            cheap=False,
        ),
        c(
            "fixtures-conformance-workfile",
            [
                "fixtures",
                "--spec",
                "workfile",
                "--profile",
                "conformance",
                "--out",
                "o",
                "--count",
                "1",
            ],
            "pass",
            "--profile conformance for workfile",
            cheap=False,
        ),
        c(
            "fixtures-profile-core-harness",
            ["fixtures", "--spec", "harness", "--profile", "core", "--out", "o", "--count", "1"],
            "any",
            "--profile core for harness",
        ),
        # conform and protocol-selftest
        c(
            "conform-timeout-0",
            ["conform", "folder", "--engine", W6W_ENGINE, "--timeout", "0"],
            "reject",
            "conform --timeout 0",
        ),
        c("conform-no-engine", ["conform", "folder"], "reject", "conform without --engine"),
        c(
            "selftest-engine-empty",
            ["protocol-selftest", "--engine", ""],
            "reject",
            "protocol-selftest --engine ''",
        ),
        c(
            "selftest-timeout-nan",
            ["protocol-selftest", "--engine", W6W_ENGINE, "--timeout", "nan"],
            "reject",
            "protocol-selftest --timeout nan",
        ),
        c(
            "selftest-harness-with-w6w",
            ["protocol-selftest", "--spec", "harness", "--engine", W6W_ENGINE, "--timeout", "2"],
            "reject",
            "a w6w engine checked as a Harness one",
            cheap=False,
        ),
        c(
            "selftest-workfile-with-harness",
            ["protocol-selftest", "--spec", "workfile", "--engine", HX_ENGINE, "--timeout", "2"],
            "reject",
            "a Harness engine checked as a Workfile one",
            cheap=False,
        ),
        c(
            "selftest-w6w-control",
            ["protocol-selftest", "--engine", W6W_ENGINE],
            "pass",
            "the bundled w6w engine (the control)",
        ),
        c(
            "selftest-workfile-control",
            ["protocol-selftest", "--spec", "workfile", "--engine", WF_ENGINE],
            "pass",
            "the bundled Workfile engine",
        ),
        # test-step, jsonlogic differential
        c(
            "test-step-no-step",
            ["w6w", "test-step", "doc.json"],
            "reject",
            "test-step without a step",
        ),
        c(
            "test-step-ghost",
            ["w6w", "test-step", "doc.json", "ghost"],
            "reject",
            "test-step of a step that is not there",
        ),
        c(
            "test-step-empty",
            ["w6w", "test-step", "doc.json", ""],
            "reject",
            "test-step of the step ''",
        ),
        c(
            "test-step-state",
            ["w6w", "test-step", "doc.json", "charge", "--state", "state.json", "--json"],
            "pass",
            "test-step with a state (the control)",
        ),
        c(
            "test-step-harness",
            ["w6w", "test-step", "doc.xml", "a"],
            "reject",
            "test-step of a Harness document",
        ),
        c(
            "differential-examples-0",
            ["jsonlogic", "differential", "--examples", "0"],
            "reject",
            "jsonlogic differential --examples 0",
        ),
        c(
            "differential-js",
            ["jsonlogic", "differential", "--examples", "20", "--json"],
            "any",
            "jsonlogic differential against js (node may be missing its modules)",
            cheap=False,
        ),
        c(
            "differential-engine-typed",
            [
                "jsonlogic",
                "differential",
                "--against",
                "engine",
                "--typed",
                "--examples",
                "20",
                "--seed",
                "-3",
            ],
            "any",
            "jsonlogic differential against json-logic-engine, typed",
            cheap=False,
        ),
        c(
            "jsonlogic-eval-args",
            ["jsonlogic", "eval", "extra"],
            "reject",
            "jsonlogic eval with an argument",
        ),
        c(
            "workfile-refs-none",
            ["workfile", "refs"],
            "reject",
            "workfile refs without an expression",
        ),
    ]
    return out
