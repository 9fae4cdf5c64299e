"""The cyclic garbage collector held off while the panel starts, and let go once its first frame is out.

Importing Textual, Rich and the panel makes a few hundred thousand objects, and each full
collection the allocations trigger on the way walks all of them: about 0.2 s of CPU before the
first frame on this machine (bench/bench_start.py). Reference counting still frees what start-up
discards; the cycles it leaves wait for the first collection after the frame.
"""

from __future__ import annotations

import gc

_held = False


def hold_gc() -> None:
    """Stop automatic collections until `release_gc` (a no-op if something else stopped them)."""
    global _held
    if gc.isenabled():
        gc.disable()
        _held = True


def release_gc() -> None:
    """Collect automatically again, if `hold_gc` stopped it; safe to call any number of times."""
    global _held
    if _held:
        _held = False
        gc.enable()
