"""Balance runway: the text per state, the status line (words, not colour alone), and one notice per crossing."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from sagan_tui.wire.basics import ErrorKind, HealthState, SourceHealth
from sagan_tui.wire.runway import RunwayWatch, left, runway
from sagan_tui.wire.render import status_segments

from tests.harness import SIZE, notes, poll_now, polled

NOW = datetime(2026, 5, 14, 11, 0, tzinfo=timezone.utc)


def acct(balance=35.0, spend=1.49, name="personal", **kw) -> SourceHealth:
    kw.setdefault("state", HealthState.OK)
    return SourceHealth(name, balance=balance, spend_per_hr=spend, last_success=NOW, **kw)


@pytest.mark.parametrize("hours,text", [(0.2, "12 min"), (5, "5 h"), (5.5, "5.5 h"), (23.49, "23 h"),
                                        (47.9, "48 h"), (72, "3 d"), (80, "3.3 d")])
def test_how_long_a_balance_lasts_reads_at_the_precision_that_matters(hours, text):
    assert left(hours) == text


def test_the_issues_example_is_23_hours_left():
    r = runway(acct(35.0, 1.49))
    assert (r.state, r.text, r.short) == ("ok", "23 h left", "23h")


@pytest.mark.parametrize("health,state,text", [
    (acct(10.0, 2.0), "low", "LOW 5 h left"),
    (acct(0.0, 2.0), "out", "OUT: $0, RunPod stops its pods"),
    (acct(3.0, 1.0, under_balance=True), "out", "OUT: $0, RunPod stops its pods"),
    (acct(50.0, 0.0), "idle", "no spend"),
    (acct(None, None, transport="rest-v2"), "unknown", "balance n/a (REST v2's balance route gave none)"),
    (acct(None, None, state=HealthState.ERROR, error_kind=ErrorKind.AUTH), "unknown", "balance n/a (poll failing: 401)"),
    (acct(None, None, message="GraphQL retired (410)"), "unknown", "balance n/a (GraphQL retired (410))"),
])
def test_each_state_says_what_it_is_in_words(health, state, text):
    r = runway(health)
    assert (r.state, r.text) == (state, text)


def test_sagan_a_disabled_account_and_one_never_polled_have_no_runway():
    assert runway(SourceHealth("sagan", state=HealthState.OK, last_success=NOW)) is None
    assert runway(SourceHealth("team", state=HealthState.DISABLED)) is None
    assert runway(SourceHealth("team")) is None


def test_the_status_line_carries_the_runway_in_full_and_in_80_columns():
    health = {"sagan": SourceHealth("sagan", state=HealthState.OK, last_success=NOW),
              "team": acct(412.5, 1.49, "team"), "personal": acct(10.0, 2.0)}
    wide = "".join(t for t, _ in status_segments(health, NOW, poll_interval=5, paused=False, read_only=False))
    assert "team ✓ $412.50 -$1.49/h 11.5 d left" in wide and "personal ✓ $10.00 -$2.00/h LOW 5 h left" in wide
    narrow = "".join(t for t, _ in status_segments(health, NOW, poll_interval=5, paused=False, read_only=False,
                                                   width=78))
    assert len(narrow) <= 78 and "$412.50 11.5d" in narrow and "$10.00 LOW 5h" in narrow


def test_the_threshold_is_a_setting():
    assert runway(acct(35.0, 1.49), warn_hours=24).state == "low"
    assert runway(acct(1.0, 1.0), warn_hours=0).state == "ok"  # 0: never warns


def test_the_notice_fires_once_per_crossing_and_again_after_a_rise_over_the_threshold():
    watch = RunwayWatch()
    seen = []
    for balance in (40, 30, 20, 10, 9, 8, None, 7, 30, 11, 10, 0):  # spend $1/h: hours = balance
        h = acct(balance, 1.0, transport="rest-v2" if balance is None else None)
        seen.append(watch.check({"personal": h}, 12))
    fired = [i for i, notes in enumerate(seen) if notes]
    assert fired == [3, 9]  # under at 10 h; n/a neither fires nor re-arms; over at 30 re-arms; under at 11
    assert seen[3] == ["personal: $10.00 at $1.00/h lasts 10 h (under 12 h); "
                       "RunPod stops every pod of the account at $0"]


def test_an_account_already_under_at_the_first_reading_is_not_announced_only_a_later_fall():
    watch = RunwayWatch()
    assert watch.check({"personal": acct(5.0, 1.0)}) == []  # the status line says LOW already
    assert watch.check({"personal": acct(50.0, 1.0)}) == []
    assert len(watch.check({"personal": acct(5.0, 1.0)})) == 1


def test_the_notice_tracks_each_account_apart():
    watch = RunwayWatch()
    both = {"team": acct(50.0, 1.0, "team"), "personal": acct(50.0, 1.0)}
    assert watch.check(both) == []
    both["team"] = acct(5.0, 1.0, "team")
    assert [m.split(":")[0] for m in watch.check(both)] == ["team"]
    both["personal"] = acct(5.0, 1.0)
    assert [m.split(":")[0] for m in watch.check(both)] == ["personal"]
    assert watch.check(both) == []


# Spend follows the pods RUNNING on the simulated account: 1 $/h each on a $20 balance.
FIXTURE = {
    "accounts": {"team": {"api_key": "rk-team-r", "balance": 1000.0}, "personal": {"api_key": "rk-personal-r", "balance": 20.0}},
    "experiments": [{"number": 1, "title": "runway", "status": "running", "runpodAccount": "personal"}],
    "pods": [
        {"id": "runwaypod00001", "account": "personal", "experiment": 1, "costPerHr": 1.0, "created_at": 0,
         "running_at": 1},
        {"id": "runwaypod00002", "account": "personal", "experiment": 1, "costPerHr": 1.0, "created_at": 100,
         "running_at": 101, "stopped_at": 200},
        {"id": "runwaypod00003", "account": "personal", "experiment": 1, "costPerHr": 1.0, "created_at": 300,
         "running_at": 301},
    ],
}


def _runway_notices(app) -> list[str]:
    return [n.message for n in notes(app) if n.title == "Runway short"]


async def test_the_panel_warns_once_per_crossing_as_the_simulated_spend_moves(sim_factory, panel):
    sim = sim_factory(fixture=FIXTURE)
    sim.clock.jump_to(50)  # one pod: 20 h left
    app = panel(sim)
    async with app.run_test(size=SIZE) as pilot:
        await polled(pilot, app)
        status = app.query_one("#status")
        assert "personal ✓ $20.00 -$1.00/h 20 h left" in status.plain and _runway_notices(app) == []
        sim.clock.jump_to(150)  # two pods: 10 h
        await poll_now(pilot, app)
        assert "LOW 10 h left" in status.plain and len(_runway_notices(app)) == 1
        await poll_now(pilot, app)  # still under: no second notice
        assert len(_runway_notices(app)) == 1
        sim.clock.jump_to(250)  # one again: over the threshold, re-armed
        await poll_now(pilot, app)
        assert "20 h left" in status.plain and len(_runway_notices(app)) == 1
        sim.clock.jump_to(350)  # under again: a second crossing, a second notice
        await poll_now(pilot, app)
        assert len(_runway_notices(app)) == 2
    assert _runway_notices(app)[0].startswith("personal: $20.00 at $2.00/h lasts 10 h (under 12 h)")


def test_at_80_columns_during_a_wave_the_count_the_guard_and_a_low_runway_stay_on_one_line():
    health = {"sagan": SourceHealth("sagan", state=HealthState.OK, last_success=NOW),
              "team": acct(412.5, 53.0, "team"), "personal": acct(10.0, 1.28)}  # team: LOW 7.8 h
    wave = ("WAVE 5 lost · guard until 11:09", "WAVE 5 · guard 11:09")
    full = "".join(t for t, _ in status_segments(health, NOW, poll_interval=5, paused=False, read_only=True,
                                                 wave=wave))
    assert "WAVE 5 lost · guard until 11:09" in full and "$412.50" in full
    segs = status_segments(health, NOW, poll_interval=5, paused=False, read_only=True, width=78, wave=wave,
                           verdict="PLATFORM REAPER, medium: hold re-dispatches")
    head, _, verdict = "".join(t for t, _ in segs).partition("\n")
    assert len(head) <= 78 and "WAVE 5 · guard 11:09" in head and "LOW 7.8h" in head and "LOW" in head
    assert "RO" in head and "sagan ✓" in head
    assert verdict == "PLATFORM REAPER, medium: hold re-dispatches"


def test_under_demo_the_header_says_demo_at_every_width():
    health = {"sagan": SourceHealth("sagan", state=HealthState.OK, last_success=NOW)}

    def line(width):
        return "".join(t for t, _ in status_segments(health, NOW, poll_interval=5, paused=False, read_only=True,
                                                     width=width, demo="reaping-wave"))

    assert line(None).startswith("DEMO reaping-wave ")
    assert line(40).startswith("DEMO ") and "READ-ONLY" in line(200) and len(line(40)) <= 40
    assert "DEMO" not in "".join(t for t, _ in status_segments(health, NOW, poll_interval=5, paused=False,
                                                               read_only=False))
