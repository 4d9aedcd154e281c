"""The YAML writer: libyaml's emitter writes what PyYAML's own does.

Generated Workfiles and shrunk ones are written with libyaml's emitter where
PyYAML has it (model/workfile/yamlsafe.py ``write``), PyYAML's pure-Python
emitter otherwise.  The same seed must give the same cases byte for byte on
every machine, so the two must agree on everything written; and whatever is
written reads back as the data it came from.
"""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from wforacle.model.workfile.yamlsafe import Dumper, read, write
from wforacle.properties.strategies.workfile_runs import workfile_cases
from wforacle.properties.strategies.workfile_states import state_cases

needs_libyaml = pytest.mark.skipif(
    not yaml.__with_libyaml__, reason="PyYAML was built without libyaml: one emitter only"
)


def by_python(data, *, aliases=True, allow_unicode=False):
    class Unaliased(Dumper):
        def ignore_aliases(self, data):
            return True

    dumper = Dumper if aliases else Unaliased
    # write() escapes U+0085 even under allow_unicode: PyYAML's emitter writes it raw,
    # where a reader folds it into a space.
    allow_unicode = allow_unicode and "\x85" not in json.dumps(data, ensure_ascii=False)
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


# Strings that YAML 1.1 and the 1.2 core schema read as numbers or booleans: written
# plain, one of the two readers would not read them back as strings.
AMBIGUOUS = st.sampled_from(
    ["0o12", "1e3", "1E3", "-.5e-2", "+7", "012", "0x1F", "1:30", "on", "yes", "~", ".inf", ".NaN"]
)


JSON_PROPER = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
    | AMBIGUOUS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(KEYS | AMBIGUOUS, inner, max_size=4)
    ),
    max_leaves=20,
)


@given(data=st.dictionaries(KEYS | AMBIGUOUS, JSON_PROPER))
def test_what_is_written_reads_back_as_its_data_under_yaml_1_2_and_1_1(data):
    # The model reads YAML 1.2's core schema (A-107), a PyYAML engine 1.1: the writer
    # quoted "on" and "012" (1.1 numbers and booleans) but wrote "1e3" and "0o12" plain,
    # which the model read back as 1000.0 and 10.
    for text in (write(data), write(data, allow_unicode=True), write(data, aliases=False)):
        assert read(text) == data
        assert yaml.safe_load(text) == data
