"""What the panel's screens, the desk and the session's client need of the App: a Protocol, not the concrete class.

Screens typed `self.app` as the App itself once, which made the UI an import circle (app ->
screens -> app). They type it as this instead; the App (panel/app.py) is one thing that has these.
Textual's own App methods they call are listed too, so the Protocol is the whole of what they use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol

if TYPE_CHECKING:
    from datetime import datetime

    from textual.screen import Screen

    from sagan_tui.wire.channel.surface import SessionSurface
    from sagan_tui.wire.runway import RunwayWatch
    from sagan_tui.panel.key_hold import KeyHold
    from sagan_tui.panel.news import NewsBoard
    from sagan_tui.panel.panel_settings import PanelSettings
    from sagan_tui.panel.view import PanelView
    from sagan_tui.panel.widgets.panes import PodsTable


class PanelHost(Protocol):
    """The panel as its screens see it: the session's surface, the settings the UI reads, the
    view of the session's records, the notices; and Textual's App calls they make."""

    session: SessionSurface
    settings: PanelSettings
    view: PanelView
    loaded: bool
    news: NewsBoard
    runway_watch: RunwayWatch
    key_hold: KeyHold
    clock: Callable[[], datetime]

    @property
    def main_screen(self) -> Screen: ...

    @property
    def pods_table(self) -> PodsTable: ...

    @property
    def screen_stack(self) -> list[Screen]: ...

    @property
    def screen(self) -> Screen: ...

    @property
    def is_running(self) -> bool: ...

    def request_refresh(self) -> None: ...

    def panes_mounted(self) -> None: ...

    def notify(self, message: str, *, title: str = "", severity: Any = "information", timeout: float | None = None,
               markup: bool = True) -> None: ...

    def push_screen(self, screen: Any, callback: Any = None, wait_for_dismiss: bool = False) -> Any: ...

    def pop_screen(self) -> Any: ...

    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Any: ...

    def batch_update(self) -> Any: ...

    def post_message(self, message: Any) -> bool: ...

    def set_timer(self, delay: float, callback: Any = None, *args: Any, **kwargs: Any) -> Any: ...
