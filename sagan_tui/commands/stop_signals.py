"""Ending the panel on SIGTERM, SIGHUP and SIGINT as `q` ends it, with the exit code a shell expects;
and ending it hard when it cannot.

The rule (StopRule): the first stop signal asks the app to exit as `q` does, with 128+signal as its
code. If the process has not ended GRACE_S after that request, or when a second SIGTERM or SIGINT
comes, it ends hard: the terminal's modes put back as they were before the app took it, the
sequences that leave the alternate screen, show the cursor and end mouse tracking written (if the
terminal takes them without waiting), then os._exit(128+signal). SIGHUP never counts as the second
request: one hang-up may arrive twice (the kernel's, for a session leader, and the driver's own
when it sees the terminal gone: panel/driver.py); its grace period still holds.

Why a hard exit loses nothing: the cache is SQLite in WAL mode, written only in transactions
(core/store/opening.py); a transaction committed is in the file whatever happens to the process after,
one not yet committed is rolled back when the cache is next opened, and the next poll fetches that
again. The session process (the default) has its own process and its own session: its stdin is
the panel's pipe, whose end (at our exit, however it comes) ends it after its last writes
(core/session/serve.py); it is never killed from here.

The signals are watched from a thread too: `signal.set_wakeup_fd` has the interpreter's C-level
handler write each signal's number to a pipe from whichever thread it lands on, so the grace
period and the second signal are honoured even while the main thread cannot run Python code.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import signal
import sys
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Protocol

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
# Seconds from the first stop request to the hard exit. A `q`-like exit is done well within it
# (it restores the terminal and closes the channel; the session process finishes on its own);
# past it, what holds the exit is stuck, and a person who sent SIGTERM expects the process gone.
GRACE_S = 5.0
# What Textual's own stop writes to put the terminal back (drivers/linux_driver.py), each mode off.
RESTORE = ("\x1b[<u\x1b[?1049l\x1b[?25h\x1b[?1004l\x1b[?2004l\x1b[?7h"
           "\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l")


class Exits(Protocol):
    def exit(self, result: Any = None, return_code: int = 0, message: Any = None) -> None: ...


def exit_code(signo: int) -> int:
    """128 + the signal's number: what a shell reports for a process a signal ended."""
    return 128 + int(signo)


class Terminal:
    """What the hard exit puts back: the tty modes read before the app took the terminal."""

    def __init__(self, in_fd: int | None, out_fd: int | None) -> None:
        self.in_fd, self.out_fd = in_fd, out_fd
        self.modes: list[Any] | None = None
        if in_fd is not None:
            import termios

            with contextlib.suppress(termios.error, OSError):
                self.modes = termios.tcgetattr(in_fd)

    def restore(self) -> None:
        """Best effort, never blocking: a terminal that is gone or stopped is left as it is."""
        if self.modes is not None and self.in_fd is not None:
            import termios

            with contextlib.suppress(termios.error, OSError):
                termios.tcsetattr(self.in_fd, termios.TCSANOW, self.modes)
        if self.out_fd is not None:
            with contextlib.suppress(OSError, ValueError):
                if select.select([], [self.out_fd], [], 0.2)[1]:  # room for a few bytes: no wait
                    os.write(self.out_fd, RESTORE.encode())


def hard_exit(signo: int, terminal: Terminal | None) -> None:
    if terminal is not None:
        terminal.restore()
    os._exit(exit_code(signo))


class StopRule:
    """Counts the stop requests and decides the hard exit (the module's rule). `stop` is called
    from the main thread's signal handler, `signalled` from the watcher thread; `end` is the hard
    exit (a parameter so a test can see it called)."""

    def __init__(self, ask_exit: Callable[[int], None], end: Callable[[int], None],
                 grace_s: float = GRACE_S) -> None:
        self.ask_exit = ask_exit
        self.end = end
        self.grace_s = grace_s
        self.received: list[int] = []
        self.asked = threading.Event()
        self._first: int | None = None
        self._done = threading.Event()

    def stop(self, signo: int) -> None:
        """The main thread's signal handler: the first asks the app to exit (as `q` does)."""
        self.received.append(signo)
        if len(self.received) == 1:
            self.ask_exit(signo)

    def signalled(self, signo: int) -> None:
        """The watcher thread (one thread: no race): each stop signal as it arrived. The first starts
        the grace period; a later SIGTERM or SIGINT ends the process now."""
        if self._done.is_set():
            return
        if self._first is None:
            self._first = signo
            self.asked.set()
        elif signo != signal.SIGHUP:
            self._end(signo)

    def wait_grace(self, wait: Callable[[float], bool] | None = None) -> None:
        """The grace thread: once asked, wait the grace period (`wait(seconds)` is True when the
        rule ended the process meanwhile), then end hard: the process is still here."""
        self.asked.wait()
        if not (wait or self._done.wait)(self.grace_s) and self._first is not None:
            self._end(self._first)

    def _end(self, signo: int) -> None:
        if not self._done.is_set():
            self._done.set()
            self.end(signo)


class _SignalWatch(threading.Thread):
    """Reads the wakeup pipe: the numbers of the signals that arrived, whatever the main thread does."""

    def __init__(self, rule: StopRule, read_fd: int) -> None:
        super().__init__(daemon=True, name="sagan-stop-signals")
        self.rule, self.read_fd = rule, read_fd

    def run(self) -> None:
        threading.Thread(target=self.rule.wait_grace, daemon=True, name="sagan-stop-grace").start()
        stops = {int(s) for s in STOP_SIGNALS}
        try:
            while data := os.read(self.read_fd, 64):  # b"": the block ended, its end closed
                for signo in data:
                    if signo in stops:
                        self.rule.signalled(signo)
        finally:
            os.close(self.read_fd)


def _fd(stream: Any) -> int | None:
    try:
        return stream.fileno() if stream is not None and stream.isatty() else None
    except (OSError, ValueError):
        return None


@contextmanager
def exit_on_stop_signals(app: Exits, grace_s: float = GRACE_S) -> Iterator[list[int]]:
    """While the block runs, a stop signal asks `app` to exit as its quit key does (so it restores
    the terminal's modes, leaves the alternate screen, turns mouse tracking off and shows the
    cursor) with exit_code(signal) as its return code; the module's rule ends it hard when that
    does not happen. Yields the signals received.

    The default actions would end the process at once (SIGTERM, SIGHUP) or raise
    KeyboardInterrupt wherever the main thread is (SIGINT): either left the terminal raw.
    """
    terminal = Terminal(_fd(sys.__stdin__), _fd(sys.__stderr__))  # Textual draws on stderr

    def ask_exit(signo: int) -> None:
        try:
            loop = asyncio.get_running_loop()  # the app's, on this (the main) thread
        except RuntimeError:  # not running yet or any more: the terminal is not the app's
            raise SystemExit(exit_code(signo)) from None
        # A signal handler runs between two bytecodes of whatever the loop was doing: hand the
        # exit to the loop instead of touching its queues from here.
        loop.call_soon_threadsafe(lambda: app.exit(return_code=exit_code(signo)))

    rule = StopRule(ask_exit, lambda signo: hard_exit(signo, terminal), grace_s)

    def handler(signo: int, _frame: Any) -> None:
        rule.stop(signo)

    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)  # the C handler must never wait on it
    previous = {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS}
    previous_wakeup = signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
    _SignalWatch(rule, read_fd).start()
    try:
        yield rule.received
    finally:
        signal.set_wakeup_fd(previous_wakeup)
        for sig, old in previous.items():
            signal.signal(sig, old)
        # The watcher ends with its pipe; a grace period already running goes on until the
        # process ends (its exit may still be held after the app's: threads, atexit).
        os.close(write_fd)
