"""Figure: `watch`'s CPU per poll beside `sync`'s on the same 10,000-pod fleet (bench_fleet's).

Two pollers in turn on fresh caches of the same fleet, on the `sync` schedule (every 2 s) after
two warm-up polls: `sync`'s loop (a `Poller`'s poll, then what the command does after each: its
line, the file check, the poll's memory given back) and `Watch.poll_once` (the same poll, then
the triage of the cache's confirmed losses, the alerts' step and their rows written, the memory
given back; no page target, so no page leaves). This process's median CPU per poll is compared (watch's work after a poll is
what the ratio adds); `detail` has each one's worst poll, for watch one that triaged again. A 1,000-pod fleet of the same shape stands beside it in `detail`.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from argparse import Namespace
from pathlib import Path

from bench_fleet import INTERVAL_S, fleet_servers
from common import Figure, main, own_servers, quiet_logging, settings_for_sim


async def cpu_per_poll(env: dict[str, str], urls: dict[str, str], cache_path: Path, count: int, interval: float,
                       watching: bool) -> tuple[float, float]:
    from sagan_tui.commands.sync import after_poll
    from sagan_tui.commands.watch import Watch
    from sagan_tui.core.store.cache import Cache
    from sagan_tui.core.sync.poller import Poller

    settings = settings_for_sim(env, cache_path)
    cache = Cache(settings.cache_path)
    poller = Poller(settings, cache, transports=own_servers(settings, urls))
    watch = Watch(Namespace(for_seconds=None), settings, cache, [], None, [], poller=poller) if watching else None
    said: list[str] = []
    if watch is not None:
        watch.say = watch.pager.say = said.append

    async def once() -> None:
        if watch is not None:
            await watch.poll_once()
        else:
            after_poll(await poller.poll_once(force=True), cache, say=said.append)

    cpus = []
    try:
        for _ in range(2):
            await once()
        for _ in range(count):
            w, c = time.perf_counter(), time.process_time()
            await once()
            cpus.append(time.process_time() - c)
            await asyncio.sleep(max(0.0, interval - (time.perf_counter() - w)))
    finally:
        if watch is not None:
            await watch.close(drain_s=1)
        else:
            await poller.aclose()
            cache.close()
    return statistics.median(cpus), max(cpus)  # the worst: a poll whose losses changed, triaged again


def measure(pods: int, count: int, interval: float) -> dict:
    # Each its own simulators, started afresh: the fleet's scenario runs on (its wave, a balance
    # running out), and a watch polling the same servers after sync met a later, busier fleet.
    with fleet_servers(pods, "sagan-bench-watch-") as (env, urls, home):
        sync = asyncio.run(cpu_per_poll(env, urls, home / "sync.sqlite", count, interval, False))
    with fleet_servers(pods, "sagan-bench-watch-") as (env, urls, home):
        watch = asyncio.run(cpu_per_poll(env, urls, home / "watch.sqlite", count, interval, True))
    return {"pods": pods, "sync_cpu_s": sync[0], "watch_cpu_s": watch[0], "sync_worst_s": sync[1],
            "watch_worst_s": watch[1]}


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
