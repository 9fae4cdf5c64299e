"""The wave panel's text, rendered without a screen: the incident's r5 wave, the calm after it, no wave."""

from __future__ import annotations

from datetime import timedelta

from .heatmap_incident import NOW, R5, as_views, at, loss, render_as_shown, waves
from rich.console import Console

from sagan_tui.core.triage.waves import find_waves
from sagan_tui.core.session.incident_view import shown_of
from sagan_tui.panel.widgets.wave_panel import shown_wave


def text(renderable, width: int = 70) -> str:
    console = Console(width=width, record=True, color_system=None, file=open("/dev/null", "w"))
    console.print(renderable)
    return console.export_text()


def test_active_wave_is_shouted_with_its_scope_burn_and_diagnosis():
    out = text(render_as_shown(waves(), NOW, 15.0))
    assert out.startswith("PLATFORM REAPER, ")  # the verdict comes first, then the banner
    assert out.index("ticket to RunPod with 5 pod") < out.index("WAVE ACTIVE — hold re-dispatch")
    assert "guard until 11:09:55 UTC" in out  # last loss 10:54:55 + 15 min
    assert "wave 2/2" in out and "10:54:54-10:54:55 UTC" in out
    assert "5 pods in personal, team" in out or "5 pods in team, personal" in out
    assert "#192, #333, #363, #366" in out
    assert "60 s ± 1 s after RUNNING" in out  # IQR of the four ~60 s pods; the long-running one left out
    assert "$0.40" in out
    assert "US-KS-2" in out and "EU-RO-1" in out
    # each finding, with its evidence indented under it
    lines = out.splitlines()
    i = next(n for n, x in enumerate(lines) if "spans both accounts" in x)
    assert lines[i].lstrip().startswith("•")
    evidence = next(x for x in lines[i + 1:] if "team: 3 pods" in x)
    assert len(evidence) - len(evidence.lstrip()) > len(lines[i]) - len(lines[i].lstrip())
    assert "j18eiux6ccekyj" in out  # the control pod that survived


def test_active_wave_banner_is_red():
    console = Console(width=70, record=True, color_system="256", file=open("/dev/null", "w"))
    console.print(render_as_shown(waves(), NOW, 15.0))
    assert "\x1b[1;38;5;231;48;5;160m WAVE ACTIVE" in console.export_text(styles=True)


def test_after_the_guard_the_latest_wave_is_shown_calmly():
    later = NOW + timedelta(minutes=20)
    ws = waves()
    wave, until = shown_wave(ws, shown_of(ws, later, 15.0), later)
    assert until is None and wave.start == at("10:54:54")
    out = text(render_as_shown(waves(), later, 15.0))
    assert "WAVE ACTIVE" not in out
    assert out.startswith("PLATFORM REAPER, ")
    assert "\nNo active wave. Last one ended 21 min ago" in out


def test_guard_minutes_decide_what_is_active():
    assert shown_of(waves(), NOW, 1.0)[1] is None
    assert shown_of(waves(), NOW, 2.0)[1] is not None


def test_no_wave_names_the_last_loss():
    out = text(render_as_shown([], NOW, 15.0, last_loss=R5[0]), width=120)
    assert out.strip() == "No reaping wave. Last loss: v0c7bx292xqvg4 (team #192) at 10:54:55 UTC, 95 s ago"
    assert text(render_as_shown([], NOW, 15.0)).strip() == "No reaping wave. No losses seen."


def test_untrusted_text_in_a_wave_is_literal():
    nasty = [loss(f"pod{i}[/]", "[@click=app.quit]x[/]", 1, "10:53:54", f"10:54:5{i}", dc="[b]dc[/b]",
                  gpu="\x1b[31mgpu") for i in range(3)]
    out = text(render_as_shown(as_views(find_waves(nasty)), NOW, 15.0), width=200)
    assert "3 pods in [@click=app.quit]x[/]" in out
    assert "[b]dc[/b]" in out and "pod0[/]" in out
    assert "\x1b" not in out and "[31m" not in out and "gpu" in out  # the whole escape dropped


def test_narrow_panel_wraps_inside_its_columns():
    out = text(render_as_shown(waves(), NOW, 15.0), width=36)
    assert max(len(x) for x in out.splitlines()) <= 36
    assert "10:54:54-10:54:55" in out and "WAVE ACTIVE" in out
