"""The session process started before the UI imports Textual (the `sagan-tui` command's first step).

Rule: the command calls `start_early(draft)` before it imports Textual, so the child's start runs beside the UI's instead
of after its first frame. The settings' layers go with it, as one JSON line on its stdin (the
pre-open): the child opens the cache and starts polling at once, while the UI imports Textual and
draws its first frame from its own read-only peek. On a fresh cache the pods come from that first
poll, which no longer waits for the UI's first frame and the Open after it (bench `cold_start`).
The panel's first SessionClient (wire/channel/client.py) takes the child over after the first frame
and sends the Open as always; the same layers are answered by the session already open, others
(a caller that changed them) close it and open theirs. The UI imports the channel's client only
after its first frame. One never taken (the panel quit before its session started) is ended at
exit, with its runtime directory. Standard library only until the child is started: this runs
before anything heavy is imported; the pre-open line is then written with msgspec's JSON (the UI
imports msgspec for its first rows anyway; Python's json module would be an import of its own).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from sagan_tui.wire.channel.runtime_dir import ChannelRefused, connect_watch, make_runtime_dir, socket_path

# After the channel closes the child finishes its last writes and closes the cache; past this it is killed.
CLOSE_GRACE_S = 10.0

def child_argv(path: Path, pre_open: bool = False) -> list[str]:
    return [sys.executable, "-m", "sagan_tui.core.session", "--socket", str(path), "--nice", str(CHILD_NICE),
            *(["--pre-open"] if pre_open else [])]


def open_layers(draft: Any) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """A Draft's values and accounts as the Open carries them (paths as text)."""
    values = {k: (str(v) if isinstance(v, os.PathLike) else v) for k, v in draft.values.items()}
    return values, {k: dict(v) for k, v in draft.accounts.items()}


def pre_open_line(draft: Any) -> bytes:
    """The pre-open on the child's stdin: the layers as one JSON line (they may hold the token and
    keys: the pipe is the child's own, as the socket is; never logged). A value JSON has no word
    for (a NaN, a TOML date) is written as msgspec writes it or as its text: the panel's Open
    carries the layers again, and a session opened on layers that differ is opened again on its."""
    import msgspec

    values, accounts = open_layers(draft)
    line = {"values": values, "accounts": accounts, "origins": layer_origins(draft)}
    return msgspec.json.encode(line, enc_hook=str) + b"\n"


def layer_origins(draft: Any) -> dict[str, str]:
    """Which layer set each value (config.py's Draft.origins), as the Open carries it."""
    return {str(k): str(v) for k, v in getattr(draft, "origins", {}).items()}


# How the child is started, early or not. stdin is a pipe the child reads to its end: it ends when
# the panel is gone, however it went. Its own process group: the terminal's signals (Ctrl+C, a
# hang-up) go to the foreground group, the panel's, which acts on them; the child ends when the
# panel's channel closes. The panel's session all the same, so the panel's scheduling group
# (Linux gives each session one): see CHILD_NICE.
CHILD_PIPES = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE,
               "process_group": 0}

# The UI before its own core: the child runs this many nice steps below the panel. Within their
# scheduling group the UI's frames and keys never wait for the session's imports, polls or
# decoding (it asks for little: a frame, a key); against other programs the two share the
# machine as one, so the session's polls are not slowed by anyone but the owner's own screen.
CHILD_NICE = 5


class EarlyChild:
    """A session process started with `start_early()`, waiting for a client to take it."""

    def __init__(self, draft: Any = None) -> None:
        self.runtime = make_runtime_dir()
        self.path = socket_path(self.runtime)
        self.popen = subprocess.Popen(child_argv(self.path, pre_open=draft is not None), cwd=str(self.runtime),
                                      **CHILD_PIPES)
        self.taken = False
        if draft is not None:
            try:
                self.popen.stdin.write(pre_open_line(draft))  # type: ignore[union-attr]
                self.popen.stdin.flush()  # type: ignore[union-attr]
            except OSError:
                pass  # it died at once: the client that takes it says why

    def discard(self) -> None:
        """Never taken: end it (its stdin's end does) and remove its runtime directory."""
        if self.taken:
            return
        self.taken = True
        end_by_stdin(self.popen)
        shutil.rmtree(self.runtime, ignore_errors=True)


def end_by_stdin(popen: subprocess.Popen, grace_s: float = CLOSE_GRACE_S) -> None:
    """End a child that ends when its stdin does (the session process, --demo's simulator):
    close its stdin, wait `grace_s` for it, then kill it."""
    if popen.stdin is not None:
        with contextlib.suppress(OSError):
            popen.stdin.close()
    try:
        popen.wait(grace_s)
    except subprocess.TimeoutExpired:
        popen.kill()
        popen.wait()


_early: EarlyChild | None = None


def start_early(draft: Any = None) -> None:
    """Start the session process now, for the panel's first client to take; with `draft`, opened on
    its layers at once (see the module's docstring)."""
    global _early
    if _early is None:
        _early = EarlyChild(draft)
        atexit.register(_early.discard)


def take_early() -> EarlyChild | None:
    global _early
    early, _early = _early, None
    if early is not None:
        early.taken = True
    return early


_attached: socket.socket | None = None
# A PreOpen went on the attached connection and its answer is still in the socket (not yet read).
_answer_due = False
# How long the first frame waits for the watch's answer to the PreOpen. It is usually in the socket
# already (the watch answers while the panel imports Textual); one busy polling a large fleet may
# take longer, and the first frame is then the cache's peek, the watch's state the one after.
PRE_OPEN_WAIT_S = 0.1


def attach_or_start_early(draft: Any, cache_path: Path, standalone: bool = False) -> str | None:
    """A `watch` running on this cache is attached to (its connection kept for the panel's first
    client to take): no session process of our own, no second set of polls. Otherwise (none runs,
    `standalone`, or one that is not safe to use) the session process is started early. Returns
    why a watch was found and not used, for the caller to say (None otherwise)."""
    global _attached, _answer_due
    why = None
    if not standalone:
        try:
            _attached = connect_watch(cache_path)
            if _attached is not None and draft is not None:
                _pre_open_on(_attached, draft)
                _answer_due = True
        except (ChannelRefused, OSError) as exc:
            why = f"not attaching to the watch on {cache_path}: {exc}"
            if _attached is not None:
                _attached.close()
                _attached = None
    if _attached is None:
        start_early(draft)
    return why


def take_attached() -> socket.socket | None:
    """The connection to a watch made by attach_or_start_early, once."""
    return take_watch()[0]


def take_watch() -> tuple[socket.socket | None, bool]:
    """The connection to a watch made by attach_or_start_early, once, and whether its PreOpen's
    answer is still to be read from it (as the reply to request 0)."""
    global _attached, _answer_due
    sock, due, _attached, _answer_due = _attached, _answer_due, None, False
    return sock, due


def attaching() -> bool:
    """A connection to a watch is held for the panel's first client (not yet taken)."""
    return _attached is not None


def pre_opened(wait_s: float | None = None) -> Any:
    """The watch's answer to the PreOpen (ReadyView, FailedView or None, as PreOpen declares), read
    from the attached connection if it is there within `wait_s`; None when it is not (it is read
    later, as the Open's answer) or no PreOpen is due. A connection that sends anything else is
    dropped: the panel then runs its own session."""
    global _attached, _answer_due
    sock = _attached
    if sock is None or not _answer_due:
        return None
    import select

    if not select.select([sock], [], [], PRE_OPEN_WAIT_S if wait_s is None else wait_s)[0]:
        return None
    _answer_due = False
    try:
        return _read_pre_open_reply(sock)
    except (OSError, ValueError) as exc:  # msgspec's errors are ValueErrors
        import logging

        logging.getLogger(__name__).warning("the watch's answer to the pre-open is unreadable: %s", exc)
        sock.close()
        _attached = None
        return None


def _read_pre_open_reply(sock: socket.socket) -> Any:
    """One frame, read whole (the watch writes it at once), that must be the reply to request 0."""
    from sagan_tui.wire.channel.frames import HEADER, MAX_FRAME
    from sagan_tui.wire.channel.messages import TO_PANEL, Reply

    sock.settimeout(READ_TIMEOUT_S)
    try:
        (size,) = HEADER.unpack(_exactly(sock, HEADER.size))
        if size > MAX_FRAME:
            raise ValueError(f"a frame of {size} bytes")
        message = TO_PANEL.decode(_exactly(sock, size))
    finally:
        sock.settimeout(None)
    if not isinstance(message, Reply) or message.id != 0 or message.error is not None:
        raise ValueError(f"not the pre-open's answer: {type(message).__name__}")
    return pre_open_result(message.result)


def pre_open_result(raw: Any) -> Any:
    """A PreOpen's Reply as its declared type; None for a watch of an earlier version, which answers
    it with Done (it opened the session; the Open the panel then sends is answered with it)."""
    import msgspec

    from sagan_tui.wire.channel import intents as I
    from sagan_tui.wire.channel.messages import result_of

    try:
        return result_of(I.PreOpen, raw)
    except msgspec.ValidationError:
        if msgspec.msgpack.decode(raw) != {}:  # Done, as it was encoded; anything else is not ours
            raise
        return None


READ_TIMEOUT_S = 5.0  # a frame begun is ended at once by a live watch: past this it is not one


def _exactly(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ValueError("the watch closed the connection")
        buf += chunk
    return bytes(buf)


def _pre_open_on(sock: socket.socket, draft: Any) -> None:
    """The watch opens this panel's session while the panel imports Textual (intents.PreOpen, as
    request 0): its answer is the first frame (`pre_opened`), or the Open's when it comes later.
    The channel's messages are MessagePack: msgspec is imported here, on the attaching path only."""
    from sagan_tui.wire.channel import intents as I
    from sagan_tui.wire.channel.frames import pack
    from sagan_tui.wire.channel.messages import Request, encode

    values, accounts = open_layers(draft)
    sock.sendall(pack(encode(Request(0, I.PreOpen(values, accounts, layer_origins(draft))))))
