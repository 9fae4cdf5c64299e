"""The 2026-05-14 incident of DOMAIN.md as Loss records (r4 and r5 waves), with a fixed `now`."""

from __future__ import annotations

from datetime import datetime, timezone

from sagan_tui.core.models import Loss, PodSighting
from sagan_tui.core.triage.diagnosis import TriageContext
from sagan_tui.core.triage.waves import find_waves

NOW = datetime(2026, 5, 14, 10, 56, 30, tzinfo=timezone.utc)
A100 = "NVIDIA A100 80GB PCIe"
A100_SXM = "NVIDIA A100-SXM4-80GB"
H100 = "NVIDIA H100 80GB HBM3"


def at(hms: str) -> datetime:
    h, m, s = map(int, hms.split(":"))
    return datetime(2026, 5, 14, h, m, s, tzinfo=timezone.utc)


def loss(pod: str, account: str, exp: int, running: str, lost: str, gpu: str = A100,
         dc: str = "US-KS-2", cost: float = 1.49) -> Loss:
    return Loss(pod_id=pod, account=account, experiment=exp, running_at=at(running), lost_at=at(lost),
                gpu=gpu, datacenter=dc, cost_per_hr=cost)


# r4: three of four sibling A100 dispatches on `team`, each gone about a minute after RUNNING.
R4 = [
    loss("a4r7k2m9p0q1zx", "team", 358, "10:41:05", "10:42:07", A100_SXM),
    loss("b8t3n6w1c5y2de", "team", 358, "10:42:30", "10:43:31", A100_SXM),
    loss("c2h9j4v7s3x6fk", "team", 358, "10:43:40", "10:44:45", A100_SXM),
]
# r5: five pods of four experiments in both accounts, within a second of each other.
R5 = [
    loss("v0c7bx292xqvg4", "team", 192, "10:53:54", "10:54:55"),
    loss("m1ayhl6nsbxw04", "team", 363, "10:53:54", "10:54:54"),
    loss("lqpfpmbytlgded", "team", 366, "10:44:53", "10:54:54"),
    loss("j0xvy1q82ryo8m", "personal", 333, "10:53:55", "10:54:54", H100, "EU-RO-1", 2.99),
    loss("cv13x9s487tvwn", "personal", 333, "10:53:55", "10:54:54", H100, "EU-RO-1", 2.99),
]
LOSSES = R4 + R5
# The control pod of DOMAIN.md: exp #365 on team, running across the r5 window.
CONTROL = PodSighting(pod_id="j18eiux6ccekyj", account="team", experiment=365, first_seen_at=at("10:30:00"),
                      running_at=at("10:30:40"), last_seen_at=at("10:56:20"), desired_status="RUNNING",
                      gpu=A100, datacenter="US-KS-2", cost_per_hr=1.49)
CONTEXT = TriageContext(sightings=(CONTROL,), accounts_polled=("team", "personal"), losses=tuple(LOSSES))


def waves(losses=LOSSES, guard_minutes=0):
    """r4 and r5 as two waves (no following), weighed as the session sends them to the panel: these
    tests are about drawing two waves; the followed wave of both bursts has tests of its own
    (test_wave_panel_incident.py)."""
    return as_views(find_waves(losses, context=CONTEXT, guard_minutes=guard_minutes))


def as_views(ws):
    """Triage's waves as the panel receives them (the session weighs each: core/session/views.py)."""
    from sagan_tui.core.session.views import wave_view

    return [wave_view(w) for w in ws]


def render_as_shown(ws, now, guard_minutes=15.0, last_loss=None, extra=()):
    """The wave panel's text for `ws` with the wave the session would choose at `now`."""
    from sagan_tui.core.session.incident_view import shown_of
    from sagan_tui.panel.widgets.wave_panel import render_wave_panel

    return render_wave_panel(ws, now, shown_of(ws, now, guard_minutes), last_loss, extra)


def show(panel, ws, now, guard_minutes=15.0, last_loss=None, extra=()):
    """WavePanel.set_waves with the session's choice at `now` (core/session/incident_view.py's shown_of)."""
    from sagan_tui.core.session.incident_view import shown_of

    panel.set_waves(ws, now, shown_of(ws, now, guard_minutes), last_loss, extra)
