"""The session in its own process, over a real Unix socket, against the simulator on loopback:
opened with the whole panel, intents answered with typed results, a hostile peer refused, and
the child's end (the channel closed, stdin closed, kill -9) seen and named."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import time
from pathlib import Path

import pytest

from sagan_tui.wire.channel import intents as I
from sagan_tui.wire.channel.client import SessionClient, SessionEnded
from sagan_tui.wire.channel.early import CLOSE_GRACE_S
from sagan_tui.wire.channel.frames import pack, read_frame
from sagan_tui.wire.channel.messages import TO_PANEL, Refused
from sagan_tui.wire.channel.views import ActionResultView, Done, ReadyView, UpdateView
from sagan_tui.wire.config import gather
from tests.actions.conftest import actions_fixture

WAIT_S = 60.0  # a bound on a wait for a condition (a busy 2-core machine starts Python slowly), never a pace


def layers(sim, tmp: Path) -> tuple[dict, dict]:
    env = {**sim.env(), "SAGAN_TUI_CONFIG": str(tmp / "no-config.toml"),
           **{f"RUNPOD_TRANSPORT_{name.upper()}": "graphql" for name in sim.account_keys}}
    draft = gather(env, sagan_tui_cache=str(tmp / "cache.sqlite"), poll_interval=60.0, bell=False)
    return draft.values, draft.accounts


class Panel:
    """The UI side as a test sees it: a SessionClient and every update it was sent, in order."""

    def __init__(self) -> None:
        self.updates: list[UpdateView] = []
        self.ended: list[str] = []
        self.changed = asyncio.Event()
        self.client = SessionClient(self._update, self._ended)

    def _update(self, u: UpdateView) -> None:
        self.updates.append(u)
        self.changed.set()

    def _ended(self, why: str) -> None:
        self.ended.append(why)
        self.changed.set()

    async def until(self, cond, what: str) -> None:
        deadline = time.monotonic() + WAIT_S
        while not cond():
            self.changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {what}")
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except asyncio.TimeoutError:
                pass

    def polls(self) -> int:
        return max((u.polls for u in self.updates if u.polls is not None), default=0)

    def row(self, pane: str, key: str):
        found = None
        for u in self.updates:
            found = getattr(u, pane).get(key, found)
        return found


@pytest.fixture
async def opened(sim_factory, tmp_path):
    sim = sim_factory(fixture=actions_fixture())
    panel = Panel()
    values, accounts = layers(sim, tmp_path)
    ready = await panel.client.open(values, accounts, poll=False)
    yield sim, panel, ready
    await panel.client.close()


async def test_the_child_opens_with_the_whole_panel_and_a_refresh_brings_the_simulators_rows(opened):
    sim, panel, ready = opened
    assert isinstance(ready, ReadyView), ready
    assert ready.first.full and ready.first.experiments == {}  # a fresh cache: nothing polled yet
    assert ready.settings.poll_interval == 60.0
    assert await panel.client.ask(I.Refresh()) == Done()
    await panel.until(lambda: panel.polls() >= 1, "the first poll's update")
    row = panel.row("experiments", "502")
    assert row is not None and "Running on team" in " ".join(c.text for c in row.cells)
    assert {"500", "501", "502", "503", "504"} <= set().union(*(u.experiments for u in panel.updates))
    assert panel.row("pods", "perspod504bbbb") is not None


async def test_a_hold_is_answered_with_its_typed_result_and_reaches_the_simulator(opened):
    sim, panel, _ready = opened
    await panel.client.ask(I.Refresh())
    await panel.until(lambda: panel.polls() >= 1, "the first poll")
    result = await panel.client.ask(I.Hold((502,), "held over the channel"))
    assert isinstance(result, ActionResultView) and result.ok, result
    held = [r for r in sim.requests if r.path == "/api/experiments/502/status"]
    assert [r.body for r in held] == [{"status": "blocked", "note": "held over the channel"}]
    assert await panel.client.ask(I.BlockedBy((502,))) == {502: "h (the owner)"}
    # An action the runner refuses is an answer too, not an error of the channel.
    refused = await panel.client.ask(I.Promote(502))
    assert isinstance(refused, ActionResultView) and not refused.ok and refused.message


async def test_a_hostile_peer_on_the_childs_socket_is_refused_and_the_panel_still_answered(opened):
    _sim, panel, _ready = opened
    reader, writer = await asyncio.open_unix_connection(str(panel.client.path))
    writer.write(pack(b"\x93not a request"))
    refused = TO_PANEL.decode(await read_frame(reader))
    writer.close()
    assert isinstance(refused, Refused) and "not a message of this channel" in refused.reason
    assert await panel.client.ask(I.HoldNote()) == ""  # no wave: no prefilled note
    assert panel.client.process.returncode is None and not panel.ended


async def test_the_socket_is_owner_only_in_a_0700_directory(opened):
    _sim, panel, _ready = opened
    path = panel.client.path
    assert os.stat(path.parent).st_mode & 0o777 == 0o700 and os.stat(path).st_mode & 0o777 == 0o600
    probe = socket.socket(socket.AF_UNIX)
    probe.connect(str(path))
    creds = probe.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    probe.close()
    assert int.from_bytes(creds[4:8], "little") == os.getuid()


async def test_an_intent_sent_while_the_open_is_in_flight_follows_it(sim_factory, tmp_path):
    """The heatmap asks for its scope at the first frame, before the Open is answered: the
    child answered 'not open yet' and logged a traceback (two panels on one cache caught it)."""
    sim = sim_factory(fixture=actions_fixture())
    panel = Panel()
    await panel.client.start()
    opening = panel.client.request(I.Open(*layers(sim, tmp_path), poll=False))
    watched = panel.client.request(I.WatchHeatmap("account", None, 60))  # before the Open's answer
    try:
        assert isinstance(await opening, ReadyView)
        await watched  # answered, not refused
        await panel.until(lambda: any(u.heatmap is not None for u in panel.updates), "the grid")
    finally:
        await panel.client.close()


async def test_the_child_ends_when_the_channel_closes_and_its_directory_goes(sim_factory, tmp_path):
    sim = sim_factory(fixture=actions_fixture())
    panel = Panel()
    await panel.client.open(*layers(sim, tmp_path), poll=False)
    process, runtime = panel.client.process, panel.client.path.parent
    await panel.client.close()
    assert process.returncode == 0  # ended by itself, not killed
    assert not runtime.exists() and panel.ended == []


async def test_the_child_ends_with_its_channel_while_a_graphql_request_still_waits_on_runpod(sim_factory, tmp_path):
    """A request in flight is the SDK's thread, bounded by its deadline (a minute here): the child
    must not outlive its channel by that minute (the panel's grace would kill it)."""
    sim = sim_factory(fixture=actions_fixture())
    sim.api_latency["graphql"] = 120.0  # RunPod answers nothing for two minutes
    panel = Panel()
    values, accounts = layers(sim, tmp_path)
    await panel.client.open({**values, "request_timeout": 60.0}, accounts)
    wait = time.monotonic() + WAIT_S
    while not any(r.api == "graphql" for r in sim.requests):  # the first poll is waiting on RunPod
        assert time.monotonic() < wait, "no GraphQL request was sent"
        await asyncio.sleep(0.05)
    process = panel.client.process
    started = time.monotonic()
    await panel.client.close()
    assert process.returncode == 0  # ended by itself, not killed after the grace
    assert time.monotonic() - started < CLOSE_GRACE_S


async def test_kill_9_of_the_child_is_named_and_pending_asks_end_with_the_reason(opened):
    _sim, panel, _ready = opened
    os.kill(panel.client.pid, signal.SIGKILL)
    await panel.until(lambda: panel.ended, "the session's end")
    assert panel.ended == ["killed by SIGKILL"]
    with pytest.raises(SessionEnded, match="killed by SIGKILL"):
        await panel.client.ask(I.Refresh())


async def test_a_child_that_cannot_start_says_why(tmp_path, monkeypatch):
    client = SessionClient(lambda u: None)
    client.env["PYTHONPATH"] = str(tmp_path)  # a sagan_tui that shadows ours and fails at import
    (tmp_path / "sagan_tui").mkdir()
    (tmp_path / "sagan_tui" / "__init__.py").write_text("raise SystemExit('no session here')\n")
    with pytest.raises(SessionEnded, match="no session here"):
        await client.start()
    await client.close()


def test_every_intent_but_the_opens_has_its_handler_in_the_session():
    from sagan_tui.core.session.answers import HANDLERS

    assert set(HANDLERS) == set(I.INTENTS) - {I.Open, I.PreOpen}  # the host answers those two itself


async def fill_through_the_wave(sim, tmp: Path) -> None:
    """The reaping wave's polls made by this process into the cache the child will open."""
    from sagan_tui.core.config_model import validate
    from sagan_tui.core.store.cache import Cache
    from sagan_tui.core.sync.poller import Poller

    values, accounts = layers(sim, tmp)
    settings = validate(type(gather())(values, accounts))
    cache = Cache(settings.cache_path)
    poller = Poller(settings, cache)
    try:
        for t in (20, 40, 60, 80, 100, 110, 120, 130, 150, 170):  # the r4 siblings die at t=98..112
            sim.clock.jump_to(t)
            await poller.poll_once(force=True)
    finally:
        await poller.aclose()
        cache.close()
    sim.clock.hold(170)


async def test_the_whole_panel_carries_the_wave_weighed_and_the_records_as_plain_views(sim_factory, tmp_path):
    from sagan_tui.wire.channel.views import CachedPodView, ExperimentView, WaveView

    sim = sim_factory(scenario="reaping-wave")
    await fill_through_the_wave(sim, tmp_path)
    panel = Panel()
    try:
        ready = await panel.client.open(*layers(sim, tmp_path), poll=False, clock=sim.clock.at(170))
        first = ready.first
        assert first.losses is not None and first.losses.waves, first.losses
        wave = first.losses.waves[-1]
        assert isinstance(wave, WaveView) and wave.verdict.cause and wave.verdict.headline.startswith(wave.verdict.title)
        assert {"k3m8qz0v2xw7ta", "h9d2pj6wq4ne1c", "t5x0bv8rk2mu7y"} <= set(wave.pod_ids)
        assert wave.summary.startswith("Reaping wave ") and wave.diagnosis
        assert all(isinstance(e, ExperimentView) for e in first.experiment_records.values())
        assert first.experiment_records[365].number == 365 and first.experiment_records[365].status_known
        assert all(isinstance(p, CachedPodView) for p in first.pod_records.values() if p is not None)
        assert first.approval_records and any(a.experiment_number == 367 for a in first.approval_records)
        note = await panel.client.ask(I.HoldNote())
        assert note.startswith("Held by the owner: Reaping wave ")
    finally:
        await panel.client.close()


@pytest.mark.parametrize("env, flags, said", [
    ({"SAGAN_TUI_POLL_INTERVAL": "0.01"}, {}, "(set by the environment's SAGAN_TUI_POLL_INTERVAL)"),
    ({}, {"poll_interval": 0.01}, "(set by flag --poll-interval)"),
])
async def test_a_config_error_in_the_panel_names_the_layer_that_set_it(sim_factory, tmp_path, env, flags, said):
    """Issue 44.7: the panel's settings reach its session process over the Open with their origins,
    so its refusal says where to mend the value, as the headless commands do."""
    from sagan_tui.wire.channel.early import layer_origins, open_layers
    from sagan_tui.wire.channel.views import FailedView

    sim = sim_factory(fixture=actions_fixture())
    base = {**sim.env(), "SAGAN_TUI_CONFIG": str(tmp_path / "no-config.toml"), **env}
    draft = gather(base, sagan_tui_cache=str(tmp_path / "cache.sqlite"), **flags)
    panel = Panel()
    answer = await panel.client.open(*open_layers(draft), poll=False, origins=layer_origins(draft))
    await panel.client.close()
    assert isinstance(answer, FailedView) and "poll_interval" in answer.error and said in answer.error, answer
