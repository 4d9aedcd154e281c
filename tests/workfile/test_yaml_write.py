"""The YAML writer: libyaml's emitter writes what PyYAML's own does.

Generated Workfiles and shrunk ones are written with libyaml's emitter where
PyYAML has it (model/workfile/yamlsafe.py ``write``), PyYAML's pure-Python
emitter otherwise.  The same seed must give the same cases byte for byte on
every machine, so the two must agree on everything written; and whatever is
written reads back as the data it came from.
"""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from wforacle.model.workfile.yamlsafe import read, write
from wforacle.properties.strategies.workfile_runs import workfile_cases
from wforacle.properties.strategies.workfile_states import state_cases

needs_libyaml = pytest.mark.skipif(
    not yaml.__with_libyaml__, reason="PyYAML was built without libyaml: one emitter only"
)


def by_python(data, *, aliases=True, allow_unicode=False):
    class Unaliased(yaml.SafeDumper):
        def ignore_aliases(self, data):
            return True

    dumper = yaml.SafeDumper if aliases else Unaliased
    options = {"sort_keys": False, "width": 1 << 16, "allow_unicode": allow_unicode}
    return yaml.dump(data, Dumper=dumper, **options)


KEYS = st.from_regex(r"[A-Za-z0-9_.$-]{1,20}", fullmatch=True)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=20,
)


@needs_libyaml
@given(case=workfile_cases() | state_cases())
def test_both_emitters_write_every_generated_document_alike(case):
    for text in [case["document"], *(case.get("workflows") or {}).values()]:
        data = yaml.safe_load(text)
        assert write(data) == by_python(data)
        assert write(data, aliases=False) == by_python(data, aliases=False)


@needs_libyaml
@given(data=st.dictionaries(KEYS, JSON_VALUES))
def test_both_emitters_write_any_json_mapping_with_identifier_keys_alike(data):
    # What a generator writes: a mapping (libyaml ends a bare scalar without "..."), keys
    # that are identifiers (it writes an empty key otherwise), ASCII output (it writes a
    # character outside the BMP otherwise under allow_unicode).
    assert write(data) == by_python(data)
    assert write(data, allow_unicode=True) == by_python(data, allow_unicode=True)


@given(case=workfile_cases() | state_cases())
def test_a_written_document_reads_back_as_its_data(case):
    data = yaml.safe_load(case["document"])
    assert read(write(data, allow_unicode=True)) == read(case["document"])
