"""`B`: every RunPod account's balance, spend, runway, health and the balance seen since the panel started."""

from __future__ import annotations

from datetime import datetime
from typing import Mapping, Sequence

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from sagan_tui.basics import HealthState, SourceHealth
from sagan_tui.runway import runway, sparkline
from sagan_tui.ui.render import RUNWAY_STYLE, hhmm, money
from sagan_tui.ui.safe_text import clean
from sagan_tui.ui.widgets.key_bar import KeyBar

SPARK_WIDTH = 24


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
    return "ok", "green"


Cell = tuple[str, str]  # text, style
COLUMNS = (("account", "left"), ("health", "left"), ("balance", "right"), ("spend", "right"), ("runway", "left"),
           ("limit", "right"), ("balance since start", "left"))


def account_rows(health: Mapping[str, SourceHealth], history: Mapping[str, Sequence[tuple[datetime, float]]],
                 now: datetime, poll_interval: float, warn_hours: float) -> list[tuple[Cell, ...]]:
    """One row per account (Sagan left out): every state in words, colour only on top."""
    rows = []
    for name, h in health.items():
        if name == "sagan":
            continue
        r = runway(h, warn_hours)
        seen = [b for _t, b in history.get(name, ())]
        trend = (f"{sparkline(seen, SPARK_WIDTH)} {money(seen[0])} → {money(seen[-1])}" if len(seen) > 1
                 else "one reading" if seen else "none yet")
        rows.append(((clean(name), "bold"), health_text(h, now, poll_interval),
                     (money(h.balance), "bold red" if h.under_balance else ""),
                     (money(h.spend_per_hr, per_hour=True) if h.spend_per_hr is not None else "—", ""),
                     (r.text, RUNWAY_STYLE[r.state]) if r else ("—", "dim"),
                     (money(h.spend_limit, per_hour=True) if h.spend_limit is not None else "—", ""),
                     (trend, "")))
    return rows


def accounts_table(rows: list[tuple[Cell, ...]]) -> Table:
    table = Table(expand=True, box=None, pad_edge=False, header_style="bold")
    for i, (name, justify) in enumerate(COLUMNS):
        # Every column but the history keeps its width: at 80 columns the sparkline gives way.
        width = None if i == len(COLUMNS) - 1 else max([len(name), *(len(r[i][0]) for r in rows)])
        table.add_column(name, justify=justify, no_wrap=True, overflow="ellipsis",  # type: ignore[arg-type]
                         min_width=width)
    for row in rows:
        table.add_row(*(Text(text, style) for text, style in row))
    return table


class AccountsScreen(Screen[None]):
    """A full screen like help (a modal's blend over the panes costs seconds at 200x50); follows the polls."""

    BINDINGS = [Binding("escape,B,q", "close", "Close", id="accounts.close")]
    OWN_KEYS_ONLY = True

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="accounts-box") as box:
            box.border_title = "Accounts"
            box.border_subtitle = "RunPod stops every pod of an account at $0 · esc closes"
            yield Static(id="accounts-table")
            yield Static(Text("Runway is balance / current spend per hour; under runway_warn_hours it reads LOW "
                              "and rings once (notify setting). The history is what this panel's polls saw.",
                              "dim"), id="accounts-note")
        yield KeyBar()

    def on_mount(self) -> None:
        self.rows: list = []
        self.show()
        self.set_interval(1.0, self.show)  # a poll may have landed: repainted only when a cell changed

    def show(self) -> None:
        app = self.app
        model = getattr(app, "model", None)
        if model is None:
            return
        rows = account_rows(model.health, app.runway_watch.history, model.clock(),  # type: ignore[attr-defined]
                            app.settings.poll_interval, app.settings.runway_warn_hours)  # type: ignore[attr-defined]
        if rows != self.rows:
            self.rows = rows
            self.query_one("#accounts-table", Static).update(accounts_table(rows))

    def action_close(self) -> None:
        self.dismiss(None)
