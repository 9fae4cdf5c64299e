"""The status tick moves the wave panel's clock line without measuring the whole panel again."""

from __future__ import annotations

from datetime import timedelta

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from sagan_tui.ui.widgets.wave_panel import WavePanel, clock_line

from .heatmap_incident import LOSSES, NOW, waves


class Side(App):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield WavePanel()


async def laid_out_panel(app, pilot):
    """The panel showing the incident's waves, laid out: its width settles once a scrollbar
    takes its column."""
    panel = app.query_one(WavePanel)
    shown, last = waves(), max(LOSSES, key=lambda x: x.lost_at)
    for seconds in (0, 1):
        panel.set_waves(shown, NOW + timedelta(seconds=seconds), 15.0, last)
        await pilot.pause()
    return panel, shown, last


async def test_a_tick_measures_the_panel_only_when_its_clock_line_may_change_its_height():
    app = Side()
    async with app.run_test(size=(60, 40)) as pilot:
        panel, shown, last = await laid_out_panel(app, pilot)
        measured = []
        real = panel.get_content_height
        panel.get_content_height = lambda *a: (measured.append(1), real(*a))[1]

        for seconds in (5, 10, 15):  # ticks: the same waves, "last loss N s ago" moves
            panel.set_waves(shown, NOW + timedelta(seconds=seconds), 15.0, last)
            await pilot.pause()
        assert measured == []
        line = "".join(s.text for y in range(panel.size.height) for s in panel.render_line(y))
        now_line = clock_line(panel.wave, True, NOW + timedelta(seconds=15), 15.0).plain
        assert "last loss 110 s ago" in now_line and now_line in line  # drawn anew all the same

        panel.set_waves(waves(), NOW + timedelta(seconds=20), 15.0, last)  # weighed again: measured
        assert measured == [1]
        panel.set_waves(waves(), NOW + timedelta(minutes=20), 15.0, last)  # past the guard: measured
        assert measured == [1, 1]


async def test_a_tick_lays_out_only_the_clock_line_and_reuses_the_rest():
    """At each status tick the diagnosis (~150 lines at 10,000 pods) is not laid out again: its
    lines are drawn once per width while the waves are the same objects."""
    from rich.console import Console

    app = Side()
    async with app.run_test(size=(60, 40)) as pilot:
        panel, shown, last = await laid_out_panel(app, pilot)
        laid_out = []
        real = Console.render_lines
        Console.render_lines = lambda self, r, *a, **k: (laid_out.append(r), real(self, r, *a, **k))[1]
        try:
            for seconds in (5, 10):
                panel.set_waves(shown, NOW + timedelta(seconds=seconds), 15.0, last)
                await pilot.pause()
                text = "".join(s.text for y in range(panel.size.height) for s in panel.render_line(y))
                assert f"last loss {95 + seconds} s ago" in text
        finally:
            Console.render_lines = real
        parts = [p for p in laid_out if not isinstance(p, WavePanel)]
        assert all(getattr(p, "plain", "").startswith("last loss") or not hasattr(p, "plain") for p in parts)
        assert not any(type(p).__name__ == "Table" for p in parts), [type(p).__name__ for p in parts]
