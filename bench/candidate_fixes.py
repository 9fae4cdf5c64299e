"""Proposed fixes, applied as patches so their effect can be measured before their owners land them.

`BENCH_FIXES=1 make bench` runs every figure with these applied (in the bench process, and in
the panel through `python bench/candidate_fixes.py ARGS`, which patches then runs `sagan-tui`).
Each patch names the file it belongs in; none of this is imported by the panel itself.

Empty for now: every fix proposed here has landed in the code it belonged to (repaint fixes in
dc3d448, ingest in c7291d9, `parse_ts` in c7291d9, the UI's `gc.freeze()` after its imports in
commands/panel.py). Add the next candidate as a function called from `apply()` (`panel=True` in
the panel process only).
"""

from __future__ import annotations

import sys
from pathlib import Path


def apply(panel: bool = False) -> None:
    """Apply every candidate patch (none pending); `panel`: also those of the panel process."""


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    apply(panel=True)
    from sagan_tui.cli import main

    raise SystemExit(main())
