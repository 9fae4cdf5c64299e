"""Every full screen of the panel holds the news in its own area (#44 item 1): over the simulator a
poll brings a wave while the detail, help, accounts, audit-log or pod screen is open; the session's
word is on that screen's news line, under nothing, and no toast was made."""

from __future__ import annotations

import pytest

from sagan_tui.panel.news import INCIDENT
from sagan_tui.panel.screens.accounts import AccountsScreen
from sagan_tui.panel.screens.audit import AuditScreen
from sagan_tui.panel.screens.detail import DetailScreen
from sagan_tui.panel.screens.help import HelpScreen
from sagan_tui.panel.screens.pod import PodScreen
from sagan_tui.panel.widgets.news_area import NewsArea
from sagan_tui.panel.widgets.status_bar import StatusBar
from sagan_tui.sim.scenarios.reaping_wave import R4_LOST

from tests.harness import open_dialog, poll_now, polled, toasts, wait_for

LOST_POD = R4_LOST[0][0]


async def open_detail(pilot, app):
    app.experiments_table.focus()
    await open_dialog(pilot, "enter", DetailScreen, "the detail screen")


async def open_pod(pilot, app):
    table = app.pods_table
    table.focus()
    table.move_cursor(row=table.get_row_index(LOST_POD))
    await open_dialog(pilot, "enter", PodScreen, "the pod screen")


def by_key(key: str, kind: type):
    async def opened(pilot, app) -> None:
        await open_dialog(pilot, key, kind)
    return opened


SCREENS = {"detail": open_detail, "help": by_key("question_mark", HelpScreen),
           "accounts": by_key("B", AccountsScreen), "audit": by_key("A", AuditScreen), "pod": open_pod}


@pytest.mark.parametrize("size", [(80, 24)])
@pytest.mark.parametrize("name", list(SCREENS))
async def test_a_wave_said_on_a_full_screen_is_on_its_news_line_and_never_a_toast(sim_factory, panel, name, size):
    sim = sim_factory(scenario="reaping-wave")
    sim.clock.jump_to(20)  # r4's pods run; none lost yet
    app = panel(sim)
    async with app.run_test(size=size) as pilot:
        await polled(pilot, app)
        await poll_now(pilot, app)
        await SCREENS[name](pilot, app)
        screen = app.screen
        sim.clock.jump_to(200)  # the reaper took r4's three pods
        for _ in range(3):  # seen gone, then established: the wave forms
            await poll_now(pilot, app)
        await wait_for(pilot, lambda: INCIDENT in app.news.items, what="the wave's news")
        area = screen.query_one(NewsArea)
        said = app.news.items[INCIDENT].title
        await wait_for(pilot, lambda: any(line.startswith(said) for line in area.lines), what="on this screen's line")
        assert app.screen is screen and app.news_area is area and area.display
        assert not area.region.overlaps(screen.query_one(StatusBar).region)  # the status line stays readable
        assert not toasts(app)
        await pilot.press("ctrl+l")  # the dismiss key works on this screen too
        await wait_for(pilot, lambda: not area.display, what="the line cleared")
        assert not app.news.items and not toasts(app)


async def test_a_refused_key_on_the_detail_screen_under_read_only_says_so_on_its_line(tmp_path):
    from .frozen import frozen_app

    app = frozen_app(tmp_path, read_only=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.experiments_table.select_key("192")
        await open_detail(pilot, app)
        screen = app.screen
        await pilot.press("h")  # hold: a mutating key
        area = screen.query_one(NewsArea)
        await wait_for(pilot, lambda: any("read-only: hold refused" in line for line in area.lines),
                       what="the refusal on the detail screen's line")
        assert app.screen is screen and not toasts(app)
