"""The cache's pods (`pods`, `pods_seen`, `pod_observations`, `account_seen`): what the polls saw of
each pod, whether it existed (phantoms, schema `_v_pod_existence`) and the flags on its row."""

from __future__ import annotations

import functools
import json
import sqlite3
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Iterable, Mapping, NamedTuple

from sagan_tui.wire.basics import STOPPED_STATES, parse_ts, ts
from sagan_tui.core.models import PodSighting, RunPodPod

if TYPE_CHECKING:
    from sagan_tui.core.store.holder import Holder

PHANTOM = "listed once and never again"  # a pod's gone_reason when it never was established
# Phantoms an account's health counts: those of the last day (older ones are history, in doctor).
PHANTOM_WINDOW = timedelta(days=1)
EXITED_UNKNOWN = "exited, cause unknown"  # the flag an unexplained exit leaves on its pod's row
# The columns upsert() writes, each from merged(): no rule of what a row keeps lives in its SQL.
WRITTEN = ("pod_id", "account", "experiment", "name", "desired_status", "gpu", "gpu_count", "datacenter",
           "cost_per_hr", "uptime_s", "last_status_change", "pod_type", "first_seen_at", "running_at",
           "last_seen_at", "gone_at", "gone_reason", "data", "host", "running_seen_at", "missing_since",
           "counted_at", "flag")


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


class Kept(NamedTuple):
    """What a pod's stored row keeps through a write of it, as `pods_seen` reads it."""

    first_seen_at: datetime | None
    running_at: datetime | None
    counted_at: datetime | None
    flag: str | None
    host: str | None
    running_seen_at: datetime | None


class MergedRow(NamedTuple):
    """A pod's row as one write leaves it: the record a read would give, and the two columns
    that only the sightings read (the record's pod holds the host its list gave, or none)."""

    record: CachedPod
    host: str | None
    running_seen_at: datetime | None


def merged(old: Kept | None, new: CachedPod) -> MergedRow:
    """`new` written over `old`: the merge rules' one place. What a poll writes and what it
    hands the session are both this, so the two cannot differ. A pod keeps when it was first
    seen, its start, the list that first vouched for it and its flag (set by other rules); a
    host or a start a list leaves out is not forgotten; survival is judged on when it was last
    seen RUNNING, which a later stop keeps."""
    running = new.pod.desired_status == "RUNNING"
    if old is None:
        return MergedRow(new, new.pod.host, new.last_seen_at if running else None)
    kept = (old.first_seen_at if old.first_seen_at is not None else new.first_seen_at,
            new.running_at if new.running_at is not None else old.running_at,
            new.counted_at if new.counted_at is not None else old.counted_at, old.flag)
    # Most rows a poll writes keep nothing `new` lacks: no copy of them (10,000 a poll at worst).
    record = new if kept == (new.first_seen_at, new.running_at, new.counted_at, new.flag) else replace(
        new, first_seen_at=kept[0], running_at=kept[1], counted_at=kept[2], flag=kept[3])
    return MergedRow(record, new.pod.host if new.pod.host is not None else old.host,
                     new.last_seen_at if running else old.running_seen_at)


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


def _pod(row: Mapping[str, Any]) -> CachedPod | None:
    """The row's pod; None for a row whose record cannot be read (another tool's, a damaged
    file's): a read skips it, and the next poll that lists the pod writes it anew."""
    try:
        pod = RunPodPod.model_validate(json.loads(row["data"]))
    except ValueError:  # not JSON, or not a pod (pydantic's ValidationError is a ValueError)
        return None
    return CachedPod(pod=pod, first_seen_at=parse_ts(row["first_seen_at"]),
                     running_at=parse_ts(row["running_at"]), last_seen_at=parse_ts(row["last_seen_at"]),
                     gone_at=parse_ts(row["gone_at"]), gone_reason=row["gone_reason"],
                     missing_since=parse_ts(row.get("missing_since")), flag=row.get("flag"),
                     counted_at=parse_ts(row.get("counted_at")))


class PodRows:
    """Every statement on the pods' tables. A method given `conn` runs in that write transaction
    (a poll's whole write is one); the others read committed rows through the cache's reader."""

    def __init__(self, db: "Holder"):
        self._db = db

    # --- inside a poll's write ---------------------------------------------------------

    def live(self, conn: sqlite3.Connection, account: str,
             pod_ids: Iterable[str] | None = None) -> dict[str, CachedPod]:
        """The account's pods not gone (only `pod_ids` among them, when given)."""
        sql, params = "select * from pods_seen where account = ? and gone_at is null", [account]
        if pod_ids is not None:
            sql += " and pod_id in (select value from json_each(?))"
            params.append(json.dumps(list(pod_ids)))
        cur = conn.execute(sql, params)
        cols = [d[0] for d in cur.description]
        return {p.pod_id: p for p in map(_pod, (dict(zip(cols, r)) for r in cur.fetchall())) if p is not None}

    def live_stamps(self, conn: sqlite3.Connection, account: str) -> dict[str, str | None]:
        """pod_id -> last_seen_at (as stored) of the account's pods not gone: cheap, no record parsed."""
        return dict(conn.execute("select pod_id, last_seen_at from pods_seen where account = ? and gone_at is null",
                                 (account,)).fetchall())

    def account_seen(self, conn: sqlite3.Connection, account: str, at: datetime) -> None:
        """A complete poll of `account` at `at` listed every pod of it left live: they were all seen then
        (schema v3's `pods_seen`), and a pod it found unchanged needs no write of its own."""
        conn.execute("insert into account_seen (account, seen_at) values (?, ?)"
                     " on conflict(account) do update set seen_at = excluded.seen_at", (account, ts(at)))

    def kept(self, conn: sqlite3.Connection, pod_ids: Iterable[str]) -> dict[str, Kept]:
        """What these pods' rows hold that a write of them keeps (merged()), as `pods_seen` derives
        it: a RUNNING pod that stops keeps its last RUNNING sighting, which was its account's."""
        at = functools.cache(parse_ts)  # a poll stamps its pods alike: each distinct text parsed once
        rows = conn.execute("select pod_id, first_seen_at, running_at, counted_at, flag, host, running_seen_at"
                            " from pods_seen where pod_id in (select value from json_each(?))",
                            (json.dumps(list(pod_ids)),))
        return {r[0]: Kept(at(r[1]), at(r[2]), at(r[3]), r[4], r[5], at(r[6])) for r in rows}

    def touch(self, conn: sqlite3.Connection, rows: Iterable[tuple]) -> None:
        """(pod_id, last_seen_at, running_at, uptime_s) of pods seen again with nothing else changed,
        by a poll that is not complete (some records unreadable: it does not vouch for every pod)."""
        stamp = functools.lru_cache(maxsize=4)(ts)  # one poll's rows share their last_seen_at
        conn.executemany(
            "update pods set last_seen_at = ?, running_at = coalesce(?, running_at), uptime_s = ?,"
            " running_seen_at = case when desired_status = 'RUNNING' then ? else running_seen_at end,"
            " data = json_set(data, '$.uptimeSeconds', ?) where pod_id = ?",
            [(stamp(seen), ts(running), up, stamp(seen), up, pod_id) for pod_id, seen, running, up in rows])

    def upsert(self, conn: sqlite3.Connection, pods: Iterable[CachedPod]) -> list[CachedPod]:
        """Write these pods' rows over what the cache holds of them (merged()); the records as
        stored, what a read of them after this transaction gives while no other write comes."""
        pods = list(pods)
        kept = self.kept(conn, [c.pod_id for c in pods]) if pods else {}
        written = [merged(kept.get(c.pod_id), c) for c in pods]
        at = functools.cache(ts)  # a poll dates its pods alike (seen, counted): each time written out once
        conn.executemany(
            f"insert into pods ({', '.join(WRITTEN)}) values ({', '.join('?' * len(WRITTEN))}) on conflict(pod_id)"
            f" do update set {', '.join(f'{c}=excluded.{c}' for c in WRITTEN[1:])}",
            [(c.pod.id, c.pod.account, c.experiment, c.pod.name, c.pod.desired_status, c.pod.gpu,
              c.pod.gpu_count, c.pod.datacenter, c.pod.cost_per_hr, c.pod.uptime_seconds,
              c.pod.last_status_change, c.pod.pod_type, at(c.first_seen_at), at(c.running_at),
              at(c.last_seen_at), at(c.gone_at), c.gone_reason, c.pod.dump_json(), host, at(running_seen),
              at(c.missing_since), at(c.counted_at), c.flag)
             for c, host, running_seen in written])
        return [w.record for w in written]

    def add_observations(self, conn: sqlite3.Connection, rows: Iterable[tuple]) -> None:
        """(pod_id, account, at, desired_status, uptime_s, last_status_change) rows, one per change."""
        conn.executemany(
            "insert into pod_observations (pod_id, account, at, desired_status, uptime_s, last_status_change)"
            " values (?,?,?,?,?,?)", [(r[0], r[1], ts(r[2]), *r[3:]) for r in rows])

    def owners(self, conn: sqlite3.Connection, pod_ids: Iterable[str]) -> dict[str, str]:
        """pod_id -> the account a live row of it is under, for those of `pod_ids` the cache holds live."""
        return dict(conn.execute("select pod_id, account from pods where gone_at is null and pod_id in"
                                 " (select value from json_each(?))", (json.dumps(list(pod_ids)),)).fetchall())

    def states(self, conn: sqlite3.Connection, pod_ids: Iterable[str]) -> dict[str, tuple]:
        """pod_id -> (account, gone_at, missing_since, last_seen_at) as the polls left it."""
        rows = conn.execute("select pod_id, account, gone_at, missing_since, last_seen_at from pods_seen"
                            " where pod_id in (select value from json_each(?))", (json.dumps(list(pod_ids)),))
        return {r[0]: (r[1], parse_ts(r[2]), parse_ts(r[3]), parse_ts(r[4])) for r in rows}

    def adopt_experiments(self, conn: sqlite3.Connection) -> list[str]:
        """Pods first seen before Sagan's row of them get its experiment now; the pods changed."""
        known = "(select experiment_number from sagan_pods where runpod_pod_id = pods.pod_id)"
        changed = [r[0] for r in conn.execute(
            f"select pod_id from pods where experiment is null and {known} is not null")]
        conn.execute(f"update pods set experiment = {known}, data = json_set(data, '$.experiment', {known})"
                     " where experiment is null")
        return changed

    def flag(self, conn: sqlite3.Connection, flags: Mapping[str, str]) -> None:
        conn.executemany("update pods set flag = ? where pod_id = ?", [(f, p) for p, f in flags.items()])

    def unflag(self, conn: sqlite3.Connection, pod_ids: Iterable[str], flag: str = EXITED_UNKNOWN) -> None:
        """Clear this flag from pods that run again (a flag another rule set stays)."""
        conn.executemany("update pods set flag = null where pod_id = ? and flag = ?", [(p, flag) for p in pod_ids])

    def phantom_count(self, conn: sqlite3.Connection, account: str, now: datetime) -> int:
        """The account's pods recorded as phantoms within PHANTOM_WINDOW of `now`."""
        return int(conn.execute("select count(*) from pods where account = ? and gone_reason = ? and gone_at >= ?",
                                (account, PHANTOM, ts(now - PHANTOM_WINDOW))).fetchone()[0])

    # --- committed reads ---------------------------------------------------------------

    def read(self, include_gone: bool = True, account: str | None = None,
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
        return [p for p in map(_pod, self._db.rows(sql + " order by account, pod_id", params)) if p is not None]

    def sightings(self) -> list[PodSighting]:
        """What the polls saw of every pod, from the pods' columns: the same values as its
        CachedPods (upsert writes both), without parsing each pod's JSON record (the costly part)."""
        rows = self._db.tuples("select pod_id, account, experiment, first_seen_at, running_at, last_seen_at,"
                               " desired_status, gpu, datacenter, cost_per_hr, gone_at, host, running_seen_at"
                               " from pods_seen order by account, pod_id")
        # A poll stamps every pod it lists with the same time: each distinct text is parsed once
        # (10,000 pods hold a few dozen), and the sightings share its datetime.
        at = functools.cache(parse_ts)

        return [PodSighting(pod_id=r[0], account=r[1], experiment=r[2], first_seen_at=at(r[3]),
                            running_at=at(r[4]), last_seen_at=at(r[5]), desired_status=r[6],
                            gpu=r[7], datacenter=r[8], cost_per_hr=r[9], gone=r[10] is not None,
                            host=r[11], running_seen_at=at(r[12]))
                for r in rows]

    def flagged(self) -> dict[str, str]:
        """pod_id -> flag, of every pod whose row carries one (doctor lists them)."""
        return dict(self._db.tuples("select pod_id, flag from pods where flag is not null order by pod_id"))

    def stamps(self) -> dict[str, tuple]:
        """pod_id -> what a pod row shows beyond "seen" (which moves on every poll of its account)."""
        return {r[0]: r[1:] for r in self._db.tuples(
            "select pod_id, account, experiment, desired_status, running_at, gone_at, gone_reason, name, gpu,"
            " datacenter, cost_per_hr, last_status_change from pods")}

    def phantoms(self) -> dict[str, tuple[int, datetime | None]]:
        """account -> (phantoms ever recorded, the last one's time): what `doctor` says of them."""
        return {r[0]: (r[1], parse_ts(r[2])) for r in self._db.tuples(
            "select account, count(*), max(gone_at) from pods where gone_reason = ? group by account", (PHANTOM,))}

    def stops_to_reread(self) -> int:
        """Pods Sagan says are stopping (stop_requested) that RunPod still lists live: Sagan's rows of
        them are read again every poll (its `updatedSince` cursor never re-reads a row that did not
        change), so one stale stop_requested cannot file a later vanish as a stop."""
        stopped = json.dumps(sorted(STOPPED_STATES))
        return int(self._db.tuples(
            "select count(*) from sagan_pods s join pods p on p.pod_id = s.runpod_pod_id"
            " where s.status = 'stop_requested' and p.gone_at is null"
            " and p.desired_status not in (select value from json_each(?))", (stopped,))[0][0])
