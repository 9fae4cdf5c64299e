"""Scheduled failures: each kind is observable on each API, and a held request never blocks shutdown."""

from __future__ import annotations

import json
import threading

import httpx
import pytest

from sagan_tui.sim.scenarios import build_scenario
from tests.harness import wait_until

WINDOWS = {"401": 100, "429": 110, "500": 120, "bad-json": 130, "timeout": 140, "410": 150}
FAILURES = [{"from": start, "to": start + 10, "kind": kind} for kind, start in WINDOWS.items()]
FIXTURE = {
    "sagan": {"token": "tok-sagan", "failures": FAILURES},
    "accounts": {"team": {"api_key": "k-team", "failures": FAILURES}, "personal": {"api_key": "k-personal"}},
    "experiments": [{"number": 1, "status": "running", "runpodAccount": "team"}],
    "pods": [{"id": "abcdef123456xy", "account": "team", "experiment": 1, "created_at": 0, "running_at": 1}],
}
CALLS = {  # api -> (method, path, key, json body)
    "sagan": ("GET", "/api/experiments", "tok-sagan", None),
    "graphql": ("POST", "/graphql", "k-team", {"query": "{ myself { pods { id } } }"}),
    "rest": ("GET", "/v2/pods", "k-team", None),
}


def _call(sim, api: str, timeout: float = 5.0) -> httpx.Response:
    method, path, key, body = CALLS[api]
    return httpx.request(method, sim.base_url + path, json=body, headers={"Authorization": f"Bearer {key}"},
                         timeout=timeout)


@pytest.fixture
def sim(sim_factory):
    return sim_factory(fixture=FIXTURE)


@pytest.mark.parametrize("api", list(CALLS))
def test_each_kind_on_each_api(sim, api):
    sim.clock.jump_to(50)
    assert _call(sim, api).status_code == 200
    sim.clock.jump_to(WINDOWS["401"] + 1)
    assert _call(sim, api).status_code == 401
    sim.clock.jump_to(WINDOWS["429"] + 1)
    r = _call(sim, api)
    assert r.status_code == 429 and r.headers["Retry-After"] == "2"
    sim.clock.jump_to(WINDOWS["500"] + 1)
    assert _call(sim, api).status_code == 500
    sim.clock.jump_to(WINDOWS["bad-json"] + 1)
    r = _call(sim, api)
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    with pytest.raises(json.JSONDecodeError):
        json.loads(r.content)
    sim.clock.jump_to(WINDOWS["timeout"] + 1)
    with pytest.raises(httpx.ReadTimeout):  # the client's own 0.4 s: the simulator holds for a minute
        _call(sim, api, timeout=0.4)
    assert sim.requests[-1].status is None, "the simulator must still be holding the timed-out request"
    sim.clock.jump_to(WINDOWS["410"] + 1)
    r = _call(sim, api)
    if api == "graphql":  # GraphQL's retirement; REST v2 and Sagan keep answering
        assert r.status_code == 410
        assert r.json() == {"errors": [{"message": "This API has been retired (410 Gone). Use the REST v2 API."}]}
    else:
        assert r.status_code == 200
    sim.clock.jump_to(200)
    assert _call(sim, api).status_code == 200
    statuses = [r.status for r in sim.requests]
    assert statuses[:4] == [200, 401, 429, 500]


def test_the_sdk_sees_401_and_bad_json(sim, monkeypatch):
    from runpod import error as rp_error
    from runpod.api import ctl_commands

    monkeypatch.setenv("RUNPOD_API_BASE_URL", sim.base_url)
    sim.clock.jump_to(WINDOWS["401"] + 1)
    with pytest.raises(rp_error.AuthenticationError):
        ctl_commands.get_pods(api_key="k-team")
    assert [p["id"] for p in ctl_commands.get_pods(api_key="k-personal")] == []  # the other account is fine
    sim.clock.jump_to(WINDOWS["bad-json"] + 1)
    with pytest.raises(ValueError):  # requests' JSONDecodeError
        ctl_commands.get_pods(api_key="k-team")


def test_a_held_timeout_does_not_hold_up_shutdown(sim):
    sim.clock.jump_to(WINDOWS["timeout"] + 1)
    outcome: list[object] = []

    def call() -> None:
        try:
            outcome.append(_call(sim, "graphql", timeout=30).status_code)
        except httpx.HTTPError as exc:
            outcome.append(type(exc).__name__)

    caller = threading.Thread(target=call)
    caller.start()
    wait_until(lambda: sim.requests and sim.requests[-1].path == "/graphql", "the request to reach the simulator")
    server = sim._thread  # private on purpose: that the server's own thread ends is this test's rule
    sim.stop()
    # The outer guard only turns a hang into a clear failure: a held reply that stop() did not
    # release would end in the client's 30 s ReadTimeout, or be cut by uvicorn's shutdown.
    caller.join(25)
    assert not caller.is_alive(), "the held request was not released by stop()"
    assert outcome == [504], outcome  # answered by the released hold, not cut off nor timed out
    assert server is not None and not server.is_alive()


def test_latency_is_added_to_every_reply(sim_factory):
    # A latency past the client's timeout holds the reply back (no clock is read here); per API
    # it holds only that API's replies.
    sim = sim_factory(scenario="calm", latency=60)
    health = sim.base_url + "/api/health"
    with pytest.raises(httpx.ReadTimeout):
        httpx.get(health, headers={"Authorization": f"Bearer {sim.sagan_token}"}, timeout=0.3)
    assert sim.requests[-1].status is None
    sim.latency, sim.api_latency["graphql"] = 0.0, 60
    assert httpx.get(health, headers={"Authorization": f"Bearer {sim.sagan_token}"}).status_code == 200
    with pytest.raises(httpx.ReadTimeout):
        _graphql(sim, "team", timeout=0.3)


def test_auth_revoked_turns_the_personal_key_at_60_s(sim_factory):
    sim = sim_factory(scenario="auth-revoked")
    sim.clock.jump_to(30)
    assert _graphql(sim, "personal").status_code == 200
    sim.clock.jump_to(61)
    assert _graphql(sim, "personal").status_code == 401
    assert _graphql(sim, "team").status_code == 200


def _graphql(sim, account: str, timeout: float = 5.0) -> httpx.Response:
    return httpx.post(sim.base_url + "/graphql", json={"query": "{ myself { id } }"},
                      headers={"Authorization": f"Bearer {sim.account_keys[account]}"}, timeout=timeout)


def test_flaky_schedules_cover_every_source_with_good_gaps():
    fx = build_scenario("flaky", seed=3)
    schedules = {"sagan": fx["sagan"]["failures"], **{a: v["failures"] for a, v in fx["accounts"].items()}}
    assert set(schedules) == {"sagan", "team", "personal"}
    for source, windows in schedules.items():
        assert {w["kind"] for w in windows} == {"timeout", "500", "429", "bad-json"}, source
        assert all(10 <= w["to"] - w["from"] <= 30 for w in windows)
        assert all(b["from"] - a["to"] >= 20 for a, b in zip(windows, windows[1:]))
    assert build_scenario("flaky", seed=3) == fx  # deterministic from the seed
