"""Figure: key-to-screen latency while the panel polls `large-fleet`, against a stock DataTable of 1,000 rows.

The panel runs on a real pty (200x50) against the simulator (`large-fleet`, sped up so that pods
are lost and waves form while it runs), polling every 2 s; the bench presses the down arrow every
0.25 s and times each press to the first bytes the app writes after it (its repaint of the moved
cursor). Baseline, in the same run: Textual's stock DataTable with 1,000 rows, the same presses.
Targets: worst <= 50 ms, p95 <= the DataTable's p95.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

from common import PY, ROOT, Figure, SimProcess, clean_env, main, panel_argv, quiet_logging, temp_dir
from ptyrun import PtyProcess
from baseline_apps import MARKER

SIZE = (200, 50)
DOWN = "\x1b[B"
EVERY_S = 0.25
SPEED = os.environ.get("BENCH_KEYS_SPEED", "1")  # the issue measured at 1; 20 loses pods every few seconds


def press(p: PtyProcess, keys: str = DOWN, wait: float = 2.0) -> float:
    """`keys` EVERY_S after the last press: seconds to the first output after them (`wait` if none came)."""
    p.pump(EVERY_S)  # what was on its way (a poll's repaint) is read before the press
    mark, sent = len(p.output), time.monotonic()
    p.send(keys)
    end = sent + wait
    while len(p.output) == mark and time.monotonic() < end:
        p.pump(0.001)
    after = next((t for t, size in p.stamps if size > mark), None)
    return (after or end) - sent


def presses(p: PtyProcess, n: int) -> list[float]:
    """Seconds from each down arrow to the first output after it."""
    return [press(p) for _ in range(n)]


def measure_panel(n: int, speed: str) -> list[float]:
    home = temp_dir("sagan-bench-keys-")
    with SimProcess("--scenario", "large-fleet", "--speed", speed) as sim:
        env = clean_env(home, **sim.env)
        argv = panel_argv("--cache", str(home / "cache.sqlite"), "--poll-interval", "2", "--no-mouse", "--no-bell")
        p = PtyProcess(argv, env, size=SIZE, cwd=str(ROOT)).start()
        try:
            p.wait_for(lambda text: "sagan ✓" in text, timeout=180)  # the first poll of Sagan is in
            p.pump(3.0)
            return presses(p, n)
        finally:
            p.stop()


def measure_datatable(n: int) -> list[float]:
    home = temp_dir("sagan-bench-keys-dt-")
    argv = [PY, str(Path(__file__).with_name("baseline_apps.py")), "datatable", "--rows", "1000", "--every", "1e9"]
    p = PtyProcess(argv, clean_env(home), size=SIZE, cwd=str(ROOT)).start()
    try:
        p.wait_for(lambda text: MARKER in text, timeout=60)
        p.pump(1.0)
        return presses(p, n)
    finally:
        p.stop()


def p95(xs: list[float]) -> float:
    return statistics.quantiles(xs, n=20)[-1]


def ms(xs: list[float]) -> dict[str, float]:
    return {"p50": round(statistics.median(xs) * 1000, 1), "p95": round(p95(xs) * 1000, 1),
            "max": round(max(xs) * 1000, 1)}


def run(small: bool = False) -> list[Figure]:
    quiet_logging()
    n = 20 if small else 120
    panel = measure_panel(n, SPEED)
    table = measure_datatable(n)
    detail = {"panel_ms": ms(panel), "datatable_ms": ms(table), "presses": n, "every_s": EVERY_S,
              "scenario": f"large-fleet --speed {SPEED}, poll 2 s", "size": "200x50"}
    return [
        Figure("key_latency", "key-to-screen latency p95 while polling large-fleet", p95(panel), p95(table), "s",
               "<= 1.0x", 1.0, detail=detail),
        Figure("key_latency_max", "key-to-screen latency, worst press while polling large-fleet", max(panel),
               max(table), "s", "<= 0.05 s", 0.05, on="value", detail=detail),
    ]


if __name__ == "__main__":
    main(run)
