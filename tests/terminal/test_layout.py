"""Pane sizes follow their content: the top row shrinks to the tables' rows, in steps, and keeps half otherwise."""

from __future__ import annotations

import pytest


from sagan_tui.panel.layout import body_rows

from ..ui import frozen


@pytest.mark.parametrize("exps,pods,body,narrow,rows", [
    (11, 7, 46, False, "16 1fr"),  # 14 lines wanted: the next step of 4
    (2, 0, 46, False, "8 1fr"),  # never under 8
    (19, 3, 46, False, None),  # 22 lines: no less than half, the stylesheet's halves stay
    (400, 400, 46, False, None),
    (11, 3, 37, True, "3fr 8 2fr 2fr"),  # narrow: the experiments need their share, the pods give theirs
    (11, 7, 37, True, None),  # 12 lines for 7 pods: more than three tenths of 37
    (4, 3, 37, True, "8 8 2fr 2fr"),
    (30, 30, 37, True, None),
])
def test_the_tables_take_the_steps_their_rows_need_and_never_more_than_their_share(exps, pods, body, narrow, rows):
    assert body_rows(exps, pods, body, narrow) == rows


async def test_a_few_experiments_give_their_rows_to_the_timeline_and_the_loss_area(tmp_path):
    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        assert app.experiments_table.outer_size.height == 16  # 11 experiments, 7 pods: 14 lines, the step 16
        assert app.timeline.outer_size.height > 16
        assert app.timeline.size.width > app.experiments_table.size.width  # six tenths of the width below
        await pilot.press("I")  # the incident layout keeps its own rows
        await pilot.pause()
        # private on purpose: layout.py's fitting state is the rule (the incident layout fits nothing)
        assert getattr(app.query_one("#body"), "_fitted_rows") is None


async def test_under_no_color_the_cursor_row_and_the_focused_pane_are_marked_without_colour(tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.no_color
        table = app.experiments_table
        assert table.has_focus
        assert table.get_component_rich_style("keyed-table--cursor").reverse
        assert table.styles.border_title_style.reverse


def test_on_the_linux_console_a_sources_health_is_a_word_not_a_missing_glyph():
    import subprocess
    import sys

    code = ("from datetime import datetime, timezone; from sagan_tui.wire.basics import SourceHealth, HealthState, ErrorKind;"
            "from sagan_tui.wire.render import source_segments; now = datetime.now(timezone.utc);"
            "ok = SourceHealth('team', state=HealthState.OK, last_success=now);"
            "bad = SourceHealth('personal', state=HealthState.ERROR, error_kind=ErrorKind.AUTH);"
            "print(''.join(t for t, _ in source_segments(ok, now, 5))); print(''.join(t for t, _ in source_segments(bad, now, 5)))")
    out = subprocess.run([sys.executable, "-c", code], env={"TERM": "linux"}, capture_output=True, text=True, check=True)
    ok_line, bad_line = out.stdout.splitlines()
    assert ok_line.startswith("team ok") and bad_line.startswith("personal x401")
    assert "✓" not in out.stdout and "✗" not in out.stdout


def test_the_timelines_text_columns_take_the_free_width_and_never_less_than_their_defaults():
    from sagan_tui.panel.widgets.panes import text_widths

    assert text_widths(119) == {"what": 24, "note": 60}  # half a 200-column screen: the defaults
    assert text_widths(198) == {"what": 40, "note": 109}  # zoomed: the notes read whole
    assert text_widths(60) == {"what": 24, "note": 60}  # narrow: the pane scrolls sideways


async def test_a_zoomed_timeline_shows_its_notes_whole(tmp_path):
    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=(200, 50)) as pilot:
        app.timeline.focus()
        await pilot.press("z")
        await pilot.pause()
        assert app.timeline.column_width("note") > 60


async def test_zoom_keeps_the_status_line_and_the_key_bar(tmp_path):
    from sagan_tui.panel.widgets.key_bar import KeyBar
    from sagan_tui.panel.widgets.status_bar import StatusBar

    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.pods_table.focus()
        await pilot.press("z")
        await pilot.pause()
        screen = app.main_screen
        assert screen.query_one(StatusBar).region.height >= 1 and screen.query_one(KeyBar).region.height == 1
        assert app.pods_table.region.height > 15 and app.experiments_table.region.height == 0
        await pilot.press("z")
        await pilot.pause()
        assert app.experiments_table.region.height > 0


def test_the_experiments_title_takes_the_free_width_and_status_and_turn_give_way_first():
    from sagan_tui.panel.widgets.panes import TITLE_LEAST, experiment_widths

    narrow = experiment_widths(78)  # 80 columns less the scrollbar and the frame
    assert narrow["title"] >= 20 and narrow["status"] + narrow["turn"] <= 28
    half = experiment_widths(98)  # half a 200-column screen: never wider than the pane
    assert half["title"] >= TITLE_LEAST and 1 + 14 + 6 + 4 + 5 + sum(half.values()) <= 98
    assert experiment_widths(300)["title"] == 60  # the default, at most


async def test_at_80_columns_the_timeline_keeps_what_and_note_and_the_losses_their_own_row(tmp_path):
    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        timeline, area = app.timeline, app.main_screen.loss_area
        assert timeline.region.width >= 78 and area.region.width >= 78  # each the whole width
        shown = timeline.scrollable_content_region.width
        left = sum(timeline.widths[:-2]) + 2 * timeline.cell_padding * (len(timeline.widths) - 1)
        assert left + 12 < shown  # `what` starts well inside the pane, not past its edge
        assert timeline.region.height >= 4 and area.region.height >= 4


async def test_the_zoomed_losses_pane_reads_to_the_end_of_its_evidence_at_80_columns(tmp_path):
    from textual.containers import VerticalScroll

    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.query_one("#heatmap").focus()
        await pilot.press("z")
        await pilot.pause()
        box = app.query_one("#wave-box", VerticalScroll)
        waves = app.query_one("#waves")
        assert box.max_scroll_y > box.size.height  # the evidence runs past one screen
        await pilot.press("pagedown")
        await pilot.pause()
        assert box.scroll_y >= box.size.height - 1  # a page, not a line
        await pilot.press("end")
        await pilot.pause()
        assert box.scroll_y == box.max_scroll_y > 0
        # the panel is as tall as its text at this width: no empty rows under a cut sentence
        lines = app.console.render_lines(waves.render(), app.console.options.update_width(waves.content_size.width),
                                         pad=False)
        assert waves.size.height == len(lines)
        await pilot.press("home")
        await pilot.pause()
        assert box.scroll_y == 0


async def test_the_detail_and_accounts_screens_keep_the_status_line_with_the_wave(tmp_path):
    from sagan_tui.panel.widgets.status_bar import StatusBar

    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        main = app.main_screen.query_one(StatusBar).plain
        assert "WAVE" in main and "guard" in main
        app.experiments_table.select_key("365")
        await pilot.press("enter")
        await pilot.pause()
        bar = app.screen.query_one(StatusBar)
        assert app.screen is not app.main_screen and bar.region.height >= 1
        assert bar.plain == main  # filled when it opened, not at the next tick
        await pilot.press("escape", "B")
        await pilot.pause()
        assert "WAVE" in app.screen.query_one(StatusBar).plain


@pytest.mark.parametrize("key,shown", [("I", "incident"), ("z", "zoom"), ("slash", "filter")])
async def test_a_layout_asked_for_before_its_rules_are_read_has_them(tmp_path, monkeypatch, key, shown):
    """layouts.tcss is read after the first frame; a key that comes first reads it itself."""
    from sagan_tui.panel import panel_start
    from sagan_tui.panel.resources import stylesheet

    monkeypatch.setattr(panel_start, "read_layouts", lambda sheet: None)  # the read after the first frame never comes
    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        assert not app.stylesheet.has_source(str(stylesheet("layouts.tcss")))
        await pilot.press(key)
        await pilot.pause()
        if shown == "incident":
            assert app.experiments_table.display is False and app.loss_area.display  # Screen.-incident's rules
        elif shown == "zoom":
            assert app.timeline.display is False and app.experiments_table.display  # Screen.-zoom's rules
        else:
            bar = app.screen.query_one("#filter-bar")
            assert bar.styles.dock == "bottom"  # #filter-bar's rule
