"""watch's opt-in auto-containment: the `auto_contain` rules (`cause:min_confidence`) and the one
adapter through which watch contains a wave.

`AutoContainment` puts watch on the same containment operation as `h`, `H`, `W` and the canary
(core/actions/contain.py: hold with origin `watch`, stop the starting and doomed pods that
`contain.stop_targets` picks, verify after every poll), and audits the rule that fired. Nothing
here releases anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Iterable, Mapping, Sequence

from sagan_tui.core.actions.auto_rules import Rule, matching, parse_rules  # noqa: F401  (watch reads them here)
from sagan_tui.core.actions.results import StopTarget
from sagan_tui.core.models import Action

@dataclass(frozen=True)
class Contained:
    ok: bool
    summary: str  # "held #192, stopped 3 starting or doomed pods" (or what failed)


class AutoContainment:
    """watch's containment: the operation of core/actions/contain.py, audited with the rule that fired."""

    def __init__(self, runner, guard_minutes: float) -> None:
        from sagan_tui.core.actions.contain import Containment

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
