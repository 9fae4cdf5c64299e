"""The owner's actions through the real panel (SaganApp): its selection, marks, refresh and read-only gate."""

from __future__ import annotations

import pytest

from sagan_tui.ui.screens.approval import ApprovalScreen
from sagan_tui.ui.screens.confirm import ConfirmScreen
from sagan_tui.ui.screens.prompt import NoteScreen

from .conftest import actions_fixture, wait_for

SIZE = (200, 50)


@pytest.fixture
def panel(rig):
    async def make(**flags):
        from sagan_tui.ui.app import SaganApp

        r = await rig(fixture=actions_fixture(), **flags)
        return r, SaganApp(r.settings, r.cache)  # the session makes its own clients for its loop

    return make


async def _ready(pilot, app) -> None:
    await wait_for(pilot, lambda: app.polls >= 1 and not app.polling, what="first poll")


async def test_hold_from_the_experiments_pane_shows_after_the_refresh(panel):
    r, app = await panel()
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot, app)
        table = app.experiments_table
        table.focus()
        assert table.select_key("502")
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, NoteScreen), what="hold dialog")
        assert app.focused.id == "cancel"
        await pilot.press("tab", "enter")
        await wait_for(pilot, lambda: app.view.experiments[502].status == "blocked", what="blocked after refresh")
    assert [(q.path, q.body["status"]) for q in r.sent("sagan")] == [("/api/experiments/502/status", "blocked")]
    assert r.cache.actions()[0].result == "ok"


async def test_bulk_stop_of_pods_marked_in_the_pods_pane(panel):
    r, app = await panel()
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot, app)
        pods = app.pods_table
        pods.focus()
        for key in ("teampod502aaaa", "perspod504bbbb"):
            assert pods.select_key(key)
            await pilot.press("space")
        assert sorted(app.main_screen.marked_pods()) == ["perspod504bbbb", "teampod502aaaa"]
        await pilot.press("S")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="bulk stop dialog")
        assert len(app.screen.query(".target")) == 2
        await pilot.press("tab", "enter")
        await wait_for(pilot, lambda: app.main_screen.marked_pods() == [], what="marks cleared")
        await wait_for(pilot, lambda: app.view.pods["perspod504bbbb"].pod.desired_status == "EXITED",
                       what="stop seen by the refresh")
    assert sorted(q.account for q in r.graphql("podStop")) == ["personal", "team"]


async def test_read_only_panel_sends_nothing_but_shows_the_request(panel):
    r, app = await panel(read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot, app)
        app.experiments_table.focus()
        app.experiments_table.select_key("500")
        for key in ("h", "r", "p", "H"):
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is app.screen_stack[0], key
        app.pods_table.focus()
        app.pods_table.select_key("teampod502aaaa")
        await pilot.press("s")
        await pilot.pause()
        assert app.screen is app.screen_stack[0]
        # The approvals pane (the inbox's route) still opens the request, decisions disabled.
        approvals = app.query_one("#approvals")
        approvals.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), what="approval screen")
        assert app.screen.read_only
        await pilot.press("alt+a")
        await pilot.pause()
    assert r.sent() == [] and r.graphql("podStop") == []
