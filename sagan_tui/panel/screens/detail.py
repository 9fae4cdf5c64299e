"""Enter on an experiment: its fields, its plan (fetched from Sagan, shown safely), its pods and timeline."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Awaitable, Callable

from rich.console import Console
from rich.markdown import Markdown as RichMarkdown
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from sagan_tui.wire import fmt
from sagan_tui.wire import render
from sagan_tui.panel.messages import ExperimentViewed, PlanRendered
from sagan_tui.panel.desk import OneExperiment, OwnerActionDone
from sagan_tui.panel.owner_desk import owner_desk
from sagan_tui.panel.registry import DESK_GROUPS, bindings, desk_bindings, offering
from sagan_tui.panel.safe_text import clean, literal, one_line
from sagan_tui.panel.widgets.key_bar import KeyBar
from sagan_tui.panel.widgets.keyed_table import KeyedTable
from sagan_tui.panel.widgets.news_area import NewsArea
from sagan_tui.panel.widgets.panes import TimelineTable
from sagan_tui.panel.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from sagan_tui.wire.channel.surface import SessionSurface
    from sagan_tui.wire.channel.views import DetailView
    from sagan_tui.wire.channel.views import ExperimentView as Experiment
    from sagan_tui.panel.host import PanelHost
    from sagan_tui.panel.view import PanelView

FIELDS = ("kind", "runpod_account", "priority", "compute_size", "assignee_kind", "has_clean_result",
          "auto_approve_plan", "legacy_gh_number", "created_at", "updated_at")


def render_markdown(body: str, width: int) -> Text:
    """Markdown to styled text with Rich, off the main thread. Rich never reads console markup
    in markdown, and links are shown as text (no OSC 8 hyperlinks) so nothing in a plan acts."""
    console = Console(width=width, color_system="truecolor", force_terminal=True, file=io.StringIO(),
                      legacy_windows=False)
    with console.capture() as cap:
        console.print(RichMarkdown(body, hyperlinks=False), end="")
    return Text.from_ansi(cap.get(), end="")


def fields_text(exp: Experiment, approvals: int = 0) -> Text:
    text = Text(end="")
    text.append(f"#{exp.number} ", "bold")
    text.append(clean(exp.title), "bold")
    text.append("\n")
    status = render.status_cell(exp.status, exp.status_known)
    text.append("status ", "dim")
    text.append(status.text, status.style or "bold")
    turn = render.turn_cell(exp)
    text.append("   turn ", "dim")
    text.append(clean(exp.effective_turn), turn.style)
    text.append("\n")
    for name in FIELDS:
        value = getattr(exp, name, None)
        if value in (None, "", False):
            continue
        text.append(f"{name.replace('_', ' ')} ", "dim")
        text.append(clean(fmt.stamp(value) if name.endswith("_at") else value))  # with its date: days apart
        text.append("   ")
    if exp.tags:
        text.append("\ntags ", "dim")
        text.append(clean(", ".join(map(str, exp.tags))))
    if approvals:
        text.append(f"\n{approvals} pending approval request(s)", render.OWNER)
    for label, body in (("hypothesis", exp.hypothesis), ("body", exp.body)):
        if body:
            text.append(f"\n\n{label}\n", "bold underline")
            text.append(clean(body, multiline=True))
    return text


@offering(*DESK_GROUPS)
class DetailScreen(Screen):
    """The owner's action keys (the desk, panel/desk.py) act on this experiment."""

    if TYPE_CHECKING:  # Textual types `app` as App[object]: what this screen needs of it (panel/host.py)
        @property
        def app(self) -> PanelHost: ...

    DEFAULT_CSS = """
    #detail { height: 1fr; }
    /* The gutter is kept: a scrollbar appearing under a plan laid out for the width without it
       re-wrapped every line one word short ("the / owner / accepts."). */
    #detail-left { width: 3fr; border-top: hkey $accent; padding: 0 1; scrollbar-gutter: stable; }
    #detail-right { width: 2fr; }
    #detail-right > KeyedTable { height: 1fr; border-top: hkey $surface-lighten-2; border-title-align: left; }
    #detail-right > KeyedTable:focus { border-top: hkey $accent; }
    #detail-plan-title { margin-top: 1; }
    #detail-plan { height: auto; }
    """
    # The desk's keys, then the detail's own (panel/registry.py: `R` reloads the plan, `u` releases).
    BINDINGS = [*desk_bindings(), *bindings("detail")]

    def __init__(self, number: int, model: "PanelView",
                 fetch: Callable[[int], Awaitable["DetailView"]]) -> None:
        super().__init__()
        self.desk = owner_desk(self, OneExperiment(lambda: self.experiment))
        self.number = number
        self.model = model  # the UI's view of the session's records and rows
        self._fetch_view = fetch
        self.experiment: Experiment | None = model.experiments.get(number)
        self.plan = (self.experiment.plan_md if self.experiment else None) or ""
        self.raw = False
        self._rendered_width = 0

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")  # the sources, the clock and WAVE n · guard, as on the panes
        with Horizontal(id="detail"):
            with VerticalScroll(id="detail-left"):
                yield Static("", id="detail-fields")
                yield Static(literal("plan", "bold underline"), id="detail-plan-title")
                yield Static("", id="detail-plan")
            with Vertical(id="detail-right"):
                yield KeyedTable(render.POD_COLUMNS, title="Pods", id="detail-pods")
                yield TimelineTable(id="detail-timeline")
        yield NewsArea.of(self.app)  # the panel's news, in the flow: never over the status line
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#detail-timeline", TimelineTable).set_reactive(TimelineTable.everything, False)
        self.query_one("#detail-left").border_title = f"#{self.number}"
        self._ask_timeline()
        self.refresh_from_model()
        self._show_plan(self.plan or "loading the plan from Sagan…")
        self.action_fetch()

    def refresh_from_model(self) -> None:
        """Re-read pods and timeline from the model (after each poll); the cursor stays put."""
        exp = self.model.experiments.get(self.number) or self.experiment
        if exp is not None:
            self.experiment = exp
            self.query_one("#detail-fields", Static).update(fields_text(exp))
        pods = self.app.pods_table.records  # the rows the UI holds
        self.query_one("#detail-pods", KeyedTable).set_rows(self.model.pod_rows_of(self.number, pods))
        tl = self.query_one("#detail-timeline", TimelineTable)
        shown = None if tl.everything else self.number
        rows = self.model.timelines.get("detail")
        if rows is not None and (rows.experiment, rows.kind) == (shown, tl.kind):
            tl.set_rows(rows.rows)
        tl.describe(shown)

    def _ask_timeline(self) -> None:
        """The session sends this timeline's rows now and whenever events change (read in its thread)."""
        tl = self.query_one("#detail-timeline", TimelineTable)
        self.session.watch_timeline("detail", None if tl.everything else self.number, tl.kind)

    @property
    def session(self) -> SessionSurface:
        return self.app.session

    def selected_experiment(self) -> Experiment | None:
        return self.experiment

    def on_owner_action_done(self, event: OwnerActionDone) -> None:
        self.desk.done(event)

    def on_unmount(self) -> None:
        self.session.forget_timeline("detail")

    @on(TimelineTable.Changed)
    def _timeline_changed(self) -> None:
        self._ask_timeline()
        self.refresh_from_model()

    def _show_plan(self, plan: str) -> None:
        """The plan as cleaned text at once; its markdown rendering follows from a thread."""
        self.plan = plan
        self._rendered_width = 0
        self.query_one("#detail-plan", Static).update(Text(clean(plan, multiline=True), end=""))
        self.call_after_refresh(self._render_at_width)

    def _render_at_width(self) -> None:
        width = self.query_one("#detail-plan").size.width
        body = clean(self.plan, multiline=True)
        if self.raw or not body.strip() or width < 10 or width == self._rendered_width:
            return
        self._rendered_width = width
        self._render_plan(body, width)

    @work(thread=True, exclusive=True, group="plan-markdown", exit_on_error=False)
    def _render_plan(self, body: str, width: int) -> None:
        self.post_message(PlanRendered(self.number, width, body, render_markdown(body, width)))

    @on(PlanRendered)
    def _plan_rendered(self, message: PlanRendered) -> None:
        if not self.raw and message.source == clean(self.plan, multiline=True):
            self.query_one("#detail-plan", Static).update(message.text)

    def on_resize(self) -> None:
        self.call_after_refresh(self._render_at_width)

    @work(exclusive=True, group="detail", exit_on_error=False)
    async def action_fetch(self) -> None:
        try:
            view = await self._fetch_view(self.number)
        except Exception as exc:  # the text is the source's own, already scrubbed of secrets
            self.post_message(ExperimentViewed(self.number, None, one_line(str(exc) or type(exc).__name__)))
            return
        self.post_message(ExperimentViewed(self.number, view))

    @on(ExperimentViewed)
    def _viewed(self, message: ExperimentViewed) -> None:
        if message.view is None:
            self.notify(f"#{self.number}: plan not fetched: {message.error}", severity="warning", markup=False)
            if not self.plan or self.plan.startswith("loading"):
                self._show_plan(f"(plan not available: {message.error})")
            return
        exp = message.view.experiment
        self.experiment = exp
        pending = [a for a in message.view.approval_requests if a.status == "pending"]
        # A plan awaiting approval lives in its request's body until it is approved.
        asked = next((a for a in pending if a.kind == "experiment_plan" and a.body_md), None)
        title = self.query_one("#detail-plan-title", Static)
        if exp.plan_md or asked is None:
            plan = exp.plan_md or "(no plan yet)"
            title.update(literal("plan", "bold underline"))
        else:
            plan = asked.body_md
            title.update(literal(f"plan, as submitted for approval: {asked.title}", "bold underline"))
        self.query_one("#detail-fields", Static).update(fields_text(exp, len(pending)))
        self._show_plan(plan)

    def action_toggle_raw(self) -> None:
        self.raw = not self.raw
        self._show_plan(self.plan)

    def action_close(self) -> None:
        self.app.pop_screen()
