"""Proposed fixes, applied as patches so their effect can be measured before their owners land them.

`BENCH_FIXES=1 make bench` runs every figure with these applied (in the bench process, and in
the panel through `python bench/candidate_fixes.py ARGS`, which patches then runs `sagan-tui`).
Each patch names the file it belongs in; none of this is imported by the panel itself.
"""

from __future__ import annotations

import sys
from pathlib import Path


def _row_local_update_cell() -> None:
    """ui/widgets/keyed_table.py: a changed cell repaints its row only.

    DataTable.update_cell bumps the table-wide cache generation and refreshes the whole widget:
    every visible line is rendered again and sent (about 20-50 KB at 200x50). Here the
    generation still moves (this row's cached renders are stale), but row heights and order are
    carried over, only the row's region is marked dirty, and a cell whose text and style did not
    change (only its sort value moved: "now" a second later) is not touched at all.
    """
    from textual.widgets.data_table import ColumnKey, RowKey

    from sagan_tui.ui.widgets import keyed_table as kt

    stock = kt.DataTable.update_cell

    def update_cell(self, row_key, column_key, value, *, update_width=False):
        rk = RowKey(row_key) if isinstance(row_key, str) else row_key
        ck = ColumnKey(column_key) if isinstance(column_key, str) else column_key
        if update_width or rk not in self._row_locations or ck not in self._column_locations:
            return stock(self, row_key, column_key, value, update_width=update_width)
        old = self._data[rk].get(ck)
        a, b = getattr(old, "cell", None), getattr(value, "cell", None)
        if a is not None and b is not None and (a.text, a.style) == (b.text, b.style):
            return
        self._data[rk][ck] = value
        offsets, count, n = self._y_offsets, self._update_count, len(self._data)
        ordered = self._ordered_row_cache.get((n, count))
        self._update_count = count + 1
        self._offset_cache[self._update_count] = offsets
        if ordered is not None:
            self._ordered_row_cache[(n, self._update_count)] = ordered
        self.refresh_row(self._row_locations.get(rk))

    kt.KeyedTable.update_cell = update_cell


class _SetIfChanged:
    """ui/widgets/keyed_table.py: assigning a border title repaints the whole widget, even to the
    same text, and every `_apply` assigns both titles: assign only what changed."""

    def __init__(self, name: str) -> None:
        from textual.widget import Widget

        self.stock, self.memo = Widget.__dict__[name], f"_bench_last_{name}"

    def __set__(self, obj, value) -> None:
        if getattr(obj, self.memo, object()) == value:
            return
        setattr(obj, self.memo, value)
        self.stock.__set__(obj, value)

    def __get__(self, obj, objtype=None):
        return self if obj is None else self.stock.__get__(obj, objtype)


def _status_without_layout() -> None:
    """ui/widgets/status_bar.py: Static.update() asks for a layout pass by default, and a layout
    pass repaints every scrollbar on screen (about 10 KB at 200x50 with four tables). Ask for
    one only when the status line's height can change."""
    from rich.cells import cell_len
    from rich.text import Text

    from sagan_tui.ui.widgets import status_bar

    stock = status_bar.StatusBar.update

    def update(self, content="", *, layout: bool = True) -> None:
        plain = content.plain if isinstance(content, Text) else str(content)
        lines = -(-cell_len(plain) // max(1, self.content_size.width))
        stock(self, content, layout=layout and lines != getattr(self, "_bench_lines", None))
        self._bench_lines = lines

    status_bar.StatusBar.update = update


def apply() -> None:
    from sagan_tui.ui.widgets import keyed_table, status_bar  # noqa: F401  (import before patching)

    _row_local_update_cell()
    keyed_table.KeyedTable.border_title = _SetIfChanged("border_title")
    keyed_table.KeyedTable.border_subtitle = _SetIfChanged("border_subtitle")
    _status_without_layout()


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    apply()
    from sagan_tui.cli import main

    raise SystemExit(main())
