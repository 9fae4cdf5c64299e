"""The status line of every screen on the stack: sources' health, the clock, the wave and its guard, a silent session; and what time alone changes."""

from __future__ import annotations

import os
import time
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sagan_tui.wire.render import hhmm, status_segments
from sagan_tui.panel.main_screen import NARROW_BELOW
from sagan_tui.panel.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from sagan_tui.panel.host import PanelHost

STATUS_TICK_S = 5.0
DEMO_ENV = "SAGAN_TUI_DEMO"  # set by `sagan-tui --demo` to its scenario: the header says DEMO


class StatusLine:
    """Draws the status bars from the App's view; `first_health` is the first frame's, from the cache."""

    def __init__(self, app: Any) -> None:
        self.app: PanelHost = app
        self.first_health: dict = {}
        self.first_interval: float | None = None  # the first frame's, if not the settings' (math.inf: attaching)
        self.first_view = False  # the first frame is a watch's answer, in the view before the panes it fills

    def tick(self, screen_width: int | None = None, tick: bool = True) -> None:
        app: Any = self.app
        # The status bar spans the screen, padded one cell a side.
        width = max(0, (app.size.width if screen_width is None else screen_width) - 2)
        s, now = app.settings, app.clock()
        if not app.screen_stack:
            return
        # Every status line on the stack: the panes' screen's and a detail screen's over it.
        bars = [bar for screen in app.screen_stack for bar in screen.query(StatusBar)]
        if not bars:  # a resize before the screen is composed
            return
        if not app.loaded:  # the health the cache recorded, the poll interval and the clock
            first = self._segments(width, now) if self.first_view else status_segments(
                self.first_health, now, paused=False, poll_interval=self.first_interval or s.poll_interval,
                read_only=s.read_only, width=width)
            for bar in bars:
                bar.show(first)
            return
        view = app.view
        segments = self._segments(width, now)
        # A frozen session process makes every source look stale: the fault is named first, on
        # the line when it fits, else on a line of its own above it (never cut, never wrapped).
        quiet = self._not_answering(now)
        if quiet:
            first = sum(len(t) for t, _ in segments[:next((i for i, (t, _) in enumerate(segments) if t == "\n"),
                                                             len(segments))])
            gap = " " if len(quiet) + 1 + first <= width else "\n"
            segments = [(quiet.upper(), "bold reverse red"), (gap, "")] + segments
        for bar in bars:
            bar.show(segments)
        # Sagan's panes say so when what they show is older than three poll intervals.
        sagan = view.health.get("sagan")
        stale = sagan is not None and sagan.stale(now, s.poll_interval)
        note = quiet or (f"stale since {hhmm(sagan.last_success)}" if stale and sagan.last_success else (
            "stale: never fetched" if stale else ""))
        for table in (app.experiments_table, app.timeline):
            if note != table.note:
                table.note = note
                table.refresh_titles()
        if tick:  # relative times: the rows' ages and the wave panel's "ago" and "until"
            app.session.tick(app.held_at())
            app.loss_area.tick(now)

    def _segments(self, width: int, now: datetime) -> list:
        """The line from the view: the session's health, poll, wave, paging (status_segments)."""
        app: Any = self.app
        s, view = app.settings, app.view
        started = min(view.in_flight.values(), default=None)
        polling_for = None if started is None else time.monotonic() - started
        from sagan_tui.wire.render import SLOW_POLL_S

        wave, verdict = self._wave_words(now)
        narrow = width + 2 < NARROW_BELOW  # the loss area is small: the verdict goes up here
        return status_segments(
            view.health, now, poll_interval=s.poll_interval, paused=app.paused, read_only=s.read_only,
            polling_for=polling_for, slow_poll_s=max(SLOW_POLL_S, s.request_timeout), width=width,
            wave=wave, watch=self._watch_words(), verdict=verdict if narrow else None, demo=os.environ.get(DEMO_ENV),
            paging=view.paging, attached=app.session.attached)

    def _not_answering(self, now: datetime) -> str | None:
        """"session not answering since 10:52:07" while the session process leaves the panel's
        questions unanswered (wire/channel/client.py SILENT_AFTER_S); None while it answers."""
        heard = self.app.session.not_answering_since()
        if heard is None:
            return None
        at = now - timedelta(seconds=max(0.0, time.monotonic() - heard))
        return f"session not answering since {at:%H:%M:%S}"

    def _wave_words(self, now: datetime) -> tuple[tuple[str, str] | None, str | None]:
        """The header's words for the active wave (the session's choice), long and short, and its
        verdict line (None, None when none is active)."""
        from sagan_tui.panel.widgets.wave_panel import shown_wave

        lv = self.app.view.loss_view
        wave, end = shown_wave(lv.waves, (lv.shown, lv.active_until), now) if lv is not None else (None, None)
        if wave is None or end is None:
            return None, None
        until = hhmm(end)
        n = len(wave.losses)
        v = wave.verdict
        return (f"WAVE {n} lost · guard until {until}", f"WAVE {n} · guard {until}"), f"{v.title}: {v.next_step}"

    def _watch_words(self) -> str | None:
        """The header's words for a forming cluster (the session's line; None when none is forming)."""
        lv = self.app.view.loss_view
        return lv.forming[0] if lv is not None and lv.forming else None
