"""The confirmation dialog every destructive action goes through: targets named and counted, Cancel first."""

from __future__ import annotations

from typing import Generic, Sequence, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from sagan_tui.panel.safe_text import literal
from sagan_tui.panel.registry import OWN, bindings
from sagan_tui.panel.widgets.status_bar import StatusBar

R = TypeVar("R")

NEWS_CSS = """
#dialog-news { height: auto; max-height: 2; display: none; text-style: bold; color: $warning; }
#dialog-news.-error { color: $error; }
"""


class HeldNotices:
    """For a dialog: a notification while it is on top shows on its own news line, in its layout,
    never over its title, verdict or buttons (a toast over the W dialog hid its verdict at 80x24);
    each goes to the notification area under it once the dialog closes. The App asks `take_notice` first."""

    _notices: list[tuple[str, str, str, float | None]]

    def take_notice(self, message: str, title: str, severity: str, timeout: float | None) -> bool:
        found = self.query("#dialog-news")  # type: ignore[attr-defined]
        if not self.is_attached or not found:  # type: ignore[attr-defined]
            return False
        if not hasattr(self, "_notices"):
            self._notices = []
        self._notices.append((message, title, severity, timeout))
        news = found.first(Static)
        more = f" (+{len(self._notices) - 1} more)" if len(self._notices) > 1 else ""
        news.update(literal(f"{title + ': ' if title else ''}{' '.join(message.split())}{more}"))
        news.set_class(severity == "error", "-error")
        news.display = True
        return True

    def on_unmount(self) -> None:
        app, held = self.app, getattr(self, "_notices", [])  # type: ignore[attr-defined]
        self._notices = []

        def again() -> None:
            for message, title, severity, timeout in held:
                app.notify(message, title=title, severity=severity, timeout=timeout, markup=False)

        if held:
            app.call_later(again)  # once this dialog is off the stack: to the area under it (or the next dialog's line)

# Every dialog draws the status line itself, docked on top exactly where the panes' is (the App fills
# every StatusBar on the stack): WAVE n · guard and, at 80 columns, the verdict stay in view and
# undimmed however many rows the line takes (#44). The box is centred in the rows under it, at most
# 85% of them, so the notification line above the key bar stays in view at 200x50.
DIALOG_CSS = NEWS_CSS + """
Dialog { align: center middle; }
Dialog > #dialog {
    width: 90%; max-width: 110; height: auto; max-height: 85%; overflow-y: auto;
    border: thick $error 70%; background: $surface; padding: 0 1;
}
Dialog #dialog-title { text-style: bold; width: 100%; padding: 0 0 1 0; }
Dialog #targets { height: auto; max-height: 10; border-left: wide $warning 50%; padding: 0 1; }
Dialog .dialog-note { color: $text-muted; padding: 1 0 0 0; }
Dialog #dialog-warning { color: $warning; text-style: bold; height: auto; padding: 1 0 0 0; }
Dialog Input { background: $boost; }
/* Docked: however long the targets and facts, the buttons stay on screen (80x24 too). */
Dialog .dialog-buttons { dock: bottom; height: 2; align-horizontal: right; padding: 1 0 0 0; }
Dialog .dialog-buttons Button { margin: 0 0 0 2; }
"""


class Dialog(HeldNotices, ModalScreen[R], Generic[R]):
    """Base of the owner's dialogs: a title with the count, the targets one per line, what is
    skipped or hidden (`warning`), then whatever the subclass adds, then [Cancel] [confirm].
    Opens on Cancel; Escape cancels.
    """

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = bindings("dialog", runner=OWN)  # panel/registry.py; the keys are keymap.py's
    AUTO_FOCUS = "#cancel"

    def __init__(self, title: str, targets: Sequence[str], *, confirm_label: str, note: str = "",
                 confirm_variant: str = "error", warning: str = ""):
        super().__init__()
        self.warning = warning  # what a bulk action skips, and marked targets a filter hides
        self.dialog_title = title
        self.targets = list(targets)
        self.confirm_label = confirm_label
        self.note = note
        self.confirm_variant = confirm_variant

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Vertical(id="dialog"):
            yield Static(literal(self.dialog_title), id="dialog-title")
            yield Static("", id="dialog-news")
            with VerticalScroll(id="targets"):
                for line in self.targets:
                    yield Static(literal(line), classes="target")
            if self.warning:
                yield Static(literal(self.warning, multiline=True), id="dialog-warning")
            yield from self.compose_body()
            if self.note:
                yield Static(literal(self.note, multiline=True), classes="dialog-note")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel", variant="primary", compact=True)
                yield Button(self.confirm_label, id="confirm", variant=self.confirm_variant,  # type: ignore[arg-type]
                             compact=True)

    def compose_body(self) -> ComposeResult:
        """What a subclass shows between the targets and the buttons."""
        return iter(())

    def result(self) -> R:
        """What confirming returns."""
        raise NotImplementedError

    def action_cancel(self) -> None:
        self.dismiss(None)  # type: ignore[arg-type]

    @on(Button.Pressed, "#cancel")
    def _cancel(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_cancel()

    @on(Button.Pressed, "#confirm")
    def _confirm(self, event: Button.Pressed) -> None:
        event.stop()
        if not event.button.disabled:
            self.dismiss(self.result())


class ConfirmScreen(Dialog[bool]):
    """Yes or no on a named, counted set of targets: `Stop 3 pods` and the three pods."""

    def result(self) -> bool:
        return True

    def action_cancel(self) -> None:
        self.dismiss(False)


def counted(n: int, noun: str, plural: str | None = None) -> str:
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"
