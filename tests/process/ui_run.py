"""The UI process of tests/process/test_ui_imports.py, run as `python -m tests.process.ui_run ARGS_JSON`.

The panel on its session process, driven by a pilot through the wave
on screen, an approval, a hold, a dismiss and `W`; an import hook notes every module of the
banned families imported in this process, and every module of triage's analysis (all of
`sagan_tui.core.triage` but the pure formatting of `triage.fmt` the layer contract names) with the
line of the project's code that reached it: no analysis can run here without its module, so
none ran. The last stdout line says what it saw (JSON).
The simulator runs in the test's process: it imports pydantic itself, and it must not be here.
"""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import datetime

CHILD_S = 60.0  # a bound on each wait: this process and its session child start on a loaded machine
BANNED = ("pydantic", "httpx", "sqlite_utils", "runpod", "graphql")
# The triage the UI may import: the package (its names load lazily) and its pure formatting.
TRIAGE_ALLOWED = ("sagan_tui.core.triage", "sagan_tui.wire.fmt")
imported: list[str] = []
triage_reached: list[str] = []  # "module <- file:line" of the project's frame that imported it


def _reached_from() -> str:
    """The innermost frame of the project (not the import system's) that asked for the module."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if name.startswith("sagan_tui") and not name.startswith("sagan_tui.core.triage"):
            return f"{frame.f_code.co_filename}:{frame.f_lineno}"
        frame = frame.f_back
    return "?"


class Watch:
    """A meta path finder that finds nothing and notes each banned family's first import, and
    each module of triage's analysis with where it was reached from."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BANNED and name not in imported:
            imported.append(name)
        if name.startswith("sagan_tui.core.triage.") and name not in TRIAGE_ALLOWED:
            triage_reached.append(f"{name} <- {_reached_from()}")
        return None

    def find_module(self, name, path=None):  # pragma: no cover - only for an old import system
        return None


sys.meta_path.insert(0, Watch())


async def run(args: dict) -> dict:
    from textual.widgets import Button, Input

    from sagan_tui.wire.config import gather
    from sagan_tui.panel.app import SaganApp
    from sagan_tui.panel.screens.approval import ApprovalScreen
    from sagan_tui.panel.screens.guard import GuardedDispatchScreen
    from sagan_tui.panel.screens.prompt import NoteScreen

    from tests.harness import keep_toasts, notes, wait_for

    keep_toasts()  # this process runs one app, for this test only
    draft = gather(args["env"], sagan_tui_cache=args["cache"], poll_interval=60.0, bell=False)
    held = datetime.fromisoformat(args["now"])
    app = SaganApp(draft, poll=False, clock=lambda: held)

    def heard(words: str) -> bool:
        return any(words in n.message for n in notes(app))

    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.loaded and app.view.waves, "the whole panel with its wave", timeout=CHILD_S)
        assert type(app.session).__name__ == "RemoteSession"
        table = app.experiments_table
        table.focus()
        table.select_key("367")
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval", timeout=CHILD_S)
        for box in app.screen.query(Input):
            if box.id and box.id.startswith("tb-"):
                box.value = "n/a"
        app.screen.query_one("#approve", Button).press()
        # the wave is active in the plan's account: approval dispatches, so the guard asks for #367
        await wait_for(pilot, lambda: isinstance(app.screen, GuardedDispatchScreen), "the approve guard", timeout=CHILD_S)
        await pilot.press("3", "6", "7", "enter")
        await wait_for(pilot, lambda: heard("approve sent for #367"), "the approval sent", timeout=CHILD_S)
        await wait_for(pilot, lambda: not isinstance(app.screen, ApprovalScreen), "the approval closed", timeout=CHILD_S)

        table.focus()
        table.select_key("365")
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, NoteScreen), "the hold dialog", timeout=CHILD_S)
        await pilot.press("tab", "enter")
        await wait_for(pilot, lambda: heard("#365 held"), "the hold sent", timeout=CHILD_S)

        pods = app.pods_table
        pods.focus()
        pods.select_key(args["dismiss"])
        await pilot.press("x")
        await wait_for(pilot, lambda: heard(f"dismissed lost pod {args['dismiss']}"), "the dismiss", timeout=CHILD_S)

        table.focus()
        await pilot.press("W")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "WaveResponseScreen", "the wave response", timeout=CHILD_S)
        proposal = app.screen.proposal
        await pilot.press("escape")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "MainScreen", "the wave response closed", timeout=CHILD_S)
        # What the session sent to show: the heatmap's grid for the widget's own scope, the wave
        # chosen for the wave panel, the wave response's proposal.
        heatmap = app.loss_area.query_one("LossHeatmap")
        await wait_for(pilot, lambda: heatmap.current, "the heatmap's grid for its scope", timeout=CHILD_S)
        shown = {"heatmap_rows": list(heatmap.grid.rows), "heatmap_total": heatmap.grid.total,
                 "heatmap_width": [heatmap.grid.width, heatmap.content_size.width],
                 "wave_pods": sorted(app.loss_area.query_one("WavePanel").wave.pod_ids),
                 "proposal": [type(proposal).__name__, proposal.verdict.cause, len(proposal.lines)]}
    triage = sorted(m for m in sys.modules if m.startswith("sagan_tui.core.triage"))
    session = sorted(m for m in sys.modules if m.startswith(("sagan_tui.core.session", "sagan_tui.core.store",
                                                             "sagan_tui.core.sources", "sagan_tui.core.sync")))
    return {"banned": imported, "said": [n.message for n in notes(app)], "triage": triage, "core": session, "triage_reached": triage_reached,
            "shown": shown}


def main() -> int:
    result = asyncio.run(run(json.loads(sys.argv[1])))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
