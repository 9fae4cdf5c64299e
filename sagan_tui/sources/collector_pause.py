"""The cyclic garbage collector paused while a reply is decoded, or read into records: synchronous steps only.

The rule: a pause covers one synchronous step that builds or reads a large JSON tree (a
page of pods decoded, a pod list validated into records), and never an `await`, a request or
a wait of any kind, so no pause outlives the step that took it. JSON trees hold no cycles:
reference counting frees them whole, and the collections their allocations would set off
(each full one walking the whole heap again) find nothing to collect. The collector runs
again as soon as the last pause ends. What it buys is measured by bench/bench_fleet.py's
`fleet_cpu` figure (the CPU a 10,000-pod poll takes), with and without the pauses.

Pauses on several threads at once (two accounts, GraphQL's worker threads) are counted: the
collector is enabled again when the last one ends, and only if a pause disabled it, so a
collector that someone else turned off stays off.
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterator

_lock = threading.Lock()
_pauses = 0
_disabled_here = False  # whether the first pause found the collector on (and turned it off)


@contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic collection while the block runs; the block must not await or wait."""
    global _pauses, _disabled_here
    with _lock:
        _pauses += 1
        if _pauses == 1:
            _disabled_here = gc.isenabled()
            gc.disable()
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _disabled_here:
                _disabled_here = False
                gc.enable()
