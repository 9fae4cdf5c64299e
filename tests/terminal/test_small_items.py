"""Issue 44 item 7 on the frozen panel: the help's columns and width, the palette's names."""

from __future__ import annotations

from rich.console import Console
from textual.command import CommandList, CommandPalette
from textual.widgets import Static

from sagan_tui.wire.keymap import WHERE
from sagan_tui.panel.screens.help import KEY_COLUMN, HelpScreen

from tests.harness import open_dialog, wait_for
from ..ui.frozen import frozen_app


async def _open_help(pilot) -> None:
    await pilot.press("question_mark")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), what="help")
    await pilot.pause()


def _help_lines(app) -> list[str]:
    """The help as the screen lays it out at the width of its text."""
    body = app.screen.query_one("#help-text", Static)
    console = Console(width=body.content_size.width, record=True, file=open("/dev/null", "w"))
    console.print(app.screen.laid_out)
    return console.export_text().splitlines()


async def test_help_descriptions_wrap_under_their_own_column_at_80_columns(tmp_path):
    app = frozen_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await _open_help(pilot)
        lines = _help_lines(app)
        assert max(len(line.rstrip()) for line in lines) <= 80
        at = next(i for i, line in enumerate(lines) if "canary: release" in line)
        # C's description runs onto the next line, which starts under the description's column
        assert lines[at + 1][:KEY_COLUMN].strip() == "" and lines[at + 1][KEY_COLUMN:].strip()
        headings = {*WHERE.values(), "anywhere"}
        at_zero = [line.strip() for line in lines if line.strip() and not line.startswith(" ")]
        assert at_zero and all(line in headings or "keymap" in line or "README" in line for line in at_zero), at_zero


async def test_help_uses_a_wide_terminal_in_two_columns(tmp_path):
    narrow_app = frozen_app(tmp_path / "narrow")
    async with narrow_app.run_test(size=(120, 40)) as pilot:
        await _open_help(pilot)
        one_column = len(_help_lines(narrow_app))
    app = frozen_app(tmp_path / "wide")
    async with app.run_test(size=(200, 50)) as pilot:
        await _open_help(pilot)
        box = app.screen.query_one("#help-box")
        assert box.region.width >= 150  # not a 90-column strip in the middle
        lines = _help_lines(app)
        right = lines[0][len(lines[0]) // 2:].strip()
        assert lines[0].startswith("main screen") and right in WHERE.values()  # a second column of sections
        # two columns: well under the one column's length, whatever keys the help lists
        assert len(lines) <= 0.6 * one_column, (len(lines), one_column)


async def test_the_palette_shows_clean_names_and_one_quit(tmp_path):
    app = frozen_app(tmp_path)
    async with app.run_test(size=(200, 50)) as pilot:
        await open_dialog(pilot, "ctrl+p", CommandPalette, "the palette")
        commands = app.screen.query_one(CommandList)
        await wait_for(pilot, lambda: commands.option_count > 20, what="the commands listed")
        names = [str(commands.get_option_at_index(i).prompt) for i in range(commands.option_count)]
        plain = [n.split("\n")[0] for n in names]
        assert any(n.startswith("Wave response") for n in plain), plain
        assert not any("owneractions" in n or "(panel)" in n for n in names), names
        assert len([n for n in plain if n.startswith("Quit")]) == 1, plain  # the panel's, not Textual's too
        assert not any(n.startswith(("Keys", "Maximize")) for n in plain), plain
        assert any(n == "Dismiss lost (pods pane)" for n in plain), plain


async def test_C_outside_a_wave_does_not_speak_of_the_waves_kill_time(sim_factory, panel):
    from sagan_tui.panel.screens.confirm import ConfirmScreen

    from tests.harness import poll_now

    app = panel(sim_factory(scenario="calm"), poll=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await poll_now(pilot, app)
        assert not app.view.waves
        app.experiments_table.focus()
        app.experiments_table.select_key("206")  # blocked in the calm scenario, no loss anywhere
        await open_dialog(pilot, "C", ConfirmScreen, "the canary dialog")
        note = app.screen.note
        assert "kill time" in note and "wave's kill time" not in note and "no wave on record" in note


def test_the_canary_note_names_the_kill_time_of_the_wave_it_watches_past():
    from types import SimpleNamespace as Wave

    from sagan_tui.panel.desk_incident import canary_note

    waves = (Wave(gap_median_s=300.0), Wave(gap_median_s=7.4))
    assert canary_note(waves, -1).endswith("past the wave's kill time (7 s after RUNNING).")  # the latest
    assert "(300 s after RUNNING)" in canary_note(waves, 0)  # the one shown
    assert "kill time is unknown" in canary_note((Wave(gap_median_s=None),), 0)


async def test_the_pods_sort_says_lost_rows_stay_pinned_below(tmp_path):
    app = frozen_app(tmp_path)
    async with app.run_test(size=(200, 50)) as pilot:
        table = app.pods_table
        table.focus()
        await pilot.pause()
        assert "pinned" not in str(table.border_title)  # unsorted: nothing to say
        await pilot.press("o", "O")  # sort by the pod id, reversed
        await pilot.pause()
        assert "sort pod ↓, lost pinned below" in str(table.border_title)
        keys = table.shown_keys()
        lost = [k for k in keys if table.records[k].group != 0]
        assert lost and keys[-len(lost):] == lost  # what the words say: the lost rows come last
        await pilot.press("o")
        app.experiments_table.focus()
        await pilot.press("o")
        assert "pinned" not in str(app.experiments_table.border_title)
