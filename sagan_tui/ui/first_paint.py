"""The first frame's rows: the top of the experiments and pods panes from a thin read of the cache."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sagan_tui.models import OWNER_TURN_STATUSES, Experiment, RunPodPod, parse_records
from sagan_tui.store.quick import peek
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


def _when(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None  # the cache's stamps end in Z: UTC, aware


def first_rows(path: Path, now: datetime, limit: int = FIRST_ROWS) -> tuple[dict[str, Row], dict[str, Row]] | None:
    """Experiment and pod rows as the panes open (the same renderers as the full load, so the
    load then changes only what the thin read could not know); None if the cache cannot be peeked."""
    seen = peek(path, OWNER_TURN_STATUSES, render.STOPPED_STATES, limit)
    if seen is None:
        return None
    try:
        exps: list[Experiment] = parse_records(
            Experiment, [json.loads(r["data"]) for r in seen.experiments], "first paint")[0]
        pods = [FirstPod(RunPodPod.model_validate(json.loads(r["data"])), r["experiment"],
                         _when(r["running_at"]), _when(r["last_seen_at"])) for r in seen.pods]
    except (ValueError, TypeError):  # a row the full load will judge (and skip) on its own
        return None
    counts = seen.live_counts
    return ({str(e.number): render.experiment_row(e, counts.get(e.number, 0), now) for e in exps},
            {p.pod.id: render.pod_row(p, None, now) for p in pods})  # type: ignore[arg-type]
