"""Each pod's last sighting (schema v3): an unchanged pod's row is never written, yet every reader
reads it seen by its account's last complete poll, in this process and in another."""

import asyncio
import sqlite3
import subprocess
import sys
from contextlib import closing
from dataclasses import dataclass

import pytest

from sagan_tui.core.store.cache import Cache

from .test_runpod_kinds import PODS, _poller, fixture

AAA, BBB, PERSONAL = (p["id"] for p in PODS)


@dataclass
class Read:
    """The cache as one poll left it."""

    changes: object
    health: dict
    seen: dict  # pod_id -> PodSighting
    pods: dict  # pod_id -> CachedPod
    losses: list


class Polls:
    """Polls of one simulator, each by a new Poller (as another process would: nothing kept in
    memory) at a scenario time held for it: served dates stay put and the poller's clock reads
    the simulator's served time, so a pod that did not change reads unchanged however long the
    poll takes. The transports are kept from poll to poll, as a running panel keeps them: a
    new one whose GPU catalog or GraphQL balance read failed (a loaded machine) would name a
    pod's GPU or machine differently, a change. One Cache open at a time: a second one in
    this process would drop the first one's file locks."""

    def __init__(self, sim, tmp_path):
        self.sim, self.tmp_path, self.transports = sim, tmp_path, {}

    async def at(self, t: float, transport: str = "rest-v2") -> Read:
        poller, cache = _poller(self.sim, self.tmp_path, transport)
        kept = self.transports.setdefault(transport, poller.transports)
        await asyncio.gather(*(x.aclose() for x in poller.transports.values() if x not in kept.values()))
        poller.transports = kept
        self.sim.clock.hold(t)
        poller.clock = lambda: self.sim.clock.at(t)
        try:
            changes = await poller.poll_once(force=True)
            return Read(changes, cache.health(), {s.pod_id: s for s in cache.sightings()},
                        {p.pod_id: p for p in cache.pods()}, cache.losses())
        finally:
            await poller.sagan.aclose()
            cache.close()

    async def close(self) -> None:
        await asyncio.gather(*(x.aclose() for kept in self.transports.values() for x in kept.values()))


@pytest.fixture
async def polls(tmp_path):
    """`polls(sim).at(t)`: see Polls."""
    made: list[Polls] = []

    def make(sim) -> Polls:
        made.append(Polls(sim, tmp_path))
        return made[-1]

    yield make
    for p in made:
        await p.close()


def _moved(a, b) -> dict:
    """The fields of a pod that differ between two reads, as (before, after)."""
    x, y = a.model_dump(), b.model_dump()
    return {f: (v, y[f]) for f, v in x.items() if v != y[f]}


def _log_pod_writes(path) -> None:
    """A trigger logging every update of a pods row, whatever column it sets."""
    with closing(sqlite3.connect(path)) as conn:
        conn.executescript("""
            create table pod_writes (pod_id text);
            create trigger log_pod_writes after update on pods
            begin insert into pod_writes values (new.pod_id); end;""")


def _pod_writes(path) -> list[str]:
    with closing(sqlite3.connect(path)) as conn:
        return [r[0] for r in conn.execute("select pod_id from pod_writes")]


async def test_a_poll_finding_every_pod_unchanged_writes_no_pod_row_and_every_reader_sees_it_seen(sim_factory, tmp_path,
                                                                                                     polls):
    sim = sim_factory(fixture=fixture())
    at = polls(sim).at
    first = await at(10)
    _log_pod_writes(tmp_path / "cache.sqlite")
    second = await at(20)
    assert second.changes.pods_changed == () and _pod_writes(tmp_path / "cache.sqlite") == [], [
        _moved(first.pods[k].pod, second.pods[k].pod) for k in second.changes.pods_changed]
    when = sim.clock.at(20)
    for pod_id, p in second.pods.items():
        was, seen = first.pods[pod_id], second.seen[pod_id]
        assert second.health[p.account].last_success == when
        assert p.last_seen_at == seen.last_seen_at == seen.running_seen_at == when
        # The uptime grows by the time between the two sightings, as RunPod's did.
        assert p.pod.uptime_seconds == was.pod.uptime_seconds + 10
        assert p.first_seen_at == was.first_seen_at and p.running_at == was.running_at


async def test_a_pod_that_stops_keeps_its_last_running_sighting_from_its_accounts_poll(sim_factory, polls):
    sim = sim_factory(fixture=fixture(pods=[{**PODS[0], "stopped_at": 25}, *PODS[1:]]))
    at = polls(sim).at
    await at(10)
    await at(20)
    third = await at(30)
    assert third.changes.pods_changed == (AAA,)
    stopped, running = third.seen[AAA], third.seen[BBB]
    assert stopped.desired_status == "EXITED" and stopped.last_seen_at == sim.clock.at(30)
    # Its row was written at t=10, then left alone at t=20: the last poll that saw it RUNNING.
    assert stopped.running_seen_at == sim.clock.at(20)
    assert running.last_seen_at == running.running_seen_at == sim.clock.at(30)


async def test_a_pod_lost_after_polls_that_left_it_alone_is_lost_from_its_last_sighting(sim_factory, polls):
    sim = sim_factory(fixture=fixture(pods=[{**PODS[0], "lost_at": 25}, *PODS[1:]]))
    at = polls(sim).at
    await at(10)
    await at(20)
    third = await at(30)
    [loss] = third.losses
    assert loss.pod_id == AAA and loss.last_seen_at == sim.clock.at(20) and loss.lost_at == sim.clock.at(30)
    gone = third.seen[AAA]
    assert gone.gone and gone.last_seen_at == gone.running_seen_at == sim.clock.at(20)
    assert third.seen[BBB].last_seen_at == sim.clock.at(30)


async def test_a_partial_poll_moves_only_the_sightings_of_the_pods_it_listed(sim_factory, polls):
    # Read whole over REST v2, then GraphQL nulls one pod: that poll vouches only for the others.
    broken = [PODS[0], {**PODS[1], "null_fields": ["machineId"]}, PODS[2]]
    sim = sim_factory(fixture=fixture(pods=broken))
    at = polls(sim).at
    await at(10)
    await at(15)
    partial = await at(20, "graphql")
    assert partial.changes.skipped and not partial.changes.pods_gone
    assert partial.seen[AAA].last_seen_at == partial.seen[AAA].running_seen_at == sim.clock.at(20)
    assert partial.seen[BBB].last_seen_at == partial.seen[BBB].running_seen_at == sim.clock.at(15)
    # A complete poll after it vouches for every pod again.
    complete = await at(25)
    assert {s.last_seen_at for s in complete.seen.values()} == {sim.clock.at(25)}


def test_a_sync_in_another_process_is_seen_by_a_reader_on_the_same_file(sim_factory, tmp_path):
    sim = sim_factory(fixture=fixture())
    path = tmp_path / "cache.sqlite"
    env = {**sim.env(), "SAGAN_TUI_CONFIG": str(tmp_path / "absent.toml"), "SAGAN_TUI_CACHE": str(path)}

    def sync_once(t: float) -> None:
        sim.clock.jump_to(t)
        done = subprocess.run([sys.executable, "-m", "sagan_tui", "sync", "--once"], env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]

    sync_once(10)
    reader = Cache(path, read_only=True)
    try:
        first, version = {s.pod_id: s for s in reader.sightings()}, reader.data_version()
        sync_once(20)
        assert reader.data_version() != version  # what the panel's watch looks at
        health, seen = reader.health(), reader.sightings()
    finally:
        reader.close()
    assert {s.pod_id for s in seen} == set(first) == {AAA, BBB, PERSONAL}
    for s in seen:
        at = health[s.account].last_success
        assert s.last_seen_at == s.running_seen_at == at and at > first[s.pod_id].last_seen_at
