"""Missing pods read by id: how many one poll may ask for, the reads, and the write of what they said.

A pod absent from a list is asked for by id: RunPod's not-found confirms its loss within the
poll, a pod that is there clears it; one that cannot be read waits for the next list.
"""

from __future__ import annotations

import asyncio
import logging
import math
from datetime import datetime
from typing import TYPE_CHECKING, Mapping

from sagan_tui.core.models import RunPodPod
from sagan_tui.core.sources.errors import SourceError
from sagan_tui.core.sources.runpod_base import RunPodTransport
from sagan_tui.core.sync.changes import SourceResult
from sagan_tui.core.sync.detect import Seen

if TYPE_CHECKING:
    from sagan_tui.core.store.cache import Cache

log = logging.getLogger(__name__)
# Missing pods read by id in one poll, and the time those reads may take: a reap of any size is
# still confirmed within two polls, the pods past the bound by the next list missing them too.
DIRECT_READS_MAX = 12
DIRECT_READS_BUDGET_S = 5.0
DIRECT_READS_AT_ONCE = 4


def read_allowance(windows, poll_interval: float, most: int = DIRECT_READS_MAX) -> int:
    """Direct reads one poll may spend, given the last reply's rate-limit windows (RateWindow):
    never the requests the account's own lists need before each window resets (a read that
    starved the next list would blind the account, and the list confirms a missing pod too)."""
    allow = most
    for w in windows:
        if w.remaining is not None:
            lists = math.ceil((w.reset_s or 0) / max(poll_interval, 0.1)) + 1
            spare = w.remaining - lists
            # Polled faster than the window allows, the lists run out anyway: reads then take a
            # quarter of what is left, so they shrink with it.
            allow = min(allow, spare if spare > 0 else w.remaining // 4 - 1)
    return max(0, allow)


async def read_directly(transport: RunPodTransport, pod_ids: list[str], most: int,
                        budget_s: float) -> dict[str, "RunPodPod | None"]:
    """pod id -> the pod as RunPod reads it by id, or None where RunPod says it does not exist;
    a read that failed or did not end within the budget is left out (it proves nothing)."""
    out: dict[str, RunPodPod | None] = {}
    gate = asyncio.Semaphore(DIRECT_READS_AT_ONCE)

    async def one(pod_id: str) -> None:
        async with gate:
            try:
                out[pod_id] = await transport.get_pod(pod_id)
            except (SourceError, ValueError) as exc:
                log.info("direct read of %s failed: %s", pod_id, exc)

    tasks = [asyncio.ensure_future(one(pid)) for pid in dict.fromkeys(pod_ids[:most])]
    if not tasks:
        return out
    done, pending = await asyncio.wait(tasks, timeout=budget_s)
    for t in pending:
        t.cancel()
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
    return out


def write_reads(cache: "Cache", kept: "dict[str, Seen] | None", name: str,
                reads: Mapping[str, "RunPodPod | None"], now: datetime) -> SourceResult:
    """What direct reads of missing pods said: not found confirms the loss; listed clears it."""
    res = SourceResult()
    with cache.transaction() as conn:
        stops = cache.action_rows.owner_stops() | cache.sagan_rows.stops()
        # Only the pods read: the account's every row is not walked again for a few of them.
        live = {pid: Seen.of(c) for pid, c in cache.pod_rows.live(conn, name, list(reads)).items()}
        held = {x.pod_id: x for x in cache.loss_rows.read(pod_ids=list(reads), states=("missing",))}
        upserts, gone_losses, cleared, observed = [], [], [], []
        for pod_id, pod in reads.items():
            p = live.get(pod_id)
            if p is None or p.missing_since is None:
                continue  # settled meanwhile (another writer, or this poll's own list)
            if pod is not None and pod.desired_status not in ("TERMINATED", "DEAD"):
                cleared.append((pod_id, f"read directly: {pod.desired_status} at {now:%H:%M:%S}"))
                upserts.append(p.cached(missing_since=None))
                observed.append((pod_id, name, now, pod.desired_status, pod.uptime_seconds, "read directly"))
                continue
            why = "read directly: not found" if pod is None else f"read directly: {pod.desired_status}"
            asked = pod_id in stops
            reason = "stopped on request" if asked else f"vanished while {p.status}"
            upserts.append(p.cached(gone_at=p.missing_since, gone_reason=reason, missing_since=None))
            observed.append((pod_id, name, now, "GONE", None, f"{reason} ({why})"))
            res.pods_gone.append(pod_id)
            if asked:
                cleared.append((pod_id, "stopped on request"))
            elif pod_id in held:
                gone_losses.append(held[pod_id].model_copy(update={"state": "confirmed", "confirmed_by": why}))
        cache.pod_rows.upsert(conn, upserts)
        cache.pod_rows.add_observations(conn, observed)
        res.withdrawn = cache.loss_rows.withdraw(conn, cleared, now)
        cache.loss_rows.upsert(conn, gone_losses)
    res.pods_changed = [c.pod_id for c in upserts]
    res.losses = gone_losses
    if kept is not None:  # what was written, kept as the cache now holds it (no re-read of every pod)
        for pod_id in res.pods_gone:
            kept.pop(pod_id, None)
        for pod_id, _why in cleared:
            if pod_id in kept and pod_id not in res.pods_gone:
                kept[pod_id] = kept[pod_id]._replace(missing_since=None)
    return res
