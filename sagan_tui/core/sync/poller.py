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

from sagan_tui.core.config_model import Settings
from sagan_tui.core.models import HealthState, SourceHealth, utcnow
from sagan_tui.core.sources.errors import ErrorKind, SourceError, scrub
from sagan_tui.core.sources.runpod_base import RunPodTransport
from sagan_tui.core.sources.runpod_select import make_transports
from sagan_tui.core.sources.sagan import SaganClient
from sagan_tui.core.store.cache import Cache
from sagan_tui.core.sync.account_poll import AccountPoller
from sagan_tui.core.sync.changes import ChangeSet, SourceResult, merged
from sagan_tui.core.sync.direct_reads import read_allowance, read_directly
from sagan_tui.core.sync.poll_context import PollContext
from sagan_tui.core.sync.sagan_poll import EVENT_PAGE, EVENT_PAGES_PER_POLL, SAGAN, SaganPoller, _together, weigh_sagan

# Imported from here by callers of the poller (its tests and benches among them).
__all__ = ["ChangeSet", "EVENT_PAGE", "EVENT_PAGES_PER_POLL", "Poller", "make_transports", "merged",
           "read_allowance", "read_directly", "weigh_sagan", "_together"]

log = logging.getLogger(__name__)
MAX_BACKOFF_S = 300.0


class Poller:
    """A source's polls never overlap (one lock each); a failing source waits out its own backoff alone.

    It holds the round, each source's health and backoff; what a poll reads and writes is its
    `sagan_poller`'s (sagan_poll.py) or its `account_poller`'s (account_poll.py).
    """

    def __init__(self, settings: Settings, cache: Cache, *, sagan: SaganClient | None = None,
                 transports: dict[str, RunPodTransport] | None = None,
                 offload: Callable[..., Awaitable[Any]] | None = None,
                 clock: Callable[[], datetime] | None = None):
        self.settings = settings
        self.cache = cache
        self.ctx = PollContext(settings, cache, clock or utcnow, offload or asyncio.to_thread)
        token = settings.sagan_api_token.get_secret_value() if settings.sagan_api_token else None
        self.sagan_poller = SaganPoller(self.ctx, sagan or SaganClient(
            settings.sagan_base_url, token, timeout=settings.request_timeout, max_reply_bytes=settings.max_reply_bytes))
        self.account_poller = AccountPoller(self.ctx, transports if transports is not None
                                            else make_transports(settings))
        self._secrets = settings.secrets()
        self._locks: dict[str, asyncio.Lock] = {}
        self._health = self.ctx.health  # the pollers' own: each sets its source's after a poll's write
        known = cache.health_rows.read()
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

    @property
    def sagan(self) -> SaganClient:
        return self.sagan_poller.sagan

    @property
    def transports(self) -> dict[str, RunPodTransport]:
        """Each account's transport, by account name (the account poller's)."""
        return self.account_poller.transports

    @transports.setter
    def transports(self, transports: dict[str, RunPodTransport]) -> None:
        self.account_poller.transports = transports

    @property
    def clock(self) -> Callable[[], datetime]:
        """When a poll happened: a test steps it with the simulator's served time."""
        return self.ctx.clock

    @clock.setter
    def clock(self, clock: Callable[[], datetime]) -> None:
        self.ctx.clock = clock

    @property
    def offload(self) -> Callable[..., Awaitable[Any]]:
        """Where the cache is written (a thread); the panel's session gives its one writer thread."""
        return self.ctx.offload

    @offload.setter
    def offload(self, offload: Callable[..., Awaitable[Any]]) -> None:
        self.ctx.offload = offload

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
        tasks = [asyncio.ensure_future(self.poll_source(n)) for n in names]
        try:
            parts = await asyncio.gather(*tasks)
        except BaseException:
            # One source's failure that is no source's health (the cache's full disk) or a cancel:
            # the others end here too, before the caller closes the clients and the cache under
            # them (a Sagan read left running met a closed client, then a closed database).
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        return merged(parts, started, time.perf_counter() - t0, self.health)

    async def poll_source(self, name: str) -> ChangeSet:
        """Ask one source now and write what it said; a source never overlaps itself, and one
        source's slow reply delays no other (the panel runs each on its own schedule)."""
        lock = self._locks.setdefault(name, asyncio.Lock())
        async with lock:
            started, t0 = self.clock(), time.perf_counter()
            try:
                res = await (self.sagan_poller.poll() if name == SAGAN else self.account_poller.poll(name))
                if name == SAGAN and res.losses:  # losses Sagan's word confirmed: RunPod's evidence of them
                    await self._evidence_of(res.losses)
            except sqlite3.Error:  # the cache failed (a full disk), not the source:
                raise               # it is no source's health; the caller says what
            except Exception as exc:  # noqa: BLE001 - a source's failure is its health, never the loop's end
                await self._failed(name, exc)
                res = SourceResult()
            for reason in res.skipped:
                log.warning("skipped record: %s", reason)
            return res.changes(name, started, time.perf_counter() - t0, self._health)

    async def _evidence_of(self, losses: list) -> None:
        now = self.clock()
        for account in sorted({x.account for x in losses}):
            await self.account_poller.read_evidence(account, [x for x in losses if x.account == account], now)

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
            self.cache.health_rows.set(conn, h)
