"""The heatmap renderer on hand-made grids: glyphs, legend, wave marks, time labels, literal text."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from sagan_tui.core.models import Loss
from sagan_tui.core.triage.heatmap import HeatGrid, build_grid
from sagan_tui.panel import heatmap_render as R

T0 = datetime(2026, 5, 14, 10, 50, tzinfo=timezone.utc)


def grid(counts, rows=None, wave_columns=(), bucket_s=60.0, start=T0, losses=()) -> HeatGrid:
    rows = rows or [f"row{i}" for i in range(len(counts))]
    ncols = len(counts[0]) if counts else 10
    starts = tuple(start + timedelta(seconds=bucket_s * i) for i in range(ncols))
    return HeatGrid("account", tuple(rows), starts, bucket_s, tuple(map(tuple, counts)),
                    max((max(r) for r in counts), default=0), frozenset(wave_columns),
                    start, start + timedelta(seconds=bucket_s * ncols), tuple(losses))


def cells(line, lay: R.Layout) -> str:
    """The cell part of a rendered row (after the label and separator)."""
    return line.plain[lay.label_w + 1:]


def test_each_shade_has_its_own_glyph_left_to_right():
    g = grid([[0, 1, 2, 3, 4, 0, 0, 0, 0, 0]], rows=["team"])
    lines = R.render_heatmap(g, 8 + 1 + 10)
    lay = R.layout(g.rows, 19, 10)
    assert lay.cell_w == 1
    assert lines[0].plain.startswith("team")
    assert cells(lines[0], lay) == "·░▒▓█·····"


def test_shade_glyphs_are_also_coloured_so_the_hot_cell_is_red():
    g = grid([[1, 4]], rows=["team"])
    row = R.render_heatmap(g, 20)[0]
    styles = {row.plain[s.start]: str(s.style) for s in row.spans}
    assert "196" in styles["█"]  # bright red for the busiest cell
    assert "196" not in styles["░"]


def test_wide_room_gives_two_character_cells():
    g = grid([[0, 4, 0]], rows=["team"])
    lay = R.layout(g.rows, 4 + 1 + 6, 3)
    assert lay.cell_w == 2
    assert cells(R.render_heatmap(g, 11)[0], lay) == "· ██· "


def test_legend_lists_the_count_range_of_each_shade_in_use():
    g = grid([[1, 2, 3, 4, 5, 6, 7, 8]], rows=["team"])
    legend = R.render_heatmap(g, 80)[-1].plain
    assert legend.startswith("losses/cell ")
    # shade = ceil(4 * n / 8): 1-2 -> 1, 3-4 -> 2, 5-6 -> 3, 7-8 -> 4
    assert "░ 1-2" in legend and "▒ 3-4" in legend and "▓ 5-6" in legend and "█ 7-8" in legend
    assert "▲ wave" in legend and "1 col = 60 s" in legend


def test_legend_for_a_single_loss_shows_only_the_top_shade():
    assert R.shade_ranges(1) == [(4, 1, 1)]
    assert R.shade_ranges(0) == []


def test_shade_ranges_scale_to_a_million_losses_per_cell():
    ranges = R.shade_ranges(1_000_000)
    assert [lvl for lvl, _, _ in ranges] == [1, 2, 3, 4]
    assert ranges[0][1] == 1 and ranges[-1][2] == 1_000_000
    # contiguous: every count belongs to exactly one shade
    assert all(a[2] + 1 == b[1] for a, b in zip(ranges, ranges[1:]))


def test_legend_shortens_when_narrow():
    g = grid([[1, 2, 3, 4]], rows=["team"])
    legend = R.render_legend(g, 30).plain
    assert not legend.startswith("losses/cell") and "▲wave" in legend and len(legend) <= 30


def test_wave_marks_sit_under_the_wave_columns():
    g = grid([[0] * 12], rows=["team"], wave_columns={3, 4, 5, 9})
    lines = R.render_heatmap(g, 4 + 1 + 12)
    marks = lines[1]
    assert marks.plain.startswith("wave│")
    body = marks.plain[5:]
    assert body == "   ━▲━   ▲  "
    assert {i for i, ch in enumerate(body) if ch != " "} == {3, 4, 5, 9}


def test_active_wave_is_louder_than_an_old_one():
    g = grid([[1] * 12], rows=["team"], wave_columns={2, 9})
    marks = R.render_wave_marks(g, R.layout(g.rows, 17, 12), active_columns=frozenset({9}))
    style_at = {s.start: str(s.style) for s in marks.spans}
    assert style_at[5 + 9] == R.WAVE_MARK and style_at[5 + 2] == R.OLD_WAVE_MARK
    row = R.render_rows(g, R.layout(g.rows, 17, 12), None, frozenset({9}))[0]
    banded = [s for s in row.spans if R.ACTIVE_BG in str(s.style)]
    assert [(s.start, s.end) for s in banded] == [(5 + 9, 5 + 10)]


def test_time_axis_labels_both_ends_and_round_ticks():
    g = grid([[0] * 60], rows=["team"])  # 10:50 to 11:50, one minute per column
    lay = R.layout(g.rows, 4 + 1 + 60, 60)
    axis = R.render_axis(g, lay).plain
    body = axis[lay.label_w + 1:]
    assert axis.startswith("UTC")
    assert body.startswith("10:50") and body.endswith("11:50")
    assert body.index("11:00") == 10 and body.index("11:30") == 40  # each tick at its column
    ticks = body.split()
    assert ticks == sorted(ticks) and len(ticks) >= 4


def test_time_axis_names_the_wave_start_in_red():
    g = grid([[0] * 60], rows=["team"], wave_columns={33})
    lay = R.layout(g.rows, 65, 60)
    axis = R.render_axis(g, lay, frozenset({33}))
    body = axis.plain[lay.label_w + 1:]
    assert body[31:36] == "11:23"
    red = [axis.plain[s.start:s.end] for s in axis.spans if s.style == R.WAVE_MARK]
    assert "".join(red) == "11:23"


def test_time_axis_over_days_carries_the_date():
    g = grid([[0] * 30], rows=["team"], bucket_s=6 * 3600.0, start=datetime(2026, 5, 10, tzinfo=timezone.utc))
    axis = R.render_axis(g, R.layout(g.rows, 4 + 1 + 60, 30)).plain
    assert "05-10 00:00" in axis and "05-17 12:00" in axis


def test_cursor_shows_the_count_on_a_busy_cell_and_a_block_on_an_empty_one():
    g = grid([[0, 3, 12]], rows=["team"])
    lay = R.layout(g.rows, 8, 3)
    assert cells(R.render_heatmap(g, 8, cursor=(0, 1))[0], lay) == "·3█"
    assert cells(R.render_heatmap(g, 8, cursor=(0, 2))[0], lay) == "·░+"  # 3 of 12: the lightest shade
    row = R.render_heatmap(g, 8, cursor=(0, 0))[0]
    assert any(s.style == R.CURSOR and s.start == lay.label_w + 1 for s in row.spans)


@pytest.mark.parametrize("width", [12, 20, 33, 47, 80, 121, 200])
def test_no_line_is_wider_than_asked(width):
    g = grid([[1, 0, 5, 2] * 40, [0, 0, 1, 0] * 40], rows=["a-very-long-data-center-name", "EU"],
             wave_columns={2, 3, 50})
    lay = R.layout(g.rows, width)
    g2 = grid([row[: lay.columns] for row in g.counts], rows=g.rows, wave_columns={2, 3})
    for line in R.render_heatmap(g2, width, cursor=(1, 0)):
        assert line.cell_len <= width


def test_long_labels_are_cut_with_an_ellipsis_and_keep_the_columns_aligned():
    g = grid([[1, 0], [0, 1]], rows=["NVIDIA A100-SXM4-80GB-extra", "H100"])
    lines = R.render_heatmap(g, 100)
    assert lines[0].plain.index("│") == lines[1].plain.index("│") == R.LABEL_MAX
    assert lines[0].plain.startswith("NVIDIA A100-SXM4-…")


def test_untrusted_labels_are_shown_literally():
    nasty = ["[@click=app.quit]x[/]", "[/]", "\x1b[31mred\x07"]
    g = grid([[1], [1], [1]], rows=nasty)
    lines = R.render_heatmap(g, 80)
    plain = [line.plain for line in lines]
    assert plain[0].startswith("[@click=app.quit]…│")  # cut at 18, never parsed
    assert plain[1].startswith("[/]")
    assert plain[2].startswith("red ")  # the whole escape and the bell dropped (sagan_tui.wire.safe_text)
    assert not any(s.style and "link" in str(s.style) for line in lines for s in line.spans)


def test_empty_grid_says_so_and_keeps_the_axis():
    g = grid([], rows=[])
    lines = R.render_heatmap(g, 60)
    assert "no losses" in lines[0].plain
    assert lines[-2].plain.startswith("UTC")


def test_cell_losses_list_pod_account_experiment_time_and_gap():
    lost = [Loss(pod_id="v0c7bx292xqvg4", account="team", experiment=192, lost_at=T0 + timedelta(seconds=55),
                 running_at=T0 - timedelta(seconds=6)),
            Loss(pod_id="[@click=app.quit]", account="[/]", lost_at=T0 + timedelta(seconds=58))]
    lines = [x.plain for x in R.render_cell_losses("team", T0, 60.0, lost)]
    assert lines[0] == "team  10:50:00-10:51:00 UTC  2 losses"
    assert lines[1].split() == ["v0c7bx292xqvg4", "team", "#192", "lost", "10:50:55", "gap", "61", "s"]
    assert lines[2].split() == ["[@click=app.quit]", "[/]", "#?", "lost", "10:50:58", "gap", "?"]


def test_cell_losses_are_capped():
    lost = [Loss(pod_id=f"pod{i:011d}", account="team", lost_at=T0) for i in range(20)]
    lines = R.render_cell_losses("team", T0, 60.0, lost, limit=5)
    assert len(lines) == 1 + 5 + 1 and lines[-1].plain.strip() == "... and 15 more"


def test_render_matches_a_grid_triage_built():
    losses = [Loss(pod_id=f"p{i:013d}", account="team", lost_at=T0 + timedelta(seconds=30 * i)) for i in range(4)]
    from sagan_tui.core.triage.waves import find_waves
    waves = find_waves(losses)
    g = build_grid(losses, "account", T0 - timedelta(minutes=10), T0 + timedelta(minutes=5), 15, waves)
    lines = R.render_heatmap(g, 4 + 1 + 15)
    body = lines[1].plain[5:]
    assert {i for i, ch in enumerate(body) if ch != " "} == set(g.wave_columns)
    assert set(cells(lines[0], R.layout(g.rows, 20, 15)).replace("·", "")) <= set("░▒▓█")


def test_cell_losses_take_two_lines_each_when_narrow():
    lost = [Loss(pod_id="v0c7bx292xqvg4", account="personal", experiment=333, lost_at=T0 + timedelta(seconds=54),
                 running_at=T0 - timedelta(seconds=5))]
    wide = [x.plain for x in R.render_cell_losses("#333", T0, 60.0, lost, width=80)]
    narrow = [x.plain for x in R.render_cell_losses("#333", T0, 60.0, lost, width=38)]
    assert len(wide) == 2 and len(narrow) == 3
    assert narrow[1].split() == ["v0c7bx292xqvg4", "personal", "#333"]
    assert narrow[2].split() == ["lost", "10:50:54", "gap", "59", "s"]
    assert all(len(x) <= 38 for x in narrow[1:])
