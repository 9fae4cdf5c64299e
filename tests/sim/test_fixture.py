"""The fixture format: validation errors name the field path; defaults; the pod timeline kinds."""

from __future__ import annotations

import json

import httpx
import pytest

from sagan_tui.sim import FixtureError, SimServer, load_fixture
from sagan_tui.sim.ids import stable_uuid
from sagan_tui.sim.pods import detect_delay

POD = {"id": "abcdef123456xy", "account": "team", "created_at": 0, "running_at": 5}


def _pods(*extra: dict) -> dict:
    return {"pods": [dict(POD, id=f"pod{i:011d}") for i in range(3)] + list(extra)}


@pytest.mark.parametrize("fixture, message", [
    (_pods(dict(POD, running_at="soon")), "pods.3.running_at: Input should be a valid number"),
    ({}, "pods: Field required"),
    (_pods(dict(POD, lostAt=3)), "pods.3.lostAt: Extra inputs are not permitted"),
    (_pods(dict(POD, id="Not-A-Pod")), "pods.3.id: Value error, pod id must match"),
    (_pods(dict(POD, account="billing")), "pods.3.account: unknown account 'billing'"),
    (_pods(dict(POD, lost_at=9, stopped_at=9)), "pods.3: Value error, a pod ends one way only"),
    (_pods(dict(POD, created_at=10, running_at=5)), "running_at is before created_at"),
    ({**_pods(), "accounts": {"team": {"failures": [{"from": 1, "kind": "418"}]}}},
     "accounts.team.failures.0.kind: Input should be"),
    ({**_pods(), "events": [{"at": "x", "eventType": "note"}]}, "events.0.at: Input should be a valid number"),
    ({**_pods(), "experiments": [{"number": 5, "tags": "x"}]}, "experiments.0.tags: Input should be a valid list"),
])
def test_invalid_fixture_names_the_bad_field(fixture, message):
    with pytest.raises(FixtureError) as info:
        load_fixture(fixture)
    assert message in str(info.value)


def test_fixture_file_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    with pytest.raises(FixtureError, match="not JSON: line 1"):
        SimServer(fixture=bad)
    with pytest.raises(FixtureError, match="cannot read"):
        SimServer(fixture=tmp_path / "missing.json")


def test_defaults_for_a_pods_only_fixture(tmp_path):
    path = tmp_path / "f.json"
    path.write_text(json.dumps({"pods": [dict(POD, experiment=7)], "experiments": [{"number": 8}]}))
    sim = SimServer(fixture=path)
    assert set(sim.account_keys) == {"team", "personal"} and sim.sagan_token == "sagan-demo-token"
    e7, e8 = sim.state.experiments[7], sim.state.experiments[8]
    assert e8.id == stable_uuid("experiment", 8) and e8.status_at(0) == "proposed"
    dumped = sim.state.experiment_dump(e8, 0)
    assert (dumped["title"], dumped["turn"], dumped["createdAt"] <= dumped["updatedAt"]) == (
        "Experiment #8", "Sagan: clarify scope", True)
    assert e7.status_at(0) == "running"  # made up for the pod that names it
    assert SimServer(fixture=path).state.experiments[8].id == e8.id  # deterministic


def test_the_three_ways_a_pod_ends(sim_factory):
    fixture = {
        "experiments": [{"number": 1, "status": "running"}],
        "pods": [
            {"id": "lostpod0000001", "experiment": 1, "created_at": 0, "running_at": 5, "lost_at": 50},
            {"id": "reapedpod00001", "experiment": 1, "created_at": 0, "running_at": 5, "exited_at": 50,
             "exit_reason": "Exited by Runpod: host maintenance"},
            {"id": "stoppedpod0001", "experiment": 1, "created_at": 0, "running_at": 5, "stopped_at": 50},
        ],
    }
    sim = sim_factory(fixture=fixture)
    q = "{ myself { pods { id desiredStatus lastStatusChange } } }"
    headers = {"Authorization": f"Bearer {sim.account_keys['team']}"}

    def listed() -> dict:
        r = httpx.post(sim.base_url + "/graphql", json={"query": q}, headers=headers)
        return {p["id"]: (p["desiredStatus"], p["lastStatusChange"]) for p in r.json()["data"]["myself"]["pods"]}

    def rows() -> dict:
        r = httpx.get(sim.base_url + "/api/pods", headers={"Authorization": f"Bearer {sim.sagan_token}"})
        return {p["runpod_pod_id"]: (p["status"], p["last_error"]) for p in r.json()["pods"]}

    sim.clock.jump_to(30)
    assert {s for s, _ in listed().values()} == {"RUNNING"}
    sim.clock.jump_to(52)
    assert listed() == {"reapedpod00001": ("EXITED", "Exited by Runpod: host maintenance"),
                        "stoppedpod0001": ("EXITED", "Exited by user")}
    assert rows()["lostpod0000001"] == ("running", None)  # Sagan has not noticed yet
    assert rows()["stoppedpod0001"][0] == "stop_requested"
    sim.clock.jump_to(50 + 41)
    assert rows()["lostpod0000001"] == ("terminated", "Pod lostpod0000001 not found in account=team")
    assert rows()["stoppedpod0001"][0] == "stopped"
    assert rows()["reapedpod00001"][0] == "stopped"
    assert 20 <= detect_delay("lostpod0000001") <= 40
    assert sim.state.experiments[1].status_at(91) == "blocked"  # the stop cascades
