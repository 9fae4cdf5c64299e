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

Rule: when the last pause ends, what the step left alive joins the oldest generation at once
(`gc.freeze()` then `gc.unfreeze()`: two list splices, and the young count set to zero), unless
something in this process froze objects of its own (their freeze is theirs to keep). Otherwise
the first allocation after the pause sets off a young collection that walks everything the step
built and kept: a million losses' Timeline and waves took 0.14-0.27 s to walk that way, a tenth
of their analysis, to find nothing. A cycle among the survivors (none is made by these steps)
waits for the next full collection, as an old object's does.

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
                if gc.get_freeze_count() == 0:
                    gc.freeze()  # the survivors into the oldest generation (the module's rule)
                    gc.unfreeze()
                gc.enable()
