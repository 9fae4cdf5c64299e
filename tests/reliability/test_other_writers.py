"""Issue 18.1: a panel sharing its cache with a `sagan-tui sync` shows what the sync recorded."""

from __future__ import annotations

import sqlite3
import subprocess
from contextlib import closing

from tests.harness import wait_for
from .processes import EXE, command_env


def lost_rows(app) -> set[str]:
    return {k for k, row in app.pods_table.records.items() if any(c.text == "LOST" for c in row.cells)}


async def test_every_loss_a_sync_records_reaches_the_panel_with_its_wave(sim_factory, panel, tmp_path):
    sim = sim_factory(scenario="reaping-wave")
    app, cache = panel(sim.env())  # the panel polls nothing itself: only the sync writes
    env = command_env(sim.env(), cache.path)
    async with app.run_test(size=(200, 50)) as pilot:
        # Before r4, after it, twice during r5 (jumped clocks serve what Sagan wrote between two
        # jumps as older than its cursor, so two listings are what establish r5's pods), after it.
        for t in (60, 130, 540, 560, 600):
            sim.clock.jump_to(t)
            done = subprocess.run([*EXE, "sync", "--once"], env=env, capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, done.stderr[-2000:]
            # Read with SQLite alone: a second Cache in this process would open the file with a plain
            # open() to check its header, and closing that drops the panel's POSIX locks on it
            # (then the sync's exit takes the WAL away from under the panel's connections).
            with closing(sqlite3.connect(cache.path)) as other:
                recorded = {r[0] for r in other.execute("select pod_id from losses")}
            await wait_for(pilot, lambda: recorded <= lost_rows(app), what=f"the sync's losses at t={t}")
            if recorded:
                await wait_for(pilot, lambda: len(app.view.waves) >= 1 and
                               app.loss_area.border_title.startswith(f"Losses · {len(recorded)}"),
                               what=f"the wave with them at t={t}")
        assert len(recorded) >= 8 and app.view.waves  # jumped clocks put both waves' losses in one
