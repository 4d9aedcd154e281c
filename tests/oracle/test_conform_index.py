"""Issue 19: conform reads suite.json, so a spoilt case is judged, never silently dropped."""

from __future__ import annotations

import pytest

from wforacle.model.diagnostics import InvalidInput
from wforacle.oracle.fixtures import conform_case, suite_cases


def suite(tmp_path, cases: str):
    (tmp_path / "suite.json").write_text(f'{{"format": "wforacle-fixture/1", "cases": {cases}}}')
    return tmp_path


def test_every_listed_case_is_run_and_a_spoilt_one_is_invalid(tmp_path):
    (suite(tmp_path, '["a-file", "b-empty", "c-missing", "d-link"]') / "a-file").write_text("x")
    (tmp_path / "b-empty").mkdir()
    (tmp_path / "d-link").symlink_to("/")
    (tmp_path / "e-unlisted").mkdir()
    (tmp_path / "e-unlisted" / "manifest.json").write_text('{"spec": "nope"}')
    cases = suite_cases(tmp_path)
    assert [c.name for c in cases] == ["a-file", "b-empty", "c-missing", "d-link", "e-unlisted"]
    for here in cases:  # each is unreadable before any engine is needed
        assert conform_case(None, here).verdict == "invalid"  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "cases", ['"x"', '["../../etc"]', '["/etc"]', '["a/b"]', '[""]', "[1]", "[NaN]"]
)
def test_a_spoilt_index_is_a_usage_error(tmp_path, cases):
    with pytest.raises(InvalidInput, match=r"suite\.json"):
        suite_cases(suite(tmp_path, cases))


def test_a_folder_without_an_index_runs_its_case_directories(tmp_path):
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "manifest.json").write_text("{}")
    (tmp_path / "stray").mkdir()
    assert [c.name for c in suite_cases(tmp_path)] == ["one"]


def test_a_case_the_model_cannot_decide_is_invalid_not_the_end_of_the_run(tmp_path, monkeypatch):
    # A bound of the model met while judging one case (a wf.for_each over more than
    # 1,000 items, A-127) makes that case invalid; conform goes on with the others.
    from tests.oracle.test_engine import ONE_STEP
    from wforacle.model.kernel.budget import Stopped
    from wforacle.oracle import fixtures
    from wforacle.oracle.fixtures import write_case
    from wforacle.properties.w6w.specification import W6W

    here = write_case(W6W, tmp_path, ONE_STEP)

    def bounded(*args, **kwargs):
        raise Stopped("a wf.for_each over more than 1,000 items")

    monkeypatch.setattr(fixtures, "judge", bounded)
    result = conform_case(None, here)  # type: ignore[arg-type]
    assert result.verdict == "invalid" and "cannot decide" in result.detail


def test_a_case_directory_is_a_suite_of_one(tmp_path):
    # `wforacle conform SAVED_CASE`: the command fuzz prints to judge one finding again.
    (tmp_path / "0000-ab12cd34").mkdir()
    (tmp_path / "0000-ab12cd34" / "manifest.json").write_text("{}")
    here = tmp_path / "0000-ab12cd34"
    assert suite_cases(here) == [here]
