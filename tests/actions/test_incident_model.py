"""The incident told through the panel model over the simulator: a wave announced, then again when
it grows (what changed), quiet once acknowledged until a new burst; a forming cluster once; a hold the
simulator's script overrides warned on its row and notified once; the owner's own hold no "your turn"."""

from __future__ import annotations

import copy

from sagan_tui.core.session.model import PanelModel, announcements
from sagan_tui.core.triage.verdict import verdict_of

from .conftest import actions_fixture


async def _model(r):
    now = [r.sim.clock.at(r.sim.clock.now_t())]
    m = PanelModel(r.settings, r.cache, clock=lambda: now[0])
    m.load(r.poller.health)

    async def poll_at(t: float):
        r.sim.clock.hold(t)
        now[0] = r.sim.clock.at(t)
        before = {n: h.state for n, h in m.health.items()}
        changes = await r.poll()
        delta = m.apply(changes)
        return [(n.title, n.message) for n in announcements(delta, before, m.health)]

    return m, poll_at


def _titles(notes, title):
    return [msg for t, msg in notes if t == title]


async def test_the_demo_wave_is_announced_once_and_quiet_once_acknowledged_while_its_cause_holds(rig):

    r = await rig(scenario="reaping-wave", at=2)
    m, poll_at = await _model(r)
    told = []
    for t in (40, 60, 100, 104, 110, 114, 140):
        told += await poll_at(t)
    assert len(_titles(told, "Reaping wave")) == 1 and _titles(told, "Reaping wave grew") == []
    m.incident_lines.acknowledge()
    quiet = []
    for t in (190, 200, 252, 256, 262, 300):  # the loop's two re-dispatches, reaped at the same kill time
        quiet += await poll_at(t)
    # Acknowledged: the loop's losses in the same burst are counted (since you last looked), not
    # announced again; only a new burst or a new cause is (core/triage/hysteresis.py).
    assert _titles(quiet, "Reaping wave grew") == []
    assert len(m.waves) == 1 and {"q8r1zt5mk0pv3e", "b4y7wn2gx6cj9s"} <= set(m.waves[0].pod_ids)
    m.incident_lines.acknowledge()
    assert _titles(await poll_at(320), "Reaping wave grew") == []  # nothing new: quiet
    assert verdict_of(m.waves[0]).cause == "platform-reaper" and sorted(m.waves[0].accounts) == ["team"]
    later = []
    for t in (520, 570, 576, 580, 620):  # r5, inside the guard, at the same ~60 s kill time
        later += await poll_at(t)
    # r5 grows the wave into personal and raises its confidence, but brings no new cause (grouping by
    # cause reads r4 as the reaper already), and on a held clock the losses' times are this machine's,
    # so the bursts do not split: an acknowledged wave stays quiet (tests/triage/test_hysteresis.py
    # has the new burst that speaks again).
    assert sorted(m.waves[0].accounts) == ["personal", "team"] and verdict_of(m.waves[0]).cause == "platform-reaper"
    assert _titles(later, "Reaping wave grew") == []
    # One wave (the polls date losses by this machine's clock, which a held simulator does not
    # move, so its bursts are read in triage's tests and the demo, not here).
    assert len(m.waves) == 1 and len(m.waves[0].losses) == 10


def _override_fixture() -> dict:
    fx = copy.deepcopy(actions_fixture())
    # The script moves #502 queued -> running at t=60 whatever the owner did: an override of a hold.
    fx["events"] = [{"at": 60, "experiment": 502, "eventType": "state_changed", "fromStatus": "blocked",
                     "toStatus": "running", "note": "Auto-recovery r6 queued after pod loss.", "actorKind": "system"}]
    # ... and gives it a new pod at t=66, first seen by the poll after the status change's.
    fx["pods"].append({"id": "overpod502aaaa", "account": "team", "experiment": 502, "name": "exp502-r6",
                       "created_at": 66, "running_at": 68})
    return fx


async def test_a_scripted_override_of_a_hold_raises_the_row_warning_and_one_notification(rig):
    r = await rig(fixture=_override_fixture(), at=10)
    m, poll_at = await _model(r)
    r.sim.clock.hold(20)
    assert (await r.runner.hold(502, "hold")).ok
    m.incident.held(502, r.sim.clock.at(20))  # as the session does when the hold succeeds
    m.incident.own_change(502, r.sim.clock.at(20))
    notes = await poll_at(30)
    assert m.experiments[502].status == "blocked" and _titles(notes, "Your turn") == []  # own hold: quiet
    notes = await poll_at(65)
    (line,) = _titles(notes, "Hold overridden")
    assert line.startswith("hold on #502 overridden: blocked -> running at ")
    row = m.experiment_rows([502])["502"]
    assert row.cells[2].text == "HOLD OVERRIDDEN" and row.cells[-1].text.startswith("hold on #502 overridden")
    assert _titles(await poll_at(70), "Hold overridden") == []  # once: the new pod of the same override too
    assert "overpod502aaaa" in m.pods


async def test_two_correlated_losses_are_told_once_as_forming(rig):
    fx = copy.deepcopy(actions_fixture())
    fx["pods"] += [{"id": f"pair{i}aaaaaaaaa", "account": acc, "experiment": 502, "created_at": 1,
                    "running_at": 5 + i, "lost_at": 65 + i, "datacenter": dc}
                   for i, (acc, dc) in enumerate((("team", "US-KS-2"), ("personal", "EU-RO-1")))]
    r = await rig(fixture=fx, at=40)
    m, poll_at = await _model(r)
    told = []
    for t in (70, 75, 80):
        told += await poll_at(t)
    (watch,) = _titles(told, "Watch")  # once; its times as the held clock's polls dated them
    assert watch.startswith("WATCH: 2 pods lost") and "after RUNNING" in watch
    assert [set(c.pod_ids) for c in m.active_forming()] == [{"pair0aaaaaaaaa", "pair1aaaaaaaaa"}] and not m.waves
