"""The table widget through what it draws: a changed row repaints its own line, the cursor keeps its key, text is drawn literally."""

from __future__ import annotations

from textual.app import App, ComposeResult

from sagan_tui.wire.render import Cell, Column, Row
from sagan_tui.panel.widgets.keyed_table import KeyedTable
from sagan_tui.panel.widgets.row_strip import line_strip

COLUMNS = (Column("name", "name", 10), Column("up", "up", 6))
SIZE = (80, 24)


def rows(n: int = 20, **texts: str) -> dict[str, Row]:
    """`n` pods in order; `texts` gives some of them another `up` text (by key)."""
    return {f"p{i}": Row((Cell(f"pod-{i}"), Cell(texts.get(f"p{i}", "5m"), sort=i)), order=i) for i in range(n)}


class Harness(App):
    def __init__(self, zebra: bool = False) -> None:
        super().__init__()
        self.zebra = zebra

    def compose(self) -> ComposeResult:
        yield KeyedTable(COLUMNS, title="Pods", id="t", zebra_stripes=self.zebra)


def line(table: KeyedTable, y: int) -> str:
    return "".join(s.text for s in table.render_line(y))


def count_lines(table: KeyedTable) -> list[int]:
    """The lines the screen asks the table to draw from now on."""
    drawn: list[int] = []
    real = table.render_line

    def spy(y: int):
        drawn.append(y)
        return real(y)

    table.render_line = spy  # type: ignore[method-assign]
    return drawn


def collect(kind: type, into: list):
    """A message hook keeping each `kind` message once (the hook sees it at every node it
    bubbles through)."""

    def hook(message) -> None:
        if isinstance(message, kind) and not any(m is message for m in into):
            into.append(message)

    return hook


async def drawn_table(app: Harness, pilot, n: int = 20) -> KeyedTable:
    table = app.query_one(KeyedTable)
    table.set_rows(rows(n))
    table.focus()
    await pilot.pause()
    return table


async def test_a_changed_row_on_screen_repaints_its_own_line_and_nothing_else():
    app = Harness()
    async with app.run_test(size=SIZE) as pilot:
        table = await drawn_table(app, pilot)
        drawn = count_lines(table)
        table.set_rows(rows(p3="6m"))  # an age crossing a minute: one cell of one row
        await pilot.pause()
        y = table.get_row_index("p3") + table.header_height
        assert drawn == [y], drawn
        assert "6m" in line(table, y)

        drawn.clear()
        both = rows(p3="7m")
        both["p3"] = Row((Cell("renamed"), both["p3"].cells[1]), order=3)
        table.set_rows(both)  # two cells of the row
        await pilot.pause()
        assert drawn == [y], drawn
        assert "renamed" in line(table, y) and "7m" in line(table, y)

        drawn.clear()
        table.set_rows(both)  # nothing changed: nothing drawn
        await pilot.pause()
        assert drawn == []


async def test_a_row_changed_off_screen_draws_nothing_and_reads_new_once_scrolled_to():
    app = Harness()
    async with app.run_test(size=SIZE) as pilot:
        table = await drawn_table(app, pilot, n=200)
        drawn = count_lines(table)
        table.set_rows(rows(200, p150="6m"))
        await pilot.pause()
        assert drawn == [] and table.get_cell("p150", "up").cell.text == "6m"

        table.select_key("p150")  # the cursor brings it on screen
        await pilot.pause()
        y = table.get_row_index("p150") + table.header_height - table.scroll_offset.y
        assert table.header_height <= y < table.size.height
        assert "6m" in line(table, y)


async def test_a_chosen_cursor_follows_its_key_across_updates_and_stays_in_place_when_its_row_goes():
    app = Harness()
    highlighted: list = []
    async with app.run_test(size=SIZE, message_hook=collect(KeyedTable.RowHighlighted, highlighted)) as pilot:
        table = await drawn_table(app, pilot, n=40)
        # Not put anywhere yet: rows arriving above it (another account's pods) leave it on the
        # top row, the top of the pane in view.
        first = {f"a{i}": Row((Cell(f"early-{i}"), Cell("1m")), order=-100 + i) for i in range(30)}
        table.update_rows(first)
        assert (table.cursor_row, table.cursor_key, table.scroll_offset.y) == (0, "a0", 0)
        table.set_rows(rows())

        table.select_key("p12")
        moved = rows()
        moved["p12"] = Row(moved["p12"].cells, order=-1)  # now sorts first
        table.set_rows(moved)
        assert (table.cursor_key, table.cursor_row) == ("p12", 0)

        table.update_rows({}, removed=["p12"])  # the row under the cursor goes: the cursor keeps its place
        assert (table.cursor_key, table.cursor_row) == ("p0", 0)
        await pilot.pause()
        assert [m.key for m in highlighted][-2:] == ["p12", "p0"]

        table.set_rows({})
        assert table.cursor_key is None and table.row_count == 0
        assert "pod" not in line(table, 1)


async def test_the_cursor_keys_move_the_cursor_and_enter_opens_its_row():
    app = Harness()
    selected: list = []
    async with app.run_test(size=SIZE, message_hook=collect(KeyedTable.RowSelected, selected)) as pilot:
        table = await drawn_table(app, pilot, n=100)
        await pilot.press("down", "down")
        assert table.cursor_key == "p2"
        await pilot.press("pagedown")
        page = table.scrollable_content_region.height - table.header_height
        assert table.cursor_row == 2 + page
        await pilot.press("ctrl+end")
        assert table.cursor_key == "p99"
        await pilot.pause()
        last = table.get_row_index("p99") + table.header_height - table.scroll_offset.y
        assert last == table.size.height - 1 and "pod-99" in line(table, last)  # scrolled into view
        assert "name" in line(table, 0)  # the header stays on top
        await pilot.press("ctrl+home", "up", "enter")
        assert table.cursor_key == "p0" and table.scroll_offset.y == 0
        await pilot.pause()
        assert [m.key for m in selected] == ["p0"]


async def test_end_and_home_go_to_the_last_and_first_row_not_sideways():
    app = Harness()
    async with app.run_test(size=SIZE) as pilot:
        table = await drawn_table(app, pilot, n=100)
        await pilot.press("end")
        assert table.cursor_key == "p99" and table.scroll_offset.x == 0
        await pilot.press("home")
        assert table.cursor_key == "p0" and table.scroll_offset.y == 0


async def test_the_cursor_row_and_zebra_stripes_are_drawn_in_their_own_styles():
    app = Harness(zebra=True)
    async with app.run_test(size=SIZE) as pilot:
        table = await drawn_table(app, pilot)

        def background(y: int):
            return list(table.render_line(y))[-1].style.bgcolor

        cursor, even, odd = background(1), background(3), background(4)
        assert len({cursor, even, odd}) == 3, (cursor, even, odd)
        await pilot.press("down")
        await pilot.pause()
        assert background(2) == cursor and background(1) != cursor


async def test_cell_text_is_drawn_literally_cut_to_its_column_in_its_style():
    app = Harness()
    async with app.run_test(size=SIZE) as pilot:
        table = await drawn_table(app, pilot)
        hostile = {"x": Row((Cell("[b]pod[/b] \x1b[31mred"), Cell("a very long age", "bold red")), order=-1)}
        table.update_rows(hostile)
        table.move_cursor(row=5)
        await pilot.pause()
        strip = table.render_line(1)
        text = "".join(s.text for s in strip)
        assert "[b]pod[/b" in text and "\x1b" not in text  # markup shown, the escape cleaned away
        assert "a ver…" in text  # six columns: five characters and the ellipsis
        [age] = [s for s in strip if s.text == "a ver…"]
        assert age.style.bold and age.style.color.name == "red"
        drawn = line_strip(table.line_cells("x"), table.widths, table.cell_padding, table.rich_style)
        styles = [s.style for s in drawn]
        assert all(a != b for a, b in zip(styles, styles[1:]))  # a run of one style is one segment


async def test_a_new_theme_redraws_every_line_in_its_colours():
    """The table reads its line styles once per style state: a theme change is a new state, and
    the rows, the header and the blank lines under the last row all take the new colours."""
    app = Harness(zebra=True)
    async with app.run_test(size=SIZE) as pilot:
        table = await drawn_table(app, pilot, n=5)

        def backgrounds() -> list:
            return [list(table.render_line(y))[-1].style.bgcolor for y in (0, 1, 2, 3, 10)]

        before = backgrounds()
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await pilot.pause()
        after = backgrounds()
        assert all(a != b for a, b in zip(before, after)), (before, after)
        assert after[-1] == table.rich_style.bgcolor  # a blank line under the rows: the table's own


async def test_marks_are_drawn_and_survive_sort_and_filter():
    app = Harness()
    async with app.run_test(size=SIZE) as pilot:
        table = await drawn_table(app, pilot)
        await pilot.press("space", "j", "space")  # p0, p1
        await pilot.press("o", "o", "O")  # by up, descending
        table.set_filter("pod-1")
        table.set_filter("")
        assert table.marked_keys() == ["p0", "p1"]
        await pilot.pause()
        y = table.get_row_index("p1") + table.header_height
        assert line(table, y).startswith(" ●") and table.get_cell("p5", "_mark").plain == " "


async def test_ten_thousand_rows_draw_one_screen_and_a_one_row_update_one_line():
    app = Harness()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(KeyedTable)
        drawn = count_lines(table)
        table.set_rows(rows(10_000))
        await pilot.pause()
        assert table.row_count == 10_000 and set(drawn) <= set(range(table.size.height))
        drawn.clear()
        table.update_rows({"p1": rows(2, p1="9m")["p1"]})
        await pilot.pause()
        assert drawn == [table.get_row_index("p1") + 1]
        assert table.shown_keys() == [f"p{i}" for i in range(10_000)]


async def test_text_columns_take_the_width_they_are_given():
    app = Harness()
    async with app.run_test(size=SIZE) as pilot:
        table = await drawn_table(app, pilot)
        table.update_rows({"p0": Row((Cell("a-long-pod-name-here"), Cell("5m")), order=0)})
        await pilot.pause()
        assert "a-long-po…" in line(table, 1)
        table.set_column_widths({"name": 20})
        await pilot.pause()
        assert "a-long-pod-name-here" in line(table, 1) and table.virtual_size.width == 1 + 20 + 6 + 6
