"""A program run over a real SSH session on 127.0.0.1: an asyncssh server gives it a pty, an asyncssh client reads it.

What the owner's laptop receives is what this client receives: the bytes on the session's
channel (decrypted payload, what the laptop's terminal is handed; the wire adds SSH framing
and MAC on top). The server does what sshd does for a `ssh -t host cmd`: it opens a pty of the
client's size, sets TERM to the client's terminal type (COLORTERM is not forwarded, as by
OpenSSH's defaults), runs the command on it and copies bytes both ways; the exit status goes
back on the channel. Same interface as ptyrun.PtyProcess (pump, wait_for, send, bytes_between,
stop), so a bench or test can run either way. Needs asyncssh (the test extra).
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import queue
import re
import signal
import struct
import subprocess
import termios
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from ptyrun import visible_text

_MODE = re.compile(rb"\x1b\[\?([0-9;]+)([hl])")


def private_modes(raw: bytes) -> dict[int, str]:
    """The last setting (`h` set, `l` reset) of each DEC private mode the bytes touch."""
    last: dict[int, str] = {}
    for numbers, op in _MODE.findall(raw):
        for n in numbers.split(b";"):
            if n:
                last[int(n)] = op.decode()
    return last


@dataclass
class SshPtyProcess:
    """`argv` run on a pty behind an SSH server on 127.0.0.1, driven by an SSH client of `size`."""

    argv: Sequence[str]
    env: Mapping[str, str]
    size: tuple[int, int] = (200, 50)  # columns, lines
    term: str = "xterm-256color"
    cwd: str | None = None
    output: bytearray = field(default_factory=bytearray)
    stamps: list[tuple[float, int]] = field(default_factory=list)  # (monotonic time, len(output)) per read
    exit_status: int | None = None

    # --- the SSH side, on its own event loop in a thread -----------------------------------

    def start(self) -> "SshPtyProcess":
        self._chunks: queue.Queue[tuple[float, bytes] | None] = queue.Queue()
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._child: subprocess.Popen | None = None
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="ssh-session", daemon=True)
        self.started = time.monotonic()
        self._thread.start()
        if not self._ready.wait(60) or self._error is not None:
            raise RuntimeError(f"ssh session did not start: {self._error!r}")
        return self

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self._session())
        except BaseException as exc:  # noqa: BLE001 - reported to the caller
            self._error = exc
            self._ready.set()
        finally:
            self._chunks.put(None)
            self.loop.close()

    async def _session(self) -> None:
        import asyncssh

        host_key = asyncssh.generate_private_key("ssh-ed25519")
        server = await asyncssh.create_server(
            _NoAuth, "127.0.0.1", 0, server_host_keys=[host_key], process_factory=self._serve,
            line_editor=False, encoding=None, allow_pty=True, agent_forwarding=False,
            x11_forwarding=False, sftp_factory=None)
        port = server.sockets[0].getsockname()[1]
        try:
            async with asyncssh.connect("127.0.0.1", port, username="owner", known_hosts=None, client_keys=None,
                                        agent_path=None, password=None, preferred_auth="none") as conn:
                cols, lines = self.size
                proc = await conn.create_process(term_type=self.term, term_size=(cols, lines), encoding=None)
                self._client = proc
                self._ready.set()
                while True:
                    data = await proc.stdout.read(65536)
                    if not data:
                        break
                    self._chunks.put((time.monotonic(), data))
                status = await proc.wait(check=False)
                self.exit_status = status.exit_status
        finally:
            server.close()

    async def _serve(self, process) -> None:
        """sshd's part: the command on a pty of the client's size and terminal type."""
        master, slave = os.openpty()
        cols, lines, _pw, _ph = process.term_size
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, cols, 0, 0))
        env = {k: v for k, v in self.env.items() if k != "COLORTERM"}
        env.update({"TERM": process.term_type or "dumb", "SSH_CONNECTION": "127.0.0.1 0 127.0.0.1 22"})
        child = subprocess.Popen(list(self.argv), stdin=slave, stdout=slave, stderr=slave, env=env, cwd=self.cwd,
                                 start_new_session=True, close_fds=True)
        self._child = child
        os.close(slave)
        loop = asyncio.get_running_loop()
        done = asyncio.Event()

        def readable() -> None:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b""
            if data:
                process.stdout.write(data)
            else:
                loop.remove_reader(master)
                done.set()

        loop.add_reader(master, readable)

        async def keys() -> None:
            while True:
                data = await process.stdin.read(4096)
                if not data:
                    return
                os.write(master, data)

        typing = asyncio.ensure_future(keys())
        await done.wait()
        rc = await loop.run_in_executor(None, child.wait)
        typing.cancel()
        os.close(master)
        process.exit(rc if rc >= 0 else 128 - rc)

    # --- the caller's side ------------------------------------------------------------------

    def pump(self, seconds: float) -> bool:
        """Take what arrived on the channel for `seconds`; False once the session ended and all is read."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            try:
                item = self._chunks.get(timeout=max(0.0, left)) if left > 0 else self._chunks.get_nowait()
            except queue.Empty:
                return True
            if item is None:
                self._chunks.put(None)  # stays ended for the next call
                return False
            stamp, data = item
            self.output += data
            self.stamps.append((stamp, len(self.output)))

    def wait_for(self, seen: Callable[[str], bool], timeout: float, tail: int = 200_000, since: int = 0) -> float:
        """Seconds from start until `seen(visible text)` holds, over what arrived after byte `since`;
        TimeoutError with the screen's tail."""
        deadline = time.monotonic() + timeout
        checked = -1
        while time.monotonic() < deadline:
            alive = self.pump(0.02)
            if len(self.output) != checked:
                checked = len(self.output)
                if seen(visible_text(bytes(self.output[max(since, checked - tail):]))):
                    return self.stamps[-1][0] - self.started
            if not alive:
                break
        raise TimeoutError(f"over ssh: marker not seen; last output: {visible_text(bytes(self.output[-600:]))!r}")

    def send(self, keys: str | bytes) -> None:
        data = keys.encode() if isinstance(keys, str) else keys
        self.loop.call_soon_threadsafe(self._client.stdin.write, data)

    def bytes_between(self, t0: float, t1: float) -> int:
        before = [n for t, n in self.stamps if t < t0]
        upto = [n for t, n in self.stamps if t < t1]
        return (upto[-1] if upto else 0) - (before[-1] if before else 0)

    def wait_exit(self, timeout: float) -> int | None:
        end = time.monotonic() + timeout
        while self.pump(0.05) and time.monotonic() < end:
            pass
        self._thread.join(max(0.0, end - time.monotonic()))
        return self.exit_status

    def stop(self, quit_keys: str | None = "q", grace: float = 5.0) -> None:
        """Ask the program to quit (so it restores the terminal), then make sure it is gone."""
        if self._thread.is_alive() and quit_keys:
            try:
                self.send(quit_keys)
            except RuntimeError:  # the loop already closed
                pass
            self.wait_exit(grace)
        child = self._child
        if child is not None and child.poll() is None:
            os.killpg(child.pid, signal.SIGTERM)
            try:
                child.wait(3)
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()
        self._thread.join(10)

    def __enter__(self) -> "SshPtyProcess":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _no_auth_server():
    import asyncssh

    class NoAuth(asyncssh.SSHServer):
        """Loopback only, a throw-away host key: no authentication to set up."""

        def begin_auth(self, username: str) -> bool:
            return False

    return NoAuth


def _NoAuth():  # noqa: N802 - asyncssh calls this like the class it returns an instance of
    return _no_auth_server()()
