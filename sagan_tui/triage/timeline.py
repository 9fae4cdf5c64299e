"""Losses indexed by time once (floats, sorted order), shared by waves and the heatmap grid."""

from __future__ import annotations

import threading
from bisect import bisect_left, bisect_right
from datetime import timezone
from operator import attrgetter
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:  # annotations only: pydantic is not imported before the panel's first frame
    from sagan_tui.models import Loss

_UTC = timezone.utc
_NAN = float("nan")


class Timeline:
    """The losses (a snapshot tuple), their lost_at as POSIX seconds, and the order that sorts them.

    With a million losses the cost is reading each object once (cache misses, not arithmetic)
    and the sort, so a Timeline is built once and shared: find_waves and build_grid take one,
    and `Timeline.of` hands back the last one built when given the same losses in the same
    order (equal element by element). Losses are treated as values: a Loss mutated in place
    after being analysed is not noticed.
    """

    __slots__ = ("losses", "times", "order", "sorted_times", "_columns", "_gaps_in", "_gaps", "_polled")

    _last: Timeline | None = None
    _lock = threading.Lock()

    def __init__(self, losses: Iterable[Loss]):
        self.losses: tuple[Loss, ...] = tuple(losses)
        self.times, accounts, self._gaps_in = _read(self.losses)
        self._columns: dict[str, list] = {"account": accounts}
        self.order: list[int] = sorted(range(len(self.times)), key=self.times.__getitem__)
        self.sorted_times: list[float] = list(map(self.times.__getitem__, self.order))
        self._gaps: list[float] | None = None
        self._polled: bool | None = None

    @classmethod
    def of(cls, losses: Iterable[Loss] | Timeline) -> Timeline:
        if isinstance(losses, Timeline):
            return losses
        items = losses if isinstance(losses, tuple) else tuple(losses)
        last = cls._last
        # Tuple equality runs in C and short-cuts on identity, so the same Loss objects cost
        # milliseconds to recognise; equal-but-distinct losses (a re-read cache) match too.
        if last is not None and last.losses == items:
            return last
        built = cls(items)
        with cls._lock:
            cls._last = built
        return built

    def __len__(self) -> int:
        return len(self.losses)

    def span(self, lo: float, hi: float) -> tuple[int, int]:
        """[i, j) positions in sorted order of the losses with lo <= lost_at <= hi."""
        return bisect_left(self.sorted_times, lo), bisect_right(self.sorted_times, hi)

    def sorted_losses(self, i: int = 0, j: int | None = None) -> list[Loss]:
        return list(map(self.losses.__getitem__, self.order[i:j]))

    def sorted_gaps(self) -> list[float]:
        """Every loss's RUNNING-to-lost seconds in sorted order: NaN when RUNNING is unknown (a
        negative one is dropped where gaps are read). Kept: the following rule reads it per loss."""
        if self._gaps is None:
            self._gaps = list(map(self._gaps_in.__getitem__, self.order))
        return self._gaps

    def any_polled(self) -> bool:
        """Whether any loss carries a last sighting (timed by a poll rather than exactly)."""
        if self._polled is None:
            seen = self.column("last_seen_at")
            self._polled = seen.count(None) < len(seen)
        return self._polled

    def column(self, attr: str) -> list:
        """One attribute of every loss, in input order, read once and kept (the grid's rows)."""
        col = self._columns.get(attr)
        if col is None:
            col = self._columns[attr] = list(map(attrgetter(attr), self.losses))
        return col


def _read(losses: Iterable[Loss]) -> tuple[list[float], list[str], list[float]]:
    """lost_at as POSIX seconds (naive read as UTC), the account and the seconds from running_at
    to lost_at (NaN when running_at is unknown), in one visit per loss.

    Reading an object costs cache misses, not arithmetic: the account (the heatmap's first
    dimension) and running_at (the following rule's gaps) come nearly free while the object is
    at hand; a second pass over a million objects would cost half as much again.
    """
    times: list[float] = []
    accounts: list[str] = []
    gaps: list[float] = []
    add_time, add_account, add_gap = times.append, accounts.append, gaps.append
    for x in losses:
        d = x.lost_at
        t = d.timestamp() if d.tzinfo is not None else d.replace(tzinfo=_UTC).timestamp()
        add_time(t)
        add_account(x.account)
        r = x.running_at
        add_gap(_NAN if r is None else t - (r.timestamp() if r.tzinfo is not None
                                            else r.replace(tzinfo=_UTC).timestamp()))
    return times, accounts, gaps
