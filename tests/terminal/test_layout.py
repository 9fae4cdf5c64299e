"""Pane sizes follow their content: the top row shrinks to the tables' rows, in steps, and keeps half otherwise."""

from __future__ import annotations

import pytest

from sagan_tui.ui.layout import TOP_STEPS, top_row_step

from ..ui import frozen


@pytest.mark.parametrize("rows,body,step", [
    (0, 46, 8), (5, 46, 8), (6, 46, 12), (14, 46, 20), (19, 46, None), (400, 46, None), (5, 14, None),
])
def test_the_top_row_takes_the_step_its_rows_need_and_never_more_than_half(rows, body, step):
    assert top_row_step(rows, body) == step


def test_each_step_has_its_rule_in_the_stylesheet():
    from sagan_tui.resources import stylesheet

    css = stylesheet("app.tcss").read_text()
    for s in TOP_STEPS:
        assert f"Screen.-top-{s} #body {{ grid-rows: {s} 1fr; }}" in css


async def test_a_few_experiments_give_their_rows_to_the_timeline_and_the_loss_area(tmp_path):
    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        screen = app.main_screen
        assert screen.has_class("-top-16")  # 11 experiments, 7 pods: 14 lines, the next step 16
        assert app.experiments_table.outer_size.height == 16 and app.timeline.outer_size.height > 16
        assert app.timeline.size.width > app.experiments_table.size.width  # six tenths of the width below


async def test_under_no_color_the_cursor_row_and_the_focused_pane_are_marked_without_colour(tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.no_color
        table = app.experiments_table
        assert table.has_focus
        assert table.get_component_rich_style("datatable--cursor").reverse
        assert table.styles.border_title_style.reverse


def test_on_the_linux_console_a_sources_health_is_a_word_not_a_missing_glyph():
    import subprocess
    import sys

    code = ("from datetime import datetime, timezone; from sagan_tui.basics import SourceHealth, HealthState, ErrorKind;"
            "from sagan_tui.ui.render import source_segments; now = datetime.now(timezone.utc);"
            "ok = SourceHealth('team', state=HealthState.OK, last_success=now);"
            "bad = SourceHealth('personal', state=HealthState.ERROR, error_kind=ErrorKind.AUTH);"
            "print(''.join(t for t, _ in source_segments(ok, now, 5))); print(''.join(t for t, _ in source_segments(bad, now, 5)))")
    out = subprocess.run([sys.executable, "-c", code], env={"TERM": "linux"}, capture_output=True, text=True, check=True)
    ok_line, bad_line = out.stdout.splitlines()
    assert ok_line.startswith("team ok") and bad_line.startswith("personal x401")
    assert "✓" not in out.stdout and "✗" not in out.stdout
