"""Figure `cold_start`: a fresh cache to live pods on screen, against a bare Textual app's first frame.

The panel starts with no cache file against the `calm` simulator (in its own process, default
`auto` transport): the clock stops when a pod id the simulator lists is on screen, so the pods
can only have come from a poll. The bare app (bench/baseline_apps.py) runs alternated with it,
under the same pty (200x50, TERM=xterm-256color), so machine noise falls on both. Median of runs.
"""

from __future__ import annotations

import compileall
import re
import shutil
import statistics
import tempfile
from pathlib import Path

import httpx

from baseline_apps import MARKER
from common import PY, ROOT, Figure, SimProcess, clean_env, main, panel_argv
from ptyrun import PtyProcess

POD_ID = re.compile(r"[a-z0-9]{14}")


def listed_pods(env: dict[str, str]) -> set[str]:
    """Every pod id the simulator's accounts list now (REST v2)."""
    ids: set[str] = set()
    for name in ("TEAM", "PERSONAL"):
        reply = httpx.get(env["RUNPOD_API_BASE_URL"] + "/v2/pods", timeout=10,
                          headers={"Authorization": f"Bearer {env[f'RUNPOD_API_KEY_{name}']}"})
        ids |= {p["id"] for p in reply.json().get("pods", [])}
    return ids


def time_to(argv: list[str], env: dict[str, str], seen, timeout: float = 120) -> float:
    with PtyProcess(argv, env, size=(200, 50), cwd=str(ROOT)) as p:
        return p.wait_for(seen, timeout)


def run(small: bool = False) -> list[Figure]:
    runs = 1 if small else 9
    compileall.compile_dir(str(ROOT / "sagan_tui"), quiet=1)  # an installed panel starts from .pyc
    home = Path(tempfile.mkdtemp(prefix="sagan-bench-cold-"))
    panel, bare = [], []
    try:
        with SimProcess("--scenario", "calm") as sim:
            ids = listed_pods(sim.env)
            seen = lambda text: any(m in ids for m in POD_ID.findall(text))  # noqa: E731
            for i in range(runs):
                cache = home / f"fresh-{i}.sqlite"  # none yet: the panel creates it
                env = clean_env(home, **sim.env)
                bare.append(time_to([PY, str(ROOT / "bench" / "baseline_apps.py"), "bare"], env,
                                    lambda text: MARKER in text))
                panel.append(time_to(panel_argv("--cache", str(cache), "--poll-interval", "2"), env, seen))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return [Figure("cold_start", "fresh cache to live pods on screen (calm simulator, auto transport)",
                   statistics.median(panel), statistics.median(bare), "s", "<= 3x", 3.0,
                   detail={"panel_s": [round(x, 3) for x in panel], "bare_s": [round(x, 3) for x in bare],
                           "pods_listed": len(ids)})]


if __name__ == "__main__":
    main(run)
