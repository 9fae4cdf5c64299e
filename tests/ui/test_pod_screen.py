"""The pod screen against the simulator: the demo's lost pod (record, GPUs, system log to the reaper's stop), y, g, Escape."""

from __future__ import annotations

from textual.widgets import RichLog, Static

from sagan_tui.sim.scenarios.reaping_wave import R5, R5_RUNNING
from sagan_tui.panel.screens.detail import DetailScreen
from sagan_tui.panel.screens.pod import PodScreen
from sagan_tui.panel.widgets.heatmap import LossHeatmap

from tests.harness import SIZE, open_dialog, pane_text, poll_now, polled, wait_for

LOST_POD, LOST_AT = R5[0][0], R5[0][5]  # #192's pod of the r5 wave


def log_text(screen: PodScreen) -> list[str]:
    return [strip.text for strip in screen.query_one("#pod-log", RichLog).lines]


def shown(screen: PodScreen, widget: str) -> str:
    return pane_text(screen.query_one(widget, Static))


async def open_pod_row(pilot, app, pod_id: str) -> PodScreen:
    table = app.pods_table
    table.focus()
    table.move_cursor(row=table.get_row_index(pod_id))
    await open_dialog(pilot, "enter", PodScreen, "the pod screen")
    return app.screen


async def test_the_demos_lost_pod_shows_its_record_gpus_and_system_log_to_the_reapers_stop(sim_factory, panel):
    sim = sim_factory(scenario="reaping-wave")
    sim.clock.hold(R5_RUNNING + 20)  # the r5 pods run
    app = panel(sim)
    async with app.run_test(size=SIZE) as pilot:
        await polled(pilot, app)
        screen = await open_pod_row(pilot, app, LOST_POD)
        # Running: the GPU figures of the pod record, as bars with their percentages.
        await wait_for(pilot, lambda: "util" in shown(screen, "#pod-gpus"), what="GPU figures")
        assert "GPU 0 util" in shown(screen, "#pod-gpus") and "%" in shown(screen, "#pod-gpus")
        await wait_for(pilot, lambda: "#192" in shown(screen, "#pod-record"), what="the record")
        record = shown(screen, "#pod-record")
        assert "RunPod" in record and "US-KS-2" in record and "Sagan pod_lifecycle" in record
        assert "cost so far estimated $" in record
        await pilot.press("escape")
        assert not isinstance(app.screen, PodScreen)

        sim.clock.hold(LOST_AT + 60)  # reaped, and Sagan noticed
        await poll_now(pilot, app)
        await poll_now(pilot, app)
        screen = await open_pod_row(pilot, app, LOST_POD)
        reaped = "Pod terminated by Runpod (not requested by the account)"
        await wait_for(pilot, lambda: any(reaped in line for line in log_text(screen)), what="the reaper's stop")
        lines = log_text(screen)
        assert any(f"Pod {LOST_POD} created on host" in line for line in lines)
        assert any("Container started" in line for line in lines)
        assert reaped in lines[-1]  # the log ends at the reaper's stop
        assert "no longer lists the pod" in shown(screen, "#pod-gpus")
        record = shown(screen, "#pod-record")
        assert "losses and withdrawals" in record and "confirmed" in record, record

        await pilot.press("y")
        assert app.clipboard == LOST_POD
        await open_dialog(pilot, "g", DetailScreen, "the experiment's detail")
        assert app.screen.number == 192
        await pilot.press("escape")
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(app.screen_stack) == 1, what="back on the panel")


async def test_escapes_in_a_pods_log_never_reach_the_screen(sim_factory, panel):
    hostile = "\x1b]52;c;ZXZpbA==\x07evil \x1b[2J\x1b[31mred\x1b[0m [bold]markup[/bold]"
    sim = sim_factory(fixture={
        "accounts": {"team": {"api_key": "rk-team-x"}, "personal": {"api_key": "rk-personal-x"}},
        "experiments": [{"number": 7, "title": "x", "status": "running", "runpodAccount": "team"}],
        "pods": [{"id": "hostile00001", "account": "team", "experiment": 7, "created_at": 0, "running_at": 10,
                  "log_lines": [hostile, "second \x9b31m line"]}]})
    sim.clock.hold(30)
    app = panel(sim)
    async with app.run_test(size=SIZE) as pilot:
        await polled(pilot, app)
        screen = await open_pod_row(pilot, app, "hostile00001")
        await wait_for(pilot, lambda: any("second" in line for line in log_text(screen)), what="the container lines")
        lines = log_text(screen)
        assert any(line.endswith("evil red [bold]markup[/bold]") for line in lines), lines  # literal, no markup
        assert not any(c in line for line in lines for c in "\x1b\x07\x9b")


async def test_enter_on_a_heatmap_cell_of_one_loss_opens_that_pods_screen(sim_factory, panel):
    sim = sim_factory(fixture={
        "accounts": {"team": {"api_key": "rk-team-x"}, "personal": {"api_key": "rk-personal-x"}},
        "pods": [{"id": "lonelyloss001", "account": "team", "created_at": 0, "running_at": 10, "lost_at": 70},
                 {"id": "survivor00001", "account": "team", "created_at": 0, "running_at": 10}]})
    sim.clock.hold(40)
    app = panel(sim)
    async with app.run_test(size=SIZE) as pilot:
        await polled(pilot, app)
        sim.clock.hold(200)
        await poll_now(pilot, app)
        await poll_now(pilot, app)
        heatmap = app.query_one(LossHeatmap)
        await wait_for(pilot, lambda: heatmap.grid is not None and heatmap.grid.cells, what="the loss in the grid")
        (row, col, pods), = heatmap.grid.cells
        assert pods == ("lonelyloss001",)
        heatmap.focus()
        heatmap.cursor = (row, col)
        await open_dialog(pilot, "enter", PodScreen, "the pod screen")
        assert app.screen.pod_id == "lonelyloss001" and app.screen.account == "team"
