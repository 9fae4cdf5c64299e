"""The panel's long-lived objects kept out of the cyclic collector's full passes while the owner types.

Measured with the down arrow pressed while the panel polls `large-fleet` (bench/bench_keys.py):
full (generation 2) collections walked the whole heap, the tables' rows, the view and Textual's
DOM, 17 times in a minute at 200-700 ms each on this loaded machine, about 5 s in all, and the
collector holds the GIL, so every one froze the UI thread whichever thread set it off.

The panel freezes its heap (`gc.freeze`) right after the first update and again after each
sweep, and leaves full passes to the sweeps: the automatic ones, still 80-500 ms every few
seconds over what was not frozen, are turned off (generation 2's threshold) while the panel
runs. Reference counting frees frozen objects, and the young generations' passes still collect
the cycles an update or a frame drops; a cycle that lived long enough to reach generation 2 or
be frozen waits for the next sweep (unfreeze, full collection, freeze). A sweep runs when no
key came for IDLE_S and the last is EVERY_S old, and in any case once the last is MAX_S old,
so memory stays bounded while keys never stop. Freezing after every update instead (tried)
made each update pay a young collection, 60-200 ms on this machine at 0.5 s polls, and froze
the young cycles too: +17 MB in 100 polls.
"""

from __future__ import annotations

import gc
import time

IDLE_S = 2.0  # no key for this long: the owner is reading, a full pass is in no one's way
EVERY_S = 60.0  # what long-lived cycles pile up in a minute is small
MAX_S = 300.0  # typing without a 2 s pause for five minutes: sweep anyway
NO_AUTO_FULL = 1_000_000  # generation 2's threshold while the panel runs: never reached


class Settler:
    """When to sweep; one per app, its clock injectable for tests."""

    def __init__(self, clock=time.monotonic) -> None:
        self.clock = clock
        self.last_key = clock()
        self.last_sweep: float | None = None
        self.sweeps = 0
        self._thresholds: tuple[int, int, int] | None = None

    def key(self) -> None:
        self.last_key = self.clock()

    def settle(self) -> None:
        """After an applied update: the first freezes the heap the panel was built with."""
        if self.last_sweep is None:
            self._thresholds = gc.get_threshold()
            gc.set_threshold(self._thresholds[0], self._thresholds[1], NO_AUTO_FULL)
            self.sweep()
        else:
            self.sweep_if_due()

    def sweep_if_due(self) -> bool:
        """Sweep when due (see the module's docstring); returns whether it ran."""
        if self.last_sweep is None:
            return False
        now = self.clock()
        since = now - self.last_sweep
        if since < MAX_S and (now - self.last_key < IDLE_S or since < EVERY_S):
            return False
        self.sweep()
        return True

    def sweep(self) -> None:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.last_sweep = self.clock()
        self.sweeps += 1

    def release(self) -> None:
        """Everything back under the collector's normal passes (the app is closing)."""
        gc.unfreeze()
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None
        self.last_sweep = None
