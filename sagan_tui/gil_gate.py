"""Background threads step aside (release the GIL) while the panel's UI thread has work to do.

The panel is one process: its UI thread shares one interpreter lock with the session's threads,
which at 10,000 pods decode, validate and reconcile for about half of every poll. Python hands
the lock over every 5 ms, so a key pressed during a poll ran at a half or a third of its speed:
an update and its frame took 150-300 ms instead of 60 (bench/bench_fleet_keys.py).

The UI's event loop marks when it wakes (busy) and when it waits for input again (idle), by
`install(loop)`. Background work calls `yield_to_ui()` between small steps (a decoded object, a
validated record, a reconciled pod): while the UI is busy the call waits, the lock unheld, until
the UI waits again. A background thread stands aside for at most HOLD_S of one busy stretch, so
a UI thread that is itself waiting on the background (or simply busy) never stalls it for long.
Outside the panel (`sync`, the tests' pollers) nothing is installed and the call returns at once.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Callable

HOLD_S = 0.1

_busy_since: float | None = None  # when the UI loop last woke; None while it waits (or no panel)
_ui_thread: int | None = None
_idle = threading.Event()
_idle.set()


def yield_to_ui() -> None:
    """Wait while the UI thread is busy (at most what is left of HOLD_S of its stretch)."""
    since = _busy_since
    if since is None or threading.get_ident() == _ui_thread:
        return
    left = since + HOLD_S - time.monotonic()
    if left > 0:
        _idle.wait(left)


def _woke() -> None:
    global _busy_since
    _idle.clear()
    _busy_since = time.monotonic()


def _waits() -> None:
    global _busy_since
    _busy_since = None
    _idle.set()


def install(loop: asyncio.AbstractEventLoop) -> Callable[[], None]:
    """Mark the UI thread busy from each wake of `loop` (running on this thread) to its next wait
    for input; returns the undo. A loop without a selector (not asyncio's default) is left as is."""
    global _ui_thread
    selector = getattr(loop, "_selector", None)
    select = getattr(selector, "select", None)
    if select is None:
        return lambda: None
    _ui_thread = threading.get_ident()

    def gated(timeout: float | None = None):
        if timeout is None or timeout > 0:  # a zero timeout is the loop polling between handles
            _waits()
        try:
            return select(timeout)
        finally:
            _woke()

    selector.select = gated  # type: ignore[union-attr]
    _woke()

    def undo() -> None:
        global _ui_thread
        if getattr(selector, "select", None) is gated:
            del selector.select  # type: ignore[union-attr]  # the class's method again
        _ui_thread = None
        _waits()

    return undo
