"""The incident watch fed from the panel model after each poll, and its view for the wave panel:
plain text and ids only (the UI displays them, it computes nothing)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Sequence

from sagan_tui.core.session.incident import Look, wave_key
from sagan_tui.wire import fmt
from sagan_tui.core.triage.canary import Canary

if TYPE_CHECKING:
    from sagan_tui.core.session.model import PanelModel


def load_incident(m: PanelModel) -> None:
    """Acknowledgements from the cache, and the owner's holds still in force (from the audit log)."""
    m.incident.opened(m.clock())
    for key, (_at, pods, accounts, cause, confidence) in m.cache.incident_rows.wave_acks().items():
        m.incident.acks[key] = Look(pods, accounts, cause, confidence)
    latest: dict[int, Any] = {}
    for a in m.cache.actions(limit=2000):  # newest first
        if a.result == "ok" and a.action in ("hold", "release") and a.target[1:].isdigit():
            latest.setdefault(int(a.target[1:]), a)
    for n, a in latest.items():
        e = m.experiments.get(n)
        if a.action == "hold" and e is not None and e.status == "blocked":
            m.incident.held(n, a.at)


def incident_news(m: PanelModel, changes: Any, status_before: dict[int, str], new_waves: tuple,
                  losses_moved: bool, now: datetime) -> tuple[tuple[str, str], ...]:
    """What this poll tells the owner about the incident, as (title, line)."""
    w = m.incident
    out: list[tuple[str, str]] = []
    if changes.new_losses:
        w.losses_seen(len(changes.new_losses), now)
    if losses_moved:
        out += [("Reaping wave grew", line) for line in w.growth(m.waves, now)]
        out += [("Watch", line) for line in w.forming_news(m.active_forming())]
    statuses = {}
    for n in changes.experiments:
        e = m.experiments.get(n)
        if e is not None and n in w.holds:
            statuses[n] = (status_before.get(n), e.status, e.updated_at)
    new_pods: dict[int, list] = {}
    for pid in changes.pods_changed:
        cp = m.pods.get(pid)
        if cp is not None and cp.experiment in w.holds:
            new_pods.setdefault(cp.experiment, []).append((pid, cp.first_seen_at))
    out += [("Hold overridden", line) for line in w.overrides(statuses, new_pods, now)]
    out += [("Canary", line) for line in _canary_step(m, now)]
    return tuple(out)


def _canary_step(m: PanelModel, now: datetime) -> list[str]:
    c = m.canary
    if c is None:
        return []
    before = c.state(now)
    if c.pod_id is None:
        mine = sorted((p for p in m.pods.values() if p.experiment == c.experiment and p.running_at is not None
                       and p.pod_id not in c.known and p.gone_at is None), key=lambda p: p.running_at)
        if mine:
            p = mine[0]
            c = c.saw_running(p.pod_id, p.running_at if p.running_at >= c.dispatched_at else now)
    if c.pod_id is not None:
        lost = next((x for x in m.losses if x.pod_id == c.pod_id), None)
        if lost is not None:
            c = c.saw_lost(c.pod_id, lost.lost_at)
    m.canary = c
    after = c.state(now)
    return [c.text(now)] if after != before and after in ("passed", "lost") else []


def shown_of(waves: Sequence[Any], now: datetime, guard_minutes: float) -> tuple[int, datetime | None]:
    """The wave the panel shows, as (its index in `waves`, -1 for none; the end of its guard while
    it is the active one, else None): the active wave, else the one that ended last."""
    from sagan_tui.core.triage import active_wave

    wave = active_wave(waves, now, guard_minutes)
    if wave is not None:
        return _index(waves, wave), wave.end + timedelta(minutes=guard_minutes)
    last = max(waves, key=lambda w: w.end, default=None)
    return (-1 if last is None else _index(waves, last)), None


def _index(waves: Sequence[Any], wave: Any) -> int:
    return next(i for i, w in enumerate(waves) if w is wave)


def incident_view(m: PanelModel) -> dict[str, Any]:
    """The incident's lines and the wave shown (IncidentView's incident fields)."""
    now = m.clock()
    away = m.settings.away_minutes
    shown, active_until = shown_of(m.waves, now, m.settings.guard_minutes)
    return {
        "shown": shown,
        "active_until": active_until,
        "forming": tuple(c.headline for c in m.active_forming()),
        "canary": m.canary.text(now) if m.canary is not None else "",
        "since_looked": m.incident.since_you_looked(now, away),
        "overrides": tuple(sorted(m.incident.warnings.items())),
        "acknowledged": tuple(wave_key(x) for x in m.waves if m.incident.is_acknowledged(x)),
        "containment": m.containment.lines(now) if m.containment is not None else (),
    }


def acknowledge(m: PanelModel) -> str:
    """Acknowledge the wave on screen (the active one, else the latest): persisted; quiet until it
    grows. What was done, in words (the wave panel redraws: core/session/owner.py)."""
    wave = m.active_wave() or (m.waves[-1] if m.waves else None)
    if wave is None:
        return "no wave to acknowledge"
    look = m.incident.acknowledge(wave)
    m.cache.incident_rows.ack_wave(wave_key(wave), m.clock(), look.pods, look.accounts, look.cause, look.confidence)
    return (f"acknowledged the wave {fmt.window(wave.start, wave.end)} ({look.pods} pods): "
            "no more notifications for it until it grows")


def start_canary(m: PanelModel, number: int, held: tuple[int, ...]) -> str:
    """`number` watched as the canary; its line, as the wave panel shows it."""
    wave = m.active_wave() or (m.waves[-1] if m.waves else None)
    kill = wave.gap_median_s if wave is not None else None
    known = {p.pod_id for p in m.pods.values() if p.experiment == number}
    m.canary = Canary.start(number, m.clock(), kill, held, known)
    return m.canary.text(m.clock())


def held_now(m: PanelModel) -> tuple[int, ...]:
    """The incident's holds: experiments blocked now that the owner held, or that lost pods in
    the wave on screen (or a forming cluster), the owner's holds first. An experiment blocked
    for another reason (last week's, no pod in the wave) is no canary's to release."""
    wave = m.active_wave() or (m.waves[-1] if m.waves else None)
    ours = {*m.incident.holds, *(wave.experiments if wave is not None else ()),
            *(x.experiment for c in m.active_forming() for x in c.losses)}
    blocked = [n for n, e in m.experiments.items() if e.status == "blocked" and n in ours]
    return tuple(sorted(blocked, key=lambda n: (n not in m.incident.holds, n)))
