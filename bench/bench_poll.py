"""Figure 4: one poll cycle (`Poller.poll_once`) against the slowest single source, 200 ms latency each.

The simulator runs `large-fleet` (1,000 pods) in its own process with 200 ms added to every
reply, so this process's CPU time is the poller's alone. The cache is warmed by one cycle first;
then full cycles and single-source cycles (the other two marked disabled) alternate, and each
is the median of several, once the event backlog of the scenario is drained. Sagan, team and personal are polled concurrently, so a full cycle
should cost little more than the slowest of the three.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from common import Figure, SimProcess, main, quiet_logging, settings_for_sim

SOURCES = ("sagan", "team", "personal")


async def cycles(env: dict[str, str], cache_path: Path, rounds: int) -> dict:
    from sagan_tui.models import HealthState
    from sagan_tui.store.cache import Cache
    from sagan_tui.sync.poller import EVENT_PAGE, Poller

    settings = settings_for_sim(env, cache_path)
    cache = Cache(settings.cache_path)
    full = Poller(settings, cache)
    alone: dict[str, Poller] = {}
    for name in SOURCES:
        p = Poller(settings, cache)
        for other in SOURCES:
            if other != name:  # the poller's own switch for a source it must not poll
                p._health[other] = p._health[other].model_copy(update={"state": HealthState.DISABLED})
        alone[name] = p
    walls: dict[str, list[float]] = {k: [] for k in ("full", *SOURCES)}
    cpus: list[float] = []
    try:
        # Cold start: fill the cache until the event backlog is drained (a poll reads at most
        # EVENT_PAGES_PER_POLL pages), open every connection, import the SDK.
        for _ in range(12):
            if (await full.poll_once(force=True)).events_added < EVENT_PAGE:
                break
        for p in alone.values():
            await p.poll_once(force=True)
        for _ in range(rounds):
            for key, p in (("full", full), *alone.items()):
                w0, c0 = time.perf_counter(), time.process_time()
                changes = await p.poll_once(force=True)
                walls[key].append(time.perf_counter() - w0)
                if key == "full":
                    cpus.append(time.process_time() - c0)
                    bad = [n for n, h in changes.health.items() if h.state != HealthState.OK]
                    if bad:
                        raise RuntimeError(f"a source failed during the benchmark: {bad}")
        pods = len(cache.pods(include_gone=False))
    finally:
        for p in (full, *alone.values()):
            await p.aclose()
        cache.close()
    return {"walls": walls, "cpus": cpus, "pods": pods}


def run(small: bool = False) -> list[Figure]:
    quiet_logging()
    scenario = "calm" if small else "large-fleet"
    home = Path(tempfile.mkdtemp(prefix="sagan-bench-poll-"))
    with SimProcess("--scenario", scenario, "--latency", "0.2") as sim:
        r = asyncio.run(cycles(sim.env, home / "cache.sqlite", 2 if small else 5))
    med = {k: statistics.median(v) for k, v in r["walls"].items()}
    slowest = max(SOURCES, key=lambda k: med[k])
    return [Figure("poll_cycle", f"poll cycle, 200 ms latency per source ({r['pods']} pods)", med["full"],
                   med[slowest], "s", "<= 1.2x", 1.2,
                   detail={"median_s": {k: round(v, 4) for k, v in med.items()}, "slowest_source": slowest,
                           "cpu_s_per_cycle": round(statistics.median(r["cpus"]), 4), "pods": r["pods"],
                           "latency_s": 0.2})]


if __name__ == "__main__":
    main(run)
