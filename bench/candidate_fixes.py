"""Proposed fixes, applied as patches so their effect can be measured before their owners land them.

`BENCH_FIXES=1 make bench` runs every figure with these applied (in the bench process, and in
the panel through `python bench/candidate_fixes.py ARGS`, which patches then runs `sagan-tui`).
Each patch names the file it belongs in; none of this is imported by the panel itself.

Earlier fixes proposed here have landed in the code they belonged to (repaint fixes in dc3d448,
ingest in c7291d9, `parse_ts` in c7291d9). Add the next candidate as a function called from
`apply()` (`panel=True` in the panel process only).
"""

from __future__ import annotations

import gc
import importlib.util
import sys
from pathlib import Path

FROZEN_AFTER = "sagan_tui.panel.app"  # the last of the UI's imports before its App is made


def apply(panel: bool = False) -> None:
    """Apply every candidate patch; `panel`: also those of the panel process."""
    if panel:
        freeze_after_imports()


def freeze_after_imports() -> None:
    """For sagan_tui/panel/app.py's start, if taken: `gc.freeze()` once the UI's imports are done.

    The panel's first frame meets a full collection the bare app's does not (27 ms, walking the
    imports' objects: docs/performance.md), and every later full collection walks the imports
    again (key_latency_max). Not in the code: the UI takes no collector tuning (docs/performance.md);
    this measures what the one freeze would buy (`BENCH_FIXES=1 python bench/bench_start.py`).
    """

    class FreezeAfter:
        def find_spec(self, name, path, target=None):
            if name != FROZEN_AFTER:
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(name)
            load = spec.loader.exec_module

            def exec_module(module):
                load(module)
                gc.freeze()

            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, FreezeAfter())


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    apply(panel=True)
    from sagan_tui.cli import main

    raise SystemExit(main())
