"""The panel's long-lived objects kept out of the cyclic collector's full passes while the owner types.

Measured with the down arrow pressed while the panel polls `large-fleet` (bench/bench_keys.py):
full (generation 2) collections walked the whole heap, the tables' rows, the view and Textual's
DOM, 17 times in a minute at 200-700 ms each on this loaded machine, about 5 s in all, and the
collector holds the GIL, so every one froze the UI thread whichever thread set it off.

The panel freezes its heap (`gc.freeze`) right after the first update and again after each
sweep, so the automatic passes walk only what is newer. Reference counting still frees frozen
objects, but a cycle among them waits for the next sweep (Textual's strips cache themselves, so
every dropped render is one); what can wait is bounded by what was frozen. A sweep (unfreeze,
full collection, freeze) runs when no key came for IDLE_S and the last is EVERY_S old. Freezing
after every update instead (tried) made each update pay a young collection, 60-200 ms on this
machine at 0.5 s polls, and froze the young cycles too: +17 MB in 100 polls.
"""

from __future__ import annotations

import gc
import time

IDLE_S = 2.0  # no key for this long: the owner is reading, a full pass is in no one's way
EVERY_S = 60.0  # what frozen cycles can pile up in a minute is small


class Settler:
    """When to sweep; one per app, its clock injectable for tests."""

    def __init__(self, clock=time.monotonic) -> None:
        self.clock = clock
        self.last_key = clock()
        self.last_sweep: float | None = None
        self.sweeps = 0

    def key(self) -> None:
        self.last_key = self.clock()

    def settle(self) -> None:
        """After an applied update: the first freezes the heap the panel was built with."""
        if self.last_sweep is None:
            self.sweep()
        else:
            self.sweep_if_due()

    def sweep_if_due(self) -> bool:
        """Sweep when the owner is not typing and the last sweep is EVERY_S old; whether it ran."""
        now = self.clock()
        if self.last_sweep is None or now - self.last_key < IDLE_S or now - self.last_sweep < EVERY_S:
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
        self.last_sweep = None
