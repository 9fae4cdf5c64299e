"""The audit log: every action the owner took from a panel on this cache, with its result, newest first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Static

from sagan_tui.wire import fmt
from sagan_tui.panel.safe_text import literal, one_line
from sagan_tui.panel.registry import OWN, bindings
from sagan_tui.panel.widgets.key_bar import KeyBar
from sagan_tui.panel.widgets.news_area import NewsArea
from sagan_tui.panel.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from sagan_tui.wire.channel.views import AuditView as Action
    from sagan_tui.panel.host import PanelHost

COLUMNS = ("#", "when (UTC)", "action", "target", "account", "result", "error")
RESULT_STYLE = {"ok": "green", "error": "bold red", "refused": "yellow", "cancelled": "yellow", "pending": "cyan"}
REFRESH_S = 2.0


def audit_row(a: Action) -> tuple[Text, ...]:
    """One audit line as table cells, every one literal: targets and errors come from servers."""
    return (literal(str(a.id)), literal(f"{fmt.day(a.at)} {fmt.hms(a.at)}"), literal(a.action),
            literal(one_line(a.target, 60)),
            literal(a.account or "—"), literal(a.result, RESULT_STYLE.get(a.result)),
            literal(one_line(a.error or "", 120)))


class AuditFeed:
    """What the audit screen reads as `cache.actions(limit)`: the session's last answer, asked again
    on each read, so the screen refreshes without touching SQLite on the UI thread."""

    def __init__(self, host: PanelHost, actions: list) -> None:
        self.host, self.last = host, actions

    def actions(self, limit: int) -> list:
        async def again() -> None:
            self.last = await self.host.session.audit_log(limit)

        # The function, not a coroutine: `exclusive` may cancel this worker before it starts, and
        # a coroutine made for it would then never be awaited (a RuntimeWarning in every run).
        self.host.run_worker(again, group="audit-feed", exclusive=True, exit_on_error=False)
        return self.last[:limit]


class AuditScreen(Screen[None]):
    """Refreshes by key every couple of seconds: a pending action turns ok or error in place. A full
    screen with the status line and the news area, as help and accounts (a modal covered the status line)."""

    DEFAULT_CSS = """
    AuditScreen > #audit { height: 1fr; border: thick $primary 60%; background: $surface; }
    AuditScreen #audit-title { text-style: bold; padding: 0 1; }
    AuditScreen DataTable { height: 1fr; }
    AuditScreen #audit-detail { height: auto; max-height: 6; padding: 0 1; color: $text-muted; }
    """
    BINDINGS = bindings("audit", runner=OWN)  # panel/registry.py; the keys are keymap.py's
    OWN_KEYS_ONLY = True  # the key bar shows this screen's keys (Textual's Footer cut the panel's at 80)

    def __init__(self, cache: "AuditFeed", limit: int = 500):
        super().__init__()
        self.cache = cache
        self.limit = limit
        self._shown: dict[int, Action] = {}

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")  # the sources, the clock and WAVE n · guard, as on the panes
        with Vertical(id="audit"):
            yield Static("Audit log: the owner's actions from this cache, newest first", id="audit-title")
            yield DataTable(id="audit-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="audit-detail")
        yield NewsArea.of(self.app)  # the panel's news, in the flow: never over the status line
        yield KeyBar()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for c in COLUMNS:
            table.add_column(c, key=c)
        self.refresh_rows()
        self.set_interval(REFRESH_S, self.refresh_rows)
        table.focus()

    def refresh_rows(self) -> None:
        table = self.query_one(DataTable)
        actions = self.cache.actions(self.limit)
        new = [a for a in actions if a.id not in self._shown]
        for a in actions:
            old = self._shown.get(a.id)
            if old is not None and (old.result, old.error) != (a.result, a.error):
                row = audit_row(a)
                table.update_cell(str(a.id), "result", row[5])
                table.update_cell(str(a.id), "error", row[6])
            self._shown[a.id] = a
        for a in new:
            table.add_row(*audit_row(a), key=str(a.id))
        if new and len(new) < len(actions):
            # Rows that arrive later belong at the top: the log reads newest first.
            table.sort("#", key=lambda cell: int(cell.plain), reverse=True)
        self._show_detail()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            self.query_one("#audit-detail", Static).update("No action taken from this cache yet.")
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        a = self._shown.get(int(key)) if key else None
        if a is None:
            return
        text = f"#{a.id} {a.action} {a.target} ({a.account or 'no account'}): {a.result}"
        if a.origin:
            text += f", by {a.origin}"
        if a.error:
            text += f"\n{a.error}"
        if a.detail:
            text += f"\n{a.detail}"
        self.query_one("#audit-detail", Static).update(literal(text, multiline=True))

    def action_move(self, step: int) -> None:
        table = self.query_one(DataTable)
        table.move_cursor(row=table.cursor_row + step)

    def action_close(self) -> None:
        self.dismiss(None)
