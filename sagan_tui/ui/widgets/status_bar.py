"""The status line: each source's health and money, the poll state, read-only, the clock."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from sagan_tui.ui.render import Segment


class StatusBar(Static):
    """Repaints only when its text changes: a clock tick that changes nothing sends nothing."""

    DEFAULT_CSS = "StatusBar { height: auto; max-height: 3; padding: 0 1; }"

    def __init__(self, **kwargs) -> None:
        super().__init__("", **kwargs)
        self._last: tuple[Segment, ...] = ()

    def show(self, segments: list[Segment]) -> None:
        segs = tuple(segments)
        if segs == self._last:
            return
        self._last = segs
        text = Text(end="", no_wrap=False)
        for s, style in segs:
            text.append(s, style)  # appended as plain text: names and kinds never act as markup
        self.update(text)

    @property
    def plain(self) -> str:
        return "".join(s for s, _ in self._last)
