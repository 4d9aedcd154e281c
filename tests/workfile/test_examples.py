"""The bundled Workfile examples: each invalid one gives the diagnostics its comments expect.

An ``# expect: CODE`` comment on a line names a diagnostic that line must
give; the test compares the annotated codes with the validator's, so the
expectation is written by hand beside the text it is about, not produced by
the code under test.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from wforacle.model.workfile.manifest import load_manifests
from wforacle.properties.workfile.validate import validate

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "workfile"
EXPECT = re.compile(r"#\s*expect:\s*([a-z_.]+)")


@pytest.mark.parametrize(
    "path", sorted((EXAMPLES / "invalid").glob("*.yaml")), ids=lambda p: p.name
)
def test_each_invalid_example_gives_the_diagnostics_its_comments_name(path):
    text = path.read_text()
    expected = sorted(EXPECT.findall(text))
    manifests = None
    if "--manifests" in text:
        manifests, problems = load_manifests(EXAMPLES / "manifests")
        assert problems == []
    found = sorted(d.code for d in validate(text, manifests).report.diagnostics)
    assert found == expected
