"""A tiny app holding LossHeatmap beside WavePanel, fed the DOMAIN.md incident: tests and a look in tmux.

It plays the session's part: it answers the heatmap's ScopeChanged with the grid the session
would send (core/session/heatmap_view.py) and picks the wave shown as the session does.

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

from sagan_tui.core.models import Loss  # noqa: E402
from sagan_tui.core.session.heatmap_view import grid_view  # noqa: E402
from sagan_tui.core.session.incident_view import shown_of  # noqa: E402
from sagan_tui.core.triage import active_wave  # noqa: E402
from sagan_tui.panel.widgets.heatmap import LossHeatmap  # noqa: E402
from sagan_tui.panel.widgets.wave_panel import WavePanel  # noqa: E402


def answer_scope(heatmap: LossHeatmap, scope, losses, waves, now: datetime) -> None:
    """What the session sends for a heatmap's scope: the grid for it (core/session/heatmap_view.py)."""
    labels = heatmap.grid.rows if heatmap.grid is not None and heatmap.grid.dimension == scope[0] else ()
    heatmap.set_grid(grid_view(losses, waves, active_wave(waves, now, 15.0), scope, now, labels))


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
        self.feed(self.losses, self.waves, self.now)
        self.query_one(LossHeatmap).focus()

    def feed(self, losses: list[Loss], waves: list, now: datetime) -> None:
        """New losses, as a poll brings them: the wave panel, and the grid for the heatmap's scope."""
        self.losses, self.waves, self.now = losses, waves, now
        heatmap = self.query_one(LossHeatmap)
        heatmap.set_losses(losses)
        last = max(losses, key=lambda x: x.lost_at, default=None)
        self.query_one(WavePanel).set_waves(waves, now, shown_of(waves, now, 15.0), last)
        if heatmap.grid is not None:
            self._answer(heatmap, heatmap.scope)

    def _answer(self, heatmap: LossHeatmap, scope) -> None:
        answer_scope(heatmap, scope, self.losses, self.waves, self.now)

    def on_loss_heatmap_scope_changed(self, message: LossHeatmap.ScopeChanged) -> None:
        self._answer(message.heatmap, message.scope)


if __name__ == "__main__":
    HeatmapDemo().run()
