"""The cache's rows of stop evidence (schema v5): who asked for a stop, what RunPod's billing and
audit log said of each lost pod, and the flag an unexplained exit leaves on its pod's row."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import TYPE_CHECKING, Iterable, Mapping

from sagan_tui.basics import ts

if TYPE_CHECKING:
    from sagan_tui.sources.runpod_base import WaveEvidence
    from sagan_tui.store.cache import Cache

EXITED_UNKNOWN = "exited, cause unknown"


def stop_requested_pods(cache: Cache) -> set[str]:
    """Pods Sagan's records show a stop was asked for (a `runpod_stop_requested` event)."""
    rows = cache._tuples("select distinct json_extract(data, '$.metadata.podId') from events"
                         " where event_type = 'runpod_stop_requested'")
    return {r[0] for r in rows if isinstance(r[0], str)}


def flag_pods(conn: sqlite3.Connection, flags: Mapping[str, str]) -> None:
    conn.executemany("update pods set flag = ? where pod_id = ?", [(f, p) for p, f in flags.items()])


def unflag_pods(conn: sqlite3.Connection, pod_ids: Iterable[str], flag: str = EXITED_UNKNOWN) -> None:
    """Clear this flag from pods that run again (a flag another rule set stays)."""
    conn.executemany("update pods set flag = null where pod_id = ? and flag = ?", [(p, flag) for p in pod_ids])


def save_evidence(conn: sqlite3.Connection, account: str, pod_ids: Iterable[str], ev: WaveEvidence,
                  at: datetime) -> None:
    acted = {e.pod_id: e for e in ev.audit or ()}
    rows = []
    for pod in pod_ids:
        e = acted.get(pod)
        audit_state = "unreadable" if ev.audit is None else ("acted" if e else "none")
        billed = None if ev.billed is None else ev.billed.get(pod, 0.0)
        rows.append((pod, account, ts(at), billed, ev.billed_note, audit_state, ev.audit_note,
                     e.actor if e else None, e.action if e else None, e.at if e else None))
    conn.executemany("insert or replace into loss_evidence (pod_id, account, read_at, billed_usd, billed_note,"
                     " audit_state, audit_note, actor, action, acted_at) values (?,?,?,?,?,?,?,?,?,?)", rows)


def loss_evidence(cache: Cache) -> dict[str, dict]:
    """pod id -> its evidence row (billed_usd, billed_note, audit_state, audit_note, actor, action)."""
    try:
        return {r["pod_id"]: dict(r) for r in cache._rows("select * from loss_evidence")}
    except sqlite3.OperationalError:  # a file of an older schema, opened read-only: none read then
        return {}


def evidence_read(cache: Cache, pod_ids: Iterable[str]) -> set[str]:
    ids = list(pod_ids)
    if not ids:
        return set()
    return {r[0] for r in cache._tuples("select pod_id from loss_evidence where pod_id in (%s)"
                                         % ",".join("?" * len(ids)), ids)}


def dispatch_rows(cache: Cache) -> list[tuple[int, str, str | None]]:
    """(experiment, pod id, created_at text) of every pod Sagan recorded for an experiment, newest
    change first: the triage's dispatches, read without parsing each whole record (watch reads
    them after every poll; at 10,000 pods the records' parse was most of its work)."""
    return [tuple(r) for r in cache._tuples(
        "select experiment_number, runpod_pod_id, json_extract(data, '$.created_at') from sagan_pods "
        "where experiment_number is not null order by updated_at desc")]
