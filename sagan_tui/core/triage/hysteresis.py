"""When a wave's verdict is news again: the hysteresis of its announcements (pure; the panel's
notifications use it, and so can an unattended guard's pages).

A wave's *look* is (pods, accounts, cause, confidence, bursts). Against the look last announced:
- more pods or another account: news at once (new losses are facts, not a wavering judgement),
  and its announcement carries the verdict as it stands, confidence included;
- another cause: news at once;
- a higher confidence than any announced: news only once it has held for two polls in a row
  (RISE_POLLS), so high -> medium -> high, or a confidence that flickers up for one poll, says
  nothing; a lower one is never news.
An acknowledged wave is news again only for a new burst (or, when the acknowledged look does not
know its bursts, more pods) or a new cause; its confidence, rising or falling, is not.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from sagan_tui.core.triage.verdict import verdict_of

CONFIDENCE = {"low": 0, "medium": 1, "high": 2}
RISE_POLLS = 2  # polls a higher confidence must hold before it is announced


@dataclass(frozen=True)
class Look:
    pods: int
    accounts: tuple[str, ...]
    cause: str
    confidence: str
    bursts: int = 0  # 0: not known (a look read back from an acknowledgement in the cache)

    @classmethod
    def of(cls, wave) -> Look:
        v = verdict_of(wave)
        return cls(len(wave.losses), tuple(sorted(wave.accounts)), v.cause, v.confidence, len(wave.bursts))


def _rank(confidence: str) -> int:
    return CONFIDENCE.get(confidence, 0)


@dataclass(frozen=True)
class Heard:
    """What the rule keeps of one wave between polls: the look last announced and how many polls
    in a row its confidence has stood above it."""

    told: Look
    rising: int = 0


def _grew(look: Look, old: Look) -> list[str]:
    out = []
    if look.pods > old.pods:
        out.append(f"{old.pods} -> {look.pods} pods")
    new_accounts = [a for a in look.accounts if a not in old.accounts]
    if new_accounts:
        out.append(f"now in {', '.join(new_accounts)} too")
    return out


def _new_burst(look: Look, acked: Look) -> bool:
    if look.bursts and acked.bursts:
        return look.bursts > acked.bursts
    return look.pods > acked.pods


def news(heard: Heard, look: Look, acked: Look | None = None) -> tuple[list[str], Heard]:
    """(what to announce, in words; empty when nothing is news) and what to keep for the next poll."""
    told = heard.told
    if acked is not None:
        said = []
        if _new_burst(look, acked):
            said += _grew(look, acked) or [f"a new burst ({look.bursts} in all)"]
        if look.cause != acked.cause:
            said.append(f"cause {acked.cause} -> {look.cause}")
        return said, Heard(look if said else told)
    said = _grew(look, told)
    if look.cause != told.cause:
        said.append(f"cause {told.cause} -> {look.cause}")
        return said, Heard(look)
    rising = heard.rising + 1 if _rank(look.confidence) > _rank(told.confidence) else 0
    if rising >= RISE_POLLS:
        said.append(f"confidence {told.confidence} -> {look.confidence}")
        return said, Heard(look)
    if said:  # the growth's announcement carries the verdict as it stands: that confidence is told
        return said, Heard(look if _rank(look.confidence) >= _rank(told.confidence) else
                           replace(look, confidence=told.confidence))
    # The confidence kept is the highest announced: falling back and rising again is not news.
    return said, Heard(replace(look, confidence=told.confidence), rising)
