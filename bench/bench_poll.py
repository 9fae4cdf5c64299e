"""Figure 4: one poll cycle (`Poller.poll_once`) against the slowest single source, 200 ms latency each.

The simulator runs `large-fleet` (1,000 pods) with 200 ms added to every reply, outside this
process, so this process's CPU time is the poller's alone. Sagan, team and personal are three
servers in reality; here each is served by its own simulator process (same scenario, same
keys), because one simulator serves requests one at a time: its ~0.15 s of GraphQL execution
per account reply would make two concurrent account polls wait on each other, which is the
simulator's limit, not the panel's (`detail.one_simulator` measures that case too).
The cache is warmed by one cycle first; then full cycles and single-source cycles (the other
two marked disabled) alternate, and each is the median of several, once the event backlog of
the scenario is drained. Sagan, team and personal are polled concurrently, so a full cycle
should cost little more than the slowest of the three.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path

from common import Figure, SimProcess, main, own_servers, quiet_logging, settings_for_sim, temp_dir

SOURCES = ("sagan", "team", "personal")


async def cycles(env: dict[str, str], cache_path: Path, rounds: int, runpod_urls: dict[str, str]) -> dict:
    from sagan_tui.core.models import HealthState
    from sagan_tui.core.store.cache import Cache
    from sagan_tui.core.sync.poller import EVENT_PAGE, Poller

    settings = settings_for_sim(env, cache_path)
    caches = [Cache(settings.cache_path)]

    def poller(cache: Cache) -> Poller:
        return Poller(settings, cache, transports=own_servers(settings, runpod_urls))

    full = poller(caches[0])
    alone: dict[str, Poller] = {}
    walls: dict[str, list[float]] = {k: [] for k in ("full", *SOURCES)}
    cpus: list[float] = []
    try:
        # Cold start: fill the cache until the event backlog is drained (a poll reads at most
        # EVENT_PAGES_PER_POLL pages), open every connection, import the SDK.
        for _ in range(12):
            if (await full.poll_once(force=True)).events_added < EVENT_PAGE:
                break
        # Each poller on its own copy of the warm cache, as one panel is: pollers sharing a file
        # would each find the others' writes and read every pod again (the two-panel case).
        for name in SOURCES:
            copy = cache_path.with_name(f"{name}-{cache_path.name}")
            caches[0].db.conn.execute("vacuum into ?", (str(copy),))
            caches.append(Cache(copy))
            p = alone[name] = poller(caches[-1])
            for other in SOURCES:
                if other != name:  # the poller's own switch for a source it must not poll
                    p._health[other] = replace(p._health[other], state=HealthState.DISABLED)
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
        pods = len(caches[0].pods(include_gone=False))
    finally:
        for p in (full, *alone.values()):
            await p.aclose()
        for c in caches:
            c.close()
    return {"walls": walls, "cpus": cpus, "pods": pods}


def measure(scenario: str, rounds: int, servers: int) -> dict:
    """Cycles against `servers` simulator processes: 3 (one per source) or 1 (all three in one)."""
    home = temp_dir("sagan-bench-poll-")
    args = ("--scenario", scenario, "--latency", "0.2")
    with ExitStack() as stack:
        sims = [stack.enter_context(SimProcess(*args)) for _ in range(servers)]
        urls = {} if servers == 1 else {"team": sims[1].env["RUNPOD_API_BASE_URL"],
                                        "personal": sims[2].env["RUNPOD_API_BASE_URL"]}
        r = asyncio.run(cycles(sims[0].env, home / "cache.sqlite", rounds, urls))
    r["median_s"] = med = {k: statistics.median(v) for k, v in r["walls"].items()}
    r["slowest"] = max(SOURCES, key=lambda k: med[k])
    r["ratio"] = med["full"] / med[r["slowest"]]
    return r


def run(small: bool = False) -> list[Figure]:
    quiet_logging()
    scenario = "calm" if small else "large-fleet"
    r = measure(scenario, 2 if small else 5, servers=3)
    one = measure(scenario, 2 if small else 3, servers=1)
    med, slowest = r["median_s"], r["slowest"]
    return [Figure("poll_cycle", f"poll cycle, 200 ms latency per source ({r['pods']} pods)", med["full"],
                   med[slowest], "s", "<= 1.2x", 1.2,
                   detail={"median_s": {k: round(v, 4) for k, v in med.items()}, "slowest_source": slowest,
                           "cpu_s_per_cycle": round(statistics.median(r["cpus"]), 4), "pods": r["pods"],
                           "latency_s": 0.2, "servers": "one simulator process per source",
                           "one_simulator": {"ratio": round(one["ratio"], 3),
                                             "median_s": {k: round(v, 4) for k, v in one["median_s"].items()},
                                             "cpu_s_per_cycle": round(statistics.median(one["cpus"]), 4)}})]


if __name__ == "__main__":
    main(run)
