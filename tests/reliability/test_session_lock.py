"""The panel keeps answering while another process holds the cache's write lock for 15 s."""

from __future__ import annotations

import subprocess
import sys

from tests.harness import notes, poll_now, wait_for


R4 = "k3m8qz0v2xw7ta"
# Holds the write lock 15 s (past the cache's 10 s busy timeout), writes `released` just before
# it commits: a dismiss that lands can only have landed after that file exists.
HOG = """
import pathlib, sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
c.execute("begin immediate")
print("ready", flush=True)
time.sleep(15)
pathlib.Path(sys.argv[2]).write_text("released")
c.execute("commit")
"""


async def test_x_and_the_cursor_answer_while_another_process_holds_the_write_lock(sim_factory, panel, tmp_path):
    sim = sim_factory(scenario="reaping-wave")
    sim.clock.jump_to(60)
    app, cache = panel(sim.env())
    released = tmp_path / "released"
    async with app.run_test(size=(200, 50)) as pilot:
        await poll_now(pilot, app)
        sim.clock.jump_to(130)
        await poll_now(pilot, app)
        pods = app.pods_table
        pods.focus()
        assert pods.select_key(R4)
        hog = subprocess.Popen([sys.executable, "-c", HOG, str(cache.path), str(released)],
                               stdout=subprocess.PIPE, text=True)
        try:
            assert hog.stdout.readline().strip() == "ready"
            row = pods.cursor_row
            await pilot.press("x")
            await pilot.press("up")
            await wait_for(pilot, lambda: pods.cursor_row != row, what="the cursor to move")
            dismissed = lambda: any(f"dismissed lost pod {R4}" in n.message for n in notes(app))  # noqa: E731
            # The cursor answered with the dismiss queued behind the other process's lock: had the
            # dismiss landed already, the lock would have been released first.
            assert not dismissed() or released.exists()
            waiting = lambda: any(f"x {R4}: waiting to write the cache" in n.message for n in notes(app))  # noqa: E731
            await wait_for(pilot, lambda: waiting() or dismissed(), timeout=90, what="word of the dismiss")
            assert waiting() and not dismissed()  # the owner is told it waits (after 1 s of a 15 s lock)
            await wait_for(pilot, dismissed, timeout=90, what="the dismiss result")
            assert released.exists()  # it arrived after the other process let go
            assert not [n for n in notes(app) if "locked" in n.message]
        finally:
            hog.kill()  # our own child, by its handle
            hog.wait()
