"""Losses indexed by time once (floats, sorted order), shared by waves and the heatmap grid."""

from __future__ import annotations

import threading
from bisect import bisect_left, bisect_right
from operator import attrgetter, is_
from typing import Iterable

from sagan_tui.models import Loss
from sagan_tui.triage.gaps import lost_times


class Timeline:
    """The losses (a snapshot tuple), their lost_at as POSIX seconds, and the order that sorts them.

    With a million losses the cost is reading each object once (cache misses, not arithmetic)
    and the sort, so a Timeline is built once and shared: find_waves and build_grid take one,
    and `Timeline.of` hands back the last one built when given the very same Loss objects in
    the same order (checked by identity, element by element). Losses are treated as values:
    a Loss mutated in place after being analysed is not noticed.
    """

    __slots__ = ("losses", "times", "order", "sorted_times", "_columns")

    _last: Timeline | None = None
    _lock = threading.Lock()

    def __init__(self, losses: Iterable[Loss]):
        self.losses: tuple[Loss, ...] = tuple(losses)
        self.times: list[float] = lost_times(self.losses)
        self.order: list[int] = sorted(range(len(self.times)), key=self.times.__getitem__)
        self.sorted_times: list[float] = list(map(self.times.__getitem__, self.order))
        self._columns: dict[str, list] = {}

    @classmethod
    def of(cls, losses: Iterable[Loss] | Timeline) -> Timeline:
        if isinstance(losses, Timeline):
            return losses
        items = losses if isinstance(losses, (list, tuple)) else list(losses)
        last = cls._last
        if last is not None and len(last.losses) == len(items) and all(map(is_, last.losses, items)):
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

    def column(self, attr: str) -> list:
        """One attribute of every loss, in input order, read once and kept (the grid's rows)."""
        col = self._columns.get(attr)
        if col is None:
            col = self._columns[attr] = list(map(attrgetter(attr), self.losses))
        return col
