"""The `[keymap]` table: one id scheme, checked at load (all or nothing), applied by Textual, shown by help and the key bar."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest
from textual.binding import Binding

import sagan_tui.panel
from sagan_tui.core.config_model import ConfigError, gather, load_settings
from sagan_tui.wire.keymap import BY_ID, ID_PATTERN, KEYS, KeymapError, check_keymap, key_problem
from sagan_tui.core.store.cache import Cache
from sagan_tui.panel.app import SaganApp
from sagan_tui.panel.screens.help import HelpScreen
from sagan_tui.panel.widgets.key_bar import KeyBar

from ..ui import frozen
from tests.harness import open_dialog, printed, wait_for

SIZE = (120, 40)


def declared_bindings() -> dict[str, str]:
    """Every Binding any class of the UI declares, by id."""
    found: dict[str, str] = {}
    for mod in pkgutil.walk_packages(sagan_tui.panel.__path__, "sagan_tui.panel."):
        module = importlib.import_module(mod.name)
        for _name, cls in inspect.getmembers(module, inspect.isclass):
            if not cls.__module__.startswith("sagan_tui."):
                continue
            for attr in ("BINDINGS", "ACTION_BINDINGS"):
                for b in cls.__dict__.get(attr, []):
                    if isinstance(b, Binding):
                        assert b.id, f"{cls.__name__} binds {b.key!r} without an id"
                        found[b.id] = b.key
    return found


def test_every_binding_has_an_id_in_one_scheme_and_the_registry_lists_exactly_them():
    declared = declared_bindings()
    assert all(ID_PATTERN.match(i) for i in declared), sorted(i for i in declared if not ID_PATTERN.match(i))
    assert declared == {k.id: k.keys for k in KEYS}


def test_the_default_keys_are_valid_and_clash_nowhere():
    assert check_keymap({k.id: k.keys for k in KEYS}) == {k.id: k.keys for k in KEYS}


@pytest.mark.parametrize("key", ["a", "A", "?", "question_mark", "ctrl+r", "f2", "alt+shift+x", "space", "slash",
                                 "escape", "plus", "ctrl+right_square_bracket", "é"])
def test_keys_textual_can_bind_are_accepted(key):
    assert key_problem(key) is None


@pytest.mark.parametrize("key", ["", "ctrl+", "ctl+r", "ctrl+ctrl+r", "f25", "qq", "no_such_key", "ctrl r", "\x1b"])
def test_keys_textual_cannot_bind_are_refused(key):
    assert key_problem(key)


@pytest.mark.parametrize("table,words", [
    ({"panel.quitt": "x"}, ["'panel.quitt'", "unknown binding id", "'panel.quit'"]),
    ({"panel.quit": "ctrl+qq"}, ["'panel.quit'", "'ctrl+qq'"]),
    ({"panel.quit": "a"}, ["'panel.quit'", "'panel.review_approval'"]),
    ({"panel.quit": 3}, ["'panel.quit'", "string"]),
    ({"panel": {"quit": "y", "zoom": "y"}}, ["'panel.zoom'", "'panel.quit'"]),
    ("q", ["keymap", "table"]),
])
def test_a_bad_entry_is_an_error_naming_it(table, words):
    with pytest.raises(KeymapError) as err:
        check_keymap(table)
    for w in words:
        assert w in str(err.value)


def test_dotted_ids_unquoted_in_toml_read_as_the_same_entries():
    import tomllib

    table = tomllib.loads('[keymap]\npanel.quit = "ctrl+q"\n"panel.zoom" = ["Z", "f11"]\n')["keymap"]
    assert check_keymap(table) == {"panel.quit": "ctrl+q", "panel.zoom": "Z,f11"}


def test_a_key_freed_by_remapping_its_owner_can_be_taken():
    assert check_keymap({"panel.quit": "a", "panel.review_approval": "f3"})["panel.quit"] == "a"


def _config(tmp_path, text: str) -> None:
    (tmp_path / "no-config.toml").write_text(text)  # the file frozen.settings points SAGAN_TUI_CONFIG at


async def test_a_keymap_from_the_toml_file_changes_a_key_and_help_and_the_key_bar_show_it(tmp_path):
    _config(tmp_path, '[keymap]\npanel.inbox = "y"\n"panel.help" = "f1,question_mark"\n')
    app = frozen.frozen_app(tmp_path)
    assert app.settings.keymap == {"panel.inbox": "y", "panel.help": "f1,question_mark"}
    async with app.run_test(size=SIZE) as pilot:
        table = app.experiments_table
        await pilot.press("i")  # the default key no longer does it
        await pilot.pause()
        assert table.scope is None
        await pilot.press("y")
        await pilot.pause()
        assert table.scope is not None
        bar = app.screen.query_one(KeyBar)
        await wait_for(pilot, lambda: "y" in bar.keys, what="the key bar's new key")
        assert "i" not in bar.keys
        await open_dialog(pilot, "f1", HelpScreen, "help on f1")
        lines = [line.strip() for line in app.screen.text.plain.splitlines()]
        assert f"y  {BY_ID['panel.inbox'].what}" in lines
        assert f"f1 ?  {BY_ID['panel.help'].what}" in lines


async def test_a_bad_keymap_stops_the_panel_with_exit_2_naming_the_entry_and_applies_none_of_it(tmp_path, capsys):
    """The `sagan-tui` start: the first frame applies no part of a keymap that will not validate."""
    s = frozen.settings(tmp_path)
    cache = Cache(s.cache_path)
    frozen.fill(cache)
    cache.close()
    config = tmp_path / "config.toml"
    config.write_text('[keymap]\n"panel.inbox" = "y"\n"panel.stop" = "x"\n')
    env = {"SAGAN_TUI_CONFIG": str(config)}
    with pytest.raises(ConfigError, match="'panel.stop'"):
        load_settings(env)
    app = SaganApp(gather(env, sagan_tui_cache=str(s.cache_path)), clock=lambda: frozen.NOW)
    async with app.run_test(size=SIZE) as pilot:
        inbox = {key for key, active in app.screen.active_bindings.items() if active.binding.id == "panel.inbox"}
        assert inbox == {"i"}  # its own key: not the "y" of the half that was fine
        await wait_for(pilot, lambda: app.return_code is not None, what="the exit")
    message = printed(capsys)
    assert app.return_code == 2
    assert "keymap entry 'panel.stop': unknown binding id (did you mean 'panel.stop_pod'?)" in message


def test_the_readme_lists_every_binding_id():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    missing = [k.id for k in KEYS if f"`{k.id}`" not in readme]
    assert missing == []
