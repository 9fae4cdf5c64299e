"""`doctor` checks watch's page settings, and `doctor --page` sends a test page to each target and
clears it (here an ntfy stand-in on loopback), naming targets by scheme and host only."""

from __future__ import annotations

import subprocess
import sys

from .stand_ins import StandIn


def _doctor(tmp_path, env, *flags):
    base = {"SAGAN_TUI_CONFIG": str(tmp_path / "none.toml"), "SAGAN_BASE_URL": "http://127.0.0.1:9",
            "SAGAN_TUI_CACHE": str(tmp_path / "c.sqlite"), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "sagan_tui", "doctor", *flags], env={**base, **env},
                          capture_output=True, text=True, timeout=120)


def test_doctor_page_sends_a_test_page_and_clears_it(tmp_path):
    ntfy = StandIn("ntfy").start()
    try:
        r = _doctor(tmp_path, {"SAGAN_TUI_PAGE_URLS": f"ntfy://127.0.0.1:{ntfy.port}/d0ctor-topic"}, "--page")
    finally:
        ntfy.stop()
    assert "ok   page ntfy 127.0.0.1: test page sent and cleared" in r.stdout, r.stdout
    assert ntfy.ntfy_by_sequence() == {"sagan-tui-doctor-test": ["publish", "clear"]}
    assert "d0ctor-topic" not in r.stdout + r.stderr


def test_doctor_page_says_a_failing_target_and_fails(tmp_path):
    broken = StandIn("ntfy", status=403).start()
    try:
        r = _doctor(tmp_path, {"SAGAN_TUI_PAGE_URLS": f"ntfy://127.0.0.1:{broken.port}/t0pic"}, "--page")
    finally:
        broken.stop()
    assert "FAIL page ntfy 127.0.0.1: paging failed: ntfy 403" in r.stdout and r.returncode == 1


def test_doctor_refuses_a_malformed_page_url_naming_setting_and_scheme(tmp_path):
    r = _doctor(tmp_path, {"SAGAN_TUI_PAGE_URLS": "pagerduty://bad.k3y!/x"})
    assert r.returncode == 1 and "page_urls: entry 1 (scheme 'pagerduty')" in r.stdout, r.stdout
    assert "k3y" not in r.stdout
