"""RunPod's REST v2 (the pods, GPU-catalog, billing and audit-log subset of its reference) over the same
simulated state as GraphQL (billing, audit log and pagination: rest_billing.py).

Shapes follow runpod/docs api-reference-v2/openapi.json: `GET /v2/pods` -> `{"pods": [Pod]}`,
`GET|DELETE /v2/pods/{id}`, `GET /v2/pods/{id}/logs` (pod_logs.py), `POST /v2/pods/{id}/action` (start|stop|restart|terminate, 409 when
the pod's status does not allow it), `GET /v2/catalog/gpus`; errors are RFC 9457 problems; every
authenticated reply carries `RateLimit` / `RateLimit-Policy`, and a spent window answers 429 with
`Retry-After`. Scheduled faults come from the server's guard, as for the other APIs.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any, Awaitable, Callable

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from sagan_tui.core.models import iso

from . import actions
from .catalog import GPU_TYPES
from .faults import error_response
from .ids import stable_int
from .pod_logs import MAX_TAIL, logs_response
from .pods import SimPod
from .rest_billing import audit_logs, balance, page_of, pod_billing
from .state import SimState

PREFIX = "/v2"
LAST_EVENT_ID = "\0last-event-id"  # a params key no query string can hold
ACTIONS = ("start", "stop", "restart", "terminate")
# Which actions each status allows (the `actions` field of a v2 Pod).
ALLOWED = {
    "RUNNING": ("stop", "restart", "terminate"),
    "EXITED": ("start", "terminate"), "ERROR": ("start", "terminate"),
    "PROVISIONING": ("stop", "terminate"), "STARTING": ("stop", "terminate"),
}
# The policy of the OpenAPI's example: (window, quota, seconds).
POLICY = (("minute", 60, 60), ("hour", 3000, 3600), ("day", 50000, 86400))

Run = Callable[[Any, str, float], Response]
Guard = Callable[[Request, str, Run], Awaitable[Response]]


def problem(status: int, detail: str, headers: dict[str, str] | None = None) -> Response:
    return error_response("rest", status, "", detail, headers)


def rest_status(pod: SimPod, t: float) -> str | None:
    """The v2 status of a pod at t (None once gone): GraphQL's CREATED is v2's PROVISIONING."""
    st = pod.runpod_state(t)
    if st is None:
        return None
    status = st["status"]
    if status == "RUNNING":
        return "RUNNING" if st.get("since") is not None else "STARTING"
    return {"CREATED": "PROVISIONING", "EXITED": "EXITED", "DEAD": "ERROR"}.get(status, status)


def rest_view(pod: SimPod, t: float, state: SimState) -> dict[str, Any] | None:
    """The pod as v2's `Pod` schema serves it; GraphQL's view of the same moment is pod.runpod_view."""
    status = rest_status(pod, t)
    if status is None:
        return None
    s, clock, marks = pod.spec, state.clock, pod.marks
    since = pod.runpod_state(t).get("since")  # type: ignore[union-attr]
    rate = s.adjusted_cost_per_hr or s.cost_per_hr  # v2's `cost` is the rate actually billed
    runtime = None
    if status == "RUNNING":
        gpus, cpu, ram = pod.load(t)
        runtime = {
            "uptime": int(clock.wall_seconds(since, t)),
            "gpus": [{"util": util, "memoryUtil": mem} for util, mem in gpus],
            "cpu": {"util": cpu},
            "memory": {"util": ram},
            "ports": [{"private": 22, "public": marks.ssh_port, "type": "tcp", "ip": marks.ip}],
        }
    proxy = f"{s.id}-{marks.host}"
    view = {
        "id": s.id, "name": s.name or s.id, "image": s.image_name, "args": s.docker_args,
        "disk": s.container_disk_in_gb, "ports": ["22/tcp", "8888/http"], "env": dict(s.env), "registry": None,
        "status": status, "actions": list(ALLOWED.get(status, ("terminate",))),
        "mounts": {"persistent": {"size": s.volume_in_gb, "path": "/workspace"}},
        "gpu": {"id": s.gpu, "count": s.gpu_count},
        "cloud": "COMMUNITY" if s.pod_type == "INTERRUPTABLE" else "SECURE",
        "dataCenterId": s.datacenter, "cudaVersion": "12.4",
        "ssh": {"proxy": {"host": "ssh.runpod.io", "port": 22, "username": proxy,
                          "command": f"ssh {proxy}@ssh.runpod.io"}, "direct": None},
        "template": None, "cost": 0.0 if status == "EXITED" else rate, "locked": False,
        "globalNetworking": {"enabled": False}, "runtime": runtime,
        "createdAt": iso(clock.at(s.created_at)), "startedAt": iso(clock.at(since)) if since is not None else None,
    }
    if s.cluster is not None:
        view["cluster"] = {"id": s.cluster, "rank": stable_int(0, 7, "rank", s.id)}
    return view


class RateLimiter:
    """Fixed wall-clock windows per account, as the RateLimit headers describe them."""

    def __init__(self, policy: tuple[tuple[str, int, int], ...] = POLICY) -> None:
        self.policy = policy
        self._counts: dict[tuple[str, str, int], int] = {}
        self._lock = threading.Lock()

    def take(self, account: str, now: float | None = None) -> tuple[bool, dict[str, str]]:
        """Count one request; (allowed, headers). A refused request does not use up quota."""
        now = time.time() if now is None else now
        with self._lock:
            state = []
            for name, quota, window in self.policy:
                start = int(now // window)
                used = self._counts.get((account, name, start), 0)
                state.append((name, quota, window, start, used, (start + 1) * window - now))
            allowed = all(used < quota for _, quota, _, _, used, _ in state)
            if allowed:
                for name, _, _, start, _, _ in state:
                    self._counts[(account, name, start)] = self._counts.get((account, name, start), 0) + 1
            members, waits = [], []
            for name, quota, _, _, used, left in state:
                remaining = max(0, quota - used - (1 if allowed else 0))
                members.append(f'"{name}";r={remaining};t={math.ceil(left)}')
                if remaining == 0:
                    waits.append(math.ceil(left))
        headers = {"RateLimit": ", ".join(members),
                   "RateLimit-Policy": ", ".join(f'"{n}";q={q};w={w}' for n, q, w in self.policy)}
        if not allowed:
            headers["Retry-After"] = str(max(waits))
        return allowed, headers


def rest_routes(state: SimState, guarded: Guard) -> list[Route]:
    """The v2 routes, each behind the server's guard (request log, latency, faults, bearer key)."""
    per_minute = getattr(state, "rest_per_minute", None)
    limiter = RateLimiter(POLICY if per_minute is None else (("minute", per_minute, 60), *POLICY[1:]))

    def route(path: str, method: str, handler: Callable[[SimState, str, dict[str, str], Any, float], Response]):
        async def endpoint(request: Request) -> Response:
            def run(body: Any, account: str, t: float) -> Response:
                # Windows of scenario time, as every fault is: at --speed 100 a panel polling
                # every 0.5 s asks once per 50 scenario seconds, and a held clock steps them.
                allowed, headers = limiter.take(account, t)
                if not allowed:
                    return problem(429, "rate limit exceeded for the minute window", headers)
                params = {**request.query_params, **request.path_params}
                if "last-event-id" in request.headers:  # an SSE client resuming a pod's log
                    params[LAST_EVENT_ID] = request.headers["last-event-id"]
                with state.lock:
                    response = handler(state, account, params, body, t)
                response.headers.update(headers)
                return response
            return await guarded(request, "rest", run)
        return Route(PREFIX + path, endpoint, methods=[method])

    return [
        route("/pods", "GET", _list_pods),
        route("/pods/{id}", "GET", _get_pod),
        route("/pods/{id}", "DELETE", _delete_pod),
        route("/pods/{id}/action", "POST", _pod_action),
        route("/pods/{id}/logs", "GET", _pod_logs),
        route("/catalog/gpus", "GET", _gpu_catalog),
        route("/billing/balance", "GET", balance),
        route("/billing/pods", "GET", pod_billing),
        route("/audit-logs", "GET", audit_logs),
    ]


def _list_pods(state: SimState, account: str, params: dict[str, str], _body: Any, t: float) -> Response:
    # Instant Cluster members only when asked for, as RunPod's listPods documents.
    clusters = params.get("includeClusterPods", "").lower() == "true"
    views = (rest_view(p, t, state) for p in state.account_pods(account, t) if clusters or p.spec.cluster is None)
    listed = [v for v in views if v is not None]
    return page_of(state, account, listed, params, t) or JSONResponse({"pods": listed})


def _own_pod(state: SimState, account: str, pod_id: str, t: float) -> SimPod | None:
    # Another account's pod is "not found", exactly as for a key that does not own it.
    pod = state.pods.get(pod_id)
    return pod if pod is not None and pod.spec.account == account and rest_status(pod, t) else None


def _get_pod(state: SimState, account: str, params: dict[str, str], _body: Any, t: float) -> Response:
    pod = _own_pod(state, account, params["id"], t)
    if pod is None:
        return problem(404, "pod not found")
    return JSONResponse(rest_view(pod, t, state))


def _pod_logs(state: SimState, account: str, params: dict[str, str], _body: Any, t: float) -> Response:
    pod = state.pods.get(params["id"])
    if pod is None or pod.spec.account != account or t < pod.spec.created_at:
        return problem(404, "pod not found")
    reply = logs_response(state, pod, params, params.get(LAST_EVENT_ID), t)
    return reply or problem(422, f"Request validation failed: source is system|container, tail 1..{MAX_TAIL}")


def _delete_pod(state: SimState, account: str, params: dict[str, str], _body: Any, t: float) -> Response:
    return _pod_action(state, account, params, {"action": "terminate"}, t)


def _pod_action(state: SimState, account: str, params: dict[str, str], body: Any, t: float) -> Response:
    if not isinstance(body, dict) or set(body) != {"action"} or body.get("action") not in ACTIONS:
        return problem(422, 'Request validation failed: the body must be {"action": "start|stop|restart|terminate"}')
    pod = _own_pod(state, account, params["id"], t)
    if pod is None:
        return problem(404, "pod not found")
    action, status = body["action"], rest_status(pod, t)
    if action not in ALLOWED.get(status or "", ()):
        return problem(409, f"action {action} is not valid for a pod in status {status}")
    try:
        if action == "terminate":
            actions.terminate_pod(state, account, pod.spec.id, t)
            return Response(status_code=204)
        if action == "stop":
            actions.stop_pod(state, account, pod.spec.id, t)
        elif action == "start":
            actions.resume_pod(state, account, pod.spec.id, t)
        else:  # restart: the container starts again in place, so its uptime starts again
            state.record_intents(pod.run_from(t, note="RunPod pod restarted."), pod)
    except actions.ActionError as exc:
        return problem(exc.status, exc.message)
    return JSONResponse(rest_view(pod, t, state))


def _gpu_catalog(state: SimState, _account: str, _params: dict[str, str], _body: Any, _t: float) -> Response:
    # The sim names a GPU by one string on both APIs (GraphQL's gpuDisplayName is the type id),
    # so the catalog maps each id to itself, including GPUs only a fixture mentions.
    types = dict(GPU_TYPES)
    for pod in state.pods.values():
        types.setdefault(pod.spec.gpu, (80, pod.spec.cost_per_hr))
    return JSONResponse({"gpus": [{
        "id": name, "name": name, "pool": None, "manufacturer": "NVIDIA", "memory": vram, "secure": True,
        "community": True, "price": {"secure": price, "community": round(price * 0.8, 2)},
        "maxCount": {"secure": 8, "community": 4},
    } for name, (vram, price) in types.items()]})
