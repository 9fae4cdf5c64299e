"""Keys typed in one burst with a key that opens a dialog: held, then handed to the dialog, or dropped if it does not open.

Every key that opens a dialog (`a`, `h`, `H`, `r`, `s`, `S`, `W`, `u`, `U`, `C`, `p`, `A`, `?`,
`B`, and `/`, whose filter bar is no screen) runs an action marked `@opens_dialog`; there is no
other path. A dialog appears a moment after its key (it is pushed, mounted and focused; some
read the session first: the guard's verdict, the hold's note). Keys typed in the same burst as the key (a fast typist, a paste over
SSH: `a200<Tab>team alt+a`, `r192⏎`, `hwhy`) would meanwhile reach the panel behind it, where
`a` opens an approval and Enter an experiment's detail, or reach the new screen before it has
its focus, where they are lost.

So while a dialog opens the App keeps every key it reads (`take`). When the dialog has its
focus, the held keys are handed on in order, each as if just typed (priority bindings included),
to whatever has the focus. When the action opens no dialog after all (a refusal: `r` on a running
experiment, read-only, nothing selected), the held keys are dropped, and so is the rest of that
burst: a key that arrives within BURST_S of the one before it. A key after a pause is the
owner's next key and goes to the panel. Arrival times are the keys' own (`Key.time`, stamped
when the driver read them), so a busy UI thread does not make a pause look like a burst.
"""

from __future__ import annotations

import functools
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Iterator, TypeVar

from textual import events

if TYPE_CHECKING:
    from textual.app import App

# The dialogs' reads run on the session's one database thread, which may wait out another
# process's write lock: past this, the keys go to the panel as typed (it must keep answering
# them) and the dialog opens when its read is done.
MAX_HOLD_S = 2.0
# Keys of one burst: a paste or a terminal's write arrives within milliseconds, a fast typist
# over SSH within a few tens; a person's next key after reading a refusal takes far longer.
BURST_S = 0.05

F = TypeVar("F", bound=Callable[..., Any])


class Opening:
    """One dialog being opened: how it ends (a screen to wait for, a read that opens it, or nothing)."""

    def __init__(self, key_time: float | None) -> None:
        self.key_time = key_time  # when the key that opens it arrived: the start of its burst
        self.mounting: Any = None  # push_screen's AwaitMount, when the action pushed a screen
        self.adopted = False  # an asynchronous open (open_dialog) ends it when its read is done
        self.done = False


class KeyHold:
    """Counts the dialogs being opened; keys are held while any is, and a refusal drops its burst."""

    def __init__(self) -> None:
        self.opening = 0
        self.held: list[events.Key] = []
        self.current: Opening | None = None  # the one whose action is running now (synchronously)
        self.last_key_time: float | None = None  # of the key the App is handling now
        self.dropping_after: float | None = None  # a refused burst: its last key's arrival

    def take(self, event: events.Event) -> bool:
        """Keep `event` if it is a key and a dialog is opening, or drop it if it continues a refused
        burst. Either a key the App has just read, or one it had handed to the panel's focused widget
        before, coming back for the panel's bindings. False: the App handles it."""
        if not isinstance(event, events.Key):
            return False
        if self.opening:
            self.held.append(event)
            return True
        if self.dropping_after is not None:
            gap = event.time - self.dropping_after
            if 0 <= gap < BURST_S:
                self.dropping_after = event.time
                return True
            if gap >= BURST_S:  # a pause: the owner's next key (an older key was typed before the refusal)
                self.dropping_after = None
        self.last_key_time = event.time
        return False

    def begin(self) -> Opening:
        self.opening += 1
        return Opening(self.last_key_time)

    @contextmanager
    def acting(self, opening: Opening) -> Iterator[Opening]:
        """While the action that may open a dialog runs: a screen it pushes, or a read it starts, is this one's."""
        outer, self.current = self.current, opening
        try:
            yield opening
        finally:
            self.current = outer

    def end(self, opening: Opening, opened: bool) -> list[events.Key]:
        """`opening` is over: the keys to hand on now, in order and as if just typed (none while
        another dialog is still opening). Not opened: the held keys and the rest of their burst are dropped."""
        if opening.done:
            return []
        opening.done = True
        self.opening = max(0, self.opening - 1)
        if not opened:
            times = [k.time for k in self.held] + ([opening.key_time] if opening.key_time is not None else [])
            if times:
                self.dropping_after = max(times)
            self.held = []
            return []
        if self.opening:
            return []
        keys, self.held = self.held, []
        out = []
        for k in keys:
            again = events.Key(k.key, k.character)
            again.time = k.time  # still of its burst: a refusal in the dialog drops what follows it
            out.append(again)
        return out


class Ended(events.Event):
    """Posted to the App when a dialog being opened has its focus, or was not opened after all:
    the App asks the KeyHold which keys go on."""

    def __init__(self, opening: Opening, opened: bool) -> None:
        super().__init__()
        self.opening, self.opened = opening, opened


def _finish(app: "App", hold: KeyHold, opening: Opening) -> None:
    """After the action: wait for the screen it pushed, or let its read end it, or end it as refused."""
    if opening.adopted:
        return
    if opening.mounting is None:
        app.post_message(Ended(opening, opened=False))
        return
    timer = app.set_timer(MAX_HOLD_S, lambda: app.post_message(Ended(opening, opened=True)))

    async def mounted() -> None:
        try:
            await opening.mounting  # AUTO_FOCUS is set once mounted
        finally:
            timer.stop()
            app.post_message(Ended(opening, opened=True))

    app.run_worker(mounted(), group="owner-dialogs", exit_on_error=False)


def opens_dialog(action: F) -> F:
    """Mark an action whose key opens a dialog: the keys of its burst go to the dialog, or are
    dropped when it opens none. Works on a Screen's or the App's actions; an App without a
    `key_hold` (a test's host) holds nothing."""

    @functools.wraps(action)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        app = self.app
        hold: KeyHold | None = getattr(app, "key_hold", None)
        if hold is None:
            return action(self, *args, **kwargs)
        opening = hold.begin()
        try:
            with hold.acting(opening):
                result = action(self, *args, **kwargs)
        except BaseException:
            app.post_message(Ended(opening, opened=False))
            raise
        _finish(app, hold, opening)
        return result

    return run  # type: ignore[return-value]


def pushed(app: "App", mounting: Any) -> None:
    """The App pushed a screen: if an action marked `@opens_dialog` is running, that is its dialog."""
    hold: KeyHold | None = getattr(app, "key_hold", None)
    if hold is not None and hold.current is not None and hold.current.mounting is None:
        hold.current.mounting = mounting


def open_dialog(app: "App", opened: Callable[[], Awaitable[Any]]) -> None:
    """Open a dialog after a read: `opened()` (the read, then the dialog pushed) returns
    push_screen's AwaitMount, or None when it opens none (a refusal). Called from an action marked
    `@opens_dialog`, it ends that action's hold; else it holds the keys itself."""
    hold: KeyHold | None = getattr(app, "key_hold", None)
    opening: Opening | None = None
    if hold is not None:
        if hold.current is not None and not hold.current.adopted:
            opening = hold.current
            opening.adopted = True
        else:
            opening = hold.begin()
    timer = app.set_timer(MAX_HOLD_S, lambda: app.post_message(Ended(opening, True))) if opening else None

    async def run() -> None:
        shown = False
        try:
            mounted = await opened()
            if mounted is not None:  # push_screen's AwaitMount: AUTO_FOCUS is set once mounted
                shown = True
                await mounted
        finally:
            if timer is not None:
                timer.stop()
            if opening is not None:
                app.post_message(Ended(opening, shown))

    app.run_worker(run(), group="owner-dialogs", exit_on_error=False)
