"""The one place that reaches into Textual's DataTable private members, for KeyedTable's fast paths; checked against the installed Textual."""

from __future__ import annotations

import functools
import inspect
from itertools import zip_longest
from typing import Any, Iterator, Sequence

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Spacing
from textual.coordinate import Coordinate
from textual.widgets import DataTable
from textual.widgets.data_table import CellKey, ColumnKey, DuplicateKey, Row, RowKey

# What FastDataTable reads or writes of DataTable's private state, and the private methods it
# calls or overrides with their parameters. `mismatches()` checks each against the installed
# Textual (tests/ui/test_datatable_private.py): an upgrade that renames one fails there, by name,
# instead of as a wrong frame. Pinned by pyproject.toml's textual range.
PRIVATE_ATTRS = ("_data", "_row_locations", "_column_locations", "_update_count", "_offset_cache",
                 "_ordered_row_cache", "_cell_render_cache", "_show_hover_cursor", "_pseudo_class_state",
                 "_y_offsets", "_updated_cells", "_require_update_dimensions", "_new_rows",
                 "_row_render_cache", "_row_renderable_cache", "_line_cache")
PRIVATE_METHODS = {
    "_render_cell": ("self", "row_index", "column_index", "base_style", "width", "cursor", "hover"),
    "_get_styles_to_render_cell": ("self", "is_header_cell", "is_row_label_cell", "is_fixed_style_cell",
                                   "hover", "cursor", "show_cursor", "show_hover_cursor",
                                   "has_css_foreground_priority", "has_css_background_priority"),
    "_highlight_cursor": ("self",),
    "_get_row_region": ("self", "row_index"),
    "_get_cell_region": ("self", "coordinate"),
    "_get_fixed_offset": ("self",),
}


def mismatches() -> list[str]:
    """What the installed Textual's DataTable lacks or has changed of the above ([] when all match)."""
    out = []
    table = DataTable()
    for name in PRIVATE_ATTRS:
        if not hasattr(table, name):
            out.append(f"DataTable has no attribute {name}")
    for name, params in PRIVATE_METHODS.items():
        method = getattr(DataTable, name, None)
        if not callable(method):
            out.append(f"DataTable has no method {name}")
        elif tuple(inspect.signature(method).parameters) != params:
            out.append(f"DataTable.{name}{inspect.signature(method)} is not ({', '.join(params)})")
    return out


class _LineOffsets(Sequence):
    """DataTable._y_offsets of a table whose rows are all one line high: line y is row y, read from
    the row order when asked. The stock list is rebuilt over every row after each change of order or
    cells (10,000 pods: twice per poll, and again at the next key)."""

    __slots__ = ("_table",)

    def __init__(self, table: "FastDataTable") -> None:
        self._table = table

    def __len__(self) -> int:
        return len(self._table.rows)

    def __getitem__(self, y):  # type: ignore[override]
        if isinstance(y, slice):
            return [self[i] for i in range(*y.indices(len(self)))]
        n = len(self)
        if y < 0:
            y += n
        if not 0 <= y < n:
            raise IndexError(y)
        return self._table._row_locations.get_key(y), 0

    def clear(self) -> None:
        """DataTable.clear empties the list it cached; there is none here."""


class _OrderedRows(Sequence):
    """DataTable.ordered_rows as a view on the row order (rows start..stop): a slice or one row
    costs what it holds, where the stock list is rebuilt over every row after each change."""

    __slots__ = ("_table", "_start", "_stop")

    def __init__(self, table: "FastDataTable", start: int = 0, stop: int | None = None) -> None:
        self._table, self._start, self._stop = table, start, stop

    def __len__(self) -> int:
        n = len(self._table.rows)
        return max(0, min(n, n if self._stop is None else self._stop) - self._start)

    def __getitem__(self, i):  # type: ignore[override]
        n = len(self)
        if isinstance(i, slice):
            start, stop, step = i.indices(n)
            if step != 1:
                return [self[j] for j in range(start, stop, step)]
            return _OrderedRows(self._table, self._start + start, self._start + max(start, stop))
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(i)
        t = self._table
        return t.rows[t._row_locations.get_key(self._start + i)]

    def __iter__(self) -> Iterator[Row]:
        t = self._table
        rows, key = t.rows, t._row_locations.get_key
        for i in range(self._start, self._start + len(self)):
            yield rows[key(i)]


@functools.lru_cache(maxsize=256)
def _style(spec: str) -> Style:
    # What Rich's console.get_style gives a cell's style string ("bold yellow", "dim red").
    return Style.parse(spec) if spec else Style.null()


class FastDataTable(DataTable):
    """A DataTable whose one-line, fixed-width plain cells update and draw without Textual's
    general path. A subclass says which cells qualify with `plain_cell(value)`."""

    # DataTable keeps 1,000 rendered rows, lines and row renderables and 10,000 cells, keyed by
    # the cursor's place and the table's generation: a press of the down arrow or an update
    # makes every visible row miss and adds a screenful of entries, each a tree of segments and
    # strips the collector tracks. Held for twenty presses, they reached its oldest generation
    # and made its full passes (the UI's longest stalls) larger and more frequent. A few
    # screenfuls serve every hit that can still come.
    CACHE_LINES = 200
    CACHE_CELLS = 2000
    # Every row one line high (add_rows_keyed's rows): rows and lines are then the same thing, and
    # where a row is needs no sum over the rows above it (the fast paths below). A row of another
    # height, added the stock way, turns them off until the table is cleared.
    _unit_rows = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for cache in (self._row_render_cache, self._row_renderable_cache, self._line_cache):
            cache.maxsize = self.CACHE_LINES
        self._cell_render_cache.maxsize = self.CACHE_CELLS

    def plain_cell(self, value: Any) -> tuple[str, str] | None:
        """(text, Rich style string) of a cell drawn the fast way, or None for the stock way."""
        return None

    # --- one line a row: places without a pass over every row -------------------------------

    def add_row(self, *cells: Any, height: int | None = 1, key: str | None = None, label: Any = None) -> RowKey:
        if height != 1:
            self._unit_rows = False
        return super().add_row(*cells, height=height, key=key, label=label)

    def clear(self, columns: bool = False):  # type: ignore[override]
        out = super().clear(columns)
        self._unit_rows = True
        return out

    @property
    def _y_offsets(self):  # type: ignore[override]
        if self._unit_rows:
            return _LineOffsets(self)
        return DataTable._y_offsets.fget(self)  # type: ignore[attr-defined]

    @property
    def ordered_rows(self):  # type: ignore[override]
        if self._unit_rows:
            return _OrderedRows(self)
        return super().ordered_rows

    def _get_row_region(self, row_index: int) -> Region:
        if not self._unit_rows or not self.is_valid_row_index(row_index):
            return super()._get_row_region(row_index)
        width = sum(column.get_render_width(self) for column in self.columns.values()) + self._row_label_column_width
        return Region(0, row_index + (self.header_height if self.show_header else 0), max(self.size.width, width), 1)

    def _get_cell_region(self, coordinate: Coordinate) -> Region:
        if not self._unit_rows or not self.is_valid_coordinate(coordinate):
            return super()._get_cell_region(coordinate)
        row_index, column_index = coordinate
        columns = self.ordered_columns
        x = sum(column.get_render_width(self) for column in columns[:column_index]) + self._row_label_column_width
        y = row_index + (self.header_height if self.show_header else 0)
        return Region(x, y, columns[column_index].get_render_width(self), 1)

    def _get_fixed_offset(self) -> Spacing:
        if not self._unit_rows:
            return super()._get_fixed_offset()
        top = (self.header_height if self.show_header else 0) + min(self.fixed_rows, self.row_count)
        left = sum(column.get_render_width(self)
                   for column in self.ordered_columns[:self.fixed_columns]) + self._row_label_column_width
        return Spacing(top, 0, 0, left)

    def row_location(self, row_key: RowKey) -> int | None:
        return self._row_locations.get(row_key)

    def column_location(self, column_key: ColumnKey) -> int | None:
        return self._column_locations.get(column_key)

    def cell_value(self, row_key: RowKey, column_key: ColumnKey) -> Any:
        return self._data[row_key].get(column_key)

    def update_cell(self, row_key: RowKey | str, column_key: ColumnKey | str, value: Any, *,
                    update_width: bool = False) -> None:
        """DataTable.update_cell, repainting the changed row only, and nothing when `same_drawing`
        says the drawn text and style are unchanged (a `seen` cell whose sort value moved with "now").

        The stock method bumps the table-wide generation and refreshes the whole widget, so
        every visible line is rendered and sent again (20-50 KB per poll at 200x50).
        """
        rk = RowKey(row_key) if isinstance(row_key, str) else row_key
        ck = ColumnKey(column_key) if isinstance(column_key, str) else column_key
        if update_width or rk not in self._row_locations or ck not in self._column_locations:
            super().update_cell(row_key, column_key, value, update_width=update_width)
            return
        if self.store_cell(rk, ck, value):
            self.refresh_row(self._row_locations.get(rk))

    def add_rows_keyed(self, rows: list[tuple[str, tuple[Any, ...]]]) -> None:
        """DataTable.add_row (one line high, no label) for many rows, checking the cursor once.

        The stock method sets the cursor reactive per row (validated, watched): the 300 rows of
        the next experiment's timeline, once per arrow key, held the UI thread 40-60 ms.
        """
        if not rows:
            return
        columns = self.ordered_columns
        for key, cells in rows:  # checked before anything changes, as add_row would raise
            if RowKey(key) in self._row_locations:
                raise DuplicateKey(f"The row key {key!r} already exists.")
            if len(cells) > len(columns):
                raise ValueError("More values provided than there are columns.")
        was_empty = self.row_count == 0
        for i, (key, cells) in enumerate(rows, start=self.row_count):
            rk = RowKey(key)
            self._row_locations[rk] = i
            self._data[rk] = {column.key: cell for column, cell in zip_longest(columns, cells)}
            self.rows[rk] = Row(rk, 1, None, False)
            self._new_rows.add(rk)
        self._require_update_dimensions = True
        self.cursor_coordinate = self.cursor_coordinate
        if was_empty and self.columns and self.show_cursor and self.cursor_type != "none":
            self._highlight_cursor()  # as add_row does for a table's first row
        self._update_count += 1
        self.check_idle()

    def order_rows(self, keys: list[str]) -> None:
        """DataTable.sort, given every row's key in the new order (the rows' own RowKeys are reused:
        10,000 new ones a poll were a third of its cost)."""
        rows = self.rows
        row_keys = [rows[k].key for k in keys]  # a RowKey hashes and compares as its text
        self._row_locations = type(self._row_locations)(dict(zip(row_keys, range(len(row_keys)))))
        self._update_count += 1
        self.refresh()

    def remove_rows(self, keys: list[str]) -> None:
        """DataTable.remove_row for many rows with one re-indexing and one layout request (the stock
        method re-indexes every row per removal: a poll dropping 80 timeline rows held the UI thread)."""
        gone = {RowKey(k) for k in keys}
        if not gone:
            return
        kept = sorted((self._row_locations.get(k), k) for k in list(self._row_locations) if k not in gone)
        self._row_locations = type(self._row_locations)({k: i for i, (_, k) in enumerate(kept)})
        for rk in gone:
            for ck in self._data.get(rk, ()):
                self._updated_cells.discard(CellKey(rk, ck))
            self.rows.pop(rk, None)
            self._data.pop(rk, None)
        self._require_update_dimensions = True
        self.check_idle()
        self.cursor_coordinate = self.cursor_coordinate
        self.hover_coordinate = self.hover_coordinate
        self._update_count += 1
        self.refresh(layout=True)

    def same_drawing(self, old: Any, new: Any) -> bool:
        """True when `new` draws exactly as `old` (then storing it repaints nothing)."""
        return False

    def store_cell(self, rk: RowKey, ck: ColumnKey, value: Any, *, bump: bool = True) -> bool:
        """Hold `value` in the cell; True if what is drawn changed (the caller repaints it). With
        `bump=False` the caller stores many cells, then calls `new_generation` once."""
        cells = self._data[rk]
        old = cells.get(ck)
        cells[ck] = value
        if self.same_drawing(old, value):
            return False
        if bump:
            self.new_generation()
        return True

    def new_generation(self) -> None:
        """Make the cached renders stale after cells changed in place. Row heights and order did
        not change, so they are carried over rather than recomputed by DataTable for every row."""
        if self._unit_rows:  # nothing is cached by generation but renders
            self._update_count += 1
            return
        offsets, count = self._y_offsets, self._update_count
        ordered = self._ordered_row_cache.get((self.row_count, count))
        self._update_count = count + 1
        self._offset_cache[self._update_count] = offsets
        if ordered is not None:
            self._ordered_row_cache[(self.row_count, self._update_count)] = ordered

    def _render_cell(self, row_index: int, column_index: int, base_style: Style, width: int,
                     cursor: bool = False, hover: bool = False) -> list[list[Segment]]:
        """DataTable._render_cell for one-line plain cells, as segments built directly.

        The stock method sends every cell through Rich (Styled, Padding, Text wrapping): about
        0.3 ms a cell, 4 ms a pod row, 150 ms a screenful when paging. A plain cell is text,
        one style, one line at a fixed width; the segments are the same, styles and all
        (tests/ui/test_keyed_table_render.py holds them equal). Anything else goes the stock way.
        """
        pad = self.cell_padding
        row_key = self._row_locations.get_key(row_index) if row_index >= 0 else None
        column_key = self._column_locations.get_key(column_index) if column_index >= 0 else None
        value = self._data.get(row_key, {}).get(column_key) if row_key is not None else None
        plain = self.plain_cell(value) if value is not None else None
        if plain is None or width <= 2 * pad or self.rows[row_key].height != 1 or "\t" in plain[0]:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        key = (row_key, column_key, base_style, cursor, hover, self._show_hover_cursor, self._update_count,
               self._pseudo_class_state)
        lines = self._cell_render_cache.get(key)
        if lines is None:
            fixed = row_index < self.fixed_rows or column_index < self.fixed_columns
            component, post = self._get_styles_to_render_cell(
                False, False, fixed, hover, cursor, self.show_cursor, self._show_hover_cursor,
                self.cursor_foreground_priority == "css", self.cursor_background_priority == "css")
            # The row/column meta is one Style per cell: added last, to styles Rich has cached
            # (they repeat across cells), it is one new Style a segment rather than three.
            meta = Style.from_meta({"row": row_index, "column": column_index})
            pre = base_style + component
            blank = pre + post + meta
            inner = width - 2 * pad
            text, style = plain
            if cell_len(text) > inner:  # Rich's "ellipsis" overflow, as Text.truncate does it
                text = set_cell_size(text, inner - 1) + "…"
            line = [Segment(" " * pad, blank)] if pad else []
            if text:
                line.append(Segment(text, pre + _style(style) + post + meta))
            if inner > cell_len(text):
                line.append(Segment(" " * (inner - cell_len(text)), blank))
            if pad:
                line.append(Segment(" " * pad, blank))
            lines = [line]
            self._cell_render_cache[key] = lines
        return lines
