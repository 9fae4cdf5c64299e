"""The poller keeps each account's live pods between polls: fewer writes, the same cache, the same losses."""

import asyncio
import json
import sqlite3

from sagan_tui.core.config_model import load_settings
from sagan_tui.core.models import PodLifecycle
from sagan_tui.core.sources.runpod_graphql import _load_sdk
from sagan_tui.core.store.cache import Cache, ts
from sagan_tui.core.sync.poller import Poller

from .test_poller import LOSS_FIXTURE

LOST, CONTROL, PERSONAL = "v0c7bx292xqvg4", "j18eiux6ccekyj", "j0xvy1q82ryo8m"
# Columns a full upsert sets and a pod seen again unchanged must not: a trigger logs any write naming them.
WHOLE_ROW = ("account", "experiment", "name", "desired_status", "gpu", "gpu_count", "datacenter", "cost_per_hr",
             "last_status_change", "pod_type", "first_seen_at", "gone_at", "gone_reason")


def _poller(sim, tmp_path, cache_name="cache.sqlite"):
    settings, _ = load_settings({**sim.env(), "SAGAN_TUI_CONFIG": str(tmp_path / "none.toml")},
                                sagan_tui_cache=str(tmp_path / cache_name), poll_interval=1.0)
    cache = Cache(settings.cache_path)
    return Poller(settings, cache), cache


def _log_row_writes(path) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(f"""
        create table row_writes (pod_id text);
        create trigger log_row_writes after update of {', '.join(WHOLE_ROW)} on pods
        begin insert into row_writes values (new.pod_id); end;""")
    conn.close()


def _row_writes(cache) -> list[str]:
    return [r["pod_id"] for r in cache.rows("select pod_id from row_writes")]


async def test_unchanged_pods_are_only_touched(sim_factory, tmp_path):
    _load_sdk()  # its import takes seconds of scenario time otherwise
    sim = sim_factory(fixture=LOSS_FIXTURE, speed=4)
    sim.clock.jump_to(5)
    poller, cache = _poller(sim, tmp_path)
    try:
        await poller.poll_once(force=True)  # `auto`'s first poll is REST v2 alone: machines come with the next
        first = await poller.poll_once(force=True)
        _log_row_writes(cache.path)
        observations = cache.counts()["pod_observations"]
        before = {p.pod_id: p for p in cache.pods()}
        # Time runs on (a jump would move every served date, lastStatusChange's among them).
        await asyncio.sleep(1.0)
        second = await poller.poll_once()
    finally:
        await poller.aclose()
    assert set(first.pods_changed) == {LOST, CONTROL, PERSONAL}
    assert second.pods_changed == () and not second.new_losses
    assert _row_writes(cache) == []  # no pod row written whole again
    assert cache.counts()["pod_observations"] == observations  # and no observation
    # What did move is in the cache, column and record alike.
    for p in cache.pods():
        was = before[p.pod_id]
        assert p.last_seen_at > was.last_seen_at
        assert abs((p.last_seen_at - second.at).total_seconds()) < 3
        assert p.pod.uptime_seconds > was.pod.uptime_seconds
        assert p.first_seen_at == was.first_seen_at
        assert abs((p.running_at - was.running_at).total_seconds()) < 3
        assert p.pod.model_dump(exclude={"uptime_seconds"}) == was.pod.model_dump(exclude={"uptime_seconds"})
    row = cache.rows("select uptime_s, data from pods where pod_id = ?", (CONTROL,))[0]
    assert row["uptime_s"] == json.loads(row["data"])["uptimeSeconds"]


async def test_a_restart_reads_live_pods_from_the_cache_and_finds_the_loss_it_missed(sim_factory, tmp_path):
    sim = sim_factory(fixture=LOSS_FIXTURE)
    sim.clock.jump_to(20)
    poller, cache = _poller(sim, tmp_path)
    try:
        first = await poller.poll_once()
    finally:
        await poller.aclose()
        cache.close()
    sim.clock.jump_to(60)  # the pod vanished while no panel was running
    poller, cache = _poller(sim, tmp_path)
    try:
        second = await poller.poll_once()
    finally:
        await poller.aclose()
    assert [x.pod_id for x in second.new_losses] == [LOST]
    loss = cache.losses()[0]
    assert loss.experiment == 192 and loss.datacenter == "US-KS-2" and loss.source.startswith("runpod-poll")
    assert loss.reason.startswith("vanished while RUNNING")
    assert abs((loss.last_seen_at - first.at).total_seconds()) < 3
    assert {p.pod_id for p in cache.pods(include_gone=False)} == {CONTROL, PERSONAL}


async def test_two_pollers_on_one_cache_agree(sim_factory, tmp_path):
    """Another panel writes the same file between this one's polls: what it wrote is read, not overwritten."""
    sim = sim_factory(fixture=LOSS_FIXTURE)
    sim.clock.jump_to(20)
    a, cache_a = _poller(sim, tmp_path)
    b, cache_b = _poller(sim, tmp_path)
    try:
        await a.poll_once()
        await b.poll_once()
        sim.clock.jump_to(60)
        by_b = await b.poll_once()  # b sees the pod vanish (and every served date moved by the jump)
        gone, observations = cache_a.pods(), cache_a.counts()["pod_observations"]
        by_a = await a.poll_once()  # a last saw it alive: it must take b's word from the cache
        assert cache_a.counts()["pod_observations"] == observations  # b recorded every change already
        assert by_a.pods_changed == ()
        sim.clock.jump_to(70)
        again = await a.poll_once()
    finally:
        await a.aclose()
        await b.aclose()
    assert [x.pod_id for x in by_b.new_losses] == [LOST]
    assert not by_a.new_losses and not by_a.pods_gone and not again.new_losses
    assert [x.pod_id for x in cache_a.losses()] == [LOST]
    lost_row = next(p for p in cache_a.pods() if p.pod_id == LOST)
    assert lost_row.gone_at == next(p for p in gone if p.pod_id == LOST).gone_at
    # a's own later polls kept every live row current.
    live = cache_a.pods(include_gone=False)
    assert {p.pod_id for p in live} == {CONTROL, PERSONAL}
    assert all(ts(p.last_seen_at) == ts(max(q.last_seen_at for q in live if q.account == p.account)) for p in live)


async def test_first_poll_merges_sagan_evidence_stored_before_a_restart(sim_factory, tmp_path):
    """A process may stop between storing Sagan's pod rows and merging them into losses: the next
    poller's first poll merges every stored row, later polls only the rows they fetch."""
    sim = sim_factory(fixture=LOSS_FIXTURE)
    sim.clock.jump_to(20)
    poller, cache = _poller(sim, tmp_path)
    stored = PodLifecycle(id=1, runpod_pod_id="zz9plural9z", account="team", experiment_number=365,
                          status="terminated", terminated_at=sim.clock.at(10), updated_at=sim.clock.at(10))
    with cache.transaction() as conn:
        cache.sagan_rows.upsert_pods(conn, [stored])
    try:
        first = await poller.poll_once()
        second = await poller.poll_once()
    finally:
        await poller.aclose()
    assert "zz9plural9z" in [x.pod_id for x in first.new_losses]
    assert not second.new_losses
    loss = next(x for x in cache.losses() if x.pod_id == "zz9plural9z")
    assert loss.source == "sagan" and loss.experiment == 365


async def test_the_poll_evidence_joins_a_loss_sagan_reported_first(sim_factory, tmp_path):
    """Sagan's "not found" while RunPod's last poll listed the pod is a suspicion; the account's
    next poll, not listing it, confirms it, and the loss holds both sources' evidence."""
    sim = sim_factory(fixture=LOSS_FIXTURE)
    sim.clock.jump_to(20)
    poller, cache = _poller(sim, tmp_path)
    try:
        first = await poller.poll_once()
        sim.clock.jump_to(60)
        by_sagan = await poller.sagan_poller.poll()  # Sagan's own "not found" is committed first
        assert by_sagan.losses == [] and cache.losses() == []
        [suspect] = cache.losses(states=("missing",))
        assert suspect.pod_id == LOST and suspect.source == "sagan"
        assert "Sagan says not found" in cache.flagged_pods()[LOST]
        by_team = await poller.account_poller.poll("team")
        again = await poller.account_poller.poll("team")
    finally:
        await poller.aclose()
    assert LOST in by_team.pods_gone and [x.pod_id for x in by_team.losses] == [LOST] and again.losses == []
    [loss] = cache.losses()
    assert loss.source == "runpod-poll+sagan" and loss.state == "confirmed"
    assert loss.reason.startswith("vanished while RUNNING") and "not found in account=team" in loss.reason
    assert abs((loss.last_seen_at - first.at).total_seconds()) < 3


async def test_a_pod_sagan_names_after_its_account_listed_it_is_reported_changed(sim_factory, tmp_path):
    """The panel re-reads only the pods a poll names: one whose experiment Sagan's rows fill in
    later (its account was polled first) must be named, or its row keeps "—" for its experiment."""
    pod = "w0rker0abc1234"
    fixture = {**LOSS_FIXTURE, "pods": [{"id": pod, "account": "team", "experiment": 192, "name": "worker-a",
                                         "created_at": 0, "running_at": 1}]}
    sim = sim_factory(fixture=fixture)
    sim.clock.jump_to(5)
    poller, cache = _poller(sim, tmp_path)
    try:
        await poller.account_poller.poll("team")  # before any Sagan row: its experiment is not known
        assert [(p.pod_id, p.experiment) for p in cache.pods()] == [(pod, None)]
        by_sagan = await poller.sagan_poller.poll()
        again = await poller.sagan_poller.poll()
    finally:
        await poller.aclose()
    assert by_sagan.pods_changed == [pod] and again.pods_changed == []
    assert [(p.pod_id, p.experiment) for p in cache.pods()] == [(pod, 192)]
