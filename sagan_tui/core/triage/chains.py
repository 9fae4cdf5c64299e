"""Waves by signature over a timeline: each wave split into its causes, lone losses chained by kill time.

Two steps after the chaining gap and the following rule (waves.py, follow.py):

- **Split**: a wave whose gaps do not all fall in one kill window is split by grouping.py's rule
  into sub-waves of one cause each (its largest keeps the losses that fit none, as `unrelated`).
  The first test is on floats alone, so the common wave (one reaper's kill time) costs a min,
  a max and a sum.
- **Slow burn**: losses in no wave, each within `horizon` of the last one of a chain and
  killed at the chain's kill time (within gaps.py's tight limit, plus the polls' timing of the
  chain's first loss and of this one: each only brackets its moment), chain
  however far apart they come: a reaper killing one fresh pod every few minutes is one
  incident. A chain of `min_losses` is a wave; a shorter one of two or more is a forming
  cluster (forming.py). Only the kill time chains across a horizon: a dead machine or a stopped
  account takes its pods together, so the chaining gap finds those.
"""

from __future__ import annotations

from itertools import compress, repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Sequence

from sagan_tui.core.triage import gaps as G
from sagan_tui.core.triage.grouping import split
from sagan_tui.core.triage.timeline import Timeline
from sagan_tui.core.triage.wave import Wave

if TYPE_CHECKING:
    from sagan_tui.core.triage.diagnosis import TriageContext

_FREE = bytes.maketrans(b"\x00\x01", b"\x01\x00")  # a taken-mask turned into a free-mask
_INF = float("inf")


def regroup(tl: Timeline, waves: Sequence[Wave], context: TriageContext | None) -> list[Wave]:
    """`waves` with every one that holds more than one cause split into one wave per cause."""
    gaps = tl.sorted_gaps()
    out: list[Wave] = []
    keep = out.append
    floor, frac = G.TIGHT_FLOOR_S, G.TIGHT_FRACTION
    for w in waves:
        m = w.members
        # (a followed wave's gaps gathered by one itemgetter, in C: of one position it returns the item)
        gs = gaps[w.first:w.stop] if m is None else itemgetter(*m)(gaps) if len(m) > 1 else (gaps[m[0]],)
        # All gaps known (a NaN sum says one is not) and inside one kill window (grouping's
        # kill_window, written out: asked of every wave, ~10^5 in a million scattered losses).
        lo, total = min(gs), sum(gs)
        if total == total and max(gs) - lo <= 2.0 * (floor if frac * lo < floor else frac * lo):
            keep(w)
        else:
            out.extend(_split(tl, w, context))
    return out


def _split(tl: Timeline, w: Wave, context: TriageContext | None) -> list[Wave]:
    pos = list(w.positions)
    losses = [tl.losses[tl.order[p]] for p in pos]
    s = split(losses, context)
    if len(s.groups) == 1 and not s.unrelated:
        w.__dict__["signature"] = s.groups[0]  # one cause: the wave as it was, its signature known
        return [w]
    out = []
    for k, g in enumerate(s.groups):
        ps = tuple(pos[i] for i in g.members)
        sub = Wave._new(tl, ps[0], ps[-1] + 1, context, ps, w.gap)
        sub.__dict__["signature"] = g
        if k == 0 and s.unrelated:
            sub.__dict__["unrelated_positions"] = tuple(pos[i] for i in s.unrelated)
        out.append(sub)
    return out


def lone_chains(tl: Timeline, waves: Sequence[Wave], horizon_s: float) -> list[list[int]]:
    """Chains (sorted positions, two or more) of the losses in no wave that share a kill time,
    each loss within `horizon_s` of its chain's last one."""
    n = len(tl)
    if n < 2 or horizon_s <= 0:
        return []
    taken = _taken(tl, waves)
    st, gaps = tl.sorted_times, tl.sorted_gaps()
    res = _resolutions(tl) if tl.any_polled() else None
    floor, frac = G.TIGHT_FLOOR_S, G.TIGHT_FRACTION
    done: list[list[int]] = []
    # An open chain: [kill time, tolerance (the tight limit plus its first loss's poll timing),
    # last loss's time, positions]. Few are open at once (each closes `horizon_s` after its last
    # loss); the one the previous loss went to is tried first, as a slow burn's next loss (and a
    # million scattered losses of one kill time) mostly lands there.
    live: list[list] = []
    cur: list | None = None
    # The current chain's fields as locals (a million scattered losses of one kill time pass
    # here, most of them straight into it); written back to its record when another is taken.
    ref, tol, last, members = 0.0, -1.0, -horizon_s - 1.0, []
    took = members.append
    # No live chain can have closed before `closing` (its earliest last loss plus the horizon,
    # as of the last look: a chain's last loss only moves later, so it is never too late).
    closing = _INF
    # The free losses' positions, gaps and times picked by one mask, each column walked in C
    # (compress), not fetched one `__getitem__` call per free loss: most losses are free.
    free = taken.translate(_FREE)
    timings = repeat(0.0) if res is None else compress(res, free)
    for p, g, t, r in zip(compress(range(n), free), compress(gaps, free), compress(st, free), timings):
        if g >= 0.0 and t - last <= horizon_s and abs(g - ref) <= tol + r:
            last = t
            took(p)
            continue
        if not g >= 0.0:
            continue  # RUNNING unknown (NaN) or after the loss: no kill time to chain on
        if cur is not None:
            cur[2] = last
        if t > closing:
            kept = []
            for c in live:
                if t - c[2] <= horizon_s:
                    kept.append(c)
                elif len(c[3]) >= 2:
                    done.append(c[3])
            live = kept
            closing = min([c[2] for c in live], default=_INF) + horizon_s
        cur = None
        for c in live:  # two or three at most: a loop beats a generator's setup
            if abs(g - c[0]) <= c[1] + r:
                cur = c
                break
        if cur is None:
            cur = [g, (floor if frac * g < floor else frac * g) + r, t, []]
            live.append(cur)
            if closing == _INF:
                closing = t + horizon_s
        ref, tol, last, members = cur[0], cur[1], t, cur[3]
        took = members.append
        took(p)
    if cur is not None:
        cur[2] = last
    done.extend(c[3] for c in live if len(c[3]) >= 2)
    done.sort()
    return done


def _taken(tl: Timeline, waves: Sequence[Wave]) -> bytearray:
    """1 at the sorted positions of `tl` that lie in a wave (waves of another Timeline of the same
    losses are matched by identity)."""
    taken = bytearray(len(tl))
    foreign = [w for w in waves if w.timeline is not tl]
    for w in waves:
        if w.timeline is not tl:
            continue
        if w.members is None:
            taken[w.first:w.stop] = b"\x01" * (w.stop - w.first)
        else:
            for p in w.members:
                taken[p] = 1
    if foreign:
        where = {id(x): p for p, x in enumerate(tl.sorted_losses())}
        for w in foreign:
            for x in w.losses:
                if (p := where.get(id(x))) is not None:
                    taken[p] = 1
    return taken


def _resolutions(tl: Timeline) -> list[float]:
    """Per sorted position: how finely a poll timed the loss (lost_at - last_seen_at, 0 when exact)."""
    out = []
    for x in tl.sorted_losses():
        seen = x.last_seen_at
        out.append(max(0.0, (x.lost_at - seen).total_seconds()) if seen is not None else 0.0)
    return out


def chain_waves(tl: Timeline, waves: Sequence[Wave], horizon_s: float, min_losses: int,
                context: TriageContext | None, gap: float) -> list[Wave]:
    """The slow-burn waves: chains of lone losses at least `min_losses` long."""
    return [Wave._new(tl, c[0], c[-1] + 1, context, tuple(c), gap)
            for c in lone_chains(tl, waves, horizon_s) if len(c) >= min_losses]
