"""The reaping-wave scenario replayed through the real runpod SDK and Sagan's routes."""

from __future__ import annotations

import httpx
import pytest

from sagan_tui.core.models import textbox_fields
from sagan_tui.sim.scenarios import reaping_wave as rw

ctl = pytest.importorskip("runpod.api.ctl_commands")

R5_SHORT = {"v0c7bx292xqvg4": "team", "m1ayhl6nsbxw04": "team", "j0xvy1q82ryo8m": "personal",
            "cv13x9s487tvwn": "personal"}
LONG_RUNNING = "lqpfpmbytlgded"
CONTROLS = {"j18eiux6ccekyj": "team", "f6n3kd9sa1qz4w": "personal"}


def _listed(sim, account: str) -> dict[str, dict]:
    return {p["id"]: p for p in ctl.get_pods(api_key=sim.account_keys[account])}


def test_r5_pods_vanish_about_60_s_after_running_in_both_accounts(sim_factory, monkeypatch):
    """Both accounts listed at every scenario second through R5, the clock held at each: the short
    pods vanish ~60 s after RUNNING, the long-running one in the same window, the controls stay.
    (Read in wall time at speed 10, a loop turn slowed by a busy machine dated a RUNNING late.)"""
    sim = sim_factory(scenario="reaping-wave")
    monkeypatch.setenv("RUNPOD_API_BASE_URL", sim.base_url)
    running_at: dict[str, float] = {}
    missing_at: dict[str, float] = {}
    t = rw.R5_RUNNING - 20
    while t < rw.R5_LOST + 25:
        sim.clock.hold(t)  # the simulator serves this scenario second until the next
        for account in ("team", "personal"):
            listed = _listed(sim, account)
            for pid in [p for p, a in {**R5_SHORT, LONG_RUNNING: "team"}.items() if a == account]:
                pod = listed.get(pid)
                if pod and pod["desiredStatus"] == "RUNNING":
                    running_at.setdefault(pid, t)
                elif pid in running_at and pod is None:
                    missing_at.setdefault(pid, t)
            assert all(c in listed for c, a in CONTROLS.items() if a == account)  # the controls survive
        t += 1.0
    assert set(missing_at) == {*R5_SHORT, LONG_RUNNING}
    gaps = {pid: missing_at[pid] - running_at[pid] for pid in R5_SHORT}
    assert all(55 <= g <= 65 for g in gaps.values()), gaps  # ~60 s, to the second listed
    assert {R5_SHORT[p] for p in gaps} == {"team", "personal"}
    assert rw.R5_LOST <= missing_at[LONG_RUNNING] <= rw.R5_LOST + 2  # the long-running pod dies in the same window


def test_r4_losses_fall_in_the_first_two_minutes(sim_factory, monkeypatch):
    sim = sim_factory(scenario="reaping-wave")
    monkeypatch.setenv("RUNPOD_API_BASE_URL", sim.base_url)
    siblings = {p[0] for p in rw.R4_LOST} | {rw.R4_SURVIVOR[0]}
    sim.clock.jump_to(60)
    listed = _listed(sim, "team")
    assert all(listed[p]["desiredStatus"] == "RUNNING" for p in siblings)
    assert listed["j18eiux6ccekyj"]["desiredStatus"] == "RUNNING"
    assert listed["be565kq7x4sybb"]["lastStatusChange"] == "Exited by user"  # stopped the night before
    sim.clock.jump_to(120)
    listed = _listed(sim, "team")
    assert siblings & set(listed) == {rw.R4_SURVIVOR[0]}
    assert ctl.get_pod("k3m8qz0v2xw7ta", api_key=sim.account_keys["team"]) is None
    # the recovery's re-dispatches come up and are lost too; then the survivor is stopped
    sim.clock.jump_to(220)
    recovery = {p[0] for p in rw.RECOVERY_LOST}
    assert recovery <= set(_listed(sim, "team"))
    sim.clock.jump_to(310)
    listed = _listed(sim, "team")
    assert not recovery & set(listed)
    assert listed[rw.R4_SURVIVOR[0]]["desiredStatus"] == "EXITED"
    assert sim.state.experiments[192].status_at(310) == "blocked"


def test_sagan_sees_the_losses_20_to_40_s_later(sim_factory):
    sim = sim_factory(scenario="reaping-wave")
    headers = {"Authorization": f"Bearer {sim.sagan_token}"}
    sim.clock.jump_to(rw.R5_LOST + 5)
    rows = {r["runpod_pod_id"]: r for r in httpx.get(sim.base_url + "/api/pods", headers=headers).json()["pods"]}
    assert rows["v0c7bx292xqvg4"]["status"] == "running"  # RunPod lost it; Sagan has not polled yet
    sim.clock.jump_to(rw.R5_LOST + 45)
    rows = {r["runpod_pod_id"]: r for r in httpx.get(sim.base_url + "/api/pods", headers=headers).json()["pods"]}
    for pid, account in {**R5_SHORT, LONG_RUNNING: "team"}.items():
        assert rows[pid]["status"] == "terminated"
        assert rows[pid]["last_error"] == f"Pod {pid} not found in account={account}"
    assert {rows[p]["experiment_number"] for p in R5_SHORT} == {192, 363, 333}
    assert all(rows[c]["status"] == "running" for c in CONTROLS)
    events = httpx.get(sim.base_url + "/api/events", headers=headers, params={"limit": 5000}).json()["events"]
    notes = {e["note"] for e in events if e["eventType"] == "runpod_status"}
    assert "Pod cv13x9s487tvwn not found in account=personal" in notes
    assert "Pod k3m8qz0v2xw7ta not found in account=team" in notes  # r4's, from earlier


def test_incident_end_state_blocker_and_balances(sim_factory, monkeypatch):
    sim = sim_factory(scenario="reaping-wave")
    monkeypatch.setenv("RUNPOD_API_BASE_URL", sim.base_url)
    headers = {"Authorization": f"Bearer {sim.sagan_token}"}
    sim.clock.jump_to(700)
    pending = httpx.get(sim.base_url + "/api/approval-requests", headers=headers,
                        params={"status": "pending"}).json()["approvalRequests"]
    by_exp = {a["experimentNumber"]: a for a in pending}
    assert textbox_fields(by_exp[192]["bodyMd"]) == ["runpod-team-audit-summary", "runpod-personal-audit-summary",
                                                      "owner-decision-redispatch-or-hold"]
    assert 20_000 <= len(by_exp[367]["bodyMd"]) <= 60_000
    view = httpx.get(sim.base_url + "/api/experiments/192", headers=headers).json()
    assert view["experiment"]["status"] == "blocked"
    assert {n: sim.state.experiments[n].status_at(700) for n in (363, 366, 333, 365)} == {
        363: "implementing", 366: "implementing", 333: "implementing", 365: "running"}
    from runpod.api.graphql import run_graphql_query

    q = "{ myself { clientBalance spendLimit pods { id machine { dataCenterId } } } }"
    team = run_graphql_query(q, api_key=sim.account_keys["team"])["data"]["myself"]
    personal = run_graphql_query(q, api_key=sim.account_keys["personal"])["data"]["myself"]
    assert (team["clientBalance"], team["spendLimit"], personal["clientBalance"]) == (412.5, 80, 35.0)
    assert {p["id"] for p in personal["pods"]} == {"f6n3kd9sa1qz4w"}
