"""`B`: every RunPod account's balance, spend, runway, health, and its balance history from the cache as a sparkline."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Mapping, Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Center, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from sagan_tui.wire.basics import HealthState, SourceHealth
from sagan_tui.wire.runway import resample, runway, sparkline
from sagan_tui.wire.fmt import when
from sagan_tui.wire.render import RUNWAY_STYLE, hhmm, money
from sagan_tui.panel.safe_text import clean
from sagan_tui.panel.widgets.key_bar import KeyBar
from sagan_tui.panel.widgets.news_area import NewsArea
from sagan_tui.panel.widgets.status_bar import StatusBar
from sagan_tui.panel.registry import OWN, bindings

if TYPE_CHECKING:
    from sagan_tui.panel.host import PanelHost

SPARK_WIDTH = 24
WIDE_FROM = 140  # cells: from here the balance history has room in its column


def health_text(h: SourceHealth, now: datetime, poll_interval: float) -> tuple[str, str]:
    """The account's poll health in words, and its style."""
    if h.state == HealthState.DISABLED:
        return "off (no key)", "dim"
    if h.state == HealthState.ERROR:
        kind = h.error_kind.value if h.error_kind else "error"
        since = f" since {hhmm(h.last_success)}" if h.last_success else ""
        return f"FAILING {kind}{since}", "bold red"
    if h.last_success is None:
        return "not polled yet", "dim"
    if h.stale(now, poll_interval):
        return f"stale since {hhmm(h.last_success)}", "yellow"
    # As the header says it: some of its records are not known as listed, so never a plain ok.
    for n, what, since in ((h.unreadable, "unreadable", h.unreadable_since),
                           (h.duplicates, "duplicated", h.duplicates_since)):
        if n:
            return f"⚠ {n} {what}" + (f" since {hhmm(since)}" if since else ""), "yellow"
    return "ok", "green"


Cell = tuple[str, str]  # text, style
COLUMNS = (("account", "left"), ("health", "left"), ("balance", "right"), ("spend", "right"), ("runway", "left"),
           ("limit", "right"), ("balance history", "left"), ("billing", "left"))


def trend_text(points: Sequence[tuple[datetime, float]], now: datetime) -> str:
    """`▇▇▅▃▁ $412.50 → $35.00 since 05-14 10:38`: the balance over time, first and last, and since when."""
    pts = sorted(p for p in points if p[1] is not None)
    if not pts:
        return "none yet"
    if len(pts) == 1:
        return f"{money(pts[0][1])} since {when(pts[0][0], now)}"
    line = sparkline(resample(pts, pts[0][0], max(now, pts[-1][0]), SPARK_WIDTH), SPARK_WIDTH)
    return f"{line} {money(pts[0][1])} → {money(pts[-1][1])} since {when(pts[0][0], now)}"


def account_rows(health: Mapping[str, SourceHealth], history: Mapping[str, Sequence[tuple[datetime, float]]],
                 now: datetime, poll_interval: float, warn_hours: float) -> list[tuple[Cell, ...]]:
    """One row per account (Sagan left out): every state in words, colour only on top."""
    rows = []
    for name, h in health.items():
        if name == "sagan":
            continue
        r = runway(h, warn_hours)
        trend = trend_text(history.get(name, ()), now)
        rows.append(((clean(name), "bold"), health_text(h, now, poll_interval),
                     (money(h.balance), "bold red" if h.under_balance else ""),
                     (money(h.spend_per_hr, per_hour=True) if h.spend_per_hr is not None else "—", ""),
                     (r.text, RUNWAY_STYLE[r.state]) if r else ("—", "dim"),
                     (money(h.spend_limit, per_hour=True) if h.spend_limit is not None else "—", ""),
                     (trend, ""),
                     # PREPAID: the balance stops the pods at $0; POSTPAID: invoiced, it stops nothing.
                     (h.billing_mode or "—", "bold" if h.billing_mode == "POSTPAID" else "dim")))
    return rows


def accounts_table(rows: list[tuple[Cell, ...]], width: int | None = None) -> RenderableType:
    """The accounts as a table `width` cells wide (None: as wide as it needs). Under WIDE_FROM the
    balance history leaves the table for a line of its own under it: at 80 columns it was squeezed
    to three letters a line and the columns after it were cut off."""
    wide = width is None or width >= WIDE_FROM
    table = Table(expand=True, box=None, pad_edge=False, header_style="bold")
    kept = [i for i, (name, _) in enumerate(COLUMNS) if wide or name != "balance history"]
    for i in kept:
        name, justify = COLUMNS[i]
        # Figures keep their width; words (the history, and health and runway when narrow) wrap
        # between words, never cut: a time cut to `06:` read as a different time.
        wraps = name == "balance history" or (not wide and name in ("health", "runway"))
        width_of = None if wraps else max([len(name), *(len(r[i][0]) for r in rows)])
        table.add_column(name, justify=justify, no_wrap=not wraps,  # type: ignore[arg-type]
                         overflow="fold" if wraps else "ellipsis", min_width=width_of)
    for row in rows:
        table.add_row(*(Text(row[i][0], row[i][1]) for i in kept))
    if wide:
        return table
    history = Text("\nbalance history", "bold")
    at = COLUMNS.index(("balance history", "left"))
    names = max((len(row[0][0]) for row in rows), default=0)
    for row in rows:
        history.append(f"\n{row[0][0]:<{names}}  ", "bold")
        history.append(row[at][0], row[at][1])
    return Group(table, history)


HISTORY_EVERY_S = 30.0


@dataclass
class HistoryRead(Message):
    """The balance history, read from the cache by the screen's worker."""

    history: dict[str, list[tuple[datetime, float]]]


class AccountsScreen(Screen[None]):
    """A full screen like help (a modal's blend over the panes costs seconds at 200x50); follows the polls."""

    DEFAULT_CSS = """
    #accounts-row { height: 1fr; }  /* centred in a row of its own, as help's box (screens/help.py) */
    #accounts-box { width: 1fr; max-width: 150; height: 1fr; border: round $accent; padding: 0 1; }
    #accounts-note { margin-top: 1; }
    """

    if TYPE_CHECKING:  # Textual types `app` as App[object]: this screen runs only in the panel's App
        @property
        def app(self) -> PanelHost: ...

    BINDINGS = bindings("accounts", runner=OWN)  # panel/registry.py; the keys are keymap.py's
    OWN_KEYS_ONLY = True

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")  # the sources, the clock and WAVE n · guard, as on the panes
        with Center(id="accounts-row"), VerticalScroll(id="accounts-box") as box:
            box.border_title = "Accounts"
            box.border_subtitle = "RunPod stops every pod of an account at $0 · esc closes"
            yield Static(id="accounts-table")
            yield Static(Text("Runway is balance / current spend per hour; under runway_warn_hours it reads LOW "
                              "and rings once (notify setting). The history is the cache's: a point each time a balance moved.",
                              "dim"), id="accounts-note")
        yield NewsArea.of(self.app)  # the panel's news, in the flow: never over the status line
        yield KeyBar()

    def __init__(self) -> None:
        super().__init__()
        self.rows: list = []
        self.width = 0  # the table's, when last drawn
        self.history: dict[str, list[tuple[datetime, float]]] = {}

    def on_mount(self) -> None:
        self.show()
        self._read_history()
        self.set_interval(1.0, self.show)  # a poll may have landed: repainted only when a cell changed
        self.set_interval(HISTORY_EVERY_S, self._read_history)

    @work(exclusive=True, group="accounts-history", exit_on_error=False)
    async def _read_history(self) -> None:
        """The cache's balance history (rows written when a balance moved), read by the session."""
        session = getattr(self.app, "session", None)
        if session is not None and self.app.loaded:  # the session has opened the cache
            found = await session.balance_history()
            self.post_message(HistoryRead({a: [(r[0], r[1]) for r in rows] for a, rows in found.items()}))

    @on(HistoryRead)
    def _history_read(self, message: HistoryRead) -> None:
        self.history = message.history
        self.show()

    def show(self) -> None:
        app = self.app
        view = getattr(app, "view", None)
        if view is None or not view.health:
            return
        # The cache's history, else what this panel's polls saw (a cache from before balance history).
        seen = {a: list(v) for a, v in app.runway_watch.history.items()}
        history = {a: self.history.get(a) or seen.get(a, []) for a in {*self.history, *seen}}
        rows = account_rows(view.health, history, app.clock(),
                            app.settings.poll_interval, app.settings.runway_warn_hours)
        table = self.query_one("#accounts-table", Static)
        width = table.content_size.width or app.size.width - 4  # before its first layout: the box's inside
        if (rows, width) != (self.rows, self.width):
            self.rows, self.width = rows, width
            table.update(accounts_table(rows, width))

    def on_resize(self) -> None:
        self.call_after_refresh(self.show)  # the table's new width is known after this layout

    def action_close(self) -> None:
        self.dismiss(None)
