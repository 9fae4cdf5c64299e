"""Keys first: an update that arrives while keys come waits for the next key's frame, in order, and
goes at once when no key was pressed, or once the keys stop (panel/key_first.py, SaganApp's wiring)."""

from __future__ import annotations

from sagan_tui.panel.key_first import KeyFirst

from tests.harness import wait_for


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_an_update_goes_at_once_without_keys_and_waits_while_they_come():
    clock = Clock()
    first = KeyFirst(clock, quiet_s=0.4, max_hold_s=1.0)
    assert first.hold("u1") is False  # nobody typing: apply it now

    first.key()
    clock.t += 0.1
    assert first.hold("u2") is True
    clock.t += 0.5
    assert first.hold("u3") is True  # keys stopped, but u2 waits: u3 stays behind it
    assert first.due_in() == 0.0
    assert first.release() == ["u2", "u3"]
    assert first.release() == []
    assert first.hold("u4") is False


def test_held_updates_go_when_the_keys_stop_or_after_max_hold_whichever_first():
    clock = Clock()
    first = KeyFirst(clock, quiet_s=0.4, max_hold_s=1.0)
    first.key()
    clock.t += 0.1
    first.hold("u")
    assert abs(first.due_in() - 0.3) < 1e-9  # the keys stop 0.4 s after the last one
    for _ in range(5):  # keys keep coming (typed into a dialog's field: none releases the update)
        clock.t += 0.15
        first.key()
    assert abs(first.due_in() - (1.1 - 0.85)) < 1e-9  # it came at 0.1: it goes at 1.1 however the keys go
    clock.t += 0.25
    assert first.due_in() == 0.0


def renamed(app, key: str, text: str, answer: bool = False):
    from msgspec.structs import replace

    from sagan_tui.wire.channel.views import UpdateView
    from sagan_tui.wire.render import Cell
    from sagan_tui.panel.messages import Updated

    row = app.pods_table.records[key]
    return Updated(UpdateView(pods={key: replace(row, cells=(Cell(text), *row.cells[1:]))}, answer=answer))


async def shows(pilot, table, key: str, text: str) -> None:
    """Wait until the row's first cell reads `text` (conftest.wait_for: fails naming it)."""
    await wait_for(pilot, lambda: table.records[key].cells[0].text == text, what=f"{key} reading {text!r}")


async def test_the_panel_holds_an_update_sent_while_keys_come_until_the_next_keys_frame(tmp_path):
    from .frozen import frozen_app

    app = frozen_app(tmp_path)
    async with app.run_test(size=(160, 40)) as pilot:
        pacing = app.main_screen.pacing
        pacing.quiet_s = pacing.max_hold_s = 60.0  # however slow the machine: only a key releases
        table = app.pods_table
        table.focus()
        key = next(iter(table.records))
        await pilot.press("down")
        app.post_message(renamed(app, key, "held-one"))
        for _ in range(5):
            await pilot.pause()
        assert table.records[key].cells[0].text != "held-one"
        assert [u for u in pacing.held if key in u.pods]  # (the session's own may wait beside it)

        await pilot.press("down")
        await shows(pilot, table, key, "held-one")
        assert not pacing.held


async def test_the_panel_applies_an_update_at_once_without_keys_after_the_keys_stop_or_max_hold(tmp_path):
    from .frozen import frozen_app

    app = frozen_app(tmp_path)
    async with app.run_test(size=(160, 40)) as pilot:
        pacing = app.main_screen.pacing
        table = app.pods_table
        key = next(iter(table.records))
        app.post_message(renamed(app, key, "at-once"))
        await pilot.pause()
        await pilot.pause()
        assert table.records[key].cells[0].text == "at-once"

        pacing.quiet_s = 0.2
        await pilot.press("down")
        app.post_message(renamed(app, key, "after-quiet"))  # no key after it: the quiet timer lets it go
        await shows(pilot, table, key, "after-quiet")
        assert not pacing.held

        pacing.quiet_s, pacing.max_hold_s = 60.0, 0.2  # the keys "never stop"
        await pilot.press("down")
        app.post_message(renamed(app, key, "after-max-hold"))  # it goes after MAX_HOLD_S all the same
        await shows(pilot, table, key, "after-max-hold")
        assert not pacing.held


async def test_what_a_key_asked_for_goes_at_once_after_the_news_that_waited(tmp_path):
    """A timeline's new scope or a dismissal answers the key itself: never held, and never
    overtaken by older news applied after it."""
    from .frozen import frozen_app

    app = frozen_app(tmp_path)
    async with app.run_test(size=(160, 40)) as pilot:
        pacing = app.main_screen.pacing
        pacing.quiet_s = pacing.max_hold_s = 60.0
        table = app.pods_table
        key = next(iter(table.records))
        await pilot.press("down")
        app.post_message(renamed(app, key, "older-news"))
        for _ in range(5):
            await pilot.pause()
        assert [u for u in pacing.held if key in u.pods]
        app.post_message(renamed(app, key, "the-answer", answer=True))
        for _ in range(5):
            await pilot.pause()
        assert table.records[key].cells[0].text == "the-answer" and not pacing.held
