"""The session's end of the channel: a Unix socket server that answers intents and sends updates.

Rules: a peer of another uid is refused (SO_PEERCRED, runtime_dir.py); a peer that sends what is
not a frame of Requests (garbage, a length over the bound, a wrong type) is told why in a Refused
message and closed, and the server goes on. The first connection whose first message is a valid
Request is the panel: updates go to it, and when it closes `closed` is set (the session ends).
"""

from __future__ import annotations

import asyncio
import logging
import socket
from pathlib import Path
from typing import Any, Awaitable, Callable

import msgspec

from sagan_tui.wire.channel.frames import FrameError, read_frame, write_frame
from sagan_tui.wire.channel.intents import Intent
from sagan_tui.wire.channel.messages import TO_SESSION, Refused, Reply, encode, reply
from sagan_tui.wire.channel.runtime_dir import ChannelRefused, check_peer, listen

log = logging.getLogger(__name__)
Handler = Callable[[Intent], Awaitable[Any]]


def _one_line(text: str, limit: int = 500) -> str:
    return " ".join(str(text).split())[:limit]


class ChannelServer:
    def __init__(self, path: Path | None, handle: Handler, *, allowed_uid: int | None = None) -> None:
        self.path = path
        self.handle = handle
        self.allowed_uid = allowed_uid
        self.closed = asyncio.Event()  # the panel's connection ended
        self.refused: list[str] = []  # why each refused peer was refused (for the log and tests)
        self._panel: asyncio.StreamWriter | None = None
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task] = set()

    async def start(self, sock: socket.socket | None = None) -> None:
        self._server = await asyncio.start_unix_server(self._connected, sock=sock or listen(self.path))

    async def attach(self, sock: socket.socket) -> None:
        """Serve one socket already connected (a socketpair's end: the panel in this process) as
        the panel's connection."""
        reader, writer = await asyncio.open_unix_connection(sock=sock)
        self._panel = writer  # the panel's end, from the start: updates may come before its first Request
        task = asyncio.ensure_future(self._connected(reader, writer))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def aclose(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        if self._panel is not None:
            self._panel.close()

    # --- updates ---------------------------------------------------------------------------

    def send_frame(self, frame: bytes) -> None:
        """An encoded message to the panel (dropped when none is attached)."""
        if self._panel is not None and not self._panel.is_closing():
            write_frame(self._panel, frame)

    # --- one connection ---------------------------------------------------------------------

    async def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            check_peer(writer.get_extra_info("socket"), self.allowed_uid)
        except ChannelRefused as exc:
            self._refuse(writer, str(exc))
            return
        try:
            await self._serve(reader, writer)
        except (FrameError, msgspec.DecodeError, msgspec.ValidationError) as exc:
            self._refuse(writer, f"not a message of this channel: {_one_line(str(exc))}")
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            if writer is self._panel:
                self._panel = None
                self.closed.set()
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while (frame := await read_frame(reader)) is not None:
            request = TO_SESSION.decode(frame)
            if self._panel is None and not self.closed.is_set():
                self._panel = writer  # the first peer that speaks the channel is the panel
            task = asyncio.ensure_future(self._answer(writer, request.id, request.intent))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _answer(self, writer: asyncio.StreamWriter, request_id: int, intent: Intent) -> None:
        try:
            message = reply(request_id, intent, await self.handle(intent))
        except Exception as exc:  # noqa: BLE001 - a bug of ours: answered, logged, the session goes on
            log.exception("answering %s failed", type(intent).__name__)
            message = Reply(request_id, error=_one_line(f"{type(exc).__name__}: {exc}"))
        if not writer.is_closing():
            write_frame(writer, encode(message))

    def _refuse(self, writer: asyncio.StreamWriter, reason: str) -> None:
        self.refused.append(reason)
        log.warning("channel: refused a peer: %s", reason)
        if not writer.is_closing():
            write_frame(writer, encode(Refused(reason)))
            writer.close()
