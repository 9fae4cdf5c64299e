"""Scheduled failures (401, 429, 500, timeout, bad JSON, 410) and the replies that show them."""

from __future__ import annotations

import asyncio
import threading
import time
from http import HTTPStatus
from typing import Literal

from starlette.responses import JSONResponse, Response

from .fixture import FailureWindow

Api = Literal["sagan", "graphql", "rest"]
TIMEOUT_HOLD_S = 60.0  # longer than any client's timeout
RETRY_AFTER_S = 2
GONE_MESSAGE = "This API has been retired (410 Gone). Use the REST v2 API."
# Cut mid-record, as a dropped connection behind a proxy leaves it.
TRUNCATED = {"graphql": b'{"data": {"myself": {"pods": [{"id": "', "sagan": b'{"experiments": [{"id": "',
             "rest": b'{"pods": [{"id": "'}


def active_fault(windows: list[FailureWindow], t: float, api: Api) -> str | None:
    """The kind of the first window that holds scenario time t (from <= t < to) for this API.

    A 410 is GraphQL's retirement: REST v2 on the same account keeps answering.
    """
    for w in windows:
        if w.start <= t < w.end and (w.kind != "410" or api == "graphql"):
            return w.kind
    return None


async def pause(seconds: float, stopping: threading.Event) -> bool:
    """Sleep up to `seconds`, waking early when the server stops; True if it stopped."""
    deadline = time.monotonic() + seconds
    while not stopping.is_set():
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        await asyncio.sleep(min(left, 0.05))
    return True


def error_response(api: Api, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> Response:
    """An error the way each API writes one: Sagan's {error, message}, GraphQL's {errors: [...]},
    REST v2's RFC 9457 problem."""
    if api == "rest":
        body = {"title": HTTPStatus(status).phrase, "status": status, "detail": message}
        return JSONResponse(body, status_code=status, headers=headers, media_type="application/problem+json")
    body = {"errors": [{"message": message}]} if api == "graphql" else {"error": code, "message": message}
    return JSONResponse(body, status_code=status, headers=headers)


async def fault_response(kind: str, api: Api, stopping: threading.Event) -> Response:
    if kind == "timeout":
        await pause(TIMEOUT_HOLD_S, stopping)
        return error_response(api, 504, "timeout", "upstream timed out")
    if kind == "bad-json":
        return Response(TRUNCATED[api], status_code=200, media_type="application/json")
    if kind == "429":
        return error_response(api, 429, "rate_limited", "Too many requests",
                              headers={"Retry-After": str(RETRY_AFTER_S)})
    if kind == "401":
        return error_response(api, 401, "unauthorized", "Unauthorized: the key was revoked")
    if kind == "410":
        return error_response(api, 410, "gone", GONE_MESSAGE)
    return error_response(api, 500, "internal", "Internal server error")
