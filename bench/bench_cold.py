"""Figure `cold_start`: a fresh cache to live pods on screen, against a bare Textual app's first frame.

The panel starts with no cache file against the `calm` simulator (in its own process, default
`auto` transport): the clock stops when a pod id the simulator lists is on screen, so the pods
can only have come from a poll (the session process's first, over the channel). The bare app
(bench/baseline_apps.py) runs alternated with the panel under the same pty (200x50,
TERM=xterm-256color), so machine noise falls on both. Median of runs.
"""

from __future__ import annotations

import compileall
import shutil
import tempfile
from pathlib import Path

import httpx

from baseline_apps import MARKER
from bench_start import POD_ID, against_bare, time_to_marker
from common import PY, ROOT, Figure, SimProcess, clean_env, main, panel_argv


def listed_pods(env: dict[str, str]) -> set[str]:
    """Every pod id the simulator's accounts list now (REST v2)."""
    ids: set[str] = set()
    for name in ("TEAM", "PERSONAL"):
        reply = httpx.get(env["RUNPOD_API_BASE_URL"] + "/v2/pods", timeout=10,
                          headers={"Authorization": f"Bearer {env[f'RUNPOD_API_KEY_{name}']}"})
        ids |= {p["id"] for p in reply.json().get("pods", [])}
    return ids


def run(small: bool = False) -> list[Figure]:
    runs = 1 if small else 9
    compileall.compile_dir(str(ROOT / "sagan_tui"), quiet=1)  # an installed panel starts from .pyc
    home = Path(tempfile.mkdtemp(prefix="sagan-bench-cold-"))  # removed below, as soon as it is done with
    panel: list[float] = []
    bare: list[float] = []
    try:
        with SimProcess("--scenario", "calm") as sim:
            ids = listed_pods(sim.env)
            seen = lambda text: any(m in ids for m in POD_ID.findall(text))  # noqa: E731
            for i in range(runs):
                env = clean_env(home, **sim.env)
                bare.append(time_to_marker([PY, str(ROOT / "bench" / "baseline_apps.py"), "bare"], env,
                                    lambda text: MARKER in text))
                cache = home / f"fresh-{i}.sqlite"  # none yet: the panel creates it
                panel.append(time_to_marker(panel_argv("--cache", str(cache), "--poll-interval", "2"), env, seen))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return [against_bare("cold_start", "fresh cache to live pods on screen (calm simulator, auto transport)",
                         panel, bare, 3.0, pods_listed=len(ids))]


if __name__ == "__main__":
    main(run)
