"""Smoke runs of every benchmark at tiny sizes: they run, measure something, and report it; no timing asserted."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import common  # noqa: E402
from common import Figure, save, table  # noqa: E402
from ptyrun import visible_text  # noqa: E402

DEMO_SECRETS = ("sagan-demo-token", "rk-team-demo", "rk-personal-demo")


def well_formed(figures: list[Figure], names: set[str], silent_ok: frozenset[str] = frozenset()) -> None:
    """`silent_ok`: figures that may measure zero (an idle panel that sends nothing in a short window)."""
    assert {f.name for f in figures} == names
    for f in figures:
        assert f.value > 0 or (f.name in silent_ok and f.value == 0), f
        assert f.baseline is not None and f.baseline > 0, f
        entry = f.as_json()
        assert set(entry) >= {"value", "baseline", "ratio", "unit", "target", "ok"}
        assert isinstance(entry["ok"], bool)
        text = json.dumps(entry)
        assert not any(s in text for s in DEMO_SECRETS)


def test_figure_judges_ratio_or_value():
    fast = Figure("x", "x", 1.2, 1.0, "s", "<= 1.5x", 1.5)
    slow = Figure("x", "x", 2.0, 1.0, "s", "<= 1.5x", 1.5)
    rate = Figure("y", "y", 40.0, 100.0, "rows/s", ">= 0.5x", 0.5)
    absolute = Figure("z", "z", 350.0, 10.0, "B/s", "<= 300 B/s", 300, on="value")
    assert fast.ok and not slow.ok and not rate.ok and not absolute.ok
    assert Figure("w", "w", 1.0, 0.0, "s", "<= 1.5x", 1.5).ok is False  # no baseline, no verdict
    assert "MISS" in table([slow]) and "| ok |" in table([fast])
    plain = table([slow, fast, rate, absolute], markdown=False)
    assert max(map(len, plain.splitlines())) <= 80 and "MISS" in plain


def test_results_merge_keeps_other_entries(tmp_path):
    path = tmp_path / "results.json"
    save([Figure("a", "a", 1, 2, "s", "<= 1.5x", 1.5)], path)
    save([Figure("b", "b", 4, 2, "s", "<= 1.5x", 1.5)], path)
    data = json.loads(path.read_text())
    assert set(data) == {"a", "b"}
    assert data["a"]["ratio"] == 0.5 and data["a"]["ok"] is True and data["b"]["ok"] is False


def test_visible_text_drops_escapes():
    raw = b"\x1b[1;1H\x1b[38;5;253;48;5;17mpod\x1b[0m \x1b]52;c;Zm9v\x07id\x1b[?25l"
    assert visible_text(raw) == "pod id"


def test_tables_smoke():
    import bench_tables

    well_formed(bench_tables.run(small=True), {"tables", "tables_flat"})


def test_channel_smoke():
    import bench_channel

    figures = bench_channel.run(small=True)
    well_formed(figures, {"channel_throughput"})
    assert figures[0].detail["rows"] == 300 and figures[0].detail["frame_bytes"] > 0


def test_ingest_smoke():
    import bench_ingest

    figures = bench_ingest.run(small=True)
    well_formed(figures, {"ingest"})


def test_waves_smoke():
    import bench_waves

    well_formed(bench_waves.run(small=True), {"waves"})


def test_contain_smoke():
    """The response's figure: W leaves nothing dispatched into the wave where a hold alone did not."""
    import bench_contain

    names = {"contain_pods_after_W", "contain_usd_after_W"}
    figures = bench_contain.run(small=True)
    well_formed(figures, names, silent_ok=frozenset(names))
    pods = figures[0]
    assert pods.value == 0 and pods.baseline > 0 and pods.ok, pods
    canary = pods.detail["canary-fails"]
    assert canary["canary_pods"] == 1 and canary["canary_reheld"] == 1 and canary["pods"] == 0, pods.detail
    assert pods.detail["hold-only"]["usd"] > 0, pods.detail


@pytest.mark.slow
def test_poll_smoke():
    import bench_poll

    figures = bench_poll.run(small=True)
    well_formed(figures, {"poll_cycle"})
    assert figures[0].detail["cpu_s_per_cycle"] > 0


def test_fleet_smoke():
    import bench_fleet

    figures = bench_fleet.run(small=True)
    well_formed(figures, {"fleet_poll", "fleet_cpu"})
    fleet = figures[0].detail["fleet"]
    assert fleet["pods"] > figures[0].detail["baseline_fleet"]["pods"] > 0 and fleet["cpu_s_per_poll"] > 0


def test_watch_smoke():
    import bench_watch

    figures = bench_watch.run(small=True)
    well_formed(figures, {"watch_cpu"})
    assert figures[0].detail["fleet"]["pods"] > figures[0].detail["baseline_fleet"]["pods"] > 0


@pytest.mark.slow
def test_fleet_keys_smoke():
    import bench_fleet_keys

    figures = bench_fleet_keys.run(small=True)
    well_formed(figures, {"fleet_key_max", "fleet_panel_cpu"})
    detail = figures[0].detail
    assert detail["fleet"]["pods"] > detail["baseline_fleet"]["pods"] > 0
    assert detail["fleet"]["poll_cycle_s"]  # the panel's polls were seen in its cache
    # The share counts the session process beside the UI: it polls, so it is never idle.
    assert detail["fleet"]["cpu_share"] > detail["fleet"]["ui_cpu_share"] >= 0


def test_a_fleet_fixture_is_one_the_simulator_accepts():
    import bench_fleet

    from sagan_tui.sim.fixture import load_fixture

    f = load_fixture(bench_fleet.fleet(300))
    assert len(f.pods) == 300 and len({p.id for p in f.pods}) == 300


@pytest.mark.slow
def test_start_smoke(monkeypatch):
    import bench_start

    monkeypatch.delenv("BENCH_WARM_CACHE", raising=False)
    figures = bench_start.run(small=True)
    well_formed(figures, {"start_to_first_frame"})
    assert figures[0].detail["pods_in_cache"] > 0


@pytest.mark.slow
def test_cold_start_smoke():
    import bench_cold

    figures = bench_cold.run(small=True)
    well_formed(figures, {"cold_start"})
    assert figures[0].detail["pods_listed"] > 0


@pytest.mark.slow
def test_output_smoke():
    import bench_output

    figures = bench_output.run(small=True)
    well_formed(figures, {"output_idle", "output_per_poll"}, silent_ok=frozenset({"output_idle"}))
    per_poll = figures[1].detail["per_poll_bytes"]
    # The polls changed rows on screen. Not every one need have: a quiet poll writes nothing now,
    # and at the smoke run's 1 s interval two stops can land in one poll and none in the next.
    assert len(per_poll) >= 2 and sum(per_poll) > 0


@pytest.mark.slow
def test_ssh_output_smoke():
    pytest.importorskip("asyncssh")
    import bench_ssh

    figures = bench_ssh.run(small=True)
    well_formed(figures, {"ssh_output_idle", "ssh_output_per_poll", "ssh_reaping_wave_bps"},
                silent_ok=frozenset({"ssh_output_idle"}))
    demo = figures[2].detail
    assert demo["bytes"] > 0 and demo["bytes_per_10_scenario_s"]  # the demo drew, counted per 10 s


@pytest.mark.slow
def test_lock_smoke():
    import bench_lock

    figures = bench_lock.run(small=True)
    well_formed(figures, {"lock_key_latency_max"})
    detail = figures[0].detail
    assert detail["still_held_after_last_press"] and detail["locked"]["presses"] >= 1


@pytest.mark.slow
def test_memory_smoke():
    import bench_memory

    figures = bench_memory.run(small=True)
    well_formed(figures, {"memory_ui", "memory_both"})
    assert figures[0].detail["panel"]["polls"] >= 5 and figures[0].detail["panel"]["children"] >= 1
    assert figures[1].value > figures[0].value  # the session process counted beside the UI


def test_run_all_names_every_module():
    import run_all

    for name in run_all.MODULES:
        assert (BENCH / f"{name}.py").is_file()
        assert callable(getattr(__import__(name), "run"))
    assert common.RESULTS.parent == BENCH
