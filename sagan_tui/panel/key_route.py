"""Each event the App reads, before Textual dispatches it: a key paces the updates and marks the owner's presence; keys meet a dialog being opened."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Awaitable, Callable

from textual import events

from sagan_tui.panel.key_hold import Ended

KEY_NOTED_EVERY = timedelta(seconds=15)  # keys closer than this tell the session nothing new


class KeyRoute:
    """`dispatch` is Textual's own handling of an event (App.on_event); this decides whether and when."""

    def __init__(self, app: Any, dispatch: Callable[[events.Event], Awaitable[None]]) -> None:
        self.app = app
        self.dispatch = dispatch
        self.key_noted: datetime | None = None  # when the session was last told of a key (its clock)

    async def event(self, event: events.Event) -> None:
        app = self.app
        if isinstance(event, events.Key) and (pacing := app.updates.pacing) is not None:
            pacing.key()
            # For "since you last looked": the session needs the owner's presence, not every key;
            # timed on the session's clock, which an absence is measured on (a held one in a replay).
            now = app.clock()
            if app.session is not None and (self.key_noted is None or now - self.key_noted > KEY_NOTED_EVERY):
                self.key_noted = now
                app.session.key_pressed(app.held_at())
        if app.key_hold.take(event):  # a dialog is opening: panel/key_hold.py
            return
        if isinstance(event, Ended):
            for key in app.key_hold.end(event.opening, event.opened):
                await self.dispatch(key)
            return
        back = isinstance(event, events.Key) and event.is_forwarded  # (forwarding marks the event itself)
        await self.dispatch(event)
        if back and (pacing := app.updates.pacing) is not None and pacing.held:
            # The key is back from the focused widget (its bindings have run, the App's just did):
            # the held updates go once the screen has drawn what the key changed.
            app.call_after_refresh(app.updates.release)
