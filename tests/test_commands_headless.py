"""The headless commands end to end: `sim` in one process, `sync --once` and `doctor` in others."""

import os
import signal
import subprocess
import sys
import time

import pytest

EXE = [sys.executable, "-m", "sagan_tui"]


@pytest.fixture(scope="module")
def sim_process():
    proc = subprocess.Popen([*EXE, "sim", "--scenario", "reaping-wave"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    env = {}
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if "=" in line and not line.startswith("#") and line.split("=", 1)[0].isupper():
            k, v = line.strip().split("=", 1)
            env[k] = v
        if "RUNPOD_API_KEY_PERSONAL" in env and "SAGAN_API_TOKEN" in env:
            break
    assert env.get("SAGAN_BASE_URL", "").startswith("http://127.0.0.1:"), env
    yield proc, env
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=15)
    assert proc.returncode == 0, err
    assert "stopped" in out


def _env(env, tmp_path):
    base = {k: v for k, v in os.environ.items() if not k.startswith(("SAGAN", "RUNPOD"))}
    return {**base, **env, "SAGAN_TUI_CONFIG": str(tmp_path / "none.toml"),
            "SAGAN_TUI_CACHE": str(tmp_path / "cache.sqlite")}


def test_sync_once_prints_per_source_line(sim_process, tmp_path):
    _, env = sim_process
    r = subprocess.run([*EXE, "sync", "--once"], env=_env(env, tmp_path), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    line = r.stdout.strip().splitlines()[-1]
    for part in ("sagan=ok", "team=ok", "personal=ok", "pods~="):
        assert part in line, line
    secrets = [env["SAGAN_API_TOKEN"], env["RUNPOD_API_KEY_TEAM"], env["RUNPOD_API_KEY_PERSONAL"]]
    for s in secrets:
        assert s not in r.stdout + r.stderr


def test_sync_for_polls_repeatedly(sim_process, tmp_path):
    _, env = sim_process
    r = subprocess.run([*EXE, "sync", "--for", "5", "--poll-interval", "1"], env=_env(env, tmp_path),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert len([ln for ln in r.stdout.splitlines() if "sagan=" in ln]) >= 2


def test_doctor_reports_each_source(sim_process, tmp_path):
    _, env = sim_process
    r = subprocess.run([*EXE, "doctor"], env=_env(env, tmp_path), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    for what in ("config", "sagan", "runpod team", "runpod personal", "cache"):
        assert any(ln.startswith("ok") and f" {what}" in ln for ln in lines), (what, r.stdout)
    for s in (env["SAGAN_API_TOKEN"], env["RUNPOD_API_KEY_TEAM"], env["RUNPOD_API_KEY_PERSONAL"]):
        assert s not in r.stdout + r.stderr


def test_doctor_fails_on_bad_key(sim_process, tmp_path):
    _, env = sim_process
    bad = {**env, "RUNPOD_API_KEY_PERSONAL": "rk-wrong-key-123"}
    r = subprocess.run([*EXE, "doctor"], env=_env(bad, tmp_path), capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert any(ln.startswith("FAIL runpod personal") and "401" in ln for ln in r.stdout.splitlines()), r.stdout
    assert "rk-wrong-key-123" not in r.stdout + r.stderr


def test_unknown_flag_value_is_a_clear_error():
    r = subprocess.run([*EXE, "waves", "--input", "x.jsonl", "--gap", "soon"], capture_output=True, text=True)
    assert r.returncode == 2 and "--gap" in r.stderr and "not a number" in r.stderr
