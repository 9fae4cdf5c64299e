"""The panel (the real SaganApp under Pilot) while its sources fail one after another, then recover.

The header says each source's truth; the rows painted from the cache stay (stale-marked, never
lost); a key is answered while a poll waits on a source that does not answer; all is well on
recovery.
"""

from __future__ import annotations

from sagan_tui.core.models import HealthState
from sagan_tui.panel.widgets.status_bar import StatusBar

from tests.harness import poll_now, screen_text, wait_for
from .test_faults import WORLD

# Scenario time -> (source, simulator fault kind, what the header shows)
PHASES = [
    (30, "sagan", "500", "sagan ✗5xx"),
    (50, "team", "401", "team ✗401"),
    (70, "personal", "timeout", "personal ✗timeout"),
    (90, "team", "429", "team ✗429"),
    (110, "sagan", "bad-json", "sagan ✗bad-json"),
    (130, "personal", "500", "personal ✗5xx"),
    (150, "sagan", "timeout", "sagan ✗timeout"),
]
RECOVERED_AT = 170
# The client's timeout: how long a timeout phase's poll waits before its source reads ✗timeout.
REQUEST_TIMEOUT_S = 3.0


def world() -> dict:
    windows: dict[str, list] = {"sagan": [], "team": [], "personal": []}
    for t, source, kind, _ in PHASES:
        windows[source].append({"from": t - 5, "to": t + 5, "kind": kind})
    return {**WORLD, "sagan": {"token": "sagan-panel-faults", "failures": windows["sagan"]},
            "accounts": {"team": {"api_key": "rk-team-pf", "failures": windows["team"]},
                         "personal": {"api_key": "rk-personal-pf", "failures": windows["personal"]}}}


def held(sim, source: str, since: int) -> bool:
    """The simulator holds a request of `source` (received after request number `since`) unanswered."""
    return any(r.status is None and (r.api == "sagan" if source == "sagan" else r.account == source)
               for r in sim.requests[since:])


def pod_keys(app, account: str) -> set[str]:
    return {k for k, p in app.view.pods.items() if p.account == account and p.gone_at is None}


async def test_the_header_tells_each_failure_the_rows_stay_and_the_loop_never_blocks(sim_factory, panel, figures):
    sim = sim_factory(fixture=world())
    # A short interval so that a failing source's rows turn stale; polls are still driven by the test.
    # GraphQL: a REST v2 429 holds that account's requests for its Retry-After by design, which
    # would carry one phase's error into the next one's header.
    env = {**sim.env(), **{f"RUNPOD_TRANSPORT_{name.upper()}": "graphql" for name in sim.account_keys}}
    app, cache = panel(env, request_timeout=REQUEST_TIMEOUT_S, poll_interval=0.5)
    async with app.run_test(size=(200, 50)) as pilot:
        sim.clock.jump_to(10)
        await poll_now(pilot, app)
        rows = (app.experiments_table.row_count, app.pods_table.row_count)
        pods = {a: pod_keys(app, a) for a in ("team", "personal")}
        assert rows[0] == 3 and pods["team"] and pods["personal"], app.query_one(StatusBar).plain
        for t, source, kind, shown in PHASES:
            sim.clock.jump_to(t)
            sim.clock.hold(t)  # the fault's window lasts however long the tries take (Sagan's three)
            await poll_now(pilot, app)
            status = app.query_one(StatusBar).plain
            assert shown in status, status
            for other in {"sagan", "team", "personal"} - {source}:
                # No error for the others; they may read "stale" when a slow source held the poll
                # for longer than three intervals, which is true of the data on screen.
                assert f"{other} ✗" not in status and app.view.health[other].state == HealthState.OK, status
            assert app.view.health[source].state == HealthState.ERROR
            # Nothing painted from the cache is dropped, and a failed poll loses no pod.
            assert (app.experiments_table.row_count, app.pods_table.row_count) == rows
            assert {a: pod_keys(app, a) for a in pods} == pods
            assert not app.current_losses()
            if source != "sagan":
                await wait_for(pilot, lambda: app.view.health[source].stale(app.clock(), app.settings.poll_interval),
                               what="stale")
                app.session.tick()  # the status tick: rows whose text time alone changed

                def seen() -> list[str]:
                    return [str(app.pods_table.get_row(k)[6]) for k in pods[source]]
                await wait_for(pilot, lambda: all(s.endswith("!") for s in seen()), what=f"stale marks {seen()}")
            assert app.is_running
        assert "rk-" not in screen_text(app)

        sim.clock.jump_to(RECOVERED_AT)
        await poll_now(pilot, app)
        status = app.query_one(StatusBar).plain
        for source in ("sagan", "team", "personal"):
            assert f"{source} ✓" in status, status
        assert not app.current_losses() and {a: pod_keys(app, a) for a in pods} == pods

    figures["panel_fault_phases"] = len(PHASES)


async def test_a_key_is_answered_while_a_poll_waits_on_a_source_that_does_not_answer(sim_factory, panel):
    """The simulator holds one source's requests until the test lets them go, so the poll is still
    waiting however long the key takes on a loaded machine (a timeout fault would end it on the
    client's real-time deadline, which is what made this a race). The cursor moves, and the
    poll's result is not on screen until the source answers: the loop kept answering keys."""
    sim = sim_factory(fixture=WORLD)
    # A deadline the test never reaches: the poll ends when the stalled source is released.
    app, cache = panel(sim.env(), request_timeout=600.0, poll_interval=0.5)
    async with app.run_test(size=(200, 50)) as pilot:
        sim.clock.jump_to(10)
        await poll_now(pilot, app)
        table = app.experiments_table
        table.focus()
        for source in ("personal", "sagan"):
            await wait_for(pilot, lambda: not app.polling, what="idle poller")
            row, mark, before = table.cursor_row, len(sim.requests), app.polls
            sim.stall(source)
            try:
                app.request_refresh()
                await wait_for(pilot, lambda: held(sim, source, mark), what=f"the held {source} request")
                await pilot.press("down" if row == 0 else "up")
                await wait_for(pilot, lambda: table.cursor_row != row, what="the cursor to move")
                assert app.polling and app.polls == before and held(sim, source, mark)
            finally:
                sim.release(source)
            await wait_for(pilot, lambda: app.polls > before and not app.polling, what="the poll to end")
            assert app.view.health[source].state == HealthState.OK, app.query_one(StatusBar).plain
