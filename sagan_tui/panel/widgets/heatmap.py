"""LossHeatmap: pod losses binned by time (columns) and one dimension (rows), with a cell cursor.

The grid is built on the session's side (core/session/heatmap_view.py) for the scope this widget
asks for: rows by, window and its width. The widget says its scope (ScopeChanged; LossArea
sends it to the session as WatchHeatmap) whenever one of them changes, draws the grid it is
sent (the channel's HeatGridView) and moves its cursor over it; it bins nothing.

API for the app shell:
    heatmap = LossHeatmap(dimension="account", id="heatmap")   # name/id/classes as any Widget
    heatmap.set_grid(grid)     the session's grid; one for a scope since left is ignored
    heatmap.set_losses(losses) every loss, for the listing of a selected cell (by pod id)
    heatmap.scope              (dimension, window seconds or None, width) as it stands
    heatmap.current            whether the grid drawn is the one for that scope
    heatmap.dimension          reactive: "account" | "experiment" | "datacenter" | "gpu"
    heatmap.cycle_dimension()  account -> experiment -> datacenter -> gpu -> account
    heatmap.window             the current window (timedelta, or None for all)
    heatmap.grid               the grid last drawn (None before the first)
    heatmap.cursor             (row, column) of the highlighted cell, or None
Messages:
    LossHeatmap.ScopeChanged(heatmap, scope)  the grid to ask the session for.
    LossHeatmap.CellSelected(heatmap, row_label, bucket_start, losses)  on Enter; the cell's
    losses (tuple, by lost_at) are also listed under the grid.
Bindings (ids for a user keymap): heatmap.dimension `d`, heatmap.window `w`,
heatmap.left/right/up/down arrows, heatmap.select `enter`.

No I/O and no timers; moving the cursor only repaints.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Sequence

from rich.text import Text
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from sagan_tui.wire.heatmap_layout import DIMENSIONS
from sagan_tui.panel import heatmap_render as R
from sagan_tui.panel.registry import OWN, bindings

if TYPE_CHECKING:  # annotations only: the session sends its losses and the grid as view data
    from sagan_tui.wire.channel.views import HeatGridView
    from sagan_tui.wire.channel.views import LossRecordView as Loss

Scope = tuple[str, "float | None", int]
WINDOWS: tuple[tuple[str, timedelta | None], ...] = (
    ("all", None), ("30m", timedelta(minutes=30)), ("2h", timedelta(hours=2)), ("12h", timedelta(hours=12)),
)


class LossHeatmap(Widget, can_focus=True):
    """The triage heatmap: a reaping wave is a hot column over several rows."""

    DEFAULT_CSS = """
    LossHeatmap { height: auto; padding: 0 1; }
    """

    BINDINGS = bindings("heatmap", runner=OWN)  # panel/registry.py; the keys are keymap.py's

    dimension: reactive[str] = reactive("account")

    class ScopeChanged(Message):
        """The grid this heatmap needs now: (rows by, window seconds or None for all, width)."""

        def __init__(self, heatmap: "LossHeatmap", scope: Scope) -> None:
            super().__init__()
            self.heatmap = heatmap
            self.scope = scope

        @property
        def control(self) -> "LossHeatmap":
            return self.heatmap

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
        self.grid: HeatGridView | None = None
        self.cursor: tuple[int, int] | None = None
        self._asked: Scope | None = None
        self._losses: dict[str, Loss] = {}
        self._anchor: tuple[str, datetime] | None = None  # the cell the owner moved to, kept across grids
        self._selected: tuple[str, datetime, float, tuple[Loss, ...]] | None = None

    # --- the app's side -----------------------------------------------------------------

    @property
    def scope(self) -> Scope:
        window = None if self.window is None else self.window.total_seconds()
        return self.dimension, window, self.content_size.width

    @property
    def current(self) -> bool:
        return self.grid is not None and self.grid.scope == self.scope

    def ask(self, again: bool = False) -> None:
        """Say the scope when it is not the one asked for last, or `again` (a width of 0 asks for nothing)."""
        scope = self.scope
        if scope[2] > 0 and (again or scope != self._asked):
            self._asked = scope
            self.post_message(self.ScopeChanged(self, scope))

    def set_grid(self, grid: HeatGridView | None) -> None:
        """Draw the session's grid (None: the session has none yet; an answer to a scope the
        owner has since left is ignored, the one for the new scope follows)."""
        if grid is None or (self._asked is not None and grid.scope != self._asked):
            return
        if grid == self.grid:
            return
        self.grid = grid
        self.cursor = self._place_cursor(grid)
        self.refresh(layout=True)

    def set_losses(self, losses: Sequence[Loss]) -> None:
        """Every loss (by pod id): what a selected cell lists."""
        self._losses = {x.pod_id: x for x in losses}

    def cycle_dimension(self) -> None:
        self.dimension = DIMENSIONS[(DIMENSIONS.index(self.dimension) + 1) % len(DIMENSIONS)]

    def validate_dimension(self, value: str) -> str:
        if value not in DIMENSIONS:
            raise ValueError(f"dimension must be one of {', '.join(DIMENSIONS)}, not {value!r}")
        return value

    def watch_dimension(self) -> None:
        self._anchor = None  # row labels of another dimension: the old cell means nothing
        self.ask()

    def on_resize(self) -> None:
        self.ask()

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
        self.ask()
        self.refresh(layout=True)

    def action_move(self, drow: int, dcol: int) -> None:
        grid = self.grid
        if grid is None or not grid.rows or self.cursor is None:
            return
        r = min(max(self.cursor[0] + drow, 0), len(grid.rows) - 1)
        c = min(max(self.cursor[1] + dcol, 0), len(grid.bucket_starts) - 1)
        self.cursor = (r, c)
        self._anchor = (grid.rows[r], grid.bucket_starts[c])
        self.refresh()

    def action_select_cell(self) -> None:
        grid = self.grid
        if grid is None or self.cursor is None:
            return
        r, c = self.cursor
        losses = tuple(self._losses[p] for p in grid.cell_pods(r, c) if p in self._losses)
        self._selected = (grid.rows[r], grid.bucket_starts[c], grid.bucket_s, losses)
        self.post_message(self.CellSelected(self, grid.rows[r], grid.bucket_starts[c], losses))
        self.refresh(layout=True)

    # --- drawing ------------------------------------------------------------------------

    def _place_cursor(self, grid: HeatGridView) -> tuple[int, int] | None:
        if not grid.rows:
            return None
        if self._anchor is not None:
            label, when = self._anchor
            col = grid.column_of(when)
            if label in grid.rows and col is not None:
                return grid.rows.index(label), col
        return grid.cursor  # until the owner moves: the hottest, latest cell (Enter lists the wave)

    def _lines(self, width: int) -> list[Text]:
        grid = self.grid
        if grid is None or width <= 0:
            return [Text("No loss data yet.", style=R.DIM)]
        # The header names the grid drawn (the one for a new scope is on its way from the session).
        window = None if grid.window_s is None else timedelta(seconds=grid.window_s)
        name = next((n for n, w in WINDOWS if w == window), f"{window}")
        lines = [R.render_header(grid.dimension, name, grid.total, width)]
        lines += R.render_heatmap(grid, width, self.cursor if self.has_focus else None, grid.active)
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
