"""Reconciles one successful poll of an account with what the last one saw: changes and losses."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from operator import attrgetter
from typing import Mapping, NamedTuple

from sagan_tui.gil_gate import yield_to_ui
from sagan_tui.models import Loss, RunPodPod
from sagan_tui.store.cache import CachedPod

# Every field of a pod but its uptime, which moves on every poll: a row has "changed" only
# when one of these did.
KEY_FIELDS = tuple(f for f in RunPodPod.model_fields if f != "uptime_seconds")
_STATUS, _CHANGE, _EXPERIMENT = (KEY_FIELDS.index(f) for f in ("desired_status", "last_status_change", "experiment"))


pod_key = attrgetter(*KEY_FIELDS)  # RunPodPod -> its fields but uptime, as a tuple
# `now - uptime` moves by the uptime's whole seconds and by the poll's latency (`now` is taken
# once the reply is in, the uptime when the server wrote it): within this plus the poll's own
# duration, the same start read again. A slow poll under load otherwise "restarted" every pod.
RUNNING_AT_JITTER = timedelta(seconds=3)


class Seen(NamedTuple):
    """One live pod as the last poll wrote it to the cache, kept between polls as plain values."""

    key: tuple  # pod_key(): the pod's fields but uptime
    uptime_seconds: int | None
    first_seen_at: datetime | None
    running_at: datetime | None
    last_seen_at: datetime | None

    @classmethod
    def of(cls, c: CachedPod) -> "Seen":
        return cls(pod_key(c.pod), c.pod.uptime_seconds, c.first_seen_at, c.running_at, c.last_seen_at)

    @property
    def running(self) -> bool:
        return self.key[_STATUS] == "RUNNING"

    @property
    def experiment(self) -> int | None:
        return self.key[_EXPERIMENT]

    def with_experiment(self, number: int | None) -> "Seen":
        return self._replace(key=(*self.key[:_EXPERIMENT], number, *self.key[_EXPERIMENT + 1:]))

    def pod(self) -> RunPodPod:
        """The pod as a model again, for the rare row that needs one (gone, lost)."""
        return RunPodPod.model_construct(**dict(zip(KEY_FIELDS, self.key)), uptime_seconds=self.uptime_seconds)


@dataclass
class Reconciled:
    upserts: list[CachedPod] = field(default_factory=list)  # whole rows: new, changed or gone pods
    touched: list[tuple] = field(default_factory=list)  # (pod_id, last_seen_at, running_at, uptime_s): the rest
    observations: list[tuple] = field(default_factory=list)
    losses: list[Loss] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)
    live: dict[str, Seen] = field(default_factory=dict)  # the account's live pods once this poll is written


def _running_at(pod: RunPodPod, prev: Seen | None, now: datetime) -> datetime | None:
    if pod.running and pod.has_runtime and pod.uptime_seconds is not None and pod.uptime_seconds >= 0:
        # The runtime's uptime dates RUNNING to the second; a poll only brackets it.
        return now - timedelta(seconds=pod.uptime_seconds)
    if prev and prev.running_at:
        return prev.running_at
    return now if pod.running else None


def reconcile(account: str, pods: list[RunPodPod], prev: Mapping[str, Seen], now: datetime,
              requested_stops: set[str], known_losses: set[str], partial: bool = False,
              took: timedelta = timedelta(0)) -> Reconciled:
    """Only ever called with a *successful* poll: a failed one says nothing about the pods.

    A pod last seen RUNNING and now missing is a loss, unless someone asked for it to stop.
    A pod listed EXITED with a RunPod-side reason is a loss too (reaped while still listed).
    `partial`: some listed records could not be read, and a missing pod may be one of them,
    so absence proves nothing in this poll: no pod is marked gone and none is a loss.
    `prev` must be exactly what the cache holds: a pod whose fields did not change is only
    touched (last seen, running since, uptime), not written again.
    """
    out = Reconciled()
    jitter = RUNNING_AT_JITTER + took  # `took`: how long the poll's reply took to arrive
    for pod in pods:
        yield_to_ui()  # the panel's keys go first (gil_gate.py)
        p = prev.get(pod.id)
        key = pod_key(pod)
        running_at = _running_at(pod, p, now)
        if p is not None and p.running_at and running_at and abs(running_at - p.running_at) <= jitter:
            running_at = p.running_at  # the same start read a poll later (now - uptime): kept, not moved
        # A start that moved (a restart in place keeps every other field) is a change the panel must redraw.
        if p is None or p.key != key or (running_at != p.running_at and running_at is not None):
            out.changed.append(pod.id)
            out.upserts.append(CachedPod(pod=pod, first_seen_at=(p.first_seen_at if p else None) or now,
                                         running_at=running_at, last_seen_at=now, gone_at=None, gone_reason=None))
            # A lastStatusChange only filling in (auto's GraphQL answering from its second poll on,
            # the status the same) is no change of status: no observation.
            if p is None or p.key[_STATUS] != pod.desired_status or p.key[_CHANGE] not in (None, pod.last_status_change):
                out.observations.append((pod.id, account, now, pod.desired_status, pod.uptime_seconds,
                                         pod.last_status_change))
        else:
            out.touched.append((pod.id, now, running_at, pod.uptime_seconds))
        out.live[pod.id] = Seen(key, pod.uptime_seconds, (p.first_seen_at if p else None) or now,
                                running_at or (p.running_at if p else None), now)
        reason = pod.reaped_reason
        if reason and pod.id not in requested_stops and pod.id not in known_losses:
            last_running = p.last_seen_at if p and p.running else None
            out.losses.append(_loss(pod, account, running_at, last_running, now, reason))
    for pod_id, p in prev.items():
        if pod_id in out.live:
            continue
        if partial:
            out.live[pod_id] = p
            continue
        out.gone.append(pod_id)
        asked = pod_id in requested_stops
        reason = "stopped on request" if asked else ("vanished while RUNNING" if p.running else "no longer listed")
        pod = p.pod()
        out.upserts.append(CachedPod(pod=pod, first_seen_at=p.first_seen_at, running_at=p.running_at,
                                     last_seen_at=p.last_seen_at, gone_at=now, gone_reason=reason))
        out.observations.append((pod_id, account, now, "GONE", None, reason))
        if p.running and not asked and pod_id not in known_losses:
            out.losses.append(_loss(pod, account, p.running_at, p.last_seen_at, now, "vanished while RUNNING"))
    return out


def _loss(pod: RunPodPod, account: str, running_at: datetime | None, last_seen_at: datetime | None,
          now: datetime, reason: str) -> Loss:
    return Loss(pod_id=pod.id, account=account, experiment=pod.experiment, running_at=running_at,
                last_seen_at=last_seen_at, lost_at=now, gpu=pod.gpu, datacenter=pod.datacenter,
                cost_per_hr=pod.adjusted_cost_per_hr or pod.cost_per_hr, source="runpod-poll", reason=reason,
                host=pod.host)
