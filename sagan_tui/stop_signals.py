"""Ending the panel on SIGTERM, SIGHUP and SIGINT as `q` ends it, with the exit code a shell expects."""

from __future__ import annotations

import asyncio
import signal
from contextlib import contextmanager
from typing import Any, Iterator, Protocol

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


class Exits(Protocol):
    def exit(self, result: Any = None, return_code: int = 0, message: Any = None) -> None: ...


def exit_code(signo: int) -> int:
    """128 + the signal's number: what a shell reports for a process a signal ended."""
    return 128 + int(signo)


@contextmanager
def exit_on_stop_signals(app: Exits) -> Iterator[list[int]]:
    """While the block runs, a stop signal asks `app` to exit as its quit key does (so it restores
    the terminal's modes, leaves the alternate screen, turns mouse tracking off and shows the
    cursor) with exit_code(signal) as its return code. Yields the signals received.

    The default actions would end the process at once (SIGTERM, SIGHUP) or raise
    KeyboardInterrupt wherever the main thread is (SIGINT): either left the terminal raw.
    """
    received: list[int] = []

    def handler(signo: int, _frame: Any) -> None:
        received.append(signo)
        try:
            loop = asyncio.get_running_loop()  # the app's, on this (the main) thread
        except RuntimeError:  # not running yet or any more: the terminal is not the app's
            raise SystemExit(exit_code(signo)) from None
        # A signal handler runs between two bytecodes of whatever the loop was doing: hand the
        # exit to the loop instead of touching its queues from here.
        loop.call_soon_threadsafe(lambda: app.exit(return_code=exit_code(signo)))

    previous = {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS}
    try:
        yield received
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
