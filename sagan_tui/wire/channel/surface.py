"""What the panel's screens ask of the session, as the channel's intents: one surface for both
transports (the session process, panel/remote.py; the session's real host in a test's own
process, over a socketpair: core/session/loopback.py). A subclass says how an intent goes: `_tell` (its effect comes as updates)
and `_ask` (its typed answer, the channel's view data)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Awaitable, Sequence

from sagan_tui.wire.channel import intents as I
from sagan_tui.wire.channel.views import ActionResultView, StopTargetView


class SessionSurface:
    """The session's methods the screens call; each is one intent of wire/channel/intents.py."""

    attached = False  # the session is a running `watch`'s (panel/remote.py): its polls are not ours to pace

    def _tell(self, intent: I.Intent) -> None:
        raise NotImplementedError

    async def _ask(self, intent: I.Intent) -> Any:
        raise NotImplementedError

    async def _act(self, intent: I.Intent) -> ActionResultView:
        return await self._ask(intent)

    def not_answering_since(self) -> float | None:
        """When (time.monotonic) the session was last heard, while it leaves the panel's questions
        unanswered; None while it answers. A session in this process always answers."""
        return None

    def refresh(self, at: "datetime | None" = None) -> None:
        self._tell(I.Refresh(at))

    def pause(self, paused: bool) -> None:
        self._tell(I.Pause(paused))

    def set_interval(self, seconds: float) -> None:
        self._tell(I.SetInterval(float(seconds)))

    def watch_timeline(self, tag: str, experiment: int | None, kind: str) -> None:
        self._tell(I.WatchTimeline(tag, experiment, kind))

    def watch_heatmap(self, dimension: str, window_s: float | None, width: int) -> None:
        self._tell(I.WatchHeatmap(dimension, window_s, width))

    def forget_timeline(self, tag: str) -> None:
        self._tell(I.ForgetTimeline(tag))

    def follow_pod(self, pod_id: str, account: str) -> None:
        self._tell(I.FollowPod(pod_id, account))

    def forget_pod(self, pod_id: str) -> None:
        self._tell(I.ForgetPod(pod_id))

    def view_pod(self, pod_id: str) -> Awaitable[Any]:
        return self._ask(I.ViewPod(pod_id))

    def tick(self, at: "datetime | None" = None) -> None:
        self._tell(I.Tick(at))

    def key_pressed(self, at: "datetime | None" = None) -> None:
        self._tell(I.KeyPressed(at))

    def dismiss(self, pod_id: str) -> Awaitable[str]:
        return self._ask(I.Dismiss(pod_id))

    def toggle_dismissed(self) -> Awaitable[str]:
        return self._ask(I.ToggleDismissed())

    def acknowledge_wave(self) -> Awaitable[str]:
        return self._ask(I.AcknowledgeWave())

    def start_canary(self, number: int) -> Awaitable[str]:
        return self._ask(I.StartCanary(number))

    def held_now(self) -> Awaitable[tuple[int, ...]]:
        return self._ask(I.HeldNow())

    def canary_rest(self) -> Awaitable[tuple[int, ...]]:
        return self._ask(I.CanaryRest())

    def blocked_by(self, numbers: Sequence[int]) -> Awaitable[dict[int, str]]:
        return self._ask(I.BlockedBy(tuple(numbers)))

    def hold_note(self) -> Awaitable[str]:
        return self._ask(I.HoldNote())

    def wave_response(self) -> Awaitable[Any]:
        return self._ask(I.WaveResponse())

    def dispatch_verdict(self, number: int) -> Awaitable[Any]:
        return self._ask(I.DispatchVerdict(number))

    def dispatch_guard(self, verb: str, numbers: Sequence[int]) -> Awaitable[Any]:
        return self._ask(I.DispatchGuard(verb, tuple(numbers)))

    async def approvals_of(self, number: int, status: str = "pending") -> list:
        return list(await self._ask(I.ApprovalsOf(number, status)))

    async def audit_log(self, limit: int = 500) -> list:
        return list(await self._ask(I.AuditLog(limit)))

    def balance_history(self) -> Awaitable[dict]:
        return self._ask(I.BalanceHistory())

    def view(self, number: int) -> Awaitable[Any]:
        return self._ask(I.ViewExperiment(number))

    async def export_report(self, directory: Any, source: str = "export") -> tuple[Any, str]:
        path, text = await self._ask(I.ExportReport(str(directory), source))
        return Path(path), text

    def refuse(self, what: str, target: str = "-") -> Awaitable[ActionResultView]:
        return self._act(I.Refuse(what, target))

    def decide(self, approval: Any, decision: str, answers: dict[str, str], note: str,
               confirm: str | None = None) -> Awaitable[ActionResultView]:
        return self._act(I.Decide(approval.id, decision, dict(answers), note, confirm))

    def hold(self, numbers: Sequence[int], note: str, origin: str = "h",
             keep: Sequence[str] = ()) -> Awaitable[ActionResultView]:
        return self._act(I.Hold(tuple(numbers), note, origin, tuple(keep)))

    def stop_targets(self, numbers: Sequence[int]) -> Awaitable[tuple]:
        return self._ask(I.StopTargets(tuple(numbers)))

    def release(self, numbers: Sequence[int], note: str = "", confirm: str | None = None) -> Awaitable[ActionResultView]:
        return self._act(I.Release(tuple(numbers), note, confirm))

    def release_refused(self, number: int) -> Awaitable[ActionResultView]:
        return self._act(I.ReleaseRefused(number))

    def canary(self, number: int, confirm: str | None = None) -> Awaitable[ActionResultView]:
        return self._act(I.Canary(number, confirm))

    def redispatch(self, number: int, note: str, confirm: str | None = None) -> Awaitable[ActionResultView]:
        return self._act(I.Redispatch(number, note, confirm))

    def promote(self, number: int) -> Awaitable[ActionResultView]:
        return self._act(I.Promote(number))

    def stop(self, targets: Sequence[StopTargetView]) -> Awaitable[ActionResultView]:
        return self._act(I.Stop(tuple(targets)))

    def record_cancelled(self, verb: str, target: str, *, account: str | None = None,
                         detail: str | None = None) -> Awaitable[ActionResultView]:
        return self._act(I.RecordCancelled(verb, target, account=account, detail=detail))
