"""Pure renderers of the loss heatmap: a grid (the session's HeatGridView, or core/triage/heatmap.py's
HeatGrid: the same attributes) to styled rich Text lines.

`render_heatmap(grid, width, cursor)` gives the lines the LossHeatmap widget paints, in order:
one line per row (label, then one cell per time bucket), the wave marker line, the time axis
and the legend. The geometry (`layout`, `buckets_for`) and the shades are those of
sagan_tui/wire/heatmap_layout.py, shared with the session, which builds the grid for the width the
widget asked for. `render_cell_losses` lists a selected cell's losses. No Textual here: everything is tested without a screen.

Every piece of data (labels, pod ids) goes into `Text` as plain text, never as markup.
"""

from __future__ import annotations

import bisect
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Sequence

from rich.text import Text

from sagan_tui.wire.heatmap_layout import LABEL_MAX, LABEL_MIN, SEP, Layout, buckets_for, layout, shade  # noqa: F401
from sagan_tui.wire.safe_text import clean
from sagan_tui.wire import fmt

if TYPE_CHECKING:  # annotations only: the grid arrives as the channel's HeatGridView
    from sagan_tui.wire.channel.views import HeatGridView as HeatGrid
    from sagan_tui.wire.channel.views import LossRecordView as Loss

# Glyphs carry the shade without colour (a monochrome terminal, a screenshot pasted in a
# ticket); the colours make the hot cells jump out where there is colour.
GLYPHS = ("·", "░", "▒", "▓", "█")
SHADE_STYLES = ("color(238)", "color(222)", "color(214)", "color(202)", "bold color(196)")
# Only the active wave's columns get a band behind them: one highlighted column, not several
# competing ones (older waves keep their marker and time label, in a duller red).
ACTIVE_BG = "on color(88)"
WAVE_MARK = "bold color(196)"
OLD_WAVE_MARK = "color(167)"
CURSOR = "bold color(231) on color(27)"  # an empty cell under the cursor: white on blue
# A busy cell under the cursor shows its count, white on its own shade's colour: the hot
# column stays red (reverse would turn a full block black) and the count is readable.
CURSOR_ON = ("", "on color(136)", "on color(166)", "on color(160)", "on color(196)")
DIM = "color(245)"
DIMENSION_NAMES = {"account": "account", "experiment": "experiment", "datacenter": "data center", "gpu": "GPU type"}


def printable(text: object) -> str:
    """Untrusted text on one line, through the one sanitiser (`sagan_tui.wire.safe_text.clean`)."""
    return clean(text)


def fit(label: str, width: int) -> str:
    """`label` cut to `width` with an ellipsis, then padded: a column never shifts."""
    label = printable(label)
    return (label if len(label) <= width else label[: width - 1] + "…").ljust(width)


def _wave_runs(columns: frozenset[int]) -> list[tuple[int, int]]:
    """Contiguous [first, last] runs of wave columns."""
    runs: list[tuple[int, int]] = []
    for c in sorted(columns):
        if runs and c == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], c)
        else:
            runs.append((c, c))
    return runs


def _cell(glyph: str, cell_w: int) -> str:
    # A wide cell repeats a solid glyph; an empty one keeps a single dot so the row stays calm.
    return glyph * cell_w if glyph != GLYPHS[0] else glyph.center(cell_w)


def render_rows(grid: HeatGrid, lay: Layout, cursor: tuple[int, int] | None,
                active_columns: frozenset[int] = frozenset()) -> list[Text]:
    lines = []
    for r, label in enumerate(grid.rows):
        line = Text(no_wrap=True, end="")
        line.append(fit(label, lay.label_w), style="bold")
        line.append(SEP, style=DIM)
        for c, count in enumerate(grid.counts[r][: lay.columns]):
            level = shade(count, grid.max_count)
            style = SHADE_STYLES[level]
            if c in active_columns:
                style = f"{style} {ACTIVE_BG}"
            text = _cell(GLYPHS[level], lay.cell_w)
            if cursor == (r, c):
                style = CURSOR if level == 0 else f"bold color(231) {CURSOR_ON[level]}"
                text = (str(count) if count < 10 else "+").center(lay.cell_w) if level else text
            line.append(text, style=style)
        lines.append(line)
    return lines


def render_wave_marks(grid: HeatGrid, lay: Layout, active_columns: frozenset[int] = frozenset()) -> Text:
    """`━━▲━━` under each run of wave columns, `▲` under a one-column wave."""
    line = Text(no_wrap=True, end="")
    line.append(fit("wave", lay.label_w) + SEP, style=DIM)
    marks = [" "] * (lay.columns * lay.cell_w)
    styles = [""] * len(marks)
    for a, b in _wave_runs(frozenset(c for c in grid.wave_columns if c < lay.columns)):
        lo, hi = a * lay.cell_w, (b + 1) * lay.cell_w
        style = WAVE_MARK if active_columns & set(range(a, b + 1)) else OLD_WAVE_MARK
        for i in range(lo, hi):
            marks[i], styles[i] = "━", style
        for i in range(lo, hi) if hi - lo <= 2 else [(lo + hi - 1) // 2]:
            marks[i] = "▲"
    for ch, style in zip(marks, styles):
        line.append(ch, style=style)
    return line


TICK_STEPS = (60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800)


def _stamp(when: datetime, multi_day: bool) -> str:
    return when.strftime("%m-%d %H:%M" if multi_day else "%H:%M")


def render_axis(grid: HeatGrid, lay: Layout, active_columns: frozenset[int] = frozenset()) -> Text:
    """Time labels: each wave's start under its marker first, the window's ends, then round ticks."""
    span = lay.columns * lay.cell_w
    line = Text(no_wrap=True, end="")
    line.append(fit("UTC", lay.label_w) + " ", style=DIM)
    if not grid.bucket_starts or span <= 0:
        return line
    first = fmt.utc(grid.bucket_starts[0])
    last = first + timedelta(seconds=grid.bucket_s * lay.columns)
    multi_day = first.date() != (last - timedelta(seconds=1)).date()
    chars: list[tuple[str, str]] = [(" ", DIM)] * span
    taken = [False] * span

    def put(pos: int, text: str, style: str = DIM) -> bool:
        pos = min(max(pos, 0), span - len(text))
        lo, hi = pos, pos + len(text)
        if lo < 0 or any(taken[max(0, lo - 3): min(span, hi + 3)]):
            return False
        chars[lo:hi] = [(ch, style) for ch in text]
        taken[lo:hi] = [True] * len(text)
        return True

    runs = _wave_runs(frozenset(c for c in grid.wave_columns if c < lay.columns))
    runs.sort(key=lambda run: not (active_columns & set(range(run[0], run[1] + 1))))
    for a, b in runs:
        mid = (a * lay.cell_w + (b + 1) * lay.cell_w - 1) // 2
        label = _stamp(fmt.utc(grid.bucket_starts[a]), multi_day)
        hot = bool(active_columns & set(range(a, b + 1)))
        put(mid - len(label) // 2, label, WAVE_MARK if hot else OLD_WAVE_MARK)
    left, right = _stamp(first, multi_day), _stamp(last, multi_day)
    put(0, left)
    put(span - len(right), right)
    per_char = grid.bucket_s / lay.cell_w
    want = max(1, span // (len(left) + 8))  # a label every ~13 characters at most
    total_s = grid.bucket_s * lay.columns
    step = next((s for s in TICK_STEPS if total_s / s <= want), TICK_STEPS[-1])
    t0 = first.timestamp()
    tick = (int(t0) // step + 1) * step
    while tick < last.timestamp():
        put(int((tick - t0) / per_char), _stamp(datetime.fromtimestamp(tick, timezone.utc), multi_day))
        tick += step
    for ch, style in chars:
        line.append(ch, style=style)
    return line


def shade_ranges(max_count: int) -> list[tuple[int, int, int]]:
    """(level, lowest count, highest count) of each shade in use, for the legend."""
    if max_count <= 0:
        return []
    out = []
    counts = range(1, max_count + 1)
    for level in range(1, 5):
        # shade() is monotonic in the count: bisect instead of walking up to a million counts.
        lo = bisect.bisect_left(counts, level, key=lambda n: shade(n, max_count))
        hi = bisect.bisect_right(counts, level, key=lambda n: shade(n, max_count))
        if lo < hi:
            out.append((level, counts[lo], counts[hi - 1]))
    return out


def render_legend(grid: HeatGrid, width: int | None = None) -> Text:
    """`losses/cell ▒ 1  ▓ 2  █ 3  ▲ wave  1 col = 2 min`, shorter when `width` is tight."""
    def build(prefix: str, sep: str, gap: str, col: str) -> Text:
        line = Text(no_wrap=True, end="")
        line.append(prefix, style=DIM)
        for level, lo, hi in shade_ranges(grid.max_count):
            line.append(GLYPHS[level], style=SHADE_STYLES[level])
            line.append(f"{sep}{lo}" if lo == hi else f"{sep}{lo}-{hi}", style=DIM)
            line.append(gap)
        line.append("▲", style=WAVE_MARK)
        line.append(f"{sep}wave{gap}", style=DIM)
        line.append(col, style=DIM)
        return line

    line = build("losses/cell ", " ", "  ", f"1 col = {fmt.duration(grid.bucket_s)}")
    if width is not None and line.cell_len > width:
        line = build("", "", " ", f"col {fmt.duration(grid.bucket_s)}")
    return line


def render_heatmap(grid: HeatGrid, width: int, cursor: tuple[int, int] | None = None,
                   active_columns: frozenset[int] = frozenset()) -> list[Text]:
    """The heatmap as lines no wider than `width`: rows, wave marks, time axis, legend."""
    lay = layout(grid.rows, width, len(grid.bucket_starts))
    if not grid.rows:
        empty = Text(fit("", lay.label_w) + SEP + f" no losses {fmt.window(grid.start, grid.end)}",
                     style=DIM, no_wrap=True, end="")
        lines = [empty]
    else:
        lines = render_rows(grid, lay, cursor, active_columns)
    lines += [render_wave_marks(grid, lay, active_columns), render_axis(grid, lay, active_columns), render_legend(grid, width)]
    for line in lines:
        line.truncate(width)
    return lines


def render_header(dimension: str, window_name: str, total: int, width: int | None = None) -> Text:
    """`Losses by account (d)  window all (w)  8 losses`: what is shown and which key changes it."""
    name = DIMENSION_NAMES.get(dimension, dimension)
    losses = f"{total} loss{'es' * (total != 1)}"
    line = Text(no_wrap=True, end="")
    line.append("Losses by ", style="bold")
    line.append(name, style="bold underline")
    line.append(" (d)", style=DIM)
    line.append("  window ", style=DIM)
    line.append(window_name, style="bold")
    line.append(" (w)", style=DIM)
    line.append(f"  {losses}", style=DIM)
    if width is not None and line.cell_len > width:
        line = Text(no_wrap=True, end="")
        line.append(name, style="bold underline")
        line.append("(d) ", style=DIM)
        line.append(window_name, style="bold")
        line.append("(w) ", style=DIM)
        line.append(losses, style=DIM)
    return line


def render_cursor_line(grid: HeatGrid, cursor: tuple[int, int] | None) -> Text:
    """`▸ team 10:54-10:55 UTC: 3 losses (enter lists them)`: the cell under the cursor, in words."""
    line = Text(no_wrap=True, end="")
    if cursor is None or not grid.rows:
        return line
    r, c = cursor
    start = grid.bucket_starts[c]
    n = grid.counts[r][c]
    line.append("▸ ", style="bold color(33)")
    line.append(printable(grid.rows[r]), style="bold")
    line.append(f" {fmt.window(start, start + timedelta(seconds=grid.bucket_s), seconds=grid.bucket_s < 60)}: ")
    line.append(f"{n} loss{'es' * (n != 1)}", style="bold" if n else DIM)
    line.append(" (enter)" if n else "", style=DIM)
    return line


def render_cell_losses(row_label: str, bucket_start: datetime, bucket_s: float,
                       losses: Sequence[Loss], limit: int = 8, width: int | None = None) -> list[Text]:
    """The selected cell: a title line, then per loss its pod, account, exp, lost at and gap.

    One line per loss; two (the times under the pod) when `width` is too narrow for one.
    """
    end = bucket_start + timedelta(seconds=bucket_s)
    title = Text(no_wrap=True, end="")
    title.append(printable(row_label), style="bold")
    title.append(f"  {fmt.window(bucket_start, end, seconds=True)}  ", style=DIM)
    title.append(f"{len(losses)} loss{'es' * (len(losses) != 1)}", style="bold")
    lines = [title]
    for x in losses[:limit]:
        who = Text(no_wrap=True, end="")
        who.append(f"  {printable(x.pod_id):<14}", style="bold")
        who.append(f"  {printable(x.account):<8}  {fmt.exp(x.experiment):>5}")
        gap = x.gap_s
        when = Text(no_wrap=True, end="")
        when.append(f"  lost {fmt.hms(x.lost_at)}")
        when.append(f"  gap {fmt.duration(gap)}" if gap is not None and gap >= 0 else "  gap ?", style=DIM)
        if width is None or who.cell_len + when.cell_len <= width:
            lines.append(Text.assemble(who, when, no_wrap=True, end=""))
        else:
            lines += [who, Text.assemble("  ", when, no_wrap=True, end="")]
    if len(losses) > limit:
        lines.append(Text(f"  ... and {len(losses) - limit} more", style=DIM, no_wrap=True, end=""))
    return lines
