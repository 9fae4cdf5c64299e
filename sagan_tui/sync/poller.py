"""Polls of Sagan and every account into the cache: each source on its own, with its own backoff."""

from __future__ import annotations

import asyncio
import functools
import logging
import math
import sqlite3
import time
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from types import MappingProxyType
from typing import Any, Awaitable, Callable, Mapping

from sagan_tui.config import Settings
from sagan_tui.basics import STOPPED_STATES
from sagan_tui.models import HealthState, Loss, RunPodPod, SourceHealth, utcnow
from sagan_tui.sources.errors import ErrorKind, SourceError, scrub
from sagan_tui.sources.runpod_base import RunPodTransport
from sagan_tui.sources.runpod_select import make_transports
from sagan_tui.sources.sagan import SaganClient
from sagan_tui.store.cache import Cache, parse_ts, ts
from sagan_tui.sync.detect import ListFacts, Seen, reconcile
from sagan_tui.store.evidence_rows import flag_pods
from sagan_tui.sync.stop_evidence import exit_audit, exits_of, read_wave_evidence

log = logging.getLogger(__name__)
SAGAN = "sagan"
MAX_BACKOFF_S = 300.0
EVENT_PAGE = 2000
EVENT_PAGES_PER_POLL = 10
EVENT_PAGE_MAX = EVENT_PAGE * 16  # 32,000 events, ~13 MB: within the reply bound
# Re-read a little before the cursor: a clock skew or a late write must not hide an update.
CURSOR_OVERLAP = timedelta(seconds=5)
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
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


def _bounded(cursor: datetime, now: datetime) -> datetime:
    """A cursor taken from the server's timestamps, kept between 1970 and now: one record dated
    in the future would otherwise hide every later update, one dated year 1 break the arithmetic."""
    return min(max(cursor, EPOCH), now)


@dataclass(frozen=True)
class ChangeSet:
    """What one poll changed, for the panel to apply by key; and each source's health after it."""

    at: datetime
    duration_s: float
    health: Mapping[str, SourceHealth]
    experiments: tuple[int, ...] = ()
    events_added: int = 0
    approvals_changed: bool = False
    pods_changed: tuple[str, ...] = ()
    pods_gone: tuple[str, ...] = ()
    new_losses: tuple[Loss, ...] = ()
    skipped: tuple[str, ...] = ()
    polled: tuple[str, ...] = ()
    pods_missing: tuple[str, ...] = ()  # absent from a list, not yet confirmed lost
    withdrawn: tuple[str, ...] = ()  # losses (or suspicions) disproved: out of every wave
    doubtful: tuple[str, ...] = ()  # "team: 7 of 7 live pods unlisted at once"

    def summary_line(self) -> str:
        parts = [self.at.strftime("%H:%M:%S")]
        for name, h in self.health.items():
            mark = "ok" if h.state == HealthState.OK else (
                h.state.value if not h.error_kind else f"ERR {h.error_kind.value}")
            extra = "" if name in self.polled or h.state == HealthState.DISABLED else " (backing off)"
            parts.append(f"{name}={mark}{extra}")
        parts.append(f"exp={len(self.experiments)} ev+={self.events_added} pods~={len(self.pods_changed)}"
                     f" gone={len(self.pods_gone)} lost+={len(self.new_losses)}")
        if self.pods_missing:
            parts.append(f"missing={len(self.pods_missing)}")
        if self.withdrawn:
            parts.append(f"withdrawn={len(self.withdrawn)}")
        if self.doubtful:
            parts.append("doubtful(" + "; ".join(self.doubtful) + ")")
        if self.skipped:
            parts.append(f"skipped={len(self.skipped)}")
        parts.append(f"{self.duration_s * 1000:.0f}ms")
        return " ".join(parts)


def merged(parts: "list[ChangeSet]", at: datetime, duration_s: float,
           health: Mapping[str, SourceHealth]) -> ChangeSet:
    """Several sources' ChangeSets as one (a `sync` cycle)."""
    return ChangeSet(
        at=at, duration_s=duration_s, health=MappingProxyType(dict(health)),
        experiments=tuple(n for p in parts for n in p.experiments),
        events_added=sum(p.events_added for p in parts),
        approvals_changed=any(p.approvals_changed for p in parts),
        pods_changed=tuple(i for p in parts for i in p.pods_changed),
        pods_gone=tuple(i for p in parts for i in p.pods_gone),
        new_losses=tuple(x for p in parts for x in p.new_losses),
        skipped=tuple(r for p in parts for r in p.skipped), polled=tuple(n for p in parts for n in p.polled),
        pods_missing=tuple(i for p in parts for i in p.pods_missing),
        withdrawn=tuple(i for p in parts for i in p.withdrawn), doubtful=tuple(d for p in parts for d in p.doubtful))


@dataclass
class _Result:
    experiments: list[int] = field(default_factory=list)
    events_added: int = 0
    approvals_changed: bool = False
    pods_changed: list[str] = field(default_factory=list)
    pods_gone: list[str] = field(default_factory=list)
    losses: list[Loss] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    withdrawn: list[str] = field(default_factory=list)
    doubtful: list[str] = field(default_factory=list)
    to_read: list[str] = field(default_factory=list)  # missing pods to read directly, most recent first

    def add(self, other: "_Result") -> None:
        for name in ("pods_changed", "pods_gone", "losses", "skipped", "missing", "withdrawn", "doubtful"):
            getattr(self, name).extend(getattr(other, name))


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
                flags: dict[str, str]) -> Loss:
    """Sagan's terminated/not-found weighed against RunPod's view of the pod (pod_states' row).

    Sagan and RunPod agree before a loss: a pod RunPod's polls hold live and listed is only
    missing (its row flagged with the conflict), and a pod RunPod stopped listing is confirmed
    by a Sagan record at or after its last listing; a pod no poll of ours holds live is Sagan's
    to call, as it always was. A withdrawn loss of a pod still listed stays withdrawn.
    """
    if before is not None and before.state == "confirmed":
        return merged
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


class Poller:
    """A source's polls never overlap (one lock each); a failing source waits out its own backoff alone."""

    def __init__(self, settings: Settings, cache: Cache, *, sagan: SaganClient | None = None,
                 transports: dict[str, RunPodTransport] | None = None,
                 offload: Callable[..., Awaitable[Any]] | None = None,
                 clock: Callable[[], datetime] | None = None):
        self.settings = settings
        self.clock = clock or utcnow  # when a poll happened: a test steps it with the simulator's served time
        self.cache = cache
        token = settings.sagan_api_token.get_secret_value() if settings.sagan_api_token else None
        self.sagan = sagan or SaganClient(settings.sagan_base_url, token, timeout=settings.request_timeout,
                                          max_reply_bytes=settings.max_reply_bytes)
        self.transports = transports if transports is not None else make_transports(settings)
        self._secrets = settings.secrets()
        self._locks: dict[str, asyncio.Lock] = {}
        # Where the cache is written (a thread); the panel's session gives its one writer thread.
        self.offload = offload or asyncio.to_thread
        self._live: dict[str, dict[str, Seen]] = {}  # per account: its live pods as last written
        self._merged = False  # whether every Sagan pod row in the cache has been merged into losses
        self._health: dict[str, SourceHealth] = {}
        known = cache.health()
        for name in [SAGAN, *settings.accounts]:
            h = known.get(name) or SourceHealth(source=name)
            if name in settings.accounts and not settings.accounts[name].enabled:
                h = replace(h, state=HealthState.DISABLED, error_kind=ErrorKind.NO_KEY,
                            message=settings.accounts[name].disabled_reason)
            if name in self.transports:
                h = replace(h, transport=self.transports[name].name)
            # A restart retries at once: the backoff of a previous process is not ours to keep.
            self._health[name] = replace(h, next_attempt=None)

    @property
    def health(self) -> Mapping[str, SourceHealth]:
        return MappingProxyType(self._health)

    async def aclose(self) -> None:
        await self.sagan.aclose()
        for t in self.transports.values():
            await t.aclose()

    @property
    def busy(self) -> bool:
        return any(lock.locked() for lock in self._locks.values())

    @property
    def sources(self) -> tuple[str, ...]:
        """The sources a poll asks (disabled accounts are not asked)."""
        return tuple(n for n, h in self._health.items() if h.state != HealthState.DISABLED)

    def due_in(self, name: str, interval: float, now: datetime | None = None) -> float:
        """Seconds until `name` should be asked again: its interval, or longer while it backs off."""
        h = self._health[name]
        if h.next_attempt is None:
            return interval
        return max(interval, (h.next_attempt - (now or self.clock())).total_seconds())

    async def poll_once(self, *, force: bool = False) -> ChangeSet:
        """One cycle over every source at once (`sync`); `force` ignores backoff (refresh)."""
        started, t0 = self.clock(), time.perf_counter()
        names = [n for n in self.sources
                 if force or not (self._health[n].next_attempt and self._health[n].next_attempt > started)]
        parts = await asyncio.gather(*(self.poll_source(n) for n in names))
        return merged(parts, started, time.perf_counter() - t0, self.health)

    async def poll_source(self, name: str) -> ChangeSet:
        """Ask one source now and write what it said; a source never overlaps itself, and one
        source's slow reply delays no other (the panel runs each on its own schedule)."""
        lock = self._locks.setdefault(name, asyncio.Lock())
        async with lock:
            started, t0 = self.clock(), time.perf_counter()
            try:
                res = await (self._poll_sagan() if name == SAGAN else self._poll_account(name))
            except sqlite3.Error:  # the cache failed (a full disk), not the source:
                raise               # it is no source's health; the caller says what
            except Exception as exc:  # noqa: BLE001 - a source's failure is its health, never the loop's end
                await self._failed(name, exc)
                res = _Result()
            for reason in res.skipped:
                log.warning("skipped record: %s", reason)
            return ChangeSet(
                at=started, duration_s=time.perf_counter() - t0, health=MappingProxyType(dict(self._health)),
                experiments=tuple(res.experiments), events_added=res.events_added,
                approvals_changed=res.approvals_changed, pods_changed=tuple(res.pods_changed),
                pods_gone=tuple(res.pods_gone), new_losses=tuple(res.losses),
                skipped=tuple(res.skipped), polled=(name,), pods_missing=tuple(res.missing),
                withdrawn=tuple(res.withdrawn), doubtful=tuple(res.doubtful))

    async def _failed(self, name: str, exc: BaseException) -> None:
        now = self.clock()
        prev = self._health[name]
        n = prev.consecutive_failures + 1
        if isinstance(exc, SourceError):
            kind, message = exc.kind, exc.message
            retry_after = exc.retry_after
        else:  # a bug of ours must not kill the loop, nor leak a secret through its text
            kind, message, retry_after = ErrorKind.OTHER, f"{type(exc).__name__}: {exc}", None
            log.exception("poll of %s failed unexpectedly", name, exc_info=exc)
        delay = min(self.settings.poll_interval * 2 ** (n - 1), MAX_BACKOFF_S)
        if retry_after:
            delay = max(delay, retry_after)
        h = replace(prev, state=HealthState.ERROR, error_kind=kind, message=scrub(message, self._secrets),
                    last_attempt=now, consecutive_failures=n,
                    next_attempt=now + timedelta(seconds=delay) if n > 1 or retry_after else None)
        self._health[name] = h
        await self.offload(self._write_health, h)

    def _write_health(self, h: SourceHealth) -> None:
        with self.cache.transaction() as conn:
            self.cache.set_health(conn, h)

    def _ok(self, name: str, now: datetime, started: datetime | None = None, commit: bool = True,
            **money: object) -> SourceHealth:
        """`started`: when the poll that succeeded at `now` began (its duration counts in staleness).
        `commit=False`: the health to set once the poll's write has succeeded."""
        h = replace(self._health[name], state=HealthState.OK, error_kind=None, message=None, last_success=now,
                    last_attempt=started or now, consecutive_failures=0, next_attempt=None, **money)
        if commit:
            self._health[name] = h
        return h

    # --- Sagan -------------------------------------------------------------------------

    async def _poll_sagan(self) -> _Result:
        now = self.clock()
        cursor = self.cache.cursor(SAGAN)
        exp_since = ev_since = pods_since = None
        if cursor:
            parts = dict(p.split("=", 1) for p in cursor.split(";") if "=" in p)
            exp_since, ev_since, pods_since = (parse_ts(parts.get(k)) for k in ("exp", "ev", "pods"))
        if ev_since is None:
            ev_since = now - timedelta(days=self.settings.events_retention_days)
        exps, pods, approvals = await _together(
            self.sagan.experiments(exp_since - CURSOR_OVERLAP if exp_since else None),
            self.sagan.pods(pods_since - CURSOR_OVERLAP if pods_since else None),
            self.sagan.approvals("pending"))
        events, skipped = [], [*exps.skipped, *pods.skipped, *approvals.skipped]
        # The feed is read from `since` inclusive: the events at that instant come again, and
        # those already held are only counted (`held`); the page is sized to reach past them.
        since, known = ev_since, self.cache.event_ids_at(ev_since)
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
            by_id.update(self.cache.experiment_numbers())
            for e in unnumbered:
                e.experiment_number = by_id.get(e.entity_id)
        new_cursor = ";".join(f"{k}={ts(_bounded(v, now))}" for k, v in (
            ("exp", max((e.updated_at for e in exps.items if e.updated_at), default=exp_since)),
            ("ev", max((e.created_at for e in events), default=ev_since)),
            ("pods", max((p.updated_at for p in pods.items if p.updated_at), default=pods_since))) if v)
        result = await self.offload(self._write_sagan, now, exps.items, events, approvals.items,
                                         pods.items, new_cursor, bool(approvals.skipped))
        result.skipped += skipped
        return result

    def _write_sagan(self, now, exps, events, approvals, pods, cursor, approvals_partial=False) -> _Result:
        from sagan_tui.triage.losses import merge_losses, sagan_loss

        res = _Result(experiments=[e.number for e in exps], approvals_changed=True)
        if approvals_partial:
            # An unreadable record may be one we hold as pending: it has not been decided.
            listed = {a.id for a in approvals}
            approvals = [*approvals, *(a for a in self.cache.approvals("pending") if a.id not in listed)]
        with self.cache.transaction() as conn:
            self.cache.upsert_experiments(conn, exps)
            res.events_added = self.cache.upsert_events(conn, events)
            self.cache.replace_pending_approvals(conn, approvals)
            self.cache.upsert_sagan_pods(conn, pods)
            # Accounts are polled concurrently with Sagan: a pod first seen before its Sagan
            # row existed gets its experiment now, and so does its loss.
            known = "(select experiment_number from sagan_pods where runpod_pod_id = {t}.pod_id)"
            # Those pods changed (the panel re-reads only the pods a poll names).
            res.pods_changed = [r[0] for r in conn.execute(
                f"select pod_id from pods where experiment is null and {known.format(t='pods')} is not null")]
            conn.execute(f"update pods set experiment = {known.format(t='pods')}, data = json_set(data,"
                         f" '$.experiment', {known.format(t='pods')}) where experiment is null")
            conn.execute(f"update losses set experiment = {known.format(t='losses')} where experiment is null")
            self.cache.set_health(conn, self._ok(SAGAN, now), cursor=cursor)
        # Sagan's own evidence (terminated, "not found in account=") joins the poll's losses:
        # the rows this poll returned, the others having been merged when they came (merging is
        # idempotent); on a poller's first poll all of them, in case a previous process stopped
        # between the two transactions. Read and written under one write lock: an account's
        # thread committing its own loss of the same pod in between made it a new loss of both.
        rows = list({p.runpod_pod_id: p for p in pods}.values()) if self._merged else self.cache.sagan_pods()
        with self.cache.transaction() as conn:
            before = {x.pod_id: x for x in self.cache.losses(
                pod_ids=None if not self._merged else [p.runpod_pod_id for p in rows], states=None)}
            merged = merge_losses(list(before.values()), rows, owner_stops=frozenset(self.cache.owner_stops()))
            said = {x.pod_id: x for x in map(sagan_loss, rows) if x is not None}
            views = self.cache.pod_states(conn, [x.pod_id for x in merged if x.pod_id in said])
            flags: dict[str, str] = {}
            merged = [weigh_sagan(x, said[x.pod_id], before.get(x.pod_id), views.get(x.pod_id), flags)
                      if x.pod_id in said else x for x in merged]
            fresh = [x for x in merged if before.get(x.pod_id) != x]
            self.cache.upsert_losses(conn, fresh)
            flag_pods(conn, flags)
        confirmed = {k for k, x in before.items() if x.state == "confirmed"}
        res.losses = [x for x in fresh if x.pod_id not in confirmed and x.state == "confirmed"]
        self._merged = True
        return res

    # --- RunPod ------------------------------------------------------------------------

    def _live_pods(self, conn, name: str) -> dict[str, Seen]:
        """The account's live pods exactly as the cache holds them, inside the write transaction.

        Reading and parsing every pod row was a third of a poll's CPU at 1,000 pods, so what this
        poller wrote last time is kept in memory; the cache stays the truth: a pod whose
        last_seen_at is not the one kept (the first poll, another panel or `sync` on the same
        file) is read again from it, and one no longer live there is dropped.
        """
        kept, stamp = self._live.get(name, {}), functools.lru_cache(maxsize=8)(ts)  # one poll, one stamp
        live, stale = {}, []
        for pod_id, stored in self.cache.live_stamps(conn, name).items():
            seen = kept.get(pod_id)
            if seen is not None and stamp(seen.last_seen_at) == stored:
                live[pod_id] = seen
            else:
                stale.append(pod_id)
        if stale:
            live.update((pod_id, Seen.of(c)) for pod_id, c in self.cache.live_pods(conn, name, stale).items())
        return live

    async def _poll_account(self, name: str) -> _Result:
        asked = time.monotonic()
        transport = self.transports[name]
        snap = await transport.snapshot()
        now = self.clock()
        took = timedelta(seconds=time.monotonic() - asked)
        audit = await exit_audit(transport, self.cache, name, now)
        res = await self.offload(self._write_account, name, snap, now, took, audit)
        if res.to_read:
            # A missing pod is asked for by id: RunPod's not-found confirms it within this poll,
            # a pod that is there clears it; one that cannot be read waits for the next list.
            reads = await read_directly(transport, res.to_read, self._read_allowance(transport),
                                        min(DIRECT_READS_BUDGET_S, self.settings.request_timeout))
            if reads:
                res.add(await self.offload(self._write_reads, name, reads, self.clock()))
        await read_wave_evidence(transport, self.cache, self.offload, name, res.losses, now)
        return res

    def _read_allowance(self, transport: RunPodTransport) -> int:
        windows = getattr(getattr(transport, "rest", transport), "rate_limit", None) or {}
        return read_allowance(windows.values(), self.settings.poll_interval)

    def _write_account(self, name, snap, now, took: timedelta = timedelta(0), audit=None) -> _Result:
        unreadable = len(snap.skipped)  # every record of the list that could not be read
        before = self._health[name]
        h = replace(self._ok(name, now, now - took, commit=False, balance=snap.balance,
                             spend_per_hr=snap.spend_per_hr, spend_limit=snap.spend_limit,
                             under_balance=snap.under_balance, balance_note=snap.balance_note,
                             billing_mode=snap.billing_mode),
                    unreadable=unreadable,
                    unreadable_since=(before.unreadable_since or now) if unreadable else None)
        with self.cache.transaction() as conn:
            # Read under the write lock: Sagan's write (its pods' experiments, and setting them on
            # the pods it finds without) is wholly before this or wholly after. Read before it, a
            # Sagan write in between left this poll's new pods without their experiment.
            experiment_of = self.cache.sagan_pod_experiments(name)
            stops = self.cache.owner_stops() | self.cache.sagan_stops()
            # One pod, one account: a pod live under another account's key stays that account's,
            # flagged, never moved (and never lost for the move).
            prev = self._live_pods(conn, name)
            owners = self.cache.pod_owners(conn, [p.id for p in snap.pods if p.id not in prev])  # new here only
            foreign = {p.id: owners[p.id] for p in snap.pods if owners.get(p.id, name) != name}
            pods = [p for p in snap.pods if p.id not in foreign]
            for pod in pods:
                if pod.experiment is None:
                    pod.experiment = experiment_of.get(pod.id)
            for pod_id, seen in prev.items():
                if seen.experiment is None and experiment_of.get(pod_id) is not None:
                    prev[pod_id] = seen.with_experiment(experiment_of[pod_id])
            known, said_at = {}, {}
            for pod_id, source, state, lost_at in conn.execute(
                    "select pod_id, source, coalesce(state, 'confirmed'), lost_at from losses where account = ?",
                    (name,)):
                known[pod_id], said_at[pod_id] = (source, state), lost_at
            # A loss Sagan reported first still takes this poll's evidence (when it was last seen
            # running, from the poll's own dates): only one the poll already confirmed is skipped.
            polled = {pod_id for pod_id, (source, state) in known.items()
                      if "runpod-poll" in source.split("+") and state == "confirmed"}
            returning = [p.id for p in pods if p.id not in prev and p.id in known]
            held = {x.pod_id: x for x in self.cache.losses(pod_ids=returning, states=None)} if returning else {}
            facts = ListFacts(incomplete=snap.incomplete, unreadable=frozenset(snap.unreadable),
                              unnamed=snap.unnamed, also_listed=snap.also_listed)
            rec = reconcile(name, pods, prev, now, stops, polled, facts, took=took, held=held)
            # Sagan's word against a pod this poll, begun after it, lists live: disproved.
            began = ts(now - took)
            rec.withdrawn += [(p.id, f"Sagan's word disproved: RunPod listed it {p.desired_status} at {now:%H:%M:%S}")
                              for p in pods if p.id in prev and prev[p.id].missing_since is None
                              and known.get(p.id, ("", ""))[1] == "missing" and said_at[p.id] <= began
                              and p.desired_status not in STOPPED_STATES]
            # Exits nobody asked for (sync/exits.py): judged a poll later, against the balance and audit log.
            exited = exits_of(self.cache, conn, name, snap, prev, now, stops,
                              {k: v[0] for k, v in known.items() if v[1] == "confirmed"}, audit, rec.changed)
            confirmed = {x.pod_id for x in [*rec.losses, *exited] if x.state == "confirmed"}
            losses = self._joined([*rec.losses, *exited], {k: v[0] for k, v in known.items()})
            self.cache.settle_pods(conn, [c.pod_id for c in rec.upserts])
            self.cache.upsert_pods(conn, rec.upserts)
            if snap.skipped or snap.incomplete:
                self.cache.touch_pods(conn, rec.touched)  # only those listed were seen
            else:  # every live pod was listed: one row says so (`pods_seen` dates no missing pod by it)
                self.cache.account_seen(conn, name, now)
            self.cache.add_observations(conn, rec.observations)
            withdrawn = self.cache.withdraw_losses(
                conn, [w for w in rec.withdrawn if w[0] not in confirmed], now)
            self.cache.upsert_losses(conn, losses)
            flag_pods(conn, {pid: f"listed by both {owner} and {name} keys"
                                        for pid, owner in foreign.items()})
            self.cache.record_balance(conn, name, now, snap.balance, snap.under_balance, snap.spend_per_hr,
                                      snap.spend_limit, billing_mode=snap.billing_mode)
            self.cache.set_health(conn, h)
        # Only once committed: a failed write leaves the health (and its backoff) and the pods as they were.
        self._health[name] = h
        self._live[name] = rec.live
        skipped = [f"{name}: {s}" for s in snap.skipped]
        if snap.incomplete:
            skipped.append(f"{name}: {snap.incomplete} (list incomplete: no pod read as missing)")
        skipped += [f"{name}: pod {pid} listed by the {owner} key too: kept under {owner}"
                    for pid, owner in foreign.items()]
        return _Result(pods_changed=rec.changed, pods_gone=rec.gone,
                       losses=[x for x in losses if x.state == "confirmed" and known.get(x.pod_id, ("", ""))[1]
                               != "confirmed"],
                       skipped=skipped, missing=rec.missing, withdrawn=withdrawn,
                       doubtful=[f"{name}: {rec.doubtful}"] if rec.doubtful else [],
                       to_read=sorted((pid for pid, s in rec.live.items() if s.missing_since is not None),
                                      key=lambda pid: rec.live[pid].missing_since, reverse=True))

    def _write_reads(self, name: str, reads: Mapping[str, "RunPodPod | None"], now: datetime) -> _Result:
        """What direct reads of missing pods said: not found confirms the loss; listed clears it."""
        res = _Result()
        with self.cache.transaction() as conn:
            stops = self.cache.owner_stops() | self.cache.sagan_stops()
            # Only the pods read: the account's every row is not walked again for a few of them.
            live = {pid: Seen.of(c) for pid, c in self.cache.live_pods(conn, name, list(reads)).items()}
            held = {x.pod_id: x for x in self.cache.losses(pod_ids=list(reads), states=("missing",))}
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
            self.cache.upsert_pods(conn, upserts)
            self.cache.add_observations(conn, observed)
            res.withdrawn = self.cache.withdraw_losses(conn, cleared, now)
            self.cache.upsert_losses(conn, gone_losses)
        res.pods_changed = [c.pod_id for c in upserts]
        res.losses = gone_losses
        kept = self._live.get(name)
        if kept is not None:  # what was written, kept as the cache now holds it (no re-read of every pod)
            for pod_id in res.pods_gone:
                kept.pop(pod_id, None)
            for pod_id, _why in cleared:
                if pod_id in kept and pod_id not in res.pods_gone:
                    kept[pod_id] = kept[pod_id]._replace(missing_since=None)
        return res

    def _joined(self, found: list[Loss], known: Mapping[str, str]) -> list[Loss]:
        """The poll's losses, each merged with the loss the cache already holds of the same pod."""
        from sagan_tui.triage.losses import combine

        ids = [x.pod_id for x in found if x.pod_id in known]
        held = {x.pod_id: x for x in self.cache.losses(pod_ids=ids, states=None)} if ids else {}
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
