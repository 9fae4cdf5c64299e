"""Opening the cache file: for writing or read-only, what stops a file from opening, and moving a bad one aside.

A cache holds an incident's history, so a file is moved aside only when it is truly corrupt or
not ours (not a SQLite file, `quick_check` fails, another application's database), only by a
command that writes, and under a name no other move can take. Everything else that stops an
open (busy, read-only, disk full, a newer schema, a directory) is a CacheUnusable error naming
the cause, with the file left exactly as it was.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import stat
import time
from pathlib import Path

from sagan_tui.core.store import schema

BUSY_TIMEOUT_MS = 10_000
MIN_PAGE = 512  # SQLite's smallest page: a database file of ours is at least one page long
# SQLite's primary result codes (sqlite3.h), read from `sqlite_errorcode & 0xff`.
_PERM, _BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = 3, 5, 6, 8, 10, 11, 13, 14, 26
_CAUSES = {
    _PERM: "permission denied", _BUSY: "busy: another process holds its lock (try again when it is done)",
    _LOCKED: "busy: another process holds its lock (try again when it is done)",
    _READONLY: "read-only: this user cannot write it", _IOERR: "disk I/O error",
    _FULL: "the disk is full",  # _CANTOPEN: SQLite gives no reason, the file system does (_cannot_open)
}


class CacheError(RuntimeError):
    pass


class CacheUnusable(CacheError):
    """The cache cannot be opened as asked; nothing was changed. The message names the path and
    the cause; `exit_code` is what a command exits with."""

    exit_code = 2


class _NotOurs(Exception):
    """Truly corrupt or another application's file: the only reasons to move a cache aside."""


def cause_of(exc: BaseException) -> str:
    """A short, plain cause for an SQLite or OS error (no paths or values besides SQLite's own words)."""
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        if code is not None and (code & 0xFF) in _CAUSES:
            return _CAUSES[code & 0xFF]
        return str(exc) or type(exc).__name__
    if isinstance(exc, OSError):
        if exc.errno == errno.ENOSPC:
            return "the disk is full"
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return "read-only: this user cannot write it"
        if exc.errno == errno.ENAMETOOLONG:
            return "path too long"
        return exc.strerror or type(exc).__name__
    return str(exc) or type(exc).__name__


def _errno(exc: OSError) -> str:
    """`No such file or directory (ENOENT)`: the system's words and the errno's name."""
    name = errno.errorcode.get(exc.errno or 0, "")
    return f"{exc.strerror or type(exc).__name__}" + (f" ({name})" if name else "")


def _directory_problem(path: Path) -> str | None:
    """What keeps `path`'s directory from holding it, from the file system's own answer; None if nothing."""
    try:
        st = os.stat(path.parent)
    except OSError as exc:
        return f"its directory {path.parent}: {_errno(exc)}"
    if not stat.S_ISDIR(st.st_mode):
        return f"its directory {path.parent}: {_errno(OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR)))}"
    return None


def _cannot_open(path: Path) -> str:
    """Why SQLite could not open `path` ("unable to open database file" says no more), asked of
    the file system: a stat and access checks, never an open of the file (closing a descriptor
    would drop this process's locks on it, see _is_sqlite)."""
    problem = _directory_problem(path)
    if problem:
        return problem
    try:
        os.stat(path)
    except FileNotFoundError:
        pass  # a new file: the directory must take it
    except OSError as exc:
        return _errno(exc)
    else:
        if not os.access(path, os.R_OK | os.W_OK):
            return _errno(OSError(errno.EACCES, os.strerror(errno.EACCES)))
    if not os.access(path.parent, os.W_OK | os.X_OK):
        return f"its directory {path.parent}: {_errno(OSError(errno.EACCES, os.strerror(errno.EACCES)))}"
    return "SQLite: unable to open database file (the file system gave no reason)"


def _disk_full(path: Path) -> bool:
    try:
        st = os.statvfs(path.parent)
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < 64 * 1024


def unusable(path: Path, exc: BaseException | str) -> CacheUnusable:
    why = exc if isinstance(exc, str) else cause_of(exc)
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
    if code == _CANTOPEN:
        why = _cannot_open(path)
    # SQLite reports a full disk met while sizing its -shm or journal as an I/O error.
    if code == _IOERR and _disk_full(path):
        why = "the disk is full (SQLite: disk I/O error)"
    return CacheUnusable(f"cache {path}: {why}")


def _is_sqlite(path: Path) -> bool:
    """Whether a non-empty file reads as SQLite, asked of SQLite itself (read-only).

    Not a plain open(): closing any descriptor of the file drops every POSIX lock this process
    holds on it, so a connection open in the same process (a panel's) would lose its locks and
    another process could take the WAL from under it. SQLite's unix VFS shares one lock record
    per file within a process and defers closing a descriptor while another connection holds
    locks. Only SQLite's "not a database" says no; any other error (busy, a read-only -shm) is
    left to the real open, which names it.
    """
    if os.path.getsize(path) < MIN_PAGE:  # SQLite reads a 1-byte file as an empty database
        return False
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=0, isolation_level=None)
    except sqlite3.Error as exc:
        raise unusable(path, exc) from None
    try:
        conn.execute("pragma schema_version").fetchone()  # reads page 1: the header
    except sqlite3.DatabaseError as exc:
        return (getattr(exc, "sqlite_errorcode", 0) & 0xFF) != _NOTADB
    finally:
        conn.close()
    return True


def _check_path(path: Path) -> bool:
    """Whether a file is there; a directory (or anything not a regular file) is refused as it is."""
    try:
        if path.is_dir():
            raise unusable(path, "is a directory, not a cache file (give the path of a file)")
        exists = path.exists()
    except OSError as exc:  # e.g. a name too long for the file system
        raise unusable(path, exc) from None
    if exists and not path.is_file():
        raise unusable(path, "is not a regular file")
    return exists


def _check_ours(conn: sqlite3.Connection, checked: bool = False) -> set[str]:
    """The file's tables; _NotOurs for another application's database or a failed quick_check
    (not run when `checked`: see open_writable)."""
    app_id = conn.execute("pragma application_id").fetchone()[0]
    if app_id not in (0, schema.APPLICATION_ID):
        raise _NotOurs(f"another application's SQLite database (application id {app_id})")
    tables = {r[0] for r in conn.execute("select name from sqlite_master where type = 'table'")}
    if tables and "meta" not in tables:
        raise _NotOurs("another application's SQLite database (no sagan-tui meta table)")
    if "meta" in tables:
        row = conn.execute("select value from meta where key = 'app'").fetchone()
        if not row or row[0] != schema.APP_ID:
            raise _NotOurs("another application's SQLite database (its meta names another app)")
    if not checked and conn.execute("pragma quick_check").fetchone()[0] != "ok":
        raise _NotOurs("corrupt: quick_check failed")
    return tables


def _classify(path: Path, exc: sqlite3.Error) -> Exception:
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
    if code in (_CORRUPT, _NOTADB):
        return _NotOurs(f"corrupt: {exc}")
    return unusable(path, exc)


def _connect(target: str, uri: bool = False) -> sqlite3.Connection:
    conn = sqlite3.connect(target, uri=uri, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False,
                           isolation_level=None)
    conn.execute(f"pragma busy_timeout = {BUSY_TIMEOUT_MS}")
    return conn


def _open_rw(path: Path, checked: bool = False) -> tuple[sqlite3.Connection, list[str]]:
    """A writable connection to a cache of ours at the current schema, and what to tell of it."""
    import sqlite_utils

    try:
        conn = _connect(str(path))
    except sqlite3.Error as exc:
        raise _classify(path, exc) from None
    try:
        conn.execute("pragma journal_mode = wal")
        conn.execute("pragma synchronous = normal")
        tables = _check_ours(conn, checked)
        started = schema.migrate(sqlite_utils.Database(conn))
        migrated = "meta" in tables and started < schema.SCHEMA_VERSION
        return conn, [f"cache migrated from schema v{started} to v{schema.SCHEMA_VERSION}"] if migrated else []
    except sqlite3.Error as exc:
        conn.close()
        raise _classify(path, exc) from None
    except schema.SchemaError as exc:
        conn.close()
        raise unusable(path, str(exc)) from None
    except BaseException:
        conn.close()
        raise


def _writable(path: Path, exists: bool) -> None:
    """Refuse before SQLite does: it would fail later, mid-poll, or report a follow-on error.

    A missing directory is made (the platform's cache directory, a test's); a path the owner set
    whose directory is missing was refused by the settings already (config.check_cache_dir)."""
    problem = _directory_problem(path)
    if problem:
        if path.parent.exists():  # a file where the directory should be: no mkdir can help
            raise unusable(path, problem)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise unusable(path, f"cannot create its directory: {cause_of(exc)}") from None
    if exists and not os.access(path, os.W_OK):
        raise unusable(path, "read-only: this user cannot write it (report and waves can still read it)")
    if not os.access(path.parent, os.W_OK):
        raise unusable(path, f"its directory {path.parent} is read-only: SQLite needs to write its journal there")


def aside_name(path: Path) -> Path:
    """`<name>.bad-<time>[-N]`: a name no file (nor its -wal or -shm) holds yet."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    n = 0
    while True:
        aside = path.with_name(f"{path.name}.bad-{stamp}" + (f"-{n}" if n else ""))
        if not any(Path(str(aside) + s).exists() for s in ("", "-wal", "-shm")):
            return aside
        n += 1


def move_aside(path: Path) -> Path:
    """Move the file and its -wal/-shm to a fresh `.bad-` name; never over an existing file."""
    while True:
        aside = aside_name(path)
        try:
            os.link(path, aside)  # fails if `aside` appeared meanwhile: never overwrites
        except FileExistsError:
            continue
        except OSError:  # a file system without hard links: check-then-rename is the best left
            if aside.exists():
                continue
            path.rename(aside)
        else:
            path.unlink()
        for suffix in ("-wal", "-shm"):
            side = Path(str(path) + suffix)
            if side.exists():
                side.rename(Path(str(aside) + suffix))
        return aside


def _no_stray_log(path: Path) -> None:
    """Refuse a fresh cache beside the write-ahead log of a removed one.

    The log's last commits (losses among them) are in no database file yet: SQLite opening a
    fresh file at the path deletes a log it finds there and starts an empty cache, so the
    history would be lost without a word. A panel or `sync` still running on the removed file
    recreates it (core/store/cache.py `Cache.recreate`), which also removes the log.
    """
    wal = Path(f"{path}-wal")
    try:
        size = wal.stat().st_size
    except OSError:
        return
    if size:
        raise unusable(path, (
            f"the database file is gone but its write-ahead log {wal} ({size:,} bytes) is still there, holding"
            " its last commits; a fresh cache here would discard it. If a panel or `sync` still runs on this"
            f" cache, it recreates the file within a second; otherwise move {wal} and {path}-shm aside"
            " (to keep them) or delete them, and run again to start an empty cache"))


def identity(path: Path) -> tuple[int, int] | None:
    """(st_dev, st_ino) of the file `path` names now (symlinks followed, as SQLite opens it);
    None when no file is there."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def open_writable(path: Path, checked: bool = False) -> tuple[sqlite3.Connection, list[str]]:
    """A writable connection (WAL, migrated) and the notices worth telling the user. `checked`: the
    file is held open by the process serving this session, which checked it when it opened it (a
    watch, for a panel attached to it): its quick_check, which reads the whole file (~50 ms on a
    large-fleet cache, before an attaching panel's first frame), is not run again."""
    exists = _check_path(path)
    if not exists:
        _no_stray_log(path)
    _writable(path, exists)
    try:
        return _open_writable(path, exists, checked)
    except CacheUnusable:
        if not exists and path.is_file() and not path.stat().st_size:
            path.unlink()  # the empty file SQLite created for an open that failed: leave none behind
        raise


def _open_writable(path: Path, exists: bool, checked: bool = False) -> tuple[sqlite3.Connection, list[str]]:
    if exists and os.path.getsize(path) and not _is_sqlite(path):
        reason = "not a SQLite file"
    else:
        try:
            return _open_rw(path, checked)
        except _NotOurs as exc:
            reason = str(exc)
    try:
        aside = move_aside(path)
    except OSError as exc:
        raise unusable(path, f"{reason}, and it could not be moved aside: {cause_of(exc)}") from None
    try:
        conn, _ = _open_rw(path)
    except _NotOurs as exc:  # a fresh file that is not sound: nothing more to move
        raise unusable(path, str(exc)) from None
    return conn, [f"cache {path} was not usable ({reason}); moved aside to {aside} and rebuilt"]


def open_read_only(path: Path) -> sqlite3.Connection:
    """A connection that cannot write (`mode=ro` and query_only) to a sound cache of ours at a
    schema this version reads; CacheUnusable naming the cause otherwise, the file untouched."""
    if not _check_path(path):
        raise unusable(path, _directory_problem(path) or "no cache file there (the panel or `sagan-tui sync` creates it)")
    if not os.path.getsize(path):
        raise unusable(path, "empty: nothing cached yet (the panel or `sagan-tui sync` fills it)")
    if not _is_sqlite(path):
        raise unusable(path, "not a SQLite file (a command that writes, such as `sync`, moves it aside)")
    conn = connect_read_only(path)
    try:
        if "meta" not in _check_ours(conn):
            raise unusable(path, "empty: nothing cached yet (the panel or `sagan-tui sync` fills it)")
        row = conn.execute("select value from meta where key = 'schema_version'").fetchone()
        version = int(row[0]) if row else 0
        if version > schema.SCHEMA_VERSION:
            raise unusable(path, f"cache schema v{version} is newer than this sagan-tui (v{schema.SCHEMA_VERSION})")
        if version < schema.SCHEMA_VERSION:
            raise unusable(path, f"cache schema v{version} needs migrating: open it once with the panel or `sync`")
        return conn
    except _NotOurs as exc:
        conn.close()
        raise unusable(path, f"{exc} (a command that writes, such as `sync`, moves it aside)") from None
    except sqlite3.Error as exc:
        conn.close()
        code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
        why = f"corrupt: {exc}" if code in (_CORRUPT, _NOTADB) else cause_of(exc)
        raise unusable(path, why) from None
    except BaseException:
        conn.close()
        raise


def connect_read_only(path: Path) -> sqlite3.Connection:
    """A connection that cannot write, with no check of what the file holds (open_read_only checks)."""
    uri = path.resolve().as_uri()
    try:
        conn = _connect(f"{uri}?mode=ro", uri=True)
        conn.execute("pragma query_only = 1")
        conn.execute("select count(*) from sqlite_master").fetchone()  # opens the file (and its WAL) now
        return conn
    except sqlite3.Error as exc:
        wal = Path(f"{path}-wal")
        # A WAL file needs its -shm beside it, which a reader may not be allowed to create (another
        # user's directory); with no WAL content to read, the file alone is the whole cache.
        if (getattr(exc, "sqlite_errorcode", 0) & 0xFF) in (_CANTOPEN, _READONLY, _IOERR, _FULL) and (
                not wal.exists() or not wal.stat().st_size):
            try:
                conn = _connect(f"{uri}?mode=ro&immutable=1", uri=True)
                conn.execute("pragma query_only = 1")
                return conn
            except sqlite3.Error:
                pass
        raise unusable(path, exc) from None


def reader(path: Path) -> sqlite3.Connection:
    """The second, read-only connection a Cache reads committed rows through."""
    try:
        conn = _connect(str(path))
    except sqlite3.Error as exc:
        raise unusable(path, exc) from None
    try:
        conn.execute("pragma query_only = 1")
        # Opens the file's -wal and -shm now, by name, and keeps them: a connection that had not
        # read yet could not, once those names were removed (core/store/moved.py).
        conn.execute("select count(*) from sqlite_master").fetchone()
        return conn
    except sqlite3.Error as exc:
        conn.close()
        raise unusable(path, exc) from None
