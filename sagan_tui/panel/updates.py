"""The session's updates applied to the panel: paced behind the owner's keys (panel/key_first.py), in order; the runway notice once per crossing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sagan_tui.panel.news import INCIDENT

if TYPE_CHECKING:
    from sagan_tui.wire.channel.views import IncidentView, UpdateView
    from sagan_tui.panel.key_first import KeyFirst


def incident_settled(lv: IncidentView) -> bool:
    """The wave on screen is acknowledged, or no wave is active and nothing is forming."""
    if lv.active_until is None and not lv.forming:
        return True
    shown = lv.waves[lv.shown] if 0 <= lv.shown < len(lv.waves) else None
    return shown is not None and bool(shown.pod_ids) and shown.pod_ids[0] in lv.acknowledged


class Updates:
    """Receives each update (the App's `Updated` handler) and applies it now or after the next key's frame."""

    def __init__(self, app: Any) -> None:
        self.app = app

    @property
    def pacing(self) -> KeyFirst | None:
        """The MainScreen's update pacing; None before the screens exist or once the app is
        exiting, when no update is held."""
        app = self.app
        return app.main_screen.pacing if app.screen_stack else None

    def received(self, u: UpdateView) -> None:
        # A poll's news while the owner is typing waits for the next key's frame (panel/key_first.py);
        # what a key asked for does not, and goes after what waited: updates keep their order.
        pacing = self.pacing
        if pacing is not None and not u.answer and pacing.hold(u):
            if len(pacing.held) == 1:
                self.app.set_timer(pacing.due_in(), self._keys_quiet)
            return
        self.release()
        self.apply(u)

    def release(self) -> None:
        """A key's frame is drawn (or the keys stopped): the updates that waited for it, in order."""
        pacing = self.pacing
        for update in pacing.release() if pacing is not None else ():
            self.apply(update)

    def _keys_quiet(self) -> None:
        pacing = self.pacing
        if pacing is None or not pacing.held:
            return
        wait = pacing.due_in()
        if wait > 0:  # keys came meanwhile (each releases after its frame): look again when they stop
            self.app.set_timer(wait, self._keys_quiet)
        else:
            self.release()

    def apply(self, u: UpdateView) -> None:
        app = self.app
        app.view.apply(u)
        if not app.screen_stack or not app.is_running:  # an update racing the exit (panes being removed)
            return
        with app.batch_update():
            app.main_screen.apply(u, app.clock())
        for screen in app.screen_stack[1:]:
            refresh = getattr(screen, "refresh_from_model", None)
            if refresh is not None and (u.full or u.experiments or u.pods or u.experiment_patches or u.pod_patches
                                        or u.pods_removed or u.timelines or u.pod_logs):
                refresh()
        if u.losses is not None and incident_settled(u.losses) and (area := app.news_area) is not None:
            area.drop(INCIDENT)  # acknowledged, or over: its news has been acted on
        notes = list(u.notes)
        if u.health is not None:  # the runway notice, once per crossing (runway.py; pure, cheap)
            from sagan_tui.wire.channel.views import NoteView

            notes += [NoteView(m, "Runway short", "warning", 30.0, ring=True)
                      for m in app.runway_watch.check(u.health, app.settings.runway_warn_hours)]
        for note in notes:
            app.notify(note.message, title=note.title, severity=note.severity, timeout=note.timeout, markup=False)
        if notes:
            from sagan_tui.panel.notify import ring

            ring(app, notes)  # bell or desktop notification, per the notify setting (panel/notify.py)
        if u.health is not None or u.in_flight is not None:
            app.status_line.tick(tick=False)
