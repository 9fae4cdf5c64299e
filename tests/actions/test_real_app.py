"""The owner's actions through the real panel (SaganApp): its selection, marks, refresh and read-only gate."""

from __future__ import annotations

import pytest

from sagan_tui.panel.screens.approval import ApprovalScreen
from sagan_tui.panel.screens.confirm import ConfirmScreen
from sagan_tui.panel.screens.prompt import NoteScreen

from .conftest import actions_fixture, wave_with_192_approved
from tests.harness import open_dialog, wait_for

SIZE = (200, 50)


@pytest.fixture
def panel(rig):
    async def make(**flags):
        from tests.in_process import panel_app

        r = await rig(fixture=actions_fixture(), **flags)
        return r, panel_app(r.settings, r.cache)  # the session makes its own clients for its loop

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
        await open_dialog(pilot, "h", NoteScreen, "hold dialog")
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
        await open_dialog(pilot, "S", ConfirmScreen, "bulk stop dialog")
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
        await open_dialog(pilot, "enter", ApprovalScreen, "approval screen")
        assert app.screen.read_only
        await pilot.press("alt+a")
        await pilot.pause()
    assert r.sent() == [] and r.graphql("podStop") == []


@pytest.fixture
async def wave_panel(rig):
    """The real panel during the reaping wave, #192 approved: `r` on it goes through the guard."""
    from tests.in_process import panel_app

    r = await wave_with_192_approved(rig)
    return r, panel_app(r.settings, r.cache, r.poller)


async def _guard_dialog(pilot, app):
    from sagan_tui.panel.screens.guard import GuardedDispatchScreen

    await _ready(pilot, app)
    app.experiments_table.focus()
    await wait_for(pilot, lambda: app.experiments_table.select_key("192"), what="#192 in the table")
    await open_dialog(pilot, "r", GuardedDispatchScreen, "guard dialog")
    return app.screen


async def test_the_guard_dialog_accepts_the_typed_number_with_enter(wave_panel):
    r, app = wave_panel
    async with app.run_test(size=SIZE) as pilot:
        screen = await _guard_dialog(pilot, app)
        assert app.focused.id == "typed"
        await pilot.press("1", "9", "2", "enter")
        await wait_for(pilot, lambda: app.screen is not screen, what="dialog closed")
        await wait_for(pilot, lambda: any(a.action == "redispatch" and a.result == "ok" for a in r.cache.actions()),
                       what="re-dispatch audited ok")
    [req] = r.sent("sagan")
    assert req.path == "/api/experiments/192/launch-pod" and "dispatch guard" in req.body["note"]


async def test_r_and_the_number_typed_in_one_burst_re_dispatch_through_the_guard(wave_panel, monkeypatch):
    """`r192⏎` as a paste over SSH delivers it: the dialog opens after a read, and the keys typed
    meanwhile land in its input, not on the panel (where ⏎ would open #192's detail)."""
    from sagan_tui.panel import key_hold
    from tests.terminal.test_dialogs import burst

    monkeypatch.setattr(key_hold, "MAX_HOLD_S", 600.0)  # the bound for a read stuck behind a lock: not tested here
    r, app = wave_panel
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot, app)
        app.experiments_table.focus()
        await wait_for(pilot, lambda: app.experiments_table.select_key("192"), what="#192 in the table")
        burst(app, ["r", *"192", "\r"])
        await wait_for(pilot, lambda: any(a.action == "redispatch" and a.result == "ok" for a in r.cache.actions()),
                       what="re-dispatch audited ok")
        assert app.screen is app.main_screen
    [req] = r.sent("sagan")
    assert req.path == "/api/experiments/192/launch-pod" and "dispatch guard" in req.body["note"]


async def test_the_guard_dialog_refuses_a_wrong_number_with_a_message_and_stays_open(wave_panel):
    from textual.widgets import Static

    r, app = wave_panel
    async with app.run_test(size=SIZE) as pilot:
        screen = await _guard_dialog(pilot, app)
        await pilot.press("1", "9", "1", "enter")
        await pilot.pause()
        assert app.screen is screen
        said = str(screen.query_one("#typed-error", Static).content)
        assert "you typed 191" in said and "type 192" in said and "Nothing sent" in said
        await pilot.press("enter")  # still open, still refusing: Enter never cancels or sends
        assert app.screen is screen and r.sent() == []


async def test_a_cancelled_guarded_redispatch_is_audited_as_cancelled(wave_panel):
    r, app = wave_panel
    async with app.run_test(size=SIZE) as pilot:
        screen = await _guard_dialog(pilot, app)
        await pilot.press("3", "escape")
        await wait_for(pilot, lambda: app.screen is not screen, what="dialog closed")
        await wait_for(pilot, lambda: any(a.action == "redispatch" for a in r.cache.actions()),
                       what="the cancel audited")
    [audit] = [a for a in r.cache.actions() if a.action == "redispatch"]
    assert audit.result == "cancelled" and audit.target == "#192" and "nothing sent" in audit.error
    assert r.sent() == []


async def _mark(pilot, table, keys) -> None:
    table.focus()
    for key in keys:
        await wait_for(pilot, lambda: table.select_key(key), what=f"{key} in {table.id}")
        await pilot.press("space")


async def test_a_bulk_stop_names_the_marked_pods_a_filter_hides_and_the_border_counts_them(panel):
    from textual.widgets import Static

    r, app = await panel()
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot, app)
        pods = app.pods_table
        await _mark(pilot, pods, ("teampod502aaaa", "perspod504bbbb"))
        pods.set_filter("team")
        await pilot.pause()
        assert pods.hidden_marked_keys() == ["perspod504bbbb"]
        assert pods.marked_keys(visible_only=True) == ["teampod502aaaa"]
        assert "/team" in str(pods.border_title) and "2 marked (1 hidden)" in str(pods.border_title)
        await open_dialog(pilot, "S", ConfirmScreen, "bulk stop dialog")
        warning = str(app.screen.query_one("#dialog-warning", Static).content)
        assert "1 marked row is hidden by the filter /team and included: perspod504bbbb" in warning
        assert len(app.screen.query(".target")) == 2
        await pilot.press("tab", "enter")
        await wait_for(pilot, lambda: app.main_screen.marked_pods() == [], what="marks cleared after the bulk stop")
        assert "marked" not in str(pods.border_title)
    assert sorted(q.account for q in r.graphql("podStop")) == ["personal", "team"]


async def test_a_bulk_stop_skips_an_exited_pod_and_says_why(panel):
    from textual.widgets import Static

    r, app = await panel()
    stopped = await r.runner.stop_pod("perspod504bbbb", "personal")
    assert stopped.ok, stopped.message
    await r.poll()  # the simulator now lists it EXITED
    r.since_now()
    from tests.in_process import panel_app

    app = panel_app(r.settings, r.cache)  # the panel reads the cache as it opens: after the stop
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot, app)
        await wait_for(pilot, lambda: app.view.pods["perspod504bbbb"].pod.desired_status == "EXITED",
                       what="EXITED in the panel")
        await _mark(pilot, app.pods_table, ("teampod502aaaa", "perspod504bbbb"))
        await open_dialog(pilot, "S", ConfirmScreen, "bulk stop dialog")
        assert "Stop 1 pod" in str(app.screen.dialog_title)
        warning = str(app.screen.query_one("#dialog-warning", Static).content)
        assert "Skipped, not sent: perspod504bbbb: EXITED: already stopped" in warning
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen), what="dialog closed")
    assert r.graphql("podStop") == []


async def test_bulk_hold_leaves_out_an_experiment_already_blocked_saying_so(panel):
    from textual.widgets import Static

    r, app = await panel()
    await r.poller.sagan.set_status(504, "blocked", "held earlier")
    await r.poll()
    r.since_now()
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot, app)
        await wait_for(pilot, lambda: app.view.experiments[504].status == "blocked", what="#504 blocked")
        await _mark(pilot, app.experiments_table, ("502", "504"))
        await open_dialog(pilot, "H", NoteScreen, "bulk hold dialog")
        assert "Hold 1 experiment" in str(app.screen.dialog_title)
        assert [str(t.content) for t in app.screen.query(".target")][0].startswith("#502 ")
        warning = str(app.screen.query_one("#dialog-warning", Static).content)
        assert "Skipped, not sent: #504: already blocked (held)" in warning
        await pilot.press("tab", "enter")
        await wait_for(pilot, lambda: app.view.experiments[502].status == "blocked", what="#502 held")
    assert [q.path for q in r.sent("sagan")] == ["/api/experiments/502/status"]


async def test_a_deferred_request_stays_reachable_and_the_inbox_says_it_was_deferred(panel):
    from textual.widgets import Static

    r, app = await panel()
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot, app)
        table = app.experiments_table
        table.focus()
        await wait_for(pilot, lambda: table.select_key("503"), what="#503 in the table")
        await open_dialog(pilot, "a", ApprovalScreen, "approval screen")
        await pilot.press("alt+d")
        await wait_for(pilot, lambda: not isinstance(app.screen, ApprovalScreen), what="deferred and closed")
        await wait_for(pilot, lambda: "deferred" in table.records["503"].cells[2].text, what="inbox says deferred")
        deferred = r.cache.approvals("deferred")[0]
        assert table.records["503"].cells[2].text == f"YOU: approve plan · deferred {deferred.updated_at:%H:%M}"
        await pilot.press("a")  # not "no pending approval request": the deferred one opens
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), what="deferred request opened")
        banner = str(app.screen.query_one("#deferred-banner", Static).content)
        assert f"You deferred this request at {deferred.updated_at:%Y-%m-%d %H:%M:%S} UTC" in banner
        assert app.screen.query_one("#defer").disabled and not app.screen.query_one("#reject").disabled
        await pilot.press("alt+r")  # deferring was not the end: it can still be decided
        await wait_for(pilot, lambda: not isinstance(app.screen, ApprovalScreen), what="rejected and closed")
        await wait_for(pilot, lambda: app.view.experiments[503].status == "blocked", what="rejected -> blocked")
    assert [q.body["decision"] for q in r.sent("sagan")] == ["defer", "reject"]
