"""Issue 42's incidents (tests/triage/grouped.py) played by the simulator at speed 1 on a stepped
clock through the real poller and the panel model, then `waves --cache --format json`: one wave
per cause, a stray left out and named, a slow burn forming at its second loss and a wave at its
third, a spread of kill times still a reaper, and a balance stop that terminates its pods."""

from __future__ import annotations

import pytest

from sagan_tui.core.actions.guard import triage_context
from sagan_tui.core.triage.verdict import verdict_of
from sagan_tui.core.triage.grouping import signature_of

from . import grouped as G
from .test_heldout import Played, play  # noqa: F401  (held-out's world player and its fixture)


def _wave(p: Played, pods) -> object:
    found = [w for w in p.model.waves if set(w.pod_ids) == set(pods)]
    assert len(found) == 1, [w.pod_ids for w in p.model.waves]
    return found[0]


@pytest.mark.parametrize("variant", ["a", "b"])
async def test_two_causes_on_one_night_are_two_waves_with_their_true_causes(play, variant):
    p = play(G.two_causes(variant))
    await p.until(420)
    reaped, broke = (G.REAPED_A, G.BROKE_A) if variant == "a" else (G.REAPED_B, G.BROKE_B)
    assert len(p.model.waves) == 2
    reaper, stop = _wave(p, reaped), _wave(p, broke)
    assert (verdict_of(reaper).cause, verdict_of(stop).cause) == ("platform-reaper", "account-stop")
    assert verdict_of(reaper).confidence in ("medium", "high") and verdict_of(stop).confidence == "high"
    assert signature_of(reaper).kind == "kill-time" and signature_of(stop).kind == "account-stop"
    assert "top up" in verdict_of(stop).next_step and "ticket to RunPod" in verdict_of(reaper).next_step
    # the balance stop no longer speaks for the reaper: one account, no stray kill time
    assert not any("spans 2 accounts" in f.statement for f in verdict_of(reaper).for_)
    doc = p.cli()
    kinds = sorted(w["signature"]["kind"] for w in doc["waves"])
    assert kinds == ["account-stop", "kill-time"]
    for w in doc["waves"]:
        ru = w["verdict"]["runner_up"]
        assert ru["cause"] != w["verdict"]["cause"] and isinstance(ru["score"], int) and ru["evidence"]


@pytest.mark.parametrize("variant", ["a", "b"])
async def test_a_dead_host_and_a_stray_read_host_failure_with_the_stray_left_out(play, variant):
    p = play(G.host_and_stray(variant))
    await p.until(400)
    dead = G.DEAD if variant == "a" else G.DEAD[:3]
    w = _wave(p, dead)
    v = verdict_of(w)
    assert v.cause == "host-failure" and v.confidence in ("medium", "high"), v
    assert v.next_step.startswith("avoid h-dead on re-dispatch")
    assert [x.pod_id for x in w.unrelated] == [G.STRAY] and G.STRAY not in w.pod_ids
    assert any(G.STRAY in u and "not weighed" in u for u in v.unrelated)
    assert all(G.STRAY not in wv.pod_ids for wv in p.model.waves)
    (doc,) = [x for x in p.cli()["waves"] if {y["pod_id"] for y in x["losses"]} == set(dead)]
    assert [x["pod_id"] for x in doc["unrelated"]] == [G.STRAY] and doc["signature"]["kind"] == "host"
    assert "h-dead" in doc["signature"]["statement"]


@pytest.mark.parametrize("variant", ["a", "b"])
async def test_a_slow_burn_is_watch_at_its_second_loss_and_one_reaper_wave_by_its_third(play, variant):
    fixture, ids, lost = G.slow_burn(variant)
    p = play(fixture)
    await p.until(int(lost[0]) + 60)
    assert p.model.waves == [] and p.model.active_forming() == []  # one loss: nothing
    await p.until(int(lost[1]) + 15)
    assert p.model.waves == []
    assert [set(c.pod_ids) for c in p.model.active_forming()] == [set(ids[:2])]
    assert "after RUNNING" in p.model.active_forming()[0].headline
    await p.until(int(lost[2]) + 15)
    (w,) = p.model.waves
    assert set(w.pod_ids) == set(ids[:3]) and verdict_of(w).cause == "platform-reaper", verdict_of(w)
    assert p.model.active_forming() == []
    await p.until(int(lost[4]) + 15)
    (w,) = p.model.waves
    assert set(w.pod_ids) == set(ids)  # the decoy failing alone (variant b) is in no wave
    assert verdict_of(w).cause == "platform-reaper" and verdict_of(w).confidence in ("medium", "high")


@pytest.mark.parametrize("variant", ["a", "b"])
async def test_a_reaper_whose_kill_time_spreads_reads_platform_reaper(play, variant):
    fixture, ids = G.spread_kill(variant)
    p = play(fixture)
    await p.until(760)
    w = _wave(p, ids)
    v = verdict_of(w)
    assert v.cause == "platform-reaper" and v.confidence in ("medium", "high"), v
    assert any("killed young" in f.statement and "selective" in f.statement for f in v.for_)
    lost = {x.pod_id for x in triage_context(p.rig.cache).losses}
    assert not any(pid.startswith("g42swstop") for pid in lost)  # Sagan's stops are no losses


@pytest.mark.parametrize("variant", ["a", "b"])
async def test_a_balance_stop_that_terminates_its_pods_reads_account_stop(play, variant):
    p = play(G.terminating_stop(variant))
    await p.until(420)
    w = _wave(p, G.BROKE_T)
    assert (verdict_of(w).cause, verdict_of(w).confidence) == ("account-stop", "high"), verdict_of(w)
    assert "top up personal" in verdict_of(w).next_step
    listed = {s.pod_id for s in p.rig.cache.sightings() if not s.gone}
    gone = {pid for i, pid in enumerate(G.BROKE_T) if not (variant == "b" and i % 2 == 0)}
    assert gone and not gone & listed  # terminated: out of the list, as a reaper's are


async def test_a_postpaid_account_at_zero_is_never_an_account_stop(play):
    p = play(G.terminating_stop("a", mode="POSTPAID"))
    await p.until(420)
    w = _wave(p, G.BROKE_T)
    assert verdict_of(w).cause != "account-stop", verdict_of(w)
    assert signature_of(w).kind != "account-stop"
