"""Exits nobody asked for: a pod that went from RUNNING to EXITED with no stop requested.

RunPod stops every pod of a prepaid account whose balance runs out, and leaves them listed as
EXITED: REST v2 says no more than that (GraphQL's `lastStatusChange` said "Exited by Runpod";
it is not needed here). An exit is *unrequested* when neither the owner (through the panel) nor
Sagan (a `stop_requested` row, a `runpod_stop_requested` event) asked for it. It is a loss when

- the account's balance ran out around it: a reading at or under $0, or under balance, from the
  one in force at the poll before the exit to the poll after it, on an account not POSTPAID (a
  POSTPAID account is invoiced: its balance stops nothing); or
- the account's audit log names the user or API key that stopped or terminated it.

Otherwise it is flagged "exited, cause unknown" on its row and is not a loss: an ordinary stop
from RunPod's console looks the same from the pod list alone.

An exit is judged at the account's poll after the one that saw it: Sagan's stop request of the
same moment may be written after that account's poll (each source polls on its own), and a
stop Sagan asked for must never read as a loss.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Iterable, Mapping, Sequence

from sagan_tui.core.models import Loss, RunPodPod
from sagan_tui.core.sources.runpod_base import AuditEntry
from sagan_tui.core.sync.detect import Seen

EXITED = "EXITED"
UNKNOWN = "exited, cause unknown"


@dataclass
class Exits:
    losses: list[Loss] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # pod ids to flag "exited, cause unknown"


def candidates(pods: Iterable[RunPodPod], prev: Mapping[str, Seen], requested: set[str],
               known_losses: set[str]) -> list[RunPodPod]:
    """Pods this poll lists EXITED that the last one saw RUNNING, with no stop asked for and no
    RunPod reason (a pod GraphQL says RunPod exited is already a loss: detect.reconcile)."""
    return [p for p in pods if p.desired_status == EXITED and p.id in prev and prev[p.id].running
            and p.id not in requested and p.id not in known_losses and not p.reaped_reason]


def ran_out(readings: Sequence[tuple[datetime, float | None, bool | None]], since: datetime | None,
            now: datetime) -> tuple[datetime, float | None] | None:
    """The first reading at or under $0 (or under balance) from the one in force at `since` to
    `now`; readings are (at, balance, under_balance), oldest first."""
    in_force = [r for r in readings if since is None or r[0] <= since][-1:]
    window = [r for r in readings if (since is None or r[0] > since) and r[0] <= now]
    for at, bal, under in [*in_force, *window]:
        if under or (bal is not None and bal <= 0):
            return at, bal
    return None


def pending_loss(account: str, pod: RunPodPod, p: Seen, now: datetime) -> Loss:
    """The loss an exit seen at `now` would be: dated by that poll, priced at the rate it ran at."""
    was = p.pod()
    return Loss(pod_id=pod.id, account=account, experiment=pod.experiment or was.experiment, running_at=p.running_at,
                last_seen_at=p.last_seen_at, lost_at=now, gpu=pod.gpu or was.gpu,
                datacenter=pod.datacenter or was.datacenter,
                # REST v2's `cost` reads 0 once EXITED: the rate it ran at is the last poll's.
                cost_per_hr=was.adjusted_cost_per_hr or was.cost_per_hr or pod.cost_per_hr,
                source="runpod-poll", host=pod.host or was.host)


def judge(account: str, pending: Iterable[Loss], listed: Mapping[str, RunPodPod], *, requested: set[str],
          known_losses: set[str], readings: Sequence[tuple[datetime, float | None, bool | None]],
          billing_mode: str | None, audit: Mapping[str, AuditEntry] | None = None) -> Exits:
    """Judge the exits the account's last poll saw, now that Sagan's records of that moment are
    in: a loss (with its reason), an unexplained exit to flag, or nothing (asked for, or running
    again). `listed`: this poll's pods by id."""
    out = Exits()
    for loss in pending:
        now_pod = listed.get(loss.pod_id)
        if (now_pod is not None and now_pod.running) or loss.pod_id in requested or loss.pod_id in known_losses:
            continue
        acted = (audit or {}).get(loss.pod_id)
        broke = None if billing_mode == "POSTPAID" else ran_out(readings, loss.last_seen_at, loss.lost_at)
        if acted is not None:
            reason = f"{acted.action} by {acted.actor} (audit log)"
        elif broke is not None:
            bal = "under balance" if broke[1] is None else f"balance ${broke[1]:.2f}"
            reason = f"exited when {account}'s balance ran out ({bal})"
        else:
            out.unknown.append(loss.pod_id)
            continue
        out.losses.append(loss.model_copy(update={"reason": reason}))
    return out
