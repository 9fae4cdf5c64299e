"""Polls of Sagan and every account into the cache: the round, each source on its own with its own backoff.

What each source's poll reads and writes is in sagan_poll.py and account_poll.py (the missing
pods' direct reads in direct_reads.py); what a poll changed, in changes.py.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from dataclasses import replace
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Any, Awaitable, Callable, Mapping

from sagan_tui.config_model import Settings
from sagan_tui.models import HealthState, SourceHealth, utcnow
from sagan_tui.sources.errors import ErrorKind, SourceError, scrub
from sagan_tui.sources.runpod_base import RunPodTransport
from sagan_tui.sources.runpod_select import make_transports
from sagan_tui.sources.sagan import SaganClient
from sagan_tui.store.cache import Cache
from sagan_tui.sync.account_poll import AccountPoll
from sagan_tui.sync.changes import ChangeSet, SourceResult, merged
from sagan_tui.sync.detect import Seen
from sagan_tui.sync.direct_reads import read_allowance, read_directly
from sagan_tui.sync.sagan_poll import EVENT_PAGE, EVENT_PAGES_PER_POLL, SAGAN, SaganPoll, _together, weigh_sagan

# Imported from here by callers of the poller (its tests and benches among them).
__all__ = ["ChangeSet", "EVENT_PAGE", "EVENT_PAGES_PER_POLL", "Poller", "make_transports", "merged",
           "read_allowance", "read_directly", "weigh_sagan", "_together"]

log = logging.getLogger(__name__)
MAX_BACKOFF_S = 300.0


class Poller(SaganPoll, AccountPoll):
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
                res = SourceResult()
            for reason in res.skipped:
                log.warning("skipped record: %s", reason)
            return ChangeSet(
                at=started, duration_s=time.perf_counter() - t0, health=MappingProxyType(dict(self._health)),
                experiments=tuple(res.experiments), events_added=res.events_added,
                approvals_changed=res.approvals_changed, pods_changed=tuple(res.pods_changed),
                pods_gone=tuple(res.pods_gone), new_losses=tuple(res.losses),
                skipped=tuple(res.skipped), polled=(name,), pods_missing=tuple(res.missing),
                withdrawn=tuple(res.withdrawn), doubtful=tuple(res.doubtful),
                phantoms=tuple(res.phantoms))

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
