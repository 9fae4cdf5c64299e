"""The user keymap applied to the App, and the keys a binding id answers to, for help and the key bar."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.app import App


def configured_keymap(settings: object) -> dict[str, str]:
    """The keymap of validated Settings, or of a Draft when it is valid: else none at all (the load
    that follows stops the panel with the error, exit 2), never part of it."""
    keymap = getattr(settings, "keymap", None)
    if keymap is None:  # a config.Draft: its values as gathered
        given = getattr(settings, "values", {}).get("keymap")
        if given is None:  # no [keymap] table: nothing to check
            return {}
        from sagan_tui.wire.keymap import KeymapError, check_keymap

        try:
            return check_keymap(given)
        except KeymapError:
            return {}
    return dict(keymap)


def apply_keymap(app: "App") -> None:
    """Textual's keymap support (App.set_keymap) does the remapping on every binding with that id."""
    keymap = configured_keymap(app.settings)  # type: ignore[attr-defined]
    if keymap:  # an App starts with no keymap: an empty table changes nothing
        app.set_keymap(keymap)
