"""Pane sizes that follow their content: the experiments and pods tables shrink to their rows and give the rest away."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.widget import Widget

# A table's height moves in steps, not with every row: a new row repaints the panes below only
# when it crosses a step (each such relayout is a whole-screen repaint over SSH).
STEP, LEAST = 4, 8


def fitted(rows: int, chrome: int, share: float) -> int | None:
    """The lines a table of `rows` rows takes (title border, header, scrollbar), in steps; None
    when that is no less than the `share` of the body it has anyway."""
    lines = max(LEAST, math.ceil((rows + chrome) / STEP) * STEP)
    return lines if lines < share else None


def body_rows(experiments: int, pods: int, body_height: int, narrow: bool) -> str | None:
    """`grid-rows` for the body, or None for the stylesheet's (the tables need their whole share).

    Wide: the two tables side by side over the timeline and the losses (half each by default).
    Narrow: experiments, pods, timeline, losses, one under the other (3fr 3fr 2fr 2fr by default)."""
    if not narrow:
        top = fitted(max(experiments, pods), 3, body_height / 2)
        return None if top is None else f"{top} 1fr"
    share = body_height * 3 / 10
    e, p = fitted(experiments, 2, share), fitted(pods, 2, share)
    return None if e is None and p is None else f"{e or '3fr'} {p or '3fr'} 2fr 2fr"


def fit_body(table: "Widget") -> None:
    """Size the body's rows to the tables' rows (the incident and zoomed layouts keep their own)."""
    body = table.parent
    if body is None or body.id != "body" or not body.size.height:
        return
    screen = table.screen
    rows = {t.id: t.row_count for t in body.query("#experiments, #pods")}  # type: ignore[attr-defined]
    if screen.has_class("-zoom"):  # one pane fills the body (MainScreen.toggle_zoom)
        return
    want = None if screen.has_class("-incident") else body_rows(
        rows.get("experiments", 0), rows.get("pods", 0), body.size.height, screen.has_class("-narrow"))
    if want == getattr(body, "_fitted_rows", None):
        return
    body._fitted_rows = want  # type: ignore[attr-defined]
    if want is None:
        body.styles.clear_rule("grid_rows")
    else:
        body.styles.grid_rows = want  # type: ignore[assignment]
