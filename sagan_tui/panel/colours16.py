"""The 16-colour rule: what the panel changes when the terminal has only the 16 ANSI colours.

The colour system is Rich's (the app's console): `--color standard` / `color_system = "standard"`
set it through TEXTUAL_COLOR_SYSTEM (commands/panel.py), and with "auto" Rich reads it from the
environment (TERM=xterm, no COLORTERM=truecolor). Under NO_COLOR nothing here applies: that mode
has no colours to pair, and its look is kept as it is.

Textual draws in RGB and the console matches each RGB colour to the nearest of the 16 as it
writes. In 16 colours the panel
- maps the ANSI colours its cells name ("red", "yellow") to the RGB of the very palette the
  console matches against (`standard_themes`), so each comes out as itself. Textual's ANSI theme
  (Monokai: a pinkish red, an orange yellow) came out as the nearest other: LOST read magenta,
  the owner's `YOU:` bright red. (Textual's own ANSI mode, `App.ansi_color`, is not used: its
  `:ansi` styles redraw every widget, and a dialog's backdrop turns ANSI colours black);
- never dims a hue (`Undim`): Textual draws dim by blending toward the background, and a blended
  hue matches that colour's dark shade or black, near the black of the panes (a LOST row's
  `dim red`). A dim hue is drawn as its bright form instead; a dim black or white as itself; dim
  on the theme's RGB (a gone pod's grey row) is blended as before;
- marks the app with the class `-standard-colours` and gives it styles/colours16.tcss, which draws the tables'
  cursor row black on white (the theme's accent tint matches yellow, under white text) and the
  status line on black (its hues on the panel's grey are as faint).
256 colours and truecolor are left as they are: none of this is applied.
"""

from __future__ import annotations

import functools

from rich.color import Color, ColorType
from rich.segment import Segment
from rich.style import Style
from rich.terminal_theme import TerminalTheme
from textual.color import Color as TextualColor
from textual.filter import LineFilter

STANDARD_CLASS = "-standard-colours"
NOT_DIM = Style(dim=False)
# ANSI black, white and the two greys: no hue, so no bright form is wanted (the cursor row's black).
NO_HUE = frozenset({0, 7, 8, 15})


def sixteen_colours(color_system: str | None, no_color: bool) -> bool:
    """Whether the 16-colour rule applies: the console has the standard colours and NO_COLOR is unset."""
    return color_system == "standard" and not no_color


# The RGB Rich's console matches a colour against to write one of the 16 (`Color.downgrade`), so
# ANSI colour n drawn as PALETTE[n] goes out as SGR colour n (tests/ui/test_colours16.py checks it).
PALETTE = [(0, 0, 0), (170, 0, 0), (0, 170, 0), (170, 85, 0), (0, 0, 170), (170, 0, 170), (0, 170, 170),
           (170, 170, 170), (85, 85, 85), (255, 85, 85), (85, 255, 85), (255, 255, 85), (85, 85, 255),
           (255, 85, 255), (85, 255, 255), (255, 255, 255)]


def standard_themes(*themes: TerminalTheme) -> tuple[TerminalTheme, ...]:
    """Each ANSI theme with its 16 colours as PALETTE (its default foreground and background kept)."""
    return tuple(TerminalTheme(tuple(t.background_color), tuple(t.foreground_color), PALETTE[:8], PALETTE[8:])
                 for t in themes)


@functools.lru_cache(maxsize=256)
def undimmed(style: Style) -> Style:
    """`style` with a dim ANSI colour not dim: a hue in its bright form, black or white as itself."""
    color = style.color
    if not style.dim or color is None or color.type != ColorType.STANDARD or color.number is None:
        return style
    number = color.number if color.number >= 8 or color.number in NO_HUE else color.number + 8
    return style + Style(color=Color.from_ansi(number)) + NOT_DIM


class Undim(LineFilter):
    """The app's first line filter under 16 colours, before Textual's ANSI-to-RGB: see `undimmed`."""

    def apply(self, segments: list[Segment], background: TextualColor) -> list[Segment]:
        return [Segment(text, undimmed(style), control) if style is not None else Segment(text, style, control)
                for text, style, control in segments]


class ColourMode:
    """The terminal's colours as the App meets them: NO_COLOR (TERM=dumb sets it: commands/panel.py)
    means no colour codes at all; 16 colours (TERM=xterm, --color standard) the rule above;
    256 colours and truecolor are untouched."""

    def __init__(self, no_color: bool) -> None:
        self.no_color = no_color
        self.standard = False
        self.undim = Undim(enabled=False)

    @classmethod
    def asked(cls) -> "ColourMode":
        import os

        return cls(os.environ.get("NO_COLOR") is not None)

    @property
    def ansi_color(self) -> bool | None:
        """Textual's `ansi_color`: Textual strips colours (its NoColor filter) only when it sends
        ANSI colours natively; otherwise it turns them grey (Monochrome), which are colour codes still."""
        return True if self.no_color else None

    def read(self, color_system: str | None) -> None:
        """The console's colour system, known once the App exists."""
        self.standard = sixteen_colours(color_system, self.no_color)
        self.undim = Undim(enabled=self.standard)

    def stylesheets(self) -> list[str]:
        """The extra stylesheets of this mode: read only here (the first frame parses every rule it is given)."""
        return [name for name, on in (("colours16.tcss", self.standard), ("nocolor.tcss", self.no_color)) if on]
