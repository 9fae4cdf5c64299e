"""WavePanel: the active (else the latest) reaping wave's verdict, scope, cost and diagnosis, beside the heatmap.

API for the app shell:
    panel = WavePanel(id="waves")                      # name/id/classes as any Widget
    panel.set_waves(waves, now, shown=(-1, None), last_loss=None)
        waves: the session's waves (WaveView, oldest first, as find_waves gives them);
        now: aware datetime; shown: the session's choice, (the index in `waves` of the wave to
        show, -1 for none; the end of its guard while it is the active one, else None);
        last_loss: the newest loss, shown when there is no wave. Unchanged inputs cost nothing.
    panel.wave                 the wave shown (None when there is none)
    panel.active               whether now is within its guard (re-dispatch is held)
`render_wave_panel(...)` is the pure renderer behind it (a rich Group), tested without a screen.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Sequence

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.padding import Padding
from rich.segment import Segment
from rich.table import Table
from rich.text import Text
from textual.widget import Widget

from sagan_tui.wire.channel.views import FindingView
from sagan_tui.wire import fmt
from sagan_tui.panel.heatmap_render import DIM, printable

if TYPE_CHECKING:  # annotations only: the session sends its waves and losses as view data
    from sagan_tui.wire.channel.views import LossRecordView as Loss
    from sagan_tui.wire.channel.views import WaveView as Wave

Shown = tuple[int, "datetime | None"]  # (index of the wave shown or -1, its guard's end while active)

BANNER_ACTIVE = "bold color(231) on color(160)"
BANNER_OVER = "bold color(220)"
KEY_W = 9
VERDICT_STYLE = {"platform-reaper": "bold color(231) on color(124)", "account-stop": "bold color(16) on color(214)",
                 "host-failure": "bold color(231) on color(25)", "unclear": "bold color(16) on color(250)"}


def shown_wave(waves: Sequence[Wave], shown: Shown, now: datetime) -> tuple[Wave | None, datetime | None]:
    """(the wave the session chose to show, the end of its guard while now is within it, else None)."""
    index, until = shown
    wave = waves[index] if 0 <= index < len(waves) else None
    return wave, (until if wave is not None and until is not None and now <= until else None)


def _summary(rows: list[tuple[str, str, str]]) -> Table:
    # A grid rather than padded strings: a long value (GPU names) wraps inside its own column.
    table = Table.grid(padding=(0, 1), expand=True)
    table.add_column(width=KEY_W - 1, no_wrap=True, style=DIM)
    table.add_column(ratio=1, overflow="fold")
    for key, value, style in rows:
        table.add_row(key, Text(printable(value), style=style))
    return table


def _ago(then: datetime, now: datetime) -> str:
    s = (now - then).total_seconds()
    return "just now" if s < 1 else f"{fmt.duration(s)} ago"


def _gap(wave: Wave) -> str:
    if wave.gap_median_s is None:
        return "unknown (no RUNNING times)"
    spread = f" ± {fmt.duration(wave.gap_spread_s or 0)}" if wave.gap_spread_s is not None else ""
    known = "" if wave.gaps_known == len(wave.losses) else f" ({wave.gaps_known} of {len(wave.losses)} known)"
    return f"{fmt.duration(wave.gap_median_s)}{spread} after RUNNING{known}"


def _no_wave(now: datetime, last_loss: Loss | None) -> list:
    head = Text("No reaping wave.", style="bold color(114)")
    if last_loss is None:
        head.append(" No losses seen.", style=DIM)
        return [head]
    head.append(" Last loss: ", style=DIM)
    head.append(printable(last_loss.pod_id), style="bold")
    head.append(f" ({printable(last_loss.account)} {fmt.exp(last_loss.experiment)})"
                f" at {fmt.hms(last_loss.lost_at)} UTC, {_ago(last_loss.lost_at, now)}", style=DIM)
    return [head]


def _findings(findings, mark: str = "•", mark_style: str = "bold", evidence: bool = True) -> Table:
    # A grid rather than prefixed lines: wrapped statements and evidence keep their indent.
    table = Table.grid(padding=(0, 1), expand=True)
    table.add_column(width=1, no_wrap=True)
    table.add_column(ratio=1, overflow="fold")
    for finding in findings:
        table.add_row(Text(mark, style=mark_style), Text(printable(finding.statement)))
        for line in finding.evidence if evidence else ():
            table.add_row("", Padding(Text(printable(line), style=DIM), (0, 0, 0, 2)))
    return table


def _verdict(wave: Wave) -> list:
    """The verdict's line, then what speaks for (+) and against (-) it; evidence stays in the diagnosis."""
    v = wave.verdict
    line = Text(v.title, style=VERDICT_STYLE.get(v.cause, "bold"))
    line.append(f": {printable(v.next_step)}", style="bold")
    parts: list = [line]
    if v.for_:
        parts.append(_findings(v.for_, "+", "bold color(114)", evidence=False))
    against = [*v.against, *(FindingView("missing", f"missing: {m}") for m in v.missing)]
    if against:
        parts.append(_findings(against, "-", "bold color(209)", evidence=False))
    if v.runner_up_text:
        parts.append(Text(f"runner-up: {printable(v.runner_up_text)}", style="color(250)"))
    parts += [Text(f"left out: {printable(u)}", style="color(214)") for u in v.unrelated]
    return parts


def clock_line(wave: Wave, until: datetime | None, now: datetime) -> Text:
    """The one line of a shown wave that time alone changes (the status tick redraws it); `until`
    is the end of its guard while it is active, else None."""
    if until is not None:
        return Text(f"last loss {_ago(wave.end, now)}; guard until {fmt.hms(until)} UTC", style="color(210)")
    return Text(f"No active wave. Last one ended {_ago(wave.end, now)}", style=BANNER_OVER)


def render_wave_panel(waves: Sequence[Wave], now: datetime, shown: Shown = (-1, None),
                      last_loss: Loss | None = None, extra: Sequence[str] = ()) -> Group:
    """The panel's content: a banner, the wave's scope, then each finding with its evidence;
    `extra` are the session's incident lines (forming clusters, the canary, overrides, since
    you last looked), shown as given."""
    wave, until = shown_wave(waves, shown, now)
    if wave is None:
        return Group(*_no_wave(now, last_loss), *_extra(extra))
    parts, _ = wave_parts(waves, wave, until, now, extra)
    return Group(*parts)


def _extra(lines: Sequence[str]) -> list:
    """The session's incident lines: a WATCH line loud, the rest in the warning colour."""
    return [Text(printable(line), style="bold color(16) on color(214)" if line.startswith("WATCH:")
                 else "bold color(214)") for line in lines]


def _bursts(wave: Wave) -> list:
    if len(wave.bursts) < 2:
        return []
    rows = "; ".join(f"{fmt.window(b.start, b.end, seconds=True)} ({len(b.losses)})" for b in wave.bursts)
    return [Text(f"{len(wave.bursts)} bursts: {rows}", style="color(210)")]


def wave_parts(waves: Sequence[Wave], wave: Wave, until: datetime | None, now: datetime,
               extra: Sequence[str] = ()) -> tuple[list, int]:
    """The shown wave's renderables, and the index of the one line time alone changes."""
    parts: list = [_verdict(wave)[0]]
    if until is not None:
        parts.append(Text(" WAVE ACTIVE — hold re-dispatch ", style=BANNER_ACTIVE))
    clock_at = len(parts)
    parts.append(clock_line(wave, until, now))
    parts += _extra(extra) + _bursts(wave)
    parts += _verdict(wave)[1:]
    n = len(wave.losses)
    index = sorted(waves, key=lambda w: w.end).index(wave) + 1
    burned = fmt.usd(wave.burn_usd) + (f" (+{wave.burn_unknown} unpriced)" if wave.burn_unknown else "")
    parts.append(_summary([
        (f"wave {index}/{len(waves)}", fmt.window(wave.start, wave.end, seconds=True), "bold"),
        *((("shares", printable(wave.shares), ""),) if wave.shares else ()),
        ("lost", f"{n} pod{'s' * (n != 1)} in {', '.join(wave.accounts)}", "bold"),
        ("exps", ", ".join(fmt.exp(e) for e in wave.experiments) or "unknown", ""),
        ("gap", _gap(wave), ""),
        ("burned", burned, "bold color(209)"),
        ("DCs", fmt.listed(wave.datacenters) or "unknown", ""),
        ("GPUs", fmt.listed(wave.gpu_types) or "unknown", ""),
    ]))
    if wave.diagnosis:
        parts.append(Text("Diagnosis", style="bold underline"))
        # A grid per finding (the same columns, so the same layout as one grid): the panel lays
        # out again only the findings a poll changed (see _DrawnOnce).
        parts += [_findings([finding]) for finding in wave.diagnosis]
    return parts, clock_at


def _same_waves(a: Sequence[Wave], b: Sequence[Wave]) -> bool:
    """The same wave objects (a tick re-sends what it has): equal waves may carry other evidence."""
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def fingerprint(part) -> tuple | None:
    """What decides how `part` is drawn at a given width, for the parts wave_parts makes (None for
    any other kind: such a part is laid out every time)."""
    if isinstance(part, str):
        return ("s", part)
    if isinstance(part, Text):
        return ("t", part.plain, part.style, tuple(part.spans), part.justify, part.overflow, part.no_wrap, part.end)
    if isinstance(part, Padding):
        inner = fingerprint(part.renderable)
        return None if inner is None else ("p", inner, part.top, part.right, part.bottom, part.left,
                                           part.style, part.expand)
    if isinstance(part, Table):
        cells = []
        for column in part.columns:
            cells.append((column.width, column.ratio, column.no_wrap, column.overflow, column.style))
            for cell in column._cells:
                fp = fingerprint(cell)
                if fp is None:
                    return None
                cells.append(fp)
        return ("g", part.padding, part.expand, part.show_header, part.show_edge, part.box, tuple(cells))
    return None


class _DrawnOnce:
    """The shown wave's parts as one renderable. Each part but the clock line is laid out once per
    width and content, and its lines reused while it reads the same: at every status tick, and
    across polls for the findings a new loss did not change: a diagnosis of a large wave runs to
    a hundred lines and more, too many to lay out again at each poll that brought a loss."""

    def __init__(self, parts: list, clock_at: int, prints: list, lines: dict) -> None:
        self.parts, self.clock_at, self.prints, self.lines = parts, clock_at, prints, lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        used = set()
        for i, part in enumerate(self.parts):
            fp = self.prints[i]
            if i == self.clock_at or fp is None:
                yield part
                continue
            key = (fp, options.max_width)
            used.add(key)
            lines = self.lines.get(key)
            if lines is None:
                lines = self.lines[key] = console.render_lines(part, options.update(height=None), pad=False)
            for line in lines:
                yield from line
                yield Segment.line()
        if len(self.lines) > 2 * len(used) + 16:  # what no longer reads so (older waves, widths)
            for key in [k for k in self.lines if k not in used]:
                del self.lines[key]


class WavePanel(Widget):
    """The reaping wave in words: scope, gap, burn and why, loud while it is active."""

    DEFAULT_CSS = """
    WavePanel { height: auto; padding: 0 1; }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None,
                 disabled: bool = False) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._inputs: tuple = ((), None, (-1, None), None, ())
        self.wave: Wave | None = None
        self.active = False
        self._height: int | None = None  # content height the last text was laid out at
        self._clock: tuple | None = None  # what the height was measured for, but the time
        self._drawn: tuple | None = None  # the shown wave's parts and their fingerprints
        self._lines: dict = {}  # laid-out lines by (part fingerprint, width), kept across waves

    def set_waves(self, waves: list[Wave], now: datetime, shown: Shown = (-1, None),
                  last_loss: Loss | None = None, extra: Sequence[str] = ()) -> None:
        """Show the wave the session chose (`shown`) of `waves`, with the session's incident
        lines `extra`; a no-op when nothing changed."""
        extra, shown = tuple(extra), tuple(shown)
        inputs = (tuple(waves), now, shown, last_loss, extra)
        if inputs == self._inputs:
            return
        before, self._inputs = self._inputs, inputs
        if (not waves and last_loss is None and not before[0] and before[3] is None and before[1] is not None
                and extra == before[4]):
            return  # "no losses seen" reads the same at any time: a status tick sends nothing
        self.wave, until = shown_wave(waves, shown, now)
        self.active = until is not None
        self.set_class(self.active, "-active")
        # A layout pass repaints every scrollbar on screen (~10 KB at 200x50, at each status tick
        # with a wave shown): ask for one only when the new text is of another height.
        self.refresh()
        width = self.content_size.width
        # Measuring the height renders the whole panel (a diagnosis of ~150 lines at 10,000 pods,
        # on the UI thread): when only time moved, only the clock line can change it.
        clock = None
        if self.wave is not None and width:
            rows = len(clock_line(self.wave, until, now).wrap(self.app.console, width))
            clock = (inputs[0], last_loss, (shown, self.active, width, rows), extra)
            was = self._clock
            if (was is not None and was[2] == clock[2] and was[1] is last_loss and was[3] == extra
                    and _same_waves(was[0], waves)):
                return
        self._clock = clock
        height = self.get_content_height(self.size, self.app.size, width) if width else None
        if height is None or height != self._height:
            self.refresh(layout=True)
        self._height = height

    def render(self) -> Group | _DrawnOnce:
        waves, now, shown, last_loss, extra = self._inputs
        if now is None:
            return Group(Text("No loss data yet.", style=DIM))
        wave, until = shown_wave(waves, shown, now)
        if wave is None:
            return render_wave_panel(waves, now, shown, last_loss, extra)
        drawn = self._drawn
        # The same waves, choice, state and incident lines: only the clock line is new.
        if drawn is None or drawn[1:4] != (shown, until, extra) or not _same_waves(drawn[0], waves):
            parts, clock_at = wave_parts(waves, wave, until, now, extra)
            drawn = self._drawn = (tuple(waves), shown, until, extra, parts, clock_at,
                                   [fingerprint(p) for p in parts])
        _, _, _, _, parts, clock_at, prints = drawn
        parts = [*parts[:clock_at], clock_line(wave, until, now), *parts[clock_at + 1:]]
        return _DrawnOnce(parts, clock_at, prints, self._lines)
