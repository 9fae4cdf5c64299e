"""Figure 7: the panel's peak RSS on `large-fleet` after 100 polls, beside a bare Textual app's.

The panel runs under a pty at 200x50 from a copy of the warm cache, polling every 0.5 s (the
least a user may set) a simulator running 30x faster than real time (events, losses and stops keep arriving). Polls are
counted as the simulator receives them; then the child's VmHWM (peak resident set) is read.

The run gives two figures: `memory_ui`, the UI process's peak alone, and `memory_both`, the UI's
peak plus every process it started (its session process: a sum of peaks, at least the peak of the
processes together, so never flattering).
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from pathlib import Path

from common import (PY, ROOT, Figure, clean_env, cmdline, descendants, main, panel_argv, peak_rss_mb, quiet_logging,
                    temp_dir, warm_cache)
from ptyrun import PtyProcess
from baseline_apps import MARKER

POD_ID = re.compile(r"[a-z0-9]{14}")


def panel_peak(polls: int, scenario: str, cache_src: Path) -> dict:
    from sagan_tui.sim import SimServer

    home = Path(tempfile.mkdtemp(prefix="sagan-bench-memory-"))  # removed below, as soon as it is done with
    cache = home / "cache.sqlite"
    shutil.copy(cache_src, cache)
    try:
        with SimServer(scenario=scenario, speed=30.0) as sim:
            env = clean_env(home, **sim.env())
            argv = panel_argv("--cache", str(cache), "--poll-interval", "0.5", "--no-bell")
            with PtyProcess(argv, env, size=(200, 50), cwd=str(ROOT)) as p:
                p.wait_for(lambda text: bool(POD_ID.search(text)), 120)
                t0 = time.monotonic()

                def seen() -> int:
                    return sum(1 for r in list(sim.requests) if r.path.endswith("/approval-requests"))

                while seen() < polls:
                    if not p.pump(0.2):
                        raise RuntimeError("the panel exited: " + p.output[-400:].decode("utf-8", "replace"))
                    if time.monotonic() - t0 > 900:
                        raise TimeoutError(f"only {seen()} polls in 15 minutes")
                # Every process the panel started and still runs counts (its session; anything else
                # it ran is never flattering); one that ended meanwhile has no peak left to read.
                peaks = {}
                for pid in descendants(p.pid):
                    try:
                        peaks[pid] = peak_rss_mb(pid)
                    except OSError:
                        continue
                return {"peak_mb": p.peak_rss_mb(), "polls": seen(), "seconds": time.monotonic() - t0,
                        "children": len(peaks), "children_peak_mb": sum(peaks.values()),
                        "children_argv": [" ".join(cmdline(pid)[1:4]) or "?" for pid in peaks]}
    finally:
        shutil.rmtree(home, ignore_errors=True)


def bare_peak() -> float:
    home = temp_dir("sagan-bench-bare-")
    with PtyProcess([PY, str(ROOT / "bench" / "baseline_apps.py"), "bare"], clean_env(home), size=(200, 50)) as p:
        p.wait_for(lambda text: MARKER in text, 60)
        p.pump(1.0)
        return p.peak_rss_mb()


def run(small: bool = False) -> list[Figure]:
    quiet_logging()
    polls, scenario, source = (5, "calm", warm_cache(polls=1, scenario="calm")) if small else \
        (100, "large-fleet", warm_cache())
    rp = panel_peak(polls, scenario, source)
    bare = bare_peak()
    detail = {"panel": {k: round(v, 2) if isinstance(v, float) else v for k, v in rp.items()},
              "bare_mb": round(bare, 1)}
    both = rp["peak_mb"] + rp["children_peak_mb"]
    return [Figure("memory_ui", f"peak RSS of the UI process after {rp['polls']} polls "
                   "(bare Textual app beside)", rp["peak_mb"], bare, "MB", "<= 120 MB", 120, on="value",
                   detail=detail),
            Figure("memory_both", f"peak RSS of UI + session processes after {rp['polls']} polls "
                   "(bare Textual app beside)", both, bare, "MB", "<= 260 MB", 260, on="value", detail=detail)]


if __name__ == "__main__":
    main(run)
