"""Verdicts on waves a Poller saw in the simulator: one per cause, the traps, and `waves --cache`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sagan_tui.core.actions.guard import triage_context
from sagan_tui.core.triage import find_waves
from sagan_tui.core.triage.verdict import diagnosis_of, verdict_of

from .incidents import BROKE, DEAD_HOST, REAPED, SteppedPolls, settings_for, three_causes, unrelated

EXE = Path(sys.executable).with_name("sagan-tui")
EVERY = 10  # seconds between polls, as the panel's default is


def _waves(cache):
    ctx = triage_context(cache)
    return find_waves(ctx.losses, context=ctx)


def _by_pods(waves, pods):
    (w,) = [w for w in waves if set(w.pod_ids) == set(pods)]
    return w


@pytest.fixture
async def causes(sim_factory, tmp_path, monkeypatch):
    """The three-causes fixture polled every 10 s from t=0 to t=700."""
    sim = sim_factory(fixture=three_causes())
    rig = SteppedPolls(sim, settings_for(sim, tmp_path), monkeypatch)
    await rig.poll_at(range(0, 701, EVERY))
    yield rig
    await rig.close()


async def test_a_dead_host_whose_pods_ran_for_different_times_reads_host_failure(causes):
    w = _by_pods(_waves(causes.cache), DEAD_HOST)
    v = verdict_of(w)
    assert (v.cause, v.confidence) == ("host-failure", "high"), v
    said = " ".join(f.statement for f in v.for_)
    assert "h-dead" in said and "ctrlteam01" in said  # the machine, and a pod on another machine that lived
    assert v.next_step.startswith("avoid h-dead on re-dispatch")


async def test_a_balance_stop_whose_pods_ran_for_different_times_reads_account_stop(causes):
    w = _by_pods(_waves(causes.cache), BROKE)
    v = verdict_of(w)
    assert (v.cause, v.confidence) == ("account-stop", "high"), v
    assert v.for_[0].kind == "balance" and "personal ran out at" in v.for_[0].statement
    assert "$0.00" in v.for_[0].statement and "its 3 pods stopped" in v.for_[0].statement
    assert "top up personal" in v.next_step
    assert diagnosis_of(w)[0].kind == "balance"  # the findings lead with what weighs most toward the verdict


async def test_a_reaper_on_one_account_with_a_survivor_there_reads_platform_reaper(causes):
    w = _by_pods(_waves(causes.cache), REAPED)
    v = verdict_of(w)
    assert v.cause == "platform-reaper" and v.confidence in ("medium", "high"), v
    assert any("ctrlteam01" in f.statement for f in v.for_)
    assert any("not an account-wide stop" in f.statement for f in diagnosis_of(w))
    assert v.headline.startswith("PLATFORM REAPER, ") and "ticket to RunPod with 4 pod ids" in v.headline


async def test_the_balance_history_has_a_row_per_change(causes):
    history = causes.cache.balance_history()
    assert [(b, u) for _, b, u, *_ in history["personal"]] == [(3.1, False), (0.0, True)]
    assert [(b, u) for _, b, u, *_ in history["team"]] == [(400.0, False)]


async def test_stopping_the_control_pods_after_the_wave_changes_no_finding(causes):
    """Issue 17.3: a pod that outlived the wave survived it, whatever the owner did to it later."""
    before = _by_pods(_waves(causes.cache), REAPED)
    findings, verdict = diagnosis_of(before), verdict_of(before)
    for pid in ("ctrlteam01", "ctrlteam02"):
        reply = await causes.poller.transports["team"].stop(pid)
        assert reply["data"]["podStop"]["desiredStatus"] == "EXITED"
    await causes.poll_at([710, 720])
    stopped = {s.pod_id: s for s in causes.cache.sightings()}
    assert stopped["ctrlteam01"].desired_status == "EXITED"  # the stop did reach the cache
    after = _by_pods(_waves(causes.cache), REAPED)
    # Every statement as it was, and the survivors finding to its evidence (other findings quote
    # when each account was last polled, which any later poll moves on).
    assert [f.statement for f in diagnosis_of(after)] == [f.statement for f in findings]
    survived = [f for f in findings if f.kind == "survivors"]
    assert survived and [f for f in diagnosis_of(after) if f.kind == "survivors"] == survived
    assert "ctrlteam01" in survived[0].statement and "not an account-wide stop" in survived[0].statement
    assert verdict_of(after) == verdict


def test_waves_json_over_a_cache_gives_each_wave_its_cause(causes_cache):
    out = subprocess.run([str(EXE), "waves", "--cache", str(causes_cache), "--format", "json"],
                         capture_output=True, text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})
    assert out.returncode == 0, out.stderr
    waves = json.loads(out.stdout)["waves"]
    causes = {frozenset(x["pod_id"] for x in w["losses"]): w["verdict"] for w in waves}
    assert len(waves) == 3
    assert causes[frozenset(DEAD_HOST)]["cause"] == "host-failure"
    assert causes[frozenset(BROKE)]["cause"] == "account-stop"
    assert causes[frozenset(REAPED)]["cause"] == "platform-reaper"
    for v in causes.values():
        assert set(v) == {"cause", "confidence", "for", "against", "next_step", "runner_up", "unrelated"}
        assert v["confidence"] in ("high", "medium", "low") and v["for"]


@pytest.fixture
def causes_cache(sim_factory, tmp_path, monkeypatch):
    import asyncio

    sim = sim_factory(fixture=three_causes())
    rig = SteppedPolls(sim, settings_for(sim, tmp_path), monkeypatch)

    async def run():
        await rig.poll_at(range(0, 701, EVERY))
        await rig.close()

    asyncio.run(run())
    return rig.settings.cache_path


async def test_unrelated_losses_chained_by_the_gap_rule_read_unclear(sim_factory, tmp_path, monkeypatch):
    sim = sim_factory(fixture=unrelated())
    rig = SteppedPolls(sim, settings_for(sim, tmp_path), monkeypatch)
    try:
        await rig.poll_at(range(0, 301, EVERY))
        (w,) = _waves(rig.cache)
        assert len(w.losses) == 3
        v = verdict_of(w)
        assert v.cause == "unclear" or v.confidence == "low", v
        assert v.next_step.startswith("keep watching") if v.cause == "unclear" else True
    finally:
        await rig.close()
