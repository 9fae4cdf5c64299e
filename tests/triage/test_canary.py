"""The canary's states and words, on an injected clock."""

from __future__ import annotations

from datetime import timedelta

from sagan_tui.core.triage.canary import Canary, watch_seconds

from .conftest import at

T0 = at("11:10:00")


def test_the_watch_is_the_kill_time_plus_a_margin_and_never_under_two_minutes():
    assert watch_seconds(60) == 120 and watch_seconds(90) == 150 and watch_seconds(None) == 120


def test_dispatched_running_then_passed_proposes_releasing_the_rest():
    c = Canary.start(192, T0, 60, held=(192, 363, 366))
    assert c.state(T0 + timedelta(seconds=5)) == "dispatched" and c.held == (363, 366)
    c = c.saw_running("canarypod00001", T0 + timedelta(seconds=10))
    now = T0 + timedelta(seconds=82)
    assert c.state(now) == "running" and c.text(now) == "canary #192: running 1 min 12 s of 2 min"
    now = T0 + timedelta(seconds=131)
    assert c.state(now) == "passed"
    assert c.text(now) == "canary #192: passed (canarypod00001 ran past 2 min): release the rest (#363, #366)"


def test_a_canary_lost_in_the_window_releases_nothing():
    c = Canary.start(192, T0, 60, held=(363,)).saw_running("canarypod00001", T0 + timedelta(seconds=10))
    c = c.saw_lost("otherpod000001", T0 + timedelta(seconds=70)).saw_lost("canarypod00001", T0 + timedelta(seconds=70))
    assert c.state(T0 + timedelta(minutes=10)) == "lost"
    assert c.text(T0 + timedelta(minutes=10)) == \
        "canary #192: lost after 1 min 0 s (canarypod00001): it joins the wave; holding #192 again, the rest stay held"
