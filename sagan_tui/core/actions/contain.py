"""Containment: hold experiments, stop their starting and doomed pods, then verify the hold held.

One operation for every path that holds during an incident (`h`, `H`, `W`, a failed canary, and
`watch`'s unattended guard later): a hold alone leaks, because a pod already CREATED when the
hold lands reaches RUNNING, Sagan moves the experiment `queued -> running` out of `blocked`, the
reaper kills it and the recovery loop re-dispatches (issue #41). So containment also stops every
pod of the held experiments that is starting, or RUNNING for less than the wave's kill time plus a
margin (it would die anyway, billed), through the runner's stop (which re-checks with RunPod
first, as `s` does). A stop that fails is retried with backoff on the session's clock; the hold
stays. Each held experiment is then *verified* until the guard ends: a new pod or a move out of
`blocked` is an override. Nothing reads "contained" before the verification says so.

The session calls `contain` and, after every poll, `step` with what the poll saw; a headless
`watch` can do the same (nothing here knows of a screen).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Iterable, Mapping, Sequence

from sagan_tui.core.actions.results import ActionResult, StopTarget
from sagan_tui.core.actions.runner import ActionRunner
from sagan_tui.wire import fmt

ORIGINS = ("h", "H", "W", "canary", "watch", "sagan")
STARTING = frozenset({"CREATED", "STARTING", "RESTARTING"})  # RunPod's statuses of a pod not yet RUNNING
KILL_MARGIN_S = 60.0  # a pod RUNNING for less than the wave's kill time plus this dies in it
RETRY_FIRST_S, RETRY_MAX_S = 5.0, 120.0  # a failed stop is tried again after 5 s, 10 s, ... at most 2 min
SHOWN_AFTER_S = 600.0  # a contained experiment's line stays this long past its guard, then leaves the panel
GONE_WORDS = ("not found", "no longer exists", "gone", "not_found")


def stop_targets(pods: Iterable, numbers: Iterable[int], now: datetime, kill_s: float | None) -> list[StopTarget]:
    """The pods containment stops for `numbers`: each one starting, and each RUNNING for less than
    the wave's kill time plus a margin (none of those RUNNING when there is no wave's kill time:
    a pod that runs outside a wave is not the incident's)."""
    wanted = set(numbers)
    out = []
    for p in pods:
        if p.experiment not in wanted or p.gone_at is not None:
            continue
        status = p.pod.desired_status
        if status in STARTING:
            doomed = True
        elif status == "RUNNING" and kill_s is not None and p.running_at is not None:
            doomed = (now - p.running_at).total_seconds() < kill_s + KILL_MARGIN_S
        else:
            doomed = False
        if doomed:
            age = None if p.first_seen_at is None else max(0.0, (now - p.first_seen_at).total_seconds())
            out.append(StopTarget(pod_id=p.pod_id, account=p.account, expected_status=status,
                                  experiment=p.experiment, name=p.pod.name, gpu=p.pod.gpu,
                                  cost_per_hr=p.pod.cost_per_hr, age_s=age))
    return sorted(out, key=lambda t: (t.experiment or 0, t.pod_id))


@dataclass
class Stop:
    """One pod containment asked to stop, and how that went."""

    target: StopTarget
    state: str = "pending"  # pending, sending, stopping (sent), gone (already), failed (retrying)
    reason: str = ""
    tries: int = 0
    next_try: datetime | None = None


@dataclass
class Verification:
    """One held experiment, watched from its hold until the guard's end."""

    number: int
    origin: str
    held_at: datetime
    until: datetime
    known_pods: frozenset[str]
    stops: dict[str, Stop] = field(default_factory=dict)
    hold_ok: bool = False
    override: str | None = None

    def state(self, now: datetime) -> str:
        """held (verifying), contained (the guard passed with no override), overridden, stopping, not held."""
        if not self.hold_ok:
            return "not held"
        if self.override is not None:
            return "overridden"
        if any(s.state in ("pending", "sending", "failed") for s in self.stops.values()):
            return "stopping"
        return "contained" if now >= self.until else "verifying"

    def line(self, now: datetime) -> str:
        """One line for the wave panel and the row: what containment knows of this experiment."""
        st = self.state(now)
        head = f"{fmt.exp(self.number)} held by {self.origin}"
        failed = [f"{s.target.pod_id} {s.reason}" for s in self.stops.values() if s.state == "failed"]
        if st == "overridden":
            return f"{head}: OVERRIDDEN ({self.override}); h stops its pods and holds again"
        if st == "stopping":
            return f"{head}: stop failing, retrying: {'; '.join(failed) or 'sending'}"
        if st == "contained":
            return f"{head}: contained (no new pod, still blocked through the guard)"
        if st == "not held":
            return f"{head}: the hold was not confirmed"
        left = fmt.duration(max(0.0, (self.until - now).total_seconds()))
        return f"{head}: verifying, {left} left"


@dataclass(frozen=True)
class ContainResult:
    """What one containment did: the holds' and the stops' results, and the held experiments."""

    hold: ActionResult
    stops: tuple[ActionResult, ...]
    numbers: tuple[int, ...]
    origin: str

    @property
    def ok(self) -> bool:
        return self.hold.ok

    @property
    def message(self) -> str:
        stopped = [s.target for s in self.stops if s.ok]
        failed = [s.message for s in self.stops if not s.ok]
        out = self.hold.message
        if self.stops:
            out += f"; {len(stopped)} of {len(self.stops)} pods stopping" + (f": {', '.join(stopped)}" if stopped else "")
        if failed:
            out += "; retrying: " + "; ".join(failed)
        return out + ("; verifying until the guard ends" if self.hold.ok or any(p.ok for p in self.hold.parts) else "")


class Containment:
    """Holds, stops and verifies; one per session, on its loop. Reads nothing but what it is given."""

    def __init__(self, runner: ActionRunner, guard_minutes: float) -> None:
        self.runner = runner
        self.guard_minutes = guard_minutes
        self.watched: dict[int, Verification] = {}

    async def contain(self, numbers: Sequence[int], stop_targets: Sequence[StopTarget], *, origin: str,
                      note: str, known_pods: Mapping[int, Iterable[str]] | None = None) -> ContainResult:
        """Hold `numbers` (Sagan `blocked`, `note` with the verdict and pod ids), stop each of
        `stop_targets` (the dialog's, less what the owner unticked), and watch them until the guard ends."""
        if origin not in ORIGINS:
            raise ValueError(f"unknown origin {origin!r}")
        numbers = tuple(dict.fromkeys(int(n) for n in numbers))
        now = self.runner.clock()
        hold = (await self.runner.hold(numbers[0], note, origin) if len(numbers) == 1
                else await self.runner.bulk_hold(numbers, note, origin))
        held = {n for n in numbers if (hold.ok and len(numbers) == 1)
                or any(p.ok and p.target == f"#{n}" for p in hold.parts)}
        known = known_pods or {}
        # only a confirmed hold is verified; the pods of one Sagan refused are still stopped (once)
        made = {n: Verification(n, origin, now, now + timedelta(minutes=self.guard_minutes),
                                frozenset(known.get(n, ())), hold_ok=True) for n in numbers if n in held}
        stops = [Stop(t) for t in stop_targets]
        for s in stops:
            if s.target.experiment in made:
                made[s.target.experiment].stops[s.target.pod_id] = s
        # whole before they are shown: the wave panel reads them from the session's writer thread
        self.watched.update(made)
        results = [await self._try(s, now) for s in stops]
        return ContainResult(hold, tuple(results), numbers, origin)

    async def _try(self, stop: Stop, now: datetime) -> ActionResult:
        t = stop.target
        stop.state = "sending"  # each source's poll steps containment: a stop in flight is not retried beside itself
        # a starting pod that reached RUNNING since the dialog listed it is still doomed: stopped too
        also = STARTING | {"RUNNING"} if t.expected_status in STARTING else frozenset()
        result = await self.runner.stop_pod(t.pod_id, t.account, t.expected_status, t.experiment, also)
        stop.tries += 1
        if result.ok:
            stop.state, stop.reason = "stopping", ""
        elif any(w in result.message for w in GONE_WORDS):
            stop.state, stop.reason = "gone", "already gone"
        else:
            stop.state, stop.reason = "failed", _reason(result)
            wait = min(RETRY_MAX_S, RETRY_FIRST_S * 2 ** (stop.tries - 1))
            stop.next_try = now + timedelta(seconds=wait)
        return result

    async def step(self, now: datetime, statuses: Mapping[int, tuple[str, datetime | None, str | None]],
                   pods: Iterable) -> list[str]:
        """After a poll: retry the stops due, and find overrides (statuses: number -> (status, when,
        actor kind); pods: the cached pods). One line per override, said once."""
        said = []
        pods = list(pods)
        live = {p.pod_id: p for p in pods}
        for v in list(self.watched.values()):
            for s in v.stops.values():
                if s.state == "failed" and s.next_try is not None and s.next_try <= now:
                    p = live.get(s.target.pod_id)
                    if p is not None and p.gone_at is None:  # it may have become RUNNING since
                        s.target = StopTarget(**{**_fields(s.target), "expected_status": p.pod.desired_status})
                    await self._try(s, now)
            if v.override is None and v.hold_ok and now <= v.until:
                v.override = _override(v, statuses.get(v.number), pods)
                if v.override is not None:
                    said.append(f"hold on {fmt.exp(v.number)} overridden: {v.override}")
        return said

    def lines(self, now: datetime) -> tuple[tuple[int, str], ...]:
        """(experiment, its containment line), for the wave panel and the rows."""
        return tuple((n, v.line(now)) for n, v in sorted(self.watched.items())
                     if v.state(now) != "contained" or (now - v.until).total_seconds() <= SHOWN_AFTER_S)

    def released(self, number: int) -> None:
        """The owner released it: nothing more to verify."""
        self.watched.pop(number, None)


def _override(v: Verification, status: tuple[str, datetime | None, str | None] | None, pods: Iterable) -> str | None:
    if status is not None and status[0] != "blocked" and status[1] is not None and status[1] >= v.held_at \
            and status[2] != "owner":
        return f"blocked -> {status[0]} at {fmt.hms(status[1])}"
    for p in pods:
        if p.experiment == v.number and p.pod_id not in v.known_pods and p.pod_id not in v.stops \
                and p.first_seen_at is not None and p.first_seen_at >= v.held_at:
            return f"new pod {p.pod_id} at {fmt.hms(p.first_seen_at)}"
    return None


def _reason(result: ActionResult) -> str:
    return (result.server_error or result.message)[:200]


def _fields(target: StopTarget) -> dict:
    import msgspec

    return msgspec.structs.asdict(target)
