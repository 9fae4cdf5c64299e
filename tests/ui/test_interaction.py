"""Keys on the frozen panel (no network): filter, marks, sort, inbox, incident, dismiss, help, palette, read-only."""

from __future__ import annotations

from textual.command import CommandPalette
from textual.widgets import Input

from sagan_tui.ui.palette import BindingCommands, entries
from sagan_tui.ui.widgets.filter_bar import FilterBar
from sagan_tui.keymap import KEYS
from sagan_tui.ui.screens.help import HelpScreen

from .frozen import LOST, frozen_app

SIZE = (200, 50)
INBOX = ["369", "367", "358", "192"]  # owner-turn rows, newest first


async def filter_with(pilot, app, query: str) -> None:
    """`/`, the query (set at once: typing it key by key only tests Input), Enter."""
    await pilot.press("slash")
    bar = app.screen.query_one(FilterBar)
    bar.query_one(Input).value = query
    await pilot.press("enter")


async def test_filter_typed_then_a_bad_regex_leaves_the_table_untouched(tmp_path):
    """The filter grammar itself is unit-tested (test_render); here, the keys and the bar."""
    app = frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        table = app.experiments_table
        total = table.row_count
        await pilot.press("slash", *"pers", "enter")
        assert not app.screen.query(FilterBar)
        assert sorted(table.shown_keys()) == ["192", "333", "367"]
        assert "/pers" in str(table.border_title)

        await filter_with(pilot, app, "re:([")
        bar = app.screen.query_one(FilterBar)  # stays open, saying why
        assert "bad regex" in str(bar.query_one("#filter-error").render())
        assert sorted(table.shown_keys()) == ["192", "333", "367"]  # untouched
        bar.query_one(Input).value = "!re:^#3"
        await pilot.press("enter")
        assert sorted(table.shown_keys()) == ["192"]

        await pilot.press("slash", "escape")
        assert not app.screen.query(FilterBar) and app.focused is table
        await filter_with(pilot, app, "")  # empty clears
        assert table.row_count == total


async def test_marks_are_kept_by_key_and_reported(tmp_path):
    app = frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        table = app.experiments_table
        await pilot.press("space", "space")  # marks #369, then #367 (the cursor moves down)
        assert app.marked_experiments() == [369, 367]
        assert str(table.get_row("369")[0]) == "●"
        await pilot.press("o")  # sorting moves rows; marks stay with their keys
        assert app.marked_experiments() == [369, 367]
        app.pods_table.focus()
        await pilot.press("space")
        assert len(app.marked_pods()) == 1
        app.clear_marks()
        assert app.marked_experiments() == [] and app.marked_pods() == []
        assert str(table.get_row("369")[0]) == " "


async def test_sort_cycles_columns_keeping_the_inbox_on_top(tmp_path):
    app = frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        table = app.experiments_table
        assert table.shown_keys()[:4] == INBOX
        table.select_key("361")
        await pilot.press("o")  # by number
        keys = table.shown_keys()
        assert keys[:4] == sorted(INBOX, key=int) and keys[4:] == sorted(keys[4:], key=int)
        assert table.cursor_key == "361"
        await pilot.press("O")  # reversed
        assert table.shown_keys()[4:] == sorted(keys[4:], key=int, reverse=True)
        assert "sort #" in str(table.border_title)


async def test_inbox_only_and_incident_layout(tmp_path):
    app = frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("i")
        assert app.experiments_table.shown_keys() == INBOX
        await pilot.press("i")
        assert app.experiments_table.row_count == 11
        await pilot.press("I")
        assert app.screen.has_class("-incident")
        assert not app.experiments_table.display and app.query_one("#approvals").display
        assert sorted(app.pods_table.shown_keys()) == sorted(p[0] for p in LOST)
        assert app.query_one("#approvals").row_count == 2
        await pilot.press("f2")
        assert not app.screen.has_class("-incident") and app.pods_table.row_count == 7


async def test_dismissing_a_lost_pod_hides_it_for_good(tmp_path):
    app = frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        pods = app.pods_table
        pods.focus()
        pods.select_key("f6n3kd9sa1qz4w")  # a live pod: nothing to dismiss
        await pilot.press("x")
        assert "f6n3kd9sa1qz4w" in pods.shown_keys()
        pods.select_key("v0c7bx292xqvg4")
        await pilot.press("x")
        assert "v0c7bx292xqvg4" not in pods.shown_keys()
        assert all(x.pod_id != "v0c7bx292xqvg4" for x in app.current_losses())
        assert [x.dismissed for x in app.cache.losses() if x.pod_id == "v0c7bx292xqvg4"] == [True]


async def test_help_lists_every_binding(tmp_path):
    app = frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        lines = app.screen.text.plain.splitlines()
        for k in KEYS:  # one line per key: its key(s), then what it does
            assert any(line.split() and line.endswith(k.what) for line in lines), k.id
        assert any(line.strip() == "I f2  incident layout: heatmap and waves on top, affected pods" for line in lines)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_read_only_hides_mutating_actions_from_keys_palette_and_help(tmp_path):
    app = frozen_app(tmp_path, read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        mutating = set(getattr(app, "MUTATING_ACTIONS", ()))
        assert mutating
        for action in mutating:
            assert app.check_action(action, ()) is False
        assert app.check_action("help", ()) is not False
        offered = {e.binding.action for e in entries(app) if e.enabled}
        assert not offered & mutating and "review_approval" in offered
        provider = BindingCommands(app.screen)
        names = [hit.text async for hit in provider.discover()]
        assert names and not any(a.replace("_", " ") in n.lower() for n in names for a in mutating)
        assert any("Incident" in n for n in names)
        await pilot.press("question_mark")
        assert "off: read-only" in app.screen.text.plain
        await pilot.press("escape", "s")  # the stop key does nothing at all in read-only
        assert not app.screen.is_modal


async def test_palette_runs_a_pane_command_on_the_focused_pane(tmp_path):
    app = frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        app.pods_table.focus()
        await pilot.press("ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"sort (t")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause(0.1)
        assert app.pods_table.sort_index == 0 and app.experiments_table.sort_index is None


async def test_pause_and_poll_interval_show_in_the_status_line(tmp_path):
    app = frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        status = app.query_one("#status")
        assert "poll 5s" in status.plain
        await pilot.press("plus")
        assert "poll 10s" in status.plain and app.settings.poll_interval == 10
        await pilot.press("minus", "minus")
        assert "poll 3s" in status.plain
        await pilot.press("P")
        assert app.paused and "PAUSED" in status.plain
        await pilot.press("P")
        assert not app.paused
