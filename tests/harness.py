"""The panel under test through public seams: on a simulator, the one wait, a dialog opened, and what the screen shows.

Every Pilot test reads the panel here, not through a private member of Textual or of the panel.
Imports stay lazy: `tests/process/ui_run.py` runs this module in the UI process, whose imports
are counted (no store, sync or sources there).
"""

from __future__ import annotations

import html
import re
import time
import weakref
from pathlib import Path
from typing import Any, Callable

SIZE = (200, 50)
WAIT_S = 30.0  # a bound on a loaded machine, never a pace: a wait ends as soon as its condition holds
_TOASTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # app -> every toast it was asked for
_CACHES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # app -> the cache panel_on opened it on


# --- waiting ---------------------------------------------------------------------------------

async def wait_for(pilot, cond: Callable[[], Any], what: str = "condition", *, timeout: float = WAIT_S) -> None:
    """Until `cond()` holds, the app processing its messages between two looks."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.05)


def wait_until(cond: Callable[[], Any], what: str = "condition", *, timeout: float = WAIT_S) -> None:
    """`wait_for`'s twin for a test with no app: a thread, a child process, a pseudo-terminal.
    A condition may raise AssertionError itself to end the wait early (a process that died)."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


# --- the panel on a simulator ----------------------------------------------------------------

def sim_settings(sim, tmp: Path, **flags):
    """The panel's settings for `sim`, with no user config and the cache in `tmp`; polls are the test's."""
    from sagan_tui.core.config_model import load_settings

    env = {**sim.env(), "SAGAN_TUI_CONFIG": str(tmp / "no-config.toml")}
    flags.setdefault("poll_interval", 60.0)  # tests drive polls themselves
    settings, _ = load_settings(env, sagan_tui_cache=str(tmp / "cache.sqlite"), bell=False, **flags)
    return settings


def panel_on(settings, *, cache=None, poll: bool = True, clock=None):
    """(SaganApp, Cache): the panel over `cache` (else a fresh one of `settings`) with its own
    poller; the caller closes the cache when the app has ended."""
    from sagan_tui.core.store.cache import Cache
    from sagan_tui.core.sync.poller import Poller
    from tests.in_process import panel_app

    cache = Cache(settings.cache_path) if cache is None else cache
    kw = {"clock": clock} if clock else {}
    app = panel_app(settings, cache, Poller(settings, cache), poll=poll, **kw)
    _CACHES[app] = cache
    return app, cache


def cache_of(app):
    """The cache a panel made by `panel_on` was opened on: the test's own handle on what its
    session writes, as a test holding the file would read it (not reached through the session)."""
    return _CACHES[app]


async def poll_now(pilot, app) -> None:
    """Force one poll (as the refresh key does) and wait until its result has been applied."""
    await wait_for(pilot, lambda: not app.polling, what="idle poller")
    before = app.polls
    app.request_refresh()
    await wait_for(pilot, lambda: app.polls > before and not app.polling, what="forced poll")
    await pilot.pause()


async def polled(pilot, app, n: int = 1) -> None:
    """Until `n` poll rounds have ended since the start (the first starts by itself: the session
    may finish it before the test's first line runs)."""
    await wait_for(pilot, lambda: app.polls >= n and not app.polling, what=f"poll #{n}")


async def open_dialog(pilot, key: str, kind: type, what: str = ""):
    """Press `key` and wait for a screen of `kind` on top, ready for keys; returns it.

    Ready: its first focus taken (AUTO_FOCUS lands after the screen is on top: a test that read
    `app.focused` at once found None now and then)."""
    await pilot.press(key)
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, kind) and app.focused is not None
                   and app.focused.screen is app.screen, what=what or kind.__name__)
    return app.screen


async def settled(pilot) -> None:
    """Until the panel (a SaganApp) shows what its session was asked for: the panel is loaded, no
    dialog is still being opened (its read in flight, panel/key_hold.py), and the loss heatmap draws
    the grid for its own scope (the session builds it for the width the widget has, an answer
    that crosses the session's thread). Another app (a test's host) is settled at once."""
    from sagan_tui.panel.app import SaganApp
    from sagan_tui.panel.widgets.heatmap import LossHeatmap

    app = pilot.app
    if not isinstance(app, SaganApp):
        return

    def quiet() -> bool:
        if not app.loaded or app.key_hold.opening:
            return False
        maps = app.main_screen.query(LossHeatmap)
        return not maps or all(m.current or m.content_size.width == 0 for m in maps)

    stable = [0]

    def twice() -> bool:  # twice in a row, a pause apart: a resize the last frame made is asked for too
        stable[0] = stable[0] + 1 if quiet() else 0
        return stable[0] >= 2

    await pilot.pause()
    await wait_for(pilot, twice, "the panel to settle: its session's answers to arrive")


# --- what is shown ---------------------------------------------------------------------------

def table_rows(table) -> dict[str, list[str]]:
    """A keyed table's rows shown, by key in the order shown, each row's cells as plain text."""
    return {key: [cell.plain for cell in table.get_row(key)] for key in table.shown_keys()}


def pane_text(widget) -> str:
    """What a Static-like widget shows, as plain text (its content, not markup)."""
    return str(widget.render())


_SVG_TEXT = re.compile(r'<text [^>]*?x="([\d.]+)"[^>]*?clip-path="url\(#[\w-]*?line-(\d+)\)">(.*?)</text>', re.S)
_CELL_X = 20 * 0.61  # the width of a cell in Rich's SVG export: its font size by its aspect ratio


def screen_text(app) -> str:
    """What the screen shows now, as plain text, one line per terminal row (read from Textual's
    public `export_screenshot`, its SVG's text cell by cell)."""
    from rich.cells import cell_len

    width, height = app.size
    grid = [[" "] * width for _ in range(height)]
    for x, line, text in _SVG_TEXT.findall(app.export_screenshot()):
        col, y = round(float(x) / _CELL_X), int(line)
        if y >= height:
            continue
        for ch in html.unescape(text).replace("\xa0", " "):
            if col < width:
                grid[y][col] = ch
            for spare in range(col + 1, min(col + cell_len(ch), width)):
                grid[y][spare] = ""  # the second cell of a wide character
            col += cell_len(ch)
    return "\n".join("".join(row) for row in grid)


def printed(capsys) -> str:
    """What an app printed to stderr when it ended (its exit message), its lines joined as one:
    Rich wraps a long message at the console's width."""
    return " ".join(capsys.readouterr().err.split())


# --- what was said ---------------------------------------------------------------------------

def keep_toasts() -> Callable[[], None]:
    """Keep each toast any app is asked for (Textual forgets one when its timeout passes, which
    made a check after a slow step depend on the machine's load); returns the undo."""
    from textual.app import App
    from textual.notifications import Notification

    notify = App.notify

    def keep(self, message, *, title="", severity="information", timeout=None, markup=True):
        shown = self.NOTIFICATION_TIMEOUT if timeout is None else timeout
        _TOASTS.setdefault(self, []).append(Notification(message, title, severity, shown, markup=markup))
        return notify(self, message, title=title, severity=severity, timeout=timeout, markup=markup)

    App.notify = keep

    def undo() -> None:
        App.notify = notify

    return undo


def toasts(app) -> list:
    """The toasts Textual was asked to show (kept by `keep_toasts`): the panel's own news never is one."""
    return list(_TOASTS.get(app, ()))


def notes(app) -> list:
    """The app's notifications so far, oldest first, expired ones included.

    Most go to the panel's notification area (panel/news.py), which remembers what it was told; a
    dialog's line passes them on when it closes; a toast (a screen without either) is kept here.
    """
    heard = getattr(app, "news", None)
    return [*(heard.heard if heard is not None else ()), *toasts(app)]


def said(app, words: str) -> list[str]:
    """The notifications' messages holding `words` (empty, so false, when none does)."""
    return [n.message for n in notes(app) if words in n.message]
