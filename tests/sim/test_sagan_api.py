"""Sagan's routes on the simulator, over httpx: reply shapes, errors, and state that changes."""

from __future__ import annotations

from datetime import datetime

import httpx
import pytest

from sagan_tui.core.models import ApprovalRequest, Experiment, PodLifecycle, WorkflowEvent, turn_for
from sagan_tui.sim.markers import KNOWN_MARKER_TYPES

APPROVAL = "a9c1e0d2-5b7f-4c33-9a10-203000000001"


@pytest.fixture
def api(calm_sim):
    with httpx.Client(base_url=calm_sim.base_url, headers={"Authorization": f"Bearer {calm_sim.sagan_token}"},
                      timeout=5) as client:
        yield client


def test_health_and_auth(calm_sim, api):
    assert api.get("/api/health").json()["ok"] is True
    for headers in ({}, {"Authorization": "Bearer wrong"}):
        r = httpx.get(calm_sim.base_url + "/api/experiments", headers=headers)
        assert r.status_code == 401 and r.json()["error"] == "unauthorized" and r.json()["message"]
    assert [r.account for r in calm_sim.requests] == ["sagan", None, None]


def test_list_leaves_out_heavy_fields_and_parses_as_experiments(api):
    exps = api.get("/api/experiments").json()["experiments"]
    assert len(exps) == 9
    for e in exps:
        assert not {"planMd", "body", "podSpec"} & set(e)
        parsed = Experiment.model_validate(e)
        assert parsed.turn == turn_for(parsed.status)
    assert {e["number"]: e["status"] for e in exps}[204] == "awaiting_promotion"


def test_view_gives_experiment_events_newest_first_and_approvals(api):
    view = api.get("/api/experiments/203").json()
    assert set(view) == {"experiment", "events", "approvalRequests"}
    assert view["experiment"]["podSpec"]["gpuType"] == "A100"
    times = [WorkflowEvent.model_validate(e).created_at for e in view["events"]]
    assert times == sorted(times, reverse=True) and all(e["experimentNumber"] == 203 for e in view["events"])
    [req] = view["approvalRequests"]
    assert ApprovalRequest.model_validate(req).textbox_fields == ["budget-cap-usd", "owner-notes"]
    assert 20_000 <= len(req["bodyMd"]) <= 60_000
    assert api.get("/api/experiments/999").status_code == 404
    assert api.get("/api/experiments/abc").json()["error"] == "not_found"


def test_status_change_shows_on_the_next_get(calm_sim, api):
    before = api.get("/api/experiments").json()["experiments"]
    stamp = max(e["updatedAt"] for e in before)
    r = api.post("/api/experiments/208/status", json={"status": "gate_pending", "note": "hold on"})
    assert r.json() == {"experiment": {"id": r.json()["experiment"]["id"], "status": "gate_pending",
                                       "title": "Activation steering for honesty",
                                       "turn": "Owner: resolve gate"}, "ok": True}
    changed = api.get("/api/experiments", params={"updatedSince": stamp}).json()["experiments"]
    assert all(e["updatedAt"] >= stamp for e in changed)  # inclusive: the newest old one comes again
    assert [e["number"] for e in changed if e["updatedAt"] > stamp] == [208]
    last = api.get("/api/experiments/208").json()["events"][0]
    assert (last["eventType"], last["fromStatus"], last["toStatus"], last["actorKind"], last["note"]) == (
        "state_changed", "proposed", "gate_pending", "owner", "hold on")
    [sent] = [r for r in calm_sim.requests if r.method == "POST"]
    assert (sent.path, sent.account, sent.body) == ("/api/experiments/208/status", "sagan",
                                                    {"status": "gate_pending", "note": "hold on"})
    assert api.post("/api/experiments/208/status", json={"status": "nope"}).status_code == 400


def test_markers(api):
    r = api.post("/api/experiments/201/markers", json={"marker": "epm:progress", "note": "n", "metadata": {"k": 1}})
    assert r.status_code == 200 and r.json()["ok"] is True
    newest = api.get("/api/experiments/201").json()["events"][0]
    assert (newest["id"], newest["eventType"], newest["metadata"]) == (r.json()["id"], "epm:progress", {"k": 1})
    bad = api.post("/api/experiments/201/markers", json={"marker": "epm:pod-dispatched"})
    assert bad.status_code == 400 and bad.json()["error"] == "unknown_marker_type"
    assert 'Marker "epm:pod-dispatched" is not in KNOWN_MARKER_TYPES' in bad.json()["message"]
    assert 40 <= len(KNOWN_MARKER_TYPES) <= 50
    assert api.post("/api/experiments/201/markers", content=b"{oops",
                    headers={"Content-Type": "application/json"}).status_code == 400


def test_launch_pod_needs_approval_then_dispatches(calm_sim, api):
    r = api.post("/api/experiments/208/launch-pod", json={"note": "go"})
    assert r.status_code == 409 and r.json()["error"] == "not_approved"
    api.post("/api/experiments/208/status", json={"status": "approved"})
    r = api.post("/api/experiments/208/launch-pod", json={"note": "go"})
    assert r.status_code == 200 and r.json()["ok"] is True and r.json()["agentRunId"]
    rows = [PodLifecycle.model_validate(p) for p in api.get("/api/pods").json()["pods"]]
    [row] = [p for p in rows if p.experiment_number == 208]
    assert row.status == "deploying" and row.account == "team" and len(row.runpod_pod_id) == 14
    assert api.get("/api/experiments/208").json()["experiment"]["status"] == "queued"
    calm_sim.clock.advance(13)
    rows = {p["runpod_pod_id"]: p for p in api.get("/api/pods").json()["pods"]}
    assert rows[row.runpod_pod_id]["status"] == "running"
    assert api.get("/api/experiments/208").json()["experiment"]["status"] == "running"
    pod = calm_sim.state.pods[row.runpod_pod_id].runpod_view(calm_sim.clock.now_t(), calm_sim.clock)
    assert pod["desiredStatus"] == "RUNNING"


def test_promote(api):
    assert api.post("/api/experiments/201/promote").status_code == 409
    r = api.post("/api/experiments/204/promote")
    assert r.json() == {"ok": True, "status": "shared"}
    assert api.get("/api/experiments/204").json()["experiment"]["status"] == "shared"


def test_events_feed_is_inclusive_oldest_first_and_limited(calm_sim, api):
    first = api.get("/api/events", params={"limit": 5}).json()["events"]
    assert len(first) == 5
    stamps = [e["createdAt"] for e in first]
    assert stamps == sorted(stamps)
    again = api.get("/api/events", params={"since": stamps[2], "limit": 3}).json()["events"]
    assert [e["id"] for e in again] == [e["id"] for e in first[2:5]]  # since is inclusive
    everything = api.get("/api/events", params={"limit": 100000}).json()["events"]
    assert len(everything) <= 5000
    now = datetime.fromisoformat(calm_sim.clock.at(calm_sim.clock.now_t()).isoformat())
    assert all(WorkflowEvent.model_validate(e).created_at <= now for e in everything)  # nothing from the future
    assert api.get("/api/events", params={"since": "yesterday"}).status_code == 400


def test_decision_with_textbox_answers(calm_sim, api):
    [pending] = api.get("/api/approval-requests", params={"status": "pending"}).json()["approvalRequests"]
    assert pending["id"] == APPROVAL and pending["experimentNumber"] == 203
    answers = {"budget-cap-usd": "40", "owner-notes": "keep it small"}
    r = api.post(f"/api/approval-requests/{APPROVAL}/decision",
                 json={"decision": "approve", "textboxAnswers": answers, "note": "ok"})
    assert r.status_code == 200 and r.json()["approvalRequest"]["status"] == "approved"
    assert api.get("/api/approval-requests", params={"status": "pending"}).json()["approvalRequests"] == []
    view = api.get("/api/experiments/203").json()
    assert view["experiment"]["status"] == "approved"
    marker = next(e for e in view["events"] if e["eventType"] == "epm:textbox-answers")
    assert marker["metadata"]["answers"] == answers and marker["actorKind"] == "owner"
    again = api.post(f"/api/approval-requests/{APPROVAL}/decision", json={"decision": "reject"})
    assert again.status_code == 409 and again.json()["error"] == "not_pending"
    assert api.post("/api/approval-requests/nope/decision", json={"decision": "approve"}).status_code == 404


def test_reject_blocks_the_experiment(api):
    r = api.post(f"/api/approval-requests/{APPROVAL}/decision", json={"decision": "reject"})
    assert r.json()["approvalRequest"]["status"] == "rejected"
    assert api.get("/api/experiments/203").json()["experiment"]["status"] == "blocked"
    assert api.post(f"/api/approval-requests/{APPROVAL}/decision", json={"decision": "maybe"}).status_code == 400


def test_pods_rows_are_snake_case_with_experiment_number(calm_sim, api):
    rows = api.get("/api/pods").json()["pods"]
    assert {r["runpod_pod_id"] for r in rows} == {"r7c2m9xk4q0wza", "h1b8x6tz3kq5ve", "q3z8w1nd6ym2ap",
                                                 "p9r2s5jc0ku8tl"}  # the untracked scratch pod is not Sagan's
    assert all(PodLifecycle.model_validate(r).experiment_number in (201, 202, 209) for r in rows)
    newest = max(r["updated_at"] for r in rows)
    assert {r["runpod_pod_id"] for r in api.get("/api/pods", params={"updatedSince": newest}).json()["pods"]} == {
        r["runpod_pod_id"] for r in rows if r["updated_at"] == newest}
