"""A confirmation that also asks for a note (hold, bulk hold): the note is what Sagan records."""

from __future__ import annotations

from typing import Sequence

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button, Label, TextArea

from sagan_tui.panel.screens.confirm import Dialog

NOTE_MAX = 2000


class NoteField(TextArea):
    """A note the owner reads whole before sending (it wraps: a one-line field cut the prefilled
    wave summary at its width), entered without selecting it all (one key replaced it), and sent
    as one line. Enter does not insert a line: it posts Submitted (the dialog moves to its button)."""

    DEFAULT_CSS = "NoteField { height: auto; max-height: 4; width: 1fr; border: none; padding: 0; background: $boost; }"

    class Submitted(Message):
        def __init__(self, field: "NoteField") -> None:
            super().__init__()
            self.field = field

        @property
        def control(self) -> "NoteField":
            return self.field

    def __init__(self, value: str = "", *, placeholder: str = "", id: str | None = None) -> None:
        super().__init__(" ".join(value.split())[:NOTE_MAX], soft_wrap=True, tab_behavior="focus",
                         show_line_numbers=False, compact=True, placeholder=placeholder, id=id)

    @property
    def value(self) -> str:
        return " ".join(self.text.split())[:NOTE_MAX]

    @value.setter
    def value(self, text: str) -> None:
        self.load_text(text)

    def on_key(self, event: events.Key) -> None:
        # Runs before TextArea's own key handler (this class is first in the MRO), which
        # prevent_default skips: Enter is the note's own, not a keymap binding to rebind.
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.post_message(self.Submitted(self))

    def on_focus(self) -> None:
        self.move_cursor(self.document.end)  # typing adds to the note, it never replaces it


class NoteScreen(Dialog["str | None"]):
    """Returns the note (possibly empty) on confirm, None on cancel.

    Enter in the note moves to the confirm button rather than confirming: editing a note
    must never be one keypress away from sending.
    """

    DEFAULT_CSS = Dialog.DEFAULT_CSS + """
    NoteScreen #note-row { height: auto; margin: 1 0 0 0; }
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
            yield NoteField(self.note_value, placeholder=self.placeholder, id="note")

    def result(self) -> str:
        return self.query_one("#note", NoteField).value

    @on(NoteField.Submitted, "#note")
    def _to_confirm(self, event: NoteField.Submitted) -> None:
        event.stop()
        self.query_one("#confirm", Button).focus()
