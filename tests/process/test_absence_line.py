""""Since you last looked" through the real channel: the panel on its session process, the
simulator's clock held and stepped, the session's clock moved by the panel's readings (Tick,
Refresh, KeyPressed carry them on a held clock). No key for `away_minutes` while losses arrive:
the wave panel says what happened; the owner's next key clears it (#44 item 2)."""

from __future__ import annotations

from sagan_tui.wire.config import gather
from tests.actions.test_incident_app import incident
from tests.harness import wait_for

WAIT_S = 60.0  # a bound on each wait for a condition, never a pace
SIZE = (200, 50)


def _panel(sim, tmp):
    from sagan_tui.panel.app import SaganApp

    env = {**sim.env(), "SAGAN_TUI_CONFIG": str(tmp / "no-config.toml"), "SAGAN_TUI_AWAY_MINUTES": "1",
           **{f"RUNPOD_TRANSPORT_{name.upper()}": "graphql" for name in sim.account_keys}}
    draft = gather(env, sagan_tui_cache=str(tmp / "cache.sqlite"), poll_interval=60.0, bell=False)
    return SaganApp(draft, poll=False, clock=lambda: sim.clock.at(sim.clock.now_t()))


def _wave_panel_text(app) -> str:
    """The screen's text as the owner reads it (Textual's own screenshot), blanks collapsed."""
    import html
    import re

    svg = app.export_screenshot()
    return " ".join(html.unescape("".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg))).split())


async def test_no_key_for_away_minutes_while_losses_arrive_shows_the_absence_line_and_a_key_clears_it(
        sim_factory, tmp_path):
    from sagan_tui.panel.remote import RemoteSession

    sim = sim_factory(fixture=incident(reaper_to=100))
    sim.clock.hold(40)  # the three team pods run; the reaper kills them at about t=65-71
    app = _panel(sim, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.loaded, "the session process's whole panel", timeout=WAIT_S)
        assert isinstance(app.session, RemoteSession)
        app.request_refresh()
        await wait_for(pilot, lambda: app.polls >= 1 and not app.polling, "the first poll", timeout=WAIT_S)
        await pilot.press("down")  # the owner is here at t=40 (its KeyPressed goes to the child)
        await pilot.pause()
        assert app.view.loss_view.since_looked == ""

        sim.clock.hold(130)  # 90 s without a key: an absence under away_minutes = 1; the reaper struck
        app.request_refresh()
        await wait_for(pilot, lambda: "3 new losses" in app.view.loss_view.since_looked, "the absence line from the session process", timeout=WAIT_S)
        line = app.view.loss_view.since_looked
        assert line.startswith("since you last looked (") and "1 wave" in line, line
        await wait_for(pilot, lambda: "since you last looked" in _wave_panel_text(app), "the absence line in the wave panel", timeout=WAIT_S)

        await pilot.press("up")  # back at t=130: the session hears the key and the line goes
        await wait_for(pilot, lambda: app.view.loss_view.since_looked == "", "the line cleared by a key", timeout=WAIT_S)
        await wait_for(pilot, lambda: "since you last looked" not in _wave_panel_text(app), "the wave panel without it", timeout=WAIT_S)
