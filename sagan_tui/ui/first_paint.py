"""The start-up path of `sagan-tui`, in one place: the first frame from a thin read, then the rest.

What it buys: the owner sees the panes within a few hundred milliseconds instead of after the
one to two seconds that pydantic, sqlite-utils, httpx, the cache's migrations and the full model
read take (bench/ `start`). The shortcuts, all of them: `Draft` settings are gathered but validated only
after the first frame (config.py); the top rows of two panes and the health are peeked with a
second, read-only SQL reader (store/quick.py) into the plain records below (which the renderers
read as they read Experiment and CachedPod); the three other panes are empty frames
(`PendingPane`) until `after_first_frame` mounts them and starts the session, which opens the
cache and reads everything in its own thread. This module runs on the UI thread before the
session exists; nothing after it reads SQLite there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from sagan_tui.basics import OWNER_TURN_STATUSES, ExperimentFacts, PodFacts, SourceHealth
from sagan_tui.store.quick import peek
from sagan_tui.store.rows import health_from_row, parse_ts
from sagan_tui import render
from sagan_tui.render import Row

if TYPE_CHECKING:
    from sagan_tui.ui.app import SaganApp

# Rows read for the first frame when the caller does not say: more than most terminals show.
FIRST_ROWS = 60


@dataclass(frozen=True)
class FirstExperiment(ExperimentFacts):
    """What render.experiment_row reads of an Experiment, from the experiments table's columns."""

    number: int
    status: str
    turn: str | None
    title: str
    created_at: datetime | None
    updated_at: datetime | None

    @classmethod
    def of(cls, r: Mapping[str, Any]) -> "FirstExperiment":
        return cls(int(r["number"]), str(r["status"]), r["turn"], str(r["title"] or ""),
                   parse_ts(r["created_at"]), parse_ts(r["updated_at"]))


@dataclass(frozen=True)
class FirstPodRecord(PodFacts):
    """What render.pod_row reads of a RunPodPod, from the record the cache holds (camelCase)."""

    id: str
    account: str
    name: str | None
    desired_status: str
    last_status_change: str | None
    gpu: str | None
    datacenter: str | None
    cost_per_hr: float | None
    adjusted_cost_per_hr: float | None

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> "FirstPodRecord":
        def text(key: str) -> str | None:
            v = data.get(key)
            return None if v is None else str(v)

        def number(key: str) -> float | None:
            v = data.get(key)
            return None if v is None else float(v)

        return cls(str(data["id"]), str(data.get("account") or ""), text("name"),
                   str(data.get("desiredStatus") or "RUNNING"), text("lastStatusChange"), text("gpu"),
                   text("datacenter"), number("costPerHr"), number("adjustedCostPerHr"))


@dataclass(frozen=True)
class FirstPod:
    """What render.pod_row reads of a live CachedPod, from the pods table's own columns: the
    store's Cache (and sqlite-utils with it) is not imported before the first frame."""

    pod: FirstPodRecord
    experiment: int | None
    running_at: datetime | None
    last_seen_at: datetime | None
    gone_at: None = None
    gone_reason: None = None
    missing_since: datetime | None = None
    flag: str | None = None


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
        exps = [FirstExperiment.of(r) for r in seen.experiments]
        pods = [FirstPod(FirstPodRecord.of(json.loads(r["data"])), r["experiment"],
                         parse_ts(r["running_at"]), parse_ts(r["last_seen_at"]), missing_since=parse_ts(r["missing_since"]),
                         flag=r["flag"]) for r in seen.pods]
    except (ValueError, TypeError, KeyError, AttributeError):
        return None  # a row the full load will judge (and skip) on its own: it paints every pane then
    counts = seen.live_counts
    stale = {name: h.stale(now, poll_interval) for name, h in health.items()}
    return FirstFrame(
        {str(e.number): render.experiment_row(e, counts.get(e.number, 0), now) for e in exps},
        {p.pod.id: render.pod_row(p, None, now, stale=stale.get(p.pod.account, False))  # type: ignore[arg-type]
         for p in pods},
        health)


def paint_first(app: "SaganApp") -> dict[str, SourceHealth]:
    """Paint the first rows into the experiments and pods panes; the health the cache recorded."""
    s = app.settings
    # No pane shows more rows than the terminal has lines.
    first = first_frame(s.cache_path, app.clock(), s.poll_interval, ["sagan", *s.accounts],
                        limit=max(app.size.height, 24))
    if first is None:
        return {}
    for table, rows in ((app.experiments_table, first.experiments), (app.pods_table, first.pods)):
        table.scope_label = "loading"  # the count in the title is of the first rows only
        table.set_rows(rows)
    return first.health


async def after_first_frame(app: "SaganApp") -> None:
    """Once the first frame is out: the other panes in their frames."""
    await app.main_screen.mount_later_panes()
