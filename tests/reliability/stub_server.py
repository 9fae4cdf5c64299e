"""A loopback HTTP server that answers each route with whatever bytes a test sets: for fuzzing and hostile replies."""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

EMPTY_MYSELF = {"clientBalance": 10.0, "currentSpendPerHr": 0.0, "spendLimit": None, "underBalance": False,
                "pods": []}
DEFAULTS: dict[str, Any] = {
    "/api/health": {"ok": True, "version": "stub"},
    "/api/experiments": {"experiments": []},
    "/api/events": {"events": []},
    "/api/approval-requests": {"approvalRequests": []},
    "/api/pods": {"pods": []},
    "/graphql": {"data": {"myself": EMPTY_MYSELF}},
    "/v2/pods": {"pods": []},
    "/v2/catalog/gpus": {"gpus": []},
}


@dataclass
class Reply:
    """What one route answers: raw bytes (sent as they are), a status and headers."""

    body: bytes
    status: int = 200
    headers: dict[str, str] | None = None

    @classmethod
    def of(cls, body: Any, status: int = 200, headers: dict[str, str] | None = None) -> "Reply":
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        return cls(raw, status, headers)


@dataclass
class Stream:
    """A reply sent piece by piece as an async iterator yields it (a trickle, or a huge body made lazily)."""

    chunks: Callable[[], Any]  # called per request: an async iterator of bytes
    status: int = 200


Handler = Callable[[Request, bytes], Reply]


class StubServer:
    """`with StubServer() as s: s.set("/api/experiments", {...}); ...`; `s.env()` points the panel at it."""

    def __init__(self) -> None:
        self.replies: dict[str, Reply | Handler] = {}
        self.requests: list[tuple[str, str, str | None]] = []  # (method, path, bearer)
        self.port = 0
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self, token: str = "stub-sagan-token", keys: dict[str, str] | None = None,
            transport: str = "graphql") -> dict[str, str]:
        """`transport` for every account: graphql unless told, as the tests setting /graphql replies expect."""
        keys = keys or {"team": "rk-team-stub", "personal": "rk-personal-stub"}
        env = {"SAGAN_BASE_URL": self.base_url, "SAGAN_API_TOKEN": token, "RUNPOD_API_BASE_URL": self.base_url}
        env.update({f"RUNPOD_API_KEY_{name.upper()}": key for name, key in keys.items()})
        env.update({f"RUNPOD_TRANSPORT_{name.upper()}": transport for name in keys})
        return env

    def set(self, path: str, body: Any, status: int = 200, headers: dict[str, str] | None = None) -> None:
        self.replies[path] = body if callable(body) or isinstance(body, Stream) else Reply.of(body, status, headers)

    def reset(self) -> None:
        self.replies.clear()

    async def _answer(self, request: Request) -> Response:
        path = request.url.path
        auth = request.headers.get("authorization", "")
        self.requests.append((request.method, path, auth[7:] if auth.lower().startswith("bearer ") else None))
        body = await request.body()
        reply = self.replies.get(path)
        if isinstance(reply, Stream):
            return StreamingResponse(reply.chunks(), status_code=reply.status, media_type="application/json")
        if callable(reply):
            reply = reply(request, body)
        if reply is None:
            reply = Reply.of(DEFAULTS.get(path, {"error": "not_found", "message": f"no route {path}"}),
                             200 if path in DEFAULTS else 404)
        return Response(reply.body, status_code=reply.status, headers=reply.headers,
                        media_type="application/json")

    def start(self) -> "StubServer":
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        app = Starlette(routes=[Route("/{rest:path}", self._answer, methods=["GET", "POST"])])
        config = uvicorn.Config(app, log_config=None, log_level="warning", access_log=False, lifespan="off",
                                ws="none", timeout_graceful_shutdown=1)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, daemon=True,
                                        name=f"stub:{self.port}")
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("stub server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> "StubServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
