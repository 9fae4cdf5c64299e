"""Textual's Linux driver, made to notice that its terminal is gone (the pty closed, the window shut).

A hung-up terminal reads as end-of-file at once and refuses every write with EIO. Textual's own
driver (8.x) then spins and wedges: its input thread takes the ever-ready EOF for "nothing read"
and selects again at once (one core busy), and its writer thread dies on the first EIO, so its
bounded queue fills and the next frame's write blocks the event loop for good; a SIGTERM's
request to exit then waits behind it (the panel "ignored" SIGTERM). Without a controlling terminal
(started by `make`, by a pty harness) the kernel sends no SIGHUP either, so nothing ends it.

Rule: the terminal is gone when stdin or the drawing fd polls POLLHUP/POLLERR/POLLNVAL (what a
hung-up tty or a pty whose master closed reports, without reading a key from it). Then, once: the
input thread stops (its exit event, as Textual's own stop sets it), further writes are dropped
and the writer is not waited for at close (so nothing blocks on its full queue), and the process
is sent SIGHUP, as the kernel does for a session leader whose terminal hangs up: the stop-signal
handling (sagan_tui/commands/stop_signals.py) ends the panel with 128+SIGHUP, or hard after its grace
period. Only the driver's public methods are overridden (write, flush, close and the application
mode's start and stop), so a Textual upgrade that keeps them keeps this.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import threading
import sys
from typing import Any, Callable

from textual.drivers.linux_driver import LinuxDriver

GONE = select.POLLHUP | select.POLLERR | select.POLLNVAL


def _gone(fds: list[int]) -> bool:
    """Whether any of `fds` polls hung up now (no wait)."""
    poller = select.poll()
    for fd in dict.fromkeys(fds):
        poller.register(fd, 0)
    return any(mask & GONE for _, mask in poller.poll(0))


class HangupWatch(threading.Thread):
    """Waits for any of `fds` to poll hung up (or for `stop()`), then calls `lost` once."""

    def __init__(self, fds: list[int], lost: Callable[[], None]) -> None:
        super().__init__(daemon=True, name="sagan-hangup-watch")
        self._fds = list(dict.fromkeys(fds))
        self._lost = lost
        self._wake_r, self._wake_w = os.pipe()

    def run(self) -> None:
        poller = select.poll()
        for fd in self._fds:
            poller.register(fd, 0)  # no event asked for: poll reports only hang-up, error, bad fd
        poller.register(self._wake_r, select.POLLIN)
        try:
            while True:
                ready = poller.poll()
                # A hang-up reported with the wake (the panel stopping as its terminal closed, a
                # SIGTERM just after the window shut) is still a hang-up: its stop must not write.
                if any(mask & GONE for fd, mask in ready if fd != self._wake_r):
                    self._lost()
                    return
                if any(fd == self._wake_r for fd, _ in ready):
                    return
        finally:
            os.close(self._wake_r)

    def stop(self) -> None:
        with contextlib.suppress(OSError):  # the watch has ended already: its end is closed
            os.write(self._wake_w, b"x")
        os.close(self._wake_w)
        self.join()


class PanelDriver(LinuxDriver):
    """LinuxDriver that ends the panel, instead of spinning, when its terminal is gone (module doc)."""

    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self._lost_once = threading.Lock()
        self.lost = False
        self._watch: HangupWatch | None = None

    def terminal_lost(self) -> None:
        """From any thread, any number of times: acts once."""
        if not self._lost_once.acquire(blocking=False):
            return
        self.lost = True
        self.exit_event.set()  # the input thread leaves its loop instead of re-reading EOF
        os.kill(os.getpid(), signal.SIGHUP)

    def write(self, data: str) -> None:
        if not self.lost:  # gone: the writer thread may be dead and its queue full
            super().write(data)

    def flush(self) -> None:
        if not self.lost:
            super().flush()

    def close(self) -> None:
        if not self.lost:  # gone: the writer (a daemon thread) is not waited for
            super().close()

    def _terminal_fds(self) -> list[int]:
        return [self.fileno, sys.__stderr__.fileno()]

    def start_application_mode(self) -> None:
        super().start_application_mode()
        # stdin (the keys) and stderr (what Textual draws on)
        self._watch = HangupWatch(self._terminal_fds(), self.terminal_lost)
        self._watch.start()

    def stop_application_mode(self) -> None:
        if self._watch is not None:
            self._watch.stop()
            self._watch = None
            if not self.lost and _gone(self._terminal_fds()):
                # Hung up after the watch's last look: its writes are dropped as well. The panel
                # is ending already: no SIGHUP to say so.
                self.lost = True
                self.exit_event.set()
        # When the terminal is gone the exit event is set already: Textual's stop then leaves the
        # input alone (the thread ends on its own) and its writes are dropped.
        super().stop_application_mode()
