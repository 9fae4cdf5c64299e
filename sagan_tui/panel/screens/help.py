"""`?`: one line per key (the keymap's keys, not the defaults): what it does, under where it applies."""

from __future__ import annotations

from typing import Callable, Collection, Mapping

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from sagan_tui.wire.keymap import KEYS, WHERE, keys_of, scope
from sagan_tui.panel.widgets.key_bar import KeyBar
from sagan_tui.panel.widgets.news_area import NewsArea
from sagan_tui.panel.widgets.status_bar import StatusBar
from sagan_tui.panel.registry import OWN, bindings

EXTRA = (("ctrl+p", "command palette: every action by name"), ("tab shift+tab", "next / previous pane"),
         ("enter", "experiment detail (experiments pane)"),
         ("enter", "the pod's screen: records, GPUs, log (pods pane)"), ("↑ ↓ pgup pgdn", "move in a table or scroll"))
KEY_WIDTH = 14
KEY_COLUMN = 2 + KEY_WIDTH + 2  # a key line: two spaces, the keys right-aligned, two spaces, what it does
TWO_COLUMNS_FROM = 160  # terminal columns: from here the sections flow in two columns, not one long scroll


def help_text(key_display: Callable[[str], str], keymap: Mapping[str, str], enabled: Mapping[str, bool],
              read_only: bool, refused: Collection[str] = ()) -> Text:
    """Every binding id (keymap.KEYS), grouped by where it applies; `enabled` by id, absent means on;
    `refused`: the ids read-only refuses out loud (pressed, they say so: on, but not doing it)."""
    text = Text(end="")
    where = None
    for k in KEYS:
        if scope(k.id) != where:
            where = scope(k.id)
            text.append(f"\n{WHERE[where]}\n", "bold underline")
        keys = " ".join(key_display(x) for x in keys_of(k.id, keymap).split(","))
        on = enabled.get(k.id, True) and not (read_only and k.id in refused)
        text.append(f"  {keys:>{KEY_WIDTH}}  ", "bold cyan" if on else "dim")
        text.append(k.what, "" if on else "dim strike")
        if read_only and k.id in refused:
            text.append("  (refused: read-only)", "dim")
        elif not on:
            text.append("  (off: read-only)" if read_only else "  (unavailable)", "dim")
        text.append("\n")
    text.append("\nanywhere\n", "bold underline")
    for key, what in EXTRA:
        text.append(f"  {key:>{KEY_WIDTH}}  ", "bold cyan")
        text.append(f"{what}\n")
    text.append("\nKeys are remapped in the config file's [keymap] table by these ids (README: Keys).\n", "dim")
    return text


def panel_help(app) -> Text:
    """The help of `app` as it is now: its keymap, and which bindings read-only turned off."""
    from sagan_tui.panel.palette import entries

    from sagan_tui.panel.keys import configured_keymap
    from sagan_tui.panel.registry import mutating_ids

    enabled = {e.binding.id: e.enabled for e in entries(app) if e.binding.id}
    # The main screen's mutating keys; a pane's (`x`) and a dialog's (alt+a) say their refusal where they are.
    refused = {i for i in mutating_ids() if i.startswith("panel.")}
    # The keymap the App was given (panel/keys.py), read from where it came from: Textual keeps its
    # own copy private.
    return help_text(lambda key: app.get_key_display(Binding(key, "")), configured_keymap(app.settings), enabled,
                     app.settings.read_only, refused)


def help_layout(text: Text, columns: int = 1) -> RenderableType:
    """`help_text`'s lines laid out: key lines as a grid (keys | what), headings across; with
    `columns` 2 the sections are split in two columns of about equal length."""
    sections: list[list[Text]] = [[]]
    for line in text.split("\n", allow_blank=True):
        if line.plain and not line.plain.startswith(" ") and sections[-1]:
            sections.append([])
        sections[-1].append(line)
    blocks = [_block(lines) for lines in sections if any(x.plain for x in lines)]
    if columns < 2 or len(blocks) < 2:
        return Group(*blocks)
    sizes = [len(lines) for lines in sections if any(x.plain for x in lines)]
    cut = min(range(1, len(sizes)), key=lambda i: max(sum(sizes[:i]), sum(sizes[i:])))
    grid = Table.grid(expand=True, padding=(0, 2))
    grid.add_column(ratio=1)
    grid.add_column(ratio=1)
    grid.add_row(Group(*blocks[:cut]), Group(*blocks[cut:]))
    return grid


def _block(lines: list[Text]) -> RenderableType:
    """A heading (or the closing note) across the width, its key lines in the grid under it."""
    out: list[RenderableType] = []
    keys: list[Text] = []
    for line in lines:
        if line.plain.startswith("  ") and len(line) > KEY_COLUMN:
            keys.append(line)
            continue
        if keys:
            out.append(_grid(keys))
            keys = []
        out.append(line)
    if keys:
        out.append(_grid(keys))
    return Group(*out)


def _split(line: Text) -> tuple[Text, Text]:
    """A key line's keys (with their indent) and what they do: the two spaces after the keys part them."""
    plain = line.plain
    start = len(plain) - len(plain.lstrip(" "))
    at = plain.find("  ", start)
    at = len(plain) if at < 0 else at + 2
    keys, what = line.divide([at])
    return keys, what


def _grid(lines: list[Text]) -> Table:
    """Key lines as a grid: a description wraps under its own column, not to column 0."""
    rows = [_split(line) for line in lines]
    grid = Table.grid(expand=True)
    grid.add_column(width=max(KEY_COLUMN, *(len(k) for k, _ in rows)), no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    for keys, what in rows:
        grid.add_row(keys, what)
    return grid


class HelpScreen(Screen[None]):
    """A full screen, not a modal: blending a modal over the panes costs seconds at 200x50."""

    DEFAULT_CSS = """
    /* Centred in a row of its own: a screen's `align` moves all its children as one block, and the
       notification area under the box spans the screen (the box went to the left edge). */
    #help-row { height: 1fr; }
    #help-box { width: 96; max-width: 100%; height: 1fr; border: round $accent; padding: 0 1; }
    HelpScreen.-wide #help-box { width: 100%; max-width: 180; }
    """
    BINDINGS = bindings("help", runner=OWN)  # panel/registry.py; the keys are keymap.py's
    OWN_KEYS_ONLY = True  # the key bar shows this screen's keys, not the panel's under it

    def __init__(self, text: Text) -> None:
        super().__init__()
        self.text = text
        self.laid_out: RenderableType = text  # help_layout's, for this terminal's width (on mount)

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")  # the sources, the clock and WAVE n · guard, as on the panes
        with Center(id="help-row"), VerticalScroll(id="help-box") as box:
            box.border_title = "Keys"
            box.border_subtitle = "↑↓ pgup pgdn home end scroll · esc closes"
            yield Static(id="help-text")
        yield NewsArea.of(self.app)  # the panel's news, in the flow: never over the status line
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#help-box").focus()  # the arrows and PageDown scroll it from the start
        self._lay_out(self.app.size.width)

    def on_resize(self, event) -> None:
        self._lay_out(event.size.width)

    def _lay_out(self, width: int) -> None:
        wide = width >= TWO_COLUMNS_FROM
        self.set_class(wide, "-wide")
        self.laid_out = help_layout(self.text, 2 if wide else 1)
        self.query_one("#help-text", Static).update(self.laid_out)

    def action_close(self) -> None:
        self.dismiss(None)
