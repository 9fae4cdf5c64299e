"""The incident's life as the owner is told of it: a wave that grows, forming clusters, overrides
of the owner's holds, acknowledgements, the owner's own status changes kept quiet, and what
happened while the owner was away. Plain data in, plain text out (no Textual, no I/O).

A wave is known by its first loss's pod (following only adds later losses, so the key holds as
it grows). Whether its look (pods, accounts, cause, confidence, bursts) is news again is
core/triage/hysteresis.py's rule: more pods or a new cause at once, a higher confidence only once it
held for two polls; an acknowledged wave only for a new burst or a new cause.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Iterable, Mapping

from sagan_tui.wire import fmt
from sagan_tui.core.triage.hysteresis import Heard, Look, news
from sagan_tui.core.triage.verdict import verdict_of

__all__ = ["AWAY_MINUTES", "IncidentWatch", "Look", "wave_key"]

AWAY_MINUTES = 10.0  # no key this long is an absence; the default of the `away_minutes` setting
# The one key that answers an override: `h` goes through containment (core/actions/contain.py).
REHOLD_HINT = "h stops its pods and holds again"


def wave_key(wave) -> str:
    return wave.losses[0].pod_id


@dataclass
class IncidentWatch:
    """What the owner was told, acknowledged, held and did; fed after every poll."""

    acks: dict[str, Look] = field(default_factory=dict)  # wave key -> the look acknowledged
    told: dict[str, Look] = field(default_factory=dict)  # wave key -> the look last announced
    rising: dict[str, int] = field(default_factory=dict)  # wave key -> polls its confidence stood above it
    forming_told: set[tuple[str, ...]] = field(default_factory=set)
    holds: dict[int, tuple[datetime, str]] = field(default_factory=dict)  # experiment -> (held at, by whom)
    overridden: set[tuple[int, datetime]] = field(default_factory=set)
    warnings: dict[int, str] = field(default_factory=dict)  # experiment -> its row's override warning
    quiet: dict[int, datetime] = field(default_factory=dict)  # experiment -> the owner's own change, when
    last_key: datetime | None = None  # the owner's last key (or the panel's opening), session clock
    happened: list[tuple[datetime, str]] = field(default_factory=list)  # (when, "loss"|"wave"|"override")

    # --- waves ---------------------------------------------------------------------------

    def seen(self, waves: Iterable) -> None:
        """Waves present at load are known: not news."""
        for w in waves:
            self.told.setdefault(wave_key(w), Look.of(w))

    def growth(self, waves: Iterable, now: datetime) -> list[str]:
        """One line per known wave whose look is news again (core/triage/hysteresis.py):
        'Wave 10:41-10:54 grew: 3 -> 10 pods; now in personal too'."""
        out = []
        for w in waves:
            key, look = wave_key(w), Look.of(w)
            before = self.told.get(key)
            if before is None:
                self.told[key] = look  # a new wave: announced as such by the model
                self.happened.append((now, "wave"))
                continue
            acked = self.acks.get(key)
            changed, heard = news(Heard(before, self.rising.get(key, 0)), look, acked)
            self.told[key], self.rising[key] = heard.told, heard.rising
            if not changed:
                continue
            if acked is not None:
                del self.acks[key]  # grown past its acknowledgement: news again
            out.append(f"Wave {fmt.window(w.start, w.end)} grew: {'; '.join(changed)}. {verdict_of(w).headline}")
        return out

    def acknowledge(self, wave) -> Look:
        look = Look.of(wave)
        self.acks[wave_key(wave)] = look
        self.told[wave_key(wave)] = look
        self.rising.pop(wave_key(wave), None)
        return look

    def is_acknowledged(self, wave) -> bool:
        acked = self.acks.get(wave_key(wave))
        return acked is not None and not news(Heard(acked), Look.of(wave), acked)[0]

    def forming_news(self, clusters: Iterable) -> list[str]:
        """Each forming cluster once."""
        out = []
        for c in clusters:
            if c.pod_ids not in self.forming_told:
                self.forming_told.add(c.pod_ids)
                out.append(c.headline)
        return out

    # --- holds and overrides -------------------------------------------------------------

    def held(self, number: int, at: datetime, by: str = "the owner") -> None:
        self.holds[number] = (at, by)
        self.warnings.pop(number, None)

    def released(self, number: int) -> None:
        self.holds.pop(number, None)
        self.warnings.pop(number, None)

    def own_change(self, number: int, at: datetime) -> None:
        """A status change the owner caused: not announced back as 'your turn'."""
        self.quiet[number] = at

    def is_quiet(self, number: int, now: datetime, window_s: float = 600.0) -> bool:
        at = self.quiet.get(number)
        return at is not None and (now - at).total_seconds() <= window_s

    def overrides(self, statuses: Mapping[int, tuple[str | None, str, datetime | None]],
                  new_pods: Mapping[int, Iterable[tuple[str, datetime | None]]], now: datetime) -> list[str]:
        """Holds that did not hold: a held experiment that left `blocked` without the owner
        (statuses: number -> (before, now, when)), or got a new pod after its hold
        (new_pods: number -> (pod id, created at)). One line each, once per hold."""
        out = []
        for n, (held_at, _by) in list(self.holds.items()):
            line = None
            st = statuses.get(n)
            if st is not None and st[1] != "blocked":
                when = st[2] or now
                if when >= held_at:
                    line = f"hold on {fmt.exp(n)} overridden: {st[0] or 'blocked'} -> {st[1]} at {fmt.hms(when)}"
            for pod_id, created in new_pods.get(n, ()):
                if line is None and (created is None or created >= held_at):
                    line = f"hold on {fmt.exp(n)} overridden: new pod {pod_id} at {fmt.hms(created or now)}"
            if line is not None and (n, held_at) not in self.overridden:
                line += f"; {REHOLD_HINT}"
                self.overridden.add((n, held_at))
                self.warnings[n] = line
                self.happened.append((now, "override"))
                out.append(line)
        return out

    # --- since you last looked -----------------------------------------------------------

    def key_pressed(self, now: datetime) -> None:
        """The owner is here: a key after an absence ends it, and its line with it (they have looked)."""
        self.last_key = now

    def opened(self, now: datetime) -> None:
        """The panel opened: the owner looked then (an absence counts from here, not from never)."""
        if self.last_key is None:
            self.last_key = now

    def losses_seen(self, n: int, now: datetime) -> None:
        self.happened.extend((now, "loss") for _ in range(n))

    def since_you_looked(self, now: datetime, away_minutes: float = AWAY_MINUTES) -> str:
        """'since you last looked (06:12:00): 4 new losses, 1 wave, 1 override' while the owner is
        away (no key for `away_minutes`) and something happened since their last key; '' otherwise,
        so their next key clears it."""
        start = self.last_key
        if start is None or now - start < timedelta(minutes=away_minutes):
            return ""
        counts = {k: sum(1 for at, kind in self.happened if kind == k and at > start)
                  for k in ("loss", "wave", "override")}
        if not any(counts.values()):
            return ""
        words = {"loss": ("new loss", "new losses"), "wave": ("wave", "waves"), "override": ("override", "overrides")}
        parts = [f"{n} {words[k][n != 1]}" for k, n in counts.items() if n]
        return f"since you last looked ({fmt.hms(start)}): {', '.join(parts)}"
