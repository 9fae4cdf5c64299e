"""SVG snapshots of the heatmap beside the wave panel, fed the DOMAIN.md incident at a fixed `now`."""

from __future__ import annotations

from .heatmap_demo import HeatmapDemo


def test_incident_heatmap_and_wave_panel(snap_compare):
    assert snap_compare(HeatmapDemo(), terminal_size=(120, 30))


def test_incident_hot_cell_listed_by_experiment_at_80x24(snap_compare):
    assert snap_compare(HeatmapDemo(), press=["d", "enter"], terminal_size=(80, 24))
