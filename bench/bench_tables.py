"""Figure 2: the pods table at 1k / 5k / 20k rows: first paint, and a one-row update against a full rebuild.

The panel's own PodsTable, headless at 200x50, fed the panel's own rows (`render.pod_row`).
First paint and rebuild: `set_rows` of every row into an empty table, then the frame drawn.
Update: what a poll does when one pod's status changed: that pod's row rendered and applied with
`update_rows`, then the frame drawn. Every time runs until the app has drawn the frame (the end
of its last `_display` call), not until `pilot.pause()` returns: the pause sleeps at least 20 ms
(twice that when the frame is drawn during its sleep), which was most of a 1k-row update.
The rows of a rebuild are rendered before the clock starts; that cost is reported beside.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from datetime import datetime, timedelta, timezone

from common import Figure, main

SIZES = (1_000, 5_000, 20_000)
NOW = datetime(2026, 5, 14, 11, 0, tzinfo=timezone.utc)
GPUS = ("NVIDIA A100 80GB PCIe", "NVIDIA H100 80GB HBM3")


def cached_pods(n: int, seed: int = 0) -> list:
    from sagan_tui.models import RunPodPod
    from sagan_tui.store.cache import CachedPod

    rng = random.Random(seed)
    out = []
    for i in range(n):
        running = NOW - timedelta(seconds=rng.uniform(60, 3 * 86400))
        pod = RunPodPod(id=f"p{i:013d}", account="team" if i % 3 else "personal", experiment=1000 + i % 2000,
                        name=f"exp{1000 + i % 2000}-fleet-{i}", desired_status="RUNNING",
                        last_status_change=f"Rented by User: {running:%a %b %d %Y %H:%M:%S}",
                        uptime_seconds=int((NOW - running).total_seconds()), cost_per_hr=1.49,
                        gpu=GPUS[i % 2], datacenter="US-KS-2", gpu_count=1)
        out.append(CachedPod(pod, running, running, NOW, None, None))
    return out


def rows_of(pods: list) -> dict:
    from sagan_tui import render

    return {cp.pod_id: render.pod_row(cp, None, NOW) for cp in pods}


def exited(cp):
    from sagan_tui.store.cache import CachedPod

    pod = cp.pod.model_copy(update={"desired_status": "EXITED", "last_status_change": "Exited by user"})
    return CachedPod(pod, cp.first_seen_at, cp.running_at, cp.last_seen_at, None, None)


def timed_pods_app() -> tuple:
    """A headless App of the panel's PodsTable, and `drawn_at`: drawn_at[0] is set to the
    perf_counter at the end of each frame's draw (the app's `_display`)."""
    from textual.app import App, ComposeResult

    from sagan_tui.ui.widgets.panes import PodsTable

    class Bench(App):
        def compose(self) -> ComposeResult:
            yield PodsTable(id="pods")

    app = Bench()
    drawn_at = [0.0]
    display = app._display

    def timed_display(screen, renderable) -> None:
        display(screen, renderable)
        drawn_at[0] = time.perf_counter()

    app._display = timed_display  # type: ignore[method-assign]
    return app, drawn_at


async def measure(n: int, updates: int) -> dict:
    from sagan_tui import render
    from sagan_tui.ui.widgets.panes import PodsTable

    pods = cached_pods(n)
    t0 = time.perf_counter()
    rows = rows_of(pods)
    render_s = time.perf_counter() - t0

    app, drawn_at = timed_pods_app()
    async with app.run_test(size=(200, 50)) as pilot:
        table = app.query_one(PodsTable)
        await pilot.pause()
        paused: list[float] = []

        async def paint(change) -> float:
            drawn_at[0] = 0.0
            t = time.perf_counter()
            change()
            await pilot.pause()  # the refresh it asked for is drawn before the pause returns
            end = time.perf_counter()
            paused.append(end - t)
            return (drawn_at[0] or end) - t

        first = await paint(lambda: table.set_rows(rows))
        shown = table.row_count
        # One row in view changes per update, as one pod's status would after a poll.
        in_view = table.shown_keys()[:10]
        by_id = {p.pod_id: p for p in pods}
        upd, upd_paused = [], []
        for i in range(updates):
            key = in_view[i % len(in_view)]
            for cp in (exited(by_id[key]), by_id[key]):  # and back: each paint is a one-row change
                upd.append(await paint(lambda: table.update_rows({key: render.pod_row(cp, None, NOW)})))
                upd_paused.append(paused[-1])
        rebuilds, rebuilds_paused = [], []
        for _ in range(2 if n <= 5_000 else 1):
            await paint(lambda: table.set_rows({}))
            rebuilds.append(await paint(lambda: table.set_rows(rows)))
            rebuilds_paused.append(paused[-1])
    return {"rows": n, "shown": shown, "first_paint_s": first, "update_s": statistics.median(upd),
            "rebuild_s": statistics.median(rebuilds), "row_render_s": render_s,
            "update_to_pause_end_s": statistics.median(upd_paused),
            "rebuild_to_pause_end_s": statistics.median(rebuilds_paused)}


def run(small: bool = False) -> list[Figure]:
    sizes = (100,) if small else SIZES
    results = [asyncio.run(measure(n, 1 if small else 5)) for n in sizes]
    worst = max(results, key=lambda r: r["update_s"] / r["rebuild_s"])
    detail = {str(r["rows"]): {k: round(v, 5) if isinstance(v, float) else v for k, v in r.items()} for r in results}
    return [Figure("tables", f"pods table: 1-row update vs full rebuild (worst of {', '.join(map(str, sizes))} rows)",
                   worst["update_s"], worst["rebuild_s"], "s", "<= 0.05x", 0.05, detail=detail)]


if __name__ == "__main__":
    main(run)
