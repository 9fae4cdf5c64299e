"""A tiny app holding LossHeatmap beside WavePanel, fed the DOMAIN.md incident: tests and a look in tmux.

Run it: `.venv/bin/python tests/ui_heatmap/heatmap_demo.py` (q quits).
"""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Footer

try:  # imported by the tests as part of the tests package
    from .heatmap_incident import LOSSES, NOW, waves as incident_waves
except ImportError:  # run as a script for a look in tmux
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from heatmap_incident import LOSSES, NOW, waves as incident_waves  # noqa: E402

from sagan_tui.models import Loss  # noqa: E402
from sagan_tui.ui.widgets.heatmap import LossHeatmap  # noqa: E402
from sagan_tui.ui.widgets.wave_panel import WavePanel  # noqa: E402


class HeatmapDemo(App):
    CSS = """
    #triage { height: 1fr; }
    LossHeatmap { width: 1fr; border: round $primary-darken-1; }
    LossHeatmap:focus { border: round $primary; }
    #side { width: 44%; border: round $error-darken-1; }
    """
    BINDINGS = [Binding("q", "quit", "Quit", id="demo.quit")]

    def __init__(self, losses: list[Loss] | None = None, waves: list | None = None, now: datetime = NOW) -> None:
        super().__init__()
        self.losses = LOSSES if losses is None else losses
        self.waves = incident_waves(self.losses) if waves is None else waves
        self.now = now

    def compose(self) -> ComposeResult:
        with Horizontal(id="triage"):
            yield LossHeatmap(id="heatmap")
            with VerticalScroll(id="side"):
                yield WavePanel(id="waves")
        yield Footer()

    def on_mount(self) -> None:
        heatmap = self.query_one(LossHeatmap)
        heatmap.set_losses(self.losses, self.waves, self.now)
        last = max(self.losses, key=lambda x: x.lost_at, default=None)
        self.query_one(WavePanel).set_waves(self.waves, self.now, 15.0, last)
        heatmap.focus()


if __name__ == "__main__":
    HeatmapDemo().run()
