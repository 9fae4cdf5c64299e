"""The loss area: the heatmap and the wave panel side by side, fed from the panel's model after each poll."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll

from sagan_tui.ui.widgets.heatmap import LossHeatmap
from sagan_tui.ui.widgets.wave_panel import WavePanel

if TYPE_CHECKING:
    from sagan_tui.ui.model import PanelModel


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

    def show(self, model: "PanelModel") -> None:
        now, guard = model.clock(), model.settings.guard_minutes
        self.query_one(LossHeatmap).set_losses(model.losses, model.waves, now, guard_minutes=guard)
        last = max(model.losses, key=lambda x: x.lost_at, default=None)
        self.query_one(WavePanel).set_waves(model.waves, now, guard, last)
        n = len(model.losses)
        self.border_title = f"Losses · {n}" + (f" · {len(model.waves)} wave{'s' if len(model.waves) != 1 else ''}"
                                                if model.waves else "")
