"""LossHeatmap: pod losses binned by time (columns) and one dimension (rows), with a cell cursor.

API for the app shell:
    heatmap = LossHeatmap(dimension="account", id="heatmap")   # name/id/classes as any Widget
    heatmap.set_losses(losses, waves, now, window=None, guard_minutes=15.0)
        losses: list[Loss]; waves: list[triage.waves.Wave]; now: aware datetime.
        window: a timedelta shown back from `now`; None keeps the current choice, which starts
        as "all" (first loss to now, at least 30 min). Unchanged inputs cost nothing.
    heatmap.dimension          reactive: "account" | "experiment" | "datacenter" | "gpu"
    heatmap.cycle_dimension()  account -> experiment -> datacenter -> gpu -> account
    heatmap.window             the current window (timedelta, or None for all)
    heatmap.grid               the HeatGrid last drawn (None before the first draw)
    heatmap.cursor             (row, column) of the highlighted cell, or None
Message:
    LossHeatmap.CellSelected(heatmap, row_label, bucket_start, losses)  on Enter; the cell's
    losses (tuple, by lost_at) are also listed under the grid.
Bindings (ids for a user keymap): heatmap.dimension `d`, heatmap.window `w`,
heatmap.left/right/up/down arrows, heatmap.select `enter`.

No I/O and no timers: the app calls set_losses after each poll. The grid is rebuilt only when
the losses, waves, now, window, dimension or width change; moving the cursor only repaints.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from sagan_tui.triage.heatmap import DIMENSIONS, HeatGrid, build_grid
from sagan_tui.triage.waves import active_wave
from sagan_tui.ui import heatmap_render as R

if TYPE_CHECKING:  # annotations only: pydantic is not imported before the panel's first frame
    from sagan_tui.models import Loss

MIN_WINDOW = timedelta(minutes=30)
WINDOWS: tuple[tuple[str, timedelta | None], ...] = (
    ("all", None), ("30m", timedelta(minutes=30)), ("2h", timedelta(hours=2)), ("12h", timedelta(hours=12)),
)


class LossHeatmap(Widget, can_focus=True):
    """The triage heatmap: a reaping wave is a hot column over several rows."""

    DEFAULT_CSS = """
    LossHeatmap { height: auto; padding: 0 1; }
    """

    BINDINGS = [
        Binding("d", "cycle_dimension", "Rows by", id="heatmap.dimension"),
        Binding("w", "cycle_window", "Window", id="heatmap.window"),
        Binding("left", "move(0, -1)", "Earlier", show=False, id="heatmap.left"),
        Binding("right", "move(0, 1)", "Later", show=False, id="heatmap.right"),
        Binding("up", "move(-1, 0)", "Row up", show=False, id="heatmap.up"),
        Binding("down", "move(1, 0)", "Row down", show=False, id="heatmap.down"),
        Binding("enter", "select_cell", "Cell losses", id="heatmap.select"),
    ]

    dimension: reactive[str] = reactive("account")

    class CellSelected(Message):
        """Enter on a cell: its row label, its bucket's start and its losses (by lost_at)."""

        def __init__(self, heatmap: "LossHeatmap", row_label: str, bucket_start: datetime,
                     losses: tuple[Loss, ...]) -> None:
            super().__init__()
            self.heatmap = heatmap
            self.row_label = row_label
            self.bucket_start = bucket_start
            self.losses = losses

        @property
        def control(self) -> "LossHeatmap":
            return self.heatmap

    def __init__(self, dimension: str = "account", *, name: str | None = None, id: str | None = None,
                 classes: str | None = None, disabled: bool = False) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self.set_reactive(LossHeatmap.dimension, self.validate_dimension(dimension))
        self.window: timedelta | None = None
        self.grid: HeatGrid | None = None
        self.cursor: tuple[int, int] | None = None
        self._inputs: tuple = ((), (), None, 15.0)
        self._grid_key: tuple | None = None
        self._anchor: tuple[str, datetime] | None = None  # the cell the owner moved to, kept across rebuilds
        self._active: frozenset[int] = frozenset()
        self._selected: tuple[str, datetime, float, tuple[Loss, ...]] | None = None

    # --- the app's side -----------------------------------------------------------------

    def set_losses(self, losses: list[Loss], waves: list, now: datetime, window: timedelta | None = None,
                   guard_minutes: float = 15.0) -> None:
        """Show `losses` and mark `waves`; a no-op when nothing changed since the last call."""
        if window is not None:
            self.window = window
        inputs = (tuple(losses), tuple(waves), now, guard_minutes)
        if inputs == self._inputs:
            return
        self._inputs = inputs
        self.refresh(layout=True)

    def cycle_dimension(self) -> None:
        self.dimension = DIMENSIONS[(DIMENSIONS.index(self.dimension) + 1) % len(DIMENSIONS)]

    def validate_dimension(self, value: str) -> str:
        if value not in DIMENSIONS:
            raise ValueError(f"dimension must be one of {', '.join(DIMENSIONS)}, not {value!r}")
        return value

    def watch_dimension(self) -> None:
        self._anchor = None  # row labels of another dimension: the old cell means nothing
        self.refresh(layout=True)

    @property
    def window_name(self) -> str:
        return next((n for n, w in WINDOWS if w == self.window), f"{self.window}")

    # --- actions ------------------------------------------------------------------------

    def action_cycle_dimension(self) -> None:
        self.cycle_dimension()

    def action_cycle_window(self) -> None:
        names = [w for _, w in WINDOWS]
        i = names.index(self.window) if self.window in names else -1
        self.window = names[(i + 1) % len(names)]
        self.refresh(layout=True)

    def action_move(self, drow: int, dcol: int) -> None:
        grid = self._ensure_grid(self.size.width)
        if grid is None or not grid.rows or self.cursor is None:
            return
        r = min(max(self.cursor[0] + drow, 0), len(grid.rows) - 1)
        c = min(max(self.cursor[1] + dcol, 0), len(grid.bucket_starts) - 1)
        self.cursor = (r, c)
        self._anchor = (grid.rows[r], grid.bucket_starts[c])
        self.refresh()

    def action_select_cell(self) -> None:
        grid = self._ensure_grid(self.size.width)
        if grid is None or self.cursor is None:
            return
        r, c = self.cursor
        losses = tuple(grid.cell_losses(r, c))
        self._selected = (grid.rows[r], grid.bucket_starts[c], grid.bucket_s, losses)
        self.post_message(self.CellSelected(self, grid.rows[r], grid.bucket_starts[c], losses))
        self.refresh(layout=True)

    # --- drawing ------------------------------------------------------------------------

    def _bounds(self, losses: tuple[Loss, ...], now: datetime) -> tuple[datetime, datetime]:
        if self.window is not None:
            return now - self.window, now
        first = min((x.lost_at for x in losses), default=now)
        return min(first, now - MIN_WINDOW), now

    def _ensure_grid(self, width: int) -> HeatGrid | None:
        losses, waves, now, guard = self._inputs
        if now is None or width <= 0:
            return None
        key = (self._inputs, self.dimension, self.window, width)
        if key == self._grid_key:
            return self.grid
        start, end = self._bounds(losses, now)
        guess = R.layout(self.grid.rows if self.grid and self.grid.dimension == self.dimension else (), width)
        grid = build_grid(losses, self.dimension, start, end, R.buckets_for(guess.columns), waves)
        want = R.buckets_for(R.layout(grid.rows, width).columns)
        if self.window is None and len(grid.bucket_starts) < want:
            # "all" fills the width with earlier (empty) time rather than leaving the right half blank;
            # one column short, so aligning the first bucket cannot push the step up.
            start = min(start, end - timedelta(seconds=grid.bucket_s * (want - 1)))
            grid = build_grid(losses, self.dimension, start, end, want, waves)
        elif want != R.buckets_for(guess.columns):  # the labels needed another width
            grid = build_grid(losses, self.dimension, start, end, want, waves)
        self.grid, self._grid_key = grid, key
        self._active = self._active_columns(grid, waves, now, guard)
        self.cursor = self._place_cursor(grid)
        return grid

    @staticmethod
    def _active_columns(grid: HeatGrid, waves: tuple, now: datetime, guard: float) -> frozenset[int]:
        wave = active_wave(waves, now, guard)
        if wave is None:
            return frozenset()
        a = grid.column_of(max(wave.start, grid.start))
        b = grid.column_of(min(wave.end, grid.end))
        return frozenset() if a is None or b is None else frozenset(range(a, b + 1))

    def _place_cursor(self, grid: HeatGrid) -> tuple[int, int] | None:
        if not grid.rows:
            return None
        if self._anchor is not None:
            label, when = self._anchor
            col = grid.column_of(when)
            if label in grid.rows and col is not None:
                return grid.rows.index(label), col
        # Until the owner moves, the cursor sits on the hottest, latest cell: Enter lists the wave.
        best = max(((n, c, -r) for r, row in enumerate(grid.counts) for c, n in enumerate(row)), default=None)
        return (-best[2], best[1]) if best else (0, 0)

    def _lines(self, width: int) -> list[Text]:
        grid = self._ensure_grid(width)
        if grid is None:
            return [Text("No loss data yet.", style=R.DIM)]
        lines = [R.render_header(self.dimension, self.window_name, grid.total, width)]
        lines += R.render_heatmap(grid, width, self.cursor if self.has_focus else None, self._active)
        if self._selected is not None:
            lines += R.render_cell_losses(*self._selected, width=width)
        elif grid.rows and self.has_focus:
            lines.append(R.render_cursor_line(grid, self.cursor))
        for line in lines:
            line.truncate(width)
        return lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width))

    def render(self) -> Text:
        return Text("\n").join(self._lines(self.content_size.width))

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
