"""Alerts with a lifecycle, modelled on Alertmanager: pure state in, pages out (no I/O).

One alert per wave, known by its first pod (as core/session/incident.py's `wave_key`), carried by
one sequence id from its first page to its last, so a phone notification is replaced in place:

    forming --(the cluster becomes a wave)--> wave (firing) --> resolved  (guard over, acknowledged)
                                                           \\-> withdrawn (its losses disproved)
    blind   (a source has not answered for N polls)        --> resolved   (it answers again)
    runway  (an account's balance lasts less than the warning) --> resolved

Hysteresis, so a flapping source or verdict does not page again:
- a firing wave is paged again for a new burst (more pods), a new cause, or a confidence that
  rose and stayed risen for `confirm_polls` polls (a rise for one poll is noise); a fall is quiet;
- a wave gone from the picture is resolved only after `confirm_polls` polls without it, and
  withdrawn at once when a pod it was paged with was withdrawn (the losses were disproved);
- a resolved or acknowledged wave is paged again only for a new burst or a new cause;
- a forming cluster is paged once, and its alert becomes the wave's when the wave holds its pods.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from typing import Mapping

from sagan_tui.wire.basics import ts
from sagan_tui.wire.safe_text import one_line

RANK = {"low": 0, "medium": 1, "high": 2}
OPEN, RESOLVED, WITHDRAWN = "open", "resolved", "withdrawn"
# ntfy's priorities (1..5 as min, low, default, high, urgent); PagerDuty's severities from them.
PRIORITY = {"wave": "urgent", "forming": "high", "blind": "high", "runway": "high", "end": "low"}
EVENTS = ("wave", "growth", "forming", "withdrawn", "resolved", "blind", "runway", "contained")


@dataclass(frozen=True)
class WaveFacts:
    """What one poll saw of one wave, as plain values."""

    key: str
    pods: tuple[str, ...]
    accounts: tuple[str, ...]
    experiments: tuple[int, ...]
    cause: str
    confidence: str
    verdict: str  # the verdict line: "PLATFORM REAPER, medium: hold re-dispatch, ..."
    window: str  # "10:39-10:45"
    burn_usd: float
    active: bool  # inside its guard window


@dataclass(frozen=True)
class FormingFacts:
    key: str
    pods: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class Seen:
    """One poll's picture: the waves, the forming clusters, withdrawn pods, the owner's
    acknowledgements (wave key -> (pods, cause) acknowledged), the sources watch cannot see
    (source -> its last success) and the accounts whose runway is short (account -> text)."""

    at: datetime
    waves: tuple[WaveFacts, ...] = ()
    forming: tuple[FormingFacts, ...] = ()
    withdrawn: frozenset[str] = frozenset()
    acks: Mapping[str, tuple[int, str]] = field(default_factory=dict)
    blind: Mapping[str, datetime | None] = field(default_factory=dict)
    low: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Page:
    """One thing to tell the owner: `action` open (or re-open), update, resolve or withdraw of
    the alert `key`, whose every page carries the sequence id `seq`."""

    kind: str  # forming, wave, blind, runway
    event: str  # one of EVENTS: what the stdout line and the routing (`kinds=`) call it
    key: str
    seq: str
    action: str  # open, update, resolve, withdraw
    title: str
    text: str
    priority: str
    first_title: str = ""  # the alert's first page, named by a follow-up that cannot replace it

    @property
    def line(self) -> str:
        return one_line(f"{self.event} {self.key}: {self.title}", limit=300)

    @property
    def ends(self) -> bool:
        return self.action in ("resolve", "withdraw")


@dataclass
class Alert:
    """One alert's state, persisted between runs (core/store/page_rows.py) so a restart does not re-page."""

    key: str
    kind: str
    seq: str
    state: str = OPEN
    pods: tuple[str, ...] = ()
    cause: str = ""
    confidence: str = ""
    rising: str = ""  # a higher confidence seen, not yet confirmed
    rising_polls: int = 0
    absent_polls: int = 0
    contained: str = ""  # what watch contained, once per wave
    first_title: str = ""
    opened_at: str = ""

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "Alert":
        data = json.loads(text)
        data["pods"] = tuple(data.get("pods") or ())
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


def _wave_text(w: WaveFacts, contained: str) -> str:
    lines = [w.verdict, f"pods: {' '.join(w.pods)}", f"accounts: {', '.join(w.accounts)}; "
             f"experiments: {' '.join(f'#{n}' for n in w.experiments)}", f"burn: ${w.burn_usd:.2f}"]
    if contained:
        lines.append(f"contained: {contained}")
    return "\n".join(lines)


class Lifecycle:
    """The alerts and their transitions; `step` is fed one Seen per poll and returns the pages."""

    def __init__(self, alerts: Mapping[str, Alert] | None = None, confirm_polls: int = 2):
        self.alerts: dict[str, Alert] = dict(alerts or {})
        self.confirm_polls = confirm_polls
        self.changed: set[str] = set()  # keys to persist since the last `take_changed`

    def take_changed(self) -> list[Alert]:
        out = [self.alerts[k] for k in sorted(self.changed) if k in self.alerts]
        self.changed.clear()
        return out

    def step(self, seen: Seen) -> list[Page]:
        pages: list[Page] = []
        present = set()
        for w in seen.waves:
            present.add(w.key)
            pages += self._wave(w, seen)
        pages += self._gone_waves(present, seen)
        pages += self._forming(seen)
        pages += self._condition("blind", {s: f"watch cannot see {s} since {_hm(t)}" for s, t in seen.blind.items()},
                                 lambda s: f"watch sees {s} again")
        pages += self._condition("runway", {a: f"runway of {a}: {text}" for a, text in seen.low.items()},
                                 lambda a: f"runway of {a} is no longer short")
        return pages

    def contained(self, key: str, what: str, w: WaveFacts) -> Page | None:
        """Record what watch contained for the wave `key` (once) and page it as an update."""
        a = self.alerts.get(key)
        if a is None or a.contained:
            return None
        a.contained = what
        self.changed.add(key)
        return self._page(a, "contained", "update", f"WAVE {w.window} contained: {what}", _wave_text(w, what))

    def is_contained(self, key: str) -> bool:
        a = self.alerts.get(key)
        return a is not None and bool(a.contained)

    # --- waves ---------------------------------------------------------------------------

    def _wave(self, w: WaveFacts, seen: Seen) -> list[Page]:
        a = self._promoted(w) or self.alerts.get(w.key)
        ack = seen.acks.get(w.key)
        acked = ack is not None and len(w.pods) <= ack[0] and w.cause == ack[1]
        title = f"WAVE {w.window}: {len(w.pods)} pods, {w.cause} ({w.confidence})"
        if a is None:
            a = Alert(w.key, "wave", w.key, pods=w.pods, cause=w.cause, confidence=w.confidence,
                      opened_at=ts(seen.at), first_title=title)
            self.alerts[w.key] = a
            self.changed.add(w.key)
            if acked or not w.active:  # history at the first start, or already acknowledged: no news
                a.state = RESOLVED
                return []
            return [self._page(a, "wave", "open", title, _wave_text(w, a.contained))]
        a.absent_polls = 0
        if not a.pods:  # the forming cluster's alert, now a wave: the same notification, replaced
            a.pods, a.cause, a.confidence, a.first_title = w.pods, w.cause, w.confidence, title
            self.changed.add(w.key)
            return [self._page(a, "wave", "update", title, _wave_text(w, a.contained))]
        grew, new_cause = len(w.pods) > len(a.pods), w.cause != a.cause
        rose = self._confidence_rose(a, w.confidence)
        what = "; ".join(filter(None, (f"now {len(w.pods)} pods" if grew else "",
                                       f"cause {a.cause} -> {w.cause}" if new_cause else "",
                                       f"confidence {a.confidence} -> {w.confidence}" if rose else "")))
        self.changed.add(w.key)
        if a.state == OPEN:
            if acked or not w.active:
                a.state = RESOLVED
                why = "acknowledged" if acked else "guard over"
                return [self._page(a, "resolved", "resolve", f"WAVE {w.window} resolved: {why}", w.verdict)]
            if not (grew or new_cause or rose):
                if RANK.get(w.confidence, 0) < RANK.get(a.confidence, 0):
                    a.confidence = w.confidence  # a fall is quiet, and a later rise is news again
                return []
            a.pods, a.cause, a.confidence = w.pods, w.cause, w.confidence
            return [self._page(a, "growth", "update", f"WAVE {w.window} grew: {what}", _wave_text(w, a.contained))]
        # resolved or withdrawn: only a new burst or a new cause while the wave is active
        if not (grew or new_cause) or not w.active or acked:
            return []
        a.state, a.pods, a.cause, a.confidence = OPEN, w.pods, w.cause, w.confidence
        return [self._page(a, "growth", "open", f"WAVE {w.window} again: {what}", _wave_text(w, a.contained))]

    def _confidence_rose(self, a: Alert, confidence: str) -> bool:
        if RANK.get(confidence, 0) <= RANK.get(a.confidence, 0):
            a.rising, a.rising_polls = "", 0
            return False
        a.rising_polls = a.rising_polls + 1 if a.rising == confidence else 1
        a.rising = confidence
        if a.rising_polls < self.confirm_polls:
            return False
        a.rising, a.rising_polls = "", 0
        return True

    def _promoted(self, w: WaveFacts) -> Alert | None:
        """The forming alert whose pods the wave holds, re-keyed as the wave's: one sequence id."""
        for key, a in list(self.alerts.items()):
            if a.kind == "forming" and a.state == OPEN and (key == w.key or set(a.pods) <= set(w.pods)):
                del self.alerts[key]
                self.changed.add(key)
                a = replace(a, key=w.key, kind="wave", pods=(), cause="", confidence="")
                self.alerts[w.key] = a
                return a
        return None

    def _gone_waves(self, present: set[str], seen: Seen) -> list[Page]:
        pages = []
        for a in list(self.alerts.values()):
            if a.kind not in ("wave", "forming") or a.state != OPEN or a.key in present:
                continue
            if a.kind == "forming" and any(a.key == f.key for f in seen.forming):
                continue
            self.changed.add(a.key)
            if set(a.pods) & seen.withdrawn:
                a.state = WITHDRAWN
                pages.append(self._page(a, "withdrawn", "withdraw", f"withdrawn: false alarm ({a.first_title})",
                                        "the losses were disproved: the pods were seen alive"))
                continue
            a.absent_polls += 1
            if a.absent_polls >= self.confirm_polls:
                a.state = RESOLVED
                pages.append(self._page(a, "resolved", "resolve", f"resolved: {a.first_title}",
                                        "no longer a wave or a forming cluster"))
        return pages

    def _forming(self, seen: Seen) -> list[Page]:
        pages = []
        in_waves = {p for w in seen.waves for p in w.pods}
        for f in seen.forming:
            if f.key in self.alerts or set(f.pods) <= in_waves:
                continue  # paged once, whatever became of it
            title = f"FORMING: {f.reason}"
            a = Alert(f.key, "forming", f.key, pods=f.pods, opened_at=ts(seen.at), first_title=title)
            self.alerts[f.key] = a
            self.changed.add(f.key)
            pages.append(self._page(a, "forming", "open", title, f"pods: {' '.join(f.pods)}"))
        return pages

    # --- conditions: blind sources, short runways ----------------------------------------

    def _condition(self, kind: str, now_true: Mapping[str, str], over) -> list[Page]:
        pages = []
        for name, text in now_true.items():
            key = f"{kind}:{name}"
            a = self.alerts.get(key)
            if a is not None and a.state == OPEN:
                if kind == "runway" and ("OUT" in text) != ("OUT" in a.cause):  # LOW -> OUT is news
                    a.cause = text
                    self.changed.add(key)
                    pages.append(self._page(a, kind, "update", text, text))
                continue
            if a is None:
                a = self.alerts[key] = Alert(key, kind, key.replace(":", "-"))
            a.state, a.cause, a.first_title = OPEN, text, text
            self.changed.add(key)
            pages.append(self._page(a, kind, "open", text, text))
        for a in list(self.alerts.values()):
            name = a.key.partition(":")[2]
            if a.kind == kind and a.state == OPEN and name not in now_true:
                a.state = RESOLVED
                self.changed.add(a.key)
                pages.append(self._page(a, "resolved", "resolve", over(name), over(name)))
        return pages

    def _page(self, a: Alert, event: str, action: str, title: str, text: str) -> Page:
        priority = PRIORITY["end"] if action in ("resolve", "withdraw") else PRIORITY[a.kind]
        return Page(a.kind, event, a.key, a.seq, action, one_line(title, limit=250), text, priority,
                    first_title=a.first_title)


def _hm(at: datetime | None) -> str:
    return at.strftime("%H:%M") if at is not None else "it started"
