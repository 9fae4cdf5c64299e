"""How the panel starts: the first frame from the cache's read-only peek (or a session opened in-process), then the session, then the whole panel."""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any

from sagan_tui.wire.basics import utcnow
from sagan_tui.panel import collection_hold
from sagan_tui.panel.keys import apply_keymap
from sagan_tui.panel.resources import read_layouts
from sagan_tui.panel.safe_text import one_line
from sagan_tui.panel.status_line import STATUS_TICK_S

if TYPE_CHECKING:
    from sagan_tui.wire.channel.views import FailedView, ReadyView
    from sagan_tui.panel.messages import Loaded, LoadFailed


class PanelStart:
    """The App's start, in order: `opened` (a session handed in, opened before the loop), the
    panes mounted, the first rows painted, the session started, its whole panel `loaded`."""

    def __init__(self, app: Any, session: Any) -> None:
        self.app = app
        self.first_paint_s: float | None = None
        self.opened: ReadyView | FailedView | None = None
        self.attaching = False  # a watch's connection is held: its answer may be the first frame
        if session is not None:  # read here, before the app's loop runs: whole from the first frame
            from sagan_tui.panel.messages import Updated

            self.opened = session.open_now(lambda u: app.post_message(Updated(u)))
        elif app.poll and app.clock is utcnow:
            from sagan_tui.wire.channel.early import attaching

            self.attaching = attaching()
            if self.attaching:
                # Until the watch's answer is applied (at the first frame, or after the peek's when it
                # was not in time) the poll interval is not ours to say, nor is a row stale by ours.
                app.status_line.first_interval = math.inf

    def _watch_first(self) -> bool:
        """Attached to a watch (wire/channel/early.py): its answer to the PreOpen, in the socket by
        now (it came while Textual was imported and the screen composed), is the first frame: the
        watch's settings, health, wave and top rows, not the cache's peek. The three other panes
        mount after it, as in the peek's start. False when it has not come: the peek draws the
        first frame and the answer the next."""
        from sagan_tui.wire.channel.early import pre_opened

        answer = pre_opened()
        if answer is None:
            return False
        from sagan_tui.panel.messages import Loaded
        from sagan_tui.panel.remote import RemoteSession, ready_for_panel

        app = self.app
        app.session = RemoteSession(app, app.settings, poll=app.poll, pre_opened=answer)
        opened = ready_for_panel(app.session.pre_opened)
        if not isinstance(opened, Loaded):
            self.load_failed(opened)
            return True
        ready = opened.ready
        app.settings = ready.settings
        app.view.apply(ready.first)  # the status line's health, wave and paging
        app.main_screen.show_first(ready.first.experiments, ready.first.pods)
        app.status_line.first_interval, app.status_line.first_view = None, True
        app.status_line.tick(tick=False)
        app.call_after_refresh(self._after_watch_first, opened)
        return True

    async def _after_watch_first(self, opened: Loaded) -> None:
        await self.app.main_screen.mount_later_panes()
        self.loaded(opened)
        self.app.session.start()

    def panes_mounted(self) -> None:
        """The MainScreen's panes are in place: paint them from the session opened before the loop,
        or (the `sagan-tui` start) from the first frame's thin read, then start the session."""
        app = self.app
        t0 = time.perf_counter()
        apply_keymap(app)  # the [keymap] table (panel/keys.py), before any key is read
        app.main_screen.narrow(app.size.width)
        if self.opened is not None:
            from sagan_tui.panel.messages import Loaded
            from sagan_tui.panel.remote import ready_for_panel

            opened = ready_for_panel(self.opened)
            if isinstance(opened, Loaded):
                self.loaded(opened)
                app.session.start()
            else:
                self.load_failed(opened)
        elif not (self.attaching and self._watch_first()):
            self.paint_first()
            app.status_line.tick()
            app.call_after_refresh(self._after_first_frame)
        self.first_paint_s = time.perf_counter() - t0
        app.call_after_refresh(collection_hold.release)  # held since the `sagan-tui` command began
        app.call_after_refresh(read_layouts, app.stylesheet)  # the incident's, zoom's and filter bar's rules

    def paint_first(self) -> None:
        """The first rows from the cache's read-only peek (sagan_tui/panel/peek.py), as many as a
        table can show (24 at least): the grid gives each at most half the terminal's lines (the
        peek's and the rows' cost is per row: docs/performance.md). The health it recorded goes to
        the status line."""
        from sagan_tui.panel.peek import first_frame

        app = self.app
        s = app.settings
        first = first_frame(s.cache_path, app.clock(), app.status_line.first_interval or s.poll_interval,
                            ["sagan", *s.accounts], limit=max(app.size.height // 2, 24))
        if first is not None:
            app.main_screen.show_first(first.experiments, first.pods)
            app.status_line.first_health = first.health

    async def _after_first_frame(self) -> None:
        # The session opens the cache and polls in its own process while the other panes mount:
        # on a fresh cache the pods come from its first poll, which need not wait for them.
        self.start_session()
        await self.app.main_screen.mount_later_panes()

    def start_session(self) -> None:
        """The session as a child process, over the channel (panel/remote.py)."""
        from sagan_tui.panel.remote import RemoteSession

        app = self.app
        held = None if app.clock is utcnow else app.clock()
        app.session = RemoteSession(app, app.settings, poll=app.poll, clock=held)
        app.session.start()

    def load_failed(self, message: LoadFailed) -> None:
        self.app.exit(return_code=message.failed.exit_code, message=message.failed.error)

    def loaded(self, message: Loaded) -> None:
        """The whole model replaces the first frame's rows by key: the cursor stays where it is."""
        app = self.app
        ready = message.ready
        app.settings = ready.settings
        app.loaded = True
        app.news.seconds = ready.settings.notice_seconds
        app.news.clear_key = dict(ready.settings.keymap).get("panel.dismiss_news", app.news.clear_key)
        app.updates.apply(ready.first)
        for notice in ready.notices:
            app.notify(one_line(notice), severity="warning", markup=False)
        app.set_interval(STATUS_TICK_S, app.status_line.tick)
        app.main_screen.ask_timeline()
        app.refresh_bindings()
