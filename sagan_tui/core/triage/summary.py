"""The incident summary: the waves and the losses outside them, counted once, so that every text
built from it (the report's headline and its sections, `waves`, `W`'s ticket line) says the same
pods and dollars. Pure: given the waves (whatever the grouping made) and the losses.

The headline is the sum of the sections by construction: pods = every wave's losses + the losses
outside any wave; burn = every wave's burn + theirs. A wave still going when the window opens
(`since`, the owner's last acknowledgement) stays whole, and so does its count in the headline:
counting only its losses after `since` made the headline say 5 pods above a section of 8.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Iterable, Sequence

from sagan_tui.core.models import Loss
from sagan_tui.wire import fmt
from sagan_tui.core.triage.gaps import burn
from sagan_tui.core.triage.waves import Wave


@dataclass(frozen=True)
class IncidentSummary:
    waves: tuple[Wave, ...]  # by start
    singles: tuple[Loss, ...]  # the losses in no wave, by lost_at
    since: datetime | None = None

    @property
    def losses(self) -> tuple[Loss, ...]:
        """Every loss the summary counts, by lost_at: the waves' and the others'."""
        every = [x for w in self.waves for x in w.losses] + list(self.singles)
        return tuple(sorted(every, key=lambda x: (x.lost_at, x.pod_id)))

    @property
    def pods(self) -> int:
        return sum(len(w.losses) for w in self.waves) + len(self.singles)

    @property
    def pod_ids(self) -> tuple[str, ...]:
        return tuple(x.pod_id for x in self.losses)

    @property
    def singles_burn_usd(self) -> float:
        return burn(self.singles)[0]

    @property
    def burn_usd(self) -> float:
        return sum(w.burn_usd for w in self.waves) + self.singles_burn_usd

    @property
    def span(self) -> str:
        if self.since is not None:
            return f"since {fmt.day(self.since)} {fmt.hms(self.since)} UTC"
        every = self.losses
        if not every:
            return "no losses"
        return f"{fmt.day(every[0].lost_at)} {fmt.window(every[0].lost_at, every[-1].lost_at)}"

    def headline(self) -> str:
        """`2 reaping waves, 8 pods lost, $0.21 of GPU time burned.`"""
        n, p = len(self.waves), self.pods
        return (f"{n} reaping wave{'s' * (n != 1)}, {p} pod{'s' * (p != 1)} lost, "
                f"{fmt.usd(self.burn_usd)} of GPU time burned.")


def summarize(waves: Sequence[Wave], all_losses: Iterable[Loss] | None = None,
              since: datetime | None = None) -> IncidentSummary:
    """The incident since `since` (everything when None): the waves that end after it, whole, and
    the losses after it that no wave holds (`all_losses`; the waves' own when not given)."""
    kept = tuple(sorted((w for w in waves if since is None or w.end >= since), key=lambda w: w.start))
    in_waves = {x.pod_id for w in waves for x in w.losses}  # a loss of a wave before `since` is no single
    source = all_losses if all_losses is not None else (x for w in kept for x in w.losses)
    singles = {x.pod_id: x for x in source
               if x.pod_id not in in_waves and (since is None or x.lost_at >= since)}
    return IncidentSummary(kept, tuple(sorted(singles.values(), key=lambda x: (x.lost_at, x.pod_id))), since)
