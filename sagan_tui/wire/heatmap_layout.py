"""The loss heatmap's geometry and shades, pure: shared by the session, which builds the grid for
the width the UI asked for (core/session/heatmap_view.py), and the UI's renderer (panel/heatmap_render.py).

`layout(labels, width, columns)` says how wide the label column is and how many buckets fit;
`buckets_for(room)` how many buckets to build for `room` characters; `shade(count, max)` the
legend level of a cell. No I/O, no Textual, no triage: the layer contract lets the UI import it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

DIMENSIONS = ("account", "experiment", "datacenter", "gpu")  # what the rows may be by, in `d`'s order
LABEL_MAX = 18
LABEL_MIN = 4
SEP = "│"
WIDE_CELLS_FROM = 40  # with this much room, a bucket is two characters: about square on screen


def buckets_for(room: int) -> int:
    """How many buckets to build, given `room` characters for the cells."""
    return room // 2 if room >= WIDE_CELLS_FROM else room


@dataclass(frozen=True)
class Layout:
    label_w: int  # label column, without the separator
    cell_w: int  # characters per bucket (wider cells when there are few buckets)
    columns: int  # buckets that fit


def layout(labels: Sequence[str], width: int, columns: int | None = None) -> Layout:
    """The label width for `labels` and, for `columns` buckets (or as many as fit), the cell width."""
    longest = max((len(x) for x in labels), default=0)
    label_w = max(LABEL_MIN, min(LABEL_MAX, longest, max(LABEL_MIN, width // 4)))
    room = max(1, width - label_w - len(SEP))
    if columns is None or columns <= 0:
        return Layout(label_w, 1, room)
    return Layout(label_w, max(1, room // columns), min(columns, room))


def shade(count: int, max_count: int) -> int:
    """Legend level 0..4: 0 is no loss, 4 the busiest cell; any loss shows at least 1."""
    if count <= 0 or max_count <= 0:
        return 0
    return max(1, min(4, math.ceil(4 * count / max_count)))
