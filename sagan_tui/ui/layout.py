"""Pane sizes that follow their content: the top row (experiments, pods) shrinks to its rows and gives the rest away."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.widget import Widget

# Heights the top row may take, in lines (styles/app.tcss has one `Screen.-top-N` rule per step).
# Steps, not every height: a new row repaints the panes below only when it crosses a step.
TOP_STEPS = tuple(range(8, 41, 4))
CHROME = 3  # the title border, the header, the horizontal scrollbar


def top_row_step(rows: int, body_height: int) -> int | None:
    """The top row's height for tables of `rows` rows in a body this tall; None: half and half.

    The tables keep at least half the body unless their rows fit in less."""
    want = rows + CHROME
    for step in TOP_STEPS:
        if step >= want:
            return step if step < body_height / 2 else None
    return None


def fit_top_row(table: "Widget") -> None:
    """Set the screen's `-top-N` class from the two top tables' row counts (wide layout only)."""
    body = table.parent
    if body is None or body.id != "body" or not body.size.height:
        return
    rows = max((t.row_count for t in body.query("#experiments, #pods")), default=0)  # type: ignore[attr-defined]
    step = top_row_step(rows, body.size.height)
    screen = table.screen
    for s in TOP_STEPS:
        screen.set_class(s == step, f"-top-{s}")
