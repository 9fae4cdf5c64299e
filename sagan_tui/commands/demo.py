"""`sagan-tui --demo`: the simulator on a free loopback port, the panel on it, a throw-away cache."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from sagan_tui.commands.panel import refuse_without_terminal, run_panel, settings_for
from sagan_tui.config import TRANSPORT_ENV_PREFIX

TERMINAL_ENV = ("SAGAN_TUI_NOTIFY", "SAGAN_TUI_RUNWAY_WARN_HOURS", "SAGAN_TUI_COLOR_SYSTEM")


def run(args: argparse.Namespace) -> int:
    refused = refuse_without_terminal()
    if refused is not None:  # before the simulator starts: nothing to draw it on
        return refused
    from sagan_tui.sim import SimServer

    with tempfile.TemporaryDirectory(prefix="sagan-tui-demo-") as tmp:
        with SimServer(scenario=args.scenario, speed=args.speed) as sim:
            # Only the simulator's URLs and demo keys: no config file, none of the user's real keys.
            env = {**sim.env(), "SAGAN_TUI_CONFIG": str(Path(tmp) / "no-config.toml")}
            # The transport choice is no secret: RUNPOD_TRANSPORT_TEAM=rest-v2 shows that mode in the demo.
            env.update({k: v for k, v in os.environ.items() if k.startswith(TRANSPORT_ENV_PREFIX)})
            # The terminal's own settings (no secret among them) still apply, to try them on the demo.
            env.update({k: v for k, v in os.environ.items() if k in TERMINAL_ENV})
            settings = settings_for(args, env, sagan_tui_cache=str(Path(tmp) / "cache.sqlite"))
            print(f"sagan-tui: demo: scenario {sim.scenario} on {sim.base_url}", file=sys.stderr)
            os.environ["SAGAN_TUI_DEMO"] = str(sim.scenario)  # the header's DEMO marker (ui/app.py DEMO_ENV)
            return run_panel(settings)
