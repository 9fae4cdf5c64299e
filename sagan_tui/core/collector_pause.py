"""The cyclic garbage collector paused for one synchronous step that builds or reads many
acyclic objects: a reply decoded or read into records, a loss list analysed into waves and a grid.

The rule: a pause covers one synchronous step, and never an `await`, a request or a wait of any
kind, so no pause outlives the step that took it. A reply's JSON tree, a Timeline's columns and
the waves built from them hold no cycles: reference counting frees them whole, and the
collections their allocations would set off (young ones walking every new object again, and
now and then a full one walking the whole heap) find nothing to collect. The collector runs
again as soon as the last pause ends. The session process and the headless commands take
pauses; the UI process never does (a layer contract forbids it: a pause there would stop
collection for everything the UI holds). What the pauses buy is measured by two bench figures:
`fleet_cpu` (the CPU a 10,000-pod poll takes) and `waves` (a million losses analysed), each
with and without them (docs/performance.md).

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
