"""A program run under a real pseudo-terminal: time to a marker on screen, bytes written, peak RSS."""

from __future__ import annotations

import errno
import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import termios
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

# CSI / OSC / other escape sequences: what a terminal interprets, not what it shows.
_ESCAPES = re.compile(rb"\x1b\[[0-9;?<=>!$ ]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_].*?\x1b\\|\x1b[()][0-9A-Za-z]|\x1b[=>78cDEHM]")


def visible_text(raw: bytes) -> str:
    """What the bytes would show, with every escape sequence removed (cursor moves become nothing)."""
    return _ESCAPES.sub(b"", raw).decode("utf-8", "replace")


@dataclass
class PtyProcess:
    """A child whose stdin, stdout and stderr are one pty of the given size; we hold the master."""

    argv: Sequence[str]
    env: Mapping[str, str]
    size: tuple[int, int] = (200, 50)  # columns, lines
    cwd: str | None = None
    term: str = "xterm-256color"
    output: bytearray = field(default_factory=bytearray)
    stamps: list[tuple[float, int]] = field(default_factory=list)  # (monotonic time, len(output)) per read

    def start(self) -> "PtyProcess":
        master, slave = os.openpty()
        cols, lines = self.size
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, cols, 0, 0))
        env = {**self.env, "TERM": self.term, "COLUMNS": str(cols), "LINES": str(lines)}
        self.started = time.monotonic()
        self.proc = subprocess.Popen(list(self.argv), stdin=slave, stdout=slave, stderr=slave, env=env,
                                     cwd=self.cwd, start_new_session=True, close_fds=True)
        os.close(slave)
        self.master = master
        return self

    @property
    def pid(self) -> int:
        return self.proc.pid

    def pump(self, seconds: float) -> bool:
        """Read whatever the child writes for `seconds`; False once it has exited and nothing is left."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return True
            ready, _, _ = select.select([self.master], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(self.master, 65536)
            except OSError as exc:
                if exc.errno == errno.EIO:  # the child closed the pty
                    return False
                raise
            if not chunk:
                return False
            self.output += chunk
            self.stamps.append((time.monotonic(), len(self.output)))

    def wait_for(self, seen: Callable[[str], bool], timeout: float, tail: int = 200_000) -> float:
        """Seconds from start until `seen(visible text)` holds; raises TimeoutError with the screen's tail."""
        deadline = time.monotonic() + timeout
        checked = 0
        while time.monotonic() < deadline:
            alive = self.pump(0.01)
            if len(self.output) != checked:
                checked = len(self.output)
                if seen(visible_text(bytes(self.output[-tail:]))):
                    return self.stamps[-1][0] - self.started
            if not alive:
                break
        raise TimeoutError(f"{self.argv[-1]}: marker not seen; last output: "
                           f"{visible_text(bytes(self.output[-600:]))!r}")

    def send(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def bytes_between(self, t0: float, t1: float) -> int:
        """Bytes the child wrote in the monotonic interval [t0, t1)."""
        before = [n for t, n in self.stamps if t < t0]
        upto = [n for t, n in self.stamps if t < t1]
        return (upto[-1] if upto else 0) - (before[-1] if before else 0)

    def peak_rss_mb(self) -> float:
        """The child's peak resident set (VmHWM), in MB."""
        with open(f"/proc/{self.pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        raise RuntimeError("no VmHWM")

    def stop(self, quit_keys: str | None = "q", grace: float = 3.0) -> None:
        """Ask the app to quit (so it restores the terminal), then make sure the process is gone."""
        if self.proc.poll() is None and quit_keys:
            try:
                self.send(quit_keys)
            except OSError:
                pass
            end = time.monotonic() + grace
            while self.proc.poll() is None and time.monotonic() < end:
                self.pump(0.05)
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(2)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        try:
            os.close(self.master)
        except OSError:
            pass

    def __enter__(self) -> "PtyProcess":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
