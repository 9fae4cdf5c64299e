"""Untrusted text from the servers (titles, pod names, notes, plans) is shown literally: nothing acts, nothing crashes."""

from __future__ import annotations

from rich.text import Text
from sagan_tui.panel.messages import ExperimentViewed, PlanRendered
from sagan_tui.panel.screens.detail import DetailScreen

from tests.harness import SIZE, notes, poll_now, polled, wait_for

EVIL = "[@click=app.quit]boom[/]"
OSC52 = "\x1b]52;c;ZXZpbA==\x07"
PLAN = f"# Plan\n\n{EVIL}\n\n[bold red]x {OSC52}\n\n[/]\n\n[a link](http://example.invalid)\n"
FIXTURE = {
    "accounts": {"team": {"api_key": "rk-team-u"}, "personal": {"api_key": "rk-personal-u"}},
    "experiments": [
        {"number": 1, "title": f"{EVIL} [/]", "status": "running", "planMd": PLAN,
         "hypothesis": f"{OSC52}[b]h[/b]"},
        {"number": 2, "title": f"[bold red]x{OSC52}", "status": "quantum_pending"},
    ],
    "events": [
        {"at": 10, "experiment": 1, "eventType": "note", "note": f"{EVIL}{OSC52}[/]"},
        {"at": 100, "experiment": 1, "eventType": "state_changed", "fromStatus": "running", "toStatus": "blocked",
         "note": f"[/]{EVIL}"},
    ],
    "approvalRequests": [{"experiment": 1, "title": f"[/]{EVIL}", "bodyMd": f"{EVIL} [TEXTBOX:why]",
                          "status": "pending", "at": 5}],
    "pods": [{"id": "evilpod0000001", "account": "team", "experiment": 1, "name": f"{EVIL}{OSC52}",
              "created_at": 0, "running_at": 5}],
}


def plain(table, key: str, column: str) -> str:
    i = 1 + [c.key for c in table.specs].index(column)
    cell = table.get_row(key)[i].text  # the Text the table draws
    assert isinstance(cell, Text) and not cell.spans  # text, never parsed markup
    return cell.plain


def assert_clean(s: str) -> None:
    assert "\x1b" not in s and "\x07" not in s, repr(s)


async def test_injected_markup_and_escapes_are_shown_literally(sim_factory, panel):
    sim = sim_factory(fixture=FIXTURE)
    sim.clock.jump_to(50)
    app = panel(sim)
    messages = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await polled(pilot, app)
        exps, pods, tl = app.experiments_table, app.pods_table, app.timeline
        assert plain(exps, "1", "title") == f"{EVIL} [/]"
        assert plain(exps, "2", "title") == "[bold red]x"
        assert plain(exps, "2", "status") == "quantum_pending?"
        assert plain(pods, "evilpod0000001", "name") == EVIL
        timeline_notes = [plain(tl, k, "note") for k in tl.shown_keys()]
        assert f"{EVIL}[/]" in timeline_notes
        for n in timeline_notes:
            assert_clean(n)

        # #1 turns to the owner: the notification carries the title literally.
        sim.clock.jump_to(150)
        await poll_now(pilot, app)
        said = [n.message for n in notes(app)]
        assert any(EVIL in m and "Owner" in m for m in said), said
        assert app.is_running and app.return_code is None

        # The detail view fetches the plan and shows it as text in markdown, links inert.
        exps.focus()
        exps.select_key("1")
        await pilot.press("enter")
        assert isinstance(app.screen, DetailScreen)
        screen = app.screen
        await wait_for(pilot, lambda: screen.plan.startswith("# Plan"), what="plan fetched")
        await wait_for(pilot, lambda: any(isinstance(m, PlanRendered) for m in messages), what="markdown")
        shown = str(screen.query_one("#detail-plan").render())
        assert EVIL in shown and "[/]" in shown and "[bold red]x" in shown
        assert "http://example.invalid" in shown  # a link is shown as text (no OSC 8: see assert_clean)
        assert_clean(shown)
        fields = str(screen.query_one("#detail-fields").render())
        assert EVIL in fields and "[b]h[/b]" in fields
        assert_clean(fields)
        await pilot.press("m")  # raw: the plan's text exactly, cleaned
        raw = str(screen.query_one("#detail-plan").render())
        assert raw == PLAN.replace(OSC52, "").rstrip("\n") or raw.startswith("# Plan\n\n" + EVIL), raw
        await pilot.press("escape")
        assert not isinstance(app.screen, DetailScreen)
        assert app.is_running and app.return_code is None


async def test_detail_shows_an_unreachable_plan_as_an_error_not_a_crash(sim_factory, panel):
    sim = sim_factory(fixture=FIXTURE)
    app = panel(sim, poll=False)
    messages = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await poll_now(pilot, app)
        sim.stop()
        app.experiments_table.select_key("2")
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(isinstance(m, ExperimentViewed) for m in messages), what="view")
        viewed = [m for m in messages if isinstance(m, ExperimentViewed)][0]
        assert viewed.view is None and viewed.error
        await pilot.pause()
        assert "plan not available" in str(app.screen.query_one("#detail-plan").render())
