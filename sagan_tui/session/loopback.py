"""The session in the caller's own process, spoken to as over the channel: the transport of tests
that hand the panel a cache, a poller and a clock (the panel itself runs its session as a child
process: ui/remote.py).

Rule: what reaches the UI is exactly what the socket would carry. Every update and the whole
panel are made into view data by the session process's own code (session/views.py, with this
connection's SentTables), encoded and decoded as the channel's frames, and made whole by the
client's HeldTables; every intent is encoded and decoded, answered by the session process's own
handlers (session/answers.py), and its answer checked and decoded as its intent's declared type.
Only the socket and the second process are missing, so a test of a screen meets the shapes the
panel meets. An intent whose answer fails raises SessionError with the one line the session
process would have sent.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable

import msgspec

from sagan_tui.basics import utcnow
from sagan_tui.channel import intents as I
from sagan_tui.channel.client import SessionError
from sagan_tui.channel.messages import TO_PANEL, TO_SESSION, Request, Update, encode, reply, result_of
from sagan_tui.channel.rows import HeldTables, SentTables
from sagan_tui.channel.surface import SessionSurface
from sagan_tui.channel.views import FailedView, ReadyView, UpdateView
from sagan_tui.session import views as V
from sagan_tui.session.answers import HANDLERS
from sagan_tui.session.core import PanelSession
from sagan_tui.session.updates import PanelUpdate

if TYPE_CHECKING:
    from sagan_tui.config_model import Settings
    from sagan_tui.store.cache import Cache
    from sagan_tui.sync.poller import Poller

log = logging.getLogger(__name__)


class InProcessSession(SessionSurface):
    """A PanelSession (`core`) behind the channel's types, in this process."""

    pid = None  # no session process
    restarts = 0

    def __init__(self, settings: "Settings", cache: "Cache", poller: "Poller | None" = None, *,
                 clock: Callable[[], datetime] = utcnow, poll: bool = True) -> None:
        self.core = PanelSession(settings, self._publish, cache=cache, poller=poller, clock=clock, poll=poll)
        self._sent = SentTables()
        self._held = HeldTables()
        # Views are made, and handed on, in the order the session publishes (from its threads).
        self._lock = threading.Lock()
        self._on_update: Callable[[UpdateView], None] | None = None
        self._tasks: set[asyncio.Task] = set()

    def open_now(self, on_update: Callable[[UpdateView], None]) -> ReadyView | FailedView:
        """Open the cache and read the whole panel on the caller's thread, before the app's loop
        runs (the panel is whole from its first frame); each later update goes to `on_update`,
        from the session's threads."""
        ready = self.core.open_now()
        with self._lock:
            self._on_update = on_update
            answer = _through(I.Open({}, {}), V.ready_view(ready, self._sent))
            return msgspec.structs.replace(answer, first=self._held.receive(answer.first))

    def start(self) -> None:
        self.core.start()

    def close(self) -> None:
        self.core.close()

    def _publish(self, update: object) -> None:
        if not isinstance(update, PanelUpdate):
            # A session opened by open_now publishes no SessionReady; a failure of its loop is logged there.
            log.warning("the in-process session published %s", type(update).__name__)
            return
        with self._lock:
            for part in V.update_views(update, self._sent):
                view = self._held.receive(TO_PANEL.decode(encode(Update(part))).update)  # type: ignore[union-attr]
                if self._on_update is not None:
                    self._on_update(view)

    # --- intents, as the socket carries them --------------------------------------------

    def _tell(self, intent: I.Intent) -> None:
        task = asyncio.ensure_future(self._ask(intent))
        self._tasks.add(task)
        task.add_done_callback(self._told)

    def _told(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.warning("the session could not do it: %s", exc)

    async def _ask(self, intent: I.Intent) -> Any:
        sent = TO_SESSION.decode(encode(Request(0, intent))).intent
        try:
            result = await HANDLERS[type(sent)](self.core, sent)
            raw = reply(0, sent, result).result
        except Exception as exc:  # noqa: BLE001 - as session/serve.py answers it: one line
            raise SessionError(f"{type(exc).__name__}: {exc}".splitlines()[0]) from exc
        return result_of(sent, raw)


def _through(intent: I.Intent, value: Any) -> Any:
    """`value` as `intent`'s answer crosses the channel: checked, encoded, decoded."""
    return result_of(intent, reply(0, intent, value).result)
