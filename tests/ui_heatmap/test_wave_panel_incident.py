"""The wave panel through the incident's life: a forming cluster (WATCH), a wave of two bursts with its
canary running; rendered from what the session hands the UI, and as SVG snapshots at 200x50 and 80x24."""

from __future__ import annotations

from datetime import timedelta

import pytest
from rich.console import Console
from textual.app import App, ComposeResult

from sagan_tui.core.triage.canary import Canary
from sagan_tui.core.triage.forming import find_forming
from sagan_tui.core.triage.waves import find_waves
from sagan_tui.panel.widgets.loss_area import LossArea

from .heatmap_demo import answer_scope
from .heatmap_incident import CONTEXT, LOSSES, NOW, R5, as_views, at, render_as_shown, waves


def text(renderable, width=100) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


PAIR = R5[:2]
FORMING = tuple(c.headline for c in find_forming(PAIR, []))
CANARY_AT = at("11:00:00")
CANARY = Canary.start(192, CANARY_AT, 60.0, (192, 363, 366)).saw_running("canarypod00001",
                                                                           CANARY_AT + timedelta(seconds=10))
CANARY_NOW = CANARY_AT + timedelta(seconds=82)


def test_a_forming_cluster_is_shown_as_a_watch_line_without_a_wave():
    out = text(render_as_shown([], NOW, 15.0, PAIR[-1], FORMING))
    assert "No reaping wave." in out and "WATCH: 2 pods lost 1 s apart, both ~60 s after RUNNING" in out


def test_the_followed_wave_shows_its_bursts_and_the_canary_line_under_the_clock():
    followed = waves(guard_minutes=15)
    assert len(followed) == 1
    out = text(render_as_shown(followed, CANARY_NOW, 15.0, None, (CANARY.text(CANARY_NOW),)), width=120)
    lines = out.splitlines()
    guard = next(i for i, x in enumerate(lines) if x.startswith("last loss"))
    assert lines[guard + 1] == "canary #192: running 1 min 12 s of 2 min"
    assert lines[guard + 2].startswith("2 bursts: 10:42:07-10:44:45 UTC (3); 10:54:54-10:54:55 UTC (5)")


class IncidentPanel(App):
    def __init__(self, losses, shown_waves, now, extra) -> None:
        super().__init__()
        self.args = (losses, shown_waves, now, extra)

    def compose(self) -> ComposeResult:
        yield LossArea(id="loss-area")

    def on_mount(self) -> None:
        from sagan_tui.core.session.incident_view import shown_of

        losses, shown_waves, now, extra = self.args
        views = as_views(shown_waves)  # as the session sends them; the heatmap is drawn from triage's own
        self.query_one(LossArea).show(losses, views, now, shown_of(views, now, 15.0), extra)

    def on_loss_heatmap_scope_changed(self, message) -> None:
        losses, shown_waves, now, _ = self.args
        answer_scope(message.heatmap, message.scope, losses, shown_waves, now)


@pytest.mark.parametrize("size", [(200, 50), (80, 24)], ids=["200x50", "80x24"])
def test_snapshot_wave_panel_with_a_forming_cluster(snap_compare, size):
    assert snap_compare(IncidentPanel(list(PAIR), [], NOW, FORMING), terminal_size=size)


@pytest.mark.parametrize("size", [(200, 50), (80, 24)], ids=["200x50", "80x24"])
def test_snapshot_wave_panel_with_a_canary_running(snap_compare, size):
    assert snap_compare(IncidentPanel(list(LOSSES), find_waves(LOSSES, context=CONTEXT, guard_minutes=15), CANARY_NOW,
                                      (CANARY.text(CANARY_NOW),)), terminal_size=size)


async def test_the_loss_area_reads_no_child_when_it_mounts():
    """A panel told to end while the loss area mounts (a SIGTERM as its terminal closed) has the
    area's children gone by its Mount: a look for one there ended the panel with 1, not 143."""

    class Area(App):
        def compose(self) -> ComposeResult:
            yield LossArea(id="loss-area")

    app = Area()
    async with app.run_test() as pilot:
        area = app.query_one(LossArea)
        assert area.query_one("#wave-box").can_focus is False  # the heatmap takes the focus
        await area.query_one("#wave-box").remove()
        area.on_mount()  # what its Mount runs, its children gone: no NoMatches
        await pilot.pause()
        assert area.border_title == "Losses"
