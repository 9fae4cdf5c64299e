"""Losses indexed by time once (floats, sorted order), shared by waves and the heatmap grid."""

from __future__ import annotations

import threading
from array import array
from bisect import bisect_left, bisect_right
from datetime import datetime, timedelta, timezone
from itertools import compress, repeat
from operator import attrgetter, is_not, itemgetter, sub
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

if TYPE_CHECKING:  # annotations only: pydantic is not imported before the panel's first frame
    from sagan_tui.core.models import Loss

_UTC = timezone.utc
_NAN = float("nan")
_EPOCH = datetime(1970, 1, 1, tzinfo=_UTC)
_SECONDS = timedelta.total_seconds
_LOST_AT, _RUNNING_AT, _LAST_SEEN = attrgetter("lost_at"), attrgetter("running_at"), attrgetter("last_seen_at")


class Timeline:
    """The losses (a snapshot tuple), their lost_at as POSIX seconds, and the order that sorts them.

    With a million losses the cost is reading each object's times (cache misses, and the
    datetime arithmetic of `timestamp()`) and the sort, so a Timeline is built once and shared:
    find_waves and build_grid take one, and `Timeline.of` hands back the last one built when
    given the same losses in the same order (equal element by element). Losses are treated as
    values: a Loss mutated in place after being analysed is not noticed.
    """

    __slots__ = ("losses", "times", "order", "sorted_times", "_columns", "_gaps_in", "_gaps", "_polled", "_in_order")

    _last: Timeline | None = None
    _lock = threading.Lock()

    def __init__(self, losses: Iterable[Loss]):
        self.losses: tuple[Loss, ...] = tuple(losses)
        # Each column is read and converted in C (attrgetter, map), with no Python work per
        # loss; the grid's columns are read when it asks for them.
        times = posix_seconds(self.losses, _LOST_AT)
        self.times = array("d", times)  # gathered from, below: each read makes a new float
        self._gaps_in = gaps_since(self.losses, times)
        self._columns: dict[str, list] = {}
        # The sort's keys are the list's floats (an array's would be made anew, one per key).
        self.order = array("q", sorted(range(len(times)), key=times.__getitem__))
        # Every column read in sorted order (times, gaps, the grid's rows) goes through one
        # itemgetter of all the positions, made once: a gather in C, with its position ints new
        # and laid out in order (the sort's own, scattered, would cost a cache miss each).
        self._in_order = itemgetter(*self.order) if len(self.order) > 1 else None
        # The sorted times are then new floats laid out in sorted order too: the passes that
        # follow (wave_spans, the follow rule, the grid) read them in that order.
        self.sorted_times: tuple[float, ...] = self.in_order(self.times)
        self._gaps: tuple[float, ...] | None = None
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

    def in_order(self, column: Sequence) -> tuple:
        """A column of every loss (input order) in sorted order. A tuple: a tuple of floats or
        strings leaves the collector's care at its first collection, a list of a million is
        walked by every collection until it is old."""
        if self._in_order is None:  # itemgetter of one position returns the item, not a tuple
            return tuple(column[i] for i in self.order)
        return self._in_order(column)

    def sorted_losses(self, i: int = 0, j: int | None = None) -> list[Loss]:
        if i == 0 and (j is None or j >= len(self.losses)):
            return list(self.in_order(self.losses))
        return gather(self.losses, self.order[i:j])

    def sorted_gaps(self) -> tuple[float, ...]:
        """Every loss's RUNNING-to-lost seconds in sorted order: NaN when RUNNING is unknown (a
        negative one is dropped where gaps are read). Kept: the following rule reads it per loss."""
        if self._gaps is None:
            self._gaps = self.in_order(self._gaps_in)
        return self._gaps

    def any_polled(self) -> bool:
        """Whether any loss carries a last sighting (timed by a poll rather than exactly)."""
        if self._polled is None:
            self._polled = any(map(_LAST_SEEN, self.losses))  # a datetime is true, None false
        return self._polled

    def column(self, attr: str) -> list:
        """One attribute of every loss, in input order, read on first use and kept (the grid's rows)."""
        col = self._columns.get(attr)
        if col is None:
            col = self._columns[attr] = list(map(attrgetter(attr), self.losses))
        return col


def gather(source: Sequence, positions: Sequence[int]) -> list:
    """`[source[i] for i in positions]`, in C: one itemgetter of all the positions, which costs
    half as much as a million calls of `source.__getitem__` through map."""
    if len(positions) < 2:
        return [source[i] for i in positions]  # itemgetter of one position returns the item itself
    return list(itemgetter(*positions)(source))


def posix_seconds(items: Sequence, get: Callable[[object], datetime] | None = None) -> list[float]:
    """`get(x).timestamp()` of each item (the items themselves without `get`), naive datetimes
    read as UTC, bit for bit; a None has no time and raises.

    One visit per item, in C: an aware datetime less the epoch, in seconds, is what its own
    `timestamp()` computes. A naive one cannot be subtracted from the (aware) epoch, and its own
    `timestamp()` would read it as local time, so it sends the column through a Python function.
    """
    stamps = items if get is None else map(get, items)
    try:
        return list(map(_SECONDS, map(sub, stamps, repeat(_EPOCH))))
    except TypeError:
        return list(map(_posix, items if get is None else map(get, items)))


def gaps_since(items: Sequence, times: Sequence[float]) -> array:
    """Each item's lost_at less its running_at, in seconds (a loss's RUNNING-to-lost gap, as
    gaps.gap_of reads it: one datetime subtraction, exact to the microsecond), NaN where
    running_at is None; `times` are the lost_at as POSIX seconds, for the columns with a None
    or a naive datetime among them (seconds_since).

    A loss's two times are read one right after the other (two attrgetters side by side in
    one map): the loss is still at hand for the second read, and its two datetimes were made
    together; read from a column of lost_at instead, each loss was visited twice."""
    try:
        return array("d", list(map(_SECONDS, map(sub, map(_LOST_AT, items), map(_RUNNING_AT, items)))))
    except TypeError:  # a None (no time) or a naive datetime beside an aware one
        return seconds_since(times, items, _RUNNING_AT)


def seconds_since(times: Sequence[float], items: Sequence, get: Callable[[object], datetime | None] | None = None
                  ) -> array:
    """Each of `times` (POSIX seconds) less the POSIX seconds of `get(x)` for the item beside it
    (the item itself without `get`; the loss's running_at, for its RUNNING-to-lost gap): the two
    floats subtracted, NaN where that time is None."""
    stamps = items if get is None else map(get, items)
    try:
        # (an array made from a list: from an iterator it grows one item at a time)
        return array("d", list(map(sub, times, map(_SECONDS, map(sub, stamps, repeat(_EPOCH))))))
    except TypeError:  # a None (no time) or a naive datetime among them: both handled below
        pass
    stamps = list(items if get is None else map(get, items))
    known = list(compress(stamps, map(is_not, stamps, repeat(None))))
    seconds = iter(posix_seconds(known)).__next__
    return array("d", [_NAN if d is None else t - seconds() for t, d in zip(times, stamps)])


def _posix(d: datetime) -> float:
    return d.timestamp() if d.tzinfo is not None else d.replace(tzinfo=_UTC).timestamp()
