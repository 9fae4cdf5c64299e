"""Proposed fixes, applied as patches so their effect can be measured before their owners land them.

`BENCH_FIXES=1 make bench` runs every figure with these applied (in the bench process, and in
the panel through `python bench/candidate_fixes.py ARGS`, which patches then runs `sagan-tui`).
Each patch names the file it belongs in; none of this is imported by the panel itself.

Empty for now: every fix proposed here has landed in the code it belonged to (repaint fixes in
dc3d448, ingest in c7291d9, `parse_ts` in c7291d9), so patching them in again would only measure
stale copies over the real code. Add the next candidate as a function called from `apply()`.
"""

from __future__ import annotations

import sys
from pathlib import Path


def apply() -> None:
    """Apply every candidate patch (none pending)."""


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    apply()
    from sagan_tui.cli import main

    raise SystemExit(main())
