"""The canary: one held experiment re-dispatched after a wave, watched past the wave's kill time.

States: `dispatched` (asked for, no pod RUNNING yet), `running` (its pod RUNNING, not yet past
the mark), `passed` (RUNNING past the wave's kill time plus a margin: propose releasing the
rest), `lost` (its pod lost: it joins the wave, nothing more is released). The mark is the
kill time plus MARGIN_S, and never under MIN_WATCH_S: the seed incident's unblock criterion
was one control dispatch running past the ~2-minute mark. Pure: the clock and the pod's
sightings are given.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from sagan_tui.wire import fmt

MARGIN_S = 60.0
MIN_WATCH_S = 120.0


def watch_seconds(kill_s: float | None) -> float:
    """How long the canary's pod must run: the wave's kill time plus a margin, at least 2 min."""
    return max(MIN_WATCH_S, (kill_s or 0.0) + MARGIN_S)


@dataclass(frozen=True)
class Canary:
    experiment: int
    dispatched_at: datetime
    watch_s: float
    held: tuple[int, ...] = ()  # the rest, released when it passes
    known: frozenset[str] = frozenset()  # the experiment's pods before the canary: not the canary
    pod_id: str | None = None
    running_at: datetime | None = None
    lost_at: datetime | None = None
    reheld_at: datetime | None = None  # held again by containment in the poll that saw it lost

    @classmethod
    def start(cls, experiment: int, now: datetime, kill_s: float | None, held=(), known=()) -> Canary:
        return cls(experiment, now, watch_seconds(kill_s), tuple(n for n in held if n != experiment),
                   frozenset(known))

    def saw_running(self, pod_id: str, running_at: datetime) -> Canary:
        """Its pod RUNNING since `running_at`; a time before the dispatch (another clock's) is
        not believed: the watch then starts when it was first seen RUNNING, which the caller gives."""
        if self.pod_id is not None or self.lost_at is not None or pod_id in self.known:
            return self
        return replace(self, pod_id=pod_id, running_at=running_at)

    def saw_lost(self, pod_id: str, lost_at: datetime) -> Canary:
        if pod_id != self.pod_id or self.lost_at is not None:
            return self
        return replace(self, lost_at=lost_at)

    def state(self, now: datetime) -> str:
        if self.lost_at is not None:
            return "lost"
        if self.running_at is None:
            return "dispatched"
        return "passed" if (now - self.running_at).total_seconds() >= self.watch_s else "running"

    def text(self, now: datetime) -> str:
        """One line for the wave panel."""
        head = f"canary {fmt.exp(self.experiment)}"
        state = self.state(now)
        mark = fmt.duration(self.watch_s)
        if state == "dispatched":
            return f"{head}: dispatched {fmt.duration(max(0.0, (now - self.dispatched_at).total_seconds()))} ago, " \
                   f"waiting for RUNNING"
        if state == "running":
            ran = max(0.0, (now - self.running_at).total_seconds())
            return f"{head}: running {_long(ran)} of {mark}"
        if state == "passed":
            rest = ", ".join(map(fmt.exp, self.held)) or "nothing else held"
            return f"{head}: passed ({self.pod_id} ran past {mark}): release the rest ({rest})"
        ran = (self.lost_at - self.running_at).total_seconds() if self.running_at else 0.0
        again = (f"{fmt.exp(self.experiment)} held again at {fmt.hms(self.reheld_at)}" if self.reheld_at
                 else f"holding {fmt.exp(self.experiment)} again")
        return f"{head}: lost after {_long(ran)} ({self.pod_id}): it joins the wave; {again}, the rest stay held"


def _long(seconds: float) -> str:
    """`1 min 12 s` even under two minutes, as a progress reads."""
    s = int(round(seconds))
    return f"{s // 60} min {s % 60} s" if s >= 60 else f"{s} s"
