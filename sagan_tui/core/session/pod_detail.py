"""A pod's screen as the session knows it: RunPod's and Sagan's records, its cost so far, its losses (PodDetailView).

Read in the writer thread from the model (RunPod's record, the losses) and the cache (Sagan's
pod_lifecycle row, the billed amount the wave evidence stored). Every value is cleaned here, as
every row the session renders is; the screen shows them literally besides.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from sagan_tui.wire.channel.views import PodDetailView
from sagan_tui.wire.safe_text import one_line
from sagan_tui.wire import fmt

if TYPE_CHECKING:
    from sagan_tui.core.models import Loss, PodLifecycle
    from sagan_tui.core.session.model import PanelModel
    from sagan_tui.core.store.cache import Cache, CachedPod

SAGAN_FIELDS = ("status", "desired_status", "last_error", "blocked_reason", "retry_count", "run_id",
                "agent_run_id", "last_started_at", "last_checked_at", "stopped_at", "terminated_at")


def pod_detail(pod_id: str, model: "PanelModel", cache: "Cache", now: datetime) -> PodDetailView:
    cp = model.pods.get(pod_id)
    losses = [x for x in model.losses if x.pod_id == pod_id]
    sagan = next((p for p in cache.sagan_pods() if p.runpod_pod_id == pod_id), None)
    billed = cache.loss_rows.evidence().get(pod_id, {}).get("billed_usd")
    account = cp.account if cp else (losses[0].account if losses else (sagan.account if sagan else ""))
    experiment = cp.experiment if cp and cp.experiment is not None else next(
        (x.experiment for x in losses if x.experiment is not None), sagan.experiment_number if sagan else None)
    return PodDetailView(pod_id, account, experiment, runpod_fields(cp, losses, now),
                         sagan_fields(sagan), cost_line(cp, losses, billed, now), history(losses))


def _pairs(items: list[tuple[str, Any]]) -> tuple[tuple[str, str], ...]:
    out = []
    for label, value in items:
        if value in (None, ""):
            continue
        out.append((label, one_line(fmt.stamp(value) if isinstance(value, datetime) else value, 160)))
    return tuple(out)


def runpod_fields(cp: "CachedPod | None", losses: list["Loss"], now: datetime) -> tuple[tuple[str, str], ...]:
    """RunPod's record as the cache last had it (a lost pod's from its loss when the record is gone)."""
    loss = losses[-1] if losses else None
    if cp is None:
        if loss is None:
            return (("record", "not in the cache"),)
        return _pairs([("status", "gone"), ("gpu", loss.gpu), ("data centre", loss.datacenter), ("host", loss.host),
                       ("cost/h", fmt.usd(loss.cost_per_hr, per_hour=True) if loss.cost_per_hr else None),
                       ("running at", loss.running_at)])
    p = cp.pod
    status = "gone" if cp.gone_at else p.desired_status
    uptime = fmt.duration(p.uptime_seconds) if p.uptime_seconds and not cp.gone_at else None
    return _pairs([
        ("status", status), ("name", p.name), ("gpu", f"{p.gpu_count or 1} × {p.gpu}" if p.gpu else None),
        ("data centre", p.datacenter or (loss.datacenter if loss else None)),
        ("host", p.host or (loss.host if loss else None)), ("pod type", p.pod_type),
        ("cost/h", fmt.usd(p.adjusted_cost_per_hr or p.cost_per_hr, per_hour=True) if p.cost_per_hr else None),
        ("uptime", uptime), ("last status change", p.last_status_change), ("image", p.image_name),
        ("running at", cp.running_at), ("last seen", cp.last_seen_at), ("gone at", cp.gone_at),
        ("gone because", cp.gone_reason),
    ])


def sagan_fields(row: "PodLifecycle | None") -> tuple[tuple[str, str], ...]:
    if row is None:
        return (("pod_lifecycle", "no row in Sagan"),)
    return _pairs([(name, getattr(row, name, None)) for name in SAGAN_FIELDS])


def cost_line(cp: "CachedPod | None", losses: list["Loss"], billed: float | None, now: datetime) -> str:
    """Billed when RunPod's billing history was read for it; else the rate times its running time."""
    # The wave evidence stores 0 for a pod its billing history did not list (yet): no bill, then.
    if billed:
        return f"billed {fmt.usd(billed)} (RunPod's billing history)"
    loss = losses[-1] if losses else None
    rate = (cp.pod.adjusted_cost_per_hr or cp.pod.cost_per_hr) if cp else (loss.cost_per_hr if loss else None)
    start = (cp.running_at if cp else None) or (loss.running_at if loss else None)
    end = (loss.lost_at if loss else None) or (cp.gone_at if cp else None) or now
    if rate is None or start is None:
        return "unknown (no rate or no start known)"
    hours = max(0.0, (end - start).total_seconds()) / 3600
    return f"estimated {fmt.usd(rate * hours)} ({fmt.usd(rate, per_hour=True)} × {fmt.duration(hours * 3600)})"


def history(losses: list["Loss"]) -> tuple[str, ...]:
    out = []
    for x in sorted(losses, key=lambda x: x.lost_at):
        line = f"{fmt.stamp(x.lost_at)} {x.state}"
        if x.running_at is not None:
            line += f", {fmt.duration((x.lost_at - x.running_at).total_seconds())} after RUNNING"
        if x.reason:
            line += f": {x.reason}"
        if x.withdrawn_at is not None:
            line += f"; withdrawn {fmt.stamp(x.withdrawn_at)}" + (f" ({x.withdrawn_reason})" if x.withdrawn_reason else "")
        out.append(one_line(line, 300))
    return tuple(out)
