"""The first frame: painted from the cache, without importing the runpod SDK (about 2 s) on the way."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

CODE = """
import asyncio, json, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, {root!r})
from tests.ui.frozen import frozen_app

async def main():
    app = frozen_app(Path(tempfile.mkdtemp()))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        print(json.dumps({{"runpod": "runpod" in sys.modules, "paint_s": app.first_paint_s,
                          "rows": app.experiments_table.row_count}}))

asyncio.run(main())
"""


def test_first_frame_needs_no_runpod_import():
    root = str(Path(__file__).resolve().parents[2])
    out = subprocess.run([sys.executable, "-c", CODE.format(root=root)], capture_output=True, text=True,
                         timeout=120, cwd=root)
    assert out.returncode == 0, out.stderr[-2000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["rows"] == 11
    assert seen["runpod"] is False
    assert seen["paint_s"] is not None  # the panes were painted (how fast is bench/bench_start.py's figure)
