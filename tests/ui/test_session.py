"""The PanelSession under the real panel: no SQLite on the UI thread, dismiss hides only, times tick, per-source polls."""

from __future__ import annotations

import sqlite3
import threading
from datetime import timedelta

from textual.widgets import Button, Input

from sagan_tui.core.actions.guard import incident_report
from sagan_tui.panel.screens.approval import ApprovalScreen
from sagan_tui.panel.screens.guard import GuardedDispatchScreen
from sagan_tui.panel.screens.prompt import NoteScreen
from sagan_tui.panel.widgets.wave_panel import WavePanel

from tests.harness import SIZE, cache_of, open_dialog, poll_now, said, wait_for

R4 = ["k3m8qz0v2xw7ta", "h9d2pj6wq4ne1c", "t5x0bv8rk2mu7y"]


async def test_no_sqlite_call_runs_on_the_ui_thread_through_polls_a_wave_and_actions(sim_factory, panel, monkeypatch):
    """Issue 14: ten polls through the r4 wave, an approval, a hold and a dismiss; every connect,
    statement and commit runs on the session's threads, none on the thread running the app."""
    sim = sim_factory(scenario="reaping-wave")
    app = panel(sim, poll=False)  # the cache was opened (and read) before the app started: allowed
    ui = threading.current_thread()
    on_ui: list[str] = []

    def trace(statement: str) -> None:
        if threading.current_thread() is ui:
            on_ui.append(statement)

    real_connect = sqlite3.connect

    def connect(*args, **kwargs):
        if threading.current_thread() is ui:
            on_ui.append(f"connect {args[:1]}")
        return real_connect(*args, **kwargs)

    async with app.run_test(size=SIZE) as pilot:
        cache = cache_of(app)
        cache.db.conn.set_trace_callback(trace)
        cache._reader.set_trace_callback(trace)  # private on purpose: every connection the cache holds is the rule here
        monkeypatch.setattr(sqlite3, "connect", connect)
        for t in (20, 40, 60, 80, 100, 110, 120, 130, 150, 170):  # the r4 siblings die at t=98..112
            sim.clock.jump_to(t)
            await poll_now(pilot, app)
        assert app.polls == 10 and app.view.waves and set(R4) <= {x.pod_id for x in app.current_losses()}

        table = app.experiments_table
        table.focus()
        table.select_key("367")
        await open_dialog(pilot, "a", ApprovalScreen, "the approval")
        for box in app.screen.query(Input):
            if box.id and box.id.startswith("tb-"):
                box.value = "n/a"
        app.screen.query_one("#approve", Button).press()
        # the wave is active in the plan's account: approval dispatches, so the guard asks for #367
        await wait_for(pilot, lambda: isinstance(app.screen, GuardedDispatchScreen), what="the approve guard")
        await pilot.press("3", "6", "7", "enter")
        await wait_for(pilot, lambda: said(app, "approve sent for #367"), what="the approval sent")

        await wait_for(pilot, lambda: not isinstance(app.screen, ApprovalScreen), what="the approval closed")
        table.focus()
        table.select_key("365")
        await open_dialog(pilot, "h", NoteScreen, "the hold dialog")
        await pilot.press("tab", "enter")
        await wait_for(pilot, lambda: said(app, "#365 held"), what="the hold sent")

        pods = app.pods_table
        pods.focus()
        pods.select_key(R4[0])
        await pilot.press("x")
        await wait_for(pilot, lambda: said(app, f"dismissed lost pod {R4[0]}"), what="the dismiss")
        await poll_now(pilot, app)
        monkeypatch.undo()
        cache.db.conn.set_trace_callback(None)
        cache._reader.set_trace_callback(None)
    assert on_ui == []


async def test_the_wave_panels_wave_arrives_weighed_and_no_diagnosis_runs_on_the_ui_thread(sim_factory, panel,
                                                                                              monkeypatch):
    """Issue 18.8: a diagnosis reads every pod's sightings (0.5 s at 10,000 pods); drawn lazily
    by the wave panel it held the UI thread and every key behind it."""
    import sagan_tui.core.triage.verdict as judged  # where a wave's diagnosis is made (diagnosis_of)

    sim = sim_factory(scenario="reaping-wave")
    app = panel(sim, poll=False)
    ui, where = threading.current_thread(), []
    real = judged.diagnose

    def diagnose(*args, **kwargs):
        where.append(threading.current_thread() is ui)
        return real(*args, **kwargs)

    monkeypatch.setattr(judged, "diagnose", diagnose)
    async with app.run_test(size=SIZE) as pilot:
        for t in (60, 130):  # before r4's losses, after them
            sim.clock.jump_to(t)
            await poll_now(pilot, app)
        panel_ = app.query_one(WavePanel)
        await wait_for(pilot, lambda: panel_.wave is not None, what="the wave shown")
        await pilot.pause()
    assert where and not any(where), where


async def test_dismiss_hides_the_pods_row_and_leaves_waves_report_and_ticket_as_they_were(sim_factory, panel):
    """Issue 17.1 through the real app: after `x` on a lost pod its row leaves the pods pane; the
    losses, the waves (pods, burn), the heatmap count, the report and the ticket are unchanged."""
    sim = sim_factory(scenario="reaping-wave")
    sim.clock.jump_to(60)
    app = panel(sim, poll=False)
    async with app.run_test(size=SIZE) as pilot:
        await poll_now(pilot, app)
        sim.clock.jump_to(130)
        await poll_now(pilot, app)
        waves_before = [(len(w.losses), w.burn_usd) for w in app.view.waves]
        title_before = app.loss_area.border_title
        now = app.clock()
        report_before = incident_report(cache_of(app), now)
        assert waves_before and R4[0] in report_before
        pods = app.pods_table
        pods.focus()
        pods.select_key(R4[0])
        await pilot.press("x")
        await wait_for(pilot, lambda: R4[0] not in pods.shown_keys(), what="the row hidden")
        await wait_for(pilot, lambda: said(app, f"dismissed lost pod {R4[0]}"), what="x saying what it did")
        assert [(len(w.losses), w.burn_usd) for w in app.view.waves] == waves_before
        assert app.loss_area.border_title == title_before
        assert R4[0] in {x.pod_id for x in app.current_losses()}
        assert incident_report(cache_of(app), now) == report_before  # the report is the ticket's text
        await poll_now(pilot, app)
        assert [(len(w.losses), w.burn_usd) for w in app.view.waves] == waves_before
        assert R4[0] not in pods.shown_keys()


async def test_the_wave_panels_relative_time_changes_on_the_status_tick(sim_factory, panel):
    """Issue 17.6: "… ago" on the wave panel reads the clock of the tick, not of the last poll."""
    sim = sim_factory(scenario="reaping-wave")
    sim.clock.jump_to(130)
    clock = [None]
    from sagan_tui.wire.basics import utcnow

    clock[0] = utcnow()
    app = panel(sim, poll=False, clock=lambda: clock[0])
    async with app.run_test(size=SIZE) as pilot:
        await poll_now(pilot, app)
        waves = app.query_one(WavePanel)
        before = str(waves.render())
        clock[0] = clock[0] + timedelta(minutes=7)
        app.status_line.tick()  # the status tick (every 5 s)
        await wait_for(pilot, lambda: str(waves.render()) != before, what="the relative time to move on")


async def test_each_account_is_polled_on_its_own_while_sagan_answers_slowly(sim_factory, panel):
    """Issue 14: with Sagan answering after 8 s, the accounts keep their own interval (requests
    counted at the simulator while Sagan's first poll is outstanding) and their rows stay fresh."""
    sim = sim_factory(scenario="calm")
    sim.api_latency = {"sagan": 8.0}
    app = panel(sim, poll_interval=2.0)
    async with app.run_test(size=SIZE) as pilot:
        # Sagan's poll asks three routes at once, then the events: two slow replies in a row.
        await wait_for(pilot, lambda: app.view.health.get("sagan") and app.view.health["sagan"].last_success,
                       timeout=90, what="Sagan's slow poll")
        first = min((r for r in sim.requests if r.api == "sagan"), key=lambda r: r.t)
        answered = first.t + 8.0
        for account in ("team", "personal"):
            during = [r for r in sim.requests if r.api != "sagan" and r.account == account and first.t < r.t < answered]
            assert len(during) >= 2, (account, len(during))  # asked again and again while Sagan was silent
            # Its rows were refreshed while Sagan's first reply was still on its way: never held stale by it.
            assert app.view.health[account].last_success > first.at


async def test_the_header_names_the_active_wave(tmp_path):
    """Issue 17.9: whatever pane is in view, the status line says a wave is on and until when."""
    from sagan_tui.panel.widgets.status_bar import StatusBar

    from .frozen import LOST, frozen_app

    app = frozen_app(tmp_path)
    async with app.run_test(size=SIZE):
        assert f"WAVE {len(LOST)} lost · guard until 11:09" in app.query_one(StatusBar).plain


async def test_the_timeline_title_says_whether_it_follows(tmp_path):
    """Issue 17.6: `f` turns follow off and on, and the title says which."""
    from .frozen import frozen_app

    app = frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        tl = app.timeline
        assert "follow" in str(tl.border_title)
        tl.focus()
        await pilot.press("f")
        assert "follow" not in str(tl.border_title)
        await pilot.press("f")
        assert "follow" in str(tl.border_title)


async def test_q_asks_first_while_an_action_waits_for_its_answer(sim_factory, panel):
    """Issue 17.9: `q` with a hold on its way asks, naming it; Escape keeps the panel; "Quit anyway" quits."""
    from sagan_tui.panel.screens.confirm import ConfirmScreen

    sim = sim_factory(scenario="calm")
    app = panel(sim, poll=False, request_timeout=60.0)  # the hold stays in flight however slow the machine
    async with app.run_test(size=SIZE) as pilot:
        await poll_now(pilot, app)
        sim.api_latency = {"sagan": 600.0}  # the hold's answer will not come while the test runs
        table = app.experiments_table
        table.focus()
        table.move_cursor(row=0)
        await open_dialog(pilot, "h", NoteScreen, "the hold dialog")
        await pilot.press("tab", "enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, NoteScreen), what="the hold sent")
        number = table.cursor_key
        await open_dialog(pilot, "q", ConfirmScreen, "quit asks first")
        assert "in flight" in str(app.screen.dialog_title)
        assert f"  hold #{number}" in app.screen.targets  # it names the action that waits (issue 44.7)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen), what="the question closed")
        assert app.is_running
        await open_dialog(pilot, "q", ConfirmScreen, "quit asks again")
        await pilot.press("tab", "enter")
        await wait_for(pilot, lambda: not app.is_running, what="the panel quit")
