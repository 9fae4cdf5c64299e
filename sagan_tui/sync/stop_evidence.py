"""The poller's reads of stop evidence: the audit log for a poll's unrequested exits, and RunPod's
billing and audit log for a poll's new losses, each read once (a few requests per wave, not
per poll), and the unrequested-exit rule (exits.py) fed from the cache."""

from __future__ import annotations

import logging
import sqlite3
from datetime import datetime, timedelta
from typing import Any, Awaitable, Callable, Mapping

from sagan_tui.basics import ts
from sagan_tui.models import Loss
from sagan_tui.sources.errors import SourceError
from sagan_tui.sources.runpod_base import AccountSnapshot, AuditEntry
from sagan_tui.store.evidence_rows import (
    EXITED_UNKNOWN, evidence_read, flag_pods, save_evidence, stop_requested_pods, unflag_pods,
)
from sagan_tui.sync.detect import Seen
from sagan_tui.sync.exits import candidates, judge, pending_loss

log = logging.getLogger(__name__)
# The audit log is read from a little before the poll that last saw the pod running.
AUDIT_MARGIN = timedelta(minutes=2)


def _pending(conn_or_cache: Any, account: str) -> list[Loss]:
    rows = (conn_or_cache.execute if isinstance(conn_or_cache, sqlite3.Connection) else conn_or_cache._tuples)(
        "select loss from pending_exits where account = ? order by pod_id", (account,))
    rows = rows.fetchall() if isinstance(rows, sqlite3.Cursor) else rows
    return [Loss.model_validate_json(r[0]) for r in rows]


async def exit_audit(transport: Any, cache: Any, offload: Callable[..., Awaitable[Any]], account: str,
                     now: datetime) -> dict[str, AuditEntry] | None:
    """The audit log's stops of the exits awaiting judgement on this account, when there are any
    and the transport can read it; None when not read. The cache is read through `offload`."""
    pending = await offload(_pending, cache, account)
    if not pending or not hasattr(transport, "audit_entries"):
        return None
    start = min((x.last_seen_at or x.lost_at) for x in pending) - AUDIT_MARGIN
    entries = await transport.audit_entries([x.pod_id for x in pending], start, now)
    return None if entries is None else {e.pod_id: e for e in entries}


def exits_of(cache: Any, conn: sqlite3.Connection, account: str, snap: AccountSnapshot, prev: Mapping[str, Seen],
             now: datetime, stops: set[str], known: Mapping[str, str],
             audit: Mapping[str, AuditEntry] | None, changed: list[str]) -> list[Loss]:
    """Judge the exits the last poll saw (losses returned, the unexplained flagged on their rows,
    which are added to `changed`: the panel redraws them), and keep this poll's new ones for the next."""
    again = [p.id for p in snap.pods if p.running and p.id in prev and not prev[p.id].running]
    if again:
        unflag_pods(conn, again)
    pending, fresh = _pending(conn, account), candidates(snap.pods, prev, set(), set())
    if not pending and not fresh:
        return []
    losses: list[Loss] = []
    if pending:
        history = [(at, bal, under) for at, bal, under, *_ in cache.balance_history().get(account, [])]
        judged = judge(account, pending, {p.id: p for p in snap.pods}, requested=stops | stop_requested_pods(cache),
                       known_losses=set(known), readings=[*history, (now, snap.balance, snap.under_balance)],
                       billing_mode=snap.billing_mode, audit=audit)
        if judged.unknown:
            flag_pods(conn, {pod_id: EXITED_UNKNOWN for pod_id in judged.unknown})
            changed += [p for p in judged.unknown if p not in changed]
        conn.execute("delete from pending_exits where account = ?", (account,))
        losses = judged.losses
    conn.executemany("insert or replace into pending_exits (pod_id, account, seen_at, loss) values (?,?,?,?)",
                     [(p.id, account, ts(now), pending_loss(account, p, prev[p.id], now).model_dump_json())
                      for p in fresh])
    return losses


async def read_wave_evidence(transport: Any, cache: Any, offload: Callable[..., Awaitable[Any]], account: str,
                             losses: list[Loss], now: datetime) -> None:
    """RunPod's billed amounts and audit entries for the poll's new losses not read before."""
    if not losses or not hasattr(transport, "wave_evidence"):
        return
    pods = sorted({x.pod_id for x in losses} - await offload(evidence_read, cache, [x.pod_id for x in losses]))
    if not pods:
        return
    start = min((x.running_at or x.last_seen_at or x.lost_at) for x in losses if x.pod_id in pods)
    try:
        ev = await transport.wave_evidence(pods, start, now)
    except SourceError as exc:  # evidence is a nicety beside the poll: never its failure
        log.warning("wave evidence of %s not read: %s", account, exc.message)
        return

    def write() -> None:
        with cache.transaction() as conn:
            save_evidence(conn, account, pods, ev, now)

    await offload(write)
