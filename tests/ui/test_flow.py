"""The update flow on the frozen panel: what another writer's commit re-reads, announces and keeps.

Each test writes through a second connection to the cache, as `sagan-tui sync` or a second panel
would, and has the session look at once instead of at its next look (issue 18.1)."""

from __future__ import annotations

from datetime import timedelta

from sagan_tui.core.models import Experiment, WorkflowEvent
from sagan_tui.core.store.cache import Cache

from tests.harness import notes, wait_for
from .frozen import NOW, frozen_app

SIZE = (160, 40)


async def deliver(pilot, app) -> None:
    """The session reads what the other writer committed; its update is applied (an update that
    came within a moment of a key waits for the keys to stop: panel/key_first.py)."""
    # The session's look at other writers, now (its own timer otherwise): no channel intent asks
    # for one, so the in-process session's own method; the look's rule is what this file tests.
    await app.session.core.look_now()
    await pilot.pause()
    await wait_for(pilot, lambda: not app.main_screen.pacing.held, what="the held updates applied")
    await pilot.pause()


def other_writer(app, write) -> None:
    other = Cache(app.settings.cache_path)
    try:
        with other.transaction() as conn:
            write(other, conn)
    finally:
        other.close()


def add_event(app, id: str, seconds: int, exp: int = 365, kind: str = "epm:progress") -> None:
    ev = WorkflowEvent(id=id, experiment_number=exp, event_type=kind, note=f"n{id}",
                       created_at=NOW + timedelta(seconds=seconds))
    other_writer(app, lambda cache, conn: cache.upsert_events(conn, [ev]))


async def test_timeline_follow_scope_and_type(tmp_path):
    app = frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        tl = app.timeline
        assert tl.follow and tl.everything and tl.row_count == 9
        add_event(app, "new1", 1)
        await deliver(pilot, app)
        assert tl.shown_keys()[0] == "new1" and tl.cursor_key == "new1"  # follow: the newest, on top

        tl.focus()
        await pilot.press("f", "down")  # follow off: the cursor keeps its row
        kept = tl.cursor_key
        add_event(app, "new2", 2)
        await deliver(pilot, app)
        assert tl.shown_keys()[0] == "new2" and tl.cursor_key == kept

        # A new scope or type is the session's answer to an intent: the rows follow when it comes.
        await pilot.press("t")  # state changes only
        assert tl.kind == "state"
        await wait_for(pilot, lambda: set(tl.shown_keys()) == {"ev1"}, what="the state changes alone")
        await pilot.press("t")  # markers
        await wait_for(pilot, lambda: tl.shown_keys() and all(
            tl.records[k].cells[2].text.startswith("epm:") for k in tl.shown_keys()), what="markers alone")
        await pilot.press("t", "t", "t")  # notes, pods, back to all
        assert tl.kind == "all"

        app.experiments_table.select_key("365")
        await pilot.press("g")  # the selected experiment only
        assert not tl.everything and "#365" in str(tl.border_title)
        await wait_for(pilot, lambda: tl.shown_keys() and {
            tl.records[k].cells[1].text for k in tl.shown_keys()} == {"#365"}, what="#365's events alone")


async def test_new_owner_turn_item_is_announced_with_the_bell(tmp_path):
    app = frozen_app(tmp_path)
    rings = []
    app.bell = lambda: rings.append(1)
    async with app.run_test(size=SIZE) as pilot:
        exp = Experiment(id="e380", number=380, title="[/]fresh [b]plan", status="plan_pending",
                         created_at=NOW, updated_at=NOW)
        other_writer(app, lambda cache, conn: cache.upsert_experiments(conn, [exp]))
        await deliver(pilot, app)
        assert app.experiments_table.shown_keys()[0] == "380"  # newest of the inbox, on top
        said = [n.message for n in notes(app)]
        assert any("#380 [/]fresh [b]plan" in m for m in said), said
        assert rings == [1]
        # the same item again is not news
        await deliver(pilot, app)
        assert rings == [1]


async def test_a_poll_while_the_detail_is_open_updates_both(tmp_path):
    app = frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        app.experiments_table.select_key("365")
        await pilot.press("enter")
        detail = app.screen
        add_event(app, "new3", 3, exp=365)
        await deliver(pilot, app)
        assert "new3" in detail.query_one("#detail-timeline").shown_keys()
        await pilot.press("I")  # the incident layout from the detail: back to the panes, incident on
        assert app.screen is app.main_screen and app.main_screen.has_class("-incident")


async def test_the_timeline_follows_the_cursor_once_it_rests_not_at_every_row(tmp_path, monkeypatch):
    """Arrow keys through the experiments ask for no timeline; the cursor at rest asks once, for
    the experiment it rests on (main_screen.CURSOR_REST_S, here too long to pass by itself)."""
    from sagan_tui.panel import main_screen

    monkeypatch.setattr(main_screen, "CURSOR_REST_S", 3600.0)
    app = frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        asked = []
        watch = app.session.watch_timeline
        monkeypatch.setattr(app.session, "watch_timeline", lambda tag, exp, kind: (asked.append(exp), watch(tag, exp, kind)))
        tl, exps = app.timeline, app.experiments_table
        exps.move_cursor(row=0)
        tl.focus()
        await pilot.press("g")  # the selected experiment's events only
        exps.focus()
        await pilot.pause()
        first = exps.cursor_key
        assert not tl.everything
        asked.clear()
        await pilot.press("down", "down", "down")
        await pilot.pause()
        rest = exps.cursor_key
        assert rest != first and asked == [] and str(first) in str(tl.border_title)
        app.main_screen.rest_cursor()
        await wait_for(pilot, lambda: tl.row_count and {tl.records[k].cells[1].text for k in tl.shown_keys()}
                       == {f"#{rest}"}, what="the timeline of the row the cursor rests on")
        assert asked == [int(rest)] and f"#{rest}" in str(tl.border_title)
        assert {tl.records[k].cells[1].text for k in tl.shown_keys()} == {f"#{rest}"}
