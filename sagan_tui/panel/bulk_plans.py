"""Bulk actions planned before their dialog (pure): what will be acted on, and what is skipped and why."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Iterable, Mapping, Sequence, TypeVar

from sagan_tui.wire.channel.views import StopTargetView as StopTarget
from sagan_tui.wire.basics import STOPPED_STATES

if TYPE_CHECKING:
    from sagan_tui.wire.channel.views import CachedPodView, ExperimentView

T = TypeVar("T")
# Names listed in a dialog's warning before "+N more": the dialog must stay on an 80x24 screen.
MAX_NAMED = 6


@dataclass(frozen=True)
class Skipped:
    """A marked target the bulk action leaves out, and the owner's reason in a few words."""

    target: str
    why: str


@dataclass(frozen=True)
class BulkPlan(Generic[T]):
    targets: tuple[T, ...]
    skipped: tuple[Skipped, ...] = ()

    def warning(self, hidden: Sequence[str] = (), hidden_by: str = "") -> str:
        """What the dialog says beside its targets: each skipped one and why, and the marked
        targets the owner cannot see (hidden by a filter) that it will act on all the same."""
        lines = [f"Skipped, not sent: {s.target}: {s.why}" for s in self.skipped[:MAX_NAMED]]
        if len(self.skipped) > MAX_NAMED:
            lines.append(f"Skipped, not sent: {len(self.skipped) - MAX_NAMED} more")
        skipped = {s.target for s in self.skipped}
        hidden = [h for h in hidden if h not in skipped]
        if hidden:
            names = ", ".join(hidden[:MAX_NAMED]) + (f", +{len(hidden) - MAX_NAMED} more"
                                                    if len(hidden) > MAX_NAMED else "")
            lines.append(f"{len(hidden)} marked {'row is' if len(hidden) == 1 else 'rows are'} hidden by "
                         f"{hidden_by or 'the filter'} and included: {names}")
        return "\n".join(lines)


def plan_stop(pod_ids: Iterable[str], pods: Mapping[str, "CachedPodView"]) -> BulkPlan[StopTarget]:
    """Marked pods to stop: a pod no longer listed (GONE) or already stopped (EXITED) is skipped,
    named, with why; the runner would refuse it anyway, after the owner had confirmed it."""
    targets: list[StopTarget] = []
    skipped: list[Skipped] = []
    for pod_id in dict.fromkeys(pod_ids):
        p = pods.get(pod_id)
        if p is None:
            skipped.append(Skipped(pod_id, "not in the cache"))
        elif p.gone_at is not None:
            skipped.append(Skipped(pod_id, f"GONE ({p.gone_reason or 'no longer listed'})"))
        elif p.pod.desired_status in STOPPED_STATES:
            skipped.append(Skipped(pod_id, f"{p.pod.desired_status}: already stopped"))
        else:
            targets.append(StopTarget.of(p))
    return BulkPlan(tuple(targets), tuple(skipped))


def plan_hold(numbers: Iterable[int], experiments: Mapping[int, "ExperimentView | None"]) -> BulkPlan[int]:
    """Marked experiments to hold: one already blocked is left out, saying so (holding it
    again would only overwrite its note)."""
    targets: list[int] = []
    skipped: list[Skipped] = []
    for n in dict.fromkeys(int(x) for x in numbers):
        exp = experiments.get(n)
        if exp is not None and exp.status == "blocked":
            skipped.append(Skipped(f"#{n}", "already blocked (held)"))
        else:
            targets.append(n)
    return BulkPlan(tuple(targets), tuple(skipped))
