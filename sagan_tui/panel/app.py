"""The panel's App: wires the session, the MainScreen, the panel's keys and the status line; each job is its own module's."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Callable

from textual import on
from textual.app import App

from sagan_tui.wire.basics import utcnow
from sagan_tui.panel.resources import stylesheet
from sagan_tui.wire.runway import RunwayWatch
from sagan_tui.panel.colours16 import STANDARD_CLASS, ColourMode, standard_themes
from sagan_tui.panel.key_hold import KeyHold, pushed
from sagan_tui.panel.key_route import KeyRoute
from sagan_tui.panel.main_screen import MainScreen
from sagan_tui.panel.messages import Loaded, LoadFailed, Updated
from sagan_tui.panel.news import NewsBoard
from sagan_tui.panel.panel_keys import PanelKeys
from sagan_tui.panel.panel_start import PanelStart
from sagan_tui.panel.registry import ENTRIES, bindings, offering
from sagan_tui.panel.safe_text import clean
from sagan_tui.panel.status_line import StatusLine
from sagan_tui.panel.updates import Updates
from sagan_tui.panel.view import PanelView
from sagan_tui.panel.widgets.news_area import NewsArea, area_in_view, deliver

if TYPE_CHECKING:  # the rest is imported where it is used: none of it is needed for the first frame
    from textual.command import Provider

    from sagan_tui.wire.channel.surface import SessionSurface
    from sagan_tui.wire.channel.views import LossRecordView
    from sagan_tui.wire.config import Draft
    from sagan_tui.core.config_model import Settings
    from sagan_tui.core.session.loopback import InProcessSession
    from sagan_tui.panel.panel_settings import PanelSettings
    from sagan_tui.panel.widgets.loss_area import LossArea
    from sagan_tui.panel.widgets.panes import ExperimentsTable, PodsTable, TimelineTable

# Textual's palette commands the panel's keys do: Quit (`q`, which asks while an action is in
# flight), Keys (`?`) and Maximize/Minimize (`z`, which keeps the status line).
OWN_COMMANDS = frozenset({"Quit", "Keys", "Maximize", "Minimize"})
# Actions that need nothing from the session, so they work from the first frame on (the registry's
# `before_load`, and Textual's own focus and palette keys).
BEFORE_LOAD = frozenset({e.name for e in ENTRIES if e.before_load} | {"command_palette", "focus_next", "focus_previous"})


def _binding_commands() -> type[Provider]:
    from sagan_tui.panel.palette import BindingCommands  # textual.command is not needed until ctrl+p

    return BindingCommands


@offering("panel")
class SaganApp(App):
    """The session works in its own process (a test's on this loop); its updates arrive as messages and are applied by key."""

    CSS_PATH = str(stylesheet("app.tcss"))
    TITLE = "sagan-tui"
    COMMANDS = App.COMMANDS | {_binding_commands}
    BINDINGS = bindings("panel")  # the panel's own keys (panel/registry.py, run by panel/panel_keys.py)

    def __init__(self, settings: Draft | Settings, session: InProcessSession | None = None, *,
                 clock: Callable[[], datetime] | None = None, poll: bool = True) -> None:
        """Without a session (the `sagan-tui` command) the first frame comes from a thin read and
        the session process opens the cache after it; a test hands one in-process
        (core/session/loopback.py), opened here, whole from the first frame on."""
        colours = ColourMode.asked()
        super().__init__(ansi_color=colours.ansi_color)
        colours.read(self.console.color_system)  # panel/colours16.py: 16 colours, NO_COLOR
        self.standard_colours, self.undim = colours.standard, colours.undim
        if colours.standard:
            self.ansi_theme_dark, self.ansi_theme_light = standard_themes(self.ansi_theme_dark, self.ansi_theme_light)
            self.add_class(STANDARD_CLASS)
        self.css_path += [stylesheet(name) for name in colours.stylesheets()]
        self.settings: PanelSettings = settings  # type: ignore[assignment]  # what the session validated, once `loaded`
        self.clock = clock or utcnow
        self.poll = poll
        self.session: SessionSurface = session  # type: ignore[assignment]
        self.view = PanelView()
        self.loaded = False
        self.paused = False
        self.key_hold = KeyHold()  # keys typed while a dialog opens go to the dialog
        self.runway_watch = RunwayWatch()  # the short-runway notice, once per crossing (runway.py)
        self.news = NewsBoard()  # what the notification area shows (panel/news.py; widgets/news_area.py)
        self.desk = PanelKeys(self)  # runs the registry's `panel` entries
        self.status_line = StatusLine(self)
        self.updates = Updates(self)
        self.keys = KeyRoute(self, super().on_event)
        self.start = PanelStart(self, session)

    def get_driver_class(self):
        """Textual's Linux driver, ending the panel when its terminal is gone (panel/driver.py);
        TEXTUAL_DRIVER and other platforms keep Textual's choice."""
        chosen = super().get_driver_class()
        if (chosen.__module__, chosen.__name__) == ("textual.drivers.linux_driver", "LinuxDriver"):
            from sagan_tui.panel.driver import PanelDriver

            return PanelDriver
        return chosen

    def get_line_filters(self):  # type: ignore[override]
        """In 16 colours a dim ANSI hue is made bright before Textual's filters see it (`Undim`)."""
        filters = super().get_line_filters()
        return [self.undim, *filters] if self.undim.enabled else filters

    def get_default_screen(self) -> MainScreen:
        return MainScreen(pending=self.start.opened is None)

    def get_system_commands(self, screen):  # type: ignore[override]
        return (c for c in super().get_system_commands(screen) if c.title not in OWN_COMMANDS)

    # --- what screens, tests and the bench read ------------------------------------------

    @property
    def main_screen(self) -> MainScreen:
        """The panes' screen (the detail, help or a dialog may be on top of it)."""
        return self.screen_stack[0]  # type: ignore[return-value]

    experiments_table: ExperimentsTable = property(lambda self: self.main_screen.experiments_table)  # type: ignore[assignment]
    pods_table: PodsTable = property(lambda self: self.main_screen.pods_table)  # type: ignore[assignment]
    timeline: TimelineTable = property(lambda self: self.main_screen.timeline)  # type: ignore[assignment]
    loss_area: LossArea = property(lambda self: self.main_screen.loss_area)  # type: ignore[assignment]
    polls: int = property(lambda self: self.view.polls)  # type: ignore[assignment]
    polling: bool = property(lambda self: bool(self.view.in_flight))  # type: ignore[assignment]
    first_paint_s: float | None = property(lambda self: self.start.first_paint_s)  # type: ignore[assignment]

    news_area: NewsArea | None = property(lambda self: area_in_view(self.screen_stack))  # type: ignore[assignment]

    def current_losses(self) -> list[LossRecordView]:
        """Every loss as last read (dismissed ones are evidence too)."""
        return list(self.view.losses)

    def held_at(self) -> datetime | None:
        """The clock's reading for a session on a held clock (a replay, a test), which it moves; None live."""
        return None if self.clock is utcnow else self.clock()

    def request_refresh(self) -> None:
        self.session.refresh(self.held_at())

    # --- wiring --------------------------------------------------------------------------

    def panes_mounted(self) -> None:
        self.start.panes_mounted()  # the MainScreen's panes are in place (panel/panel_start.py)

    @on(LoadFailed)
    def _load_failed(self, message: LoadFailed) -> None:
        self.start.load_failed(message)

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        self.start.loaded(message)

    @on(Updated)
    def _updated(self, message: Updated) -> None:
        self.updates.received(message.update)  # now, or after the next key's frame (panel/updates.py)

    def on_status_bar_mounted(self) -> None:
        self.status_line.tick(tick=False)

    def on_resize(self, event) -> None:
        self.main_screen.narrow(event.size.width)
        self.status_line.tick(event.size.width, tick=False)  # the status line drops what does not fit

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.loaded and action not in BEFORE_LOAD:
            return None  # shown, dimmed: the cache is still being opened (a second or two)
        return super().check_action(action, parameters)

    # Three overrides where Textual offers no other hook: a notice's destination (notify), the
    # screen a dialog's key opened (push_screen's AwaitMount), and a key before its dispatch (on_event).

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None,
               markup: bool = True) -> None:
        """The dialog on top or the notification area in view (widgets/news_area.py): never a toast.
        Every notice is shown literally (`markup` is ignored): a notice may quote a source's words."""
        # One cleaning rule for every output (#46).
        message, title = clean(message, multiline=True), clean(title)
        deliver(self.screen_stack, self.news, message, title, severity, timeout)

    def push_screen(self, screen, callback=None, wait_for_dismiss=False):  # type: ignore[override]
        """A screen pushed by an action marked `@opens_dialog` is its dialog (panel/key_hold.py)."""
        result = super().push_screen(screen, callback, wait_for_dismiss=wait_for_dismiss)
        if not wait_for_dismiss:
            pushed(self, result)
        return result

    async def on_event(self, event) -> None:
        await self.keys.event(event)  # panel/key_route.py, then Textual's own dispatch

    async def on_unmount(self) -> None:
        if self.session is not None:
            closing = self.session.close()
            if closing is not None:  # the session process: its channel closed, the child awaited
                await closing
