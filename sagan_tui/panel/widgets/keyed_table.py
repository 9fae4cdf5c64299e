"""The table panes' widget: keyed rows kept in step by diff, with marks, `/` filter, sort and a cursor that keeps its key."""

from __future__ import annotations

from typing import Callable, ClassVar, Iterable, Mapping, Sequence

from rich.text import Text
from textual.binding import BindingType

from sagan_tui.wire.render import Cell, Column, Row
from sagan_tui.panel.key_hold import opens_dialog, pushed
from sagan_tui.panel.widgets.line_table import LineTable
from sagan_tui.panel.widgets.row_store import Applied, RowPatch, RowStore
from sagan_tui.panel.registry import OWN, bindings

MARK = "●"
MARK_COLUMN = "_mark"  # the key `get_cell` knows the mark column by
MARK_STYLE = "bold yellow"


class CellView:
    """A drawn cell as callers read it: the cell, its text, and the Text the table draws."""

    __slots__ = ("cell",)

    def __init__(self, cell: Cell) -> None:
        self.cell = cell

    @property
    def text(self) -> Text:
        return Text(self.cell.text, style=self.cell.style, no_wrap=True, overflow="ellipsis", end="")

    @property
    def plain(self) -> str:
        return self.cell.text

    def __str__(self) -> str:
        return self.cell.text


class KeyedTable(LineTable):
    """Rows live in `records` by key; the widget shows those that pass the scope and filter.

    Every change is a diff, and a cursor the owner put on a row stays on that row's key, so a
    refresh never moves the owner's selection. A row whose drawing changed repaints its line
    (its one cell, when only one changed); only a change of order repaints the pane.
    """

    # The arrows and page keys are ScrollView's bindings, with LineTable's actions. Home and End
    # go to the first and last row (ScrollView's scroll sideways, which an owner never meant here).
    BINDINGS: ClassVar[list[BindingType]] = bindings("table", runner=OWN)  # panel/registry.py; the keys are keymap.py's

    class MarksChanged(LineTable.TableMessage):
        """The marked keys of a table changed."""

    def __init__(self, columns: Sequence[Column], *, title: str = "", zebra_stripes: bool = False,
                 id: str | None = None, classes: str | None = None) -> None:
        store = RowStore(columns)
        widths = [1, *(c.width or len(c.label) for c in store.specs)]  # the mark column first
        super().__init__(store, widths, zebra_stripes=zebra_stripes, id=id, classes=classes)
        self.specs = store.specs
        self.pane_title = title
        self.scope_label = ""
        self.note = ""  # in the title (e.g. "stale since 10:50")
        self._title: str | None = None

    # --- the store, as the panes and their callers read it --------------------------------

    records = property(lambda self: self.store.records)
    marks = property(lambda self: self.store.marks)
    filter_text = property(lambda self: self.store.filter_text)
    scope = property(lambda self: self.store.scope)
    sort_index = property(lambda self: self.store.sort_index)
    sort_reverse = property(lambda self: self.store.sort_reverse)

    def shown_keys(self) -> list[str]:
        return list(self.store.order)

    def column_width(self, key: str) -> int:
        """The width a column is drawn at (its cells, without the padding)."""
        return self.widths[1 + [c.key for c in self.specs].index(key)]

    def get_row_index(self, key: str) -> int:
        """Where the row of `key` is shown (KeyError when it is not)."""
        return self.store.index[key]

    def get_row(self, key: str) -> list[CellView]:
        """The shown row of `key`, mark cell first (KeyError when it is not shown)."""
        return [CellView(self._mark_cell(key)), *map(CellView, self.store.shown[key].cells)]

    def get_row_at(self, index: int) -> list[CellView]:
        return self.get_row(self.store.order[index])

    def get_cell(self, key: str, column: str) -> CellView:
        if column == MARK_COLUMN:
            return CellView(self._mark_cell(key))
        at = [c.key for c in self.specs].index(column)
        return CellView(self.store.shown[key].cells[at])

    def _mark_cell(self, key: str) -> Cell:
        return Cell(MARK if key in self.store.marks else " ", MARK_STYLE)

    def line_cells(self, key: str) -> list[tuple[str, str]]:
        return [(c.text, c.style) for c in (self._mark_cell(key), *self.store.shown[key].cells)]

    def header_cells(self) -> list[tuple[str, str]]:
        return [(" ", ""), *((c.label, "") for c in self.specs)]

    # --- changes --------------------------------------------------------------------------

    def set_rows(self, rows: Mapping[str, Row]) -> None:
        """Make the row set exactly `rows` (by key); only the differences are drawn again."""
        self._show(self.store.replace(rows))

    def update_rows(self, changed: Mapping[str, Row], removed: Iterable[str] = (),
                    patches: Mapping[str, RowPatch] | None = None) -> None:
        """Replace or add the `changed` rows, patch the rows of `patches` (the cells that changed
        of a row held: the channel's) and drop the `removed` keys; every other row is left alone,
        unread: what a poll costs is the rows it changed, not the table's size."""
        self._show(self.store.update(changed, removed, patches))

    def set_scope(self, scope: Callable[[str, Row], bool] | None, label: str = "") -> None:
        self.store.scope, self.scope_label = scope, label
        self._show(self.store.apply())

    def set_filter(self, query: str) -> None:
        """Filter rows by `query`; raises ValueError (table untouched) for a bad regex."""
        self._show(self.store.set_filter(query))

    def set_column_widths(self, widths: Mapping[str, int]) -> None:
        """Widen or narrow columns by key (the timeline's text columns follow the pane's width)."""
        new = [self.widths[0], *(widths.get(c.key, w) for c, w in zip(self.specs, self.widths[1:]))]
        if new != self.widths:
            self.widths = new
            self.forget_all()
            self._size_to_rows()
            self.refresh()

    def _show(self, applied: Applied) -> None:
        """Draw what a change of the store changed. A chosen cursor stays on the key it was on
        (on its place when that row went); one not chosen yet stays on its place."""
        at_key = self._highlighted
        for key in applied.redraw:
            self._forget(key)
        if applied.reordered:
            self._size_to_rows()
            index = self.store.index.get(at_key) if at_key is not None and self.cursor_chosen else None
            self.place_cursor(self.cursor_row if index is None else index)
            self.refresh()
        elif applied.redraw:
            # The lines on screen, found once: a tick can change thousands of rows off screen,
            # and those are drawn from the store when scrolled to.
            top, index = self.scroll_offset.y, self.store.index
            shown = range(top, top + self.size.height - self.header_height)
            for key, cells in applied.redraw.items():
                if index.get(key, -1) in shown:
                    at = index[key]
                    self.refresh_cell(at, cells[0] + 1) if len(cells) == 1 else self.refresh_row(at)
        self.on_rows_changed()
        self.refresh_titles()

    def on_rows_changed(self) -> None:
        """After any change of the shown rows (a pane that sizes itself to them hooks in here)."""

    # --- the title, marks, sort and filter ------------------------------------------------

    def on_mount(self) -> None:
        self._size_to_rows()
        self.refresh_titles()  # an empty pane still says what it is

    def refresh_titles(self) -> None:
        """The border title says everything that decides what the owner sees and acts on:
        `Pods · 6/7 · /team · sort up ↓ · 2 marked (1 hidden)`. The panes draw only a top
        border, so nothing goes to the subtitle, which would never be seen."""
        title = " · ".join(self.state_bits())
        # Textual's setter repaints the whole widget even for the same text, and every diff
        # applied comes through here.
        if self._title != title:
            self.border_title = self._title = title

    # What a sort leaves where it is (row_store.sort_key: a row's group comes before the column).
    PINNED = ""

    def state_bits(self) -> list[str]:
        """The pane title, scope, shown/total, filter, sort, marks and note, in that order."""
        store = self.store
        bits = [self.pane_title, self.scope_label]
        shown, total = len(store.shown), len(store.records)
        bits.append(f"{shown}" if shown == total else f"{shown}/{total}")
        if store.filter_text:
            bits.append(f"/{store.filter_text}")
        if store.sort_index is not None:
            bits.append(f"sort {self.specs[store.sort_index].label} {'↓' if store.sort_reverse else '↑'}"
                        + (f", {self.PINNED}" if self.PINNED else ""))
        if store.marks:
            hidden = len(store.hidden_marked())
            bits.append(f"{len(store.marks)} marked" + (f" ({hidden} hidden)" if hidden else ""))
        bits.append(self.note)
        return [b for b in bits if b]

    def action_toggle_mark(self) -> None:
        """Mark only: the cursor stays, so the row marked is the row the owner sees under it
        (a mark that also moved down once marked #350 for an owner who meant #355)."""
        key = self.cursor_key
        if key is not None:
            self._set_marks([key])

    def action_mark_all(self) -> None:
        """Every visible row marked (a row the scope or filter hides keeps its state)."""
        self._set_marks([k for k in self.store.order if k not in self.store.marks])

    def action_invert_marks(self) -> None:
        """Each visible row's mark flipped; marks on hidden rows kept."""
        self._set_marks(list(self.store.order))

    def _set_marks(self, flip: list[str]) -> None:
        for key in flip:
            self.store.toggle_mark(key)
            self._forget(key)
            if (at := self.store.index.get(key)) is not None:
                self.refresh_cell(at, 0)
        self.refresh_titles()
        if flip:
            self.post_message(self.MarksChanged(self))

    def action_next_match(self, step: int) -> None:
        """`n`/`N`: the rows shown are the filter's matches; the cursor goes to the next (or
        previous) one, round from the last to the first. Without a filter it says so."""
        if not self.filter_text:
            self.notify("no filter: / to type one", timeout=3)
            return
        if self.row_count:
            self._keyed()
            self.move_cursor(row=(self.cursor_row + step) % self.row_count)

    def marked_keys(self, visible_only: bool = False) -> list[str]:
        """Marked row keys in the order marked; `visible_only` leaves out rows the scope or
        the `/` filter hides."""
        return self.store.marked(visible_only)

    def hidden_marked_keys(self) -> list[str]:
        """Marked rows the owner cannot see now (hidden by the scope or the filter): a bulk
        dialog must name them, since it would act on them."""
        return self.store.hidden_marked()

    def hidden_by(self) -> str:
        """What hides rows now, in the owner's words: `the filter /personal`, or ''."""
        why = [f"the filter /{self.filter_text}"] if self.filter_text else []
        if self.scope_label and self.scope is not None:
            why.append(f"the scope {self.scope_label}")
        return " and ".join(why)

    def clear_marks(self, keys: Iterable[str] | None = None) -> None:
        """Unmark `keys` (every mark when None): after the bulk action that used them."""
        marks = self.store.marks
        marked = list(marks) if keys is None else [k for k in keys if k in marks]
        for k in marked:
            del marks[k]
            self._forget(k)
            if (at := self.store.index.get(k)) is not None:
                self.refresh_cell(at, 0)
        self.refresh_titles()
        if marked:
            self.post_message(self.MarksChanged(self))

    def action_cycle_sort(self) -> None:
        """Next column (then back to the pane's own order)."""
        i, n = self.sort_index, len(self.specs)
        self._show(self.store.set_sort(0 if i is None else (None if i + 1 >= n else i + 1), self.sort_reverse))

    def action_reverse_sort(self) -> None:
        self._show(self.store.set_sort(self.sort_index, not self.sort_reverse))

    @opens_dialog
    def action_filter(self) -> None:
        """The `/` bar; keys typed in the same burst (`/per⏎` from tmux or a quick hand) wait for
        it and go into it, not to the panel, where `p`, `e` and `r` are actions."""
        from sagan_tui.panel.resources import read_layouts
        from sagan_tui.panel.widgets.filter_bar import FilterBar

        read_layouts(self.app.stylesheet)  # its rules are read after the first frame: a key may come first
        for old in self.screen.query(FilterBar):
            old.remove()
        pushed(self.app, self.screen.mount(FilterBar(self)))
