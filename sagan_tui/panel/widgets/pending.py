"""A pane's frame before the pane itself: what the first frame shows of the panes it does not need."""

from __future__ import annotations

from textual.widgets import Static


class PendingPane(Static):
    """The titled, empty frame of a pane that is mounted right after the first frame.

    The timeline, the loss area and the approvals (hidden until the incident layout) are two
    tables and five widgets more for the first frame to style, lay out and draw: about a
    tenth of a second of the start (bench/bench_start.py). The timeline's and the loss area's
    frames are swapped for their panes, with the same id and place in the grid, as soon as the
    first frame is out, and the approvals pane (which the first frame does not show) is mounted
    after them, last in the grid as ever.
    """

    def __init__(self, title: str, *, id: str) -> None:
        super().__init__("", id=id)
        self.border_title = title
