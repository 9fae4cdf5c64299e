"""The `/` prompt: filters the table it was opened on; a bad regex is an error here, the table untouched."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from sagan_tui.ui.safe_text import literal

if TYPE_CHECKING:
    from sagan_tui.ui.widgets.keyed_table import KeyedTable

HELP = "text: substring · re:PATTERN: regex · !…: inverse · empty: clear · esc: cancel"


class FilterScreen(ModalScreen[bool]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="filter.cancel")]

    def __init__(self, table: "KeyedTable") -> None:
        super().__init__()
        self.table = table

    def compose(self) -> ComposeResult:
        with Vertical(id="filter-box"):
            yield Static(literal(f"filter {self.table.pane_title}"), id="filter-title")
            yield Input(value=self.table.filter_text, placeholder="filter…", id="filter-input")
            yield Static(literal(HELP, "dim"), id="filter-help")
            yield Static("", id="filter-error")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            self.table.set_filter(event.value)
        except ValueError as exc:
            self.query_one("#filter-error", Static).update(literal(str(exc), "bold red"))
            return
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
