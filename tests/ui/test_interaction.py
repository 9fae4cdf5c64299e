"""Keys on the frozen panel (no network): filter, marks, sort, inbox, incident, dismiss, help, palette, read-only."""

from __future__ import annotations

from textual.command import CommandPalette
from textual.widgets import Input

from sagan_tui.panel.palette import BindingCommands, entries
from sagan_tui.panel.widgets.filter_bar import FilterBar
from sagan_tui.wire.keymap import KEYS
from sagan_tui.panel.screens.approval import ApprovalScreen
from sagan_tui.panel.screens.help import HelpScreen

from tests.harness import cache_of, notes, wait_for
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
        await pilot.press("space", "j", "space")  # marks #369, then #367 (space only marks; j moves down)
        assert app.main_screen.marked_experiments() == [369, 367]
        assert str(table.get_row("369")[0]) == "●"
        await pilot.press("o")  # sorting moves rows; marks stay with their keys
        assert app.main_screen.marked_experiments() == [369, 367]
        app.pods_table.focus()
        await pilot.press("space")
        assert len(app.main_screen.marked_pods()) == 1
        app.main_screen.clear_marks()
        assert app.main_screen.marked_experiments() == [] and app.main_screen.marked_pods() == []
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


async def test_dismissing_a_lost_pod_hides_its_row_and_keeps_the_loss(tmp_path):
    """`x` takes the row off the pods pane only: the loss stays evidence (issue 17.1); `X` shows it again."""
    app = frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        pods = app.pods_table
        pods.focus()
        pods.select_key("f6n3kd9sa1qz4w")  # a live pod: nothing to dismiss
        await pilot.press("x")
        assert "f6n3kd9sa1qz4w" in pods.shown_keys()
        pods.select_key("v0c7bx292xqvg4")
        await pilot.press("x")
        await wait_for(pilot, lambda: "v0c7bx292xqvg4" not in pods.shown_keys(), what="the row hidden")
        await wait_for(pilot, lambda: any("dismissed lost pod v0c7bx292xqvg4" in n.message
                                          for n in notes(app)), what="x saying what it did")
        assert any(x.pod_id == "v0c7bx292xqvg4" for x in app.current_losses())
        assert app.loss_area.border_title.startswith(f"Losses · {len(LOST)}")
        await pilot.press("X")
        await wait_for(pilot, lambda: "v0c7bx292xqvg4" in pods.shown_keys(), what="the dismissed row shown again")
    assert [x.dismissed for x in cache_of(app).losses() if x.pod_id == "v0c7bx292xqvg4"] == [True]


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


async def test_help_in_read_only_marks_every_mutating_key_refused_and_no_other(tmp_path):
    mutating = {"panel.hold", "panel.redispatch", "panel.stop_pod", "panel.promote", "panel.bulk_hold",
                "panel.bulk_stop", "panel.wave_response", "panel.release", "panel.bulk_release", "panel.canary"}
    for read_only in (True, False):
        app = frozen_app(tmp_path, read_only=read_only)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("question_mark")
            assert isinstance(app.screen, HelpScreen)
            lines = app.screen.text.plain.splitlines()
        marked = {k.id for k in KEYS if any(k.what in line and line.endswith("(refused: read-only)") for line in lines)}
        assert marked == (mutating if read_only else set()), read_only


async def test_read_only_refuses_every_mutating_key_out_loud(tmp_path):
    """Issue 17.4: each mutating key says "read-only: <action> refused", and the audit log records it."""
    app = frozen_app(tmp_path, read_only=True)
    refused = {"h": "hold", "r": "re-dispatch", "p": "promote", "H": "bulk hold", "S": "bulk stop", "s": "stop pod",
               "W": "wave response", "u": "release", "U": "bulk release", "C": "canary"}
    async with app.run_test(size=SIZE) as pilot:
        first = app.main_screen.selected_experiment()
        for key, what in refused.items():
            if key == "s":
                app.pods_table.focus()
            await pilot.press(key)
            await wait_for(pilot, lambda: any(f"read-only: {what} refused" in n.message for n in notes(app)),
                           what=f"{key} refused")
            assert not app.screen.is_modal  # no dialog opened first
        audit = await app.session.audit_log()
        assert sorted(a.action for a in audit if a.result == "refused") == sorted(
            w.replace(" ", "-") for w in refused.values())
        # Each audit row names what its key was pressed on (issue 27.9): the rows, the wave.
        exp, pod = app.main_screen.selected_experiment(), app.main_screen.selected_pod()
        targets = {a.action: a.target for a in audit if a.result == "refused"}
        assert targets["stop-pod"] == pod.pod_id and targets["wave-response"] == "wave"
        assert {targets[w] for w in ("hold", "re-dispatch", "promote")} == {f"#{first.number}"}
        # From the pods pane on, the selected experiment is the selected pod's.
        assert {targets[w] for w in ("release", "canary")} == {f"#{exp.number}"} and pod.experiment == exp.number
        assert {targets[w] for w in ("bulk-hold", "bulk-stop", "bulk-release")} == {"none marked"}
        # `x` writes the shared cache: refused too, with the pod it was pressed on, the row kept.
        app.pods_table.select_key("v0c7bx292xqvg4")
        await pilot.press("x")
        await wait_for(pilot, lambda: any("read-only: dismiss refused on v0c7bx292xqvg4" in n.message
                                          for n in notes(app)), what="x refused")
        assert "v0c7bx292xqvg4" in app.pods_table.shown_keys()
        app.experiments_table.focus()
        assert "review_approval" in {e.binding.action for e in entries(app) if e.enabled}
        await pilot.press("a")  # the approval opens, its decisions off, saying why
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), what="approval screen")
        await pilot.press("alt+a")  # refused, and audited like every other key
        news = app.screen.query_one("#dialog-news")  # said in the dialog, under its title
        await wait_for(pilot, lambda: f"read-only: approve refused on #{first.number}" in str(news.render()),
                       what="alt+a refused")
        audit = await app.session.audit_log()
    assert [(a.action, a.target) for a in audit if a.action in ("dismiss", "approve")] == [
        ("approve", f"#{first.number}"), ("dismiss", "v0c7bx292xqvg4")]  # newest first
    assert [x.dismissed for x in cache_of(app).losses() if x.pod_id == "v0c7bx292xqvg4"] == [False]


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
