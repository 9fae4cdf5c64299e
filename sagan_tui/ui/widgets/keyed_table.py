"""A DataTable kept in step with a keyed row set by diff: marks, `/` filter, sort, cursor kept on its key."""

from __future__ import annotations

from typing import Any, Callable, ClassVar, Iterable, Mapping, Sequence

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.coordinate import Coordinate
from textual.message import Message
from textual.widgets.data_table import ColumnKey, RowDoesNotExist, RowKey

from sagan_tui.render import Cell, Column, Row, compile_filter
from sagan_tui.ui.widgets.datatable_private import FastDataTable

MARK = "●"
BULK_REMOVE = 200
_MARK_COL = "_mark"


class CellView:
    """A cell as DataTable holds it: the Text is built only when the cell is drawn.

    No `__rich_measure__` on purpose: DataTable measures every new cell (with a fresh
    ConsoleOptions each time) to size auto-width columns, which cost seconds for 3,000 rows.
    Every column here has a fixed width, so the measure is not needed.
    """

    __slots__ = ("cell",)

    def __init__(self, cell: Cell) -> None:
        self.cell = cell

    @property
    def text(self) -> Text:
        c = self.cell
        return Text(c.text, style=c.style, no_wrap=True, overflow="ellipsis", end="")

    @property
    def plain(self) -> str:
        return self.cell.text

    def __rich_console__(self, console, options):
        yield self.text

    def __str__(self) -> str:
        return self.cell.text


class _Desc:
    """Inverts comparison, for a descending column under an ascending group order."""

    __slots__ = ("v",)

    def __init__(self, v: Any):
        self.v = v

    def __lt__(self, other: "_Desc") -> bool:
        return other.v < self.v

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Desc) and other.v == self.v


def _safe(v: Any) -> tuple:
    # Sort values of one column may mix numbers and text (a "—" beside counts): never compare across.
    return (0, v) if isinstance(v, (int, float)) else (1, str(v))


cell_view = CellView


class KeyedTable(FastDataTable):
    """Rows live in `self.records` by key; the widget shows those that pass the scope and filter.

    Every change is applied as a diff (add, update_cell, remove) and the cursor stays on the
    row key it was on, so a refresh never moves the owner's selection.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle_mark", "Mark", id="table.mark"),
        Binding("o", "cycle_sort", "Sort", show=False, id="table.sort"),
        Binding("O", "reverse_sort", "Reverse sort", show=False, id="table.sort_reverse"),
        Binding("slash", "filter", "Filter", id="table.filter"),
    ]

    class MarksChanged(Message):
        """The marked keys of a table changed."""

        def __init__(self, table: "KeyedTable") -> None:
            super().__init__()
            self.table = table

        @property
        def control(self) -> "KeyedTable":
            return self.table

    def __init__(self, columns: Sequence[Column], *, title: str = "", id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, cursor_type="row", zebra_stripes=False)
        self.specs = tuple(columns)
        self.pane_title = title
        self.records: dict[str, Row] = {}
        self._shown: dict[str, Row] = {}
        self.marks: dict[str, None] = {}
        self.filter_text = ""
        self._filter: Callable[[str], bool] | None = None
        self.scope: Callable[[str, Row], bool] | None = None
        self.scope_label = ""
        self.sort_index: int | None = None
        self.sort_reverse = False
        self.note = ""  # shown in the subtitle (e.g. "stale since 10:50")
        self._titles: tuple[str, str] | None = None
        # Each shown row's sort key, kept between sorts for the (sort column, direction) it was
        # made for: a poll that moved a few rows computes a few keys, not 10,000.
        self._sort_keys: dict[str, tuple] = {}
        self._sort_keys_for: tuple | None = None
        self._order: list[str] = []  # the shown keys in the widget's order

    def on_mount(self) -> None:
        self.add_column(" ", key=_MARK_COL, width=1)
        for c in self.specs:
            self.add_column(c.label, key=c.key, width=c.width or len(c.label))
        self._columns_in_order = list(super().ordered_columns)
        self._apply()
        self.refresh_titles()  # _apply does nothing until mounted: an empty pane still says what it is

    @property
    def ordered_columns(self):
        # DataTable rebuilds this list for every cell of every row it lays out; ours never
        # change after mount, so the list is built once.
        cached = getattr(self, "_columns_in_order", None)
        return cached if cached is not None and len(cached) == len(self.columns) else super().ordered_columns

    def plain_cell(self, value: Any) -> tuple[str, str] | None:
        """Every CellView is drawn the fast way (see datatable_private.FastDataTable)."""
        return (value.cell.text, value.cell.style) if isinstance(value, CellView) else None

    def same_drawing(self, old: Any, new: Any) -> bool:
        a, b = getattr(old, "cell", None), getattr(new, "cell", None)
        return a is not None and b is not None and (a.text, a.style) == (b.text, b.style)

    def _shown_window(self) -> tuple[int, int]:
        """The row indexes on screen (one either side)."""
        top = self.scroll_offset.y - self.header_height
        return top - 1, top + self.size.height

    def _update_row(self, key: str, old: Row, row: Row, window: tuple[int, int]) -> bool:
        """Store a row's changed cells; repaint the one cell that changed, or else the row; True
        if anything drawn changed (the caller then starts a new generation, once for all rows).

        One cell alone is the common case between polls (an age crossing a minute or an hour)
        and costs a tenth of the row's bytes; two or more (a pod's status and its "how") cost
        less as one row than as separate cells, each with its own cursor move and styles.
        """
        rk = RowKey(key)
        drawn = [spec.key for spec, a, b in zip(self.specs, old.cells, row.cells)
                 if a != b and self.store_cell(rk, ColumnKey(spec.key), cell_view(b), bump=False)]
        if not drawn:
            return False
        at = self.row_location(rk)
        # A row off screen is drawn from its stored cells once scrolled to. Refreshing its region
        # cost DataTable a sum over every row above it: at 10,000 pods, most of the UI thread.
        if at is None or not window[0] <= at <= window[1]:
            return True
        if len(drawn) == 1:
            self.refresh_coordinate(Coordinate(at, self.column_location(ColumnKey(drawn[0]))))
        else:
            self.refresh_row(at)
        return True

    # --- data ------------------------------------------------------------------------------

    def set_rows(self, rows: Mapping[str, Row]) -> None:
        """Make the row set exactly `rows` (by key); only the differences reach the widget."""
        self.records = dict(rows)
        self._apply()

    def update_rows(self, changed: Mapping[str, Row], removed: Iterable[str] = ()) -> None:
        """Replace or add the `changed` rows and drop the `removed` keys; every other row is left
        alone, unread: what a poll costs is the rows it changed, not the table's size."""
        removed = [k for k in removed if k not in changed]
        for k in removed:
            self.records.pop(k, None)
        self.records.update(changed)
        if changed or removed:
            self._apply([*removed, *changed])

    def set_scope(self, scope: Callable[[str, Row], bool] | None, label: str = "") -> None:
        self.scope, self.scope_label = scope, label
        self._apply()

    def set_filter(self, query: str) -> None:
        """Filter rows by `query`; raises ValueError (table untouched) for a bad regex."""
        predicate = compile_filter(query)
        self._filter, self.filter_text = predicate, query.strip() if predicate else ""
        self._apply()

    @property
    def cursor_key(self) -> str | None:
        if not self.row_count or not self.is_valid_row_index(self.cursor_row):
            return None
        return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value

    def select_key(self, key: str) -> bool:
        try:
            self.move_cursor(row=self.get_row_index(key))
        except RowDoesNotExist:
            return False
        return True

    def shown_keys(self) -> list[str]:
        return [r.key.value for r in self.ordered_rows]  # type: ignore[misc]

    def _visible(self, key: str, row: Row) -> bool:
        if self.scope is not None and not self.scope(key, row):
            return False
        return self._filter is None or self._filter(row.search_text())

    def _head(self, key: str) -> CellView:
        """The mark cell."""
        return CellView(Cell(MARK if key in self.marks else " ", "bold yellow"))

    def _apply(self, keys: Iterable[str] | None = None) -> None:
        """Bring the widget in line with `records`: every row, or only those of `keys`."""
        if not self.is_mounted or not self.columns:
            return
        if keys is None:
            for k in [k for k in self.marks if k not in self.records]:
                del self.marks[k]
            wanted = {k: r for k, r in self.records.items() if self._visible(k, r)}
            gone = [k for k in self._shown if k not in wanted]
        else:
            keys = list(keys)
            for k in keys:
                if k not in self.records:
                    self.marks.pop(k, None)
            wanted = {k: r for k in keys if (r := self.records.get(k)) is not None and self._visible(k, r)}
            gone = [k for k in keys if k in self._shown and k not in wanted]
        at_key, at_index = self.cursor_key, self.cursor_row
        moved = False
        with self.app.batch_update():
            if keys is None and gone and (len(gone) == len(self._shown) or (
                    len(gone) > BULK_REMOVE and len(gone) > len(self._shown) // 2)):
                # DataTable.remove_row re-indexes every row and asks for a layout pass: thousands
                # of removals (a new filter on a big table), or every row going (the timeline of
                # the next experiment, once per arrow key), are quicker as one clear.
                self.clear()
                self._shown, self._sort_keys, self._order = {}, {}, []
                moved = True
            if gone and self._shown:
                self.remove_rows(gone)  # one re-indexing for all (datatable_private.py)
                for k in gone:
                    del self._shown[k]
                    self._sort_keys.pop(k, None)
                gone_set = set(gone)
                self._order = [k for k in self._order if k not in gone_set]  # as remove_rows keeps it
                moved = True
            added, stored, window = [], False, self._shown_window()
            for k, row in wanted.items():
                old = self._shown.get(k)
                if old is None:
                    added.append((k, (self._head(k), *map(cell_view, row.cells))))
                    self._sort_keys.pop(k, None)
                elif old != row:
                    self._sort_keys.pop(k, None)
                    stored = self._update_row(k, old, row, window) or stored
                    moved = moved or old.group != row.group or old.order != row.order or (
                        self.sort_index is not None and
                        old.cells[self.sort_index].sort_value != row.cells[self.sort_index].sort_value)
                self._shown[k] = row
            if stored:
                self.new_generation()  # once for every changed cell (datatable_private.py)
            if added:
                self.add_rows_keyed(added)  # one cursor check for all (datatable_private.py)
                self._order += [k for k, _ in added]  # at the end, as add_rows_keyed puts them
                moved = True
            if moved:
                self._resort()
                if at_key is not None and at_key in self._shown:
                    self.select_key(at_key)
                elif self.row_count:
                    self.move_cursor(row=min(at_index, self.row_count - 1))
        self.refresh_titles()

    def _sort_key(self, row: Row) -> tuple:
        i = self.sort_index
        if i is None:
            return (row.group, row.order)
        v = _safe(row.cells[i].sort_value)
        return (row.group, _Desc(v) if self.sort_reverse else v, row.order)

    def _resort(self) -> None:
        """Put the shown rows in sort order; the widget is left alone when they already are.

        DataTable.sort would build a tuple of every row's cells to hand each to the key: at 10,000
        pods a poll that moved one row took 40 ms of the UI thread. Here the keys of unchanged rows
        are kept, and what is sorted is the order shown (a poll moves a few rows of it): sorting
        an almost sorted list is one pass of comparisons, where the rows' own order (the order
        they came in) cost a full sort, 25-35 ms at 10,000 pods."""
        keys, shown = self._sort_keys, self._shown
        if self._sort_keys_for != (self.sort_index, self.sort_reverse):
            keys.clear()
            self._sort_keys_for = (self.sort_index, self.sort_reverse)
        if len(keys) != len(shown):
            for k, row in shown.items():
                if k not in keys:
                    keys[k] = self._sort_key(row)
        order = sorted(self._order if len(self._order) == len(shown) else shown, key=keys.__getitem__)
        if order != self._order:
            self.order_rows(order)
            self._order = order

    def refresh_titles(self) -> None:
        """The border title says everything that decides what the owner sees and acts on:
        `Pods · 6/7 · /team · sort up ↓ · 2 marked (1 hidden)`. The panes draw only a top
        border, so nothing goes to the subtitle, which would never be seen."""
        self._set_titles(" · ".join(self.state_bits()), "")

    def state_bits(self) -> list[str]:
        """The pane title, scope, shown/total, filter, sort, marks and note, in that order."""
        bits = [self.pane_title, self.scope_label]
        shown, total = len(self._shown), len(self.records)
        bits.append(f"{shown}" if shown == total else f"{shown}/{total}")
        if self.filter_text:
            bits.append(f"/{self.filter_text}")
        if self.sort_index is not None:
            bits.append(f"sort {self.specs[self.sort_index].label} {'↓' if self.sort_reverse else '↑'}")
        if self.marks:
            hidden = len(self.hidden_marked_keys())
            bits.append(f"{len(self.marks)} marked" + (f" ({hidden} hidden)" if hidden else ""))
        bits.append(self.note)
        return [b for b in bits if b]

    def _set_titles(self, title: str, subtitle: str) -> None:
        # Textual's setters repaint the whole widget even for the same text, and every diff
        # applied comes through here.
        if self._titles == (title, subtitle):
            return
        if self._titles is None or self._titles[0] != title:
            self.border_title = title
        if self._titles is None or self._titles[1] != subtitle:
            self.border_subtitle = subtitle
        self._titles = (title, subtitle)

    # --- actions ---------------------------------------------------------------------------

    def action_toggle_mark(self) -> None:
        key = self.cursor_key
        if key is None:
            return
        if key in self.marks:
            del self.marks[key]
        else:
            self.marks[key] = None
        self.update_cell(key, _MARK_COL, self._head(key))
        if self.cursor_row < self.row_count - 1:
            self.move_cursor(row=self.cursor_row + 1)
        self.refresh_titles()
        self.post_message(self.MarksChanged(self))

    def marked_keys(self, visible_only: bool = False) -> list[str]:
        """Marked row keys in the order marked; `visible_only` leaves out rows the scope or
        the `/` filter hides."""
        return [k for k in self.marks if k in self._shown] if visible_only else list(self.marks)

    def hidden_marked_keys(self) -> list[str]:
        """Marked rows the owner cannot see now (hidden by the scope or the filter): a bulk
        dialog must name them, since it would act on them."""
        return [k for k in self.marks if k not in self._shown]

    def hidden_by(self) -> str:
        """What hides rows now, in the owner's words: `the filter /personal`, or ''."""
        why = [f"the filter /{self.filter_text}"] if self.filter_text else []
        if self.scope_label and self.scope is not None:
            why.append(f"the scope {self.scope_label}")
        return " and ".join(why)

    def clear_marks(self, keys: Iterable[str] | None = None) -> None:
        """Unmark `keys` (every mark when None): after the bulk action that used them."""
        marked = list(self.marks) if keys is None else [k for k in keys if k in self.marks]
        for k in marked:
            del self.marks[k]
            if k in self._shown:
                self.update_cell(k, _MARK_COL, self._head(k))
        self.refresh_titles()
        if marked:
            self.post_message(self.MarksChanged(self))

    def action_cycle_sort(self) -> None:
        """Next column (then back to the pane's own order)."""
        n = len(self.specs)
        self.sort_index = 0 if self.sort_index is None else (None if self.sort_index + 1 >= n else self.sort_index + 1)
        self._resort_keep_cursor()

    def action_reverse_sort(self) -> None:
        self.sort_reverse = not self.sort_reverse
        self._resort_keep_cursor()

    def _resort_keep_cursor(self) -> None:
        key = self.cursor_key
        self._resort()
        if key is not None:
            self.select_key(key)
        self.refresh_titles()

    def action_filter(self) -> None:
        from sagan_tui.ui.widgets.filter_bar import FilterBar

        for old in self.screen.query(FilterBar):
            old.remove()
        self.screen.mount(FilterBar(self))
