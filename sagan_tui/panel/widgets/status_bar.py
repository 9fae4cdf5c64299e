"""The status line: each source's health and money, the poll state, read-only, the clock."""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import Static

from sagan_tui.wire.render import Segment


class StatusBar(Static):
    """Repaints only when its text changes: a clock tick that changes nothing sends nothing. The
    panes' screen and each detail screen hold one (the wave's count and guard stay in view)."""

    DEFAULT_CSS = "StatusBar { height: auto; max-height: 3; padding: 0 1; }"

    class Mounted(Message):
        """A status line was mounted (a detail screen opened): the app fills it now, not at the
        next tick."""

    def on_mount(self) -> None:
        self.post_message(self.Mounted())

    def __init__(self, **kwargs) -> None:
        super().__init__("", **kwargs)
        self._last: tuple[Segment, ...] = ()
        self._extent: tuple[int, int] | None = None  # (width, height) the last text was laid out for

    def show(self, segments: list[Segment]) -> None:
        segs = tuple(segments)
        if segs == self._last:
            return
        self._last = segs
        text = Text(end="", no_wrap=False)
        for s, style in segs:
            text.append(s, style)  # appended as plain text: names and kinds never act as markup
        # A layout pass repaints every scrollbar on screen (~10 KB at 200x50): ask for one only
        # when the new text's height at the current width differs from the last text's.
        self.update(text, layout=False)
        width = self.content_size.width
        extent = (width, self.get_content_height(self.size, self.app.size, width)) if width else None
        if extent is None or extent != self._extent:
            self.refresh(layout=True)
        self._extent = extent

    @property
    def plain(self) -> str:
        return "".join(s for s, _ in self._last)
