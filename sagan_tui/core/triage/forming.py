"""Forming clusters: correlated losses that are not yet a wave, the early warning at the second loss.

A run of the chaining gap (waves.py) too short to found a wave (at least 2 losses, fewer than
`min_losses`), none of them inside a wave, is *forming* when its losses share a signature: the
same kill time after RUNNING (within the tight limit of gaps.py, a few seconds) or one known
machine. The second loss is when one more re-dispatch can still be saved, so a forming cluster
is shown, notified once and arms the dispatch guard like a wave. Two losses that share neither
(different run times on different machines: a workload crash here, a spot reclaim there) and
a single loss arm nothing. A cluster that grows into a wave leaves `forming`, as it is then
in a wave. Lone losses of one kill time chain across the `horizon` as they do into a wave
(chains.py): the second loss of a slow burn, four minutes after the first, is forming.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Iterable, Sequence

from sagan_tui.wire import fmt
from sagan_tui.core.triage import gaps as G
from sagan_tui.core.triage.timeline import Timeline
from sagan_tui.core.triage.waves import GUARD_MINUTES, HORIZON_MINUTES, Wave, wave_spans

if TYPE_CHECKING:
    from sagan_tui.core.models import Loss


@dataclass(frozen=True)
class Forming:
    """Two or more correlated losses, ordered by lost_at, and why they look related."""

    losses: tuple[Loss, ...]
    reason: str  # "2 pods lost 6 s apart, both ~60 s after RUNNING"

    @property
    def pod_ids(self) -> tuple[str, ...]:
        return tuple(x.pod_id for x in self.losses)

    @property
    def start(self) -> datetime:
        return self.losses[0].lost_at

    @property
    def end(self) -> datetime:
        return self.losses[-1].lost_at

    @property
    def accounts(self) -> tuple[str, ...]:
        return tuple(sorted({x.account for x in self.losses}))

    @property
    def headline(self) -> str:
        return f"WATCH: {self.reason}"

    def to_json(self) -> dict:
        return {"pod_ids": list(self.pod_ids), "reason": self.reason,
                "start": _iso(self.start), "end": _iso(self.end), "accounts": list(self.accounts)}


def _iso(d: datetime) -> str:
    return d.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def _reason(losses: Sequence[Loss]) -> str | None:
    apart = fmt.duration((losses[-1].lost_at - losses[0].lost_at).total_seconds())
    n = len(losses)
    both = "both" if n == 2 else "all"
    gaps = [G.gap_of(x) for x in losses]
    if None not in gaps:
        med = G.median(gaps)
        if max(gaps) - min(gaps) <= G.tight_limit(med, G.resolution(losses)):
            return f"{n} pods lost {apart} apart, {both} ~{fmt.duration(med)} after RUNNING"
    hosts = {x.host for x in losses}
    if len(hosts) == 1 and None not in hosts:
        return f"{n} pods lost {apart} apart, {both} on machine {next(iter(hosts))}"
    return None


def find_forming(losses: Iterable[Loss] | Timeline, waves: Sequence[Wave], gap: float = 90.0,
                 min_losses: int = 3, horizon_minutes: float = HORIZON_MINUTES) -> list[Forming]:
    """The forming clusters among `losses` outside `waves` (found with the same gap and horizon),
    oldest first."""
    from sagan_tui.core.triage.chains import lone_chains

    if min_losses <= 2:
        return []  # a pair is already a wave
    tl = Timeline.of(losses)
    inside = {id(x) for w in waves for x in w.losses}
    out = []
    for a, b in wave_spans(tl.sorted_times, gap, 2):
        if b - a >= min_losses:
            continue
        run = sorted((x for x in tl.sorted_losses(a, b) if id(x) not in inside),
                     key=lambda x: (x.lost_at, x.pod_id))
        if len(run) >= 2 and (why := _reason(run)) is not None:
            out.append(Forming(tuple(run), why))
    shown = {id(x) for c in out for x in c.losses}
    for chain in lone_chains(tl, waves, horizon_minutes * 60.0):
        run = sorted((tl.losses[tl.order[p]] for p in chain), key=lambda x: (x.lost_at, x.pod_id))
        if len(run) < min_losses and not shown.intersection(map(id, run)) and (why := _reason(run)) is not None:
            out.append(Forming(tuple(run), why))
    return sorted(out, key=lambda c: (c.start, c.pod_ids))


def active_forming(clusters: Iterable[Forming], now: datetime,
                   guard_minutes: float = GUARD_MINUTES) -> list[Forming]:
    """The clusters whose last loss is within guard_minutes of now (and not after a replay's now)."""
    cutoff = now - timedelta(minutes=guard_minutes)
    return [c for c in clusters if c.end >= cutoff and c.start <= now]
