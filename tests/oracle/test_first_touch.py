"""The first touch explains itself (issue 21): help shows defaults; Harness examples run."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from wforacle.oracle.cli import build_parser, main

REPO = Path(__file__).resolve().parents[2]
HARNESS_EXAMPLES = sorted((REPO / "examples" / "harness").glob("*.xml"))


def parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from parsers(sub, (*path, name))


def test_every_help_shows_its_options_defaults(monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # no wrapping inside a default
    checked = 0
    for path, parser in parsers(build_parser()):
        text = parser.format_help()  # renders every %-format: a stray % raises
        for action in parser._actions:
            default = action.default
            if not action.option_strings or default in (None, argparse.SUPPRESS):
                continue
            if default is False:
                continue
            assert action.help, f"wforacle {' '.join(path)} {action.option_strings[0]}: no help"
            assert f"default: {default}" in text or "default" in action.help, (
                f"wforacle {' '.join(path)} --help does not show the default of "
                f"{action.option_strings[0]} ({default!r})"
            )
            checked += 1
    assert checked >= 15  # fuzz --examples 500, --timeout 10.0, ...


def test_fuzz_help_names_its_examples_and_timeout_defaults(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")
    with pytest.raises(SystemExit):
        main(["fuzz", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default 500; with --time-budget alone, no limit)" in text
    assert "(default: 10.0)" in text


def test_the_repository_ships_harness_examples_the_readme_names():
    assert len(HARNESS_EXAMPLES) >= 3
    readme = (REPO / "README.md").read_text()
    for example in HARNESS_EXAMPLES:
        assert f"examples/harness/{example.name}" in readme


@pytest.mark.parametrize("example", HARNESS_EXAMPLES, ids=lambda p: p.name)
def test_every_harness_example_validates_and_runs(example, capsys):
    assert main(["validate", str(example)]) == 0, capsys.readouterr()
    scenario = example.with_suffix(".scenario.json")
    argv = ["run", str(example)] + (["--scenario", str(scenario)] if scenario.exists() else [])
    assert main(argv) == 0, capsys.readouterr()
    assert main(["explore", str(example)]) == 0, capsys.readouterr()
