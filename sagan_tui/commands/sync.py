"""`sagan-tui sync`: the poller without a screen, one summary line per poll."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import time

from sagan_tui.core.heap import few_heaps, give_back
from sagan_tui.commands.common import settings_from_args


def _fail(message: str) -> int:
    print(f"sagan-tui sync: {message}", file=sys.stderr)
    return 2


async def _loop(args: argparse.Namespace) -> int:
    import sqlite3

    from sagan_tui.core.store.cache import Cache
    from sagan_tui.core.store.opening import CacheError, unusable

    settings = settings_from_args(args)
    try:
        cache = Cache(settings.cache_path)
    except CacheError as exc:
        return _fail(str(exc))
    if not settings.sagan_api_token or not settings.sagan_api_token.get_secret_value():
        # Sagan would answer 401 to every read, said as `ERR 401` like a wrong token: say what is missing.
        cache.close()
        return _fail("no Sagan token: set SAGAN_API_TOKEN (or sagan_api_token in the config file)")
    try:
        return await _polls(args, settings, cache)
    except sqlite3.Error as exc:  # the cache stopped taking writes (full disk, I/O error): say which
        return _fail(f"{unusable(settings.cache_path, exc)} (what earlier polls wrote is kept)")


async def _polls(args: argparse.Namespace, settings, cache) -> int:
    from sagan_tui.core.sync.poller import Poller

    for notice in cache.notices:
        print(f"sagan-tui: {notice}", file=sys.stderr)
    poller = Poller(settings, cache)
    stop = Interrupt()
    deadline = None if args.once else time.monotonic() + (args.for_seconds or float("inf"))
    failures = 0
    try:
        while not stop.asked:
            started = time.monotonic()
            changes = await stop.unless_asked(poller.poll_once())
            if changes is None:
                break
            after_poll(changes, cache)
            failures = sum(1 for h in changes.health.values() if h.state.value == "error")
            if args.once or (deadline is not None and time.monotonic() >= deadline):
                break
            pause = settings.poll_interval - (time.monotonic() - started)
            if deadline is not None:
                pause = min(pause, deadline - time.monotonic())
            if pause > 0:
                await stop.unless_asked(asyncio.sleep(pause))
            if deadline is not None and time.monotonic() >= deadline:
                break
        if not stop.asked:
            pruned = cache.prune(changes.at, settings.events_retention_days, settings.observations_retention_days)
            if any(pruned.values()):
                print(f"pruned {pruned}", flush=True)
    finally:
        stop.close()
        await poller.aclose()
        file_check(cache)  # a file removed during the last poll or pause: put back before closing
        cache.close()
    if stop.asked:
        from sagan_tui.commands.stop_signals import exit_code

        return exit_code(stop.signal)  # as a shell reports a command the signal ended (the panel's rule)
    # --once is a check: a source in error makes it fail; a long run reports and goes on.
    return 1 if args.once and failures else 0


class Interrupt:
    """Ctrl+C (SIGINT) or SIGTERM (a service manager's stop) asks the loop to stop: the poll or
    pause under way is cancelled, and the loop ends on the flag whatever that poll does with its
    cancellation; the command then ends as it does at `--for`'s end (watch drains its pages,
    disarms its dead-man's switch and tells its attached panels) and exits 128 + the signal.
    A library that absorbs a cancellation (an HTTP client closing a connection under a shield)
    lets the poll finish normally; the asyncio default, which only cancels the main task, then
    polled on until `--for` ran out. A second signal is Python's own: KeyboardInterrupt for
    Ctrl+C, the default end for SIGTERM, at once."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.asked = False
        self.signal = signal.SIGINT  # the one that asked (its exit code: 128 + it)
        self._loop = asyncio.get_running_loop()
        self._work: asyncio.Future | None = None
        try:
            for signo in self.SIGNALS:
                self._loop.add_signal_handler(signo, self._ask, signo)
            self._installed = True
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signals here
            self._installed = False

    def _ask(self, signo: int = signal.SIGINT) -> None:
        self.asked = True
        self.signal = signo
        self.close()  # the next Ctrl+C raises KeyboardInterrupt
        if self._work is not None:
            self._work.cancel()

    async def unless_asked(self, work):
        """`work`'s result, or None once Ctrl+C cancelled it (or had come before it began)."""
        if self.asked:
            work.close()
            return None
        self._work = asyncio.ensure_future(work)
        try:
            return await self._work
        except asyncio.CancelledError:
            if self.asked:
                return None
            raise
        finally:
            self._work = None

    def close(self) -> None:
        if self._installed:
            self._installed = False
            for signo in self.SIGNALS:
                self._loop.remove_signal_handler(signo)


def after_poll(changes, cache, say=None) -> None:
    """What `sync` does after each poll: its line said, the cache file checked, and the poll's
    transient memory given back before the pause (core/heap.py)."""
    (say or _print_now)(changes.summary_line())
    file_check(cache)
    give_back()


def _print_now(line: str) -> None:
    print(line, flush=True)


def file_check(cache) -> None:
    """The cache file removed or replaced under the sync (core/store/moved.py): put back, said on stderr."""
    import sqlite3

    from sagan_tui.core.store.opening import CacheError, cause_of

    how = cache.moved()
    if how is None:
        return
    try:
        said = cache.recreate()
    except (OSError, sqlite3.Error, CacheError) as exc:  # said, and tried again after the next poll
        detail = str(exc) if isinstance(exc, CacheError) else f"{cache.path}: {cause_of(exc)}"
        said = f"the cache file was {how} and could not be put back: {detail} (tried again after the next poll)"
    print(f"sagan-tui: {said}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    import faulthandler

    # SIGUSR1 prints every thread's stack to stderr: a sync that does not end is asked where it
    # waits before it is killed (no screen to disturb here, unlike the panel).
    try:
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    except (OSError, ValueError):  # a stderr with no file behind it (io.UnsupportedOperation): nowhere to print
        pass
    few_heaps()  # before any thread (core/heap.py)
    return asyncio.run(_loop(args))
