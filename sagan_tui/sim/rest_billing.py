"""REST v2's money and evidence routes over the simulated state: the balance, pod billing history,
the audit log, and cursor pagination of `GET /v2/pods`.

- `GET /v2/billing/balance` -> `{"balanceAmount", "billingMode"}` (the account's balance steps
  and its fixture `billing_mode`; a `billing-403` window: the key lacks billing:read).
- `GET /v2/billing/pods?startTime&endTime&bucketSize=hour[&podId]` -> `{"records", "metadata"}`:
  per pod per hour bucket, the pod's rate times the seconds it ran inside the bucket.
- `GET /v2/audit-logs?startTime&endTime` -> `{"items", "pagination"}`: a stop or terminate by
  the actor a fixture pod's `terminated_by` names, at its lost_at or exited_at.
- Pagination (a fixture's or account's `page_size`): `GET /v2/pods` answers
  `{"items", "pagination": {"nextCursor", "truncated"}}` pages; a `truncated-page` window ends
  the first page early without a cursor. This is a fault to test the defence: RunPod's published
  pod list has no cursor today.
"""

from __future__ import annotations

import base64
import math
from datetime import datetime
from typing import Any

from starlette.responses import JSONResponse, Response

from sagan_tui.core.models import iso

from .faults import active_fault, error_response
from .pods import SimPod
from .state import SimState

HOUR = 3600.0


def parse_ts(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def balance(state: SimState, account: str, _params: dict[str, str], _body: Any, t: float) -> Response:
    acc = state.accounts[account]
    return JSONResponse({"balanceAmount": round(acc.balance_at(t), 4), "billingMode": acc.billing_mode})


def _runs(pod: SimPod, t_end: float) -> list[tuple[float, float]]:
    """The scenario intervals the pod ran (RUNNING) before t_end."""
    out, start = [], None
    for at in sorted(set(pod.runpod.times())):
        if at > t_end:
            break
        st = pod.runpod.state(at)
        running = st.get("status") == "RUNNING" and not st.get("gone")
        if running and start is None:
            start = at
        elif not running and start is not None:
            out.append((start, at))
            start = None
    if start is not None:
        out.append((start, t_end))
    return out


def _window(state: SimState, params: dict[str, str], t: float) -> tuple[float, float] | Response:
    clock = state.clock
    try:
        lo = clock.t_of(parse_ts(params["startTime"])) if params.get("startTime") else t - 30 * 86400
        hi = clock.t_of(parse_ts(params["endTime"])) if params.get("endTime") else t
    except (TypeError, ValueError):
        return error_response("rest", 400, "", "startTime and endTime must be RFC 3339 date-times")
    if hi < lo:
        return error_response("rest", 400, "", "endTime must be after startTime")
    return lo, min(hi, t)


def pod_billing(state: SimState, account: str, params: dict[str, str], _body: Any, t: float) -> Response:
    if params.get("bucketSize", "day") != "hour":
        return error_response("rest", 422, "", "the simulator bills hour buckets only (bucketSize=hour)")
    window = _window(state, params, t)
    if isinstance(window, Response):
        return window
    lo, hi = window
    clock = state.clock
    # Buckets are served hours (wall clock), as RunPod's are; scenario time maps onto them.
    first = math.floor(clock.at(lo).timestamp() / HOUR) * HOUR
    last = math.ceil(clock.at(hi).timestamp() / HOUR) * HOUR
    records, totals = [], 0.0
    for pod in state.pods.values():
        s = pod.spec
        if s.account != account or (params.get("podId") and params["podId"] != s.id):
            continue
        rate = s.adjusted_cost_per_hr or s.cost_per_hr
        for b in range(int(first), int(last), int(HOUR)):
            secs = 0.0
            for a, z in _runs(pod, hi):
                wa, wz = clock.at(a).timestamp(), clock.at(z).timestamp()
                secs += max(0.0, min(wz, b + HOUR) - max(wa, b))
            if secs <= 0:
                continue
            amount = round(rate * secs / HOUR, 4)
            totals += amount
            records.append({"startTime": iso(datetime.fromtimestamp(b, clock.at(0).tzinfo)),
                            "endTime": iso(datetime.fromtimestamp(b + HOUR, clock.at(0).tzinfo)),
                            "podId": s.id, "totalAmount": amount, "gpuAmount": amount, "cpuAmount": 0,
                            "diskAmount": 0})
    query = {"startTime": iso(datetime.fromtimestamp(first, clock.at(0).tzinfo)),
             "endTime": iso(datetime.fromtimestamp(last, clock.at(0).tzinfo)), "bucketSize": "hour"}
    if params.get("podId"):
        query["podId"] = params["podId"]
    total = round(totals, 4)
    return JSONResponse({"records": records, "metadata": {
        "query": query, "recordCount": len(records),
        "totals": {"totalAmount": total, "gpuAmount": total, "cpuAmount": 0, "diskAmount": 0},
        "uniquePodCount": len({r["podId"] for r in records})}})


def audit_logs(state: SimState, account: str, params: dict[str, str], _body: Any, t: float) -> Response:
    window = _window(state, params, t)
    if isinstance(window, Response):
        return window
    lo, hi = window
    items = []
    for pod in state.pods.values():
        s, by = pod.spec, pod.spec.terminated_by
        at = s.lost_at if by is not None and by.action == "terminate" else s.exited_at
        if s.account != account or by is None or at is None or not lo <= at <= hi:
            continue
        items.append({"id": f"audit-{s.id}", "createdAt": iso(state.clock.at(at)), "actorId": by.actor,
                      "email": by.actor if "@" in by.actor else None, "action": f"pod.{by.action}",
                      "resourceType": "pod", "resourceId": s.id, "value": None})
    items.sort(key=lambda e: e["createdAt"])
    return JSONResponse({"items": items, "pagination": {"nextCursor": None, "truncated": False}})


def _cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o:{offset}".encode()).decode()


def _offset(cursor: str | None) -> int | None:
    if not cursor:
        return 0
    try:
        text = base64.urlsafe_b64decode(cursor.encode()).decode()
        return int(text.removeprefix("o:")) if text.startswith("o:") else None
    except (ValueError, UnicodeDecodeError):
        return None


def page_of(state: SimState, account: str, views: list[dict[str, Any]], params: dict[str, str],
            t: float) -> Response | None:
    """A page of the pod list when the fixture pages it, else None (the published single reply)."""
    size = state.accounts[account].page_size or state.page_size
    if not size:
        return None
    offset = _offset(params.get("cursor"))
    if offset is None or offset > len(views):
        return error_response("rest", 400, "", "cursor is not valid")
    views = sorted(views, key=lambda v: v["id"])  # a stable order, so pages partition the list
    page = views[offset:offset + size]
    more = offset + size < len(views)
    if more and offset == 0 and active_fault(state.accounts[account].failures, t, "rest", scope="pods-page"):
        # Cut short and no cursor: what a reply that says it is incomplete looks like.
        return JSONResponse({"items": page[: max(1, size // 2)], "pagination": {"nextCursor": None,
                                                                              "truncated": True}})
    return JSONResponse({"items": page, "pagination": {"nextCursor": _cursor(offset + size) if more else None,
                                                       "truncated": False}})
