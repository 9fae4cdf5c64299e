"""The account view (`B`): balance, spend, runway, health and the balance since start, in words."""

from __future__ import annotations

from collections import deque
from datetime import timedelta

from sagan_tui.runway import BARS, sparkline
from sagan_tui.ui.screens.accounts import AccountsScreen, account_rows

from ..ui import frozen
from ..ui.conftest import wait_for

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
    from sagan_tui.basics import HealthState, SourceHealth

    health = {"sagan": SourceHealth("sagan", state=HealthState.OK, last_success=frozen.NOW),
              "team": SourceHealth("team", state=HealthState.OK, last_success=frozen.NOW, balance=412.5,
                                   spend_per_hr=1.49, spend_limit=80.0),
              "lab": SourceHealth("lab", state=HealthState.OK, last_success=frozen.NOW, transport="rest-v2"),
              "spare": SourceHealth("spare", state=HealthState.DISABLED)}
    rows = {r[0][0]: [text for text, _style in r] for r in account_rows(health, seeded_history(), frozen.NOW, 5, 12)}
    assert list(rows) == ["team", "lab", "spare"]
    assert rows["team"][1:6] == ["ok", "$412.50", "$1.49/h", "11.5 d left", "$80.00/h"]
    assert rows["team"][6] == f"{sparkline([420.0 - i for i in range(8)], 24)} $420.00 → $413.00"
    assert rows["lab"][4] == "balance n/a (REST v2 has no balance route)"
    assert rows["spare"][1] == "off (no key)" and rows["spare"][6] == "none yet"


async def test_B_opens_the_account_view_on_the_cached_health_and_escape_closes_it(tmp_path):
    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("B")
        await wait_for(pilot, lambda: isinstance(app.screen, AccountsScreen), what="the account view")
        rows = {r[0][0]: [t for t, _ in r] for r in app.screen.rows}
        assert rows["personal"][1] == "FAILING 401 since 10:50"
        assert rows["personal"][4] == "OUT: $0, RunPod stops its pods"
        assert rows["team"][4] == "11.5 d left"
        await pilot.press("escape")
        assert not isinstance(app.screen, AccountsScreen)
