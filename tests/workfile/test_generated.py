"""Generated Workfiles: valid by construction validate clean; each mutant gives its diagnostic."""

from __future__ import annotations

import contextlib

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wforacle.model.workfile.yamlsafe import YamlProblem, read
from wforacle.properties.strategies.workfile import mutants, workfiles
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
