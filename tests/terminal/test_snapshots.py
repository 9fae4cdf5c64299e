"""SVG snapshots of the terminal's screens at 200x50, 120x40 and 80x24: help, the account view, the approval dialog."""

from __future__ import annotations

import pytest

from sagan_tui.panel.screens.accounts import AccountsScreen
from sagan_tui.panel.screens.approval import ApprovalScreen
from sagan_tui.panel.screens.help import HelpScreen

from ..ui.frozen import frozen_app
from .test_account_view import seeded_history

SIZES = [(200, 50), (120, 40), (80, 24)]


async def _until(pilot, cond) -> None:
    while not cond():
        await pilot.pause(0.05)
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_help_scrolled_to_its_last_line(snap_compare, tmp_path, size):
    async def run_before(pilot) -> None:
        await pilot.press("question_mark")
        await _until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen))
        await pilot.press("end")  # the last lines are reachable
        await pilot.pause()

    assert snap_compare(frozen_app(tmp_path), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_account_view_with_its_sparkline(snap_compare, tmp_path, size):
    async def run_before(pilot) -> None:
        pilot.app.runway_watch.history.update(seeded_history())
        await pilot.press("B")
        await _until(pilot, lambda: isinstance(pilot.app.screen, AccountsScreen))

    assert snap_compare(frozen_app(tmp_path), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_approval_dialog_opens_on_its_first_textbox_with_no_toast_over_it(snap_compare, tmp_path, size):
    async def run_before(pilot) -> None:
        app = pilot.app
        await _until(pilot, lambda: app.loaded)
        app.notify("3 pods lost 10:53-10:55 UTC in team, personal.", title="Reaping wave", severity="error",
                   timeout=30)
        app.experiments_table.select_key("367")
        await pilot.press("a")
        await _until(pilot, lambda: isinstance(app.screen, ApprovalScreen) and app.screen.query_one("#approval-body").rendered)

    assert snap_compare(frozen_app(tmp_path), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [(120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_main_layout_with_runway_and_the_top_row_fitted(snap_compare, tmp_path, size):
    """200x50 and 80x24 are tests/ui/test_snapshots.py's; 120x40 is the wide layout at its smallest."""
    assert snap_compare(frozen_app(tmp_path), terminal_size=size)


def test_zoomed_losses_at_80x24_read_to_the_end_of_the_evidence(snap_compare, tmp_path):
    """Issue 44.5: End in the zoomed Losses pane shows the wave's last lines, the status line above."""
    async def run_before(pilot) -> None:
        app = pilot.app
        await _until(pilot, lambda: app.loaded)
        app.query_one("#heatmap").focus()
        await pilot.press("z", "end")
        await pilot.pause()

    assert snap_compare(frozen_app(tmp_path), terminal_size=(80, 24), run_before=run_before)

