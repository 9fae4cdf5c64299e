"""The wave response (`W`) through the real app and the simulator: holds arrive audited, the ticket is
written; read-only refuses; Cancel changes nothing. Also the demo's verdicts, poll by poll."""

from __future__ import annotations

import pytest

from sagan_tui.core.session.model import PanelModel
from sagan_tui.core.triage.verdict import verdict_of
from sagan_tui.panel.screens.wave_response import WaveResponseScreen

from ..triage.incidents import REAPED, SteppedPolls, settings_for, three_causes
from tests.harness import open_dialog, panel_on, said, wait_for

HELD = {400, 401, 402, 403}  # the reaper's experiments, all running on team


@pytest.fixture
async def reaped(sim_factory, tmp_path, monkeypatch):
    """The three-causes world polled to t=630: the reaper's wave is the active one."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    sim = sim_factory(fixture=three_causes())
    rig = SteppedPolls(sim, settings_for(sim, tmp_path), monkeypatch)
    await rig.poll_at(range(0, 631, 10))
    yield sim, rig, tmp_path
    await rig.close()


def _app(rig, **flags):
    settings = rig.settings.model_copy(update=flags) if flags else rig.settings
    return panel_on(settings, cache=rig.cache, clock=rig.now, poll=False)[0]


def _status_posts(sim, mark: int) -> list:
    return [r for r in sim.requests[mark:] if r.api == "sagan" and r.method == "POST" and r.path.endswith("/status")]


async def test_w_then_send_holds_the_waves_experiments_and_writes_the_ticket(reaped):
    sim, rig, tmp = reaped
    app = _app(rig)
    mark = len(sim.requests)
    async with app.run_test(size=(200, 50)) as pilot:
        await open_dialog(pilot, "W", WaveResponseScreen, "wave response")
        screen = app.screen
        assert app.focused is not None and app.focused.id == "cancel"  # opens on Cancel
        assert screen.proposal.verdict.cause == "platform-reaper"
        assert set(screen.proposal.holds) == HELD
        assert screen.query_one("#line-hold").value and screen.query_one("#line-ticket").value
        assert "Nothing is dismissed" in str(screen.query_one("#line-dismiss").render())  # a sentence, no box
        note = screen.query_one("#note").value
        assert note.startswith("Held by the owner: PLATFORM REAPER") and all(p in note for p in REAPED)
        await pilot.press("tab", "enter")  # to Send, and send: W, tab, enter
        await wait_for(pilot, lambda: said(app, "ticket: written to"), what="the response's report")
        [report] = said(app, "ticket: written to")
    assert "hold: 4 of 4 held" in report and "dismiss: nothing dismissed" in report
    posts = _status_posts(sim, mark)
    assert sorted(int(r.path.split("/")[3]) for r in posts) == sorted(HELD)
    assert all(r.body["status"] == "blocked" and "PLATFORM REAPER" in r.body["note"] for r in posts)
    audit = [a for a in rig.cache.actions() if a.action == "hold"]
    assert sorted(a.target for a in audit) == sorted(f"#{n}" for n in HELD) and all(a.result == "ok" for a in audit)
    [ticket] = list((tmp / "data").rglob("incident-*.md"))
    text = ticket.read_text()
    assert all(p in text for p in REAPED) and "**PLATFORM REAPER, " in text
    [row] = [a for a in rig.cache.actions() if a.action == "ticket"]  # the export inside W, audited
    assert row.result == "ok" and row.target == ticket.name


async def test_typing_in_the_note_adds_to_it_and_enter_goes_to_send(reaped):
    _sim, rig, _ = reaped
    app = _app(rig)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_dialog(pilot, "W", WaveResponseScreen, "wave response")
        field = app.screen.query_one("#note")
        before = field.value
        field.focus()
        await pilot.press("space", "o", "k", "enter")
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "confirm", what="on Send")
        assert field.value == before + " ok"  # nothing selected and replaced; no line break in it
        assert "\n" not in field.text


async def test_cancel_sends_nothing_and_audits_nothing(reaped):
    sim, rig, tmp = reaped
    app = _app(rig)
    mark, audited = len(sim.requests), len(rig.cache.actions())
    async with app.run_test(size=(80, 24)) as pilot:
        await open_dialog(pilot, "W", WaveResponseScreen, "wave response")
        await pilot.press("enter")  # on Cancel
        await wait_for(pilot, lambda: not isinstance(app.screen, WaveResponseScreen), what="dialog closed")
        await pilot.pause()
    assert _status_posts(sim, mark) == [] and len(rig.cache.actions()) == audited
    assert not (tmp / "data").exists() or not list((tmp / "data").rglob("incident-*.md"))


async def test_read_only_refuses_the_wave_response_with_the_reason_and_audits_it(reaped):
    sim, rig, _ = reaped
    app = _app(rig, read_only=True)
    mark = len(sim.requests)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.press("W")
        await wait_for(pilot, lambda: said(app, "read-only: wave response refused"), what="refusal")
        assert not isinstance(app.screen, WaveResponseScreen)
        audit = await app.session.audit_log()
    assert _status_posts(sim, mark) == []
    assert [(a.action, a.result) for a in audit] == [("wave-response", "refused")]


async def test_the_demos_waves_read_platform_reaper_within_a_poll_and_the_second_high(sim_factory, tmp_path,
                                                                                    monkeypatch):
    """reaping-wave: r4 (team) loses its third pod at t=112; r5 (both accounts) at t=574-575."""
    sim = sim_factory(scenario="reaping-wave")
    rig = SteppedPolls(sim, settings_for(sim, tmp_path), monkeypatch)
    model = PanelModel(rig.settings, rig.cache, clock=rig.now)
    model.load(rig.poller.health)
    seen: dict[float, list] = {}
    try:
        for t in range(0, 601, 5):
            model.apply(await rig.poll_at([t]))
            seen[t] = [(w.start, len(w.losses), verdict_of(w).cause, verdict_of(w).confidence, len(w.bursts))
                       for w in model.waves]
    finally:
        await rig.close()
    third_loss_poll = 115  # the first poll after t=112
    first = [v for v in seen[third_loss_poll] if v[1] >= 3]
    assert first and first[0][2] == "platform-reaper", seen[third_loss_poll]
    # r4, the recovery loop's two re-dispatches (reaped at r4's kill time minutes later) and r5
    # (inside r4's guard, the same ~60 s reaper): one wave of two bursts, the true cause, sure.
    (wave,) = seen[600]
    assert wave[1] == 10 and wave[2:] == ("platform-reaper", "high", 2), seen[600]
    assert [v[1] for v in seen[300]] == [5]  # the re-dispatches joined r4 before r5


async def test_w_lists_the_pods_it_stops_and_keeps_the_one_the_owner_unticks(sim_factory, tmp_path, monkeypatch):
    """reaper-recovery at t=150: #10-#12 each have a recovery pod CREATED; W lists the three with a
    tick each, the owner unticks one, Tab reaches Send: two are stopped, the unticked one is not."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    sim = sim_factory(scenario="reaper-recovery")
    rig = SteppedPolls(sim, settings_for(sim, tmp_path), monkeypatch)
    try:
        await rig.poll_at(range(0, 151, 10))
        starting = sorted(p.spec.id for p in sim.state.pods.values()
                          if p.spec.experiment in (10, 11, 12) and (p.runpod_state(150) or {}).get("status") == "CREATED")
        assert len(starting) == 3
        app = _app(rig)
        async with app.run_test(size=(200, 50)) as pilot:
            await open_dialog(pilot, "W", WaveResponseScreen, "wave response")
            screen = app.screen
            assert app.focused is not None and app.focused.id == "cancel"  # still opens on Cancel
            boxes = {b.id.removeprefix("stop-"): b for b in screen.query(".stop-pod")}
            assert sorted(boxes) == starting and all(b.value for b in boxes.values())
            assert all("$1.49/h" in str(b.label) and "CREATED" in str(b.label) for b in boxes.values())
            kept = starting[0]
            await pilot.click(f"#stop-{kept}")
            # The box handles the click in its own turn: under load after the pilot's pause returns.
            await wait_for(pilot, lambda: not boxes[kept].value, what="the pod's box unticked")
            screen.query_one("#cancel").focus()
            await pilot.press("tab", "enter")  # Tab reaches Send
            await wait_for(pilot, lambda: said(app, "hold:"), what="the response's report")
            [report] = said(app, "hold:")
        assert "2 of 2 pods stopping" in report, report
        # the stop, whichever transport sent it (REST's /pods/<id>/stop, GraphQL's podStop)
        stopped = [f"{r.path} {r.body}" for r in sim.requests if r.method == "POST" and "stop" in f"{r.path} {r.body}"]
        assert not any(kept in s for s in stopped), stopped
        assert all(any(p in s for s in stopped) for p in starting[1:]), stopped
        assert {a.origin for a in rig.cache.actions() if a.action == "hold"} == {"W"}
    finally:
        await rig.close()


async def test_h_lists_the_starting_pod_it_stops_and_an_unticked_one_is_kept(sim_factory, tmp_path, monkeypatch):
    """`h` on #11 at t=150 (reaper-recovery): its CREATED recovery pod is listed with a tick; the
    owner unticks it: the hold goes (origin h), the pod is not stopped. (W's test covers a ticked stop.)"""
    from sagan_tui.panel.screens.hold import HoldScreen

    sim = sim_factory(scenario="reaper-recovery")
    rig = SteppedPolls(sim, settings_for(sim, tmp_path), monkeypatch)
    try:
        await rig.poll_at(range(0, 151, 10))
        [pod] = [p.spec.id for p in sim.state.pods.values()
                 if p.spec.experiment == 11 and (p.runpod_state(150) or {}).get("status") == "CREATED"]
        app = _app(rig)
        mark = len(sim.requests)
        async with app.run_test(size=(200, 50)) as pilot:
            app.experiments_table.focus()
            await wait_for(pilot, lambda: app.experiments_table.select_key("11"), what="#11 in the table")
            await pilot.press("h")
            await wait_for(pilot, lambda: isinstance(app.screen, HoldScreen) and app.focused is not None,
                           what="hold dialog")
            assert app.focused.id == "cancel"  # opens on Cancel
            box = app.screen.query_one(f"#stop-{pod}")
            assert box.value and "#11" in str(box.label) and "CREATED" in str(box.label)
            await pilot.click(f"#stop-{pod}")
            await wait_for(pilot, lambda: not box.value, what="the pod's box unticked")  # handled in its own turn
            app.screen.query_one("#cancel").focus()
            await pilot.press("tab", "enter")  # Tab reaches Hold
            await wait_for(pilot, lambda: _status_posts(sim, mark), what="the hold")
        stops = [r for r in sim.requests[mark:] if r.method == "POST" and "stop" in f"{r.path} {r.body}"]
        assert stops == []  # the unticked pod is kept running
        assert [(a.target, a.origin) for a in rig.cache.actions() if a.action == "hold"] == [("#11", "h")]
    finally:
        await rig.close()
