"""Reconciles one successful poll of an account with what the cache last saw: changes and losses."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sagan_tui.models import Loss, RunPodPod
from sagan_tui.store.cache import CachedPod


@dataclass
class Reconciled:
    upserts: list[CachedPod] = field(default_factory=list)
    observations: list[tuple] = field(default_factory=list)
    losses: list[Loss] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)


def _running_at(pod: RunPodPod, prev: CachedPod | None, now: datetime) -> datetime | None:
    if pod.running and pod.has_runtime and pod.uptime_seconds is not None and pod.uptime_seconds >= 0:
        # The runtime's uptime dates RUNNING to the second; a poll only brackets it.
        return now - timedelta(seconds=pod.uptime_seconds)
    if prev and prev.running_at:
        return prev.running_at
    return now if pod.running else None


def _sans_uptime(pod: RunPodPod) -> dict:
    # Uptime moves on every poll; a row has "changed" only when something else did.
    return pod.model_dump(exclude={"uptime_seconds"})


def reconcile(account: str, pods: list[RunPodPod], prev: dict[str, CachedPod], now: datetime,
              requested_stops: set[str], known_losses: set[str], partial: bool = False) -> Reconciled:
    """Only ever called with a *successful* poll: a failed one says nothing about the pods.

    A pod last seen RUNNING and now missing is a loss, unless someone asked for it to stop.
    A pod listed EXITED with a RunPod-side reason is a loss too (reaped while still listed).
    `partial`: some listed records could not be read, and a missing pod may be one of them,
    so absence proves nothing in this poll: no pod is marked gone and none is a loss.
    """
    out = Reconciled()
    for pod in pods:
        p = prev.get(pod.id)
        running_at = _running_at(pod, p, now)
        status_changed = p is None or (p.pod.desired_status, p.pod.last_status_change) != (
            pod.desired_status, pod.last_status_change)
        if status_changed:
            out.observations.append((pod.id, account, now, pod.desired_status, pod.uptime_seconds,
                                     pod.last_status_change))
        if p is None or status_changed or _sans_uptime(p.pod) != _sans_uptime(pod):
            out.changed.append(pod.id)
        out.upserts.append(CachedPod(pod=pod, first_seen_at=(p.first_seen_at if p else None) or now,
                                     running_at=running_at, last_seen_at=now, gone_at=None, gone_reason=None))
        reason = pod.reaped_reason
        if reason and pod.id not in requested_stops and pod.id not in known_losses:
            last_running = p.last_seen_at if p and p.pod.running else None
            out.losses.append(_loss(pod, account, running_at, last_running, now, reason))
    listed = {p.id for p in pods}
    for pod_id, p in prev.items():
        if pod_id in listed or partial:
            continue
        out.gone.append(pod_id)
        asked = pod_id in requested_stops
        reason = "stopped on request" if asked else ("vanished while RUNNING" if p.pod.running else "no longer listed")
        out.upserts.append(CachedPod(pod=p.pod, first_seen_at=p.first_seen_at, running_at=p.running_at,
                                     last_seen_at=p.last_seen_at, gone_at=now, gone_reason=reason))
        out.observations.append((pod_id, account, now, "GONE", None, reason))
        if p.pod.running and not asked and pod_id not in known_losses:
            out.losses.append(_loss(p.pod, account, p.running_at, p.last_seen_at, now, "vanished while RUNNING"))
    return out


def _loss(pod: RunPodPod, account: str, running_at: datetime | None, last_seen_at: datetime | None,
          now: datetime, reason: str) -> Loss:
    return Loss(pod_id=pod.id, account=account, experiment=pod.experiment, running_at=running_at,
                last_seen_at=last_seen_at, lost_at=now, gpu=pod.gpu, datacenter=pod.datacenter,
                cost_per_hr=pod.adjusted_cost_per_hr or pod.cost_per_hr, source="runpod-poll", reason=reason)
