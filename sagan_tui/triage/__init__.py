"""Triage, pure: losses, reaping waves, heatmap grid, diagnosis, incident report, dispatch guard."""

from sagan_tui.triage.diagnosis import Dispatch, Finding, TriageContext, diagnose, dispatches_from
from sagan_tui.triage.guard import GuardVerdict, check_dispatch, wave_summary
from sagan_tui.triage.heatmap import DIMENSIONS, HeatGrid, build_grid, shade
from sagan_tui.triage.losses import merge_losses, parse_not_found, requested_stop
from sagan_tui.triage.records import parse_loss_lines, parse_record_lines, wave_to_json, waves_to_json
from sagan_tui.triage.report import render_report
from sagan_tui.triage.timeline import Timeline
from sagan_tui.triage.waves import Wave, active_wave, find_waves

__all__ = [
    "DIMENSIONS", "Dispatch", "Finding", "GuardVerdict", "HeatGrid", "Timeline", "TriageContext", "Wave", "active_wave",
    "build_grid", "check_dispatch", "diagnose", "dispatches_from", "find_waves", "merge_losses",
    "parse_loss_lines", "parse_not_found", "parse_record_lines", "render_report", "requested_stop", "shade",
    "wave_summary", "wave_to_json", "waves_to_json",
]
