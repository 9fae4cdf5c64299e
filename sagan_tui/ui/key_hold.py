"""Keys typed while a dialog opens: held by the App, then handed on in order once the dialog has its focus.

A dialog the panel opens after asking the session something (the guard's verdict, the hold's
note) appears a moment after its key. Keys typed in the same burst (a fast typist, a paste
over SSH: `r192⏎`, `hwhy`) would reach the panel behind it meanwhile, where `a` opens an
approval and `h` a second hold. While a hold is on, the App keeps every key it reads; the
release is a message in the App's own queue, so the held keys are handed on before any key
read after it, each as if just typed (priority bindings included) to whatever has the focus.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Awaitable, Callable

from textual import events

if TYPE_CHECKING:
    from textual.app import App


# The dialogs' reads run on the session's one database thread, which may wait out another
# process's write lock: past this, the keys go to the panel as typed (it must keep answering
# them) and the dialog opens when its read is done.
MAX_HOLD_S = 2.0


class Released(events.Event):
    """Posted to the App when a dialog being opened has its focus (or was not opened after all)."""


class KeyHold:
    """Counts the dialogs being opened; keys are held while any is."""

    def __init__(self) -> None:
        self.opening = 0
        self.held: list[events.Key] = []

    def take(self, event: events.Event) -> bool:
        """Keep `event` if it is a key and a dialog is opening: one the App has just read, or one
        it had handed to the panel's focused widget before, coming back for the panel's bindings."""
        if self.opening and isinstance(event, events.Key):
            self.held.append(event)
            return True
        return False

    def released(self) -> list[events.Key]:
        """One dialog is open (the App read `Released`): the held keys, in order and as if just
        typed, once none is opening."""
        self.opening = max(0, self.opening - 1)
        if self.opening:
            return []
        keys, self.held = self.held, []
        return [events.Key(k.key, k.character) for k in keys]


def open_dialog(app: "App", opened: Callable[[], Awaitable[Any]]) -> None:
    """Hold the keys from now (the key that opens the dialog is being handled) until `opened()`
    (the read, then the dialog pushed) is done and the dialog mounted with its focus, or for
    MAX_HOLD_S at most."""
    hold: KeyHold | None = getattr(app, "key_hold", None)  # an App without one (a test's host) holds none
    held = hold is not None
    if hold is not None:
        hold.opening += 1

    def release() -> None:
        nonlocal held
        if held:
            held = False
            app.post_message(Released())

    timer = app.set_timer(MAX_HOLD_S, release) if held else None

    async def run() -> None:
        try:
            mounted = await opened()
            if mounted is not None:  # push_screen's AwaitMount: AUTO_FOCUS is set once mounted
                await mounted
        finally:
            if timer is not None:
                timer.stop()
            release()

    app.run_worker(run(), group="owner-dialogs", exit_on_error=False)
