"""Figure 5: cache ingest of 100,000 events and 10,000 pod observations, against raw sqlite3.

Through `Cache.upsert_events` / `Cache.add_observations`, one transaction per poll's worth
(the poller writes up to EVENT_PAGE x EVENT_PAGES_PER_POLL events per cycle, one observation
per changed pod). Baseline: the same rows, already as tuples, `executemany`d by plain sqlite3
into a fresh file of the same schema with the same pragmas and transaction sizes. Each run
writes into a fresh file; the two alternate, median of three.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
import statistics
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

from common import Figure, main

START = datetime(2026, 5, 14, 10, 0, tzinfo=timezone.utc)
OBS_PER_TX = 1_000  # one poll of 1,000 pods that all changed: the worst case


def make_events(n: int, seed: int = 0) -> list:
    from sagan_tui.core.models import WorkflowEvent

    rng = random.Random(seed)
    out = []
    for i in range(n):
        number = 1000 + rng.randrange(2000)
        at = START + timedelta(seconds=i * 0.5)
        if rng.random() < 0.1:
            ev = {"eventType": "state_changed", "fromStatus": "queued", "toStatus": "running",
                  "note": "RunPod pod is running.", "actorKind": "system"}
        else:
            ev = {"eventType": "epm:progress", "note": f"step {rng.randint(1, 90000)} loss={rng.random():.3f}",
                  "actorKind": "agent", "metadata": {"step": i, "podId": f"p{i % 1000:013d}"}}
        out.append(WorkflowEvent.model_validate({
            "id": str(uuid.UUID(int=rng.getrandbits(128))), "entityKind": "experiment",
            "entityId": str(uuid.UUID(int=number)), "experimentNumber": number, "createdAt": at.isoformat(), **ev}))
    return out


def make_observations(n: int) -> list[tuple]:
    return [(f"p{i % 1000:013d}", "team" if i % 3 else "personal", START + timedelta(seconds=i),
             "RUNNING" if i % 7 else "EXITED", i * 5, "Rented by User: Thu May 14 2026 10:00:00") for i in range(n)]


def raw_rows(events: list, observations: list[tuple]) -> tuple[list[tuple], list[tuple]]:
    """What the cache stores for these records, as plain tuples (the baseline's input)."""
    from sagan_tui.core.store.cache import ts

    ev = [(e.id, e.experiment_number, e.entity_kind, e.entity_id, e.event_type, ts(e.created_at),
           e.dump_json()) for e in events]
    obs = [(r[0], r[1], ts(r[2]), *r[3:]) for r in observations]
    return ev, obs


def chunks(items: list, size: int) -> list[list]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def via_cache(path: Path, events: list, observations: list[tuple], ev_per_tx: int) -> float:
    from sagan_tui.core.store.cache import Cache

    cache = Cache(path)
    try:
        t0 = time.perf_counter()
        for part in chunks(events, ev_per_tx):
            with cache.transaction() as conn:
                cache.upsert_events(conn, part)
        for part in chunks(observations, OBS_PER_TX):
            with cache.transaction() as conn:
                cache.pod_rows.add_observations(conn, part)
        return time.perf_counter() - t0
    finally:
        cache.close()


def via_sqlite(path: Path, template: Path, ev_rows: list[tuple], obs_rows: list[tuple], ev_per_tx: int) -> float:
    shutil.copy(template, path)  # the cache's schema and indexes, empty
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("pragma journal_mode = wal")
        conn.execute("pragma synchronous = normal")
        t0 = time.perf_counter()
        for part in chunks(ev_rows, ev_per_tx):
            conn.execute("begin immediate")
            conn.executemany("insert or ignore into events (id, experiment_number, entity_kind, entity_id,"
                             " event_type, created_at, data) values (?,?,?,?,?,?,?)", part)
            conn.execute("commit")
        for part in chunks(obs_rows, OBS_PER_TX):
            conn.execute("begin immediate")
            conn.executemany("insert into pod_observations (pod_id, account, at, desired_status, uptime_s,"
                             " last_status_change) values (?,?,?,?,?,?)", part)
            conn.execute("commit")
        return time.perf_counter() - t0
    finally:
        conn.close()


def run(small: bool = False) -> list[Figure]:
    from sagan_tui.core.store.cache import Cache
    from sagan_tui.core.sync.poller import EVENT_PAGE, EVENT_PAGES_PER_POLL

    n_ev, n_obs = (2_000, 500) if small else (100_000, 10_000)
    events, observations = make_events(n_ev), make_observations(n_obs)
    ev_rows, obs_rows = raw_rows(events, observations)
    ev_per_tx = EVENT_PAGE * EVENT_PAGES_PER_POLL
    home = Path(tempfile.mkdtemp(prefix="sagan-bench-ingest-"))  # removed below, as soon as it is done with
    try:
        template = home / "template.sqlite"
        Cache(template).close()
        ours, raw = [], []
        for i in range(1 if small else 3):
            raw.append(via_sqlite(home / f"raw{i}.sqlite", template, ev_rows, obs_rows, ev_per_tx))
            ours.append(via_cache(home / f"cache{i}.sqlite", events, observations, ev_per_tx))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    rows = n_ev + n_obs
    cache_rate, raw_rate = rows / statistics.median(ours), rows / statistics.median(raw)
    return [Figure("ingest", f"cache ingest, {n_ev:,} events + {n_obs:,} observations", cache_rate, raw_rate,
                   "rows/s", ">= 0.5x", 0.5,
                   detail={"cache_s": [round(x, 3) for x in ours], "raw_sqlite_s": [round(x, 3) for x in raw],
                           "events_per_transaction": ev_per_tx, "observations_per_transaction": OBS_PER_TX})]


if __name__ == "__main__":
    main(run)
