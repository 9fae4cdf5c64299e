"""MainScreen: the panes and their keys; applies the session's updates to them by key."""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Grid
from textual.screen import Screen
from textual.timer import Timer

from sagan_tui.panel.key_first import KeyFirst
from sagan_tui.panel.resources import read_layouts
from sagan_tui.panel.registry import BY_ENTRY_ID, DESK_GROUPS, bindings, desk_bindings, offering
from sagan_tui.panel.widgets.key_bar import KeyBar
from sagan_tui.panel.widgets.keyed_table import KeyedTable
from sagan_tui.panel.widgets.news_area import NewsArea
from sagan_tui.panel.widgets.panes import ApprovalsTable, ExperimentsTable, PodsTable, TimelineTable
from sagan_tui.panel.widgets.pending import PendingPane
from sagan_tui.panel.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from sagan_tui.panel.desk import Desk, OwnerActionDone
    from sagan_tui.wire.channel.surface import SessionSurface
    from sagan_tui.wire.channel.views import CachedPodView, ExperimentView, UpdateView
    from sagan_tui.wire.render import Row
    from sagan_tui.panel.host import PanelHost
    from sagan_tui.panel.view import PanelView
    from sagan_tui.panel.widgets.heatmap import LossHeatmap
    from sagan_tui.panel.widgets.loss_area import LossArea

NARROW_BELOW = 140  # columns: under this the panes stack
SAY_WAITING_S = 1.0  # an owner's write not done by then says that it waits, and for what
CURSOR_REST_S = 0.12  # the experiments cursor still this long: its timeline is asked for


def later_panes() -> list:
    from sagan_tui.panel.widgets.loss_area import LossArea

    return [TimelineTable(id="timeline"), LossArea(id="loss-area"), ApprovalsTable(id="approvals")]


def incident_lines(view) -> tuple[str, ...]:
    """The session's incident text for the wave panel, in the order it is shown."""
    return (*view.forming, *((view.canary,) if view.canary else ()), *(line for _, line in view.overrides),
            *(line for _, line in view.containment), *((view.since_looked,) if view.since_looked else ()))


# `1`-`5`: the panes in the order the default layout reads them (the help screen and README say so).
PANES = {"experiments": "#experiments", "pods": "#pods", "timeline": "#timeline", "losses": "#heatmap",
         "approvals": "#approvals"}


@offering(*DESK_GROUPS)
class MainScreen(Screen):
    """The experiments, pods, timeline, loss area and approvals; the inbox and incident layouts.

    Offers the owner's desk (panel/desk.py) on its selection: the focused row, the marks."""

    if TYPE_CHECKING:  # Textual types `app` as App[object]: what this screen needs of it (panel/host.py)
        @property
        def app(self) -> PanelHost: ...

    # The desk's keys, then `1`-`5` (panel/registry.py; the keys are keymap.py's).
    BINDINGS = [*desk_bindings(), *bindings("panes")]

    def __init__(self, pending: bool) -> None:
        super().__init__()
        self.pending = pending  # the `sagan-tui` start: three panes mount right after the first frame
        self._timeline_for: int | None = None
        self._rest_timer: Timer | None = None
        # The update pacing: a poll's news waits for a key's frame while keys come (panel/key_first.py).
        # The App routes the keys and the updates to it; the rule is the object's own.
        self.pacing: KeyFirst = KeyFirst()

    @functools.cached_property
    def desk(self) -> Desk:
        """The owner's desk on this screen's selection, made at its first use: its modules (the
        jobs, their results) are not the first frame's (docs/performance.md)."""
        from sagan_tui.panel.owner_desk import owner_desk

        return owner_desk(self, self)

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Grid(id="body"):
            yield ExperimentsTable(id="experiments")
            yield PodsTable(id="pods")
            if self.pending:
                # (the approvals pane is hidden until the incident layout: nothing of it is drawn)
                yield PendingPane("Timeline", id="timeline")
                yield PendingPane("Losses", id="loss-area")
            else:
                yield from later_panes()
        yield NewsArea(getattr(self.app, "news", None), id="news")
        yield KeyBar()

    def show_first(self, experiments: dict[str, Row], pods: dict[str, Row]) -> None:
        """The first frame's rows (sagan_tui/panel/peek.py), before the session's whole panel replaces them by key."""
        for table, rows in ((self.experiments_table, experiments), (self.pods_table, pods)):
            table.scope_label = "loading"  # the count in the title is of the first rows only
            table.set_rows(rows)

    async def mount_later_panes(self) -> None:
        """The panes the first frame showed as empty frames, in their place (the grid's last three)."""
        body = self.query_one("#body")
        pending = list(body.query_children(PendingPane))
        if pending:
            with self.app.batch_update():
                await body.remove_children(pending)
                await body.mount_all(later_panes())

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
        from sagan_tui.panel.widgets.loss_area import LossArea

        return self.query_one("#loss-area", LossArea)

    def on_mount(self) -> None:
        self.experiments_table.focus()
        self.app.panes_mounted()

    def narrow(self, width: int) -> None:
        self.set_class(width < NARROW_BELOW, "-narrow")

    # --- updates -----------------------------------------------------------------------

    def apply(self, u: UpdateView, now) -> None:
        """Rows by key; the timeline and the loss area when they changed."""
        if u.full:
            self.experiments_table.scope_label = ""
            self.pods_table.scope_label = ""
            self.experiments_table.set_rows(u.experiments)
            self.pods_table.set_rows(u.pods)
        else:
            if u.experiments or u.experiment_patches:
                self.experiments_table.update_rows(u.experiments, patches=u.experiment_patches)
            if u.pods or u.pods_removed or u.pod_patches:
                self.pods_table.update_rows(u.pods, u.pods_removed, u.pod_patches)
        if u.approvals is not None:
            self.query_one(ApprovalsTable).set_rows(u.approvals)
        for tl in u.timelines:
            if tl.tag == "main":
                self._show_timeline(tl)
        if u.losses is not None:
            lv = u.losses
            self.loss_area.show(lv.losses, lv.waves, now, (lv.shown, lv.active_until), incident_lines(lv))
            if self.has_class("-incident"):
                self.pods_table.set_scope(self._affected_scope(), "affected")
        if u.heatmap is not None or u.full:
            self.loss_area.show_grid(u.heatmap, full=u.full)

    def _show_timeline(self, tl) -> None:
        table = self.timeline
        if (None if table.everything else self._selected_number(), table.kind) != (tl.experiment, tl.kind):
            return  # an answer to a scope the owner has since left
        table.set_rows(tl.rows)
        table.describe(tl.experiment)
        if table.follow and table.row_count:
            table.move_cursor(row=0)

    def ask_timeline(self) -> None:
        tl = self.timeline
        exp = None if tl.everything else self._selected_number()
        self._timeline_for = exp
        tl.describe(exp)
        self.app.session.watch_timeline("main", exp, tl.kind)

    def _affected_scope(self):
        keys = self.app.view.loss_view.affected if self.app.view.loss_view else frozenset()
        return lambda k, _row: k in keys

    @property
    def session(self) -> SessionSurface:
        return self.app.session

    @property
    def view(self) -> PanelView:
        return self.app.view

    def on_owner_action_done(self, event: OwnerActionDone) -> None:
        self.desk.done(event)

    def open_approval(self, approval) -> None:
        """Open one request (the approvals pane's Enter; `a` on an experiment)."""
        self.desk.jobs["plans"].open_approval(approval)

    # --- selection, by the row's key ---------------------------------------------------

    def _selected_number(self) -> int | None:
        key = self.experiments_table.cursor_key
        return int(key) if key is not None else None

    def selected_experiment(self) -> ExperimentView | None:
        """That of the focused row (pod, approval, event); else the experiments cursor's."""
        number = self._selected_number()
        focused = self.focused
        if isinstance(focused, KeyedTable) and focused is not self.experiments_table:
            key = focused.cursor_key
            pane = "main" if focused is self.query_one("#timeline") else focused.id or ""
            number = self.view.experiment_of(pane, key) if key else None
        return self.view.experiments.get(number) if number is not None else None

    def selected_pod(self) -> CachedPodView | None:
        if self.focused is not self.pods_table:
            return None
        key = self.pods_table.cursor_key
        return self.view.pods.get(key) if key else None

    def marked_experiments(self) -> list[int]:
        return [int(k) for k in self.experiments_table.marks]

    def marked_pods(self) -> list[str]:
        return list(self.pods_table.marks)

    def clear_marks(self) -> None:
        self.experiments_table.clear_marks()
        self.pods_table.clear_marks()

    def hidden_marks(self, pane: str) -> tuple[list[str], str]:
        table = self.experiments_table if pane == "experiments" else self.pods_table
        return table.hidden_marked_keys(), table.hidden_by()

    # --- events from the panes -------------------------------------------------------------

    @on(KeyedTable.RowHighlighted, "#experiments")
    def _experiment_highlighted(self) -> None:
        # The timeline follows once the cursor rests (CURSOR_REST_S): the key's own frame is not
        # shared with reading and drawing another experiment's events (300 rows, and the
        # session's thread holding the GIL meanwhile), and a held arrow key asks for one
        # timeline, not one per row it passes.
        if self._rest_timer is not None:
            self._rest_timer.stop()
        self._rest_timer = self.set_timer(CURSOR_REST_S, self._cursor_rested)

    def rest_cursor(self) -> None:
        """What the cursor's rest (CURSOR_REST_S) does, now: the timeline follows its row."""
        if self._rest_timer is not None:
            self._rest_timer.stop()
        self._cursor_rested()

    def _cursor_rested(self) -> None:
        self._rest_timer = None
        if self.app.is_running and self.app.loaded and not self.timeline.everything and self._selected_number() != self._timeline_for:
            self.ask_timeline()

    @on(KeyedTable.RowSelected, "#experiments")
    def _experiment_selected(self, event: KeyedTable.RowSelected) -> None:
        if not self.app.loaded:
            return
        from sagan_tui.panel.screens.detail import DetailScreen

        self.app.push_screen(DetailScreen(int(event.key), self.app.view, self.session.view))

    @on(KeyedTable.RowSelected, "#pods")
    def _pod_selected(self, event: KeyedTable.RowSelected) -> None:
        if self.app.loaded:
            self.open_pod(event.key)

    # By its handler's name, not @on: the heatmap's module is imported with the loss area, after the first frame.
    def on_loss_heatmap_cell_selected(self, event: LossHeatmap.CellSelected) -> None:
        # A cell of one loss is that pod: its screen. A cell of several lists them under the
        # heatmap (the widget's own answer), each a row of the pods pane to open from there.
        if self.app.loaded and len(event.losses) == 1:
            self.open_pod(event.losses[0].pod_id)

    def open_pod(self, pod_id: str) -> None:
        """The pod's own screen (a pod row's Enter, a loss's)."""
        from sagan_tui.panel.screens.pod import PodScreen

        cp = self.app.view.pods.get(pod_id)
        account = cp.account if cp else next((x.account for x in self.app.view.losses if x.pod_id == pod_id), "")
        self.app.push_screen(PodScreen(pod_id, account, self.app.view, self.session))

    @on(KeyedTable.RowSelected, "#approvals")
    def _approval_selected(self, event: KeyedTable.RowSelected) -> None:
        found = [a for a in self.view.approvals if a.id == event.key]
        if found:
            self.open_approval(found[0])

    @on(TimelineTable.Changed)
    def _timeline_changed(self) -> None:
        if self.app.loaded:
            self.ask_timeline()

    @on(PodsTable.DismissRequested)
    def _dismiss(self, event: PodsTable.DismissRequested) -> None:
        if not self.app.loaded:
            return
        if not self.desk.refused(BY_ENTRY_ID["pods.dismiss"], event.pod_id):  # x writes the shared cache
            self._said(lambda: self.session.dismiss(event.pod_id), f"x {event.pod_id}")

    @on(PodsTable.ShowDismissedToggled)
    def _toggle_dismissed(self) -> None:
        if self.app.loaded:
            self._said(self.session.toggle_dismissed, "X")

    def _said(self, call, what: str) -> None:
        """Run a local write (`x`, `X`) and say its result. Behind another process's write lock it
        can wait up to the cache's busy timeout: past SAY_WAITING_S the owner is told it waits."""
        async def run() -> None:
            pending = asyncio.ensure_future(call())
            done, _ = await asyncio.wait({pending}, timeout=SAY_WAITING_S)
            if not done:
                self.app.notify(f"{what}: waiting to write the cache (another process is writing to it)",
                                markup=False)
            try:
                said = await pending
            except Exception as exc:  # noqa: BLE001 - e.g. the cache stayed locked past the retries
                self.app.notify(f"not done: {type(exc).__name__}: {exc}", severity="error", markup=False)
                return
            self.app.notify(said, markup=False)

        self.app.run_worker(run(), group="owner-local", exit_on_error=False)

    # --- layouts -------------------------------------------------------------------------

    def toggle_inbox(self) -> None:
        table = self.experiments_table
        if table.scope is None:
            table.set_scope(lambda _k, row: row.group == 0, "inbox")
        else:
            table.set_scope(None)
        table.focus()

    def toggle_incident(self) -> None:
        read_layouts(self.app.stylesheet)  # read after the first frame: a key may come first
        on_ = not self.has_class("-incident")
        self.set_class(on_, "-incident")
        body, area = self.query_one("#body"), self.loss_area
        if on_:
            body.move_child(area, before=self.pods_table)
            self.pods_table.set_scope(self._affected_scope(), "affected")
        else:
            body.move_child(area, after=self.timeline)
            self.pods_table.set_scope(None)
        self.pods_table.focus()

    def action_pane(self, name: str) -> None:
        """Focus pane `name` (not yet mounted in the first second: nothing); a zoomed body shows it."""
        found = self.query(PANES[name])
        if not found or not found.first().can_focus:
            return
        zoomed = self.has_class("-zoom")
        if zoomed:
            self.toggle_zoom()
        self.set_focus(found.first())  # at once (Widget.focus waits a turn): zoom reads the focus
        if zoomed:
            self.toggle_zoom()

    def toggle_zoom(self) -> None:
        """The focused pane fills the body; the status line (the wave's count and guard) and the
        key bar stay, which Textual's maximize hides. Again: every pane back."""
        from sagan_tui.panel.layout import fit_body

        body = self.query_one("#body")
        if self.has_class("-zoom"):
            for pane in body.children:
                pane.remove_class("-zoomed")
            self.remove_class("-zoom")
            fit_body(self.experiments_table)
            return
        pane = self.focused
        while pane is not None and pane.parent is not body:
            pane = pane.parent  # type: ignore[assignment]
        if pane is None:
            return
        read_layouts(self.app.stylesheet)  # read after the first frame: a key may come first
        body.styles.clear_rule("grid_rows")  # panel/layout.py's fitted rows: one pane has them all
        body._fitted_rows = None  # type: ignore[attr-defined]
        pane.add_class("-zoomed")
        self.add_class("-zoom")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.app.loaded:
            return None  # shown, dimmed: the cache is still being opened (a second or two)
        return super().check_action(action, parameters)
