"""Dialogs: the approval opens on its first textbox, keys typed in one burst land where the owner meant, toasts clear."""

from __future__ import annotations

from textual import events
from textual.widgets import Input

from sagan_tui.panel.screens.approval import ApprovalScreen
from sagan_tui.panel.widgets.key_bar import KeyBar

from ..ui import frozen
from tests.harness import notes, open_dialog, toasts, wait_for

SIZE = (120, 40)


BURST_STEP_S = 0.01  # between the keys of one burst (panel/key_hold.py: BURST_S apart ends one)
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
    return await open_dialog(pilot, "a", ApprovalScreen, "the approval dialog")


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
        # private on purpose: what the keys decide is the rule, recorded instead of sent (the
        # frozen panel has no server); the send itself is tests/actions'
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


async def test_news_is_a_line_of_the_panel_not_a_toast_and_a_dialogs_key_bar_shows_its_own_keys(tmp_path):
    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:  # run_test leaves toasts out
        app.notify("5 pods lost", title="Reaping wave", timeout=30, markup=False)
        await pilot.pause()
        area = app.news_area
        assert area.lines == ["Reaping wave: 5 pods lost"] and area.display
        assert not toasts(app)  # a line in the layout: nothing drawn over the panes
        screen = await open_approval(pilot, app, "367")
        assert not toasts(app)
        bar = screen.query_one(KeyBar)
        await wait_for(pilot, lambda: "alt+a Approve" in bar.plain, what="the dialog's keys")
        assert "h Hold" not in bar.plain and "esc Close" in bar.plain


async def test_under_a_dialog_without_a_bar_of_its_own_the_key_bar_lists_the_dialogs_keys(tmp_path):
    from sagan_tui.panel.screens.prompt import NoteScreen

    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        bar = app.main_screen.query_one(KeyBar)
        await wait_for(pilot, lambda: "h" in bar.keys, what="the panel's keys")
        app.experiments_table.select_key("367")
        await open_dialog(pilot, "h", NoteScreen, "the hold dialog")
        await wait_for(pilot, lambda: "esc Cancel" in bar.plain, what="the dialog's keys")
        assert "h" not in bar.keys
        await pilot.press("escape")
        await wait_for(pilot, lambda: "h" in bar.keys, what="the panel's keys again")


async def test_over_a_dialog_a_notification_shows_on_its_news_line_and_as_a_toast_once_it_closes(tmp_path):
    from sagan_tui.panel.screens.prompt import NoteScreen

    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:  # run_test leaves toasts out
        app.experiments_table.select_key("367")
        await open_dialog(pilot, "h", NoteScreen, "the hold dialog")
        dialog = app.screen
        app.notify("3 pods lost", title="Reaping wave", timeout=30, markup=False)
        await pilot.pause()
        news = dialog.query_one("#dialog-news")
        assert news.display and "Reaping wave: 3 pods lost" in str(news.render())
        assert not any(n.title == "Reaping wave" for n in notes(app))  # no toast over the dialog
        title, buttons = dialog.query_one("#dialog-title").region, dialog.query_one("#cancel").region
        assert not news.region.overlaps(title) and not news.region.overlaps(buttons)
        await pilot.press("escape")
        await wait_for(pilot, lambda: "Reaping wave: 3 pods lost" in app.news_area.lines,
                       what="the notification area's line once the dialog closed")
        assert not toasts(app)


async def test_the_guard_button_says_what_it_waits_for_until_the_number_is_typed(tmp_path):
    from textual.widgets import Button

    from sagan_tui.panel.screens.guard import GuardedDispatchScreen

    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.experiments_table.select_key("192")
        await open_dialog(pilot, "C", GuardedDispatchScreen, "the guard")
        button = app.screen.query_one("#confirm", Button)
        assert button.disabled and str(button.label) == "Canary (type 192)"  # C: the canary's own word
        await pilot.press(*"192")
        await wait_for(pilot, lambda: not button.disabled, what="the armed button")
        assert str(button.label) == "Canary"


async def test_tabbing_into_the_hold_note_keeps_its_text_and_a_long_note_wraps_whole(tmp_path):
    from sagan_tui.panel.screens.prompt import NoteScreen

    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.experiments_table.select_key("363")
        await open_dialog(pilot, "h", NoteScreen, "the hold dialog")
        note = app.screen.query_one("#note")
        before = note.value
        assert before  # prefilled by the session
        note.value = before + " " + "x" * 120  # longer than the field is wide
        await pilot.pause()
        assert note.region.height >= 2  # wrapped, not cut at its width
        await pilot.press("shift+tab")  # from Cancel back to the note (its text not selected)
        await wait_for(pilot, lambda: app.focused is note, what="the note focused")
        await pilot.press("y")
        assert note.value.startswith(before) and note.value.endswith("y")
