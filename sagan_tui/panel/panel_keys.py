"""The panel's own keys (the registry's `panel` group): help, accounts, layouts, pause, refresh, poll interval, zoom, quit, clear notices."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sagan_tui.panel.safe_text import clean

if TYPE_CHECKING:
    from sagan_tui.panel.host import PanelHost

INTERVALS = (1, 2, 3, 5, 10, 15, 30, 60, 120, 300)


class PanelKeys:
    """Runs the App's entries (panel/registry.py): none mutates Sagan, RunPod or the cache, so none
    meets the desk's read-only gate; `pause` and the interval keys tell this panel's session only."""

    def __init__(self, app: Any) -> None:
        self.app: PanelHost = app

    def run(self, name: str, *params: Any) -> Any:
        return getattr(self, name)(*params)

    def _to_main(self) -> None:
        app = self.app
        while len(app.screen_stack) > 1 and not app.screen.is_modal:
            app.pop_screen()

    def help(self) -> None:
        from sagan_tui.panel.screens.help import HelpScreen, panel_help

        self.app.push_screen(HelpScreen(panel_help(self.app)))

    def accounts(self) -> None:
        from sagan_tui.panel.screens.accounts import AccountsScreen

        self.app.push_screen(AccountsScreen())

    def inbox(self) -> None:
        self._to_main()
        self.app.main_screen.toggle_inbox()  # type: ignore[attr-defined]

    def incident(self) -> None:
        self._to_main()
        self.app.main_screen.toggle_incident()  # type: ignore[attr-defined]

    async def quit(self) -> None:
        """Quit; while an owner action waits for its server's answer, ask first."""
        app: Any = self.app
        busy = [w for w in app.workers if w.group == "owner-actions" and w.is_running]
        if not busy:
            app.exit()
            return
        from sagan_tui.panel.screens.confirm import ConfirmScreen, counted

        def chosen(yes: bool | None) -> None:
            if yes:
                app.exit()

        named = [w.description for w in busy if w.description]  # panel/desk.py names each
        app.push_screen(ConfirmScreen(
            "Quit with an action in flight?", [f"{counted(len(busy), 'action')} still waiting for the server's answer"]
            + [f"  {clean(what)}" for what in named],
            confirm_label="Quit anyway",
            note="It may still be applied; the next panel (or `sagan-tui sync`) will show it, and the audit log "
                 "shows it as started."), chosen)

    def _attached(self) -> bool:
        """Attached to a `watch`, the polls are the watch's: this panel neither pauses nor paces them."""
        if not self.app.session.attached:
            return False
        self.app.notify("this panel is attached to `sagan-tui watch`: the polls are the watch's, and it keeps "
                        "them going; `sagan-tui --standalone` runs a panel that polls on its own",
                        title="Attached to watch", severity="warning", markup=False)
        return True

    def pause(self) -> None:
        if self._attached():
            return
        app: Any = self.app
        app.paused = not app.paused
        app.session.pause(app.paused)
        app.status_line.tick(tick=False)

    def refresh(self) -> None:
        self.app.request_refresh()

    def interval(self, step: int) -> None:
        if self._attached():
            return
        app: Any = self.app
        now = app.settings.poll_interval
        idx = min(range(len(INTERVALS)), key=lambda i: abs(INTERVALS[i] - now))
        idx = max(0, min(len(INTERVALS) - 1, idx + step))
        app.settings.poll_interval = float(INTERVALS[idx])
        app.session.set_interval(app.settings.poll_interval)
        app.status_line.tick(tick=False)

    def zoom(self) -> None:
        """The focused pane fills the screen (the whole loss area when the heatmap has the focus);
        on the panes' screen the status line and the key bar stay (MainScreen.toggle_zoom)."""
        app: Any = self.app
        screen = app.screen
        if hasattr(screen, "toggle_zoom"):  # the panes' screen
            screen.toggle_zoom()
        elif screen.maximized is not None:
            screen.minimize()
        elif app.focused is not None:
            screen.maximize(app.focused)

    def dismiss_news(self) -> None:
        """Every notification goes, from the one board every screen's area shows."""
        app: Any = self.app
        if (area := app.news_area) is not None:
            area.clear()
        else:
            app.news.clear()
