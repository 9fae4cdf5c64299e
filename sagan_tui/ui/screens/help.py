"""`?`: one line per key (the keymap's keys, not the defaults): what it does, under where it applies."""

from __future__ import annotations

from typing import Callable, Collection, Mapping

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from sagan_tui.keymap import KEYS, WHERE, keys_of, scope
from sagan_tui.ui.widgets.key_bar import KeyBar

EXTRA = (("ctrl+p", "command palette: every action by name"), ("tab shift+tab", "next / previous pane"),
         ("enter", "experiment detail (experiments pane)"),
         ("enter", "the pod's screen: records, GPUs, log (pods pane)"), ("↑ ↓ pgup pgdn", "move in a table or scroll"))
KEY_WIDTH = 14


def help_text(key_display: Callable[[str], str], keymap: Mapping[str, str], enabled: Mapping[str, bool],
              read_only: bool, refused: Collection[str] = ()) -> Text:
    """Every binding id (keymap.KEYS), grouped by where it applies; `enabled` by id, absent means on;
    `refused`: the ids read-only refuses out loud (pressed, they say so: on, but not doing it)."""
    text = Text(end="")
    where = None
    for k in KEYS:
        if scope(k.id) != where:
            where = scope(k.id)
            text.append(f"\n{WHERE[where]}\n", "bold underline")
        keys = " ".join(key_display(x) for x in keys_of(k.id, keymap).split(","))
        on = enabled.get(k.id, True) and not (read_only and k.id in refused)
        text.append(f"  {keys:>{KEY_WIDTH}}  ", "bold cyan" if on else "dim")
        text.append(k.what, "" if on else "dim strike")
        if read_only and k.id in refused:
            text.append("  (refused: read-only)", "dim")
        elif not on:
            text.append("  (off: read-only)" if read_only else "  (unavailable)", "dim")
        text.append("\n")
    text.append("\nanywhere\n", "bold underline")
    for key, what in EXTRA:
        text.append(f"  {key:>{KEY_WIDTH}}  ", "bold cyan")
        text.append(f"{what}\n")
    text.append("\nKeys are remapped in the config file's [keymap] table by these ids (README: Keys).\n", "dim")
    return text


def panel_help(app) -> Text:
    """The help of `app` as it is now: its keymap, and which bindings read-only turned off."""
    from sagan_tui.ui.palette import entries

    from sagan_tui.ui.keys import configured_keymap
    from sagan_tui.ui.owner_actions import OwnerActionsScreen

    enabled = {e.binding.id: e.enabled for e in entries(app) if e.binding.id}
    refused = {f"panel.{action}" for action in OwnerActionsScreen.MUTATING}
    # The keymap the App was given (ui/keys.py), read from where it came from: Textual keeps its
    # own copy private.
    return help_text(lambda key: app.get_key_display(Binding(key, "")), configured_keymap(app.settings), enabled,
                     app.settings.read_only, refused)


class HelpScreen(Screen[None]):
    """A full screen, not a modal: blending a modal over the panes costs seconds at 200x50."""

    DEFAULT_CSS = """
    HelpScreen { align: center top; }
    #help-box { width: 90; max-width: 100%; height: 1fr; border: round $accent; padding: 0 1; }
    """
    BINDINGS = [Binding("escape,question_mark,q", "close", "Close", id="help.close")]
    OWN_KEYS_ONLY = True  # the key bar shows this screen's keys, not the panel's under it

    def __init__(self, text: Text) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box") as box:
            box.border_title = "Keys"
            box.border_subtitle = "↑↓ pgup pgdn home end scroll · esc closes"
            yield Static(self.text)
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#help-box").focus()  # the arrows and PageDown scroll it from the start

    def action_close(self) -> None:
        self.dismiss(None)
