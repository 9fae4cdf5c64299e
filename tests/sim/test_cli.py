"""`sagan-tui sim` as a process: prints how to reach it, serves, and exits 0 on SIGINT or SIGTERM."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import httpx
import pytest


def _start(*args: str) -> tuple[subprocess.Popen, dict[str, str]]:
    proc = subprocess.Popen([sys.executable, "-m", "sagan_tui", "sim", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    env: dict[str, str] = {}
    for line in proc.stdout:  # type: ignore[union-attr]
        if "=" in line and not line.startswith("#"):
            key, value = line.strip().split("=", 1)
            env[key] = value
        if "RUNPOD_API_KEY_PERSONAL" in env:
            break
    return proc, env


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_serves_until_a_signal_then_exits_0(sig):
    proc, env = _start("--scenario", "calm", "--speed", "2")
    try:
        assert set(env) == {"SAGAN_BASE_URL", "SAGAN_API_TOKEN", "RUNPOD_API_BASE_URL", "RUNPOD_API_KEY_TEAM",
                            "RUNPOD_API_KEY_PERSONAL"}
        r = httpx.get(env["SAGAN_BASE_URL"] + "/api/health",
                      headers={"Authorization": f"Bearer {env['SAGAN_API_TOKEN']}"})
        assert r.json()["scenario"] == "calm"
        proc.send_signal(sig)
        assert proc.wait(timeout=10) == 0
    finally:
        proc.kill()
        proc.wait()


def test_bad_fixture_fails_at_start_naming_the_field(tmp_path):
    path = tmp_path / "f.json"
    path.write_text(json.dumps({"pods": [{"id": "abcdef123456xy", "running_at": "soon"}]}))
    done = subprocess.run([sys.executable, "-m", "sagan_tui", "sim", "--fixture", str(path)],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert "pods.0.running_at: Input should be a valid number" in done.stderr


HOST_AND_BALANCE = {
    "accounts": {"team": {"api_key": "rk-team-fx", "balance": 50.0},
                 "personal": {"api_key": "rk-personal-fx",
                              "balance": [{"at": 0, "balance": 2.4}, {"at": 30, "balance": 0.0}]}},
    "pods": [{"id": "hostpod00001", "account": "personal", "running_at": 5, "host": "h-dead",
              "exited_at": 40, "exit_reason": "Exited by Runpod: balance"}],
}


def test_a_fixture_with_hosts_and_balance_steps_is_served(tmp_path):
    path = tmp_path / "f.json"
    path.write_text(json.dumps(HOST_AND_BALANCE))
    proc, env = _start("--fixture", str(path))
    try:
        assert env["RUNPOD_API_KEY_PERSONAL"] == "rk-personal-fx"
        r = httpx.get(env["SAGAN_BASE_URL"] + "/api/health",
                      headers={"Authorization": f"Bearer {env['SAGAN_API_TOKEN']}"})
        assert r.status_code == 200
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("broken, named", [
    ({"personal": {"balance": [{"balance": 1.0}]}}, "accounts.personal.balance: Value error, step 0 has no at"),
    ({"personal": {"balance": [{"at": 30, "balance": 0.0}, {"at": 0, "balance": 2.0}]}},
     "accounts.personal.balance: Value error, balance steps must be in order of `at`"),
])
def test_a_malformed_balance_is_refused_naming_the_field(tmp_path, broken, named):
    path = tmp_path / "f.json"
    path.write_text(json.dumps({**HOST_AND_BALANCE, "accounts": {**HOST_AND_BALANCE["accounts"], **broken}}))
    done = subprocess.run([sys.executable, "-m", "sagan_tui", "sim", "--fixture", str(path)],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and named in done.stderr, done.stderr


def test_a_host_that_is_not_a_string_is_refused_naming_the_field(tmp_path):
    path = tmp_path / "f.json"
    pod = {**HOST_AND_BALANCE["pods"][0], "host": 17}
    path.write_text(json.dumps({**HOST_AND_BALANCE, "pods": [pod]}))
    done = subprocess.run([sys.executable, "-m", "sagan_tui", "sim", "--fixture", str(path)],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and "pods.0.host: Value error, host must be a string" in done.stderr, done.stderr


def test_help_lists_every_scenario_of_the_simulator():
    from sagan_tui.cli import SCENARIO_NAMES, build_parser
    from sagan_tui.sim import SCENARIOS

    assert set(SCENARIO_NAMES) == set(SCENARIOS)
    text = " ".join(build_parser().format_help().split())
    assert f"--demo: {', '.join(SCENARIO_NAMES)}" in text
