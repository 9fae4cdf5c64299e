"""Sagan's half of a poll: its experiments, events, approvals and pods into the cache, and its word on losses."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from sagan_tui.wire.basics import parse_ts, ts
from sagan_tui.core.models import Loss
from sagan_tui.core.sync.changes import SourceResult, StoredExperiment
from sagan_tui.core.sync.sagan_word import runpod_silent, waiting

if TYPE_CHECKING:
    from sagan_tui.core.sources.sagan import SaganClient
    from sagan_tui.core.sync.poll_context import PollContext

SAGAN = "sagan"
EVENT_PAGE = 2000
EVENT_PAGES_PER_POLL = 10
EVENT_PAGE_MAX = EVENT_PAGE * 16  # 32,000 events, ~13 MB: within the reply bound
# Re-read a little before the cursor: a clock skew or a late write must not hide an update.
CURSOR_OVERLAP = timedelta(seconds=5)
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _bounded(cursor: datetime, now: datetime) -> datetime:
    """A cursor taken from the server's timestamps, kept between 1970 and now: one record dated
    in the future would otherwise hide every later update, one dated year 1 break the arithmetic."""
    return min(max(cursor, EPOCH), now)


async def _together(*coros):
    """asyncio.gather, but every request ends before the poll does: the first failure is raised
    once the others are done. gather alone left them running past the poll (overlapping the next
    one) and, in `sync`, retrying on the closed client at exit: a traceback."""
    results = await asyncio.gather(*coros, return_exceptions=True)
    for r in results:
        if isinstance(r, BaseException):
            raise r
    return results


def weigh_sagan(merged: Loss, said: Loss, before: Loss | None, view: tuple | None,
                flags: dict[str, str], silent: str | None = None) -> Loss:
    """Sagan's terminated/not-found weighed against RunPod's view of the pod (pod_states' row).

    Sagan and RunPod agree before a loss: a pod RunPod's polls hold live and listed is only
    missing (its row flagged with the conflict), and a pod RunPod stopped listing is confirmed
    by a Sagan record at or after its last listing; a pod no poll of ours holds live is Sagan's
    to call while its account answers. While the account's polls fail (`silent` says how,
    sagan_word.py) every such word waits, whatever the cache saw before. A withdrawn loss of a
    pod still listed stays withdrawn.
    """
    if before is not None and before.state == "confirmed":
        return merged
    if silent is not None:
        held = waiting(merged, said, silent)
        if view is not None:
            flags[merged.pod_id] = held.reason.split("; ")[0] + "; " + silent  # "Sagan says ...; RunPod ..."
        return held
    if view is None or view[1] is not None:  # never listed by our polls, or gone from them
        return merged.model_copy(update={"state": "confirmed", "confirmed_by": merged.confirmed_by or
                                         "Sagan's record (RunPod no longer lists it)"})
    _account, _gone_at, missing_since, last_seen = view
    if missing_since is not None:
        if last_seen is None or said.lost_at >= last_seen:
            return merged.model_copy(update={"state": "confirmed",
                                             "confirmed_by": "Sagan's not-found after RunPod stopped listing it"})
        return merged.model_copy(update={"state": "missing", "confirmed_by": None})
    what = "not found" if "not found" in (said.reason or "") else "terminated"
    flags[merged.pod_id] = f"Sagan says {what} ({said.lost_at:%H:%M:%S}); RunPod lists it"
    if before is not None and before.state == "withdrawn":
        return before
    return merged.model_copy(update={"state": "missing", "confirmed_by": None})


class SaganPoller:
    """Sagan's poll: read what changed since its cursor, write it in one transaction, then weigh
    Sagan's word on losses in a second (core/sync/poller.py holds the round and the backoff)."""

    def __init__(self, ctx: "PollContext", sagan: "SaganClient"):
        self.ctx = ctx
        self.sagan = sagan
        self._merged = False  # whether every Sagan pod row in the cache has been merged into losses

    async def poll(self) -> SourceResult:
        """One poll of Sagan: what changed since its cursor, written, and its word on losses weighed."""
        ctx, rows = self.ctx, self.ctx.cache.sagan_rows
        now = ctx.clock()
        cursor = await ctx.offload(ctx.cache.health_rows.cursor, SAGAN)  # SQLite in its one thread, not on the loop
        exp_since = ev_since = pods_since = None
        if cursor:
            parts = dict(p.split("=", 1) for p in cursor.split(";") if "=" in p)
            exp_since, ev_since, pods_since = (parse_ts(parts.get(k)) for k in ("exp", "ev", "pods"))
        if ev_since is None:
            ev_since = now - timedelta(days=ctx.settings.events_retention_days)
        if pods_since is not None and await ctx.offload(ctx.cache.pod_rows.stops_to_reread):
            pods_since = None  # a stop Sagan has not finished is read again whole (core/store/pod_rows.py)
        exps, pods, approvals = await _together(
            self.sagan.experiments(exp_since - CURSOR_OVERLAP if exp_since else None),
            self.sagan.pods(pods_since - CURSOR_OVERLAP if pods_since else None),
            self.sagan.approvals("pending"))
        events, skipped = [], [*exps.skipped, *pods.skipped, *approvals.skipped]
        # The feed is read from `since` inclusive: the events at that instant come again, and
        # those already held are only counted (`held`); the page is sized to reach past them.
        since, known = ev_since, await ctx.offload(rows.event_ids_at, ev_since)
        limit = min(EVENT_PAGE + len(known), EVENT_PAGE_MAX)
        for _ in range(EVENT_PAGES_PER_POLL):
            page = await self.sagan.events(since, limit=limit, known=known)
            skipped += page.skipped
            events += page.items
            newest = max((e.created_at for e in page.items), default=since)
            if len(page.items) + len(page.skipped) + page.held < limit:
                break
            if newest > since:
                since, known = newest, {e.id for e in events if e.created_at == newest}
                limit = min(EVENT_PAGE + len(known), EVENT_PAGE_MAX)
            elif limit < EVENT_PAGE_MAX:
                # A full page all at `since`: the feed breaks no ties within a timestamp, so the
                # same page would come back every poll and the events after it never; a larger
                # page is the only way past (a fleet started in one second wrote 10,000 at once).
                limit *= 4
            else:
                skipped.append(f"events: more than {limit} share {ts(since)}; the feed cannot page past them")
                break
        events = list({e.id: e for e in events}.values())  # a larger page repeats the smaller one
        unnumbered = [e for e in events if e.experiment_number is None]
        if unnumbered:
            by_id = {e.id: e.number for e in exps.items}
            by_id.update(await ctx.offload(rows.experiment_numbers))
            for e in unnumbered:
                e.experiment_number = by_id.get(e.entity_id)
        new_cursor = ";".join(f"{k}={ts(_bounded(v, now))}" for k, v in (
            ("exp", max((e.updated_at for e in exps.items if e.updated_at), default=exp_since)),
            ("ev", max((e.created_at for e in events), default=ev_since)),
            ("pods", max((p.updated_at for p in pods.items if p.updated_at), default=pods_since))) if v)
        result = await ctx.offload(self._write, now, exps.items, events, approvals.items, pods.items, new_cursor,
                                   bool(approvals.skipped))
        result.skipped += skipped
        return result

    def _write(self, now, exps, events, approvals, pods, cursor, approvals_partial=False) -> SourceResult:
        from sagan_tui.core.triage.losses import merge_losses, sagan_loss

        cache, rows = self.ctx.cache, self.ctx.cache.sagan_rows
        res = SourceResult(experiments=[e.number for e in exps], approvals_changed=True)
        if approvals_partial:
            # An unreadable record may be one we hold as pending: it has not been decided.
            listed = {a.id for a in approvals}
            approvals = [*approvals, *(a for a in rows.approvals("pending") if a.id not in listed)]
        with cache.transaction() as conn:
            at = cache.commits + 1  # this transaction's, once committed
            # The records as stored, handed to the session as they are (no read back of its own poll's writes).
            res.experiments_written = {n: StoredExperiment(at, data)
                                       for n, data in rows.upsert_experiments(conn, exps).items()}
            res.events_added = rows.upsert_events(conn, events)
            rows.replace_pending_approvals(conn, approvals)
            rows.upsert_pods(conn, pods)
            # Accounts are polled concurrently with Sagan: a pod first seen before its Sagan
            # row existed gets its experiment now (those pods changed: the panel re-reads only
            # the pods a poll names), and so does its loss.
            res.pods_changed = cache.pod_rows.adopt_experiments(conn)
            cache.loss_rows.adopt_experiments(conn)
            cache.health_rows.set(conn, self.ctx.ok(SAGAN, now), cursor=cursor)
        # Sagan's own evidence (terminated, "not found in account=") joins the poll's losses:
        # the rows this poll returned, the others having been merged when they came (merging is
        # idempotent); on a poller's first poll all of them, in case a previous process stopped
        # between the two transactions. Read and written under one write lock: an account's
        # thread committing its own loss of the same pod in between made it a new loss of both.
        said_of = list({p.runpod_pod_id: p for p in pods}.values()) if self._merged else rows.pods()
        with cache.transaction() as conn:
            before = {x.pod_id: x for x in cache.loss_rows.read(
                pod_ids=None if not self._merged else [p.runpod_pod_id for p in said_of], states=None)}
            merged = merge_losses(list(before.values()), said_of,
                                  owner_stops=frozenset(cache.action_rows.owner_stops()))
            said = {x.pod_id: x for x in map(sagan_loss, said_of) if x is not None}
            views = cache.pod_rows.states(conn, [x.pod_id for x in merged if x.pod_id in said])
            flags: dict[str, str] = {}
            merged = [weigh_sagan(x, said[x.pod_id], before.get(x.pod_id), views.get(x.pod_id), flags,
                                  runpod_silent(self.ctx.health.get(views[x.pod_id][0] if x.pod_id in views
                                                                    else x.account)))
                      if x.pod_id in said else x for x in merged]
            fresh = [x for x in merged if before.get(x.pod_id) != x]
            cache.loss_rows.upsert(conn, fresh)
            cache.pod_rows.flag(conn, flags)
        confirmed = {k for k, x in before.items() if x.state == "confirmed"}
        res.losses = [x for x in fresh if x.pod_id not in confirmed and x.state == "confirmed"]
        res.flagged = list(flags)
        self._merged = True
        return res
