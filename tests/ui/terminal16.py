"""What a 16-colour terminal receives from an app under `run_test`: its bytes, each cell's SGR, an SVG in xterm's palette.

The bytes are the ones the app writes: Textual's headless driver draws nothing, so `Terminal`
is a driver (through the App's public `driver_class`) that draws as a terminal's would and keeps
every byte; `cells` lays the updates over one grid, as the terminal does.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

from rich.console import Console
from rich.terminal_theme import TerminalTheme
from rich.text import Text

# xterm's default 16 colours (its XTerm*color0..15 resources) and its default black background.
XTERM = TerminalTheme(
    (0, 0, 0), (229, 229, 229),
    [(0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229)],
    [(127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255),
     (255, 255, 255)],
)
_TOKEN = re.compile(r"\x1b\[(\d+);(\d+)H|\x1b\[([0-9;]*)m|\x1b\[[0-9;?]*[A-Za-z]|(.)", re.S)


@dataclass(frozen=True)
class Cell:
    char: str
    fg: int = 39  # the SGR code: 30-37, 90-97, or 39 (the terminal's default)
    bg: int = 49  # 40-47, 100-107, or 49
    attrs: frozenset[int] = frozenset()  # 1 bold, 2 dim, 3 italic, 4 underline, 7 reverse


class Terminal:
    """The terminal `app` draws on: run it with `app.run_test(headless=False, ...)`."""

    def __init__(self, app) -> None:
        from textual.drivers.headless_driver import HeadlessDriver

        written = self.written = []

        class Drawn(HeadlessDriver):
            @property
            def is_headless(self) -> bool:
                return False  # the App writes its updates only to a driver that is not headless

            def write(self, data: str) -> None:
                written.append(data)

        app.driver_class = Drawn

    def bytes(self) -> str:
        """Every escape code and character the app has sent so far."""
        return "".join(self.written)


def cells(out: str) -> list[list[Cell]]:
    """The screen `out` draws, row by row, each cell with its colours (16-colour SGR only); a
    later update overwrites the cells it moves to."""
    grid: dict[int, dict[int, Cell]] = {}
    y = x = 0
    fg, bg, attrs = 39, 49, set()
    for m in _TOKEN.finditer(out):
        move, sgr, char = m.group(1), m.group(3), m.group(4)
        if move is not None:
            y, x = int(move) - 1, int(m.group(2)) - 1
        elif sgr is not None:
            for code in [int(c) for c in sgr.split(";") if c] or [0]:
                if code == 0:
                    fg, bg, attrs = 39, 49, set()
                elif 30 <= code <= 37 or 90 <= code <= 97 or code == 39:
                    fg = code
                elif 40 <= code <= 47 or 100 <= code <= 107 or code == 49:
                    bg = code
                elif code in (38, 48):
                    raise AssertionError(f"not a 16-colour code in {sgr!r}")
                else:
                    attrs.add(code)
        elif char is not None and char != "\n":
            grid.setdefault(y, {})[x] = Cell(char, fg, bg, frozenset(attrs))
            x += 1
    return [[row[i] for i in sorted(row)] for _, row in sorted(grid.items())]


def row_with(grid: list[list[Cell]], text: str, on: str = "") -> list[Cell]:
    """The cells of `text` in the one screen row that shows it (and `on`, to pick the row), from `on` on."""
    found = [row for row in grid if on + text in "".join(c.char for c in row) or
             (on and on in "".join(c.char for c in row) and text in "".join(c.char for c in row).split(on, 1)[1])]
    assert len(found) == 1, f"{text!r} is on {len(found)} rows"
    line = "".join(c.char for c in found[0])
    start = line.index(text, line.index(on) if on else 0)
    return found[0][start:start + len(text)]


def svg(out: str, width: int, title: str) -> str:
    """The screen `out` draws as an SVG in xterm's default palette (bold is drawn bold, not bright)."""
    console = Console(width=width, record=True, file=io.StringIO(), color_system="standard", force_terminal=True,
                      legacy_windows=False)
    for row in cells(out):
        sgr = "".join(f"\x1b[0;{';'.join(map(str, sorted(c.attrs) + [c.fg, c.bg]))}m{c.char}" for c in row)
        console.print(Text.from_ansi(sgr + "\x1b[0m", no_wrap=True, end=""), end="\n", no_wrap=True, crop=True)
    return console.export_svg(theme=XTERM, title=title)
