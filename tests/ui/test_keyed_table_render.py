"""KeyedTable's own cell rendering draws exactly what DataTable's Rich path draws, character by character."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import DataTable

from sagan_tui.render import Cell, Column, Row
from sagan_tui.ui.widgets.keyed_table import KeyedTable

COLUMNS = (Column("pod", "pod", 14), Column("up", "up", 6), Column("note", "how", 12), Column("gpu", "GPU", 4))
TEXTS = ["", "x", "exactly-12ch", "one longer than its column", "全角文字の名前です", "trailing   ",
         "two  spaces", "✗10:55:00", "…"]
STYLES = ["", "bold", "dim", "bold red", "italic magenta", "bold white on red", "dim #e0e0e0", "yellow"]


def rows() -> dict[str, Row]:
    out = {}
    for i in range(24):
        cells = tuple(Cell(TEXTS[(i + j) % len(TEXTS)], STYLES[(i * 3 + j) % len(STYLES)]) for j in range(4))
        out[f"k{i}"] = Row(cells, group=i % 3, order=i)
    return out


class Stock(KeyedTable):
    """The same table drawn by DataTable's own cell renderer."""

    _render_cell = DataTable._render_cell


class Pair(App):
    def compose(self) -> ComposeResult:
        with Horizontal():
            yield KeyedTable(COLUMNS, title="fast", id="fast")
            yield Stock(COLUMNS, title="stock", id="stock")


def drawn(table: KeyedTable) -> list[list[tuple[str, object]]]:
    """Every line of the table as (character, style) pairs: how segments are split does not matter."""
    return [[(ch, seg.style) for seg in table.render_line(y) for ch in seg.text]
            for y in range(table.size.height)]


async def test_fast_cells_draw_what_the_stock_renderer_draws(monkeypatch):
    stock_cells: list[int] = []
    original = DataTable._render_cell

    def counted(self, row_index, *args, **kwargs):
        if not isinstance(self, Stock) and row_index >= 0:
            stock_cells.append(row_index)  # a data cell of the fast table drawn the slow way
        return original(self, row_index, *args, **kwargs)

    monkeypatch.setattr(DataTable, "_render_cell", counted)
    monkeypatch.setattr(Stock, "_render_cell", original)
    app = Pair()
    async with app.run_test(size=(80, 20)) as pilot:
        fast, stock = app.query_one("#fast", KeyedTable), app.query_one("#stock", KeyedTable)
        for table in (fast, stock):
            table.set_rows(rows())
            table.move_cursor(row=3)
            table.marks["k5"] = None
            table.update_cell("k5", "_mark", table._head("k5"))
        app.set_focus(None)
        await pilot.pause()
        assert fast.size == stock.size
        assert drawn(fast) == drawn(stock)  # unfocused, cursor on row 3, one mark
        focused = []
        for table in (fast, stock):
            table.focus()
            await pilot.pause()
            focused.append(drawn(table))
        assert focused[0] == focused[1]  # the focused cursor's style
        assert stock_cells == []  # so the comparison above was of the fast path
        lines = ["".join(ch for ch, _ in line) for line in drawn(fast)]
        assert any("one longer t…" in line or "one longer …" in line for line in lines), lines
