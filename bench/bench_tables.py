"""Figures `tables` and `tables_flat`: the pods table's work for a one-row update, against a full
rebuild and across the table's size.

The panel's own PodsTable, headless at 200x50, fed the panel's own rows (`render.pod_row`, made
before the clock starts, as the session process makes them). A change is timed as work: this
thread's CPU from the change to the end of the last frame it caused, each frame drawn by the
app's own frame timer (not a test pilot's pause, whose sleeps and idle checks were most of a
one-row update's wall time, and not the wait for the timer's next period, which costs nothing).
Update: what a poll does when one pod's status changed, that row applied with `update_rows`.
Rebuild: `set_rows` of every row into an empty table. At 1k / 5k / 20k rows; every size's figures
are in `detail`.

`tables`: at 20,000 rows, a one-row update's work against a full rebuild's, <= 0.05x (the scale
the rule is for: a poll must cost the rows it changed, not the table). At 1,000 rows a rebuild
is itself only a few frames' work, and Textual's cost of one frame is most of a one-row update,
so the ratio there says little; `tables_flat` says what matters at every size instead: a
one-row update's work at 20,000 rows against at 1,000, <= 1.5x (flat: it does not grow with the table).
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from datetime import datetime, timedelta, timezone

from common import Figure, main

SIZES = (1_000, 5_000, 20_000)
# A change's work is done when no frame has followed it for this long (several frame periods).
QUIET_S = 0.1
NOW = datetime(2026, 5, 14, 11, 0, tzinfo=timezone.utc)
GPUS = ("NVIDIA A100 80GB PCIe", "NVIDIA H100 80GB HBM3")


def cached_pods(n: int, seed: int = 0) -> list:
    from sagan_tui.core.models import RunPodPod
    from sagan_tui.core.store.cache import CachedPod

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
    from sagan_tui.wire import render

    return {cp.pod_id: render.pod_row(cp, None, NOW) for cp in pods}


def exited(cp):
    from sagan_tui.core.store.cache import CachedPod

    pod = cp.pod.model_copy(update={"desired_status": "EXITED", "last_status_change": "Exited by user"})
    return CachedPod(pod, cp.first_seen_at, cp.running_at, cp.last_seen_at, None, None)


def timed_pods_app() -> tuple:
    """A headless App of the panel's PodsTable, and `drawn_at`: drawn_at[0] is set to the
    perf_counter at the end of each frame's draw (the app's `_display`)."""
    from textual.app import App, ComposeResult

    from sagan_tui.panel.widgets.panes import PodsTable

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
    from sagan_tui.wire import render
    from sagan_tui.panel.widgets.panes import PodsTable

    pods = cached_pods(n)
    t0 = time.perf_counter()
    rows = rows_of(pods)
    render_s = time.perf_counter() - t0

    app, drawn_at = timed_pods_app()
    async with app.run_test(size=(200, 50)) as pilot:
        table = app.query_one(PodsTable)
        await pilot.pause()

        async def work(change) -> float:
            """This thread's CPU seconds from `change` to the end of the last frame it caused, the
            frames drawn by the app's own frame timer (a frame comes within one period of a
            refresh; the work is done once no frame has followed for QUIET_S)."""
            await asyncio.sleep(QUIET_S)  # what an earlier change set going is done
            drawn_cpu.clear()
            start = time.thread_time()
            change()
            seen, quiet_since, limit = 0, time.monotonic(), time.monotonic() + 10
            while not (seen and time.monotonic() - quiet_since > QUIET_S):
                await asyncio.sleep(0.005)
                if len(drawn_cpu) != seen:
                    seen, quiet_since = len(drawn_cpu), time.monotonic()
                if time.monotonic() > limit:
                    raise RuntimeError("the change drew no frame")
            return drawn_cpu[-1] - start

        drawn_cpu: list[float] = []
        display = app._display

        def timed_display(screen, renderable) -> None:
            display(screen, renderable)
            drawn_cpu.append(time.thread_time())

        app._display = timed_display  # type: ignore[method-assign]
        first = await work(lambda: table.set_rows(rows))
        shown = table.row_count
        # One row in view changes per update, as one pod's status would after a poll.
        in_view = table.shown_keys()[:10]
        by_id = {p.pod_id: p for p in pods}
        upd = []
        for i in range(updates):
            key = in_view[i % len(in_view)]
            for cp in (exited(by_id[key]), by_id[key]):  # and back: each is a one-row change
                row = render.pod_row(cp, None, NOW)  # the session renders it; the UI applies it
                upd.append(await work(lambda: table.update_rows({key: row})))
        rebuilds = []
        for _ in range(3 if n <= 5_000 else 2):
            await work(lambda: table.set_rows({}))
            rebuilds.append(await work(lambda: table.set_rows(rows)))
    return {"rows": n, "shown": shown, "first_paint_cpu_s": first, "update_cpu_s": statistics.median(upd),
            "rebuild_cpu_s": statistics.median(rebuilds), "row_render_s": render_s}


def run(small: bool = False) -> list[Figure]:
    sizes = (100, 200) if small else SIZES
    results = {r["rows"]: r for r in (asyncio.run(measure(n, 2 if small else 10)) for n in sizes)}
    big, small_table = results[max(sizes)], results[min(sizes)]
    detail = {str(n): {k: round(v, 5) if isinstance(v, float) else v for k, v in r.items()}
              for n, r in results.items()}
    for r in results.values():
        detail[str(r["rows"])]["ratio"] = round(r["update_cpu_s"] / r["rebuild_cpu_s"], 3)
    return [Figure("tables", f"pods table at {max(sizes):,} rows: a 1-row update's work vs a full rebuild's",
                   big["update_cpu_s"], big["rebuild_cpu_s"], "s", "<= 0.05x", 0.05, detail=detail),
            Figure("tables_flat", f"pods table: a 1-row update's work at {max(sizes):,} rows vs at {min(sizes):,}",
                   big["update_cpu_s"], small_table["update_cpu_s"], "s", "<= 1.5x", 1.5, detail=detail)]


if __name__ == "__main__":
    main(run)
