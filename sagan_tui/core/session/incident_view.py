"""The incident's lines, fed from the panel model after each poll, and its view for the wave
panel: plain text and ids only (the UI displays them, it computes nothing). `IncidentLines` is
an object the model composes; it reads the model's tables through `IncidentTables`."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol, Sequence

from sagan_tui.core.session.incident import Look, wave_key
from sagan_tui.wire import fmt
from sagan_tui.core.triage.canary import Canary

if TYPE_CHECKING:
    from sagan_tui.core.config_model import Settings
    from sagan_tui.core.models import Experiment, Loss
    from sagan_tui.core.session.incident import IncidentWatch
    from sagan_tui.core.store.cache import Cache, CachedPod
    from sagan_tui.core.triage import Wave


class IncidentTables(Protocol):
    """What the incident's lines read of the model (PanelModel): its tables as last read, the
    incident's state it keeps (the watch, the canary, the containment), and its clock."""

    settings: "Settings"
    cache: "Cache"
    clock: "Callable[[], datetime]"
    experiments: "dict[int, Experiment]"
    pods: "dict[str, CachedPod]"
    losses: "list[Loss]"
    waves: "list[Wave]"
    incident: "IncidentWatch"
    canary: "Canary | None"
    containment: Any

    def active_wave(self) -> "Wave | None": ...
    def active_forming(self) -> list: ...


class IncidentLines:
    """Acknowledgements and holds read at load, the incident's news after each poll, the canary
    followed, and the fields of the IncidentView the wave panel shows."""

    def __init__(self, tables: IncidentTables):
        self.t = tables  # the model, as far as the incident reads it

    def load(self) -> None:
        """Acknowledgements from the cache, and the owner's holds still in force (from the audit log)."""
        self.t.incident.opened(self.t.clock())
        for key, (_at, pods, accounts, cause, confidence) in self.t.cache.incident_rows.wave_acks().items():
            self.t.incident.acks[key] = Look(pods, accounts, cause, confidence)
        latest: dict[int, Any] = {}
        for a in self.t.cache.actions(limit=2000):  # newest first
            if a.result == "ok" and a.action in ("hold", "release") and a.target[1:].isdigit():
                latest.setdefault(int(a.target[1:]), a)
        for n, a in latest.items():
            e = self.t.experiments.get(n)
            if a.action == "hold" and e is not None and e.status == "blocked":
                self.t.incident.held(n, a.at)

    def news(self, changes: Any, status_before: Mapping[int, str], new_waves: tuple,
             losses_moved: bool, now: datetime) -> tuple[tuple[str, str], ...]:
        """What this poll tells the owner about the incident, as (title, line)."""
        w = self.t.incident
        out: list[tuple[str, str]] = []
        if changes.new_losses:
            w.losses_seen(len(changes.new_losses), now)
        if losses_moved:
            out += [("Reaping wave grew", line) for line in w.growth(self.t.waves, now)]
            out += [("Watch", line) for line in w.forming_news(self.t.active_forming())]
        statuses = {}
        for n in changes.experiments:
            e = self.t.experiments.get(n)
            if e is not None and n in w.holds:
                statuses[n] = (status_before.get(n), e.status, e.updated_at)
        new_pods: dict[int, list] = {}
        for pid in changes.pods_changed:
            cp = self.t.pods.get(pid)
            if cp is not None and cp.experiment in w.holds:
                new_pods.setdefault(cp.experiment, []).append((pid, cp.first_seen_at))
        out += [("Hold overridden", line) for line in w.overrides(statuses, new_pods, now)]
        out += [("Canary", line) for line in self._canary_step(now)]
        return tuple(out)

    def _canary_step(self, now: datetime) -> list[str]:
        c = self.t.canary
        if c is None:
            return []
        before = c.state(now)
        if c.pod_id is None:
            mine = sorted((p for p in self.t.pods.values() if p.experiment == c.experiment and p.running_at is not None
                           and p.pod_id not in c.known and p.gone_at is None), key=lambda p: p.running_at)
            if mine:
                p = mine[0]
                c = c.saw_running(p.pod_id, p.running_at if p.running_at >= c.dispatched_at else now)
        if c.pod_id is not None:
            lost = next((x for x in self.t.losses if x.pod_id == c.pod_id), None)
            if lost is not None:
                c = c.saw_lost(c.pod_id, lost.lost_at)
        self.t.canary = c
        after = c.state(now)
        return [c.text(now)] if after != before and after in ("passed", "lost") else []

    def view(self) -> dict[str, Any]:
        """The incident's lines and the wave shown (IncidentView's incident fields)."""
        now = self.t.clock()
        away = self.t.settings.away_minutes
        shown, active_until = shown_of(self.t.waves, now, self.t.settings.guard_minutes)
        return {
            "shown": shown,
            "active_until": active_until,
            "forming": tuple(c.headline for c in self.t.active_forming()),
            "canary": self.t.canary.text(now) if self.t.canary is not None else "",
            "since_looked": self.t.incident.since_you_looked(now, away),
            "overrides": tuple(sorted(self.t.incident.warnings.items())),
            "acknowledged": tuple(wave_key(x) for x in self.t.waves if self.t.incident.is_acknowledged(x)),
            "containment": self.t.containment.lines(now) if self.t.containment is not None else (),
        }

    def acknowledge(self) -> str:
        """Acknowledge the wave on screen (the active one, else the latest): persisted; quiet until it
        grows. What was done, in words (the wave panel redraws: core/session/owner.py)."""
        wave = self.t.active_wave() or (self.t.waves[-1] if self.t.waves else None)
        if wave is None:
            return "no wave to acknowledge"
        look = self.t.incident.acknowledge(wave)
        self.t.cache.incident_rows.ack_wave(wave_key(wave), self.t.clock(), look.pods, look.accounts, look.cause,
                                            look.confidence)
        return (f"acknowledged the wave {fmt.window(wave.start, wave.end)} ({look.pods} pods): "
                "no more notifications for it until it grows")

    def start_canary(self, number: int, held: tuple[int, ...]) -> str:
        """`number` watched as the canary; its line, as the wave panel shows it."""
        wave = self.t.active_wave() or (self.t.waves[-1] if self.t.waves else None)
        kill = wave.gap_median_s if wave is not None else None
        known = {p.pod_id for p in self.t.pods.values() if p.experiment == number}
        self.t.canary = Canary.start(number, self.t.clock(), kill, held, known)
        return self.t.canary.text(self.t.clock())

    def held_now(self) -> tuple[int, ...]:
        """The incident's holds: experiments blocked now that the owner held, or that lost pods in
        the wave on screen (or a forming cluster), the owner's holds first. An experiment blocked
        for another reason (last week's, no pod in the wave) is no canary's to release."""
        wave = self.t.active_wave() or (self.t.waves[-1] if self.t.waves else None)
        ours = {*self.t.incident.holds, *(wave.experiments if wave is not None else ()),
                *(x.experiment for c in self.t.active_forming() for x in c.losses)}
        blocked = [n for n, e in self.t.experiments.items() if e.status == "blocked" and n in ours]
        return tuple(sorted(blocked, key=lambda n: (n not in self.t.incident.holds, n)))


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
