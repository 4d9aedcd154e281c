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
