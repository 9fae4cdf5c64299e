"""Keys that follow vim, less, k9s and lazygit (issue #44 item 4): j/k, live `/` with n/N, space,
ctrl+a, `*`, the pane numbers, `K` for the acknowledgement, and the detail screen's `u` and `R`."""

from __future__ import annotations

from textual import events
from textual.widgets import DataTable, Input

from sagan_tui.panel.messages import ExperimentViewed
from sagan_tui.panel.screens.audit import AuditScreen
from sagan_tui.panel.screens.confirm import Dialog
from sagan_tui.panel.screens.detail import DetailScreen
from sagan_tui.panel.widgets.filter_bar import FilterBar

from tests.harness import open_dialog, poll_now, wait_for
from .frozen import frozen_app

SIZE = (200, 50)


def actions_of(screen, key: str) -> set[str]:
    """What `key` does on `screen` now, by Textual's public table of active bindings."""
    return {b.binding.action for k, b in screen.active_bindings.items() if k == key}


async def test_j_and_k_move_the_cursor_in_every_pane_and_k_no_longer_acknowledges(tmp_path):
    app = frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.main_screen.query("TimelineTable"), what="the later panes")
        for table in (app.experiments_table, app.pods_table, app.main_screen.timeline,
                      app.main_screen.query_one("#approvals")):
            assert table.row_count >= 2, table.id
            table.focus()
            table.move_cursor(row=0)
            await pilot.press("j")
            assert table.cursor_row == 1, table.id
            await pilot.press("k")
            assert table.cursor_row == 0, table.id
        assert actions_of(app.screen, "k") == {"scroll_up"}
        assert actions_of(app.screen, "K") == {"acknowledge"}

        heatmap = app.main_screen.query_one("#heatmap")
        heatmap.focus()
        await wait_for(pilot, lambda: heatmap.cursor is not None, what="a heatmap cell")
        heatmap.action_move(-10, 0)  # the top row: j has one below to go to
        top = heatmap.cursor
        await pilot.press("j")
        assert heatmap.cursor == (top[0] + 1, top[1])
        await pilot.press("k")
        assert heatmap.cursor == top


async def test_j_and_k_move_in_the_audit_log(tmp_path):
    app = frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("e")  # export: one audit row; the second is the acknowledgement
        await pilot.press("K")
        await open_dialog(pilot, "A", AuditScreen, "audit log")
        table = app.screen.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count >= 2, what="two audit rows")
        table.move_cursor(row=0)
        await pilot.press("j")
        assert table.cursor_row == 1
        await pilot.press("k")
        assert table.cursor_row == 0


async def test_slash_filters_as_each_key_is_typed_and_enter_keeps_escape_drops(tmp_path):
    app = frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        table = app.experiments_table
        total = table.row_count
        await pilot.press("slash")
        counts = []
        for ch in "pers":
            await pilot.press(ch)
            counts.append(table.row_count)
        assert app.screen.query(FilterBar)  # still typing, and the rows already narrowed
        assert counts == sorted(counts, reverse=True) and counts[-1] < total
        assert sorted(table.shown_keys()) == ["192", "333", "367"]
        await pilot.press("enter")  # kept
        assert not app.screen.query(FilterBar) and sorted(table.shown_keys()) == ["192", "333", "367"]

        await pilot.press("slash")
        app.screen.query_one(FilterBar).query_one(Input).value = "re:(["  # a regex not yet whole
        await pilot.pause()
        assert sorted(table.shown_keys()) == ["192", "333", "367"]  # untouched, the bar says why
        assert "bad regex" in str(app.screen.query_one("#filter-error").render())
        await pilot.press("escape")  # dropped
        assert not app.screen.query(FilterBar) and table.row_count == total and table.filter_text == ""


async def test_n_and_N_walk_the_filters_matches_round(tmp_path):
    app = frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        table = app.experiments_table
        await pilot.press("slash", *"pers", "enter")
        first, n = table.cursor_row, table.row_count
        assert n == 3
        await pilot.press("n")
        assert table.cursor_row == (first + 1) % n
        await pilot.press("n", "n")
        assert table.cursor_row == first  # round from the last to the first
        await pilot.press("N")
        assert table.cursor_row == (first - 1) % n


async def test_space_only_marks_ctrl_a_marks_the_visible_rows_and_star_inverts_them(tmp_path):
    app = frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        table = app.experiments_table
        table.move_cursor(row=0)
        first = table.cursor_key
        await pilot.press("space")
        assert table.cursor_row == 0 and table.marked_keys() == [first]  # the cursor stayed
        await pilot.press("space")
        assert table.marked_keys() == []

        await pilot.press("slash", *"pers", "enter")  # three rows visible
        shown = table.shown_keys()
        await pilot.press("ctrl+a")
        assert sorted(table.marked_keys()) == sorted(shown)
        table.move_cursor(row=0)
        await pilot.press("space")  # one unmarked again
        await pilot.press("asterisk")
        assert table.marked_keys() == [shown[0]]  # each visible row flipped

        await pilot.press("slash", "escape")  # all rows: the mark behind the filter is kept
        await pilot.press("asterisk")
        assert sorted(table.marked_keys()) == sorted(k for k in table.shown_keys() if k != shown[0])
        assert "marked" in str(table.border_title)


async def test_the_numbers_focus_the_panes(tmp_path):
    app = frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.main_screen.query("TimelineTable"), what="the later panes")
        for key, pane in (("2", "pods"), ("3", "timeline"), ("4", "heatmap"), ("5", "approvals"),
                          ("1", "experiments")):
            await pilot.press(key)
            assert app.focused is not None and app.focused.id == pane, key
        await pilot.press("2", "z", "3")  # zoomed: the pane jumped to fills the body
        assert app.focused.id == "timeline" and app.main_screen.query_one("#timeline").has_class("-zoomed")
        assert not app.pods_table.has_class("-zoomed")


async def test_the_detail_screens_R_fetches_the_plan_again_and_u_releases_as_on_the_panel(calm_sim, panel):
    app = panel(calm_sim, poll=False)
    messages: list = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await poll_now(pilot, app)
        app.experiments_table.move_cursor(row=0)
        number = app.experiments_table.cursor_key
        assert app.view.experiments[int(number)].status == "blocked"  # held: `u` has something to release
        await pilot.press("enter")
        assert isinstance(app.screen, DetailScreen)
        # The hook sees a message at each node it reaches: count them once each.
        viewed = lambda: list({id(m): m for m in messages if isinstance(m, ExperimentViewed)}.values())  # noqa: E731
        await wait_for(pilot, lambda: len(viewed()) == 1, what="the first fetch")
        asked = len(calm_sim.requests)
        await pilot.press("R")
        await wait_for(pilot, lambda: len(viewed()) == 2, what="the plan fetched again")
        assert viewed()[1].view is not None and len(calm_sim.requests) > asked  # over HTTP, again
        assert isinstance(app.screen, DetailScreen)

        await open_dialog(pilot, "u", Dialog, "the release dialog")
        targets = [str(t.render()) for t in app.screen.query(".target")]
        assert app.screen.confirm_label == "Release" and len(targets) == 1 and f"#{number}" in targets[0]
        assert app.screen.focused is not None and app.screen.focused.id == "cancel"  # starts on Cancel
        await pilot.press("escape")
        assert isinstance(app.screen, DetailScreen)


async def test_keys_typed_at_once_after_the_slash_go_to_the_filter_not_to_the_panel(tmp_path):
    """tmux's send-keys (or a quick hand) delivers `/per⏎` before the bar has the focus: the
    table passed `p` (promote), `e` (export) and `r` (re-dispatch) on as panel keys."""
    app = frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        table = app.experiments_table
        burst = [("slash", "/"), *((c, c) for c in "pers"), ("enter", "\r")]
        for key, char in burst:
            app.post_message(events.Key(key, char))  # all queued before any is handled
        await wait_for(pilot, lambda: table.filter_text == "pers" and not app.screen.query(FilterBar),
                       what="the filter kept")
        await pilot.pause()
        assert app.screen is app.main_screen and table.filter_text == "pers"
        assert sorted(table.shown_keys()) == ["192", "333", "367"]
        assert await app.session.audit_log(50) == []  # no export, nothing refused
