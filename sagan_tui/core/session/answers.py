"""Each intent of the channel (sagan_tui/wire/channel/intents.py) answered by the PanelSession method
that does it, its result made a view (core/session/views.py). `HANDLERS` covers every intent but Open
and PreOpen, which core/session/serve.py answers itself (they make the session); a test checks the table is whole.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from sagan_tui.wire.channel import intents as I
from sagan_tui.wire.channel.views import Done
from sagan_tui.core.session import views as V

if TYPE_CHECKING:
    from sagan_tui.core.session.core import PanelSession

Answer = Callable[["PanelSession", Any], Awaitable[Any]]


def _started(start: Callable[["PanelSession", Any], Any]) -> Answer:
    """A tell: done (the answer says so) once the session did it; its news comes as updates."""
    async def answer(s: "PanelSession", i: Any) -> Done:
        if inspect.isawaitable(did := start(s, i)):
            await did
        return Done()
    return answer


def _as(make: Callable[["PanelSession", Any], Awaitable[Any]], view: Callable[[Any], Any] = lambda v: v) -> Answer:
    async def answer(s: "PanelSession", i: Any) -> Any:
        return view(await make(s, i))
    return answer


async def _decide(s: "PanelSession", i: I.Decide) -> Any:
    def find():
        for a in list(s.model.approvals if s.model else ()) + list(s.cache.approvals("deferred")):
            if a.id == i.approval_id:
                return a
        return None

    approval = await s.in_db(find)
    if approval is None:
        raise LookupError(f"no pending or deferred approval {i.approval_id}")
    return await s.desk.decide(approval, i.decision, dict(i.answers), i.note, i.confirm)


async def _stop(s: "PanelSession", i: I.Stop) -> Any:
    return await s.desk.stop(list(i.targets))  # the channel's StopTargetView is the core's StopTarget


async def _export(s: "PanelSession", i: I.ExportReport) -> tuple[str, str]:
    from pathlib import Path

    path, text = await s.desk.export_report(Path(i.directory), i.source)
    return str(path), text


HANDLERS: dict[type, Answer] = {
    I.Refresh: _started(lambda s, i: s.refresh(i.at)),
    I.Pause: _started(lambda s, i: s.pause(i.paused)),
    I.SetInterval: _started(lambda s, i: s.set_interval(i.seconds)),
    I.WatchTimeline: _started(lambda s, i: s.watch_timeline(i.tag, i.experiment, i.kind)),
    I.ForgetTimeline: _started(lambda s, i: s.forget_timeline(i.tag)),
    I.WatchHeatmap: _started(lambda s, i: s.watch_heatmap(i.dimension, i.window_s, i.width)),
    I.FollowPod: _started(lambda s, i: s.follow_pod(i.pod_id, i.account)),
    I.ForgetPod: _started(lambda s, i: s.forget_pod(i.pod_id)),
    I.ViewPod: _as(lambda s, i: s.desk.pod_detail(i.pod_id)),
    I.Tick: _started(lambda s, i: s.tick(i.at)),
    I.KeyPressed: _started(lambda s, i: s.key_pressed(i.at)),
    I.Dismiss: _as(lambda s, i: s.desk.dismiss(i.pod_id)),
    I.ToggleDismissed: _as(lambda s, i: s.desk.toggle_dismissed()),
    I.AcknowledgeWave: _as(lambda s, i: s.desk.acknowledge_wave()),
    I.StartCanary: _as(lambda s, i: s.desk.start_canary(i.number)),
    I.HeldNow: _as(lambda s, i: s.desk.held_now(), tuple),
    I.CanaryRest: _as(lambda s, i: s.desk.canary_rest(), tuple),
    I.BlockedBy: _as(lambda s, i: s.desk.blocked_by(i.numbers), dict),
    I.HoldNote: _as(lambda s, i: s.desk.hold_note()),
    I.WaveResponse: _as(lambda s, i: s.desk.wave_response()),
    I.DispatchVerdict: _as(lambda s, i: s.desk.dispatch_verdict(i.number), V.verdict_view),
    I.DispatchGuard: _as(lambda s, i: s.desk.dispatch_guard(i.verb, i.numbers), V.verdict_view),
    I.ApprovalsOf: _as(lambda s, i: s.desk.approvals_of(i.number, i.status),
                       lambda got: tuple(V.approval_view(a) for a in got)),
    I.AuditLog: _as(lambda s, i: s.desk.audit_log(i.limit), lambda got: tuple(V.audit_view(a) for a in got)),
    I.BalanceHistory: _as(lambda s, i: s.desk.balance_history(), lambda got: {k: V.plain(v) for k, v in got.items()}),
    I.ViewExperiment: _as(lambda s, i: s.desk.view(i.number), V.detail_view),
    I.ExportReport: _export,
    I.Refuse: _as(lambda s, i: s.desk.refuse(i.what, i.target)),
    I.Decide: _decide,
    I.Hold: _as(lambda s, i: s.desk.hold(i.numbers, i.note, i.origin, i.keep)),
    I.StopTargets: _as(lambda s, i: s.desk.stop_targets(i.numbers), tuple),
    I.Release: _as(lambda s, i: s.desk.release(i.numbers, i.note, i.confirm)),
    I.ReleaseRefused: _as(lambda s, i: s.desk.release_refused(i.number)),
    I.Canary: _as(lambda s, i: s.desk.canary(i.number, i.confirm)),
    I.Redispatch: _as(lambda s, i: s.desk.redispatch(i.number, i.note, i.confirm)),
    I.Promote: _as(lambda s, i: s.desk.promote(i.number)),
    I.Stop: _stop,
    I.RecordCancelled: _as(lambda s, i: s.desk.record_cancelled(i.verb, i.target, account=i.account, detail=i.detail)),
}
