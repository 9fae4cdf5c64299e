"""RUNNING-to-lost gap statistics and money burned: the numbers a wave's diagnosis rests on."""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING, Iterable, Sequence

if TYPE_CHECKING:  # annotations only: pydantic is not imported before the panel's first frame
    from sagan_tui.core.models import Loss

# "Tight" gaps: a reaper on a timer lands within seconds of its mark; a workload crashing
# spreads over minutes. The judgement is on the IQR, never max-min or a standard deviation, and
# relative to the gap itself (a simulator at --speed 8 squeezes 60 s into 7.5 s): tight when the
# IQR is within 10% of the median (at least 2 s), plus how precisely the losses were timed
# (lost_at - last_seen_at: a poll only brackets the moment).
TIGHT_FRACTION = 0.10
TIGHT_FLOOR_S = 2.0
TIGHT_MIN_N = 3
# A pod is "long-running" (a bystander of the sweep, not its target, as DOMAIN.md's table marks
# lqpfpmbytlgded) when its gap is over 3x the wave's median and far outside the rest (5 median
# absolute deviations). Both are ratios, so the rule holds at any time scale; it is left out of
# the median and spread.
LONG_FACTOR = 3.0
LONG_MADS = 5.0
LONG_MIN_N = 3


def gap_of(loss: Loss) -> float | None:
    """Seconds from RUNNING to lost, None when RUNNING is unknown or after the loss."""
    if loss.running_at is None:
        return None
    g = (loss.lost_at - loss.running_at).total_seconds()
    return g if g >= 0 else None


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


def resolution(losses: Iterable[Loss]) -> float:
    """Median seconds between a loss's last sighting and its lost_at: how finely the polls timed them."""
    spans = [(x.lost_at - x.last_seen_at).total_seconds() for x in losses if x.last_seen_at is not None]
    return max(0.0, statistics.median(spans)) if spans else 0.0


def tight_limit(median_s: float, resolution_s: float = 0.0) -> float:
    """The largest IQR still called a cluster around `median_s`."""
    return max(TIGHT_FLOOR_S, TIGHT_FRACTION * median_s) + resolution_s


def is_tight(values: Sequence[float], resolution_s: float = 0.0) -> bool:
    q = quartiles(values)
    return q is not None and len(values) >= TIGHT_MIN_N and q[2] - q[0] <= tight_limit(q[1], resolution_s)


def long_running_flags(values: Sequence[float]) -> list[bool]:
    """Which gaps are long-running outliers: over LONG_FACTOR x the median and LONG_MADS median
    absolute deviations above it. Too few gaps (under LONG_MIN_N) to tell: none."""
    if len(values) < LONG_MIN_N:
        return [False] * len(values)
    med = statistics.median(values)
    mad = statistics.median(abs(g - med) for g in values)
    return [g > LONG_FACTOR * med and g - med > LONG_MADS * mad for g in values]


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
