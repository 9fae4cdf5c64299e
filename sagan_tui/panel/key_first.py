"""Keys first: a session update that arrives while the owner is typing waits for the next key's frame.

On a large fleet an update and the frame it dirties are the UI thread's longest steps (rows
moved, the timeline's new events, the wave's text). A key pressed meanwhile waits for both, and a
person pressing keys a few times a second would meet one such wait at nearly every poll. While keys come
(one within QUIET_S), an update is held and applied just after the next key's frame is drawn: in
the gap before the key after it. When the keys stop it goes QUIET_S after the last one, and in
any case MAX_HOLD_S after it came (keys typed into a dialog's field never come back to the App
to release it: a long note must not leave the panel behind it stale). Updates keep their order;
nothing is dropped or merged. With no key pressed, an update goes at once.
"""

from __future__ import annotations

import time
from typing import Callable, Generic, TypeVar

QUIET_S = 0.4
MAX_HOLD_S = 1.0

U = TypeVar("U")


class KeyFirst(Generic[U]):
    """When updates wait for keys. Owned by the MainScreen (its `pacing`); pure: the App, which
    sees the keys and the updates, calls `key`, `hold`, `due_in` and `release`."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, quiet_s: float = QUIET_S,
                 max_hold_s: float = MAX_HOLD_S) -> None:
        self.clock, self.quiet_s, self.max_hold_s = clock, quiet_s, max_hold_s
        self.last_key = -float("inf")
        self.held: list[U] = []
        self.held_since = 0.0

    def key(self) -> None:
        """A key was read."""
        self.last_key = self.clock()

    def hold(self, update: U) -> bool:
        """Keep `update` (True) if keys are coming or updates already wait (they keep their order)."""
        now = self.clock()
        if self.held or now - self.last_key < self.quiet_s:
            if not self.held:
                self.held_since = now
            self.held.append(update)
            return True
        return False

    def due_in(self) -> float:
        """Seconds until the held updates go by themselves: the keys stopped, or the oldest has
        waited MAX_HOLD_S (0 when either is so)."""
        now = self.clock()
        return max(0.0, min(self.last_key + self.quiet_s, self.held_since + self.max_hold_s) - now)

    def release(self) -> list[U]:
        """The held updates, oldest first, to apply now."""
        out, self.held = self.held, []
        return out
