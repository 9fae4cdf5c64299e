"""The whole data path against the simulator over loopback: Sagan + both accounts -> the cache."""

from dataclasses import replace
from datetime import timedelta

import pytest

from sagan_tui.core.config_model import load_settings
from sagan_tui.core.models import ErrorKind, HealthState
from sagan_tui.core.store.cache import Cache, parse_ts
from sagan_tui.core.sync.poller import Poller

LOSS_FIXTURE = {
    "experiments": [
        {"number": 192, "title": "persona spread", "status": "running", "runpodAccount": "team"},
        {"number": 333, "title": "personal run", "status": "running", "runpodAccount": "personal"},
        {"number": 365, "title": "control", "status": "running", "runpodAccount": "team"},
    ],
    "approvalRequests": [{"id": "apr-1", "experiment": 192, "title": "Plan", "bodyMd": "x [TEXTBOX:owner-decision]"}],
    "events": [{"at": 2, "experiment": 192, "eventType": "state_changed", "fromStatus": "queued",
                "toStatus": "running", "note": "RunPod pod is running."}],
    "pods": [
        {"id": "v0c7bx292xqvg4", "account": "team", "experiment": 192, "name": "exp192-a",
         "created_at": 0, "running_at": 1, "lost_at": 40, "datacenter": "US-KS-2", "costPerHr": 1.49},
        {"id": "j18eiux6ccekyj", "account": "team", "experiment": 365, "name": "exp365-ctl",
         "created_at": 0, "running_at": 1},
        {"id": "j0xvy1q82ryo8m", "account": "personal", "experiment": 333, "name": "exp333-a",
         "created_at": 0, "running_at": 1},
    ],
}


def _poller(sim, tmp_path, **extra):
    settings, _ = load_settings({**sim.env(), "SAGAN_TUI_CONFIG": str(tmp_path / "none.toml")},
                                sagan_tui_cache=str(tmp_path / "cache.sqlite"), poll_interval=1.0, **extra)
    cache = Cache(settings.cache_path)
    return Poller(settings, cache), cache, settings


async def test_full_sync_fills_cache(sim_factory, tmp_path):
    sim = sim_factory(scenario="reaping-wave")
    poller, cache, settings = _poller(sim, tmp_path)
    try:
        changes = await poller.poll_once()
    finally:
        await poller.aclose()
    assert {n: h.state for n, h in changes.health.items()} == {
        "sagan": HealthState.OK, "team": HealthState.OK, "personal": HealthState.OK}
    counts = cache.counts()
    assert counts["experiments"] > 0 and counts["events"] > 0 and counts["approvals"] > 0
    accounts = {p.account for p in cache.pods()}
    assert accounts == {"team", "personal"}
    health = cache.health()
    assert health["team"].balance == pytest.approx(412.5, abs=50)
    assert health["personal"].balance is not None
    assert any(a.textbox_fields for a in cache.approvals())
    # Every pod Sagan knows the experiment of is tagged with it.
    assert all(p.experiment is not None for p in cache.pods())
    # Secrets never reach the cache file (nor its WAL).
    blob = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("cache.sqlite"))
    for secret in settings.secrets():
        assert secret.encode() not in blob


async def test_vanished_pod_is_exactly_one_loss(sim_factory, tmp_path):
    sim = sim_factory(fixture=LOSS_FIXTURE)
    sim.clock.jump_to(20)
    poller, cache, _ = _poller(sim, tmp_path)
    try:
        first = await poller.poll_once()
        assert not first.new_losses and len(cache.pods(include_gone=False)) == 3
        sim.clock.jump_to(60)
        second = await poller.poll_once()
        third = await poller.poll_once()
    finally:
        await poller.aclose()
    assert [x.pod_id for x in second.new_losses] == ["v0c7bx292xqvg4"]
    assert not [x for x in third.new_losses if x.source == "runpod-poll"]
    losses = cache.losses()
    assert [x.pod_id for x in losses] == ["v0c7bx292xqvg4"]
    loss = losses[0]
    assert loss.account == "team" and loss.experiment == 192 and loss.datacenter == "US-KS-2"
    # RUNNING was 19 s before the first poll; the loss lies between the two polls.
    assert abs((first.at - loss.running_at).total_seconds() - 19) < 3
    assert abs((loss.last_seen_at - first.at).total_seconds()) < 3
    assert abs((loss.lost_at - second.at).total_seconds()) < 3
    gone = [p for p in cache.pods() if p.gone_at]
    assert [p.pod_id for p in gone] == ["v0c7bx292xqvg4"]
    assert gone[0].gone_reason == "vanished while RUNNING"


async def test_account_401_is_health_not_losses(sim_factory, tmp_path):
    sim = sim_factory(scenario="auth-revoked")
    sim.clock.jump_to(10)
    poller, cache, _ = _poller(sim, tmp_path)
    try:
        await poller.poll_once()
        personal_before = {p.pod_id for p in cache.pods(include_gone=False, account="personal")}
        assert personal_before
        sim.clock.jump_to(90)
        changes = await poller.poll_once()
    finally:
        await poller.aclose()
    h = changes.health
    assert h["personal"].state == HealthState.ERROR and h["personal"].error_kind == ErrorKind.AUTH
    assert h["team"].state == HealthState.OK and h["sagan"].state == HealthState.OK
    assert not [x for x in cache.losses() if x.account == "personal" and x.source.startswith("runpod-poll")]
    # The cached pods are kept (stale), not thrown away.
    assert {p.pod_id for p in cache.pods(include_gone=False, account="personal")} == personal_before
    assert cache.health()["personal"].last_success is not None


async def test_failing_source_backs_off_alone(sim_factory, tmp_path):
    fixture = {**LOSS_FIXTURE, "sagan": {"failures": [{"from": 0, "to": 10_000, "kind": "500"}]}}
    sim = sim_factory(fixture=fixture)
    poller, cache, _ = _poller(sim, tmp_path)
    poller.sagan.retries = 0
    try:
        for _ in range(3):
            changes = await poller.poll_once()
    finally:
        await poller.aclose()
    assert changes.health["sagan"].state == HealthState.ERROR
    assert changes.health["sagan"].error_kind == ErrorKind.SERVER
    assert changes.health["team"].state == HealthState.OK
    # After two failures Sagan waits out a backoff: the third cycle did not ask it again.
    sagan_calls = [r for r in sim.requests if r.account == "sagan" and "/experiments" in r.path]
    assert len(sagan_calls) == 2
    assert "sagan" not in changes.polled
    assert changes.health["sagan"].next_attempt > changes.at


async def test_more_events_at_one_instant_than_a_page_are_all_read(sim_factory, tmp_path):
    """The feed pages by `since` with no tie-break inside a timestamp: a full page all at the
    cursor's own instant came back every poll and the events after it were never read."""
    from sagan_tui.core.sync.poller import EVENT_PAGE

    burst = EVENT_PAGE + 500
    events = [{"at": 5, "experiment": 192, "eventType": "note", "note": f"pod {i} committed"} for i in range(burst)]
    events += [{"at": 6 + i, "experiment": 192, "eventType": "note", "note": f"after {i}"} for i in range(10)]
    sim = sim_factory(fixture={**LOSS_FIXTURE, "events": events})
    poller, cache, _ = _poller(sim, tmp_path)
    try:
        sim.clock.jump_to(30)
        await poller.poll_once()
        notes = {r["note"] for r in cache.rows("select json_extract(data, '$.note') as note from events")}
        ours = {n for n in notes if n.startswith(("pod ", "after "))}  # the simulator adds its own
        assert len(ours) == burst + 10 and "after 9" in ours
    finally:
        await poller.aclose()
        cache.close()


async def test_events_at_the_cursors_instant_are_read_again_in_one_page_and_not_parsed_again(sim_factory, tmp_path):
    """A fleet started at once leaves thousands of events at the feed cursor's instant: every poll
    reads them again (the feed is inclusive), but validating them again was most of its CPU."""
    from sagan_tui.core.sync.poller import EVENT_PAGE

    burst = EVENT_PAGE + 500
    events = [{"at": 5, "experiment": 192, "eventType": "note", "note": f"pod {i} committed"} for i in range(burst)]
    sim = sim_factory(fixture={**LOSS_FIXTURE, "events": events})
    poller, cache, _ = _poller(sim, tmp_path)
    try:
        sim.clock.jump_to(6)  # the burst is the newest: the cursor stands at its instant
        await poller.poll_once()
        cursor = dict(p.split("=", 1) for p in cache.cursor("sagan").split(";"))["ev"]
        held = cache.event_ids_at(parse_ts(cursor))
        assert len(held) >= burst
        asked = len(sim.requests)
        second = await poller.poll_once()
        pages = [r for r in sim.requests[asked:] if r.path.endswith("/events")]
        listing = await poller.sagan.events(parse_ts(cursor), limit=EVENT_PAGE + len(held), known=held)
    finally:
        await poller.aclose()
        cache.close()
    assert second.events_added == 0 and len(pages) == 1
    assert (listing.items, listing.skipped, listing.held) == ([], [], len(held))


async def test_a_slow_accounts_data_is_stale_only_after_three_of_its_own_polls(sim_factory, tmp_path):
    """Issue 18.8: 10,000 pods take seconds to list; "stale" must mean old data, not a slow poll."""
    sim = sim_factory(fixture=LOSS_FIXTURE)
    sim.api_latency["rest"] = 1.5  # every REST reply (the pods of `auto`) a second and a half late
    poller, cache, settings = _poller(sim, tmp_path)
    try:
        changes = await poller.poll_once()
    finally:
        await poller.aclose()
        cache.close()
    team = changes.health["team"]
    took = (team.last_success - team.last_attempt).total_seconds()
    assert team.state == HealthState.OK and took >= 1.5
    cycle = settings.poll_interval + took
    assert not team.stale(team.last_success + timedelta(seconds=3 * cycle - 0.1), settings.poll_interval)
    assert team.stale(team.last_success + timedelta(seconds=3 * cycle + 0.1), settings.poll_interval)
    # A failed poll after it keeps three intervals: its attempt is later than the success.
    failed = replace(team, last_attempt=team.last_success + timedelta(seconds=1))
    assert failed.stale(team.last_success + timedelta(seconds=3 * settings.poll_interval + 0.1),
                        settings.poll_interval)


async def test_a_cache_failure_in_one_source_ends_the_others_polls_before_it_is_raised(sim_factory, tmp_path):
    """A full disk under one account's write is no source's health: poll_once raises it, and the
    other sources' polls end with it. Left running, `sync --once` closed the clients and the cache
    under a Sagan read still in flight ("client has been closed", then a closed database)."""
    import asyncio
    import sqlite3

    fixture = {**LOSS_FIXTURE, "sagan": {"failures": [{"from": 0, "to": 10_000, "kind": "timeout"}]}}
    sim = sim_factory(fixture=fixture)
    poller, cache, _ = _poller(sim, tmp_path)

    async def offload(fn, *args):
        # SQLite's thread as a full disk leaves it for one account's write (the disk-fill test in
        # tests/store/test_cache_recovery.py meets it on a real tmpfs, as root only).
        if getattr(fn, "__self__", None) is poller.account_poller and fn.__name__ == "_write" and args[0] == "team":
            raise sqlite3.OperationalError("database or disk is full")
        return await asyncio.to_thread(fn, *args)

    poller.offload = offload
    try:
        with pytest.raises(sqlite3.OperationalError, match="disk is full"):
            await poller.poll_once()
        left = [t for t in asyncio.all_tasks() if not t.done() and "poll_source" in repr(t.get_coro())]
        assert left == []
    finally:
        await poller.aclose()
        cache.close()
