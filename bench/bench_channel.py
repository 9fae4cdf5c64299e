"""Figure `channel_throughput`: a 10,000-row update from the session to the UI's pods table over
the channel, against the same rows applied in-process.

The rows are the panel's own (`render.pod_row` of 10,000 pods, bench_tables' fleet) with their
pod records, as a poll's full update carries them. Over the channel: a second process (this
script with `--serve`, standing for the session process) holds the update as the session builds
it, the wire's UpdateView (rows rendered, records made views: `core/session/views.pods_view`;
made before the run, untimed, as the rows' rendering is: the session builds an update before
its host sends it); asked on a Unix socket, it sends it through the host's send step
(`SentTables.send`, the connection's: a row the UI holds already goes as the cells that changed,
each patch once with its rows' keys, a record the UI holds as its state, and an update of more
than PART_ROWS pods goes in parts, each written as soon as it is made),
encodes and writes each frame; the UI's side (a headless App
with the panel's PodsTable at 200x50, in this process) reads each frame, decodes it
(`messages.TO_PANEL`), checks its patches are of rows and records held (`rows.HeldTables`, as the
channel's client does), applies its records to a `PanelView` (as the panel's view does) and its
rows and patches with `update_rows` (as the MainScreen does), and after the last part draws. The connection starts as the panel's does, with a full update (the Open's whole panel,
untimed). In-process: the same rows, made in this process, applied with `update_rows`
and drawn, as the in-process session's update is; after it the table is given back the rows the
channel delivered (untimed), so that the next update over the channel meets the table the
session believes the UI holds, as in the panel. Each update
changes every row (the pods' status flips between two versions), so every row is re-applied;
the table holds the 10,000 rows before each. The clock stops at the end of the frame's draw
(bench_tables' method). Median of alternated runs; `detail` has the UI's own part over the
channel (decode, patches checked and apply: what the UI thread spends) and the frames' size.
The in-process side applies rows only, and lets the pods' records go (below).

Target <= 1.5x: the table's apply and draw of 10,000 rows is the work the UI must do either way;
the channel (view data made, encoded, copied between processes, decoded) is linear in the same
rows and may add at most half of it, so a full repaint over the channel stays a repaint, not a
stall the owner would feel beside the in-process panel.
"""

from __future__ import annotations

import asyncio
import gc
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import PY, ROOT, Figure, main, temp_dir

ROWS = 10_000
SIZE = (200, 50)


def updates(n: int) -> dict[bytes, object]:
    """The two versions of the whole fleet's update (A: every pod RUNNING, B: every pod EXITED),
    and F: A as a full update (the whole panel a connection starts with)."""
    from bench_tables import NOW, cached_pods, exited

    from types import SimpleNamespace

    from sagan_tui.wire import render

    out = {}
    pods = cached_pods(n)
    for tag, version in ((b"A", pods), (b"B", [exited(cp) for cp in pods])):
        out[tag] = SimpleNamespace(full=False, pods={cp.pod_id: render.pod_row(cp, None, NOW) for cp in version},
                                   pod_records={cp.pod_id: cp for cp in version})
    out[b"F"] = SimpleNamespace(full=True, pods=out[b"A"].pods, pod_records=out[b"A"].pod_records)
    return out


def serve(path: str, n: int) -> None:
    """The session's side: each request byte (F, A or B) is answered with that update's frame,
    made for this one connection as the session process makes it."""
    from sagan_tui.wire.channel.frames import pack
    from sagan_tui.wire.channel.messages import Update, encode
    from sagan_tui.wire.channel.rows import SentTables
    from sagan_tui.wire.channel.views import UpdateView
    from sagan_tui.core.session.views import pods_view

    # Built as the session's update_of builds it: the wire's one shape, records made views.
    made = {tag: UpdateView(full=u.full, pods=u.pods, pod_records=pods_view(u.pod_records))
            for tag, u in updates(n).items()}
    sent = SentTables()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)
    print("ready", flush=True)
    conn, _ = listener.accept()
    with conn:
        while tag := conn.recv(1):
            for part in sent.send(made[tag]):  # each part written as soon as it is made
                conn.sendall(pack(encode(Update(part))))


async def measure(n: int, runs: int, path: Path) -> dict:
    from bench_tables import timed_pods_app

    from sagan_tui.wire.channel.frames import read_frame
    from sagan_tui.wire.channel.messages import TO_PANEL
    from sagan_tui.wire.channel.rows import HeldTables
    from sagan_tui.panel.view import PanelView
    from sagan_tui.panel.widgets.panes import PodsTable

    server = subprocess.Popen([PY, __file__, "--serve", str(path), str(n)], stdout=subprocess.PIPE, cwd=ROOT)
    try:
        assert server.stdout is not None
        if server.stdout.readline().strip() != b"ready":
            raise RuntimeError("the serving side did not start")
        # The in-process side applies rows only: this process keeps them and lets the pods' records
        # go, as the panel's UI process holds no pydantic record (20,000 of them here would make
        # every full collection during a timed run scan them, on whichever side it fell).
        local = {tag: u.pods for tag, u in updates(n).items()}
        gc.collect()
        app, drawn_at = timed_pods_app()
        channel, in_process, ui_side, frame_bytes = [], [], [], 0
        async with app.run_test(size=SIZE) as pilot:
            table = app.query_one(PodsTable)
            reader, writer = await asyncio.open_unix_connection(str(path))
            held, view = HeldTables(), PanelView()

            def apply(u) -> None:  # as the panel's updates.apply does: its view's records, then MainScreen.apply
                view.apply(u)
                table.update_rows(u.pods, u.pods_removed, u.pod_patches)

            async def received():
                """The update's frames (one, or its parts) as the client hands them on, each decoded;
                with each, the seconds its decode took."""
                while True:
                    frame = await read_frame(reader)
                    t = time.perf_counter()
                    u = held.receive(TO_PANEL.decode(frame).update)
                    yield u, len(frame), time.perf_counter() - t
                    if not u.more:
                        return

            writer.write(b"F")
            async for u, _, _ in received():
                view.apply(u)
                table.set_rows(u.pods)
            await pilot.pause()
            shown = b"A"

            async def drawn(t0: float, applied: float = 0.0) -> float:
                """Seconds from t0 to the update applied (`applied`: when its last part was) and its
                frame drawn: a part that changes only rows out of view draws nothing."""
                await pilot.pause()
                return max(drawn_at[0] or time.perf_counter(), applied) - t0

            for _ in range(runs):
                tag = b"B" if shown == b"A" else b"A"
                drawn_at[0] = 0.0
                t0 = time.perf_counter()
                writer.write(tag)
                ui, frame_bytes = 0.0, 0
                async for u, size, decoded in received():  # each part applied as it comes, as the panel does
                    t1 = time.perf_counter()
                    apply(u)
                    ui += decoded + time.perf_counter() - t1
                    frame_bytes += size
                ui_side.append(ui)
                channel.append(await drawn(t0, time.perf_counter()))
                shown = tag

                tag = b"B" if shown == b"A" else b"A"
                delivered = dict(table.records)
                drawn_at[0] = 0.0
                t0 = time.perf_counter()
                table.update_rows(local[tag])
                in_process.append(await drawn(t0))
                table.update_rows(delivered)  # back to what the channel delivered (untimed)
                await pilot.pause()
            rows_shown = table.row_count
            writer.close()
    finally:
        server.terminate()
        server.wait(10)
    return {"channel_s": channel, "in_process_s": in_process, "ui_decode_apply_s": ui_side,
            "frame_bytes": frame_bytes, "rows": rows_shown}


def run(small: bool = False) -> list[Figure]:
    n, runs = (300, 2) if small else (ROWS, 7)
    home = temp_dir("sagan-bench-channel-", "/tmp")
    try:
        r = asyncio.run(measure(n, runs, home / "s.sock"))
    finally:
        for f in home.iterdir():
            f.unlink()
        home.rmdir()
    detail = {"rows": r["rows"], "frame_bytes": r["frame_bytes"],
              "channel_s": [round(x, 4) for x in r["channel_s"]],
              "in_process_s": [round(x, 4) for x in r["in_process_s"]],
              "ui_decode_apply_s": round(statistics.median(r["ui_decode_apply_s"]), 4)}
    return [Figure("channel_throughput", f"{n:,}-row update to the pods table over the channel vs in-process",
                   statistics.median(r["channel_s"]), statistics.median(r["in_process_s"]), "s", "<= 1.5x", 1.5,
                   detail=detail)]


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2], int(sys.argv[3]))
    else:
        main(run)
