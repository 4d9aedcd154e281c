"""Generated Workfiles: valid by construction validate clean; each mutant gives its diagnostic."""

from __future__ import annotations

import contextlib

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wforacle.model.workfile.manifest import load_manifest
from wforacle.model.workfile.yamlsafe import YamlProblem, read
from wforacle.properties.strategies.workfile import manifest_mutants, manifests, mutants, workfiles
from wforacle.properties.workfile.validate import validate


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(workfiles())
def test_every_generated_workfile_is_valid_and_round_trips_through_yaml(document):
    text = yaml.safe_dump(document, sort_keys=False)
    assert read(text) == document
    report = validate(text).report
    assert report.diagnostics == (), [d.to_json() for d in report.diagnostics]


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(mutants())
def test_every_mutant_gives_the_diagnostic_its_mutation_implies(case):
    document, mutation, code = case
    found = [d.code for d in validate(yaml.safe_dump(document, sort_keys=False)).report.diagnostics]
    assert code in found, (mutation, found)


@given(st.binary(max_size=400) | st.text(max_size=400))
def test_arbitrary_bytes_never_escape_as_anything_but_diagnostics(text):
    with contextlib.suppress(YamlProblem):
        read(text)
    validate(text)  # never raises: every problem is a diagnostic


@given(manifests())
def test_every_generated_manifest_loads_clean(manifest):
    loaded, problems = load_manifest(yaml.safe_dump(manifest))
    assert problems == [] and loaded is not None
    for name, action in manifest["actions"].items():
        spec = loaded.actions[name]
        for code, classification in action["errors"].items():
            if not code.endswith(".*") and "x" not in code.split(".")[-1]:
                # Code-Pattern Matching: an exact entry decides its own code (WF-CODE-1).
                assert spec.classify(code) == classification


@given(manifest_mutants())
def test_every_manifest_mutant_gives_its_code(case):
    manifest, mutation, code = case
    _, problems = load_manifest(yaml.safe_dump(manifest))
    assert code in [p.code for p in problems], (mutation, problems)
