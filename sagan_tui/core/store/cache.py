"""The SQLite cache: what the panel paints first, what survives a source outage, and the audit log.

`Cache` holds the connections (opening, the write transaction, the file put back when it is
removed); the statements live in one repository per aggregate, which it composes:
`cache.sagan_rows` (experiments, events, approvals, Sagan's pods), `cache.pod_rows` (RunPod's pods
and whether they existed), `cache.loss_rows` (losses and their evidence), `cache.health_rows`
(each source's health, balances), `cache.action_rows` (the audit log), `cache.incident_rows`
(wave acknowledgements) and `cache.page_rows` (watch's alerts).
"""

from __future__ import annotations

import functools
import logging
import sqlite3
import threading
import time
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import sqlite_utils

from sagan_tui.wire.basics import parse_ts, ts  # noqa: F401 - imported from here by callers of the cache
from sagan_tui.core.store import opening
from sagan_tui.core.store.action_rows import ActionRows
from sagan_tui.core.store.health_rows import HealthRows
from sagan_tui.core.store.incident_rows import IncidentRows
from sagan_tui.core.store.loss_rows import LossRows
from sagan_tui.core.store.moved import CacheFile
from sagan_tui.core.store.opening import CacheError, CacheUnusable  # noqa: F401 - the store's errors, named here too
from sagan_tui.core.store.page_rows import PageRows
from sagan_tui.core.store.pod_rows import CachedPod  # noqa: F401 - the cache's pod record, named here too
from sagan_tui.core.store.pod_rows import PodRows
from sagan_tui.core.store.sagan_rows import SaganRows

log = logging.getLogger(__name__)
# How long a writer waits its turn while another process holds the write lock (each try waits
# the busy timeout). A poll's data waits in memory meanwhile: a long `sync` write or a backup
# holding the lock must delay it, never fail it and lose what it read.
LOCKED_WAIT_S = 120.0
# What `transaction()` yields: a repository method given one runs inside that transaction.
Conn = sqlite3.Connection
COUNTED = ("experiments", "events", "approvals", "sagan_pods", "pods", "pod_observations", "losses", "actions")


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


def _forward(repo: str, method: Callable[..., Any]) -> Callable[..., Any]:
    """A Cache method that is the repository's own (its signature and docstring kept)."""
    name = method.__name__

    @functools.wraps(method)
    def forwarded(self: "Cache", *args: Any, **kwargs: Any) -> Any:
        return getattr(getattr(self, repo), name)(*args, **kwargs)
    return forwarded


class Cache:
    """One SQLite file in WAL mode; safe to share between threads and between processes.

    Writes are short transactions with a busy timeout, so two panels and a `sync` can share
    a file. Opening is core/store/opening.py's: a file that is corrupt or not ours is moved aside and
    rebuilt (`notices` says so); anything else that stops the open is a CacheUnusable naming the
    cause, the file untouched. `read_only` opens it so nothing can be written (report, waves, doctor);
    `checked`: a process serving this session holds it open and checked it (opening.open_writable).
    Reads go through a second connection: in WAL mode they never wait for a writer, so the
    panel's main thread is not held while a poll's write queues behind another process's.
    """

    def __init__(self, path: str | Path, read_only: bool = False, checked: bool = False):
        self.path = Path(path).expanduser()
        self.read_only = read_only
        self.notices: list[str] = []
        self._lock = threading.RLock()
        self._closing = threading.Event()  # set by close(): a writer waiting for the lock gives up
        self._read_lock = threading.Lock()
        self._commits = 0
        if read_only:
            conn = opening.open_read_only(self.path)
        else:
            conn, self.notices = opening.open_writable(self.path, checked)  # see open_writable
        self.db = sqlite_utils.Database(conn)
        try:
            self._reader = opening.connect_read_only(self.path) if read_only else opening.reader(self.path)
        except BaseException:
            conn.close()
            raise
        self.file = CacheFile(self.path)  # which file it opened, to notice it removed or replaced
        self.sagan_rows = SaganRows(self)
        self.pod_rows = PodRows(self)
        self.loss_rows = LossRows(self)
        self.health_rows = HealthRows(self)
        self.action_rows = ActionRows(self)
        self.incident_rows = IncidentRows(self)
        self.page_rows = PageRows(self)

    def moved(self) -> str | None:
        """"removed" or "replaced" when the path no longer names the file this cache opened."""
        return self.file.state()

    def recreate(self) -> str | None:
        """The file put back at its path from what this cache holds (or the file now there used,
        what it lacks kept beside it); what was done, in one line; None when nothing moved."""
        with self._lock, self._read_lock:
            done = self.file.recreate(self.db.conn)
            if done is None:
                return None
            writer, reader, said = done
            old = (self._reader, self.db.conn)
            self.db, self._reader = sqlite_utils.Database(writer), reader
            # Closing a connection to a file no longer at its path is safe: SQLite sees the file moved
            # (its SQLITE_FCNTL_HAS_MOVED) and neither checkpoints nor unlinks `<path>-wal` and `-shm`,
            # which are the new file's by now (test_cache_moved.py pins it).
            for c in old:
                c.close()
            return said

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
                self._commits += 1

    @property
    def commits(self) -> int:
        """How many write transactions this Cache has committed. A read begun once it was n sees
        every write up to the nth; inside a transaction, it is that transaction's number less one
        (the write lock is the caller's until it commits)."""
        return self._commits

    def _begin(self, conn: sqlite3.Connection) -> None:
        """`begin immediate`, tried again while another process holds the write lock (up to
        LOCKED_WAIT_S): nothing is written before it, so a try that timed out loses nothing.
        The first begin of a call made through `first_try` is tried once, without waiting: it
        raises WriteLocked, and its caller waits elsewhere (core/session/db.py, on its loop)."""
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

    def rows(self, sql: str, params: Iterable[Any] = ()) -> list[dict[str, Any]]:
        """Committed rows as dicts (the reader connection): never call it for a transaction's own writes."""
        with self._read_lock:
            cur = self._reader.execute(sql, tuple(params))
            cols = [d[0] for d in cur.description]
            return [dict(zip(cols, r)) for r in cur.fetchall()]

    def tuples(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        """Committed rows as plain tuples (the reader connection), for lookups read on every poll."""
        with self._read_lock:
            return self._reader.execute(sql, tuple(params)).fetchall()

    def data_version(self) -> int:
        """Moves when another connection (a `sync`, a second panel) commits, never on our own
        writes: asked on the writer connection, which is the only one of ours that writes."""
        with self._lock:
            return int(self.db.conn.execute("pragma data_version").fetchone()[0])

    def counts(self) -> dict[str, int]:
        return {t: self.tuples(f"select count(*) from {t}")[0][0] for t in COUNTED}

    def prune(self, now: datetime, events_days: float, observations_days: float) -> dict[str, int]:
        """Bound the cache: a month of polling must not grow it without limit."""
        with self.transaction() as conn:
            e = conn.execute("delete from events where created_at < ?",
                             (ts(now - timedelta(days=events_days)),)).rowcount
            o = conn.execute("delete from pod_observations where at < ?",
                             (ts(now - timedelta(days=observations_days)),)).rowcount
        return {"events": e, "pod_observations": o}

    # The reads and writes callers outside store/ and sync/ used before the repositories, kept for
    # this round (#43 step 3) so the branches of that step merge; new code calls the repository.
    experiments = _forward("sagan_rows", SaganRows.experiments)
    experiment = _forward("sagan_rows", SaganRows.experiment)
    events = _forward("sagan_rows", SaganRows.events)
    approvals = _forward("sagan_rows", SaganRows.approvals)
    experiment_stamps = _forward("sagan_rows", SaganRows.experiment_stamps)
    event_position = _forward("sagan_rows", SaganRows.event_position)
    event_ids_at = _forward("sagan_rows", SaganRows.event_ids_at)
    upsert_experiments = _forward("sagan_rows", SaganRows.upsert_experiments)
    upsert_events = _forward("sagan_rows", SaganRows.upsert_events)
    replace_pending_approvals = _forward("sagan_rows", SaganRows.replace_pending_approvals)
    record_approval = _forward("sagan_rows", SaganRows.record_approval)
    sagan_pods = _forward("sagan_rows", SaganRows.pods)
    pods = _forward("pod_rows", PodRows.read)
    sightings = _forward("pod_rows", PodRows.sightings)
    pod_stamps = _forward("pod_rows", PodRows.stamps)
    flagged_pods = _forward("pod_rows", PodRows.flagged)
    upsert_pods = _forward("pod_rows", PodRows.upsert)
    losses = _forward("loss_rows", LossRows.read)
    upsert_losses = _forward("loss_rows", LossRows.upsert)
    dismiss_loss = _forward("loss_rows", LossRows.dismiss)
    health = _forward("health_rows", HealthRows.read)
    set_health = _forward("health_rows", HealthRows.set)
    record_balance = _forward("health_rows", HealthRows.record_balance)
    balance_history = _forward("health_rows", HealthRows.balance_history)
    cursor = _forward("health_rows", HealthRows.cursor)
    audit = _forward("action_rows", ActionRows.audit)
    finish_action = _forward("action_rows", ActionRows.finish)
    actions = _forward("action_rows", ActionRows.read)
    owner_stops = _forward("action_rows", ActionRows.owner_stops)
