"""A confirmation that also asks for a note (hold, bulk hold): the note is what Sagan records."""

from __future__ import annotations

from typing import Sequence

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Button, Input, Label

from sagan_tui.ui.screens.confirm import Dialog


class NoteScreen(Dialog["str | None"]):
    """Returns the note (possibly empty) on confirm, None on cancel.

    Enter in the note moves to the confirm button rather than confirming: editing a note
    must never be one keypress away from sending.
    """

    DEFAULT_CSS = Dialog.DEFAULT_CSS + """
    NoteScreen #note-row { height: 1; margin: 1 0 0 0; }
    NoteScreen #note-label { width: auto; padding: 0 1 0 0; }
    """

    def __init__(self, title: str, targets: Sequence[str], *, confirm_label: str, note_value: str = "",
                 note: str = "", placeholder: str = "why (Sagan records this note)", warning: str = ""):
        super().__init__(title, targets, confirm_label=confirm_label, note=note, confirm_variant="warning",
                         warning=warning)
        self.note_value = note_value
        self.placeholder = placeholder

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="note-row"):
            yield Label("Note:", id="note-label")
            yield Input(value=self.note_value, placeholder=self.placeholder, id="note", max_length=2000, compact=True)

    def result(self) -> str:
        return self.query_one("#note", Input).value.strip()

    @on(Input.Submitted, "#note")
    def _to_confirm(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#confirm", Button).focus()
