"""watch's opt-in auto-containment: the `auto_contain` rules (`cause:min_confidence`), which pods of
a wave are starting, and the one adapter through which watch contains a wave.

`Containment` is the seam: a callable taking the wave's experiments and starting pods, the origin
(`watch`) and the rule. `RunnerContainment` implements it for now with the owner's own hold and stop
paths (ActionRunner.bulk_hold, bulk_stop with its RunPod re-check); the containment operation of
"A response that stops the burn" (hold + stop + verify, with a recorded hold origin) replaces it
behind the same call. Nothing here releases anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Iterable, Protocol, Sequence

from sagan_tui.actions.results import StopTarget
from sagan_tui.models import Action

LEVELS = ("low", "medium", "high")
CAUSES = ("platform-reaper", "account-stop", "host-failure", "account-action", "unclear")
STARTING = ("RUNNING", "CREATED")  # desired statuses of a pod still on its way up


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


def starting_pods(pods: Iterable, experiments: Iterable[int], wave_start: datetime) -> list[StopTarget]:
    """The live pods of the wave's experiments that are starting, or reached RUNNING after the wave
    began (inside its kill window): what a reaper kills next. `pods` are the cache's CachedPods."""
    wanted = set(experiments)
    out = []
    for p in pods:
        if p.gone_at is not None or p.experiment not in wanted or p.pod.desired_status not in STARTING:
            continue
        if p.running_at is None or p.running_at >= wave_start:
            out.append(StopTarget(pod_id=p.pod_id, account=p.account, expected_status=p.pod.desired_status,
                                  experiment=p.experiment))
    return out


@dataclass(frozen=True)
class Contained:
    ok: bool
    summary: str  # "held #192, stopped 2 starting pods" (or what failed)


class Containment(Protocol):
    async def __call__(self, experiments: Sequence[int], starting: Sequence[StopTarget], *,
                       origin: str, rule: str) -> Contained: ...


class RunnerContainment:
    """Containment through the owner's hold and stop paths, audited with the origin and the rule."""

    def __init__(self, runner) -> None:
        self.runner = runner

    async def __call__(self, experiments: Sequence[int], starting: Sequence[StopTarget], *,
                       origin: str, rule: str) -> Contained:
        why = f"actor {origin}; auto_contain rule {rule}"
        note = f"Held by sagan-tui {origin} ({why}): a wave matched the rule; release by hand."
        hold = await self.runner.bulk_hold(experiments, note)
        held = [p.target for p in hold.parts if p.ok]
        stop = await self.runner.bulk_stop(list(starting)) if starting else None
        stopped = [p.target for p in stop.parts if p.ok] if stop else []
        parts = [f"held {' '.join(held) or 'nothing'}", f"stopped {len(stopped)} starting pod{'s' * (len(stopped) != 1)}"]
        failed = [p.message for p in (*hold.parts, *(stop.parts if stop else ())) if not p.ok]
        summary = ", ".join(parts) + (f"; not done: {'; '.join(failed)}" if failed else "")
        ok = not failed and bool(held)
        await self.runner.offload(self.runner.cache.audit, Action(
            at=self.runner.clock(), action="auto-contain", target=" ".join(f"#{n}" for n in experiments),
            result="ok" if ok else "error", error=None if ok else summary[:2000], detail=f"{why}; {summary}"[:2000]))
        return Contained(ok, summary)
