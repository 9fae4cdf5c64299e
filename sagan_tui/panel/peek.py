"""The start-up path of `sagan-tui`: its first frame, from one read-only look at the cache.

The command starts the session process before it imports Textual (wire/channel/early.py); while the
session opens the cache and polls, the UI draws the experiments' and the pods' top rows read
here, with the renderers the session draws its rows with (render.py: an ExperimentView and a
PodLine are what they read), and the status line's recorded health. The timeline and the loss
area are empty frames (panel/widgets/pending.py; the approvals pane, hidden, comes with them) until
the session's first update, which replaces every pane by key and so changes only what this thin
read could not know (losses, waves, approvals).

Rules: the standard library's sqlite3 through a read-only URI: nothing is created, migrated or
written, and a missing, foreign, older, locked or corrupt file gives no first rows (the
session's open decides what to do with it); the top `limit` rows of each pane, in the panes'
own order; nothing of the store (sqlite-utils), the models (pydantic) or the session is
imported (pyproject.toml's import-linter contract on this module).
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any, Collection, Iterable, NamedTuple

import msgspec

from sagan_tui.wire.basics import OWNER_TURN_STATUSES, STOPPED_STATES, SourceHealth, health_from_row, parse_ts
from sagan_tui.wire.channel.views import ExperimentView
from sagan_tui.wire.render import PodLine, Row, experiment_row, line_row

APP_ID = "sagan-tui"  # the meta row store.schema writes
EXPERIMENTS = "select number, status, turn, title, created_at, updated_at from experiments"
# The live pods' ids are chosen from the pods table first: the view's columns (a join and a JSON
# edit per row) are then worked out for those rows only, not for every live pod before the sort.
PODS = ("select experiment, running_at, last_seen_at, data, missing_since, flag from pods_seen"
        " where pod_id in (select pod_id from pods where gone_at is null order by account, pod_id limit ?)"
        " order by account, pod_id")
LIVE_COUNTS = ("select experiment, count(*) from pods where gone_at is null and experiment is not null"
               " and coalesce(desired_status, '') not in ({}) group by experiment")


class Peek(NamedTuple):
    """The first rows of each big pane, in the panes' own order, as the renderers read them."""

    experiments: list[ExperimentView]
    pods: list[PodLine]
    live_counts: dict[int, int]  # listed, not stopped pods per experiment (the experiments' pods column)
    health: dict[str, dict[str, Any]]  # each source's sync_state row: its health as last recorded


class FirstFrame(NamedTuple):
    experiments: dict[str, Row]
    pods: dict[str, Row]
    health: dict[str, SourceHealth]


def first_frame(path: str | Path, now: datetime, poll_interval: float, sources: Iterable[str],
                limit: int) -> FirstFrame | None:
    """The two panes' first rows and the status line's health, in the configured sources'
    order; None if the cache cannot be peeked or holds a row the session would judge (and skip)."""
    seen = peek(path, OWNER_TURN_STATUSES, STOPPED_STATES, limit)
    if seen is None:
        return None
    try:
        health = {name: health_from_row(seen.health[name]) for name in sources if name in seen.health}
    except (ValueError, TypeError, KeyError):
        return None  # a value the session's own read will judge
    stale = {name: h.stale(now, poll_interval) for name, h in health.items()}
    return FirstFrame(
        {str(e.number): experiment_row(e, seen.live_counts.get(e.number, 0), now) for e in seen.experiments},
        {p.pod_id: line_row(p, now, stale=stale.get(p.account, False)) for p in seen.pods},
        health)


def peek(path: str | Path, owner_statuses: Collection[str], stopped_states: Collection[str],
         limit: int) -> Peek | None:
    """The `limit` experiments (owner's turn first, each part newest first) and live pods (by
    account, id) that open the panes; None for anything but a readable cache of ours."""
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
        # Owner's turn first, then the rest: two walks of the primary key that stop at `limit`
        # (one `order by status in (..)` would sort every row).
        exps = []
        for test in ("in", "not in"):
            exps += conn.execute(f"{EXPERIMENTS} where coalesce(status, '') {test} ({_marks(owner)})"
                                 " order by number desc limit ?", (*owner, limit - len(exps))).fetchall()
        pods = conn.execute(PODS, (limit,)).fetchall()
        counts = conn.execute(LIVE_COUNTS.format(_marks(stopped)), stopped).fetchall()
        cur = conn.execute("select * from sync_state")
        names = [d[0] for d in cur.description]
        health = {r["source"]: r for r in (dict(zip(names, r)) for r in cur.fetchall())}
        return Peek([_experiment(r) for r in exps], [_pod(r) for r in pods], dict(counts), health)
    # No such table or column (an older schema), locked, not a database; or a row the session's
    # full read would judge on its own (and skip): it paints every pane then.
    except (sqlite3.Error, ValueError, TypeError, KeyError, AttributeError):
        return None
    finally:
        conn.close()


def _experiment(r: tuple) -> ExperimentView:
    number, status, turn, title, created_at, updated_at = r
    return ExperimentView(int(number), title=str(title or ""), status=str(status), turn=turn,
                          created_at=parse_ts(created_at), updated_at=parse_ts(updated_at))


def _pod(r: tuple) -> PodLine:
    """A live pod from the pods table's columns and the RunPod record it holds (camelCase JSON)."""
    experiment, running_at, last_seen_at, data, missing_since, flag = r
    record = msgspec.json.decode(data)  # (msgspec: the rows' views need it; json would be an import of its own)

    def text(key: str) -> str | None:
        v = record.get(key)
        return None if v is None else str(v)

    def number(key: str) -> float | None:
        v = record.get(key)
        return None if v is None else float(v)

    return PodLine(str(record["id"]), str(record.get("account") or ""), experiment,
                   str(record.get("desiredStatus") or "RUNNING"), text("lastStatusChange"), text("clusterId"), flag,
                   text("name"), text("gpu"), text("datacenter"), number("adjustedCostPerHr") or number("costPerHr"),
                   parse_ts(running_at), parse_ts(last_seen_at), missing_since=parse_ts(missing_since))


def _marks(values: Collection[str]) -> str:
    return ",".join("?" * len(values)) or "''"  # `in ()` is a syntax error in SQLite
