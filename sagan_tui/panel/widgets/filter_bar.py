"""The `/` prompt, docked under the panes: filters the table it was opened on as the owner types; a bad regex is shown, the table untouched."""

from __future__ import annotations

from typing import Protocol

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

from sagan_tui.panel.safe_text import literal
from sagan_tui.panel.registry import OWN, bindings



class Filtered(Protocol):
    """The table a filter bar filters (a KeyedTable; named so here, not imported: no import circle)."""

    pane_title: str
    filter_text: str

    def set_filter(self, query: str) -> None: ...


HELP = "text · re:regex · !…: not · enter: keep (n/N) · esc: drop"  # one line at 80 columns


class FilterBar(Vertical):
    """Not a screen: a modal over a big table costs a full re-blend of the screen on every key."""

    BINDINGS = bindings("filter", runner=OWN)  # panel/registry.py; the keys are keymap.py's

    def __init__(self, table: Filtered) -> None:
        super().__init__(id="filter-bar")
        self.table = table
        self.closed = False

    def compose(self) -> ComposeResult:
        yield Static(literal(f"filter {self.table.pane_title}: {HELP}", "dim"), id="filter-help")
        yield Input(value=self.table.filter_text, placeholder="filter…", id="filter-input")
        yield Static("", id="filter-error")

    def on_mount(self) -> None:
        # At once (Widget.focus waits a turn): the keys typed with `/`, held meanwhile by the
        # App (panel/key_hold.py), are handed to whatever has the focus when this has mounted.
        self.screen.set_focus(self.query_one(Input))

    def on_input_changed(self, event: Input.Changed) -> None:
        """Each key narrows (or widens) the rows at once; a regex not yet whole leaves them as
        they were and says why, until the next key mends it."""
        event.stop()
        if not self.closed:  # a key the input still had after Enter or Escape: not the filter's
            self._apply(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if not self.closed and self._apply(event.value):
            self._close()  # the filter stays; n/N walk its matches

    def _apply(self, query: str) -> bool:
        error = self.query_one("#filter-error", Static)
        try:
            self.table.set_filter(query)
        except ValueError as exc:
            error.update(literal(str(exc), "bold red"))
            return False
        error.update("")
        return True

    def action_cancel(self) -> None:
        self.table.set_filter("")  # Escape drops the filter, as in k9s and lazygit; Enter keeps it
        self._close()

    def _close(self) -> None:
        self.closed = True
        self.screen.set_focus(self.table)  # at once: the next keys are the panel's
        self.remove()
