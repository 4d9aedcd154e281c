"""Campaigns in shards (issue 17 §5, issue 16): planned and merged deterministically, run
in local processes (`fuzz --workers N`) or on a Dask cluster (`fuzz --cluster ADDRESS`)."""

from __future__ import annotations

import itertools
import json
import re
import sys
import time
from pathlib import Path

import pytest

from wforacle.oracle import shards
from wforacle.oracle.cli import main
from wforacle.oracle.power import ENGINES
from wforacle.properties.registry import SPECIFICATIONS

W6W = SPECIFICATIONS["w6w"]
CORRECT = f"{sys.executable} {ENGINES / W6W.example_engine}"
NO_SKIP = f"{CORRECT} --bug no-skip"


def fuzz(capsys, *argv):
    code = main(["fuzz", "--json", *argv])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out else None, err


def test_plan_splits_the_examples_and_seeds_each_shard_from_the_campaigns_seed():
    planned = shards.plan(7, 10, 3)
    assert [s.examples for s in planned] == [4, 3, 3]  # the remainder to the first shards
    assert [s.number for s in planned] == [0, 1, 2]
    assert planned[0].seed == 7  # shard 0 is the campaign itself
    assert len({s.seed for s in planned}) == 3
    assert shards.plan(7, 10, 3) == planned  # deterministic
    assert shards.plan(8, 10, 3)[1].seed != planned[1].seed
    # Shard k's seed does not depend on the shard count: more shards add seeds.
    assert shards.plan(7, 12, 4)[:3] != planned and [s.seed for s in shards.plan(7, 12, 4)][:3] == [
        s.seed for s in planned
    ]
    assert shards.plan(5, 9, 1) == (shards.Shard(0, 5, 9),)


def test_plan_refuses_shards_it_cannot_fill():
    with pytest.raises(shards.CannotShard, match="at least 3"):
        shards.plan(0, 2, 3)
    with pytest.raises(shards.CannotShard):
        shards.plan(0, 2, 0)


def _summary(number, examples, finding=None, counts=None, readings=()):
    case = None
    if finding is not None:
        steps = [{"id": f"s{i}", "uses": {"app": "a", "action": "b"}} for i in range(finding)]
        doc = {"manifestVersion": "2", "id": "w", "name": "n", "steps": steps, "edges": []}
        case = {"document": doc, "scenario": {}, "schedule": []}
    divergence = {
        "verdict": "divergence",
        "divergence": {
            "index": number,
            "observed": {"event": "step_started"},
            "permitted": [],
            "clauses": ["W6W-EDGE-4"],
            "message": f"shard {number}",
        },
    }
    return {
        "shard": number,
        "seed": 100 + number,
        "planned": examples,
        "examples": examples,
        "seconds": 1.0 + number,
        "secondsSearching": 1.0,
        "secondsShrinking": 0.5 if case else 0.0,
        "shrinkRuns": 3 if case else 0,
        "engineSeconds": 0.25,
        "budgetSpent": False,
        "faults": 0,
        "faultCases": [],
        "readings": list(readings),
        "coverage": {"runs": examples, "counts": counts or {}},
        "nondeterministic": None,
        "finding": None
        if case is None
        else {
            "case": case,
            "judgement": divergence,
            "size": W6W.size(case),
            "examplesToFind": 5,
            "secondsToFind": 0.1,
            "secondsToShrink": 0.5,
            "firstSeen": {"case": case, "judgement": divergence},
        },
    }


def test_merge_takes_the_lowest_shards_finding_whatever_order_the_shards_finish_in():
    witness = {
        "readings": {"A-50": "edges"},
        "examples": 2,
        "case": _summary(0, 1, finding=1)["finding"]["case"],
        "judgement": {"verdict": "pass", "readings": {"A-50": "edges"}},
    }
    parts = [
        _summary(0, 10, counts={"W6W-EDGE-4": 3}),
        _summary(1, 10, finding=3, counts={"W6W-EDGE-4": 1, "W6W-PLAN-7": 2}, readings=[witness]),
        _summary(2, 9, finding=2, readings=[witness]),
    ]
    merged = [shards.merge(W6W, order) for order in itertools.permutations(parts)]
    for one in merged:
        assert one.finder == 1
        assert one.campaign.finding is not None
        assert one.campaign.finding.judgement.divergence.message == "shard 1"
        assert [k for k, _ in one.others] == [2]
        assert one.campaign.examples == 29
        assert one.campaign.engine_seconds == 0.75
        assert one.campaign.coverage.runs == 29
        assert dict(one.campaign.coverage.counts) == {"W6W-EDGE-4": 4, "W6W-PLAN-7": 2}
        assert [(w.departures, w.examples) for w in one.campaign.readings] == [
            ((("A-50", "edges"),), 4)
        ]
        assert [s["shard"] for s in one.shards] == [0, 1, 2]
        assert one.first_seen is not None
    assert len({json.dumps(m.campaign.finding.case) for m in merged}) == 1


def test_merge_without_findings():
    one = shards.merge(W6W, [_summary(1, 4), _summary(0, 5)])
    assert one.campaign.finding is None and one.finder is None and one.others == ()
    assert one.campaign.examples == 9


# No shrinking (allowance 0): the reported cases are the cases as first found, which
# compare whatever the load and the Hypothesis release (a time-bound shrink does not).
SEEDED = ["--engine", NO_SKIP, "--examples", "120", "--seed", "5", "--shrink-allowance", "0"]


def assert_same_findings(one, other):
    """Two reports of a seeded campaign found the same: shards, first cases and minimal cases.

    The search is seeded, so which shards find, after how many examples, and
    the case each first saw (its --save directory is named by its content)
    are the same whatever the load; and without shrinking (SEEDED), so are
    the reported cases.
    """
    assert one["findingShard"] == other["findingShard"]
    assert [s["finding"] for s in one["shards"]] == [s["finding"] for s in other["shards"]]
    assert [s["seed"] for s in one["shards"]] == [s["seed"] for s in other["shards"]]
    found, again = one["finding"], other["finding"]
    assert found["examplesToFind"] == again["examplesToFind"]
    digest = [Path(f["savedUnshrunk"]).name.split("-")[1] for f in (found, again)]
    assert digest[0] == digest[1]
    assert found["case"] == again["case"]
    assert [o["shard"] for o in one["otherFindings"]] == [
        o["shard"] for o in other["otherFindings"]
    ]


def test_the_same_seed_and_shard_count_find_the_same_on_workers_and_on_a_cluster(capsys, tmp_path):
    # One test, not three: each run is a campaign that finds and shrinks (under
    # pytest-xdist a shared module fixture would run once per worker anyway).
    code, first, err = fuzz(capsys, *SEEDED, "--workers", "2", "--save", str(tmp_path / "a"))
    assert code == 1 and first["finding"] is not None
    assert [s["planned"] for s in first["shards"]] == [60, 60]
    assert first["shards"][0]["seed"] == 5  # shard 0 is the campaign's own seed
    assert err.count("] shard ") == 2  # one progress line per finished shard
    assert Path(first["finding"]["saved"]).parent == tmp_path / "a"

    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        address = cluster.scheduler_address
        save = str(tmp_path / "c")
        code, report, err = fuzz(capsys, *SEEDED, "--cluster", address, "--save", save)
    assert code == 1
    assert len(report["shards"]) == 2  # one shard per worker thread of the cluster
    assert err.count("] shard ") == 2
    assert_same_findings(report, first)


def test_a_sharded_finding_is_placed_in_its_shard_not_in_the_merged_count(capsys, tmp_path):
    # The summary's "first finding at example N" is the finding shard's own index; next to
    # the merged total it read as an index into all the shards' examples (helper-62).
    code = main(["fuzz", *SEEDED, "--workers", "2", "--save", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    summary = next(line for line in out.splitlines() if "the first finding at example" in line)
    assert re.search(r"the first finding at example \d+ of shard [01];", summary), summary


def test_workers_against_a_correct_engine_sum_their_examples(capsys):
    code, report, _ = fuzz(capsys, "--engine", CORRECT, "--examples", "30", "--workers", "2")
    assert code == 0 and report["finding"] is None
    assert report["examples"] == sum(s["examples"] for s in report["shards"]) == 30
    assert report["coverage"]["runs"] == 30
    assert [s["finding"] for s in report["shards"]] == [False, False]
    # The members a single campaign's report has, and the shards'.
    assert {"searching", "shrinking", "faults", "readings", "readingTable"} <= set(report)


def test_a_cluster_nobody_listens_at_is_a_usage_error_not_a_hang(capsys, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(shards, "CONNECT_TIMEOUT", 2.0)
    started = time.perf_counter()
    code = main(["fuzz", "--cluster", "tcp://127.0.0.1:9", "--examples", "10"])
    _, err = capsys.readouterr()
    assert code == 2 and "tcp://127.0.0.1:9" in err
    assert time.perf_counter() - started < 30


def test_zero_workers_and_too_few_examples_are_usage_errors(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["fuzz", "--workers", "0"])
    assert stopped.value.code == 2
    code = main(["fuzz", "--workers", "3", "--examples", "2"])
    assert code == 2 and "at least 3" in capsys.readouterr().err


def test_without_dask_cluster_says_how_to_install_it(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # an import of it fails
    code = main(["fuzz", "--cluster", "tcp://127.0.0.1:9", "--examples", "10"])
    assert code == 2 and "pip install 'wforacle[cluster]'" in capsys.readouterr().err
