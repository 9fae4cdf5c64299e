"""Containment (core/actions/contain.py) against the simulator's reaper-recovery scenario over loopback
HTTP with the real clients: a hold that also stops the pods starting at Send, then sees no new pod
for the guard's length; an override seen and the one re-containment; a stop failing (429) shown,
retried with backoff and then done; the hold's origin recorded per path. The simulator's clock is
held and stepped; the poller, runner and containment read it."""

from __future__ import annotations

import copy

from sagan_tui.core.actions.contain import Containment, stop_targets
from sagan_tui.core.actions.holds import blocked_by
from sagan_tui.core.actions.runner import ActionRunner
from sagan_tui.sim.scenarios import build_scenario

WAVE = (10, 11, 12)
GUARD_MIN = 5.0  # the guard's length in these tests: five simulated minutes of verification
KILL_S = 60.0


async def _rig(rig, at: float, fixture: dict | None = None):
    r = await rig(fixture=fixture or build_scenario("reaper-recovery"), at=at)
    r.sim.clock.hold(at)
    clock = lambda: r.sim.clock.at(r.sim.clock.now_t())  # noqa: E731 - the simulator's served now
    r.poller.clock = clock
    r.runner = ActionRunner.for_poller(r.settings, r.cache, r.poller, clock=clock)
    await r.poll()
    return r, Containment(r.runner, GUARD_MIN), clock


def _new_pods(r, after: float) -> list[str]:
    return [p.spec.id for p in r.sim.state.pods.values() if p.spec.experiment in WAVE and p.spec.created_at > after]


async def _step_to(r, c: Containment, clock, t: float, step: float = 15.0) -> list[str]:
    """Poll every `step` simulated seconds up to t, containment stepping after each poll."""
    said = []
    now = r.sim.clock.now_t()
    while now < t:
        now = min(t, now + step)
        r.sim.clock.hold(now)
        await r.poll()
        statuses = {n: (e.status, e.updated_at, None) for n in c.watched if (e := r.cache.experiment(n))}
        said += await c.step(clock(), statuses, r.cache.pods())
    return said


async def test_w_holds_and_stops_the_starting_pods_then_no_new_pod_for_the_guard(rig):
    r, c, clock = await _rig(rig, at=150)  # each of #10-#12 has a recovery pod CREATED at ~125-129
    targets = stop_targets(r.cache.pods(), WAVE, clock(), KILL_S)
    assert {t.experiment for t in targets} == set(WAVE) and {t.expected_status for t in targets} == {"CREATED"}
    done = await c.contain(WAVE, targets, origin="W", note="Held by the owner: platform-reaper.")
    assert done.ok and all(s.ok for s in done.stops), done.message
    assert len(r.graphql("podStop")) == 3
    await _step_to(r, c, clock, 150 + GUARD_MIN * 60 + 1)
    t = r.sim.clock.now_t()
    assert _new_pods(r, 150) == []  # recovery created nothing for a held experiment
    assert {r.sim.state.experiments[n].status_at(t) for n in WAVE} == {"blocked"}
    assert {c.watched[n].state(clock()) for n in WAVE} == {"contained"}
    assert "contained" in dict(c.lines(clock()))[10]


async def test_a_hold_that_keeps_a_starting_pod_is_overridden_and_h_contains_it_again(rig):
    r, c, clock = await _rig(rig, at=150)
    await c.contain([10], [], origin="h", note="held without stopping")  # the owner unticked its pod
    said = await _step_to(r, c, clock, 200)  # its pod reaches RUNNING at ~165: Sagan moves it out of blocked
    assert any("#10" in line and "overridden" in line for line in said), said
    assert c.watched[10].state(clock()) == "overridden"
    assert "OVERRIDDEN" in dict(c.lines(clock()))[10] and "h stops its pods" in dict(c.lines(clock()))[10]
    again = await c.contain([10], stop_targets(r.cache.pods(), [10], clock(), KILL_S), origin="h", note="again")
    assert again.ok and again.stops and all(s.ok for s in again.stops), again.message
    t0 = r.sim.clock.now_t()
    await _step_to(r, c, clock, t0 + 240)
    assert [p for p in _new_pods(r, t0) if r.sim.state.pods[p].spec.experiment == 10] == []
    assert r.sim.state.experiments[10].status_at(r.sim.clock.now_t()) == "blocked"


async def test_a_stop_refused_with_429_is_shown_and_retried_with_backoff_while_the_hold_stays(rig):
    fx = copy.deepcopy(build_scenario("reaper-recovery"))
    fx["accounts"]["team"]["failures"] = [{"from": 151, "to": 158, "kind": "429"}]
    r, c, clock = await _rig(rig, at=150, fixture=fx)
    targets = stop_targets(r.cache.pods(), [11], clock(), KILL_S)
    r.sim.clock.hold(152)
    done = await c.contain([11], targets, origin="W", note="hold")
    assert done.ok  # the hold is Sagan's: it went through
    v = c.watched[11]
    stop = next(iter(v.stops.values()))
    assert stop.state == "failed" and stop.reason and v.state(clock()) == "stopping", stop
    assert "retrying" in v.line(clock()) and stop.target.pod_id in v.line(clock())
    assert r.sim.state.experiments[11].status_at(152) == "blocked"
    await _step_to(r, c, clock, 170, step=5.0)  # past the window and the 5 s backoff: retried, stopped
    assert stop.state == "stopping" and stop.tries >= 2, stop
    await _step_to(r, c, clock, 420)
    assert [p for p in _new_pods(r, 150) if r.sim.state.pods[p].spec.experiment == 11] == []


async def test_the_hold_origin_is_recorded_per_path_and_named_by_the_release_dialog(rig):
    r, c, clock = await _rig(rig, at=150)
    for n, origin in zip(WAVE, ("h", "W", "canary")):
        assert (await c.contain([n], [], origin=origin, note="Held by the owner: 12:00:00 UTC")).ok
    assert (await r.runner.bulk_hold([20, 21], "marked", "H")).ok
    await r.poll()
    held = {a.target: a.origin for a in r.cache.actions() if a.action == "hold"}
    assert held == {"#10": "h", "#11": "W", "#12": "canary", "#20": "H", "#21": "H"}
    said = blocked_by(r.cache, [10, 11, 12, 20])
    # the note's "Held by the owner: ... UTC" no longer makes a hold W's: the recorded origin does
    assert said == {10: "h (the owner)", 11: "W (wave response)", 12: "the failed canary (held again)",
                    20: "H (the owner, marked experiments)"}


async def test_a_starting_pod_that_reached_running_since_the_dialog_listed_it_is_still_stopped(rig):
    r, c, clock = await _rig(rig, at=150)
    targets = stop_targets(r.cache.pods(), [12], clock(), KILL_S)  # CREATED when the dialog listed it
    assert [t.expected_status for t in targets] == ["CREATED"]
    r.sim.clock.hold(175)  # RUNNING at ~169 (the owner read the dialog); RunPod says RUNNING now
    done = await c.contain([12], targets, origin="h", note="hold")
    assert done.ok and [s.ok for s in done.stops] == [True], done.message
    assert next(iter(c.watched[12].stops.values())).state == "stopping"
