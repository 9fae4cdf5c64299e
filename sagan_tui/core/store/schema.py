"""The cache's schema as forward migrations, one function per version."""

from __future__ import annotations

from typing import Callable

import sqlite_utils

APP_ID = "sagan-tui"
# SQLite's header field for the application that owns a file (`pragma application_id`): "SgnT".
APPLICATION_ID = 0x53676E54


def _v1(db: sqlite_utils.Database) -> None:
    db["experiments"].create({
        "number": int, "id": str, "title": str, "status": str, "turn": str,
        "runpod_account": str, "created_at": str, "updated_at": str, "data": str,
    }, pk="number", if_not_exists=True)
    db["events"].create({
        "id": str, "experiment_number": int, "entity_kind": str, "entity_id": str,
        "event_type": str, "created_at": str, "data": str,
    }, pk="id", if_not_exists=True)
    db["events"].create_index(["created_at"], if_not_exists=True)
    db["events"].create_index(["experiment_number", "created_at"], if_not_exists=True)
    db["approvals"].create({
        "id": str, "experiment_number": int, "status": str, "kind": str, "title": str,
        "updated_at": str, "data": str,
    }, pk="id", if_not_exists=True)
    db["sagan_pods"].create({
        "runpod_pod_id": str, "account": str, "experiment_number": int, "status": str,
        "updated_at": str, "data": str,
    }, pk="runpod_pod_id", if_not_exists=True)
    db["pods"].create({
        "pod_id": str, "account": str, "experiment": int, "name": str, "desired_status": str,
        "gpu": str, "gpu_count": int, "datacenter": str, "cost_per_hr": float, "uptime_s": int,
        "last_status_change": str, "pod_type": str, "first_seen_at": str, "running_at": str,
        "last_seen_at": str, "gone_at": str, "gone_reason": str, "data": str,
    }, pk="pod_id", if_not_exists=True)
    db["pods"].create_index(["account", "gone_at"], if_not_exists=True)
    db["pod_observations"].create({
        "id": int, "pod_id": str, "account": str, "at": str, "desired_status": str,
        "uptime_s": int, "last_status_change": str,
    }, pk="id", if_not_exists=True)
    db["pod_observations"].create_index(["pod_id", "at"], if_not_exists=True)
    db["pod_observations"].create_index(["at"], if_not_exists=True)
    db["losses"].create({
        "pod_id": str, "account": str, "experiment": int, "running_at": str,
        "last_seen_at": str, "lost_at": str, "gpu": str, "datacenter": str,
        "cost_per_hr": float, "source": str, "reason": str, "run_id": str, "dismissed": int,
    }, pk="pod_id", if_not_exists=True)
    db["losses"].create_index(["lost_at"], if_not_exists=True)
    db["actions"].create({
        "id": int, "at": str, "action": str, "target": str, "account": str,
        "result": str, "error": str, "detail": str,
    }, pk="id", if_not_exists=True)
    db["sync_state"].create({
        "source": str, "state": str, "error_kind": str, "message": str, "last_success": str,
        "last_attempt": str, "consecutive_failures": int, "next_attempt": str,
        "transport": str, "balance": float, "spend_per_hr": float, "spend_limit": float,
        "under_balance": int, "cursor": str,
    }, pk="source", if_not_exists=True)


def _add_column(db: sqlite_utils.Database, table: str, column: str, kind: type = str) -> bool:
    """Add a column (text unless told) unless it is there (a file re-migrated from a lowered
    version); whether added."""
    if column in db[table].columns_dict:
        return False
    db[table].add_column(column, kind)
    return True


def _v2(db: sqlite_utils.Database) -> None:
    """The evidence a verdict weighs: each pod's machine, when it was last seen RUNNING, and
    each account's balance history (a row whenever its balance or under-balance flag moved)."""
    _add_column(db, "pods", "host")
    if _add_column(db, "pods", "running_seen_at"):
        # What v1 knew: a pod listed RUNNING at its last sighting was running then.
        db.execute("update pods set running_seen_at = last_seen_at where desired_status = 'RUNNING'")
    _add_column(db, "losses", "host")
    db["balance_history"].create({
        "id": int, "account": str, "at": str, "balance": float, "under_balance": int,
        "spend_per_hr": float, "spend_limit": float,
    }, pk="id", if_not_exists=True)
    db["balance_history"].create_index(["account", "at"], if_not_exists=True)


# The pods table's columns, in its order (v1's, then v2's, then v4's): the view below lists them one by one.
V3_POD_COLUMNS = ("pod_id", "account", "experiment", "name", "desired_status", "gpu", "gpu_count", "datacenter",
                  "cost_per_hr", "uptime_s", "last_status_change", "pod_type", "first_seen_at", "running_at",
                  "last_seen_at", "gone_at", "gone_reason", "data", "host", "running_seen_at")
POD_COLUMNS = (*V3_POD_COLUMNS, "missing_since", "flag")
SEEN_COLUMNS = ("last_seen_at", "running_seen_at", "uptime_s", "data")  # what the view derives


def pods_seen(columns: tuple[str, ...], listed: str) -> str:
    """A live pod its account's last complete poll listed was seen then: when that poll is newer
    than the row's own sighting, the row's last sighting (and, RUNNING, its last RUNNING sighting
    and an uptime grown by the time between) are that poll's. Rows of gone pods are their own;
    `listed` is the condition that a live row was in that poll's list."""
    return f"""
create view pods_seen as
select {", ".join(c for c in columns if c not in SEEN_COLUMNS)},
    coalesce(seen_at, last_seen_at) as last_seen_at,
    case when seen_at is not null and desired_status = 'RUNNING' then seen_at else running_seen_at end
        as running_seen_at,
    coalesce(grown, uptime_s) as uptime_s,
    case when grown is null then data else json_set(data, '$.uptimeSeconds', grown) end as data
from (
    select p.*, a.seen_at,
        case when a.seen_at is not null and p.desired_status = 'RUNNING' and p.uptime_s is not null
            then p.uptime_s + cast(round((julianday(a.seen_at) - julianday(p.last_seen_at)) * 86400) as integer)
        end as grown
    from pods p left join account_seen a
        on a.account = p.account and {listed} and a.seen_at > coalesce(p.last_seen_at, '')
)"""


def _v3(db: sqlite_utils.Database) -> None:
    """A poll that finds a pod unchanged writes nothing of it: each account's last complete poll
    is one row (`account_seen`), and `pods_seen` reads every pod's last sighting through it.
    Rewriting every live pod's row for its last-seen time was 2,000 pages a poll at 10,000 pods."""
    db["account_seen"].create({"account": str, "seen_at": str}, pk="account", if_not_exists=True)
    db.execute("drop view if exists pods_seen")  # a re-migrated file gets this version's view
    db.execute(pods_seen(V3_POD_COLUMNS, "p.gone_at is null"))


def _v4(db: sqlite_utils.Database) -> None:
    """Losses the owner can bet on: a pod absent from one list is *missing* until confirmed
    (`losses.state`: missing, confirmed, withdrawn; how it was confirmed or why withdrawn), a
    pod row can carry a flag (Sagan and RunPod disagree; listed by two accounts' keys), and an
    account's health remembers records it could not read."""
    if _add_column(db, "losses", "state"):
        db.execute("update losses set state = 'confirmed'")  # what v3 recorded was a loss
    for column in ("confirmed_by", "withdrawn_at", "withdrawn_reason", "notified_at"):
        _add_column(db, "losses", column)
    db["losses"].create_index(["state", "lost_at"], if_not_exists=True)
    _add_column(db, "pods", "missing_since")
    _add_column(db, "pods", "flag")
    _add_column(db, "sync_state", "unreadable", int)
    _add_column(db, "sync_state", "unreadable_since")
    # A missing pod was not in its account's last list: `account_seen` must not date it.
    db.execute("drop view if exists pods_seen")
    db.execute(pods_seen(POD_COLUMNS, "p.gone_at is null and p.missing_since is null"))


def _v5(db: sqlite_utils.Database) -> None:
    """Evidence from REST v2 alone: each account's billing mode (a POSTPAID account is not stopped
    by its balance) with its health and its balance history, and what RunPod's billing and audit
    log said of each lost pod, read once around its wave (`loss_evidence`), and exits awaiting
    their judgement (`pending_exits`)."""
    _add_column(db, "sync_state", "billing_mode")
    _add_column(db, "balance_history", "billing_mode")
    db["loss_evidence"].create({
        "pod_id": str, "account": str, "read_at": str, "billed_usd": float, "billed_note": str,
        "audit_state": str, "audit_note": str, "actor": str, "action": str, "acted_at": str,
    }, pk="pod_id", if_not_exists=True)
    # An exit nobody asked for, judged at the account's next poll (once Sagan's records of the
    # same moment are in): the loss it would be, as JSON.
    db["pending_exits"].create({"pod_id": str, "account": str, "seen_at": str, "loss": str},
                               pk="pod_id", if_not_exists=True)


def _v6(db: sqlite_utils.Database) -> None:
    """The owner's acknowledgements of waves (`wave_acks`): a wave is known by its first pod, and
    what it looked like when acknowledged (pods, accounts, cause, confidence) tells whether it
    has grown since, which makes it news again."""
    db["wave_acks"].create({
        "wave_key": str, "acked_at": str, "pods": int, "accounts": str, "cause": str, "confidence": str,
    }, pk="wave_key", if_not_exists=True)


# Pods' columns from `_v_pod_existence` on: when a complete list first vouched for each pod.
EXISTENCE_POD_COLUMNS = (*POD_COLUMNS, "counted_at")
COUNTED_LONG_AGO = "1970-01-01T00:00:00.000000Z"  # the rows before `_v_pod_existence`: established


def _v_pod_existence(db: sqlite_utils.Database) -> None:
    """A pod must have existed to be lost: `pods.counted_at` is the first complete, undoubted
    list that held the pod, and a later listing establishes it (derived from `last_seen_at`, so
    an unchanged pod is still not written); the rows before this version stand as established.
    An account's health counts its duplicated records (since when) and its phantoms (pods listed
    once and never again)."""
    if _add_column(db, "pods", "counted_at"):
        db.execute("update pods set counted_at = ?", (COUNTED_LONG_AGO,))
    _add_column(db, "sync_state", "duplicates", int)
    _add_column(db, "sync_state", "duplicates_since")
    _add_column(db, "sync_state", "phantoms", int)
    db.execute("drop view if exists pods_seen")  # the view names its columns: it gets the new one
    db.execute(pods_seen(EXISTENCE_POD_COLUMNS, "p.gone_at is null and p.missing_since is null"))


def _v_watch_pages(db: sqlite_utils.Database) -> None:
    """`sagan-tui watch`'s alerts (`page_alerts`: one row per wave, forming cluster, blind source or
    short runway, its lifecycle state as JSON) so a restarted watch does not page again, and each
    page target's last outcome (`page_health`, named by scheme and host only) for a panel to show."""
    db["page_alerts"].create({"key": str, "kind": str, "state": str, "data": str, "updated_at": str},
                             pk="key", if_not_exists=True)
    db["page_health"].create({"target": str, "state": str, "error": str, "at": str}, pk="target", if_not_exists=True)


def _v_hold_origin(db: sqlite_utils.Database) -> None:
    """Who made a hold, recorded when it was made (h, H, W, canary, watch, sagan): the release
    dialog and the audit screen name it instead of guessing it from the note's text."""
    _add_column(db, "actions", "origin")


def _v_loss_syslog(db: sqlite_utils.Database) -> None:
    """The system log's last lines of each lost pod, read once at its loss (`loss_syslog`): `state`
    read | unread | gone (RunPod no longer serves it), `note` why not, `lines` as JSON
    [[timestamp, message], ...], already cleaned and bounded."""
    db["loss_syslog"].create({"pod_id": str, "account": str, "read_at": str, "state": str, "note": str,
                              "lines": str}, pk="pod_id", if_not_exists=True)


# One sequence for every change of shape: each version is appended, never edited once released.
MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = [_v1, _v2, _v3, _v4, _v5, _v6, _v_hold_origin,
                                                               _v_pod_existence, _v_watch_pages, _v_loss_syslog]
SCHEMA_VERSION = len(MIGRATIONS)


class SchemaError(RuntimeError):
    """The file's schema cannot be used by this version."""


def current_version(db: sqlite_utils.Database) -> int:
    if "meta" not in db.table_names():
        return 0
    row = db.execute("select value from meta where key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


def migrate(db: sqlite_utils.Database) -> int:
    """Bring `db` to SCHEMA_VERSION; returns the version it started at. Writes only when there is
    something to write: an open that takes the write lock waits behind every other writer."""
    start = current_version(db)
    if start > SCHEMA_VERSION:
        raise SchemaError(f"cache schema v{start} is newer than this sagan-tui (v{SCHEMA_VERSION})")
    if start == SCHEMA_VERSION and db.execute("pragma application_id").fetchone()[0] == APPLICATION_ID:
        return start
    with db.conn:  # one transaction: a migration is whole or not at all
        db.execute("begin immediate")
        db.execute(f"pragma application_id = {APPLICATION_ID}")
        db["meta"].create({"key": str, "value": str}, pk="key", if_not_exists=True)
        db["meta"].upsert({"key": "app", "value": APP_ID}, pk="key")
        for version in range(start, SCHEMA_VERSION):
            MIGRATIONS[version](db)
            db["meta"].upsert({"key": "schema_version", "value": str(version + 1)}, pk="key")
    return start
