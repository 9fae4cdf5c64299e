"""What the UI holds of a followed pod's log: the session's PodLogViews applied, bounded (no I/O)."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sagan_tui.wire.channel.views import PodLogView

KEEP = 500  # lines a pod screen keeps: the session's tail is bounded as much


class PodLog:
    """The lines (timestamp, source, message) so far, the last GPU figures and the stream's state."""

    def __init__(self) -> None:
        self.lines: deque[tuple[str, str, str]] = deque(maxlen=KEEP)
        self.gpus: tuple[tuple[int | None, int | None], ...] | None = None
        self.state = "reading…"
        self.total = 0  # lines ever applied since the last reset: a screen draws what it has not
        self.resets = 0


    def apply(self, view: "PodLogView") -> None:
        if view.reset:
            self.lines.clear()
            self.total = 0
            self.resets += 1
        self.lines.extend(view.lines)
        self.total += len(view.lines)
        if view.gpus is not None or view.state == "gone":
            self.gpus = view.gpus
        self.state = view.state or self.state
