"""The session process started before the UI imports Textual (the `sagan-tui` command's first step).

Rule: in process mode (the default; SAGAN_TUI_SESSION=thread is the opt-out) the command calls
`start_early()` before it imports Textual, so the child's own start (Python, asyncio, the channel, the session's module) runs beside the
UI's instead of after its first frame; the panel's first SessionClient (channel/client.py) takes
the child over once the first frame is out and sends the Open. The child imports the rest of the
core when the Open arrives, not before, and the UI imports the channel's client only after its
first frame: either, done earlier, competed with the UI's first frame for the CPU on a busy
machine (bench `start_to_first_frame_process`). One never taken (the panel quit
before its session started) is ended at exit, with its runtime directory. Standard library only:
this runs before anything heavy is imported.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from sagan_tui.channel.runtime_dir import make_runtime_dir, socket_path

# After the channel closes the child finishes its last writes and closes the cache; past this it is killed.
CLOSE_GRACE_S = 10.0

ENV = "SAGAN_TUI_SESSION"


def session_mode(environ: Any = None) -> str:
    """`process` (the session as a child process, the default) or `thread` (in the panel's process:
    `SAGAN_TUI_SESSION=thread`, the opt-out)."""
    value = (os.environ if environ is None else environ).get(ENV, "").strip().lower()
    return "thread" if value == "thread" else "process"


def child_argv(path: Path) -> list[str]:
    return [sys.executable, "-m", "sagan_tui.session", "--socket", str(path)]


# How the child is started, early or not. stdin is a pipe the child reads to its end: it ends when
# the panel is gone, however it went. Its own session: the terminal's signals (Ctrl+C, a hang-up)
# are the panel's to act on; the child ends when the panel's channel closes.
CHILD_PIPES = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE,
               "start_new_session": True}


class EarlyChild:
    """A session process started with `start_early()`, waiting for a client to take it."""

    def __init__(self) -> None:
        self.runtime = make_runtime_dir()
        self.path = socket_path(self.runtime)
        self.popen = subprocess.Popen(child_argv(self.path), cwd=str(self.runtime), **CHILD_PIPES)
        self.taken = False

    def discard(self) -> None:
        """Never taken: end it (its stdin's end does) and remove its runtime directory."""
        if self.taken:
            return
        self.taken = True
        with contextlib.suppress(OSError):
            self.popen.stdin.close()  # type: ignore[union-attr]
        try:
            self.popen.wait(CLOSE_GRACE_S)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()
        shutil.rmtree(self.runtime, ignore_errors=True)


_early: EarlyChild | None = None


def start_early() -> None:
    """Start the session process now, for the panel's first client to take (see the module's docstring)."""
    global _early
    if _early is None:
        _early = EarlyChild()
        atexit.register(_early.discard)


def take_early() -> EarlyChild | None:
    global _early
    early, _early = _early, None
    if early is not None:
        early.taken = True
    return early
