"""A writer waits its turn behind another process's write lock, however long the hold (the
cache retries a locked `begin immediate`), and gives up at once when the cache is closed.

The other writer is a second connection on the same file: SQLite's lock is per file, so it
stands for another process. The busy timeout is shortened on the cache's own connection so
that every try fails fast and the retry loop, not SQLite's wait, is what is tested.
"""

from __future__ import annotations

import logging
import sqlite3
import threading

import pytest

from sagan_tui.core.store.cache import Cache


class _Tries(logging.Handler):
    """Counts the cache's "waiting for it" warnings: each is one refused try."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0
        self.seen = threading.Condition()

    def emit(self, record: logging.LogRecord) -> None:
        if "holds the write lock" in record.getMessage():
            with self.seen:
                self.count += 1
                self.seen.notify_all()

    def until_seen(self, n: int) -> None:
        with self.seen:
            assert self.seen.wait_for(lambda: self.count >= n, timeout=60), f"{self.count} tries seen"


@pytest.fixture
def tries():
    handler = _Tries()
    logger = logging.getLogger("sagan_tui.core.store.cache")
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING)
    yield handler
    logger.removeHandler(handler)


def _write(cache: Cache, out: dict) -> None:
    try:
        with cache.transaction() as conn:
            conn.execute("create table if not exists waited (n integer)")
            conn.execute("insert into waited values (1)")
        out["ok"] = True
    except sqlite3.Error as exc:
        out["error"] = str(exc)


def _holder(path) -> sqlite3.Connection:
    other = sqlite3.connect(path, isolation_level=None, timeout=0)
    other.execute("begin immediate")
    return other


def _blocked_writer(tmp_path):
    """A cache with a short busy timeout, another connection holding the write lock, and a
    thread writing through the cache (its outcome lands in `out`)."""
    cache = Cache(tmp_path / "c.sqlite")
    cache.db.conn.execute("pragma busy_timeout = 20")
    other = _holder(cache.path)
    out: dict = {}
    writer = threading.Thread(target=_write, args=(cache, out))
    writer.start()
    return cache, other, out, writer


def test_a_write_waits_out_a_lock_held_past_the_busy_timeout(tmp_path, tries):
    cache, other, out, writer = _blocked_writer(tmp_path)
    tries.until_seen(3)  # refused three times: one busy timeout would have failed it
    assert out == {}
    other.execute("commit")
    writer.join(60)
    assert out == {"ok": True}
    assert cache.db.conn.execute("select count(*) from waited").fetchone()[0] == 1
    other.close()
    cache.close()


def test_closing_the_cache_ends_a_write_waiting_for_the_lock(tmp_path, tries):
    cache, other, out, writer = _blocked_writer(tmp_path)
    tries.until_seen(1)
    closer = threading.Thread(target=cache.close)
    closer.start()
    writer.join(60)
    closer.join(60)
    assert not writer.is_alive() and not closer.is_alive()
    assert "locked" in out.get("error", "") or "busy" in out.get("error", ""), out
    other.execute("rollback")
    other.close()
