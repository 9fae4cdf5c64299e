"""Scheduled failures (401, 429, 500, timeout, bad JSON, 410, and RunPod's own shapes) and their replies.

The kinds that answer as RunPod does: `graphql-auth` (GraphQL: HTTP 200 with an
UNAUTHENTICATED error and no data; the other APIs: 401), `graphql-rate-limit` (GraphQL only:
HTTP 200 with a RATE_LIMITED error naming its wait), `403` (REST v2 pod actions only: the key
is valid but may not act on the pod), `410` (GraphQL only: retired).
"""

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
AUTH_MESSAGE = "Unauthorized request, please check your API key."  # the runpod SDK's own words
RATE_MESSAGE = f"Rate limit exceeded: too many requests. Retry in {RETRY_AFTER_S} s."
# Which requests each narrow kind hits; any other kind hits every request of its source.
ONLY: dict[str, set[str]] = {"410": {"graphql"}, "graphql-rate-limit": {"graphql"}, "403": {"rest-action"},
                             "billing-403": {"rest-billing"}, "audit-403": {"rest-audit"},
                             "truncated-page": {"rest-pods-page"}}
# Cut mid-record, as a dropped connection behind a proxy leaves it.
TRUNCATED = {"graphql": b'{"data": {"myself": {"pods": [{"id": "', "sagan": b'{"experiments": [{"id": "',
             "rest": b'{"pods": [{"id": "'}


def active_fault(windows: list[FailureWindow], t: float, api: Api, action: bool = False,
                 scope: str | None = None) -> str | None:
    """The kind of the first window that holds scenario time t (from <= t < to) for this request.

    A 410 is GraphQL's retirement: REST v2 on the same account keeps answering. `action`: a
    REST v2 request that changes a pod (the only ones a 403 window refuses).
    """
    where = {api, f"{api}-action"} if action else {api}
    if scope:  # `billing`, `audit` or `pods-page`: the narrow kinds meant for those requests alone
        where.add(f"{api}-{scope}")
    for w in windows:
        if w.start <= t < w.end and (w.kind not in ONLY or ONLY[w.kind] & where):
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
    if kind == "401" or (kind == "graphql-auth" and api != "graphql"):
        return error_response(api, 401, "unauthorized", "Unauthorized: the key was revoked")
    if kind == "graphql-auth":
        return JSONResponse({"data": None, "errors": [{"message": AUTH_MESSAGE,
                                                       "extensions": {"code": "UNAUTHENTICATED"}}]}, 200)
    if kind == "graphql-rate-limit":
        return JSONResponse({"data": None, "errors": [{"message": RATE_MESSAGE, "extensions": {
            "code": "RATE_LIMITED", "retryAfter": RETRY_AFTER_S}}]}, 200)
    if kind == "403":
        return error_response(api, 403, "forbidden", "access denied")
    if kind in ("billing-403", "audit-403"):
        scope = "billing:read" if kind == "billing-403" else "audit:read"
        return error_response(api, 403, "forbidden", f"the API key lacks the {scope} scope")
    if kind == "410":
        return error_response(api, 410, "gone", GONE_MESSAGE)
    return error_response(api, 500, "internal", "Internal server error")
