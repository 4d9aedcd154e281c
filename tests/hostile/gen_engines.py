"""The misbehaving engine's every fault, against every command that drives an engine.

examples/engines/misbehaving_engine.py relays the bundled correct engine
and breaks the protocol one way per ``--fault``; its ``--list`` says which
faults a correct oracle must judge a pass (benign manners), which a fault or
divergence, and which it need not notice.  Every fault runs under
``protocol-selftest`` and ``fuzz`` for w6w; a representative subset under
``conform`` for w6w, under ``protocol-selftest``, ``fuzz`` and ``conform`` for
Harness, Workfile Core and the Stateful Profile, and under ``shrink``.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

from .corpus import Case, Invocation, copy_suite
from .pieces import EXAMPLES, REPO

ENGINE = REPO / "examples" / "engines" / "misbehaving_engine.py"
TIMEOUT = "2"  # seconds the oracle waits for a message: slow-start says ready after 1


@functools.cache
def faults() -> dict[str, tuple[str, str]]:
    """name -> (verdict, what), as the engine's ``--list`` prints them."""
    listed = subprocess.run(
        [sys.executable, str(ENGINE), "--list"], capture_output=True, text=True, check=True
    ).stdout
    found = {}
    for line in listed.splitlines():
        name, verdict, what = line.split("\t")
        found[name] = (verdict, what)
    return found


SUBSET = [
    "none",
    "stderr-flood",
    "log-noise",
    "ignore-shutdown",
    "crash",
    "exit-mid-run",
    "hang",
    "never-ready",
    "silent-after-ready",
    "sigstop",
    "close-stdin",
    "exit-leaving-child",
    "flood",
    "huge-line",
    "many-invokes",
    "nan",
    "big-int",
    "big-int-4000",
    "deep-json",
    "deep-json-990",
    "lone-surrogate",
    "invalid-utf8",
    "type-list",
    "type-object",
    "event-not-object",
    "event-name-list",
    "event-fields-lists",
    "event-fields-objects",
    "event-fields-null",
    "event-step-huge",
    "invoke-call-float",
    "invoke-call-object",
    "invoke-unit-list",
    "invoke-input-deep",
    "done-state-list",
    "done-state-string",
    "done-state-null",
    "done-state-lists",
    "done-state-objects",
    "done-state-deep",
    "done-steps-wrong",
    "cancel-unknown-call",
    "wait-first",
    "duplicate-invoke",
    "invoke-unknown-unit",
    "done-outstanding",
    "extra-after-done",
    "echo",
    "ready-deep-name",
]


def engine_command(fault: str, spec: str, tag: str) -> str:
    return f"{sys.executable} {ENGINE} --fault {fault} --spec {spec} --tag {tag}"


def expectation(verdict: str, command: str, fault: str) -> str:
    if fault == "ignore-shutdown" and command == "protocol-selftest":
        return "reject"  # the self-test's last check: the engine exits on shutdown
    return {"pass": "pass", "fail": "reject", "any": "any"}[verdict]


def selftest(fault: str, spec: str) -> Case:
    def build(folder: Path) -> Invocation:
        return Invocation(
            [
                "protocol-selftest",
                "--spec",
                spec,
                "--engine",
                engine_command(fault, spec, folder.name),
                "--timeout",
                TIMEOUT,
            ]
        )

    verdict, what = faults()[fault]
    return Case(
        f"engine/selftest-{spec}/{fault}",
        "protocol-selftest",
        "engine",
        f"{fault}: {what}",
        expectation(verdict, "protocol-selftest", fault),
        build,
        timeout=90,
        cheap=fault in CHEAP,
    )


def fuzz(fault: str, spec: str, profile: str | None = None) -> Case:
    def build(folder: Path) -> Invocation:
        args = [
            "fuzz",
            "--spec",
            spec,
            "--engine",
            engine_command(fault, spec, folder.name),
            "--examples",
            "3",
            "--timeout",
            TIMEOUT,
            "--save",
            "saved",
            "--json",
        ]
        if profile:
            args += ["--profile", profile]
        return Invocation(args)

    verdict, what = faults()[fault]
    label = profile or spec
    return Case(
        f"engine/fuzz-{label}/{fault}",
        "fuzz",
        "engine",
        f"{fault}: {what}",
        expectation(verdict, "fuzz", fault),
        build,
        timeout=120,
        cheap=False,
    )


def conform(fault: str, spec: str, profile: str | None = None) -> Case:
    def build(folder: Path) -> Invocation:
        copy_suite(spec, folder, profile)
        return Invocation(
            [
                "conform",
                "suite",
                "--engine",
                engine_command(fault, spec, folder.name),
                "--timeout",
                TIMEOUT,
                "--json",
            ]
        )

    verdict, what = faults()[fault]
    label = profile or spec
    return Case(
        f"engine/conform-{label}/{fault}",
        "conform",
        "engine",
        f"{fault}: {what}",
        expectation(verdict, "conform", fault),
        build,
        timeout=120,
        cheap=False,
    )


def shrink(fault: str) -> Case:
    doc = (EXAMPLES / "w6w" / "error-routing.json").read_bytes()
    scenario = (EXAMPLES / "w6w" / "scenarios" / "error-routing.json").read_bytes()

    def build(folder: Path) -> Invocation:
        (folder / "doc.json").write_bytes(doc)
        (folder / "scenario.json").write_bytes(scenario)
        return Invocation(
            [
                "shrink",
                "doc.json",
                "--scenario",
                "scenario.json",
                "--engine",
                engine_command(fault, "w6w", folder.name),
                "--timeout",
                TIMEOUT,
                "--budget",
                "10",
                "--json",
            ]
        )

    verdict, what = faults()[fault]
    return Case(
        f"engine/shrink-w6w/{fault}",
        "shrink",
        "engine",
        f"{fault}: {what}",
        expectation(verdict, "shrink", fault),
        build,
        timeout=120,
        cheap=False,
    )


# quick under protocol-selftest: the fault shows at once (no timeout to wait out)
CHEAP = {
    "none",
    "crash",
    "nan",
    "deep-json",
    "type-list",
    "event-name-list",
    "done-state-list",
    "invoke-call-float",
    "big-int",
    "lone-surrogate",
    "exit-before-ready",
    "event-fields-lists",
    "done-state-lists",
    "unknown-type",
    "wait-first",
}


def cases(seed: int) -> list[Case]:  # the faults are a fixed list
    names = list(faults())
    out: list[Case] = []
    out += [selftest(f, "w6w") for f in names]
    out += [fuzz(f, "w6w") for f in names]
    out += [conform(f, "w6w") for f in SUBSET]
    for spec in ("harness", "workfile"):
        out += [selftest(f, spec) for f in SUBSET]
    for spec in ("harness", "workfile"):
        out += [fuzz(f, spec) for f in SUBSET[::2]]
        out += [conform(f, spec) for f in SUBSET[1::2]]
    out += [fuzz(f, "workfile", "workfile-stateful") for f in SUBSET[1::2]]
    out += [conform(f, "workfile", "workfile-stateful") for f in SUBSET[::2]]
    out += [shrink(f) for f in SUBSET[:16]]
    return out
