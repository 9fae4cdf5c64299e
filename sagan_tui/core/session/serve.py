"""The session process: a PanelSession behind the channel's socket (`python -m sagan_tui.core.session
--socket PATH`).

Its life: listen on PATH (in the panel's 0700 runtime dir), print `ready` on standard output (the
panel waits for that line, not for a time), answer the panel's Open with the whole panel, then
send every update as view data, and answer each intent with its typed result (core/session/answers.py).
It ends when the panel's connection closes (the panel quit or died), when its stdin (the panel's
pipe) ends, or on SIGTERM/SIGHUP; SIGINT is
the panel's to act on (it ends the channel, which ends this process).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

import msgspec

from sagan_tui.wire.basics import HeldClock
from sagan_tui.wire.channel import intents as I
from sagan_tui.wire.channel.messages import Update, encode
from sagan_tui.wire.channel.rows import SentTables, first_part
from sagan_tui.wire.channel.server import ChannelServer
from sagan_tui.wire.channel.views import FailedView, ReadyView, UpdateView

log = logging.getLogger(__name__)
READY_LINE = "ready"


class SessionHost:
    """One PanelSession on this loop, opened by the panel's Open (or before it, by the pre-open on
    stdin; or, in a test's process, by `open_here` on a cache the test holds); its updates encoded
    and sent on this loop, in the order it publishes them. `path` None: served on a socket handed
    to `server.attach` (a socketpair's end), not listened for."""

    def __init__(self, path: Path | None = None, *, polls_by: Any = None,
                 overrides: dict[str, Any] | None = None) -> None:
        self.server = ChannelServer(path, self.handle)
        # Attached to a `watch` (core/session/hub.py): the session never polls, `polls_by()` asks the
        # watch to poll now, and `overrides` (its poll interval) replace the panel's values.
        self._polls_by = polls_by
        self._overrides = dict(overrides or {})
        self.session: Any = None
        self._opened = False  # the Open's Reply is written: updates go out, not held for it
        self._held: list[bytes | Update] = []  # frames, or updates encoded as they go (_flush)
        self._answer: Any = None  # the Open's answer, once the session gave it (None: not yet, or it failed)
        self._ready: Any = None  # the session's own answer, whole (the PreOpen's goes in parts)
        self._in_parts = False  # the answer goes as its first rows, the rest as an update after it
        self._answered = asyncio.Event()
        self._opening = False  # a session was started: intents wait for its answer
        self._pre: I.Open | None = None  # the layers the session was pre-opened on, until the Open
        # What the panel holds of the tables' rows (wire/channel/rows.py): updated as each update's
        # view is made, in the order the frames go out.
        self._sent = SentTables()

    async def handle(self, intent: I.Intent) -> Any:
        from sagan_tui.core.session.answers import HANDLERS

        if isinstance(intent, I.Open):
            return await self._open(intent)
        if isinstance(intent, I.PreOpen):
            return await self._pre_opened(I.Open(intent.values, intent.accounts, origins=intent.origins))
        if self._opening and not self._answered.is_set():
            # Sent while the Open is in flight (a widget asks for its scope at the first frame,
            # before the session has loaded): it follows the Open, it is not refused.
            await self._answered.wait()
        if self.session is None or not self._opening:
            raise RuntimeError("the session is not open yet (Open comes first)")
        return await HANDLERS[type(intent)](self.session, intent)

    async def answered(self) -> None:
        """Until the Open is answered (the whole panel, or why not)."""
        await self._answered.wait()

    def pre_open(self, intent: I.Open) -> None:
        """Open now, on the layers the panel wrote on our stdin as it started us (wire/channel/early.py):
        the cache and the first poll need not wait for the panel's first frame and its Open."""
        if self._opening:
            return  # the panel's Open came first
        try:
            self._start(intent)
        except Exception as exc:  # noqa: BLE001 - the panel's Open starts it again and answers why it cannot
            # The type only: a validation error quotes the values, and the layers hold secrets.
            log.warning("the pre-open failed (%s); the panel's Open opens the session", type(exc).__name__)
            self._reset()
            return
        self._pre = intent

    async def _pre_opened(self, intent: I.Open) -> ReadyView | FailedView | None:
        """A PreOpen (a panel attaching to a watch, before it imports Textual): opened now, and the
        answer is the Open's, sent as soon as the session has it, with the updates held for it
        behind; None if this did not start a session (the panel's Open then opens it)."""
        self.pre_open(intent)
        if self._pre is not intent:
            return None
        self._in_parts = not self._answered.is_set()
        await self._answered.wait()
        asyncio.get_running_loop().call_soon(self._flush)  # after this Reply, as for the Open's
        return self._answer

    def open_here(self, session: Any) -> Any:
        """`session` (a test's, on a cache it holds) opened now on the caller's thread, before any
        loop runs it: the Open's answer (ReadyView), which the panel takes as its whole first frame.
        Its updates are held until `start_here` (the panel connected)."""
        self.session = session
        self._opening = True
        self._answer = self._first(session.open_now())
        self._answered.set()
        return self._answer

    def start_here(self) -> None:
        """The session opened by open_here starts serving (on the running loop); the panel is connected."""
        self._flush()
        self.session.start()

    async def _open(self, intent: I.Open) -> Any:
        pre, self._pre = self._pre, None
        if pre is not None and not _same_layers(pre, intent):
            # Opened on other layers than the panel's (a caller changed them after it started
            # us): theirs win. Said in the log, by what differs' names only (values hold secrets).
            log.warning("the pre-opened session's layers differ from the Open's (%s); it is reopened",
                        ", ".join(_differing(pre, intent)))
            await self._discard()
        elif pre is None and self._opening:
            raise RuntimeError("the session is open already")
        if not self._opening:
            self._start(intent)
        await self._answered.wait()
        # After this step's Reply is written: the updates made meanwhile follow it, in order.
        asyncio.get_running_loop().call_soon(self._flush)
        if self._in_parts:  # the PreOpen's answer went in parts: this one is whole again
            self._in_parts = False
            return self._first(self._ready)
        return self._answer

    def _start(self, intent: I.Open) -> None:
        from sagan_tui.wire.config import Draft
        from sagan_tui.core.session.core import PanelSession

        # From here on an intent waits for this session's answer (handle).
        self._opening = True
        try:
            draft = Draft({**intent.values, **self._overrides}, {k: dict(v) for k, v in intent.accounts.items()},
                          origins=dict(intent.origins))
            _log_beside_cache(draft)
            held = intent.clock
            clock = {} if held is None else {"clock": HeldClock(held)}  # moved by the panel's Tick and KeyPressed
            def publish(update: object) -> None:
                # A discarded session's late news goes nowhere: a pre-open that failed after the
                # Open replaced it must not answer that Open with its failure.
                if self.session is session:
                    self.publish(update)

            session = PanelSession(draft, publish, poll=intent.poll, polls_by=self._polls_by, **clock)
            self.session = session
            session.start()
        except BaseException:
            self._answered.set()  # the intents waiting are refused (not open), not left waiting
            raise

    def _reset(self) -> None:
        """No session: the next Open starts one, on a panel that holds nothing yet."""
        self.session, self._opening, self._answer, self._ready, self._in_parts = None, False, None, None, False
        self._answered = asyncio.Event()
        self._held.clear()
        self._sent = SentTables()

    async def _discard(self) -> None:
        """The pre-opened session closed and awaited (it publishes nothing after) before the next starts."""
        session = self.session
        self._reset()
        if session is not None:
            await session.close()

    def publish(self, update: UpdateView | ReadyView | FailedView) -> None:
        """From the session, on this loop: an update's parts encoded and sent (or held until the
        Open's Reply is written), in order; the whole panel (or why not) answers the Open."""
        if isinstance(update, UpdateView):
            # The send step: what this connection holds goes as patches; each part goes out as
            # soon as it is made (wire/channel/rows.py's SentTables.send).
            for view in self._sent.send(update):
                self._out(encode(Update(view)))
        elif not self._answered.is_set():
            # The whole panel (the Open's answer) is published before any update, and its
            # Reply goes out before the updates held for it (_flush): the same order.
            self._ready = update
            self._answer = self._first(update)
            self._answered.set()

    def _first(self, answer: ReadyView | FailedView) -> ReadyView | FailedView:
        """The Open's answer as this connection sends it: the whole panel starts what it holds. In
        parts for a PreOpen (wire/channel/rows.py's first_part): the rest is held to follow its Reply."""
        if not isinstance(answer, ReadyView):
            return answer
        first, rest = first_part(answer.first) if self._in_parts else (answer.first, None)
        answer = msgspec.structs.replace(answer, first=self._sent.one(first))
        # Encoded once the Reply is out (_flush): the first frame does not wait for the rest's bytes.
        self._held += [Update(view) for view in self._sent.send(rest)] if rest is not None else []
        return answer

    def _out(self, frame: bytes) -> None:
        if self._opened:
            self.server.send_frame(frame)
        else:
            self._held.append(frame)

    def _flush(self) -> None:
        self._opened = True
        held, self._held = self._held, []
        for frame in held:
            self.server.send_frame(frame if isinstance(frame, bytes) else encode(frame))

    async def close(self) -> None:
        await self.server.aclose()
        if self.session is not None:
            await self.session.close()


def _same_layers(a: I.Open, b: I.Open) -> bool:
    return not _differing(a, b)


def _differing(a: I.Open, b: I.Open) -> list[str]:
    """The names of what differs between two Opens' layers (never their values)."""
    names = sorted(k for k in a.values.keys() | b.values.keys() if a.values.get(k) != b.values.get(k))
    names += sorted(f"account {k}" for k in a.accounts.keys() | b.accounts.keys() if a.accounts.get(k) != b.accounts.get(k))
    return names + [k for k in ("poll", "clock") if getattr(a, k) != getattr(b, k)]


def _log_beside_cache(draft: Any) -> None:
    """Warnings to the panel's log file beside the cache (never the terminal the panel draws on)."""
    from sagan_tui.core.logfile import log_to_file

    try:
        log_to_file(draft)
    except OSError:
        pass  # the panel said so already when it took the same file


async def serve(path: Path, pre_open: bool = False) -> int:
    host = SessionHost(path)
    await host.server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(sig, stop.set)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    await _end_with_stdin(stop, host.pre_open if pre_open else None)
    print(READY_LINE, flush=True)
    ended = asyncio.ensure_future(host.server.closed.wait())
    stopped = asyncio.ensure_future(stop.wait())
    await asyncio.wait({ended, stopped}, return_when=asyncio.FIRST_COMPLETED)
    for task in (ended, stopped):
        task.cancel()
    await host.close()
    return 0


def pre_open_intent(line: bytes) -> I.Open:
    """The pre-open line (wire/channel/early.py's pre_open_line) as the Open it stands for; ValueError
    if it is not one."""
    try:
        layers = json.loads(line)
        return I.Open(dict(layers["values"]), {k: dict(v) for k, v in layers["accounts"].items()},
                      origins={str(k): str(v) for k, v in layers.get("origins", {}).items()})
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"the pre-open line is not the settings' layers: {type(exc).__name__}") from None


async def _end_with_stdin(stop: asyncio.Event, pre_open: Any = None) -> None:
    """When the panel started us, stdin is its pipe: its end (the panel gone before or after
    connecting, even by kill -9) ends us too. A terminal's stdin (started by hand) is not watched.
    With `pre_open`, the pipe's first line is the settings' layers, handed to it as an Open."""
    if sys.stdin is None or sys.stdin.isatty():
        return
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    except (OSError, ValueError):
        return  # not a pipe (/dev/null, a file): only the channel's end ends us

    async def watch() -> None:
        if pre_open is not None:
            try:
                line = await reader.readline()
                if line:
                    pre_open(pre_open_intent(line))
            except Exception:  # noqa: BLE001 - the panel's Open, on the socket, opens it then
                log.warning("no pre-open: %s", sys.exc_info()[1])
        while await reader.read(4096):
            pass
        stop.set()

    _tasks.add(asyncio.ensure_future(watch()))


_tasks: set[asyncio.Task] = set()


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m sagan_tui.core.session",
                                     description="The panel's session process (started by the panel).")
    parser.add_argument("--socket", required=True, type=Path, help="the Unix socket to listen on")
    parser.add_argument("--pre-open", action="store_true",
                        help="open the session on the settings' layers read from stdin's first line")
    parser.add_argument("--nice", type=int, default=0, metavar="N",
                        help="run N steps below the panel that started it (wire/channel/early.py's CHILD_NICE)")
    args = parser.parse_args(argv)
    if args.nice > 0:
        os.nice(args.nice)
    try:
        return asyncio.run(serve(args.socket, args.pre_open))
    except Exception as exc:  # noqa: BLE001 - the panel reads this line from our stderr
        print(f"session process failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
