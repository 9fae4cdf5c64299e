"""The cache's copy of Sagan (`experiments`, `events`, `approvals`, `sagan_pods`): written by its poll,
read by the panel, the triage's dispatches and the stop rules."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from typing import TYPE_CHECKING, Iterable

from pydantic import ValidationError

from sagan_tui.wire.basics import ts
from sagan_tui.core.models import ApprovalRequest, Experiment, PodLifecycle, WorkflowEvent, parse_records

if TYPE_CHECKING:
    from sagan_tui.core.store.holder import Holder


class SaganRows:
    """Every statement on Sagan's tables. A method given `conn` runs in that write transaction
    (a poll's whole write is one); the others read committed rows."""

    def __init__(self, db: "Holder"):
        self._db = db

    # --- inside a poll's write ---------------------------------------------------------

    def upsert_experiments(self, conn: sqlite3.Connection, items: Iterable[Experiment]) -> dict[int, dict]:
        """Write these experiments over what the cache holds of them; each one's record as stored
        (number -> its JSON object), what a read of it after this transaction gives while no other
        write comes. A list reply has no planMd or body: the stored record is the reply's merged
        over the row's (merge_patch: a view's fetched fields are kept)."""
        items = list(items)
        if not items:
            return {}
        held = dict(conn.execute("select number, data from experiments where number in (select value from json_each(?))",
                                 (json.dumps([e.number for e in items]),)).fetchall())
        stored: dict[int, dict] = {}
        rows = []
        for e in items:  # in order: an experiment listed twice is merged over its first writing
            prior = stored.get(e.number)
            if prior is None:
                prior = _object(held.get(e.number))
            data = stored[e.number] = merge_patch(prior, json.loads(e.dump_json(exclude_none=True)))
            rows.append((e.number, e.id, e.title, e.status, e.effective_turn, e.runpod_account, ts(e.created_at),
                         ts(e.updated_at), json.dumps(data)))
        conn.executemany(
            "insert into experiments (number, id, title, status, turn, runpod_account, created_at, updated_at, data)"
            " values (?,?,?,?,?,?,?,?,?) on conflict(number) do update set id=excluded.id, title=excluded.title,"
            " status=excluded.status, turn=excluded.turn, runpod_account=excluded.runpod_account,"
            " created_at=excluded.created_at, updated_at=excluded.updated_at, data=excluded.data", rows)
        return stored

    def upsert_events(self, conn: sqlite3.Connection, items: Iterable[WorkflowEvent]) -> int:
        rows = [(e.id, e.experiment_number, e.entity_kind, e.entity_id, e.event_type, ts(e.created_at),
                 e.dump_json()) for e in items]
        before = conn.total_changes
        conn.executemany(
            "insert or ignore into events (id, experiment_number, entity_kind, entity_id, event_type, created_at, data)"
            " values (?,?,?,?,?,?,?)", rows)
        return conn.total_changes - before

    def replace_pending_approvals(self, conn: sqlite3.Connection, items: Iterable[ApprovalRequest]) -> None:
        """The approvals route lists what is pending now: anything else we held is no longer pending."""
        items = list(items)
        conn.execute("update approvals set status = 'resolved' where status = 'pending' and id not in (%s)"
                     % ",".join("?" * len(items)), [a.id for a in items])
        conn.executemany(
            "insert into approvals (id, experiment_number, status, kind, title, updated_at, data) values (?,?,?,?,?,?,?)"
            " on conflict(id) do update set experiment_number=excluded.experiment_number, status=excluded.status,"
            " kind=excluded.kind, title=excluded.title, updated_at=excluded.updated_at, data=excluded.data",
            [(a.id, a.experiment_number, a.status, a.kind, a.title, ts(a.updated_at), a.dump_json())
             for a in items])

    def upsert_pods(self, conn: sqlite3.Connection, items: Iterable[PodLifecycle]) -> None:
        conn.executemany(
            "insert into sagan_pods (runpod_pod_id, account, experiment_number, status, updated_at, data)"
            " values (?,?,?,?,?,?) on conflict(runpod_pod_id) do update set account=excluded.account,"
            " experiment_number=excluded.experiment_number, status=excluded.status,"
            " updated_at=excluded.updated_at, data=excluded.data",
            [(p.runpod_pod_id, p.account, p.experiment_number, p.status, ts(p.updated_at), p.dump_json())
             for p in items])

    def known(self, conn: sqlite3.Connection, pod_ids: Iterable[str]) -> frozenset[str]:
        """Those of `pod_ids` Sagan has a pod_lifecycle row of (under any account): they existed."""
        ids = list(pod_ids)
        if not ids:
            return frozenset()
        return frozenset(r[0] for r in conn.execute(
            "select runpod_pod_id from sagan_pods where runpod_pod_id in (select value from json_each(?))",
            (json.dumps(ids),)))

    def record_approval(self, a: ApprovalRequest) -> None:
        """One request as the owner's decision left it (a deferred one stays findable: the
        approvals route lists only pending requests, and a poll only resolves pending rows)."""
        with self._db.transaction() as conn:
            conn.execute(
                "insert into approvals (id, experiment_number, status, kind, title, updated_at, data) values (?,?,?,?,?,?,?)"
                " on conflict(id) do update set status=excluded.status, updated_at=excluded.updated_at,"
                " data=excluded.data",
                (a.id, a.experiment_number, a.status, a.kind, a.title, ts(a.updated_at), a.dump_json()))

    # --- committed reads ---------------------------------------------------------------

    def experiment_numbers(self) -> dict[str, int]:
        """Experiment id -> number, for events that name their experiment by id only."""
        return dict(self._db.tuples("select id, number from experiments"))

    def pod_experiments(self, account: str) -> dict[str, int | None]:
        """RunPod pod id -> experiment number, from Sagan's pod rows of one account."""
        return dict(self._db.tuples("select runpod_pod_id, experiment_number from sagan_pods where account = ?",
                                    (account,)))

    def stops(self) -> set[str]:
        """Pod ids Sagan asked to stop (its own stops are never losses either)."""
        return {r[0] for r in self._db.tuples(
            "select runpod_pod_id from sagan_pods where status in ('stop_requested', 'stopped')")}

    def stop_requested(self) -> set[str]:
        """Pods Sagan's records show a stop was asked for (a `runpod_stop_requested` event)."""
        rows = self._db.tuples("select distinct json_extract(data, '$.metadata.podId') from events"
                               " where event_type = 'runpod_stop_requested'")
        return {r[0] for r in rows if isinstance(r[0], str)}

    def experiments(self) -> list[Experiment]:
        rows = self._db.rows("select data from experiments order by number desc")
        return parse_records(Experiment, [_object(r["data"]) for r in rows], "cache.experiments")[0]

    def experiment(self, number: int) -> Experiment | None:
        rows = self._db.rows("select data from experiments where number = ?", (number,))
        return experiment_of(_object(rows[0]["data"])) if rows else None

    def events(self, experiment: int | None = None, limit: int = 500, types: Iterable[str] | None = None,
               since: datetime | None = None) -> list[WorkflowEvent]:
        """Newest first."""
        where, params = [], []
        if experiment is not None:
            where.append("experiment_number = ?")
            params.append(experiment)
        if types:
            t = list(types)
            where.append("event_type in (%s)" % ",".join("?" * len(t)))
            params += t
        if since is not None:
            where.append("created_at >= ?")
            params.append(ts(since))
        sql = "select data from events" + (" where " + " and ".join(where) if where else "")
        sql += " order by created_at desc, id desc limit ?"
        rows = self._db.rows(sql, [*params, limit])
        return parse_records(WorkflowEvent, [_object(r["data"]) for r in rows], "cache.events")[0]

    def approvals(self, status: str | None = "pending") -> list[ApprovalRequest]:
        sql, params = "select data from approvals", []
        if status:
            sql += " where status = ?"
            params.append(status)
        rows = self._db.rows(sql + " order by updated_at desc", params)
        return parse_records(ApprovalRequest, [_object(r["data"]) for r in rows], "cache.approvals")[0]

    def pods(self) -> list[PodLifecycle]:
        rows = self._db.rows("select data from sagan_pods order by updated_at desc")
        return parse_records(PodLifecycle, [_object(r["data"]) for r in rows], "cache.sagan_pods")[0]

    def dispatches(self) -> list[tuple[int, str, str | None]]:
        """(experiment, pod id, created_at text) of every pod Sagan recorded for an experiment, newest
        change first: the triage's dispatches, read without parsing each whole record (watch reads
        them after every poll; at 10,000 pods the records' parse was most of its work)."""
        return [tuple(r) for r in self._db.tuples(
            "select experiment_number, runpod_pod_id, json_extract(data, '$.created_at') from sagan_pods "
            "where experiment_number is not null order by updated_at desc")]

    def experiment_stamps(self) -> dict[int, tuple]:
        """number -> what an experiment row shows, from columns only (no record parsed)."""
        return {r[0]: r[1:] for r in self._db.tuples(
            "select number, status, turn, title, updated_at, runpod_account from experiments")}

    def event_ids_at(self, when: datetime) -> set[str]:
        """Ids of the events held that were created at exactly `when` (a feed cursor's instant)."""
        return {r[0] for r in self._db.tuples("select id from events where created_at = ?", (ts(when),))}

    def event_position(self) -> int:
        """How far the events table goes (its newest rowid): the timeline's own position in the cache."""
        return int(self._db.tuples("select coalesce(max(rowid), 0) from events")[0][0])


def experiment_of(data: object) -> Experiment | None:
    """A stored record as the cache reads it; None when no Experiment can be made of it."""
    try:
        return Experiment.model_validate(data)
    except ValidationError:
        return None


def merge_patch(target: object, patch: object) -> object:
    """RFC 7396's JSON merge patch (SQLite's json_patch, which wrote these rows before): an object
    merged key by key, a null removing its key, anything else replacing what was there."""
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge_patch(out.get(key), value)
    return out


def _object(text: str | None) -> dict:
    """A row's stored record; one no JSON object can be read from (another tool's, a damaged
    file's) is none: a read skips it (parse_records counts it bad) and the next write replaces it."""
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
