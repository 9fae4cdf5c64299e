"""A poll that changes nothing sends nothing; one that changes one pod redraws that pod's row only."""

from __future__ import annotations

from sagan_tui.sim.actions import stop_pod
from sagan_tui.ui.messages import PollFinished
from sagan_tui.ui.widgets.status_bar import StatusBar

from .conftest import SIZE, poll_now, polled

SCRATCH = ("aaaaaaaaaaaa01", "aaaaaaaaaaaa02")


def quiet_fleet() -> dict:
    """Pods running for two hours, none changing by itself; two of them unknown to Sagan."""
    exps = [{"number": 300 + i, "title": f"Quiet study {i}", "status": "running",
             "runpodAccount": "team" if i % 2 else "personal"} for i in range(4)]
    pods = [{"id": f"q{i:07d}fleet", "account": exps[i % 4]["runpodAccount"], "experiment": 300 + i % 4,
             "name": f"exp{300 + i % 4}-fleet", "created_at": -7200, "running_at": -7150} for i in range(24)]
    pods += [{"id": pid, "account": "personal", "tracked": False, "name": "scratch", "created_at": -7200,
              "running_at": -7150} for pid in SCRATCH]
    return {"name": "quiet-fleet", "experiments": exps, "pods": pods}


def count_calls(obj, name: str) -> list:
    """Record each call of `obj.name` (still calling through)."""
    calls: list = []
    original = getattr(obj, name)

    def spy(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    setattr(obj, name, spy)
    return calls


async def test_polls_that_change_nothing_leave_the_status_line_alone(sim_factory, panel):
    sim = sim_factory(fixture=quiet_fleet())
    app = panel(sim)
    async with app.run_test(size=SIZE) as pilot:
        await polled(pilot, app)
        await poll_now(pilot, app)  # the first poll's health settles ("…" to "✓")
        bar = app.query_one(StatusBar)
        before = bar.plain
        updates = count_calls(bar, "update")
        for _ in range(3):
            await poll_now(pilot, app)
        app._tick_status()  # the 5 s tick between polls
        # Neither the start nor the end of an ordinary poll rewrites the line.
        assert updates == [] and bar.plain == before
        assert "poll 60s" in before and "polling" not in before


async def test_a_poll_that_changes_one_pod_redraws_that_row_only(sim_factory, panel):
    sim = sim_factory(fixture=quiet_fleet())
    app = panel(sim)
    finished: list[PollFinished] = []

    def hook(message):
        if isinstance(message, PollFinished):
            finished.append(message)

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await polled(pilot, app)
        await poll_now(pilot, app)
        table = app.pods_table
        assert table.get_row_index(SCRATCH[0]) < table.size.height  # in view
        with sim.state.lock:
            stop_pod(sim.state, "personal", SCRATCH[0], sim.clock.now_t())
        rendered = count_calls(app.model, "pod_rows_for")
        rows_redrawn = count_calls(table, "refresh_row")
        whole = count_calls(table, "set_rows")
        await poll_now(pilot, app)
        assert finished[-1].changes.pods_changed == (SCRATCH[0],)
        # Only that pod was rendered again, and only its line of the table was asked to repaint.
        assert [sorted(keys) for (keys,) in rendered] == [[SCRATCH[0]]]
        assert whole == []
        assert {r for (r,) in rows_redrawn} == {table.get_row_index(SCRATCH[0])}
        status = table.get_cell(SCRATCH[0], "status").cell.text
        assert status == "EXITED"
