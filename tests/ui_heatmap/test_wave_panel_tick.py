"""The status tick moves the wave panel's clock line without measuring the whole panel again."""

from __future__ import annotations

from datetime import timedelta

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from sagan_tui.panel.widgets.wave_panel import WavePanel, clock_line

from .heatmap_incident import LOSSES, NOW, R5, show, waves


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
        show(panel, shown, NOW + timedelta(seconds=seconds), 15.0, last)
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
            show(panel, shown, NOW + timedelta(seconds=seconds), 15.0, last)
            await pilot.pause()
        assert measured == []
        line = "".join(s.text for y in range(panel.size.height) for s in panel.render_line(y))
        now_line = clock_line(panel.wave, panel.wave.end + timedelta(minutes=15), NOW + timedelta(seconds=15)).plain
        assert "last loss 110 s ago" in now_line and now_line in line  # drawn anew all the same

        show(panel, waves(), NOW + timedelta(seconds=20), 15.0, last)  # weighed again: measured
        assert measured == [1]
        show(panel, waves(), NOW + timedelta(minutes=20), 15.0, last)  # past the guard: measured
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
                show(panel, shown, NOW + timedelta(seconds=seconds), 15.0, last)
                await pilot.pause()
                text = "".join(s.text for y in range(panel.size.height) for s in panel.render_line(y))
                assert f"last loss {95 + seconds} s ago" in text
        finally:
            Console.render_lines = real
        parts = [p for p in laid_out if not isinstance(p, WavePanel)]
        assert all(getattr(p, "plain", "").startswith("last loss") or not hasattr(p, "plain") for p in parts)
        assert not any(type(p).__name__ == "Table" for p in parts), [type(p).__name__ for p in parts]


async def test_waves_weighed_again_lay_out_only_the_parts_that_read_differently():
    """Each poll that brings a loss weighs the waves again (new objects): the panel lays out again
    only the parts whose text moved, and what it shows is the new wave, as a panel drawn from
    nothing shows it."""
    from rich.console import Console

    app = Side()
    async with app.run_test(size=(60, 80)) as pilot:
        panel = app.query_one(WavePanel)
        last = max(LOSSES, key=lambda x: x.lost_at)
        before = waves(LOSSES[:-1])  # the r5 wave one loss short
        show(panel, before, NOW, 15.0, last)
        await pilot.pause()
        laid_out = []
        real = Console.render_lines
        Console.render_lines = lambda self, r, *a, **k: (laid_out.append(r), real(self, r, *a, **k))[1]
        try:
            show(panel, waves(LOSSES[:-1]), NOW, 15.0, last)  # weighed again, nothing new
            await pilot.pause()
            again = [type(p).__name__ for p in laid_out if not isinstance(p, WavePanel)]
            laid_out.clear()
            show(panel, waves(), NOW, 15.0, last)  # one loss more
            await pilot.pause()
        finally:
            Console.render_lines = real
        assert "Table" not in again, again
        tables = [p for p in laid_out if type(p).__name__ == "Table"]
        shown = "\n".join("".join(s.text for s in panel.render_line(y)).rstrip() for y in range(panel.size.height))

        fresh = Side()
        async with fresh.run_test(size=(60, 80)) as fresh_pilot:
            other = fresh.query_one(WavePanel)
            show(other, waves(), NOW, 15.0, last)
            await fresh_pilot.pause()
            expected = "\n".join("".join(s.text for s in other.render_line(y)).rstrip()
                                 for y in range(other.size.height))
    assert shown == expected
    assert f"lost {len(R5)} pods" in " ".join(shown.split()), shown
    total = 2 + 2 + len(panel.wave.diagnosis)  # for, against, the summary, each finding: at most
    assert 0 < len(tables) < total, (len(tables), total)
