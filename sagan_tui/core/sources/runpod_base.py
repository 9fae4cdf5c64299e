"""The interface every RunPod transport (GraphQL today, REST v2 next) offers the sync and actions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from sagan_tui.core.models import RunPodPod, valid_pod_id
from sagan_tui.core.sources.bounded import DEFAULT_MAX_REPLY_BYTES


@dataclass
class AccountSnapshot:
    """One successful poll of one account: its pods and its money."""

    account: str
    pods: list[RunPodPod]
    skipped: list[str] = field(default_factory=list)
    balance: float | None = None
    spend_per_hr: float | None = None
    spend_limit: float | None = None
    under_balance: bool | None = None
    balance_note: str | None = None  # why the money is missing or old, e.g. "n/a (GraphQL retired)"
    hosts: dict[str, str] = field(default_factory=dict)  # pod id -> machine.podHostId, from GraphQL under auto
    # pod id -> lastStatusChange ("Exited by Runpod: ..."), from GraphQL under auto: REST v2 has none
    status_changes: dict[str, str] = field(default_factory=dict)
    # Why this list may not hold every pod of the account (a truncated page, pages that disagree,
    # the page bound reached), or None when it is complete. An incomplete list says nothing
    # about absent pods: none of them is missing, as after a failed poll.
    incomplete: str | None = None
    # pod id -> why its record could not be read: the pod is listed (unreadable), never missing.
    unreadable: dict[str, str] = field(default_factory=dict)
    # Records skipped whose pod cannot be named (no readable id): absence cannot be confirmed
    # from this list alone (a direct read still can).
    unnamed: int = 0
    # Pods another API listed for this account in the same poll (`auto`: GraphQL beside REST v2):
    # a pod either lists is not missing.
    also_listed: frozenset[str] = frozenset()
    # pod id -> how a pod listed more than once was read (one_per_id): the list stays complete.
    duplicates: dict[str, str] = field(default_factory=dict)
    # "PREPAID" or "POSTPAID" when the balance route said (a postpaid account is not stopped by
    # its balance), else None.
    billing_mode: str | None = None


@dataclass(frozen=True)
class AuditEntry:
    """One stop or terminate of a pod in an account's audit log: who, what, when (ISO text)."""

    pod_id: str
    actor: str
    action: str
    at: str


@dataclass(frozen=True)
class WaveEvidence:
    """What RunPod's billing and audit log say about some lost pods, read once around a wave.

    `billed`: pod id -> USD RunPod billed it in the window's hour buckets (a pod absent from it
    was billed nothing there); None with `billed_note` when billing could not be read. `audit`:
    the stops and terminates of those pods; None with `audit_note` when the log could not be read.
    """

    billed: dict[str, float] | None
    billed_note: str | None
    audit: tuple[AuditEntry, ...] | None
    audit_note: str | None


class KeyedTransport:
    """What every transport holds: one account, its key, where to reach RunPod, and how long to wait."""

    def __init__(self, account: str, api_key: str, *, base_url: str, timeout: float = 10.0,
                 max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES):
        if not api_key or not api_key.strip():
            # Never fall back to another key: the runpod SDK would use its process-wide one,
            # which may be the other account's.
            raise ValueError(f"account {account!r} has no API key")
        self.account = account
        self._key = api_key.strip()
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout  # the whole request's deadline, not only each read's
        self.max_reply_bytes = max_reply_bytes


class RunPodTransport(Protocol):
    """What sync and actions need of one RunPod account, whatever API carries it."""

    name: str  # "graphql", "rest-v2" or "auto"
    account: str

    async def snapshot(self) -> AccountSnapshot:
        """All pods and the balance; raises a SourceError on any failure (never returns 'no pods')."""

    async def get_pod(self, pod_id: str) -> RunPodPod | None:
        """One pod, or None if RunPod says it does not exist."""

    async def stop(self, pod_id: str) -> dict[str, Any]: ...

    async def resume(self, pod_id: str, gpu_count: int = 1) -> dict[str, Any]: ...

    async def terminate(self, pod_id: str) -> dict[str, Any]: ...

    async def aclose(self) -> None: ...


class Unreadable:
    """The pods of one list whose records could not be read (`parse_records`' on_bad hook).

    A record whose id can be read names its pod: that pod is listed, only unreadable, so it is
    never missing. A record with no id a pod can have (null, a number, an object without one)
    could be any pod, mangled: it is counted, and while any is, absence from this list confirms
    nothing (a direct read of a missing pod still does).
    """

    def __init__(self) -> None:
        self.pods: dict[str, str] = {}
        self.unnamed = 0

    def __call__(self, record: Any, reason: str) -> None:
        raw = record.get("id") if isinstance(record, dict) else None
        if isinstance(raw, str) and valid_pod_id(pod_id := raw.strip().lower()):
            self.pods[pod_id] = reason
        else:
            self.unnamed += 1


def _advance(pod: RunPodPod) -> int:
    """How far along a status is: a pod ends, it does not come back from TERMINATED to RUNNING."""
    return {"EXITED": 1, "TERMINATED": 2, "DEAD": 2}.get(pod.desired_status, 0)


def one_per_id(pods: list[RunPodPod]) -> tuple[list[RunPodPod], dict[str, str]]:
    """A list's pods once each, and how each pod listed more than once was read. A duplicate is
    a defect of one record, not of the list: the most advanced status wins (the later copy on a
    tie), and the list stays complete, so another pod of the account can still be missing."""
    if len({p.id for p in pods}) == len(pods):
        return pods, {}
    by_id: dict[str, RunPodPod] = {}
    copies: dict[str, int] = {}
    for p in pods:
        copies[p.id] = copies.get(p.id, 0) + 1
        if p.id not in by_id or _advance(p) >= _advance(by_id[p.id]):
            by_id[p.id] = p
    return list(by_id.values()), {pid: f"listed {n} times in one reply: read as one ({by_id[pid].desired_status})"
                                  for pid, n in copies.items() if n > 1}


def float_or_none(v: Any) -> float | None:
    try:
        return None if v is None else float(v)
    except (TypeError, ValueError):
        return None


def check_pod_id(pod_id: object) -> None:
    """Refuse an id before it reaches any request: GraphQL pastes it into query text, REST into a path."""
    if not valid_pod_id(pod_id):
        raise ValueError(f"refusing pod id {str(pod_id)[:40]!r}: must match ^[a-z0-9]{{6,32}}$")
