"""`watch`'s door for panels: the session channel on one socket per cache, a session per panel
that attaches, all of them fed by the watch's one set of polls.

Rules: the socket is `wire/channel/runtime_dir.py`'s `watch_socket(cache)` (a 0700 directory of
ours, the socket 0600, every peer's uid checked), so a panel started on the same cache finds it.
One watch per cache: a lock file in that directory is held for the watch's life, and a second
watch on the cache is refused at start (two would page twice). Each panel that connects gets its
own `SessionHost` and `PanelSession` (its scopes, follows and clock are its own) that never polls a
source: after each of the watch's polls every attached session reads what the poll wrote (as
another writer's commits), so N panels add no source request; a panel's refresh (a key, an
action landed) asks the watch to poll now. When the watch stops, each connection ends; the panels
say so and start sessions of their own (panel/remote.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import socket
from pathlib import Path
from typing import Any, Callable

from sagan_tui.core.session.serve import SessionHost
from sagan_tui.wire.channel.runtime_dir import listen, make_watch_dir, socket_path, watch_socket_name, watch_sockets

log = logging.getLogger(__name__)
LOCK_NAME = "watch.lock"


class WatchRunning(Exception):
    """Another watch holds this cache's lock: the text says so (never a secret: a path)."""


class WatchHub:
    def __init__(self, cache_path: Path, poll_now: Callable[[], None], poll_interval: float,
                 say: Callable[[str], None], *, base: Path | None = None) -> None:
        self.cache_path = cache_path
        self.poll_now = poll_now
        self.poll_interval = poll_interval
        self.say = say
        self.base = base
        self.path: Path | None = None
        self.hosts: set[SessionHost] = set()
        self._lock: int | None = None
        self._listening: socket.socket | None = None
        self._tasks: set[asyncio.Task] = set()

    # --- life ------------------------------------------------------------------------------

    def open(self) -> None:
        """Take the cache's lock and listen (WatchRunning when another watch has it; the runtime
        directory's ChannelRefused when it is not safe)."""
        where = make_watch_dir(self.cache_path, self.base)
        fd = os.open(where / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise WatchRunning(f"another sagan-tui watch is watching {self.cache_path} (its lock: {where / LOCK_NAME})"
                               ) from None
        self._lock = fd
        self.path = socket_path(where, watch_socket_name())
        # Sockets watches that died left (of any version): the lock says none runs.
        for left in watch_sockets(where):
            with contextlib.suppress(FileNotFoundError):
                (where / left).unlink()
        self._listening = listen(self.path)
        self._listening.setblocking(False)
        self._spawn(self._accept())

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        """Stop listening, end every attached panel's session (their panels start their own)."""
        if self._listening is not None:
            with contextlib.suppress(FileNotFoundError):
                if self.path is not None:
                    self.path.unlink()
            self._listening.close()
            self._listening = None
        for task in list(self._tasks):
            task.cancel()
        # Each panel's task closes its host as it ends (_serve).
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._lock is not None:
            # Removed while still locked: a watch starting now either holds the file first or
            # makes a fresh one; the directory goes with it when nothing else is in it.
            where = self.path.parent if self.path is not None else None
            if where is not None:
                with contextlib.suppress(OSError):
                    (where / LOCK_NAME).unlink()
                with contextlib.suppress(OSError):
                    where.rmdir()
            os.close(self._lock)
            self._lock = None

    # --- panels ----------------------------------------------------------------------------

    async def _accept(self) -> None:
        loop = asyncio.get_running_loop()
        while self._listening is not None:
            try:
                conn, _ = await loop.sock_accept(self._listening)
            except OSError:
                if self._listening is None:
                    return
                log.exception("accepting a panel failed")
                await asyncio.sleep(0.5)  # a full descriptor table: try again, never spin
                continue
            self._spawn(self._serve(conn))

    async def _serve(self, conn: socket.socket) -> None:
        host = SessionHost(polls_by=self.poll_now, overrides={"poll_interval": self.poll_interval})
        self.hosts.add(host)
        try:
            await host.server.attach(conn)
            opened = asyncio.ensure_future(host.answered())
            closed = asyncio.ensure_future(host.server.closed.wait())
            await asyncio.wait({opened, closed}, return_when=asyncio.FIRST_COMPLETED)
            if opened.done() and host.session is not None:
                self.say(f"panel attached ({len(self.attached())} attached)")
            await closed
            opened.cancel()
        finally:
            self.hosts.discard(host)
            await host.close()
        if host.session is not None:
            self.say(f"panel detached ({len(self.attached())} attached)")

    def attached(self) -> list[Any]:
        """The sessions open for attached panels (a connection that never opened one is not a panel)."""
        return [h.session for h in self.hosts if h.session is not None and h.session.model is not None]

    async def after_poll(self) -> None:
        """The watch's poll is written: every attached session reads it now, not at its next look."""
        sessions = self.attached()
        if sessions:
            await asyncio.gather(*(s.look_now() for s in sessions), return_exceptions=True)
