"""The panel's long-lived objects kept out of the cyclic collector's full passes, so none stalls a key.

Measured with the down arrow pressed while the panel polls `large-fleet` (bench/bench_keys.py):
full (generation 2) collections walked the whole heap, the tables' rows, the view and Textual's
DOM, 17 times in a minute at 200-700 ms each on this loaded machine, about 5 s in all, and the
collector holds the GIL, so every one froze the UI thread whichever thread set it off. After an
update is applied, what it left alive is frozen (`gc.freeze`): later passes walk only what is
newer, 0.2 s in all in the same run. Reference counting still frees frozen objects; only a cycle
among them waits for `sweep`, which the panel runs when the owner has not pressed a key for a
while, and seldom.
"""

from __future__ import annotations

import gc
import time

IDLE_S = 5.0  # no key for this long: a full collection now is not in anyone's way
SWEEP_EVERY_S = 600.0  # what frozen cycles can pile up in ten minutes is small

_last_sweep = time.monotonic()


def settle() -> None:
    """Collect the young generations (the cycles an update just dropped), then freeze the rest."""
    gc.collect(1)
    gc.freeze()


def sweep_if_idle(last_key: float, now: float | None = None) -> bool:
    """A full collection over everything, frozen objects included, when no key came for IDLE_S
    and the last one is SWEEP_EVERY_S old; returns whether it ran."""
    global _last_sweep
    now = time.monotonic() if now is None else now
    if now - last_key < IDLE_S or now - _last_sweep < SWEEP_EVERY_S:
        return False
    _last_sweep = now
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    return True


def release() -> None:
    """Everything back under the collector's normal passes (the app is closing)."""
    gc.unfreeze()
