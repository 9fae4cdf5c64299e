"""Keys typed in one burst right after the key that opens a dialog go to that dialog, never to the panel behind it."""

from __future__ import annotations

from sagan_tui.panel import key_hold
from sagan_tui.panel.key_hold import BURST_S
from sagan_tui.panel.screens.accounts import AccountsScreen
from sagan_tui.panel.screens.approval import ApprovalScreen
from sagan_tui.panel.screens.audit import AuditScreen
from sagan_tui.panel.screens.confirm import ConfirmScreen
from sagan_tui.panel.screens.detail import DetailScreen
from sagan_tui.panel.screens.help import HelpScreen
from sagan_tui.panel.screens.prompt import NoteScreen
from sagan_tui.panel.screens.wave_response import WaveResponseScreen

from ..ui import frozen
from tests.harness import notes, wait_for
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
        assert [type(s).__name__ for s in app.screen_stack] == ["MainScreen", "HoldScreen"]  # a NoteScreen


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


async def test_a_its_answers_and_alt_a_in_one_burst_approve_with_both_answers(tmp_path):
    # The keys after `a` reach the panel before the approval has its focus: held, then typed into it.
    app = frozen.frozen_app(tmp_path)
    decided = []
    async with app.run_test(size=SIZE) as pilot:
        app.experiments_table.select_key("369")  # two textboxes: envs, seeds
        burst(app, ["a", *"gym", "\t", *"1,2", "alt+a"])
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), what="the approval dialog")
        screen = app.screen
        # private on purpose: what the keys decide is the rule, recorded instead of sent (the
        # frozen panel has no server); the send itself is tests/actions'
        screen._send = lambda decision, answers, note: decided.append((decision, answers))  # type: ignore[method-assign]
        await wait_for(pilot, lambda: decided, what="the decision")
    assert decided == [("approve", {"envs": "gym", "seeds": "1,2"})]


async def test_a_refused_r_drops_the_rest_of_its_burst_and_the_panel_stays_as_it_was(tmp_path):
    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        app.experiments_table.select_key("363")  # running: re-dispatch is refused
        burst(app, ["r", *"363", "\r"])  # Enter on the panel would open #363's detail
        await wait_for(pilot, handed_on(app), what="the burst settled")
        await wait_for(pilot, lambda: any("363" in n.message for n in notes(app)), what="the refusal")
        await pilot.pause()
        assert [type(s).__name__ for s in app.screen_stack] == ["MainScreen"]
        assert app.experiments_table.cursor_key == "363"
        burst(app, ["\r"], after_s=1.0)  # a key after a pause is the owner's next key
        await wait_for(pilot, lambda: isinstance(app.screen, DetailScreen), what="the detail, on a later Enter")


async def test_a_refusal_drops_only_its_own_burst(tmp_path):
    # read-only refuses every mutating key
    app = frozen.frozen_app(tmp_path, read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        app.experiments_table.select_key("369")
        burst(app, ["h", "a"])  # refused hold; its burst's `a` is dropped
        await wait_for(pilot, handed_on(app), what="the burst settled")
        await pilot.pause()
        assert [type(s).__name__ for s in app.screen_stack] == ["MainScreen"]
        burst(app, ["a"], after_s=BURST_S * 2)  # past the burst gap: the owner's next key
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), what="the approval, on a later a")


async def test_keys_after_each_dialog_key_reach_its_dialog(tmp_path):
    # One path for every key that opens a dialog: its burst's next key lands in the dialog.
    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        for key, number, screen_type in (("p", "358", ConfirmScreen), ("?", "369", HelpScreen),
                                         ("B", "369", AccountsScreen), ("A", "369", AuditScreen)):
            app.experiments_table.select_key(number)
            burst(app, [key, "a"])  # `a` on the panel would open #369's approval under the dialog
            await wait_for(pilot, lambda: isinstance(app.screen, screen_type), what=f"the dialog of {key}")
            await wait_for(pilot, handed_on(app), what="the keys handed on")
            await pilot.pause()
            assert [type(s).__name__ for s in app.screen_stack] == ["MainScreen", screen_type.__name__], key
            app.pop_screen()
            await pilot.pause()
