"""The cache's rows on whether a pod existed (schema `_v_pod_existence`): Sagan's knowledge of
pods, the phantoms (listed once and never again), and the stops whose Sagan row must be re-read."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Iterable

from sagan_tui.basics import STOPPED_STATES, parse_ts, ts

if TYPE_CHECKING:
    from sagan_tui.store.cache import Cache

PHANTOM = "listed once and never again"  # a pod's gone_reason when it never was established
# Phantoms an account's health counts: those of the last day (older ones are history, in doctor).
PHANTOM_WINDOW = timedelta(days=1)


def known_to_sagan(conn: sqlite3.Connection, pod_ids: Iterable[str]) -> frozenset[str]:
    """Those of `pod_ids` Sagan has a pod_lifecycle row of (under any account): they existed."""
    ids = list(pod_ids)
    if not ids:
        return frozenset()
    return frozenset(r[0] for r in conn.execute(
        "select runpod_pod_id from sagan_pods where runpod_pod_id in (select value from json_each(?))",
        (json.dumps(ids),)))


def phantom_count(conn: sqlite3.Connection, account: str, now: datetime) -> int:
    """The account's pods recorded as phantoms within PHANTOM_WINDOW of `now`."""
    return int(conn.execute("select count(*) from pods where account = ? and gone_reason = ? and gone_at >= ?",
                            (account, PHANTOM, ts(now - PHANTOM_WINDOW))).fetchone()[0])


def phantoms(cache: "Cache") -> dict[str, tuple[int, datetime | None]]:
    """account -> (phantoms ever recorded, the last one's time): what `doctor` says of them."""
    return {r[0]: (r[1], parse_ts(r[2])) for r in cache._tuples(
        "select account, count(*), max(gone_at) from pods where gone_reason = ? group by account", (PHANTOM,))}


def stops_to_reread(cache: "Cache") -> int:
    """Pods Sagan says are stopping (stop_requested) that RunPod still lists live: Sagan's rows of
    them are read again every poll (its `updatedSince` cursor never re-reads a row that did not
    change), so one stale stop_requested cannot file a later vanish as a stop."""
    stopped = json.dumps(sorted(STOPPED_STATES))
    return int(cache._tuples(
        "select count(*) from sagan_pods s join pods p on p.pod_id = s.runpod_pod_id"
        " where s.status = 'stop_requested' and p.gone_at is null"
        " and p.desired_status not in (select value from json_each(?))", (stopped,))[0][0])


def waiting_losses(cache: "Cache") -> list[tuple[str, str, str | None]]:
    """(pod_id, account, reason) of losses Sagan reported that wait for RunPod's word (state missing)."""
    return [tuple(r) for r in cache._tuples(
        "select pod_id, account, reason from losses where state = 'missing' and source = 'sagan' order by pod_id")]
