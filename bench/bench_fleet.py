"""Figures 9-10: `sync`'s poll of a 10,000-pod fleet every 2 s: time per poll and the CPU it takes.

The fleet is a fixture (500 running experiments, 10,000 pods, 60% on `team`, all running since
an hour before the start, one in two hundred lost during the run) served by three simulator
processes, one per source as in bench_poll (one simulator serves requests one at a time, and
its own GraphQL work for 6,000 pods would be measured as ours). A `Poller` on its own cache
polls on the `sync` schedule (every 2 s, never overlapping) after two warm-up polls; each poll's
wall time and this process's CPU time (every thread: the cache writes run in worker threads)
are recorded; `detail` has the poll's median and worst wall time against the 2 s interval.
Between two polls the same requests are sent and parsed without writing: the poll figure's
baseline, the part of a poll that is the servers' and the network's (here the simulators' own
GraphQL work, on the same two cores), so its ratio is what reconciling and writing add. The
CPU share (of one core, polling every 2 s, the fetch-only requests left out) is an absolute
budget; a 1,000-pod fleet of the same shape, measured in the same run, stands beside it.
The panel on the same fleet (its keys, CPU and polls) is bench_fleet_keys.py.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import tempfile
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Iterator

from common import Figure, SimProcess, main, own_servers, quiet_logging, settings_for_sim

INTERVAL_S = 2.0
EXPERIMENTS = 500


def fleet(pods: int, seed: int = 10_000) -> dict:
    """The fixture: `pods` pods over EXPERIMENTS running experiments, running since before the start."""
    rng = random.Random(seed)
    exps = [{"number": 1000 + i, "title": f"fleet study {i}", "status": "running",
             "runpodAccount": "team" if i % 5 < 3 else "personal"} for i in range(EXPERIMENTS)]
    taken: set[str] = set()
    out = []
    for i in range(pods):
        e = exps[i % EXPERIMENTS]
        while (pid := "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(14))) in taken:
            pass
        taken.add(pid)
        p = {"id": pid, "account": e["runpodAccount"], "experiment": e["number"], "name": f"exp{e['number']}-fleet",
             "created_at": -3600.0, "running_at": -3600.0 + rng.uniform(25, 600)}
        if i % 200 == 7:
            p["lost_at"] = rng.uniform(20, 60)  # a few losses while it is polled
        out.append(p)
    # Each poll's replies are asked for twice (the poll, then `fetch_only` timing the servers alone):
    # twice RunPod's minute window, so the bench's own second read never starves the poll's.
    return {"name": f"fleet-{pods}", "experiments": exps, "pods": out, "rest_per_minute": 120}


async def polls(env: dict[str, str], urls: dict[str, str], cache_path: Path, count: int, interval: float) -> dict:
    from sagan_tui.core.models import HealthState
    from sagan_tui.core.store.cache import Cache
    from sagan_tui.core.sync.poller import Poller

    settings = settings_for_sim(env, cache_path)
    cache = Cache(settings.cache_path)
    poller = Poller(settings, cache, transports=own_servers(settings, urls))
    walls, cpus, fetches = [], [], []
    try:
        for _ in range(2):  # warm: the first poll writes every pod, the second reads them back
            await poller.poll_once(force=True)
        c0, t0, fetching = time.process_time(), time.perf_counter(), 0.0
        for _ in range(count):
            w, c = time.perf_counter(), time.process_time()
            changes = await poller.poll_once(force=True)
            walls.append(time.perf_counter() - w)
            cpus.append(time.process_time() - c)
            bad = [n for n, h in changes.health.items() if h.state != HealthState.OK]
            if bad:
                raise RuntimeError(f"a source failed during the benchmark: {bad}")
            # What the servers alone take to answer the same requests (the floor of a poll),
            # between two polls: its CPU is left out of the share below.
            w, c = time.perf_counter(), time.process_time()
            await fetch_only(poller, changes.at)
            fetches.append(time.perf_counter() - w)
            fetching += time.process_time() - c
            await asyncio.sleep(max(0.0, interval - walls[-1] - fetches[-1]))  # `sync`'s schedule
        share = (time.process_time() - c0 - fetching) / (time.perf_counter() - t0)
        pods = len(cache.pods(include_gone=False))
    finally:
        await poller.aclose()
        cache.close()
    return {"walls": walls, "cpus": cpus, "share": share, "pods": pods, "fetches": fetches}


async def fetch_only(poller, since) -> None:
    """The replies a poll reads (each account's pods, Sagan's changes), read and parsed, not written."""
    s = poller.sagan
    await asyncio.gather(*(t.snapshot() for t in poller.transports.values()), s.experiments(since), s.pods(since),
                         s.approvals("pending"), s.events(since, limit=500))


@contextmanager
def fleet_servers(pods: int, prefix: str = "sagan-bench-fleet-") -> Iterator[tuple[dict, dict, Path]]:
    """The fleet served by three simulator processes: (Sagan's env, account -> RunPod URL, a temp dir)."""
    with ExitStack() as stack:
        home = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=prefix)))
        fixture = home / "fleet.json"
        fixture.write_text(json.dumps(fleet(pods)))
        sims = [stack.enter_context(SimProcess("--fixture", str(fixture))) for _ in range(3)]
        yield sims[0].env, {"team": sims[1].env["RUNPOD_API_BASE_URL"],
                            "personal": sims[2].env["RUNPOD_API_BASE_URL"]}, home


def measure(pods: int, count: int, interval: float) -> dict:
    with fleet_servers(pods) as (env, urls, home):
        r = asyncio.run(polls(env, urls, home / "cache.sqlite", count, interval))
    walls = sorted(r["walls"])
    r["median_s"] = statistics.median(walls)
    r["worst_s"] = walls[-1]
    r["cpu_s"] = statistics.median(r["cpus"])
    r["fetch_s"] = statistics.median(r["fetches"])
    return r


def run(small: bool = False) -> list[Figure]:
    quiet_logging()
    big, base = (500, 50) if small else (10_000, 1_000)
    count, interval = (2, 0.2) if small else (15, INTERVAL_S)
    b = measure(base, count, interval)
    r = measure(big, count, interval)

    def detail(x: dict) -> dict:
        return {"pods": x["pods"], "median_s": round(x["median_s"], 4), "worst_s": round(x["worst_s"], 4),
                "fetch_only_median_s": round(x["fetch_s"], 4),
                "cpu_s_per_poll": round(x["cpu_s"], 4), "cpu_share": round(x["share"], 4)}

    info = {"interval_s": interval, "polls": count, "fleet": detail(r), "baseline_fleet": detail(b),
            "servers": "one simulator process per source", "key_latency": "bench_fleet_keys.py (the panel on this fleet)"}
    return [
        Figure("fleet_poll", f"sync poll of {big:,} pods vs the servers' own reply time (same requests, not written)",
               r["median_s"], r["fetch_s"], "s", "<= 1.5x", 1.5, detail=info),
        Figure("fleet_cpu", f"CPU share of sync polling {big:,} pods every {interval:g} s ({base:,} pods beside)",
               r["share"], b["share"], "core", "<= 0.5 core", 0.5, on="value", detail=info),
    ]


if __name__ == "__main__":
    main(run)
