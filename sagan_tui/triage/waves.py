"""Reaping waves: runs of losses each within `gap` seconds of the previous one, followed while active, split by cause.

Two rules make a wave. The **chaining gap**: a maximal run of losses, each within `gap` seconds
(default 90) of the previous one, holding at least `min_losses`, founds a wave. The **following
rule** (triage/follow.py): while a wave is active (its last loss within `guard_minutes`), a later
loss with its signature joins it and so extends its guard, however far past the chaining gap it
comes: the same kill time after RUNNING (within the founding run's spread, at least the tight
limit of gaps.py, a few seconds), the same machine when the founding run shared one, the same
account when the verdict is an account stop. The re-dispatches Sagan makes into a reaper die at
the reaper's kill time minutes later; the guard exists to catch exactly those, so they must not
fall outside the wave or depend on how fast the losses came. A later run that founds a wave of
its own joins whole when its kill time (or machine, or account) matches. A wave so holds
several **bursts**: its losses split where two successive ones lie more than BURST_FACTOR kill
times apart (a re-dispatch of a lost pod dies within about two lifetimes of the first loss, a
longer quiet is a new round); the split is relative to the kill time, so playback speed does
not change it. Then (chains.py) a wave that holds more than one cause signature is split into
one wave per cause (grouping.py: a loss that fits none is kept aside as `unrelated`), and lone
losses that share a kill time chain across a longer `horizon` (a slow burn).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from functools import cached_property
from itertools import chain, compress, islice, repeat
from operator import attrgetter, le, lt, sub
from typing import TYPE_CHECKING, Iterable, Sequence

from sagan_tui.collector_pause import collector_paused
from sagan_tui.triage import gaps as G
from sagan_tui.triage.diagnosis import Finding, TriageContext, diagnose
from sagan_tui.triage.grouping import Group
from sagan_tui.triage.timeline import Timeline
from sagan_tui.triage.verdict import Verdict, order_findings
from sagan_tui.triage.verdict import verdict as judge

GUARD_MINUTES = 15.0  # a wave is active this long after its last loss (the setting's default)
HORIZON_MINUTES = 30.0  # lone losses of one kill time chain this far apart (the setting's default)
BURST_FACTOR = 3.0  # successive losses further apart than this many kill times start a new burst
_NEW = object.__new__
_FIRST = attrgetter("first")

if TYPE_CHECKING:  # annotations only: pydantic is not imported before the panel's first frame
    from sagan_tui.models import Loss


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
    def signature(self) -> Group:
        """What its losses share (grouping.py): a kill time, a machine, a stopped account, an
        actor, or only closeness in time. Set when a split made the wave, else read on first use."""
        from sagan_tui.triage.grouping import describe

        return describe(self.losses, self.context)

    @property
    def shares(self) -> str:
        """Its signature in words: `killed ~62 s after RUNNING`, `on machine ks2-h17`."""
        return self.signature.statement

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

    @cached_property
    def verdict(self) -> Verdict:
        """The cause the evidence points to (triage/verdict.py), weighed once per wave and context."""
        return judge(self, self.context)

    @cached_property
    def diagnosis(self) -> tuple[Finding, ...]:
        """The findings, heaviest toward the verdict first."""
        return order_findings(diagnose(self, self.context), self.verdict)

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


def wave_spans(sorted_times: Sequence[float], gap: float = 90.0, min_losses: int = 3) -> list[tuple[int, int]]:
    """[start, stop) index ranges of the waves in ascending times: the O(n) heart of find_waves."""
    n = len(sorted_times)
    # A break is where the next loss comes more than `gap` after the previous one. Scattered
    # losses make nearly every position a break, so both steps stay in C (map/compress/zip):
    # a Python loop over the runs would cost as much as the sort.
    later = map(lt, repeat(float(gap)), map(sub, islice(sorted_times, 1, None), sorted_times))
    starts = [0, *compress(range(1, n), later)]
    sizes = chain(map(sub, islice(starts, 1, None), starts), (n - starts[-1],))
    return list(compress(zip(starts, chain(islice(starts, 1, None), (n,))), map(le, repeat(min_losses), sizes)))


def _tie_key(x: Loss) -> tuple:
    # Losses at the same instant are ordered by content, so the result never depends on the
    # order the records came in. Only ties pay for the full dump, and ties are few.
    return (x.pod_id, x.model_dump_json())


def find_waves(losses: Iterable[Loss] | Timeline, gap: float = 90.0, min_losses: int = 3,
               context: TriageContext | None = None, guard_minutes: float = GUARD_MINUTES,
               horizon_minutes: float = HORIZON_MINUTES) -> list[Wave]:
    """The waves of `losses` (or of a Timeline of them), oldest first, diagnosed against `context`,
    each followed for `guard_minutes` after its last loss (the module's following rule; 0 turns
    following off, and the slow burns with it), split by cause, and the slow burns chained
    within `horizon_minutes` (0: none).

    O(n log n): one sort of float timestamps, then a scan in C; Python-level work per loss is
    only done for the losses inside waves or inside a wave's guard window, one float test per
    wave for its split, and a few float tests per lone loss for the slow burns; summaries only
    when first read.
    """
    from sagan_tui.triage.chains import chain_waves, regroup
    from sagan_tui.triage.follow import follow

    with collector_paused():  # one synchronous step over acyclic objects (collector_pause.py)
        tl = Timeline.of(losses)
        spans = wave_spans(tl.sorted_times, gap, min_losses)
        if guard_minutes <= 0 or not spans:
            found = [Wave._new(tl, a, b, context, None, gap) for a, b in spans]
        else:
            found = follow(tl, spans, gap, guard_minutes * 60.0, context)
        waves = regroup(tl, found, context)
        # Following off (guard 0) turns the slow burn off too: both follow a cause past the gap.
        slow = chain_waves(tl, found, horizon_minutes * 60.0, min_losses, context, gap) if guard_minutes > 0 else []
        if not slow and len(waves) == len(found):
            return waves  # nothing split or chained: already in order
        waves += slow
        waves.sort(key=_FIRST)  # a wave's first position is its first loss's place in time order
        return waves


def _dt(t: float) -> datetime:
    # Exact: a microsecond datetime survives the round trip through a float timestamp.
    return datetime.fromtimestamp(t, timezone.utc)


def active_wave(waves: Iterable[Wave], now: datetime, guard_minutes: float = GUARD_MINUTES) -> Wave | None:
    """The latest wave whose last loss is within guard_minutes of now.

    A wave already under way counts even if a loss carries a time after `now` (clock skew
    between RunPod, Sagan and this machine); one that starts after `now` does not (a replay).
    """
    cutoff = now - timedelta(minutes=guard_minutes)
    live = [w for w in waves if w.end >= cutoff and w.start <= now]
    return max(live, key=lambda w: w.end, default=None)
