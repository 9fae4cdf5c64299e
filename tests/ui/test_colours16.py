"""The 16-colour rule (panel/colours16.py) on the bytes a 16-colour terminal receives: the cursor row and LOST rows read."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.style import Style
from syrupy.extensions.image import SVGImageSnapshotExtension

from sagan_tui.panel.colours16 import PALETTE, undimmed

from .colours16_child import LIVE_POD  # team's live pod in the frozen cache
from .frozen import frozen_app
from .terminal16 import cells, row_with, svg

ROOT = Path(__file__).resolve().parents[2]
LOST_POD = "v0c7bx292xqvg4"  # a lost pod (#192's): its row in the pods pane
LOST_NOTE = "Pod v0c7bx292xqvg4 not foun"  # its note, as the 200-column pane cuts it
WHITE_FG = {37, 97, 39}  # the theme's foreground comes out as bright white; the default is light too


def drawn_in_16_colours(tmp_path) -> str:
    """The bytes a 16-colour terminal receives from the frozen panel, its pods cursor on the live pod:
    drawn by a process of its own (colours16_child.py says why)."""
    out = tmp_path / "drawn.json"
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    run = subprocess.run([sys.executable, "-m", "tests.ui.colours16_child", str(out), str(tmp_path)], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    got = json.loads(out.read_text())
    assert got["color_system"] == "standard"
    return got["bytes"]


def test_in_16_colours_the_cursor_row_is_black_on_white_and_lost_rows_bright_red(tmp_path):
    grid = cells(drawn_in_16_colours(tmp_path))
    cursor = {(c.fg, c.bg) for c in row_with(grid, f"{LIVE_POD}  team")}
    assert cursor == {(30, 47)}, cursor  # was bright white on yellow: {(97, 43)}
    note = row_with(grid, LOST_NOTE, on=f"{LOST_POD}  team")
    assert {(c.fg, c.bg) for c in note} == {(91, 40)}, {(c.fg, c.bg) for c in note}  # was dark red (31)
    assert not any(2 in c.attrs for c in note)  # never dim: a faint red is near the pane's black
    status = row_with(grid, "LOST", on=f"{LOST_POD}  team")
    assert {c.fg for c in status} == {31} and all(1 in c.attrs for c in status)  # red, not Monokai's magenta


def test_16_colour_snapshot_of_the_pods_table_with_lost_rows_and_the_cursor(tmp_path, snapshot):
    """The whole screen in xterm's palette: the pods pane's cursor row on the live pod, its LOST rows below."""
    assert svg(drawn_in_16_colours(tmp_path), 200, "sagan-tui, TERM=xterm (16 colours)") == \
        snapshot(extension_class=SVGImageSnapshotExtension)


async def test_truecolor_and_no_color_keep_their_cursor_row(tmp_path, monkeypatch):
    """Outside 16 colours (the tests' pinned truecolor) and under NO_COLOR in 16 colours (TERM=dumb
    sets both) the rule is off: no class for the CSS, no filter, Textual's own colour path."""
    app = frozen_app(tmp_path / "a")
    assert not app.standard_colours and not app.has_class("-standard-colours")
    import textual.constants

    monkeypatch.setattr(textual.constants, "COLOR_SYSTEM", "standard")
    monkeypatch.setenv("NO_COLOR", "1")
    (tmp_path / "b").mkdir()
    app = frozen_app(tmp_path / "b")
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        assert not app.standard_colours and not app.has_class("-standard-colours")
        assert app.undim not in app.get_line_filters()


def test_the_16_colour_and_no_color_rules_are_read_only_in_their_modes(tmp_path, monkeypatch):
    """Every rule the app is given is parsed before its first frame: the rules of a colour mode
    are a stylesheet of their own, given to the app in that mode only."""
    import textual.constants

    from sagan_tui.panel.resources import stylesheet

    def sheets(app) -> list[str]:
        return [Path(p).name for p in app.css_path]

    assert "-standard-colours" not in stylesheet("app.tcss").read_text()
    assert ":nocolor" not in stylesheet("app.tcss").read_text()
    assert sheets(frozen_app(tmp_path / "a")) == ["app.tcss"]
    monkeypatch.setattr(textual.constants, "COLOR_SYSTEM", "standard")
    monkeypatch.delenv("NO_COLOR", raising=False)
    (tmp_path / "b").mkdir()
    assert sheets(frozen_app(tmp_path / "b")) == ["app.tcss", "colours16.tcss"]
    monkeypatch.setenv("NO_COLOR", "1")
    (tmp_path / "c").mkdir()
    assert sheets(frozen_app(tmp_path / "c")) == ["app.tcss", "nocolor.tcss"]


@pytest.mark.parametrize("spec, expected", [
    ("dim red", "not dim bright_red"), ("bold dim cyan", "bold not dim bright_cyan"),
    ("dim bright_red", "not dim bright_red"), ("dim black", "not dim black"),
    ("dim", "dim"), ("red", "red"), ("dim #ff0000", "dim #ff0000"),
])
def test_a_dim_ansi_hue_is_drawn_bright(spec, expected):
    def seen(style: Style) -> tuple:  # a colour's name is not what the terminal gets
        return style.color and (style.color.number, style.color.triplet), style.dim, style.bold

    assert seen(undimmed(Style.parse(spec))) == seen(Style.parse(expected))



def test_each_ansi_colour_drawn_in_the_palette_goes_out_as_itself():
    """What a Rich upgrade that changed its 16-colour matching would break: colour n written as n."""
    from rich.color import Color, ColorSystem

    assert [Color.from_rgb(*rgb).downgrade(ColorSystem.STANDARD).number for rgb in PALETTE] == list(range(16))
