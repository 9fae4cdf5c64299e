"""Dialogs: the approval opens on its first textbox, keys typed in one burst land where the owner meant, toasts clear."""

from __future__ import annotations

from textual import events
from textual.widgets import Input

from sagan_tui.ui.screens.approval import ApprovalScreen
from sagan_tui.ui.widgets.key_bar import KeyBar

from ..ui import frozen
from ..ui.conftest import wait_for

SIZE = (120, 40)


BURST_STEP_S = 0.01  # between the keys of one burst (ui/key_hold.py: BURST_S apart ends one)
_clock = [1_000_000.0]  # the keys' arrival times, ours: after any real key a pilot pressed


def burst(app, keys: list[str], after_s: float = 1.0) -> None:
    """Keys as a terminal delivers a fast typist or a paste over SSH: all queued before any is
    handled, BURST_STEP_S apart, the first `after_s` after the last burst's last key (a pause)."""
    names = {"\t": "tab", " ": "space", "\r": "enter", "?": "question_mark"}
    _clock[0] += after_s
    for k in keys:
        # as the driver reads them: alt+a is ESC a, the key with its letter
        key = events.Key(names.get(k, k), k[-1] if k.startswith("alt+") else k)
        key.time = _clock[0]
        _clock[0] += BURST_STEP_S
        app.post_message(key)


async def open_approval(pilot, app, number: str) -> ApprovalScreen:
    app.experiments_table.select_key(number)
    await pilot.press("a")
    await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), what="the approval dialog")
    return app.screen


async def test_answers_typed_in_one_burst_with_a_tab_land_in_their_own_fields(tmp_path):
    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_approval(pilot, app, "369")  # two textboxes: envs, seeds
        tb0, tb1 = screen.query_one("#tb-0", Input), screen.query_one("#tb-1", Input)
        assert app.focused is tb0
        burst(app, [*"gym", "\t", *"1,2,3", "\t", *"ok"])
        await wait_for(pilot, lambda: screen.query_one("#note", Input).value == "ok", what="the note typed")
        assert (tb0.value, tb1.value) == ("gym", "1,2,3")
        assert screen.answers() == {"envs": "gym", "seeds": "1,2,3"}


async def test_answers_and_approve_typed_in_one_burst_approve_with_both_answers(tmp_path):
    app = frozen.frozen_app(tmp_path)
    decided = []
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_approval(pilot, app, "369")
        # what would be sent, recorded instead of sent (the frozen panel has no server)
        screen._send = lambda decision, answers, note: decided.append((decision, answers))  # type: ignore[method-assign]
        burst(app, [*"gym", "\t", *"1,2", "alt+a"])
        await wait_for(pilot, lambda: decided, what="the decision")
    assert decided == [("approve", {"envs": "gym", "seeds": "1,2"})]


async def test_after_a_refused_approve_the_next_keys_go_to_the_empty_field(tmp_path):
    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_approval(pilot, app, "369")
        tb0, tb1 = screen.query_one("#tb-0", Input), screen.query_one("#tb-1", Input)
        burst(app, [*"gym", "alt+a"])  # seeds left empty: refused
        await wait_for(pilot, lambda: tb1.has_class("-invalid"), what="the refusal")
        assert app.focused is tb1 and "empty: seeds" in str(screen.query_one("#decision-status").content)
        burst(app, [*"1,2"])  # the owner types on at once
        await wait_for(pilot, lambda: tb1.value == "1,2", what="the answer in the empty field")
        assert tb0.value == "gym"


async def test_opening_a_dialog_clears_the_toasts_and_its_key_bar_shows_its_own_keys(tmp_path):
    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        app.notify("5 pods lost", title="Reaping wave", timeout=30)
        await pilot.pause()
        assert any(n.title == "Reaping wave" for n in app._notifications)
        screen = await open_approval(pilot, app, "367")
        assert len(app._notifications) == 0
        bar = screen.query_one(KeyBar)
        await wait_for(pilot, lambda: "alt+a Approve" in bar.plain, what="the dialog's keys")
        assert "h Hold" not in bar.plain and "esc Close" in bar.plain


async def test_under_a_dialog_without_a_bar_of_its_own_the_key_bar_lists_the_dialogs_keys(tmp_path):
    from sagan_tui.ui.screens.prompt import NoteScreen

    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        bar = app.main_screen.query_one(KeyBar)
        await wait_for(pilot, lambda: "h Hold" in bar.plain, what="the panel's keys")
        app.experiments_table.select_key("367")
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, NoteScreen), what="the hold dialog")
        await wait_for(pilot, lambda: "esc Cancel" in bar.plain, what="the dialog's keys")
        assert "h Hold" not in bar.plain
        await pilot.press("escape")
        await wait_for(pilot, lambda: "h Hold" in bar.plain, what="the panel's keys again")


async def test_over_any_dialog_toasts_show_at_the_top_away_from_its_buttons(tmp_path):
    from textual.widgets._toast import ToastRack

    from sagan_tui.ui.screens.prompt import NoteScreen

    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:  # run_test leaves toasts out
        app.experiments_table.select_key("367")
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, NoteScreen), what="the hold dialog")
        app.notify("3 pods lost", title="Reaping wave", timeout=30)
        await pilot.pause()
        rack = app.screen.get_child_by_type(ToastRack)
        await wait_for(pilot, lambda: rack.children, what="the toast")
        toast_bottom = rack.region.y + rack.region.height
        assert rack.styles.dock == "top" and toast_bottom <= app.screen.query_one("#cancel").region.y
