"""One table line (a row or the header) as a Strip of fixed-width padded cells, its text drawn literally."""

from __future__ import annotations

import functools
from typing import Sequence

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from sagan_tui.wire.safe_text import clean


@functools.lru_cache(maxsize=256)
def cell_style(spec: str) -> Style:
    """A cell's Rich style string ("bold yellow", "dim red") as a Style; the strings repeat across rows."""
    return Style.parse(spec) if spec else Style.null()


def fit(text: str, width: int) -> str:
    """`text` cut to `width` cells with an ellipsis when longer (Rich's "ellipsis" overflow)."""
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, width - 1) + "…" if width > 1 else set_cell_size(text, max(0, width))


def line_strip(cells: Sequence[tuple[str, str]], widths: Sequence[int], pad: int, base: Style,
               highlight: Style = Style.null()) -> Strip:
    """The cells (text, style string) at `widths`, `pad` blanks each side of each.

    `highlight` (the cursor or the hover) goes over the row's `base`; its colours win over the
    cells' own, as a DataTable's cursor does (its "css" priorities), so the cursor row reads as
    one band. The text is a Segment: never parsed as markup; escapes and controls are cleaned.
    """
    pre = base + highlight
    post = Style.from_color(highlight.color, highlight.bgcolor)
    blank = pre + post
    edge = " " * pad
    # Runs of one style are one segment (what Strip.simplify would make of them, without its
    # second strip and its style comparisons): the pads and fills around cells are one style.
    segments: list[Segment] = []
    run: list[str] = []
    run_style: Style | None = None
    total = 0
    for (text, style), width in zip(cells, widths):
        text = fit(clean(text), width)
        used = cell_len(text)
        for piece, piece_style in ((edge, blank), (text, pre + cell_style(style) + post if text else blank),
                                   (" " * (width - used), blank), (edge, blank)):
            if not piece:
                continue
            if piece_style is run_style or piece_style == run_style:
                run.append(piece)
            else:
                if run:
                    segments.append(Segment("".join(run), run_style))
                run, run_style = [piece], piece_style
        total += width + 2 * pad
    if run:
        segments.append(Segment("".join(run), run_style))
    return Strip(segments, total)
