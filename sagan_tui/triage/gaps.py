"""RUNNING-to-lost gap statistics and money burned: the numbers a wave's diagnosis rests on."""

from __future__ import annotations

import statistics
from datetime import datetime, timezone
from operator import attrgetter
from typing import Iterable, Sequence

from sagan_tui.models import Loss

# "Tight" gaps: a reaper on a timer lands within seconds of its mark; a workload crashing
# spreads over minutes. IQR rather than max-min so that one long-running pod killed in the
# same sweep does not hide the cluster.
TIGHT_IQR_S = 10.0
TIGHT_MIN_N = 3
# A pod is "long-running" (a bystander of the sweep, not its target) when its gap is far
# beyond the wave's typical one: over 3x the median and over 5 minutes more than it.
LONG_FACTOR = 3.0
LONG_MARGIN_S = 300.0

_UTC = timezone.utc
_lost_at = attrgetter("lost_at")


def lost_times(losses: Sequence[Loss]) -> list[float]:
    """POSIX seconds of each lost_at, naive datetimes read as UTC (as models.as_utc does)."""
    return [d.timestamp() if d.tzinfo is not None else d.replace(tzinfo=_UTC).timestamp()
            for d in map(_lost_at, losses)]


def gap_of(loss: Loss) -> float | None:
    """Seconds from RUNNING to lost, None when RUNNING is unknown or after the loss."""
    if loss.running_at is None:
        return None
    g = (loss.lost_at - loss.running_at).total_seconds()
    return g if g >= 0 else None


def known_gaps(losses: Iterable[Loss]) -> list[float]:
    return [g for g in map(gap_of, losses) if g is not None]


def quartiles(values: Sequence[float]) -> tuple[float, float, float] | None:
    """(p25, median, p75), inclusive method; None for no values."""
    if not values:
        return None
    if len(values) == 1:
        return values[0], values[0], values[0]
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q2, q3


def median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def is_tight(values: Sequence[float]) -> bool:
    q = quartiles(values)
    return q is not None and len(values) >= TIGHT_MIN_N and q[2] - q[0] <= TIGHT_IQR_S


def is_long_running(gap: float | None, median_s: float | None) -> bool:
    if gap is None or median_s is None:
        return False
    return gap > max(LONG_FACTOR * median_s, median_s + LONG_MARGIN_S)


def burn_of(loss: Loss) -> float | None:
    """Dollars of GPU time the pod ran before it was lost; None when price or RUNNING is unknown."""
    g = gap_of(loss)
    if g is None or loss.cost_per_hr is None:
        return None
    return loss.cost_per_hr * g / 3600.0


def burn(losses: Iterable[Loss]) -> tuple[float, int]:
    """(dollars burned, how many losses could not be priced)."""
    total, unknown = 0.0, 0
    for b in map(burn_of, losses):
        if b is None:
            unknown += 1
        else:
            total += b
    return total, unknown


def ago(then: datetime, now: datetime) -> float:
    return (now - then).total_seconds()
