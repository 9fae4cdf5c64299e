"""The notification area (#44 item 1): the board's rules as plain data, then the panel's area over
the frozen cache: a line in the layout (never a layer), the wave's news replaced as it grows and
gone once it is acknowledged, owner-turn items folded into one line, ctrl+l clearing all."""

from __future__ import annotations

from sagan_tui.panel.news import INBOX, INCIDENT, NewsBoard, news_lines

from tests.harness import toasts, wait_for
from .frozen import frozen_app


def test_the_waves_news_takes_one_slot_replaced_as_it_grows_and_stays_until_removed():
    b = NewsBoard()
    b.add("2 pods lost", "Watch", "warning", now=0.0, seconds=10)
    b.add("3 pods lost", "Reaping wave", "error", now=1.0, seconds=10)
    b.add("3 -> 5 pods", "Reaping wave grew", "error", now=2.0, seconds=10)
    assert list(b.items) == [INCIDENT] and b.items[INCIDENT].message == "3 -> 5 pods"
    assert not b.expire(1e9)  # the incident has no time: acknowledged, or cleared
    version = b.version  # what every area showing the board compares (one on each full screen)
    assert b.drop(INCIDENT) and not b.items and b.version == version + 1
    assert not b.drop(INCIDENT) and b.version == version + 1


def test_owner_turn_items_fold_into_one_counted_line_and_the_rest_time_out():
    b = NewsBoard()
    for n in (350, 355, 369):
        b.add(f"#{n} t: review", "Your turn", "information", now=0.0, seconds=10)
    b.add("poll failed", "", "error", now=5.0, seconds=10)
    assert news_lines(b, 200, 3) == [("poll failed", "bold red"),
                                     ("Your turn: 3 items in your inbox (i) · latest #369 t: review", "")]
    assert b.expire(10.0) and list(b.items) == ["note-4"]  # the inbox line's time was up
    assert not b.expire(14.9) and b.expire(15.0) and not b.items
    assert len(b.heard) == 4  # every notice remembered


def test_lines_put_the_incident_first_cut_to_the_width_and_say_how_many_did_not_fit():
    b = NewsBoard()
    for i in range(4):
        b.add(f"note {i}", "", "information", now=0.0, seconds=10)
    b.add("5 pods lost in team, personal", "Reaping wave", "error", now=0.0, seconds=10)
    lines = [text for text, _ in news_lines(b, 24, 3, clear_key="ctrl+x")]
    assert lines == ["Reaping wave: 5 pods…", "note 3", "+3 more (ctrl+x clears…"]  # whole words


async def test_the_area_is_in_the_layout_over_nothing_and_the_incident_goes_when_acknowledged(tmp_path):
    app = frozen_app(tmp_path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:  # run_test leaves toasts out
        await pilot.pause()
        app.notify("5 pods lost", title="Reaping wave", severity="error", markup=False)
        app.notify("#367 review plan", title="Your turn", markup=False)
        app.notify("#369 answer", title="Your turn", markup=False)
        await pilot.pause()
        area = app.news_area
        assert area.lines == ["Reaping wave: 5 pods lost", "Your turn: 2 items in your inbox (i) · latest #369 answer"]
        assert not toasts(app)
        screen = app.main_screen
        for other in (screen.query_one("#status"), screen.query_one("#body")):
            assert not area.region.overlaps(other.region)
        await app.main_screen.run_action("acknowledge")  # the key is remappable (panel.acknowledge)
        # The line goes as the key is handled; the session's word on it comes after: wait for both.
        await wait_for(pilot, lambda: INCIDENT not in area.board.items
                       and any("acknowledged the wave" in line for line in area.lines),
                       what="the incident's line gone and the acknowledgement said")
        assert INBOX in area.board.items


async def test_ctrl_l_clears_every_notification(tmp_path):
    app = frozen_app(tmp_path)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        app.notify("5 pods lost", title="Reaping wave", severity="error", markup=False)
        app.notify("saved", markup=False)
        await pilot.pause()
        assert app.news_area.display and len(app.news_area.lines) == 2
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: not app.news_area.display, what="the area hidden")
        assert app.news_area.lines == [] and not app.news.items


async def test_a_sources_words_in_the_area_are_shown_literally(tmp_path):
    app = frozen_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.notify("[@click=app.quit]boom[/] \x1b[31mred", title="Hold failed", severity="error", markup=False)
        await pilot.pause()
        assert app.news_area.lines == ["Hold failed: [@click=app.quit]boom[/] red"], app.news_area.lines
        assert app.is_running


def test_a_notice_of_several_lines_takes_as_many_and_the_rest_are_counted():
    b = NewsBoard()
    b.add("held #333, #363\nstopped 2 pods\nticket: /tmp/t.md", "Wave response", "information", now=0.0, seconds=10)
    assert [t for t, _ in news_lines(b, 80, 3)] == ["Wave response: held #333, #363", "stopped 2 pods",
                                                    "ticket: /tmp/t.md"]
    assert [t for t, _ in news_lines(b, 80, 2)] == ["Wave response: held #333, #363", "+2 more (ctrl+l clears all)"]


async def test_one_board_for_every_screen_news_said_before_a_screen_opens_and_after_it_closes(tmp_path):
    """The help screen's area shows what was said on the panes from its first frame; what is said
    on it is on the panes' area once the owner is back (#44 item 1: one board for the app)."""
    from sagan_tui.panel.screens.help import HelpScreen
    from sagan_tui.panel.widgets.news_area import NewsArea

    from tests.harness import open_dialog

    app = frozen_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.notify("5 pods lost", title="Reaping wave", severity="error", markup=False)
        help_screen = await open_dialog(pilot, "question_mark", HelpScreen)
        await pilot.pause()
        area = help_screen.query_one(NewsArea)
        assert area.display and area.lines == ["Reaping wave: 5 pods lost"]
        box = help_screen.query_one("#help-box").region  # still centred over the full-width area
        assert box.x > 0 and abs(box.x - (120 - box.right)) <= 1
        app.notify("saved", markup=False)
        await pilot.pause()
        assert area.lines == ["Reaping wave: 5 pods lost", "saved"]
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.news_area is app.main_screen.query_one(NewsArea), what="the panes again")
        await wait_for(pilot, lambda: app.news_area.lines == ["Reaping wave: 5 pods lost", "saved"],
                       what="the help screen's notice on the panes' area")
        assert not toasts(app)
