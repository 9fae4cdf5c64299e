"""`sagan-tui --demo`: the simulator on a free loopback port, the panel on it, a throw-away cache.

The simulator is a process of its own (`sagan-tui sim --for-panel`), as the real APIs are
elsewhere: the UI's interpreter draws and the session's polls, and neither serves HTTP. It runs
in a process group of its own (the terminal's Ctrl+C is the panel's) and ends when its stdin
does, so the panel ending in any way, kill -9 included, leaves no simulator behind.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

from sagan_tui.wire.channel.early import end_by_stdin
from sagan_tui.commands.panel import refuse_without_terminal, run_panel, settings_for
from sagan_tui.wire.config import DATA_DIR_ENV, TRANSPORT_ENV_PREFIX

TERMINAL_ENV = ("SAGAN_TUI_NOTIFY", "SAGAN_TUI_RUNWAY_WARN_HOURS", "SAGAN_TUI_COLOR_SYSTEM", "SAGAN_TUI_AWAY_MINUTES",
                "SAGAN_TUI_NOTICE_SECONDS")
SIM_GRACE_S = 5.0  # the simulator stops in a second (uvicorn's graceful shutdown); then it is killed


def run(args: argparse.Namespace) -> int:
    refused = refuse_without_terminal()
    if refused is not None:  # before the simulator starts: nothing to draw it on
        return refused
    with tempfile.TemporaryDirectory(prefix="sagan-tui-demo-") as tmp:
        log = Path(tmp) / "simulator.log"
        with log.open("wb") as err:
            sim = subprocess.Popen(
                [sys.executable, "-m", "sagan_tui", "sim", "--scenario", args.scenario, "--speed", str(args.speed),
                 "--for-panel"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, process_group=0)
        try:
            line = sim.stdout.readline() if sim.stdout else b""
            if not line:  # it ended before serving: its own words say why
                sim.wait()
                print(f"sagan-tui: demo: the simulator did not start: {_last_line(log)}", file=sys.stderr)
                return 1
            ready = json.loads(line)
            # Only the simulator's URLs and demo keys: no config file, none of the user's real keys.
            env = {**ready["env"], "SAGAN_TUI_CONFIG": str(Path(tmp) / "no-config.toml")}
            # The transport choice is no secret: RUNPOD_TRANSPORT_TEAM=rest-v2 shows that mode in the demo.
            env.update({k: v for k, v in os.environ.items() if k.startswith(TRANSPORT_ENV_PREFIX)})
            # The terminal's own settings (no secret among them) still apply, to try them on the demo.
            env.update({k: v for k, v in os.environ.items() if k in TERMINAL_ENV})
            settings = settings_for(args, env, sagan_tui_cache=str(Path(tmp) / "cache.sqlite"))
            print(f"sagan-tui: demo: scenario {ready['scenario']} on {ready['url']}", file=sys.stderr)
            # The header's DEMO marker (panel/status_line.py DEMO_ENV), and the demo's tickets go with its cache,
            # never to the owner's data directory.
            with _environ({"SAGAN_TUI_DEMO": str(ready["scenario"]), DATA_DIR_ENV: str(Path(tmp) / "exports")}):
                return run_panel(settings)
        finally:
            end_by_stdin(sim, SIM_GRACE_S)
            if sim.stdout is not None:
                sim.stdout.close()


@contextmanager
def _environ(values: dict[str, str]):
    """Set the demo's process-wide markers while the panel runs, then put back what was there
    (`e` and `W`'s ticket read config.data_dir from DATA_DIR_ENV)."""
    before = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _last_line(log: Path) -> str:
    try:
        lines = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        lines = []
    return lines[-1] if lines else "no reason given"
