"""Sagan's word on a loss needs RunPod's: why it waits while an account's polls fail, and the
successful list that settles it.

Sagan's terminated or not-found alone is one record, once. While the pod's account cannot be
polled (429, 5xx, timeout, auth), nothing else says the pod is gone, whatever the cache saw
before: the loss waits (state missing) with the reason on its row, and the account's next
successful complete list that does not hold the pod confirms it (one that lists it live
withdraws it, account_poll.py).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Collection, Mapping

from sagan_tui.core.models import HealthState, Loss, SourceHealth

if TYPE_CHECKING:
    from sagan_tui.core.store.cache import Cache
    from sagan_tui.core.sync.detect import ListFacts

# The parts of a waiting loss's reason (Loss.reason joins parts with "; ") that say why it waits.
_WAIT_PARTS = ("Sagan says ", "RunPod unreachable since ", "RunPod not answered yet")


def runpod_silent(h: SourceHealth | None) -> str | None:
    """Why RunPod cannot speak for an account now (its polls fail), or None when it can."""
    if h is None or h.state != HealthState.ERROR:
        return None
    kind = h.error_kind.value if h.error_kind else "error"
    if h.last_success is None:
        return f"RunPod not answered yet ({kind})"
    return f"RunPod unreachable since {h.last_success:%H:%M:%S} ({kind})"


def waiting(loss: Loss, said: Loss, silent: str) -> Loss:
    """Sagan's loss held as missing while RunPod is silent, its reason saying why."""
    what = "not found" if "not found" in (said.reason or "") else "terminated"
    note = f"Sagan says {what} ({said.lost_at:%H:%M:%S}); {silent}"
    return loss.model_copy(update={"state": "missing", "confirmed_by": None,
                                   "reason": "; ".join(p for p in (note, without_wait(loss.reason)) if p)})


def without_wait(reason: str | None) -> str | None:
    """A reason without the parts that said why the loss waited (once it no longer does)."""
    if not reason:
        return reason
    return "; ".join(p for p in reason.split("; ") if not p.startswith(_WAIT_PARTS)) or None


def settled(loss: Loss) -> Loss:
    """A confirmed loss's reason without its wait, for the record (the rest unchanged)."""
    if loss.state != "confirmed" or without_wait(loss.reason) == loss.reason:
        return loss
    return loss.model_copy(update={"reason": without_wait(loss.reason)})


def sagan_agreed(cache: "Cache", known: Mapping[str, tuple[str, str]], prev: Collection[str],
                 listed: Collection[str], facts: "ListFacts", now: datetime) -> list[Loss]:
    """Sagan's waiting losses of this account that its complete list just now does not hold,
    confirmed. `known`: pod_id -> (source, state) of the account's losses; pods our polls hold
    (`prev`) are the reconcile's, which joins Sagan's word itself."""
    if facts.unnamed:  # a record this list could not name may be any of them
        return []
    ids = [pid for pid, (source, state) in known.items()
           if state == "missing" and "runpod-poll" not in source.split("+") and pid not in prev
           and pid not in listed and pid not in facts.unreadable and pid not in facts.also_listed]
    if not ids:
        return []
    why = f"Sagan's record, and RunPod's list at {now:%H:%M:%S} does not hold it"
    return [settled(x.model_copy(update={"state": "confirmed", "confirmed_by": why}))
            for x in cache.loss_rows.read(pod_ids=ids, states=("missing",))]
