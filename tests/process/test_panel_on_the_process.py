"""The panel on its session process, against the simulator on
loopback: the whole panel over the channel, an owner action answered, and a kill -9 of the child
named on screen, restarted, and the panes repainted from the cache."""

from __future__ import annotations

import os
import signal

import pytest

from sagan_tui.wire.config import gather
from sagan_tui.panel.screens.prompt import NoteScreen
from tests.actions.conftest import actions_fixture
from tests.harness import SIZE, said, wait_for

WAIT_S = 60.0  # a bound on each wait for a condition, never a pace


def draft_for(sim, tmp):
    env = {**sim.env(), "SAGAN_TUI_CONFIG": str(tmp / "no-config.toml"),
           **{f"RUNPOD_TRANSPORT_{name.upper()}": "graphql" for name in sim.account_keys}}
    return gather(env, sagan_tui_cache=str(tmp / "cache.sqlite"), poll_interval=60.0, bell=False)


@pytest.fixture
def process_panel(tmp_path):
    from sagan_tui.panel.app import SaganApp

    def make(sim, **kw):
        return SaganApp(draft_for(sim, tmp_path), poll=False, **kw)

    return make


async def test_the_panel_runs_on_the_child_and_restarts_it_after_kill_9(sim_factory, process_panel):
    from sagan_tui.panel.remote import RemoteSession

    sim = sim_factory(fixture=actions_fixture())
    app = process_panel(sim)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.loaded, "the session process's whole panel", timeout=WAIT_S)
        assert isinstance(app.session, RemoteSession)
        app.request_refresh()
        await wait_for(pilot, lambda: app.polls >= 1 and app.experiments_table.row_count == 5, "a poll", timeout=WAIT_S)
        assert app.view.experiments[502].runpod_account == "team"

        table = app.experiments_table
        table.focus()
        table.select_key("502")
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, NoteScreen), "the hold dialog", timeout=WAIT_S)
        await pilot.press("tab", "enter")
        await wait_for(pilot, lambda: said(app, "#502 held"), "the hold's answer", timeout=WAIT_S)

        child = app.session.pid
        os.kill(child, signal.SIGKILL)
        await wait_for(pilot, lambda: said(app, "session process ended: killed by SIGKILL; restarting"), "the child's end on screen", timeout=WAIT_S)
        await wait_for(pilot, lambda: app.session.pid not in (None, child) and app.session.opened == 2, "the new child's whole panel", timeout=WAIT_S)
        assert app.experiments_table.row_count == 5  # repainted from the cache the first child wrote
        app.request_refresh()
        await wait_for(pilot, lambda: app.view.experiments[502].status == "blocked", "the hold seen by the new child's poll", timeout=WAIT_S)
        assert app.session.restarts == 1
        second = app.session.client.process
    assert second.returncode == 0  # the panel's exit ended the child by its channel


async def test_after_kill_9_the_new_child_shows_the_same_waves_as_the_waves_command_on_the_cache(
        sim_factory, process_panel, tmp_path):
    import asyncio
    import json
    import sys

    from tests.channel.test_session_process import fill_through_the_wave

    sim = sim_factory(scenario="reaping-wave")
    await fill_through_the_wave(sim, tmp_path)
    held = sim.clock.at(170)
    app = process_panel(sim, clock=lambda: held)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.loaded and app.view.waves, "the whole panel with its wave", timeout=WAIT_S)
        before = [(w.pod_ids, w.verdict.cause) for w in app.view.waves]
        child = app.session.pid
        os.kill(child, signal.SIGKILL)
        await wait_for(pilot, lambda: app.session.opened == 2, "the new child's whole panel", timeout=WAIT_S)
        after = [(w.pod_ids, w.verdict.cause) for w in app.view.waves]
        shown = app.loss_area.border_title
    cli = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "sagan_tui", "waves", "--cache", str(tmp_path / "cache.sqlite"), "--format", "json",
        stdout=asyncio.subprocess.PIPE, env={k: v for k, v in os.environ.items() if not k.startswith("SAGAN")})
    out, _ = await cli.communicate()
    report = json.loads(out)
    assert after == before
    assert after == [(tuple(x["pod_id"] for x in w["losses"]), w["verdict"]["cause"]) for w in report["waves"]]
    assert f"{len(report['waves'])} wave" in shown
