"""Resource bounds: the cache keeps a bounded history, observations are per change, memory stays flat.

The soak variants (`make soak`, SAGAN_TUI_SOAK=1) run many more polls; their figures are the ones
docs/reliability.md quotes.
"""

from __future__ import annotations

import gc
import os
from datetime import timedelta

from sagan_tui.core.models import WorkflowEvent, utcnow
from sagan_tui.core.store.cache import ts

from .conftest import SOAK, open_poller
from tests.harness import poll_now, wait_for

STABLE = {
    "accounts": {"team": {"api_key": "rk-team-b"}, "personal": {"api_key": "rk-personal-b"}},
    "experiments": [{"number": n, "title": f"e{n}", "status": "running", "runpodAccount": "team"} for n in (1, 2)],
    "pods": [{"id": f"stablepod{i:05d}", "account": "team" if i % 2 else "personal", "experiment": 1 + i % 2,
              "created_at": -600, "running_at": -560} for i in range(6)]
    + [{"id": "stoppingpod001", "account": "team", "experiment": 1, "created_at": -600, "running_at": -560,
        "stopped_at": 2.0}],
}
SOAK_POLLS = int(os.environ.get("SAGAN_TUI_SOAK_POLLS", 2000)) if SOAK else 48


def rss_kb() -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


async def test_observations_are_one_row_per_change_not_per_poll(sim_factory, tmp_path):
    sim = sim_factory(fixture=STABLE)
    poller, cache = open_poller(sim.env(), tmp_path / "cache.sqlite")
    try:
        for _ in range(20):  # real time passes (no clock jumps): uptimes move, nothing else does
            served_before = len(sim.state.events_between(sim.clock.now_t(), None, 10**6))
            await poller.poll_once(force=True)
        counts = cache.counts()
        served_after = len(sim.state.events_between(sim.clock.now_t(), None, 10**6))
    finally:
        await poller.aclose()
        cache.close()
    # 7 first sightings, and the one pod that stopped at t=2 s: its status change and its going.
    assert counts["pods"] == 7
    assert counts["pod_observations"] <= 7 + 2, counts
    # Every event served before the last poll, and none twice (one the simulator wrote while
    # that poll ran may or may not be in it: a loaded machine made this test race it).
    assert served_before <= counts["events"] <= served_after, (served_before, counts, served_after)


async def test_the_panel_prunes_old_history_at_start(calm_sim, panel):
    app, cache = panel(calm_sim.env(), events_retention_days=30, observations_retention_days=14)
    old = utcnow() - timedelta(days=40)
    with cache.transaction() as conn:
        cache.upsert_events(conn, [WorkflowEvent(id=f"old{i}", event_type="note", created_at=old)
                                   for i in range(50)])
        conn.executemany("insert into pod_observations (pod_id, account, at, desired_status) values (?,?,?,?)",
                         [("oldpod000001", "team", ts(old), "RUNNING")] * 30)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: cache.counts()["events"] == 0 and cache.counts()["pod_observations"] == 0,
                       timeout=10, what="the panel's prune")
        await poll_now(pilot, app)  # new history is kept
        assert cache.counts()["events"] > 0


async def test_memory_stays_flat_over_many_polls(sim_factory, tmp_path, figures):
    """The poller and the panel model over many polls of a busy, fast-moving world (reaping-wave at speed 20)."""
    from sagan_tui.core.session.model import PanelModel

    sim = sim_factory(scenario="reaping-wave", speed=20)
    poller, cache = open_poller(sim.env(), tmp_path / "soak.sqlite", poll_interval=0.5)
    model = PanelModel(poller.settings, cache)
    model.load(poller.health)
    samples = []
    try:
        for i in range(SOAK_POLLS):
            changes = await poller.poll_once(force=True)
            model.apply(changes)
            model.experiment_rows(), model.pod_rows(), model.timeline_rows(None)
            if i % 10 == 9:
                gc.collect()
                samples.append(rss_kb())
    finally:
        await poller.aclose()
        cache.close()
    warm = samples[len(samples) // 4]  # after the first quarter: caches, pools and imports are warm
    growth_kb = samples[-1] - warm
    figures["soak_polls"] = SOAK_POLLS
    half = samples[len(samples) // 2]
    figures["soak_rss_mb"] = {"warm": round(warm / 1024, 1), "half": round(half / 1024, 1),
                              "end": round(samples[-1] / 1024, 1), "growth": round(growth_kb / 1024, 1),
                              "growth_second_half": round((samples[-1] - half) / 1024, 1)}
    assert growth_kb < 25_000, samples  # a leak of one event list per poll would pass this within 100 polls
