"""Reaping waves: runs of losses each within `gap` seconds of the previous one, followed while active, split by cause.

Two rules make a wave. The **chaining gap**: a maximal run of losses, each within `gap` seconds
(default 90) of the previous one, holding at least `min_losses`, founds a wave. The **following
rule** (core/triage/follow.py): while a wave is active (its last loss within `guard_minutes`), a later
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

import re
from datetime import datetime, timedelta
from itertools import islice, repeat
from operator import attrgetter, ge, sub
from typing import TYPE_CHECKING, Iterable, Sequence

from sagan_tui.core.collector_pause import collector_paused
from sagan_tui.core.triage.chains import chain_waves, regroup
from sagan_tui.core.triage.follow import follow
from sagan_tui.core.triage.timeline import Timeline
from sagan_tui.core.triage.wave import BURST_FACTOR, Burst, Wave  # noqa: F401  (the record, named here too)

GUARD_MINUTES = 15.0  # a wave is active this long after its last loss (the setting's default)
HORIZON_MINUTES = 30.0  # lone losses of one kill time chain this far apart (the setting's default)
_FIRST = attrgetter("first")
_SPAN = re.Match.span

if TYPE_CHECKING:
    from sagan_tui.core.models import Loss
    from sagan_tui.core.triage.diagnosis import TriageContext


def wave_spans(sorted_times: Sequence[float], gap: float = 90.0, min_losses: int = 3) -> list[tuple[int, int]]:
    """[start, stop) index ranges of the waves in ascending times: the O(n) heart of find_waves."""
    if not sorted_times:
        return []
    # Byte i is 1 when loss i + 1 comes within `gap` of loss i (a last 0 ends the final run), so
    # a maximal run of losses is a match of `1*0` and a run of `min_losses` or more one of
    # `1{min_losses - 1,}0` that starts where a run does (after a 0 or at the start): without
    # that lookbehind a run too short to match would be scanned again from each of its
    # positions, quadratic in its length. Scattered losses make nearly every position a break,
    # so the scan stays in C (map, then the regular expression over the bytes): a Python loop
    # over the runs would cost as much as the sort.
    close = bytes(map(ge, repeat(float(gap)), map(sub, islice(sorted_times, 1, None), sorted_times))) + b"\x00"
    return list(map(_SPAN, re.finditer(b"(?<!\x01)\x01{%d,}\x00" % max(0, min_losses - 1), close)))


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


def active_wave(waves: Iterable[Wave], now: datetime, guard_minutes: float = GUARD_MINUTES) -> Wave | None:
    """The latest wave whose last loss is within guard_minutes of now.

    A wave already under way counts even if a loss carries a time after `now` (clock skew
    between RunPod, Sagan and this machine); one that starts after `now` does not (a replay).
    """
    cutoff = now - timedelta(minutes=guard_minutes)
    live = [w for w in waves if w.end >= cutoff and w.start <= now]
    return max(live, key=lambda w: w.end, default=None)
