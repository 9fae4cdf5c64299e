"""A ScrollView that draws a table's rows through Textual's Line API: header, cursor, hover and zebra lines, a cached strip a row."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.style import Style
from textual import events
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from sagan_tui.panel.widgets.row_strip import line_strip

if TYPE_CHECKING:
    from sagan_tui.panel.widgets.row_store import RowStore

# Rows whose strips are kept: a few screenfuls. Only rows on screen are ever drawn, so the cache
# is bounded by what can be scrolled back to, not by the table's size.
CACHED_STRIPS = 400


class LineTable(ScrollView, can_focus=True):
    """The rows of `store` in its order, one line each, under a header that stays on top.

    Only the lines on screen are drawn, each from a strip cached by row key: a row whose drawing
    changed is forgotten and its line (or its one cell) repainted; nothing else is. A subclass
    says what a row's cells are (`line_cells`) and what the header says (`header_cells`).
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "keyed-table--header", "keyed-table--cursor", "keyed-table--hover",
        "keyed-table--even-row", "keyed-table--odd-row",
    }
    # DataTable's look, under this widget's own component names.
    DEFAULT_CSS = """
    LineTable {
        background: $surface;
        color: $foreground;
        height: auto;
        max-height: 100%;
        &:focus {
            background-tint: $foreground 5%;
            & > .keyed-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
            & > .keyed-table--header { background-tint: $foreground 5%; }
        }
        &:dark > .keyed-table--even-row { background: $surface-darken-1 40%; }
        & > .keyed-table--header { text-style: bold; background: $panel; color: $foreground; }
        &:ansi > .keyed-table--header { background: ansi_bright_blue; color: ansi_default; }
        & > .keyed-table--even-row { background: $surface-lighten-1 50%; }
        & > .keyed-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        & > .keyed-table--hover { background: $block-hover-background; }
    }
    """

    class TableMessage(Message):
        """From one table (no handler takes this class itself)."""

        def __init__(self, table: "LineTable") -> None:
            super().__init__()
            self.table = table

        @property
        def control(self) -> "LineTable":
            return self.table

    class RowMessage(TableMessage):
        """About one row: `key`, shown at `index` (no handler takes this class itself)."""

        def __init__(self, table: "LineTable", key: str, index: int) -> None:
            super().__init__(table)
            self.key, self.index = key, index

    class RowHighlighted(RowMessage):
        """The cursor came to another row. A sibling of RowSelected, not its base: Textual hands
        a message to the handlers of every class in its MRO."""

    class RowSelected(RowMessage):
        """The owner opened the row under the cursor (enter, or a click on it)."""

    def __init__(self, store: "RowStore", widths: list[int], *, zebra_stripes: bool = False,
                 id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.store = store
        self.widths = widths
        self.zebra_stripes = zebra_stripes
        self.show_header = True
        self.cell_padding = 1
        self.cursor_row = 0
        # Whether the owner (or a caller for them) put the cursor where it is. Until then it
        # stays on its place as rows come, the top of the pane in view: rows arriving at the start
        # (one account's pods, then another's) do not carry it off to whatever row came first.
        self.cursor_chosen = False
        self.hover_row: int | None = None  # the row under the mouse, once it moved
        # Row key -> its drawn variants (cursor, hover, stripe) -> strip; one entry to drop a row.
        self._strips: LRUCache[str, dict[tuple, Strip]] = LRUCache(CACHED_STRIPS)
        self._header: Strip | None = None
        self._drawn_for: object = None  # the pseudo classes (focus, hover...) the strips were drawn for
        self._looks: dict[str, Style] | None = None  # the line styles the strips were drawn with
        self._highlighted: str | None = None

    def line_cells(self, key: str) -> list[tuple[str, str]]:
        """The (text, style) of each cell of the row of `key`, as drawn."""
        raise NotImplementedError

    def header_cells(self) -> list[tuple[str, str]]:
        raise NotImplementedError

    @property
    def header_height(self) -> int:
        return 1 if self.show_header else 0

    @property
    def row_count(self) -> int:
        return len(self.store.order)

    @property
    def cursor_key(self) -> str | None:
        return self.store.key_at(self.cursor_row)

    def _forget(self, key: str) -> None:
        """Drop the row's cached strips (with and without the cursor, the hover, a stripe)."""
        self._strips.discard(key)

    def _size_to_rows(self) -> None:
        width = sum(self.widths) + 2 * self.cell_padding * len(self.widths)
        size = Size(width, self.row_count + self.header_height)
        if size != self.virtual_size:
            self.virtual_size = size

    # --- repainting one row ---------------------------------------------------------------

    def refresh_row(self, index: int) -> None:
        """Repaint the line of the row at `index`, if it is on screen (nothing else)."""
        y = index + self.header_height - self.scroll_offset.y
        if self.header_height <= y < self.size.height:
            self.refresh(Region(0, y, self.size.width, 1))

    def refresh_cell(self, index: int, column: int) -> None:
        """Repaint one cell (column 0 is the mark) of the row at `index`, if it is on screen: an
        age crossing a minute sends that cell's bytes, not the row's."""
        y = index + self.header_height - self.scroll_offset.y
        pad = self.cell_padding
        x = sum(self.widths[:column]) + 2 * pad * column - self.scroll_offset.x
        if self.header_height <= y < self.size.height:
            self.refresh(Region(x, y, self.widths[column] + 2 * pad, 1))

    def forget_all(self) -> None:
        """Drop every cached strip (styles, widths or the focus changed)."""
        self._strips.clear()
        self._header = None
        self._looks = None

    def _line_looks(self) -> dict[str, Style]:
        """The widget's style ("base") and its component styles ("cursor", "header"...), read once
        per style state, as the strips are drawn: a line from a cached strip needs them too (its
        blank, its crop), and reading them walks the DOM every time."""
        if self._looks is None:
            looks = {name.removeprefix("keyed-table--"): self.get_component_rich_style(name)
                     for name in self.COMPONENT_CLASSES}
            self._looks = {"base": self.rich_style, **looks}
        return self._looks

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.forget_all()

    def render_lines(self, crop: Region) -> list[Strip]:
        state = self.get_pseudo_class_state()  # focus changes the cursor's colours
        if state != self._drawn_for:
            self.forget_all()
            self._drawn_for = state
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        looks = self._line_looks()
        if y < self.header_height:
            header = looks["header"]
            if self._header is None:
                self._header = line_strip(self.header_cells(), self.widths, self.cell_padding, header)
            return self._header.crop_extend(scroll_x, scroll_x + width, header)
        index = y - self.header_height + scroll_y
        key = self.store.key_at(index)
        if key is None:
            return Strip.blank(width, looks["base"])
        cursor, hover = index == self.cursor_row, index == self.hover_row
        base = looks["base"]
        if self.zebra_stripes:
            base += looks["odd-row" if index % 2 else "even-row"]
        highlight = Style.null()
        if hover:
            highlight += looks["hover"]
        if cursor:
            highlight += looks["cursor"]
        drawn = self._strips.get(key)
        if drawn is None:
            drawn = self._strips[key] = {}
        variant = (cursor, hover, self.zebra_stripes and index % 2)
        strip = drawn.get(variant)
        if strip is None:
            strip = drawn[variant] = line_strip(self.line_cells(key), self.widths, self.cell_padding, base, highlight)
        return strip.crop_extend(scroll_x, scroll_x + width, base + highlight)

    # --- the cursor -----------------------------------------------------------------------

    def move_cursor(self, *, row: int | None = None, animate: bool = False, scroll: bool = True) -> None:
        """Put the cursor on the row at `row` (clamped to the rows), scrolled into view. From then
        on it follows that row's key across updates (`cursor_chosen`)."""
        if row is None:
            return
        self.cursor_chosen = True
        self.place_cursor(row, animate, scroll)

    def place_cursor(self, row: int, animate: bool = False, scroll: bool = True) -> None:
        """Put the cursor on the row at `row` without choosing it (an update does this)."""
        old, new = self.cursor_row, max(0, min(row, self.row_count - 1))
        self.cursor_row = new
        if old != new:
            self.refresh_row(old)
            self.refresh_row(new)
        if scroll:
            self.scroll_to_cursor(animate)
        key = self.cursor_key
        if key != self._highlighted:
            self._highlighted = key
            if key is not None:
                self.post_message(self.RowHighlighted(self, key, new))

    def select_key(self, key: str) -> bool:
        """Put the cursor on the row of `key`; False if no such row is shown."""
        index = self.store.index.get(key)
        if index is None:
            return False
        self.move_cursor(row=index)
        return True

    def scroll_to_cursor(self, animate: bool = False) -> None:
        rows = self.scrollable_content_region.height - self.header_height
        if rows <= 0:  # not laid out (or hidden): on_resize scrolls once it has a size
            return
        top = self.scroll_offset.y
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=animate, force=True)
        elif self.cursor_row >= top + rows:
            self.scroll_to(y=self.cursor_row - rows + 1, animate=animate, force=True)

    def on_resize(self) -> None:
        self.scroll_to_cursor()

    def _keyed(self) -> None:
        """A key moves the cursor: the mouse's hover line goes until the mouse moves again."""
        if self.hover_row is not None:
            self.refresh_row(self.hover_row)
            self.hover_row = None

    def action_scroll_up(self) -> None:
        self._keyed()
        self.move_cursor(row=self.cursor_row - 1)

    def action_scroll_down(self) -> None:
        self._keyed()
        self.move_cursor(row=self.cursor_row + 1)

    def _page(self, direction: int) -> None:
        self._keyed()
        rows = max(1, self.scrollable_content_region.height - self.header_height)
        self.scroll_to(y=self.scroll_offset.y + direction * rows, animate=False, force=True)
        self.move_cursor(row=self.cursor_row + direction * rows)

    def action_page_down(self) -> None:
        self._page(+1)

    def action_page_up(self) -> None:
        self._page(-1)

    def action_cursor_top(self) -> None:
        self._keyed()
        self.move_cursor(row=0)

    def action_cursor_bottom(self) -> None:
        self._keyed()
        self.move_cursor(row=self.row_count - 1)

    def action_scroll_home(self) -> None:
        self.scroll_to(x=0, animate=False)

    def action_scroll_end(self) -> None:
        self.scroll_to(x=self.max_scroll_x, animate=False)

    def action_select_cursor(self) -> None:
        key = self.cursor_key
        if key is not None:
            self.post_message(self.RowSelected(self, key, self.cursor_row))

    def _row_under(self, event: events.MouseEvent) -> int | None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < self.header_height:
            return None
        index = offset.y - self.header_height + self.scroll_offset.y
        return index if index < self.row_count else None

    def on_click(self, event: events.Click) -> None:
        index = self._row_under(event)
        if index is None:
            return
        event.stop()
        if index == self.cursor_row:
            self.action_select_cursor()
        self.move_cursor(row=index)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        index = self._row_under(event)
        if index != self.hover_row:
            for old in (self.hover_row, index):
                if old is not None:
                    self.refresh_row(old)
            self.hover_row = index

    def on_leave(self) -> None:
        self._keyed()
