"""Losses indexed by time once (floats, sorted order), shared by waves and the heatmap grid."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Iterable, Sequence

from sagan_tui.models import Loss
from sagan_tui.triage.gaps import lost_times


class Timeline:
    """`losses` as given, their lost_at as POSIX seconds, and the order that sorts them.

    Build one per set of losses and hand it to find_waves and build_grid (both also take plain
    losses): the million-loss cost is the per-object pass and the sort, so pay them once.
    The losses must not be mutated while the timeline is in use.
    """

    __slots__ = ("losses", "times", "order", "sorted_times")

    def __init__(self, losses: Iterable[Loss]):
        self.losses: Sequence[Loss] = losses if isinstance(losses, (list, tuple)) else list(losses)
        self.times: list[float] = lost_times(self.losses)
        self.order: list[int] = sorted(range(len(self.times)), key=self.times.__getitem__)
        self.sorted_times: list[float] = list(map(self.times.__getitem__, self.order))

    @classmethod
    def of(cls, losses: Iterable[Loss] | Timeline) -> Timeline:
        return losses if isinstance(losses, Timeline) else cls(losses)

    def __len__(self) -> int:
        return len(self.losses)

    def span(self, lo: float, hi: float) -> tuple[int, int]:
        """[i, j) positions in sorted order of the losses with lo <= lost_at <= hi."""
        return bisect_left(self.sorted_times, lo), bisect_right(self.sorted_times, hi)

    def sorted_losses(self, i: int = 0, j: int | None = None) -> list[Loss]:
        return list(map(self.losses.__getitem__, self.order[i:j]))
