"""The guard's typed confirmation on approve (a, alt+a) during a wave, over a real session and the
simulator; `K` and `e` in the audit log (`A`)."""

from __future__ import annotations

from sagan_tui.panel.screens.approval import ApprovalScreen
from sagan_tui.panel.screens.guard import GuardedDispatchScreen

from .conftest import HostApp
from tests.harness import open_dialog, wait_for

SIZE = (110, 34)
PLAN_367 = "/api/approval-requests/252bf40a-5512-45ea-a8f4-9db84af6112b/decision"


async def _wave(rig, **flags):
    r = await rig(scenario="reaping-wave", at=550, **flags)
    r.sim.clock.jump_to(600)
    await r.poll()  # the r5 pods are gone: a wave in both accounts, now
    r.since_now()
    return r


async def _open(pilot, app, key: str, kind: type):
    await pilot.press(key)
    await wait_for(pilot, lambda: isinstance(app.screen, kind), what=kind.__name__)
    return app.screen


async def test_approving_during_the_wave_asks_for_the_number_then_sends(rig):
    r = await _wave(rig)
    app = HostApp(r.settings, r.cache, r.poller)
    app.selected = 367
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot, app, "a", ApprovalScreen)
        await pilot.press(*"40", "tab", *"team")
        await open_dialog(pilot, "alt+a", GuardedDispatchScreen, "guard")
        assert app.screen.dialog_title == "Approve 1 experiment through the dispatch guard: #367"
        assert r.sent() == []  # nothing decided yet
        await pilot.press("escape")  # backed out: nothing sent, audited, the approval stays open
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), what="back on the approval")
        await wait_for(pilot, lambda: any(a.action == "approve" and a.result == "cancelled"
                                          for a in r.cache.actions()), what="cancel audited")
        assert r.sent() == []
        await open_dialog(pilot, "alt+a", GuardedDispatchScreen, "guard again")
        await pilot.press("3", "6", "7", "enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, (ApprovalScreen, GuardedDispatchScreen)),
                       what="decision sent")
    assert [q.path for q in r.sent("sagan")] == [PLAN_367]


async def test_K_and_e_leave_audit_rows(rig, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    r = await _wave(rig, read_only=True)  # neither mutates Sagan or RunPod: read-only allows and audits them
    app = HostApp(r.settings, r.cache, r.poller)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("K")
        await wait_for(pilot, lambda: any(a.action == "acknowledge" for a in r.cache.actions()), what="K audited")
        await pilot.press("e")
        await wait_for(pilot, lambda: any(a.action == "export" for a in r.cache.actions()), what="e audited")
    [path] = list((tmp_path / "data").rglob("incident-*.md"))
    rows = {a.action: a for a in r.cache.actions()}
    assert rows["acknowledge"].result == "ok" and "acknowledged the wave" in rows["acknowledge"].detail
    assert rows["export"].result == "ok" and rows["export"].target == path.name
    assert r.sent() == []
