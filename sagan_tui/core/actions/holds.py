"""Who blocked each held experiment, from the audit log's recorded origin and Sagan's events: a
hold made from the panel names its origin (h, H, W, canary, watch), recorded when it was made and
never inferred from the note's text; Sagan's own pod-stop cascade (a stopped pod moves its
experiment to `blocked`) is read from its event."""

from __future__ import annotations

from typing import Iterable

from sagan_tui.core.store.cache import Cache

CASCADE_NOTE = "RunPod pod stopped; volume preserved."
ORIGIN_WORDS = {
    "h": "h (the owner)",
    "H": "H (the owner, marked experiments)",
    "W": "W (wave response)",
    "canary": "the failed canary (held again)",
    "watch": "watch (the unattended guard)",
    "sagan": "Sagan's pod-stop cascade",
}


def blocked_by(cache: Cache, numbers: Iterable[int]) -> dict[int, str]:
    """experiment -> who blocked it: the hold's recorded origin in words, "Sagan's pod-stop
    cascade", or "Sagan" (another reason Sagan gave), judged by the latest of the owner's hold
    and Sagan's move to blocked. A hold audited before origins were recorded says so."""
    numbers = [int(n) for n in numbers]
    holds = {}
    for a in cache.actions(limit=2000):  # newest first
        if a.action == "hold" and a.result == "ok" and a.target.startswith("#"):
            n = int(a.target[1:]) if a.target[1:].isdigit() else None
            if n in numbers and n not in holds:
                holds[n] = a
    out = {}
    for n in numbers:
        moved = next((e for e in cache.events(experiment=n, limit=200)
                      if e.event_type == "state_changed" and e.to_status == "blocked"), None)
        hold = holds.get(n)
        if hold is not None and (moved is None or moved.actor_kind == "owner" or hold.at >= moved.created_at):
            out[n] = ORIGIN_WORDS.get(hold.origin or "", "the owner (origin not recorded)")
        elif moved is not None and (moved.note or "").startswith(CASCADE_NOTE):
            out[n] = ORIGIN_WORDS["sagan"]
        elif moved is not None:
            out[n] = "the owner (outside the panel)" if moved.actor_kind == "owner" else "Sagan"
        else:
            out[n] = "unknown (no hold or blocked event in the cache)"
    return out
