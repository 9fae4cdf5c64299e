"""Figure: `watch`'s CPU per poll beside `sync`'s on the same 10,000-pod fleet (bench_fleet's).

Two pollers on fresh caches of the same fleet (each its own simulators), polling one after the
other in each interval of the `sync` schedule (every 2 s), after two warm-up polls: `sync`'s
loop (a `Poller`'s poll, then what the command does after each: its line, the file check, the
poll's memory given back) and `Watch.poll_once` (the same poll, then the triage of the cache's
confirmed losses, the alerts' step and their rows written, the memory given back; no page
target, so no page leaves). This process's median CPU per poll is compared (watch's work after
a poll is what the ratio adds); `detail` has each one's worst poll, for watch one that triaged
again. A 1,000-pod fleet of the same shape stands beside it in `detail`.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from argparse import Namespace
from pathlib import Path

from bench_fleet import INTERVAL_S, fleet_servers
from common import Figure, main, own_servers, quiet_logging, settings_for_sim


class Side:
    """One poller on its own simulators and cache: `sync`'s loop, or watch's."""

    def __init__(self, env: dict[str, str], urls: dict[str, str], cache_path: Path, watching: bool) -> None:
        from sagan_tui.commands.sync import after_poll
        from sagan_tui.commands.watch import Watch
        from sagan_tui.core.store.cache import Cache
        from sagan_tui.core.sync.poller import Poller

        settings = settings_for_sim(env, cache_path)
        self.cache = Cache(settings.cache_path)
        self.poller = Poller(settings, self.cache, transports=own_servers(settings, urls))
        self.watch = Watch(Namespace(for_seconds=None), settings, self.cache, [], None, [],
                           poller=self.poller) if watching else None
        self.said: list[str] = []
        if self.watch is not None:
            self.watch.say = self.watch.pager.say = self.said.append
        self.cpus: list[float] = []
        self.after_poll = after_poll  # sync's own step after each poll (timed with it)

    async def once(self) -> None:
        if self.watch is not None:
            await self.watch.poll_once()
        else:
            self.after_poll(await self.poller.poll_once(force=True), self.cache, say=self.said.append)

    async def close(self) -> None:
        if self.watch is not None:
            await self.watch.close(drain_s=1)
        else:
            await self.poller.aclose()
            self.cache.close()


async def alternate(sync_side: tuple, watch_side: tuple, count: int, interval: float) -> tuple[Side, Side]:
    """Both pollers in one interval after another, every interval, so that the machine's noise
    falls on both alike (run one after the other, a busy minute moved the ratio by a tenth)."""
    sides = Side(*sync_side, False), Side(*watch_side, True)
    try:
        for _ in range(2):
            for side in sides:
                await side.once()
        for i in range(count):
            w = time.perf_counter()
            for side in sides if i % 2 == 0 else sides[::-1]:
                c = time.process_time()
                await side.once()
                side.cpus.append(time.process_time() - c)
            await asyncio.sleep(max(0.0, interval - (time.perf_counter() - w)))
    finally:
        for side in sides:
            await side.close()
    return sides


def measure(pods: int, count: int, interval: float) -> dict:
    # Each its own simulators, started together: the fleet's scenario runs on (its wave, a balance
    # running out) alike for both.
    with fleet_servers(pods, "sagan-bench-watch-") as (env_s, urls_s, home_s), \
            fleet_servers(pods, "sagan-bench-watch-") as (env_w, urls_w, home_w):
        sync, watch = asyncio.run(alternate((env_s, urls_s, home_s / "sync.sqlite"),
                                            (env_w, urls_w, home_w / "watch.sqlite"), count, interval))
    # The worst: for watch, a poll whose losses changed, triaged again.
    return {"pods": pods, "sync_cpu_s": statistics.median(sync.cpus), "watch_cpu_s": statistics.median(watch.cpus),
            "sync_worst_s": max(sync.cpus), "watch_worst_s": max(watch.cpus)}


def run(small: bool = False) -> list[Figure]:
    quiet_logging()
    big, base = (500, 50) if small else (10_000, 1_000)
    count, interval = (2, 0.2) if small else (15, INTERVAL_S)
    b, r = measure(base, count, interval), measure(big, count, interval)
    info = {"interval_s": interval, "polls": count, "fleet": r, "baseline_fleet": b}
    return [Figure("watch_cpu", f"watch's CPU per poll of {big:,} pods vs sync's (no page target)",
                   r["watch_cpu_s"], r["sync_cpu_s"], "s", "<= 1.1x", 1.1, detail=info)]


if __name__ == "__main__":
    main(run)
