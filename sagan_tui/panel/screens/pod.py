"""Enter on a pod: what RunPod and Sagan say of it, its GPUs, its cost and losses, and the live tail of its log."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import RichLog, Static

from sagan_tui.panel.clipboard import copy
from sagan_tui.panel.messages import PodViewed
from sagan_tui.panel.safe_text import literal, one_line
from sagan_tui.panel.screens.pod_text import gpu_text, log_line, record_text
from sagan_tui.panel.widgets.key_bar import KeyBar
from sagan_tui.panel.widgets.news_area import NewsArea
from sagan_tui.panel.widgets.status_bar import StatusBar
from sagan_tui.panel.registry import OWN, bindings

if TYPE_CHECKING:
    from sagan_tui.wire.channel.surface import SessionSurface
    from sagan_tui.wire.channel.views import PodDetailView
    from sagan_tui.panel.view import PanelView


class PodScreen(Screen[None]):
    """Follows the pod's log while it is open (FollowPod/ForgetPod); read-only: no key here mutates."""

    DEFAULT_CSS = """
    #pod { height: 1fr; }
    #pod-left { width: 2fr; border-top: hkey $accent; padding: 0 1; }
    #pod-right { width: 3fr; }
    #pod-gpus { height: auto; border-top: hkey $surface-lighten-2; padding: 0 1; }
    #pod-log-state { height: 1; padding: 0 1; color: $text-muted; }
    #pod-log { height: 1fr; border-top: hkey $surface-lighten-2; }
    """
    BINDINGS = bindings("pod", runner=OWN)  # panel/registry.py; the keys are keymap.py's

    def __init__(self, pod_id: str, account: str, model: "PanelView", session: "SessionSurface") -> None:
        super().__init__()
        self.pod_id, self.account = pod_id, account
        self.model = model  # the UI's view of the session's updates (the followed log lands there)
        self.session = session
        self.detail: PodDetailView | None = None
        self._shown_lines = 0
        self._log_of: tuple[object, int] | None = None  # (PodLog, its resets) last drawn: a reset redraws

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")  # the sources, the clock and WAVE n · guard, as on the panes
        with Horizontal(id="pod"):
            with VerticalScroll(id="pod-left"):
                yield Static(record_text(None, self.pod_id), id="pod-record")
            with Vertical(id="pod-right"):
                yield Static(gpu_text(None), id="pod-gpus")
                yield Static("", id="pod-log-state")
                # min_width: RichLog lays a line out at least 78 cells wide, cutting the reaper's stop at 120 columns.
                yield RichLog(id="pod-log", markup=False, highlight=False, wrap=True, max_lines=2000, min_width=20)
        yield NewsArea.of(self.app)  # the panel's news, in the flow: never over the status line
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#pod-left").border_title = f"pod {self.pod_id}"
        self.query_one("#pod-log").border_title = "log (system and container)"
        self.model.pod_logs.pop(self.pod_id, None)  # a tail from an earlier visit is stale
        self.session.follow_pod(self.pod_id, self.account)
        self._fetch()

    def on_unmount(self) -> None:
        self.session.forget_pod(self.pod_id)
        self.model.pod_logs.pop(self.pod_id, None)

    @work(exclusive=True, group="pod-detail", exit_on_error=False)
    async def _fetch(self) -> None:
        try:
            view = await self.session.view_pod(self.pod_id)
        except Exception as exc:  # the session's one-line error, scrubbed of secrets there
            self.post_message(PodViewed(self.pod_id, None, one_line(str(exc) or type(exc).__name__)))
            return
        self.post_message(PodViewed(self.pod_id, view))

    @on(PodViewed)
    def _viewed(self, message: PodViewed) -> None:
        if message.view is None:
            self.query_one("#pod-record", Static).update(literal(f"{self.pod_id}: record not read: {message.error}"))
            return
        self.detail = message.view
        self.query_one("#pod-record", Static).update(record_text(message.view, self.pod_id))

    def refresh_from_model(self) -> None:
        """The app calls it after each update: new log lines appended, GPU figures redrawn."""
        log = self.model.pod_logs.get(self.pod_id)
        if log is None:
            return
        self.query_one("#pod-gpus", Static).update(gpu_text(log))
        self.query_one("#pod-log-state", Static).update(literal(log.state))
        widget = self.query_one("#pod-log", RichLog)
        drawn = (log, log.resets)
        if drawn != self._log_of:
            widget.clear()
            self._shown_lines, self._log_of = 0, drawn
        new = min(log.total - self._shown_lines, len(log.lines))
        for line in list(log.lines)[len(log.lines) - new:] if new > 0 else ():
            widget.write(log_line(*line))
        self._shown_lines = log.total

    def on_resize(self) -> None:
        """RichLog lays a line out once, at the width it had: after a resize the log is written
        again from the tail it holds, or a narrower terminal cuts the reaper's stop."""
        self._log_of = None
        self.call_after_refresh(self.refresh_from_model)

    def action_copy_id(self) -> None:
        why = copy(self.app, self.pod_id)
        self.notify(f"copied {self.pod_id}" if why is None else f"not copied: {why}", markup=False)

    def action_experiment(self) -> None:
        number = self.detail.experiment if self.detail else None
        if number is None:
            self.notify(f"{self.pod_id}: no experiment known", severity="warning", markup=False)
            return
        from sagan_tui.panel.screens.detail import DetailScreen

        self.app.push_screen(DetailScreen(number, self.model, self.session.view))

    def action_close(self) -> None:
        self.app.pop_screen()
