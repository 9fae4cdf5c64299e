"""Heatmap grid: losses binned by time bucket (columns) and one dimension (rows)."""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from itertools import compress, count, islice, repeat
from operator import attrgetter, gt, is_, not_, sub
from typing import TYPE_CHECKING, Iterable, Iterator

from sagan_tui.core.collector_pause import collector_paused
from sagan_tui.wire.heatmap_layout import DIMENSIONS, shade  # noqa: F401  (shade: the legend's rule)
from sagan_tui.wire.fmt import utc
from sagan_tui.core.triage.timeline import Timeline

if TYPE_CHECKING:  # annotations only: pydantic is not imported before the panel's first frame
    from sagan_tui.core.models import Loss

UNKNOWN = "?"
# Bucket sizes a person reads without arithmetic; past a day, whole days.
NICE_STEPS = (10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400)
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_FIRST, _STOP = attrgetter("first"), attrgetter("stop")  # a wave's positions run from first to stop - 1
_PLACE = attrgetter("timeline", "first", "stop")
_FEW = 8  # distinct values a grid counts one by one (more: Counter)


def _label(dimension: str, value: object) -> str:
    if value is None or value == "":
        return UNKNOWN
    return f"#{value}" if dimension == "experiment" else str(value)


@dataclass(frozen=True)
class HeatGrid:
    dimension: str
    rows: tuple[str, ...]  # most losses first, "?" (unknown) last
    bucket_starts: tuple[datetime, ...]
    bucket_s: float
    counts: tuple[tuple[int, ...], ...]  # rows x buckets
    max_count: int
    wave_columns: frozenset[int]  # columns a wave touches
    start: datetime  # the window asked for; losses with start <= lost_at <= end are counted
    end: datetime
    # What it was built from, for cell_losses; plain losses given here are indexed on the spot.
    timeline: Timeline | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.timeline is not None and not isinstance(self.timeline, Timeline):
            object.__setattr__(self, "timeline", Timeline.of(self.timeline))

    @property
    def total(self) -> int:
        return sum(map(sum, self.counts))

    def _edges(self) -> list[float]:
        # Column k holds first + k*step <= t < first + (k+1)*step, clipped to the window; the
        # last column also holds `end` itself.
        lo, hi = utc(self.start).timestamp(), utc(self.end).timestamp()
        first = self.bucket_starts[0].timestamp()
        return [lo, *(first + k * self.bucket_s for k in range(1, len(self.bucket_starts))), hi]

    def column_of(self, when: datetime) -> int | None:
        """The column holding `when`, None outside the window."""
        edges = self._edges()
        t = utc(when).timestamp()
        return _column(edges, t) if edges[0] <= t <= edges[-1] else None

    def cell_losses(self, row: int | str, col: int) -> list[Loss]:
        """The losses of one cell (row by index or label), ordered by lost_at: what a selected cell lists."""
        if self.timeline is None or not 0 <= col < len(self.bucket_starts):
            return []
        label = self.rows[row] if isinstance(row, int) else row
        edges = self._edges()
        a, b = _column_span(self.timeline, edges, col)
        get = attrgetter(self.dimension)
        hits = [x for x in self.timeline.sorted_losses(a, b) if _label(self.dimension, get(x)) == label]
        return sorted(hits, key=lambda x: (x.lost_at, x.pod_id))


def _column(edges: list[float], t: float) -> int:
    return min(bisect_right(edges, t) - 1, len(edges) - 2)


def _column_span(tl: Timeline, edges: list[float], col: int) -> tuple[int, int]:
    """[i, j) sorted positions of the losses in column `col`."""
    st = tl.sorted_times
    a = bisect_left(st, edges[col])
    b = bisect_right(st, edges[-1]) if col == len(edges) - 2 else bisect_left(st, edges[col + 1])
    return a, b


def _steps(start_s: float, end_s: float, width: int) -> Iterator[int]:
    yield from NICE_STEPS
    days = max(1, math.ceil((end_s - start_s) / width / 86400))
    yield from (86400 * d for d in count(days))


def bucket_seconds(start_s: float, end_s: float, width: int) -> tuple[float, float, int]:
    """(bucket seconds, aligned first bucket start, columns): the smallest nice step that fits `width`."""
    for step in _steps(start_s, end_s, width):
        first = math.floor(start_s / step) * step
        cols = max(1, math.ceil((end_s - first) / step))
        if cols <= width:
            return float(step), float(first), cols
    raise AssertionError("unreachable: the day steps grow without bound")


def build_grid(losses: Iterable[Loss] | Timeline, dimension: str, start: datetime, end: datetime,
               width: int, waves: Iterable = ()) -> HeatGrid:
    """Bin the losses whose lost_at lies in [start, end] into at most `width` time columns."""
    with collector_paused():  # one synchronous step over acyclic objects (collector_pause.py)
        return _build_grid(losses, dimension, start, end, width, waves)


def _build_grid(losses: Iterable[Loss] | Timeline, dimension: str, start: datetime, end: datetime,
                width: int, waves: Iterable) -> HeatGrid:
    if dimension not in DIMENSIONS:
        raise ValueError(f"dimension must be one of {', '.join(DIMENSIONS)}, not {dimension!r}")
    if width < 1:
        raise ValueError("width must be >= 1")
    if end < start:
        raise ValueError("end is before start")
    tl = Timeline.of(losses)
    lo, hi = utc(start).timestamp(), utc(end).timestamp()
    step, first, ncols = bucket_seconds(lo, hi, width)
    bucket_starts = tuple(_EPOCH + timedelta(seconds=first + i * step) for i in range(ncols))
    grid = HeatGrid(dimension, (), bucket_starts, step, (), 0, frozenset(), start, end, tl)
    # The hot path: the window's losses are one slice of the sorted order; each column is a
    # sub-slice found by bisection, counted in C over the raw attribute values.
    edges = grid._edges()
    i, j = tl.span(lo, hi)
    get = attrgetter(dimension)
    if (j - i) * 8 > len(tl):
        # Most of the losses are in the window: read them in input order (memory order, several
        # times faster than sorted order for a million objects), then permute the values.
        values = tl.in_order(tl.column(dimension))[i:j]
    else:
        values = list(map(get, tl.sorted_losses(i, j)))
    per_label: dict[str, list[int]] = {}
    # Few distinct values (accounts, GPU types, data centres): each counted in a column's slice
    # by list.count, in C and by identity first, where Counter hashes every loss's value.
    distinct = set(values)
    few = len(distinct) <= _FEW
    for col in range(ncols):
        a, b = _column_span(tl, edges, col)
        cell = values[a - i:b - i]
        counted = ((v, cell.count(v)) for v in distinct) if few else Counter(cell).items()
        for value, n in counted:
            if n:
                per_label.setdefault(_label(dimension, value), [0] * ncols)[col] += n
    rows = sorted(per_label, key=lambda r: (r == UNKNOWN, -sum(per_label[r]), _natural(r)))
    counts = tuple(tuple(per_label[r]) for r in rows)
    marked = _wave_columns(tl, waves, edges, lo, hi)
    return replace(grid, rows=tuple(rows), counts=counts, max_count=max((max(r) for r in counts), default=0),
                   wave_columns=frozenset(marked))


def _wave_columns(tl: Timeline, waves: Iterable, edges: list[float], lo: float, hi: float) -> set[int]:
    """The columns the waves touch: every run of a followed wave, each wave's span otherwise."""
    st = tl.sorted_times
    waves = list(waves)
    try:  # each wave visited once for all three (a visit costs a cache miss at 10^5 waves)
        tls, firsts, stops = zip(*map(_PLACE, waves)) if waves else ((), (), ())
    except AttributeError:  # not all Waves: the waves of this timeline picked one by one
        tls = tuple(getattr(w, "timeline", None) for w in waves)
        firsts = stops = None
    mine = list(map(is_, tls, repeat(tl)))
    ours = list(compress(waves, mine))
    rest = list(compress(waves, map(not_, mine)))
    # The common case: a wave of this timeline whose first and last losses fall in one column
    # of the window (a column is often longer than a wave's guard) marks that column, whether
    # or not it followed its cause across quiet minutes. A million scattered losses make ~10^5
    # waves, so this is done per column, not per wave: in sorted positions, column k holds
    # bounds[k] <= p < bounds[k + 1] (bisect_right(edges, st[p]) - 1 is p's column, as
    # _column reads a time inside the window), and the waves whose first loss lies there are a
    # slice of the waves in order of their first. A slice whose latest last loss is in the
    # column too marks it; only a wave that leaves its column is looked at on its own.
    ncols = len(edges) - 1
    bounds = [bisect_left(st, e) for e in edges]
    if firsts is None or len(ours) < len(waves) or any(map(gt, firsts, islice(firsts, 1, None))):
        ours.sort(key=_FIRST)  # (already in order, as find_waves gives them: one pass)
        firsts, stops = list(map(_FIRST, ours)), list(map(_STOP, ours))
    lasts = list(map(sub, stops, repeat(1)))
    marked: set[int] = set()
    i = bisect_left(firsts, bounds[0])  # the waves that start before the window
    rest.extend(w for w, last in zip(ours[:i], lasts) if last >= bounds[0])
    for k in range(ncols):
        j = bisect_left(firsts, bounds[k + 1])
        if j > i:
            if max(lasts[i:j]) < bounds[k + 1]:
                marked.add(k)
            else:
                for w, last in zip(ours[i:j], lasts[i:j]):
                    if last < bounds[k + 1]:
                        marked.add(k)
                    else:
                        rest.append(w)
        i = j
    rest.extend(ours[i:])  # they start at the window's end (lost exactly at `hi`) or past it
    for w in rest:
        members = getattr(w, "members", None)
        if members is not None and getattr(w, "timeline", None) is tl:
            # Followed across quiet minutes: its runs of the chaining gap, read from the times at
            # hand (bursts would weigh its kill time first).
            spans, a = [], st[members[0]]
            for p, q in zip(members, members[1:]):
                if st[q] - st[p] > w.gap:
                    spans.append((max(a, lo), min(st[p], hi)))
                    a = st[q]
            spans.append((max(a, lo), min(st[members[-1]], hi)))
        elif members is not None:
            spans = [(max(x.start.timestamp(), lo), min(x.end.timestamp(), hi)) for x in w.bursts]
        elif getattr(w, "timeline", None) is tl:  # its times are at hand: no datetime arithmetic
            spans = [(max(st[w.first], lo), min(st[w.stop - 1], hi))]
        else:
            spans = [(max(w.start.timestamp(), lo), min(w.end.timestamp(), hi))]
        for a, b in spans:
            if a > b:
                continue
            ca, cb = _column(edges, a), _column(edges, b)
            if ca == cb:
                marked.add(ca)  # the common case: a burst is minutes long, a column often longer
            else:
                marked.update(range(ca, cb + 1))
    return marked


def _natural(label: str) -> tuple:
    digits = label.lstrip("#")
    return (0, int(digits), "") if digits.isdigit() else (1, 0, label)
