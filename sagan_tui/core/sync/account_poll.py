"""An account's half of a poll: its pods listed, reconciled with what the cache holds, and written."""

from __future__ import annotations

import functools
import logging
import time
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Mapping

from sagan_tui.wire.basics import STOPPED_STATES, ts
from sagan_tui.core.models import Loss, RunPodPod
from sagan_tui.core.sources.runpod_base import RunPodTransport
from sagan_tui.core.store.pod_rows import PHANTOM
from sagan_tui.core.sync.changes import SourceResult, Written
from sagan_tui.core.sync.detect import ListFacts, Seen, reconcile
from sagan_tui.core.sync.direct_reads import DIRECT_READS_BUDGET_S, read_allowance, read_directly, write_reads
from sagan_tui.core.sync.sagan_word import sagan_agreed, settled
from sagan_tui.core.sync.stop_evidence import exit_audit, exits_of, read_wave_evidence
from sagan_tui.core.sync.system_log import MOST as SYSLOG_MOST, read_loss_syslog

if TYPE_CHECKING:
    from sagan_tui.core.sync.poll_context import PollContext

log = logging.getLogger(__name__)


class AccountPoller:
    """Every account's poll: its list read, reconciled with what the cache holds and written in one
    transaction, its missing pods read directly (core/sync/poller.py holds the round and the backoff)."""

    def __init__(self, ctx: "PollContext", transports: "dict[str, RunPodTransport]"):
        self.ctx = ctx
        self.transports = transports
        self._live: dict[str, dict[str, Seen]] = {}  # per account: its live pods as last written

    def _live_pods(self, conn, name: str) -> dict[str, Seen]:
        """The account's live pods exactly as the cache holds them, inside the write transaction.

        Reading and parsing every pod row was a third of a poll's CPU at 1,000 pods, so what this
        poller wrote last time is kept in memory; the cache stays the truth: a pod whose
        last_seen_at is not the one kept (the first poll, another panel or `sync` on the same
        file) is read again from it, and one no longer live there is dropped.
        """
        kept, stamp = self._live.get(name, {}), functools.lru_cache(maxsize=8)(ts)  # one poll, one stamp
        live, stale = {}, []
        for pod_id, stored in self.ctx.cache.pod_rows.live_stamps(conn, name).items():
            seen = kept.get(pod_id)
            if seen is not None and stamp(seen.last_seen_at) == stored:
                live[pod_id] = seen
            else:
                stale.append(pod_id)
        if stale:
            live.update((pod_id, Seen.of(c)) for pod_id, c in self.ctx.cache.pod_rows.live(conn, name, stale).items())
        return live

    async def poll(self, name: str) -> SourceResult:
        """One poll of account `name`: its list written, its missing pods read, its new losses' evidence
        (billing and audit log, then each one's system log)."""
        ctx = self.ctx
        asked = time.monotonic()
        transport = self.transports[name]
        snap = await transport.snapshot()
        now = ctx.clock()
        took = timedelta(seconds=time.monotonic() - asked)
        audit = await exit_audit(transport, ctx.cache, ctx.offload, name, now)
        res = await ctx.offload(self._write, name, snap, now, took, audit)
        if res.to_read:
            # A missing pod is asked for by id: RunPod's not-found confirms it within this poll,
            # a pod that is there clears it; one that cannot be read waits for the next list.
            reads = await read_directly(transport, res.to_read, self._read_allowance(transport),
                                        min(DIRECT_READS_BUDGET_S, ctx.settings.request_timeout))
            if reads:
                res.add(await ctx.offload(self._write_reads, name, reads, ctx.clock()))
        await self.read_evidence(name, res.losses, now)
        return res

    async def read_evidence(self, name: str, losses: list[Loss], now: datetime) -> None:
        """RunPod's word on the account's new losses, each asked once: billing and audit log, then
        each pod's system log. The Sagan poll's confirmations come here too (poller.py)."""
        transport = self.transports.get(name)
        if transport is None or not losses:
            return
        ctx = self.ctx
        await read_wave_evidence(transport, ctx.cache, ctx.offload, name, losses, now)
        await read_loss_syslog(transport, ctx.cache, ctx.offload, name, losses, now,
                               min(SYSLOG_MOST, self._read_allowance(transport)))

    def _read_allowance(self, transport: RunPodTransport) -> int:
        windows = getattr(getattr(transport, "rest", transport), "rate_limit", None) or {}
        return read_allowance(windows.values(), self.ctx.settings.poll_interval)

    def _write(self, name, snap, now, took: timedelta = timedelta(0), audit=None) -> SourceResult:
        cache = self.ctx.cache
        unreadable = len(snap.skipped)  # every record of the list that could not be read
        before = self.ctx.health[name]
        h = replace(self.ctx.ok(name, now, now - took, commit=False, balance=snap.balance,
                             spend_per_hr=snap.spend_per_hr, spend_limit=snap.spend_limit,
                             under_balance=snap.under_balance, balance_note=snap.balance_note,
                             billing_mode=snap.billing_mode),
                    unreadable=unreadable,
                    unreadable_since=(before.unreadable_since or now) if unreadable else None,
                    duplicates=len(snap.duplicates),
                    duplicates_since=(before.duplicates_since or now) if snap.duplicates else None)
        with cache.transaction() as conn:
            # Read under the write lock: Sagan's write (its pods' experiments, and setting them on
            # the pods it finds without) is wholly before this or wholly after. Read before it, a
            # Sagan write in between left this poll's new pods without their experiment.
            experiment_of = cache.sagan_rows.pod_experiments(name)
            stops = cache.action_rows.owner_stops() | cache.sagan_rows.stops()
            # One pod, one account: a pod live under another account's key stays that account's,
            # flagged, never moved (and never lost for the move).
            prev = self._live_pods(conn, name)
            owners = cache.pod_rows.owners(conn, [p.id for p in snap.pods if p.id not in prev])  # new here only
            foreign = {p.id: owners[p.id] for p in snap.pods if owners.get(p.id, name) != name}
            pods = [p for p in snap.pods if p.id not in foreign]
            for pod in pods:
                if pod.experiment is None:
                    pod.experiment = experiment_of.get(pod.id)
            for pod_id, seen in prev.items():
                if seen.experiment is None and experiment_of.get(pod_id) is not None:
                    prev[pod_id] = seen.with_experiment(experiment_of[pod_id])
            known, said_at = {}, {}
            for pod_id, source, state, lost_at in cache.loss_rows.of_account(conn, name):
                known[pod_id], said_at[pod_id] = (source, state), lost_at
            # A loss Sagan reported first still takes this poll's evidence (when it was last seen
            # running, from the poll's own dates): only one the poll already confirmed is skipped.
            polled = {pod_id for pod_id, (source, state) in known.items()
                      if "runpod-poll" in source.split("+") and state == "confirmed"}
            returning = [p.id for p in pods if p.id not in prev and p.id in known]
            held = {x.pod_id: x for x in cache.loss_rows.read(pod_ids=returning, states=None)} if returning else {}
            facts = ListFacts(incomplete=snap.incomplete, unreadable=frozenset(snap.unreadable),
                              unnamed=snap.unnamed, also_listed=snap.also_listed)
            # Sagan's rows say which pods existed; only those not yet established are asked about.
            sagan_known = cache.sagan_rows.known(conn, [i for i, p in prev.items() if not p.established])
            rec = reconcile(name, pods, prev, now, stops, polled, facts, took=took, held=held,
                            established=sagan_known)
            # Sagan's word against a pod this poll, begun after it, lists live: disproved.
            began = ts(now - took)
            rec.withdrawn += [(p.id, f"Sagan's word disproved: RunPod listed it {p.desired_status} at {now:%H:%M:%S}")
                              for p in pods if (p.id not in prev or prev[p.id].missing_since is None)
                              and known.get(p.id, ("", ""))[1] == "missing" and said_at[p.id] <= began
                              and p.desired_status not in STOPPED_STATES]
            # Sagan's waiting word of pods this complete list does not hold (under either key): confirmed.
            agreed = [] if snap.incomplete else sagan_agreed(cache, known, prev, [*rec.live, *foreign],
                                                             facts, now)
            # Exits nobody asked for (core/sync/exits.py): judged a poll later, against the balance and audit log.
            exited = exits_of(cache, conn, name, snap, prev, now, stops,
                              {k: v[0] for k, v in known.items() if v[1] == "confirmed"}, audit, rec.changed)
            confirmed = {x.pod_id for x in [*rec.losses, *exited] if x.state == "confirmed"}
            losses = [*map(settled, self._joined([*rec.losses, *exited], {k: v[0] for k, v in known.items()})),
                      *agreed]
            # The rows as stored, handed to the session as they are (no read back of its own poll's
            # writes): but a live one this list did not date, which `pods_seen` may date by the
            # account's complete list (an unreadable record's pod), is left for it to read.
            at = cache.commits + 1  # this transaction's, once committed
            written = {c.pod_id: Written(at, c) for c in cache.pod_rows.upsert(conn, rec.upserts)
                       if c.gone_at is not None or c.missing_since is not None or c.last_seen_at == now}
            if snap.skipped or snap.incomplete:
                cache.pod_rows.touch(conn, rec.touched)  # only those listed were seen
            else:  # every live pod was listed: one row says so (`pods_seen` dates no missing pod by it)
                cache.pod_rows.account_seen(conn, name, now)
            cache.pod_rows.add_observations(conn, rec.observations)
            withdrawn = cache.loss_rows.withdraw(conn, [w for w in rec.withdrawn if w[0] not in confirmed], now)
            cache.loss_rows.upsert(conn, losses)
            cache.pod_rows.flag(conn, {pid: f"listed by both {owner} and {name} keys" for pid, owner in foreign.items()})
            cache.health_rows.record_balance(conn, name, now, snap.balance, snap.under_balance, snap.spend_per_hr,
                                             snap.spend_limit, billing_mode=snap.billing_mode)
            if rec.phantoms or before.phantoms:  # counted over a day: it falls back to 0 by itself
                h = replace(h, phantoms=cache.pod_rows.phantom_count(conn, name, now))
            cache.health_rows.set(conn, h)
        # Only once committed: a failed write leaves the health (and its backoff) and the pods as they were.
        self.ctx.health[name] = h
        self._live[name] = rec.live
        skipped = [f"{name}: {s}" for s in snap.skipped]
        if snap.incomplete:
            skipped.append(f"{name}: {snap.incomplete} (list incomplete: no pod read as missing)")
        skipped += [f"{name}: pod {pid} listed by the {owner} key too: kept under {owner}"
                    for pid, owner in foreign.items()]
        skipped += [f"{name}: pod {pid} {why}" for pid, why in snap.duplicates.items()]
        if rec.phantoms:
            log.info("%s: %d pod(s) %s: %s", name, len(rec.phantoms), PHANTOM, ", ".join(rec.phantoms[:10]))
        return SourceResult(pods_changed=rec.changed, pods_gone=rec.gone,
                       losses=[x for x in losses if x.state == "confirmed" and known.get(x.pod_id, ("", ""))[1]
                               != "confirmed"],
                       skipped=skipped, missing=rec.missing, withdrawn=withdrawn,
                       doubtful=[f"{name}: {rec.doubtful}"] if rec.doubtful else [], phantoms=rec.phantoms,
                       to_read=sorted((pid for pid, s in rec.live.items() if s.missing_since is not None),
                                      key=lambda pid: rec.live[pid].missing_since, reverse=True),
                       written=written, flagged=list(foreign))

    def _write_reads(self, name: str, reads: Mapping[str, "RunPodPod | None"], now: datetime) -> SourceResult:
        """What direct reads of missing pods said (core/sync/direct_reads.py), kept in `_live` as written."""
        return write_reads(self.ctx.cache, self._live.get(name), name, reads, now)

    def _joined(self, found: list[Loss], known: Mapping[str, str]) -> list[Loss]:
        """The poll's losses, each merged with the loss the cache already holds of the same pod."""
        from sagan_tui.core.triage.losses import combine

        ids = [x.pod_id for x in found if x.pod_id in known]
        held = {x.pod_id: x for x in self.ctx.cache.loss_rows.read(pod_ids=ids, states=None)} if ids else {}
        out = []
        for x in found:
            h = held.get(x.pod_id)
            if h is None:
                out.append(x)
                continue
            joined = combine([x, h])
            if (x.state == "missing" and "sagan" in h.source.split("+") and x.last_seen_at is not None
                    and h.lost_at >= x.last_seen_at):
                # Sagan's not-found came after RunPod last listed the pod: two sources agree.
                joined = joined.model_copy(update={"state": "confirmed",
                                                   "confirmed_by": "Sagan's not-found after RunPod stopped listing it"})
            out.append(joined)
        return out
