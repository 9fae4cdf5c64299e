"""REST v2's money and evidence replies read into the panel's terms: the balance and billing mode,
a pod's billed amounts, and the audit log's stops and terminates.

A key may lack a scope (billing:read answers 403): that is said in a note, never an account
error, and never "$0". What is not readable is None with its reason; what is read and empty is
an empty value.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Awaitable, Callable

from sagan_tui.wire.basics import ErrorKind
from sagan_tui.core.models import iso
from sagan_tui.core.sources.errors import SourceError
from sagan_tui.core.sources.rest_pages import read_pages
from sagan_tui.core.sources.runpod_base import AuditEntry, float_or_none

BALANCE = "/v2/billing/balance"
POD_BILLING = "/v2/billing/pods"
AUDIT_LOGS = "/v2/audit-logs"
MODES = ("PREPAID", "POSTPAID")
STOPS = ("stop", "terminate")  # audit actions that end a pod (matched as the action's last word)

Json = Callable[..., Awaitable[Any]]  # RestV2Transport._json


@dataclass(frozen=True)
class Money:
    balance: float | None = None
    billing_mode: str | None = None
    under_balance: bool | None = None
    note: str | None = None  # why the balance is missing

    @classmethod
    def unread(cls, exc: SourceError) -> "Money":
        if exc.status == 403:
            return cls(note="n/a (key lacks billing:read)")
        if exc.status == 404:
            return cls(note="n/a (no balance route at this RunPod)")
        return cls(note=f"n/a (balance route: {exc.kind.value if isinstance(exc.kind, ErrorKind) else 'error'})")


def read_money(data: Any) -> Money:
    if not isinstance(data, dict):
        return Money(note="n/a (balance reply unreadable)")
    balance = float_or_none(data.get("balanceAmount"))
    mode = data.get("billingMode") if data.get("billingMode") in MODES else None
    if balance is None:
        return Money(billing_mode=mode, note="n/a (balance reply has no balanceAmount)")
    # A postpaid account is invoiced: a balance at or under zero does not stop its pods.
    under = balance <= 0 if mode != "POSTPAID" else False
    return Money(balance=balance, billing_mode=mode, under_balance=under)


def _hours(start: datetime, end: datetime) -> tuple[str, str]:
    lo = start.replace(minute=0, second=0, microsecond=0)
    hi = end.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    return iso(lo), iso(hi)


def _why(exc: SourceError, scope: str) -> str:
    return f"key lacks {scope}" if exc.status == 403 else f"{exc.kind.value}: {exc.message[:120]}"


async def read_billed(get: Json, pod_ids: list[str], start: datetime, end: datetime
                      ) -> tuple[dict[str, float] | None, str | None]:
    """pod id -> USD billed in the hour buckets over [start, end], from one read of every pod's
    records (RunPod emits them per pod per bucket without `podId`)."""
    lo, hi = _hours(start, end)
    try:
        data = await get("GET", POD_BILLING, params={"startTime": lo, "endTime": hi, "bucketSize": "hour"})
    except SourceError as exc:
        return None, f"billing not readable ({_why(exc, 'billing:read')})"
    records = data.get("records") if isinstance(data, dict) else None
    if not isinstance(records, list):
        return None, "billing reply has no records"
    wanted, out = set(pod_ids), {}
    for r in records:
        if isinstance(r, dict) and r.get("podId") in wanted:
            amount = float_or_none(r.get("totalAmount"))
            if amount is not None:
                out[r["podId"]] = round(out.get(r["podId"], 0.0) + amount, 4)
    return out, None


def _entry(raw: Any, wanted: set[str]) -> AuditEntry | None:
    if not isinstance(raw, dict):
        return None
    pod, action = raw.get("resourceId"), raw.get("action")
    if pod not in wanted or not isinstance(action, str):
        return None
    if action.lower().replace("_", ".").rsplit(".", 1)[-1] not in STOPS:
        return None
    actor = raw.get("email") or raw.get("actorId") or "an unnamed actor"
    return AuditEntry(pod_id=pod, actor=str(actor)[:80], action=action[:40], at=str(raw.get("createdAt") or "")[:40])


async def read_audit(get: Json, pod_ids: list[str], start: datetime, end: datetime
                     ) -> tuple[tuple[AuditEntry, ...] | None, str | None]:
    """The stops and terminates of these pods in the audit log over [start, end] (its pages)."""
    params = {"startTime": iso(start), "endTime": iso(end)}

    async def page(cursor: str | None) -> Any:
        return await get("GET", AUDIT_LOGS, params={**params, **({"cursor": cursor} if cursor else {})})

    try:
        listed = await read_pages(page, "items", "audit log", max_pages=20)
    except SourceError as exc:
        return None, f"audit log not readable ({_why(exc, 'the audit log scope')})"
    except ValueError as exc:
        return None, f"audit log unreadable ({exc})"
    wanted = set(pod_ids)
    found = tuple(e for e in (_entry(r, wanted) for r in listed.records) if e is not None)
    if listed.incomplete and not found:
        # A partial log with no entry proves nothing: it may be in the pages not read.
        return None, f"audit log incomplete ({listed.incomplete})"
    return found, None
