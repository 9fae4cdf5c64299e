"""The SQLite cache: what the panel paints first, what survives a source outage, and the audit log."""

from __future__ import annotations

import functools
import json
import logging
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import sqlite_utils

from sagan_tui.basics import health_from_row, parse_ts, ts
from sagan_tui.models import (
    Action, ApprovalRequest, Experiment, Loss, PodLifecycle, PodSighting, RunPodPod, SourceHealth,
    WorkflowEvent, parse_records,
)
from sagan_tui.store import moved as moved_file, opening
from sagan_tui.store.opening import CacheError, CacheUnusable  # noqa: F401 - the store's errors, named here too

log = logging.getLogger(__name__)
# How long a writer waits its turn while another process holds the write lock (each try waits
# the busy timeout). A poll's data waits in memory meanwhile: a long `sync` write or a backup
# holding the lock must delay it, never fail it and lose what it read.
LOCKED_WAIT_S = 120.0


_turn = threading.local()  # `once`: the next begin of this thread is tried without waiting (first_try)


class WriteLocked(Exception):
    """A write's first begin found another process holding the write lock; nothing was written."""


def first_try(fn: Callable[..., Any], args: tuple = ()) -> Any:
    """`fn(*args)`, its first transaction's begin tried without waiting: WriteLocked if another
    process holds the lock (fn wrote nothing then, and may be called again)."""
    _turn.once = True
    try:
        return fn(*args)
    finally:
        _turn.once = False


@dataclass(frozen=True)
class CachedPod:
    """A RunPod pod as the cache remembers it, including when it was first/last seen and gone."""

    pod: RunPodPod
    first_seen_at: datetime | None
    running_at: datetime | None
    last_seen_at: datetime | None
    gone_at: datetime | None
    gone_reason: str | None
    # Absent from its account's last complete list and not yet confirmed lost (shown MISSING?).
    missing_since: datetime | None = None
    # What the row must say beside its status: Sagan and RunPod disagree, two keys list it.
    flag: str | None = None
    # The first complete, undoubted list that held it (None: none yet); a later listing establishes it.
    counted_at: datetime | None = None

    @property
    def pod_id(self) -> str:
        return self.pod.id

    @property
    def account(self) -> str:
        return self.pod.account

    @property
    def experiment(self) -> int | None:
        return _experiment_of(self.pod)


def _experiment_of(pod: RunPodPod) -> int | None:
    """Sagan names pods `exp<N>-...`; the experiment number is read from that when known."""
    if pod.experiment is not None:
        return pod.experiment
    name = pod.name or ""
    if name.startswith("exp"):
        digits = ""
        for ch in name[3:]:
            if not ch.isdigit():
                break
            digits += ch
        # A name is free text: `exp` and thirty digits must not become an integer SQLite cannot hold.
        if digits and len(digits) <= 9:
            return int(digits)
    return None


class Cache:
    """One SQLite file in WAL mode; safe to share between threads and between processes.

    Writes are short transactions with a busy timeout, so two panels and a `sync` can share
    a file. Opening is store/opening.py's: a file that is corrupt or not ours is moved aside and
    rebuilt (`notices` says so); anything else that stops the open is a CacheUnusable naming the
    cause, the file untouched. `read_only` opens it so nothing can be written (report, waves, doctor).
    Reads go through a second connection: in WAL mode they never wait for a writer, so the
    panel's main thread is not held while a poll's write queues behind another process's.
    """

    def __init__(self, path: str | Path, read_only: bool = False):
        self.path = Path(path).expanduser()
        self.read_only = read_only
        self.notices: list[str] = []
        self._lock = threading.RLock()
        self._closing = threading.Event()  # set by close(): a writer waiting for the lock gives up
        self._read_lock = threading.Lock()
        if read_only:
            conn = opening.open_read_only(self.path)
        else:
            conn, self.notices = opening.open_writable(self.path)
        self.db = sqlite_utils.Database(conn)
        try:
            self._reader = opening.connect_read_only(self.path) if read_only else opening.reader(self.path)
        except BaseException:
            conn.close()
            raise
        moved_file.opened(self)  # which file (and -wal, -shm) it opened, to notice it removed or replaced

    def moved(self) -> str | None:
        """"removed" or "replaced" when the path no longer names the file this cache opened."""
        return moved_file.state(self)

    def recreate(self) -> str | None:
        """The file put back at its path from what this cache holds (or the file now there used,
        what it lacks kept beside it); what was done, in one line; None when nothing moved."""
        with self._lock, self._read_lock:
            return moved_file.recreate(self)

    def close(self) -> None:
        self._closing.set()  # a write still waiting out another process's lock ends now
        # A file removed under a writer is put back first: closing would end its history.
        if not self.read_only and self.moved() is not None:
            try:
                self.recreate()
            except (OSError, sqlite3.Error, CacheError) as exc:  # closing still: nothing more can be done
                log.warning("cache %s: its file was %s and could not be put back: %s", self.path, self.moved(),
                            opening.cause_of(exc))
        with self._read_lock:
            self._reader.close()
        with self._lock:
            self.db.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken eagerly so two writers queue instead of deadlocking."""
        with self._lock:
            conn = self.db.conn
            self._begin(conn)
            try:
                yield conn
            except BaseException:
                # SQLite has already rolled back after some errors (a full disk, an I/O error):
                # a second rollback would raise "no transaction is active" over the real error.
                if conn.in_transaction:
                    conn.execute("rollback")
                raise
            else:
                conn.execute("commit")

    def _begin(self, conn: sqlite3.Connection) -> None:
        """`begin immediate`, tried again while another process holds the write lock (up to
        LOCKED_WAIT_S): nothing is written before it, so a try that timed out loses nothing.
        The first begin of a call made through `first_try` is tried once, without waiting: it
        raises WriteLocked, and its caller waits elsewhere (session/db.py, on its loop)."""
        if getattr(_turn, "once", False):
            _turn.once = False
            conn.execute("pragma busy_timeout = 0")
            try:
                conn.execute("begin immediate")
                return
            except sqlite3.OperationalError as exc:
                if "locked" in str(exc) or "busy" in str(exc):
                    raise WriteLocked(f"cache {self.path}: another process holds the write lock") from None
                raise
            finally:
                conn.execute(f"pragma busy_timeout = {opening.BUSY_TIMEOUT_MS}")
        deadline = time.monotonic() + LOCKED_WAIT_S
        while True:
            try:
                conn.execute("begin immediate")
                return
            except sqlite3.OperationalError as exc:
                if ("locked" not in str(exc) and "busy" not in str(exc) or time.monotonic() > deadline
                        or self._closing.is_set()):
                    raise
                log.warning("cache %s: another process holds the write lock; waiting for it", self.path)
                time.sleep(0.05)  # a lock refused at once (no busy wait) must not spin

    def _rows(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
        """Committed rows only (the reader connection): never call it for a transaction's own writes."""
        with self._read_lock:
            cur = self._reader.execute(sql, tuple(params))
            cols = [d[0] for d in cur.description]
            return [dict(zip(cols, r)) for r in cur.fetchall()]  # type: ignore[misc]

    # --- Sagan -----------------------------------------------------------------------

    def upsert_experiments(self, conn: sqlite3.Connection, items: Iterable[Experiment]) -> None:
        conn.executemany(
            "insert into experiments (number, id, title, status, turn, runpod_account, created_at, updated_at, data)"
            " values (?,?,?,?,?,?,?,?,?) on conflict(number) do update set id=excluded.id, title=excluded.title,"
            " status=excluded.status, turn=excluded.turn, runpod_account=excluded.runpod_account,"
            " created_at=excluded.created_at, updated_at=excluded.updated_at,"
            # a list reply has no planMd/body: keep the ones a view already fetched
            " data=json_patch(coalesce(experiments.data, '{}'), excluded.data)",
            [(e.number, e.id, e.title, e.status, e.effective_turn, e.runpod_account, ts(e.created_at),
              ts(e.updated_at), e.dump_json(exclude_none=True)) for e in items])

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

    def record_approval(self, a: ApprovalRequest) -> None:
        """One request as the owner's decision left it (a deferred one stays findable: the
        approvals route lists only pending requests, and a poll only resolves pending rows)."""
        with self.transaction() as conn:
            conn.execute(
                "insert into approvals (id, experiment_number, status, kind, title, updated_at, data) values (?,?,?,?,?,?,?)"
                " on conflict(id) do update set status=excluded.status, updated_at=excluded.updated_at,"
                " data=excluded.data",
                (a.id, a.experiment_number, a.status, a.kind, a.title, ts(a.updated_at), a.dump_json()))

    def upsert_sagan_pods(self, conn: sqlite3.Connection, items: Iterable[PodLifecycle]) -> None:
        conn.executemany(
            "insert into sagan_pods (runpod_pod_id, account, experiment_number, status, updated_at, data)"
            " values (?,?,?,?,?,?) on conflict(runpod_pod_id) do update set account=excluded.account,"
            " experiment_number=excluded.experiment_number, status=excluded.status,"
            " updated_at=excluded.updated_at, data=excluded.data",
            [(p.runpod_pod_id, p.account, p.experiment_number, p.status, ts(p.updated_at), p.dump_json())
             for p in items])

    def _tuples(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        """Committed rows as plain tuples (the reader connection), for lookups read on every poll."""
        with self._read_lock:
            return self._reader.execute(sql, tuple(params)).fetchall()

    def experiment_numbers(self) -> dict[str, int]:
        """Experiment id -> number, for events that name their experiment by id only."""
        return dict(self._tuples("select id, number from experiments"))

    def sagan_pod_experiments(self, account: str) -> dict[str, int | None]:
        """RunPod pod id -> experiment number, from Sagan's pod rows of one account."""
        return dict(self._tuples("select runpod_pod_id, experiment_number from sagan_pods where account = ?",
                                 (account,)))

    def sagan_stops(self) -> set[str]:
        """Pod ids Sagan asked to stop (its own stops are never losses either)."""
        return {r[0] for r in self._tuples(
            "select runpod_pod_id from sagan_pods where status in ('stop_requested', 'stopped')")}

    def experiments(self) -> list[Experiment]:
        rows = self._rows("select data from experiments order by number desc")
        return parse_records(Experiment, [json.loads(r["data"]) for r in rows], "cache.experiments")[0]

    def experiment(self, number: int) -> Experiment | None:
        rows = self._rows("select data from experiments where number = ?", (number,))
        return Experiment.model_validate(json.loads(rows[0]["data"])) if rows else None

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
        rows = self._rows(sql, [*params, limit])
        return parse_records(WorkflowEvent, [json.loads(r["data"]) for r in rows], "cache.events")[0]

    def approvals(self, status: str | None = "pending") -> list[ApprovalRequest]:
        sql, params = "select data from approvals", []
        if status:
            sql += " where status = ?"
            params.append(status)
        rows = self._rows(sql + " order by updated_at desc", params)
        return parse_records(ApprovalRequest, [json.loads(r["data"]) for r in rows], "cache.approvals")[0]

    def sagan_pods(self) -> list[PodLifecycle]:
        rows = self._rows("select data from sagan_pods order by updated_at desc")
        return parse_records(PodLifecycle, [json.loads(r["data"]) for r in rows], "cache.sagan_pods")[0]

    def counts(self) -> dict[str, int]:
        return {t: self._rows(f"select count(*) n from {t}")[0]["n"]
                for t in ("experiments", "events", "approvals", "sagan_pods", "pods", "pod_observations",
                          "losses", "actions")}

    # --- RunPod ----------------------------------------------------------------------

    def live_pods(self, conn: sqlite3.Connection, account: str,
                  pod_ids: Iterable[str] | None = None) -> dict[str, CachedPod]:
        """The account's pods not gone (only `pod_ids` among them, when given)."""
        sql, params = "select * from pods_seen where account = ? and gone_at is null", [account]
        if pod_ids is not None:
            sql += " and pod_id in (select value from json_each(?))"
            params.append(json.dumps(list(pod_ids)))
        cur = conn.execute(sql, params)
        cols = [d[0] for d in cur.description]
        return {p.pod_id: p for p in (self._pod(dict(zip(cols, r))) for r in cur.fetchall())}

    def live_stamps(self, conn: sqlite3.Connection, account: str) -> dict[str, str | None]:
        """pod_id -> last_seen_at (as stored) of the account's pods not gone: cheap, no record parsed."""
        return dict(conn.execute("select pod_id, last_seen_at from pods_seen where account = ? and gone_at is null",
                                 (account,)).fetchall())

    def account_seen(self, conn: sqlite3.Connection, account: str, at: datetime) -> None:
        """A complete poll of `account` at `at` listed every pod of it left live: they were all seen then
        (schema v3's `pods_seen`), and a pod it found unchanged needs no write of its own."""
        conn.execute("insert into account_seen (account, seen_at) values (?, ?)"
                     " on conflict(account) do update set seen_at = excluded.seen_at", (account, ts(at)))

    def settle_pods(self, conn: sqlite3.Connection, pod_ids: Iterable[str]) -> None:
        """Write into these pods' own rows what `pods_seen` derives for them, before they are
        rewritten: a RUNNING pod that stops keeps its last RUNNING sighting, which was its account's."""
        conn.execute(
            "update pods set (last_seen_at, running_seen_at, uptime_s, data) = (select last_seen_at,"
            " running_seen_at, uptime_s, data from pods_seen v where v.pod_id = pods.pod_id)"
            " where pod_id in (select value from json_each(?))", (json.dumps(list(pod_ids)),))

    def touch_pods(self, conn: sqlite3.Connection, rows: Iterable[tuple]) -> None:
        """(pod_id, last_seen_at, running_at, uptime_s) of pods seen again with nothing else changed,
        by a poll that is not complete (some records unreadable: it does not vouch for every pod)."""
        stamp = functools.lru_cache(maxsize=4)(ts)  # one poll's rows share their last_seen_at
        conn.executemany(
            "update pods set last_seen_at = ?, running_at = coalesce(?, running_at), uptime_s = ?,"
            " running_seen_at = case when desired_status = 'RUNNING' then ? else running_seen_at end,"
            " data = json_set(data, '$.uptimeSeconds', ?) where pod_id = ?",
            [(stamp(seen), ts(running), up, stamp(seen), up, pod_id) for pod_id, seen, running, up in rows])

    def upsert_pods(self, conn: sqlite3.Connection, pods: Iterable[CachedPod]) -> None:
        conn.executemany(
            "insert into pods (pod_id, account, experiment, name, desired_status, gpu, gpu_count, datacenter,"
            " cost_per_hr, uptime_s, last_status_change, pod_type, first_seen_at, running_at, last_seen_at,"
            " gone_at, gone_reason, data, host, running_seen_at, missing_since, counted_at)"
            " values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
            " on conflict(pod_id) do update set account=excluded.account, experiment=excluded.experiment,"
            " name=excluded.name, desired_status=excluded.desired_status, gpu=excluded.gpu,"
            " gpu_count=excluded.gpu_count, datacenter=excluded.datacenter, cost_per_hr=excluded.cost_per_hr,"
            " uptime_s=excluded.uptime_s, last_status_change=excluded.last_status_change,"
            " pod_type=excluded.pod_type, first_seen_at=coalesce(pods.first_seen_at, excluded.first_seen_at),"
            " running_at=coalesce(excluded.running_at, pods.running_at), last_seen_at=excluded.last_seen_at,"
            " gone_at=excluded.gone_at, gone_reason=excluded.gone_reason, data=excluded.data,"
            " host=coalesce(excluded.host, pods.host),"
            # Survival is judged on when a pod was last seen RUNNING: a later stop keeps it.
            " running_seen_at=coalesce(excluded.running_seen_at, pods.running_seen_at),"
            " missing_since=excluded.missing_since, counted_at=coalesce(excluded.counted_at, pods.counted_at)",
            [(c.pod.id, c.pod.account, c.experiment, c.pod.name, c.pod.desired_status, c.pod.gpu,
              c.pod.gpu_count, c.pod.datacenter, c.pod.cost_per_hr, c.pod.uptime_seconds,
              c.pod.last_status_change, c.pod.pod_type, ts(c.first_seen_at), ts(c.running_at),
              ts(c.last_seen_at), ts(c.gone_at), c.gone_reason, c.pod.dump_json(), c.pod.host,
              ts(c.last_seen_at) if c.pod.desired_status == "RUNNING" else None, ts(c.missing_since),
              ts(c.counted_at))
             for c in pods])

    def add_observations(self, conn: sqlite3.Connection, rows: Iterable[tuple]) -> None:
        """(pod_id, account, at, desired_status, uptime_s, last_status_change) rows, one per change."""
        conn.executemany(
            "insert into pod_observations (pod_id, account, at, desired_status, uptime_s, last_status_change)"
            " values (?,?,?,?,?,?)", [(r[0], r[1], ts(r[2]), *r[3:]) for r in rows])

    @staticmethod
    def _pod(row: dict[str, Any]) -> CachedPod:
        pod = RunPodPod.model_validate(json.loads(row["data"]))
        return CachedPod(pod=pod, first_seen_at=parse_ts(row["first_seen_at"]),
                         running_at=parse_ts(row["running_at"]), last_seen_at=parse_ts(row["last_seen_at"]),
                         gone_at=parse_ts(row["gone_at"]), gone_reason=row["gone_reason"],
                         missing_since=parse_ts(row.get("missing_since")), flag=row.get("flag"),
                         counted_at=parse_ts(row.get("counted_at")))

    def pods(self, include_gone: bool = True, account: str | None = None,
             pod_ids: Iterable[str] | None = None) -> list[CachedPod]:
        sql, params = "select * from pods_seen where 1=1", []
        if pod_ids is not None:
            sql += " and pod_id in (select value from json_each(?))"
            params.append(json.dumps(list(pod_ids)))
        if not include_gone:
            sql += " and gone_at is null"
        if account:
            sql += " and account = ?"
            params.append(account)
        return [self._pod(r) for r in self._rows(sql + " order by account, pod_id", params)]

    def sightings(self) -> list[PodSighting]:
        """What the polls saw of every pod, from the pods' columns: the same values as its
        CachedPods (upsert_pods writes both), without parsing each pod's JSON record (the costly part)."""
        rows = self._tuples("select pod_id, account, experiment, first_seen_at, running_at, last_seen_at,"
                            " desired_status, gpu, datacenter, cost_per_hr, gone_at, host, running_seen_at"
                            " from pods_seen"
                            " order by account, pod_id")
        out = []
        for r in rows:
            out.append(PodSighting(pod_id=r[0], account=r[1], experiment=r[2], first_seen_at=parse_ts(r[3]),
                                   running_at=parse_ts(r[4]), last_seen_at=parse_ts(r[5]), desired_status=r[6],
                                   gpu=r[7], datacenter=r[8], cost_per_hr=r[9], gone=r[10] is not None,
                                   host=r[11], running_seen_at=parse_ts(r[12])))
        return out

    # --- losses ----------------------------------------------------------------------

    def upsert_losses(self, conn: sqlite3.Connection, losses: Iterable[Loss]) -> None:
        """Each loss as given, state included; a suspicion never demotes a confirmed loss
        (withdrawing one is `withdraw_losses`)."""
        conn.executemany(
            "insert into losses (pod_id, account, experiment, running_at, last_seen_at, lost_at, gpu, datacenter,"
            " cost_per_hr, source, reason, run_id, dismissed, host, state, confirmed_by)"
            " values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
            " on conflict(pod_id) do update set account=excluded.account, experiment=excluded.experiment,"
            " running_at=excluded.running_at, last_seen_at=excluded.last_seen_at, lost_at=excluded.lost_at,"
            " gpu=excluded.gpu, datacenter=excluded.datacenter, cost_per_hr=excluded.cost_per_hr,"
            " source=excluded.source, reason=excluded.reason, run_id=excluded.run_id,"
            " dismissed=max(losses.dismissed, excluded.dismissed), host=coalesce(excluded.host, losses.host),"
            " state=case when losses.state = 'confirmed' and excluded.state = 'missing' then losses.state"
            " else excluded.state end,"
            " confirmed_by=case when losses.state = 'confirmed' and excluded.state = 'missing'"
            " then losses.confirmed_by else excluded.confirmed_by end,"
            " withdrawn_at=null, withdrawn_reason=null",
            [(x.pod_id, x.account, x.experiment, ts(x.running_at), ts(x.last_seen_at), ts(x.lost_at), x.gpu,
              x.datacenter, x.cost_per_hr, x.source, x.reason, x.run_id, int(x.dismissed), x.host, x.state,
              x.confirmed_by)
             for x in losses])

    def withdraw_losses(self, conn: sqlite3.Connection, rows: Iterable[tuple[str, str]], at: datetime) -> list[str]:
        """(pod_id, why) of losses disproved: kept as withdrawn (the audit trail), counted nowhere.
        The pods that had a loss row not yet withdrawn."""
        rows = list(rows)
        if not rows:
            return []
        ids = [r[0] for r in rows]
        had = [r[0] for r in conn.execute(
            "select pod_id from losses where state != 'withdrawn' and pod_id in (select value from json_each(?))",
            (json.dumps(ids),))]
        conn.executemany("update losses set state = 'withdrawn', withdrawn_at = ?, withdrawn_reason = ?"
                         " where pod_id = ? and state != 'withdrawn'", [(ts(at), why, pod_id) for pod_id, why in rows])
        return had

    def flagged_pods(self) -> dict[str, str]:
        """pod_id -> flag, of every pod whose row carries one (doctor lists them)."""
        return dict(self._tuples("select pod_id, flag from pods where flag is not null order by pod_id"))

    def pod_owners(self, conn: sqlite3.Connection, pod_ids: Iterable[str]) -> dict[str, str]:
        """pod_id -> the account a live row of it is under, for those of `pod_ids` the cache holds live."""
        return dict(conn.execute("select pod_id, account from pods where gone_at is null and pod_id in"
                                 " (select value from json_each(?))", (json.dumps(list(pod_ids)),)).fetchall())

    def pod_states(self, conn: sqlite3.Connection, pod_ids: Iterable[str]) -> dict[str, tuple]:
        """pod_id -> (account, gone_at, missing_since, last_seen_at) as the polls left it."""
        rows = conn.execute("select pod_id, account, gone_at, missing_since, last_seen_at from pods_seen"
                            " where pod_id in (select value from json_each(?))", (json.dumps(list(pod_ids)),))
        return {r[0]: (r[1], parse_ts(r[2]), parse_ts(r[3]), parse_ts(r[4])) for r in rows}

    def losses(self, since: datetime | None = None, include_dismissed: bool = True,
               pod_ids: Iterable[str] | None = None,
               states: Iterable[str] | None = ("confirmed",)) -> list[Loss]:
        """Confirmed losses (what waves, verdicts and reports count) unless `states` says (None: all)."""
        sql, params = "select * from losses where 1=1", []
        if states is not None:
            sql += " and coalesce(state, 'confirmed') in (select value from json_each(?))"
            params.append(json.dumps(list(states)))
        if pod_ids is not None:
            sql += " and pod_id in (select value from json_each(?))"
            params.append(json.dumps(list(pod_ids)))
        if since is not None:
            sql += " and lost_at >= ?"
            params.append(ts(since))
        if not include_dismissed:
            sql += " and dismissed = 0"
        out = []
        for r in self._rows(sql + " order by lost_at", params):
            r = {k: (parse_ts(v) if k in ("running_at", "last_seen_at", "lost_at", "withdrawn_at") else v)
                 for k, v in r.items() if v is not None or k not in ("state",)}
            r["dismissed"] = bool(r["dismissed"])
            out.append(Loss.model_validate(r))
        return out

    def dismiss_loss(self, pod_id: str) -> None:
        with self.transaction() as conn:
            conn.execute("update losses set dismissed = 1 where pod_id = ?", (pod_id,))

    # --- other writers -----------------------------------------------------------------

    def data_version(self) -> int:
        """Moves when another connection (a `sync`, a second panel) commits, never on our own
        writes: asked on the writer connection, which is the only one of ours that writes."""
        with self._lock:
            return int(self.db.conn.execute("pragma data_version").fetchone()[0])

    def experiment_stamps(self) -> dict[int, tuple]:
        """number -> what an experiment row shows, from columns only (no record parsed)."""
        return {r[0]: r[1:] for r in self._tuples(
            "select number, status, turn, title, updated_at, runpod_account from experiments")}

    def pod_stamps(self) -> dict[str, tuple]:
        """pod_id -> what a pod row shows beyond "seen" (which moves on every poll of its account)."""
        return {r[0]: r[1:] for r in self._tuples(
            "select pod_id, account, experiment, desired_status, running_at, gone_at, gone_reason, name, gpu,"
            " datacenter, cost_per_hr, last_status_change from pods")}

    def event_ids_at(self, when: datetime) -> set[str]:
        """Ids of the events held that were created at exactly `when` (a feed cursor's instant)."""
        return {r[0] for r in self._tuples("select id from events where created_at = ?", (ts(when),))}

    def event_position(self) -> int:
        """How far the events table goes (its newest rowid): the timeline's own position in the cache."""
        return int(self._tuples("select coalesce(max(rowid), 0) from events")[0][0])

    # --- health ----------------------------------------------------------------------

    def set_health(self, conn: sqlite3.Connection, h: SourceHealth, cursor: str | None = None) -> None:
        row = {"source": h.source, "state": h.state.value, "error_kind": h.error_kind.value if h.error_kind else None,
               "message": h.message, "last_success": ts(h.last_success), "last_attempt": ts(h.last_attempt),
               "consecutive_failures": h.consecutive_failures, "next_attempt": ts(h.next_attempt),
               "transport": h.transport, "balance": h.balance, "spend_per_hr": h.spend_per_hr,
               "spend_limit": h.spend_limit,
               "under_balance": None if h.under_balance is None else int(h.under_balance),
               "unreadable": h.unreadable, "unreadable_since": ts(h.unreadable_since),
               "duplicates": h.duplicates, "duplicates_since": ts(h.duplicates_since), "phantoms": h.phantoms,
               "billing_mode": h.billing_mode}
        cols = list(row)
        sets = ", ".join(f"{c}=excluded.{c}" for c in cols if c != "source")
        # A failed poll keeps the last known balance and the last success: both are still facts.
        for keep in ("last_success", "balance", "spend_per_hr", "spend_limit", "under_balance", "billing_mode"):
            sets = sets.replace(f"{keep}=excluded.{keep}", f"{keep}=coalesce(excluded.{keep}, sync_state.{keep})")
        if cursor is not None:
            row["cursor"] = cursor
            cols.append("cursor")
            sets += ", cursor=excluded.cursor"
        conn.execute(f"insert into sync_state ({', '.join(cols)}) values ({', '.join('?' * len(cols))})"
                     f" on conflict(source) do update set {sets}", list(row.values()))

    def record_balance(self, conn: sqlite3.Connection, account: str, at: datetime, balance: float | None,
                       under_balance: bool | None, spend_per_hr: float | None = None,
                       spend_limit: float | None = None, billing_mode: str | None = None) -> bool:
        """A balance_history row when the account's balance or under-balance flag moved since its
        last row (a poll that read neither adds nothing); whether one was added."""
        if balance is None and under_balance is None:
            return False
        under = None if under_balance is None else int(under_balance)
        last = conn.execute("select balance, under_balance from balance_history where account = ?"
                            " order by at desc, id desc limit 1", (account,)).fetchone()
        if last is not None and tuple(last) == (balance, under):
            return False
        conn.execute("insert into balance_history (account, at, balance, under_balance, spend_per_hr, spend_limit,"
                     " billing_mode)"
                     " values (?,?,?,?,?,?,?)", (account, ts(at), balance, under, spend_per_hr, spend_limit,
                                                  billing_mode))
        return True

    def balance_history(self) -> dict[str, list[tuple]]:
        """Per account, (at, balance, under_balance, spend_per_hr, spend_limit) rows, oldest first."""
        out: dict[str, list[tuple]] = {}
        for account, at, bal, under, spend, limit in self._tuples(
                "select account, at, balance, under_balance, spend_per_hr, spend_limit from balance_history"
                " order by account, at, id"):
            out.setdefault(account, []).append((parse_ts(at), bal, None if under is None else bool(under),
                                                spend, limit))
        return out

    def cursor(self, source: str) -> str | None:
        rows = self._rows("select cursor from sync_state where source = ?", (source,))
        return rows[0]["cursor"] if rows else None

    def health(self) -> dict[str, SourceHealth]:
        out = {}
        for r in self._rows("select * from sync_state"):
            out[r["source"]] = health_from_row(r)
        return out

    # --- audit -----------------------------------------------------------------------

    def audit(self, action: Action) -> int:
        with self.transaction() as conn:
            cur = conn.execute(
                "insert into actions (at, action, target, account, result, error, detail, origin)"
                " values (?,?,?,?,?,?,?,?)", (ts(action.at), action.action, action.target, action.account,
                                              action.result, action.error, action.detail, action.origin))
            return int(cur.lastrowid)

    def finish_action(self, action_id: int, result: str, error: str | None = None) -> None:
        with self.transaction() as conn:
            conn.execute("update actions set result = ?, error = ? where id = ?", (result, error, action_id))

    def actions(self, limit: int = 200) -> list[Action]:
        rows = self._rows("select * from actions order by id desc limit ?", (limit,))
        return [Action.model_validate({**r, "at": parse_ts(r["at"])}) for r in rows]

    def owner_stops(self) -> set[str]:
        """Pod ids the owner asked to stop or terminate from this panel (never losses).

        A stop that failed or was refused (read-only, or its target had already vanished) was
        never sent to RunPod: its pod's disappearance is still a loss.
        """
        rows = self._rows("select target from actions where action in ('stop', 'terminate')"
                          " and result not in ('error', 'refused', 'cancelled')")
        return {r["target"] for r in rows}

    # --- retention -------------------------------------------------------------------

    def prune(self, now: datetime, events_days: float, observations_days: float) -> dict[str, int]:
        """Bound the cache: a month of polling must not grow it without limit."""
        with self.transaction() as conn:
            e = conn.execute("delete from events where created_at < ?",
                             (ts(now - timedelta(days=events_days)),)).rowcount
            o = conn.execute("delete from pod_observations where at < ?",
                             (ts(now - timedelta(days=observations_days)),)).rowcount
        return {"events": e, "pod_observations": o}
