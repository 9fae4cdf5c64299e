"""A table's border tells its filter, sort and marks; marks hidden by a filter are known; clear_marks unmarks."""

from __future__ import annotations

from textual.app import App, ComposeResult

from sagan_tui.wire.render import Cell, Column, Row
from sagan_tui.panel.widgets.keyed_table import KeyedTable

COLUMNS = (Column("name", "name", 10), Column("account", "account", 9))


def rows() -> dict[str, Row]:
    return {f"p{i}": Row((Cell(f"pod-{i}"), Cell("team" if i % 2 else "personal")), order=i) for i in range(6)}


class Harness(App):
    def compose(self) -> ComposeResult:
        yield KeyedTable(COLUMNS, title="Pods", id="t")


async def test_the_border_says_filter_sort_and_marks_and_hidden_marks_are_named():
    app = Harness()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(KeyedTable)
        table.set_rows(rows())
        table.focus()
        await pilot.pause()
        assert str(table.border_title) == "Pods · 6"
        await pilot.press("space", "j", "space", "j", "space")  # p0, p1, p2 (space only marks; j moves)
        table.set_filter("team")  # keeps p1, p3, p5
        await pilot.press("o", "O")
        title = str(table.border_title)
        assert title == "Pods · 3/6 · /team · sort name ↓ · 3 marked (2 hidden)", title
        assert table.marked_keys() == ["p0", "p1", "p2"]
        assert table.marked_keys(visible_only=True) == ["p1"]
        assert table.hidden_marked_keys() == ["p0", "p2"] and table.hidden_by() == "the filter /team"
        assert not table.border_subtitle  # never drawn by the panes' top-only border: nothing goes there


async def test_clear_marks_unmarks_the_keys_given_or_all_and_says_so():
    app = Harness()
    changed: list[str] = []

    async with app.run_test(size=(80, 24), message_hook=lambda m: changed.append(type(m).__name__)) as pilot:
        table = app.query_one(KeyedTable)
        table.set_rows(rows())
        table.focus()
        await pilot.pause()
        await pilot.press("space", "j", "space", "j", "space")
        changed.clear()
        table.clear_marks(["p1", "nope"])  # after a bulk action that went through for p1 only
        await pilot.pause()
        assert table.marked_keys() == ["p0", "p2"] and "MarksChanged" in changed
        assert table.get_cell("p1", "_mark").plain == " " and table.get_cell("p0", "_mark").plain == "●"
        table.clear_marks()
        assert table.marked_keys() == [] and "marked" not in str(table.border_title)
