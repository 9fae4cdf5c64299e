"""triage.fmt, the one formatting module: times, windows, ages and money as the screen and reports read them."""

import math
from datetime import datetime, timedelta, timezone

import pytest

from sagan_tui.wire import fmt
from sagan_tui.wire import render

T = datetime(2026, 5, 14, 19, 24, 12, tzinfo=timezone.utc)


def test_times_read_the_same_everywhere_and_none_is_a_dash():
    assert (fmt.hms(T), fmt.hm(T), fmt.day(T)) == ("19:24:12", "19:24", "2026-05-14")
    assert (fmt.hms(None), fmt.hm(None), fmt.stamp(None)) == ("—", "—", "—")
    assert fmt.stamp(T) == "2026-05-14 19:24:12 UTC"
    assert fmt.hms(T.replace(tzinfo=None)) == "19:24:12"  # naive times are UTC


def test_a_zero_length_window_is_one_time():
    assert fmt.window(T, T, seconds=True) == "19:24:12 UTC"
    assert fmt.window(T, T + timedelta(seconds=20)) == "19:24 UTC"  # same minute at minute precision
    assert fmt.window(T, T + timedelta(seconds=20), seconds=True) == "19:24:12-19:24:32 UTC"
    assert fmt.window(T, T + timedelta(days=1)) == "2026-05-14 19:24 to 2026-05-15 19:24 UTC"


def test_when_gives_the_date_only_on_another_day():
    assert fmt.when(T, T + timedelta(hours=1)) == "19:24:12"
    assert fmt.when(T, T + timedelta(days=1)) == "05-14 19:24"


@pytest.mark.parametrize(("seconds", "text", "left"), [
    (None, "—", math.inf), (-5, "<1m", 60), (59, "<1m", 1), (60, "1m", 60), (3599, "59m", 1),
    (3600, "1h", 3600), (47 * 3600 + 5, "47h", 3595), (48 * 3600, "2d", 86400)])
def test_coarse_ages_and_when_they_next_change(seconds, text, left):
    assert fmt.coarse(seconds) == text
    assert fmt.coarse_left(seconds) == left


def test_seen_since_and_money():
    assert (fmt.seen_text(30), fmt.seen_text(90)) == ("now", "1m")
    assert fmt.since(T, T + timedelta(seconds=90)) == 90 and fmt.since(None, T) is None
    assert (fmt.usd(1234.5), fmt.usd(1.49, per_hour=True), fmt.usd(None)) == ("$1,234.50", "$1.49/h", "—")
    assert (fmt.duration(61), fmt.duration(541), fmt.duration(601), fmt.duration(7500)) == (
        "61 s", "9 min 1 s", "10 min", "2 h 5 min")


def test_the_panel_renderers_use_the_one_module():
    assert (render.hhmm, render.hhmmss, render.money, render.coarse, render.when) == (
        fmt.hm, fmt.hms, fmt.usd, fmt.coarse, fmt.when)
