"""What the #44 walk found cut at 120 columns, over the simulator: the pod screen's log laid out 78
cells wide in a 72-cell pane (the reaper's stop cut off), and the detail screen's plan laid out for
its width before a scrollbar took a column (every line re-wrapped one word short)."""

from __future__ import annotations

from textual.widgets import RichLog

from sagan_tui.panel.messages import PlanRendered
from sagan_tui.panel.screens.detail import DetailScreen
from sagan_tui.sim.scenarios.reaping_wave import R5

from tests.harness import open_dialog, poll_now, polled, wait_for
from .test_pod_screen import open_pod_row

WALK = (120, 40)
LOST_POD, LOST_AT = R5[0][0], R5[0][5]  # #192's pod of the r5 wave
REAPED = "Pod terminated by Runpod (not requested by the account)"


def log_text(log: RichLog) -> str:
    """The log as shown, its wrapped lines joined: a line cut off at the pane's edge is not in it."""
    return " ".join(" ".join(strip.text.split()) for strip in log.lines)


def fits(log: RichLog) -> bool:
    return max(strip.cell_length for strip in log.lines) <= log.scrollable_content_region.width


async def test_the_plan_is_laid_out_for_the_width_it_is_shown_at(sim_factory, panel):
    sim = sim_factory(scenario="reaping-wave")
    app = panel(sim)
    rendered: list[PlanRendered] = []
    async with app.run_test(size=WALK, message_hook=lambda m: isinstance(m, PlanRendered) and rendered.append(m)) as pilot:
        await polled(pilot, app)
        app.experiments_table.focus()
        app.experiments_table.select_key("192")
        screen = await open_dialog(pilot, "enter", DetailScreen, "the detail screen")
        await wait_for(pilot, lambda: screen.plan.startswith("# Plan") or "Plan for" in screen.plan, what="the plan")
        await wait_for(pilot, lambda: rendered and rendered[-1].source.strip() == screen.plan.strip(), what="markdown")
        await pilot.pause()
        left, plan = screen.query_one("#detail-left"), screen.query_one("#detail-plan")
        assert left.max_scroll_y > 0  # the plan is longer than the pane: its scrollbar is up
        assert rendered[-1].width == plan.size.width


async def test_the_pod_log_wraps_in_its_pane_at_120_columns_and_again_after_a_resize_to_80(sim_factory, panel):
    sim = sim_factory(scenario="reaping-wave")
    sim.clock.hold(LOST_AT + 60)  # reaped, and Sagan noticed
    app = panel(sim)
    async with app.run_test(size=WALK) as pilot:
        await polled(pilot, app)
        await poll_now(pilot, app)
        log = (await open_pod_row(pilot, app, LOST_POD)).query_one("#pod-log", RichLog)
        await wait_for(pilot, lambda: REAPED in log_text(log), what="the reaper's stop, whole")
        assert log.scrollable_content_region.width < 78 and fits(log)
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: log.scrollable_content_region.width < 50 and fits(log) and REAPED in log_text(log),
                       what="the log laid out again at 80 columns")
