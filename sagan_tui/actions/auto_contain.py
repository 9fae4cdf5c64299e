"""watch's opt-in auto-containment: the `auto_contain` rules (`cause:min_confidence`) and the one
adapter through which watch contains a wave.

`AutoContainment` puts watch on the same containment operation as `h`, `H`, `W` and the canary
(actions/contain.py: hold with origin `watch`, stop the starting and doomed pods that
`contain.stop_targets` picks, verify after every poll), and audits the rule that fired. Nothing
here releases anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Iterable, Mapping, Sequence

from sagan_tui.actions.results import StopTarget
from sagan_tui.models import Action

LEVELS = ("low", "medium", "high")
CAUSES = ("platform-reaper", "account-stop", "host-failure", "account-action", "unclear")


@dataclass(frozen=True)
class Rule:
    cause: str
    min_confidence: str

    @property
    def text(self) -> str:
        return f"{self.cause}:{self.min_confidence}"

    def matches(self, cause: str, confidence: str) -> bool:
        return cause == self.cause and LEVELS.index(confidence) >= LEVELS.index(self.min_confidence) \
            if confidence in LEVELS else False


def parse_rules(value) -> list[Rule]:
    """`platform-reaper:medium, account-stop:high` (a list in the file, commas or spaces in the
    environment); ValueError naming the rule's position and what is wrong."""
    if value is None:
        return []
    items = value.replace(",", " ").split() if isinstance(value, str) else [str(v) for v in value]
    rules = []
    for i, item in enumerate(items, 1):
        cause, _, level = item.strip().partition(":")
        if cause not in CAUSES:
            raise ValueError(f"rule {i}: unknown cause {cause[:40]!r} (known: {', '.join(CAUSES)})")
        if level not in LEVELS:
            raise ValueError(f"rule {i}: expected cause:min_confidence with a confidence of {', '.join(LEVELS)}")
        rules.append(Rule(cause, level))
    return rules


def matching(rules: Iterable[Rule], cause: str, confidence: str) -> Rule | None:
    return next((r for r in rules if r.matches(cause, confidence)), None)


@dataclass(frozen=True)
class Contained:
    ok: bool
    summary: str  # "held #192, stopped 3 starting or doomed pods" (or what failed)


class AutoContainment:
    """watch's containment: the operation of actions/contain.py, audited with the rule that fired."""

    def __init__(self, runner, guard_minutes: float) -> None:
        from sagan_tui.actions.contain import Containment

        self.runner = runner
        self.operation = Containment(runner, guard_minutes)

    async def __call__(self, experiments: Sequence[int], targets: Sequence[StopTarget], *, origin: str, rule: str,
                       known_pods: Mapping[int, Iterable[str]] | None = None) -> Contained:
        why = f"actor {origin}; auto_contain rule {rule}"
        note = f"Held by sagan-tui {origin} ({why}): a wave matched the rule; release by hand."
        done = await self.operation.contain(experiments, targets, origin=origin, note=note, known_pods=known_pods)
        held = [p.target for p in done.hold.parts if p.ok] or ([done.hold.target] if done.hold.ok else [])
        stopped = [p.target for p in done.stops if p.ok]
        parts = [f"held {' '.join(held) or 'nothing'}",
                 f"stopped {len(stopped)} starting or doomed pod{'s' * (len(stopped) != 1)}"]
        failed = [p.message for p in (*done.hold.parts, *done.stops) if not p.ok]
        summary = ", ".join(parts) + (f"; not done (retrying): {'; '.join(failed)}" if failed else "")
        ok = done.ok and bool(held)
        await self.runner.offload(self.runner.cache.audit, Action(
            at=self.runner.clock(), action="auto-contain", target=" ".join(f"#{n}" for n in experiments),
            result="ok" if ok else "error", error=None if ok else summary[:2000], detail=f"{why}; {summary}"[:2000]))
        return Contained(ok, summary)

    async def step(self, now: datetime, statuses, pods) -> list[str]:
        """After each poll: failed stops retried, overrides of watch's holds found (one line each)."""
        return await self.operation.step(now, statuses, pods)
