"""Built-in scenarios: they load, they are deterministic, and large-fleet is big yet quick."""

from __future__ import annotations

import time
import types

import httpx
import pytest

from sagan_tui.core.models import valid_pod_id
from sagan_tui.sim import SCENARIOS, SimClock, SimServer, build_scenario, load_fixture


@pytest.mark.parametrize("name", [n for n in SCENARIOS if n != "large-fleet"])
def test_scenario_loads_and_is_deterministic(name):
    fx = build_scenario(name, seed=1)
    assert fx == build_scenario(name, seed=1)
    loaded = load_fixture(fx)
    assert all(valid_pod_id(p.id) and len(p.id) == 14 for p in loaded.pods)
    assert {p.account for p in loaded.pods} == {"team", "personal"}
    sim = SimServer(scenario=name, seed=1)
    assert sim.env()["RUNPOD_API_KEY_PERSONAL"] == "rk-personal-demo"


def test_unknown_scenario_is_named():
    with pytest.raises(ValueError, match="unknown scenario 'stormy'; known: calm, reaping-wave"):
        SimServer(scenario="stormy")


def test_large_fleet_is_generated_quickly_and_served_by_bisect():
    started = time.perf_counter()
    fx = build_scenario("large-fleet", seed=7)
    built = time.perf_counter()
    sim = SimServer(fixture=fx, seed=7)
    loaded = time.perf_counter()
    print(f"\nlarge-fleet: generated in {built - started:.2f} s, loaded in {loaded - built:.2f} s")
    assert (len(fx["experiments"]), len(fx["pods"]), len(fx["events"])) == (2000, 1000, 100_000)
    assert sim.state.event_count >= 100_000
    with sim:
        sim.clock.jump_to(3600)
        headers = {"Authorization": f"Bearer {sim.sagan_token}"}
        with httpx.Client(base_url=sim.base_url, headers=headers, timeout=30) as api:
            t0 = time.perf_counter()
            page = api.get("/api/events", params={"limit": 5000}).json()["events"]
            mid = page[-1]["createdAt"]
            more = api.get("/api/events", params={"since": mid, "limit": 5000}).json()["events"]
            t1 = time.perf_counter()
            exps = api.get("/api/experiments").json()["experiments"]
            pods = api.get("/api/pods").json()["pods"]
            t2 = time.perf_counter()
    print(f"large-fleet: 2 x 5000 events in {t1 - t0:.2f} s; 2000 experiments + {len(pods)} pods in {t2 - t1:.2f} s")
    assert len(page) == len(more) == 5000 and more[0]["id"] == page[-1]["id"]
    assert [e["createdAt"] for e in more] == sorted(e["createdAt"] for e in more)
    assert len(exps) == 2000 and len(pods) == 1000


def test_clock_jump_keeps_served_now_at_the_wall_clock(monkeypatch):
    from sagan_tui.sim import clock as clock_module

    wall = [1_800_000_000.0]  # the wall clock, stepped by the test: no load can move it
    monkeypatch.setattr(clock_module, "time", types.SimpleNamespace(time=lambda: wall[0]))
    clock = SimClock(speed=10)
    clock.jump_to(600)
    assert clock.now_t() == pytest.approx(600)
    assert clock.at(clock.now_t()).timestamp() == pytest.approx(wall[0])
    assert clock.at(0).timestamp() == pytest.approx(wall[0] - 60)  # 600 s at 10x is a minute
    assert clock.t_of(clock.at(123.5)) == pytest.approx(123.5)
    wall[0] += 6  # six wall seconds are a minute of scenario time, and served now is still the wall's
    assert clock.now_t() == pytest.approx(660)
    assert clock.at(clock.now_t()).timestamp() == pytest.approx(wall[0])


def test_the_simulator_imports_only_models_and_routes_from_the_package():
    import subprocess
    import sys

    code = ("import sys, sagan_tui.sim\n"
            "print(sorted(m for m in sys.modules if m.startswith('sagan_tui.') and not m.startswith('sagan_tui.sim')))\n"
            "print([m for m in ('runpod', 'textual', 'httpx') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == ("['sagan_tui.core', 'sagan_tui.core.models', 'sagan_tui.core.sources', "
                      "'sagan_tui.core.sources.routes', 'sagan_tui.wire', 'sagan_tui.wire.basics']")
    assert out[1] == "[]"
