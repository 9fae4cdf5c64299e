"""Every dialog at 80x24 during the frozen wave (#44 item 2): its own status line, docked where the
panes' is, reads `WAVE 5 · guard` and the verdict, and the dialog's box covers neither row."""

from __future__ import annotations

import pytest

from sagan_tui.panel.screens.approval import ApprovalScreen
from sagan_tui.panel.screens.confirm import ConfirmScreen
from sagan_tui.panel.screens.guard import GuardedDispatchScreen
from sagan_tui.panel.screens.prompt import NoteScreen
from sagan_tui.panel.screens.wave_response import WaveResponseScreen
from sagan_tui.panel.widgets.status_bar import StatusBar

from ..ui import frozen
from tests.harness import open_dialog, screen_text, wait_for

# (experiment selected, key, the dialog it opens, its box)
DIALOGS = {
    "approval": ("367", "a", ApprovalScreen, "#approval"),
    "hold": ("192", "h", NoteScreen, "#dialog"),
    "wave response": ("192", "W", WaveResponseScreen, "#dialog"),
    "canary guard": ("192", "C", GuardedDispatchScreen, "#dialog"),
    "promote": ("358", "p", ConfirmScreen, "#dialog"),
}


@pytest.mark.parametrize("name", list(DIALOGS))
async def test_a_dialog_at_80x24_leaves_the_status_line_and_the_verdict_in_view(tmp_path, name):
    number, key, kind, box = DIALOGS[name]
    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.experiments_table.select_key(number)
        dialog = await open_dialog(pilot, key, kind)
        bar = dialog.query_one(StatusBar)
        await wait_for(pilot, lambda: "WAVE 5 · guard" in bar.plain and "PLATFORM REAPER" in bar.plain,
                       what="the dialog's status line")
        await pilot.pause()
        assert bar.region.y == 0 and bar.region.height == 2  # the status line, then the verdict
        assert not bar.region.overlaps(dialog.query_one(box).region)
        top = screen_text(app).splitlines()[:2]
        assert "WAVE 5 · guard" in top[0] and top[1].strip().startswith("PLATFORM REAPER"), top
