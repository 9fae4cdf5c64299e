"""The loss area: the heatmap and the wave panel (others' widgets), fed from the panel's model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from sagan_tui.ui.render import hhmm

if TYPE_CHECKING:
    from sagan_tui.ui.model import PanelModel


def summary(model: "PanelModel") -> Text:
    """What the placeholder says until the heatmap widgets are mounted: losses and waves, in words."""
    text = Text(end="")
    n = len(model.losses)
    text.append(f"{n} undismissed loss{'es' if n != 1 else ''}", "bold red" if n else "dim")
    for w in model.waves[-3:]:
        text.append(f"\nwave {hhmm(w.start)}-{hhmm(w.end)} UTC: {len(w.losses)} pods, ", "red")
        text.append(", ".join(w.accounts))
        for f in w.diagnosis[:3]:
            text.append(f"\n  · {f.statement}", "dim")
    return text


class LossArea(Vertical):
    """Placeholder for LossHeatmap + WavePanel (ui/widgets/heatmap.py, wave_panel.py)."""

    def compose(self) -> ComposeResult:
        yield Static("[heatmap and wave panel: widgets not available yet]", id="loss-placeholder", markup=False)

    def on_mount(self) -> None:
        self.border_title = "Losses"

    def show(self, model: "PanelModel") -> None:
        self.query_one("#loss-placeholder", Static).update(summary(model))
