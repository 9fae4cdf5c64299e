"""The cache file removed or replaced under an open Cache: noticing it, and putting the file back from
what the open connection still holds.

A file removed (`rm`, a cleaned-up directory) stays readable through the descriptors SQLite holds,
its unlinked -wal included, until the process ends: then its history, every loss among it, is
gone, and the next `sync` would start an empty cache. So an open Cache compares what its path
names with the file it opened (st_dev, st_ino) and, when they differ, copies what it holds with
SQLite's backup API (which reads through the WAL) to a new file at the path.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from sagan_tui.core.store import opening

SIDES = ("-wal", "-shm")


class CacheFile:
    """The file an open Cache holds, by identity (st_dev, st_ino, and its -wal and -shm): whether
    its path still names it, and putting it back there from what a connection still reads."""

    def __init__(self, path: Path):
        self.path = path
        self.opened()

    def opened(self) -> None:
        """Which files the connections hold: the database, and its -wal and -shm, which stay the
        same files while a connection is open (SQLite deletes them only when its last user closes)."""
        self.identity = opening.identity(self.path)
        self.side_identity = {s: opening.identity(Path(f"{self.path}{s}")) for s in SIDES}

    def state(self) -> str | None:
        """"removed" or "replaced" when the path no longer names the file that was opened."""
        now = opening.identity(self.path)
        if now == self.identity:
            return None
        return "removed" if now is None else "replaced"

    def recreate(self, conn: sqlite3.Connection) -> tuple[sqlite3.Connection, sqlite3.Connection, str] | None:
        """The file put back at its path from what `conn` reads, or the file now there used: the new
        writer and reader connections and what was done, in one line (None when the path still names
        the file opened). The caller holds its cache's locks, swaps in the connections and closes
        the old ones. On a failure the cache goes on with the file it had (to be tried again), no
        copy left behind."""
        if self.state() is None:
            return None
        path = self.path
        path.parent.mkdir(parents=True, exist_ok=True)  # a removed cache directory too
        held = _backup(conn, path)
        try:
            placed = self._place_if_removed(held)
            writer, notices = opening.open_writable(path)  # the file at the path: the copy, or the one there
            try:
                reader = opening.reader(path)
                said = placed or self._keep_what_it_lacks(held)
            except BaseException:
                writer.close()
                raise
        finally:
            held.unlink(missing_ok=True)  # placed, kept aside or not needed by now, unless this failed
        self.opened()
        return writer, reader, "; ".join([said, *notices])

    def _place_if_removed(self, held: Path) -> str | None:
        """`held` (a copy of what the cache holds) placed at the path if no file is there; what was done."""
        path = self.path
        how = self.state() or "removed"  # as it is now: another process may have put a file back meanwhile
        # The log and index of the file that went, if they are still at the path: their commits are in
        # the copy now. Left there, SQLite would take them for those of the file put at the path. One of
        # another file (a process that ended on a file removed before) is moved aside, not deleted.
        for suffix in SIDES:
            side = Path(f"{path}{suffix}")
            if opening.identity(side) == self.side_identity.get(suffix):
                side.unlink(missing_ok=True)
            elif how == "removed" and side.exists():
                os.replace(side, path.with_name(f"{path.name}.stray-{time.strftime('%Y%m%dT%H%M%S')}{suffix}"))
        if how != "removed":
            return None
        counts = _counts(held)
        if not _place(held, path):
            return None
        return (f"cache file {path} was removed under this process: recreated from what it held"
                f" ({counts[0]} losses, {counts[1]} audit rows, {counts[2]} pods)")

    def _keep_what_it_lacks(self, held: Path) -> str:
        """The file at the path is another one: `held` kept beside it when it lacks some of what `held` has."""
        path = self.path
        lacks = _lacks(held, path)
        if not any(lacks):
            return f"cache file {path} was replaced by another file holding all this process held: now using it"
        aside = _keep_aside(held, path)
        return (f"cache file {path} was replaced by another file, which lacks {lacks[0]} losses, {lacks[1]} audit"
                f" rows and {lacks[2]} pods this process held: all it held is kept in {aside}; now using the file"
                " at the path")


def _backup(conn: sqlite3.Connection, path: Path) -> Path:
    """A full copy of what `conn` reads (its WAL included), in a new file beside `path`."""
    n = 0
    while True:
        tmp = path.with_name(f".{path.name}.recreating-{os.getpid()}-{n}")
        if not tmp.exists():
            break
        n += 1
    try:
        dst = sqlite3.connect(tmp, isolation_level=None)
        try:
            conn.backup(dst)
            dst.execute("pragma journal_mode = delete")  # the copy stands alone until it is placed
        finally:
            dst.close()
    except BaseException:
        for leftover in (tmp, Path(f"{tmp}-journal")):
            leftover.unlink(missing_ok=True)
        raise
    return tmp


def _place(held: Path, path: Path) -> bool:
    """`held` put at `path` unless a file appeared there meanwhile (never over one)."""
    try:
        os.link(held, path)
    except FileExistsError:
        return False
    except OSError:  # no hard links on this file system: check-then-rename is the best left
        if path.exists():
            return False
        os.replace(held, path)
        return True
    held.unlink()
    return True


def _keep_aside(held: Path, path: Path) -> Path:
    """`held` moved to `<name>.held-<time>[-N]` beside `path`, never over an existing file."""
    stamp, n = time.strftime("%Y%m%dT%H%M%S"), 0
    while True:
        aside = path.with_name(f"{path.name}.held-{stamp}" + (f"-{n}" if n else ""))
        try:
            os.link(held, aside)
        except FileExistsError:
            n += 1
            continue
        except OSError:
            if aside.exists():
                n += 1
                continue
            os.replace(held, aside)
            return aside
        held.unlink()
        return aside


def _counts(db: Path) -> tuple[int, int, int]:
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return tuple(conn.execute(f"select count(*) from {t}").fetchone()[0]  # type: ignore[return-value]
                     for t in ("losses", "actions", "pods"))
    finally:
        conn.close()


def _lacks(held: Path, path: Path) -> tuple[int, int, int]:
    """How many losses, audit rows and pods in `held` the cache at `path` does not hold."""
    conn = sqlite3.connect(f"{held.resolve().as_uri()}?mode=ro", uri=True)
    try:
        conn.execute("attach database ? as now", (f"{path.resolve().as_uri()}?mode=ro",))
        row = conn.execute(
            "select (select count(*) from main.losses where pod_id not in (select pod_id from now.losses)),"
            " (select count(*) from main.actions a where not exists (select 1 from now.actions b"
            "  where b.at = a.at and b.action = a.action and b.target is a.target)),"
            " (select count(*) from main.pods where pod_id not in (select pod_id from now.pods))").fetchone()
        return tuple(row)  # type: ignore[return-value]
    except sqlite3.Error:  # not a cache of ours, or unreadable: it holds none of it
        return _counts(held)
    finally:
        conn.close()
