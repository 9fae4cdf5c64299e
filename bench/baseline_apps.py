"""Baseline Textual apps the panel is measured against: one Static, a clock, a stock DataTable.

`python bench/baseline_apps.py bare|clock|datatable [--rows N] [--every S]`
"""

from __future__ import annotations

import argparse
import time

from textual.app import App, ComposeResult
from textual.widgets import DataTable, Static

MARKER = "BASELINE-READY"


class Bare(App):
    """The least a Textual app can do: show one line."""

    def compose(self) -> ComposeResult:
        yield Static(MARKER)


class Clock(App):
    """One Static whose text changes every second: the floor for showing a clock."""

    def compose(self) -> ComposeResult:
        yield Static(MARKER)
        yield Static(id="clock")

    def on_mount(self) -> None:
        self.set_interval(1, self._tick)

    def _tick(self) -> None:
        self.query_one("#clock", Static).update(time.strftime("%H:%M:%S"))


class Table(App):
    """A stock DataTable of `rows` rows in which one cell changes every `every` seconds."""

    def __init__(self, rows: int, every: float) -> None:
        super().__init__()
        self.rows, self.every, self.n = rows, every, 0

    def compose(self) -> ComposeResult:
        yield Static(MARKER)
        yield DataTable(cursor_type="row")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for c in ("pod", "account", "exp", "status", "gpu", "dc", "uptime", "cost"):
            table.add_column(c, key=c)
        for i in range(self.rows):
            table.add_row(f"pod{i:010d}", "team", f"#{1000 + i % 2000}", "RUNNING", "A100 80GB", "US-KS-2",
                          "3h12m", "$1.49/h", key=str(i))
        self.set_interval(self.every, self._change)

    def _change(self) -> None:
        # a row in view, as the pods table's one changed row would be
        self.n += 1
        self.query_one(DataTable).update_cell(str(self.n % 10), "status", "EXITED" if self.n % 2 else "RUNNING")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("kind", choices=["bare", "clock", "datatable"])
    p.add_argument("--rows", type=int, default=1000)
    p.add_argument("--every", type=float, default=1.0)
    a = p.parse_args()
    app = {"bare": Bare, "clock": Clock}.get(a.kind)
    (app() if app else Table(a.rows, a.every)).run()


if __name__ == "__main__":
    main()
