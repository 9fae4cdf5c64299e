"""The panel: wires cache, poller and panes; paints from the cache first, then polls without overlap."""

from __future__ import annotations

import time
from datetime import datetime
from typing import TYPE_CHECKING, Callable

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Grid
from textual.timer import Timer
from textual.widgets import DataTable

from sagan_tui.basics import utcnow
from sagan_tui.config import ConfigError, Draft
from sagan_tui.resources import stylesheet
from sagan_tui.startup import release_gc
from sagan_tui.runway import RunwayWatch
from sagan_tui.ui.actions_mixin import ActionsMixin
from sagan_tui.ui.first_paint import first_frame
from sagan_tui.ui.keys import apply_keymap
from sagan_tui.ui.loading import Loaded, LoadFailed, load
from sagan_tui.ui.messages import PollCrashed, PollFinished
from sagan_tui.ui.render import hhmm, status_segments
from sagan_tui.ui.safe_text import one_line
from sagan_tui.ui.widgets.key_bar import KeyBar
from sagan_tui.ui.widgets.keyed_table import KeyedTable
from sagan_tui.ui.widgets.panes import ApprovalsTable, ExperimentsTable, PodsTable, TimelineTable
from sagan_tui.ui.widgets.pending import PendingPane
from sagan_tui.ui.widgets.status_bar import StatusBar

if TYPE_CHECKING:  # the rest is imported where it is used: none of it is needed for the first frame
    from textual.command import Provider

    from sagan_tui.config import Settings
    from sagan_tui.models import Experiment, Loss
    from sagan_tui.store.cache import Cache, CachedPod
    from sagan_tui.sync.poller import Poller
    from sagan_tui.ui.model import Delta, PanelModel
    from sagan_tui.ui.widgets.loss_area import LossArea

INTERVALS = (1, 2, 3, 5, 10, 15, 30, 60, 120, 300)
NARROW_BELOW = 140  # columns: under this the panes stack
# Retention is counted in days: pruning at start and hourly keeps a panel left open for weeks bounded.
PRUNE_EVERY_S = 3600.0
# Actions that need nothing from the cache, so they work from the first frame on.
BEFORE_LOAD = frozenset({"quit", "help", "zoom", "command_palette", "focus_next", "focus_previous"})

PANEL_BINDINGS = [
    Binding("question_mark", "help", "Help", id="panel.help"),
    Binding("i", "inbox", "Inbox only", id="panel.inbox"),
    Binding("I,f2", "incident", "Incident", id="panel.incident"),
    Binding("P", "pause", "Pause/resume", id="panel.pause"),
    Binding("R,ctrl+r", "refresh", "Refresh", id="panel.refresh"),
    Binding("plus", "interval(1)", "Slower polls", show=False, id="panel.slower"),
    Binding("minus", "interval(-1)", "Faster polls", show=False, id="panel.faster"),
    Binding("z", "zoom", "Zoom pane", show=False, id="panel.zoom"),
    Binding("B", "accounts", "Accounts", id="panel.accounts"),
    Binding("q", "quit", "Quit", id="panel.quit"),
]


def _binding_commands() -> "type[Provider]":
    from sagan_tui.ui.palette import BindingCommands  # textual.command is not needed until ctrl+p

    return BindingCommands


def _is_detail(screen: object) -> bool:
    from sagan_tui.ui.screens.detail import DetailScreen

    return isinstance(screen, DetailScreen)


def _action_bindings() -> list:
    # The mixin is not a DOMNode, so Textual would not merge its BINDINGS: fold them in here.
    own = list(getattr(ActionsMixin, "ACTION_BINDINGS", []) or [])
    extra = [b for b in ActionsMixin.__dict__.get("BINDINGS", []) if b not in own]
    return own + extra


class SaganApp(ActionsMixin, App):
    """Implements ui.contract.PanelHost for the action screens."""

    CSS_PATH = str(stylesheet("app.tcss"))
    TITLE = "sagan-tui"
    COMMANDS = App.COMMANDS | {_binding_commands}
    BINDINGS = [*_action_bindings(), *PANEL_BINDINGS]

    def __init__(self, settings: Settings | Draft, cache: Cache | None = None, poller: Poller | None = None, *,
                 clock: Callable[[], datetime] | None = None, poll: bool = True) -> None:
        """Without a cache (the `sagan-tui` command), the first frame comes from a thin read and the
        cache, the poller and the full model are opened in a thread after it; with one (tests,
        embedding), they are read before the first frame.

        `settings` may be a config.Draft (the `sagan-tui` command): the first frame reads it, and
        the load validates it first (a bad setting stops the panel with the error, exit code 2)."""
        super().__init__()
        self.settings: Settings = settings  # type: ignore[assignment]  # a Draft until `loaded`
        self.cache: Cache = cache  # type: ignore[assignment]  # these three are set once `loaded`
        self.poller: Poller = poller  # type: ignore[assignment]
        self.model: PanelModel = None  # type: ignore[assignment]
        self.clock = clock or utcnow
        self.loaded = False
        self._first_health: dict = {}
        self._poll_enabled = poll
        self.paused = False
        self.polling = False
        self._poll_started: float | None = None  # time.monotonic() of the running poll
        self._again = False
        self._poll_timer: Timer | None = None
        self._timeline_for: int | None = None
        self.first_paint_s: float | None = None
        self.runway_watch = RunwayWatch()  # the short-runway notice, once per crossing (runway.py)
        self.polls = 0

    # --- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Grid(id="body"):
            yield ExperimentsTable(id="experiments")
            yield PodsTable(id="pods")
            if self.cache is None:  # the `sagan-tui` start: these three right after the first frame
                yield PendingPane("Timeline", id="timeline")
                yield PendingPane("Losses", id="loss-area")
                yield PendingPane("Approvals", id="approvals")
            else:
                yield from self._later_panes()
        yield KeyBar()

    @staticmethod
    def _later_panes() -> list:
        from sagan_tui.ui.widgets.loss_area import LossArea  # the heatmap's triage imports with it

        return [TimelineTable(id="timeline"), LossArea(id="loss-area"), ApprovalsTable(id="approvals")]

    async def _mount_later_panes(self) -> None:
        """The panes the first frame showed as empty frames, in their place (the grid's last three)."""
        body = self.query_one("#body")
        pending = list(body.query_children(PendingPane))
        if pending:
            with self.batch_update():
                await body.remove_children(pending)
                await body.mount_all(self._later_panes())

    @property
    def experiments_table(self) -> ExperimentsTable:
        return self.query_one("#experiments", ExperimentsTable)

    @property
    def pods_table(self) -> PodsTable:
        return self.query_one("#pods", PodsTable)

    @property
    def timeline(self) -> TimelineTable:
        return self.query_one("#timeline", TimelineTable)

    @property
    def loss_area(self) -> LossArea:
        from sagan_tui.ui.widgets.loss_area import LossArea

        return self.query_one("#loss-area", LossArea)

    def on_mount(self) -> None:
        t0 = time.perf_counter()
        apply_keymap(self)  # the [keymap] table (ui/keys.py), before any key is read
        self.experiments_table.focus()
        self._narrow(self.size.width)
        if self.cache is not None:
            self._loaded(load(self.settings, self.cache, self.poller, self.clock))
        else:
            self._paint_first()
            # After the first frame is out: the load holds the GIL for a second or two.
            self.call_after_refresh(self._after_first_frame)
        self.first_paint_s = time.perf_counter() - t0

    def _paint_first(self) -> None:
        s = self.settings
        # No pane shows more rows than the terminal has lines.
        first = first_frame(s.cache_path, self.clock(), s.poll_interval, ["sagan", *s.accounts],
                            limit=max(self.size.height, 24))
        if first is not None:
            self._first_health = first.health
            for table, rows in ((self.experiments_table, first.experiments), (self.pods_table, first.pods)):
                table.scope_label = "loading"  # the count in the title is of the first rows only
                table.set_rows(rows)
        self._tick_status()

    async def _after_first_frame(self) -> None:
        release_gc()  # held by the command line through the imports and the first frame
        await self._mount_later_panes()
        self._load()

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def _load(self) -> None:
        try:
            settings = self.settings.validate() if isinstance(self.settings, Draft) else self.settings
        except ConfigError as exc:  # its text names the setting, never a secret
            self.post_message(LoadFailed(f"sagan-tui: {one_line(str(exc))}", exit_code=2))
            return
        try:
            loaded = load(settings, None, None, self.clock)
        except Exception as exc:  # noqa: BLE001 - shown, then the panel exits
            # A CacheUnusable names the path and the cause itself, and exits 2 (the file untouched).
            code = getattr(exc, "exit_code", 1)
            why = one_line(str(exc) if code == 2 else f"{type(exc).__name__}: {exc}")
            self.post_message(LoadFailed(f"sagan-tui: cannot open the cache: {why}", exit_code=code))
            return
        self.post_message(loaded)

    @on(LoadFailed)
    def _load_failed(self, message: LoadFailed) -> None:
        self.exit(return_code=message.exit_code, message=message.error)

    @on(Loaded)
    def _on_loaded(self, message: Loaded) -> None:
        self._loaded(message)

    def _loaded(self, loaded: Loaded) -> None:
        """The whole model replaces the first frame's rows by key: the cursor stays where it is."""
        self.settings, self.cache, self.poller, self.model = loaded.settings, loaded.cache, loaded.poller, loaded.model
        self.loaded = True
        with self.batch_update():
            for table in (self.experiments_table, self.pods_table):
                table.scope_label = ""
            self._paint_all()
        for notice in self.cache.notices:
            self.notify(one_line(notice), severity="warning", markup=False)
        self.set_interval(5, self._tick_status)
        self.set_interval(60, self._tick_rows)
        self._prune_history()
        self.set_interval(PRUNE_EVERY_S, self._prune_history)
        self.refresh_bindings()
        if self._poll_enabled:
            self._start_poll()

    @property
    def main_screen(self):
        """The panes' screen (the detail, help or a dialog may be on top of it)."""
        return self.screen_stack[0]

    def _to_main(self) -> None:
        while len(self.screen_stack) > 1 and not self.screen.is_modal:
            self.pop_screen()

    def on_resize(self, event) -> None:
        self._narrow(event.size.width)
        self._tick_status(event.size.width)  # the status line drops what does not fit the new width

    def _narrow(self, width: int) -> None:
        self.main_screen.set_class(width < NARROW_BELOW, "-narrow")

    def _paint_all(self) -> None:
        self.experiments_table.set_rows(self.model.experiment_rows())
        self.pods_table.set_rows(self.model.pod_rows())
        self.query_one(ApprovalsTable).set_rows(self.model.approval_rows())
        self._refresh_timeline()
        self._feed_losses()
        self._tick_status()

    def _tick_status(self, screen_width: int | None = None) -> None:
        # The status bar spans the screen, padded one cell a side.
        width = max(0, (self.size.width if screen_width is None else screen_width) - 2)
        if not self.loaded:  # the health the cache recorded, the poll interval and the clock
            s = self.settings
            self.query_one(StatusBar).show(status_segments(self._first_health, self.clock(), paused=False,
                                                           poll_interval=s.poll_interval, read_only=s.read_only,
                                                           width=width))
            return
        self.query_one(StatusBar).show(self.model.status(
            paused=self.paused, poll_started=self._poll_started if self.polling else None, width=width))
        # Sagan's panes say so when what they show is older than three poll intervals.
        sagan = self.model.health.get("sagan")
        stale = sagan is not None and sagan.stale(self.model.clock(), self.settings.poll_interval)
        note = f"stale since {hhmm(sagan.last_success)}" if stale and sagan.last_success else (
            "stale: never fetched" if stale else "")
        for table in (self.experiments_table, self.timeline):
            if note != table.note:
                table.note = note
                table.refresh_titles()
        # The pod rows whose age crossed a minute or an hour since drawn: a few, found cheaply.
        self.pods_table.update_rows(*self.model.due_pod_rows())

    def _tick_rows(self) -> None:
        # Ages are shown in minutes: once a minute is often enough, and only the cells whose
        # text changed are sent to the terminal.
        self.experiments_table.update_rows(self.model.due_experiment_rows())
        self.pods_table.update_rows(*self.model.due_pod_rows())

    def _refresh_timeline(self) -> None:
        tl = self.timeline
        exp = None if tl.everything else self._selected_number()
        self._timeline_for = exp
        tl.set_rows(self.model.timeline_rows(exp, tl.kind))
        tl.describe(exp)
        if tl.follow and tl.row_count:
            tl.move_cursor(row=0)

    def _feed_losses(self) -> None:
        self.loss_area.show(self.model)
        if self.main_screen.has_class("-incident"):
            self.pods_table.set_scope(self._affected_scope(), "affected")

    def _affected_scope(self):
        keys = self.model.affected_pods()
        return lambda k, _row: k in keys

    @work(thread=True, exclusive=True, group="prune", exit_on_error=False)
    def _prune_history(self) -> None:
        """Drop events and pod observations past their retention; a write, so off the main thread."""
        s = self.settings
        # The app's clock, not the wall's: a panel replaying a past incident keeps that incident.
        self.cache.prune(self.model.clock(), s.events_retention_days, s.observations_retention_days)

    # --- polling ---------------------------------------------------------------------------

    def _start_poll(self, force: bool = False) -> None:
        if self._poll_timer is not None:
            self._poll_timer.stop()
            self._poll_timer = None
        if self.polling:  # never overlap: run again as soon as this one ends
            self._again = True
            return
        self.polling = True
        self._poll_started = time.monotonic()
        self._tick_status()
        self._poll(force)

    @work(exclusive=True, group="poll", exit_on_error=False)
    async def _poll(self, force: bool) -> None:
        try:
            changes = await self.poller.poll_once(force=force)
        except Exception as exc:
            self.post_message(PollCrashed(one_line(f"{type(exc).__name__}: {exc}")))
            return
        self.post_message(PollFinished(changes))

    def _poll_ended(self) -> None:
        self.polling = False
        self.polls += 1
        if self._again:
            self._again = False
            self._start_poll(force=True)
        elif not self.paused and self._poll_enabled:
            self._poll_timer = self.set_timer(self.settings.poll_interval, self._start_poll)
        self._tick_status()

    @on(PollCrashed)
    def _poll_crashed(self, message: PollCrashed) -> None:
        self.notify(f"poll failed: {message.error}", severity="error", markup=False)
        self._poll_ended()

    @on(PollFinished)
    def _poll_finished(self, message: PollFinished) -> None:
        before = {n: h.state for n, h in self.model.health.items()}
        delta = self.model.apply(message.changes)
        self._apply(delta)
        self._announce(delta, before)
        self._poll_ended()

    def _apply(self, delta: "Delta") -> None:
        with self.batch_update():
            if delta.experiments:
                self.experiments_table.update_rows(delta.experiments)
            if delta.pods or delta.pods_removed:
                self.pods_table.update_rows(delta.pods, delta.pods_removed)
            if delta.approvals is not None:
                self.query_one(ApprovalsTable).set_rows(delta.approvals)
            if delta.timeline:
                self._refresh_timeline()
            if delta.losses:
                self._feed_losses()
        for screen in self.screen_stack:
            if _is_detail(screen):
                screen.refresh_from_model()  # type: ignore[attr-defined]

    def _announce(self, delta: "Delta", before: dict) -> None:
        from sagan_tui.ui.model import Note, announcements
        from sagan_tui.ui.notify import ring

        notes = [*announcements(delta, before, self.model.health),
                 *(Note(m, "Runway short", "warning", 30.0, ring=True)
                   for m in self.runway_watch.check(self.model.health, self.settings.runway_warn_hours))]
        for note in notes:
            self.notify(note.message, title=note.title, severity=note.severity, timeout=note.timeout,
                        markup=False)
        ring(self, notes)  # bell or desktop notification, per the notify setting (ui/notify.py)

    # --- PanelHost -------------------------------------------------------------------------

    def _selected_number(self) -> int | None:
        key = self.experiments_table.cursor_key
        return int(key) if key is not None else None

    def selected_experiment(self) -> Experiment | None:
        """The detail's experiment; else that of the focused row (pod, approval, event); else the cursor's."""
        if _is_detail(self.screen):
            return self.screen.experiment  # type: ignore[attr-defined]
        number = self._selected_number()
        focused = self.focused
        if isinstance(focused, KeyedTable) and focused is not self.experiments_table:
            key = focused.cursor_key
            row = focused.records.get(key) if key else None
            number = None
            if isinstance(focused, PodsTable) and key in self.model.pods:
                number = self.model.pods[key].experiment
            elif row is not None:  # every other pane has the experiment as its "exp" column
                exp_col = [i for i, c in enumerate(focused.specs) if c.key == "exp"]
                value = row.cells[exp_col[0]].sort if exp_col else None
                number = value if isinstance(value, int) and value >= 0 else None
        return self.model.experiments.get(number) if number is not None else None

    def selected_pod(self) -> CachedPod | None:
        table = self.focused
        if not isinstance(table, KeyedTable) or table.specs is not self.pods_table.specs:
            return None
        key = table.cursor_key
        return self.model.pods.get(key) if key else None

    def marked_experiments(self) -> list[int]:
        return [int(k) for k in self.experiments_table.marks]

    def marked_pods(self) -> list[str]:
        return list(self.pods_table.marks)

    def clear_marks(self) -> None:
        self.experiments_table.clear_marks()
        self.pods_table.clear_marks()

    def current_losses(self) -> list[Loss]:
        return list(self.model.losses)

    def request_refresh(self) -> None:
        self._start_poll(force=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.loaded and action not in BEFORE_LOAD:
            return None  # shown, dimmed: the cache is still being opened (a second or two)
        if self.settings.read_only and action in getattr(self, "MUTATING_ACTIONS", set()):
            return False
        return super().check_action(action, parameters)

    # --- events from the panes -------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#experiments")
    def _experiment_highlighted(self) -> None:
        if not self.loaded:  # the first frame's cursor: the timeline follows once the model is read
            return
        if not self.timeline.everything and self._selected_number() != self._timeline_for:
            self._refresh_timeline()

    @on(DataTable.RowSelected, "#experiments")
    def _experiment_selected(self, event: DataTable.RowSelected) -> None:
        if not self.loaded:
            return
        from sagan_tui.ui.screens.detail import DetailScreen

        self.push_screen(DetailScreen(int(event.row_key.value), self.model, self.poller.sagan.view))

    @on(DataTable.RowSelected, "#approvals")
    def _approval_selected(self, event: DataTable.RowSelected) -> None:
        found = [a for a in self.cache.approvals() if a.id == event.row_key.value]
        opener = getattr(self, "open_approval", None)
        if found and opener is not None:
            opener(found[0])

    @on(TimelineTable.Changed)
    def _timeline_changed(self) -> None:
        if not self.loaded:
            return
        self._refresh_timeline()

    @on(PodsTable.DismissRequested)
    def _dismiss(self, event: PodsTable.DismissRequested) -> None:
        if not self.loaded:
            return
        self.model.dismiss(event.pod_id)
        self.pods_table.set_rows(self.model.pod_rows())
        self._feed_losses()
        self._refresh_timeline()

    # --- actions ---------------------------------------------------------------------------

    def action_help(self) -> None:
        from sagan_tui.ui.screens.help import HelpScreen, panel_help

        self.push_screen(HelpScreen(panel_help(self)))

    def action_accounts(self) -> None:
        from sagan_tui.ui.screens.accounts import AccountsScreen

        self.push_screen(AccountsScreen())

    def action_inbox(self) -> None:
        self._to_main()
        table = self.experiments_table
        if table.scope is None:
            table.set_scope(lambda _k, row: row.group == 0, "inbox")
        else:
            table.set_scope(None)
        table.focus()

    def action_incident(self) -> None:
        self._to_main()
        screen = self.main_screen
        on_ = not screen.has_class("-incident")
        screen.set_class(on_, "-incident")
        body, area = self.query_one("#body"), self.loss_area
        if on_:
            body.move_child(area, before=self.pods_table)
            self.pods_table.set_scope(self._affected_scope(), "affected")
        else:
            body.move_child(area, after=self.timeline)
            self.pods_table.set_scope(None)
        self.pods_table.focus()

    def action_pause(self) -> None:
        self.paused = not self.paused
        if self.paused and self._poll_timer is not None:
            self._poll_timer.stop()
            self._poll_timer = None
        elif not self.paused and self._poll_enabled:
            self._start_poll()
        self._tick_status()

    def action_refresh(self) -> None:
        self._start_poll(force=True)

    def action_interval(self, step: int) -> None:
        now = self.settings.poll_interval
        idx = min(range(len(INTERVALS)), key=lambda i: abs(INTERVALS[i] - now))
        idx = max(0, min(len(INTERVALS) - 1, idx + step))
        self.settings.poll_interval = float(INTERVALS[idx])
        if self._poll_timer is not None:  # the next poll waits the new interval
            self._start_poll_later()
        self._tick_status()

    def _start_poll_later(self) -> None:
        if self._poll_timer is not None:
            self._poll_timer.stop()
        self._poll_timer = self.set_timer(self.settings.poll_interval, self._start_poll)

    def action_zoom(self) -> None:
        """The focused pane fills the screen (the whole loss area when the heatmap has the focus)."""
        if self.screen.maximized is not None:
            self.screen.minimize()
        elif self.focused is not None:
            self.screen.maximize(self.focused)

    async def on_unmount(self) -> None:
        if self.poller is not None:
            await self.poller.aclose()
