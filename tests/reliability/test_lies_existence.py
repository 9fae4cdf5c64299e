"""Lies about which pods exist (issue 46): a pod must have existed to be lost, a duplicate never
blinds an account, Sagan's word waits for RunPod's, and a stale stop_requested is read again.

The rig of test_lies.py: a hostile proxy (loopback) between the real poller, with its real
clients, and the simulator; one team pod (REAL) really vanishes at t=70.
"""

from __future__ import annotations

import gc
from datetime import datetime, timezone

from sagan_tui.commands.doctor import _cache_check
from sagan_tui.core.models import HealthState
from sagan_tui.wire.render import OK_MARK, source_segments
from tests.reliability.hostile_proxy import Reply, duplicated, flooded, sagan_row_lie, twinned
from tests.reliability.test_bounds import rss_kb
from tests.reliability.test_lies import PERSONAL, REAL, TEAM, _waves_json, rig  # noqa: F401 - the rig fixture

FLOOD = 10_623  # the made-up pods of the issue's ~10 MB reply


def _health_text(cache, account: str) -> str:
    h = cache.health()[account]
    return "".join(text for text, _style in source_segments(h, h.last_success or datetime.now(timezone.utc), 1.0))


async def test_every_pod_twinned_under_a_made_up_id_once_makes_phantoms_not_losses(rig):
    sim, proxy, make = rig
    poller, cache = make()
    try:
        sim.clock.jump_to(20)
        await poller.poll_once()
        proxy.lie("/v2/pods", twinned, key=sim.account_keys["team"])
        lied = await poller.poll_once()
        assert proxy.told and any("twinning a listed pod" in d for d in lied.doubtful), lied.doubtful
        honest = await poller.poll_once()
        await poller.poll_once()
        # A real loss still counts: REAL is known to Sagan, confirmed by the poll that misses it.
        sim.clock.jump_to(75)
        found = await poller.poll_once()
    finally:
        await poller.aclose()
    twins = {p.pod_id for p in cache.pods() if p.pod_id.startswith("tw1n")}
    assert len(twins) == len(TEAM) + 1 and set(honest.phantoms) == twins
    assert honest.new_losses == () and honest.pods_missing == ()
    assert [x.pod_id for x in found.new_losses] == [REAL] and [x.pod_id for x in cache.losses()] == [REAL]
    assert not cache.losses(pod_ids=twins, states=None), "a phantom is never even missing"
    out = _waves_json(str(cache.path))
    assert out["waves"] == [] and out["forming"] == []
    assert cache.health()["team"].phantoms == len(twins)
    assert f"{len(twins)} pods listed once and never again" in _health_text(cache, "team")
    lines = _cache_check(cache.path, [])
    assert (None, "team", f"{len(twins)} pods listed once and never again (phantoms, never losses),"
                          f" the last at {_last_phantom(cache):%H:%M} UTC") in lines, lines


def _last_phantom(cache) -> datetime:
    return max(p.gone_at for p in cache.pods() if p.gone_reason == "listed once and never again")


async def test_a_flood_of_made_up_running_pods_once_is_doubtful_and_makes_no_loss(rig, figures):
    sim, proxy, make = rig
    poller, cache = make()
    try:
        sim.clock.jump_to(20)
        await poller.poll_once()
        gc.collect()
        before_kb = rss_kb()
        proxy.lie("/v2/pods", flooded(FLOOD), key=sim.account_keys["team"])
        lied = await poller.poll_once()
        honest = await poller.poll_once()
        gc.collect()
        grown_kb = rss_kb() - before_kb
        await poller.poll_once()
    finally:
        await poller.aclose()
    assert any(f"{FLOOD} new pods beside" in d for d in lied.doubtful), lied.doubtful
    assert lied.new_losses == () and honest.new_losses == () and cache.losses(states=None) == []
    assert len(honest.phantoms) == FLOOD and cache.health()["team"].phantoms == FLOOD
    assert _waves_json(str(cache.path))["waves"] == []
    assert {p.pod_id for p in cache.pods(include_gone=False)} >= {*TEAM, *PERSONAL}
    figures["flood_rss_growth_mb"] = round(grown_kb / 1024, 1)
    # Bounded as every reply is (core/sources/bounded.py): the flood's pods are not held after the poll.
    assert grown_kb < 150_000, grown_kb


async def test_one_id_duplicated_in_every_reply_hides_no_real_loss(rig):
    sim, proxy, make = rig
    poller, cache = make()
    try:
        sim.clock.jump_to(20)
        await poller.poll_once()
        proxy.lie("/v2/pods", duplicated(TEAM[0]), key=sim.account_keys["team"], times=10**6)
        listed = await poller.poll_once()
        counted = await poller.transports["team"].snapshot()
        sim.clock.jump_to(75)
        found = await poller.poll_once()
    finally:
        await poller.aclose()
    assert any(f"pod {TEAM[0]} listed 2 times in one reply" in s for s in listed.skipped), listed.skipped
    assert len(counted.pods) == len({p.id for p in counted.pods}) == len(TEAM) + 1  # REAL not yet gone; each once
    [loss] = found.new_losses
    assert loss.pod_id == REAL and loss.confirmed_by == "read directly: not found"
    health = cache.health()["team"]
    assert health.duplicates == 1 and health.duplicates_since is not None
    text = _health_text(cache, "team")
    assert "⚠ duplicate record since" in text and OK_MARK not in text.split("duplicate")[0], text
    [row] = cache.pods(pod_ids=[TEAM[0]])
    assert row.gone_at is None and row.missing_since is None


async def test_sagans_terminated_while_runpod_answers_429_waits_for_runpod(rig):
    sim, proxy, make = rig
    poller, cache = make()
    victim, token = TEAM[1], sim.sagan_token
    rate_limited = Reply.of({"error": "rate limited", "message": "too many requests"}, 429)
    proxy.lie("/v2/pods", lambda r: rate_limited, key=sim.account_keys["team"], times=10**6)
    try:
        sim.clock.jump_to(20)
        await poller.poll_once()
        assert poller.health["team"].state == HealthState.ERROR
        proxy.lie("/api/pods", sagan_row_lie(sim, victim, status="terminated", terminated_at="now", updated_at="now"),
                  key=token)
        said = await poller.poll_source("sagan")
        later = [await poller.poll_once(force=True) for _ in range(3)]
        [waiting] = cache.losses(states=("missing",))
        doctor = _cache_check(cache.path, [])
        # RunPod answers again, and lists the pod: Sagan's word is disproved.
        proxy.cues.clear()
        truth = await poller.poll_once(force=True)
    finally:
        await poller.aclose()
    assert said.new_losses == () and all(c.new_losses == () for c in later)
    assert waiting.pod_id == victim and waiting.reason.startswith("Sagan says terminated (")
    assert "; RunPod not answered yet (429)" in waiting.reason, waiting.reason
    assert (None, "losses", f"pod {victim} waits: {waiting.reason}") in doctor
    assert victim in truth.withdrawn and cache.losses() == []


async def test_a_stale_stop_requested_then_a_real_vanish_is_a_loss_not_a_stop(rig):
    sim, proxy, make = rig
    poller, cache = make()
    token = sim.sagan_token
    try:
        sim.clock.jump_to(20)
        await poller.poll_once()
        proxy.lie("/api/pods", sagan_row_lie(sim, REAL, status="stop_requested", updated_at="now"), key=token)
        await poller.poll_source("sagan")
        assert REAL in cache.sagan_rows.stops(), "the lie was believed: the rig works"
        sim.clock.jump_to(40)
        await poller.poll_once()  # Sagan's row of REAL is read again, though it did not change
        assert REAL not in cache.sagan_rows.stops()
        sim.clock.jump_to(75)
        found = await poller.poll_once()
    finally:
        await poller.aclose()
    assert [x.pod_id for x in found.new_losses] == [REAL]
    [row] = cache.pods(pod_ids=[REAL])
    assert row.gone_reason != "stopped on request" and [x.pod_id for x in cache.losses()] == [REAL]


async def test_sagans_terminated_waiting_on_a_429_is_confirmed_by_runpods_next_list_without_the_pod(rig):
    sim, proxy, make = rig
    poller, cache = make()
    token = sim.sagan_token
    rate_limited = Reply.of({"error": "rate limited", "message": "too many requests"}, 429)
    proxy.lie("/v2/pods", lambda r: rate_limited, key=sim.account_keys["team"], times=10**6)
    try:
        sim.clock.jump_to(75)  # REAL is gone from RunPod; no list of ours ever held it
        await poller.poll_once()
        proxy.lie("/api/pods", sagan_row_lie(sim, REAL, status="terminated", terminated_at="now", updated_at="now"),
                  key=token)
        said = await poller.poll_source("sagan")
        assert said.new_losses == () and [x.pod_id for x in cache.losses(states=("missing",))] == [REAL]
        proxy.cues.clear()
        agreed = await poller.poll_source("team")
    finally:
        await poller.aclose()
    [loss] = agreed.new_losses
    assert loss.pod_id == REAL and loss.confirmed_by.startswith("Sagan's record, and RunPod's list at")
    assert "RunPod not answered yet" not in (loss.reason or ""), "the wait is over: the reason no longer says it"
    assert [x.pod_id for x in cache.losses()] == [REAL]
