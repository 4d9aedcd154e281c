"""No engine process outlives wforacle; an engine's stderr is drained and shown (issue 21).

Each engine here is a small Python script that first spawns a grandchild
(``sleep`` with a token unique to the test), so a process left behind — the
engine or anything in its process group — shows up in /proc by that token.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.oracle.test_engine import ONE_STEP
from wforacle.oracle.engine import Engine, Fault, judge
from wforacle.properties.w6w.specification import W6W

pytestmark = pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")

ROOT = Path(__file__).resolve().parents[2]


def alive(token: str) -> list[int]:
    """Processes (not zombies) whose command line holds ``token``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if token.encode() in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def gone(token: str, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while alive(token):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def listed(token: str, count: int, within: float = 5.0) -> int:
    """How many processes hold ``token``, waiting up to ``within`` s for ``count``.

    A loaded machine may list a freshly spawned grandchild late.
    """
    deadline = time.monotonic() + within
    while len(alive(token)) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return len(alive(token))


def engine_script(tmp_path: Path, token: str, body: str) -> str:
    """An engine command: spawn a grandchild ``sleep``, then run ``body``."""
    script = tmp_path / f"engine-{token}.py"
    script.write_text(
        f"import json, subprocess, sys, time\nsubprocess.Popen(['sleep', '1000.{token}'])\n" + body
    )
    return f"{sys.executable} {script}"


READY = 'print(json.dumps({"type": "ready", "protocol": 1}), flush=True)\n'
MODES = {
    "no ready": "time.sleep(60)\n",
    "silent exit": "sys.exit(0)\n",
    "bad ready": 'print(json.dumps({"type": "hello"}), flush=True)\ntime.sleep(60)\n',
    "crash mid-run": READY + "sys.stdin.readline()\nsys.exit(3)\n",
    "hang mid-run": READY + "sys.stdin.readline()\ntime.sleep(60)\n",
}


def token() -> str:
    return str(uuid.uuid4().int % 10**12)


@pytest.mark.parametrize("mode", list(MODES))
def test_no_engine_process_is_left_after_a_failure(tmp_path, mode):
    mark = token()
    engine = Engine(engine_script(tmp_path, mark, MODES[mode]), timeout=0.5)
    try:
        if mode in ("no ready", "silent exit", "bad ready"):
            with pytest.raises(Fault):
                engine.start()
            assert engine.process is None
            assert gone(mark), f"{mode}: left running {alive(mark)}"
        else:
            judgement = judge(engine, W6W, ONE_STEP)
            assert judgement.verdict == "fault"
            assert engine.process is not None  # restarted for the next run
    finally:
        engine.stop()
    assert gone(mark), f"{mode}: left running {alive(mark)}"


def test_stop_kills_the_engine_process_group(tmp_path):
    mark = token()
    engine = Engine(engine_script(tmp_path, mark, READY + "time.sleep(60)\n"), timeout=2)
    engine.start()
    assert listed(mark, 2) == 2  # the engine and its grandchild
    engine.stop()
    assert gone(mark)


def _wforacle_script(tmp_path: Path, command: str, then: str) -> Path:
    """A process that starts an engine inside a wforacle command, then ``then``."""
    script = tmp_path / "host.py"
    script.write_text(
        "import os, sys, time\n"
        "from wforacle.oracle import cli\n"
        "from wforacle.oracle.engine import Engine\n"
        "def started(args):\n"
        f"    Engine({command!r}, timeout=5).start()\n"
        "    print('started', flush=True)\n"
        f"    {then}\n"
        "cli.cmd_plan = started\n"
        "code = cli.main(['plan', 'x.json'])\n"
        "os._exit(code)  # no atexit: the command's own path must end the engine\n"
    )
    return script


def test_an_internal_error_ends_every_engine(tmp_path):
    mark = token()
    command = engine_script(tmp_path, mark, READY + "time.sleep(60)\n")
    host = _wforacle_script(tmp_path, command, "raise RuntimeError('a bug')")
    done = subprocess.run(
        [sys.executable, str(host)], cwd=ROOT, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 3, done.stderr
    assert "internal error" in done.stderr
    assert gone(mark), f"left running {alive(mark)}"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_every_engine_and_is_re_raised(tmp_path, signum):
    mark = token()
    command = engine_script(tmp_path, mark, READY + "time.sleep(60)\n")
    host = _wforacle_script(tmp_path, command, "time.sleep(60)")
    process = subprocess.Popen(
        [sys.executable, str(host)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline() == b"started\n"
        assert listed(mark, 2) == 2
        process.send_signal(signum)
        code = process.wait(timeout=10)
    finally:
        process.kill()
        process.wait()
    # SIGTERM's default ends the process; SIGINT's raises KeyboardInterrupt (exit 130).
    assert code == (-signal.SIGTERM if signum == signal.SIGTERM else 130)
    assert gone(mark), f"left running {alive(mark)}"


# -- stderr is drained and shown ----------------------------------------------------------


def test_an_engine_writing_much_to_stderr_passes(tmp_path):
    """200 KiB on stderr before answering: the pipe is drained, so no hang verdict."""
    script = tmp_path / "chatty.py"
    example = ROOT / "examples" / "engines" / "w6w_engine.py"
    script.write_text(
        "import runpy, sys\n"
        "for _ in range(200):\n"
        "    sys.stderr.write('x' * 1023 + '\\n')\n"
        "sys.stderr.flush()\n"
        f"sys.argv = [{str(example)!r}]\n"
        f"runpy.run_path({str(example)!r}, run_name='__main__')\n"
    )
    engine = Engine(f"{sys.executable} {script}", timeout=5)
    try:
        judgement = judge(engine, W6W, ONE_STEP)
        assert judgement.verdict == "pass", judgement.to_json()
        assert engine.stderr is not None and len(engine.stderr.text()) == 64 * 1024
    finally:
        engine.stop()


def test_a_crashing_engines_fault_shows_its_stderr_tail(tmp_path):
    mark = token()
    body = READY + (
        "sys.stdin.readline()\n"
        "print('noise\\n' * 5000, file=sys.stderr)\n"
        "print('Traceback: the engine fell over', file=sys.stderr, flush=True)\n"
        "sys.exit(3)\n"
    )
    engine = Engine(engine_script(tmp_path, mark, body), timeout=5)
    try:
        judgement = judge(engine, W6W, ONE_STEP)
    finally:
        engine.stop()
    assert judgement.fault is not None and judgement.fault.kind == "crash"
    assert "exited with code 3" in judgement.fault.message
    assert "the engine fell over" in judgement.fault.message


def test_a_bad_ready_shows_the_stderr_tail(tmp_path):
    mark = token()
    body = "print('cannot load config', file=sys.stderr, flush=True)\nprint('{}', flush=True)\n"
    engine = Engine(engine_script(tmp_path, mark, body), timeout=5)
    with pytest.raises(Fault, match="cannot load config"):
        engine.start()
    assert gone(mark)


HOSTILE = Path(__file__).resolve().parent / "engines" / "hostile.py"


@pytest.mark.parametrize("mode", ["nan", "infinity", "deep", "bigint", "list-call", "list-unit"])
def test_a_hostile_engine_message_is_a_protocol_fault_not_a_pass_or_a_crash(mode):
    # Issue 19: an engine message is hostile input.  NaN and Infinity are not
    # JSON (no false pass), and deep nesting, a 5,000-digit integer or a list
    # where an id belongs must be the engine's fault, not wforacle's.
    from wforacle.oracle.engine import Engine, judge
    from wforacle.properties.registry import SPECIFICATIONS

    spec = SPECIFICATIONS["workfile"]
    case = spec.conformance()[0].case
    engine = Engine(f"{sys.executable} {HOSTILE} {mode}")
    try:
        judgement = judge(engine, spec, case)
    finally:
        engine.stop()
    assert judgement.verdict == "fault"
    assert judgement.fault.kind == "protocol"
    assert len(judgement.fault.message) < 2000
