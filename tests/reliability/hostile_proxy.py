"""A loopback proxy in front of the simulator that lies on cue: each lie rewrites one reply, then the truth again."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

import httpx
from starlette.requests import Request

from tests.reliability.stub_server import Reply, StubServer

Lie = Callable[[Any], Any]  # the true reply's decoded JSON -> what the panel is told (JSON, or a Reply)
NOT_FOUND = Reply.of({"title": "Not Found", "status": 404, "detail": "pod not found"}, 404)


@dataclass
class _Cue:
    path: str
    key: str | None  # the bearer key it is for (an account), or any
    lie: Lie
    times: int


class HostileProxy(StubServer):
    """Forwards every request to `upstream` (a SimServer) unchanged, except those a cue names.

    `proxy.lie("/v2/pods", lambda reply: {"pods": []}, key=team_key)` rewrites the next reply of
    that route for that key, once (`times`). `env()` is the simulator's, pointed here.
    """

    def __init__(self, upstream: Any) -> None:
        super().__init__()
        self.upstream = upstream
        self.cues: list[_Cue] = []
        self.told: list[tuple[str, str | None]] = []  # (path, key) of every reply that was a lie
        self._client = httpx.Client(base_url=upstream.base_url, timeout=30)

    def lie(self, path: str, lie: Lie, *, key: str | None = None, times: int = 1) -> None:
        self.cues.append(_Cue(path, key, lie, times))

    def env(self) -> dict[str, str]:  # type: ignore[override]
        env = dict(self.upstream.env())
        for name in ("SAGAN_BASE_URL", "RUNPOD_API_BASE_URL"):
            env[name] = self.base_url
        return env

    def stop(self) -> None:
        super().stop()
        self._client.close()

    def _cue_for(self, path: str, key: str | None) -> _Cue | None:
        for cue in self.cues:
            if cue.times > 0 and cue.path == path and cue.key in (None, key):
                return cue
        return None

    async def _answer(self, request: Request):  # type: ignore[override]
        body = await request.body()
        auth = request.headers.get("authorization", "")
        key = auth[7:] if auth.lower().startswith("bearer ") else None
        headers = {k: v for k, v in request.headers.items() if k.lower() in ("authorization", "content-type",
                                                                              "accept")}
        # A blocking call on the proxy's own server thread: the simulator serves on another.
        resp = self._client.request(request.method, request.url.path, params=request.query_params,
                                    content=body, headers=headers)
        cue = self._cue_for(request.url.path, key)
        # A pod's log is an event stream: its lies get and give the text, sent as a stream again.
        stream = resp.headers.get("content-type", "").startswith("text/event-stream")
        media = "text/event-stream" if stream else "application/json"
        if cue is None or resp.status_code >= 400:
            reply = Reply(resp.content, resp.status_code)
        else:
            cue.times -= 1
            self.told.append((request.url.path, key))
            told = cue.lie(resp.text if stream else resp.json())
            # A lie may be a whole reply (a false 404), or the JSON (text) to send with the true status.
            if isinstance(told, Reply):
                reply, media = told, "application/json"
            else:
                reply = Reply(told.encode() if stream else json.dumps(told).encode(), resp.status_code)
        from starlette.responses import Response

        return Response(reply.body, status_code=reply.status, media_type=media)


def half(reply: dict, key: str = "pods") -> dict:
    """The first half of a list reply's items."""
    items = reply[key]
    return {**reply, key: items[: len(items) // 2]}


def graphql_pods(lie: Callable[[list], list]) -> Lie:
    """A lie about a GraphQL reply's `myself.pods` (other queries pass as they are)."""
    def told(reply: dict) -> dict:
        myself = (reply.get("data") or {}).get("myself")
        if isinstance(myself, dict) and isinstance(myself.get("pods"), list):
            myself["pods"] = lie(myself["pods"])
        return reply
    return told


def made_up_id(i: int, prefix: str = "f4ke") -> str:
    """A pod id RunPod never gave: valid in form (14 lowercase letters and digits), unique per `i`."""
    return f"{prefix}{i:010d}"[-14:]


def twinned(reply: dict) -> dict:
    """Every pod listed twice: as it is, and under a made-up id with every other field the same."""
    pods = reply["pods"]
    return {**reply, "pods": [*pods, *({**p, "id": made_up_id(i, "tw1n")} for i, p in enumerate(pods))]}


def flooded(count: int) -> Lie:
    """The true list and `count` made-up RUNNING pods copied from its first pod (~1 KB each)."""
    def told(reply: dict) -> dict:
        model = {**reply["pods"][0], "desiredStatus": "RUNNING"}
        return {**reply, "pods": [*reply["pods"], *({**model, "id": made_up_id(i)} for i in range(count))]}
    return told


def duplicated(pod_id: str) -> Lie:
    """The true list with one pod's record given twice."""
    def told(reply: dict) -> dict:
        twice = [p for p in reply["pods"] if p["id"] == pod_id]
        return {**reply, "pods": [*reply["pods"], *twice]}
    return told


def sagan_row_lie(sim: Any, pod_id: str, **changes: Any) -> Lie:
    """A lie about Sagan's pod rows: the pod's true row as Sagan serves it now, with `changes`;
    `"now"` as a value is the time served now (what Sagan would stamp the change with)."""
    token = sim.sagan_token
    rows = httpx.get(f"{sim.base_url}/api/pods", headers={"Authorization": f"Bearer {token}"}).json()["pods"]
    served = sim.clock.at(sim.clock.now_t()).isoformat().replace("+00:00", "Z")
    row = next(r for r in rows if r["runpod_pod_id"] == pod_id)
    told = {**row, **{k: served if v == "now" else v for k, v in changes.items()}}
    return lambda reply: {"pods": [*(p for p in reply["pods"] if p["runpod_pod_id"] != pod_id), told]}
