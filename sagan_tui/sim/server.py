"""SimServer: both APIs on one loopback port, run by uvicorn in a background thread."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from sagan_tui.core.sources import routes

from .clock import SimClock
from .faults import Api, active_fault, error_response, fault_response, pause
from .fixture import load_fixture
from .graphql_api import graphql_reply
from .rest_api import rest_routes
from .sagan_api import ROUTES, Call, Handler, answer
from .scenarios import build_scenario
from .state import SimState

MAX_RECORDED = 200_000  # a long benchmark must not grow the request log without bound
ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


@dataclass
class RecordedRequest:
    """One request as the simulator received it (the account's name, never its key)."""

    api: str  # "sagan", "graphql" or "rest"
    method: str
    path: str
    query: dict[str, str]
    account: str | None  # an account name, "sagan", or None for a missing/unknown key
    body: Any  # parsed JSON, or the raw text when it was not JSON
    at: datetime
    t: float
    status: int | None = None


def _bearer(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip() or None
    return request.query_params.get("api_key")  # older RunPod clients put the key in the URL


def _parse_json(raw: bytes) -> tuple[Any, bool]:
    if not raw.strip():
        return None, True
    try:
        return json.loads(raw), True
    except (ValueError, UnicodeDecodeError):
        return raw.decode("utf-8", "replace")[:2000], False


class SimServer:
    """The simulator of Sagan and RunPod; `with SimServer(scenario="calm") as sim: ...`."""

    def __init__(self, scenario: str | None = None, fixture: dict[str, Any] | str | Path | None = None, *,
                 speed: float = 1.0, port: int = 0, latency: float = 0.0, seed: int = 0,
                 host: str = "127.0.0.1") -> None:
        if scenario is not None and fixture is not None:
            raise ValueError("give a scenario or a fixture, not both")
        self.scenario = scenario or ("fixture" if fixture is not None else "calm")
        self.clock = SimClock(speed)
        source = build_scenario(self.scenario, seed) if fixture is None else fixture
        self.state = SimState(load_fixture(source), self.clock, seed)
        self.host, self.port, self.latency = host, port, latency
        self.api_latency: dict[str, float] = {}  # per API ("sagan", "graphql", "rest"), over `latency`
        self.requests: list[RecordedRequest] = []
        self._stopping = threading.Event()
        # Sources ("sagan" or an account) whose requests wait unanswered until released: a source
        # as slow as a test needs it to be, on no timer (a timeout fault is real time).
        self._stalls: dict[str, threading.Event] = {}
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.app = self._build_app()

    # --- what clients need --------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def sagan_token(self) -> str:
        return self.state.sagan.token

    @property
    def account_keys(self) -> dict[str, str]:
        return {name: acc.api_key or "" for name, acc in self.state.accounts.items()}

    def env(self) -> dict[str, str]:
        """The environment that points the panel (and the runpod SDK) at this simulator."""
        env = {"SAGAN_BASE_URL": self.base_url, "SAGAN_API_TOKEN": self.sagan_token,
               "RUNPOD_API_BASE_URL": self.base_url}
        env.update({f"RUNPOD_API_KEY_{name.upper()}": key for name, key in self.account_keys.items()})
        return env

    def stall(self, source: str) -> None:
        """Hold every request of `source` ("sagan" or an account name) unanswered until release(source)."""
        self._stalls.setdefault(source, threading.Event())

    def release(self, source: str) -> None:
        """Let `source`'s held requests (and later ones) be answered."""
        gate = self._stalls.pop(source, None)
        if gate is not None:
            gate.set()

    # --- lifecycle -------------------------------------------------------------------------

    def start(self) -> "SimServer":
        if self._thread is not None:
            return self
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self.app, log_config=None, log_level="warning", access_log=False,
                                lifespan="off", ws="none", timeout_graceful_shutdown=1, timeout_keep_alive=30)
        self._server = uvicorn.Server(config)
        self._stopping.clear()
        self.clock.reset()
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, daemon=True,
                                        name=f"sagan-sim:{self.port}")
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                sock.close()
                self._thread = None
                raise RuntimeError(f"simulator did not start on {self.base_url}")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        """Stop serving; requests held open by a `timeout` fault or a stall are released at once."""
        if self._thread is None or self._server is None:
            return
        self._stopping.set()
        self._server.should_exit = True
        self._thread.join(timeout=5)
        self._thread = None

    def __enter__(self) -> "SimServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- HTTP ------------------------------------------------------------------------------

    def _build_app(self) -> Starlette:
        table = [Route(path, self._sagan_endpoint(handler), methods=[method]) for path, method, handler in ROUTES]
        table.append(Route(routes.GRAPHQL, self._graphql_endpoint, methods=["POST"]))
        table += rest_routes(self.state, self._guarded)
        table.append(Route("/{rest:path}", self._no_route, methods=ALL_METHODS))
        return Starlette(routes=table)

    async def _no_route(self, request: Request) -> Response:
        path = request.url.path
        api: Api = "graphql" if path == routes.GRAPHQL else "rest" if path.startswith("/v2/") else "sagan"
        return error_response(api, 404, "not_found", f"no route {request.method} {request.url.path}")

    def _sagan_endpoint(self, handler: Handler) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            def run(body: Any, _who: str, t: float) -> Response:
                status, payload = answer(self.state, handler, Call(request.path_params, request.query_params, body, t))
                return JSONResponse(payload, status)
            return await self._guarded(request, "sagan", run)
        return endpoint

    async def _graphql_endpoint(self, request: Request) -> Response:
        return await self._guarded(request, "graphql", lambda body, who, t: graphql_reply(self.state, who, body, t))

    def _who(self, api: Api, key: str | None) -> str | None:
        if api == "sagan":
            return "sagan" if key and key == self.sagan_token else None
        return self.state.account_of_key(key)

    async def _guarded(self, request: Request, api: Api, run: Callable[[Any, str, float], Response]) -> Response:
        """Record the request, then latency, scheduled faults, auth and body checks, then `run`."""
        t = self.clock.now_t()
        self.state.advance(t)  # the recovery loop's due actions first: the reply shows them
        body, body_ok = _parse_json(await request.body())
        who = self._who(api, _bearer(request))
        rec = RecordedRequest(api, request.method, request.url.path, dict(request.query_params), who, body,
                              self.clock.at(t), t)
        self._record(rec)
        delay = self.api_latency.get(api, self.latency)
        if delay:
            await pause(delay, self._stopping)
        gate = self._stalls.get("sagan" if api == "sagan" else who or "")
        while gate is not None and not gate.is_set() and not self._stopping.is_set():
            await asyncio.sleep(0.01)
        if api == "sagan":
            windows = self.state.sagan.failures
        else:
            windows = self.state.accounts[who].failures if who else []
        path = request.url.path
        scope = "billing" if path.startswith("/v2/billing") else "audit" if path.startswith("/v2/audit-logs") else None
        kind = active_fault(windows, t, api, action=api == "rest" and request.method in ("POST", "DELETE"),
                            scope=scope)
        if kind:
            response = await fault_response(kind, api, self._stopping)
        elif who is None:
            response = error_response(api, 401, "unauthorized", "missing or unknown bearer token")
        elif not body_ok:
            response = error_response(api, 400, "bad_json", "the body is not valid JSON")
        else:
            response = run(body, who, t)
        rec.status = response.status_code
        return response

    def _record(self, rec: RecordedRequest) -> None:
        if len(self.requests) >= MAX_RECORDED:
            del self.requests[: MAX_RECORDED // 2]
        self.requests.append(rec)
