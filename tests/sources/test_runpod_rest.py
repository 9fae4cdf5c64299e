"""The REST v2 transport: parsing of v2 pods and RateLimit headers, and its errors over real loopback HTTP."""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from sagan_tui.core.models import RunPodPod
from sagan_tui.sim.rest_api import RateLimiter
from sagan_tui.core.sources.errors import (
    ApiRetired, AuthError, BadReply, Forbidden, RateLimited, RequestRejected, ServerError, SourceTimeout, Unreachable,
)
from sagan_tui.core.sources.runpod_rest import (
    RateWindow, RestV2Transport, flatten_rest_pod, map_status, parse_rate_limit,
)

KEY = "rk-team-secret-0123456789"
LIST = "/v2/pods?includeClusterPods=true"  # cluster members are GPU pods too: always asked for

# The Pod example of RunPod's v2 OpenAPI (listPods), with a secret in env as real pods have.
V2_POD = {
    "id": "7h9k2m4n6p", "name": "pytorch-training", "image": "runpod/pytorch:1.0.2-cu1281-torch280-ubuntu2404",
    "args": "", "disk": 50, "ports": ["8888/http", "22/tcp"], "env": {"HF_TOKEN": "hf_supersecret"},
    "registry": None, "status": "RUNNING", "actions": ["stop", "restart", "terminate"],
    "mounts": {"persistent": {"size": 20, "path": "/workspace"}},
    "gpu": {"id": "NVIDIA GeForce RTX 4090", "count": 1, "vcpuCount": 16, "memory": 64},
    "cloud": "SECURE", "dataCenterId": "US-KS-2", "cudaVersion": "12.8",
    "ssh": {"proxy": {"host": "ssh.runpod.io", "port": 22, "username": "7h9k2m4n6p-64411eb2",
                      "command": "ssh 7h9k2m4n6p-64411eb2@ssh.runpod.io"}, "direct": None},
    "template": "9x4m2p7v", "cost": 0.44, "locked": False, "globalNetworking": {"enabled": False},
    "runtime": {"uptime": 3600, "ports": []}, "createdAt": "2026-06-01T12:00:00Z", "startedAt": "2026-06-01T12:02:00Z",
}


# --- pure parsing ------------------------------------------------------------------------

def test_rate_limit_header_as_documented():
    got = parse_rate_limit('"minute";r=0;t=12, "hour";r=2800;t=1812, "day";r=49500;t=45012')
    assert got == {"minute": RateWindow("minute", 0, 12.0), "hour": RateWindow("hour", 2800, 1812.0),
                   "day": RateWindow("day", 49500, 45012.0)}


@pytest.mark.parametrize("value", [None, "", ",,", '"minute";r=x;t=', "garbage"])
def test_rate_limit_header_junk_never_raises(value):
    got = parse_rate_limit(value)
    assert all(w.remaining is None or isinstance(w.remaining, int) for w in got.values())


@pytest.mark.parametrize("rest, panel", [
    ("RUNNING", "RUNNING"), ("PROVISIONING", "CREATED"), ("STARTING", "CREATED"), ("EXITED", "EXITED"),
    ("ERROR", "DEAD"), ("TERMINATED", "TERMINATED"), ("HIBERNATING", "HIBERNATING"), ("running", "RUNNING"),
])
def test_status_mapping(rest, panel):
    assert map_status(rest) == panel


def test_only_running_maps_to_running():
    # A mapping slip here would turn every provisioning pod that fails into a fake loss.
    for status in ("PROVISIONING", "STARTING", "EXITED", "ERROR", "TERMINATED"):
        assert not RunPodPod.model_validate(flatten_rest_pod({**V2_POD, "status": status}, "team")).running


def test_v2_pod_flattens_onto_runpodpod_without_env_or_ssh():
    pod = RunPodPod.model_validate(flatten_rest_pod(V2_POD, "team", {"NVIDIA GeForce RTX 4090": "RTX 4090"}))
    assert (pod.id, pod.account, pod.name, pod.desired_status) == ("7h9k2m4n6p", "team", "pytorch-training", "RUNNING")
    assert (pod.uptime_seconds, pod.has_runtime, pod.cost_per_hr) == (3600, True, 0.44)
    assert (pod.gpu, pod.gpu_count, pod.datacenter) == ("RTX 4090", 1, "US-KS-2")
    assert pod.image_name == V2_POD["image"]
    assert pod.last_status_change is None and pod.pod_type is None and pod.adjusted_cost_per_hr is None
    dumped = json.dumps(pod.model_dump(mode="json"))
    assert "hf_supersecret" not in dumped and "ssh.runpod.io" not in dumped


def test_provisioning_pod_with_empty_runtime_has_no_runtime():
    raw = {**V2_POD, "status": "PROVISIONING", "runtime": {}, "startedAt": None}
    pod = RunPodPod.model_validate(flatten_rest_pod(raw, "team"))
    assert (pod.desired_status, pod.has_runtime, pod.uptime_seconds) == ("CREATED", False, None)
    assert pod.gpu == "NVIDIA GeForce RTX 4090"  # no catalog name: the type id, not nothing


# --- over loopback HTTP ------------------------------------------------------------------

class Canned:
    """A loopback HTTP server answering each path with a canned (status, headers, body), recording requests."""

    def __init__(self) -> None:
        self.routes: dict[tuple[str, str], tuple[int, dict[str, str], bytes] | float] = {}
        self.seen: list[tuple[str, str, dict[str, str], bytes]] = []
        self.released = threading.Event()  # ends every held line at close()
        canned = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                canned.seen.append((self.command, self.path, dict(self.headers), body))
                reply = canned.routes.get((self.command, self.path))
                if isinstance(reply, float):  # hold the line: a server that never answers
                    canned.released.wait(reply)
                    reply = (200, {}, b"{}")
                status, headers, payload = reply or (404, {"content-type": "text/plain"}, b"404 page not found")
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_DELETE = _answer

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.handle_error = lambda *a: None  # a client that gave up (the timeout test) is no error
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def json(self, method: str, path: str, body, status: int = 200, **headers: str) -> None:
        self.routes[(method, path)] = (status, {"content-type": "application/json", **headers},
                                       json.dumps(body).encode())

    def problem(self, method: str, path: str, status: int, title: str, detail: str, **headers: str) -> None:
        self.routes[(method, path)] = (status, {"content-type": "application/problem+json", **headers},
                                       json.dumps({"title": title, "status": status, "detail": detail}).encode())

    def close(self) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def canned():
    c = Canned()
    yield c
    c.close()


@pytest.fixture
async def rest(canned):
    t = RestV2Transport("team", KEY, base_url=canned.url + "/", timeout=1.0)
    yield t
    await t.aclose()


async def test_snapshot_reads_pods_names_gpus_and_sends_bearer(canned, rest):
    canned.json("GET", LIST, {"pods": [V2_POD, {**V2_POD, "id": "BAD/ID"}]},
                RateLimit='"minute";r=57;t=41, "hour";r=2990;t=1800')
    canned.json("GET", "/v2/catalog/gpus", {"gpus": [{"id": "NVIDIA GeForce RTX 4090", "name": "RTX 4090"}]})
    snap = await rest.snapshot()
    assert [p.id for p in snap.pods] == ["7h9k2m4n6p"] and snap.pods[0].gpu == "RTX 4090"
    assert len(snap.skipped) == 1 and "pods[1]" in snap.skipped[0]
    # No balance route answered here (a bare 404 page): the balance is n/a, the spend the running pods' cost.
    assert snap.balance is None and snap.balance_note.startswith("n/a") and snap.spend_per_hr == 0.44
    assert rest.rate_remaining == 57 and rest.rate_limit["hour"].remaining == 2990
    assert all(h.get("Authorization") == f"Bearer {KEY}" for _, _, h, _ in canned.seen)
    # The catalog is read once, not on every poll.
    await rest.snapshot()
    assert [p for _, p, _, _ in canned.seen].count("/v2/catalog/gpus") == 1


async def test_catalog_failure_keeps_the_type_id(canned, rest):
    canned.json("GET", LIST, {"pods": [V2_POD]})
    canned.problem("GET", "/v2/catalog/gpus", 500, "Internal Server Error", "boom")
    snap = await rest.snapshot()
    assert snap.pods[0].gpu == "NVIDIA GeForce RTX 4090"


@pytest.mark.parametrize("body", [{}, {"pods": None}, {"pods": {"id": "x"}}, [], "pods"])
async def test_a_reply_without_a_pod_list_is_never_no_pods(canned, rest, body):
    canned.json("GET", LIST, body)
    with pytest.raises(BadReply):
        await rest.snapshot()


async def test_truncated_json_is_bad_reply(canned, rest):
    canned.routes[("GET", LIST)] = (200, {"content-type": "application/json"}, b'{"pods": [{"id": "')
    with pytest.raises(BadReply) as err:
        await rest.snapshot()
    assert err.value.kind.value == "bad-json"


@pytest.mark.parametrize("status, exc, kind", [
    (401, AuthError, "401"), (403, Forbidden, "403-no-access"), (500, ServerError, "5xx"), (503, ServerError, "5xx"),
    (410, ApiRetired, "410-gone"), (422, RequestRejected, "4xx"),
])
async def test_problem_statuses_map_to_health_kinds(canned, rest, status, exc, kind):
    canned.problem("GET", LIST, status, "Oops", f"detail for {status}, key {KEY}")
    with pytest.raises(exc) as err:
        await rest.snapshot()
    assert err.value.kind.value == kind and err.value.status == status
    assert f"detail for {status}" in err.value.message
    assert KEY not in err.value.message and KEY not in str(err.value)


async def test_429_carries_retry_after_and_holds_further_requests(canned, rest):
    canned.problem("GET", LIST, 429, "Too Many Requests", "rate limit exceeded for the minute window",
                   **{"Retry-After": "12", "RateLimit": '"minute";r=0;t=12, "hour";r=100;t=900'})
    with pytest.raises(RateLimited) as err:
        await rest.snapshot()
    assert err.value.retry_after == 12.0 and err.value.kind.value == "429"
    sent = len(canned.seen)
    with pytest.raises(RateLimited) as again:
        await rest.snapshot()
    assert len(canned.seen) == sent, "a spent window must hold requests back, not earn more 429s"
    assert 0 < again.value.retry_after <= 12


async def test_429_without_retry_after_uses_the_spent_window(canned, rest):
    canned.problem("GET", LIST, 429, "Too Many Requests", "slow down",
                   RateLimit='"minute";r=0;t=7, "hour";r=5;t=900')
    with pytest.raises(RateLimited) as err:
        await rest.snapshot()
    assert err.value.retry_after == 7.0


async def test_a_server_that_never_answers_ends_in_a_timeout_after_one_request(canned):
    canned.routes[("GET", LIST)] = 600.0  # held until the test ends: only the client's 0.3 s can end it
    t = RestV2Transport("team", KEY, base_url=canned.url, timeout=0.3)
    try:
        # The outer guard only turns a hang into a clear failure; the timeout is the transport's.
        with pytest.raises(SourceTimeout) as err:
            await asyncio.wait_for(t.snapshot(), 60)
        assert KEY not in str(err.value)
        # No retries here (the poller's backoff owns that); the balance is asked beside the list.
        assert sorted((m, p) for m, p, _, _ in canned.seen) == sorted([("GET", LIST), ("GET", "/v2/billing/balance")])
    finally:
        await t.aclose()


async def test_unreachable():
    t = RestV2Transport("team", KEY, base_url="http://127.0.0.1:9", timeout=1.0)
    try:
        with pytest.raises(Unreachable) as err:
            await t.snapshot()
        assert KEY not in str(err.value)
    finally:
        await t.aclose()


async def test_get_pod_404_problem_is_none_but_a_bare_404_is_an_error(canned, rest):
    canned.problem("GET", "/v2/pods/abcdef123456", 404, "Not Found", "pod not found")
    assert await rest.get_pod("abcdef123456") is None
    # No problem body: the base URL is wrong, which must not read as "the pod is gone".
    with pytest.raises(RequestRejected):
        await rest.get_pod("zzzzzz999999")


async def test_get_pod_reads_one(canned, rest):
    canned.json("GET", "/v2/pods/7h9k2m4n6p", {**V2_POD, "status": "EXITED", "runtime": None, "cost": 0.0})
    pod = await rest.get_pod("7h9k2m4n6p")
    assert pod is not None and pod.desired_status == "EXITED" and not pod.has_runtime


@pytest.mark.parametrize("bad", ["../v2/pods", "abc", "ABCDEF123456", "abcdef123456/action", "", None, 123])
async def test_bad_pod_ids_never_reach_a_url(canned, rest, bad):
    for call in (rest.get_pod, rest.stop, rest.resume, rest.terminate):
        with pytest.raises(ValueError):
            await call(bad)
    assert canned.seen == []


async def test_actions_post_v2_action_bodies_and_reply_like_graphql(canned, rest):
    canned.json("POST", "/v2/pods/7h9k2m4n6p/action", {**V2_POD, "status": "EXITED", "runtime": None})
    assert await rest.stop("7h9k2m4n6p") == {"data": {"podStop": {"id": "7h9k2m4n6p", "desiredStatus": "EXITED"}}}
    canned.json("POST", "/v2/pods/7h9k2m4n6p/action", {**V2_POD, "status": "STARTING"})
    assert (await rest.resume("7h9k2m4n6p", 1))["data"]["podResume"]["desiredStatus"] == "CREATED"
    canned.routes[("POST", "/v2/pods/7h9k2m4n6p/action")] = (204, {}, b"")
    assert await rest.terminate("7h9k2m4n6p") == {"data": {"podTerminate": None}}
    bodies = [json.loads(b) for m, _, _, b in canned.seen if m == "POST"]
    assert bodies == [{"action": "stop"}, {"action": "start"}, {"action": "terminate"}]


async def test_action_refused_for_status_is_a_rejection(canned, rest):
    canned.problem("POST", "/v2/pods/7h9k2m4n6p/action", 409, "Conflict", "action stop not valid for EXITED")
    with pytest.raises(RequestRejected) as err:
        await rest.stop("7h9k2m4n6p")
    assert err.value.status == 409 and "not valid for EXITED" in err.value.message


def test_empty_key_is_refused():
    with pytest.raises(ValueError):
        RestV2Transport("team", "  ", base_url="http://127.0.0.1:1")


# --- against the simulator's v2 routes ---------------------------------------------------
SIM_FIXTURE = {
    "accounts": {"team": {"api_key": "rk-team-x"}, "personal": {"api_key": "rk-personal-x"}},
    "experiments": [{"number": 192, "title": "a", "status": "running", "runpodAccount": "team"}],
    "pods": [
        {"id": "v0c7bx292xqvg4", "account": "team", "experiment": 192, "created_at": 0, "running_at": 5,
         "env": {"HF_TOKEN": "hf_simsecret"}},
        {"id": "p3ndingpod0001", "account": "team", "created_at": 0, "running_at": 500},
        {"id": "j0xvy1q82ryo8m", "account": "personal", "created_at": 0, "running_at": 5},
    ],
}


@pytest.fixture
async def sim_rest(sim_factory):
    sim = sim_factory(fixture=SIM_FIXTURE)
    sim.clock.jump_to(60)
    sim.clock.hold(60)  # scenario time stands still: the uptime served does not grow with load
    t = RestV2Transport("team", "rk-team-x", base_url=sim.base_url, timeout=2.0)
    yield sim, t
    await t.aclose()


async def test_sim_serves_v2_pods_with_rate_limit_headers(sim_rest):
    sim, rest = sim_rest
    snap = await rest.snapshot()
    by_id = {p.id: p for p in snap.pods}
    assert set(by_id) == {"v0c7bx292xqvg4", "p3ndingpod0001"}  # the key picks the account
    assert by_id["v0c7bx292xqvg4"].running and by_id["v0c7bx292xqvg4"].uptime_seconds == 55
    assert by_id["p3ndingpod0001"].desired_status == "CREATED" and not by_id["p3ndingpod0001"].has_runtime
    first = rest.rate_remaining
    await rest.snapshot()
    # The second poll reads the list alone: the balance is read at most every BALANCE_EVERY_S.
    assert first is not None and rest.rate_remaining == first - 1
    assert "hf_simsecret" not in json.dumps([p.model_dump(mode="json") for p in snap.pods])


async def test_sim_actions_round_trip_and_graphql_sees_them(sim_rest):
    from sagan_tui.core.sources.runpod_graphql import GraphQLTransport

    sim, rest = sim_rest
    assert (await rest.stop("v0c7bx292xqvg4"))["data"]["podStop"]["desiredStatus"] == "EXITED"
    gql = GraphQLTransport("team", "rk-team-x", base_url=sim.base_url, timeout=5.0)
    assert (await gql.get_pod("v0c7bx292xqvg4")).desired_status == "EXITED"
    with pytest.raises(RequestRejected) as err:  # v2 refuses a stop of an EXITED pod
        await rest.stop("v0c7bx292xqvg4")
    assert err.value.status == 409
    assert (await rest.resume("v0c7bx292xqvg4"))["data"]["podResume"]["desiredStatus"] == "RUNNING"
    assert await rest.terminate("v0c7bx292xqvg4") == {"data": {"podTerminate": None}}
    assert await rest.get_pod("v0c7bx292xqvg4") is None and await gql.get_pod("v0c7bx292xqvg4") is None
    posts = [r.body for r in sim.requests if r.api == "rest" and r.method == "POST"]
    assert posts == [{"action": "stop"}, {"action": "stop"}, {"action": "start"}, {"action": "terminate"}]


async def test_sim_another_accounts_pod_is_not_found(sim_rest):
    _sim, rest = sim_rest
    assert await rest.get_pod("j0xvy1q82ryo8m") is None
    with pytest.raises(RequestRejected) as err:
        await rest.stop("j0xvy1q82ryo8m")
    assert err.value.status == 404


async def test_sim_validates_action_bodies(sim_rest):
    import httpx

    sim, _ = sim_rest
    headers = {"Authorization": "Bearer rk-team-x"}
    async with httpx.AsyncClient(base_url=sim.base_url, headers=headers) as c:
        for body in ({"action": "reset"}, {"action": "stop", "extra": 1}, {}):
            r = await c.post("/v2/pods/v0c7bx292xqvg4/action", json=body)
            assert r.status_code == 422 and r.headers["content-type"].startswith("application/problem+json")
        r = await c.get("/v2/pods", headers={"Authorization": "Bearer nope"})
        assert r.status_code == 401 and r.json()["status"] == 401


def test_rate_limiter_counts_windows_and_refuses_past_the_quota():
    limiter = RateLimiter((("minute", 3, 60), ("hour", 100, 3600)))
    now = 3600 * 10 + 5.0  # 5 s into a minute and an hour
    got = [limiter.take("team", now) for _ in range(4)]
    assert [ok for ok, _ in got] == [True, True, True, False]
    assert parse_rate_limit(got[0][1]["RateLimit"]) == {"minute": RateWindow("minute", 2, 55.0),
                                                        "hour": RateWindow("hour", 99, 3595.0)}
    assert parse_rate_limit(got[2][1]["RateLimit"])["minute"].remaining == 0
    assert got[3][1]["Retry-After"] == "55" and "Retry-After" not in got[2][1]
    assert limiter.take("personal", now)[0], "quotas are per account"
    assert limiter.take("team", now + 60)[0], "a new minute window"
