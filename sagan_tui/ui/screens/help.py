"""`?`: every binding of the panel, its pane, and whether read-only mode turned it off."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from sagan_tui.ui.widgets.key_bar import KeyBar

from sagan_tui.ui.palette import Entry

EXTRA = (("ctrl+p", "command palette: every action by name"), ("tab / shift+tab", "next / previous pane"),
         ("enter", "experiment detail (experiments pane)"), ("escape", "close a screen or dialog"))


def help_text(items: list[Entry], key_display, read_only: bool) -> Text:
    text = Text(end="")
    where = None
    for e in items:
        if e.where != where:
            where = e.where
            text.append(f"\n{where}\n", "bold underline")
        key = key_display(e.binding)
        style = "" if e.enabled else "dim strike"
        text.append(f"  {key:>14}  ", "bold cyan" if e.enabled else "dim")
        text.append(e.label, style)
        if not e.enabled:
            text.append("  (off: read-only)" if read_only else "  (unavailable)", "dim")
        text.append("\n")
    text.append("\nalways\n", "bold underline")
    for key, what in EXTRA:
        text.append(f"  {key:>14}  ", "bold cyan")
        text.append(f"{what}\n")
    return text


class HelpScreen(Screen[None]):
    """A full screen, not a modal: blending a modal over the panes costs seconds at 200x50."""

    BINDINGS = [Binding("escape,question_mark,q", "close", "Close", id="help.close")]

    def __init__(self, text: Text) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box") as box:
            box.border_title = "Keys"
            box.border_subtitle = "esc / ? closes"
            yield Static(self.text)
        yield KeyBar()

    def action_close(self) -> None:
        self.dismiss(None)
