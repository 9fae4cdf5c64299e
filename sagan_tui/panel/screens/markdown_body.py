"""A request body as Markdown, rendered off the main thread and scrolled line by line (60 KB bodies stay smooth).

Textual's Markdown widget mounts one widget per block: a 50 KB plan is a thousand widgets,
seconds to open and a visible lag on every page. Here Rich renders the whole body once, in a
thread, to strips; scrolling only crops the strips in view.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console
from rich.markdown import Markdown as RichMarkdown
from rich.segment import Segment
from textual import work
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from sagan_tui.panel.safe_text import clean


def render_markdown(text: str, width: int) -> list[Strip]:
    """The body's lines at `width`. Pure: links are shown with their address, never made clickable."""
    console = Console(width=max(20, width), color_system="truecolor", force_terminal=True, legacy_windows=False,
                      emoji=False, markup=False, highlight=False)
    # Rich Markdown never reads console markup in the text, so `[b]` stays two brackets and a b.
    md = RichMarkdown(clean(text, multiline=True), hyperlinks=False, code_theme="ansi_dark")
    lines = console.render_lines(md, console.options.update_width(max(20, width)), pad=False)
    return [Strip(Segment.simplify(line)) for line in lines]


@dataclass  # not frozen: Message.__post_init__ sets its own fields
class BodyRendered(Message):
    width: int
    lines: tuple[Strip, ...]


class MarkdownBody(ScrollView, can_focus=True):
    """Scrollable, focusable Markdown; shows `rendering…` for the moment the thread takes."""

    DEFAULT_CSS = """
    /* A stable gutter: the width the body was rendered at must not shrink when the scrollbar appears. */
    MarkdownBody { height: 1fr; overflow-x: hidden; scrollbar-gutter: stable; }
    """

    def __init__(self, markdown: str, *, id: str | None = None, classes: str | None = None):
        super().__init__(id=id, classes=classes)
        self.markdown = markdown
        self.lines: list[Strip] = []
        self._width = 0
        self.rendered = False

    def on_resize(self) -> None:
        width = self.scrollable_content_region.width
        if width > 0 and width != self._width:
            self._width = width
            self._render_body(width)

    @work(thread=True, exclusive=True, group="markdown-body", exit_on_error=False)
    def _render_body(self, width: int) -> None:
        self.post_message(BodyRendered(width, tuple(render_markdown(self.markdown, width))))

    def on_body_rendered(self, event: BodyRendered) -> None:
        event.stop()
        if event.width != self._width:
            return  # a resize overtook this render; its own render is on the way
        self.lines = list(event.lines)
        self.rendered = True
        self.virtual_size = Size(event.width, len(self.lines))
        self.refresh()

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        index = scroll_y + y
        if not self.rendered:
            line = Strip([Segment("rendering…" if y == 0 else "")])
        elif index < len(self.lines):
            line = self.lines[index]
        else:
            line = Strip([])
        return line.crop_extend(scroll_x, scroll_x + width, self.rich_style).apply_style(self.rich_style)

    def plain_text(self) -> str:
        """What the body shows, as text (for tests and for copying)."""
        return "\n".join(line.text.rstrip() for line in self.lines)
