"""The system log of each newly lost pod, read once beside its wave evidence (stop_evidence.py).

RunPod's REST v2 serves a pod's log (`GET /v2/pods/{id}/logs?source=system`): the host's own
lines on the pod's lifecycle, the last of which usually says how it ended (the platform's stop,
a host that stopped responding, the account's request, a balance stop). The poller asks once per
lost pod, when the loss is confirmed (docs/verdicts.md says why then), with a short tail; the
lines are cleaned (pod_log.py's parser passes every field through the sanitiser) and bounded in
count and length before they reach the cache. A read that fails, is refused or outlasts the
budget is stored as not read, with why; RunPod's not-found (the pod's log no longer served) as
gone. Either way it is never asked again, and it never fails the poll.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime
from typing import Any, Awaitable, Callable

from sagan_tui.core.models import Loss
from sagan_tui.core.sources.errors import SourceError
from sagan_tui.core.sources.pod_log import parse_events
from sagan_tui.core.store.cache import Cache
from sagan_tui.wire.safe_text import one_line

log = logging.getLogger(__name__)
TAIL = 20  # system lines asked for: a pod's whole lifecycle is a handful of them
KEEP = 8  # lines kept per pod, the last ones (how it ended)
LINE_LIMIT = 200  # characters kept of one line
MOST = 8  # pods read per account and poll; a larger wave's others are stored as not read
AT_ONCE = 4
BUDGET_S = 3.0  # what the reads together may add to the poll that confirmed the losses
READ, UNREAD, GONE = "read", "unread", "gone"

Read = tuple[str, str, "str | None", list[tuple[str, str]]]  # (pod_id, state, note, lines)


def system_lines(text: str) -> list[tuple[str, str]]:
    """The last KEEP system lines of an SSE body as (timestamp, message), cleaned and cut; a line
    of another source is dropped (a server that ignored `source=system`)."""
    lines = [(e.timestamp, one_line(e.message, LINE_LIMIT)) for e in parse_events(text)
             if e.source == "system" and e.message]
    return lines[-KEEP:]


async def _read_one(transport: Any, pod_id: str) -> Read:
    try:
        text = await transport.pod_log(pod_id, None, TAIL, "system")
    except SourceError as exc:
        if exc.status == 404:
            return pod_id, GONE, "RunPod no longer serves its log (404)", []
        return pod_id, UNREAD, one_line(exc.message, 160), []
    except ValueError as exc:  # an id the transport refuses to put in a path
        return pod_id, UNREAD, one_line(str(exc), 160), []
    return pod_id, READ, None, system_lines(text)


async def read_system_logs(transport: Any, pod_ids: list[str], most: int = MOST,
                           budget_s: float = BUDGET_S) -> list[Read]:
    """Each pod's system log, at most `most` of them (the rest not read, said why), within the budget."""
    ids = list(dict.fromkeys(pod_ids))
    out: dict[str, Read] = {}
    gate = asyncio.Semaphore(AT_ONCE)

    async def one(pod_id: str) -> None:
        async with gate:
            out[pod_id] = await _read_one(transport, pod_id)

    tasks = [asyncio.ensure_future(one(pid)) for pid in ids[:most]]
    if tasks:
        _done, pending = await asyncio.wait(tasks, timeout=budget_s)
        for t in pending:
            t.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
    late = f"no answer within {budget_s:g} s"
    capped = f"one poll reads at most {most} logs (a bound, and the account's rate limit)"
    return [out.get(pid) or (pid, UNREAD, late if i < most else capped, []) for i, pid in enumerate(ids)]


async def read_loss_syslog(transport: Any, cache: Cache, offload: Callable[..., Awaitable[Any]], account: str,
                           losses: list[Loss], now: datetime, most: int = MOST) -> None:
    """The system log of the poll's new losses not asked for before, stored with their evidence."""
    if not losses or not hasattr(transport, "pod_log"):
        return  # GraphQL serves no log: nothing is said of it
    pods = sorted({x.pod_id for x in losses} - await offload(cache.loss_rows.syslog_read, [x.pod_id for x in losses]))
    if not pods:
        return
    read = await read_system_logs(transport, pods, most)
    for pod_id, state, note, _ in read:
        if state != READ:
            log.info("system log of %s (%s) not read: %s", pod_id, account, note)

    def write() -> None:
        with cache.transaction() as conn:
            cache.loss_rows.save_syslog(conn, account, now, read)

    await offload(write)
