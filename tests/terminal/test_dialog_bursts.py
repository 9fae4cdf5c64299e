"""Keys typed in one burst right after the key that opens a dialog go to that dialog, never to the panel behind it."""

from __future__ import annotations

from sagan_tui.ui import key_hold
from sagan_tui.ui.screens.prompt import NoteScreen
from sagan_tui.ui.screens.wave_response import WaveResponseScreen

from ..ui import frozen
from ..ui.conftest import wait_for
from .test_dialogs import SIZE, burst


async def test_keys_typed_right_after_h_reach_the_hold_dialog_not_the_panel(tmp_path, monkeypatch):
    monkeypatch.setattr(key_hold, "MAX_HOLD_S", 600.0)  # the bound for a read stuck behind a lock: not tested here
    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        app.experiments_table.select_key("369")
        burst(app, ["h", *"ab"])  # `a` on the panel would open #369's approval under the hold
        await wait_for(pilot, lambda: isinstance(app.screen, NoteScreen), what="the hold dialog")
        await wait_for(pilot, handed_on(app), what="the keys handed on")
        await pilot.pause()
        assert [type(s).__name__ for s in app.screen_stack] == ["MainScreen", "NoteScreen"]


async def test_keys_typed_right_after_w_do_not_act_on_the_panel(tmp_path):
    # W opens its dialog at once (no read first): the keys after it meet the dialog's bindings.
    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        app.experiments_table.select_key("369")
        burst(app, ["W", "a"])
        await wait_for(pilot, lambda: isinstance(app.screen, WaveResponseScreen), what="the wave response")
        await wait_for(pilot, handed_on(app), what="the keys handed on")
        await pilot.pause()
        assert [type(s).__name__ for s in app.screen_stack] == ["MainScreen", "WaveResponseScreen"]


def handed_on(app):
    hold = getattr(app, "key_hold", None)  # none before the fix: nothing was ever held
    return lambda: hold is None or not (hold.held or hold.opening)
