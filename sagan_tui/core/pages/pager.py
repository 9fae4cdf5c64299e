"""Sending pages: one queue per target (a hanging endpoint holds up only its own pages), each page
retried with backoff, updates of one alert rate-limited per target (the latest kept, sent once the
gap has passed; an end supersedes it). What happened is said through `say`, one line each, and
each target's state through `status` (for the cache's page health); nothing here raises."""

from __future__ import annotations

import asyncio
import time
from typing import Awaitable, Callable, Sequence

from sagan_tui.core.pages.alerts import Page
from sagan_tui.core.pages.senders import PageFailed
from sagan_tui.core.pages.targets import Target

TRIES = 3
BACKOFF_S = 1.0  # before the 2nd try; doubled before each next
MIN_GAP_S = 30.0  # between two updates of one alert to one target: growth every poll is one page


class Pager:
    def __init__(self, targets: Sequence[Target], senders: Sequence, *, say: Callable[[str], None],
                 status: Callable[[str, str | None], None] = lambda shown, error: None,
                 tries: int = TRIES, backoff_s: float = BACKOFF_S, min_gap_s: float = MIN_GAP_S,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep):
        self.targets, self.senders = list(targets), list(senders)
        self.say, self.status = say, status
        self.tries, self.backoff_s, self.min_gap_s = tries, backoff_s, min_gap_s
        self.clock, self.sleep = clock, sleep
        self._queues: list[asyncio.Queue] = [asyncio.Queue() for _ in self.targets]
        self._workers: list[asyncio.Task] = []
        self._last: dict[tuple[int, str], float] = {}
        self._deferred: dict[tuple[int, str], Page] = {}
        self.sent = 0
        self.failed = 0

    def submit(self, pages: Sequence[Page]) -> None:
        """Queue each page for every target that takes its kind; updates inside the gap wait."""
        self._start()
        now = self.clock()
        for page in pages:
            for i, t in enumerate(self.targets):
                if not t.accepts(page.kind, page.event):
                    continue
                slot = (i, page.key)
                # a forming cluster become a wave is the page that matters most: never held back
                if page.action == "update" and page.event != "wave" and now - self._last.get(slot, -1e18) < self.min_gap_s:
                    self._deferred[slot] = page  # the latest of the burst goes once the gap has passed
                    continue
                self._deferred.pop(slot, None)
                self._last[slot] = now
                self._queues[i].put_nowait(page)

    def flush(self) -> None:
        """Send the updates whose gap has passed (called every poll)."""
        now = self.clock()
        due = [slot for slot in self._deferred if now - self._last.get(slot, -1e18) >= self.min_gap_s]
        for slot in due:
            self._last[slot] = now
            self._queues[slot[0]].put_nowait(self._deferred.pop(slot))

    def pending(self) -> int:
        return sum(q.qsize() for q in self._queues) + len(self._deferred)

    async def drain(self, timeout_s: float) -> None:
        """Wait up to `timeout_s` for what is queued (the deferred updates go first), then stop."""
        for slot in list(self._deferred):
            self._queues[slot[0]].put_nowait(self._deferred.pop(slot))
        try:
            await asyncio.wait_for(asyncio.gather(*(q.join() for q in self._queues)), timeout_s)
        except asyncio.TimeoutError:
            left = sum(q.qsize() for q in self._queues)
            self.say(f"paging: {left} page(s) not sent before stopping")
        await self.aclose()

    async def aclose(self) -> None:
        for w in self._workers:
            w.cancel()
        await asyncio.gather(*self._workers, return_exceptions=True)
        self._workers.clear()

    def _start(self) -> None:
        if not self._workers:
            self._workers = [asyncio.create_task(self._work(i)) for i in range(len(self.targets))]

    async def _work(self, i: int) -> None:
        q, shown = self._queues[i], self.targets[i].shown
        while True:
            page = await q.get()
            try:
                await self._deliver(i, page, shown)
            finally:
                q.task_done()

    async def _deliver(self, i: int, page: Page, shown: str) -> None:
        for attempt in range(1, self.tries + 1):
            try:
                await self.senders[i].send(page)
            except PageFailed as why:
                self.status(shown, str(why))
                retry = attempt < self.tries
                wait = self.backoff_s * 2 ** (attempt - 1)
                self.say(f"paging failed: {why} ({page.event} {page.key} to {shown}; try {attempt} of {self.tries}"
                         + (f", again in {wait:g} s)" if retry else ", given up)"))
                if not retry:
                    self.failed += 1
                    return
                await self.sleep(wait)
            except Exception as exc:  # a bug in a sender must not end the watch
                self.status(shown, type(exc).__name__)
                self.say(f"paging failed: {shown} {type(exc).__name__} ({page.event} {page.key})")
                self.failed += 1
                return
            else:
                self.sent += 1
                self.status(shown, None)
                self.say(f"page sent: {page.event} {page.key} to {shown}")
                return
