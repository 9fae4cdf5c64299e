"""One cache file shared by real processes: two panels and a `sync`, a writer that holds the lock, a kill -9.

What runs: two `sagan-tui` panel processes on pseudo-terminals and one `sagan-tui sync --for N`,
all polling the reaping-wave simulator (sped up) into one file; then a `sync` killed with
SIGKILL while it writes a large ingest. Nothing may say "database is locked", no row may be
missing afterwards, and the killed cache must open with no move-aside.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time

import httpx

from sagan_tui.core.store.cache import Cache
from sagan_tui.panel.screens.audit import AuditScreen

from tests.harness import notes, poll_now, wait_for

from .conftest import SOAK, open_poller
from .processes import EXE, PtyPanel, command_env

RUN_S = 300 if SOAK else 6
SYNC_RUNS = 3
SPEED = 2 if SOAK else 100  # reaping-wave is 600 scenario seconds; the soak replays it slower
MUST_LOSE = {"k3m8qz0v2xw7ta", "h9d2pj6wq4ne1c", "t5x0bv8rk2mu7y", "q8r1zt5mk0pv3e", "b4y7wn2gx6cj9s",
             "v0c7bx292xqvg4", "m1ayhl6nsbxw04", "lqpfpmbytlgded", "j0xvy1q82ryo8m", "cv13x9s487tvwn"}
NEVER_LOST = {"j18eiux6ccekyj", "f6n3kd9sa1qz4w"}
# Holds the write lock (as a large `sync` ingest does) until the test writes a line to its stdin.
HOG = """
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
c.execute("begin immediate")
print("locked", flush=True)
sys.stdin.readline()
c.execute("commit")
print("released", flush=True)
"""


async def test_a_long_write_by_another_process_never_freezes_the_panel(calm_sim, panel):
    """Another process holds the write lock; the panel's poll waits its turn in a worker thread
    while the panel answers every key (audit log, cursor moves), then the poll lands.

    Everything below runs while the other process holds the lock: the test releases it only
    after the last key was answered, so each answer came during the hold (ordering, no clock).
    However long the hold, the poll's write waits its turn (the cache retries a locked
    `begin immediate`); the bench (bench/bench_lock.py) measures how fast the keys answer.
    """
    app, cache = panel(calm_sim.env())
    async with app.run_test(size=(200, 50)) as pilot:
        await poll_now(pilot, app)
        hog = subprocess.Popen([sys.executable, "-c", HOG, str(cache.path)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
        try:
            assert hog.stdout.readline().strip() == "locked"
            before = app.polls
            app.request_refresh()  # its write queues behind the other process
            await pilot.press("A")  # reads the audit log (the session's own read connection)
            await wait_for(pilot, lambda: isinstance(app.screen, AuditScreen), what="the audit log")
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, AuditScreen), what="the audit log to close")
            table = app.experiments_table
            table.focus()
            row = table.cursor_row
            await pilot.press("down")
            await wait_for(pilot, lambda: table.cursor_row != row, what="the cursor to move")
            await pilot.press("up")
            await wait_for(pilot, lambda: table.cursor_row == row, what="the cursor to move back")
            assert hog.poll() is None and app.polls == before  # still held: the poll has not landed
            hog.stdin.write("go\n")
            hog.stdin.flush()
            assert hog.stdout.readline().strip() == "released"
            await wait_for(pilot, lambda: app.polls > before and not app.polling, what="the queued poll")
        finally:
            hog.kill()  # our own child, by its handle
            hog.wait()
        await poll_now(pilot, app)
        assert app.view.health["sagan"].state.value == "ok"
        assert not [n for n in notes(app) if "database is locked" in n.message]


def _truth(sim) -> dict:
    """What the simulator serves now, read over its own API."""
    headers = {"Authorization": f"Bearer {sim.sagan_token}"}
    with httpx.Client(base_url=sim.base_url, headers=headers, timeout=30) as c:
        events = c.get("/api/events", params={"limit": 5000}).json()["events"]
        exps = c.get("/api/experiments").json()["experiments"]
    live = {p.spec.id for a in ("team", "personal") for p in sim.state.account_pods(a, sim.clock.now_t())
            if p.runpod_state(sim.clock.now_t()) is not None}
    return {"events": {e["id"] for e in events}, "experiments": {e["number"]: e["status"] for e in exps}, "live": live}


def test_two_panels_and_a_sync_share_one_cache(sim_factory, tmp_path, figures):
    sim = sim_factory(scenario="reaping-wave", speed=SPEED)
    path = tmp_path / "shared.sqlite"
    Cache(path).close()
    env = command_env(sim.env(), path)
    panels = [PtyPanel(env, ["--poll-interval", "0.5", "--no-mouse", "--no-bell"]) for _ in range(2)]
    try:
        for p in panels:
            p.wait_to_show("sagan ", timeout=60)
        # Polls counted, not timed: `sync --for` made one poll in 6 s when two suites shared the
        # machine. Each `sync --once` opens, writes and closes the cache while both panels poll
        # it, and exits 1 if a source failed; at least SYNC_RUNS of them, and RUN_S of wall time.
        out, err, started, runs = "", "", time.monotonic(), 0
        while runs < SYNC_RUNS or time.monotonic() - started < RUN_S:
            sync = subprocess.run([*EXE, "sync", "--once"], env=env, capture_output=True, text=True,
                                  timeout=120)
            out, err, runs = out + sync.stdout, err + sync.stderr, runs + 1
            assert sync.returncode == 0, (sync.stdout[-1000:], sync.stderr[-2000:])
    finally:
        codes = [p.quit() for p in panels]
    lines = [ln for ln in out.splitlines() if " sagan=" in ln]
    assert len(lines) == runs >= SYNC_RUNS, out[-1000:]
    screens = [p.text() for p in panels]
    log = (tmp_path / "panel.log").read_text() if (tmp_path / "panel.log").exists() else ""
    for where, text in [("sync stdout", out), ("sync stderr", err), ("panel.log", log),
                        *[(f"panel {i} screen", s) for i, s in enumerate(screens)]]:
        for word in ("database is locked", "Traceback"):
            at = text.lower().find(word.lower())
            assert at < 0, f"{where}: {text[max(0, at - 600):at + 300]}"
    assert codes == [0, 0], [s[-800:] for s in screens]
    errors = [ln for ln in lines if "ERR" in ln]
    assert not errors, errors[:5]

    # No row lost: one more poll, then the file holds everything the simulator serves.
    with sqlite3.connect(path) as db:
        assert db.execute("pragma quick_check").fetchone()[0] == "ok"
    poller, cache = open_poller(sim.env(), path)
    assert cache.notices == []

    async def final_poll():
        try:
            return await poller.poll_once(force=True)
        finally:
            await poller.aclose()

    # Events served before the final poll must all be held after it (at speed 100 the simulator
    # goes on writing events while the poll runs: those may arrive on the next poll).
    served_before = _truth(sim)["events"]
    asyncio.run(final_poll())
    truth = _truth(sim)
    try:
        assert {e.number: e.status for e in cache.experiments()} == truth["experiments"]
        held = {r["id"] for r in cache.rows("select id from events")}
        assert served_before <= held, len(served_before - held)
        assert {p.pod_id for p in cache.pods(include_gone=False)} == truth["live"]
        losses = {x.pod_id for x in cache.losses()}
        assert MUST_LOSE <= losses and not (NEVER_LOST & losses), losses
    finally:
        cache.close()
    figures["concurrency_run"] = {"seconds": RUN_S, "sync_polls": len(lines), "panels": 2, "speed": SPEED,
                                  "locked_errors": 0, "events": len(truth["events"]), "losses": len(losses)}


def _big_world() -> dict:
    return {
        "experiments": [{"number": n, "title": f"e{n}", "status": "running", "runpodAccount": "team"}
                        for n in range(1, 301)],
        "events": [{"at": -i * 3.0, "experiment": 1 + i % 300, "eventType": "note", "note": "x" * 200}
                   for i in range(40_000)],
        "pods": [{"id": f"bigpod{i:08d}", "account": "team" if i % 2 else "personal", "experiment": 1 + i % 300,
                  "created_at": -100, "running_at": -90} for i in range(400)],
    }


def _kill_while_writing(env: dict, path, wal_bytes: int, timeout: float = 90) -> str:
    """Start `sync --once`, SIGKILL it once its WAL has grown past wal_bytes; say where it was."""
    wal = path.with_name(path.name + "-wal")
    proc = subprocess.Popen([*EXE, "sync", "--once"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            if wal.exists() and wal.stat().st_size > wal_bytes:
                os.kill(proc.pid, signal.SIGKILL)  # our own child, by its pid
                proc.wait()
                return f"killed with a {wal.stat().st_size // 1000} KB WAL"
            time.sleep(0.005)
        return "finished before the kill"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_sync_killed_mid_write_leaves_a_cache_that_opens_cleanly(sim_factory, tmp_path, figures):
    sim = sim_factory(fixture=_big_world())
    path = tmp_path / "killed.sqlite"
    env = command_env(sim.env(), path)
    kills = []
    for wal_bytes in ([200_000, 1_000_000, 3_000_000, 6_000_000, 9_000_000] if SOAK else [1_000_000]):
        kills.append(_kill_while_writing(env, path, wal_bytes))
        with sqlite3.connect(path) as db:  # a plain SQLite connection first: the file itself is sound
            assert db.execute("pragma integrity_check").fetchone()[0] == "ok"
        cache = Cache(path)
        assert cache.notices == [], cache.notices  # opened as it is: nothing moved aside
        counts = cache.counts()
        cache.close()
        # Whole transactions only: a poll's experiments and events land together or not at all.
        assert (counts["experiments"] == 300) == (counts["events"] > 0), counts
    assert any(k.startswith("killed") for k in kills), kills
    # The next polls pick up where the killed ones stopped (20,000 events a poll), and nothing is missing.
    served = sim.state.events_between(sim.clock.now_t(), None, 10**9)
    poller, cache = open_poller(sim.env(), path)

    async def recover():
        try:
            for _ in range(3):
                await poller.poll_once(force=True)
        finally:
            await poller.aclose()

    try:
        asyncio.run(recover())
        counts = cache.counts()
    finally:
        cache.close()
    assert (counts["experiments"], counts["events"], counts["pods"]) == (300, len(served), 400), counts
    figures["kill9"] = {"kills": kills, "moved_aside": 0, "rows_after_recovery": counts["events"]}
