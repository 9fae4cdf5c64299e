"""The account view (`B`): balance, spend, runway, health and the balance since start, in words."""

from __future__ import annotations

from collections import deque
from datetime import timedelta

from sagan_tui.wire.runway import BARS, resample, sparkline
from sagan_tui.panel.screens.accounts import AccountsScreen, account_rows

from ..ui import frozen
from tests.harness import cache_of, open_dialog, wait_for

SIZE = (120, 40)


def test_a_sparkline_spans_lowest_to_highest_and_keeps_the_last_values():
    assert sparkline([10, 20, 30, 40], 4) == BARS[0] + BARS[2] + BARS[5] + BARS[7]
    assert sparkline([5, 5, 5], 10) == BARS[3] * 3
    assert sparkline(list(range(100)), 8) == sparkline(list(range(92, 100)), 8)
    assert sparkline([], 8) == ""


def seeded_history():
    t0 = frozen.NOW - timedelta(minutes=10)
    return {"team": deque((t0 + timedelta(minutes=i), 420.0 - i) for i in range(8))}


def test_each_account_reads_as_words_whatever_the_colours():
    from sagan_tui.wire.basics import HealthState, SourceHealth

    health = {"sagan": SourceHealth("sagan", state=HealthState.OK, last_success=frozen.NOW),
              "team": SourceHealth("team", state=HealthState.OK, last_success=frozen.NOW, balance=412.5,
                                   spend_per_hr=1.49, spend_limit=80.0),
              "lab": SourceHealth("lab", state=HealthState.OK, last_success=frozen.NOW, transport="rest-v2"),
              "invoiced": SourceHealth("invoiced", state=HealthState.OK, last_success=frozen.NOW, transport="rest-v2",
                                       balance=0.0, under_balance=False, billing_mode="POSTPAID"),
              "spare": SourceHealth("spare", state=HealthState.DISABLED)}
    rows = {r[0][0]: [text for text, _style in r] for r in account_rows(health, seeded_history(), frozen.NOW, 5, 12)}
    assert list(rows) == ["team", "lab", "invoiced", "spare"]
    # The billing mode shows: a POSTPAID account at $0 is invoiced, not out.
    assert rows["invoiced"][7] == "POSTPAID" and rows["invoiced"][4] == "POSTPAID: invoiced, no runway"
    assert rows["team"][7] == "—"
    assert rows["team"][1:6] == ["ok", "$412.50", "$1.49/h", "11.5 d left", "$80.00/h"]
    line, rest = rows["team"][6].split(" ", 1)
    assert rest == "$420.00 → $413.00 since 10:46:00" and len(line) == 24
    assert [BARS.index(c) for c in line] == sorted((BARS.index(c) for c in line), reverse=True)  # falling
    assert rows["lab"][4] == "balance n/a (REST v2's balance route gave none)"
    assert rows["spare"][1] == "off (no key)" and rows["spare"][6] == "none yet"


def test_an_account_with_a_duplicated_or_unreadable_record_never_reads_ok():
    from sagan_tui.wire.basics import HealthState, SourceHealth

    health = {"team": SourceHealth("team", state=HealthState.OK, last_success=frozen.NOW, duplicates=1,
                                   duplicates_since=frozen.NOW - timedelta(minutes=3)),
              "personal": SourceHealth("personal", state=HealthState.OK, last_success=frozen.NOW, unreadable=2)}
    rows = {r[0][0]: r[1] for r in account_rows(health, {}, frozen.NOW, 5, 12)}
    since = (frozen.NOW - timedelta(minutes=3)).strftime("%H:%M")
    assert rows["team"] == (f"⚠ 1 duplicated since {since}", "yellow")
    assert rows["personal"] == ("⚠ 2 unreadable", "yellow")


def test_a_balance_held_between_its_changes_reads_as_a_line_over_time():
    t0 = frozen.NOW - timedelta(hours=4)
    points = [(t0, 100.0), (t0 + timedelta(hours=1), 50.0), (t0 + timedelta(hours=3), 10.0)]
    assert resample(points, t0, frozen.NOW, 4) == [50.0, 50.0, 10.0, 10.0]
    assert resample(points, t0, frozen.NOW, 8) == [100.0, 50.0, 50.0, 50.0, 50.0, 10.0, 10.0, 10.0]


async def test_B_opens_the_account_view_on_the_cached_health_and_escape_closes_it(tmp_path):
    app = frozen.frozen_app(tmp_path)
    cache = cache_of(app)
    with cache.transaction() as conn:  # what earlier polls recorded: the balance each time it moved
        cache.record_balance(conn, "team", frozen.NOW - timedelta(hours=2), 500.0, False)
        cache.record_balance(conn, "team", frozen.NOW - timedelta(hours=1), 450.0, False)
    async with app.run_test(size=SIZE) as pilot:
        await open_dialog(pilot, "B", AccountsScreen, "the account view")
        rows = {r[0][0]: [t for t, _ in r] for r in app.screen.rows}
        assert rows["personal"][1] == "FAILING 401 since 10:50"
        assert rows["personal"][4] == "OUT: $0, RunPod stops its pods"
        assert rows["team"][4] == "11.5 d left"
        trend = lambda: {r[0][0]: r[6][0] for r in app.screen.rows}["team"]  # noqa: E731
        await wait_for(pilot, lambda: "$500.00 → $450.00 since 08:56" in trend(), what="the cache's history")
        await pilot.press("escape")
        assert not isinstance(app.screen, AccountsScreen)


def test_at_80_columns_every_column_shows_and_the_balance_history_reads_whole_on_its_own_line():
    """The box is 76 cells inside at 80 columns: the history squeezed to three letters a line cut
    `limit` and `billing` off the table (#44 walk); under it, it reads whole, sparkline and time."""
    from rich.console import Console

    from sagan_tui.wire.basics import HealthState, SourceHealth
    from sagan_tui.panel.screens.accounts import accounts_table

    health = {"team": SourceHealth("team", state=HealthState.OK, last_success=frozen.NOW, balance=412.5,
                                   spend_per_hr=1.49, spend_limit=80.0, billing_mode="PREPAID"),
              "personal": SourceHealth("personal", state=HealthState.OK, last_success=frozen.NOW, balance=3.1,
                                       spend_per_hr=1.49, under_balance=True)}
    rows = account_rows(health, seeded_history(), frozen.NOW, 5, 12)
    console = Console(width=76, record=True, color_system=None)
    console.print(accounts_table(rows, 76))
    lines = console.export_text().splitlines()
    assert all(word in lines[0] for word in ("account", "limit", "billing")) and "…" not in "".join(lines)
    [history] = [line for line in lines if line.startswith("team ") and "since" in line]
    assert "$420.00 → $413.00 since 10:46:00" in history and "▇" in history
    assert any("$80.00/h" in line and "PREPAID" in line for line in lines)
