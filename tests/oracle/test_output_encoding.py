"""Issue 19: output is UTF-8 and ``--json`` output strict JSON, whatever the input (docs/cli.md).

A non-finite number a computation made is written null (as JSON.stringify
does), a lone surrogate as its escape, and a command-line argument that is
not UTF-8 with each bad byte escaped.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest

from wforacle.oracle.cli import main
from wforacle.oracle.console import json_text


def strict(text: str) -> object:
    def refuse(name: str) -> object:
        raise ValueError(f"{name} in output")

    return json.loads(text, parse_constant=refuse)


def test_json_text_writes_non_finite_numbers_as_null_and_escapes_lone_surrogates():
    value = {"a": [1.5, math.inf, -math.inf, math.nan], "b": "x\ud800y", "c": "é"}
    text = json_text(value)
    assert strict(text) == {"a": [1.5, None, None, None], "b": "x\ud800y", "c": "é"}
    text.encode("utf-8")  # no lone surrogate left raw
    assert "é" in text  # the rest stays readable


def test_run_json_of_an_expr_that_overflows_is_strict_json(capsys, tmp_path):
    document = {
        "manifestVersion": "2",
        "id": "wf_h",
        "name": "h",
        "steps": [
            {
                "id": "s",
                "uses": {"app": "a", "action": "b"},
                "with": {"x": {"$expr": {"*": [1e308, 10]}}},
            }
        ],
    }
    (tmp_path / "doc.json").write_text(json.dumps(document))
    (tmp_path / "scenario.json").write_text("{}")
    code = main(
        ["run", str(tmp_path / "doc.json"), "--scenario", str(tmp_path / "scenario.json"), "--json"]
    )
    out = capsys.readouterr().out
    assert code == 0 and "Infinity" not in out
    strict(out)


def test_test_step_json_of_an_unstorable_document_is_json(capsys, tmp_path):
    (tmp_path / "doc.json").write_text("0")
    code = main(["w6w", "test-step", str(tmp_path / "doc.json"), "s", "--json"])
    report = strict(capsys.readouterr().out)
    assert code == 1 and report["params"] is None and report["storable"] is False


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names are bytes")
def test_a_file_name_that_is_not_utf8_is_echoed_escaped(tmp_path):
    name = os.fsencode(tmp_path) + b"/bad\xffname.json"
    with open(name, "w") as handle:
        handle.write('{"steps": []}')
    for extra in ([], [name, "--json"]):  # --json names the file of two documents
        done = subprocess.run(
            [sys.executable, "-m", "wforacle.oracle", "validate", name, *extra],
            capture_output=True,
            env={**os.environ, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"},
        )
        done.stdout.decode("utf-8")  # strict: raw \xff would fail here
        assert b"bad\\udcffname" in done.stdout, done


def test_fixture_files_are_strict_json_too():
    from wforacle.oracle.fixtures import dump

    text = dump({"b": math.inf, "a": "\ud800"})
    assert strict(text) == {"a": "\ud800", "b": None} and text.startswith('{\n  "a"')
    text.encode("utf-8")


# -- progress (issue 17 §6) ----------------------------------------------------------------


def test_progress_is_drawn_only_on_a_terminal_and_never_with_json(monkeypatch, capsys):
    import io
    import sys

    from wforacle.oracle.console import progress_bar

    with progress_bar("examples", 10) as update:  # pytest's stderr is not a terminal
        update(5, 1.0)
    assert capsys.readouterr().err == ""

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    with progress_bar("examples", 10, quiet=True) as update:
        update(5, 1.0)
    assert screen.getvalue() == ""
    with progress_bar("examples", 10) as update:
        update(5, 1.0)
    drawn = screen.getvalue()
    assert "examples" in drawn and "5/10" in drawn and "5/s" in drawn
