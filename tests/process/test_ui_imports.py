"""In process mode the UI process imports none of pydantic, httpx, sqlite_utils, runpod or
graphql, and runs none of triage's analysis, through a session with a wave on screen, an
approval, a hold, a dismiss and `W` (a separate UI process, tests/process/ui_run.py; the
simulator and the cache filling stay here): the heatmap's grid, the wave shown and W's proposal
arrive from the session as view data."""

from __future__ import annotations

import asyncio
import json
import os
import sys

from tests.channel.test_session_process import fill_through_the_wave, layers

R4 = ["k3m8qz0v2xw7ta", "h9d2pj6wq4ne1c", "t5x0bv8rk2mu7y"]
WAIT_S = 300.0  # a bound on the whole UI run on a loaded machine, never a pace


async def test_the_ui_process_never_imports_the_cores_libraries(sim_factory, tmp_path):
    sim = sim_factory(scenario="reaping-wave")
    await fill_through_the_wave(sim, tmp_path)
    env = {**sim.env(), "SAGAN_TUI_CONFIG": str(tmp_path / "no-config.toml"),
           **{f"RUNPOD_TRANSPORT_{name.upper()}": "graphql" for name in sim.account_keys}}
    args = {"env": env, "cache": str(tmp_path / "cache.sqlite"), "now": sim.clock.at(170).isoformat(),
            "dismiss": R4[0]}
    child_env = {k: v for k, v in os.environ.items() if not k.startswith(("SAGAN", "RUNPOD"))}
    ui = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.process.ui_run", json.dumps(args), stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=child_env, cwd=os.getcwd())
    out, err = await asyncio.wait_for(ui.communicate(), WAIT_S)
    assert ui.returncode == 0, err.decode()[-3000:]
    seen = json.loads(out.decode().strip().splitlines()[-1])
    assert any("approve sent for #367" in s for s in seen["said"]), seen["said"]
    assert any("#365 held" in s for s in seen["said"]) and any(f"dismissed lost pod {R4[0]}" in s
                                                               for s in seen["said"])
    assert seen["banned"] == [], seen["banned"]
    # Nor the session's, the sources', the sync's or the store's code: the first frame's one
    # read-only peek at the cache is sagan_tui/panel/peek.py, outside them (standard sqlite3).
    assert seen["core"] == [], seen["core"]
    # No analysis of triage ran here: none of its modules but the pure formatting was imported.
    assert seen["triage_reached"] == [], seen["triage_reached"]
    assert set(seen["triage"]) <= {"sagan_tui.core.triage", "sagan_tui.wire.fmt"}, seen["triage"]
    shown = seen["shown"]
    assert shown["heatmap_rows"] and shown["heatmap_total"] >= len(R4), shown
    assert shown["heatmap_width"][0] == shown["heatmap_width"][1] > 0, shown  # built for the width it has
    assert set(R4) <= set(shown["wave_pods"]), shown
    assert shown["proposal"][0] == "ProposalView" and shown["proposal"][2] >= 3, shown


def test_the_hook_notes_triage_analysis_reached_from_the_project():
    """The hook above can fail: a module of the project that reaches the heatmap's binning (the
    session's grid builder, as the UI's heatmap did before) is noted with its line."""
    code = ("import json, tests.process.ui_run as r\n"
            "from sagan_tui.panel import heatmap_render\n"
            "import sagan_tui.wire.fmt\n"
            "from sagan_tui.wire import fmt\n"
            "assert r.triage_reached == [], r.triage_reached\n"
            "import sagan_tui.core.session.heatmap_view\n"
            "print(json.dumps(r.triage_reached))\n")
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=os.getcwd(), timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    reached = json.loads(out.stdout.strip().splitlines()[-1])
    assert reached and reached[0].startswith("sagan_tui.core.triage.heatmap <- "), reached
    assert "sagan_tui/core/session/heatmap_view.py:" in reached[0], reached
