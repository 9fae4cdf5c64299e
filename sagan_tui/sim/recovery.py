"""The reaper (kills pods a fixed time after RUNNING inside a window) and Sagan's recovery loop.

The reaper applies when a pod is added, scripted or launched while serving, so a canary
launched inside its window dies at its kill time and one launched after it lives. The recovery
loop acts at scenario times after a loss; the state is computed lazily, so `RecoveryLoop.advance`
runs before every request is answered (server.py) and performs what fell due since the last
one, in time order: a re-dispatch's own loss may fall due in the same call.
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING

from .fixture import PodSpec, ReaperSpec, RecoverySpec

if TYPE_CHECKING:
    from .state import SimState


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

    def advance(self, state: SimState, t: float) -> None:
        while self._due and self._due[0][0] <= t:
            at, _, n, lost_id = heapq.heappop(self._due)
            self._act(state, at, n, lost_id)

    def _act(self, state: SimState, at: float, n: int, lost_id: str) -> None:
        exp = state.experiments.get(n)
        if state.pods[lost_id].runpod_state(at) is not None:
            return  # stopped before its reaper came: not lost, nothing to recover
        if exp is None or exp.status_at(at) in ("blocked", "cancelled", "archived", "completed", "failed"):
            return  # held (by the owner, or Sagan's own cascade): Sagan does not re-dispatch
        last = self._last.get(n)
        if last is not None and at - last <= self.spec.dedupe_s:
            return  # the same moment's losses of one experiment: one re-dispatch
        if self._spent.get(n, 0) >= self.spec.budget:
            return
        self._spent[n] = self._spent.get(n, 0) + 1
        self._last[n] = at
        lost = state.pods[lost_id].spec
        dispatch = self.spec.dispatch_experiments is None or n in self.spec.dispatch_experiments
        note = f"Auto-recovery after pod loss (Pod {lost_id} not found in account={lost.account})"
        if not dispatch:
            state.record(at, "state_changed", experiment=n, to_status="implementing", actor_kind="system",
                         note=f"{note}: re-dispatch queued.")
            return
        pod_id = self._ids.pop(0) if self._ids and self._ids[0] not in state.pods else state.new_pod_id()
        state.record(at, "epm:recovery", experiment=n, actor_kind="agent", note=f"{note}: re-dispatching {pod_id}.")
        state.add_pod(lost.model_copy(update={
            "id": pod_id, "created_at": at, "running_at": at + self.spec.running_after_s, "lost_at": None,
            "exited_at": None, "stopped_at": None, "agent_run_id": None, "run_id": None, "terminated_by": None,
            "host": None}))
