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


# Pods no simulator lists: losses only the seeded cache holds.
SEEDED = ["zzgone0000001a", "zzgone0000002b", "zzgone0000003c"]


def _seed_losses(path) -> None:
    from datetime import datetime, timezone

    from sagan_tui.core.models import Loss
    from sagan_tui.core.store.cache import Cache

    at = datetime(2026, 5, 14, 10, 54, 55, tzinfo=timezone.utc)
    c = Cache(path)
    with c.transaction() as conn:
        c.upsert_losses(conn, [Loss(pod_id=p, account="team", lost_at=at, source="runpod",
                                    reason="vanished while RUNNING") for p in SEEDED])
    c.close()


def test_sync_puts_back_a_cache_file_removed_under_it_and_report_still_lists_the_losses(sim_process, tmp_path):
    import threading

    _, env = sim_process
    cache = tmp_path / "cache.sqlite"
    _seed_losses(cache)
    proc = subprocess.Popen([*EXE, "sync", "--for", "600", "--poll-interval", "0.5"], env=_env(env, tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    guard = threading.Timer(300, proc.kill)  # a hang fails the test instead of holding the suite
    guard.start()
    try:
        assert "sagan=" in proc.stdout.readline()  # it has the cache open and has polled once
        os.remove(cache)
        said = proc.stderr.readline()  # after its next poll (a line with no "cache file" would be another word)
        while said and "cache file" not in said:
            said = proc.stderr.readline()
        proc.send_signal(signal.SIGINT)
        try:
            proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGUSR1)  # every thread's stack on its stderr (commands/sync.py)
            try:
                proc.communicate(timeout=5)  # the stacks written: a process that still hangs is kept
            except subprocess.TimeoutExpired:
                pass
            proc.kill()
            _, err = proc.communicate()
            pytest.fail(f"sync did not end on SIGINT; where it waited:\n{err[-6000:]}")
    finally:
        guard.cancel()
        if proc.poll() is None:
            proc.kill()
    assert said.startswith(f"sagan-tui: cache file {cache} was removed under this process: recreated from what it"
                           " held (3 losses"), said
    assert proc.returncode == 130
    r = subprocess.run([*EXE, "report", "--cache", str(cache)], env=_env(env, tmp_path), capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert all(p in r.stdout for p in SEEDED), r.stdout


def test_sync_refuses_a_cache_whose_file_is_gone_but_whose_log_is_still_there(sim_process, tmp_path):
    _, env = sim_process
    cache = tmp_path / "cache.sqlite"
    (tmp_path / "cache.sqlite-wal").write_bytes(b"\x37\x7f\x06\x82" + bytes(28))  # a WAL header's magic
    r = subprocess.run([*EXE, "sync", "--once"], env=_env(env, tmp_path), capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and r.stdout == ""
    assert f"sagan-tui sync: cache {cache}: the database file is gone but its write-ahead log {cache}-wal" in r.stderr
    assert not cache.exists() and (tmp_path / "cache.sqlite-wal").stat().st_size == 32


def test_sync_stops_on_ctrl_c_even_when_the_poll_under_way_absorbs_its_cancellation(calm_sim, headless_env,
                                                                                    capsys):
    """Ctrl+C is a flag the loop reads, not only a cancellation: a poll that absorbs its cancel
    (as an HTTP client can, closing a connection under a shield) finishes, and no poll follows.
    With asyncio's default (the main task cancelled once) this one polled on until --for ran out."""
    import asyncio

    from sagan_tui import cli
    from sagan_tui.core.sync.poller import Poller

    for k, v in calm_sim.env().items():
        headless_env.setenv(k, v)
    real, polls = Poller.poll_once, []

    async def absorbing(self, **kw):
        polls.append(time.monotonic())
        work = asyncio.ensure_future(real(self, **kw))
        if len(polls) == 1:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl+C while this poll is under way
        while True:
            try:
                return await asyncio.shield(work)
            except asyncio.CancelledError:
                continue  # absorbed: the poll goes on to its end

    headless_env.setattr(Poller, "poll_once", absorbing)
    before = signal.getsignal(signal.SIGINT)
    try:
        code = cli.main(["sync", "--for", "4", "--poll-interval", "0.5"])
    finally:
        signal.signal(signal.SIGINT, before)
    assert (code, len(polls)) == (130, 1), capsys.readouterr()
    assert "sagan=" in capsys.readouterr().out  # the absorbed poll's line, written as it ended
