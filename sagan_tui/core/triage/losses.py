"""Loss merging: RunPod-poll and Sagan evidence of one pod become one loss; requested stops never do."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Iterable

from sagan_tui.core.models import Loss, PodLifecycle, RunPodPod, as_utc

# The account name stops before trailing punctuation ("account=team." ends a sentence).
NOT_FOUND_RE = re.compile(
    r"Pod\s+[`'\"]?([a-z0-9]{6,32})[`'\"]?\s+not found in account=[`'\"]?([A-Za-z0-9_\-]+(?:\.[A-Za-z0-9_\-]+)*)")
STOP_STATES = frozenset({"stop_requested", "stopped"})
_SOURCES = ("runpod-poll", "sagan")  # the order a merged source reads in
# lastStatusChange is free text ("Exited by Runpod: <date>"): a hint, so dates are best effort.
_JS_DATE_RE = re.compile(r"\w{3} (\w{3} \d{1,2} \d{4} \d{2}:\d{2}:\d{2}) GMT([+-]\d{4})")
_ISO_RE = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")


def parse_not_found(text: str | None) -> tuple[str, str] | None:
    """(pod_id, account) from `Pod <id> not found in account=<acct>`, else None."""
    m = NOT_FOUND_RE.search(text or "")
    return (m.group(1), m.group(2)) if m else None


def requested_stop(pod: PodLifecycle) -> bool:
    """Whether Sagan itself asked for this pod to stop (so its disappearance is no loss)."""
    states = {(pod.status or "").lower(), (pod.desired_status or "").lower()}
    return bool(states & STOP_STATES) or pod.stopped_at is not None


def status_change_time(text: str | None) -> datetime | None:
    """The date inside a lastStatusChange such as `Exited by Runpod: Thu May 14 2026 10:54:54 GMT+0000`."""
    if not text:
        return None
    if m := _JS_DATE_RE.search(text):
        try:
            return datetime.strptime(f"{m.group(1)} {m.group(2)}", "%b %d %Y %H:%M:%S %z").astimezone(timezone.utc)
        except ValueError:
            return None
    if m := _ISO_RE.search(text):
        try:
            return as_utc(datetime.fromisoformat(m.group(0).replace("Z", "+00:00")))
        except ValueError:
            return None
    return None


def sagan_loss(pod: PodLifecycle) -> Loss | None:
    """Sagan's evidence of a loss (terminated, or a recovery's `not found`), unless a stop was requested."""
    if requested_stop(pod):
        return None
    nf = parse_not_found(pod.last_error)
    if pod.status != "terminated" and nf is None:
        return None
    lost_at = pod.terminated_at or pod.last_checked_at or pod.updated_at
    if lost_at is None:
        return None  # cannot be placed in time, so it cannot join a wave
    return Loss(pod_id=pod.runpod_pod_id, account=nf[1] if nf else pod.account, experiment=pod.experiment_number,
                running_at=pod.last_started_at, last_seen_at=pod.last_heartbeat_at, lost_at=lost_at,
                gpu=pod.gpu_type_id, datacenter=_datacenter(pod.metadata),
                cost_per_hr=pod.adjusted_cost_per_hr or pod.cost_per_hr, source="sagan",
                reason=pod.last_error or "terminated", run_id=pod.run_id)


def _datacenter(metadata: object) -> str | None:
    # pod_lifecycle.metadata is free-form JSON: a data center is read when it is plainly there.
    if isinstance(metadata, dict):
        value = metadata.get("datacenter") or metadata.get("dataCenterId")
        return value if isinstance(value, str) and value else None
    return None


def reaped_loss(pod: RunPodPod, seen_at: datetime | None = None) -> Loss | None:
    """A pod RunPod still lists as EXITED with a RunPod-side reason: reaped, so a loss."""
    reason = pod.reaped_reason
    lost_at = status_change_time(reason) or seen_at
    if reason is None or lost_at is None:
        return None
    return Loss(pod_id=pod.id, account=pod.account, lost_at=lost_at, gpu=pod.gpu, datacenter=pod.datacenter,
                cost_per_hr=pod.adjusted_cost_per_hr or pod.cost_per_hr, experiment=getattr(pod, "experiment", None),
                source="runpod-poll", reason=reason, host=pod.host)


def _first(values: Iterable[object]) -> object:
    return next((v for v in values if v is not None), None)


def combine(records: list[Loss]) -> Loss:
    """One loss from several records of the same pod (poll records first in `records`)."""
    if len(records) == 1:
        return records[0]
    running_at = _first(r.running_at for r in records)
    seen = [r.last_seen_at for r in records if r.last_seen_at is not None]
    last_seen = max(seen) if seen else None
    floor = max((t for t in (running_at, last_seen) if t is not None), default=None)
    # A lost_at before the pod was last seen (or before it ran) is not credible: keep the
    # earliest one that is, else the latest one.
    lost = sorted(r.lost_at for r in records)
    credible = [t for t in lost if floor is None or t >= floor]
    sources = {s for r in records for s in r.source.split("+")}
    # Split merged reasons again so that re-merging a merged loss adds nothing twice.
    reasons = list(dict.fromkeys(part for r in records if r.reason for part in r.reason.split("; ")))
    # A loss any source confirmed is confirmed; a fresh suspicion outranks an old withdrawal.
    state = next((s for s in ("confirmed", "missing", "withdrawn") if any(r.state == s for r in records)))
    withdrawn = next((r for r in records if r.state == "withdrawn"), None) if state == "withdrawn" else None
    return Loss(
        pod_id=records[0].pod_id, account=_first(r.account for r in records if r.account) or records[0].account,
        experiment=_first(r.experiment for r in records), running_at=running_at, last_seen_at=last_seen,
        lost_at=credible[0] if credible else lost[-1], gpu=_first(r.gpu for r in records),
        datacenter=_first(r.datacenter for r in records), cost_per_hr=_first(r.cost_per_hr for r in records),
        source="+".join([s for s in _SOURCES if s in sources] + sorted(sources - set(_SOURCES))),
        reason="; ".join(reasons) or None, run_id=_first(r.run_id for r in records),
        host=_first(r.host for r in records), dismissed=any(r.dismissed for r in records), state=state,
        confirmed_by=_first(r.confirmed_by for r in records if r.state == "confirmed"),
        withdrawn_at=withdrawn.withdrawn_at if withdrawn else None,
        withdrawn_reason=withdrawn.withdrawn_reason if withdrawn else None,
    )


def merge_losses(poll_losses: Iterable[Loss], sagan_pods: Iterable[PodLifecycle],
                 runpod_pods: Iterable[RunPodPod] = (), owner_stops: frozenset[str] | set[str] = frozenset(),
                 *, seen_at: datetime | None = None) -> list[Loss]:
    """Every loss once, ordered by lost_at then pod id.

    `seen_at` dates a reaped pod whose lastStatusChange carries no readable date (the poll time).
    Merging is idempotent: merging the output again with the same evidence gives the same losses.
    """
    sagan = list(sagan_pods)
    stopped = set(owner_stops) | {p.runpod_pod_id for p in sagan if requested_stop(p)}
    by_pod: dict[str, list[Loss]] = {}
    evidence = [*poll_losses, *(reaped_loss(p, seen_at) for p in runpod_pods), *map(sagan_loss, sagan)]
    for loss in evidence:
        if loss is not None and loss.pod_id not in stopped:
            by_pod.setdefault(loss.pod_id, []).append(loss)
    merged = [combine(records) for records in by_pod.values()]
    return sorted(merged, key=lambda x: (x.lost_at, x.pod_id))
