"""The panel against the simulator over loopback: first paint from the cache, live panes, losses, health."""

from __future__ import annotations

import socket

from sagan_tui.core.models import HealthState
from sagan_tui.panel.messages import Updated
from sagan_tui.panel.widgets.heatmap import LossHeatmap
from sagan_tui.panel.widgets.status_bar import StatusBar

from .conftest import fill_cache
from tests.harness import SIZE, poll_now, polled


def cells(table, key: str) -> dict[str, str]:
    """A row's cells as plain text by column key."""
    return {spec.key: str(v) for spec, v in zip(table.specs, table.get_row(key)[1:])}


async def test_first_paint_comes_from_the_cache_before_any_reply(sim_factory, panel, tmp_path):
    sim = sim_factory(scenario="reaping-wave")
    sim.clock.jump_to(200)  # past the r4 wave
    counts = await fill_cache(sim, tmp_path)
    sim.stop()  # the next session starts with every source down
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", sim.port)) != 0

    app = panel(sim)
    rows_when_first_poll_posted: list[tuple[int, int]] = []

    def hook(message):
        if isinstance(message, Updated) and message.update.polls is not None and not rows_when_first_poll_posted:
            rows_when_first_poll_posted.append((app.experiments_table.row_count, app.pods_table.row_count))

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await polled(pilot, app)
        # The tables were full before the first poll (which failed) was even posted.
        assert rows_when_first_poll_posted[0][0] == counts["experiments"] > 0
        assert rows_when_first_poll_posted[0][1] > 0
        assert app.first_paint_s is not None  # its speed is bench/'s business, not a test's
        status = app.query_one(StatusBar).plain
        for source in ("sagan", "team", "personal"):
            assert f"{source} ✗unreachable" in status, status
        # A failed poll is health, never a loss: the pods painted from the cache are still there.
        assert app.experiments_table.row_count == counts["experiments"]
        assert app.pods_table.row_count == rows_when_first_poll_posted[0][1]


async def test_panes_fill_from_the_calm_scenario(calm_sim, panel):
    app = panel(calm_sim)
    messages = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await polled(pilot, app)
        finished = [m for m in messages if isinstance(m, Updated) and m.update.polls is not None]
        # Each source polled on its own, once; the round of the three counted as one poll.
        assert len(finished) == 3 and [m.update.polls for m in finished] == [0, 0, 1]
        assert app.experiments_table.row_count == len(calm_sim.state.experiments)
        live = sum(len(calm_sim.state.account_pods(a, calm_sim.clock.now_t())) for a in ("team", "personal"))
        assert app.pods_table.row_count == live > 0
        assert app.timeline.row_count > 0
        status = app.query_one(StatusBar).plain
        assert "sagan ✓" in status and "team ✓" in status and "personal ✓" in status
        # The owner's inbox sits on top of the experiments.
        keys = app.experiments_table.shown_keys()
        inbox = [k for k in keys if app.view.experiments[int(k)].owner_turn]
        assert inbox and keys[: len(inbox)] == inbox


async def test_a_vanished_pod_shows_as_lost_and_reaches_the_heatmap(sim_factory, panel):
    sim = sim_factory(scenario="reaping-wave")
    sim.clock.jump_to(60)  # the r4 siblings are RUNNING
    app = panel(sim)
    messages = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await polled(pilot, app)
        r4 = ["k3m8qz0v2xw7ta", "h9d2pj6wq4ne1c", "t5x0bv8rk2mu7y"]
        for pod in r4:
            assert cells(app.pods_table, pod)["status"] == "RUNNING"
        sim.clock.jump_to(130)  # all three vanished at t=98..112
        await poll_now(pilot, app)
        new = {x.pod_id for m in messages if isinstance(m, Updated) and m.update.losses
               for x in m.update.losses.losses}
        assert set(r4) <= new
        for pod in r4:
            row = cells(app.pods_table, pod)
            assert row["status"] == "LOST" and row["seen"].startswith("✗"), row
            assert "vanished" in row["note"] or "not found" in row["note"]
        assert app.pods_table.records[r4[0]].group == 1  # lost rows sort below the live ones
        heatmap = app.query_one(LossHeatmap)
        await pilot.pause()
        assert heatmap.grid is not None and heatmap.grid.total >= 3
        assert len(app.current_losses()) >= 3


async def test_a_failing_source_shows_in_the_header_and_the_rest_stays_live(sim_factory, panel):
    sim = sim_factory(scenario="auth-revoked")
    app = panel(sim)
    async with app.run_test(size=SIZE) as pilot:
        await polled(pilot, app)
        personal_pods = [k for k, p in app.view.pods.items() if p.account == "personal"]
        assert personal_pods
        sim.clock.jump_to(70)  # the personal key answers 401 from t=60
        await poll_now(pilot, app)
        status = app.query_one(StatusBar).plain
        assert "personal ✗401" in status and "sagan ✓" in status and "team ✓" in status, status
        assert app.view.health["team"].state == HealthState.OK
        # Personal's pods are not lost because its poll failed; Sagan's panes still update.
        for pod in personal_pods:
            assert cells(app.pods_table, pod)["status"] == "RUNNING"
        assert not app.current_losses()
        assert app.experiments_table.row_count == len(sim.state.experiments)


SELECTION_FIXTURE = {
    "accounts": {"team": {"api_key": "rk-team-t"}, "personal": {"api_key": "rk-personal-t"}},
    "experiments": [{"number": n, "title": f"exp {n}", "status": "running"} for n in range(1, 7)],
    "events": [{"at": 100, "experiment": 1, "eventType": "state_changed", "fromStatus": "running",
                "toStatus": "blocked", "note": "RunPod pod stopped; volume preserved."}],
    "pods": [{"id": "aaaaaa111111bb", "account": "team", "experiment": 3, "created_at": 0, "running_at": 10}],
}


async def test_the_cursor_stays_on_its_row_key_across_refreshes(sim_factory, panel):
    sim = sim_factory(fixture=SELECTION_FIXTURE)
    sim.clock.jump_to(50)
    app = panel(sim)
    async with app.run_test(size=SIZE) as pilot:
        await polled(pilot, app)
        table = app.experiments_table
        assert table.shown_keys() == ["6", "5", "4", "3", "2", "1"]
        table.select_key("3")
        await pilot.pause()
        assert (table.cursor_key, table.cursor_row) == ("3", 3)
        sim.clock.jump_to(150)  # #1 is blocked now: the owner's turn, so it moves to the top
        await poll_now(pilot, app)
        assert table.shown_keys()[0] == "1"
        assert (table.cursor_key, table.cursor_row) == ("3", 4)
        assert app.main_screen.selected_experiment().number == 3
