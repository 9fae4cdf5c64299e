"""The poller's reads of stop evidence: the audit log for a poll's unrequested exits, and RunPod's
billing and audit log for a poll's new losses, each read once (a few requests per wave, not
per poll), and the unrequested-exit rule (exits.py) fed from the cache."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any, Awaitable, Callable, Mapping

from sagan_tui.core.models import Loss
from sagan_tui.core.sources.errors import SourceError
from sagan_tui.core.sources.runpod_base import AccountSnapshot, AuditEntry
from sagan_tui.core.store.cache import Cache, Conn
from sagan_tui.core.store.pod_rows import EXITED_UNKNOWN
from sagan_tui.core.sync.detect import Seen
from sagan_tui.core.sync.exits import candidates, judge, pending_loss

log = logging.getLogger(__name__)
# The audit log is read from a little before the poll that last saw the pod running.
AUDIT_MARGIN = timedelta(minutes=2)


async def exit_audit(transport: Any, cache: "Cache", offload: Callable[..., Awaitable[Any]], account: str,
                     now: datetime) -> dict[str, AuditEntry] | None:
    """The audit log's stops of the exits awaiting judgement on this account, when there are any
    and the transport can read it; None when not read. The cache is read through `offload`."""
    pending = await offload(cache.loss_rows.pending_exits, account)
    if not pending or not hasattr(transport, "audit_entries"):
        return None
    start = min((x.last_seen_at or x.lost_at) for x in pending) - AUDIT_MARGIN
    entries = await transport.audit_entries([x.pod_id for x in pending], start, now)
    return None if entries is None else {e.pod_id: e for e in entries}


def exits_of(cache: Cache, conn: Conn, account: str, snap: AccountSnapshot, prev: Mapping[str, Seen],
             now: datetime, stops: set[str], known: Mapping[str, str],
             audit: Mapping[str, AuditEntry] | None, changed: list[str]) -> list[Loss]:
    """Judge the exits the last poll saw (losses returned, the unexplained flagged on their rows,
    which are added to `changed`: the panel redraws them), and keep this poll's new ones for the next."""
    again = [p.id for p in snap.pods if p.running and p.id in prev and not prev[p.id].running]
    if again:
        cache.pod_rows.unflag(conn, again)
    pending, fresh = cache.loss_rows.pending_exits(account, conn), candidates(snap.pods, prev, set(), set())
    if not pending and not fresh:
        return []
    losses: list[Loss] = []
    if pending:
        history = [(at, bal, under) for at, bal, under, *_ in cache.health_rows.balance_history().get(account, [])]
        judged = judge(account, pending, {p.id: p for p in snap.pods},
                       requested=stops | cache.sagan_rows.stop_requested(),
                       known_losses=set(known), readings=[*history, (now, snap.balance, snap.under_balance)],
                       billing_mode=snap.billing_mode, audit=audit)
        if judged.unknown:
            cache.pod_rows.flag(conn, {pod_id: EXITED_UNKNOWN for pod_id in judged.unknown})
            changed += [p for p in judged.unknown if p not in changed]
        losses = judged.losses
    cache.loss_rows.replace_pending_exits(conn, account, judged=bool(pending),
                                          fresh=[(p.id, now, pending_loss(account, p, prev[p.id], now)) for p in fresh])
    return losses


async def read_wave_evidence(transport: Any, cache: Cache, offload: Callable[..., Awaitable[Any]], account: str,
                             losses: list[Loss], now: datetime) -> None:
    """RunPod's billed amounts and audit entries for the poll's new losses not read before."""
    if not losses or not hasattr(transport, "wave_evidence"):
        return
    pods = sorted({x.pod_id for x in losses} - await offload(cache.loss_rows.evidence_read, [x.pod_id for x in losses]))
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
            cache.loss_rows.save_evidence(conn, account, pods, ev, now)

    await offload(write)
