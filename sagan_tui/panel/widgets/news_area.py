"""The notification area: the panel's news on a few lines of its own, in the layout (panel/news.py)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Sequence

from rich.text import Text
from textual.widgets import Static

from sagan_tui.panel.news import NewsBoard, news_lines

if TYPE_CHECKING:
    from textual.screen import Screen

EXPIRE_EVERY_S = 1.0  # how often an item's time is looked at: a second late is not noticed


class NewsArea(Static):
    """Between the panes and the key bar, in the flow (not a layer): it takes rows from the panes
    and so never covers the status line, the verdict line or anything else. Hidden when empty.
    Every full screen of the panel yields one over the App's one board: a notice said on the detail
    screen is still on the main screen's area when the owner comes back, and ctrl+l clears it there."""

    DEFAULT_CSS = ("NewsArea { width: 1fr; height: auto; max-height: 3; padding: 0 1; background: $panel; "
                   "display: none; }")

    def __init__(self, board: NewsBoard | None = None, **kwargs) -> None:
        super().__init__("", **kwargs)
        self.board = board if board is not None else NewsBoard()  # the App's: it outlives the screen
        self._shown = -1  # the board's version last drawn

    @classmethod
    def of(cls, app: object) -> NewsArea:
        """A full screen's area, over its App's board (a bare one outside the panel's App)."""
        return cls(getattr(app, "news", None), id="news")

    def on_mount(self) -> None:
        self.set_interval(EXPIRE_EVERY_S, self._expire)
        self._show()  # a screen opened over news already said shows it from its first frame

    def add(self, message: str, title: str, severity: str) -> str:
        key = self.board.add(message, title, severity, time.monotonic())
        self._show()
        return key

    def drop(self, key: str) -> None:
        if self.board.drop(key):
            self._show()

    def clear(self) -> None:
        if self.board.clear():
            self._show()

    @property
    def lines(self) -> list[str]:
        """The lines as shown (for tests and the help screen's reader), newest under the incident."""
        return [text for text, _ in news_lines(self.board, self._width(), self._limit(), self.board.clear_key)]

    def on_resize(self) -> None:
        self._show()

    def _expire(self) -> None:
        self.board.expire(time.monotonic())
        if self.board.version != self._shown:  # this area's change, or another screen's area's
            self._show()

    def _width(self) -> int:
        return max(10, (self.app.size.width if self.is_attached else 80) - 2)

    def _limit(self) -> int:
        return 2 if self.is_attached and self.app.size.height < 30 else 3  # 80x24: the panes keep their rows

    def _show(self) -> None:
        self._shown = self.board.version
        lines = news_lines(self.board, self._width(), self._limit(), self.board.clear_key)
        text = Text(end="", no_wrap=True, overflow="ellipsis")
        for i, (line, style) in enumerate(lines):
            text.append(("\n" if i else "") + line, style)  # plain text: a source's words never act as markup
        self.update(text)
        self.display = bool(lines)


def area_in_view(stack: Sequence[Screen]) -> "NewsArea | None":
    """The notification area in view: the topmost screen's that has one (all share the app's board)."""
    for screen in reversed(stack):
        found = screen.query(NewsArea)
        if found:
            return found.first()
    return None


def deliver(stack: Sequence[Screen], board: NewsBoard, message: str, title: str, severity: str,
            timeout: float | None) -> None:
    """A notice to the dialog on top, which holds it on its own line until it closes
    (confirm.HeldNotices), else to the notification area of the topmost screen that has one (every
    full screen of the panel does), else to the board, which the next area to show draws. Never a
    toast: one stacked over the status line, the verdict and the `W` dialog at 80x24 (#44)."""
    take = getattr(stack[-1], "take_notice", None) if stack else None
    if take is not None and take(message, title, severity, timeout):
        return
    for screen in reversed(stack):  # a modal without a line (the palette) leaves the area under it in view
        found = screen.query(NewsArea)
        if found:
            found.first().add(message, title, severity)
            return
    board.add(message, title, severity, time.monotonic())
