"""Figures of the unattended guard with panels attached (#45 item 7), beside watch_cpu (bench_watch.py).

- `attach_requests`: the source requests the reaping-wave simulator counts over `watch`'s polls
  with three panels attached (each a channel client that opened its session on the watch), against
  the same polls of a watch alone on a twin simulator: attached panels add none (<= 1.0x).
- `page_latency`: from the end of the poll that confirms the first wave to its page arriving at a
  loopback JSON hook, three panels attached (<= 1 s).
- `watch_rss_hour`: `watch` on the 10,000-pod fleet (bench_fleet's simulators) for an hour of
  polls at the default 30 s, run back to back (120 polls): the process's resident memory after the
  last (<= 120 MB; its peak, within a poll, in `detail`). Baseline: the same after the first poll.
- `attached_first_frame`: `sagan-tui` under a pty on the warm large-fleet cache while a watch runs
  on it, until the status line says `watch polls` (the watch's live state, not the cache's peek),
  against the bare Textual app, alternated (<= 1.5x).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from argparse import Namespace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from bench_start import against_bare, time_to_marker
from common import PY, ROOT, Figure, clean_env, main, panel_argv, quiet_logging, temp_dir, unreachable_env, warm_cache
from baseline_apps import MARKER

# Scenario seconds of the reaping wave's polls: r4's pods RUNNING at 60, their losses seen at 160
# (tests/pages/test_watch.py's TIMES), then the guard's polls.
TIMES = (60, 160, 164, 168, 200, 260)
PANELS = 3


class Hook:
    """A loopback JSON webhook noting when each page arrived (time.perf_counter)."""

    def __init__(self) -> None:
        self.arrived: list[float] = []
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                hook.arrived.append(time.perf_counter())
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


async def _watched(sim, home: Path, panels: int, hook: Hook | None) -> dict:
    """A watch on `sim` (its clock held) polled at TIMES with `panels` attached: the requests the
    simulator counted from the first poll on, and how long the first wave's page took."""
    from sagan_tui.commands.watch import Watch, checked
    from sagan_tui.core.config_model import load_settings
    from sagan_tui.core.store.cache import Cache
    from sagan_tui.wire.channel.client import SessionClient
    from sagan_tui.wire.channel.early import open_layers
    from sagan_tui.wire.channel.runtime_dir import connect_watch
    from sagan_tui.wire.config import gather

    env = {**sim.env(), "SAGAN_TUI_CONFIG": str(home / "none.toml")}
    pages = {"page_urls": f"json://127.0.0.1:{hook.port}/hook"} if hook else {}
    settings, _ = load_settings(env, sagan_tui_cache=str(home / "cache.sqlite"), poll_interval=60.0, **pages)
    now = [sim.clock.at(0)]
    w = Watch(Namespace(for_seconds=None), settings, Cache(settings.cache_path), *checked(settings),
              clock=lambda: now[0])
    w.say = w.pager.say = lambda line: None
    w.open_hub()
    clients = []
    latency = None
    try:
        draft = gather(env, sagan_tui_cache=str(settings.cache_path), poll_interval=60.0)
        values, accounts = open_layers(draft)
        for _ in range(panels):
            client = SessionClient(lambda update: None)
            await client.connect(connect_watch(settings.cache_path))
            await client.open(values, accounts)
            clients.append(client)
        mark = len(sim.requests)
        for t in TIMES:
            sim.clock.hold(t)
            now[0] = sim.clock.at(t)
            changes = await w.poller.poll_once()
            polled, before = time.perf_counter(), len(hook.arrived) if hook else 0
            await w.after_poll(changes.at)
            waving = any(a.kind == "wave" and a.state == "open" for a in w.life.alerts.values())
            if hook is not None and latency is None and waving:  # this poll confirmed the wave
                deadline = time.perf_counter() + 10
                while len(hook.arrived) <= before and time.perf_counter() < deadline:
                    await asyncio.sleep(0.005)
                latency = hook.arrived[before] - polled if len(hook.arrived) > before else float("inf")
        requests = len(sim.requests) - mark
    finally:
        for client in clients:
            await client.close()
        await w.close(drain_s=2)
    return {"requests": requests, "page_s": latency}


def requests_and_page() -> list[Figure]:
    from sagan_tui.sim import SimServer

    home = temp_dir("sagan-bench-attach-")
    alone_sim, shared_sim = SimServer(scenario="reaping-wave").start(), SimServer(scenario="reaping-wave").start()
    hook = Hook()
    try:
        (home / "alone").mkdir()
        (home / "shared").mkdir()
        alone = asyncio.run(_watched(alone_sim, home / "alone", 0, None))
        shared = asyncio.run(_watched(shared_sim, home / "shared", PANELS, hook))
    finally:
        hook.stop()
        alone_sim.stop()
        shared_sim.stop()
    info = {"polls": len(TIMES), "panels": PANELS, "alone": alone, "attached": shared}
    return [
        Figure("attach_requests", f"source requests over {len(TIMES)} watch polls, {PANELS} panels attached vs none",
               shared["requests"], alone["requests"], "req", "<= 1.0x", 1.0, detail=info),
        Figure("page_latency", "confirming poll's end to the wave's page at a loopback hook, panels attached",
               shared["page_s"] or float("inf"), None, "s", "<= 1 s", 1.0, on="value", detail=info),
    ]


def _rss_kb(pid: int, field: str = "VmRSS") -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def rss_hour(pods: int, polls: int) -> Figure:
    """watch polling the fleet `polls` times back to back, in a process of its own (`--rss-child`)
    whose peak resident memory is read from /proc as it runs."""
    from bench_fleet import fleet_servers

    with fleet_servers(pods, "sagan-bench-rss-") as (env, urls, home):
        spec = json.dumps({"env": env, "urls": urls, "cache": str(home / "w.sqlite"), "polls": polls})
        proc = subprocess.Popen([PY, str(Path(__file__)), "--rss-child", spec], cwd=str(ROOT),
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        peak = 0
        while proc.poll() is None:
            peak = max(peak, _rss_kb(proc.pid, "VmHWM") or 0)
            time.sleep(0.25)
        out = proc.communicate()[0].splitlines()
    done = json.loads(out[-1]) if out else {}
    last, first = done.get("last_poll_rss_kb") or peak, done.get("first_poll_rss_kb") or peak
    return Figure("watch_rss_hour", f"watch's resident memory after {polls} polls of {pods:,} pods (an hour at 30 s)",
                  last / 1024, first / 1024, "MB", "<= 120 MB", 120.0, on="value",
                  detail={"pods": pods, "polls": done.get("polls"), "peak_mb": round(peak / 1024, 1)})


def rss_child(spec: dict) -> None:
    """The watch of rss_hour: Watch's poll and what follows it, `polls` times, each account on its
    own simulator; prints its polls and its memory after the first and the last, as JSON."""
    from common import own_servers, settings_for_sim
    from sagan_tui.commands.watch import Watch
    from sagan_tui.core.heap import few_heaps
    from sagan_tui.core.store.cache import Cache
    from sagan_tui.core.sync.poller import Poller

    quiet_logging()
    few_heaps()  # as the `watch` command's run() does before its threads start

    async def go() -> dict:
        settings = settings_for_sim(spec["env"], Path(spec["cache"]))
        cache = Cache(settings.cache_path)
        poller = Poller(settings, cache, transports=own_servers(settings, spec["urls"]))
        w = Watch(Namespace(for_seconds=None), settings, cache, [], None, [], poller=poller)
        w.say = w.pager.say = lambda line: None
        first = None
        try:
            for _ in range(spec["polls"]):
                await w.poll_once()
                first = first or _rss_kb(os.getpid())
        finally:
            await w.close(drain_s=1)
        return {"polls": spec["polls"], "first_poll_rss_kb": first, "last_poll_rss_kb": _rss_kb(os.getpid())}

    print(json.dumps(asyncio.run(go())))


def attached_first_frame(runs: int, small: bool) -> Figure:
    source = warm_cache(polls=1, scenario="calm") if small else warm_cache()
    home = temp_dir("sagan-bench-attached-start-")
    cache = home / "cache.sqlite"
    shutil.copy(source, cache)
    env = clean_env(home, **unreachable_env())
    watch = subprocess.Popen([PY, "-m", "sagan_tui", "watch", "--cache", str(cache), "--poll-interval", "30"],
                             env=env, cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert watch.stdout is not None and "panels attach at" in watch.stdout.readline()
        panel, bare = [], []
        bare_argv = [PY, str(ROOT / "bench" / "baseline_apps.py"), "bare"]
        for _ in range(runs):
            bare.append(time_to_marker(bare_argv, env, lambda text: MARKER in text))
            panel.append(time_to_marker(panel_argv("--cache", str(cache)), env, lambda text: "watch polls" in text))
    finally:
        watch.terminate()
        watch.wait(30)
    return against_bare("attached_first_frame", "start to the watch's live state, attached (warm large-fleet cache)",
                        panel, bare, 1.5)


def run(small: bool = False) -> list[Figure]:
    quiet_logging()
    figures = requests_and_page()
    figures.append(rss_hour(500 if small else 10_000, 5 if small else 120))
    figures.append(attached_first_frame(1 if small else 9, small))
    return figures


if __name__ == "__main__":
    if sys.argv[1:2] == ["--rss-child"]:
        rss_child(json.loads(sys.argv[2]))
    else:
        main(run)
