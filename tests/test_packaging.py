"""The repository folders are importable only under the wforacle namespace."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("folder", ["model", "grammar", "properties", "oracle"])
def test_bare_folder_import_is_refused(folder):
    result = subprocess.run(
        [sys.executable, "-c", f"import {folder}"], cwd=REPO, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert f"import wforacle.{folder}" in result.stderr


def test_grammars_load_through_importlib_resources():
    from wforacle.grammar import matches, parser

    assert parser("names", "workflow_key") is parser("names", "workflow_key")  # cached
    assert matches("names", "workflow_key", "abc") and not matches("names", "workflow_key", "a")


def test_every_package_folder_is_listed_for_a_non_editable_install():
    # A folder missing from pyproject's packages imports in an editable install
    # and is silently absent from a wheel.
    import tomllib

    listed = set(
        tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        "wforacle." + ".".join(p.parent.relative_to(REPO).parts)
        for folder in ("model", "grammar", "properties", "oracle")
        for p in (REPO / folder).rglob("__init__.py")
    }
    assert found <= listed, sorted(found - listed)
