"""REST v2 against RunPod's published OpenAPI: what the simulator serves, and what the transport reads."""

from __future__ import annotations

import httpx
import pytest

from sagan_tui.core.sources.errors import AuthError, Forbidden, RateLimited
from sagan_tui.core.sources.runpod_rest import RestV2Transport

from .published import example, openapi, unpublished, validator

KEY = "rk-team-contract"
FIXTURE = {
    "accounts": {"team": {"api_key": KEY, "failures": [{"from": 500, "kind": "403"}]},
                 "personal": {"api_key": "rk-personal-contract"}},
    "pods": [
        {"id": "runningpod0001", "account": "team", "created_at": 0, "running_at": 5},
        {"id": "provisioning02", "account": "team", "created_at": 0, "running_at": 400},
        {"id": "reapedpod00003", "account": "team", "created_at": 0, "running_at": 5, "exited_at": 20,
         "exit_reason": "Exited by Runpod"},
        {"id": "stoppedpod0004", "account": "team", "created_at": 0, "running_at": 5, "stopped_at": 20},
        {"id": "communitypod05", "account": "team", "created_at": 0, "running_at": 5, "podType": "INTERRUPTABLE",
         "gpuCount": 4, "env": {"HF_TOKEN": "hf_x"}},
        {"id": "clustermember6", "account": "team", "created_at": 0, "running_at": 5, "cluster": "cluster_abc123"},
    ],
}


def _check(label: str, name: str, body) -> list[str]:
    problems = [f"{label}: {e.json_path}: {e.message}" for e in validator(name).iter_errors(body)]
    return problems + [f"{label}: {path} is not in RunPod's published {name}" for path in
                       unpublished(body, {"$ref": f"#/components/schemas/{name}"})]


def test_the_stored_definitions_name_their_source():
    src = openapi()["source"]
    assert (src["repository"], src["path"]) == ("runpod/docs", "api-reference-v2/openapi.json")
    assert len(src["commit"]) == 40 and src["openapi"].startswith("3.1")


def test_every_rest_reply_the_simulator_serves_is_a_published_shape(sim_factory):
    sim = sim_factory(fixture=FIXTURE)
    sim.clock.jump_to(60)
    replies: list[tuple[str, str, httpx.Response]] = []
    with httpx.Client(base_url=sim.base_url, headers={"Authorization": f"Bearer {KEY}"}) as c:
        replies.append(("list", "ListPodsResponse", c.get("/v2/pods")))
        listed = c.get("/v2/pods", params={"includeClusterPods": "true"})
        replies.append(("list with clusters", "ListPodsResponse", listed))
        for pod in listed.json()["pods"]:
            replies.append((f"get {pod['id']}", "Pod", c.get(f"/v2/pods/{pod['id']}")))
        replies.append(("get unknown", "ErrorResponse", c.get("/v2/pods/nosuchpod0000")))
        replies.append(("catalog", "ListGpuTypesResponse", c.get("/v2/catalog/gpus")))
        act = "/v2/pods/{}/action"
        replies.append(("stop", "Pod", c.post(act.format("runningpod0001"), json={"action": "stop"})))
        replies.append(("start", "Pod", c.post(act.format("stoppedpod0004"), json={"action": "start"})))
        replies.append(("restart", "Pod", c.post(act.format("communitypod05"), json={"action": "restart"})))
        replies.append(("stop a stopped pod", "ErrorResponse", c.post(act.format("reapedpod00003"),
                                                                        json={"action": "stop"})))
        replies.append(("bad action", "ErrorResponse", c.post(act.format("communitypod05"), json={"action": "x"})))
        terminated = c.post(act.format("provisioning02"), json={"action": "terminate"})
        replies.append(("no key", "ErrorResponse", c.get("/v2/pods", headers={"Authorization": "Bearer nope"})))
        sim.clock.jump_to(600)
        replies.append(("403 action", "ErrorResponse", c.post(act.format("communitypod05"), json={"action": "stop"})))
        for _ in range(61):  # the published policy's minute window: 60
            last = c.get("/v2/pods")
        replies.append(("rate limited", "ErrorResponse", last))
    statuses = {label: r.status_code for label, _, r in replies}
    assert statuses["list"] == statuses["stop"] == 200 and terminated.status_code == 204 and not terminated.content
    assert (statuses["get unknown"], statuses["stop a stopped pod"], statuses["bad action"]) == (404, 409, 422)
    assert (statuses["no key"], statuses["403 action"], statuses["rate limited"]) == (401, 403, 429)
    problems = [p for label, name, r in replies for p in _check(label, name, r.json())]
    assert not problems, "\n".join(problems)
    kinds = {p["status"] for p in listed.json()["pods"]}
    assert kinds == {"RUNNING", "PROVISIONING", "EXITED"}, kinds  # every published status the sim reaches here


def test_a_field_runpod_does_not_publish_fails_the_check():
    # The check itself can fail: the fields the simulator once served in `gpu` are not RunPod's.
    pod = {**example("/v2/pods/{id}", "get", "200"), "gpu": {"id": "A100", "count": 1, "vcpuCount": 16}}
    assert _check("pod", "Pod", pod) == ["pod: $.gpu.vcpuCount is not in RunPod's published Pod"]
    bad_status = {**pod, "gpu": {"id": "A100", "count": 1}, "status": "HIBERNATING"}
    assert any("HIBERNATING" in p for p in _check("pod", "Pod", bad_status))


@pytest.fixture
def stub():
    from tests.reliability.stub_server import StubServer

    with StubServer() as s:
        yield s


async def test_the_rest_transport_reads_the_published_examples(stub):
    stub.set("/v2/pods", example("/v2/pods", "get", "200"))
    stub.set("/v2/catalog/gpus", example("/v2/catalog/gpus", "get", "200"))
    stub.set("/v2/pods/7h9k2m4n6p", example("/v2/pods/{id}", "get", "200"))
    stub.set("/v2/pods/7h9k2m4n6p/action", example("/v2/pods/{id}/action", "post", "200"))
    t = RestV2Transport("team", KEY, base_url=stub.base_url, timeout=10.0)
    try:
        snap = await t.snapshot()
        (pod,) = snap.pods
        assert (pod.id, pod.name, pod.desired_status, pod.gpu, pod.gpu_count) == (
            "7h9k2m4n6p", "pytorch-training", "RUNNING", "RTX 4090", 1)
        assert (pod.datacenter, pod.cost_per_hr, pod.uptime_seconds, pod.has_runtime) == ("US-KS-2", 0.44, 3600, True)
        assert not snap.skipped and "MODEL_NAME" not in pod.model_dump_json()  # env never kept
        assert (await t.get_pod("7h9k2m4n6p")).id == "7h9k2m4n6p"
        assert (await t.stop("7h9k2m4n6p"))["data"]["podStop"]["desiredStatus"] == "RUNNING"
        for status, exc in (("401", AuthError), ("403", Forbidden), ("429", RateLimited)):
            stub.set("/v2/pods", example("/v2/pods", "get", status), status=int(status), headers={"Retry-After": "1"})
            with pytest.raises(exc) as err:
                await t.snapshot()
            assert err.value.status == int(status) and "HTTP " + status in err.value.message
            t._blocked_until = 0.0  # private: the 429 paused the transport; the next example must be sent
        stub.set("/v2/pods/abcdef123456", example("/v2/pods/{id}", "get", "404"), status=404)
        assert await t.get_pod("abcdef123456") is None
    finally:
        await t.aclose()
