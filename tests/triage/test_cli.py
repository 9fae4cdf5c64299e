"""`sagan-tui waves` and `sagan-tui report` as the owner runs them (subprocess, the installed script)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import R4, R5, at

EXE = Path(sys.executable).with_name("sagan-tui")
DOCS = Path(__file__).resolve().parents[2] / "docs"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(EXE), *args], capture_output=True, text=True, input=stdin, timeout=60)


def jsonl(losses) -> str:
    return "\n".join(x.model_dump_json(exclude_none=True) for x in losses) + "\n"


def test_json(tmp_path):
    f = tmp_path / "losses.jsonl"
    f.write_text(jsonl(R4 + R5))
    out = run("waves", "--input", str(f), "--format", "json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    (wave,) = doc["waves"]  # r5 came inside r4's guard at r4's kill time: one wave of two bursts
    assert [b["pod_ids"] for b in wave["bursts"]] == [[x.pod_id for x in R4], sorted(x.pod_id for x in R5)]
    assert sorted(wave["accounts"]) == ["personal", "team"] and 59 <= wave["gap_median_s"] <= 61
    assert doc["forming"] == []
    out = run("waves", "--input", str(f), "--format", "json", "--guard-minutes", "0")
    waves = json.loads(out.stdout)["waves"]
    assert [len(w["losses"]) for w in waves] == [3, 5]


def test_json_lists_a_forming_pair_with_exactly_its_pods(tmp_path):
    f = tmp_path / "losses.jsonl"
    f.write_text(jsonl(R5[:2]))
    out = run("waves", "--input", str(f), "--format", "json")
    doc = json.loads(out.stdout)
    assert doc["waves"] == []
    assert [c["pod_ids"] for c in doc["forming"]] == [["m1ayhl6nsbxw04", "v0c7bx292xqvg4"]]
    assert doc["forming"][0]["reason"] == "2 pods lost 1 s apart, both ~60 s after RUNNING"


def test_markdown_from_stdin_with_gap_and_min_losses():
    out = run("waves", "--input", "-", "--format", "markdown", "--min-losses", "4", stdin=jsonl(R4 + R5))
    assert out.returncode == 0, out.stderr
    assert "| run | exp | pod | account | RUNNING at | lost at | gap |" in out.stdout
    assert out.stdout.count("## Wave ") == 1 and "## Losses outside any wave" in out.stdout
    out = run("waves", "--input", "-", "--gap", "0.5", "--min-losses", "5", stdin=jsonl(R5))
    assert "No reaping wave" in out.stdout


def test_malformed_line_reported_with_its_number(tmp_path):
    f = tmp_path / "losses.jsonl"
    lines = jsonl(R5).splitlines()
    lines.insert(2, "{oops")
    f.write_text("\n".join(lines))
    out = run("waves", "--input", str(f), "--format", "json")
    assert out.returncode == 0
    assert "line 3: not JSON" in out.stderr
    assert len(json.loads(out.stdout)["waves"][0]["losses"]) == 5


def test_a_gap_that_is_not_a_finite_positive_number_is_refused():
    for bad in ("nan", "inf"):  # nan passed the old `<= 0` check and made one wave of everything
        out = run("waves", "--input", str(DOCS / "reaping-wave-losses.jsonl"), "--gap", bad)
        assert out.returncode == 2 and "--gap" in out.stderr and out.stdout == "", bad


def test_missing_file_is_exit_2_naming_the_path(tmp_path):
    missing = tmp_path / "nope.jsonl"
    out = run("waves", "--input", str(missing))
    assert out.returncode == 2 and str(missing) in out.stderr and out.stdout == ""


def test_docs_example_is_current():
    """The example's second report is `waves --input` over the docs' records, to the line
    (the first comes from a simulator run on a wall clock: `python -m tests.triage.example`)."""
    out = run("waves", "--input", str(DOCS / "reaping-wave-losses.jsonl"), "--format", "markdown")
    assert out.returncode == 0 and out.stderr == ""
    example = (DOCS / "incident-report-example.md").read_text()
    first, second = example.split("\n---\n\n")[1:]
    assert "## Wave 2:" in first and "lqpfpmbytlgded" in first and "long-running, killed in the same window" in first
    generated = re.compile(r"^Generated \S+ \S+ UTC\. ")  # the one line that depends on when it ran
    assert [generated.sub("", x) for x in out.stdout.splitlines()] == [generated.sub("", x) for x in second.splitlines()]


@pytest.fixture
def cache_file(tmp_path):
    cache_mod = pytest.importorskip("sagan_tui.core.store.cache")
    if not hasattr(cache_mod, "Cache"):
        pytest.skip("sagan_tui.core.store.cache has no Cache yet")
    path = tmp_path / "cache.sqlite"
    cache = cache_mod.Cache(path)
    with cache.transaction() as conn:
        cache.upsert_losses(conn, R4 + R5)
    cache.close()
    return path


def test_waves_and_report_over_a_cache(cache_file, tmp_path):
    out = run("waves", "--cache", str(cache_file), "--format", "json")
    assert out.returncode == 0, out.stderr
    assert [len(w["losses"]) for w in json.loads(out.stdout)["waves"]] == [8]
    report = tmp_path / "incident.md"
    out = run("report", "--cache", str(cache_file), "--since", "2026-05-14T10:50:00Z", "--output", str(report))
    assert out.returncode == 0, out.stderr
    text = report.read_text()
    assert text.startswith("# Pod losses: since 2026-05-14 10:50:00 UTC") and text.count("## Wave ") == 1


def test_report_refuses_a_bad_since_and_a_missing_cache(cache_file, tmp_path):
    out = run("report", "--cache", str(cache_file), "--since", "last tuesday")
    assert out.returncode == 2 and "--since" in out.stderr and "last tuesday" in out.stderr
    missing = tmp_path / "none.sqlite"
    out = run("report", "--cache", str(missing))
    assert out.returncode == 2 and str(missing) in out.stderr and not missing.exists()
