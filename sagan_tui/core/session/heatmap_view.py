"""The loss heatmap's grid for the scope the UI asked for (rows by, window, width), built here and
sent as the channel's HeatGridView: the UI draws it and moves its cursor, it bins nothing.

Rule for the width: the grid fills the width the widget has for it. Its label column depends on
the row labels, and the labels on the grid, so the grid is built for a guess from the labels
of the grid before (the same dimension's), then once more when the labels need another
number of buckets; "all" fills the width with earlier (empty) time rather than leaving the
right half blank.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Sequence

from sagan_tui.wire.channel.views import HeatGridView
from sagan_tui.wire.heatmap_layout import buckets_for, layout
from sagan_tui.core.triage.heatmap import HeatGrid, build_grid

MIN_WINDOW = timedelta(minutes=30)


def bounds(losses: Sequence, now: datetime, window: timedelta | None) -> tuple[datetime, datetime]:
    """The window shown: the last `window` back from now, or (None) from the first loss, at least 30 min."""
    if window is not None:
        return now - window, now
    first = min((x.lost_at for x in losses), default=now)
    return min(first, now - MIN_WINDOW), now


def fitted_grid(losses: Sequence, waves: Sequence, dimension: str, window: timedelta | None, width: int,
                now: datetime, labels: Sequence[str] = ()) -> HeatGrid:
    """The grid for `width` characters; `labels` are the rows of the grid shown before (a guess)."""
    start, end = bounds(losses, now, window)
    guess = layout(labels, width)
    grid = build_grid(losses, dimension, start, end, buckets_for(guess.columns), waves)
    want = buckets_for(layout(grid.rows, width).columns)
    if window is None and len(grid.bucket_starts) < want:
        # One column short, so aligning the first bucket cannot push the step up.
        start = min(start, end - timedelta(seconds=grid.bucket_s * (want - 1)))
        grid = build_grid(losses, dimension, start, end, want, waves)
    elif want != buckets_for(guess.columns):  # the labels needed another width
        grid = build_grid(losses, dimension, start, end, want, waves)
    return grid


def active_columns(grid: HeatGrid, active) -> frozenset[int]:
    """The columns of the active wave (None: no wave is active)."""
    if active is None:
        return frozenset()
    a = grid.column_of(max(active.start, grid.start))
    b = grid.column_of(min(active.end, grid.end))
    return frozenset() if a is None or b is None else frozenset(range(a, b + 1))


def hottest(grid: HeatGrid) -> tuple[int, int] | None:
    """Where the cursor sits until the owner moves it: the hottest, latest cell (Enter lists the wave)."""
    if not grid.rows:
        return None
    best = max(((n, c, -r) for r, row in enumerate(grid.counts) for c, n in enumerate(row)), default=None)
    return (-best[2], best[1]) if best else (0, 0)


def grid_view(losses: Sequence, waves: Sequence, active, scope: tuple[str, float | None, int], now: datetime,
              labels: Sequence[str] = ()) -> HeatGridView | None:
    """The view of the grid for `scope` (dimension, window seconds or None, width); None for no width."""
    dimension, window_s, width = scope
    if width <= 0:
        return None
    window = None if window_s is None else timedelta(seconds=window_s)
    grid = fitted_grid(losses, waves, dimension, window, width, now, labels)
    cells = tuple((r, c, tuple(x.pod_id for x in grid.cell_losses(r, c)))
                  for r, row in enumerate(grid.counts) for c, n in enumerate(row) if n)
    return HeatGridView(dimension, window_s, width, grid.rows, grid.bucket_starts, grid.bucket_s, grid.counts,
                        grid.max_count, grid.wave_columns, grid.start, grid.end, tuple(grid._edges()), cells,
                        active_columns(grid, active), hottest(grid))
