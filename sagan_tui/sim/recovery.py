"""The reaper (kills pods a fixed time after RUNNING inside a window) and Sagan's recovery loop.

The reaper applies when a pod is added, scripted or launched while serving, so a canary
launched inside its window dies at its kill time and one launched after it lives. The recovery
loop acts at scenario times after a loss; the state is computed lazily, so `SimState.advance`
runs before every request is answered (server.py) and performs what the loop says fell due
since the last one, in time order: a re-dispatch's own loss may fall due in the same call. The
loop keeps the schedule and the budget; the state it acts on is SimState's.
"""

from __future__ import annotations

import heapq
from typing import Container, Iterator

from .fixture import PodSpec, ReaperSpec, RecoverySpec


def reaped(spec: PodSpec, reapers: list[ReaperSpec]) -> PodSpec:
    """The spec with `lost_at` set by the first reaper whose window holds its RUNNING time; a pod
    whose script already ends it (lost, exited or stopped) keeps its script."""
    r = spec.running_at
    if r is None or spec.lost_at is not None or spec.exited_at is not None or spec.stopped_at is not None:
        return spec
    for reaper in reapers:
        if spec.account in reaper.accounts and reaper.start <= r <= reaper.end:
            return spec.model_copy(update={"lost_at": r + reaper.kill_after_s})
    return spec


class RecoveryLoop:
    """Re-dispatches lost experiments unless they are blocked, within a budget per experiment."""

    def __init__(self, spec: RecoverySpec) -> None:
        self.spec = spec
        self._due: list[tuple[float, int, int, str]] = []  # (time, order, experiment, lost pod id)
        self._order = 0
        self._spent: dict[int, int] = {}
        self._last: dict[int, float] = {}  # experiment -> when its last loss was acted on
        self._ids = list(spec.pod_ids)

    def lost(self, spec: PodSpec) -> None:
        """A tracked pod of an experiment will vanish at spec.lost_at: act on it after_s later."""
        n = spec.experiment
        if spec.lost_at is None or n is None or not spec.tracked:
            return
        if self.spec.experiments and n not in self.spec.experiments:
            return
        self._order += 1
        heapq.heappush(self._due, (spec.lost_at + self.spec.after_s, self._order, n, spec.id))

    def due(self, t: float) -> Iterator[tuple[float, int, str]]:
        """(time, experiment, lost pod id) of each loss to act on by scenario time t, in time
        order; one queued while acting on another (a re-dispatch's own loss) is included when due."""
        while self._due and self._due[0][0] <= t:
            at, _, n, lost_id = heapq.heappop(self._due)
            yield at, n, lost_id

    def may_redispatch(self, n: int, at: float) -> bool:
        """Whether experiment n's loss at `at` gets a re-dispatch (counted if so): one per moment
        of losses of an experiment, within its budget."""
        last = self._last.get(n)
        if last is not None and at - last <= self.spec.dedupe_s:
            return False  # the same moment's losses of one experiment: one re-dispatch
        if self._spent.get(n, 0) >= self.spec.budget:
            return False
        self._spent[n] = self._spent.get(n, 0) + 1
        self._last[n] = at
        return True

    def scripted_id(self, taken: Container[str]) -> str | None:
        """The scenario's next re-dispatch pod id, if it names one not yet taken."""
        return self._ids.pop(0) if self._ids and self._ids[0] not in taken else None
