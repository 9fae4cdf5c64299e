"""A poll's moved rows land where a full sort puts them; an unmoved order touches nothing; and the
one-line-a-row places (line offsets, row and cell regions, the ordered rows) are the stock ones."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.coordinate import Coordinate
from textual.widgets import DataTable

from sagan_tui.render import Cell, Column, Row
from sagan_tui.ui.widgets.keyed_table import KeyedTable

COLUMNS = (Column("name", "name", 10), Column("up", "up", 6))


def row(i: int, up: int, group: int = 0) -> Row:
    return Row((Cell(f"pod-{i}"), Cell(f"{up}m", sort=up)), group=group, order=i)


class Harness(App):
    def compose(self) -> ComposeResult:
        yield KeyedTable(COLUMNS, title="Pods", id="t")
        yield DataTable(id="stock")


def full_sort(table: KeyedTable) -> list[str]:
    """The order a sort of every row from nothing gives (what _resort must match)."""
    i, rev = table.sort_index, table.sort_reverse

    def key(k: str):
        r = table.records[k]
        if i is None:
            return (r.group, r.order)
        v = r.cells[i].sort_value
        return (r.group, -v if rev else v, r.order)

    return sorted(table.records, key=key)


async def test_moved_and_added_rows_land_where_a_full_sort_puts_them_and_an_unmoved_poll_keeps_the_order():
    app = Harness()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(KeyedTable)
        table.set_rows({f"p{i}": row(i, up=i % 7) for i in range(300)})
        await pilot.pause()
        assert table.shown_keys() == full_sort(table)

        table.update_rows({"p5": row(5, 3, group=1), "p250": row(250, 1, group=1), "p300": row(300, 2)})
        assert table.shown_keys() == full_sort(table)
        assert table.shown_keys()[-2:] == ["p5", "p250"]  # the lost group sorts last

        table.action_cycle_sort()  # by name
        table.action_cycle_sort()  # by up
        table.action_reverse_sort()
        assert table.shown_keys() == full_sort(table)
        table.update_rows({"p7": row(7, 6), "p8": row(8, 0)}, removed=["p9"])
        assert table.shown_keys() == full_sort(table)

        generation = table._update_count
        ordered = []
        real = table.order_rows
        table.order_rows = lambda keys: (ordered.append(len(keys)), real(keys))[1]
        table.update_rows({"p10": row(10, 10 % 7)})  # the same sort value: it stays where it is
        assert ordered == [] and table._update_count == generation


async def test_one_line_a_row_gives_the_stock_places():
    app = Harness()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(KeyedTable)
        stock = app.query_one("#stock", DataTable)
        table.set_rows({f"p{i}": row(i, up=i % 7) for i in range(50)})
        stock.add_column(" ", key="_mark", width=1)
        for c in COLUMNS:
            stock.add_column(c.label, key=c.key, width=c.width)
        for k in table.shown_keys():
            stock.add_row(" ", *(c.text for c in table.records[k].cells), key=k)
        await pilot.pause()
        assert table._unit_rows

        assert len(table._y_offsets) == len(stock._y_offsets) == 50
        assert [(k.value, y) for k, y in table._y_offsets] == [(k.value, y) for k, y in stock._y_offsets]
        assert [r.key.value for r in table.ordered_rows[10:20]] == [r.key.value for r in stock.ordered_rows[10:20]]
        assert table.ordered_rows[-1].key.value == stock.ordered_rows[-1].key.value
        for i in (0, 1, 17, 49, 50, -1):
            assert table._get_row_region(i).y == stock._get_row_region(i).y, i
            assert table._get_row_region(i).height == stock._get_row_region(i).height, i
        for c in (Coordinate(0, 0), Coordinate(12, 2), Coordinate(49, 1)):
            assert table._get_cell_region(c) == stock._get_cell_region(c), c
        assert table._get_fixed_offset() == stock._get_fixed_offset()

        table.add_row("x", "tall", "1m", key="tall", height=2)  # another height: the stock paths again
        assert not table._unit_rows
        assert table._total_row_height == 52
        assert table._get_row_region(table.get_row_index("tall")).height == 2
