"""A thin read-only look at the cache for the first frame: stdlib sqlite3, the top rows only, no migrations."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Collection

APP_ID = "sagan-tui"  # the meta row store.schema writes; read here without importing sqlite-utils
EXPERIMENT_COLUMNS = ("number", "status", "turn", "title", "created_at", "updated_at")
POD_COLUMNS = ("pod_id", "account", "experiment", "running_at", "last_seen_at", "data", "missing_since", "flag")


@dataclass(frozen=True)
class Peek:
    """The first rows of each big pane, in the panes' own order, as the cache holds them."""

    experiments: tuple[dict[str, Any], ...]
    pods: tuple[dict[str, Any], ...]
    live_counts: dict[int, int]  # listed, not stopped pods per experiment (the experiments' pods column)
    health: tuple[dict[str, Any], ...]  # sync_state rows: each source's health as last recorded


def peek(path: str | Path, owner_statuses: Collection[str], stopped_states: Collection[str],
         limit: int) -> Peek | None:
    """The `limit` experiments (owner's turn first, newest first) and live pods (by account, id)
    that open the panes; None for anything but a readable cache of ours (missing, foreign, older,
    locked or corrupt): the full open, which migrates or moves a bad file aside, then decides.

    Opened read-only through a URI, so a missing file is not created and nothing is written.
    """
    p = Path(path).expanduser()
    if not p.is_file():
        return None
    try:
        conn = sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True, timeout=0.2)
    except sqlite3.Error:
        return None
    try:
        row = conn.execute("select value from meta where key = 'app'").fetchone()
        if not row or row[0] != APP_ID:
            return None
        owner, stopped = sorted(owner_statuses), sorted(stopped_states)
        # Owner's turn first, then the rest, each newest first: two walks of the primary key that
        # stop at `limit` (one `order by status in (..)` would sort every row).
        exps = []
        for test in ("in", "not in"):
            exps += conn.execute(
                f"select {', '.join(EXPERIMENT_COLUMNS)} from experiments where coalesce(status, '') {test}"
                f" ({_marks(owner)}) order by number desc limit ?", (*owner, limit - len(exps))).fetchall()
        pods = conn.execute(
            f"select {', '.join(POD_COLUMNS)} from pods_seen where gone_at is null order by account, pod_id limit ?",
            (limit,)).fetchall()
        counts = conn.execute(
            "select experiment, count(*) from pods where gone_at is null and experiment is not null and"
            f" coalesce(desired_status, '') not in ({_marks(stopped)}) group by experiment", stopped).fetchall()
        cur = conn.execute("select * from sync_state")
        names = [d[0] for d in cur.description]
        health = tuple(dict(zip(names, r)) for r in cur.fetchall())
    except (sqlite3.Error, ValueError):  # no such table/column (an older schema), locked, not a database
        return None
    finally:
        conn.close()
    return Peek(tuple(dict(zip(EXPERIMENT_COLUMNS, r)) for r in exps),
                tuple(dict(zip(POD_COLUMNS, r)) for r in pods), dict(counts), health)


def _marks(values: Collection[str]) -> str:
    return ",".join("?" * len(values)) or "''"  # `in ()` is a syntax error in SQLite
