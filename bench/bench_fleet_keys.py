"""Figure 11: the panel on the 10,000-pod fleet, polling every 2 s: the worst key, its CPU, its polls.

The fleet is bench_fleet's fixture. The panel takes one RunPod base URL for both accounts, so two
simulator processes serve it (Sagan on one, both accounts on the other), where bench_fleet gives
each account its own. The panel runs on a real pty (200x50) on its own cache, polling every 2 s;
once every source has answered and the cache holds the fleet, the bench presses the down arrow
every 0.25 s and times each press to the first bytes the panel writes after it (bench_keys'
method). Beside the presses: the panel's CPU share over them (every thread of the UI process and
of its session process, /proc: the core's polling is the panel's cost too; the UI's own in `detail`), each
account's polls completed in that time (from the cache's `sync_state`: a poll's time is the gap
between two less the 2 s the panel waits), and whether the status line said "stale" while the
data was being refreshed. Target: the worst press within 0.1 s, and at most half a core
(absolute); the same panel on a 1,000-pod fleet of the same shape, in the same run, stands beside.
"""

from __future__ import annotations

import json
import os
import sqlite3
import statistics
import tempfile
import time
from contextlib import ExitStack, closing
from pathlib import Path

from bench_fleet import fleet
from bench_keys import EVERY_S, SIZE, p95, press
from common import ROOT, Figure, SimProcess, clean_env, cmdline, descendants, main, panel_argv, quiet_logging
from ptyrun import PtyProcess, visible_text

from sagan_tui.wire.basics import parse_ts

INTERVAL_S = 2.0
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int) -> float:
    """User and system CPU of every thread of `pid` so far, in seconds."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime: fields 14 and 15 of stat(5)


def successes(cache: Path) -> dict[str, str]:
    """Each source's last successful poll, as the panel recorded it."""
    try:
        with closing(sqlite3.connect(f"{cache.resolve().as_uri()}?mode=ro", uri=True, timeout=1)) as db:
            return {s: t for s, t in db.execute("select source, last_success from sync_state") if t}
    except sqlite3.Error:
        return {}


def live_pods(cache: Path) -> int:
    try:
        with closing(sqlite3.connect(f"{cache.resolve().as_uri()}?mode=ro", uri=True, timeout=1)) as db:
            return db.execute("select count(*) from pods where gone_at is null").fetchone()[0]
    except sqlite3.Error:
        return 0


def presses(p: PtyProcess, n: int, cache: Path, timeout: float = 60.0) -> tuple[list[float], dict[str, set[str]], int]:
    """Seconds from each down arrow to the first output after it; each account's successful polls
    seen meanwhile; how many times the screen said "stale".

    At least `n` presses, and more until every source has three successes seen (two cycles, what
    a poll's time is read from): a quick panel answers 10 presses within one poll interval.
    """
    out: list[float] = []
    polls: dict[str, set[str]] = {}
    stale = 0
    end = time.monotonic() + timeout

    def enough() -> bool:
        return len(out) >= n and (len(polls) >= 3 and min(map(len, polls.values())) > 2 or time.monotonic() > end)

    while not enough():
        mark = len(p.output)
        out.append(press(p, wait=5.0))
        for source, at in successes(cache).items():
            polls.setdefault(source, set()).add(at)
        stale += "stale since" in visible_text(bytes(p.output[mark:]))
    return out, polls, stale


def measure(pods: int, n: int) -> dict:
    with ExitStack() as stack:
        home = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="sagan-bench-fleet-keys-")))
        fixture = home / "fleet.json"
        fixture.write_text(json.dumps(fleet(pods)))
        sagan, runpod = (stack.enter_context(SimProcess("--fixture", str(fixture))) for _ in range(2))
        env = clean_env(home, **{k: v for k, v in sagan.env.items() if k.startswith("SAGAN")},
                        **{k: v for k, v in runpod.env.items() if k.startswith("RUNPOD")})
        cache = home / "cache.sqlite"
        argv = panel_argv("--cache", str(cache), "--poll-interval", str(INTERVAL_S), "--no-mouse", "--no-bell")
        p = stack.enter_context(PtyProcess(argv, env, size=SIZE, cwd=str(ROOT)))
        p.wait_for(lambda text: "sagan ✓" in text, timeout=300)
        deadline = time.monotonic() + 300
        while live_pods(cache) < pods * 0.9 or len(successes(cache)) < 3:  # both accounts' first polls in
            if time.monotonic() > deadline:
                raise TimeoutError("the panel did not poll the fleet within 300 s")
            p.pump(0.5)
        p.pump(2 * INTERVAL_S)  # a second round: polls now re-read the cache, as they will from here
        # The UI and its session process (the SDK's CPU probe starts short-lived children beside it:
        # gone before the end, so not counted).
        both = [p.pid, *(pid for pid in descendants(p.pid) if "sagan_tui.core.session" in cmdline(pid))]
        c0, ui0, t0 = sum(map(cpu_s, both)), cpu_s(p.pid), time.monotonic()
        keys, polls, stale = presses(p, n, cache)
        wall = time.monotonic() - t0
        share, ui_share = (sum(map(cpu_s, both)) - c0) / wall, (cpu_s(p.pid) - ui0) / wall
        rss = p.peak_rss_mb()
        held = live_pods(cache)
    # A source's cycle: the time between its first and last success seen, over the polls between.
    cycles = {s: (max(ts) - min(ts)).total_seconds() / (len(ts) - 1)
              for s, ts in ((s, [parse_ts(a) for a in ats]) for s, ats in polls.items()) if len(ts) > 2}
    return {"keys": keys, "share": share, "ui_share": ui_share, "wall": wall, "cycles": cycles, "stale": stale,
            "rss": rss, "pods": held}


def summary(r: dict) -> dict:
    keys = r["keys"]
    cycle = {s: round(c, 2) for s, c in sorted(r["cycles"].items())}
    return {"pods": r["pods"], "key_ms": {"p50": round(statistics.median(keys) * 1000, 1),
                                          "p95": round(p95(keys) * 1000, 1), "max": round(max(keys) * 1000, 1)},
            "cpu_share": round(r["share"], 3), "ui_cpu_share": round(r["ui_share"], 3),
            "ui_peak_rss_mb": round(r["rss"]), "poll_cycle_s": cycle,
            "poll_s": {s: round(c - INTERVAL_S, 2) for s, c in cycle.items()}, "stale_shown": r["stale"]}


def run(small: bool = False) -> list[Figure]:
    quiet_logging()
    # Small: ten presses at the least; presses() goes on until each source is seen polling three
    # times (a cycle is read from three successes), however fast the keys come back.
    (big, base), n = ((300, 100), 10) if small else ((10_000, 1_000), 120)
    b = measure(base, n)
    r = measure(big, n)
    detail = {"presses": n, "every_s": EVERY_S, "interval_s": INTERVAL_S, "size": "200x50",
              "fleet": summary(r), "baseline_fleet": summary(b),
              "servers": "two simulator processes: Sagan on one, both accounts on the other"}
    return [
        Figure("fleet_key_max", f"panel on {big:,} pods polling every {INTERVAL_S:g} s: worst key-to-screen "
               f"({base:,} pods beside)", max(r["keys"]), max(b["keys"]), "s", "<= 0.1 s", 0.1, on="value",
               detail=detail),
        Figure("fleet_panel_cpu", f"panel on {big:,} pods polling every {INTERVAL_S:g} s: CPU share, UI + session "
               f"process ({base:,} pods beside)", r["share"], b["share"], "core", "<= 0.5 core", 0.5, on="value",
               detail=detail),
    ]


if __name__ == "__main__":
    main(run)
