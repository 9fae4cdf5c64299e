"""In process mode the UI process imports none of pydantic, httpx, sqlite_utils, runpod or
graphql through a session with a wave on screen, an approval, a hold, a dismiss and `W` (a
separate UI process, tests/process/ui_run.py; the simulator and the cache filling stay here)."""

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
    child_env["SAGAN_TUI_SESSION"] = "process"
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
    # Nor the session's, the sources' or the sync's code; of the store only the first frame's
    # read-only peek (store/quick.py, standard sqlite3) and the row parsers it uses.
    assert set(seen["core"]) <= {"sagan_tui.store", "sagan_tui.store.quick", "sagan_tui.store.rows"}, seen["core"]
    print("triage modules in the UI process:", seen["triage"])
