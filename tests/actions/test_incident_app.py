"""The incident's end through the real panel and simulator: `u` releases a hold, `C` runs the canary
(released, re-dispatched through the guard, watched, then the rest released with `U`), and a canary
the reaper takes joins the wave and releases nothing. The simulator's clock is held and stepped, the
session's clock reads it."""

from __future__ import annotations

import copy

import pytest

from sagan_tui.panel.screens.prompt import NoteScreen

from .conftest import actions_fixture
from tests.harness import open_dialog, wait_for

SIZE = (200, 50)
CASCADE = "RunPod pod stopped; volume preserved."


def incident(reaper_to: float) -> dict:
    """Three team pods of #192/#363 reaped 60 s after RUNNING; both experiments then blocked by
    Sagan's pod-stop cascade. The reaper's window ends at `reaper_to`."""
    fx = copy.deepcopy(actions_fixture())
    fx["experiments"] += [{"number": 192, "title": "Persona-tagged SFT", "status": "running", "runpodAccount": "team"},
                          {"number": 363, "title": "Refusal ablation", "status": "running", "runpodAccount": "team"},
                          # blocked before the incident, for another reason: no canary's to release
                          {"number": 355, "title": "Blocked last week", "status": "blocked", "runpodAccount": "team"}]
    fx["pods"] += [{"id": f"reaped{n}{i}aaaaaa"[:14], "account": "team", "experiment": n, "created_at": 1 + i,
                    "running_at": 5 + 3 * i} for i, n in enumerate((192, 192, 363))]
    fx["events"] = [{"at": 100, "experiment": n, "eventType": "state_changed", "fromStatus": "running",
                     "toStatus": "blocked", "note": CASCADE, "actorKind": "system"} for n in (192, 363)]
    fx["reapers"] = [{"accounts": ["team"], "kill_after_s": 60, "from": 0, "to": reaper_to}]
    return fx


@pytest.fixture
def incident_panel(rig):
    async def make(reaper_to: float, fixture: dict | None = None, **flags):
        from tests.in_process import panel_app

        r = await rig(fixture=fixture or incident(reaper_to), at=40, **flags)
        sim = r.sim
        sim.clock.hold(120)
        await r.poll()  # the three pods are gone: missing, read directly, confirmed lost
        app = panel_app(r.settings, r.cache, r.poller, clock=lambda: sim.clock.at(sim.clock.now_t()))
        return r, app

    return make


async def _refresh_until(pilot, app, cond, what: str) -> None:
    await pilot.press("R")
    await wait_for(pilot, cond, what=what)


async def _press_on(pilot, app, number: int, key: str, kind: type, what: str) -> None:
    """After the first poll, `key` on experiment `number`'s row, and wait for its dialog."""
    await wait_for(pilot, lambda: app.polls >= 1 and not app.polling, what="first poll")
    app.experiments_table.focus()
    await wait_for(pilot, lambda: app.experiments_table.select_key(str(number)), what=f"#{number} in the table")
    await open_dialog(pilot, key, kind, what)


def _panel_text(app) -> str:
    from sagan_tui.panel.main_screen import incident_lines

    return "\n".join(incident_lines(app.view.loss_view)) if app.view.loss_view else ""


async def test_u_during_the_wave_asks_for_the_typed_number_then_releases(incident_panel):
    from sagan_tui.panel.screens.guard import GuardedDispatchScreen

    r, app = await incident_panel(reaper_to=100)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.polls >= 1 and not app.polling and app.view.waves, what="the wave")
        app.experiments_table.focus()
        await wait_for(pilot, lambda: app.experiments_table.select_key("363"), what="#363 in the table")
        await open_dialog(pilot, "u", GuardedDispatchScreen, "guarded release dialog")
        targets = [str(t.render()) for t in app.screen.query(".target")]
        assert len(targets) == 1 and "#363" in targets[0]
        assert app.screen.dialog_title.startswith("Release 1 experiment through the dispatch guard")
        await pilot.press("tab", "enter")  # Tab+Enter no longer releases: it reaches Cancel, audited
        await wait_for(pilot, lambda: any(a.action == "release" and a.result == "cancelled"
                                          for a in r.cache.actions()), what="the cancel audited")
        assert r.sim.state.experiments[363].status_at(r.sim.clock.now_t()) == "blocked"
        await open_dialog(pilot, "u", GuardedDispatchScreen, "the dialog again")
        await pilot.press("3", "6", "3", "enter")
        await wait_for(pilot, lambda: app.view.experiments[363].status == "approved", what="approved after refresh")
    assert r.sim.state.experiments[363].status_at(r.sim.clock.now_t()) == "approved"
    assert [a.action for a in r.cache.actions()][:1] == ["release"] and r.cache.actions()[0].result == "ok"


async def test_u_outside_a_wave_is_the_plain_release_dialog(rig):
    from tests.in_process import panel_app

    fx = copy.deepcopy(actions_fixture())
    fx["experiments"].append({"number": 355, "title": "Blocked last week", "status": "blocked",
                              "runpodAccount": "team"})
    r = await rig(fixture=fx)
    app = panel_app(r.settings, r.cache, r.poller)
    async with app.run_test(size=SIZE) as pilot:
        await _press_on(pilot, app, 355, "u", NoteScreen, "release dialog")
        assert app.focused.id == "cancel"
        await pilot.press("tab", "enter")
        await wait_for(pilot, lambda: app.view.experiments[355].status == "approved", what="approved after refresh")
    assert [a.action for a in r.cache.actions()][:1] == ["release"] and r.cache.actions()[0].result == "ok"


async def test_the_canary_passes_then_U_releases_the_rest(incident_panel):
    from sagan_tui.panel.screens.guard import GuardedDispatchScreen

    r, app = await incident_panel(reaper_to=100)  # the reaper is gone by the canary's RUNNING (130)
    sim = r.sim
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.polls >= 1 and not app.polling and app.view.waves, what="the wave")
        app.experiments_table.focus()
        await wait_for(pilot, lambda: app.experiments_table.select_key("192"), what="#192 in the table")
        await open_dialog(pilot, "C", GuardedDispatchScreen, "guard dialog")
        await pilot.press("1", "9", "2", "enter")
        await wait_for(pilot, lambda: "canary #192: dispatched" in _panel_text(app), what="canary dispatched")
        # released then launched at the simulator: one new pod of #192, RUNNING 10 s later
        assert [p.spec.running_at for p in sim.state.pods.values() if p.spec.experiment == 192
                and p.spec.created_at == 120] == [130]
        # RUNNING at 130; the held clock's pods date RUNNING by RunPod's uptime on the wall clock,
        # which a held simulator does not move: the watch then starts when the canary is first seen RUNNING.
        sim.clock.hold(190)
        await _refresh_until(pilot, app, lambda: "canary #192: running 0 s of 2 min" in _panel_text(app),
                             "canary running")
        sim.clock.hold(262)
        await _refresh_until(pilot, app, lambda: "canary #192: running 1 min 12 s of 2 min" in _panel_text(app),
                             "canary running on")
        sim.clock.hold(320)
        await _refresh_until(pilot, app, lambda: "canary #192: passed" in _panel_text(app), "canary passed")
        assert "release the rest (#363)" in _panel_text(app)
        await pilot.press("U")  # the wave's guard still stands: the typed number, even after a pass
        await wait_for(pilot, lambda: isinstance(app.screen, GuardedDispatchScreen), what="release-the-rest dialog")
        assert ["#363" in str(t.render()) for t in app.screen.query(".target")] == [True]
        await pilot.press("3", "6", "3", "enter")
        await wait_for(pilot, lambda: app.view.experiments[363].status == "approved", what="the rest released")
    assert [a.action for a in r.cache.actions() if a.result == "ok"][:2] == ["release", "canary"]


async def test_a_canary_the_reaper_takes_joins_the_wave_and_releases_nothing(incident_panel):
    from sagan_tui.panel.screens.guard import GuardedDispatchScreen

    r, app = await incident_panel(reaper_to=1000)
    sim = r.sim
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.polls >= 1 and not app.polling and app.view.waves, what="the wave")
        (wave,) = app.view.waves
        app.experiments_table.focus()
        await wait_for(pilot, lambda: app.experiments_table.select_key("192"), what="#192 in the table")
        await open_dialog(pilot, "C", GuardedDispatchScreen, "guard dialog")
        await pilot.press("1", "9", "2", "enter")
        await wait_for(pilot, lambda: "dispatched" in _panel_text(app), what="canary dispatched")
        sim.clock.hold(150)
        await _refresh_until(pilot, app, lambda: "running" in _panel_text(app), "canary running")
        sim.clock.hold(200)  # killed at 190
        await _refresh_until(pilot, app, lambda: "canary #192: lost" in _panel_text(app), "canary lost")
        # held again in the poll that saw it lost: the same update's line says so
        assert "#192 held again at" in _panel_text(app), _panel_text(app)
        (grown,) = app.view.waves
        assert len(grown.losses) == len(wave.losses) + 1  # the canary joined the wave
        await pilot.press("U")
        await pilot.pause()
        assert not isinstance(app.screen, NoteScreen)  # nothing proposed: the rest stay held
        await wait_for(pilot, lambda: app.experiments_table.select_key("363"), what="#363 in the table")
        await pilot.press("u")  # after a lost canary, `u` asks, and says why
        await wait_for(pilot, lambda: isinstance(app.screen, GuardedDispatchScreen), what="guarded release")
        assert "canary #192 was lost" in str(app.screen.query_one("#guard-facts").render())
        await pilot.press("escape")
        # the session itself refuses a release without the typed number, naming the lost canary
        refused = await app.session.release([363], "test: straight through the session")
        assert refused.refused and "canary #192 was lost" in refused.message and "type 363" in refused.message
    assert r.sim.state.experiments[363].status_at(200) == "blocked"
    assert r.sim.state.experiments[192].status_at(200) == "blocked"  # no further pod for it
    assert [a.origin for a in r.cache.actions() if a.action == "hold" and a.target == "#192"][:1] == ["canary"]


@pytest.mark.parametrize("away_minutes, said", [(3.0, True), (None, False)], ids=["away-3-min", "default-10-min"])
async def test_since_you_last_looked_follows_the_away_setting(incident_panel, away_minutes, said):
    """A key at t=120, a loss at t=210, the next look at t=400 (4 min 40 s later): an absence
    under `away_minutes = 3`, none under the default 10 minutes."""
    fx = incident(reaper_to=100)
    fx["pods"].append({"id": "lateloss000001", "account": "personal", "experiment": 504, "created_at": 140,
                       "running_at": 150, "lost_at": 210, "datacenter": "EU-RO-1"})
    flags = {} if away_minutes is None else {"away_minutes": away_minutes}
    r, app = await incident_panel(reaper_to=100, fixture=fx, **flags)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.polls >= 1 and not app.polling and app.view.waves, what="the wave")
        await pilot.press("down")  # the owner is here at t=120
        await pilot.pause()
        r.sim.clock.hold(400)
        app.request_refresh()  # not the R key: a key is the owner back, which clears the line
        await wait_for(pilot, lambda: any(x.pod_id == "lateloss000001" and x.state == "confirmed"
                                          for x in app.view.losses), what="the late loss")
        await pilot.pause()
        line = app.view.loss_view.since_looked
    if said:
        assert line.startswith("since you last looked (") and "1 new loss" in line, line
        assert line in _panel_text(app)
    else:
        assert line == ""


async def test_the_owners_own_hold_is_not_announced_back_as_your_turn(incident_panel):
    """`h` on #502 makes it blocked (its row then reads YOU: unblock / revise), through the real
    session: no "Your turn" toast for it, while Sagan's own cascade blocking #504 then is one."""
    from tests.harness import notes

    fx = incident(reaper_to=100)
    fx["events"].append({"at": 125, "experiment": 504, "eventType": "state_changed", "fromStatus": "running",
                         "toStatus": "blocked", "note": CASCADE, "actorKind": "system"})
    r, app = await incident_panel(reaper_to=100, fixture=fx)
    async with app.run_test(size=SIZE) as pilot:
        await _press_on(pilot, app, 502, "h", NoteScreen, "hold dialog")
        await pilot.press("tab", "enter")
        await wait_for(pilot, lambda: app.view.experiments[502].status == "blocked", what="blocked after refresh")
        r.sim.clock.hold(130)
        await _refresh_until(pilot, app, lambda: app.polls >= 3 and not app.polling, "another poll")
        turns = [n.message for n in notes(app) if n.title == "Your turn"]
    assert app.view.experiments[502].effective_turn  # the owner's turn now, on its row
    assert not any("#502" in m for m in turns) and any("#504" in m for m in turns), turns
