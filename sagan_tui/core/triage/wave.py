"""The Wave record: a run of a Timeline's sorted losses, and what its losses are (bounds, bursts,
gaps, burn). What they mean is judged elsewhere, by functions that take the wave: its cause
signature (grouping.signature_of), its verdict (verdict.verdict_of), its findings
(diagnosis.diagnosis_of); finding and following waves is waves.py's and follow.py's."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from typing import TYPE_CHECKING, Iterable, Sequence

from sagan_tui.core.triage import gaps as G
from sagan_tui.core.triage.timeline import Timeline

BURST_FACTOR = 3.0  # successive losses further apart than this many kill times start a new burst
_NEW = object.__new__

if TYPE_CHECKING:  # annotations only: pydantic is not imported before the panel's first frame
    from sagan_tui.core.models import Loss
    from sagan_tui.core.triage.diagnosis import TriageContext


@dataclass(frozen=True, eq=False, repr=False)
class Wave:
    """One wave: a run of a Timeline's sorted losses. Its losses, summary and diagnosis are
    computed on first read and kept, so that finding the waves of a million losses costs
    little more than sorting them."""

    timeline: Timeline = field(repr=False)
    first: int  # the wave is positions [first, stop) of the timeline's sorted order
    stop: int
    context: TriageContext | None = field(default=None, repr=False)  # what `diagnosis` looks at
    # Positions in sorted order when the wave followed its cause past a run (ascending, from
    # first to stop - 1); None for a plain run [first, stop).
    members: tuple[int, ...] | None = field(default=None, repr=False)
    gap: float = field(default=90.0, repr=False)  # the chaining gap it was found with

    @classmethod
    def _new(cls, timeline: Timeline, first: int, stop: int, context: TriageContext | None,
             members: tuple[int, ...] | None, gap: float) -> Wave:
        """The constructor's Wave, its fields stored straight into its dict instead of through
        the frozen dataclass's six `object.__setattr__` calls: a million scattered losses make
        ~10^5 waves, and their making was a tenth of finding them."""
        w = _NEW(cls)
        d = w.__dict__
        d["timeline"] = timeline
        d["first"] = first
        d["stop"] = stop
        d["context"] = context
        d["members"] = members
        d["gap"] = gap
        return w

    @classmethod
    def of(cls, losses: Iterable[Loss], context: TriageContext | None = None) -> Wave:
        """A wave of exactly these losses (for tests and hand-made reports)."""
        tl = Timeline(losses)
        if not len(tl):
            raise ValueError("a wave holds at least one loss")
        return cls(tl, 0, len(tl), context)

    # Bounds are read when a wave is shown; a million scattered losses make ~10^5 small waves
    # that are only counted, so their datetimes are not built up front.
    @cached_property
    def start(self) -> datetime:
        """The first lost_at."""
        return _dt(self.timeline.sorted_times[self.positions[0]])

    @cached_property
    def end(self) -> datetime:
        """The last lost_at."""
        return _dt(self.timeline.sorted_times[self.positions[-1]])

    @property
    def positions(self) -> Sequence[int]:
        """Its losses' positions in the timeline's sorted order, ascending."""
        return range(self.first, self.stop) if self.members is None else self.members

    @cached_property
    def unrelated(self) -> tuple[Loss, ...]:
        """Losses of its run that fit no signature (chains.py): named beside it, never weighed."""
        tl = self.timeline
        return tuple(tl.losses[tl.order[p]] for p in self.__dict__.get("unrelated_positions", ()))

    def __repr__(self) -> str:
        return f"Wave(start={self.start!r}, end={self.end!r}, first={self.first}, stop={self.stop})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Wave):
            return NotImplemented
        return (self.start, self.end, self.losses) == (other.start, other.end, other.losses)

    __hash__ = None  # type: ignore[assignment]  # equal by content, and Loss is mutable

    @property
    def size(self) -> int:
        return len(self.positions)

    @cached_property
    def losses(self) -> tuple[Loss, ...]:
        """Ordered by lost_at; losses at the same instant by content, so input order never matters."""
        tl = self.timeline
        if self.members is None:
            a, b = self.first, self.stop
            members = tl.sorted_losses(a, b)
            times = tl.sorted_times[a:b]
        else:
            members = [tl.losses[tl.order[p]] for p in self.members]
            times = [tl.sorted_times[p] for p in self.members]
        if any(map(float.__eq__, times[:-1], times[1:])):
            members.sort(key=lambda x: (x.lost_at, _tie_key(x)))
        return tuple(members)

    @cached_property
    def bursts(self) -> tuple[Burst, ...]:
        """Its losses split into rounds: a new burst where two successive losses lie more than
        BURST_FACTOR kill times apart (the chaining gap when no kill time is known)."""
        med = self.gap_median_s
        split = BURST_FACTOR * med if med else self.gap
        out: list[list[Loss]] = []
        prev: datetime | None = None
        for x in self.losses:
            if prev is None or (x.lost_at - prev).total_seconds() > split:
                out.append([])
            out[-1].append(x)
            prev = x.lost_at
        return tuple(Burst(tuple(b)) for b in out)

    @cached_property
    def accounts(self) -> tuple[str, ...]:
        """Most losses first, ties by name: `team, personal`."""
        return _most_first(x.account for x in self.losses)

    @cached_property
    def experiments(self) -> tuple[int, ...]:
        return tuple(sorted({x.experiment for x in self.losses} - {None}))

    @cached_property
    def datacenters(self) -> tuple[str, ...]:
        """Known ones only, most losses first; unknowns are counted in the findings."""
        return _most_first(x.datacenter for x in self.losses)

    @cached_property
    def gpu_types(self) -> tuple[str, ...]:
        return _most_first(x.gpu for x in self.losses)

    @cached_property
    def _gap_pairs(self) -> tuple[tuple[Loss, float], ...]:
        return tuple((x, g) for x in self.losses if (g := G.gap_of(x)) is not None)

    @property
    def gaps(self) -> tuple[float, ...]:
        """RUNNING-to-lost seconds of the losses that know when they reached RUNNING."""
        return tuple(g for _, g in self._gap_pairs)

    @cached_property
    def _long_flags(self) -> tuple[bool, ...]:
        return tuple(G.long_running_flags(self.gaps))

    @cached_property
    def core_gaps(self) -> tuple[float, ...]:
        """The gaps of the pods the sweep targeted: long-running bystanders left out."""
        return tuple(g for g, long in zip(self.gaps, self._long_flags) if not long)

    @cached_property
    def _quartiles(self) -> tuple[float, float, float] | None:
        return G.quartiles(self.core_gaps)

    @property
    def gaps_known(self) -> int:
        return len(self._gap_pairs)

    @property
    def gap_median_s(self) -> float | None:
        """Median gap after RUNNING, long-running pods left out (as DOMAIN.md's table does)."""
        return None if self._quartiles is None else self._quartiles[1]

    @property
    def gap_spread_s(self) -> float | None:
        """Interquartile range (p75 - p25) of the same gaps: robust where a standard deviation is not."""
        return None if self._quartiles is None else self._quartiles[2] - self._quartiles[0]

    @cached_property
    def _burn(self) -> tuple[float, int]:
        return G.burn(self.losses)

    @property
    def burn_usd(self) -> float:
        """cost_per_hr x (lost_at - running_at), summed over the losses that know both."""
        return self._burn[0]

    @property
    def burn_unknown(self) -> int:
        """Losses without a price or a RUNNING time: they add 0 to burn_usd."""
        return self._burn[1]

    @property
    def pod_ids(self) -> tuple[str, ...]:
        return tuple(x.pod_id for x in self.losses)

    @property
    def duration_s(self) -> float:
        return (self.end - self.start).total_seconds()

    def long_running(self) -> list[Loss]:
        """Losses whose pods had run far longer than the wave's typical gap: bystanders of the sweep."""
        return [x for (x, _), long in zip(self._gap_pairs, self._long_flags) if long]


@dataclass(frozen=True)
class Burst:
    """One round of a wave: losses close in time (ordered by lost_at)."""

    losses: tuple[Loss, ...]

    @property
    def start(self) -> datetime:
        return self.losses[0].lost_at

    @property
    def end(self) -> datetime:
        return self.losses[-1].lost_at

    @property
    def pod_ids(self) -> tuple[str, ...]:
        return tuple(x.pod_id for x in self.losses)

    @property
    def accounts(self) -> tuple[str, ...]:
        return _most_first(x.account for x in self.losses)


def _most_first(values: Iterable[str | None]) -> tuple[str, ...]:
    counts = Counter(v for v in values if v)
    return tuple(sorted(counts, key=lambda v: (-counts[v], v)))


def _tie_key(x: Loss) -> tuple:
    # Losses at the same instant are ordered by content, so the result never depends on the
    # order the records came in. Only ties pay for the full dump, and ties are few.
    return (x.pod_id, x.model_dump_json())


def _dt(t: float) -> datetime:
    # Exact: a microsecond datetime survives the round trip through a float timestamp.
    return datetime.fromtimestamp(t, timezone.utc)
