"""Shared by the benchmarks: the Figure record, results.json, a clean environment, a warm cache."""

from __future__ import annotations

import asyncio
import atexit
import json
import logging
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
RESULTS = BENCH / "results.json"
PY = sys.executable
if str(ROOT) not in sys.path:  # `python bench/x.py` from anywhere
    sys.path.insert(0, str(ROOT))
FIXES = bool(os.environ.get("BENCH_FIXES"))
if FIXES:  # measure the proposed fixes (see candidate_fixes.py) in this process too
    import candidate_fixes

    candidate_fixes.apply()


@dataclass
class Figure:
    """One measured figure against its same-run baseline; `ok` is judged on `ratio` or on `value`."""

    name: str
    title: str
    value: float
    baseline: float | None
    unit: str
    target: str  # "<= 1.5x", ">= 0.5x", "<= 300 B/s"
    limit: float  # the number in the target
    on: str = "ratio"  # "ratio" or "value": what the target bounds
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        if self.baseline in (None, 0):
            return None
        return self.value / self.baseline

    @property
    def ok(self) -> bool:
        x = self.ratio if self.on == "ratio" else self.value
        if x is None:
            return False
        return x <= self.limit if self.target.startswith("<=") else x >= self.limit

    def as_json(self) -> dict[str, Any]:
        r = self.ratio
        return {"value": round(self.value, 6), "baseline": None if self.baseline is None else round(self.baseline, 6),
                "ratio": None if r is None else round(r, 4), "unit": self.unit, "target": self.target,
                "ok": self.ok, "detail": self.detail}


def median_time(fn: Callable[[], Any], runs: int) -> float:
    """Median wall seconds of `runs` calls."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def fmt(x: float | None, unit: str = "") -> str:
    if x is None:
        return "—"
    if unit in ("s",):
        return f"{x:.3f} s" if x < 10 else f"{x:.1f} s"
    if abs(x) >= 1000:
        return f"{x:,.0f} {unit}".strip()
    return f"{x:.3g} {unit}".strip()


def table(figures: Iterable[Figure], markdown: bool = True) -> str:
    """The table: markdown (with each figure's title) for the README, or aligned plain text
    that fits an 80-column terminal for `make bench`."""
    rows = []
    for f in figures:
        r = f.ratio
        rows.append((f.title if markdown else f.name, fmt(f.value, f.unit), fmt(f.baseline, f.unit),
                     "—" if r is None else f"{r:.2f}x", f.target, "ok" if f.ok else "MISS"))
    head = ("figure", "value", "baseline", "ratio", "target", "ok")
    if markdown:
        return "\n".join(["| " + " | ".join(head) + " |", "|---|---|---|---|---|---|",
                          *("| " + " | ".join(r) + " |" for r in rows)])
    widths = [max(len(str(r[i])) for r in (head, *rows)) for i in range(len(head))]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in (head, *rows))


def save(figures: Iterable[Figure], path: Path = RESULTS, whole: bool = False) -> None:
    """Merge into results.json, so one benchmark run alone updates only its own entries; `whole`
    (a run of every benchmark) replaces it, so a figure no longer measured does not linger."""
    try:
        data = {} if whole else json.loads(path.read_text())
    except (OSError, ValueError):
        data = {}
    for f in figures:
        data[f.name] = f.as_json()
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def main(run: Callable[..., list[Figure]]) -> None:
    """`python bench/bench_x.py [--small]`: run, print the table, merge into results.json."""
    small = "--small" in sys.argv[1:]
    figures = run(small=small)
    print(table(figures, markdown=False))
    if FIXES:
        print("(bench/candidate_fixes.py applied: results.json left alone)")
    elif not small:
        save(figures)


# --- environment ---------------------------------------------------------------------------

def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """A child's environment with none of the user's config or keys: only what the bench gives it."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8",
           "SAGAN_TUI_CONFIG": str(home / "no-config.toml"), "XDG_CACHE_HOME": str(home / "cache"),
           "XDG_CONFIG_HOME": str(home / "config"), "PYTHONDONTWRITEBYTECODE": "1"}
    env.update(extra)
    return env


def quiet_logging() -> None:
    """The SDK and httpx log at INFO to stderr once imported: keep the bench's table readable."""
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    root.addHandler(logging.NullHandler())
    root.setLevel(logging.WARNING)
    for name in ("httpx", "httpcore", "runpod", "uvicorn"):
        logging.getLogger(name).setLevel(logging.WARNING)


def settings_for_sim(sim_env: dict[str, str], cache: Path, **flags: Any):
    from sagan_tui.core.config_model import load_settings

    env = {**sim_env, "SAGAN_TUI_CONFIG": str(cache.parent / "no-config.toml")}
    settings, _ = load_settings(env, sagan_tui_cache=str(cache), bell=False, **flags)
    return settings


def own_servers(settings, urls: dict[str, str]) -> dict:
    """Each account's transport built against its own server (`urls`: account -> base URL).

    Setting `base_url` on a built transport reached only GraphQL's calls: `auto` (the default)
    holds a REST client made with its base URL, so every account went to the first simulator.
    """
    from sagan_tui.core.sources.runpod_select import make_transport

    transports = {}
    for name, acc in settings.accounts.items():
        if not acc.enabled:
            continue
        own = settings
        if name in urls:
            own = settings.model_copy(update={"runpod_api_base_url": urls[name], "runpod_rest_base_url": None})
        transports[name] = make_transport(own, name, acc.transport)
    return transports


def poll_into(sim_env: dict[str, str], cache_path: Path, polls: int) -> None:
    """Run `polls` poll cycles of a Poller against a simulator into the cache file."""
    from sagan_tui.core.store.cache import Cache
    from sagan_tui.core.sync.poller import Poller

    settings = settings_for_sim(sim_env, cache_path)
    cache = Cache(settings.cache_path)
    poller = Poller(settings, cache)

    async def go() -> None:
        try:
            for _ in range(polls):
                await poller.poll_once(force=True)
        finally:
            await poller.aclose()

    try:
        asyncio.run(go())
    finally:
        cache.close()


def temp_dir(prefix: str, parent: str | None = None) -> Path:
    """A new private directory for one bench's files, removed when the bench's process ends: a
    run leaves nothing behind (a cache of a large fleet is tens of megabytes)."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def settle_disk() -> None:
    """Write the page cache's dirty pages out now: a copy of the warm cache (tens of megabytes)
    or the bench before leaves them for the kernel to flush within the next half minute, on the
    same two cores as the runs timed next, landing on whichever run it meets."""
    os.sync()


def warm_cache(polls: int = 6, scenario: str = "large-fleet") -> Path:
    """A cache filled from the `large-fleet` simulator (all pods, the experiments, ~100k events).

    BENCH_WARM_CACHE names a file to reuse (run_all builds one for every benchmark); the
    file must have been built by this same function.
    """
    given = os.environ.get("BENCH_WARM_CACHE") if scenario == "large-fleet" else None
    if given and Path(given).is_file():
        return Path(given)
    from sagan_tui.sim import SimServer

    quiet_logging()
    path = Path(given) if given else temp_dir("sagan-bench-") / f"{scenario}.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    with SimServer(scenario=scenario, speed=120.0) as sim:
        poll_into(sim.env(), path, polls)
    return path


class SimProcess:
    """`sagan-tui sim` in its own process, so its CPU is not counted against the code measured."""

    def __init__(self, *args: str) -> None:
        self.args = args

    def __enter__(self) -> "SimProcess":
        self.proc = subprocess.Popen([PY, "-m", "sagan_tui", "sim", *self.args], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
        self.env: dict[str, str] = {}
        assert self.proc.stdout is not None
        deadline = time.monotonic() + 120
        for line in self.proc.stdout:
            if "=" in line and line.split("=", 1)[0].isupper():
                k, v = line.strip().split("=", 1)
                self.env[k] = v
            if "RUNPOD_API_KEY_PERSONAL" in self.env and "RUNPOD_API_KEY_TEAM" in self.env:
                break
            if time.monotonic() > deadline:
                break
        if "SAGAN_BASE_URL" not in self.env:
            self.__exit__()
            raise RuntimeError("the simulator did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def panel_argv(*args: str) -> list[str]:
    """How the panel is started: `python -m sagan_tui`; with BENCH_FIXES, through candidate_fixes.py;
    or BENCH_PANEL, any script standing in for it (a proposal measured before it lands)."""
    script = os.environ.get("BENCH_PANEL") or (str(BENCH / "candidate_fixes.py") if FIXES else None)
    return [PY, script, *args] if script else [PY, "-m", "sagan_tui", *args]


def descendants(pid: int) -> list[int]:
    """Every live process below `pid` (the panel's session child, the simulator of --demo)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def cmdline(pid: int) -> list[str]:
    """A process's argv ([] once it is gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return [a.decode(errors="replace") for a in fh.read().split(b"\0") if a]
    except OSError:
        return []


def peak_rss_mb(pid: int) -> float:
    """A process's peak resident set (VmHWM), in MB; ProcessLookupError (an OSError, as for a
    process already reaped) once it has ended: a zombie's status has no memory lines left."""
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise ProcessLookupError(f"process {pid} has ended: no VmHWM in its status")


def unreachable_env() -> dict[str, str]:
    """Sources on a closed loopback port: the panel paints from its cache, its polls fail fast."""
    return {"SAGAN_BASE_URL": "http://127.0.0.1:9", "SAGAN_API_TOKEN": "bench-token",
            "RUNPOD_API_BASE_URL": "http://127.0.0.1:9", "RUNPOD_API_KEY_TEAM": "bench-team",
            "RUNPOD_API_KEY_PERSONAL": "bench-personal"}
