"""A changed row off screen is stored without a repaint, and shows its new text once scrolled to."""

from __future__ import annotations

from textual.app import App, ComposeResult

from sagan_tui.render import Cell, Column, Row
from sagan_tui.ui.widgets.keyed_table import KeyedTable

COLUMNS = (Column("name", "name", 10), Column("up", "up", 6))
FAR = "p150"  # well below a 24-line screen


def rows(far_text: str = "5m") -> dict[str, Row]:
    return {f"p{i}": Row((Cell(f"pod-{i}"), Cell(far_text if f"p{i}" == FAR else "5m")), order=i)
            for i in range(200)}


class Harness(App):
    def compose(self) -> ComposeResult:
        yield KeyedTable(COLUMNS, title="Pods", id="t")


async def test_a_row_changed_off_screen_is_not_repainted_and_reads_new_once_scrolled_to():
    app = Harness()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(KeyedTable)
        table.set_rows(rows())
        await pilot.pause()
        table._dirty_regions.clear()
        # DataTable finds a row's region by summing the height of every row above it: at 10,000
        # pods, a poll's changed rows off screen cost most of the UI thread for nothing visible.
        asked = []
        for name in ("refresh_coordinate", "refresh_row"):
            real = getattr(table, name)
            setattr(table, name, lambda *a, real=real, name=name: (asked.append(name), real(*a))[1])

        table.set_rows(rows(far_text="6m"))
        assert asked == [] and not table._dirty_regions
        assert table.get_cell(FAR, "up").cell.text == "6m"

        table.select_key(FAR)  # the cursor brings it on screen
        await pilot.pause()
        y = table.get_row_index(FAR) + 1 - table.scroll_offset.y  # below the header
        assert 0 < y < table.size.height
        assert "6m" in "".join(s.text for s in table.render_line(y))

        table._dirty_regions.clear()
        asked.clear()
        table.set_rows(rows(far_text="7m"))  # on screen now: repainted at once
        assert asked == ["refresh_coordinate"] and table._dirty_regions
        await pilot.pause()
        assert "7m" in "".join(s.text for s in table.render_line(y))
