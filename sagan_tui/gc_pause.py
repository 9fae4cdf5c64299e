"""The cyclic garbage collector paused while a large reply is built, or decoded and read into records.

A 10,000-pod poll decodes about 10 MB of JSON into some 300,000 dicts and lists, all alive until
they are read. Those allocations set off hundreds of collections per poll, and every full one
walked the whole heap again: about 0.4 s of a 0.75 s poll's CPU (bench/bench_fleet.py). JSON
trees hold no cycles, so reference counting frees them whole; collections resume afterwards.
The simulator builds the same trees to answer (half its requests ran a 90 ms full collection).
Nested and concurrent pauses (two accounts, GraphQL's worker threads) are counted: the
collector is enabled again when the last one ends, and only if a pause disabled it.
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
def gc_paused() -> Iterator[None]:
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
