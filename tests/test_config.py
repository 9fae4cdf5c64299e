"""Settings layering, account keys, and what config errors may say."""

import os

import pytest

from sagan_tui.core.config_model import ConfigError, load_settings, validate

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
    from sagan_tui.core.sync.poller import make_transports
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


def test_setting_names_are_the_models_fields():
    from sagan_tui.core.config_model import SETTING_NAMES, Settings

    assert sorted(SETTING_NAMES) == sorted(Settings.model_fields)


@pytest.mark.parametrize("env", [
    {},
    {"SAGAN_TUI_POLL_INTERVAL": "2.5", "SAGAN_TUI_READ_ONLY": "yes", "SAGAN_TUI_MOUSE": "off",
     "SAGAN_TUI_BELL": "0", "SAGAN_TUI_COLOR_SYSTEM": "256", "SAGAN_TUI_CACHE": "/tmp/x/cache.sqlite",
     "SAGAN_API_TOKEN": "tok-1", "RUNPOD_API_KEY_TEAM": " rk-team ", "RUNPOD_API_KEY_LAB": "rk-lab"},
    {"SAGAN_TUI_READ_ONLY": "TRUE", "SAGAN_TUI_MOUSE": "1", "RUNPOD_API_KEY_PERSONAL": "  "},
])
def test_the_first_frame_reads_the_draft_as_the_settings_will_be(env):
    """The panel draws its first frame from the unvalidated draft: every value it reads there
    must be the validated one."""
    from sagan_tui.wire.config import gather

    draft = gather({**BASE, **env})
    s = validate(draft)
    for name in ("cache_path", "poll_interval", "read_only", "bell", "mouse", "color_system", "notify",
                 "guard_minutes", "away_minutes", "runway_warn_hours"):
        assert getattr(draft, name) == getattr(s, name), name
    assert list(draft.accounts) == list(s.accounts)
    assert draft.secrets() == s.secrets()
    assert draft.ui() == s.ui()  # the UI's plain values, whichever it was handed


def test_the_uis_values_are_plain_and_frozen():
    """What a UI reads of the settings: no pydantic type in it (it may cross to another process)."""
    import dataclasses

    s, _ = load_settings({**BASE, "SAGAN_API_TOKEN": "tok-1", "SAGAN_TUI_POLL_INTERVAL": "2",
                          "SAGAN_TUI_NOTIFY": "osc9", "SAGAN_TUI_KEYMAP": ""})
    ui = s.ui()
    assert (ui.poll_interval, ui.notify, ui.secrets, ui.keymap) == (2.0, "osc9", ("tok-1",), ())
    assert all(type(v).__module__.split(".")[0] in ("builtins", "pathlib")  # 3.13: pathlib._local
               for v in dataclasses.astuple(ui))
    with pytest.raises(dataclasses.FrozenInstanceError):
        ui.poll_interval = 5.0  # type: ignore[misc]


def test_a_value_the_validation_refuses_reads_as_its_default_before_it():
    from sagan_tui.wire.config import gather

    draft = gather({**BASE, "SAGAN_TUI_POLL_INTERVAL": "0.01", "SAGAN_TUI_GUARD_MINUTES": "nan",
                    "SAGAN_TUI_NOTIFY": "siren", "SAGAN_TUI_RUNWAY_WARN_HOURS": "-1"})
    ui = draft.ui()
    assert (ui.poll_interval, ui.guard_minutes, ui.notify, ui.runway_warn_hours) == (5.0, 15.0, "bell", 12.0)
    with pytest.raises(ConfigError) as e:
        validate(draft)
    assert all(n in str(e.value) for n in ("poll_interval", "guard_minutes", "notify", "runway_warn_hours"))


def test_a_bad_account_setting_names_the_account():
    from sagan_tui.wire.config import gather

    draft = gather({**BASE, "RUNPOD_API_KEY_LAB": "rk-lab", "RUNPOD_TRANSPORT_LAB": "soap"})
    assert draft.poll_interval == 5.0  # the draft itself reads fine
    with pytest.raises(ConfigError) as e:
        validate(draft)
    assert "accounts.lab.transport" in str(e.value) and "rk-lab" not in str(e.value)


def test_accounts_that_are_not_a_table_are_a_clear_error(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text("accounts = 5\n")
    f.chmod(0o600)
    with pytest.raises(ConfigError) as e:
        load_settings({"SAGAN_TUI_CONFIG": str(f)})
    assert "accounts: expected a table" in str(e.value)


def test_gathering_the_settings_imports_no_pydantic():
    """The panel's first frame waits on `gather`: pydantic is imported by the validation after it."""
    import subprocess
    import sys

    code = ("import sys; from sagan_tui.wire.config import gather; d = gather({'SAGAN_TUI_CONFIG': '/nonexistent.toml'})\n"
            "print(sorted(m for m in ('pydantic', 'sagan_tui.core.config_model', 'sagan_tui.core.models') if m in sys.modules))\n"
            "import sagan_tui.core.config_model as m; m.validate(d); print('pydantic' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[:2] == ["[]", "True"]


def test_the_settings_modules_import_one_way():
    """config (the layers, pydantic-free) is imported by config_model (Settings), never the reverse."""
    import ast
    from pathlib import Path

    import sagan_tui.wire.config as config

    tree = ast.parse(Path(config.__file__).read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not {m for m in imported if m and (m.startswith("sagan_tui.core.config_model") or m == "pydantic")}
    assert "Settings" not in dir(config)



def test_validated_settings_go_back_to_layers_that_validate_to_the_same_settings(tmp_path):
    """A caller that validated Settings itself starts the panel in process mode with them as
    layers again (Settings.as_draft): the child validates them to the same settings, secrets
    and accounts included."""
    env = {"SAGAN_TUI_CONFIG": str(tmp_path / "none.toml"), "SAGAN_API_TOKEN": "tok-123",
           "RUNPOD_API_KEY_TEAM": "rk-team", "RUNPOD_TRANSPORT_TEAM": "graphql", "RUNPOD_API_KEY_SOLO": "rk-solo"}
    settings, _ = load_settings(env, sagan_tui_cache=str(tmp_path / "c.sqlite"), poll_interval=7.0, bell=False)
    draft = settings.as_draft()
    again = validate(draft)
    assert again == settings
    assert again.sagan_api_token.get_secret_value() == "tok-123" and again.notify == "off"
    keys = {n: (a.api_key.get_secret_value() if a.api_key else None, a.transport) for n, a in again.accounts.items()}
    assert keys == {"team": ("rk-team", "graphql"), "solo": ("rk-solo", "auto"), "personal": (None, "auto")}
    assert isinstance(draft.values["sagan_tui_cache"], str)  # plain values: the channel carries them
