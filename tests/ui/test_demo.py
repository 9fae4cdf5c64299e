"""`sagan-tui --demo` in a real terminal (a pty): it draws, `q` quits, and nothing is left running."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import socket
import struct
import subprocess
import sys
import termios
import time


def read_until(fd: int, pattern: bytes, seen: bytearray, timeout: float) -> re.Match | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = re.search(pattern, bytes(seen))
        if m:
            return m
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                seen += os.read(fd, 65536)
            except OSError:  # the child closed the terminal
                break
    return re.search(pattern, bytes(seen))


def test_demo_draws_and_quits_leaving_nothing_behind(tmp_path):
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "TMPDIR": str(tmp_path), "HOME": str(tmp_path),
           "SAGAN_TUI_CONFIG": str(tmp_path / "none.toml")}
    env.pop("TEXTUAL", None)
    proc = subprocess.Popen([sys.executable, "-m", "sagan_tui", "--demo", "--scenario", "calm", "--no-bell",
                             "--no-mouse", "--color", "256"],
                            stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
    os.close(slave)
    seen = bytearray()
    try:
        m = read_until(master, rb"on http://127\.0\.0\.1:(\d+)", seen, 30)
        assert m, bytes(seen)[-2000:]
        port = int(m.group(1))
        assert read_until(master, rb"Experiments", seen, 60), "the panel never drew"
        # "✓" is drawn (as a partial update) only when a source's poll succeeded.
        assert read_until(master, "✓".encode(), seen, 60), "no successful poll shown"
        assert b"\x1b[?1000h" not in seen  # --no-mouse: mouse reporting never requested
        os.write(master, b"q")
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0, "the simulator is still listening"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("sagan-tui-demo-")], "temp cache left behind"
    for secret in (b"rk-team-demo", b"rk-personal-demo", b"sagan-demo-token"):
        assert secret not in seen
