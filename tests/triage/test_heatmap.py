"""Heatmap grid: nice buckets within the width, rows by count with unknown last, cells list their losses."""

from __future__ import annotations

from datetime import timedelta

import pytest

from sagan_tui.core.triage import build_grid, find_waves, shade
from sagan_tui.core.triage.heatmap import bucket_seconds

from .conftest import R4, R5, at, loss

LOSSES = R4 + R5


@pytest.mark.parametrize("span_s,width,step", [
    (600, 60, 10), (600, 40, 15), (1800, 40, 60), (1800, 30, 60), (3600, 20, 300), (86400, 50, 1800),
    (7 * 86400, 100, 7200), (365 * 86400, 120, 4 * 86400),
])
def test_bucket_is_the_smallest_nice_step_that_fits(span_s, width, step):
    lo = at("10:00:00").timestamp()
    got, first, cols = bucket_seconds(lo, lo + span_s, width)
    assert got == step and cols <= width and first <= lo and first % step == 0


def test_grid_by_account_marks_the_waves():
    waves = find_waves(LOSSES)
    g = build_grid(LOSSES, "account", at("10:30:00"), at("11:00:00"), 40, waves)
    assert g.bucket_s == 60 and len(g.bucket_starts) == 30
    assert g.rows == ("team", "personal")
    assert g.total == 8 and g.max_count == 3
    assert g.column_of(at("10:54:54")) == 24 and g.counts[0][24] == 3 and g.counts[1][24] == 2
    assert g.wave_columns == {11, 12, 13, 24}
    assert [x.pod_id for x in g.cell_losses("personal", 24)] == ["cv13x9s487tvwn", "j0xvy1q82ryo8m"]
    assert g.cell_losses(0, 24) == g.cell_losses("team", 24)
    assert g.cell_losses(0, 0) == [] and g.cell_losses(0, 99) == []
    assert g.column_of(at("09:00:00")) is None


def test_rows_most_losses_first_and_unknown_last():
    rows = [loss(f"pod{i:010d}", exp=e, lost="10:54:00") for i, e in enumerate([None, None, None, 7, 12, 12])]
    g = build_grid(rows, "experiment", at("10:50:00"), at("11:00:00"), 10)
    assert g.rows == ("#12", "#7", "?")
    g = build_grid([*rows, loss("nodcpod0000001", dc=None, lost="10:55:00")], "datacenter",
                   at("10:50:00"), at("11:00:00"), 10)
    assert g.rows == ("US-KS-2", "?")


def test_window_edges_are_inclusive_and_losses_outside_are_left_out():
    rows = [loss("edgestart00001", lost="10:50:00"), loss("edgeend0000001", lost="11:00:00"),
            loss("outside0000001", lost="11:00:01")]
    g = build_grid(rows, "account", at("10:50:00"), at("11:00:00"), 10)
    assert g.total == 2 and g.counts[0][0] == 1 and g.counts[0][-1] == 1


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError):
        build_grid(LOSSES, "colour", at("10:00:00"), at("11:00:00"), 10)
    with pytest.raises(ValueError):
        build_grid(LOSSES, "account", at("11:00:00"), at("10:00:00"), 10)
    with pytest.raises(ValueError):
        build_grid(LOSSES, "account", at("10:00:00"), at("11:00:00"), 0)


def test_empty_grid():
    g = build_grid([], "gpu", at("10:00:00"), at("10:00:00") + timedelta(minutes=5), 10)
    assert g.rows == () and g.total == 0 and g.max_count == 0 and len(g.bucket_starts) >= 1


def test_shade_levels():
    assert [shade(c, 8) for c in (0, 1, 2, 3, 4, 6, 8)] == [0, 1, 1, 2, 2, 3, 4]
    assert shade(1, 1) == 4 and shade(0, 0) == 0 and shade(3, 0) == 0


def test_a_followed_wave_marks_no_column_of_a_window_inside_its_quiet_minutes():
    redispatched = [loss("q8r1zt5mk0pv3e", running="10:45:00", lost="10:46:01"),
                    loss("b4y7wn2gx6cj9s", running="10:45:15", lost="10:46:16")]
    waves = find_waves(R4 + redispatched)
    assert len(waves) == 1 and waves[0].members is not None
    quiet = build_grid(R4 + redispatched, "account", at("10:45:00"), at("10:45:30"), 1, waves)
    assert quiet.total == 0 and quiet.wave_columns == frozenset()
    whole = build_grid(R4 + redispatched, "account", at("10:30:00"), at("10:50:00"), 1, waves)
    assert whole.wave_columns == frozenset({0})


def test_a_wave_at_either_edge_of_the_window_marks_the_edge_column():
    """R5 is one instant wide (10:54:54-10:54:55): a window that ends at its first loss marks its
    last column (the end is inside the window), one that starts inside it its first column."""
    waves = find_waves(R5)
    ends_on_it = build_grid(R5, "account", at("10:30:00"), at("10:54:54"), 30, waves)
    assert ends_on_it.wave_columns == {len(ends_on_it.bucket_starts) - 1} and ends_on_it.total == 4
    starts_in_it = build_grid(R5, "account", at("10:54:55"), at("11:30:00"), 30, waves)
    assert starts_in_it.wave_columns == {0} and starts_in_it.total == 1
    before = build_grid(R5, "account", at("10:00:00"), at("10:54:53"), 30, waves)
    after = build_grid(R5, "account", at("10:54:56"), at("11:30:00"), 30, waves)
    assert before.wave_columns == after.wave_columns == frozenset()


@pytest.mark.parametrize("experiments", [3, 12])  # few values are counted one by one, many by Counter
def test_every_row_counts_its_own_losses_in_each_column(experiments):
    losses = [loss(f"p{i:013d}", exp=None if i % 7 == 0 else 100 + i % experiments, running=None,
                   lost=f"10:{i // 6:02d}:{i % 6 * 10:02d}") for i in range(240)]
    g = build_grid(losses, "experiment", at("10:00:00"), at("10:39:50"), 40)
    assert len(g.rows) == experiments + 1 and g.rows[-1] == "?" and g.total == 240
    for r, label in enumerate(g.rows):
        for c in range(len(g.bucket_starts)):
            want = sum(1 for x in losses if g.column_of(x.lost_at) == c
                       and (f"#{x.experiment}" if x.experiment is not None else "?") == label)
            assert g.counts[r][c] == want, (label, c)
