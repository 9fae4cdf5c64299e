"""Owner actions through the real SaganApp's keys: a double confirmation sends once; a failure changes nothing and says why.

tests/actions covers each dialog on a small host app and the runner against the simulator; these
go through the panel's own bindings, with the simulator slowed so that the first request is
still in flight when the second keypress lands.
"""

from __future__ import annotations

from sagan_tui.panel.screens.confirm import ConfirmScreen

from tests.harness import notes, poll_now, said, table_rows, wait_for


WORLD = {
    "sagan": {"token": "sagan-actions-rel", "failures": [{"from": 1000, "to": 1100, "kind": "500"}]},
    "accounts": {"team": {"api_key": "rk-team-act"}, "personal": {"api_key": "rk-personal-act"}},
    "experiments": [
        {"number": 500, "title": "approved, waiting for a pod", "status": "approved", "runpodAccount": "team",
         "podSpec": {"gpuType": "A100", "gpuCount": 1, "name": "exp500-run"}},
        {"number": 502, "title": "running on team", "status": "running", "runpodAccount": "team"},
    ],
    "pods": [{"id": "teampod502aaaa", "account": "team", "experiment": 502, "created_at": -600, "running_at": -560}],
}


async def confirm(pilot, app, key: str) -> None:
    await pilot.press(key)
    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm dialog")
    assert app.focused is not None and app.focused.id == "cancel"  # starts on Cancel
    await pilot.press("tab", "enter")


async def test_a_double_confirmation_launches_once_and_both_are_audited(sim_factory, panel, figures):
    sim = sim_factory(fixture=WORLD, latency=2.0)  # the first launch is still on its way at the second press
    app, cache = panel(sim.env())
    async with app.run_test(size=(200, 50)) as pilot:
        await poll_now(pilot, app)
        app.experiments_table.focus()
        app.experiments_table.select_key("500")
        mark = len(sim.requests)
        await confirm(pilot, app, "r")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen), what="dialog closed")
        await confirm(pilot, app, "r")  # the owner presses it again while the first is on its way
        await wait_for(pilot, lambda: said(app, "re-dispatched") and said(app, "already in flight"), what="results")
    launches = [r for r in sim.requests[mark:] if r.method == "POST" and r.path.endswith("/launch-pod")]
    assert len(launches) == 1 and launches[0].status == 200
    audit = cache.actions()
    assert [(a.action, a.target, a.account, a.result) for a in audit[:2]] == [
        ("redispatch", "#500", "team", "ok"), ("redispatch", "#500", "team", "refused")] or \
        [(a.action, a.target, a.account, a.result) for a in audit[:2]] == [
        ("redispatch", "#500", "team", "refused"), ("redispatch", "#500", "team", "ok")]
    refused = next(a for a in audit if a.result == "refused")
    assert "already in flight" in refused.error and refused.at is not None
    figures["double_press_launches"] = len(launches)


async def test_a_failed_hold_changes_nothing_and_says_why(sim_factory, panel):
    sim = sim_factory(fixture=WORLD)
    app, cache = panel(sim.env())
    async with app.run_test(size=(200, 50)) as pilot:
        await poll_now(pilot, app)
        before = table_rows(app.experiments_table)
        sim.clock.jump_to(1010)  # Sagan answers 500 from t=1000
        app.experiments_table.focus()
        app.experiments_table.select_key("502")
        await pilot.press("h")
        # The dialog is the screen before its mount gives a button the focus: wait for that too
        # (a busy machine showed the screen with nothing focused yet).
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HoldScreen" and app.focused is not None,
                       what="hold dialog")
        assert app.focused.id == "cancel"
        await pilot.press("tab", "enter")
        await wait_for(pilot, lambda: said(app, "hold #502 failed"), what="failure")
        [message] = said(app, "hold #502 failed")
        assert "HTTP 500" in message
        assert [n.severity for n in notes(app) if "hold #502" in n.message] == ["error"]
        after = table_rows(app.experiments_table)
        assert after == before  # nothing on screen pretends it happened
    [a] = [a for a in cache.actions() if a.action == "hold"]
    assert (a.target, a.account, a.result) == ("#502", "team", "error") and "HTTP 500" in a.error
    assert cache.experiment(502).status == "running"
