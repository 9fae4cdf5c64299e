"""Who blocked each held experiment, from the audit log and Sagan's events: the owner's hold
(by `h`/`H`, or by `W`'s wave response, whose note starts with the verdict's "Held by the owner:
<cause>"), or Sagan's own pod-stop cascade (a stopped pod moves its experiment to `blocked`)."""

from __future__ import annotations

from typing import Iterable

from sagan_tui.store.cache import Cache

CASCADE_NOTE = "RunPod pod stopped; volume preserved."


def blocked_by(cache: Cache, numbers: Iterable[int]) -> dict[int, str]:
    """experiment -> who blocked it: "the owner", "W (wave response)", "Sagan's pod-stop cascade"
    or "Sagan" (another reason Sagan gave), judged by the latest of the owner's hold and
    Sagan's move to blocked."""
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
            w = (hold.detail or "").startswith("Held by the owner: ") and " UTC" in (hold.detail or "")
            out[n] = "W (wave response)" if w else "the owner"
        elif moved is not None and (moved.note or "").startswith(CASCADE_NOTE):
            out[n] = "Sagan's pod-stop cascade"
        elif moved is not None:
            out[n] = "the owner" if moved.actor_kind == "owner" else "Sagan"
        else:
            out[n] = "unknown (no hold or blocked event in the cache)"
    return out
