"""Settings have bounds, checked in one place; unknown keys are named; bad values are clean errors that never echo a secret."""

import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

from sagan_tui import cli
from sagan_tui.core.config_model import BOUNDS, ConfigError, gather, load_settings
from sagan_tui.core.models import WorkflowEvent
from sagan_tui.core.store.cache import Cache

BASE = {"SAGAN_TUI_CONFIG": "/nonexistent/sagan-tui.toml"}
SECRET = "rk-team-SECRET-7f3a"


@pytest.mark.parametrize("var, value, setting, why", [
    ("SAGAN_TUI_EVENTS_RETENTION_DAYS", "-1", "events_retention_days", "greater than or equal to 1"),
    ("SAGAN_TUI_EVENTS_RETENTION_DAYS", "0.5", "events_retention_days", "greater than or equal to 1"),
    ("SAGAN_TUI_EVENTS_RETENTION_DAYS", "inf", "events_retention_days", "finite"),
    ("SAGAN_TUI_OBSERVATIONS_RETENTION_DAYS", "nan", "observations_retention_days", "finite"),
    ("SAGAN_TUI_GUARD_MINUTES", "-60", "guard_minutes", "greater than or equal to 0"),
    ("SAGAN_TUI_GUARD_MINUTES", "nan", "guard_minutes", "finite"),
    ("SAGAN_TUI_AWAY_MINUTES", "0.5", "away_minutes", "greater than or equal to 1"),
    ("SAGAN_TUI_AWAY_MINUTES", "2000", "away_minutes", "less than or equal to 1440"),
    ("SAGAN_TUI_AWAY_MINUTES", "inf", "away_minutes", "finite"),
    ("SAGAN_TUI_REQUEST_TIMEOUT", "inf", "request_timeout", "finite"),
    ("SAGAN_TUI_REQUEST_TIMEOUT", "0", "request_timeout", "greater than or equal to"),
    ("SAGAN_TUI_REQUEST_TIMEOUT", "1e6", "request_timeout", "less than or equal to"),
    ("SAGAN_TUI_POLL_INTERVAL", "0.001", "poll_interval", "greater than or equal to 0.5"),
    ("SAGAN_TUI_POLL_INTERVAL", "1e9", "poll_interval", "less than or equal to 3600"),
    ("SAGAN_TUI_POLL_INTERVAL", "inf", "poll_interval", "finite"),
])
def test_a_setting_out_of_its_bounds_is_refused_naming_it(var, value, setting, why):
    with pytest.raises(ConfigError) as e:
        load_settings({**BASE, var: value, "RUNPOD_API_KEY_TEAM": SECRET})
    assert f"{setting}: " in str(e.value) and why in str(e.value) and SECRET not in str(e.value)


def test_the_bounds_themselves_are_accepted():
    for name, (low, high) in BOUNDS.items():
        for value in (low, high):
            s, _ = load_settings({**BASE, f"SAGAN_TUI_{name.upper()}": str(value)})
            assert getattr(s, name) == value


@pytest.mark.parametrize("value", ["0.001", "1e9", "inf", "-5"])
def test_the_first_frame_reads_a_poll_interval_out_of_bounds_as_the_default(value):
    assert gather({**BASE, "SAGAN_TUI_POLL_INTERVAL": value}).poll_interval == 5.0


def test_an_unknown_key_in_the_file_is_named_with_the_closest_known_one(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('poll_intervall = 3\nguard_minute = 5\nfrobnicate = 1\n[accounts.team]\napi_kee = "x"\n')
    f.chmod(0o600)
    s, warnings = load_settings({"SAGAN_TUI_CONFIG": str(f)})
    assert s.poll_interval == 5.0
    text = "\n".join(warnings)
    assert "unknown setting 'poll_intervall' ignored (did you mean 'poll_interval'?)" in text
    assert "unknown setting 'guard_minute' ignored (did you mean 'guard_minutes'?)" in text
    assert "unknown setting 'frobnicate' ignored (known: " in text
    assert "[accounts.team]: unknown setting 'api_kee' ignored (did you mean 'api_key'?)" in text


@pytest.fixture
def clean_env(headless_env):
    return headless_env


def test_a_retention_below_a_day_stops_sync_before_anything_is_pruned(tmp_path, clean_env, capsys):
    c = Cache(tmp_path / "c.sqlite")
    old = datetime.now(timezone.utc) - timedelta(days=3)
    with c.transaction() as conn:
        c.upsert_events(conn, [WorkflowEvent(id=f"e{i}", event_type="note", created_at=old) for i in range(5)])
    c.close()
    clean_env.setenv("SAGAN_TUI_EVENTS_RETENTION_DAYS", "-1")
    with pytest.raises(SystemExit) as e:  # the command's own exit, before its loop starts
        cli.main(["sync", "--once"])
    assert e.value.code == 2
    assert "events_retention_days" in capsys.readouterr().err
    c = Cache(tmp_path / "c.sqlite", read_only=True)
    assert c.counts()["events"] == 5
    c.close()


@pytest.mark.parametrize("var, value, named", [
    ("SAGAN_BASE_URL", "http://[::1", "sagan_base_url: not a valid URL"),
    ("SAGAN_BASE_URL", "http://h" + "o" * 3000 + ".example", "sagan_base_url: the URL is longer than 2048"),
    ("SAGAN_BASE_URL", "http://host\udcff.example", "sagan_base_url: the URL is not valid UTF-8"),
    ("SAGAN_BASE_URL", "sagan.example.org", "sagan_base_url: not an http(s) URL"),
    ("RUNPOD_API_BASE_URL", "http://127.0.0.1:port", "runpod_api_base_url: not a valid URL"),
    ("RUNPOD_API_KEY_TEAM", SECRET + "\nX-Injected: 1", "accounts.team.api_key: the key contains a newline"),
    ("RUNPOD_API_KEY_TEAM", SECRET + "\udcff", "accounts.team.api_key: the key is not valid UTF-8"),
    ("RUNPOD_API_KEY_TEAM", SECRET + "é", "accounts.team.api_key: the key holds a character outside printable"),
    ("SAGAN_API_TOKEN", SECRET + "\r\n", None),  # ends of a key are trimmed: a trailing newline is fine
    ("SAGAN_API_TOKEN", SECRET + "\nmore", "sagan_api_token: the token contains a newline"),
    ("RUNPOD_API_KEY_T\udcffEAM", SECRET, "accounts.t\\udcffeam.name: the account name is not valid UTF-8"),
    ("RUNPOD_API_KEY_" + "X" * 100, SECRET, "name: the account name is longer than 64"),
    ("SAGAN_TUI_CACHE", "/tmp/" + "a" * 300 + "/c.sqlite", "sagan_tui_cache: a part of the path is longer than 255"),
    ("SAGAN_TUI_CACHE", "/tmp/" + "a/" * 2100 + "c.sqlite", "sagan_tui_cache: the path is longer than 4096"),
])
def test_a_bad_url_name_key_or_path_is_a_clean_error_naming_the_setting(tmp_path, var, value, named):
    """As a process, with the bad value in its real environment (bytes that are not UTF-8 too)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SAGAN", "RUNPOD"))}
    env.update(SAGAN_TUI_CONFIG=str(tmp_path / "none.toml"), SAGAN_TUI_CACHE=str(tmp_path / "c.sqlite"),
               SAGAN_BASE_URL="http://127.0.0.1:9", RUNPOD_API_BASE_URL="http://127.0.0.1:9")
    env[var] = value
    r = subprocess.run([sys.executable, "-m", "sagan_tui", "sync", "--once"], env=env, capture_output=True,
                       timeout=120)
    err = r.stderr.decode("utf-8", "backslashreplace")
    assert b"Traceback" not in r.stderr and SECRET not in err
    if named is None:
        assert "sagan_api_token" not in err
        return
    assert r.returncode == 2 and named in err, err
    assert not (tmp_path / "c.sqlite").exists()  # refused before anything was opened


def test_a_key_with_a_newline_is_named_by_doctor_not_reported_unreachable(tmp_path, clean_env, capsys):
    clean_env.setenv("RUNPOD_API_KEY_TEAM", SECRET + "\nX")
    assert cli.main(["doctor"]) != 0
    out = capsys.readouterr().out
    assert "FAIL config: invalid configuration: accounts.team.api_key: the key contains a newline" in out
    assert SECRET not in out and "unreachable" not in out
