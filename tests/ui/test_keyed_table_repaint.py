"""A one-cell change repaints one row, unchanged titles and same-height status text no layout."""

from __future__ import annotations

from textual.app import App, ComposeResult

from sagan_tui.render import Cell, Column, Row
from sagan_tui.ui.widgets.keyed_table import KeyedTable
from sagan_tui.ui.widgets.status_bar import StatusBar

COLUMNS = (Column("name", "name", 10), Column("up", "up", 6))


def rows(up_sort: float = 0.0, up_text: str = "5m") -> dict[str, Row]:
    return {f"p{i}": Row((Cell(f"pod-{i}"), Cell(up_text if i == 3 else "5m", sort=up_sort + i)), order=i)
            for i in range(20)}


class Harness(App):
    def compose(self) -> ComposeResult:
        yield KeyedTable(COLUMNS, title="Pods", id="t")
        yield StatusBar(id="s")


async def drawn_table(app: Harness, pilot) -> KeyedTable:
    """The harness's table with `rows()` drawn, and nothing left to repaint."""
    table = app.query_one(KeyedTable)
    table.set_rows(rows())
    await pilot.pause()
    table._dirty_regions.clear()
    return table


async def test_unchanged_text_is_not_repainted_and_a_changed_cell_repaints_its_row():
    app = Harness()
    async with app.run_test(size=(80, 24)) as pilot:
        table = await drawn_table(app, pilot)
        generation = table._update_count

        table.set_rows(rows(up_sort=1.0))  # "now" moved: every sort value differs, no text does
        assert table._update_count == generation
        assert not table._dirty_regions  # titles unchanged: not reassigned either
        assert table.get_cell("p3", "up").cell.sort == 4.0  # the table holds the new value

        table.set_rows(rows(up_sort=1.0, up_text="6m"))
        assert table._update_count == generation + 1
        row_y = table.get_row_index("p3") + 1  # below the header
        assert table._dirty_regions and all(r.height == 1 and r.y - table.region.y == row_y
                                            for r in table._dirty_regions), table._dirty_regions
        await pilot.pause()
        assert "6m" in "".join(s.text for s in table.render_line(row_y))


async def test_status_bar_asks_for_layout_only_when_its_height_changes():
    app = Harness()
    async with app.run_test(size=(80, 24)) as pilot:
        bar = app.query_one(StatusBar)
        bar.show([("polling…", "")])
        await pilot.pause()
        bar.show([("poll 5s", "")])
        assert not bar._layout_required
        assert bar.plain == "poll 5s"
        bar.show([("word " * 30, "")])  # wraps to two lines at 80 columns
        assert bar._layout_required
        await pilot.pause()
        assert bar.size.height == 2


async def test_one_changed_cell_repaints_that_cell_and_two_repaint_the_row():
    app = Harness()
    async with app.run_test(size=(80, 24)) as pilot:
        table = await drawn_table(app, pilot)
        table.set_rows(rows(up_text="6m"))  # an age crossing a minute: one cell
        (region,) = table._dirty_regions
        assert region.width == 6 + 2 * table.cell_padding, region
        await pilot.pause()
        table._dirty_regions.clear()

        both = rows(up_text="7m")
        both["p3"] = Row((Cell("renamed"), both["p3"].cells[1]), order=3)
        table.set_rows(both)  # a status and its note, say: the row, as one region
        (region,) = table._dirty_regions
        assert region.width >= table.size.width, region
        await pilot.pause()
        line = "".join(s.text for s in table.render_line(table.get_row_index("p3") + 1))
        assert "renamed" in line and "7m" in line


async def test_a_row_set_with_no_key_in_common_replaces_the_rows_without_a_layout_pass():
    """The timeline of the next experiment (once per arrow key): one clear, not a remove_row per
    row, each of which re-indexes the table and asks the whole screen for a layout pass."""
    app = Harness()
    async with app.run_test(size=(80, 24)) as pilot:
        table = await drawn_table(app, pilot)
        table._layout_required = False
        fresh = {f"q{i}": Row((Cell(f"event-{i}"), Cell("1m", sort=i)), order=i) for i in range(12)}
        table.set_rows(fresh)
        assert not table._layout_required
        assert table.shown_keys() == list(fresh)
        await pilot.pause()
        assert table.row_count == 12
        assert "event-0" in "".join(s.text for s in table.render_line(1))


async def test_many_rows_going_at_once_leave_the_rest_in_order_with_the_cursor_on_its_key():
    """A poll dropping the timeline's oldest rows: one re-indexing (remove_rows), the same result
    as the stock per-row removal."""
    app = Harness()
    async with app.run_test(size=(80, 24)) as pilot:
        table = await drawn_table(app, pilot)
        table.select_key("p12")
        kept = {k: r for k, r in rows().items() if k not in {"p1", "p4", "p5", "p6", "p17"}}
        table.set_rows(kept)
        assert table.shown_keys() == list(kept)
        assert [table.get_row_index(k) for k in kept] == list(range(len(kept)))
        assert table.cursor_key == "p12"
        await pilot.pause()
        assert table.row_count == len(kept)
        assert "pod-2" in "".join(s.text for s in table.render_line(2))



class Twin(App):
    def compose(self) -> ComposeResult:
        yield KeyedTable(COLUMNS, title="Pods", id="stock")
        yield KeyedTable(COLUMNS, title="Pods", id="fast")


async def test_rows_added_at_once_are_the_rows_add_row_makes_and_a_duplicate_changes_nothing():
    """add_rows_keyed (datatable_private.py) against DataTable's own add_row, row by row: the same
    rows, the same order, the same drawing, the first row highlighted."""
    from textual.widgets.data_table import DuplicateKey

    app = Twin()
    async with app.run_test(size=(80, 24)) as pilot:
        stock, fast = app.query_one("#stock", KeyedTable), app.query_one("#fast", KeyedTable)
        data = [(f"r{i}", ("", f"pod-{i}", f"{i}m")) for i in range(30)]
        for key, cells in data:
            stock.add_row(*cells, key=key)
        fast.add_rows_keyed(data)
        await pilot.pause()
        for table in (stock, fast):
            assert [r.key.value for r in table.ordered_rows] == [k for k, _ in data]
            assert table.get_row("r7") == ["", "pod-7", "7m"]
            assert table.cursor_coordinate == (0, 0)
        for y in range(1, 6):
            assert "".join(s.text for s in fast.render_line(y)) == "".join(s.text for s in stock.render_line(y))
        try:
            fast.add_rows_keyed([("new", ("", "x", "1m")), ("r3", ("", "again", "1m"))])
        except DuplicateKey:
            pass
        else:
            raise AssertionError("a duplicate key was taken")
        assert fast.row_count == 30 and "new" not in [r.key.value for r in fast.ordered_rows]
