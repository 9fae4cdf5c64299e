"""The first frame: the top of the experiments and pods panes and the sources' health, from a thin read."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Iterable

from sagan_tui.models import OWNER_TURN_STATUSES, Experiment, RunPodPod, SourceHealth, parse_records
from sagan_tui.store.quick import peek
from sagan_tui.store.rows import health_from_row, parse_ts
from sagan_tui.ui import render
from sagan_tui.ui.render import Row

# Rows read for the first frame when the caller does not say: more than most terminals show.
FIRST_ROWS = 60


@dataclass(frozen=True)
class FirstPod:
    """What render.pod_row reads of a live CachedPod, from the pods table's own columns: the
    store's Cache (and sqlite-utils with it) is not imported before the first frame."""

    pod: RunPodPod
    experiment: int | None
    running_at: datetime | None
    last_seen_at: datetime | None
    gone_at: None = None
    gone_reason: None = None


@dataclass(frozen=True)
class FirstFrame:
    experiments: dict[str, Row]
    pods: dict[str, Row]
    health: dict[str, SourceHealth]


def _health(rows: Iterable[dict], sources: Iterable[str]) -> dict[str, SourceHealth]:
    """The recorded health of the configured sources, in the status line's order."""
    by_source = {r.get("source"): r for r in rows}
    return {name: health_from_row(by_source[name]) for name in sources if name in by_source}


def first_frame(path: Path, now: datetime, poll_interval: float, sources: Iterable[str],
                limit: int = FIRST_ROWS) -> FirstFrame | None:
    """The panes' first rows and the status line's health as the panel opens (the same renderers
    as the full load, so the load then changes only what the thin read could not know); None if
    the cache cannot be peeked."""
    seen = peek(path, OWNER_TURN_STATUSES, render.STOPPED_STATES, limit)
    if seen is None:
        return None
    try:
        health = _health(seen.health, sources)
        exps: list[Experiment] = parse_records(
            Experiment, [json.loads(r["data"]) for r in seen.experiments], "first paint")[0]
        pods = [FirstPod(RunPodPod.model_validate(json.loads(r["data"])), r["experiment"],
                         parse_ts(r["running_at"]), parse_ts(r["last_seen_at"])) for r in seen.pods]
    except (ValueError, TypeError):  # a row the full load will judge (and skip) on its own
        return None
    counts = seen.live_counts
    stale = {name: h.stale(now, poll_interval) for name, h in health.items()}
    return FirstFrame(
        {str(e.number): render.experiment_row(e, counts.get(e.number, 0), now) for e in exps},
        {p.pod.id: render.pod_row(p, None, now, stale=stale.get(p.pod.account, False))  # type: ignore[arg-type]
         for p in pods},
        health)
