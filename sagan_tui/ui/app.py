"""The panel's App: wires the session to the MainScreen, the global keys and the status line."""

from __future__ import annotations

import os
import time
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Callable

from textual import events, on
from textual.app import App
from textual.binding import Binding

from sagan_tui.basics import utcnow
from sagan_tui.resources import stylesheet
from sagan_tui.runway import RunwayWatch
from sagan_tui.ui.colours16 import STANDARD_CLASS, Undim, sixteen_colours, standard_themes
from sagan_tui.ui.key_first import KeyFirst
from sagan_tui.ui.key_hold import Ended, KeyHold, opens_dialog, pushed
from sagan_tui.ui.keys import apply_keymap
from sagan_tui.ui.main_screen import NARROW_BELOW, MainScreen
from sagan_tui.ui.messages import Loaded, LoadFailed, Updated
from sagan_tui.render import hhmm, status_segments
from sagan_tui.ui.safe_text import clean, one_line
from sagan_tui.ui.news import INCIDENT, NewsBoard
from sagan_tui.ui.view import PanelView
from sagan_tui.ui.widgets.news_area import NewsArea
from sagan_tui.ui.widgets.status_bar import StatusBar

if TYPE_CHECKING:  # the rest is imported where it is used: none of it is needed for the first frame
    from textual.command import Provider

    from sagan_tui.channel.surface import SessionSurface
    from sagan_tui.channel.views import FailedView, IncidentView, ReadyView
    from sagan_tui.config import Draft
    from sagan_tui.config_model import Settings
    from sagan_tui.channel.views import LossRecordView
    from sagan_tui.session.loopback import InProcessSession
    from sagan_tui.ui.remote import PanelSettings
    from sagan_tui.ui.widgets.loss_area import LossArea
    from sagan_tui.ui.widgets.panes import ExperimentsTable, PodsTable, TimelineTable

INTERVALS = (1, 2, 3, 5, 10, 15, 30, 60, 120, 300)
STATUS_TICK_S = 5.0
KEY_NOTED_EVERY = timedelta(seconds=15)  # keys closer than this tell the session nothing new
# Actions that need nothing from the session, so they work from the first frame on.
OWN_COMMANDS = frozenset({"Quit", "Keys", "Maximize", "Minimize"})  # Textual's, that the panel's keys do
BEFORE_LOAD = frozenset({"quit", "dismiss_news", "help", "zoom", "command_palette", "focus_next", "focus_previous"})

DEMO_ENV = "SAGAN_TUI_DEMO"  # set by `sagan-tui --demo` to its scenario: the header says DEMO

PANEL_BINDINGS = [
    Binding("question_mark", "help", "Help", id="panel.help"),
    Binding("i", "inbox", "Inbox only", id="panel.inbox"),
    Binding("I,f2", "incident", "Incident", id="panel.incident"),
    Binding("P", "pause", "Pause/resume", id="panel.pause"),
    Binding("R,ctrl+r", "refresh", "Refresh", id="panel.refresh"),
    Binding("plus", "interval(1)", "Slower polls", id="panel.slower"),
    Binding("minus", "interval(-1)", "Faster polls", id="panel.faster"),
    Binding("z", "zoom", "Zoom pane", id="panel.zoom"),
    Binding("B", "accounts", "Accounts", id="panel.accounts"),
    Binding("q", "quit", "Quit", id="panel.quit"),
    # Not on the key bar (its room is for the incident's keys): the help lists it, and the area says it.
    Binding("ctrl+l", "dismiss_news", "Clear notifications", id="panel.dismiss_news", show=False),
]


def _binding_commands() -> "type[Provider]":
    from sagan_tui.ui.palette import BindingCommands  # textual.command is not needed until ctrl+p

    return BindingCommands


class SaganApp(App):
    """The session works off this thread; its updates arrive as messages and are applied by key."""

    CSS_PATH = str(stylesheet("app.tcss"))
    TITLE = "sagan-tui"
    COMMANDS = App.COMMANDS | {_binding_commands}
    BINDINGS = PANEL_BINDINGS

    def __init__(self, settings: Draft | Settings, session: InProcessSession | None = None, *,
                 clock: Callable[[], datetime] | None = None, poll: bool = True) -> None:
        """Without a session (the `sagan-tui` command) the first frame comes from a thin read and
        the session process opens the cache after it; a test hands one in-process
        (session/loopback.py), opened here, whole from the first frame on."""
        # NO_COLOR (TERM=dumb sets it: commands/panel.py) means no colour codes at all: Textual
        # strips colours (its NoColor filter) only when it sends ANSI colours natively; otherwise
        # it turns them grey (Monochrome), which are colour codes still.
        no_color = os.environ.get("NO_COLOR") is not None
        super().__init__(ansi_color=True if no_color else None)
        # 16 colours (TERM=xterm, --color standard): the terminal's own colours, no dim hue, a
        # black-on-white cursor row (ui/colours16.py); 256 colours and truecolor are untouched.
        self.standard_colours = sixteen_colours(self.console.color_system, no_color)
        self.undim = Undim(enabled=self.standard_colours)
        if self.standard_colours:
            self.ansi_theme_dark, self.ansi_theme_light = standard_themes(self.ansi_theme_dark, self.ansi_theme_light)
            self.add_class(STANDARD_CLASS)
        # Their stylesheets are read only in these modes (the first frame parses every rule it is given).
        self.css_path += [stylesheet(name) for name, on in (("colours16.tcss", self.standard_colours),
                                                            ("nocolor.tcss", no_color)) if on]
        self.settings: PanelSettings = settings  # type: ignore[assignment]  # what the session validated, once `loaded`
        self.clock = clock or utcnow
        self._poll = poll
        self.session: SessionSurface = session  # type: ignore[assignment]
        self.view = PanelView()
        self.key_hold = KeyHold()  # keys typed while a dialog opens go to the dialog
        self.runway_watch = RunwayWatch()  # the short-runway notice, once per crossing (runway.py)
        self.news = NewsBoard()  # what the notification area shows (ui/news.py; widgets/news_area.py)
        self.loaded = False
        self.paused = False
        self._key_noted: datetime | None = None  # when the session was last told of a key (its clock)
        self._first_health: dict = {}
        self.first_paint_s: float | None = None
        self._opened: ReadyView | FailedView | None = None
        if session is not None:  # read here, before the app's loop runs: whole from the first frame
            self._opened = session.open_now(lambda u: self.post_message(Updated(u)))  # from its threads

    def get_driver_class(self):
        """Textual's Linux driver, ending the panel when its terminal is gone (ui/driver.py);
        TEXTUAL_DRIVER and other platforms keep Textual's choice."""
        chosen = super().get_driver_class()
        if (chosen.__module__, chosen.__name__) == ("textual.drivers.linux_driver", "LinuxDriver"):
            from sagan_tui.ui.driver import PanelDriver

            return PanelDriver
        return chosen

    def get_line_filters(self):  # type: ignore[override]
        """In 16 colours a dim ANSI hue is made bright before Textual's filters see it (`Undim`)."""
        filters = super().get_line_filters()
        return [self.undim, *filters] if self.undim.enabled else filters

    def get_default_screen(self) -> MainScreen:
        return MainScreen(pending=self._opened is None)

    @property
    def main_screen(self) -> MainScreen:
        """The panes' screen (the detail, help or a dialog may be on top of it)."""
        return self.screen_stack[0]  # type: ignore[return-value]

    @property
    def pacing(self) -> KeyFirst | None:
        """The MainScreen's update pacing (ui/key_first.py); None before the screens exist or
        once the app is exiting, when no update is held."""
        return self.main_screen.pacing if self.screen_stack else None

    @property
    def experiments_table(self) -> ExperimentsTable:
        return self.main_screen.experiments_table

    @property
    def pods_table(self) -> PodsTable:
        return self.main_screen.pods_table

    @property
    def timeline(self) -> TimelineTable:
        return self.main_screen.timeline

    @property
    def loss_area(self) -> LossArea:
        return self.main_screen.loss_area

    @property
    def polls(self) -> int:
        return self.view.polls

    @property
    def polling(self) -> bool:
        return bool(self.view.in_flight)

    # --- start ---------------------------------------------------------------------------

    def panes_mounted(self) -> None:
        """The MainScreen's panes are in place: paint them from the session opened before the loop,
        or (the `sagan-tui` start) from the first frame's thin read, then start the session."""
        t0 = time.perf_counter()
        apply_keymap(self)  # the [keymap] table (ui/keys.py), before any key is read
        self.main_screen.narrow(self.size.width)
        if self._opened is not None:
            from sagan_tui.ui.remote import ready_for_panel

            opened = ready_for_panel(self._opened)
            if isinstance(opened, Loaded):
                self._loaded(opened)
                self.session.start()
            else:
                self._load_failed(opened)
        else:
            self._paint_first()
            self._tick_status()
            self.call_after_refresh(self._after_first_frame)
        self.first_paint_s = time.perf_counter() - t0

    def _paint_first(self) -> None:
        """The first rows from the cache's read-only peek (sagan_tui/peek.py), as many as the
        terminal has lines (24 at least); the health it recorded goes to the status line."""
        from sagan_tui.peek import first_frame

        s = self.settings
        first = first_frame(s.cache_path, self.clock(), s.poll_interval, ["sagan", *s.accounts],
                            limit=max(self.size.height, 24))
        if first is not None:
            self.main_screen.show_first(first.experiments, first.pods)
            self._first_health = first.health

    async def _after_first_frame(self) -> None:
        # The session opens the cache and polls in its own process (or thread) while the other panes mount:
        # on a fresh cache the pods come from its first poll, which need not wait for them.
        self._start_session()
        await self.main_screen.mount_later_panes()

    def _start_session(self) -> None:
        """The session as a child process, over the channel (ui/remote.py)."""
        from sagan_tui.ui.remote import RemoteSession

        held = None if self.clock is utcnow else self.clock()
        self.session = RemoteSession(self, self.settings, poll=self._poll, clock=held)  # type: ignore[assignment]
        self.session.start()

    @on(LoadFailed)
    def _load_failed(self, message: LoadFailed) -> None:
        self.exit(return_code=message.failed.exit_code, message=message.failed.error)

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        """The whole model replaces the first frame's rows by key: the cursor stays where it is."""
        ready = message.ready
        self.settings = ready.settings
        self.loaded = True
        if (area := self.news_area) is not None:
            area.seconds = ready.settings.notice_seconds
            area.clear_key = dict(ready.settings.keymap).get("panel.dismiss_news", area.clear_key)
        self._apply(ready.first)
        for notice in ready.notices:
            self.notify(one_line(notice), severity="warning", markup=False)
        self.set_interval(STATUS_TICK_S, self._tick_status)
        self.main_screen.ask_timeline()
        self.refresh_bindings()

    @on(Updated)
    def _updated(self, message: Updated) -> None:
        u = message.update
        # A poll's news while the owner is typing waits for the next key's frame (ui/key_first.py);
        # what a key asked for does not, and goes after what waited: updates keep their order.
        pacing = self.pacing
        if pacing is not None and not u.answer and pacing.hold(u):
            if len(pacing.held) == 1:
                self.set_timer(pacing.due_in(), self._keys_quiet)
            return
        self._release_updates()
        self._apply(u)

    def _release_updates(self) -> None:
        """A key's frame is drawn (or the keys stopped): the updates that waited for it, in order."""
        pacing = self.pacing
        for update in pacing.release() if pacing is not None else ():
            self._apply(update)

    def _keys_quiet(self) -> None:
        pacing = self.pacing
        if pacing is None or not pacing.held:
            return
        wait = pacing.due_in()
        if wait > 0:  # keys came meanwhile (each releases after its frame): look again when they stop
            self.set_timer(wait, self._keys_quiet)
        else:
            self._release_updates()

    def _apply(self, u) -> None:
        self.view.apply(u)
        if not self.screen_stack or not self.is_running:  # an update racing the exit (panes being removed)
            return
        with self.batch_update():
            self.main_screen.apply(u, self.clock())
        for screen in self.screen_stack[1:]:
            refresh = getattr(screen, "refresh_from_model", None)
            if refresh is not None and (u.full or u.experiments or u.pods or u.experiment_patches or u.pod_patches
                                        or u.pods_removed or u.timelines or u.pod_logs):
                refresh()
        if u.losses is not None and self._incident_settled(u.losses) and (area := self.news_area) is not None:
            area.drop(INCIDENT)  # acknowledged, or over: its news has been acted on
        notes = list(u.notes)
        if u.health is not None:  # the runway notice, once per crossing (runway.py; pure, cheap)
            from sagan_tui.channel.views import NoteView

            notes += [NoteView(m, "Runway short", "warning", 30.0, ring=True)
                      for m in self.runway_watch.check(u.health, self.settings.runway_warn_hours)]
        for note in notes:
            self.notify(note.message, title=note.title, severity=note.severity, timeout=note.timeout, markup=False)
        if notes:
            from sagan_tui.ui.notify import ring

            ring(self, notes)  # bell or desktop notification, per the notify setting (ui/notify.py)
        if u.health is not None or u.in_flight is not None:
            self._tick_status(tick=False)

    def get_system_commands(self, screen):  # type: ignore[override]
        """Textual's palette commands but those the panel has its own of: Quit (`q`, which asks
        while an action is in flight), Keys (`?`) and Maximize (`z`, which keeps the status line)."""
        return (c for c in super().get_system_commands(screen) if c.title not in OWN_COMMANDS)

    # --- the status line, and what time alone changes ------------------------------------

    def on_status_bar_mounted(self) -> None:
        self._tick_status(tick=False)

    def tick_status(self) -> None:
        """The status tick's work now (it runs every STATUS_TICK_S): the line, and what time alone
        changes, drawn for the clock's time (a test whose clock moved on does not wait for it)."""
        self._tick_status()

    def _tick_status(self, screen_width: int | None = None, tick: bool = True) -> None:
        # The status bar spans the screen, padded one cell a side.
        width = max(0, (self.size.width if screen_width is None else screen_width) - 2)
        s, now = self.settings, self.clock()
        if not self.screen_stack:
            return
        # Every status line on the stack: the panes' screen's and a detail screen's over it.
        bars = [bar for screen in self.screen_stack for bar in screen.query(StatusBar)]
        if not bars:  # a resize before the screen is composed
            return
        if not self.loaded:  # the health the cache recorded, the poll interval and the clock
            first = status_segments(self._first_health, now, paused=False, poll_interval=s.poll_interval,
                                    read_only=s.read_only, width=width)
            for bar in bars:
                bar.show(first)
            return
        started = min(self.view.in_flight.values(), default=None)
        polling_for = None if started is None else time.monotonic() - started
        from sagan_tui.render import SLOW_POLL_S

        wave, verdict = self._wave_words(now)
        narrow = width + 2 < NARROW_BELOW  # the loss area is small: the verdict goes up here
        segments = status_segments(
            self.view.health, now, poll_interval=s.poll_interval, paused=self.paused, read_only=s.read_only,
            polling_for=polling_for, slow_poll_s=max(SLOW_POLL_S, s.request_timeout), width=width,
            wave=wave, watch=self._watch_words(), verdict=verdict if narrow else None, demo=os.environ.get(DEMO_ENV))
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
        sagan = self.view.health.get("sagan")
        stale = sagan is not None and sagan.stale(now, s.poll_interval)
        note = quiet or (f"stale since {hhmm(sagan.last_success)}" if stale and sagan.last_success else (
            "stale: never fetched" if stale else ""))
        for table in (self.experiments_table, self.timeline):
            if note != table.note:
                table.note = note
                table.refresh_titles()
        if tick:  # relative times: the rows' ages and the wave panel's "ago" and "until"
            self.session.tick(self._held_at())
            self.loss_area.tick(now)

    @staticmethod
    def _incident_settled(lv: IncidentView) -> bool:
        """The wave on screen is acknowledged, or no wave is active and nothing is forming."""
        if lv.active_until is None and not lv.forming:
            return True
        shown = lv.waves[lv.shown] if 0 <= lv.shown < len(lv.waves) else None
        return shown is not None and bool(shown.pod_ids) and shown.pod_ids[0] in lv.acknowledged

    def _held_at(self) -> datetime | None:
        """The clock's reading for a session on a held clock (a replay, a test), which it moves; None live."""
        return None if self.clock is utcnow else self.clock()

    def _not_answering(self, now: datetime) -> str | None:
        """"session not answering since 10:52:07" while the session process leaves the panel's
        questions unanswered (channel/client.py SILENT_AFTER_S); None while it answers."""
        heard = self.session.not_answering_since()
        if heard is None:
            return None
        at = now - timedelta(seconds=max(0.0, time.monotonic() - heard))
        return f"session not answering since {at:%H:%M:%S}"

    def _wave_words(self, now: datetime) -> tuple[tuple[str, str] | None, str | None]:
        """The header's words for the active wave (the session's choice), long and short, and its
        verdict line (None, None when none is active)."""
        from sagan_tui.ui.widgets.wave_panel import shown_wave

        lv = self.view.loss_view
        wave, end = shown_wave(lv.waves, (lv.shown, lv.active_until), now) if lv is not None else (None, None)
        if wave is None or end is None:
            return None, None
        until = hhmm(end)
        n = len(wave.losses)
        v = wave.verdict
        return (f"WAVE {n} lost · guard until {until}", f"WAVE {n} · guard {until}"), f"{v.title}: {v.next_step}"

    def _watch_words(self) -> str | None:
        """The header's words for a forming cluster (the session's line; None when none is forming)."""
        lv = self.view.loss_view
        return lv.forming[0] if lv is not None and lv.forming else None

    def on_resize(self, event) -> None:
        self.main_screen.narrow(event.size.width)
        self._tick_status(event.size.width, tick=False)  # the status line drops what does not fit

    # --- the owner's view of the session -------------------------------------------------

    def current_losses(self) -> list[LossRecordView]:
        """Every loss as last read (dismissed ones are evidence too)."""
        return list(self.view.losses)

    def request_refresh(self) -> None:
        self.session.refresh(self._held_at())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.loaded and action not in BEFORE_LOAD:
            return None  # shown, dimmed: the cache is still being opened (a second or two)
        return super().check_action(action, parameters)

    def _to_main(self) -> None:
        while len(self.screen_stack) > 1 and not self.screen.is_modal:
            self.pop_screen()

    # --- global keys -----------------------------------------------------------------------

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None,
               markup: bool = True) -> None:
        """A line in the dialog on top, which holds it until it closes (confirm.HeldNotices); else a
        line of the main screen's notification area (ui/news.py), which covers nothing; a toast only
        on a screen that has neither."""
        # One cleaning rule for every output: a notice may quote a source's words (#46).
        message, title = clean(message, multiline=True), clean(title)
        take = getattr(self.screen, "take_notice", None) if self.screen_stack else None
        if take is not None and not markup and take(message, title, severity, timeout):
            return
        found = self.screen.query(NewsArea) if self.screen_stack else None
        if found:  # the main screen's, or a full screen's that has one
            found.first().add(message, title, severity)
            return
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    @property
    def news_area(self) -> NewsArea | None:
        found = self.main_screen.query(NewsArea) if self.screen_stack else None
        return found.first() if found else None

    def action_dismiss_news(self) -> None:
        """Every notification goes: the area's lines and any toast."""
        if (area := self.news_area) is not None:
            area.clear()
        self.clear_notifications()

    def push_screen(self, screen, callback=None, wait_for_dismiss=False):  # type: ignore[override]
        """Textual's push_screen; a screen pushed by an action marked `@opens_dialog` is its dialog
        (ui/key_hold.py: the keys of its burst wait for its focus)."""
        result = super().push_screen(screen, callback, wait_for_dismiss=wait_for_dismiss)
        if not wait_for_dismiss:
            pushed(self, result)
        return result

    @opens_dialog
    def action_help(self) -> None:
        from sagan_tui.ui.screens.help import HelpScreen, panel_help

        self.push_screen(HelpScreen(panel_help(self)))

    @opens_dialog
    def action_accounts(self) -> None:
        from sagan_tui.ui.screens.accounts import AccountsScreen

        self.push_screen(AccountsScreen())

    def action_inbox(self) -> None:
        self._to_main()
        self.main_screen.toggle_inbox()

    def action_incident(self) -> None:
        self._to_main()
        self.main_screen.toggle_incident()

    async def action_quit(self) -> None:
        """Quit; while an owner action waits for its server's answer, ask first."""
        busy = [w for w in self.workers if w.group == "owner-actions" and w.is_running]
        if not busy:
            self.exit()
            return
        from sagan_tui.ui.screens.confirm import ConfirmScreen, counted

        def chosen(yes: bool | None) -> None:
            if yes:
                self.exit()

        named = [w.description for w in busy if w.description]  # ui/owner_actions.py names each
        self.push_screen(ConfirmScreen(
            "Quit with an action in flight?", [f"{counted(len(busy), 'action')} still waiting for the server's answer"]
            + [f"  {clean(what)}" for what in named],
            confirm_label="Quit anyway",
            note="It may still be applied; the next panel (or `sagan-tui sync`) will show it, and the audit log "
                 "shows it as started."), chosen)

    def action_pause(self) -> None:
        self.paused = not self.paused
        self.session.pause(self.paused)
        self._tick_status(tick=False)

    def action_refresh(self) -> None:
        self.session.refresh(self._held_at())

    def action_interval(self, step: int) -> None:
        now = self.settings.poll_interval
        idx = min(range(len(INTERVALS)), key=lambda i: abs(INTERVALS[i] - now))
        idx = max(0, min(len(INTERVALS) - 1, idx + step))
        self.settings.poll_interval = float(INTERVALS[idx])
        self.session.set_interval(self.settings.poll_interval)
        self._tick_status(tick=False)

    def action_zoom(self) -> None:
        """The focused pane fills the screen (the whole loss area when the heatmap has the focus);
        on the panes' screen the status line and the key bar stay (MainScreen.toggle_zoom)."""
        if isinstance(self.screen, MainScreen):
            self.screen.toggle_zoom()
        elif self.screen.maximized is not None:
            self.screen.minimize()
        elif self.focused is not None:
            self.screen.maximize(self.focused)

    async def on_event(self, event) -> None:
        if isinstance(event, events.Key) and (pacing := self.pacing) is not None:
            pacing.key()
            # For "since you last looked": the session needs the owner's presence, not every key;
            # timed on the session's clock, which an absence is measured on (a held one in a replay).
            now = self.clock()
            if self.session is not None and (self._key_noted is None or now - self._key_noted > KEY_NOTED_EVERY):
                self._key_noted = now
                self.session.key_pressed(self._held_at())
        if self.key_hold.take(event):  # a dialog is opening: ui/key_hold.py
            return
        if isinstance(event, Ended):
            for key in self.key_hold.end(event.opening, event.opened):
                await super().on_event(key)
            return
        back = isinstance(event, events.Key) and event.is_forwarded  # (forwarding marks the event itself)
        await super().on_event(event)
        if back and (pacing := self.pacing) is not None and pacing.held:
            # The key is back from the focused widget (its bindings have run, the App's just did):
            # the held updates go once the screen has drawn what the key changed.
            self.call_after_refresh(self._release_updates)

    async def on_unmount(self) -> None:
        if self.session is not None:
            closing = self.session.close()
            if closing is not None:  # the session process: its channel closed, the child awaited
                await closing
