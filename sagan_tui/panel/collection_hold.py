"""The `sagan-tui` command's hold on garbage collection from its start to the panel's first frame.

Every object made before the first frame (the imports', Textual's, the first rows) lives as long
as the panel, so a collection then only walks them: about 30 ms of the first frame's CPU
(docs/performance.md). The command holds collection off before it imports Textual; the panel's
start releases it after its first refresh. Only a hold taken here is released: a collector someone
else stopped (an embedding program, a profiler) stays stopped, and tests never hold it.
"""

from __future__ import annotations

import gc

_held = False


def hold() -> None:
    global _held
    if gc.isenabled():
        gc.disable()
        _held = True


def release() -> None:
    global _held
    if _held:
        _held = False
        gc.enable()
