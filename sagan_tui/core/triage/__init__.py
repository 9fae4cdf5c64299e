"""Triage, pure: losses, reaping waves, verdicts, heatmap grid, diagnosis, incident report, wave response, dispatch guard.

The names below are imported from their modules on first use (PEP 562): the panel's loss area
imports `triage.heatmap` and `triage.fmt` before its first frame, and records and losses would
bring pydantic with them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_WHERE = {
    "diagnosis": ("Dispatch", "Finding", "TriageContext", "diagnose", "dispatches_from"),
    "guard": ("GuardVerdict", "check_dispatch", "wave_summary"),
    "heatmap": ("DIMENSIONS", "HeatGrid", "build_grid", "shade"),
    "losses": ("merge_losses", "parse_not_found", "requested_stop"),
    "records": ("parse_loss_lines", "parse_record_lines", "wave_to_json", "waves_to_json"),
    "report": ("render_report",),
    "response": ("Proposal", "propose"),
    "timeline": ("Timeline",),
    "verdict": ("Verdict",),  # not `verdict`: that name is the submodule's
    "waves": ("Wave", "active_wave", "find_waves"),
}
_MODULE_OF = {name: module for module, names in _WHERE.items() for name in names}
__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # once: later lookups do not come back here
    return value


if TYPE_CHECKING:
    from sagan_tui.core.triage.diagnosis import Dispatch, Finding, TriageContext, diagnose, dispatches_from
    from sagan_tui.core.triage.guard import GuardVerdict, check_dispatch, wave_summary
    from sagan_tui.core.triage.heatmap import DIMENSIONS, HeatGrid, build_grid, shade
    from sagan_tui.core.triage.losses import merge_losses, parse_not_found, requested_stop
    from sagan_tui.core.triage.records import parse_loss_lines, parse_record_lines, wave_to_json, waves_to_json
    from sagan_tui.core.triage.report import render_report
    from sagan_tui.core.triage.response import Proposal, propose
    from sagan_tui.core.triage.timeline import Timeline
    from sagan_tui.core.triage.verdict import Verdict
    from sagan_tui.core.triage.waves import Wave, active_wave, find_waves
