"""The loss area: the heatmap and the wave panel side by side, fed the session's losses, waves,
the wave it chose to show and the heatmap's grid; the heatmap's scope goes to the session."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Sequence

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll

from sagan_tui.panel.widgets.heatmap import LossHeatmap
from sagan_tui.panel.widgets.wave_panel import Shown, WavePanel
from sagan_tui.panel.registry import OWN, bindings

if TYPE_CHECKING:
    from sagan_tui.wire.channel.views import HeatGridView
    from sagan_tui.wire.channel.views import LossRecordView as Loss
    from sagan_tui.wire.channel.views import WaveView as Wave


class LossArea(Horizontal):
    """Holds LossHeatmap (focusable: d rows-by, w window, arrows, enter) and WavePanel."""

    ALLOW_MAXIMIZE = True  # `z` on the heatmap zooms the heatmap and its wave together
    # The heatmap holds the focus and its arrows; the page keys read on through the wave's text
    # (the evidence runs past the pane, zoomed or not). The heatmap's box is not a scroller with
    # keys of its own: it took them and moved a box one line taller than its grid.
    BINDINGS = bindings("wave", runner=OWN)  # panel/registry.py; the keys are keymap.py's

    def compose(self) -> ComposeResult:
        with Vertical(id="heatmap-box"):
            yield LossHeatmap(id="heatmap")
        box = VerticalScroll(id="wave-box")
        box.can_focus = False  # the heatmap takes the focus, not the wave's scroller
        with box:
            yield WavePanel(id="waves")

    def on_mount(self) -> None:
        # Nothing here reads a child: a panel told to end while this area mounts (a SIGTERM as
        # its terminal closed) has its children gone by then, and a failed query ended it with 1.
        self.border_title = "Losses"

    @property
    def wave_box(self) -> VerticalScroll:
        return self.query_one("#wave-box", VerticalScroll)

    def action_wave_page(self, direction: int) -> None:
        box = self.wave_box
        box.scroll_to(y=box.scroll_y + direction * max(1, box.scrollable_content_region.height - 1), animate=False)

    def action_wave_end(self, end: int) -> None:
        box = self.wave_box
        box.scroll_to(y=box.max_scroll_y if end else 0, animate=False)

    def show(self, losses: Sequence["Loss"], waves: Sequence["Wave"], now: datetime, shown: Shown = (-1, None),
             extra: tuple[str, ...] = ()) -> None:
        """Every loss (dismissed ones too: they are evidence), the waves and the one the session
        chose to show (wave_panel.py's Shown); the status tick redraws the wave panel's clock."""
        losses, waves = list(losses), list(waves)
        self.query_one(LossHeatmap).set_losses(losses)
        last = max(losses, key=lambda x: x.lost_at, default=None)
        self.query_one(WavePanel).set_waves(waves, now, shown, last, extra)
        self._shown = (losses, waves, shown, extra)
        n = len(losses)
        self.border_title = f"Losses · {n}" + (f" · {len(waves)} wave{'s' if len(waves) != 1 else ''}"
                                                if waves else "")

    def tick(self, now: datetime) -> None:
        """The status tick: the wave panel's "ago" and "guard until" read the clock again; the
        heatmap (minutes per column) waits for the next change of the losses."""
        shown = getattr(self, "_shown", None)
        if shown is None:
            return
        losses, waves, chosen, extra = shown
        last = max(losses, key=lambda x: x.lost_at, default=None)
        self.query_one(WavePanel).set_waves(waves, now, chosen, last, extra)

    def show_grid(self, grid: "HeatGridView | None", full: bool = False) -> None:
        """The session's heatmap grid; on a whole panel (the first, or a new session process's)
        without the grid for the heatmap's scope, the scope is said again."""
        heatmap = self.query_one(LossHeatmap)
        heatmap.set_grid(grid)
        if full and not heatmap.current:
            heatmap.ask(again=True)  # the session may not know it: a new one, or opened before the ask

    def on_loss_heatmap_scope_changed(self, message: LossHeatmap.ScopeChanged) -> None:
        """Ask the session for the grid (it bubbles on for a host without a session)."""
        session = getattr(self.app, "session", None)
        if session is not None:
            session.watch_heatmap(*message.scope)
