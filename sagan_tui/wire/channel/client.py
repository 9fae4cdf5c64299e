"""The panel's end of the channel: it starts the session process, opens it, and asks it things.

Its life: a fresh 0700 runtime directory, the child `python -m sagan_tui.core.session --socket PATH`
started there, its `ready` line awaited (a line, not a time), one connection, then `Open` with
the settings' layers; the answer is the whole panel (ReadyView) or why the panel cannot run
(FailedView). After it, every Update goes to `on_update` in the order sent, its rows whole (the
channel carries a row the panel holds as the cells that changed: wire/channel/rows.py), and `ask`
returns an intent's result as the type that intent declares.

When the connection ends without `close()` (the child died, or was killed), every pending `ask`
raises SessionEnded and `on_ended` is told why in words ("killed by SIGKILL", the child's last
line on stderr, its exit code). `close()` ends the channel, which ends the child; a child that
has not exited within CLOSE_GRACE_S of that is killed, so none outlives the panel.

A child started early (wire/channel/early.py, before Textual is imported) is taken over by the first
client started with the default environment; a restart starts its own.

Runs on the caller's asyncio loop (the App's); imports only the channel and the standard library.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import shutil
import signal
import socket
import subprocess
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Mapping

import msgspec

from sagan_tui.wire.channel import intents as I
from sagan_tui.wire.channel.early import CHILD_PIPES, CLOSE_GRACE_S, child_argv, pre_open_result, take_early, take_watch
from sagan_tui.wire.channel.frames import FrameError, read_frame, write_frame
from sagan_tui.wire.channel.messages import TO_PANEL, Refused, Reply, Request, Update, encode, result_of
from sagan_tui.wire.channel.rows import HeldTables
from sagan_tui.wire.channel.runtime_dir import make_runtime_dir, socket_path
from sagan_tui.wire.channel.views import FailedView, ReadyView, UpdateView

log = logging.getLogger(__name__)
READY_LINE = b"ready"
# The child's stderr lines kept, to name why it ended (it logs to its file, not here).
STDERR_KEPT = 20
# The panel asks every second (a Tick) and a live session answers within a frame, a poll or not
# (polls run beside its channel): a question left this long with not one frame back is a session
# that stopped answering (frozen, swapped out, wedged), not a slow one, and the panel says so.
SILENT_AFTER_S = 10.0


class _Adopted:
    """An early child (a Popen) read as this module reads asyncio.subprocess.Process: pid,
    returncode, wait(), kill(), and its pipes (stdout and stderr as asyncio stream readers)."""

    def __init__(self, popen: subprocess.Popen, stdout: asyncio.StreamReader, stderr: asyncio.StreamReader) -> None:
        self._popen = popen
        self.pid = popen.pid
        self.stdin = popen.stdin
        self.stdout, self.stderr = stdout, stderr
        self._exit: asyncio.Future | None = None

    @classmethod
    async def of(cls, popen: subprocess.Popen) -> "_Adopted":
        loop = asyncio.get_running_loop()
        readers = []
        for pipe in (popen.stdout, popen.stderr):
            reader = asyncio.StreamReader()
            await loop.connect_read_pipe(lambda r=reader: asyncio.StreamReaderProtocol(r), pipe)
            readers.append(reader)
        return cls(popen, *readers)

    @property
    def returncode(self) -> int | None:
        return self._popen.poll()

    def kill(self) -> None:
        self._popen.kill()

    async def wait(self) -> int:
        if self._popen.poll() is not None:
            return self._popen.returncode
        if self._exit is None:
            self._exit = asyncio.ensure_future(self._watch())
        return await asyncio.shield(self._exit)

    async def _watch(self) -> int:
        """Until the child exits: its pidfd turns readable then (Linux); elsewhere, a look every 50 ms."""
        loop = asyncio.get_running_loop()
        try:
            fd: int | None = os.pidfd_open(self.pid)  # type: ignore[attr-defined]
        except (AttributeError, OSError):
            fd = None
        try:
            while self._popen.poll() is None:
                if fd is None:
                    await asyncio.sleep(0.05)
                    continue
                ready = loop.create_future()
                loop.add_reader(fd, lambda: ready.done() or ready.set_result(None))
                try:
                    await ready
                finally:
                    loop.remove_reader(fd)
        finally:
            if fd is not None:
                os.close(fd)
        return self._popen.returncode


class SessionEnded(Exception):
    """The session process ended (or was never started); `reason` says why, in words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class SessionError(Exception):
    """The session answered an intent with an error: a bug of its side, in one line."""


def exit_reason(returncode: int | None, stderr: list[str]) -> str:
    """Why a child ended, in words: the signal that killed it, else its last line, else its code."""
    if returncode is not None and returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    last = next((line for line in reversed(stderr) if line.strip()), "")
    if last:
        return last.strip()[:300]
    return "it exited" if returncode == 0 else f"exit code {returncode}"


class SessionClient:
    def __init__(self, on_update: Callable[[UpdateView], None], on_ended: Callable[[str], None] | None = None, *,
                 env: Mapping[str, str] | None = None, runtime_base: Path | None = None) -> None:
        self.on_update = on_update
        self.on_ended = on_ended
        self.env = dict(os.environ if env is None else env)
        self.runtime_base = runtime_base
        self._may_take_early = env is None and runtime_base is None
        self.runtime: Path | None = None
        self.path: Path | None = None
        self.process: asyncio.subprocess.Process | None = None
        self.ended: str | None = None  # why the session ended, once it has
        self.started = False  # it said `ready` and the panel is connected: an end after this is a death
        self.attached = False  # connected to a `watch`'s session (early.py's attach_or_start_early), not a child
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[I.Intent, asyncio.Future]] = {}
        self._held = HeldTables()  # the rows this connection delivered, for its patches
        self._tasks: list[asyncio.Task] = []
        self._stderr: list[str] = []
        self._closing = False
        self._gone = asyncio.Event()
        self.silent_after_s = SILENT_AFTER_S
        self.heard_at = time.monotonic()  # the last frame read (monotonic): any frame says it is alive
        self._asked_at: dict[int, float] = {}  # when each unanswered request went
        self._pre_open: asyncio.Future | None = None  # the answer to the PreOpen a watch was sent (early.py)

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    # --- start ---------------------------------------------------------------------------

    async def start(self) -> None:
        """The child started (or the early one taken) and connected to; SessionEnded if it ends
        before saying `ready`."""
        watch, answer_due = take_watch() if self._may_take_early else (None, False)
        if watch is not None:
            self.attached = True
            if answer_due:  # the PreOpen's answer (request 0) is read as the Open's
                self._pre_open = asyncio.get_running_loop().create_future()
                self._pending[0] = (I.PreOpen({}, {}), self._pre_open)
            await self.connect(watch)
            return
        early = take_early() if self._may_take_early else None
        if early is not None:
            self.runtime, self.path = early.runtime, early.path
            self.process = await _Adopted.of(early.popen)  # type: ignore[assignment]
        else:
            self.runtime = make_runtime_dir(self.runtime_base)
            self.path = socket_path(self.runtime)
            self.process = await asyncio.create_subprocess_exec(*child_argv(self.path), env=self.env,
                                                                cwd=str(self.runtime), **CHILD_PIPES)
        self._tasks.append(asyncio.ensure_future(self._keep_stderr()))
        while True:
            line = await self.process.stdout.readline()
            if not line:
                await self.process.wait()
                await asyncio.sleep(0)  # the stderr task reads what is left
                raise SessionEnded(exit_reason(self.process.returncode, self._stderr))
            if line.strip() == READY_LINE:
                break
        try:
            self._reader, self._writer = await asyncio.open_unix_connection(str(self.path))
        except OSError:
            # It said `ready` and died before we connected (its line waits in the pipe after it):
            # its end is the reason, as for one that died before the line.
            await self.process.wait()
            raise SessionEnded(exit_reason(self.process.returncode, self._stderr)) from None
        self.started = True
        self._tasks.append(asyncio.ensure_future(self._read()))

    async def connect(self, sock: "socket.socket") -> None:
        """Speak over a socket already connected to a session (a socketpair's end: a session in
        this process, served by its real host); no child is started."""
        self._reader, self._writer = await asyncio.open_unix_connection(sock=sock)
        self.started = True
        self._tasks.append(asyncio.ensure_future(self._read()))

    def opened(self, answer: ReadyView | FailedView) -> ReadyView | FailedView:
        """An Open's answer got without asking (a session opened before this connection): its
        rows held from now on, as an asked one's are."""
        if isinstance(answer, ReadyView):
            return msgspec.structs.replace(answer, first=self._held.receive(answer.first))
        return answer

    async def open(self, values: Mapping[str, Any], accounts: Mapping[str, Mapping[str, Any]],
                   poll: bool = True, clock: "datetime | None" = None,
                   origins: Mapping[str, str] | None = None) -> ReadyView | FailedView:
        """Start the child (if not yet) and open the session on these settings' layers (`clock`:
        a held session clock, for tests). Attached to a watch that was sent a PreOpen (on the
        command's layers, polling, the wall's clock), its answer is this Open's when those are asked."""
        if not self.started and self.process is None:
            await self.start()
        if self._pre_open is not None:
            try:
                pre = await self._pre_open
            except SessionError:  # an answer this version cannot read: the Open asks again
                pre = None
            if pre is not None and poll and clock is None:
                return pre
        return await self.ask(I.Open(dict(values), {k: dict(v) for k, v in accounts.items()}, poll=poll,
                                     clock=clock, origins=dict(origins or {})))

    async def _keep_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        while line := await self.process.stderr.readline():
            self._stderr.append(line.decode("utf-8", "replace").rstrip())
            del self._stderr[:-STDERR_KEPT]

    # --- asking --------------------------------------------------------------------------

    def request(self, intent: I.Intent) -> "asyncio.Future[Any]":
        """Send `intent`; the future is its typed result (SessionEnded / SessionError otherwise)."""
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        if self.ended is not None or self._writer is None or self._writer.is_closing():
            future.set_exception(SessionEnded(self.ended or "the session is not running"))
            return future
        request_id = next(self._ids)
        self._pending[request_id] = (intent, future)
        self._asked_at[request_id] = time.monotonic()
        write_frame(self._writer, encode(Request(request_id, intent)))
        return future

    async def ask(self, intent: I.Intent) -> Any:
        return await self.request(intent)

    def tell(self, intent: I.Intent) -> None:
        """Send an intent whose answer only says it started (its effect comes as updates)."""
        future = self.request(intent)
        future.add_done_callback(_log_failure)

    # --- what the session sends ----------------------------------------------------------

    async def _read(self) -> None:
        why = None
        try:
            while (frame := await read_frame(self._reader)) is not None:
                self.heard_at = time.monotonic()
                message = TO_PANEL.decode(frame)
                if isinstance(message, Update):
                    self.on_update(self._held.receive(message.update))
                elif isinstance(message, Reply):
                    self._answered(message)
                elif isinstance(message, Refused):
                    why = f"the session refused the panel: {message.reason}"
                    break
        except (FrameError, ConnectionError):
            pass  # the child died mid-frame: its exit says why
        except Exception as exc:  # noqa: BLE001 - a message we cannot read: the channel is not usable
            log.exception("reading the channel failed")
            why = f"the channel sent what the panel cannot read: {type(exc).__name__}: {exc}"
        await self._lost(why)

    def silent_since(self, now: float | None = None) -> float | None:
        """When (monotonic) the session was last heard, if it has since left a question unanswered
        past `silent_after_s` with not one frame back; None while it answers (or was not asked)."""
        now = time.monotonic() if now is None else now
        waiting = min((t for t in self._asked_at.values() if t >= self.heard_at), default=None)
        if self.ended is None and waiting is not None and now - waiting > self.silent_after_s:
            return self.heard_at
        return None

    def _answered(self, message: Reply) -> None:
        self._asked_at.pop(message.id, None)
        intent, future = self._pending.pop(message.id, (None, None))
        if future is None:
            return
        if message.error is not None:
            if not future.done():
                future.set_exception(SessionError(message.error))
            return
        try:
            raw = message.result
            result = pre_open_result(raw) if isinstance(intent, I.PreOpen) else result_of(intent, raw)
        except Exception as exc:  # noqa: BLE001 - a wrongly typed answer is the session's bug, said
            if not future.done():
                future.set_exception(SessionError(f"the answer to {type(intent).__name__} is not its type: {exc}"))
            return
        if isinstance(result, ReadyView):  # the whole panel: the rows held start from it (asked or not)
            result = msgspec.structs.replace(result, first=self._held.receive(result.first))
        if not future.done():
            future.set_result(result)

    async def _lost(self, why: str | None) -> None:
        if self._writer is not None:
            self._writer.close()
        if why is None and self.process is not None:
            # The connection ended: the child is ending (or dead). Its exit names the reason.
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.process.wait(), CLOSE_GRACE_S)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._tasks[0]), 1.0)  # its last stderr lines
            why = exit_reason(self.process.returncode, self._stderr)
        if why is None and self.attached:
            why = "the watch this panel was attached to stopped"
        self.ended = why or "the channel closed"
        for _intent, future in self._pending.values():
            if not future.done():
                future.set_exception(SessionEnded(self.ended))
        self._pending.clear()
        self._asked_at.clear()
        self._gone.set()
        if not self._closing and self.on_ended is not None:
            self.on_ended(self.ended)

    # --- the end -------------------------------------------------------------------------

    async def close(self) -> None:
        """End the channel (the child ends with it), wait for the child, remove the runtime dir."""
        self._closing = True
        if self._writer is not None and not self._writer.is_closing():
            self._writer.close()
        if self.process is not None and self.process.stdin is not None:
            self.process.stdin.close()
        if self.process is not None and self.process.returncode is None:
            try:
                await asyncio.wait_for(self.process.wait(), CLOSE_GRACE_S)
            except asyncio.TimeoutError:
                log.warning("the session process did not end with its channel: killed")
                with contextlib.suppress(ProcessLookupError):
                    self.process.kill()
                await self.process.wait()
        for task in self._tasks:
            if not task.done():
                task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.runtime is not None:
            shutil.rmtree(self.runtime, ignore_errors=True)


def _log_failure(future: "asyncio.Future[Any]") -> None:
    if not future.cancelled() and (exc := future.exception()) is not None and not isinstance(exc, SessionEnded):
        log.warning("the session could not do it: %s", exc)
