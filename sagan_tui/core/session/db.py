"""SQLiteWorker: the session's one thread for SQLite, and the wait for another process's write lock on the loop.

Every cache read and write of the session runs in this one thread, so they never interleave.
A write that finds another process holding the write lock (a `sync`, a second panel, a backup)
does not wait for it in that thread: its first `begin immediate` is tried once without waiting
(core/store/cache.py's `first_try`), and the call is run again after a short sleep on the loop, so the
reads queued meanwhile (the audit log, a detail) go first. Nothing is written before that first
begin, so a call run again repeats nothing; a second transaction of the same call waits in the
thread as before (it holds what the first committed in hand).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

log = logging.getLogger(__name__)
# Between two tries of a write while another process holds the lock: the loop and the reads go on.
RETRY_S = 0.05


class SQLiteWorker:
    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="sagan-db")

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """`fn(*args)` in the SQLite thread; a write locked by another process is tried again until
        LOCKED_WAIT_S, each wait on the loop."""
        from sagan_tui.core.store.cache import LOCKED_WAIT_S, WriteLocked, first_try  # not before the process is ready

        loop = asyncio.get_running_loop()
        deadline: float | None = None
        while True:
            try:
                return await loop.run_in_executor(self._pool, first_try, fn, args)
            except WriteLocked as exc:
                if deadline is None:
                    deadline = time.monotonic() + LOCKED_WAIT_S
                    log.warning("%s; waiting for it", exc)
                elif time.monotonic() > deadline:
                    raise sqlite3.OperationalError("database is locked") from None
                await asyncio.sleep(RETRY_S)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True)
