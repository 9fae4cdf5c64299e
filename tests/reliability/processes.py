"""Real `sagan-tui` processes for the cache tests: panels on a pseudo-terminal, `sync` on pipes."""

from __future__ import annotations

import fcntl
import os
import re
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

from tests.harness import wait_until

EXE = [sys.executable, "-m", "sagan_tui"]
_ESCAPES = re.compile(rb"\x1b\[[0-9;?<=>!$ ]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_].*?\x1b\\|\x1b[()=>78cDEHM]")


def command_env(sim_env: dict[str, str], cache: Path, **extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("SAGAN", "RUNPOD"))}
    return {**base, **sim_env, "SAGAN_TUI_CONFIG": str(cache.parent / "absent.toml"), "SAGAN_TUI_CACHE": str(cache),
            **extra}


class PtyPanel:
    """`sagan-tui` on a pty of the given size; a thread drains what it draws so it never blocks."""

    def __init__(self, env: dict[str, str], args: list[str], size: tuple[int, int] = (160, 40)):
        master, slave = os.openpty()
        cols, rows = size
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.proc = subprocess.Popen([*EXE, *args], stdin=slave, stdout=slave, stderr=slave,
                                     env={**env, "TERM": "xterm-256color"}, start_new_session=True)
        os.close(slave)
        self.master = master
        self.output = bytearray()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.output += chunk

    def text(self) -> str:
        return _ESCAPES.sub(b"", bytes(self.output)).decode("utf-8", "replace")

    def wait_to_show(self, words: str, timeout: float) -> None:
        def shown() -> bool:
            if self.proc.poll() is not None:
                raise AssertionError(f"panel ended before it showed {words!r}; it showed: {self.text()[-1500:]!r}")
            return words in self.text()

        try:
            wait_until(shown, f"the panel to show {words!r}", timeout=timeout)
        except AssertionError as gone:
            raise AssertionError(f"{gone}; it showed: {self.text()[-1500:]!r}") from None

    def send(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def quit(self, timeout: float = 20) -> int:
        self.send("q")
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()  # our own child, by its pid
            self.proc.wait()
            return -9
        finally:
            self._reader.join(timeout=2)
            os.close(self.master)
