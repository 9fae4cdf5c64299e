"""The loss area: the heatmap and the wave panel side by side, fed the session's losses and waves."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Sequence

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll

from sagan_tui.ui.widgets.heatmap import LossHeatmap
from sagan_tui.ui.widgets.wave_panel import WavePanel

if TYPE_CHECKING:
    from sagan_tui.models import Loss
    from sagan_tui.triage import Wave


class LossArea(Horizontal):
    """Holds LossHeatmap (focusable: d rows-by, w window, arrows, enter) and WavePanel."""

    ALLOW_MAXIMIZE = True  # `z` on the heatmap zooms the heatmap and its wave together

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="heatmap-box"):
            yield LossHeatmap(id="heatmap")
        with VerticalScroll(id="wave-box"):
            yield WavePanel(id="waves")

    def on_mount(self) -> None:
        self.border_title = "Losses"
        for box in self.query(VerticalScroll):
            box.can_focus = False  # the heatmap takes the focus, not its scroller

    def show(self, losses: Sequence["Loss"], waves: Sequence["Wave"], now: datetime, guard: float,
             extra: tuple[str, ...] = ()) -> None:
        """Every loss (dismissed ones too: they are evidence) and the waves; called again on the
        status tick so that "ago", "just now" and "guard until" read true."""
        losses, waves = list(losses), list(waves)
        self.query_one(LossHeatmap).set_losses(losses, waves, now, guard_minutes=guard)
        last = max(losses, key=lambda x: x.lost_at, default=None)
        self.query_one(WavePanel).set_waves(waves, now, guard, last, extra)
        self._shown = (losses, waves, guard, extra)
        n = len(losses)
        self.border_title = f"Losses · {n}" + (f" · {len(waves)} wave{'s' if len(waves) != 1 else ''}"
                                                if waves else "")

    def tick(self, now: datetime) -> None:
        """The status tick: the wave panel's "ago" and "guard until" read the clock again; the
        heatmap (minutes per column) waits for the next change of the losses."""
        shown = getattr(self, "_shown", None)
        if shown is None:
            return
        losses, waves, guard, extra = shown
        last = max(losses, key=lambda x: x.lost_at, default=None)
        self.query_one(WavePanel).set_waves(waves, now, guard, last, extra)
