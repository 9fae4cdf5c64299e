"""Loss records the analysis cannot take are refused one by one with a reason; the rest are analysed."""

from __future__ import annotations

import json
import os
import sqlite3

import pytest

from sagan_tui import cli
from sagan_tui.core.models import Loss
from sagan_tui.core.store.cache import Cache
from sagan_tui.core.triage.records import parse_record_lines

from .conftest import R5


def line(pod: str, running: str = "2026-05-14T10:53:54Z", lost: str = "2026-05-14T10:54:55Z", **more) -> str:
    return json.dumps({"pod_id": pod, "account": "team", "experiment": 192, "running_at": running,
                       "lost_at": lost, **more}, allow_nan=True)


def five() -> list[str]:
    return [x.model_dump_json(exclude_none=True) for x in R5]


@pytest.mark.parametrize("bad, reason", [
    (line("zzzzzz1", lost="9999-12-31T23:59:59Z"), "line 3: lost_at: 9999-12-31T23:59:59+00:00 is outside 1970-2999"),
    (line("zzzzzz1", running="0001-01-01T00:00:00Z"), "line 3: running_at: 0001-01-01T00:00:00+00:00 is outside"),
    (line("zzzzzz1", running="2026-05-14T10:55:00Z"), "line 3: lost_at is before running_at"),
    (line("zzzzzz1", last_seen_at="2026-05-14T10:56:00Z"), "line 3: last_seen_at is after lost_at"),
    (line("zzzzzz1", cost_per_hr=float("inf")), "line 3: cost_per_hr: not a finite number"),
    (line("zzzzzz1", cost_per_hr=float("nan")), "line 3: cost_per_hr: not a finite number"),
    (line("zzzzzz1", cost_per_hr=-1.49), "line 3: cost_per_hr is negative"),
    (line("zzzzzz1").replace('"2026-05-14T10:54:55Z"', "NaN"), "line 3: lost_at: not a finite number"),
])
def test_a_record_that_cannot_be_analysed_is_refused_with_its_reason_and_the_rest_analysed(tmp_path, capsys, bad,
                                                                                          reason):
    rows = five()
    rows.insert(2, bad)
    f = tmp_path / "losses.jsonl"
    f.write_text("\n".join(rows) + "\n")
    for fmt in ("markdown", "json"):
        assert cli.main(["waves", "--input", str(f), "--format", fmt]) == 0
        out, err = capsys.readouterr()
        assert reason in err, err
        if fmt == "json":
            assert len(json.loads(out)["waves"][0]["losses"]) == 5
            assert "inf" not in out.lower() and "nan" not in out.lower()


def test_a_pod_given_twice_is_one_loss_in_the_header_and_in_the_wave(tmp_path, capsys):
    rows = five() + five()[:3]
    parsed = parse_record_lines(rows)
    assert len(parsed.losses) == 5
    assert [e for e in parsed.errors if "merged into one loss" in e] == [
        f"line {6 + i}: pod {R5[i].pod_id} was also lost on line {1 + i}: merged into one loss" for i in range(3)]
    f = tmp_path / "losses.jsonl"
    f.write_text("\n".join(rows) + "\n")
    assert cli.main(["waves", "--input", str(f)]) == 0
    out = capsys.readouterr().out
    assert "5 pods lost" in out
    assert cli.main(["waves", "--input", str(f), "--format", "json"]) == 0
    (wave,) = json.loads(capsys.readouterr().out)["waves"]
    assert sorted(x["pod_id"] for x in wave["losses"]) == sorted(x.pod_id for x in R5)


@pytest.fixture
def cache_path(tmp_path):
    path = tmp_path / "c.sqlite"
    c = Cache(path)
    with c.transaction() as conn:
        c.upsert_losses(conn, R5)
    c.close()
    return path


def _rows(path) -> list:
    with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as db:
        return db.execute("select * from losses order by pod_id").fetchall()


def test_report_refuses_to_write_over_its_own_cache_by_any_name(tmp_path, cache_path, capsys):
    before = (cache_path.read_bytes(), _rows(cache_path))
    (tmp_path / "link").symlink_to(cache_path)
    os.link(cache_path, tmp_path / "hard")
    c = Cache(cache_path)  # open: its -wal and -shm are there too
    try:
        for out in (cache_path, tmp_path / "link", tmp_path / "hard", tmp_path / "." / "c.sqlite",
                    tmp_path / "c.sqlite-wal"):
            assert cli.main(["report", "--cache", str(cache_path), "-o", str(out)]) == 2
            assert "is the cache itself" in capsys.readouterr().err
    finally:
        c.close()
    assert (cache_path.read_bytes(), _rows(cache_path)) == before
    assert cli.main(["report", "--cache", str(cache_path), "-o", str(tmp_path / "report.md")]) == 0
    assert "5 pods lost" in (tmp_path / "report.md").read_text()


def test_a_cached_loss_out_of_range_is_left_out_of_the_report_with_a_reason(cache_path, capsys):
    c = Cache(cache_path)
    with c.transaction() as conn:
        c.upsert_losses(conn, [Loss(pod_id="zzzzzz1", account="team", lost_at="9999-12-31T23:59:59Z")])
    c.close()
    assert cli.main(["report", "--cache", str(cache_path)]) == 0
    out, err = capsys.readouterr()
    assert "loss of pod zzzzzz1: lost_at: 9999-12-31T23:59:59+00:00 is outside 1970-2999: left out" in err
    assert "5 pods lost" in out


@pytest.mark.parametrize("pod, field", [
    ({"running_at": float("nan")}, "pods.0.running_at"),
    ({"lost_at": float("inf")}, "pods.0.lost_at"),
    ({"costPerHr": float("nan")}, "pods.0.costPerHr"),
])
def test_a_fixture_with_a_nan_or_infinite_number_is_refused_naming_the_field(tmp_path, pod, field):
    from sagan_tui.sim.fixture import FixtureError, load_fixture

    f = tmp_path / "f.json"
    f.write_text(json.dumps({"pods": [{"id": "abcdef1", "account": "team", "running_at": 1, **pod}]}))
    with pytest.raises(FixtureError, match=f"{field}: Input should be a finite number"):
        load_fixture(f)
