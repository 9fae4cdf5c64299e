"""The session in the caller's own process, served by its real host over a socketpair: the
transport of tests that hand the panel a cache, a poller and a clock (the panel itself runs its
session as a child process: panel/remote.py).

What runs is the session process's own code: the PanelSession on the caller's loop, its
SessionHost (core/session/serve.py) answering each intent and sending each update over one end of a
socketpair, and the panel's SessionClient (wire/channel/client.py) reading the other end. Only the
second process is missing, so a test of a screen meets the frames, shapes and order the panel
meets. The session is opened before the App's loop runs (`open_now`: the panel is whole from its
first frame); `start` connects the two ends and starts it serving on the running loop.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable

from sagan_tui.wire.basics import utcnow
from sagan_tui.wire.channel import intents as I
from sagan_tui.wire.channel.client import SessionClient, SessionEnded
from sagan_tui.wire.channel.messages import reply, result_of
from sagan_tui.wire.channel.surface import SessionSurface
from sagan_tui.wire.channel.views import FailedView, ReadyView, UpdateView
from sagan_tui.core.session.core import PanelSession
from sagan_tui.core.session.serve import SessionHost

if TYPE_CHECKING:
    from sagan_tui.core.config_model import Settings
    from sagan_tui.core.store.cache import Cache
    from sagan_tui.core.sync.poller import Poller

log = logging.getLogger(__name__)


class InProcessSession(SessionSurface):
    """A SessionHost and its PanelSession (`core`) in this process, spoken to over a socketpair."""

    pid = None  # no session process
    restarts = 0

    def __init__(self, settings: "Settings", cache: "Cache", poller: "Poller | None" = None, *,
                 clock: Callable[[], datetime] = utcnow, poll: bool = True) -> None:
        self.host = SessionHost()
        self.core = PanelSession(settings, self.host.publish, cache=cache, poller=poller, clock=clock, poll=poll)
        self.client: SessionClient | None = None
        self._connected: asyncio.Future | None = None
        self._later: list[I.Intent] = []  # told before the connection was up

    def open_now(self, on_update: Callable[[UpdateView], None]) -> ReadyView | FailedView:
        """Open the cache and read the whole panel on the caller's thread, before the app's loop
        runs (the panel is whole from its first frame); each later update goes to `on_update`,
        on the loop, as the channel delivers it."""
        answer = self.host.open_here(self.core)
        self.client = SessionClient(on_update)
        # As the socket carries the Open's answer: checked, encoded, decoded.
        return self.client.opened(result_of(I.Open({}, {}), reply(0, I.Open({}, {}), answer).result))

    def start(self) -> None:
        """Connect the panel's end to the host's and start the session serving (on the running loop)."""
        self._connected = asyncio.ensure_future(self._connect())

    async def _connect(self) -> None:
        assert self.client is not None, "open_now comes first"
        ours, theirs = socket.socketpair()
        await self.host.server.attach(theirs)
        await self.client.connect(ours)
        self.host.start_here()

    async def close(self) -> None:
        if self._connected is not None:
            await asyncio.gather(self._connected, return_exceptions=True)
        if self.client is not None:
            await self.client.close()
        await self.host.close()

    # --- intents, over the socket ------------------------------------------------------

    def _tell(self, intent: I.Intent) -> None:
        if self._connected is not None and self._connected.done() and not self._later:
            self.client.tell(intent)  # type: ignore[union-attr]
            return
        # Before the connection is up: sent once it is, in the order told.
        self._later.append(intent)
        if len(self._later) == 1:
            asyncio.ensure_future(self._tell_later())

    async def _tell_later(self) -> None:
        try:
            await self._up()
        except SessionEnded as exc:
            log.warning("the session could not do it: %s", exc)
            self._later.clear()
            return
        while self._later:
            self.client.tell(self._later.pop(0))  # type: ignore[union-attr]

    async def _ask(self, intent: I.Intent) -> Any:
        await self._up()
        return await self.client.ask(intent)  # type: ignore[union-attr]

    async def _up(self) -> None:
        if self._connected is None:
            raise SessionEnded("the session is not started")
        await asyncio.shield(self._connected)
