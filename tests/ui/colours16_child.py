"""The frozen panel drawn in 16 colours, in a process of its own (tests/ui/test_colours16.py runs it).

`python -m tests.ui.colours16_child OUT TMP`: the panel over the frozen cache in TMP, its console
given the 16 colours (as TERM=xterm or `--color standard` give it), the pods pane's cursor moved
to the live pod; writes to OUT the bytes a terminal received and the console's colour system.

Why a process of its own: Rich keeps each style's escape codes for the first colour system it is
drawn in (the panel has one console per process), and styles are shared through caches: a
truecolor app an earlier test drew in the same process left its codes in styles this one draws.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

LIVE_POD = "j18eiux6ccekyj"  # team's live pod in the frozen cache


async def drawn(tmp: Path) -> dict:
    import textual.constants

    from tests.ui.frozen import frozen_app
    from tests.ui.terminal16 import Terminal

    textual.constants.COLOR_SYSTEM = "standard"
    app = frozen_app(tmp)
    terminal = Terminal(app)
    async with app.run_test(size=(200, 50), headless=False) as pilot:
        await pilot.pause()
        table = app.pods_table
        table.focus()
        assert table.select_key(LIVE_POD)
        await pilot.pause()
        out = terminal.bytes()
    return {"bytes": out, "color_system": app.console.color_system}


if __name__ == "__main__":
    os.environ.pop("NO_COLOR", None)
    Path(sys.argv[1]).write_text(json.dumps(asyncio.run(drawn(Path(sys.argv[2])))))
