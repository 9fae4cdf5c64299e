"""Figure 1: process start to the first frame showing cached rows, against a bare Textual app.

Both run under a real pty at 200x50 with TERM=xterm-256color; the clock stops when a pod id
from the warm `large-fleet` cache (or the bare app's marker) is on screen. Median of several runs,
alternating the bare app and the panel (its session a child process, as always; the first frame
from the UI's own read-only peek) so that machine noise falls on both.
"""

from __future__ import annotations

import compileall
import re
import shutil
import sqlite3
import statistics
import tempfile
from pathlib import Path

from common import PY, ROOT, Figure, clean_env, main, panel_argv, settle_disk, unreachable_env, warm_cache
from ptyrun import PtyProcess
from baseline_apps import MARKER

POD_ID = re.compile(r"[a-z0-9]{14}")


def pod_ids(cache: Path) -> set[str]:
    with sqlite3.connect(cache) as db:
        return {r[0] for r in db.execute("select pod_id from pods")}


def time_to_marker(argv: list[str], env: dict[str, str], seen, timeout: float = 120) -> float:
    with PtyProcess(argv, env, size=(200, 50), cwd=str(ROOT)) as p:
        return p.wait_for(seen, timeout)


def run(small: bool = False) -> list[Figure]:
    # Nine, not five: on an unchanged tree four back-to-back medians of five read 1.39x to 1.98x
    # (one bare-app start of 0.32 s among 0.41-0.45 s moved the whole figure).
    runs = 1 if small else 9
    # The children run with PYTHONDONTWRITEBYTECODE: without this, every module edited since its
    # .pyc was last written is compiled again at each start, which an installed panel never does.
    compileall.compile_dir(str(ROOT / "sagan_tui"), quiet=1)
    source = warm_cache(polls=1, scenario="calm") if small else warm_cache()
    home = Path(tempfile.mkdtemp(prefix="sagan-bench-start-"))  # removed below, as soon as it is done with
    try:
        cache = home / "cache.sqlite"
        shutil.copy(source, cache)  # the panel writes health into it: keep the shared file as built
        ids = pod_ids(cache)
        settle_disk()
        env = clean_env(home, **unreachable_env())
        panel_cmd = panel_argv("--cache", str(cache))
        bare_argv = [PY, str(ROOT / "bench" / "baseline_apps.py"), "bare"]
        panel_seen = lambda text: any(m in ids for m in POD_ID.findall(text))  # noqa: E731
        panel: list[float] = []
        bare: list[float] = []
        for _ in range(runs):
            bare.append(time_to_marker(bare_argv, env, lambda text: MARKER in text))
            panel.append(time_to_marker(panel_cmd, env, panel_seen))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return [against_bare("start_to_first_frame", "start to first frame (warm large-fleet cache)", panel, bare, 1.35,
                         pods_in_cache=len(ids))]


def against_bare(name: str, title: str, panel: list[float], bare: list[float], limit: float,
                 **detail: object) -> Figure:
    """The panel's median time against the bare app's, alternated runs of the same pty."""
    return Figure(name, title, statistics.median(panel), statistics.median(bare), "s", f"<= {limit:g}x", limit,
                  detail={"panel_s": [round(x, 3) for x in panel], "bare_s": [round(x, 3) for x in bare], **detail})


if __name__ == "__main__":
    main(run)
