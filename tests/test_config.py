"""Settings layering, account keys, and what config errors may say."""

import os

import pytest

from sagan_tui.config import ConfigError, load_settings

BASE = {"SAGAN_TUI_CONFIG": "/nonexistent/sagan-tui.toml"}


def test_env_then_flags():
    s, _ = load_settings({**BASE, "SAGAN_TUI_POLL_INTERVAL": "7", "SAGAN_BASE_URL": "http://x"}, poll_interval=None)
    assert s.poll_interval == 7 and s.sagan_base_url == "http://x"
    s, _ = load_settings({**BASE, "SAGAN_TUI_POLL_INTERVAL": "7"}, poll_interval=2.5)
    assert s.poll_interval == 2.5


def test_file_under_env(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('poll_interval = 9\nsagan_base_url = "http://file"\n'
                 '[accounts.team]\napi_key = "rk-file-team"\n[accounts.lab]\napi_key = "rk-lab"\ntransport = "rest-v2"\n')
    f.chmod(0o600)
    s, warnings = load_settings({"SAGAN_TUI_CONFIG": str(f), "SAGAN_BASE_URL": "http://env"})
    assert s.poll_interval == 9 and s.sagan_base_url == "http://env"
    assert s.accounts["team"].key() == "rk-file-team"
    assert s.accounts["lab"].transport == "rest-v2" and s.accounts["lab"].enabled
    assert not any("readable" in w for w in warnings)


def test_world_readable_file_warns(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('[accounts.team]\napi_key = "rk-x"\n')
    f.chmod(0o644)
    _, warnings = load_settings({"SAGAN_TUI_CONFIG": str(f)})
    assert any("readable by others" in w for w in warnings)
    assert not any("rk-x" in w for w in warnings)


@pytest.mark.parametrize("key", ["", "   "])
def test_empty_key_disables_account_never_falls_back(key):
    s, warnings = load_settings({**BASE, "RUNPOD_API_KEY_TEAM": "rk-team", "RUNPOD_API_KEY_PERSONAL": key})
    assert s.accounts["team"].enabled and not s.accounts["personal"].enabled
    assert any("personal" in w and "disabled" in w for w in warnings)
    with pytest.raises(RuntimeError):
        s.accounts["personal"].key()
    from sagan_tui.sync.poller import make_transports
    assert set(make_transports(s)) == {"team"}


def test_bad_value_names_field_not_secret():
    with pytest.raises(ConfigError) as e:
        load_settings({**BASE, "SAGAN_TUI_POLL_INTERVAL": "soon", "SAGAN_API_TOKEN": "tok-123"})
    assert "poll_interval" in str(e.value) and "tok-123" not in str(e.value)


def test_malformed_file_is_clear(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text("poll_interval = = 3")
    with pytest.raises(ConfigError) as e:
        load_settings({"SAGAN_TUI_CONFIG": str(f)})
    assert str(f) in str(e.value)


def test_secrets_hidden_in_repr():
    s, _ = load_settings({**BASE, "SAGAN_API_TOKEN": "tok-123", "RUNPOD_API_KEY_TEAM": "rk-team-1"})
    assert "tok-123" not in repr(s) and "rk-team-1" not in repr(s)
    assert set(s.secrets()) == {"tok-123", "rk-team-1"}
    assert os.environ.get("SAGAN_API_TOKEN") != "tok-123"  # the caller's mapping is not leaked into os.environ
