"""`waves --cache` and `report --cache` over a cache a Poller filled from the reaping-wave simulator."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

EXE = Path(sys.executable).with_name("sagan-tui")
R5 = {"v0c7bx292xqvg4", "m1ayhl6nsbxw04", "lqpfpmbytlgded", "j0xvy1q82ryo8m", "cv13x9s487tvwn"}
R4 = {"k3m8qz0v2xw7ta", "h9d2pj6wq4ne1c", "t5x0bv8rk2mu7y"}
CONTROLS = ("j18eiux6ccekyj", "f6n3kd9sa1qz4w")
DESIGN_KEYS = {"start", "end", "losses", "accounts", "experiments", "datacenters", "gpu_types", "gap_median_s",
               "burn_usd", "verdict", "diagnosis", "bursts", "signature", "unrelated"}


async def _poll_once(settings) -> None:
    from sagan_tui.core.store.cache import Cache
    from sagan_tui.core.sync.poller import Poller

    cache = Cache(settings.cache_path)
    poller = Poller(settings, cache)
    try:
        await poller.poll_once(force=True)
    finally:
        await poller.aclose()
        cache.close()


@pytest.fixture(scope="module")
def sim_cache(tmp_path_factory) -> tuple[Path, list[str]]:
    """One poll of a fresh cache at t=700, past r5 and Sagan noticing it.

    One jump, one poll: the simulator serves wall-clock time and a jump moves its start, so
    polls on both sides of a jump see the scenario in two different frames (a wave squeezed into
    seconds, and updates dated before the poller's cursor are never read again).
    """
    from sagan_tui.core.config_model import load_settings
    from sagan_tui.sim import SimServer

    path = tmp_path_factory.mktemp("sim") / "cache.sqlite"
    with SimServer(scenario="reaping-wave") as sim:
        sim.clock.jump_to(700)
        settings, _ = load_settings({**sim.env(), "SAGAN_TUI_CONFIG": str(path.parent / "none.toml")},
                                    sagan_tui_cache=str(path), poll_interval=1.0)
        asyncio.run(_poll_once(settings))
    return path, settings.secrets()


def run(*args: str) -> subprocess.CompletedProcess:
    # No simulator env: the commands read the cache only, and must not need a key to do it.
    return subprocess.run([str(EXE), *args], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})


def test_report_lists_the_r5_pods_as_one_wave(sim_cache):
    path, secrets = sim_cache
    out = run("report", "--cache", str(path))
    assert out.returncode == 0, out.stderr
    text = out.stdout
    waves = text.split("\n## Wave ")[1:]
    assert len(waves) == 2
    r4, r5 = waves
    ticket = r5.split("```text\n")[1].split("```")[0]
    assert {line.split()[0] for line in ticket.splitlines()[1:]} == R5
    assert "team, personal (5 pods)" in r5.splitlines()[0]
    assert "| lqpfpmbytlgded | team |" in r5 and "| long-running, killed in the same window |" in r5
    assert "spans both accounts (team, personal): not an account-only cause" in r5
    assert all(c in r5 for c in CONTROLS)  # both control pods survived the window
    assert {p for p in R4 if p in r4} == R4 and "only account team" in r4
    steps = text.split("## Next steps (owner)")[1]
    assert "control pods f6n3kd9sa1qz4w, j18eiux6ccekyj are still running" in steps
    for secret in secrets:
        assert secret not in text and secret not in out.stderr


def test_waves_json_over_the_cache(sim_cache):
    path, secrets = sim_cache
    out = run("waves", "--cache", str(path), "--format", "json")
    assert out.returncode == 0, out.stderr
    waves = json.loads(out.stdout)["waves"]
    assert all(set(w) == DESIGN_KEYS for w in waves)
    (r5,) = [w for w in waves if any(x["pod_id"] == "v0c7bx292xqvg4" for x in w["losses"])]
    assert {x["pod_id"] for x in r5["losses"]} == R5
    assert set(r5["accounts"]) == {"team", "personal"} and r5["experiments"] == [192, 333, 363, 366]
    # Only Sagan saw these go (the cache never polled them running): gaps are to its notice, 20-40 s late.
    assert 60 < r5["gap_median_s"] < 110
    gaps = next(f for f in r5["diagnosis"] if f["kind"] == "gaps")
    assert any("timed only by Sagan" in e for e in gaps["evidence"])
    for secret in secrets:
        assert secret not in out.stdout

