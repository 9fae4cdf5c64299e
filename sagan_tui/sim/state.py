"""The simulated world: experiments, events, approvals and pods, computed lazily at a scenario time."""

from __future__ import annotations

import random
import threading
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from datetime import datetime
from operator import itemgetter
from typing import Any, Iterator

from sagan_tui.core.models import KNOWN_STATUSES, ApprovalRequest, Experiment, WorkflowEvent, turn_for

from .balance_stop import balance_stopped
from .clock import SimClock
from .fixture import ApprovalSpec, EventSpec, ExperimentSpec, Fixture, PodSpec
from .ids import new_pod_id, stable_int, stable_uuid
from .pods import Intent, SimPod
from .recovery import RecoveryLoop, reaped
from .timeline import Timeline

# Statuses in which Sagan is driving a run: a pod event may move them (queued, running, blocked).
RUN_STATUSES = frozenset(s for s in KNOWN_STATUSES if turn_for(s) == turn_for("running"))
LIST_OMIT = ("planMd", "body", "podSpec")  # the list route leaves the heavy fields out


@dataclass(eq=False, slots=True)
class SimEvent:
    id: str
    t: float
    seq: int
    event_type: str
    experiment: int | None = None
    entity_kind: str = "experiment"
    entity_id: str | None = None
    from_status: str | None = None
    to_status: str | None = None
    actor_kind: str | None = "system"
    actor_user_id: str | None = None
    note: str | None = None
    metadata: Any = None
    cache: tuple[int, dict[str, Any]] | None = None
    status_key: tuple[float, int] | None = None  # its move of the experiment's status, to undo it


@dataclass(eq=False)
class SimExperiment:
    number: int
    id: str
    fields: dict[str, Any]  # camelCase Experiment fields other than the computed ones
    base_status: str
    created_t: float
    updated_t: float | None  # its last change before the start (filled in once the events are in)
    status: Timeline = field(default_factory=Timeline)
    cache: tuple[Any, dict[str, Any]] | None = None

    def status_at(self, t: float) -> str:
        return self.status.state(t).get("status", self.base_status)

    def updated_at(self, t: float) -> float:
        base = self.created_t if self.updated_t is None else self.updated_t
        last = self.status.last_change(t)
        return base if last is None else max(base, last)

    @property
    def account(self) -> str:
        return self.fields.get("runpodAccount") or "team"


@dataclass(eq=False)
class SimApproval:
    id: str
    experiment: int | None
    fields: dict[str, Any]
    status: str
    created_t: float
    updated_t: float
    version: int = 0
    cache: tuple[Any, dict[str, Any]] | None = None


class SimState:
    """Everything the simulator serves. Every method takes the scenario time it answers for."""

    def __init__(self, fixture: Fixture, clock: SimClock, seed: int = 0) -> None:
        self.clock = clock
        self.seed = seed
        self.lock = threading.RLock()
        self.rng = random.Random(seed)
        self.name = fixture.name or "fixture"
        self.sagan = fixture.sagan
        self.accounts = dict(fixture.accounts or {})
        self.page_size = fixture.page_size  # pages every account's `GET /v2/pods` (sim/rest_billing.py)
        self.rest_per_minute = fixture.rest_per_minute
        self.experiments: dict[int, SimExperiment] = {}
        self.approvals: dict[str, SimApproval] = {}
        self.pods: dict[str, SimPod] = {}
        self._ev_t: list[float] = []  # the times of _events, for bisect
        self._events: list[SimEvent] = []
        self._by_exp: dict[int, list[SimEvent]] = {}
        self._seq = 0
        # event ids are uuid-shaped: a per-seed prefix and the event's sequence number
        self._id_prefix = stable_uuid("events", seed)[:24]
        self.reapers = list(fixture.reapers)
        self.recovery = RecoveryLoop(fixture.recovery) if fixture.recovery is not None else None
        self._load(fixture)

    # --- loading ----------------------------------------------------------------------

    def _load(self, fx: Fixture) -> None:
        for spec in fx.experiments:
            self._add_experiment(spec)
        # Everything that makes an event, recorded in time order so that status changes apply in order.
        pending: list[tuple[float, int, Any]] = []
        for order, ev in enumerate(fx.events):
            self._ensure_experiment(ev.get("experiment"))
            pending.append((ev["at"], order, ev))
        for order, spec in enumerate(fx.pods, start=len(pending)):
            self._ensure_experiment(spec.experiment, status="running", account=spec.account)
            pending += [(intent.at, order, (intent, self.pods[spec.id])) for intent in self._add_pod(spec)]
        for i, spec in enumerate(fx.approvalRequests):
            self._ensure_experiment(spec.experiment)
            pending.append((spec.at, len(pending), self._add_approval(spec, i)))
        pending.sort(key=itemgetter(0, 1))
        for _, _, item in pending:
            if isinstance(item, dict):
                self._record_spec(item)  # type: ignore[arg-type]
            elif isinstance(item, SimApproval):
                self._record_approval_requested(item)
            else:
                self.record_intent(*item)
        for exp in self.experiments.values():
            if exp.updated_t is None:  # not given: its last status change before the start
                history = [e.t for e in self._by_exp.get(exp.number, ()) if e.t <= 0 and e.event_type == "state_changed"]
                exp.updated_t = max([exp.created_t, *history])

    def _add_experiment(self, spec: ExperimentSpec) -> SimExperiment:
        n = spec.number
        fields = spec.model_dump(by_alias=True, exclude={"number", "status", "created_at", "updated_at"},
                                 exclude_none=True)
        fields.setdefault("title", f"Experiment #{n}")
        created = spec.created_at if spec.created_at is not None else -float(stable_int(2 * 86400, 9 * 86400, "c", n))
        exp = SimExperiment(n, fields.pop("id", None) or stable_uuid("experiment", n), fields, spec.status,
                            created, spec.updated_at)
        self.experiments[n] = exp
        return exp

    def _ensure_experiment(self, number: int | None, status: str = "proposed", account: str | None = None) -> None:
        if number is not None and number not in self.experiments:
            self._add_experiment(ExperimentSpec(number=number, status=status, runpod_account=account))

    def _add_pod(self, spec: PodSpec) -> list[Intent]:
        spec = balance_stopped(reaped(spec, self.reapers), self.accounts.get(spec.account))
        if self.recovery is not None:
            self.recovery.lost(spec)
        exp = self.experiments.get(spec.experiment) if spec.experiment is not None else None
        pod, intents = SimPod.build(spec, exp.id if exp else None)
        self.pods[spec.id] = pod
        return intents if spec.tracked else []  # Sagan has no record of an untracked pod

    def advance(self, t: float) -> None:
        """Perform what Sagan's recovery loop had due by scenario time t (sim/recovery.py)."""
        if self.recovery is not None:
            with self.lock:
                for at, n, lost_id in self.recovery.due(t):
                    self._recover(self.recovery, at, n, lost_id)

    def _recover(self, loop: RecoveryLoop, at: float, n: int, lost_id: str) -> None:
        exp = self.experiments.get(n)
        if self.pods[lost_id].runpod_state(at) is not None:
            return  # stopped before its reaper came: not lost, nothing to recover
        if exp is None or exp.status_at(at) in ("blocked", "cancelled", "archived", "completed", "failed"):
            return  # held (by the owner, or Sagan's own cascade): Sagan does not re-dispatch
        if not loop.may_redispatch(n, at):
            return
        lost = self.pods[lost_id].spec
        dispatch = loop.spec.dispatch_experiments is None or n in loop.spec.dispatch_experiments
        note = f"Auto-recovery after pod loss (Pod {lost_id} not found in account={lost.account})"
        if not dispatch:
            self.record(at, "state_changed", experiment=n, to_status="implementing", actor_kind="system",
                        note=f"{note}: re-dispatch queued.")
            return
        pod_id = loop.scripted_id(self.pods) or self.new_pod_id()
        self.record(at, "epm:recovery", experiment=n, actor_kind="agent", note=f"{note}: re-dispatching {pod_id}.")
        self.add_pod(lost.model_copy(update={
            "id": pod_id, "created_at": at, "running_at": at + loop.spec.running_after_s, "lost_at": None,
            "exited_at": None, "stopped_at": None, "agent_run_id": None, "run_id": None, "terminated_by": None,
            "host": None}))

    def add_pod(self, spec: PodSpec) -> SimPod:
        """A pod created while serving (launch-pod, a deploy mutation), its events recorded."""
        intents = self._add_pod(spec)
        pod = self.pods[spec.id]
        self.record_intents(intents, pod)
        return pod

    def _add_approval(self, spec: ApprovalSpec, i: int) -> SimApproval:
        fields = spec.model_dump(by_alias=True, exclude={"id", "experiment", "status", "at", "experiment_id",
                                                         "experiment_number", "created_at", "updated_at"})
        a = SimApproval(spec.id or stable_uuid("approval", self.seed, i), spec.experiment, fields,
                        spec.status, spec.at, spec.at)
        self.approvals[a.id] = a
        return a

    def _record_spec(self, ev: EventSpec) -> None:
        get = ev.get
        self.record(ev["at"], ev["eventType"], experiment=get("experiment"), event_id=get("id"),
                    entity_kind=get("entityKind"), entity_id=get("entityId"), from_status=get("fromStatus"),
                    to_status=get("toStatus"), actor_kind=get("actorKind") or "system",
                    actor_user_id=get("actorUserId"), note=get("note"), metadata=get("metadata"))

    def _record_approval_requested(self, a: SimApproval) -> None:
        note = "Experiment plan approval requested." if a.fields.get("kind") == "experiment_plan" else a.fields["title"]
        self.record(a.created_t, "approval_requested", experiment=a.experiment, actor_kind="agent", note=note,
                    metadata={"approvalRequestId": a.id, "kind": a.fields.get("kind")})

    # --- recording events -------------------------------------------------------------

    def record_intents(self, intents: list[Intent], pod: SimPod) -> None:
        if pod.spec.tracked:
            for intent in intents:
                self.record_intent(intent, pod)

    def record_intent(self, intent: Intent, pod: SimPod) -> SimEvent | None:
        """Record what a pod's timeline implies; a status change only moves a running experiment."""
        if intent.to_status and pod.spec.experiment is None:
            return None
        agent_run = intent.event_type.startswith("runpod_")
        ev = self.record(intent.at, intent.event_type, experiment=pod.spec.experiment, note=intent.note,
                         to_status=intent.to_status, actor_kind=intent.actor_kind, metadata=intent.metadata,
                         entity_kind="agent_run" if agent_run else None,
                         entity_id=pod.agent_run_id if agent_run else None, conditional=True)
        if ev is not None:
            pod.events.append(ev)
        return ev

    def cancel_after(self, pod: SimPod, t: float) -> None:
        """Undo what a pod's script had planned after t (its RUNNING, its loss and their events,
        its experiment's moves): the pod is stopped at t, so none of it happens. Sagan moves a
        blocked experiment out of `blocked` only when its pod really reaches RUNNING."""
        pod.runpod.cut_after(t)
        pod.sagan.cut_after(t)
        for ev in [e for e in pod.events if e.t > t]:
            pod.events.remove(ev)
            i = self._events.index(ev)
            del self._events[i], self._ev_t[i]
            if ev.experiment is not None:
                self._by_exp[ev.experiment].remove(ev)
                exp = self.experiments.get(ev.experiment)
                if exp is not None and ev.status_key is not None:
                    exp.status.discard(ev.status_key)

    def record(self, t: float, event_type: str, *, experiment: int | None = None, conditional: bool = False,
               event_id: str | None = None, entity_kind: str | None = None, entity_id: str | None = None,
               from_status: str | None = None, to_status: str | None = None, **rest: Any) -> SimEvent | None:
        """Add an event at scenario time t; a state_changed after the start moves the experiment.

        `conditional` events (implied by pods) are dropped when they would not change anything
        or when the experiment is not in a running status: before the start, the fixture's
        status already says where the experiment stands.
        """
        exp = self.experiments.get(experiment) if experiment is not None else None
        key = None
        if event_type == "state_changed" and exp is not None:
            current = exp.status_at(t)
            if conditional and (t <= 0 or current not in RUN_STATUSES or current == to_status):
                return None
            if t > 0 and to_status:
                key = exp.status.add(t, status=to_status)
            if t > 0:
                from_status = from_status or current
        self._seq += 1
        ev = SimEvent(event_id or f"{self._id_prefix}{self._seq:012x}", t, self._seq, event_type, experiment,
                      entity_kind or ("experiment" if exp else "system"), entity_id or (exp.id if exp else None),
                      from_status, to_status, **rest)
        ev.status_key = key
        self._append(ev)
        return ev

    def _append(self, ev: SimEvent) -> None:
        t = ev.t
        if self._ev_t and t < self._ev_t[-1]:  # a future event recorded early (a pod's timeline)
            i = bisect_right(self._ev_t, t)  # after equal times: insertion order breaks ties
            self._ev_t.insert(i, t)
            self._events.insert(i, ev)
        else:  # the common case: loading in time order, or an action happening now
            self._ev_t.append(t)
            self._events.append(ev)
        if ev.experiment is not None:
            mine = self._by_exp.setdefault(ev.experiment, [])
            j = len(mine)
            while j and mine[j - 1].t > t:
                j -= 1
            mine.insert(j, ev)

    # --- queries at scenario time t ---------------------------------------------------

    def events_between(self, t: float, since: datetime | None, limit: int) -> list[dict[str, Any]]:
        """Events with createdAt >= since that have happened by t, oldest first, at most limit."""
        start, exact_after = 0, float("-inf")
        if since is not None:  # bisect a little early, then compare served timestamps near the edge
            margin = 0.01 * self.clock.speed
            t_since = self.clock.t_of(since)
            start, exact_after = bisect_left(self._ev_t, t_since - margin), t_since + margin
        end = bisect_right(self._ev_t, t)
        out: list[dict[str, Any]] = []
        for i in range(start, end):
            ev = self._events[i]
            if ev.t < exact_after and self.clock.at(ev.t) < since:  # type: ignore[operator]
                continue
            out.append(self.event_dump(ev))
            if len(out) >= limit:
                break
        return out

    def events_for(self, number: int, t: float) -> list[SimEvent]:
        return [e for e in self._by_exp.get(number, ()) if e.t <= t]

    def event_dump(self, ev: SimEvent) -> dict[str, Any]:
        if ev.cache is None or ev.cache[0] != self.clock.epoch:
            dumped = WorkflowEvent(
                id=ev.id, entity_kind=ev.entity_kind, entity_id=ev.entity_id, experiment_number=ev.experiment,
                event_type=ev.event_type, from_status=ev.from_status, to_status=ev.to_status,
                actor_kind=ev.actor_kind, actor_user_id=ev.actor_user_id, note=ev.note, metadata=ev.metadata,
                created_at=self.clock.at(ev.t)).dump()
            ev.cache = (self.clock.epoch, dumped)
        return ev.cache[1]

    def _experiment_model(self, exp: SimExperiment, t: float) -> Experiment:
        status = exp.status_at(t)
        return Experiment.model_validate({
            **exp.fields, "id": exp.id, "number": exp.number, "status": status, "turn": turn_for(status),
            "createdAt": self.clock.at(exp.created_t),
            "updatedAt": self.clock.at(exp.updated_at(t)),
        })

    def experiment_dump(self, exp: SimExperiment, t: float, full: bool = True) -> dict[str, Any]:
        key = (self.clock.epoch, exp.status.count_at(t))
        if exp.cache is None or exp.cache[0] != key:
            exp.cache = (key, self._experiment_model(exp, t).dump())
        dumped = exp.cache[1]
        return dumped if full else {k: v for k, v in dumped.items() if k not in LIST_OMIT}

    def experiments_updated(self, t: float, since: datetime | None) -> Iterator[SimExperiment]:
        for exp in self.experiments.values():
            if since is None or self.clock.at(exp.updated_at(t)) >= since:
                yield exp

    def approval_dump(self, a: SimApproval) -> dict[str, Any]:
        key = (self.clock.epoch, a.version)
        if a.cache is None or a.cache[0] != key:
            exp = self.experiments.get(a.experiment) if a.experiment is not None else None
            a.cache = (key, ApprovalRequest.model_validate({
                **a.fields, "id": a.id, "experimentId": exp.id if exp else None, "experimentNumber": a.experiment,
                "status": a.status, "createdAt": self.clock.at(a.created_t), "updatedAt": self.clock.at(a.updated_t),
            }).dump())
        return a.cache[1]

    def approvals_at(self, t: float, status: str | None = None, experiment: int | None = None) -> list[SimApproval]:
        return [a for a in self.approvals.values() if a.created_t <= t
                and (status is None or a.status == status) and (experiment is None or a.experiment == experiment)]

    def account_of_key(self, key: str | None) -> str | None:
        if not key:
            return None
        return next((name for name, acc in self.accounts.items() if acc.api_key == key), None)

    def account_pods(self, account: str, t: float) -> list[SimPod]:
        return [p for p in self.pods.values() if p.spec.account == account and p.runpod_state(t) is not None]

    def pod_rows(self, t: float, since: datetime | None = None) -> list[dict[str, Any]]:
        rows = []
        for pod in self.pods.values():
            updated = pod.sagan_updated(t)
            if updated is None or (since is not None and self.clock.at(updated) < since):
                continue
            rows.append(pod.sagan_row(t, self.clock, pod.spec.experiment))
        return rows

    def new_pod_id(self) -> str:
        return new_pod_id(self.rng, set(self.pods))

    @property
    def event_count(self) -> int:
        return len(self._events)
