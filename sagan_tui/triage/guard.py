"""Dispatch guard: whether re-dispatching an experiment needs its number typed, and why."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import datetime
from typing import Iterable, Sequence

from sagan_tui.models import Loss
from sagan_tui.triage import fmt
from sagan_tui.triage.diagnosis import Dispatch
from sagan_tui.triage.gaps import gap_of, median
from sagan_tui.triage.waves import Wave, active_wave, find_waves

DEFAULT_TRY_S = 90.0  # DOMAIN.md: a lost try runs ~90 s before it vanishes


@dataclass(frozen=True)
class GuardVerdict:
    needs_typed_confirmation: bool
    reasons: tuple[str, ...]
    wave: Wave | None  # the active wave, if any
    expected_burn_usd: float  # what one more lost try would cost
    summary: str  # one line for the "hold" note, "" when nothing is wrong


def wave_summary(wave: Wave) -> str:
    """`Reaping wave 10:53-10:55 UTC: 5 pods lost in team, personal, ~60 s after RUNNING`."""
    gap = "" if wave.gap_median_s is None else f", ~{wave.gap_median_s:.0f} s after RUNNING"
    return (f"Reaping wave {fmt.audit_window(wave.start, wave.end)}: {len(wave.losses)} pods lost in "
            f"{', '.join(wave.accounts)}{gap}")


def last_dispatches_lost(experiment: int, dispatches: Iterable[Sequence], lost_ids: set[str], n: int = 2) -> list[str]:
    """The pod ids of the experiment's last `n` dispatches when every one of them was lost, else []."""
    mine = sorted((Dispatch(*d) for d in dispatches if d[0] == experiment),
                  key=lambda d: (d.created_at is None, d.created_at or 0, d.pod_id))
    last = [d.pod_id for d in mine[-n:]]
    return last if len(last) == n and all(p in lost_ids for p in last) else []


def _try_cost(experiment: int, losses: Sequence[Loss], wave: Wave | None) -> tuple[float, float, float | None]:
    """(expected burn, price per hour used, seconds of one lost try)."""
    own = sorted((x for x in losses if x.experiment == experiment), key=lambda x: x.lost_at)
    price = next((x.cost_per_hr for x in reversed(own) if x.cost_per_hr is not None), None)
    if price is None and wave is not None:
        prices = [x.cost_per_hr for x in wave.losses if x.cost_per_hr is not None]
        price = statistics.fmean(prices) if prices else None
    seconds = wave.gap_median_s if wave is not None and wave.gap_median_s is not None else None
    if seconds is None:
        seconds = median([g for g in map(gap_of, own) if g is not None]) or DEFAULT_TRY_S
    return (0.0 if price is None else price * seconds / 3600.0), price or 0.0, seconds


def check_dispatch(experiment: int, losses: Sequence[Loss], dispatches: Iterable[Sequence], now: datetime,
                   guard_minutes: float = 15.0, waves: Sequence[Wave] | None = None) -> GuardVerdict:
    """Typed confirmation while a wave is active or when the experiment's last two dispatches were lost."""
    losses = list(losses)
    wave = active_wave(find_waves(losses) if waves is None else waves, now, guard_minutes)
    lost_two = last_dispatches_lost(experiment, dispatches, {x.pod_id for x in losses})
    burn, price, seconds = _try_cost(experiment, losses, wave)
    reasons, summary = [], ""
    if wave is not None:
        summary = wave_summary(wave)
        reasons.append(f"{summary}; last loss {fmt.duration(max(0.0, (now - wave.end).total_seconds()))} ago")
    if lost_two:
        line = f"{fmt.exp(experiment)} lost its last 2 dispatches ({', '.join(lost_two)}): a recovery loop"
        reasons.append(line)
        summary = summary or line
    if reasons and price:
        reasons.append(f"one more lost try costs ~{fmt.usd(burn)} ({fmt.usd(price)}/h x {fmt.duration(seconds)})")
    return GuardVerdict(bool(wave or lost_two), tuple(reasons), wave, burn, summary)
