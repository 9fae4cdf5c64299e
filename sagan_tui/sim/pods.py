"""One simulated pod: its RunPod timeline, Sagan's pod_lifecycle timeline, and both served views."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

from sagan_tui.core.models import PodLifecycle

from .clock import SimClock
from .fixture import PodSpec
from .ids import stable_hex, stable_int, stable_uuid
from .timeline import Timeline

SAGAN_POLL_S = 30  # how often Sagan's watcher checks its pods (scenario seconds)
STOP_SETTLE_S = 3  # stop_requested -> stopped
NOTICE_S = 2  # Sagan notices RUNNING this long after RunPod reports it
STOPPED_NOTE = "RunPod pod stopped; volume preserved."


def detect_delay(pod_id: str) -> int:
    """Seconds until Sagan's own poll notices a pod gone: 20-40, fixed per pod."""
    return stable_int(20, 40, "detect", pod_id)


def not_found_error(pod_id: str, account: str) -> str:
    return f"Pod {pod_id} not found in account={account}"


def runpod_date(clock: SimClock, t: float) -> str:
    """RunPod's way of writing a time inside lastStatusChange."""
    return clock.at(t).strftime("%a %b %d %Y %H:%M:%S GMT+0000 (Coordinated Universal Time)")


class Marks(NamedTuple):
    """A pod's fixed made-up identifiers (machine, host, addresses): hashed once, not per request."""

    host: str  # the hex part of podHostId and of the ssh proxy user
    machine_id: str
    ip: str
    ssh_port: int
    http_port: int
    gpu_ids: tuple[str, ...]


def status_change(st: dict[str, Any], clock: SimClock) -> str | None:
    """lastStatusChange as RunPod writes it ("Rented by User: Mon Dec 01 2026 ...")."""
    reason = st.get("reason")
    if isinstance(reason, tuple):
        return f"{reason[0]}: {runpod_date(clock, reason[1])}"
    return reason


class PodView:
    """The GraphQL view of a pod at t, each field built when a query reads it: the balance query
    reads three fields of every pod, and building all of them was most of its reply's time."""

    __slots__ = ("_pod", "_t", "_clock", "_st", "_full")

    def __init__(self, pod: "SimPod", t: float, clock: SimClock, st: dict[str, Any]) -> None:
        self._pod, self._t, self._clock, self._st, self._full = pod, t, clock, st, None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        pod = self._pod
        if name in pod.spec.null_fields:
            return None
        if name == "id":
            return pod.spec.id
        if name == "lastStatusChange":
            return status_change(self._st, self._clock)
        if name == "machine":
            return pod.machine()
        return self.full().get(name)

    def full(self) -> dict[str, Any]:
        """Every field, as runpod_view builds them."""
        if self._full is None:
            self._full = self._pod.runpod_view(self._t, self._clock)
        return self._full  # type: ignore[return-value]


@dataclass(eq=False)
class Intent:
    """An event a pod's timeline implies, for the state to record against its experiment."""

    at: float
    event_type: str
    note: str
    actor_kind: str = "system"
    to_status: str | None = None  # for state_changed: applied only to a running experiment
    metadata: dict[str, Any] | None = None


@dataclass(eq=False)
class SimPod:
    spec: PodSpec
    experiment_id: str | None = None
    runpod: Timeline = field(default_factory=Timeline)
    sagan: Timeline = field(default_factory=Timeline)
    events: list[Any] = field(default_factory=list)  # the events its timeline recorded (SimEvent)

    def __post_init__(self) -> None:
        s = self.spec
        self.row_id = stable_uuid("pod_lifecycle", s.id)
        self.agent_run_id = s.agent_run_id or stable_uuid("agent_run", s.id)
        self.run_id = s.run_id or stable_uuid("run", s.id)
        self._load: tuple[int, tuple] | None = None  # (10 s tick, load()) last served

    @cached_property
    def marks(self) -> Marks:
        s = self.spec
        return Marks(stable_hex(8, "host", s.id), stable_hex(12, "machine", s.id),
                     f"10.{stable_int(0, 255, 'ip', s.id)}.0.{stable_int(2, 250, 'ip2', s.id)}",
                     stable_int(10000, 40000, "port", s.id), stable_int(40001, 60000, "port", s.id),
                     tuple(f"GPU-{stable_hex(8, 'gpu', s.id, i)}" for i in range(s.gpu_count)))

    def load(self, t: float) -> tuple[tuple[tuple[int, int], ...], int, int]:
        """((gpu util, gpu memory util) per GPU, cpu util, ram util) for t's 10 s tick: the same
        numbers on both APIs, hashed once per tick (a 10,000-pod list asks for all of them)."""
        tick = int(t // 10)
        if self._load is None or self._load[0] != tick:
            s = self.spec
            gpus = tuple((stable_int(55, 99, "util", s.id, i, tick), stable_int(40, 95, "mem", s.id, i, tick))
                         for i in range(s.gpu_count))
            self._load = (tick, (gpus, stable_int(5, 90, "cpu", s.id, tick), stable_int(20, 90, "ram", s.id, tick)))
        return self._load[1]

    # --- building the timelines -------------------------------------------------------

    @classmethod
    def build(cls, spec: PodSpec, experiment_id: str | None = None) -> tuple["SimPod", list[Intent]]:
        """The pod with the timeline its spec describes, and the events that timeline implies."""
        pod = cls(spec, experiment_id)
        intents: list[Intent] = []
        s = spec
        pod.runpod.add(s.created_at, status="CREATED", reason=("Created by User", s.created_at))
        pod.sagan.add(s.created_at, status="deploying", desired_status="RUNNING")
        intents.append(Intent(s.created_at, "state_changed", "RunPod pod dispatched; waiting for runtime.",
                              to_status="queued"))
        intents.append(Intent(s.created_at + 1, "note", f"Pod-provisioner committed 1 pod ({s.id}) "
                              f"in account={s.account}", actor_kind="agent", metadata=pod._meta()))
        if s.running_at is not None:
            intents += pod.run_from(s.running_at)
        if s.lost_at is not None:
            intents += pod.lose(s.lost_at)
        if s.exited_at is not None:
            intents += pod.exit(s.exited_at, s.exit_reason)
        if s.stopped_at is not None:
            intents += pod.stop(s.stopped_at, actor_kind="system")
        return pod, intents

    def _meta(self, **extra: Any) -> dict[str, Any]:
        return {"podId": self.spec.id, "account": self.spec.account, **extra}

    def run_from(self, t: float, note: str = "RunPod pod is running.") -> list[Intent]:
        self.runpod.add(t, status="RUNNING", reason=("Rented by User", t), since=t)
        self.sagan.add(t + NOTICE_S, status="running", desired_status="RUNNING", started=t, stopped=None,
                       last_error=None)
        return [Intent(t + NOTICE_S, "state_changed", note, to_status="running")]

    def lose(self, t: float) -> list[Intent]:
        """Vanishes from its account at t; Sagan's poll notices 20-40 s later."""
        self.runpod.add(t, gone=True)
        seen = t + detect_delay(self.spec.id)
        error = not_found_error(self.spec.id, self.spec.account)
        self.sagan.add(seen, status="terminated", desired_status="TERMINATED", last_error=error, terminated=seen)
        return [Intent(seen, "runpod_status", error, actor_kind="agent",
                       metadata=self._meta(status="terminated", error=error))]

    def exit(self, t: float, reason: str | None) -> list[Intent]:
        """Stays listed as EXITED with a RunPod-side reason (reaped without vanishing)."""
        self.runpod.add(t, status="EXITED", reason=reason or ("Exited by Runpod", t), since=None)
        seen = t + detect_delay(self.spec.id)
        self.sagan.add(seen, status="stopped", desired_status="EXITED", stopped=seen,
                       last_error=f"Pod exited: {reason or 'Exited by Runpod'}")
        return [Intent(seen, "runpod_status", f"Pod {self.spec.id} exited on RunPod's side", actor_kind="agent",
                       metadata=self._meta(status="exited", reason=reason))]

    def stop(self, t: float, actor_kind: str = "owner") -> list[Intent]:
        """An ordinary stop: EXITED "by user", Sagan's row stop_requested then stopped."""
        self.runpod.add(t, status="EXITED", reason="Exited by user", since=None)
        self.sagan.add(t, status="stop_requested", desired_status="EXITED")
        done = t + STOP_SETTLE_S
        self.sagan.add(done, status="stopped", stopped=done)
        return [
            Intent(t, "runpod_stop_requested", f"Stop requested for pod {self.spec.id}", actor_kind=actor_kind,
                   metadata=self._meta()),
            Intent(done, "runpod_stopped", f"Pod {self.spec.id} stopped", actor_kind="agent", metadata=self._meta()),
            Intent(done, "state_changed", STOPPED_NOTE, to_status="blocked"),
        ]

    def terminate(self, t: float) -> list[Intent]:
        self.runpod.add(t, gone=True)
        self.sagan.add(t, status="terminated", desired_status="TERMINATED", terminated=t)
        return [Intent(t, "runpod_status", f"Pod {self.spec.id} terminated by owner", actor_kind="owner",
                       metadata=self._meta(status="terminated"))]

    # --- what is served ---------------------------------------------------------------

    def runpod_state(self, t: float) -> dict[str, Any] | None:
        """The RunPod-side state at t, or None while not yet created or once gone."""
        if t < self.spec.created_at:
            return None
        st = self.runpod.state(t)
        return None if st.get("gone") else st

    def lazy_view(self, t: float, clock: SimClock) -> PodView | None:
        """runpod_view's fields, each built when read."""
        st = self.runpod_state(t)
        return None if st is None else PodView(self, t, clock, st)

    def runpod_view(self, t: float, clock: SimClock) -> dict[str, Any] | None:
        """The pod as RunPod's GraphQL `Pod` type serves it (camelCase, nested)."""
        st = self.runpod_state(t)
        if st is None:
            return None
        s = self.spec
        since = st.get("since")
        running = st["status"] == "RUNNING" and since is not None
        marks = self.marks
        view = {
            "id": s.id, "name": s.name or s.id, "desiredStatus": st["status"],
            "lastStatusChange": status_change(st, clock),
            "uptimeSeconds": 0,  # RunPod's top-level uptime is unreliable; the runtime one is not
            "costPerHr": s.cost_per_hr, "adjustedCostPerHr": s.adjusted_cost_per_hr or s.cost_per_hr,
            "gpuCount": s.gpu_count, "podType": s.pod_type, "imageName": s.image_name,
            "machineId": marks.machine_id, "containerDiskInGb": s.container_disk_in_gb,
            "dockerArgs": s.docker_args, "dockerId": None, "env": [f"{k}={v}" for k, v in s.env.items()],
            "memoryInGb": s.memory_in_gb, "port": None, "ports": "22/tcp,8888/http", "vcpuCount": s.vcpu_count,
            "volumeInGb": s.volume_in_gb, "volumeMountPath": "/workspace",
            "machine": self.machine(),
            "runtime": self._runtime(t, since, clock) if running else None,
        }
        view.update((name, None) for name in s.null_fields)
        return view

    def machine(self) -> dict[str, Any]:
        s = self.spec
        return {"gpuDisplayName": s.gpu, "dataCenterId": s.datacenter,
                "podHostId": s.host or f"{s.id}-{self.marks.host}", "location": s.datacenter.split("-")[0]}

    def _runtime(self, t: float, since: float, clock: SimClock) -> dict[str, Any]:
        marks = self.marks
        return {
            "uptimeInSeconds": int(clock.wall_seconds(since, t)),
            "ports": [
                {"ip": marks.ip, "isIpPublic": False, "privatePort": 22, "publicPort": marks.ssh_port, "type": "tcp"},
                {"ip": "100.65.0.1", "isIpPublic": True, "privatePort": 8888, "publicPort": marks.http_port,
                 "type": "http"},
            ],
            "gpus": [{"id": gpu_id, "gpuUtilPercent": util, "memoryUtilPercent": mem}
                     for gpu_id, (util, mem) in zip(marks.gpu_ids, self.load(t)[0])],
        }

    def cost_now(self, t: float) -> float:
        st = self.runpod_state(t)
        return self.spec.cost_per_hr if st and st["status"] == "RUNNING" else 0.0

    def sagan_row(self, t: float, clock: SimClock, experiment_number: int | None) -> dict[str, Any] | None:
        """Sagan's pod_lifecycle row at t (snake_case), with experiment_number for the panel."""
        s = self.spec
        if not s.tracked or t < s.created_at:
            return None
        st = self.sagan.state(t)
        started, stopped, terminated = st.get("started"), st.get("stopped"), st.get("terminated")
        status = st["status"]
        live = status in ("deploying", "running", "stop_requested")
        checked = max(s.created_at, (t // SAGAN_POLL_S) * SAGAN_POLL_S) if live else self.sagan.last_change(t)

        def at(v: float | None):
            return None if v is None else clock.at(v)

        return PodLifecycle(
            id=self.row_id, runpod_pod_id=s.id, account=s.account, agent_run_id=self.agent_run_id,
            experiment_id=self.experiment_id, experiment_number=experiment_number, run_id=self.run_id,
            name=s.name or s.id, gpu_type_id=s.gpu, gpu_count=s.gpu_count, status=status,
            desired_status=st.get("desired_status"), last_error=st.get("last_error"),
            last_checked_at=at(checked), stopped_at=at(stopped), terminated_at=at(terminated),
            cost_per_hr=s.cost_per_hr, adjusted_cost_per_hr=s.adjusted_cost_per_hr or s.cost_per_hr,
            uptime_seconds=int(clock.wall_seconds(started, t)) if status == "running" and started is not None else None,
            last_started_at=at(started), metadata={"datacenter": s.datacenter, "podType": s.pod_type},
            created_at=at(s.created_at), updated_at=at(self.sagan.last_change(t)),
        ).dump()

    def sagan_updated(self, t: float) -> float | None:
        return self.sagan.last_change(t) if self.spec.tracked and t >= self.spec.created_at else None
