"""The approval screen: the request's body as Markdown, one input per [TEXTBOX:name], approve/reject/defer."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Awaitable, Callable, Mapping

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from sagan_tui.wire.channel.views import ActionResultView as ActionResult
from sagan_tui.wire import fmt
from sagan_tui.panel.safe_text import literal, one_line
from sagan_tui.panel.screens.confirm import NEWS_CSS, HeldNotices
from sagan_tui.panel.screens.markdown_body import MarkdownBody
from sagan_tui.panel.widgets.key_bar import KeyBar
from sagan_tui.panel.widgets.news_area import NewsArea
from sagan_tui.panel.widgets.status_bar import StatusBar
from sagan_tui.panel.registry import OWN, bindings

if TYPE_CHECKING:  # annotations only: the UI process reads approvals as the channel's plain views
    from sagan_tui.wire.channel.views import ApprovalView as ApprovalRequest

Submit = Callable[[str, Mapping[str, str], str], Awaitable[ActionResult]]
DECISION_KEYS = {"approve": "alt+a", "reject": "alt+r", "defer": "alt+d"}

@dataclass  # not frozen: Message.__post_init__ sets its own fields
class DecisionDone(Message):
    """A decision came back from Sagan (or failed); posted by the screen's worker to itself."""

    result: ActionResult


def deferred_text(a: ApprovalRequest) -> str:
    """The banner of a request the owner deferred: when, and that it is still theirs to decide."""
    when = fmt.stamp(a.updated_at) if a.updated_at else "an unknown time"
    return f"You deferred this request at {when}. It is still your turn: approve or reject it when ready."


class ApprovalScreen(HeldNotices, ModalScreen["ActionResult | None"]):
    """Read the request, answer its textboxes, decide. Escape closes without deciding.

    Rule for empty textboxes: Approve needs every textbox answered (Sagan's agent waits on
    the answers; write "n/a" where a field does not apply). Reject and Defer send whatever
    is filled. Opens with the first textbox focused (the note when there is none; the body when
    read-only), so an answer typed at once lands; after a refused Approve the focus goes to the
    first empty textbox. No single letter decides: the decision keys are alt+a, alt+r, alt+d.
    News said while it is open shows on its news line (confirm.HeldNotices); what was said before, under it.
    """

    DEFAULT_CSS = NEWS_CSS + """
    ApprovalScreen { align: center middle; }
    /* Under its own status line (docked on top, as in confirm.DIALOG_CSS), over the rest. */
    ApprovalScreen > #approval { width: 96%; height: 1fr; border: thick $primary 60%; background: $surface; }
    ApprovalScreen #approval-title { text-style: bold; padding: 0 1; }
    ApprovalScreen #approval-meta { color: $text-muted; padding: 0 1; }
    ApprovalScreen #dialog-news { padding: 0 1; }
    ApprovalScreen #readonly-banner { background: $warning 30%; padding: 0 1; }
    ApprovalScreen #deferred-banner { background: $primary 30%; padding: 0 1; }
    ApprovalScreen #approval-body { height: 1fr; min-height: 5; border: round $primary 40%; }
    ApprovalScreen #approval-body:focus { border: round $accent; }
    ApprovalScreen #answers { height: auto; max-height: 40%; padding: 0 1; }
    ApprovalScreen .answer { height: 1; }
    ApprovalScreen .answer Label { width: auto; max-width: 45%; color: $accent; padding: 0 1 0 0; }
    ApprovalScreen .answer Input { width: 1fr; background: $boost; }
    ApprovalScreen .answer Input.-invalid { background: $error 35%; }
    ApprovalScreen .answer Input:focus { background: $accent 35%; }
    ApprovalScreen #decision-status { height: auto; padding: 0 1; display: none; }
    ApprovalScreen #decision-status.error { color: $error; }
    ApprovalScreen .decision-buttons { height: 2; align-horizontal: right; padding: 1 1 0 1; }
    ApprovalScreen .decision-buttons Button { margin: 0 0 0 2; }
    """
    BINDINGS = bindings("approval", runner=OWN)  # panel/registry.py; the keys are keymap.py's
    AUTO_FOCUS = "#approval-body"  # read-only; see __init__

    def __init__(self, approval: ApprovalRequest, submit: Submit | None, *, read_only_reason: str = "",
                 refused: Callable[[str], None] | None = None):
        super().__init__()
        self.approval = approval
        self.submit = submit
        self.refused = refused
        self.read_only_reason = read_only_reason or ("" if submit else "read-only")
        self.fields = approval.textbox_fields
        self.sending = False
        if submit is not None:  # where an answer typed at once belongs
            self.AUTO_FOCUS = "#tb-0" if self.fields else "#note"

    @property
    def read_only(self) -> bool:
        return self.submit is None

    def compose(self) -> ComposeResult:
        a = self.approval
        yield StatusBar(id="status")  # WAVE n · guard stays in view over the panes' (confirm.DIALOG_CSS)
        with Vertical(id="approval"):
            yield Static(literal(a.title or "(untitled request)"), id="approval-title")
            number = f"#{a.experiment_number}" if a.experiment_number is not None else "experiment ?"
            yield Static(literal(f"{number} · {a.kind} · {a.status} · requested by {a.requested_by or '?'}"
                                 f" · {len(self.fields)} textbox{'es' * (len(self.fields) != 1)}"), id="approval-meta")
            yield Static("", id="dialog-news")
            if self.read_only:
                yield Static(literal(f"{self.read_only_reason}: the request is shown, decisions are disabled"),
                             id="readonly-banner")
            if a.status == "deferred":
                yield Static(literal(deferred_text(a)), id="deferred-banner")
            yield MarkdownBody(a.body_md or "*(the request has no body)*", id="approval-body")
            # Not focusable itself: Tab goes from the body straight to the first answer.
            with VerticalScroll(id="answers", can_focus=False):
                for i, name in enumerate(self.fields):
                    with Horizontal(classes="answer"):
                        yield Label(literal(f"{name}:"))
                        yield Input(placeholder=f"answer for {one_line(name, 60)}", id=f"tb-{i}", compact=True,
                                    disabled=self.read_only, max_length=10_000)
                with Horizontal(classes="answer"):
                    yield Label("note (optional)")
                    yield Input(placeholder="a note with the decision", id="note", compact=True,
                                disabled=self.read_only, max_length=2000)
            yield Static("", id="decision-status")
            with Horizontal(classes="decision-buttons"):
                for decision, variant in (("approve", "success"), ("reject", "error"), ("defer", "default")):
                    label = "read-only" if self.read_only else f"{decision.title()} ({DECISION_KEYS[decision]})"
                    yield Button(label, id=decision, variant=variant, disabled=self.read_only,  # type: ignore[arg-type]
                                 compact=True)
                yield Button("Close (esc)", id="close", compact=True)
        yield NewsArea.of(self.app)  # the news from before it opened, under it as on the panes (never covered)
        yield KeyBar()

    # --- reading -----------------------------------------------------------------------

    def answers(self) -> dict[str, str]:
        return {name: self.query_one(f"#tb-{i}", Input).value.strip() for i, name in enumerate(self.fields)}

    def empty_fields(self) -> list[str]:
        return [name for name, value in self.answers().items() if not value]

    def _status(self, text: str, error: bool = False) -> None:
        status = self.query_one("#decision-status", Static)
        status.update(literal(text, multiline=True))
        status.set_class(error, "error")
        status.display = bool(text)

    def _buttons(self, enabled: bool) -> None:
        for decision in DECISION_KEYS:
            self.query_one(f"#{decision}", Button).disabled = not enabled or self.read_only or (
                decision == "defer" and self.approval.status == "deferred")

    def on_mount(self) -> None:
        self._buttons(True)  # a deferred request cannot be deferred again

    # --- deciding ----------------------------------------------------------------------

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "close":
            self.action_close()
        elif event.button.id in DECISION_KEYS:
            self.action_decide(event.button.id)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_next_field(self, step: int) -> None:
        self.focus_next() if step > 0 else self.focus_previous()

    def action_decide(self, decision: str) -> None:
        """Decide once every answer typed before the key is in its field.

        The decision keys are priority bindings, run by the App as soon as it reads them, while
        the keys typed just before (in the same burst over SSH) may still wait in an Input's
        queue: a message sent through each Input in turn arrives after them."""
        inputs = list(self.query(Input))

        def through(i: int) -> None:
            if i < len(inputs):
                inputs[i].call_later(through, i + 1)
            elif self.is_attached:
                self._decide(decision)

        through(0)

    def _decide(self, decision: str) -> None:
        if self.read_only:
            if self.refused is not None:  # said and audited by the panel
                self.refused(decision)
            else:
                self.notify(f"{self.read_only_reason}: {decision} refused", severity="warning", markup=False)
            return
        if self.sending:
            self.notify("a decision is already being sent", severity="warning", markup=False)
            return
        if decision == "defer" and self.approval.status == "deferred":
            self._status("already deferred: approve or reject it, or close (esc) to leave it deferred", error=True)
            return
        empty = self.empty_fields()
        if decision == "approve" and empty:
            for i, name in enumerate(self.fields):
                self.query_one(f"#tb-{i}", Input).set_class(name in empty, "-invalid")
            first = self.fields.index(empty[0])
            # At once, not after a refresh (Widget.focus): the keys typed next go to the empty field.
            self.set_focus(self.query_one(f"#tb-{first}", Input))
            self._status(f"Approve needs every textbox answered (write n/a where one does not apply); "
                         f"empty: {', '.join(empty)}", error=True)
            return
        self.sending = True
        self._buttons(False)
        self._status(f"sending {decision}…")
        self._send(decision, self.answers(), self.query_one("#note", Input).value.strip())

    @work(exclusive=True, group="approval-decision", exit_on_error=False)
    async def _send(self, decision: str, answers: dict[str, str], note: str) -> None:
        assert self.submit is not None
        result = await self.submit(decision, answers, note)
        self.post_message(DecisionDone(result))

    @on(DecisionDone)
    def _done(self, event: DecisionDone) -> None:
        self.sending = False
        result = event.result
        if result.ok:
            self.notify(result.message, title="Decision sent", markup=False)
            self.dismiss(result)
            return
        # The answers stay as typed: a failed send must not cost the owner their text.
        self._buttons(True)
        self._status(result.message, error=True)
        self.notify(result.message, title="Decision not sent", severity="error", markup=False, timeout=15)
