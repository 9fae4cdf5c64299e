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
