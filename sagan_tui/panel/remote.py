"""The session in its own process, as the App sees it: PanelSession's methods over the channel.

The `sagan-tui` panel always runs its session so. Tests that hold a cache hand the App a session
in their own process instead (core/session/loopback.py), with the same surface (wire/channel/surface.py)
and the same view data. Rules: updates and answers are the channel's view Structs
(sagan_tui/wire/channel/views.py); nothing here imports the session's internals. The child's death (kill -9, a crash) is said on screen at once
("session process ended: <reason>; restarting"), a new child is started, and its whole panel
replaces every pane by key (the cache holds what the dead one had written). A child that fails
to start ends the panel with its reason, and so does one that dies RESTARTS_IN_A_ROW times without
opening once (a crash loop is not hidden behind restarts). `close()` ends the channel, which
ends the child.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Awaitable

import msgspec

from sagan_tui.wire.channel import intents as I
from sagan_tui.wire.channel.client import SessionClient, SessionEnded
from sagan_tui.wire.channel.early import layer_origins, open_layers, take_watch
from sagan_tui.wire.channel.surface import SessionSurface
from sagan_tui.wire.channel.views import FailedView, ReadyView, UpdateView
from sagan_tui.panel.messages import Loaded, LoadFailed, Updated
from sagan_tui.panel.panel_settings import PanelSettings

if TYPE_CHECKING:
    from datetime import datetime

    from sagan_tui.wire.config import Draft
    from sagan_tui.panel.host import PanelHost

RESTARTS_IN_A_ROW = 3


def ready_for_panel(answer: ReadyView | FailedView) -> Loaded | LoadFailed:
    """The Open's answer as the App's message: the whole panel, its settings the UI's own copy."""
    if isinstance(answer, ReadyView):
        return Loaded(msgspec.structs.replace(answer, settings=PanelSettings.of(answer.settings)))
    return LoadFailed(answer)


class RemoteSession(SessionSurface):
    def __init__(self, app: "PanelHost", draft: "Draft", *, poll: bool = True,
                 clock: "datetime | None" = None, pre_opened: ReadyView | FailedView | None = None) -> None:
        """`pre_opened`: the answer of the watch this panel attached to, read for its first frame
        (wire/channel/early.py's pre_opened): the session is that watch's, already open; `start`
        takes over its connection (no Open is sent)."""
        self.app = app
        # Settings a caller validated itself (a test, an embedding) go as layers again: the child validates.
        self.draft = draft if hasattr(draft, "values") else draft.as_draft()  # type: ignore[attr-defined]
        self.poll = poll
        self.clock = clock  # a held session clock (tests)
        self.client: SessionClient | None = None
        self.restarts = 0
        self.opened = 0  # whole panels applied (the first, then one per restart)
        self.ended: list[str] = []  # why each child ended, in order
        self._closing = False
        self._tasks: set[asyncio.Task] = set()
        self._early: list[UpdateView] | None = None  # updates read before the Open's answer was handled
        self._deaths = 0  # children that died since the last whole panel
        self._later: list[I.Intent] | None = None  # told before the pre-opened connection was taken over
        self._taken: asyncio.Event | None = None
        self.pre_opened: ReadyView | FailedView | None = None
        if pre_opened is not None:
            client = self.client = SessionClient(self._update, self._ended)
            client.attached = True
            self.pre_opened = client.opened(pre_opened)  # its rows held from now on
            self.opened = int(isinstance(pre_opened, ReadyView))
            self._later, self._taken = [], asyncio.Event()

    @property
    def pid(self) -> int | None:
        return self.client.pid if self.client is not None else None

    @property
    def attached(self) -> bool:
        """The session is a running `watch`'s (wire/channel/early.py): its polls are the watch's."""
        return self.client is not None and self.client.attached and self.client.ended is None

    # --- life ------------------------------------------------------------------------------

    def start(self) -> None:
        self._spawn(self._open() if self._taken is None else self._take_over())

    async def _take_over(self) -> None:
        """The pre-opened connection to the watch, read from here on; what was told meanwhile, sent."""
        assert self.client is not None and self._taken is not None
        sock, _ = take_watch()
        later, self._later = self._later or [], None
        if sock is None:  # dropped when its answer was read: nothing more will come on it
            self._ended("the watch's connection was lost")
        else:
            await self.client.connect(sock)
            for intent in later:
                self.client.tell(intent)
        self._taken.set()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _open(self) -> None:
        self._early = []
        client = self.client = SessionClient(self._update, self._ended)
        values, accounts = open_layers(self.draft)
        try:
            answer = await client.open(values, accounts, poll=self.poll, clock=self.clock,
                                       origins=layer_origins(self.draft))
        except SessionEnded as exc:
            if client.started:
                return  # it died while opening: _ended (told by the channel's end) restarts it
            code = client.process.returncode if client.process is not None else None
            if code is not None and code < 0 and not self._closing:
                self._ended(exc.reason)  # killed before it was ready: a death too, not a failure to start
                return
            answer = FailedView(f"sagan-tui: the session process did not start: {exc.reason}")
        if self._closing:
            return
        early, self._early = self._early, None
        opened = ready_for_panel(answer)
        if isinstance(opened, Loaded):
            first = self.opened == 0
            self.opened += 1
            self._deaths = 0
            # The first answer opens the panel; a restart's repaints every pane by key, under the
            # settings the new session validated (a watch's poll interval was the last one's).
            if not first:
                self.app.settings = opened.ready.settings
            self.app.post_message(opened if first else Updated(opened.ready.first))
            for u in early:
                self.app.post_message(Updated(u))
        else:
            self.app.post_message(opened)

    def _update(self, u: UpdateView) -> None:
        if self._early is not None:
            self._early.append(u)
        else:
            self.app.post_message(Updated(u))

    def _ended(self, why: str) -> None:
        if self._closing:
            return
        self.ended.append(why)
        self._deaths += 1
        if self._deaths >= RESTARTS_IN_A_ROW:
            self.app.post_message(LoadFailed(FailedView(
                f"sagan-tui: the session process ended {self._deaths} times in a row without opening: {why}")))
            return
        self.restarts += 1
        old = self.client
        if old is not None and old.attached:
            # Not a death of ours: the watch stopped (or was killed). This panel polls on its own now.
            self._deaths = 0
            self.app.notify("this panel polls on its own now (its own session)", title="Watch stopped",
                            severity="warning", timeout=30, markup=False)
        else:
            self.app.notify(f"session process ended: {why}; restarting", title="Session", severity="error",
                            timeout=15, markup=False)
        self._spawn(self._restart(old))

    async def _restart(self, old: SessionClient | None) -> None:
        if old is not None:
            await old.close()
        if not self._closing:
            await self._open()

    def close(self) -> Awaitable[None] | None:
        """End the channel (the child ends with it); awaitable, for a caller whose loop still runs."""
        self._closing = True
        for task in self._tasks:
            task.cancel()
        return self.client.close() if self.client is not None else None

    def not_answering_since(self) -> float | None:
        client = self.client
        return client.silent_since() if client is not None else None

    # --- asking ---------------------------------------------------------------------------

    def _tell(self, intent: I.Intent) -> None:
        if self._later is not None:
            self._later.append(intent)
        elif self.client is not None and self.client.ended is None:
            self.client.tell(intent)

    async def _ask(self, intent: I.Intent) -> Any:
        if self._taken is not None:
            await self._taken.wait()
        if self.client is None:
            raise SessionEnded("the session is not running")
        return await self.client.ask(intent)

