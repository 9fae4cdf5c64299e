"""`sagan-tui sim`: serve the simulator on 127.0.0.1 until interrupted, printing how to reach it."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from typing import Any

DEFAULT_SCENARIO = "reaping-wave"


def run(args: argparse.Namespace) -> int:
    from sagan_tui.sim import FixtureError, SimServer

    fixture = getattr(args, "fixture", None)
    scenario = None if fixture else (getattr(args, "sim_scenario", None) or DEFAULT_SCENARIO)
    try:
        sim = SimServer(scenario=scenario, fixture=fixture, port=getattr(args, "port", 0) or 0,
                        speed=getattr(args, "sim_speed", 1.0) or 1.0, latency=getattr(args, "latency", 0.0) or 0.0)
    except (FixtureError, ValueError) as exc:
        print(f"sagan-tui sim: {exc}", file=sys.stderr)
        return 2
    try:
        sim.start()
    except (OSError, RuntimeError) as exc:
        print(f"sagan-tui sim: cannot serve: {_why_not_served(exc, getattr(args, 'port', 0) or 0)}", file=sys.stderr)
        return 1

    done = threading.Event()

    def _stop(_signum: int, _frame: Any) -> None:
        done.set()

    if getattr(args, "for_panel", False):
        return _serve_for_panel(sim, done, _stop)
    previous = {sig: signal.signal(sig, _stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        source = f"fixture {fixture}" if fixture else f"scenario {scenario}"
        print(f"sagan-tui simulator: {source} at {sim.base_url} (speed {sim.clock.speed:g}x); Ctrl-C stops it.")
        print("# demo credentials of the simulator, for the panel's environment:")
        for name, value in sim.env().items():
            print(f"{name}={value}")
        sys.stdout.flush()
        while not done.wait(0.5):
            pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        sim.stop()
    print("sagan-tui simulator: stopped.", flush=True)
    return 0


def _why_not_served(exc: BaseException, port: int) -> str:
    """The bind's failure with the port it was for: "[Errno 98] Address already in use" names none."""
    import errno

    code = getattr(exc, "errno", None)
    if code == errno.EADDRINUSE:
        return f"port {port} on 127.0.0.1 is already in use (give another --port, or 0 for a free one)"
    if code in (errno.EACCES, errno.EPERM):
        return f"port {port} on 127.0.0.1: permission denied (ports below 1024 need privileges)"
    words = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return f"127.0.0.1:{port}: {words}" if port else words


def _serve_for_panel(sim: Any, done: threading.Event, stop: Any) -> int:
    """`--demo`'s simulator, a process beside the panel's: one JSON line on stdout says where it
    is and what the panel's environment is, then it serves until its stdin ends (the panel
    closed it, or died by any means, kill -9 included) or SIGTERM/SIGHUP. The terminal's Ctrl+C
    is the panel's to act on: it closes this process when it ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)

    def _until_stdin_ends() -> None:
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except OSError:
            pass
        done.set()

    threading.Thread(target=_until_stdin_ends, name="sim-stdin", daemon=True).start()
    try:
        print(json.dumps({"url": sim.base_url, "scenario": sim.scenario, "env": sim.env()}), flush=True)
        while not done.wait(0.5):
            pass
    finally:
        sim.stop()
    return 0
