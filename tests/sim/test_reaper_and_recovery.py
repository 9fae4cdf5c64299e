"""The reaper kills what reaches RUNNING in its window; Sagan's recovery loop re-dispatches, except blocked experiments."""

from __future__ import annotations

import httpx

FIXTURE = {
    "experiments": [{"number": 192, "title": "canary", "status": "approved", "runpodAccount": "team"},
                    {"number": 363, "title": "held", "status": "running", "runpodAccount": "team"},
                    {"number": 366, "title": "free", "status": "running", "runpodAccount": "team"}],
    "pods": [{"id": "heldpod0000001", "account": "team", "experiment": 363, "created_at": 1, "running_at": 5},
             {"id": "freepod0000001", "account": "team", "experiment": 366, "created_at": 1, "running_at": 6},
             {"id": "beforepod00001", "account": "team", "experiment": 366, "created_at": -90, "running_at": -60}],
    "reapers": [{"accounts": ["team"], "kill_after_s": 60, "from": 0, "to": 300}],
    "recovery": {"after_s": 30, "running_after_s": 40, "budget": 1, "experiments": [363, 366],
                 "pod_ids": ["redispatch0001"]},
}


def _sagan(sim, method: str, path: str, **kw) -> httpx.Response:
    return httpx.request(method, sim.base_url + path, headers={"Authorization": f"Bearer {sim.sagan_token}"}, **kw)


def test_a_scripted_pod_running_in_the_window_dies_at_the_kill_time_and_one_running_before_lives(sim_factory):
    sim = sim_factory(fixture=FIXTURE)
    assert sim.state.pods["heldpod0000001"].spec.lost_at == 65  # RUNNING at 5 + the reaper's 60 s
    assert sim.state.pods["beforepod00001"].spec.lost_at is None
    sim.clock.jump_to(70)
    _sagan(sim, "GET", "/api/health")
    team = {p.spec.id for p in sim.state.account_pods("team", 70)}
    assert "heldpod0000001" not in team and "freepod0000001" not in team and "beforepod00001" in team


def test_the_loop_re_dispatches_a_lost_experiment_but_not_a_blocked_one(sim_factory):
    sim = sim_factory(fixture=FIXTURE)
    sim.clock.jump_to(20)
    assert _sagan(sim, "POST", "/api/experiments/363/status", json={"status": "blocked", "note": "hold"}).status_code == 200
    sim.clock.jump_to(100)  # both pods lost at 65-66; the loop acts at 95-96
    _sagan(sim, "GET", "/api/health")
    pods = {p.spec.id: p.spec for p in sim.state.pods.values()}
    assert pods["redispatch0001"].experiment == 366 and pods["redispatch0001"].running_at == 136
    assert not any(s.experiment == 363 and s.created_at > 1 for s in pods.values())  # held: no re-dispatch
    assert pods["redispatch0001"].lost_at == 196  # launched into the window: the reaper takes it too
    assert sim.state.pods["redispatch0001"].runpod_state(150) is not None
    sim.clock.jump_to(200)
    _sagan(sim, "GET", "/api/health")
    assert sim.state.pods["redispatch0001"].runpod_state(200) is None  # RUNNING at 136 in the window: reaped


def test_a_canary_launched_in_the_window_dies_and_one_launched_after_it_lives(sim_factory):
    sim = sim_factory(fixture=FIXTURE)
    sim.clock.jump_to(100)
    assert _sagan(sim, "POST", "/api/experiments/192/launch-pod", json={"note": "canary"}).status_code == 200
    (early,) = [p for p in sim.state.pods.values() if p.spec.experiment == 192]
    assert early.runpod_state(169) is not None and early.runpod_state(171) is None  # RUNNING 110, killed 170
    sim.clock.jump_to(400)
    assert _sagan(sim, "POST", "/api/experiments/192/status", json={"status": "approved", "note": "again"}).status_code == 200
    assert _sagan(sim, "POST", "/api/experiments/192/launch-pod", json={"note": "canary"}).status_code == 200
    (late,) = [p for p in sim.state.pods.values() if p.spec.experiment == 192 and p is not early]
    assert late.runpod_state(400 + 10 + 600) is not None
